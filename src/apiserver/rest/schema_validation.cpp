// Structural-schema pruning, defaulting and validation of custom resources.

#include "apiserver/rest/schema_validation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>
#include <set>

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/json_pointer.hpp>

#include "apiserver/rest/builtin_schema.hpp"
#include "apiserver/rest/crd.hpp"
#include "apiserver/rest/json_util.hpp"
#include "apiserver/rest/managed_fields.hpp"
#include "apiserver/rest/strategy.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

bool IsRootMeta(std::string_view key) { return key == "apiVersion" || key == "kind" || key == "metadata"; }

std::string Child(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string Index(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

// Go's %v of a float64 bound: integers without a fraction.
std::string FormatNumber(double d) {
  if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e15) {
    return std::to_string(static_cast<int64_t>(d));
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", d);
  return buf;
}

// The schema of member `key` of an object typed `s`: its property, else additionalProperties,
// else nullptr (unknown).
const TypeSchema* MemberSchema(const TypeSchema& s, std::string_view key) {
  if (auto it = s.properties.find(key); it != s.properties.end()) return it->second.get();
  return s.additional_properties.get();
}

// Prunes (and defaults) `value` against `s`. `root` marks the top level (and embedded resources),
// where apiVersion/kind/metadata are kept.
void PruneValue(const TypeSchema& s, json::value& value, const std::string& path, bool root,
                std::vector<std::string>* pruned, bool apply_defaults);

void PruneObject(const TypeSchema& s, json::object& obj, const std::string& path, bool root,
                 std::vector<std::string>* pruned, bool apply_defaults) {
  const bool keep_meta = root || s.embedded_resource;
  // Defaults first (kube's structural defaulting), so that defaulted values get their own defaults.
  if (apply_defaults) {
    for (const auto& [key, member] : s.properties) {
      if (!member->has_default) continue;
      const auto* v = obj.if_contains(key);
      if (v == nullptr || (v->is_null() && !member->nullable)) obj[key] = member->default_value;
    }
  }
  std::vector<std::string> remove;
  for (auto& kv : obj) {
    const std::string_view key(kv.key().data(), kv.key().size());
    if (keep_meta && IsRootMeta(key)) continue;
    const TypeSchema* member = MemberSchema(s, key);
    if (member == nullptr) {
      if (!s.preserve_unknown_fields) {
        remove.emplace_back(key);
        if (pruned != nullptr) pruned->push_back(Child(path, key));
      }
      continue;
    }
    PruneValue(*member, kv.value(), Child(path, key), false, pruned, apply_defaults);
  }
  for (const auto& k : remove) obj.stable_erase(k);  // keep the client's member order
}

void PruneValue(const TypeSchema& s, json::value& value, const std::string& path, bool root,
                std::vector<std::string>* pruned, bool apply_defaults) {
  if (value.is_object()) {
    if (s.type == TypeSchema::Type::kObject || !s.properties.empty() || s.additional_properties != nullptr ||
        (s.type == TypeSchema::Type::kAny && !s.preserve_unknown_fields && !s.int_or_string)) {
      PruneObject(s, value.get_object(), path, root, pruned, apply_defaults);
    }
  } else if (value.is_array() && s.items != nullptr) {
    auto& arr = value.get_array();
    for (std::size_t i = 0; i < arr.size(); ++i) {
      PruneValue(*s.items, arr[i], Index(path, i), s.items->embedded_resource, pruned, apply_defaults);
    }
  }
}

std::string_view TypeName(TypeSchema::Type t) {
  switch (t) {
    case TypeSchema::Type::kObject:
      return "object";
    case TypeSchema::Type::kArray:
      return "array";
    case TypeSchema::Type::kString:
      return "string";
    case TypeSchema::Type::kInteger:
      return "integer";
    case TypeSchema::Type::kNumber:
      return "number";
    case TypeSchema::Type::kBoolean:
      return "boolean";
    case TypeSchema::Type::kAny:
      return "";
  }
  return "";
}

// The OpenAPI type name of a JSON value, as kube-openapi reports it.
std::string_view ValueTypeName(const json::value& v) {
  if (v.is_null()) return "null";
  if (v.is_bool()) return "boolean";
  if (v.is_string()) return "string";
  if (v.is_object()) return "object";
  if (v.is_array()) return "array";
  if (v.is_double()) {
    const double d = v.get_double();
    return d == std::floor(d) ? "integer" : "number";
  }
  return "integer";
}

bool TypeMatches(const TypeSchema& s, const json::value& v) {
  if (s.int_or_string) return v.is_string() || v.is_int64() || v.is_uint64() ||
                              (v.is_double() && v.get_double() == std::floor(v.get_double()));
  switch (s.type) {
    case TypeSchema::Type::kAny:
      return true;
    case TypeSchema::Type::kObject:
      return v.is_object();
    case TypeSchema::Type::kArray:
      return v.is_array();
    case TypeSchema::Type::kString:
      return v.is_string();
    case TypeSchema::Type::kBoolean:
      return v.is_bool();
    case TypeSchema::Type::kInteger:
      return v.is_int64() || v.is_uint64() || (v.is_double() && v.get_double() == std::floor(v.get_double()));
    case TypeSchema::Type::kNumber:
      return v.is_number();
  }
  return true;
}

// The bad value of an error as Go prints it (0.5, not 5E-1).
std::string BadValue(const json::value& v) {
  if (v.is_double()) return FormatNumber(v.get_double());
  return SerializeJson(v);
}

double AsDouble(const json::value& v) {
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  return v.get_double();
}

// Number of Unicode code points (kube counts characters, not bytes, for minLength/maxLength).
int64_t RuneCount(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

// kube-openapi's message prefix: "<path> in body ".
std::string InBody(const std::string& path) { return path + " in body "; }

// field.TooMany: `Too many: <n>: must have at most <max> items` ("item" for 1).
FieldError TooMany(const std::string& path, int64_t n, int64_t max) {
  FieldError e;
  e.type = "FieldValueTooMany";
  e.field = path;
  e.detail = "must have at most " + std::to_string(max) + (max == 1 ? " item" : " items");
  e.bad_value_json = std::to_string(n);
  return e;
}

void ValidateValue(const TypeSchema& s, const json::value& v, const std::string& path, bool root,
                   std::vector<FieldError>& errs) {
  if (v.is_null()) {
    if (s.nullable || s.type == TypeSchema::Type::kAny) return;
    errs.push_back(FieldError::TypeInvalid(path, QuoteJson("null"), path + " in body must be of type " +
                                                                        std::string(TypeName(s.type)) + ": \"null\""));
    return;
  }
  if (!TypeMatches(s, v)) {
    const std::string want = s.int_or_string ? "integer,string" : std::string(TypeName(s.type));
    const std::string got(ValueTypeName(v));
    errs.push_back(FieldError::TypeInvalid(path, QuoteJson(got), path + " in body must be of type " + want + ": " + QuoteJson(got)));
    return;
  }
  if (!s.enum_values.empty()) {
    bool found = false;
    for (const auto& e : s.enum_values) found = found || JsonEqual(e, v);
    if (!found) {
      std::vector<std::string> allowed;
      for (const auto& e : s.enum_values) allowed.push_back(e.is_string() ? std::string(e.get_string()) : SerializeJson(e));
      errs.push_back(FieldError::NotSupported(path, BadValue(v), allowed));
    }
  }
  if (v.is_number()) {
    const double d = AsDouble(v);
    if (s.minimum) {
      if (s.exclusive_minimum ? d <= *s.minimum : d < *s.minimum) {
        errs.push_back(FieldError::Invalid(path, BadValue(v),
                                           InBody(path) + (s.exclusive_minimum ? "should be greater than " : "should be greater than or equal to ") +
                                               FormatNumber(*s.minimum)));
      }
    }
    if (s.maximum) {
      if (s.exclusive_maximum ? d >= *s.maximum : d > *s.maximum) {
        errs.push_back(FieldError::Invalid(path, BadValue(v),
                                           InBody(path) + (s.exclusive_maximum ? "should be less than " : "should be less than or equal to ") +
                                               FormatNumber(*s.maximum)));
      }
    }
  }
  if (v.is_string()) {
    const std::string_view str(v.get_string().data(), v.get_string().size());
    const int64_t len = RuneCount(str);
    if (s.min_length && len < *s.min_length) {
      errs.push_back(FieldError::Invalid(path, SerializeJson(v), InBody(path) + "should be at least " + std::to_string(*s.min_length) + " chars long"));
    }
    if (s.max_length && len > *s.max_length) {
      errs.push_back(FieldError::TooLong(path, "may not be more than " + std::to_string(*s.max_length) +
                                                    (*s.max_length == 1 ? " byte" : " bytes")));
    }
    if (!s.pattern.empty()) {
      try {
        const std::regex re(s.pattern, std::regex::ECMAScript);
        if (!std::regex_search(str.begin(), str.end(), re)) {
          errs.push_back(FieldError::Invalid(path, SerializeJson(v), InBody(path) + "should match '" + s.pattern + "'"));
        }
      } catch (const std::regex_error&) {
        errs.push_back(FieldError::Invalid(path, SerializeJson(v), "pattern '" + s.pattern + "' is not a valid regular expression"));
      }
    }
  }
  if (v.is_array()) {
    const auto& arr = v.get_array();
    const auto n = static_cast<int64_t>(arr.size());
    if (s.min_items && n < *s.min_items) {
      errs.push_back(FieldError::Invalid(path, std::to_string(n), InBody(path) + "should have at least " + std::to_string(*s.min_items) + " items"));
    }
    if (s.max_items && n > *s.max_items) errs.push_back(TooMany(path, n, *s.max_items));
    if (s.list_type == TypeSchema::ListType::kSet) {
      for (std::size_t i = 0; i < arr.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
          if (JsonEqual(arr[i], arr[j])) {
            errs.push_back(FieldError::Duplicate(Index(path, i), SerializeJson(arr[i])));
            break;
          }
        }
      }
    }
    if (s.items != nullptr) {
      for (std::size_t i = 0; i < arr.size(); ++i) ValidateValue(*s.items, arr[i], Index(path, i), s.items->embedded_resource, errs);
    }
  }
  if (v.is_object()) {
    const auto& obj = v.get_object();
    const bool keep_meta = root || s.embedded_resource;
    for (const auto& r : s.required) {
      if (!obj.contains(r)) errs.push_back(FieldError::Required(Child(path, r), ""));
    }
    const auto n = static_cast<int64_t>(obj.size());
    if (s.min_properties && n < *s.min_properties) {
      errs.push_back(FieldError::Invalid(path, std::to_string(n), InBody(path) + "should have at least " +
                                                                      std::to_string(*s.min_properties) + " properties"));
    }
    if (s.max_properties && n > *s.max_properties) {
      errs.push_back(TooMany(path, n, *s.max_properties));  // kube reports it as field.TooMany
    }
    for (const auto& kv : obj) {
      const std::string_view key(kv.key().data(), kv.key().size());
      if (keep_meta && IsRootMeta(key)) continue;
      const TypeSchema* member = nullptr;
      if (auto it = s.properties.find(key); it != s.properties.end()) {
        member = it->second.get();
      } else if (s.additional_properties != nullptr) {
        member = s.additional_properties.get();
      }
      if (member != nullptr) ValidateValue(*member, kv.value(), Child(path, key), false, errs);
    }
  }
}

void CollectUnknown(const TypeSchema& s, const json::value& value, const std::string& path, bool root,
                    std::vector<std::string>& out);

// The paths PruneObject would remove from `obj`, without copying or modifying it.
void CollectUnknownMembers(const TypeSchema& s, const json::object& obj, const std::string& path, bool keep_meta,
                           std::vector<std::string>& out) {
  for (const auto& kv : obj) {
    const std::string_view key(kv.key().data(), kv.key().size());
    if (keep_meta && IsRootMeta(key)) continue;
    const TypeSchema* member = MemberSchema(s, key);
    if (member == nullptr) {
      if (!s.preserve_unknown_fields) out.push_back(Child(path, key));
      continue;
    }
    CollectUnknown(*member, kv.value(), Child(path, key), false, out);
  }
}

// The paths PruneValue would remove from `value`.
void CollectUnknown(const TypeSchema& s, const json::value& value, const std::string& path, bool root,
                    std::vector<std::string>& out) {
  if (value.is_object()) {
    if (s.type == TypeSchema::Type::kObject || !s.properties.empty() || s.additional_properties != nullptr ||
        (s.type == TypeSchema::Type::kAny && !s.preserve_unknown_fields && !s.int_or_string)) {
      CollectUnknownMembers(s, value.get_object(), path, root || s.embedded_resource, out);
    }
  } else if (value.is_array() && s.items != nullptr) {
    const auto& arr = value.get_array();
    for (std::size_t i = 0; i < arr.size(); ++i) {
      CollectUnknown(*s.items, arr[i], Index(path, i), s.items->embedded_resource, out);
    }
  }
}

// The members of an apply configuration that `s` does not declare, as structured-merge-diff's
// typed conversion reports them (`.spec.foo`, `.spec.containers[name="c"].bar`).
// With `keep_meta` (the root and embedded resources of custom resources), apiVersion, kind and
// metadata are not looked at (kube's CRD type converter adds their schemas itself).
void UndeclaredFields(const TypeSchema& s, const json::value& v, FieldPath& path, std::vector<std::string>& out,
                      bool keep_meta) {
  if (v.is_object()) {
    if (s.preserve_unknown_fields && s.properties.empty() && s.additional_properties == nullptr) return;
    if (s.type != TypeSchema::Type::kObject && s.properties.empty() && s.additional_properties == nullptr) return;
    for (const auto& kv : v.get_object()) {
      const std::string_view key(kv.key().data(), kv.key().size());
      if ((keep_meta || s.embedded_resource) && IsRootMeta(key)) continue;
      const TypeSchema* member = s.Member(key);
      path.push_back(PathElement::Field(std::string(key)));
      if (member == nullptr) {
        if (!s.preserve_unknown_fields) out.push_back(PathString(path) + ": field not declared in schema");
      } else {
        UndeclaredFields(*member, kv.value(), path, out, /*keep_meta=*/false);
      }
      path.pop_back();
    }
    return;
  }
  if (!v.is_array() || s.items == nullptr) return;
  const auto& arr = v.get_array();
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const json::value& e = arr[i];
    PathElement el = PathElement::Index(static_cast<int64_t>(i));
    if (s.list_type == TypeSchema::ListType::kSet) {
      el = PathElement::Value(e);
    } else if (s.list_type == TypeSchema::ListType::kMap && e.is_object()) {
      std::vector<std::pair<std::string, json::value>> key;
      for (const auto& k : s.list_map_keys) {
        if (const auto* kv = e.get_object().if_contains(k)) key.emplace_back(k, *kv);
      }
      if (!key.empty()) el = PathElement::Key(std::move(key));
    }
    path.push_back(std::move(el));
    UndeclaredFields(*s.items, e, path, out, /*keep_meta=*/false);
    path.pop_back();
  }
}

}  // namespace

void PruneAndDefault(const TypeSchema& schema, json::object& obj, std::vector<std::string>* pruned) {
  PruneObject(schema, obj, "", /*root=*/true, pruned, /*apply_defaults=*/true);
}

std::vector<std::string> UnknownFields(const TypeSchema& schema, const json::object& obj, bool keep_root_meta) {
  std::vector<std::string> out;
  CollectUnknownMembers(schema, obj, "", keep_root_meta || schema.embedded_resource, out);
  return out;
}

void PruneUnknownFields(const TypeSchema& schema, json::object& obj) {
  PruneObject(schema, obj, "", /*root=*/false, nullptr, /*apply_defaults=*/false);
}

void PruneBuiltinFields(const ResourceInfo& info, json::object& obj) {
  if (const TypeSchemaPtr schema = BuiltinFieldSchema(info)) PruneUnknownFields(*schema, obj);
}

std::vector<std::string> UndeclaredApplyFields(const TypeSchema& schema, const json::object& config,
                                               bool keep_root_meta) {
  std::vector<std::string> out;
  FieldPath path;
  UndeclaredFields(schema, json::value(config), path, out, keep_root_meta);
  return out;
}

std::vector<FieldError> ValidateAgainstSchema(const TypeSchema& schema, const json::object& obj) {
  std::vector<FieldError> errs;
  ValidateValue(schema, json::value(obj), "", /*root=*/true, errs);
  return errs;
}

void ValidateGenericKind(const ResourceInfo& info, const json::object& obj, std::vector<FieldError>& errs) {
  if (IsCrdResource(info)) {
    auto crd_errs = ValidateCrd(obj, nullptr);
    errs.insert(errs.end(), crd_errs.begin(), crd_errs.end());
    return;
  }
  if (!info.builtin && info.schema != nullptr) {
    auto schema_errs = ValidateAgainstSchema(*info.schema, obj);
    errs.insert(errs.end(), schema_errs.begin(), schema_errs.end());
  }
}

void PrepareGenericKind(const ResourceInfo& info, json::object& obj, bool creating) {
  if (IsCrdResource(info)) {
    DefaultCrd(obj, creating);  // pruned by PruneBuiltinFields (the strategy calls it first)
    return;
  }
  if (!info.builtin && info.schema != nullptr) PruneAndDefault(*info.schema, obj, nullptr);
}

namespace {

Result<void> CheckUnknown(const ResourceInfo& info, const json::object& body, std::string_view field_validation,
                          std::vector<std::string>* warnings, bool decoding,
                          const std::vector<std::string>& decode_problems = {}) {
  // kube 1.32's default (the ServerSideFieldValidation feature is GA) is Warn.
  if (field_validation == "Ignore") return Ok();
  // Built-in kinds: their complete field schema, metadata included; custom resources: their CRD
  // schema (apiVersion, kind and metadata are not part of it).
  const TypeSchemaPtr builtin = BuiltinFieldSchema(info);
  const TypeSchema* schema = builtin != nullptr ? builtin.get() : info.schema.get();
  std::vector<std::string> problems = decode_problems;
  if (schema != nullptr) {
    for (const auto& f : UnknownFields(*schema, body, /*keep_root_meta=*/builtin == nullptr)) {
      problems.push_back("unknown field " + QuoteJson(f));
    }
  }
  if (problems.empty()) return Ok();
  if (field_validation == "Strict") {
    // A create or update body fails kube's decoder, whose error the handler wraps
    // (transformDecodeError); patch handlers answer the strict error alone.
    std::string msg = decoding ? info.kind + " in version " + QuoteJson(info.version) + " cannot be handled as a " +
                                     info.kind + ": "
                               : std::string();
    msg += "strict decoding error: ";
    for (std::size_t i = 0; i < problems.size(); ++i) msg += (i == 0 ? "" : ", ") + problems[i];
    return NewBadRequest(msg);
  }
  if (warnings == nullptr) return Ok();
  // go-yaml's strict errors are one error with a line per problem; each line is a warning.
  constexpr std::string_view kYamlErrors = "yaml: unmarshal errors:\n  ";
  for (const auto& problem : problems) {
    if (!problem.starts_with(kYamlErrors)) {
      warnings->push_back(problem);
      continue;
    }
    for (std::size_t start = kYamlErrors.size(); start < problem.size();) {
      const std::size_t end = std::min(problem.find("\n  ", start), problem.size());
      warnings->push_back(problem.substr(start, end - start));
      start = end + 3;
    }
  }
  return Ok();
}

}  // namespace

Result<void> CheckUnknownFields(const ResourceInfo& info, const json::object& body,
                                std::string_view field_validation, std::vector<std::string>* warnings,
                                const std::vector<std::string>& decode_problems) {
  return CheckUnknown(info, body, field_validation, warnings, /*decoding=*/true, decode_problems);
}

Result<void> CheckUnknownFieldsOfPatch(const ResourceInfo& info, const json::object& patched,
                                       std::string_view field_validation, std::vector<std::string>* warnings) {
  return CheckUnknown(info, patched, field_validation, warnings, /*decoding=*/false);
}

}  // namespace kube::apiserver::rest
