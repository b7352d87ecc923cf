#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <kube/apiserver/resource.hpp>
#include <kube/base/result.hpp>
#include <kube/core/status.hpp>
#include <kube/core/type_schema.hpp>

/// Structural-schema handling of custom resources (apiextensions-apiserver's pruning, defaulting
/// and OpenAPI validation) against a `kube::TypeSchema` parsed from a CRD's `openAPIV3Schema`.
/// Field paths are kube's (`spec.items[0].name`). `apiVersion`, `kind` and `metadata` at the root
/// (and inside `x-kubernetes-embedded-resource` objects) are never pruned nor validated here.
/// **Thread-safety:** pure functions.
namespace kube::apiserver::rest {

/// Removes the members of `obj` that the schema does not specify (unless
/// `x-kubernetes-preserve-unknown-fields`), appending the path of each removed member to
/// `pruned` when non-null; then sets absent members that have a `default` (recursively).
void PruneAndDefault(const TypeSchema& schema, boost::json::object& obj, std::vector<std::string>* pruned);

/// The paths of the members `PruneAndDefault` would remove, in document order.
std::vector<std::string> UnknownFields(const TypeSchema& schema, const boost::json::object& obj);

/// Validates `obj` against `schema`: type (with nullable and x-kubernetes-int-or-string), required,
/// enum, minimum/maximum (+exclusive), minLength/maxLength, pattern (ECMAScript), minItems/maxItems,
/// minProperties/maxProperties; list-type set/map uniqueness. Returns kube's field errors.
std::vector<FieldError> ValidateAgainstSchema(const TypeSchema& schema, const boost::json::object& obj);

/// The strategy hook of custom resources and CRDs, called by the per-kind validation for
/// kGeneric resources: CRDs get `ValidateCrd`; resources with a schema get
/// `ValidateAgainstSchema`.
void ValidateGenericKind(const ResourceInfo& info, const boost::json::object& obj, std::vector<FieldError>& errs);

/// The strategy hook of custom resources and CRDs on create and update: CRD defaulting, and for
/// resources with a schema, pruning and defaults.
void PrepareGenericKind(const ResourceInfo& info, boost::json::object& obj, bool creating);

/// `fieldValidation` for a custom-resource request body (before pruning): "Strict" with unknown
/// (or duplicate) fields -> 400 BadRequest `strict decoding error: unknown field "spec.foo", ...`;
/// "Warn" -> appends `unknown field "spec.foo"` to `warnings` (the caller sends each as a
/// `Warning: 299 - "<text>"` header); "Ignore"/"" -> nothing (fields are pruned silently).
/// Resources without a schema, and built-in kinds (whose schemas are not complete), accept everything.
Result<void> CheckUnknownFields(const ResourceInfo& info, const boost::json::object& body,
                                std::string_view field_validation, std::vector<std::string>* warnings);

}  // namespace kube::apiserver::rest
