#pragma once

#include <string>
#include <string_view>

#include <kube/core/type_schema.hpp>

#include "apiserver/rest/strategy.hpp"

/// The type schemas of the built-in kinds kubecpp serves: the fields of kube 1.32's types (see
/// `BuiltinFieldSchema` for the structs kept open) with kube's merge metadata
/// (`x-kubernetes-patch-strategy` / `x-kubernetes-patch-merge-key` for strategic merge patch,
/// `x-kubernetes-list-type` / `x-kubernetes-list-map-keys` / `x-kubernetes-map-type` for
/// server-side apply), with the values of kube 1.32's types.go tags and OpenAPI.
namespace kube::apiserver::rest {

/// The schema of `kind` (nullptr for kGeneric). Parsed once on first use and cached; the pointer
/// stays valid for the life of the process. **Thread-safety:** safe to call from any thread.
TypeSchemaPtr BuiltinSchema(BuiltinKind kind);

/// The complete field schema of a built-in resource, in the form the REST layer stores it: what
/// unknown-field detection (`fieldValidation`) and pruning (kube drops the members its Go types do
/// not have) work with. For the kinds of `BuiltinKind` it is `BuiltinSchema` (the stored core/v1
/// form for the events.k8s.io view); autoscaling/v1 HorizontalPodAutoscalers have the stored
/// autoscaling/v2 one; rbac.authorization.k8s.io Role, ClusterRole, RoleBinding and
/// ClusterRoleBinding and apiextensions.k8s.io CustomResourceDefinition have their own (CRDs keep
/// everything below `openAPIV3Schema` and in `status`). nullptr for custom resources (their CRD
/// schema is `info.schema`) and anything else. Structs kubecpp does not describe member by member
/// are marked `x-kubernetes-preserve-unknown-fields`, so a valid kube 1.32 object is never
/// stripped. **Thread-safety:** safe to call from any thread; the result lives for the process.
TypeSchemaPtr BuiltinFieldSchema(const ResourceInfo& info);

/// The OpenAPI v3 JSON text `BuiltinFieldSchema(info)` is parsed from ("" when none).
std::string BuiltinFieldSchemaJson(const ResourceInfo& info);

/// The schema of the Go type of `group`/`version`/`kind` (any kind of kube 1.32's OpenAPI
/// documents), annotated with its Go zero values; nullptr when the documents have no such kind.
/// Built once per kind and cached. **Thread-safety:** safe to call from any thread.
TypeSchemaPtr OpenApiSchema(std::string_view group, std::string_view version, std::string_view kind);
/// The OpenAPI v3 JSON text `OpenApiSchema` is parsed from ("" for an unknown kind).
std::string OpenApiSchemaJson(std::string_view group, std::string_view version, std::string_view kind);

/// The OpenAPI v3 JSON text `BuiltinSchema(kind)` is parsed from ("" for kGeneric); for tests
/// and documentation.
std::string BuiltinSchemaJson(BuiltinKind kind);

}  // namespace kube::apiserver::rest
