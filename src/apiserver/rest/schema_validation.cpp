// Structural-schema pruning, defaulting and validation of custom resources.

#include "apiserver/rest/schema_validation.hpp"

#include <cmath>
#include <cstdio>
#include <regex>
#include <set>

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/json_pointer.hpp>

#include "apiserver/rest/crd.hpp"
#include "apiserver/rest/json_util.hpp"
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
    const TypeSchema* member = nullptr;
    if (auto it = s.properties.find(key); it != s.properties.end()) {
      member = it->second.get();
    } else if (s.additional_properties != nullptr) {
      member = s.additional_properties.get();
    }
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
                                           std::string(s.exclusive_minimum ? "must be greater than " : "must be greater than or equal to ") +
                                               FormatNumber(*s.minimum)));
      }
    }
    if (s.maximum) {
      if (s.exclusive_maximum ? d >= *s.maximum : d > *s.maximum) {
        errs.push_back(FieldError::Invalid(path, BadValue(v),
                                           std::string(s.exclusive_maximum ? "must be less than " : "must be less than or equal to ") +
                                               FormatNumber(*s.maximum)));
      }
    }
  }
  if (v.is_string()) {
    const std::string_view str(v.get_string().data(), v.get_string().size());
    const int64_t len = RuneCount(str);
    if (s.min_length && len < *s.min_length) {
      errs.push_back(FieldError::Invalid(path, SerializeJson(v), "should be at least " + std::to_string(*s.min_length) + " chars long"));
    }
    if (s.max_length && len > *s.max_length) {
      errs.push_back(FieldError::TooLong(path, "may not be more than " + std::to_string(*s.max_length) + " bytes"));
    }
    if (!s.pattern.empty()) {
      try {
        const std::regex re(s.pattern, std::regex::ECMAScript);
        if (!std::regex_search(str.begin(), str.end(), re)) {
          errs.push_back(FieldError::Invalid(path, SerializeJson(v), "should match '" + s.pattern + "'"));
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
      errs.push_back(FieldError::Invalid(path, std::to_string(n), "should have at least " + std::to_string(*s.min_items) + " items"));
    }
    if (s.max_items && n > *s.max_items) {
      FieldError e;
      e.type = "FieldValueTooMany";
      e.field = path;
      e.detail = "must have at most " + std::to_string(*s.max_items) + " items";
      e.bad_value_json = std::to_string(n);
      errs.push_back(std::move(e));
    }
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
      errs.push_back(FieldError::Invalid(path, std::to_string(n), "should have at least " + std::to_string(*s.min_properties) + " properties"));
    }
    if (s.max_properties && n > *s.max_properties) {
      errs.push_back(FieldError::Invalid(path, std::to_string(n), "should have at most " + std::to_string(*s.max_properties) + " properties"));
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

}  // namespace

void PruneAndDefault(const TypeSchema& schema, json::object& obj, std::vector<std::string>* pruned) {
  PruneObject(schema, obj, "", /*root=*/true, pruned, /*apply_defaults=*/true);
}

std::vector<std::string> UnknownFields(const TypeSchema& schema, const json::object& obj) {
  std::vector<std::string> out;
  json::object copy = obj;
  PruneObject(schema, copy, "", /*root=*/true, &out, /*apply_defaults=*/false);
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
  if (info.schema != nullptr) {
    auto schema_errs = ValidateAgainstSchema(*info.schema, obj);
    errs.insert(errs.end(), schema_errs.begin(), schema_errs.end());
  }
}

void PrepareGenericKind(const ResourceInfo& info, json::object& obj, bool creating) {
  if (IsCrdResource(info)) {
    DefaultCrd(obj, creating);
    return;
  }
  if (info.schema != nullptr) PruneAndDefault(*info.schema, obj, nullptr);
}

Result<void> CheckUnknownFields(const ResourceInfo& info, const json::object& body,
                                std::string_view field_validation, std::vector<std::string>* warnings) {
  if (info.schema == nullptr || field_validation.empty() || field_validation == "Ignore") return Ok();
  // Built-in schemas carry merge metadata, not every field: only CRD schemas are complete.
  if (KindOf(info) != BuiltinKind::kGeneric) return Ok();
  const std::vector<std::string> unknown = UnknownFields(*info.schema, body);
  if (unknown.empty()) return Ok();
  if (field_validation == "Strict") {
    std::string msg = "strict decoding error: ";
    for (std::size_t i = 0; i < unknown.size(); ++i) msg += (i == 0 ? "" : ", ") + std::string("unknown field ") + QuoteJson(unknown[i]);
    return NewBadRequest(msg);
  }
  if (warnings != nullptr) {
    for (const auto& f : unknown) warnings->push_back("unknown field " + QuoteJson(f));
  }
  return Ok();
}

}  // namespace kube::apiserver::rest
