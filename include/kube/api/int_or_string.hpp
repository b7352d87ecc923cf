#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <kube/base/result.hpp>

namespace kube::api {

/// `intstr.IntOrString`: an int32 or a string (a port number or name, a count or a
/// percentage such as "25%"). Encoded as a JSON number or string, as it was set.
/// Converts implicitly from an integer or a string, so that `.maxSurge = 1` and
/// `.maxSurge = "25%"` both read naturally. **Thread-safety:** as for any value type.
class IntOrString final {
 public:
  /// The integer 0.
  IntOrString() = default;
  IntOrString(int32_t value) : int_(value) {}  // NOLINT implicit
  IntOrString(std::string value) : is_string_(true), str_(std::move(value)) {}  // NOLINT implicit
  IntOrString(const char* value) : is_string_(true), str_(value) {}  // NOLINT implicit

  /// True for the string form.
  bool is_string() const { return is_string_; }
  /// The integer (0 for the string form).
  int32_t int_value() const { return int_; }
  /// The string ("" for the integer form).
  const std::string& string_value() const { return str_; }
  /// The string, or the integer in decimal (Go's `IntOrString.String()`).
  std::string ToString() const { return is_string_ ? str_ : std::to_string(int_); }

  bool operator==(const IntOrString&) const = default;

 private:
  bool is_string_ = false;
  int32_t int_ = 0;
  std::string str_;
};

/// `intstr.GetScaledValueFromIntOrPercent`: the integer itself, or for a percentage "N%" the
/// value N * total / 100, rounded up when `round_up`, down otherwise.
/// **Errors:** 400 BadRequest `invalid value for IntOrString: invalid type: string is not a
/// percentage` or `invalid value "x%": ...` as Go's wording, for a string that is not "N%".
Result<int> GetScaledValueFromIntOrPercent(const IntOrString& value, int total, bool round_up);

}  // namespace kube::api
