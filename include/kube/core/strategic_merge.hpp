#pragma once

#include <cstddef>

#include <boost/json/value.hpp>

#include <kube/base/result.hpp>
#include <kube/core/type_schema.hpp>

namespace kube {

/// Nesting limit of `ApplyStrategicMergePatch`: patches (and the objects they descend into)
/// deeper than this are refused, so that untrusted input cannot exhaust the stack.
inline constexpr std::size_t kStrategicMergeMaxDepth = 1000;

/// Applies a strategic merge patch (`application/strategic-merge-patch+json`) to `original` with
/// the semantics of k8s.io/apimachinery `pkg/util/strategicpatch` (`StrategicMergeMapPatch`, as
/// kube-apiserver calls it: parallel deletion lists merged, unmatched nulls ignored):
/// - objects merge recursively; a null member deletes; scalars and mismatched types replace;
/// - an array merges only when its schema node has `x-kubernetes-patch-strategy` containing
///   `merge`: arrays of objects by `x-kubernetes-patch-merge-key` (matching elements merge
///   recursively, new ones are added), arrays of scalars as a set union; the result order is
///   kube's: elements named in the patch keep the patch's relative order, the others the live
///   order, interleaved where both orders know the elements (so an element new to the list comes
///   before the remaining live-only elements). Every other array is replaced;
/// - `schema == nullptr`, or a member the schema does not know, means "no strategy": arrays are
///   replaced and objects merge (kube's behaviour for fields without patch metadata);
/// - directives: `$patch: replace` (an object replaced by the patch object) and `$patch: delete`
///   (an object emptied) in objects; `{"<key>": v, "$patch": "delete"}` elements (delete by merge
///   key) and a `{"$patch": "replace"}` element (the list replaced by the other elements) in
///   merging lists; `$deleteFromPrimitiveList/<field>: [...]`; `$setElementOrder/<field>: [...]`
///   (the final order of a merging list); `$retainKeys: [...]` (members not listed are cleared).
/// Directive keys never reach the result: values taken whole from the patch lose their
/// `$patch`-marked objects (kube's `removeDirectives`), and the other directive keys
/// (`$patch`, `$retainKeys`, `$setElementOrder/...`, `$deleteFromPrimitiveList/...`) that kube's
/// typed decoding would drop are removed. A non-object `original` is treated as `{}`.
///
/// **Errors** (kube-apiserver's mapping of the library errors):
/// - 400 BadRequest: `patch` is not an object (`json: cannot unmarshal <type> into Go value of
///   type map[string]interface {}`); `invalid patch format of primitive list`,
///   `invalid patch format of retainKeys`, `invalid patch format of setElementOrder list`; nesting
///   deeper than `kStrategicMergeMaxDepth`;
/// - 422 Invalid (kube's generic "the server rejected our request due to an error in our request"
///   carrying the library message as cause): `lists of lists are not supported`;
/// - 500 with an empty reason and the library message verbatim, as kube-apiserver answers for the
///   errors it does not classify: `unknown patch type: <v> in map: <map>`,
///   `map: <map> does not contain declared merge key: <key>`, `merging lists cannot yet be
///   specified in the patch`, `list element types are not identical: ...`,
///   `expected a <type>, but received a <type>`, `the order in patch list: ... doesn't match
///   $setElementOrder list: ...`, `cannot merge lists without merge key for <field>`.
/// **Thread-safety:** pure; read-only on its arguments. `schema` is borrowed for the call.
Result<boost::json::value> ApplyStrategicMergePatch(const boost::json::value& original,
                                                    const boost::json::value& patch,
                                                    const TypeSchema* schema);

}  // namespace kube
