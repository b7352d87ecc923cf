#include <kube/api/duration.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <kube/base/error.hpp>

namespace kube::api {
namespace {

constexpr uint64_t kNanosecond = 1;
constexpr uint64_t kMicrosecond = 1000 * kNanosecond;
constexpr uint64_t kMillisecond = 1000 * kMicrosecond;
constexpr uint64_t kSecond = 1000 * kMillisecond;
constexpr uint64_t kMinute = 60 * kSecond;
constexpr uint64_t kHour = 60 * kMinute;
constexpr uint64_t kTwoTo63 = uint64_t{1} << 63;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The length of the UTF-8 sequence at s[i] as Go's `for range` decodes it: an invalid or
// truncated sequence (overlong, surrogate, past U+10FFFF) counts as one byte.
size_t RuneLength(std::string_view s, size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 1;
  }
  if (i + n > s.size()) return 1;
  for (size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return 1;
  }
  return n;
}

// Go's time.quote: double quotes, '"' and '\' escaped, and every byte of a non-ASCII or
// control character as \xNN (Go treats an undecodable byte and U+FFFD alike, byte by byte).
std::string Quote(std::string_view s) {
  static constexpr std::string_view kHex = "0123456789abcdef";
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    const size_t n = RuneLength(s, i);
    const auto c = static_cast<unsigned char>(s[i]);
    if (n > 1 || c >= 0x80 || c < ' ') {
      for (size_t j = 0; j < n; ++j) {
        const auto b = static_cast<unsigned char>(s[i + j]);
        out += "\\x";
        out += kHex[b >> 4];
        out += kHex[b & 0xF];
      }
    } else {
      if (c == '"' || c == '\\') out += '\\';
      out += static_cast<char>(c);
    }
    i += n;
  }
  out += '"';
  return out;
}

Error Invalid(std::string_view orig) { return BadRequest("time: invalid duration " + Quote(orig)); }

// Go's leadingInt: consumes [0-9]*; false on overflow past 2^63.
bool LeadingInt(std::string_view& s, uint64_t& x) {
  size_t i = 0;
  x = 0;
  for (; i < s.size() && IsDigit(s[i]); ++i) {
    if (x > kTwoTo63 / 10) return false;
    x = x * 10 + static_cast<uint64_t>(s[i] - '0');
    if (x > kTwoTo63) return false;
  }
  s.remove_prefix(i);
  return true;
}

// Go's leadingFraction: consumes [0-9]*, keeping as many digits as fit; value = x / scale.
void LeadingFraction(std::string_view& s, uint64_t& x, double& scale) {
  size_t i = 0;
  x = 0;
  scale = 1;
  bool overflow = false;
  for (; i < s.size() && IsDigit(s[i]); ++i) {
    if (overflow) continue;
    if (x > (kTwoTo63 - 1) / 10) {
      overflow = true;
      continue;
    }
    const uint64_t y = x * 10 + static_cast<uint64_t>(s[i] - '0');
    if (y > kTwoTo63) {
      overflow = true;
      continue;
    }
    x = y;
    scale *= 10;
  }
  s.remove_prefix(i);
}

bool LookupUnit(std::string_view u, uint64_t& unit) {
  struct NamedUnit {
    std::string_view name;
    uint64_t nanoseconds;
  };
  static constexpr std::array<NamedUnit, 8> kUnits = {{
      {"ns", kNanosecond},
      {"us", kMicrosecond},
      {"\u00b5s", kMicrosecond},  // micro sign
      {"\u03bcs", kMicrosecond},  // Greek small letter mu
      {"ms", kMillisecond},
      {"s", kSecond},
      {"m", kMinute},
      {"h", kHour},
  }};
  for (const auto& named : kUnits) {
    if (named.name == u) {
      unit = named.nanoseconds;
      return true;
    }
  }
  return false;
}

// Go's fmtFrac: writes v / 10^prec's fraction, without trailing zeros (nor the point when it is
// 0), into the tail of buf ending at w; returns the new start and v / 10^prec.
size_t FormatFraction(char* buf, size_t w, uint64_t& v, int prec) {
  bool print = false;
  for (int i = 0; i < prec; ++i) {
    const uint64_t digit = v % 10;
    print = print || digit != 0;
    if (print) buf[--w] = static_cast<char>('0' + digit);
    v /= 10;
  }
  if (print) buf[--w] = '.';
  return w;
}

// Go's fmtInt: writes v into the tail of buf ending at w; returns the new start.
size_t FormatInt(char* buf, size_t w, uint64_t v) {
  if (v == 0) {
    buf[--w] = '0';
    return w;
  }
  for (; v > 0; v /= 10) buf[--w] = static_cast<char>('0' + v % 10);
  return w;
}

}  // namespace

Result<Duration> Duration::Parse(std::string_view s) {
  const std::string_view orig = s;
  uint64_t d = 0;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return Duration();
  if (s.empty()) return Invalid(orig);
  while (!s.empty()) {
    uint64_t v = 0;
    uint64_t f = 0;
    double scale = 1;
    if (!(s[0] == '.' || IsDigit(s[0]))) return Invalid(orig);
    size_t before = s.size();
    if (!LeadingInt(s, v)) return Invalid(orig);
    const bool pre = before != s.size();
    bool post = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      before = s.size();
      LeadingFraction(s, f, scale);
      post = before != s.size();
    }
    if (!pre && !post) return Invalid(orig);  // no digits, e.g. ".s"
    size_t i = 0;
    while (i < s.size() && s[i] != '.' && !IsDigit(s[i])) ++i;
    if (i == 0) return BadRequest("time: missing unit in duration " + Quote(orig));
    const std::string_view u = s.substr(0, i);
    s.remove_prefix(i);
    uint64_t unit = 0;
    if (!LookupUnit(u, unit)) {
      return BadRequest("time: unknown unit " + Quote(u) + " in duration " + Quote(orig));
    }
    if (v > kTwoTo63 / unit) return Invalid(orig);
    v *= unit;
    if (f > 0) {
      // A double is enough to be nanosecond-accurate for fractions of an hour, Go's reasoning.
      v += static_cast<uint64_t>(static_cast<double>(f) * (static_cast<double>(unit) / scale));
      if (v > kTwoTo63) return Invalid(orig);
    }
    d += v;  // wraps past 2^64 exactly as Go's uint64 does
    if (d > kTwoTo63) return Invalid(orig);
  }
  if (neg) return Duration(std::chrono::nanoseconds(static_cast<int64_t>(0 - d)));
  if (d > kTwoTo63 - 1) return Invalid(orig);
  return Duration(std::chrono::nanoseconds(static_cast<int64_t>(d)));
}

std::string Duration::String() const {
  // The longest is "-2562047h47m16.854775808s".
  char buf[32];
  size_t w = sizeof(buf);
  const int64_t count = value_.count();
  const bool neg = count < 0;
  uint64_t u = static_cast<uint64_t>(count);
  if (neg) u = 0 - u;

  if (u < kSecond) {
    // Under a second, a smaller unit keeps the leading digit non-zero: 1.2ms.
    int prec = 0;
    buf[--w] = 's';
    if (u == 0) return "0s";
    if (u < kMicrosecond) {
      prec = 0;
      buf[--w] = 'n';
    } else if (u < kMillisecond) {
      prec = 3;
      buf[--w] = '\xb5';  // U+00B5 micro sign, 0xC2 0xB5
      buf[--w] = '\xc2';
    } else {
      prec = 6;
      buf[--w] = 'm';
    }
    w = FormatFraction(buf, w, u, prec);
    w = FormatInt(buf, w, u);
  } else {
    buf[--w] = 's';
    w = FormatFraction(buf, w, u, 9);
    // u is now whole seconds.
    w = FormatInt(buf, w, u % 60);
    u /= 60;
    if (u > 0) {
      buf[--w] = 'm';
      w = FormatInt(buf, w, u % 60);
      u /= 60;
      // Hours are the largest unit: days differ in length.
      if (u > 0) {
        buf[--w] = 'h';
        w = FormatInt(buf, w, u);
      }
    }
  }
  if (neg) buf[--w] = '-';
  return std::string(buf + w, sizeof(buf) - w);
}

}  // namespace kube::api
