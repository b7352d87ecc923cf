#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include <kube/base/result.hpp>

namespace kube::api {

/// A fixed-point decimal amount with apimachinery's `resource.Quantity` semantics: "100m" CPU,
/// "1536Mi" memory. The value is exact (arbitrary precision, never a float); it remembers the
/// kind of suffix it was written with and prints itself in canonical form in that kind.
///
/// Results differ from Go's only where Go's own two internal representations disagree with
/// each other, wrap, or print a wrong value: see `String()`, `ScaledValue()` and
/// `AsApproximateFloat64()`.
///
/// **Thread-safety:** a value type; const methods are safe to call concurrently.
class Quantity final {
 public:
  /// How `String()` writes the value (Go's `resource.Format`).
  enum class Format {
    kDecimalExponent,  ///< "12e6": an `e<exponent>` suffix, exponents a multiple of 3
    kBinarySI,         ///< "12Mi": Ki, Mi, Gi, Ti, Pi, Ei (powers of 1024)
    kDecimalSI,        ///< "12M": n, u, m, k, M, G, T, P, E (powers of 1000)
  };

  /// Zero, in DecimalSI (what Go's `ParseQuantity("0")` returns).
  Quantity() = default;

  /// Parses `s` exactly as Go's `resource.ParseQuantity`: an optionally signed decimal number
  /// (`1`, `1.5`, `.5`, `1.`) followed by one suffix: n u m "" k M G T P E (DecimalSI), Ki Mi Gi
  /// Ti Pi Ei (BinarySI) or `e`/`E` and a signed integer (DecimalExponent). No whitespace.
  /// Precision finer than 1n is rounded away from zero ("0.1n" is 1n, "-0.1n" is -1n). A BinarySI
  /// magnitude is capped at 2^63-1 ("8Ei" parses as 9223372036854775807), and a BinarySI value
  /// strictly between -1 and 1 becomes DecimalSI; decimal values are not capped. As in Go, an
  /// `e` exponent is truncated to 32 bits ("1e4294967296" is 1).
  /// **Errors:** 400 BadRequest with Go's message: `quantities must match the regular expression
  /// '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'` (empty or malformed), `unable to parse
  /// quantity's suffix` (e.g. "1Ki5", "1mi", "1e"), or `unable to parse numeric part of
  /// quantity` (a suffix with no digits where Go needs its decimal path, e.g. ".e-10", ".Ei").
  static Result<Quantity> Parse(std::string_view s);

  /// `value` in `format` (Go's `NewQuantity`).
  static Quantity FromInt(int64_t value, Format format);
  /// `milli` / 1000 in `format` (Go's `NewMilliQuantity`).
  static Quantity FromMilli(int64_t milli, Format format);
  /// `value` * 10^`scale` in `format` (Go's `NewScaledQuantity`, which always uses DecimalSI).
  static Quantity FromScaled(int64_t value, int32_t scale, Format format);

  /// The canonical form, as Go's `CanonicalizeBytes`: no fractional digits, the largest suffix
  /// that loses no precision ("0.1" -> "100m", "1.5Gi" -> "1536Mi", "1000m" -> "1"), "0" for zero,
  /// a leading '-' only when negative. DecimalSI values beyond the suffixes ("1000E", "1e-12")
  /// use an `e` exponent. BinarySI values that are not integers, or lie strictly between -1024
  /// and 1024, are written as DecimalSI. Three choices differ from Go: Go's `String()` returns
  /// the parsed text unchanged when it judges it canonical (so "+1", "01" and "1.500" come
  /// back as typed, apimachinery issue #138165); this always canonicalizes. A BinarySI
  /// multiple of 1024^7 or more keeps the `Ei` suffix ("1024Ei") where Go drops the suffix
  /// and prints a wrong value. And BinarySI -2^63 is "-8Ei" here, as on Go's inf.Dec path,
  /// where Go's int64 path (`NewQuantity(math.MinInt64, BinarySI)`) prints
  /// "-9223372036854775808".
  /// The result has one character per digit of the value: a BinarySI value near 10^N takes N.
  std::string String() const;

  /// The format `String()` uses.
  Format format() const { return format_; }

  /// `ScaledValue(0)`: the value rounded to an integer away from zero ("1.1" -> 2, "-1.1" -> -2).
  int64_t Value() const;
  /// `ScaledValue(-3)`: the value in thousandths, rounded away from zero.
  int64_t MilliValue() const;
  /// The value / 10^`scale`, rounded to an integer away from zero; saturates at the int64
  /// bounds when it does not fit. Go agrees while it holds the value in an int64. On its
  /// inf.Dec path (values parsed with a fraction of a binary suffix, more than 18 digits or
  /// finer than 1n, and sums involving those) Go rounds negative values toward +infinity, and
  /// for |unscaled| < 2^63 one further ("-1.1Ki" gives -1125, "-0.1n" gives +1); and Go wraps
  /// on overflow. Here it is always away from zero, and saturating.
  int64_t ScaledValue(int32_t scale) const;

  /// A float64 approximation, computed as Go's `AsApproximateFloat64` (unscaled * Pow10(exp),
  /// with Go's Pow10 tables, so "7Mi" * 10^-1 rounds as Go's does, not as 7Mi / 10); ±Inf when
  /// the magnitude is beyond a double. It is Go's result, bit for bit, for every non-zero value
  /// Parse and the From* functions produce; after Add/Sub it may differ in the last bit. Zero
  /// gives 0, where Go gives NaN for a zero written with an exponent past 308 ("0e400").
  double AsApproximateFloat64() const;

  /// True when the value is 0 (in any format).
  bool IsZero() const { return digits_.empty(); }
  /// -1, 0 or 1.
  int Sign() const { return digits_.empty() ? 0 : (negative_ ? -1 : 1); }

  /// Compares values, ignoring formats (Go's `Cmp`): -1, 0 or 1. Cheap even when the exponents
  /// are far apart.
  int Compare(const Quantity& other) const;

  /// Adds `other` exactly. The receiver keeps its format, unless it is zero, when it takes
  /// `other`'s (as Go's `Add`). The cost is linear in the exponent spread of the two
  /// values: adding 1 and 1e100000 writes out 100001 digits, as Go's inf.Dec does.
  void Add(const Quantity& other);
  /// Subtracts `other` exactly; formats and cost as `Add`.
  void Sub(const Quantity& other);
  /// Negates in place (zero stays zero, and is never printed as "-0").
  void Neg();

  /// Equal values, whatever the formats: "1" == "1000m" == "1e0".
  friend bool operator==(const Quantity& a, const Quantity& b) { return a.Compare(b) == 0; }
  /// Orders by value, whatever the formats.
  friend std::strong_ordering operator<=>(const Quantity& a, const Quantity& b) {
    return a.Compare(b) <=> 0;
  }

 private:
  // The value is (negative_ ? -1 : 1) * digits_ * 10^exponent_. digits_ holds the magnitude in
  // decimal ASCII, most significant first, with no leading '0'; it is empty iff the value is 0,
  // and then negative_ is false and exponent_ is 0. Trailing zeros are kept, so that for a
  // non-zero parsed or From* value (digits_, exponent_) is the (unscaled, scale) pair Go holds;
  // only AsApproximateFloat64 can tell.
  std::string digits_;
  int64_t exponent_ = 0;
  bool negative_ = false;
  Format format_ = Format::kDecimalSI;
};

}  // namespace kube::api
