#include "apiserver/rest/go_zero.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

const json::object& Table() {
  static const json::object table = [] {
    auto parsed = json::parse(internal::GoZeroTableJson());
    return parsed.is_object() ? std::move(parsed.as_object()) : json::object();
  }();
  return table;
}

// Descends `node` and the definition `def` together. Schema nodes are owned by the tree being
// built and not yet shared, so they may be changed.
void Annotate(TypeSchema& node, const json::object& defs, std::string_view def, int depth) {
  if (depth > 64) return;
  const auto* entry_v = defs.if_contains(def);
  if (entry_v == nullptr || !entry_v->is_object()) return;
  const auto& entry = entry_v->get_object();
  node.go_type = true;
  if (const auto* zero = entry.if_contains("z"); zero != nullptr && zero->is_object()) {
    for (const auto& kv : zero->get_object()) node.go_zero_members[std::string(kv.key())] = kv.value();
  }
  if (const auto* atomic = entry.if_contains("a"); atomic != nullptr && atomic->is_bool() && atomic->get_bool()) {
    node.map_atomic = true;
  }
  if (const auto* types = entry.if_contains("t"); types != nullptr && types->is_object()) {
    for (const auto& kv : types->get_object()) {
      auto it = node.properties.find(std::string_view(kv.key().data(), kv.key().size()));
      if (it == node.properties.end() || it->second == nullptr || !kv.value().is_string()) continue;
      // The member, and the items or values of a slice or map, down the type's structure.
      std::string type(kv.value().get_string());
      TypeSchema* member = const_cast<TypeSchema*>(it->second.get());
      while (member != nullptr && member->go_type_name.empty()) {
        member->go_type_name = type;
        if (type.starts_with("[]") && member->items != nullptr) {
          type = type.substr(2);
          member = const_cast<TypeSchema*>(member->items.get());
        } else if (type.starts_with("map[string]") && member->additional_properties != nullptr) {
          type = type.substr(11);
          member = const_cast<TypeSchema*>(member->additional_properties.get());
        } else {
          member = nullptr;
        }
      }
    }
  }
  const auto* children = entry.if_contains("c");
  if (children == nullptr || !children->is_object()) return;
  for (const auto& kv : children->get_object()) {
    if (!kv.value().is_string()) continue;
    const std::string_view child_def(kv.value().get_string().data(), kv.value().get_string().size());
    auto it = node.properties.find(std::string_view(kv.key().data(), kv.key().size()));
    if (it == node.properties.end() || it->second == nullptr) continue;
    TypeSchema* member = const_cast<TypeSchema*>(it->second.get());
    // The definition describes the member's value, its items or its map values.
    if (member->type == TypeSchema::Type::kArray && member->items != nullptr) {
      member = const_cast<TypeSchema*>(member->items.get());
    } else if (member->properties.empty() && member->additional_properties != nullptr) {
      member = const_cast<TypeSchema*>(member->additional_properties.get());
    }
    Annotate(*member, defs, child_def, depth + 1);
  }
}

}  // namespace

void AnnotateGoZero(TypeSchema& root, std::string_view group, std::string_view version, std::string_view kind) {
  const json::object& table = Table();
  const auto* kinds = table.if_contains("kinds");
  const auto* defs = table.if_contains("defs");
  if (kinds == nullptr || !kinds->is_object() || defs == nullptr || !defs->is_object()) return;
  const std::string key = std::string(group) + "/" + std::string(version) + "/" + std::string(kind);
  const auto* def = kinds->get_object().if_contains(key);
  if (def == nullptr || !def->is_string()) return;
  const std::string_view name(def->get_string().data(), def->get_string().size());
  // io.k8s.api.apps.v1.Deployment -> v1.Deployment
  const auto last = name.rfind('.');
  const auto package = last == std::string_view::npos ? std::string_view::npos : name.rfind('.', last - 1);
  if (package != std::string_view::npos) root.go_type_name = std::string(name.substr(package + 1));
  Annotate(root, defs->get_object(), name, 0);
}

namespace {

json::value ZeroOf(const TypeSchema& schema, std::string_view member, const json::value& zero, int depth);

json::object ZeroObject(const TypeSchema& schema, int depth) {
  json::object out;
  if (depth > 64) return out;
  for (const auto& [member, zero] : schema.go_zero_members) out[member] = ZeroOf(schema, member, zero, depth);
  return out;
}

json::value ZeroOf(const TypeSchema& schema, std::string_view member, const json::value& zero, int depth) {
  if (!zero.is_object()) return zero;
  const TypeSchema* m = schema.Member(member);
  return m != nullptr ? json::value(ZeroObject(*m, depth + 1)) : json::value(json::object());
}

void Fill(const TypeSchema& schema, json::value& value, int depth) {
  if (depth > 64) return;
  if (value.is_object()) {
    json::object& obj = value.get_object();
    for (const auto& [member, zero] : schema.go_zero_members) {
      json::value* v = obj.if_contains(member);
      if (v == nullptr || (v->is_null() && zero.is_object())) obj[member] = ZeroOf(schema, member, zero, depth);
    }
    if (!schema.properties.empty()) {
      for (auto& kv : obj) {
        const TypeSchema* m = schema.Member(std::string_view(kv.key().data(), kv.key().size()));
        if (m != nullptr) Fill(*m, kv.value(), depth + 1);
      }
    } else if (schema.additional_properties != nullptr) {
      for (auto& kv : obj) Fill(*schema.additional_properties, kv.value(), depth + 1);
    }
  } else if (value.is_array() && schema.items != nullptr) {
    for (auto& item : value.get_array()) Fill(*schema.items, item, depth + 1);
  }
}

bool IsCollection(const TypeSchema& s) {
  if (s.preserve_unknown_fields || s.int_or_string) return false;
  if (s.type == TypeSchema::Type::kArray) return true;
  return s.type == TypeSchema::Type::kObject && s.properties.empty() && s.additional_properties != nullptr;
}

bool IsEmpty(const json::value& v) {
  return (v.is_array() && v.get_array().empty()) || (v.is_object() && v.get_object().empty());
}

void Normalize(const TypeSchema& schema, json::value& value, bool stored, int depth) {
  if (depth > 64) return;
  if (value.is_object() && !schema.properties.empty()) {
    json::object& obj = value.get_object();
    std::vector<std::string> drop;
    for (auto& kv : obj) {
      const std::string_view key(kv.key().data(), kv.key().size());
      const TypeSchema* m = schema.Member(key);
      if (m == nullptr) continue;
      if (IsEmpty(kv.value()) && IsCollection(*m)) {
        if (schema.go_zero_members.contains(key)) {
          if (stored) kv.value() = nullptr;
        } else {
          drop.emplace_back(key);
        }
        continue;
      }
      Normalize(*m, kv.value(), stored, depth + 1);
    }
    for (const auto& key : drop) obj.erase(key);
  } else if (value.is_object() && schema.additional_properties != nullptr) {
    for (auto& kv : value.get_object()) Normalize(*schema.additional_properties, kv.value(), stored, depth + 1);
  } else if (value.is_array() && schema.items != nullptr) {
    for (auto& item : value.get_array()) Normalize(*schema.items, item, stored, depth + 1);
  }
}

std::string GoJsonKind(const json::value& v) {
  if (v.is_string()) return "string";
  if (v.is_bool()) return "bool";
  if (v.is_number()) return "number";
  if (v.is_array()) return "array";
  return "object";
}

// Go's decoder, member by member in document order; `fields` is its field stack (the JSON names
// from the root, without indices) and `structs` the struct type of each field.
struct Unmarshal {
  std::vector<std::string> fields;
  std::vector<std::string> structs;
  std::optional<std::string> error;
  const json::value* bad = nullptr;
  std::string bad_type;

  void Fail(std::string value, const TypeSchema& s) {
    if (fields.empty()) {
      error = "json: cannot unmarshal " + value + " into Go value of type " + s.go_type_name;
      return;
    }
    std::string path;
    for (const auto& f : fields) path += (path.empty() ? "" : ".") + f;
    error = "json: cannot unmarshal " + value + " into Go struct field " + structs.back() + "." + path +
            " of type " + s.go_type_name;
  }

  void Value(const TypeSchema& s, const json::value& v, int depth) {
    if (error || v.is_null() || depth > 64 || s.go_type_name.empty() || s.int_or_string) return;
    bad = &v;  // read only once `error` is set, when it is the value that failed
    bad_type = s.go_type_name;
    switch (s.type) {
      case TypeSchema::Type::kString:
        if (!v.is_string()) Fail(GoJsonKind(v), s);
        return;
      case TypeSchema::Type::kBoolean:
        if (!v.is_bool()) Fail(GoJsonKind(v), s);
        return;
      case TypeSchema::Type::kNumber:
        if (!v.is_number()) Fail(GoJsonKind(v), s);
        return;
      case TypeSchema::Type::kInteger: {
        if (!v.is_number()) return Fail(GoJsonKind(v), s);
        const bool int32 = s.go_type_name == "int32";
        const bool fits = v.is_int64() && (!int32 || (v.get_int64() >= INT32_MIN && v.get_int64() <= INT32_MAX));
        if (!fits) Fail("number " + json::serialize(v), s);
        return;
      }
      case TypeSchema::Type::kArray:
        if (!v.is_array()) return Fail(GoJsonKind(v), s);
        if (s.items != nullptr) {
          for (const auto& item : v.get_array()) Value(*s.items, item, depth + 1);
        }
        return;
      case TypeSchema::Type::kObject:
        if (!v.is_object()) return Fail(GoJsonKind(v), s);
        if (!s.properties.empty()) {
          const auto dot = s.go_type_name.rfind('.');
          const std::string name = dot == std::string::npos ? s.go_type_name : s.go_type_name.substr(dot + 1);
          for (const auto& kv : v.get_object()) {
            const TypeSchema* m = s.Member(std::string_view(kv.key().data(), kv.key().size()));
            if (m == nullptr) continue;
            fields.emplace_back(kv.key());
            structs.push_back(name);
            Value(*m, kv.value(), depth + 1);
            fields.pop_back();
            structs.pop_back();
            if (error) return;
          }
        } else if (s.additional_properties != nullptr) {
          for (const auto& kv : v.get_object()) Value(*s.additional_properties, kv.value(), depth + 1);
        }
        return;
      case TypeSchema::Type::kAny:
        return;
    }
  }
};

}  // namespace

std::optional<std::string> GoUnmarshalError(const TypeSchema& schema, const json::value& value) {
  Unmarshal u;
  u.Value(schema, value, 0);
  return u.error;
}

std::optional<GoUnmarshalFailure> FindGoUnmarshalFailure(const TypeSchema& schema, const json::value& value) {
  Unmarshal u;
  u.Value(schema, value, 0);
  if (!u.error) return std::nullopt;
  return GoUnmarshalFailure{.message = std::move(*u.error), .value = *u.bad, .go_type = std::move(u.bad_type)};
}

void NormalizeGoEmpty(const TypeSchema& schema, json::value& value, bool stored) {
  Normalize(schema, value, stored, 0);
}

json::object GoZeroObject(const TypeSchema& schema) { return ZeroObject(schema, 0); }

void FillGoZero(const TypeSchema& schema, json::value& value) { Fill(schema, value, 0); }

}  // namespace kube::apiserver::rest
