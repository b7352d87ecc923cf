#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <boost/json/value.hpp>

#include <kube/base/result.hpp>
#include <kube/core/json_pointer.hpp>

namespace kube {

/// Limits that keep `ApplyJsonPatch` safe on untrusted input. Defaults suit API-server use.
struct JsonPatchOptions {
  /// `replace` of a missing member of an object sets it, as evanphx/json-patch v4 (the library
  /// kube-apiserver applies JSON patches with) does; RFC 6902 (the default) fails it.
  bool replace_missing_member_adds = false;
  /// More operations than this fail the whole patch with 413 RequestEntityTooLarge
  /// (kube-apiserver's `maxJSONPatchOperations`, same message). Default 10000.
  std::size_t max_operations = 10000;
  /// Maximum container nesting of any value the patch places, counted from the document root
  /// ("[]" nests 1, "{"a":[]}" nests 2). (Text input is parsed with kubecpp's JSON limit of 1000.)
  /// Bounds recursion in later processing of the result. Only what the patch places is checked:
  /// a document that is already deeper is accepted as it is. Default 1000.
  std::size_t max_depth = 1000;
  /// Hard cap on the approximate serialized size of the result, in bytes. The result may grow to
  /// `3 * (document + patch)` bytes (at least 1 MiB) but never past this cap, unless the inputs
  /// are already larger, in which case the result may be as large as the inputs. This stops
  /// amplification by repeated `copy` operations. Default 16 MiB.
  std::size_t max_result_bytes = std::size_t{16} << 20;
};

/// Applies a JSON Patch (RFC 6902) to `doc` and returns the patched document.
///
/// `patch` must be an array of operation objects with an "op" of add, remove, replace, move, copy
/// or test, applied in order with exactly the RFC's semantics:
/// - add: "-" appends to an array; an index may be 0..size (inserts before it); an existing object
///   member is replaced; path "" replaces the whole document.
/// - remove / replace: the target must exist; "-" never names an existing element; path ""
///   cannot be removed but may be replaced.
/// - move: "from" must exist and must not be a proper prefix of "path"; moving a value onto itself
///   is a no-op.
/// - copy: a deep copy of "from" is added at "path" (into its own child is allowed).
/// - test: the target must exist and be `JsonEqual` to "value".
/// Members other than op/path/from/value are ignored. Array indices must be decimal without
/// leading zeros (RFC 6901).
///
/// **Atomicity:** `doc` is never modified; the ops are applied to a copy that is returned only if
/// every op succeeds.
/// **Errors:**
/// - 400 BadRequest: `patch` is not an array, or an element is not an object (the patch document
///   is malformed; kube-apiserver's `DecodePatch` failure).
/// - 413 RequestEntityTooLarge: more than `options.max_operations` operations.
/// - 422 Invalid (kube-apiserver's status for a patch that does not apply): an operation failed.
///   The message names the operation's index, its op and the failing pointer, e.g.
///   `jsonpatch operation 2 (replace) failed: path "/spec/x": missing value`. This covers a
///   missing or non-string "op"/"path"/"from", a missing "value", an unknown op, a malformed
///   pointer, a missing target or parent, a bad array index, a failed test, a move into the moved
///   value's own child, and exceeding `options.max_depth` or the size budget.
///   (kube-apiserver itself replaces the message by "the server rejected our request due to an
///   error in our request"; an HTTP layer may do the same.)
/// - 500 InternalError if memory runs out while building the result.
/// Never throws.
/// **Thread-safety:** read-only on its arguments; safe to call concurrently.
Result<boost::json::value> ApplyJsonPatch(const boost::json::value& doc,
                                          const boost::json::value& patch,
                                          const JsonPatchOptions& options = {});

/// As above on serialized JSON; returns the patched document serialized compactly (member order
/// preserved; new members appended).
/// **Errors:** 400 BadRequest when `doc_json` or `patch_json` is not valid JSON (or nests deeper
/// than 1000); the message names the input ("patch: invalid JSON: ...") and the line, column and
/// byte offset. Otherwise as above.
Result<std::string> ApplyJsonPatch(std::string_view doc_json, std::string_view patch_json,
                                   const JsonPatchOptions& options = {});

/// The string overload for two C strings (string literals), which would otherwise be ambiguous
/// between the `std::string_view` and the `boost::json::value` overloads. Both must be non-null.
inline Result<std::string> ApplyJsonPatch(const char* doc_json, const char* patch_json,
                                          const JsonPatchOptions& options = {}) {
  return ApplyJsonPatch(std::string_view(doc_json), std::string_view(patch_json), options);
}

}  // namespace kube
