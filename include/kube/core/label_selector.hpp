#pragma once

#include <concepts>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/fwd.hpp>

#include <kube/base/result.hpp>

namespace kube {

/// The operator of one label-selector requirement (apimachinery `selection.Operator`).
/// `kEquals` and `kDoubleEquals` match alike; they are kept apart only so that `String()`
/// reproduces what was parsed.
enum class SelectorOperator {
  kEquals,        ///< `key=value`
  kDoubleEquals,  ///< `key==value`
  kNotEquals,     ///< `key!=value`; also matches when the key is absent
  kIn,            ///< `key in (v1,v2)`
  kNotIn,         ///< `key notin (v1,v2)`; also matches when the key is absent
  kExists,        ///< `key`
  kDoesNotExist,  ///< `!key`
  kGreaterThan,   ///< `key>N` (integers)
  kLessThan,      ///< `key<N` (integers)
};

/// The apimachinery spelling of `op`: "=", "==", "!=", "in", "notin", "exists", "!", "gt", "lt".
/// These are the names error messages use; the selector grammar spells Gt/Lt as `>`/`<`.
std::string_view SelectorOperatorName(SelectorOperator op);

/// Anything labels can be read from: `Get(key)` returns the value of `key`, or nullopt when the
/// key is absent. An empty value is a present key.
template <class L>
concept LabelGetter = requires(const L& labels, std::string_view key) {
  { labels.Get(key) } -> std::convertible_to<std::optional<std::string_view>>;
};

/// One term of a label selector: `key <op> values` (apimachinery `labels.Requirement`).
/// A plain aggregate; `Create()` builds a validated one, and `LabelSelector` only ever holds
/// validated, normalized requirements (values of in/notin sorted and de-duplicated).
/// **Thread-safety:** a value type; const methods are safe to call concurrently.
struct Requirement {
  std::string key;                                  ///< the label key, e.g. "app.kubernetes.io/name"
  SelectorOperator op = SelectorOperator::kExists;  ///< how the label's value is tested
  std::vector<std::string> values;                  ///< none for exists/!key, one for =,==,!=,>,<

  /// Validates as apimachinery `NewRequirement` and normalizes (in/notin values sorted and
  /// de-duplicated). Rules: `key` is a qualified name (`[DNS-subdomain prefix (<=253) "/"] name`,
  /// name <= 63 chars of `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`); every value is a label value
  /// (<= 63 chars, empty allowed, same charset); in/notin need >= 1 value; =, ==, != exactly one;
  /// exists/!key none; gt/lt exactly one int64.
  /// **Errors:** BadRequest naming the field, e.g.
  /// `values[0][app]: Invalid value: "a b": a valid label must be ...`; several violations are
  /// reported together as `[first, second]`.
  static Result<Requirement> Create(std::string key, SelectorOperator op,
                                    std::vector<std::string> values);

  /// Whether a label set whose value for `key` is `value` (nullopt = key absent) satisfies this
  /// requirement. `!=` and `notin` match an absent key; `>`/`<` compare as int64 and never match
  /// an absent key or a value that is not an integer.
  bool Matches(std::optional<std::string_view> value) const;

  /// The selector syntax of this requirement, e.g. `a=b`, `c in (x,y)` (values sorted), `!d`,
  /// `e`, `n>3`.
  std::string String() const;

  /// Member-wise equality (values compared in order; normalized requirements have them sorted).
  bool operator==(const Requirement&) const = default;
};

/// A parsed label selector: an AND of requirements (apimachinery `labels.Selector`).
/// A default-constructed selector is `Everything()`.
/// **Thread-safety:** immutable after construction except for `Add()`; const methods are safe to
/// call concurrently, and a selector is safe to share once no one calls `Add()` on it.
class LabelSelector final {
 public:
  /// The selector that matches every label set (same as `Everything()`).
  LabelSelector() = default;

  /// Parses the apimachinery label-selector syntax:
  /// ```
  /// <selector>    ::= <requirement> | <requirement> "," <selector>
  /// <requirement> ::= [!] KEY [ ("in"|"notin") "(" VALUE ("," VALUE)* ")" | ("="|"=="|"!="|">"|"<") VALUE ]
  /// ```
  /// Whitespace (space, tab, CR, LF) separates tokens; "" parses to `Everything()`. Values of an
  /// in/notin list may be empty (`x in (a,,b)`, `z notin ()` = the single value ""); `x=` means
  /// the value "". `in`/`notin` are keywords only in operator position. Requirements are stably
  /// sorted by key; in/notin values sorted and de-duplicated.
  /// **Errors:** BadRequest with apimachinery's wording plus the 0-based byte offset of the
  /// offending token, e.g. `unable to parse requirement: found '(', expected: in, notin, =, ==,
  /// !=, gt, lt (position 4)`, `found 'b', expected: ',' or 'end of string' (position 6)`, or a
  /// validation error as from `Requirement::Create`. Never crashes, for any input bytes.
  static Result<LabelSelector> Parse(std::string_view selector);

  /// Matches every label set. `Empty()` is true.
  static LabelSelector Everything();

  /// Matches no label set (apimachinery's `nothingSelector`). `Empty()` is false, `Add()` keeps it
  /// Nothing. Its `String()` is the contradiction `kubecpp.io/nothing,!kubecpp.io/nothing`, which
  /// is valid wire syntax that selects nothing on any server (never "", which would select
  /// everything); parsing it back yields an equivalent selector, not one equal to `Nothing()`.
  static LabelSelector Nothing();

  /// A selector matching exactly the labels in `set` (`key=value` each), as apimachinery
  /// `SelectorFromSet`: an empty set gives `Everything()`, and nothing is validated (a set with an
  /// invalid key or value gives a selector whose `String()` does not parse).
  static LabelSelector FromSet(const std::map<std::string, std::string>& set);

  /// As `FromSet`, but validates every key and value (apimachinery `ValidatedSelectorFromSet`).
  /// **Errors:** BadRequest as `Requirement::Create`.
  static Result<LabelSelector> ValidatedFromSet(const std::map<std::string, std::string>& set);

  /// Converts a `metav1.LabelSelector` JSON value as apimachinery `LabelSelectorAsSelector`:
  /// `null` gives `Nothing()`; `{}` (no matchLabels and no matchExpressions) gives `Everything()`;
  /// each matchLabels entry becomes `key=value`; each matchExpressions entry
  /// `{key, operator: In|NotIn|Exists|DoesNotExist, values}` becomes one requirement (In/NotIn need
  /// values, Exists/DoesNotExist must have none). JSON `null` members count as absent; unknown
  /// members are ignored.
  /// **Errors:** BadRequest: `"Foo" is not a valid label selector operator`; a wrong JSON type
  /// names the member, e.g. `matchLabels.app: expected string`,
  /// `matchExpressions[1].values[0]: expected string`; validation errors are prefixed with the
  /// member they come from, e.g. `matchExpressions[0]: values: Invalid value: ...`.
  static Result<LabelSelector> FromLabelSelectorJson(const boost::json::value& json);

  /// True when every requirement matches `labels` (always true for `Everything()`, always false
  /// for `Nothing()`).
  template <LabelGetter L>
  bool Matches(const L& labels) const {
    if (nothing_) return false;
    for (const Requirement& r : requirements_) {
      if (!r.Matches(labels.Get(r.key))) return false;
    }
    return true;
  }
  /// As above, for a plain label map.
  bool Matches(const std::map<std::string, std::string>& labels) const;

  /// True when the selector does not restrict anything (no requirements and not `Nothing()`).
  bool Empty() const { return !nothing_ && requirements_.empty(); }
  /// True for `Nothing()`.
  bool IsNothing() const { return nothing_; }

  /// The requirements, stably sorted by key. Empty for `Everything()` and `Nothing()`.
  const std::vector<Requirement>& Requirements() const { return requirements_; }

  /// Adds `requirement` (ANDed), keeping requirements stably sorted by key (it goes after existing
  /// requirements with the same key). A no-op on `Nothing()` once validated.
  /// **Errors:** BadRequest as `Requirement::Create`; the selector is unchanged then.
  /// **Thread-safety:** mutates; not safe concurrently with any other call on this selector.
  Result<void> Add(Requirement requirement);

  /// The value a matching label set must have for `key`, when the first requirement on `key` is
  /// `key=v`, `key==v` or `key in (v)` (apimachinery `RequiresExactMatch`); nullopt otherwise.
  std::optional<std::string> RequiresExactMatch(std::string_view key) const;

  /// The canonical selector string (apimachinery `internalSelector.String()`): requirements in
  /// order joined by ",", e.g. `a=b,c in (x,y),!d,e`. "" for `Everything()`. For any selector
  /// built by `Parse`, `Create`/`Add` or `FromLabelSelectorJson`, `Parse(String())` gives an
  /// equal selector.
  std::string String() const;

  /// Structural equality: same requirements in the same order (so `x=a,x!=b` and `x!=b,x=a`
  /// differ, as in apimachinery), and Nothing only equals Nothing.
  bool operator==(const LabelSelector&) const = default;

 private:
  // Every element is valid and normalized; stably sorted by key. Empty when nothing_.
  std::vector<Requirement> requirements_;
  bool nothing_ = false;
};

}  // namespace kube
