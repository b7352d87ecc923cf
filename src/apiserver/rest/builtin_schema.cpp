// Built-in type schemas, built from the table tools/apigen/builtin_schema_table.py generates from
// kube 1.32's OpenAPI documents: the members of each Go type with its merge metadata
// (`x-kubernetes-patch-strategy`, `-patch-merge-key`, `-list-type`, `-list-map-keys`,
// `-map-type`). A kind's schema is the table's definitions with their references inlined,
// parsed once and annotated with the shape of Go's zero values (go_zero.hpp).

#include "apiserver/rest/builtin_schema.hpp"

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>

#include <boost/json.hpp>

#include "apiserver/rest/go_zero.hpp"

namespace kube::apiserver::rest {
namespace internal {
std::string_view BuiltinSchemaTableJson();  // generated: builtin_schema_table.cpp
}  // namespace internal

namespace {

namespace json = boost::json;

const json::object& Table() {
  static const json::object table = [] {
    json::value parsed = json::parse(internal::BuiltinSchemaTableJson());
    return std::move(parsed.as_object());
  }();
  return table;
}

// `schema` with every {"$ref": name} replaced by the definition (the reference's own extensions
// laid over it).
json::value Inline(const json::value& schema, const json::object& defs) {
  if (!schema.is_object()) return schema;
  const json::object& in = schema.as_object();
  json::object out;
  if (const json::value* ref = in.if_contains("$ref")) {
    // The table holds no recursive definition (JSONSchemaProps is left out), so this ends.
    out = Inline(defs.at(ref->as_string()), defs).as_object();
  }
  for (const auto& [key, value] : in) {
    if (key == "$ref") continue;
    if (key == "properties") {
      json::object props;
      for (const auto& [name, prop] : value.as_object()) props[name] = Inline(prop, defs);
      out[key] = std::move(props);
    } else if (key == "items" || key == "additionalProperties") {
      out[key] = Inline(value, defs);
    } else {
      out[key] = value;
    }
  }
  return out;
}

std::string TableKey(std::string_view group, std::string_view version, std::string_view kind) {
  return std::string(group) + "/" + std::string(version) + "/" + std::string(kind);
}

// The group, version and kind whose Go type `kind`'s schema describes.
std::tuple<std::string_view, std::string_view, std::string_view> GvkOf(BuiltinKind kind) {
  switch (kind) {
    case BuiltinKind::kNamespace: return {"", "v1", "Namespace"};
    case BuiltinKind::kConfigMap: return {"", "v1", "ConfigMap"};
    case BuiltinKind::kSecret: return {"", "v1", "Secret"};
    case BuiltinKind::kEvent: return {"", "v1", "Event"};
    case BuiltinKind::kEventV1: return {"events.k8s.io", "v1", "Event"};
    case BuiltinKind::kPod: return {"", "v1", "Pod"};
    case BuiltinKind::kService: return {"", "v1", "Service"};
    case BuiltinKind::kServiceAccount: return {"", "v1", "ServiceAccount"};
    case BuiltinKind::kNode: return {"", "v1", "Node"};
    case BuiltinKind::kDeployment: return {"apps", "v1", "Deployment"};
    case BuiltinKind::kReplicaSet: return {"apps", "v1", "ReplicaSet"};
    case BuiltinKind::kLease: return {"coordination.k8s.io", "v1", "Lease"};
    case BuiltinKind::kGeneric: break;
  }
  return {"", "", ""};
}

}  // namespace

std::string OpenApiSchemaJson(std::string_view group, std::string_view version, std::string_view kind) {
  const json::object& table = Table();
  const json::value* name = table.at("kinds").as_object().if_contains(TableKey(group, version, kind));
  if (name == nullptr) return "";
  const json::object& defs = table.at("defs").as_object();
  return json::serialize(Inline(defs.at(name->as_string()), defs));
}

TypeSchemaPtr OpenApiSchema(std::string_view group, std::string_view version, std::string_view kind) {
  static std::mutex mu;
  static std::map<std::string, TypeSchemaPtr, std::less<>> cache;
  const std::string key = TableKey(group, version, kind);
  std::lock_guard lock(mu);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  TypeSchemaPtr schema;
  if (const std::string text = OpenApiSchemaJson(group, version, kind); !text.empty()) {
    auto parsed = ParseTypeSchema(std::string_view(text));
    // The table is generated at build time; a parse failure is a programming error.
    if (!parsed.ok()) std::abort();
    AnnotateGoZero(const_cast<TypeSchema&>(**parsed), group, version, kind);  // not yet shared
    schema = std::move(*parsed);
  }
  cache.emplace(key, schema);
  return schema;
}

std::string BuiltinSchemaJson(BuiltinKind kind) {
  const auto [group, version, name] = GvkOf(kind);
  if (name.empty()) return "";
  return OpenApiSchemaJson(group, version, name);
}

TypeSchemaPtr BuiltinSchema(BuiltinKind kind) {
  const auto [group, version, name] = GvkOf(kind);
  if (name.empty()) return nullptr;
  return OpenApiSchema(group, version, name);
}

TypeSchemaPtr BuiltinFieldSchema(const ResourceInfo& info) {
  // The events.k8s.io view is converted to the stored core/v1 form when decoded.
  if (KindOf(info) == BuiltinKind::kEventV1) return BuiltinSchema(BuiltinKind::kEvent);
  if (!info.builtin) return nullptr;
  // The autoscaling/v1 view of HorizontalPodAutoscalers is stored as autoscaling/v2.
  if (info.group == "autoscaling" && info.version == "v1" && info.kind == "HorizontalPodAutoscaler") {
    return OpenApiSchema(info.group, "v2", info.kind);
  }
  return OpenApiSchema(info.group, info.version, info.kind);
}

std::string BuiltinFieldSchemaJson(const ResourceInfo& info) {
  if (KindOf(info) == BuiltinKind::kEventV1) return BuiltinSchemaJson(BuiltinKind::kEvent);
  if (!info.builtin) return "";
  if (info.group == "autoscaling" && info.version == "v1" && info.kind == "HorizontalPodAutoscaler") {
    return OpenApiSchemaJson(info.group, "v2", info.kind);
  }
  return OpenApiSchemaJson(info.group, info.version, info.kind);
}

}  // namespace kube::apiserver::rest
