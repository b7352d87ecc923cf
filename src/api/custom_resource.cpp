#include <kube/api/custom_resource.hpp>

#include <algorithm>
#include <cctype>

#include <boost/json/serialize.hpp>

namespace kube::api {
namespace internal {

namespace json = boost::json;

json::object ScalarSchema(std::string_view kind) {
  json::object s;
  if (kind == "string") {
    s["type"] = "string";
  } else if (kind == "boolean") {
    s["type"] = "boolean";
  } else if (kind == "int32" || kind == "int64") {
    s["type"] = "integer";
    s["format"] = kind;
  } else if (kind == "double") {
    s["type"] = "number";
  } else if (kind == "quantity" || kind == "int-or-string") {
    s["anyOf"] = json::array{json::object{{"type", "integer"}}, json::object{{"type", "string"}}};
    if (kind == "quantity") {
      // apimachinery's quantity grammar, as controller-gen writes it for resource.Quantity.
      s["pattern"] =
          R"(^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$)";
    }
    s["x-kubernetes-int-or-string"] = true;
  } else if (kind == "date-time") {
    s["type"] = "string";
    s["format"] = "date-time";
  } else if (kind == "any") {
    s["x-kubernetes-preserve-unknown-fields"] = true;
  } else if (kind == "preserved-object") {
    s["type"] = "object";
    s["x-kubernetes-preserve-unknown-fields"] = true;
  } else {
    s["type"] = "object";
  }
  return s;
}

json::object ConditionSchema() {
  json::object props;
  props["lastTransitionTime"] = json::object{{"type", "string"}, {"format", "date-time"}};
  props["message"] = json::object{{"type", "string"}, {"maxLength", 32768}};
  props["observedGeneration"] = json::object{{"type", "integer"}, {"format", "int64"}, {"minimum", 0}};
  props["reason"] = json::object{{"type", "string"},
                                 {"maxLength", 1024},
                                 {"minLength", 1},
                                 {"pattern", "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"}};
  props["status"] = json::object{{"type", "string"}, {"enum", json::array{"True", "False", "Unknown"}}};
  props["type"] = json::object{
      {"type", "string"},
      {"maxLength", 316},
      {"pattern",
       R"(^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$)"}};
  json::object s;
  s["type"] = "object";
  s["properties"] = std::move(props);
  s["required"] = json::array{"lastTransitionTime", "message", "reason", "status", "type"};
  return s;
}

json::object EmbeddedObjectMetaSchema(const CrdOptions& options) {
  json::object s;
  s["type"] = "object";
  if (!options.embedded_object_meta) return s;
  // controller-gen's subset for crd:generateEmbeddedObjectMeta=true: what a template's metadata
  // is for. The server-set fields (uid, resourceVersion, creationTimestamp...) are pruned.
  const auto string_map = [] {
    return json::object{{"type", "object"}, {"additionalProperties", json::object{{"type", "string"}}}};
  };
  json::object props;
  props["annotations"] = string_map();
  props["finalizers"] = json::object{{"type", "array"}, {"items", json::object{{"type", "string"}}}};
  props["labels"] = string_map();
  props["name"] = json::object{{"type", "string"}};
  props["namespace"] = json::object{{"type", "string"}};
  s["properties"] = std::move(props);
  return s;
}

namespace {

json::value ScalarJson(const SchemaScalar& v) {
  return std::visit(
      [](const auto& x) -> json::value {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<X, std::string>) {
          return json::string(x);
        } else {
          return x;
        }
      },
      v);
}

std::string_view ListTypeName(ListType t) {
  switch (t) {
    case ListType::kUnset: return "";
    case ListType::kAtomic: return "atomic";
    case ListType::kSet: return "set";
    case ListType::kMap: return "map";
  }
  return "";
}

// A bound as JSON: an integer when it is one (`minimum: 0`, not `0E0`).
json::value Number(double v) {
  if (v >= -9007199254740992.0 && v <= 9007199254740992.0 && v == static_cast<double>(static_cast<int64_t>(v))) {
    return static_cast<int64_t>(v);
  }
  return v;
}

}  // namespace

void ApplyOptions(json::object& s, const FieldOptions& o) {
  if (!o.description.empty()) s["description"] = o.description;
  if (!std::holds_alternative<std::monostate>(o.default_value)) s["default"] = ScalarJson(o.default_value);
  if (!o.enum_values.empty()) {
    json::array values;
    for (const auto& v : o.enum_values) values.push_back(ScalarJson(v));
    s["enum"] = std::move(values);
  }
  if (o.minimum) {
    s["minimum"] = Number(*o.minimum);
    if (o.exclusive_minimum) s["exclusiveMinimum"] = true;
  }
  if (o.maximum) {
    s["maximum"] = Number(*o.maximum);
    if (o.exclusive_maximum) s["exclusiveMaximum"] = true;
  }
  if (o.min_length) s["minLength"] = *o.min_length;
  if (o.max_length) s["maxLength"] = *o.max_length;
  if (o.min_items) s["minItems"] = *o.min_items;
  if (o.max_items) s["maxItems"] = *o.max_items;
  if (!o.pattern.empty()) s["pattern"] = o.pattern;
  if (!o.format.empty()) s["format"] = o.format;
  if (o.nullable) s["nullable"] = true;
  if (o.preserve_unknown_fields) s["x-kubernetes-preserve-unknown-fields"] = true;
  if (o.list_type != ListType::kUnset) {
    s["x-kubernetes-list-type"] = ListTypeName(o.list_type);
    if (o.list_type == ListType::kMap) {
      json::array keys;
      for (const auto& k : o.list_map_keys) keys.emplace_back(k);
      s["x-kubernetes-list-map-keys"] = std::move(keys);
      RequireListMapKeys(s);
    }
  }
}

void RequireListMapKeys(json::object& s) {
  const json::value* keys = s.if_contains("x-kubernetes-list-map-keys");
  json::value* items = s.if_contains("items");
  if (keys == nullptr || items == nullptr || !items->is_object()) return;
  json::object& item = items->as_object();
  const json::value* props = item.if_contains("properties");
  json::value& required = item["required"];
  if (!required.is_array()) required = json::array{};
  for (const json::value& key : keys->as_array()) {
    const json::value* prop = props != nullptr && key.is_string() ? props->as_object().if_contains(key.as_string())
                                                                   : nullptr;
    const bool defaulted = prop != nullptr && prop->is_object() && prop->as_object().contains("default");
    auto& list = required.as_array();
    if (!defaulted && std::find(list.begin(), list.end(), key) == list.end()) list.push_back(key);
  }
  if (required.as_array().empty()) item.erase("required");
}

json::object CrdDocument(std::string_view group, std::string_view version, std::string_view kind,
                         std::string_view plural, bool namespaced, bool has_status, const CrdOptions& options,
                         json::object schema) {
  std::string singular = options.singular;
  if (singular.empty()) {
    for (const char c : kind) singular.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  json::object names;
  names["kind"] = kind;
  names["listKind"] = std::string(kind) + "List";
  names["plural"] = plural;
  names["singular"] = singular;
  if (!options.short_names.empty()) {
    json::array a;
    for (const auto& n : options.short_names) a.emplace_back(n);
    names["shortNames"] = std::move(a);
  }
  if (!options.categories.empty()) {
    json::array a;
    for (const auto& n : options.categories) a.emplace_back(n);
    names["categories"] = std::move(a);
  }
  json::object v;
  v["name"] = version;
  v["served"] = true;
  v["storage"] = true;
  v["schema"] = json::object{{"openAPIV3Schema", std::move(schema)}};
  json::object subresources;
  if (has_status) subresources["status"] = json::object{};
  if (options.scale) {
    json::object scale;
    scale["specReplicasPath"] = options.scale->spec_replicas_path;
    scale["statusReplicasPath"] = options.scale->status_replicas_path;
    if (!options.scale->label_selector_path.empty()) scale["labelSelectorPath"] = options.scale->label_selector_path;
    subresources["scale"] = std::move(scale);
  }
  if (!subresources.empty()) v["subresources"] = std::move(subresources);
  if (!options.printer_columns.empty()) {
    json::array columns;
    for (const auto& c : options.printer_columns) {
      json::object col;
      col["name"] = c.name;
      col["type"] = c.type;
      col["jsonPath"] = c.json_path;
      if (!c.description.empty()) col["description"] = c.description;
      if (!c.format.empty()) col["format"] = c.format;
      if (c.priority != 0) col["priority"] = c.priority;
      columns.push_back(std::move(col));
    }
    v["additionalPrinterColumns"] = std::move(columns);
  }
  json::object spec;
  spec["group"] = group;
  spec["names"] = std::move(names);
  spec["scope"] = namespaced ? "Namespaced" : "Cluster";
  spec["versions"] = json::array{std::move(v)};
  json::object crd;
  crd["apiVersion"] = "apiextensions.k8s.io/v1";
  crd["kind"] = "CustomResourceDefinition";
  crd["metadata"] = json::object{{"name", std::string(plural) + "." + std::string(group)}};
  crd["spec"] = std::move(spec);
  return crd;
}

}  // namespace internal

namespace {

// True when a plain (unquoted) YAML scalar would not read back as this string.
bool NeedsQuotes(std::string_view s) {
  if (s.empty()) return true;
  static constexpr std::string_view kWords[] = {"true", "false", "yes", "no", "on", "off", "null", "~",
                                                 "True", "False", "Yes", "No", "On", "Off", "Null", "NULL",
                                                 "TRUE", "FALSE", "YES", "NO", "ON", "OFF", "y", "n", "Y", "N"};
  for (const auto w : kWords) {
    if (s == w) return true;
  }
  if (std::string_view("-?:,[]{}#&*!|>'\"%@` ").find(s.front()) != std::string_view::npos) return true;
  if (s.back() == ' ' || s.back() == ':') return true;
  if (s.find(": ") != std::string_view::npos || s.find(" #") != std::string_view::npos) return true;
  for (const char c : s) {
    if (static_cast<unsigned char>(c) < 0x20) return true;
  }
  // Anything that starts like a number (1, .5, 1e3, 0x1, +1) is quoted.
  const char f = s.front();
  return (f >= '0' && f <= '9') || f == '.' || f == '+';
}

void EmitScalar(const boost::json::value& v, std::string& out) {
  if (v.is_string()) {
    const std::string_view s = v.as_string();
    if (NeedsQuotes(s)) {
      out += boost::json::serialize(v);
    } else {
      out += s;
    }
  } else {
    out += boost::json::serialize(v);
  }
}

bool IsEmptyContainer(const boost::json::value& v) {
  return (v.is_object() && v.as_object().empty()) || (v.is_array() && v.as_array().empty());
}

void Emit(const boost::json::value& v, int indent, std::string& out);

void EmitKeyValue(std::string_view key, const boost::json::value& v, int indent, std::string& out) {
  out.append(static_cast<std::size_t>(indent), ' ');
  EmitScalar(boost::json::value(key), out);
  out += ':';
  if ((v.is_object() || v.is_array()) && !IsEmptyContainer(v)) {
    out += '\n';
    Emit(v, v.is_array() ? indent : indent + 2, out);
  } else {
    out += ' ';
    EmitScalar(v, out);
    out += '\n';
  }
}

void Emit(const boost::json::value& v, int indent, std::string& out) {
  if (const auto* o = v.if_object()) {
    for (const auto& [k, val] : *o) EmitKeyValue(k, val, indent, out);
  } else if (const auto* a = v.if_array()) {
    for (const auto& e : *a) {
      out.append(static_cast<std::size_t>(indent), ' ');
      out += "- ";
      if (e.is_object() && !e.as_object().empty()) {
        // The first member goes on the dash's line, the rest below it.
        std::string nested;
        Emit(e, indent + 2, nested);
        out.append(nested, static_cast<std::size_t>(indent) + 2, std::string::npos);
      } else if (e.is_array() && !e.as_array().empty()) {
        out += '\n';
        Emit(e, indent + 2, out);
      } else {
        EmitScalar(e, out);
        out += '\n';
      }
    }
  } else {
    out.append(static_cast<std::size_t>(indent), ' ');
    EmitScalar(v, out);
    out += '\n';
  }
}

}  // namespace

std::string ToYaml(const boost::json::value& value) {
  std::string out;
  if (IsEmptyContainer(value) || !(value.is_object() || value.is_array())) {
    EmitScalar(value, out);
    out += '\n';
    return out;
  }
  Emit(value, 0, out);
  return out;
}

}  // namespace kube::api
