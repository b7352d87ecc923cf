#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

#include <kube/base/result.hpp>

/// The shape of an object type as the merge algorithms need it: a subset of an OpenAPI v3
/// structural schema with Kubernetes' extensions. One representation serves strategic merge
/// patch (`x-kubernetes-patch-strategy` / `x-kubernetes-patch-merge-key`), server-side apply
/// (`x-kubernetes-list-type` / `x-kubernetes-list-map-keys` / `x-kubernetes-map-type`) and CRD
/// validation and pruning (types, `x-kubernetes-preserve-unknown-fields` and the value
/// constraints). Built-in types and CRD schemas are both written as OpenAPI v3 JSON and parsed by
/// `ParseTypeSchema`.
namespace kube {

struct TypeSchema;
/// Schemas are immutable once parsed and shared.
using TypeSchemaPtr = std::shared_ptr<const TypeSchema>;

/// One node of a type schema.
struct TypeSchema {
  /// OpenAPI `type`; kAny when absent (any JSON value).
  enum class Type { kAny, kObject, kArray, kString, kInteger, kNumber, kBoolean };
  Type type = Type::kAny;
  /// `x-kubernetes-int-or-string: true`: an integer or a string.
  bool int_or_string = false;
  /// `x-kubernetes-preserve-unknown-fields: true`: members not in `properties` are kept.
  bool preserve_unknown_fields = false;
  /// `x-kubernetes-embedded-resource: true`: an object with apiVersion/kind/metadata.
  bool embedded_resource = false;
  /// `nullable: true`.
  bool nullable = false;

  /// Object members (`properties`), by name.
  std::map<std::string, TypeSchemaPtr, std::less<>> properties;
  /// Map values (`additionalProperties` as a schema; `true` is stored as a kAny schema).
  TypeSchemaPtr additional_properties;
  /// Array elements (`items`).
  TypeSchemaPtr items;

  /// `x-kubernetes-list-type` of an array.
  enum class ListType { kAtomic, kSet, kMap };
  /// Absent = atomic (server-side apply's default).
  ListType list_type = ListType::kAtomic;
  /// True when `x-kubernetes-list-type` was given explicitly.
  bool list_type_set = false;
  /// `x-kubernetes-list-map-keys` (list_type kMap).
  std::vector<std::string> list_map_keys;
  /// `x-kubernetes-map-type: atomic` (also `structType`: "atomic" / "granular").
  bool map_atomic = false;

  /// `x-kubernetes-patch-strategy`: "" (replace), "merge", "retainKeys", "merge,retainKeys", "replace".
  std::string patch_strategy;
  /// `x-kubernetes-patch-merge-key` (lists of objects merged by this member).
  std::string patch_merge_key;

  // --- value constraints (structural schema validation of custom resources) ---
  std::vector<std::string> required;
  std::vector<boost::json::value> enum_values;
  std::optional<double> minimum;
  std::optional<double> maximum;
  bool exclusive_minimum = false;
  bool exclusive_maximum = false;
  std::optional<int64_t> min_length;
  std::optional<int64_t> max_length;
  std::optional<int64_t> min_items;
  std::optional<int64_t> max_items;
  std::optional<int64_t> min_properties;
  std::optional<int64_t> max_properties;
  std::string pattern;  ///< ECMA-262 regular expression ("" = none)
  std::string format;
  boost::json::value default_value;  ///< `default` (null = none)
  /// The members Go's zero value of a built-in type always has, with the value they have there
  /// (`{}` for a non-pointer struct, null for an always-encoded slice or map): server-side
  /// apply's comparison counts them as present wherever the object itself is. Empty for custom
  /// resources and for schemas not derived from a Go type.
  std::map<std::string, boost::json::value, std::less<>> go_zero_members;
  /// True for a schema derived from a Go struct (a built-in type): an empty map or slice member
  /// not among `go_zero_members` is omitted by Go's `omitempty`, so it counts as absent.
  bool go_type = false;
  /// The Go type a value of this node decodes into, as Go's encoding/json names it in errors
  /// (`v1.DeploymentSpec`, `int32`, `[]v1.Container`, `map[string]string`); empty for custom
  /// resources and for types with their own JSON decoder (Time, Quantity, IntOrString).
  std::string go_type_name;
  bool has_default = false;

  /// The schema of member `name` of an object: `properties[name]`, else `additional_properties`,
  /// else nullptr (unknown member).
  const TypeSchema* Member(std::string_view name) const;
  /// True when `patch_strategy` contains `strategy` ("merge" or "retainKeys").
  bool HasPatchStrategy(std::string_view strategy) const;
};

/// Parses an OpenAPI v3 schema object (CRD `openAPIV3Schema`, or kubecpp's built-in type
/// descriptions) into a TypeSchema tree. Unknown keywords are ignored; `$ref` is not supported
/// (structural schemas have none). Nesting is limited to 64 levels.
/// **Errors:** 400 BadRequest naming the JSON path of a node that is not an object or a keyword
/// with the wrong JSON type (e.g. `properties.spec.type: must be a string`).
Result<TypeSchemaPtr> ParseTypeSchema(const boost::json::value& openapi);

/// As above from JSON text. **Errors:** 400 for malformed JSON, and as above.
Result<TypeSchemaPtr> ParseTypeSchema(std::string_view openapi_json);

/// The text overload for a C string (a literal), which would otherwise be ambiguous. Non-null.
inline Result<TypeSchemaPtr> ParseTypeSchema(const char* openapi_json) {
  return ParseTypeSchema(std::string_view(openapi_json));
}

}  // namespace kube
