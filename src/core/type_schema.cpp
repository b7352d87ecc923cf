#include <kube/core/type_schema.hpp>

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/status.hpp>

namespace kube {
namespace json = boost::json;
namespace {

constexpr int kMaxDepth = 64;

// JSON-path-ish location of a schema node for error messages ("properties.spec.items").
std::string Join(std::string_view path, std::string_view key) {
  if (path.empty()) return std::string(key);
  return std::string(path) + "." + std::string(key);
}

Error WrongType(std::string_view path, std::string_view want) {
  return NewBadRequest(std::string(path) + ": must be " + std::string(want));
}

Result<bool> BoolAt(const json::object& o, std::string_view key, std::string_view path) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return false;
  if (!v->is_bool()) return WrongType(Join(path, key), "a boolean");
  return v->get_bool();
}

Result<std::string> StringAt(const json::object& o, std::string_view key, std::string_view path) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::string();
  if (!v->is_string()) return WrongType(Join(path, key), "a string");
  return std::string(v->get_string());
}

Result<std::optional<double>> NumberAt(const json::object& o, std::string_view key, std::string_view path) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::optional<double>();
  if (v->is_int64()) return std::optional<double>(static_cast<double>(v->get_int64()));
  if (v->is_uint64()) return std::optional<double>(static_cast<double>(v->get_uint64()));
  if (v->is_double()) return std::optional<double>(v->get_double());
  return WrongType(Join(path, key), "a number");
}

Result<std::optional<int64_t>> IntAt(const json::object& o, std::string_view key, std::string_view path) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::optional<int64_t>();
  if (v->is_int64() && v->get_int64() >= 0) return std::optional<int64_t>(v->get_int64());
  if (v->is_uint64()) return std::optional<int64_t>(static_cast<int64_t>(v->get_uint64()));
  return WrongType(Join(path, key), "a non-negative integer");
}

Result<std::vector<std::string>> StringsAt(const json::object& o, std::string_view key, std::string_view path) {
  std::vector<std::string> out;
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return out;
  if (!v->is_array()) return WrongType(Join(path, key), "an array of strings");
  for (const auto& e : v->get_array()) {
    if (!e.is_string()) return WrongType(Join(path, key), "an array of strings");
    out.emplace_back(e.get_string());
  }
  return out;
}

Result<TypeSchema::Type> ParseType(std::string_view t, std::string_view path) {
  if (t.empty()) return TypeSchema::Type::kAny;
  if (t == "object") return TypeSchema::Type::kObject;
  if (t == "array") return TypeSchema::Type::kArray;
  if (t == "string") return TypeSchema::Type::kString;
  if (t == "integer") return TypeSchema::Type::kInteger;
  if (t == "number") return TypeSchema::Type::kNumber;
  if (t == "boolean") return TypeSchema::Type::kBoolean;
  return NewBadRequest(Join(path, "type") + ": unsupported value \"" + std::string(t) +
                       "\": supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"");
}

// The macro-free way to propagate errors from the small accessors above.
#define KUBE_SCHEMA_TRY(var, expr)               \
  auto var##_r = (expr);                         \
  if (!var##_r.ok()) return std::move(var##_r).error(); \
  auto var = std::move(*var##_r)

Result<TypeSchemaPtr> Parse(const json::value& v, const std::string& path, int depth) {
  if (depth > kMaxDepth) return NewBadRequest(path + ": schema nests deeper than 64 levels");
  if (!v.is_object()) return WrongType(path.empty() ? "schema" : path, "an object");
  const auto& o = v.get_object();
  auto s = std::make_shared<TypeSchema>();

  KUBE_SCHEMA_TRY(type, StringAt(o, "type", path));
  KUBE_SCHEMA_TRY(parsed_type, ParseType(type, path));
  s->type = parsed_type;
  KUBE_SCHEMA_TRY(ios, BoolAt(o, "x-kubernetes-int-or-string", path));
  s->int_or_string = ios;
  KUBE_SCHEMA_TRY(pu, BoolAt(o, "x-kubernetes-preserve-unknown-fields", path));
  s->preserve_unknown_fields = pu;
  KUBE_SCHEMA_TRY(er, BoolAt(o, "x-kubernetes-embedded-resource", path));
  s->embedded_resource = er;
  KUBE_SCHEMA_TRY(nullable, BoolAt(o, "nullable", path));
  s->nullable = nullable;

  if (const auto* props = o.if_contains("properties"); props != nullptr && !props->is_null()) {
    if (!props->is_object()) return WrongType(Join(path, "properties"), "an object");
    for (const auto& [name, child] : props->get_object()) {
      auto parsed = Parse(child, Join(Join(path, "properties"), name), depth + 1);
      if (!parsed.ok()) return std::move(parsed).error();
      s->properties.emplace(std::string(name), std::move(*parsed));
    }
  }
  if (const auto* ap = o.if_contains("additionalProperties"); ap != nullptr && !ap->is_null()) {
    if (ap->is_bool()) {
      if (ap->get_bool()) s->additional_properties = std::make_shared<TypeSchema>();
    } else {
      auto parsed = Parse(*ap, Join(path, "additionalProperties"), depth + 1);
      if (!parsed.ok()) return std::move(parsed).error();
      s->additional_properties = std::move(*parsed);
    }
  }
  if (const auto* items = o.if_contains("items"); items != nullptr && !items->is_null()) {
    auto parsed = Parse(*items, Join(path, "items"), depth + 1);
    if (!parsed.ok()) return std::move(parsed).error();
    s->items = std::move(*parsed);
  }

  KUBE_SCHEMA_TRY(list_type, StringAt(o, "x-kubernetes-list-type", path));
  if (!list_type.empty()) {
    s->list_type_set = true;
    if (list_type == "atomic") {
      s->list_type = TypeSchema::ListType::kAtomic;
    } else if (list_type == "set") {
      s->list_type = TypeSchema::ListType::kSet;
    } else if (list_type == "map") {
      s->list_type = TypeSchema::ListType::kMap;
    } else {
      return NewBadRequest(Join(path, "x-kubernetes-list-type") + ": unsupported value \"" + list_type +
                           "\": supported values: \"atomic\", \"map\", \"set\"");
    }
  }
  KUBE_SCHEMA_TRY(keys, StringsAt(o, "x-kubernetes-list-map-keys", path));
  s->list_map_keys = std::move(keys);
  KUBE_SCHEMA_TRY(map_type, StringAt(o, "x-kubernetes-map-type", path));
  s->map_atomic = map_type == "atomic";
  KUBE_SCHEMA_TRY(strategy, StringAt(o, "x-kubernetes-patch-strategy", path));
  s->patch_strategy = std::move(strategy);
  KUBE_SCHEMA_TRY(merge_key, StringAt(o, "x-kubernetes-patch-merge-key", path));
  s->patch_merge_key = std::move(merge_key);

  KUBE_SCHEMA_TRY(required, StringsAt(o, "required", path));
  s->required = std::move(required);
  if (const auto* e = o.if_contains("enum"); e != nullptr && !e->is_null()) {
    if (!e->is_array()) return WrongType(Join(path, "enum"), "an array");
    s->enum_values.assign(e->get_array().begin(), e->get_array().end());
  }
  KUBE_SCHEMA_TRY(minimum, NumberAt(o, "minimum", path));
  s->minimum = minimum;
  KUBE_SCHEMA_TRY(maximum, NumberAt(o, "maximum", path));
  s->maximum = maximum;
  KUBE_SCHEMA_TRY(emin, BoolAt(o, "exclusiveMinimum", path));
  s->exclusive_minimum = emin;
  KUBE_SCHEMA_TRY(emax, BoolAt(o, "exclusiveMaximum", path));
  s->exclusive_maximum = emax;
  KUBE_SCHEMA_TRY(min_length, IntAt(o, "minLength", path));
  s->min_length = min_length;
  KUBE_SCHEMA_TRY(max_length, IntAt(o, "maxLength", path));
  s->max_length = max_length;
  KUBE_SCHEMA_TRY(min_items, IntAt(o, "minItems", path));
  s->min_items = min_items;
  KUBE_SCHEMA_TRY(max_items, IntAt(o, "maxItems", path));
  s->max_items = max_items;
  KUBE_SCHEMA_TRY(min_props, IntAt(o, "minProperties", path));
  s->min_properties = min_props;
  KUBE_SCHEMA_TRY(max_props, IntAt(o, "maxProperties", path));
  s->max_properties = max_props;
  KUBE_SCHEMA_TRY(pattern, StringAt(o, "pattern", path));
  s->pattern = std::move(pattern);
  KUBE_SCHEMA_TRY(format, StringAt(o, "format", path));
  s->format = std::move(format);
  if (const auto* d = o.if_contains("default"); d != nullptr) {
    s->default_value = *d;
    s->has_default = true;
  }
  return TypeSchemaPtr(std::move(s));
}

#undef KUBE_SCHEMA_TRY

}  // namespace

const TypeSchema* TypeSchema::Member(std::string_view name) const {
  if (auto it = properties.find(name); it != properties.end()) return it->second.get();
  return additional_properties.get();
}

bool TypeSchema::HasPatchStrategy(std::string_view strategy) const {
  std::string_view rest = patch_strategy;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    if (rest.substr(0, comma) == strategy) return true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return false;
}

Result<TypeSchemaPtr> ParseTypeSchema(const json::value& openapi) { return Parse(openapi, "", 0); }

Result<TypeSchemaPtr> ParseTypeSchema(std::string_view openapi_json) {
  auto v = ParseJson(openapi_json, "schema");
  if (!v.ok()) return std::move(v).error();
  return ParseTypeSchema(*v);
}

}  // namespace kube
