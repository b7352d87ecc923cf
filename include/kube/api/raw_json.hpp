#pragma once

#include <string>
#include <string_view>

namespace kube::api {

/// A JSON value kept as its compact text: `runtime.RawExtension` (an embedded object),
/// `metav1.FieldsV1` (managed-field sets) and apiextensions' `JSON` (any value in a schema).
/// Decoding keeps the value verbatim (validated, whitespace removed); encoding writes it back.
/// Empty text means absent (Go's nil `Raw`), encoded as `null`.
/// **Thread-safety:** as for any value type.
struct RawJson {
  std::string raw{};  ///< compact JSON text of one value, or empty

  bool empty() const { return raw.empty(); }
  bool operator==(const RawJson&) const = default;
};

/// `runtime.RawExtension`.
using RawExtension = RawJson;
/// `metav1.FieldsV1`.
using FieldsV1 = RawJson;

}  // namespace kube::api
