#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/json.hpp>

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

/// Go's zero value of the struct `schema` describes, as Go encodes it: its always-encoded members
/// (`go_zero_members`), non-pointer structs among them filled in the same way.
boost::json::object GoZeroObject(const TypeSchema& schema);

/// What decoding into the Go type and encoding again adds to `value`: the always-encoded members
/// of every struct present (a non-pointer struct as its zero value, an always-encoded slice or
/// map as null, a non-omitempty scalar as its zero), at every depth the schema describes. A
/// member given as null where Go has a non-pointer struct becomes that struct's zero value.
void FillGoZero(const TypeSchema& schema, boost::json::value& value);

/// The error Go's encoding/json gives when decoding `value` into the Go type `schema` describes
/// (annotated by AnnotateGoZero): the first value, in document order, whose JSON type the Go
/// type cannot take, as `json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas
/// of type int32`; nullopt when every value fits. Members the schema does not know and types
/// with their own decoder (Time, Quantity, IntOrString) are not checked.
std::optional<std::string> GoUnmarshalError(const TypeSchema& schema, const boost::json::value& value);

/// The first value `GoUnmarshalError` stops at, with the Go type it does not fit.
struct GoUnmarshalFailure {
  std::string message;        ///< as GoUnmarshalError words it
  boost::json::value value;   ///< the offending JSON value
  std::string go_type;        ///< the Go type of its field, e.g. "string", "int32", "v1.PodSpec"
};
/// As GoUnmarshalError, with the value and the type; nullopt when every value fits.
std::optional<GoUnmarshalFailure> FindGoUnmarshalFailure(const TypeSchema& schema, const boost::json::value& value);

/// What Go does to the empty slices and maps of a built-in object: one with omitempty is not
/// encoded (`stored` false: a decoded request body); with `stored`, what storing it as protobuf
/// and reading it back does besides: an always-encoded empty one becomes null. Structs and
/// values the schema leaves open are kept as they are.
void NormalizeGoEmpty(const TypeSchema& schema, boost::json::value& value, bool stored);

}  // namespace kube::apiserver::rest
