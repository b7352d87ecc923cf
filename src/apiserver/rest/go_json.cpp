#include "apiserver/rest/go_json.hpp"

#include <boost/json.hpp>

#include <kube/core/json.hpp>

#include "apiserver/rest/json_util.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <map>
#include <cstdio>
#include <vector>

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

// Go's quoteChar: a byte as a quoted rune literal.
std::string QuoteChar(unsigned char c) {
  if (c == '\'') return "'\\''";
  if (c == '"') return "'\"'";
  if (c >= 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
  if (c >= 0xa0 && c != 0xad) {  // a printable Latin-1 rune: strconv.Quote keeps it, UTF-8 encoded
    return std::string("'") + static_cast<char>(0xc0 | (c >> 6)) + static_cast<char>(0x80 | (c & 0x3f)) + "'";
  }
  char buf[16];
  switch (c) {
    case '\n':
      return "'\\n'";
    case '\r':
      return "'\\r'";
    case '\t':
      return "'\\t'";
    default:
      std::snprintf(buf, sizeof(buf), c < 0x20 || c == 0x7f ? "'\\x%02x'" : "'\\u%04x'", c);
      return buf;
  }
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// A recursive-descent scanner that stops at the first error, with the context Go names.
class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}

  std::string Run() {
    SkipSpace();
    if (!Value()) return error_;
    SkipSpace();
    if (i_ < s_.size()) return Invalid("after top-level value");
    return "";
  }

 private:
  std::string Invalid(std::string_view context) {
    error_ = "invalid character " + QuoteChar(static_cast<unsigned char>(s_[i_])) + " " + std::string(context);
    return error_;
  }
  bool Fail(std::string_view context) {
    if (i_ >= s_.size()) {
      error_ = "unexpected end of JSON input";
    } else {
      Invalid(context);
    }
    return false;
  }
  void SkipSpace() {
    while (i_ < s_.size() && IsSpace(s_[i_])) ++i_;
  }
  bool Value() {
    if (i_ >= s_.size()) return Fail("");
    const char c = s_[i_];
    if (c == '{') return Object();
    if (c == '[') return Array();
    if (c == '"') return String();
    if (c == '-' || IsDigit(c)) return Number();
    if (c == 't') return Literal("true");
    if (c == 'f') return Literal("false");
    if (c == 'n') return Literal("null");
    return Fail("looking for beginning of value");
  }
  bool Literal(std::string_view word) {
    for (std::size_t k = 0; k < word.size(); ++k, ++i_) {
      if (i_ >= s_.size() || s_[i_] != word[k]) {
        return Fail("in literal " + std::string(word) + " (expecting " + QuoteChar(static_cast<unsigned char>(word[k])) + ")");
      }
    }
    return true;
  }
  bool Number() {
    if (s_[i_] == '-') {
      ++i_;
      if (i_ >= s_.size() || !IsDigit(s_[i_])) return Fail("in numeric literal");
    }
    if (s_[i_] == '0') {
      ++i_;
    } else {
      while (i_ < s_.size() && IsDigit(s_[i_])) ++i_;
    }
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (i_ >= s_.size() || !IsDigit(s_[i_])) return Fail("after decimal point in numeric literal");
      while (i_ < s_.size() && IsDigit(s_[i_])) ++i_;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (i_ >= s_.size() || !IsDigit(s_[i_])) return Fail("in exponent of numeric literal");
      while (i_ < s_.size() && IsDigit(s_[i_])) ++i_;
    }
    return true;
  }
  bool String() {
    ++i_;  // the opening quote
    while (i_ < s_.size()) {
      const auto c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        ++i_;
        return true;
      }
      if (c < 0x20) return Fail("in string literal");
      if (c == '\\') {
        ++i_;
        if (i_ >= s_.size()) return Fail("");
        const char e = s_[i_];
        if (e == 'u') {
          for (int k = 0; k < 4; ++k) {
            ++i_;
            if (i_ >= s_.size()) return Fail("");
            if (!std::isxdigit(static_cast<unsigned char>(s_[i_]))) return Fail("in \\u hexadecimal character escape");
          }
        } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
          return Fail("in string escape code");
        }
      }
      ++i_;
    }
    return Fail("");
  }
  bool Object() {
    ++i_;
    SkipSpace();
    if (i_ < s_.size() && s_[i_] == '}') {
      ++i_;
      return true;
    }
    while (true) {
      SkipSpace();
      if (i_ >= s_.size() || s_[i_] != '"') return Fail("looking for beginning of object key string");
      if (!String()) return false;
      SkipSpace();
      if (i_ >= s_.size() || s_[i_] != ':') return Fail("after object key");
      ++i_;
      SkipSpace();
      if (!Value()) return false;
      SkipSpace();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == '}') {
        ++i_;
        return true;
      }
      return Fail("after object key:value pair");
    }
  }
  bool Array() {
    ++i_;
    SkipSpace();
    if (i_ < s_.size() && s_[i_] == ']') {
      ++i_;
      return true;
    }
    while (true) {
      SkipSpace();
      if (!Value()) return false;
      SkipSpace();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == ']') {
        ++i_;
        return true;
      }
      return Fail("after array element");
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::string error_;
};

}  // namespace

std::string GoJsonSyntaxError(std::string_view text) { return Scanner(text).Run(); }

std::string SummarizeData(std::string_view data) {
  constexpr std::size_t kMax = 30;
  if (data.empty()) return "<empty>";
  const std::string_view head = data.substr(0, kMax);
  std::string out;
  if (data.front() == '{') {
    out = std::string(head);
  } else {
    static constexpr char kHex[] = "0123456789abcdef";
    for (unsigned char c : head) {
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  if (data.size() > kMax) out += " ...";
  return out;
}

std::string GoTypeMetaError(std::string_view body) {
  std::string detail = GoJsonSyntaxError(body);
  if (detail.empty()) {
    // Valid JSON that is not an object: Go's unmarshal into the TypeMeta struct.
    std::size_t i = 0;
    while (i < body.size() && IsSpace(body[i])) ++i;
    const char c = i < body.size() ? body[i] : ' ';
    const char* type = c == '[' ? "array" : c == '"' ? "string" : (c == 't' || c == 'f') ? "bool" : "number";
    if (c == 'n') return "";  // null decodes into the struct: not an error
    detail = std::string("json: cannot unmarshal ") + type +
             " into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
             "\"json:\\\"kind,omitempty\\\"\" }";
  }
  return "couldn't get version/kind; json parse error: " + detail + " (" + SummarizeData(body) + ")";
}

// ---- values as Go's %#v prints them in kube's messages ----

std::string GoString(std::string_view s) { return QuoteJson(s); }

void AppendGoJsonString(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
      out += "\\u00";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    } else if (c == 0xE2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
               (static_cast<unsigned char>(s[i + 2]) == 0xA8 || static_cast<unsigned char>(s[i + 2]) == 0xA9)) {
      out += static_cast<unsigned char>(s[i + 2]) == 0xA8 ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  out.push_back('"');
}

namespace {
// strconv.FormatFloat(f, 'g', -1, 64) as fmt's %v uses it: the shortest digits, in %e form when
// the exponent is below -4 or at least 6 (at least two exponent digits), else in %f form.
std::string GoFloat(double f) {
  if (std::isnan(f)) return "NaN";
  if (std::isinf(f)) return f > 0 ? "+Inf" : "-Inf";
  if (f == 0) return std::signbit(f) ? "-0" : "0";
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, f, std::chars_format::scientific);
  const std::string sci(buf, res.ptr);  // [-]d[.ddd]e[+-]XX
  const auto e = sci.find('e');
  const bool negative = sci[0] == '-';
  std::string digits;
  for (std::size_t i = negative ? 1 : 0; i < e; ++i) {
    if (sci[i] != '.') digits.push_back(sci[i]);
  }
  const int exp = std::stoi(sci.substr(e + 1));
  std::string out = negative ? "-" : "";
  if (exp < -4 || exp >= 6) {
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    out += exp < 0 ? "e-" : "e+";
    const std::string ex = std::to_string(exp < 0 ? -exp : exp);
    out += (ex.size() < 2 ? "0" : "") + ex;
    return out;
  }
  const int point = exp + 1;  // digits before the decimal point
  if (point <= 0) return out + "0." + std::string(static_cast<std::size_t>(-point), '0') + digits;
  if (static_cast<std::size_t>(point) >= digits.size()) {
    return out + digits + std::string(static_cast<std::size_t>(point) - digits.size(), '0');
  }
  return out + digits.substr(0, static_cast<std::size_t>(point)) + "." + digits.substr(static_cast<std::size_t>(point));
}
}  // namespace

std::string GoFmtValue(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null: return "<nil>";
    case json::kind::bool_: return v.get_bool() ? "true" : "false";
    case json::kind::int64: return GoFloat(static_cast<double>(v.get_int64()));
    case json::kind::uint64: return GoFloat(static_cast<double>(v.get_uint64()));
    case json::kind::double_: return GoFloat(v.get_double());
    case json::kind::string: return std::string(v.get_string());
    case json::kind::array: {
      std::string out = "[";
      for (const auto& item : v.get_array()) out += (out.size() > 1 ? " " : "") + GoFmtValue(item);
      return out + "]";
    }
    case json::kind::object: {
      std::map<std::string_view, const json::value*> sorted;
      for (const auto& kv : v.get_object()) sorted[kv.key()] = &kv.value();
      std::string out = "map[";
      bool first = true;
      for (const auto& [k, item] : sorted) {
        out += (first ? "" : " ") + std::string(k) + ":" + GoFmtValue(*item);
        first = false;
      }
      return out + "]";
    }
  }
  return "";
}

// map[string]string{"a":"b", "c":"d"} (keys sorted, as fmt sorts map keys); nil when absent.
std::string GoStringMap(const json::object* m) {
  if (m == nullptr) return "map[string]string(nil)";
  std::map<std::string, std::string> sorted;
  for (const auto& kv : *m) {
    sorted[std::string(kv.key())] = kv.value().is_string() ? std::string(kv.value().get_string()) : SerializeJson(kv.value());
  }
  std::string out = "map[string]string{";
  bool first = true;
  for (const auto& [k, v] : sorted) {
    if (!first) out += ", ";
    first = false;
    out += GoString(k) + ":" + GoString(v);
  }
  return out + "}";
}

std::string GoStringSlice(const json::value* v) {
  if (v == nullptr || !v->is_array()) return "[]string(nil)";
  std::string out = "[]string{";
  bool first = true;
  for (const auto& e : v->get_array()) {
    if (!first) out += ", ";
    first = false;
    out += e.is_string() ? GoString(e.get_string()) : SerializeJson(e);
  }
  return out + "}";
}

// v1.LabelSelector{MatchLabels:..., MatchExpressions:...}
std::string GoLabelSelector(const json::value& sel) {
  const json::object* o = sel.is_object() ? &sel.get_object() : nullptr;
  std::string out = "v1.LabelSelector{MatchLabels:";
  out += GoStringMap(o != nullptr ? ObjectAt(*o, "matchLabels") : nullptr);
  out += ", MatchExpressions:";
  const json::value* exprs = o != nullptr ? o->if_contains("matchExpressions") : nullptr;
  if (exprs == nullptr || !exprs->is_array()) {
    out += "[]v1.LabelSelectorRequirement(nil)";
  } else {
    out += "[]v1.LabelSelectorRequirement{";
    bool first = true;
    for (const auto& e : exprs->get_array()) {
      if (!first) out += ", ";
      first = false;
      const json::object empty;
      const json::object& r = e.is_object() ? e.get_object() : empty;
      out += "v1.LabelSelectorRequirement{Key:" + GoString(StringAt(r, "key")) +
             ", Operator:" + GoString(StringAt(r, "operator")) + ", Values:" + GoStringSlice(r.if_contains("values")) + "}";
    }
    out += "}";
  }
  return out + "}";
}

FieldError InvalidGo(std::string field, std::string go_value, std::string detail) {
  FieldError e = FieldError::Invalid(std::move(field), "", std::move(detail));
  e.bad_value_go = std::move(go_value);
  return e;
}


// ---- repeated member names ----

namespace {

// The members of every object in `v`.
std::size_t CountMembers(const json::value& v) {
  std::size_t n = 0;
  if (v.is_object()) {
    for (const auto& kv : v.get_object()) n += 1 + CountMembers(kv.value());
  } else if (v.is_array()) {
    for (const auto& e : v.get_array()) n += CountMembers(e);
  }
  return n;
}

// The member names in `text`: strings followed by ':'.
std::size_t CountKeys(std::string_view text) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '"') continue;
    for (++i; i < text.size() && text[i] != '"'; ++i) {
      if (text[i] == '\\') ++i;
    }
    std::size_t j = i + 1;
    while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r')) ++j;
    if (j < text.size() && text[j] == ':') ++n;
  }
  return n;
}

// A recursive-descent reading of valid JSON with Go's treatment of repeated members; scalars
// are parsed by Boost.JSON.
class DuplicateReader {
 public:
  explicit DuplicateReader(std::string_view text) : text_(text) {}
  json::value Read(std::vector<std::string>& paths) {
    paths_ = &paths;
    return Value("", 0);
  }

 private:
  void Space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  std::string_view Token() {
    const std::size_t start = pos_;
    if (text_[pos_] == '"') {
      for (++pos_; pos_ < text_.size() && text_[pos_] != '"'; ++pos_) {
        if (text_[pos_] == '\\') ++pos_;
      }
      ++pos_;
    } else {
      while (pos_ < text_.size() && std::string_view(",]} \t\r\n").find(text_[pos_]) == std::string_view::npos) ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }
  static void Merge(json::value& into, json::value from) {
    if (into.is_object() && from.is_object()) {
      for (auto& kv : from.get_object()) {
        if (json::value* existing = into.get_object().if_contains(kv.key())) {
          Merge(*existing, std::move(kv.value()));
        } else {
          into.get_object()[kv.key()] = std::move(kv.value());
        }
      }
      return;
    }
    into = std::move(from);
  }
  json::value Value(const std::string& path, int depth) {
    Space();
    if (pos_ >= text_.size() || depth > 10000) return nullptr;
    if (text_[pos_] == '{') {
      ++pos_;
      json::object obj;
      Space();
      if (text_[pos_] == '}') {
        ++pos_;
        return obj;
      }
      while (pos_ < text_.size()) {
        Space();
        const json::value key = json::parse(Token());
        Space();
        ++pos_;  // ':'
        const std::string name(key.as_string());
        const std::string member_path = path.empty() ? name : path + "." + name;
        json::value v = Value(member_path, depth + 1);
        if (json::value* existing = obj.if_contains(name)) {
          paths_->push_back(member_path);
          Merge(*existing, std::move(v));
        } else {
          obj[name] = std::move(v);
        }
        Space();
        if (text_[pos_++] == '}') break;
      }
      return obj;
    }
    if (text_[pos_] == '[') {
      ++pos_;
      json::array arr;
      Space();
      if (text_[pos_] == ']') {
        ++pos_;
        return arr;
      }
      while (pos_ < text_.size()) {
        arr.push_back(Value(path + "[" + std::to_string(arr.size()) + "]", depth + 1));
        Space();
        if (text_[pos_++] == ']') break;
      }
      return arr;
    }
    return json::parse(Token());
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::vector<std::string>* paths_ = nullptr;
};

}  // namespace

std::optional<GoDuplicates> FindGoDuplicates(std::string_view text, const json::value& parsed) {
  if (CountKeys(text) == CountMembers(parsed)) return std::nullopt;
  GoDuplicates out;
  out.value = DuplicateReader(text).Read(out.paths);
  if (out.paths.empty()) return std::nullopt;
  return out;
}

}  // namespace kube::apiserver::rest
