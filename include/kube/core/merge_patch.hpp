#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <boost/json/value.hpp>

#include <kube/base/result.hpp>

namespace kube {

/// Nesting limit used when the string overload of `ApplyMergePatch` parses its inputs.
inline constexpr std::size_t kMergePatchMaxDepth = 1000;

/// Applies a JSON Merge Patch (RFC 7386) to `target` and returns the result:
/// - a patch that is not an object replaces the target (so `null` yields null);
/// - an object patch turns a non-object target into `{}`, then for each member: null removes the
///   member (if present); any other value is merged recursively into the member (which starts as
///   `{}` for an object value); arrays are replaced wholesale, never merged.
/// Member order is kept; new members are appended.
/// Merge patches cannot fail: every JSON value is a valid merge patch.
/// **Thread-safety:** read-only on its arguments. Recursion depth equals the nesting depth of
/// `patch`, so callers handling untrusted values should bound that (the string overload does).
/// **Errors:** none; only allocation failure throws (std::bad_alloc).
boost::json::value ApplyMergePatch(const boost::json::value& target,
                                   const boost::json::value& patch);

/// As above on serialized JSON; returns the result serialized compactly.
/// **Errors:** 400 BadRequest when either input is not valid JSON or nests deeper than
/// `kMergePatchMaxDepth` (the message says which input and the byte offset); 500 InternalError
/// when memory runs out. Never throws.
Result<std::string> ApplyMergePatch(std::string_view target_json, std::string_view patch_json);

/// The string overload for two C strings (string literals), which would otherwise be ambiguous
/// between the `std::string_view` and the `boost::json::value` overloads. Both must be non-null.
inline Result<std::string> ApplyMergePatch(const char* target_json, const char* patch_json) {
  return ApplyMergePatch(std::string_view(target_json), std::string_view(patch_json));
}

/// The minimal merge patch that turns `original` into `modified`: members removed in `modified`
/// become null; members added or changed (per `JsonEqual`, so 1 -> 1.0 is no change) take their
/// new value, recursing into members that are objects on both sides; arrays that differ are sent
/// whole; unchanged members are omitted, so two equal objects give `{}`.
/// When `modified` is not an object, the patch is `modified` itself (even when equal to
/// `original`: `{}` would turn a non-object into an object). When `original` is not an object
/// and `modified` is, the patch is `modified` without its null members.
///
/// Null members in `modified` cannot be expressed (a null in a merge patch means "delete"), so
/// they are treated as absent: a member that is null in `modified` becomes null in the patch
/// (deleting it) when `original` has it with a non-null value, and is omitted otherwise (so a
/// member that is null on both sides is left alone). Hence
/// `ApplyMergePatch(original, CreateMergePatch(original, modified))` equals `modified` up to
/// null-valued object members (nulls inside arrays are preserved exactly), and equals it exactly
/// when `modified` has no null members.
/// **Thread-safety:** read-only on its arguments; recursion depth is bounded by the inputs' depth.
/// **Errors:** none; only allocation failure throws (std::bad_alloc).
boost::json::value CreateMergePatch(const boost::json::value& original,
                                    const boost::json::value& modified);

}  // namespace kube
