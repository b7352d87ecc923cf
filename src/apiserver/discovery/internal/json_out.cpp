#include "apiserver/discovery/internal/json_out.hpp"

#include <charconv>
#include <cmath>
#include <system_error>

namespace kube::apiserver::internal {

void AppendJsonString(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '<':
      case '>':
      case '&':
        out += "\\u00";
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xF]);
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 0xF]);
        } else if (c == 0xE2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
                   (static_cast<unsigned char>(s[i + 2]) == 0xA8 ||
                    static_cast<unsigned char>(s[i + 2]) == 0xA9)) {
          // U+2028 LINE SEPARATOR / U+2029 PARAGRAPH SEPARATOR: escaped for JavaScript embedders.
          out += static_cast<unsigned char>(s[i + 2]) == 0xA8 ? "\\u2028" : "\\u2029";
          i += 3;
          continue;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out.push_back('"');
}

void AppendJsonStringArray(std::string& out, const std::vector<std::string>& values) {
  out.push_back('[');
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i != 0) out.push_back(',');
    AppendJsonString(out, values[i]);
  }
  out.push_back(']');
}

void AppendGoFloat(std::string& out, double d) {
  if (std::isnan(d) || std::isinf(d)) {
    out += "null";
    return;
  }
  char buf[64];
  const double abs = std::fabs(d);
  const bool exponent = abs != 0 && (abs < 1e-6 || abs >= 1e21);
  const auto res = std::to_chars(buf, buf + sizeof(buf), d,
                                 exponent ? std::chars_format::scientific : std::chars_format::fixed);
  std::string_view text(buf, static_cast<std::size_t>(res.ptr - buf));
  if (!exponent) {
    out.append(text);
    return;
  }
  // Go writes e-07 as e-7 (and e+21 stays e+21).
  const auto e = text.find('e');
  out.append(text.substr(0, e + 2));
  std::string_view digits = text.substr(e + 2);
  while (digits.size() > 1 && digits.front() == '0') digits.remove_prefix(1);
  out.append(digits);
}

std::string HexDigest(std::string_view data) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64 offset basis
  for (const char c : data) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;  // FNV-1a 64 prime
  }
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i) {
    out[static_cast<std::size_t>(i)] = kHex[h & 0xF];
    h >>= 4;
  }
  return out;
}

}  // namespace kube::apiserver::internal
