#pragma once

#include <string_view>

#include <kube/core/type_schema.hpp>

/// The shape of Go's zero values of kube's built-in types (generated from the OpenAPI documents
/// by tools/apigen/go_zero_table.py), laid onto the embedded server's type schemas. Internal to
/// src/apiserver/rest. **Thread-safety:** the table is immutable; annotate a schema before it is
/// shared.
namespace kube::apiserver::rest {

namespace internal {
/// The generated table (go_zero_table.cpp): `{"defs": {...}, "kinds": {...}}`.
std::string_view GoZeroTableJson();
}  // namespace internal

/// Sets `go_zero_members` and the atomic struct types (`x-kubernetes-map-type: atomic`) of the
/// schema tree `root` of `group`/`version`/`kind` from the table, member by member as far as the
/// schema describes the type. A kind the table does not know is left as it is.
void AnnotateGoZero(TypeSchema& root, std::string_view group, std::string_view version, std::string_view kind);

}  // namespace kube::apiserver::rest
