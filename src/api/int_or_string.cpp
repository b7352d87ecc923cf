#include <kube/api/int_or_string.hpp>

#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace kube::api {

Result<int> GetScaledValueFromIntOrPercent(const IntOrString& value, int total, bool round_up) {
  if (!value.is_string()) return static_cast<int>(value.int_value());
  const std::string& s = value.string_value();
  if (s.empty() || s.back() != '%') {
    return BadRequest("invalid value for IntOrString: invalid type: string is not a percentage");
  }
  const std::string_view digits(s.data(), s.size() - 1);
  // strconv.Atoi: an optional sign, then decimal digits.
  std::string_view number = digits;
  if (!number.empty() && number.front() == '+') number.remove_prefix(1);
  int percent = 0;
  auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), percent);
  if (number.empty() || ec != std::errc() || ptr != number.data() + number.size()) {
    const char* why = ec == std::errc::result_out_of_range ? "value out of range" : "invalid syntax";
    return BadRequest(fmt::format("invalid value for IntOrString: invalid value \"{}\": strconv.Atoi: parsing \"{}\": {}",
                                  s, digits, why));
  }
  const double scaled = static_cast<double>(percent) * static_cast<double>(total) / 100.0;
  return static_cast<int>(round_up ? std::ceil(scaled) : std::floor(scaled));
}

}  // namespace kube::api
