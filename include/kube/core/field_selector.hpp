#pragma once

#include <concepts>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <kube/base/result.hpp>

namespace kube {

/// Anything fields can be read from: `Get(field)` returns the value of `field` (e.g.
/// "metadata.name"), or nullopt when the object has no such field.
template <class F>
concept FieldGetter = requires(const F& fields, std::string_view field) {
  { fields.Get(field) } -> std::convertible_to<std::optional<std::string_view>>;
};

/// One term of a field selector: `field=value` or `field!=value` (apimachinery
/// `fields.Requirement`). `value` is unescaped. `==` parses to `kEquals`.
/// **Thread-safety:** a value type; const methods are safe to call concurrently.
struct FieldRequirement {
  /// The comparison of a term.
  enum class Op {
    kEquals,     ///< `field=value` or `field==value`
    kNotEquals,  ///< `field!=value`
  };

  std::string field;    ///< e.g. "metadata.name"; taken verbatim from the selector
  Op op = Op::kEquals;  ///< the comparison
  std::string value;    ///< unescaped

  /// Whether an object whose `field` has `field_value` satisfies this term. As apimachinery's
  /// `fields.Set`, an absent field (nullopt) reads as "": `f=` and `f!=x` match it.
  bool Matches(std::optional<std::string_view> field_value) const;

  /// The term in selector syntax with the value escaped, e.g. `spec.nodeName!=a\,b`.
  std::string String() const;

  /// Member-wise equality.
  bool operator==(const FieldRequirement&) const = default;
};

/// A parsed field selector: an AND of `field=value` / `field!=value` terms (apimachinery
/// `fields.Selector`). A default-constructed selector is `Everything()`.
/// Which fields a resource supports is the API server's business, not the parser's.
/// **Thread-safety:** immutable after construction; const methods are safe to call concurrently
/// and a selector is safe to share.
class FieldSelector final {
 public:
  /// The selector that matches everything (same as `Everything()`).
  FieldSelector() = default;

  /// Parses apimachinery's field-selector syntax: terms separated by unescaped ","; each term is
  /// `field=value`, `field==value` or `field!=value`, split at the first operator found scanning
  /// left to right (the field is taken verbatim, no escapes, no trimming). In the value, `\,`
  /// `\=` and `\\` stand for `,` `=` `\`. Empty terms are skipped, and so is a term whose field and
  /// value are both empty (as apimachinery's identity transform does), so "" and "," parse to
  /// `Everything()`. Terms are ordered by their canonical text (see `String()`).
  /// **Errors:** BadRequest: `invalid selector: 'a=b,c'; can't understand 'c'` for a term without
  /// an operator; `invalid field selector: invalid escape sequence: \x (in term 'f=\x')` and
  /// `invalid field selector: unescaped character in value: '=' (in term 'f=a=b')` for a bad
  /// value. Never crashes, for any input bytes.
  static Result<FieldSelector> Parse(std::string_view selector);

  /// Matches everything. `Empty()` is true.
  static FieldSelector Everything();

  /// `field=value` for every entry of `set` (apimachinery `fields.SelectorFromSet`); an empty set
  /// gives `Everything()`. Nothing is validated: a field containing `=`, `!` or `,` gives a
  /// selector whose `String()` does not parse back to it.
  static FieldSelector FromSet(const std::map<std::string, std::string>& set);

  /// The single term `field=value` (apimachinery `OneTermEqualSelector`), e.g. the
  /// `metadata.name=<name>` that a GET by name implies.
  static FieldSelector OneTermEqual(std::string field, std::string value);

  /// True when every term matches `fields` (an absent field reads as "").
  template <FieldGetter F>
  bool Matches(const F& fields) const {
    for (const FieldRequirement& r : requirements_) {
      if (!r.Matches(fields.Get(r.field))) return false;
    }
    return true;
  }
  /// As above, for a plain field map.
  bool Matches(const std::map<std::string, std::string>& fields) const;

  /// True when the selector has no terms.
  bool Empty() const { return requirements_.empty(); }

  /// The terms, ordered by their canonical text (`FieldRequirement::String()`).
  const std::vector<FieldRequirement>& Requirements() const { return requirements_; }

  /// The value of the first `field=value` term on `field` (apimachinery `RequiresExactMatch`);
  /// nullopt when there is none (`!=` terms never count).
  std::optional<std::string> RequiresExactMatch(std::string_view field) const;

  /// The canonical selector string: terms in order joined by ",", values escaped, `==` written
  /// as `=`; "" for `Everything()`. For a selector built by `Parse`, `Parse(String())` gives an
  /// equal selector.
  std::string String() const;

  /// Structural equality: the same terms in the same order.
  bool operator==(const FieldSelector&) const = default;

 private:
  // Sorted by FieldRequirement::String(), which is how apimachinery orders terms (it sorts the
  // raw term texts) when the input is already canonical.
  std::vector<FieldRequirement> requirements_;
};

/// Escapes a literal for use as a field-selector value: `\` -> `\\`, `,` -> `\,`, `=` -> `\=`
/// (apimachinery `fields.EscapeValue`). `UnescapeFieldValue(EscapeFieldValue(s)) == s` for every s.
std::string EscapeFieldValue(std::string_view value);

/// Reverses `EscapeFieldValue` (apimachinery `fields.UnescapeValue`).
/// **Errors:** BadRequest `invalid field selector: invalid escape sequence: \x` for a backslash
/// followed by anything but `\` `,` `=` (or by nothing), and `invalid field selector: unescaped
/// character in value: ','` for a bare `,` or `=`.
Result<std::string> UnescapeFieldValue(std::string_view escaped);

}  // namespace kube
