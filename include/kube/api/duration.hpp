#pragma once

#include <chrono>
#include <compare>
#include <string>
#include <string_view>

#include <kube/base/result.hpp>

namespace kube::api {

/// metav1.Duration: a signed span of nanoseconds, written on the wire as Go's
/// `time.Duration.String()` ("1h0m0s", "1.5s", "500ms") and read with `time.ParseDuration`.
/// **Thread-safety:** a value type; const methods are safe to call concurrently.
class Duration final {
 public:
  /// Zero.
  Duration() = default;
  /// Wraps `value`.
  explicit Duration(std::chrono::nanoseconds value) : value_(value) {}

  /// The span.
  std::chrono::nanoseconds value() const { return value_; }

  /// Parses `s` exactly as Go's `time.ParseDuration`: an optional sign, then one or more
  /// decimal numbers, each with an optional fraction and a unit: ns, us, µs (U+00B5), μs
  /// (U+03BC), ms, s, m, h ("300ms", "-1.5h", "2h45m", ".5s", "5.s"). "0", "+0" and "-0" need no
  /// unit. Fractions are converted through a double, as Go does, so "0.3333333333333333333h" is
  /// exactly 20m. The range is that of int64 nanoseconds.
  /// **Errors:** 400 BadRequest with Go's message, quoting as Go quotes (non-ASCII and control
  /// bytes as \xNN): `time: invalid duration "..."` for a malformed or out-of-range string
  /// (`""`, `"-"`, `".s"`, `"1h.s"`, `"9223372036854775808ns"`), `time: missing unit in
  /// duration "1.5"`, or `time: unknown unit "d" in duration "1d"` (a unit is every byte up to
  /// the next digit or '.', so "1h-2m" has the unit "h-").
  static Result<Duration> Parse(std::string_view s);

  /// Go's `time.Duration.String()`: "72h3m0.5s" (hours are the largest unit, and inner zero
  /// units are kept: "1h0m0s"); under a second, the largest of ms, µs (U+00B5) and ns that
  /// leaves a non-zero integer part ("1.5ms", "1.001µs", "1ns"); "0s" for zero.
  std::string String() const;

  /// Equal spans.
  friend bool operator==(const Duration&, const Duration&) = default;
  /// Orders by span.
  friend std::strong_ordering operator<=>(const Duration&, const Duration&) = default;

 private:
  std::chrono::nanoseconds value_{0};
};

}  // namespace kube::api
