#include "core/internal/json_scanner.hpp"

#include <array>
#include <charconv>
#include <vector>

#include <fmt/format.h>

namespace kube::core::internal {

namespace {

// Bytes that end the fast path inside a string: '"', '\\', control characters and non-ASCII.
constexpr std::array<bool, 256> MakeStringStops() {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = true;
  for (int c = 0x80; c < 256; ++c) t[c] = true;
  t['"'] = true;
  t['\\'] = true;
  return t;
}
constexpr auto kStringStops = MakeStringStops();

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Length of a valid UTF-8 sequence starting at s[i], or 0 if invalid (RFC 3629: no overlongs,
// no surrogates, at most U+10FFFF).
std::size_t Utf8Length(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  auto cont = [&](std::size_t k) {
    return i + k < s.size() && (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
  };
  if (b0 >= 0xC2 && b0 <= 0xDF) return cont(1) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    const auto b1 = static_cast<unsigned char>(s[i + 1]);
    if (b0 == 0xE0 && b1 < 0xA0) return 0;  // overlong
    if (b0 == 0xED && b1 > 0x9F) return 0;  // surrogates
    return 3;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    const auto b1 = static_cast<unsigned char>(s[i + 1]);
    if (b0 == 0xF0 && b1 < 0x90) return 0;  // overlong
    if (b0 == 0xF4 && b1 > 0x8F) return 0;  // > U+10FFFF
    return 4;
  }
  return 0;
}

void AppendUtf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

uint32_t Hex4(std::string_view s, std::size_t i) {
  uint32_t v = 0;
  for (std::size_t k = 0; k < 4; ++k) v = v * 16 + static_cast<uint32_t>(HexValue(s[i + k]));
  return v;
}

}  // namespace

std::string_view JsonKindName(JsonKind kind) {
  switch (kind) {
    case JsonKind::kObject: return "object";
    case JsonKind::kArray: return "array";
    case JsonKind::kString: return "string";
    case JsonKind::kNumber: return "number";
    case JsonKind::kTrue: return "boolean";
    case JsonKind::kFalse: return "boolean";
    case JsonKind::kNull: return "null";
  }
  return "value";
}

void AppendUnescaped(const RawString& s, std::string& out) {
  if (!s.escaped) {
    out.append(s.raw);
    return;
  }
  const std::string_view r = s.raw;
  for (std::size_t i = 0; i < r.size(); ++i) {
    const char c = r[i];
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    const char e = r[++i];
    switch (e) {
      case '"': out.push_back('"'); break;
      case '\\': out.push_back('\\'); break;
      case '/': out.push_back('/'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'u': {
        uint32_t cp = Hex4(r, i + 1);
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 < r.size() && r[i + 1] == '\\' &&
            r[i + 2] == 'u') {
          const uint32_t lo = Hex4(r, i + 3);
          if (lo >= 0xDC00 && lo <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
          } else {
            cp = 0xFFFD;
          }
        } else if (cp >= 0xD800 && cp <= 0xDFFF) {
          cp = 0xFFFD;  // a lone surrogate, as Go's encoding/json decodes it
        }
        AppendUtf8(cp, out);
        break;
      }
      default: break;  // unreachable: validated by JsonCursor::String
    }
  }
}

void AppendQuoted(std::string_view s, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  // Bytes that need no escape are appended in runs: one append per run, not one per byte.
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      default:
        out.append("\\u00");
        out.push_back(kHex[u >> 4]);
        out.push_back(kHex[u & 0xF]);
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

Error JsonCursor::ErrorAt(std::size_t offset, std::string_view what) const {
  return FieldErrorAt(offset, fmt::format("invalid JSON: {}", what));
}

Error JsonCursor::FieldErrorAt(std::size_t offset, std::string_view what) const {
  std::size_t line = 1, col = 1;
  const std::size_t end = offset < text_.size() ? offset : text_.size();
  for (std::size_t i = 0; i < end; ++i) {
    if (text_[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return BadRequest(fmt::format("{} at line {}, column {} (offset {})", what, line, col, offset));
}

Result<JsonKind> JsonCursor::PeekKind() {
  switch (Peek()) {
    case '{': return JsonKind::kObject;
    case '[': return JsonKind::kArray;
    case '"': return JsonKind::kString;
    case 't': return JsonKind::kTrue;
    case 'f': return JsonKind::kFalse;
    case 'n': return JsonKind::kNull;
    case '-': case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
      return JsonKind::kNumber;
    case '\0':
      if (pos_ >= text_.size()) return ErrorHere("unexpected end of input, expected a value");
      [[fallthrough]];
    default:
      return ErrorHere(fmt::format("unexpected character '{}', expected a value",
                                   std::string_view(&text_[pos_], 1)));
  }
}

Result<void> JsonCursor::Expect(char c, std::string_view context) {
  const char got = Peek();
  if (got == c && pos_ < text_.size()) {
    ++pos_;
    return Ok();
  }
  if (pos_ >= text_.size()) {
    return ErrorHere(fmt::format("unexpected end of input, expected '{}' {}", c, context));
  }
  return ErrorHere(fmt::format("unexpected character '{}', expected '{}' {}", got, c, context));
}

Result<RawString> JsonCursor::String() {
  if (Peek() != '"' || pos_ >= text_.size()) return ErrorHere("expected a string");
  const std::size_t start = ++pos_;
  bool escaped = false;
  const std::size_t n = text_.size();
  while (true) {
    while (pos_ < n && !kStringStops[static_cast<unsigned char>(text_[pos_])]) ++pos_;
    if (pos_ >= n) return ErrorAt(start - 1, "unterminated string");
    const char c = text_[pos_];
    if (c == '"') break;
    if (c == '\\') {
      escaped = true;
      if (pos_ + 1 >= n) return ErrorAt(start - 1, "unterminated string");
      const char e = text_[pos_ + 1];
      switch (e) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
          pos_ += 2;
          break;
        case 'u':
        {
          auto hex4_at = [&](std::size_t i) {
            return i + 4 <= n && HexValue(text_[i]) >= 0 && HexValue(text_[i + 1]) >= 0 &&
                   HexValue(text_[i + 2]) >= 0 && HexValue(text_[i + 3]) >= 0;
          };
          if (!hex4_at(pos_ + 2)) {
            return ErrorHere("invalid \\u escape in string (expected four hex digits)");
          }
          const uint32_t cp = Hex4(text_, pos_ + 2);
          if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return ErrorHere("invalid \\u escape in string: unpaired low surrogate");
          }
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            // Boost.JSON (and RFC 8259 interoperability) require a well-formed surrogate pair.
            if (pos_ + 7 >= n || text_[pos_ + 6] != '\\' || text_[pos_ + 7] != 'u' || !hex4_at(pos_ + 8)) {
              return ErrorHere("invalid \\u escape in string: unpaired high surrogate");
            }
            const uint32_t lo = Hex4(text_, pos_ + 8);
            if (lo < 0xDC00 || lo > 0xDFFF) {
              return ErrorHere("invalid \\u escape in string: unpaired high surrogate");
            }
            pos_ += 12;
          } else {
            pos_ += 6;
          }
          break;
        }
        default:
          return ErrorHere(fmt::format("invalid escape '\\{}' in string",
                                       std::string_view(&text_[pos_ + 1], 1)));
      }
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20) {
      return ErrorHere("control character in string (must be escaped)");
    }
    const std::size_t len = Utf8Length(text_, pos_);
    if (len == 0) return ErrorHere("invalid UTF-8 in string");
    pos_ += len;
  }
  RawString s{text_.substr(start, pos_ - start), escaped};
  ++pos_;  // closing quote
  return s;
}

Result<std::string_view> JsonCursor::Number() {
  Peek();
  const std::size_t start = pos_;
  const std::size_t n = text_.size();
  auto digit = [&](std::size_t i) { return i < n && text_[i] >= '0' && text_[i] <= '9'; };
  if (pos_ < n && text_[pos_] == '-') ++pos_;
  if (!digit(pos_)) return ErrorHere("invalid number: expected a digit");
  if (text_[pos_] == '0') {
    ++pos_;
    if (digit(pos_)) return ErrorHere("invalid number: leading zero");
  } else {
    while (digit(pos_)) ++pos_;
  }
  if (pos_ < n && text_[pos_] == '.') {
    ++pos_;
    if (!digit(pos_)) return ErrorHere("invalid number: expected a digit after '.'");
    while (digit(pos_)) ++pos_;
  }
  if (pos_ < n && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
    ++pos_;
    if (pos_ < n && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
    if (!digit(pos_)) return ErrorHere("invalid number: expected a digit in the exponent");
    while (digit(pos_)) ++pos_;
  }
  return text_.substr(start, pos_ - start);
}

Result<int64_t> JsonCursor::Int64(std::string_view field) {
  const std::size_t at = (Peek(), pos_);
  auto num = Number();
  if (!num.ok()) return std::move(num).error();
  int64_t v = 0;
  const auto* first = num->data();
  const auto* last = first + num->size();
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || ptr != last) {
    return FieldErrorAt(at, fmt::format("{}: expected an integer, found {}", field, *num));
  }
  return v;
}

Result<void> JsonCursor::Literal(std::string_view word) {
  if (text_.substr(pos_, word.size()) != word) {
    return ErrorHere(fmt::format("invalid literal, expected '{}'", word));
  }
  pos_ += word.size();
  return Ok();
}

Result<std::string_view> JsonCursor::SkipValue() {
  // Iterative, so that deep nesting cannot overflow the stack; `stack` holds '{' or '['.
  char stack_buf[64];
  std::vector<char> deep;  // used beyond 64 levels
  int depth = 0;
  auto push = [&](char c) {
    if (depth < 64) {
      stack_buf[depth] = c;
    } else {
      deep.push_back(c);
    }
    ++depth;
  };
  auto top = [&] { return depth <= 64 ? stack_buf[depth - 1] : deep.back(); };
  auto pop = [&] {
    if (depth > 64) deep.pop_back();
    --depth;
  };

  Peek();
  const std::size_t start = pos_;
  while (true) {
    // Parse one value (or open a container).
    auto kind = PeekKind();
    if (!kind.ok()) return std::move(kind).error();
    switch (*kind) {
      case JsonKind::kObject:
        if (depth >= kMaxJsonDepth) return ErrorHere("nesting too deep");
        ++pos_;
        if (Consume('}')) break;
        push('{');
        {
          auto key = String();
          if (!key.ok()) return ErrorHere("expected a string key or '}' in object");
          KUBE_RETURN_IF_ERROR(Expect(':', "after object key"));
        }
        continue;
      case JsonKind::kArray:
        if (depth >= kMaxJsonDepth) return ErrorHere("nesting too deep");
        ++pos_;
        if (Consume(']')) break;
        push('[');
        continue;
      case JsonKind::kString: {
        auto s = String();
        if (!s.ok()) return std::move(s).error();
        break;
      }
      case JsonKind::kNumber: {
        auto num = Number();
        if (!num.ok()) return std::move(num).error();
        break;
      }
      case JsonKind::kTrue: KUBE_RETURN_IF_ERROR(Literal("true")); break;
      case JsonKind::kFalse: KUBE_RETURN_IF_ERROR(Literal("false")); break;
      case JsonKind::kNull: KUBE_RETURN_IF_ERROR(Literal("null")); break;
    }
    // After a value: close containers or move to the next element.
    while (true) {
      if (depth == 0) return text_.substr(start, pos_ - start);
      const char c = Peek();
      if (top() == '{') {
        if (c == ',') {
          ++pos_;
          auto key = String();
          if (!key.ok()) return ErrorHere("expected a string key in object");
          KUBE_RETURN_IF_ERROR(Expect(':', "after object key"));
          break;
        }
        if (c == '}') {
          ++pos_;
          pop();
          continue;
        }
        if (pos_ >= text_.size()) return ErrorHere("unexpected end of input, expected ',' or '}' in object");
        return ErrorHere(fmt::format("unexpected character '{}', expected ',' or '}}' in object", c));
      }
      if (c == ',') {
        ++pos_;
        break;
      }
      if (c == ']') {
        ++pos_;
        pop();
        continue;
      }
      if (pos_ >= text_.size()) return ErrorHere("unexpected end of input, expected ',' or ']' in array");
      return ErrorHere(fmt::format("unexpected character '{}', expected ',' or ']' in array", c));
    }
  }
}

Result<void> JsonCursor::ExpectEnd() {
  if (Peek() != '\0' || pos_ < text_.size()) {
    return ErrorHere("unexpected data after the JSON value");
  }
  return Ok();
}

Result<void> ValidateJson(std::string_view text) {
  JsonCursor cur(text);
  auto v = cur.SkipValue();
  if (!v.ok()) return std::move(v).error();
  return cur.ExpectEnd();
}

std::string CompactJson(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out.push_back(c);
      if (c == '\\') {
        out.push_back(text[++i]);
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '"') in_string = true;
    out.push_back(c);
  }
  return out;
}

}  // namespace kube::core::internal
