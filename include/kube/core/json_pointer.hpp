#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/value.hpp>

#include <kube/base/result.hpp>

namespace kube {

/// A parsed JSON Pointer (RFC 6901): a sequence of reference tokens, held unescaped.
/// The empty pointer ("") names the whole document; "/" names the member "" of the root.
/// A token is not typed: whether "0" is an object member or an array index is decided by the
/// value it is applied to (see `Find`).
/// **Thread-safety:** a value type; const methods may be called concurrently.
class JsonPointer final {
 public:
  /// The empty pointer (the whole document).
  JsonPointer() = default;

  /// Parses the JSON string form of a pointer: "" or "/"-separated tokens in which "~1" stands for
  /// "/" and "~0" for "~". URI fragment form ("#/a") is not accepted.
  /// **Errors:** 400 BadRequest when `text` is not empty and does not start with "/", or when a
  /// "~" is not followed by "0" or "1" (the message names the offending offset).
  static Result<JsonPointer> Parse(std::string_view text);

  /// A pointer made of already-unescaped tokens (no validation is needed: every token is valid).
  static JsonPointer FromTokens(std::vector<std::string> tokens);

  /// The unescaped reference tokens, root first. Empty for the whole document.
  const std::vector<std::string>& Tokens() const noexcept { return tokens_; }

  /// The JSON string form, re-escaped: `Parse(p.String())` yields `p`.
  std::string String() const;

  /// True when `*this` names `other` or one of its ancestors (token-wise, so "/a" is a prefix of
  /// "/a/b" but not of "/ab"). The empty pointer is a prefix of every pointer.
  bool IsPrefixOf(const JsonPointer& other) const noexcept;

  /// Token-wise equality ("/a~1b" == FromTokens({"a/b"})).
  bool operator==(const JsonPointer&) const = default;

 private:
  explicit JsonPointer(std::vector<std::string> tokens) : tokens_(std::move(tokens)) {}

  std::vector<std::string> tokens_;
};

/// Escapes one reference token for the string form of a pointer: "~" -> "~0", "/" -> "~1".
std::string EscapeJsonPointerToken(std::string_view token);

/// Parses `token` as an array index per RFC 6901: "0", or decimal digits without a leading zero,
/// that fit in `std::size_t`. Returns nullopt otherwise ("-", "01", "1e0", "+1", "-1", "").
/// The caller checks the index against the array's size.
std::optional<std::size_t> ParseJsonPointerArrayIndex(std::string_view token) noexcept;

/// The value `pointer` names in `doc`, or nullptr when it names nothing: a missing member, an
/// invalid or out-of-range array index, "-" (which names the element after the last one and so
/// never resolves), or a token applied to a scalar.
/// **Ownership:** the result points into `doc` and is valid until `doc` is modified or destroyed.
/// **Thread-safety:** read-only on `doc`.
const boost::json::value* Find(const boost::json::value& doc, const JsonPointer& pointer) noexcept;

/// Mutable overload of `Find`: same resolution rules; the caller may modify the value in place.
/// **Ownership:** as for the const overload.
boost::json::value* Find(boost::json::value& doc, const JsonPointer& pointer) noexcept;

/// JSON equality: same type and value, with object members compared regardless of their order and
/// arrays element by element. Numbers compare by mathematical value across the int64, uint64 and
/// double representations (1 == 1.0 == 1u; 2^63 as uint64 == 9223372036854775808.0; -1 != the
/// uint64 max), exactly, without rounding through double. NaN equals nothing.
/// Used by the JSON Patch `test` operation and by `CreateMergePatch`.
/// **Thread-safety:** read-only on both arguments. Recurses once per nesting level.
bool JsonEqual(const boost::json::value& a, const boost::json::value& b) noexcept;

}  // namespace kube
