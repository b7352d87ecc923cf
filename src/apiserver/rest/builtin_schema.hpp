#pragma once

#include <string>

#include <kube/core/type_schema.hpp>

#include "apiserver/rest/strategy.hpp"

/// The type schemas of the built-in kinds kubecpp serves: the fields that need kube's merge
/// metadata (`x-kubernetes-patch-strategy` / `x-kubernetes-patch-merge-key` for strategic merge
/// patch, `x-kubernetes-list-type` / `x-kubernetes-list-map-keys` / `x-kubernetes-map-type` for
/// server-side apply), with the values of kube 1.32's types.go tags and OpenAPI. Fields that need
/// none are left out (an unknown member merges as "no strategy", which is kube's default too).
namespace kube::apiserver::rest {

/// The schema of `kind` (nullptr for kGeneric). Parsed once on first use and cached; the pointer
/// stays valid for the life of the process. **Thread-safety:** safe to call from any thread.
TypeSchemaPtr BuiltinSchema(BuiltinKind kind);

/// The OpenAPI v3 JSON text `BuiltinSchema(kind)` is parsed from ("" for kGeneric); for tests
/// and documentation.
std::string BuiltinSchemaJson(BuiltinKind kind);

}  // namespace kube::apiserver::rest
