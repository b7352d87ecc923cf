#include <kube/api/quantity.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>

#include <kube/base/error.hpp>

namespace kube::api {
namespace {

using Format = Quantity::Format;

// Go's ErrFormatWrong, ErrNumeric and ErrSuffix, word for word.
constexpr std::string_view kErrFormatWrong =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kErrNumeric = "unable to parse numeric part of quantity";
constexpr std::string_view kErrSuffix = "unable to parse quantity's suffix";

// Go's maxInt64Factors: ParseQuantity keeps a number of at most this many digits on its int64
// path, and sends longer ones to its inf.Dec path.
constexpr int64_t kMaxInt64Factors = 18;
// Parsing keeps precision down to 10^-9 and rounds anything finer away from zero.
constexpr int64_t kNanoExponent = -9;
constexpr std::string_view kMaxInt64Digits = "9223372036854775807";
// Go's inf.Dec path leaves a parsed value at exactly 9 fractional digits, padding with zeros.
// Only AsApproximateFloat64 can tell the padding from none, so it is mirrored up to 400 zeros:
// past that both Go's unscaled value and our Pow10 factor exceed a double, and the result is
// ±Inf either way, while Go itself would write out every zero.
constexpr int64_t kMaxMirroredPadding = 400;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsSuffixLetter(char c) {
  return std::string_view("eEinumkKMGTP").find(c) != std::string_view::npos;
}

// Go's int32 conversion: keeps the low 32 bits.
int32_t WrapInt32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }

// --- Magnitudes: decimal ASCII digit strings, most significant first, no leading '0', "" = 0.

void StripLeadingZeros(std::string& d) {
  const size_t first = d.find_first_not_of('0');
  if (first == std::string::npos) {
    d.clear();
  } else {
    d.erase(0, first);
  }
}

// Compares a * 10^ea with b * 10^eb without writing either out.
int CompareMagnitudes(std::string_view a, int64_t ea, std::string_view b, int64_t eb) {
  if (a.empty() || b.empty()) return a.empty() ? (b.empty() ? 0 : -1) : 1;
  // One past the power of ten of the leading digit.
  const int64_t top_a = static_cast<int64_t>(a.size()) + ea;
  const int64_t top_b = static_cast<int64_t>(b.size()) + eb;
  if (top_a != top_b) return top_a < top_b ? -1 : 1;
  const size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const char da = i < a.size() ? a[i] : '0';
    const char db = i < b.size() ? b[i] : '0';
    if (da != db) return da < db ? -1 : 1;
  }
  return 0;
}

// a + b, both integers.
std::string AddDigits(std::string_view a, std::string_view b) {
  std::string out(std::max(a.size(), b.size()) + 1, '0');
  size_t i = a.size();
  size_t j = b.size();
  int carry = 0;
  for (size_t k = out.size(); k > 0; --k) {
    int sum = carry;
    if (i > 0) sum += a[--i] - '0';
    if (j > 0) sum += b[--j] - '0';
    out[k - 1] = static_cast<char>('0' + sum % 10);
    carry = sum / 10;
  }
  StripLeadingZeros(out);
  return out;
}

// a - b, both integers, a >= b.
std::string SubtractDigits(std::string_view a, std::string_view b) {
  std::string out(a.size(), '0');
  size_t j = b.size();
  int borrow = 0;
  for (size_t i = a.size(); i > 0; --i) {
    int d = (a[i - 1] - '0') - borrow - (j > 0 ? b[--j] - '0' : 0);
    borrow = d < 0 ? 1 : 0;
    if (d < 0) d += 10;
    out[i - 1] = static_cast<char>('0' + d);
  }
  StripLeadingZeros(out);
  return out;
}

void MultiplySmall(std::string& d, uint32_t factor) {
  if (d.empty()) return;
  uint64_t carry = 0;
  for (size_t i = d.size(); i > 0; --i) {
    const uint64_t v = static_cast<uint64_t>(d[i - 1] - '0') * factor + carry;
    d[i - 1] = static_cast<char>('0' + v % 10);
    carry = v / 10;
  }
  std::string head;
  for (; carry > 0; carry /= 10) head.insert(head.begin(), static_cast<char>('0' + carry % 10));
  d.insert(0, head);
}

// d / divisor, with the remainder in *remainder.
std::string DivideSmall(std::string_view d, uint32_t divisor, uint32_t* remainder) {
  std::string out(d.size(), '0');
  uint64_t rem = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    rem = rem * 10 + static_cast<uint64_t>(d[i] - '0');
    out[i] = static_cast<char>('0' + rem / divisor);
    rem %= divisor;
  }
  *remainder = static_cast<uint32_t>(rem);
  StripLeadingZeros(out);
  return out;
}

void Increment(std::string& d) {
  for (size_t i = d.size(); i > 0; --i) {
    if (d[i - 1] != '9') {
      ++d[i - 1];
      return;
    }
    d[i - 1] = '0';
  }
  d.insert(d.begin(), '1');
}

// Rounds the magnitude d * 10^e away from zero to a multiple of 10^target; requires e < target.
void RoundAwayFromZero(std::string& d, int64_t& e, int64_t target) {
  const auto dropped = static_cast<uint64_t>(target - e);
  if (dropped >= d.size()) {
    const bool nonzero = !d.empty();
    d.clear();
    if (nonzero) d = "1";
  } else {
    const size_t keep = d.size() - static_cast<size_t>(dropped);
    const bool nonzero = d.find_first_not_of('0', keep) != std::string::npos;
    d.resize(keep);
    if (nonzero) Increment(d);
  }
  e = target;
}

// The integer d * 10^e as digits, or false when it has a fractional part.
bool IntegerDigits(std::string_view d, int64_t e, std::string* out) {
  if (e >= 0) {
    out->assign(d);
    out->append(static_cast<size_t>(e), '0');
    return true;
  }
  const auto fraction = static_cast<uint64_t>(-e);
  if (fraction >= d.size()) return false;  // d is non-zero, so some fractional digit is too
  const size_t keep = d.size() - static_cast<size_t>(fraction);
  if (d.find_first_not_of('0', keep) != std::string_view::npos) return false;
  out->assign(d.substr(0, keep));
  return true;
}

std::string DigitsOf(int64_t value) {
  if (value == 0) return {};
  const auto bits = static_cast<uint64_t>(value);
  const uint64_t magnitude = value < 0 ? 0 - bits : bits;
  return std::to_string(magnitude);
}

// --- Parsing.

// Go's strconv.ParseInt(s, 10, 64).
bool ParseGoInt64(std::string_view s, int64_t* out) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  uint64_t v = 0;
  for (const char c : s) {
    if (!IsDigit(c)) return false;
    const auto digit = static_cast<uint64_t>(c - '0');
    if (v > (limit - digit) / 10) return false;
    v = v * 10 + digit;
  }
  *out = negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  return true;
}

// The pieces of a quantity string, as Go's parseQuantityString splits it.
struct Scanned {
  bool positive = true;
  std::string_view value;   // the number as written, sign included (what Go hands inf.Dec)
  std::string_view num;     // integer digits without leading zeros; "0" when there are none
  std::string_view denom;   // fraction digits as written
  std::string_view suffix;  // everything after the number
};

// False when Go reports ErrFormatWrong.
bool Scan(std::string_view str, Scanned& out) {
  const size_t end = str.size();
  size_t pos = 0;
  if (pos < end && (str[0] == '-' || str[0] == '+')) {
    out.positive = str[0] != '-';
    ++pos;
  }
  for (size_t i = pos;; ++i) {
    if (i >= end) {  // nothing but zeros (or nothing at all): 0
      out.num = "0";
      out.value = "0";
      return true;
    }
    if (str[i] != '0') break;
    ++pos;
  }
  size_t i = pos;
  while (i < end && IsDigit(str[i])) ++i;
  if (i >= end) {
    out.num = str.substr(pos);
    out.value = str;
    return true;
  }
  out.num = str.substr(pos, i - pos);
  pos = i;
  if (out.num.empty()) out.num = "0";
  if (str[pos] == '.') {
    ++pos;
    i = pos;
    while (i < end && IsDigit(str[i])) ++i;
    if (i >= end) {
      out.denom = str.substr(pos);
      out.value = str;
      return true;
    }
    out.denom = str.substr(pos, i - pos);
    pos = i;
  }
  out.value = str.substr(0, pos);
  const size_t suffix_start = pos;
  i = pos;
  while (i < end && IsSuffixLetter(str[i])) ++i;
  if (i < end && (str[i] == '-' || str[i] == '+')) ++i;
  while (i < end && IsDigit(str[i])) ++i;
  if (i < end) return false;
  out.suffix = str.substr(suffix_start);
  return true;
}

struct Suffix {
  int base = 10;
  int32_t exponent = 0;
  Format format = Format::kDecimalSI;
};

struct NamedExponent {
  std::string_view name;
  int32_t exponent;
};

constexpr std::array<NamedExponent, 10> kDecimalSuffixes = {{
    {"n", -9}, {"u", -6}, {"m", -3}, {"", 0}, {"k", 3}, {"M", 6}, {"G", 9}, {"T", 12}, {"P", 15},
    {"E", 18},
}};
constexpr std::array<NamedExponent, 6> kBinarySuffixes = {{
    {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}, {"Pi", 50}, {"Ei", 60},
}};

// Go's quantitySuffixer.interpret.
bool InterpretSuffix(std::string_view s, Suffix& out) {
  for (const auto& d : kDecimalSuffixes) {
    if (d.name == s) {
      out = {10, d.exponent, Format::kDecimalSI};
      return true;
    }
  }
  for (const auto& b : kBinarySuffixes) {
    if (b.name == s) {
      out = {2, b.exponent, Format::kBinarySI};
      return true;
    }
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    int64_t parsed = 0;
    if (!ParseGoInt64(s.substr(1), &parsed)) return false;
    out = {10, WrapInt32(parsed), Format::kDecimalExponent};  // Go's int32(parsed)
    return true;
  }
  return false;
}

// --- Formatting.

void AppendDecimal(std::string& out, std::string_view digits, int64_t exponent, Format format) {
  // Move the trailing zeros into the exponent, then lower it to a multiple of 3.
  const size_t last = digits.find_last_not_of('0');
  const size_t zeros = digits.size() - last - 1;
  digits.remove_suffix(zeros);
  exponent += static_cast<int64_t>(zeros);
  const int64_t pad = ((exponent % 3) + 3) % 3;
  out.append(digits);
  out.append(static_cast<size_t>(pad), '0');
  exponent -= pad;
  if (format == Format::kDecimalSI) {
    for (const auto& d : kDecimalSuffixes) {
      if (d.exponent == exponent) {
        out.append(d.name);
        return;
      }
    }
    // No SI suffix that large or small: Go falls back to an exponent.
  }
  if (exponent != 0) {
    out.push_back('e');
    out.append(std::to_string(exponent));
  }
}

void AppendBinary(std::string& out, std::string integer) {
  size_t power = 0;
  while (power < kBinarySuffixes.size()) {
    uint32_t remainder = 0;
    std::string quotient = DivideSmall(integer, 1024, &remainder);
    if (remainder != 0) break;
    integer = std::move(quotient);
    ++power;
  }
  out.append(integer);
  if (power > 0) out.append(kBinarySuffixes[power - 1].name);
}

// Go's math.Pow10, table for table, so that products round as Go's do.
double GoPow10(int64_t n) {
  static constexpr std::array<double, 32> kPow10 = {
      1e00, 1e01, 1e02, 1e03, 1e04, 1e05, 1e06, 1e07, 1e08, 1e09, 1e10,
      1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21,
      1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31,
  };
  static constexpr std::array<double, 10> kPow10Pos32 = {
      1e00, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288,
  };
  static constexpr std::array<double, 11> kPow10Neg32 = {
      1e-00, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320,
  };
  if (n >= 0 && n <= 308) {
    return kPow10Pos32[static_cast<size_t>(n / 32)] * kPow10[static_cast<size_t>(n % 32)];
  }
  if (n >= -323 && n <= 0) {
    return kPow10Neg32[static_cast<size_t>(-n / 32)] / kPow10[static_cast<size_t>(-n % 32)];
  }
  return n > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

}  // namespace

Result<Quantity> Quantity::Parse(std::string_view str) {
  if (str.empty()) return BadRequest(std::string(kErrFormatWrong));
  if (str == "0") return Quantity();
  Scanned scanned;
  if (!Scan(str, scanned)) return BadRequest(std::string(kErrFormatWrong));
  Suffix suffix;
  if (!InterpretSuffix(scanned.suffix, suffix)) return BadRequest(std::string(kErrSuffix));

  Quantity q;
  q.format_ = suffix.format;
  std::string digits;
  digits.reserve(scanned.num.size() + scanned.denom.size());
  digits.append(scanned.num).append(scanned.denom);
  StripLeadingZeros(digits);
  // Go computes scales in int32 and lets them wrap.
  const int32_t denom_len = WrapInt32(static_cast<int64_t>(scanned.denom.size()));

  // Go's int64 path: the value is num.denom digits at a scale, exactly.
  if (suffix.base == 10) {
    const int64_t precision =
        kMaxInt64Factors - static_cast<int64_t>(scanned.num.size() + scanned.denom.size());
    const int32_t scale = WrapInt32(int64_t{suffix.exponent} - denom_len);
    if (precision >= 0 && scale >= kNanoExponent) {
      q.negative_ = !scanned.positive && !digits.empty();
      q.digits_ = std::move(digits);
      q.exponent_ = q.digits_.empty() ? 0 : scale;
      return q;
    }
  } else {
    // 1Mi has about 6 decimal digits, hence exponent*3/10 (Go computes it in float32, exactly).
    const int64_t precision =
        15 - static_cast<int64_t>(scanned.num.size()) - int64_t{suffix.exponent} * 3 / 10 - 1;
    if (scanned.denom.empty() && precision >= 0) {
      for (int32_t e = 0; e < suffix.exponent; e += 10) MultiplySmall(digits, 1024);
      q.negative_ = !scanned.positive && !digits.empty();
      q.digits_ = std::move(digits);
      return q;
    }
  }

  // Go's inf.Dec path, which reads the number part itself and fails without a digit.
  if (scanned.value.find_first_of("0123456789") == std::string_view::npos) {
    return BadRequest(std::string(kErrNumeric));
  }
  int64_t exponent = 0;
  if (suffix.base == 10) {
    const int32_t inf_scale = WrapInt32(int64_t{denom_len} + WrapInt32(-int64_t{suffix.exponent}));
    exponent = -int64_t{inf_scale};
  } else {
    for (int32_t e = 0; e < suffix.exponent; e += 10) MultiplySmall(digits, 1024);
    exponent = -int64_t{denom_len};
  }
  if (!digits.empty()) {
    if (exponent < kNanoExponent) {
      RoundAwayFromZero(digits, exponent, kNanoExponent);
    } else if (exponent - kNanoExponent <= kMaxMirroredPadding) {
      digits.append(static_cast<size_t>(exponent - kNanoExponent), '0');
      exponent = kNanoExponent;
    }
  }
  if (q.format_ == Format::kBinarySI) {
    if (CompareMagnitudes(digits, exponent, kMaxInt64Digits, 0) > 0) {
      digits = std::string(kMaxInt64Digits);
      exponent = 0;
    }
    if (!digits.empty() && CompareMagnitudes(digits, exponent, "1", 0) < 0) {
      q.format_ = Format::kDecimalSI;  // a fraction of 1 has no binary spelling
    }
  }
  q.negative_ = !scanned.positive && !digits.empty();
  q.exponent_ = digits.empty() ? 0 : exponent;
  q.digits_ = std::move(digits);
  return q;
}

Quantity Quantity::FromInt(int64_t value, Format format) { return FromScaled(value, 0, format); }

Quantity Quantity::FromMilli(int64_t milli, Format format) { return FromScaled(milli, -3, format); }

Quantity Quantity::FromScaled(int64_t value, int32_t scale, Format format) {
  Quantity q;
  q.format_ = format;
  q.digits_ = DigitsOf(value);
  q.negative_ = value < 0;
  q.exponent_ = value == 0 ? 0 : scale;
  return q;
}

std::string Quantity::String() const {
  if (digits_.empty()) return "0";
  std::string out;
  if (negative_) out.push_back('-');
  if (format_ == Format::kBinarySI) {
    std::string integer;
    if (CompareMagnitudes(digits_, exponent_, "1024", 0) >= 0 &&
        IntegerDigits(digits_, exponent_, &integer)) {
      AppendBinary(out, std::move(integer));
      return out;
    }
    // Between -1024 and 1024, or not whole: binary would round, so write it as DecimalSI.
    AppendDecimal(out, digits_, exponent_, Format::kDecimalSI);
    return out;
  }
  AppendDecimal(out, digits_, exponent_, format_);
  return out;
}

int64_t Quantity::Value() const { return ScaledValue(0); }

int64_t Quantity::MilliValue() const { return ScaledValue(-3); }

int64_t Quantity::ScaledValue(int32_t scale) const {
  if (digits_.empty()) return 0;
  constexpr size_t kMaxDigits = 19;  // 10^19 > 2^63
  const int64_t e = exponent_ - scale;
  uint64_t magnitude = 0;
  bool fits = true;
  if (e >= 0) {
    if (static_cast<int64_t>(digits_.size()) + e > static_cast<int64_t>(kMaxDigits)) {
      fits = false;
    } else {
      for (const char c : digits_) magnitude = magnitude * 10 + static_cast<uint64_t>(c - '0');
      for (int64_t i = 0; i < e; ++i) magnitude *= 10;
    }
  } else {
    const auto fraction = static_cast<uint64_t>(-e);
    if (fraction >= digits_.size()) {
      magnitude = 1;  // 0 < |value| < 1
    } else {
      const size_t keep = digits_.size() - static_cast<size_t>(fraction);
      if (keep > kMaxDigits) {
        fits = false;
      } else {
        for (size_t i = 0; i < keep; ++i) {
          magnitude = magnitude * 10 + static_cast<uint64_t>(digits_[i] - '0');
        }
        if (digits_.find_first_not_of('0', keep) != std::string::npos) ++magnitude;
      }
    }
  }
  const uint64_t limit = negative_ ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  if (!fits || magnitude > limit) {
    return negative_ ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
  }
  return negative_ ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
}

double Quantity::AsApproximateFloat64() const {
  if (digits_.empty()) return 0.0;
  double base = 0;
  const auto [ptr, ec] = std::from_chars(digits_.data(), digits_.data() + digits_.size(), base);
  if (ec == std::errc::result_out_of_range) base = std::numeric_limits<double>::infinity();
  if (negative_) base = -base;
  if (exponent_ == 0) return base;
  return base * GoPow10(exponent_);
}

int Quantity::Compare(const Quantity& other) const {
  const int sign = Sign();
  const int other_sign = other.Sign();
  if (sign != other_sign) return sign < other_sign ? -1 : 1;
  if (sign == 0) return 0;
  const int c = CompareMagnitudes(digits_, exponent_, other.digits_, other.exponent_);
  return sign < 0 ? -c : c;
}

void Quantity::Add(const Quantity& other) {
  if (digits_.empty()) {
    *this = other;  // Go: a zero receiver takes the other's format (and its value)
    return;
  }
  if (other.digits_.empty()) return;
  // Align both at the smaller exponent, as Go's int64 and inf.Dec additions do.
  const int64_t exponent = std::min(exponent_, other.exponent_);
  std::string a = digits_;
  a.append(static_cast<size_t>(exponent_ - exponent), '0');
  std::string b = other.digits_;
  b.append(static_cast<size_t>(other.exponent_ - exponent), '0');
  if (negative_ == other.negative_) {
    digits_ = AddDigits(a, b);
  } else {
    const int c = CompareMagnitudes(a, 0, b, 0);
    if (c == 0) {
      digits_.clear();
      exponent_ = 0;
      negative_ = false;
      return;
    }
    if (c > 0) {
      digits_ = SubtractDigits(a, b);
    } else {
      digits_ = SubtractDigits(b, a);
      negative_ = other.negative_;
    }
  }
  exponent_ = exponent;
}

void Quantity::Sub(const Quantity& other) {
  Quantity negated = other;
  negated.Neg();
  Add(negated);
}

void Quantity::Neg() {
  if (!digits_.empty()) negative_ = !negative_;
}

}  // namespace kube::api
