#include <kube/core/json_pointer.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

#include <boost/json.hpp>
#include <fmt/format.h>

namespace kube {

namespace json = boost::json;

Result<JsonPointer> JsonPointer::Parse(std::string_view text) {
  std::vector<std::string> tokens;
  if (text.empty()) return JsonPointer(std::move(tokens));
  if (text.front() != '/') {
    return BadRequest(
        fmt::format("invalid JSON pointer \"{}\": must be empty or start with \"/\"", text));
  }
  std::string token;
  for (std::size_t i = 1; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '/') {
      tokens.push_back(std::move(token));
      token.clear();
      continue;
    }
    const char c = text[i];
    if (c != '~') {
      token.push_back(c);
      continue;
    }
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (next != '0' && next != '1') {
      return BadRequest(fmt::format(
          "invalid JSON pointer \"{}\": \"~\" at offset {} must be followed by \"0\" or \"1\"",
          text, i));
    }
    token.push_back(next == '0' ? '~' : '/');
    ++i;
  }
  return JsonPointer(std::move(tokens));
}

JsonPointer JsonPointer::FromTokens(std::vector<std::string> tokens) {
  return JsonPointer(std::move(tokens));
}

std::string JsonPointer::String() const {
  std::string out;
  for (const auto& token : tokens_) {
    out.push_back('/');
    out += EscapeJsonPointerToken(token);
  }
  return out;
}

bool JsonPointer::IsPrefixOf(const JsonPointer& other) const noexcept {
  if (tokens_.size() > other.tokens_.size()) return false;
  for (std::size_t i = 0; i < tokens_.size(); ++i) {
    if (tokens_[i] != other.tokens_[i]) return false;
  }
  return true;
}

std::string EscapeJsonPointerToken(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (const char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::optional<std::size_t> ParseJsonPointerArrayIndex(std::string_view token) noexcept {
  if (token.empty() || (token.size() > 1 && token.front() == '0')) return std::nullopt;
  std::size_t index = 0;
  for (const char c : token) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::size_t>(c - '0');
    if (index > (std::numeric_limits<std::size_t>::max() - digit) / 10) return std::nullopt;
    index = index * 10 + digit;
  }
  return index;
}

namespace {

// One resolution step shared by both Find overloads; V is `value` or `const value`.
template <class V>
V* Step(V& current, const std::string& token) noexcept {
  if (auto* obj = current.if_object()) {
    return obj->if_contains(token);
  }
  if (auto* arr = current.if_array()) {
    const auto index = ParseJsonPointerArrayIndex(token);
    if (!index || *index >= arr->size()) return nullptr;
    return &(*arr)[*index];
  }
  return nullptr;
}

template <class V>
V* FindImpl(V& doc, const JsonPointer& pointer) noexcept {
  V* current = &doc;
  for (const auto& token : pointer.Tokens()) {
    current = Step(*current, token);
    if (current == nullptr) return nullptr;
  }
  return current;
}

bool DoubleEqualsInt64(double d, std::int64_t i) noexcept {
  // The range check uses exact powers of two, so the cast below is defined.
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return false;
  if (std::trunc(d) != d) return false;
  return static_cast<std::int64_t>(d) == i;
}

bool DoubleEqualsUint64(double d, std::uint64_t u) noexcept {
  if (!(d >= 0.0 && d < 18446744073709551616.0)) return false;
  if (std::trunc(d) != d) return false;
  return static_cast<std::uint64_t>(d) == u;
}

bool Int64EqualsUint64(std::int64_t i, std::uint64_t u) noexcept {
  return i >= 0 && static_cast<std::uint64_t>(i) == u;
}

// Both arguments are numbers.
bool NumbersEqual(const json::value& a, const json::value& b) noexcept {
  if (a.is_int64()) {
    const auto i = a.get_int64();
    if (b.is_int64()) return i == b.get_int64();
    if (b.is_uint64()) return Int64EqualsUint64(i, b.get_uint64());
    return DoubleEqualsInt64(b.get_double(), i);
  }
  if (a.is_uint64()) {
    const auto u = a.get_uint64();
    if (b.is_int64()) return Int64EqualsUint64(b.get_int64(), u);
    if (b.is_uint64()) return u == b.get_uint64();
    return DoubleEqualsUint64(b.get_double(), u);
  }
  const double d = a.get_double();
  if (b.is_int64()) return DoubleEqualsInt64(d, b.get_int64());
  if (b.is_uint64()) return DoubleEqualsUint64(d, b.get_uint64());
  return d == b.get_double();
}

}  // namespace

const json::value* Find(const json::value& doc, const JsonPointer& pointer) noexcept {
  return FindImpl(doc, pointer);
}

json::value* Find(json::value& doc, const JsonPointer& pointer) noexcept {
  return FindImpl(doc, pointer);
}

bool JsonEqual(const json::value& a, const json::value& b) noexcept {
  if (a.is_number() && b.is_number()) return NumbersEqual(a, b);
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case json::kind::null:
      return true;
    case json::kind::bool_:
      return a.get_bool() == b.get_bool();
    case json::kind::string:
      return a.get_string() == b.get_string();
    case json::kind::array: {
      const auto& x = a.get_array();
      const auto& y = b.get_array();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (!JsonEqual(x[i], y[i])) return false;
      }
      return true;
    }
    case json::kind::object: {
      // Keys of a boost::json::object are unique, so equal sizes plus one-way inclusion suffice.
      const auto& x = a.get_object();
      const auto& y = b.get_object();
      if (x.size() != y.size()) return false;
      for (const auto& member : x) {
        const auto* other = y.if_contains(member.key());
        if (other == nullptr || !JsonEqual(member.value(), *other)) return false;
      }
      return true;
    }
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_:
      break;  // handled above: both are numbers
  }
  return false;
}

}  // namespace kube
