#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <kube/api/codec.hpp>
#include <kube/api/meta/v1.hpp>
#include <kube/api/reflect.hpp>
#include <kube/base/result.hpp>

/// Custom resources declared in C++ (kube-rs's `#[derive(CustomResource)]`, kubebuilder's
/// types with markers): a Spec and a Status declared with `Fields()` (<kube/api/reflect.hpp>),
/// and the resource itself:
///
/// ```cpp
/// struct Website : kube::api::CustomResource<Website, WebsiteSpec, WebsiteStatus> {
///   static constexpr std::string_view kGroup = "example.kubecpp.io";
///   static constexpr std::string_view kVersion = "v1";
///   static constexpr std::string_view kKind = "Website";
///   static constexpr std::string_view kResource = "websites";
///   static constexpr bool kNamespaced = true;
///   static kube::api::CrdOptions Crd() { return {.short_names = {"ws"}, .printer_columns = {...}}; }
/// };
/// ```
///
/// Website then works with TypedApi, the typed informers and listers, the typed controller
/// helpers, and `CrdJson<Website>()` writes its CustomResourceDefinition with a structural
/// `openAPIV3Schema` (types, required, defaults, enums, minimum/maximum, pattern, list types and
/// map keys; an embedded generated type, such as a `core::v1::PodTemplateSpec` member, gets its
/// full schema, its ObjectMeta's labels and annotations included), the status and scale
/// subresources and the printer columns.
namespace kube::api {

/// An `additionalPrinterColumns` entry (kubectl get's columns).
struct PrinterColumn {
  std::string name{};
  std::string type{};       ///< "integer", "number", "string", "boolean" or "date"
  std::string json_path{};  ///< e.g. ".spec.replicas"
  std::string description{};
  std::string format{};
  int32_t priority = 0;
};

/// The scale subresource (`kubectl scale`, HorizontalPodAutoscaler).
struct ScaleSubresource {
  std::string spec_replicas_path{};    ///< e.g. ".spec.replicas"
  std::string status_replicas_path{};  ///< e.g. ".status.replicas"
  std::string label_selector_path{};   ///< optional, e.g. ".status.selector"
};

/// The CRD-level options a resource declares in a static `Crd()` (all optional).
struct CrdOptions {
  std::string singular{};  ///< default: the kind in lower case
  std::vector<std::string> short_names{};
  std::vector<std::string> categories{};
  std::vector<PrinterColumn> printer_columns{};
  std::optional<ScaleSubresource> scale{};
  /// How the schema writes an *embedded* ObjectMeta: the `metadata` of a generated type inside
  /// the resource (`spec.template.metadata` of a `core::v1::PodTemplateSpec` member) or a
  /// `meta::v1::ObjectMeta` member of the user's own structs. True (the default): an object with
  /// the properties `annotations` and `labels` (maps of strings), `finalizers` (array of
  /// strings), `name` and `namespace` (strings), and no other, so that the API server keeps
  /// them and prunes the rest (controller-gen with `crd:generateEmbeddedObjectMeta=true`).
  /// False: `type: object` with no properties, under which the API server keeps nothing,
  /// labels and annotations included (controller-gen's default). The resource's own top-level
  /// `metadata` is `type: object` either way: the API server owns its schema.
  bool embedded_object_meta = true;
};

template <class T>
struct CustomResourceList;

/// The members and codec of a custom resource: `apiVersion`, `kind` (set from Self's traits on
/// construction), `metadata`, `spec`, `status` (when Status is not void) and the kept unknown
/// fields. Self derives from it and declares kGroup, kVersion, kKind, kResource, kNamespaced.
template <class Self, class Spec, class Status = void>
struct CustomResource {
  /// Self's list type (`WebsiteList`).
  using List = CustomResourceList<Self>;
  static constexpr bool kHasStatus = !std::is_void_v<Status>;
  using StatusType = std::conditional_t<std::is_void_v<Status>, std::monostate, Status>;

  std::string apiVersion = Self::kGroup.empty() ? std::string(Self::kVersion)
                                                : std::string(Self::kGroup) + "/" + std::string(Self::kVersion);
  std::string kind = std::string(Self::kKind);
  meta::v1::ObjectMeta metadata{};
  Spec spec{};
  std::optional<StatusType> status{};
  UnknownFields unknown_fields{};

  bool operator==(const CustomResource&) const = default;

  static auto Fields() {
    if constexpr (std::is_void_v<Status>) {
      return std::tuple{Field("apiVersion", &CustomResource::apiVersion),
                        Field("kind", &CustomResource::kind),
                        Field("metadata", &CustomResource::metadata).Required(),
                        Field("spec", &CustomResource::spec).Required()};
    } else {
      return std::tuple{Field("apiVersion", &CustomResource::apiVersion),
                        Field("kind", &CustomResource::kind),
                        Field("metadata", &CustomResource::metadata).Required(),
                        Field("spec", &CustomResource::spec).Required(),
                        Field("status", &CustomResource::status)};
    }
  }
};

/// The list of a custom resource (`WebsiteList`): what TypedApi::List returns.
template <class T>
struct CustomResourceList {
  std::string apiVersion{};
  std::string kind{};
  meta::v1::ListMeta metadata{};
  std::vector<T> items{};

  bool operator==(const CustomResourceList&) const = default;
  static auto Fields() {
    return std::tuple{Field("apiVersion", &CustomResourceList::apiVersion),
                      Field("kind", &CustomResourceList::kind),
                      Field("metadata", &CustomResourceList::metadata).Required(),
                      Field("items", &CustomResourceList::items).Required()};
  }
};

/// How C++ types map to the structural schema: std::string -> string; bool -> boolean; int32_t/int64_t -> integer with format;
/// double -> number; Quantity and IntOrString -> int-or-string (Quantity with its pattern);
/// Time, MicroTime -> string date-time; Duration -> string; RawJson -> any value
/// (x-kubernetes-preserve-unknown-fields); std::optional / Box -> the value's; std::vector ->
/// array; std::map<std::string, V> -> object with additionalProperties; a Reflected struct ->
/// object with properties and required; meta/v1 Condition -> its schema; ObjectMeta -> the
/// embedded ObjectMeta's (CrdOptions::embedded_object_meta); any other generated type (one with
/// `kOpenApiName`: `core::v1::PodTemplateSpec`, `core::v1::Toleration`) -> its full schema
/// from the OpenAPI documents, expanded inline as controller-gen writes an embedded k8s.io/api
/// type (GeneratedTypeSchema).
namespace internal {

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {
  using type = T;
};
template <class T>
struct IsOptional<Box<T>> : std::true_type {
  using type = T;
};
template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {
  using type = T;
};
template <class T>
struct IsStringMap : std::false_type {};
template <class T>
struct IsStringMap<std::map<std::string, T>> : std::true_type {
  using type = T;
};

/// The schema of the scalar and value types (no field options).
boost::json::object ScalarSchema(std::string_view kind);
/// meta/v1 Condition's schema, as controller-gen writes it for metav1.Condition.
boost::json::object ConditionSchema();
/// The schema of an ObjectMeta embedded below the resource's top level: with
/// `options.embedded_object_meta`, an object of annotations, finalizers, labels, name and
/// namespace (controller-gen's generateEmbeddedObjectMeta=true), else `type: object`.
boost::json::object EmbeddedObjectMetaSchema(const CrdOptions& options);
/// Applies a field's options (description, default, enum, bounds, pattern, list type...).
void ApplyOptions(boost::json::object& schema, const FieldOptions& options);
/// For a list-map schema (`x-kubernetes-list-type: map`), adds each map key that its items
/// neither require nor default to the items' `required`: kube-apiserver rejects a CRD whose
/// map keys are neither. Any other schema is left as it is.
void RequireListMapKeys(boost::json::object& schema);
/// The structural schema of the generated type whose `kOpenApiName` is `open_api_name`, as
/// controller-gen writes an embedded k8s.io/api type: every reference resolved inline (no
/// `$ref`); properties, required, types, formats, enums, the scalar defaults of optional fields
/// (`protocol: TCP`), list types and map keys, map types; an embedded ObjectMeta is
/// EmbeddedObjectMetaSchema(options) (the only option looked at), Quantity and IntOrString
/// int-or-string, Time and MicroTime date-time strings, RawExtension an object that keeps
/// unknown fields. A type that contains itself (apiextensions/v1 JSONSchemaProps) is an object
/// that keeps unknown fields.
/// Links the schema table (kube::api_schemas, about 180 KB) into the program.
/// **Errors:** none; a name that is no generated type's aborts (a broken build).
/// **Thread-safety:** safe from any thread.
boost::json::object GeneratedTypeSchema(std::string_view open_api_name, const CrdOptions& options = {});

template <class M>
boost::json::object SchemaOf(const CrdOptions& options);

/// The schema of reflected struct T; `options` reach the schemas of its members.
template <class T>
boost::json::object StructSchema(const CrdOptions& options = {}) {
  boost::json::object props;
  boost::json::array required;
  std::apply(
      [&](const auto&... f) {
        (([&] {
           using M = std::remove_cvref_t<decltype(std::declval<T&>().*(f.member))>;
           boost::json::object s = SchemaOf<M>(options);
           ApplyOptions(s, f.options);
           props[f.name] = std::move(s);
           if (f.options.required) required.emplace_back(f.name);
         }()),
         ...);
      },
      FieldsOf<T>());
  boost::json::object out;
  out["type"] = "object";
  out["properties"] = std::move(props);
  if (!required.empty()) out["required"] = std::move(required);
  return out;
}

template <class M>
boost::json::object SchemaOf(const CrdOptions& options) {
  if constexpr (IsOptional<M>::value) {
    return SchemaOf<typename IsOptional<M>::type>(options);
  } else if constexpr (IsVector<M>::value) {
    boost::json::object out;
    out["type"] = "array";
    out["items"] = SchemaOf<typename IsVector<M>::type>(options);
    return out;
  } else if constexpr (IsStringMap<M>::value) {
    boost::json::object out;
    out["type"] = "object";
    out["additionalProperties"] = SchemaOf<typename IsStringMap<M>::type>(options);
    return out;
  } else if constexpr (std::is_same_v<M, std::string>) {
    return ScalarSchema("string");
  } else if constexpr (std::is_same_v<M, bool>) {
    return ScalarSchema("boolean");
  } else if constexpr (std::is_same_v<M, int32_t>) {
    return ScalarSchema("int32");
  } else if constexpr (std::is_same_v<M, int64_t>) {
    return ScalarSchema("int64");
  } else if constexpr (std::is_same_v<M, double>) {
    return ScalarSchema("double");
  } else if constexpr (std::is_same_v<M, Quantity>) {
    return ScalarSchema("quantity");
  } else if constexpr (std::is_same_v<M, IntOrString>) {
    return ScalarSchema("int-or-string");
  } else if constexpr (std::is_same_v<M, Time> || std::is_same_v<M, MicroTime>) {
    return ScalarSchema("date-time");
  } else if constexpr (std::is_same_v<M, Duration>) {
    return ScalarSchema("string");
  } else if constexpr (std::is_same_v<M, RawJson>) {
    return ScalarSchema("any");
  } else if constexpr (std::is_same_v<M, std::monostate>) {
    return ScalarSchema("object");
  } else if constexpr (std::is_same_v<M, meta::v1::Condition>) {
    return ConditionSchema();
  } else if constexpr (std::is_same_v<M, meta::v1::ObjectMeta>) {
    // A member of the user's struct; the resource's own metadata is replaced in OpenApiSchemaOf.
    return EmbeddedObjectMetaSchema(options);
  } else if constexpr (Reflected<M>) {
    return StructSchema<M>(options);
  } else if constexpr (requires { M::kOpenApiName; }) {
    return GeneratedTypeSchema(M::kOpenApiName, options);
  } else {
    return ScalarSchema("preserved-object");
  }
}

/// The CRD document from its parts (kept out of the template).
boost::json::object CrdDocument(std::string_view group, std::string_view version, std::string_view kind,
                                std::string_view plural, bool namespaced, bool has_status,
                                const CrdOptions& options, boost::json::object schema);

}  // namespace internal

/// The CRD options of T: `T::Crd()` when T declares it, else the defaults.
template <class T>
CrdOptions CrdOptionsOf() {
  if constexpr (requires { T::Crd(); }) {
    return T::Crd();
  } else {
    return CrdOptions{};
  }
}

/// The `openAPIV3Schema` of T's resource (a structural schema), written with `options`
/// (embedded_object_meta is the one that changes the schema).
template <class T>
boost::json::object OpenApiSchemaOf(const CrdOptions& options = CrdOptionsOf<T>()) {
  boost::json::object schema = internal::StructSchema<T>(options);
  // apiVersion, kind and metadata are the API server's: their schemas are fixed. `spec` is
  // always encoded but, as controller-gen's `json:"spec,omitempty"`, not required.
  auto& props = schema["properties"].as_object();
  props["apiVersion"] = internal::ScalarSchema("string");
  props["kind"] = internal::ScalarSchema("string");
  props["metadata"] = internal::ScalarSchema("object");
  if (auto* req = schema.if_contains("required")) {
    boost::json::array kept;
    for (const auto& r : req->as_array()) {
      const std::string_view n = r.as_string();
      if (n != "metadata" && n != "apiVersion" && n != "kind" && n != "spec") kept.push_back(r);
    }
    if (kept.empty()) {
      schema.erase("required");
    } else {
      *req = std::move(kept);
    }
  }
  return schema;
}

/// The CustomResourceDefinition (apiextensions.k8s.io/v1) of custom resource T, as a JSON object:
/// name `<plural>.<group>`, one served and storage version with the schema of T's Fields(), the
/// status subresource when T has a Status, the scale subresource and printer columns of
/// `T::Crd()` when T declares it.
template <class T>
boost::json::object CrdOf() {
  const CrdOptions options = CrdOptionsOf<T>();
  return internal::CrdDocument(T::kGroup, T::kVersion, T::kKind, T::kResource, T::kNamespaced, T::kHasStatus,
                               options, OpenApiSchemaOf<T>(options));
}

/// CrdOf<T>() as compact JSON (kubectl apply -f takes it).
template <class T>
std::string CrdJson();

/// `value` as YAML (for manifests: deploy/crd.yaml): block style, keys in the JSON's order,
/// strings quoted when YAML would read them as another type.
std::string ToYaml(const boost::json::value& value);

}  // namespace kube::api

#include <boost/json/serialize.hpp>

template <class T>
std::string kube::api::CrdJson() {
  return boost::json::serialize(CrdOf<T>());
}
