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

/// The paths of the members `PruneAndDefault` would remove, in document order. With
/// `keep_root_meta` (custom resources), `apiVersion`, `kind` and `metadata` at the root are not
/// looked at; built-in schemas describe them and pass false.
std::vector<std::string> UnknownFields(const TypeSchema& schema, const boost::json::object& obj,
                                       bool keep_root_meta = true);

/// Removes the members of `obj` that `schema` does not specify (unless
/// `x-kubernetes-preserve-unknown-fields`), metadata included, without defaults: what kube's
/// decoding into Go structs does to unknown fields of built-in objects.
void PruneUnknownFields(const TypeSchema& schema, boost::json::object& obj);

/// `PruneUnknownFields` with `BuiltinFieldSchema(info)`; nothing for custom resources. The
/// strategy calls it on every create and update, so unknown fields of built-in objects are never
/// stored, whatever `fieldValidation` says.
void PruneBuiltinFields(const ResourceInfo& info, boost::json::object& obj);

/// The members of a server-side apply configuration that `schema` does not declare, as kube's
/// typed conversion reports them: `.spec.foo: field not declared in schema`, list elements by
/// their keys (`.spec.containers[name="c"].bar`), set elements by value, other elements by index.
/// With `keep_root_meta` (CRD schemas), `apiVersion`, `kind` and `metadata` at the root and in
/// `x-kubernetes-embedded-resource` objects are not looked at.
std::vector<std::string> UndeclaredApplyFields(const TypeSchema& schema, const boost::json::object& config,
                                               bool keep_root_meta = false);

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

/// `fieldValidation` for a decoded create or update body (before pruning), against
/// `BuiltinFieldSchema` for built-in kinds (metadata included) and the CRD schema for custom
/// resources: "Strict" with unknown fields -> 400 BadRequest, kube's decode error as its create
/// and update handlers wrap it: `Pod in version "v1" cannot be handled as a Pod: strict decoding
/// error: unknown field "spec.foo", unknown field "bar"`; "Warn" and "" (kube 1.32's default) -> appends `unknown field "spec.foo"` to
/// `warnings` (the caller sends each as a `Warning: 299 - "<text>"` header); "Ignore" -> nothing.
/// The fields are dropped later in every mode (`PruneBuiltinFields`, CR pruning). Custom
/// resources without a schema accept everything. `decode_problems` (what `DecodeBody` found of
/// repeated members, as `duplicate field "data"`) come first, in every mode.
Result<void> CheckUnknownFields(const ResourceInfo& info, const boost::json::object& body,
                                std::string_view field_validation, std::vector<std::string>* warnings,
                                const std::vector<std::string>& decode_problems = {});

/// `CheckUnknownFields` for the object a PATCH produced: kube's patch handlers answer Strict with
/// the strict decoding error alone (`strict decoding error: unknown field "spec.foo"`).
Result<void> CheckUnknownFieldsOfPatch(const ResourceInfo& info, const boost::json::object& patched,
                                       std::string_view field_validation, std::vector<std::string>* warnings);

}  // namespace kube::apiserver::rest
