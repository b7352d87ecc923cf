#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <kube/base/result.hpp>

namespace kube::core::internal {

/// The kind of the JSON value at the cursor.
enum class JsonKind { kObject, kArray, kString, kNumber, kTrue, kFalse, kNull };

/// "object", "array", "string", "number", "boolean", "null".
std::string_view JsonKindName(JsonKind kind);

/// A string token: the raw bytes between the quotes, and whether they contain escapes.
struct RawString {
  std::string_view raw;
  bool escaped = false;
};

/// Appends the decoded form of `s` to `out` (escapes resolved; \u surrogate pairs to UTF-8).
/// `s` must come from JsonCursor::String (already validated).
void AppendUnescaped(const RawString& s, std::string& out);

/// Appends `s` as a JSON string literal (with quotes) to `out`.
void AppendQuoted(std::string_view s, std::string& out);

/// The maximum nesting depth accepted by every kubecpp JSON parser.
inline constexpr int kMaxJsonDepth = 1000;

/// A validating, non-allocating cursor over a complete JSON text (RFC 8259: strict grammar,
/// valid UTF-8 in strings, no control characters in strings, nesting at most kMaxJsonDepth).
/// Errors name the line, column and byte offset.
/// **Thread-safety:** none; a cursor is a short-lived local. **Lifetime:** `text` must outlive it.
class JsonCursor {
 public:
  explicit JsonCursor(std::string_view text) : text_(text) {}

  /// Skips whitespace; returns the next byte or '\0' at the end.
  char Peek() {
    SkipWs();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  /// Current byte offset.
  std::size_t pos() const { return pos_; }
  void set_pos(std::size_t p) { pos_ = p; }
  std::string_view text() const { return text_; }
  /// True if any whitespace outside strings has been skipped so far.
  bool saw_whitespace() const { return saw_ws_; }
  /// The kind of the next value, or an error if the next byte cannot start one.
  Result<JsonKind> PeekKind();
  /// Consumes `c` (after whitespace) or fails with "expected '<c>'".
  Result<void> Expect(char c, std::string_view context);
  /// Consumes `c` if it is next; returns whether it did.
  bool Consume(char c) {
    if (Peek() == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  /// Consumes a string token.
  Result<RawString> String();
  /// Consumes a number token and returns its text.
  Result<std::string_view> Number();
  /// Consumes a number that must be an integer in int64 range.
  Result<int64_t> Int64(std::string_view field);
  /// Consumes and validates any value; returns its raw text span.
  Result<std::string_view> SkipValue();
  /// Fails unless only whitespace remains.
  Result<void> ExpectEnd();

  /// A syntax error: BadRequest "invalid JSON: <what> at line L, column C (offset N)" for the
  /// current position.
  Error ErrorHere(std::string_view what) const { return ErrorAt(pos_, what); }
  /// A syntax error at `offset`.
  Error ErrorAt(std::size_t offset, std::string_view what) const;
  /// A schema error (valid JSON, wrong shape): BadRequest "<what> at line L, column C (offset N)".
  Error FieldErrorAt(std::size_t offset, std::string_view what) const;

 private:
  void SkipWs() {
    const std::size_t start = pos_;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') break;
      ++pos_;
    }
    if (pos_ != start) saw_ws_ = true;
  }
  Result<void> Literal(std::string_view word);

  std::string_view text_;
  std::size_t pos_ = 0;
  bool saw_ws_ = false;
};

/// The decoded text of a key: `key.raw` itself when it has no escapes, else decoded into
/// `scratch` (which must outlive the returned view).
inline std::string_view KeyText(const RawString& key, std::string& scratch) {
  if (!key.escaped) return key.raw;
  scratch.clear();
  core::internal::AppendUnescaped(key, scratch);
  return scratch;
}

/// Iterates the members of an object whose '{' was consumed; calls fn(key, key_start) with the
/// cursor at the member value; fn must consume the value.
template <class Fn>
Result<void> ForEachMember(JsonCursor& cur, Fn&& fn) {
  if (cur.Consume('}')) return Ok();
  std::string scratch;
  while (true) {
    cur.Peek();
    const std::size_t key_start = cur.pos();
    if (key_start >= cur.text().size()) {
      return cur.ErrorHere("unexpected end of input, expected a string key in object");
    }
    auto key = cur.String();
    if (!key.ok()) return cur.ErrorHere("expected a string key in object");
    KUBE_RETURN_IF_ERROR(cur.Expect(':', "after object key"));
    KUBE_RETURN_IF_ERROR(fn(KeyText(*key, scratch), key_start));
    if (cur.Consume(',')) continue;
    return cur.Expect('}', "or ',' in object");
  }
}

/// Iterates the elements of an array whose '[' was consumed; calls fn(index) with the cursor at
/// the element; fn must consume it.
template <class Fn>
Result<void> ForEachElement(JsonCursor& cur, Fn&& fn) {
  if (cur.Consume(']')) return Ok();
  for (std::size_t i = 0;; ++i) {
    KUBE_RETURN_IF_ERROR(fn(i));
    if (cur.Consume(',')) continue;
    return cur.Expect(']', "or ',' in array");
  }
}

/// Validates `text` as exactly one JSON value (any kind). **Errors:** BadRequest with position.
Result<void> ValidateJson(std::string_view text);

/// Copies `text` without whitespace outside strings. `text` must be valid JSON.
std::string CompactJson(std::string_view text);

}  // namespace kube::core::internal
