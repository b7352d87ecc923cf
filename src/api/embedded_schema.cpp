// The CRD schema of a generated Kubernetes type embedded in a custom resource: the schema table
// (<kube/api/openapi_schemas.hpp>) with its references resolved inline, as controller-gen writes
// an embedded k8s.io/api type. Kept apart from custom_resource.cpp so that only a program whose
// CRD embeds a generated type links the table.
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/parse.hpp>

#include <kube/api/custom_resource.hpp>
#include <kube/api/openapi_schemas.hpp>

namespace kube::api::internal {
namespace {

namespace json = boost::json;

// The types with their own JSON forms (apigen's BUILTIN_TYPES, which the table leaves out), and
// ObjectMeta: their schemas as controller-gen writes them.
std::optional<json::object> SpecialSchema(std::string_view name, const CrdOptions& options) {
  static constexpr std::string_view kMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.";
  static constexpr std::string_view kApiextensions = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.";
  if (name == "io.k8s.apimachinery.pkg.api.resource.Quantity") return ScalarSchema("quantity");
  if (name == "io.k8s.apimachinery.pkg.util.intstr.IntOrString") return ScalarSchema("int-or-string");
  if (name == "io.k8s.apimachinery.pkg.runtime.RawExtension") return ScalarSchema("preserved-object");
  if (name.starts_with(kMeta)) {
    const std::string_view type = name.substr(kMeta.size());
    // Below the resource's top level (a pod template's metadata): labels, annotations, name,
    // namespace and finalizers, or nothing (options.embedded_object_meta).
    if (type == "ObjectMeta") return EmbeddedObjectMetaSchema(options);
    if (type == "Time" || type == "MicroTime") return ScalarSchema("date-time");
    if (type == "FieldsV1") return ScalarSchema("preserved-object");
  }
  if (name.starts_with(kApiextensions)) {
    const std::string_view type = name.substr(kApiextensions.size());
    if (type == "JSON" || type == "JSONSchemaPropsOrArray" || type == "JSONSchemaPropsOrBool" ||
        type == "JSONSchemaPropsOrStringArray") {
      return ScalarSchema("any");
    }
  }
  return std::nullopt;
}

// Resolves the references of the schemas it is asked for; one per GeneratedTypeSchema call.
class Expander final {
 public:
  explicit Expander(const CrdOptions& options) : options_(options) {}

  json::object Named(std::string_view name) {
    if (auto special = SpecialSchema(name, options_)) return std::move(*special);
    const std::string key(name);
    // A type that contains itself (apiextensions' JSONSchemaProps) has no finite inline schema:
    // it keeps whatever the user writes there.
    if (recursive_.contains(key)) return ScalarSchema("preserved-object");
    for (const auto& open : stack_) {
      if (open == key) {
        recursive_.insert(key);
        return ScalarSchema("preserved-object");  // discarded: the outer expansion of key is
      }
    }
    stack_.push_back(key);
    json::object out = Inline(Parsed(name));
    stack_.pop_back();
    if (recursive_.contains(key)) return ScalarSchema("preserved-object");
    return out;
  }

 private:
  // The table's schema of `name`, parsed once per expansion.
  const json::object& Parsed(std::string_view name) {
    const std::string key(name);
    auto it = parsed_.find(key);
    if (it == parsed_.end()) {
      const std::optional<std::string_view> text = OpenApiSchemaText(name);
      // Every reference in the table names a schema of the table or a special type, and every
      // kOpenApiName is in the table: apigen writes both from the same documents.
      if (!text) std::abort();
      boost::system::error_code ec;
      json::value v = json::parse(*text, ec);
      if (ec || !v.is_object()) std::abort();
      it = parsed_.emplace(key, std::move(v.as_object())).first;
    }
    return it->second;
  }

  // `schema` with every reference replaced by the referenced type's expansion.
  json::object Inline(const json::object& schema) {
    if (const json::value* ref = schema.if_contains("$ref")) {
      json::object out = Named(ref->as_string());
      // A map type written beside the reference (core/v1 PersistentVolumeSpec.claimRef:
      // granular) overrides the referenced type's own.
      for (const auto& [k, v] : schema) {
        if (k != "$ref") out[k] = v;
      }
      return out;
    }
    json::object out = schema;
    if (json::value* props = out.if_contains("properties")) {
      for (auto& [k, v] : props->as_object()) v = Inline(v.as_object());
    }
    if (json::value* items = out.if_contains("items")) *items = Inline(items->as_object());
    if (json::value* extra = out.if_contains("additionalProperties"); extra && extra->is_object()) {
      *extra = Inline(extra->as_object());
    }
    // core/v1 ServiceAccount.secrets is a map by `name`, which ObjectReference does not require;
    // flowcontrol/v1's conditions are maps by an optional `type`. Requiring the key is what a
    // list map means (server-side apply cannot tell the elements apart without it).
    RequireListMapKeys(out);
    return out;
  }

  const CrdOptions& options_;
  std::map<std::string, json::object, std::less<>> parsed_;
  std::vector<std::string> stack_;  // the named types being expanded, outermost first
  std::set<std::string, std::less<>> recursive_;  // types found on stack_ when referred to again
};

}  // namespace

json::object GeneratedTypeSchema(std::string_view open_api_name, const CrdOptions& options) {
  return Expander(options).Named(open_api_name);
}

}  // namespace kube::api::internal
