#include <kube/core/label_selector.hpp>

#include <kube/core/validation.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <utility>

#include <boost/json.hpp>
#include <fmt/format.h>

namespace kube {
namespace {

// The string form of Nothing(): a contradiction, so that a server given it selects nothing.
constexpr std::string_view kNothingString = "kubecpp.io/nothing,!kubecpp.io/nothing";

// Echoed input is bounded and kept printable ASCII, so that an error message is always valid
// UTF-8 (it may end up in a JSON Status) and never huge.
constexpr std::size_t kMaxEchoedBytes = 256;

void AppendEscaped(std::string& out, std::string_view s, bool quote_chars) {
  const std::size_t n = std::min(s.size(), kMaxEchoedBytes);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (quote_chars && (c == '"' || c == '\\')) {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (s.size() > n) out += "...";
}

// The text of a token as echoed in "found '...'".
std::string Echo(std::string_view s) {
  std::string out;
  AppendEscaped(out, s, /*quote_chars=*/false);
  return out;
}

// A double-quoted string, as Go's %q renders a bad value.
std::string Quote(std::string_view s) {
  std::string out = "\"";
  AppendEscaped(out, s, /*quote_chars=*/true);
  out += '"';
  return out;
}

std::string QuoteList(const std::vector<std::string>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ",";
    out += Quote(values[i]);
  }
  out += "]";
  return out;
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

// field.Invalid(path, value, detail).Error().
std::string InvalidValue(std::string_view path, std::string_view rendered_value,
                         std::string_view detail) {
  return fmt::format("{}: Invalid value: {}: {}", path, rendered_value, detail);
}

std::optional<std::string> KeyError(std::string_view key) {
  auto errs = validation::IsQualifiedName(key);
  if (errs.empty()) return std::nullopt;
  return InvalidValue("key", Quote(key), Join(errs, "; "));
}

// utilerrors.Aggregate.Error(): one message as is, several de-duplicated in brackets.
std::string Aggregate(const std::vector<std::string>& errs) {
  std::vector<std::string> unique;
  for (const std::string& e : errs) {
    if (std::find(unique.begin(), unique.end(), e) == unique.end()) unique.push_back(e);
  }
  if (unique.size() == 1) return unique.front();
  return "[" + Join(unique, ", ") + "]";
}

// strconv.ParseInt(s, 10, 64): optional sign, at least one decimal digit, no overflow.
std::optional<std::int64_t> ParseInt64(std::string_view s) {
  std::size_t i = 0;
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    i = 1;
  }
  if (i == s.size()) return std::nullopt;
  const std::uint64_t limit =
      negative ? std::uint64_t{1} << 63
               : static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  std::uint64_t magnitude = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(s[i] - '0');
    if (magnitude > (limit - digit) / 10) return std::nullopt;
    magnitude = magnitude * 10 + digit;
  }
  if (!negative) return static_cast<std::int64_t>(magnitude);
  if (magnitude == (std::uint64_t{1} << 63)) return std::numeric_limits<std::int64_t>::min();
  return -static_cast<std::int64_t>(magnitude);
}

bool IsSetOperator(SelectorOperator op) {
  return op == SelectorOperator::kIn || op == SelectorOperator::kNotIn;
}

// The checks of apimachinery NewRequirement, in its order.
std::vector<std::string> RequirementErrors(const Requirement& r) {
  std::vector<std::string> errs;
  if (auto e = KeyError(r.key)) errs.push_back(std::move(*e));
  bool known_operator = false;
  switch (r.op) {
    case SelectorOperator::kIn:
    case SelectorOperator::kNotIn:
      known_operator = true;
      if (r.values.empty()) {
        errs.push_back(InvalidValue("values", "[]",
                                    "for 'in', 'notin' operators, values set can't be empty"));
      }
      break;
    case SelectorOperator::kEquals:
    case SelectorOperator::kDoubleEquals:
    case SelectorOperator::kNotEquals:
      known_operator = true;
      if (r.values.size() != 1) {
        errs.push_back(InvalidValue("values", QuoteList(r.values),
                                    "exact-match compatibility requires one single value"));
      }
      break;
    case SelectorOperator::kExists:
    case SelectorOperator::kDoesNotExist:
      known_operator = true;
      if (!r.values.empty()) {
        errs.push_back(InvalidValue("values", QuoteList(r.values),
                                    "values set must be empty for exists and does not exist"));
      }
      break;
    case SelectorOperator::kGreaterThan:
    case SelectorOperator::kLessThan:
      known_operator = true;
      if (r.values.size() != 1) {
        errs.push_back(InvalidValue("values", QuoteList(r.values),
                                    "for 'Gt', 'Lt' operators, exactly one value is required"));
      }
      for (std::size_t i = 0; i < r.values.size(); ++i) {
        if (!ParseInt64(r.values[i])) {
          errs.push_back(InvalidValue(fmt::format("values[{}]", i), Quote(r.values[i]),
                                      "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      }
      break;
  }
  if (!known_operator) {
    errs.push_back(fmt::format(
        "operator: Unsupported value: {}: supported values: \"in\", \"notin\", \"=\", \"==\", "
        "\"!=\", \"gt\", \"lt\", \"exists\", \"!\"",
        static_cast<int>(r.op)));
  }
  for (std::size_t i = 0; i < r.values.size(); ++i) {
    auto value_errs = validation::IsValidLabelValue(r.values[i]);
    if (!value_errs.empty()) {
      errs.push_back(InvalidValue(fmt::format("values[{}][{}]", i, Echo(r.key)),
                                  Quote(r.values[i]), Join(value_errs, "; ")));
    }
  }
  return errs;
}

void Normalize(Requirement& r) {
  if (!IsSetOperator(r.op)) return;
  std::sort(r.values.begin(), r.values.end());
  r.values.erase(std::unique(r.values.begin(), r.values.end()), r.values.end());
}

void StableSortByKey(std::vector<Requirement>& reqs) {
  std::stable_sort(reqs.begin(), reqs.end(),
                   [](const Requirement& a, const Requirement& b) { return a.key < b.key; });
}

// ---- lexer --------------------------------------------------------------------------------------
// Follows apimachinery's Lexer: whitespace separates tokens; the special characters `=!(),<>`
// form the operator tokens, longest match first (`==`, `!=`); any other run of bytes is an
// identifier, or the keyword `in`/`notin`. Unlike Go's lexer, a NUL byte is an ordinary byte
// (Go stops at it as if the input ended), so it ends up rejected by key/value validation.

enum class Tok {
  kEnd,
  kIdentifier,
  kIn,
  kNotIn,
  kOpenPar,
  kClosePar,
  kComma,
  kNot,
  kEquals,
  kDoubleEquals,
  kNotEquals,
  kGreaterThan,
  kLessThan,
};

struct Token {
  Tok tok;
  std::string_view text;
  std::size_t pos;  // byte offset in the input
};

bool IsWhitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool IsSpecial(char c) {
  switch (c) {
    case '=':
    case '!':
    case '(':
    case ')':
    case ',':
    case '>':
    case '<':
      return true;
    default:
      return false;
  }
}

Tok SingleSpecial(char c) {
  switch (c) {
    case '=': return Tok::kEquals;
    case '!': return Tok::kNot;
    case '(': return Tok::kOpenPar;
    case ')': return Tok::kClosePar;
    case ',': return Tok::kComma;
    case '>': return Tok::kGreaterThan;
    default: return Tok::kLessThan;  // '<', the only special character left
  }
}

std::vector<Token> Scan(std::string_view s) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (true) {
    while (i < s.size() && IsWhitespace(s[i])) ++i;
    if (i == s.size()) {
      tokens.push_back({Tok::kEnd, std::string_view(), i});
      return tokens;
    }
    const std::size_t start = i;
    const char c = s[i];
    Tok tok;
    if (IsSpecial(c)) {
      if ((c == '=' || c == '!') && i + 1 < s.size() && s[i + 1] == '=') {
        tok = c == '=' ? Tok::kDoubleEquals : Tok::kNotEquals;
        i += 2;
      } else {
        tok = SingleSpecial(c);
        ++i;
      }
    } else {
      while (i < s.size() && !IsSpecial(s[i]) && !IsWhitespace(s[i])) ++i;
      const std::string_view word = s.substr(start, i - start);
      tok = word == "in" ? Tok::kIn : word == "notin" ? Tok::kNotIn : Tok::kIdentifier;
    }
    tokens.push_back({tok, s.substr(start, i - start), start});
  }
}

// ---- parser -------------------------------------------------------------------------------------
// A recursive-descent parser over the scanned tokens with the grammar and error wording of
// apimachinery's Parser. `in`/`notin` are keywords only where an operator is expected; elsewhere
// (keys, values) they are identifiers.

// The operator a token stands for in operator position; nullopt for any other token.
std::optional<SelectorOperator> OperatorToken(Tok tok) {
  switch (tok) {
    case Tok::kIn: return SelectorOperator::kIn;
    case Tok::kNotIn: return SelectorOperator::kNotIn;
    case Tok::kEquals: return SelectorOperator::kEquals;
    case Tok::kDoubleEquals: return SelectorOperator::kDoubleEquals;
    case Tok::kNotEquals: return SelectorOperator::kNotEquals;
    case Tok::kGreaterThan: return SelectorOperator::kGreaterThan;
    case Tok::kLessThan: return SelectorOperator::kLessThan;
    // `!` is unary; it is not an operator after a key.
    case Tok::kNot:
    case Tok::kEnd:
    case Tok::kIdentifier:
    case Tok::kOpenPar:
    case Tok::kClosePar:
    case Tok::kComma:
      return std::nullopt;
  }
  return std::nullopt;
}

class Parser {
 public:
  explicit Parser(std::string_view input) : tokens_(Scan(input)) {}

  Result<std::vector<Requirement>> Parse() {
    std::vector<Requirement> requirements;
    while (true) {
      const Token& t = Peek();
      const Tok kind = Kind(t, Context::kValues);
      if (kind == Tok::kEnd) return requirements;
      if (kind != Tok::kIdentifier && kind != Tok::kNot) {
        return Found(t, "!, identifier, or 'end of string'", /*in_requirement=*/false);
      }
      auto r = ParseRequirement();
      if (!r.ok()) return std::move(r).error();
      requirements.push_back(std::move(*r));
      const Token& after = Next();
      const Tok after_kind = Kind(after, Context::kValues);
      if (after_kind == Tok::kEnd) return requirements;
      if (after_kind != Tok::kComma) {
        return Found(after, "',' or 'end of string'", /*in_requirement=*/false);
      }
      const Token& following = Peek();
      const Tok following_kind = Kind(following, Context::kValues);
      if (following_kind != Tok::kIdentifier && following_kind != Tok::kNot) {
        return Found(following, "identifier after ','", /*in_requirement=*/false);
      }
    }
  }

 private:
  enum class Context { kKeyAndOperator, kValues };

  static Tok Kind(const Token& t, Context context) {
    if (context == Context::kValues && (t.tok == Tok::kIn || t.tok == Tok::kNotIn)) {
      return Tok::kIdentifier;
    }
    return t.tok;
  }

  // The last token is always kEnd; reading past it keeps returning it.
  const Token& Peek() const { return tokens_[pos_]; }
  const Token& Next() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }

  static Error Found(const Token& t, std::string_view expected, bool in_requirement) {
    return BadRequest(fmt::format("{}found '{}', expected: {}", in_requirement ? "unable to parse requirement: " : "",
                                  Echo(t.text), expected));
  }

  static Error Invalid(std::string_view message) {
    return BadRequest(fmt::format("unable to parse requirement: {}", message));
  }

  Result<Requirement> ParseRequirement() {
    std::optional<SelectorOperator> op;
    Token key_token = Next();
    if (key_token.tok == Tok::kNot) {
      op = SelectorOperator::kDoesNotExist;
      key_token = Next();
    }
    if (Kind(key_token, Context::kValues) != Tok::kIdentifier) {
      return Found(key_token, "identifier", /*in_requirement=*/true);
    }
    if (auto e = KeyError(key_token.text)) return Invalid(*e);
    std::string key(key_token.text);

    const Tok following = Kind(Peek(), Context::kValues);
    if (following == Tok::kEnd || following == Tok::kComma) {
      if (!op) op = SelectorOperator::kExists;
    }
    if (op) return Make(std::move(key), *op, {});

    const Token& op_token = Next();
    op = OperatorToken(Kind(op_token, Context::kKeyAndOperator));
    if (!op) return Found(op_token, "in, notin, =, ==, !=, gt, lt", /*in_requirement=*/true);
    auto values = IsSetOperator(*op) ? ParseValueSet() : ParseExactValue();
    if (!values.ok()) return std::move(values).error();
    return Make(std::move(key), *op, std::move(*values));
  }

  static Result<Requirement> Make(std::string key, SelectorOperator op,
                                  std::vector<std::string> values) {
    auto r = Requirement::Create(std::move(key), op, std::move(values));
    if (!r.ok()) return Invalid(r.error().message);
    return r;
  }

  // "(" [values] ")"; "()" is the single value "".
  Result<std::vector<std::string>> ParseValueSet() {
    const Token& open = Next();
    if (open.tok != Tok::kOpenPar) return Found(open, "'('", /*in_requirement=*/true);
    const Token& first = Peek();
    const Tok first_kind = Kind(first, Context::kValues);
    if (first_kind == Tok::kClosePar) {
      Next();
      return std::vector<std::string>{""};
    }
    if (first_kind != Tok::kIdentifier && first_kind != Tok::kComma) {
      return Found(first, "',', ')' or identifier", /*in_requirement=*/true);
    }
    auto values = ParseIdentifierList();
    if (!values.ok()) return values;
    const Token& close = Next();
    if (close.tok != Tok::kClosePar) return Found(close, "')'", /*in_requirement=*/true);
    return values;
  }

  // A comma-separated list of possibly empty identifiers, up to (not including) ")". Empty
  // elements (leading, doubled or trailing commas) are the value "". As in apimachinery, a
  // doubled comma right before ")" (`(a,,)`, `(,,)`) is an error.
  Result<std::vector<std::string>> ParseIdentifierList() {
    std::vector<std::string> values;
    while (true) {
      const Token& t = Next();
      const Tok kind = Kind(t, Context::kValues);
      if (kind == Tok::kIdentifier) {
        values.emplace_back(t.text);
        const Token& following = Peek();
        if (following.tok == Tok::kClosePar) return values;
        if (following.tok != Tok::kComma) {
          return Found(following, "',' or ')'", /*in_requirement=*/true);
        }
      } else if (kind == Tok::kComma) {
        if (values.empty()) values.emplace_back();  // "(,"
        const Tok following = Peek().tok;
        if (following == Tok::kClosePar) {  // ",)"
          values.emplace_back();
          return values;
        }
        if (following == Tok::kComma) {  // ",,"
          Next();
          values.emplace_back();
        }
      } else {
        return Found(t, "',', or identifier", /*in_requirement=*/true);
      }
    }
  }

  // The value after =, ==, !=, >, <; a missing value (end or ",") is "".
  Result<std::vector<std::string>> ParseExactValue() {
    const Tok following = Kind(Peek(), Context::kValues);
    if (following == Tok::kEnd || following == Tok::kComma) return std::vector<std::string>{""};
    const Token& t = Next();
    if (Kind(t, Context::kValues) != Tok::kIdentifier) {
      return Found(t, "identifier", /*in_requirement=*/true);
    }
    return std::vector<std::string>{std::string(t.text)};
  }

  std::vector<Token> tokens_;  // never empty; ends with exactly one kEnd
  std::size_t pos_ = 0;        // < tokens_.size()
};

// ---- JSON (metav1.LabelSelector) ----------------------------------------------------------------

std::string ToStdString(const boost::json::string& s) { return std::string(s.data(), s.size()); }

// A string member; absent or null is "" (as Go leaves the zero value).
Result<std::string> StringMember(const boost::json::object& obj, std::string_view name,
                                 std::string_view path) {
  const boost::json::value* v = obj.if_contains(boost::json::string_view(name.data(), name.size()));
  if (v == nullptr || v->is_null()) return std::string();
  if (!v->is_string()) return BadRequest(fmt::format("{}.{}: expected string", path, name));
  return ToStdString(v->get_string());
}

Result<SelectorOperator> OperatorFromJson(const std::string& op) {
  if (op == "In") return SelectorOperator::kIn;
  if (op == "NotIn") return SelectorOperator::kNotIn;
  if (op == "Exists") return SelectorOperator::kExists;
  if (op == "DoesNotExist") return SelectorOperator::kDoesNotExist;
  return BadRequest(fmt::format("{} is not a valid label selector operator", Quote(op)));
}

Result<Requirement> ExpressionFromJson(const boost::json::value& expr, std::size_t index) {
  const std::string path = fmt::format("matchExpressions[{}]", index);
  static const boost::json::object kEmpty;
  if (!expr.is_null() && !expr.is_object()) return BadRequest(path + ": expected object");
  const boost::json::object& obj = expr.is_object() ? expr.get_object() : kEmpty;

  auto key = StringMember(obj, "key", path);
  if (!key.ok()) return std::move(key).error();
  auto op_name = StringMember(obj, "operator", path);
  if (!op_name.ok()) return std::move(op_name).error();

  std::vector<std::string> values;
  if (const boost::json::value* v = obj.if_contains("values"); v != nullptr && !v->is_null()) {
    if (!v->is_array()) return BadRequest(path + ".values: expected array");
    const boost::json::array& arr = v->get_array();
    for (std::size_t i = 0; i < arr.size(); ++i) {
      if (arr[i].is_null()) {
        values.emplace_back();
      } else if (arr[i].is_string()) {
        values.push_back(ToStdString(arr[i].get_string()));
      } else {
        return BadRequest(fmt::format("{}.values[{}]: expected string", path, i));
      }
    }
  }
  // LabelSelectorAsSelector maps the operator before it validates the requirement.
  auto op = OperatorFromJson(*op_name);
  if (!op.ok()) return std::move(op).error();
  auto r = Requirement::Create(std::move(*key), *op, std::move(values));
  if (!r.ok()) return BadRequest(path + ": " + r.error().message);
  return r;
}

}  // namespace

std::string_view SelectorOperatorName(SelectorOperator op) {
  switch (op) {
    case SelectorOperator::kEquals: return "=";
    case SelectorOperator::kDoubleEquals: return "==";
    case SelectorOperator::kNotEquals: return "!=";
    case SelectorOperator::kIn: return "in";
    case SelectorOperator::kNotIn: return "notin";
    case SelectorOperator::kExists: return "exists";
    case SelectorOperator::kDoesNotExist: return "!";
    case SelectorOperator::kGreaterThan: return "gt";
    case SelectorOperator::kLessThan: return "lt";
  }
  return "unknown";
}

// ---- Requirement --------------------------------------------------------------------------------

Result<Requirement> Requirement::Create(std::string key, SelectorOperator op,
                                        std::vector<std::string> values) {
  Requirement r{.key = std::move(key), .op = op, .values = std::move(values)};
  auto errs = RequirementErrors(r);
  if (!errs.empty()) return BadRequest(Aggregate(errs));
  Normalize(r);
  return r;
}

bool Requirement::Matches(std::optional<std::string_view> value) const {
  const auto has_value = [this](std::string_view v) {
    return std::find(values.begin(), values.end(), v) != values.end();
  };
  switch (op) {
    case SelectorOperator::kIn:
    case SelectorOperator::kEquals:
    case SelectorOperator::kDoubleEquals:
      return value.has_value() && has_value(*value);
    case SelectorOperator::kNotIn:
    case SelectorOperator::kNotEquals:
      return !value.has_value() || !has_value(*value);
    case SelectorOperator::kExists:
      return value.has_value();
    case SelectorOperator::kDoesNotExist:
      return !value.has_value();
    case SelectorOperator::kGreaterThan:
    case SelectorOperator::kLessThan: {
      if (!value.has_value() || values.size() != 1) return false;
      const auto actual = ParseInt64(*value);
      const auto bound = ParseInt64(values.front());
      if (!actual || !bound) return false;
      return op == SelectorOperator::kGreaterThan ? *actual > *bound : *actual < *bound;
    }
  }
  return false;
}

std::string Requirement::String() const {
  std::string out;
  if (op == SelectorOperator::kDoesNotExist) out += '!';
  out += key;
  std::string_view symbol;
  switch (op) {
    case SelectorOperator::kExists:
    case SelectorOperator::kDoesNotExist:
      return out;
    case SelectorOperator::kEquals: symbol = "="; break;
    case SelectorOperator::kDoubleEquals: symbol = "=="; break;
    case SelectorOperator::kNotEquals: symbol = "!="; break;
    case SelectorOperator::kIn: symbol = " in "; break;
    case SelectorOperator::kNotIn: symbol = " notin "; break;
    case SelectorOperator::kGreaterThan: symbol = ">"; break;
    case SelectorOperator::kLessThan: symbol = "<"; break;
  }
  out += symbol;
  const bool set = IsSetOperator(op);
  if (set) out += '(';
  if (values.size() == 1) {
    out += values.front();
  } else if (std::is_sorted(values.begin(), values.end())) {
    out += Join(values, ",");
  } else {
    std::vector<std::string> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    out += Join(sorted, ",");
  }
  if (set) out += ')';
  return out;
}

// ---- LabelSelector ------------------------------------------------------------------------------

Result<LabelSelector> LabelSelector::Parse(std::string_view selector) {
  Parser parser(selector);
  auto requirements = parser.Parse();
  if (!requirements.ok()) return std::move(requirements).error();
  LabelSelector out;
  out.requirements_ = std::move(*requirements);
  StableSortByKey(out.requirements_);
  return out;
}

LabelSelector LabelSelector::Everything() { return LabelSelector(); }

LabelSelector LabelSelector::Nothing() {
  LabelSelector out;
  out.nothing_ = true;
  return out;
}

LabelSelector LabelSelector::FromSet(const std::map<std::string, std::string>& set) {
  LabelSelector out;
  out.requirements_.reserve(set.size());
  for (const auto& [key, value] : set) {  // std::map iterates sorted by key
    out.requirements_.push_back({.key = key, .op = SelectorOperator::kEquals, .values = {value}});
  }
  return out;
}

Result<LabelSelector> LabelSelector::ValidatedFromSet(
    const std::map<std::string, std::string>& set) {
  LabelSelector out;
  out.requirements_.reserve(set.size());
  for (const auto& [key, value] : set) {
    auto r = Requirement::Create(key, SelectorOperator::kEquals, {value});
    if (!r.ok()) return std::move(r).error();
    out.requirements_.push_back(std::move(*r));
  }
  return out;
}

Result<LabelSelector> LabelSelector::FromLabelSelectorJson(const boost::json::value& json) {
  if (json.is_null()) return Nothing();
  if (!json.is_object()) return BadRequest("labelSelector: expected object or null");
  const boost::json::object& obj = json.get_object();
  std::vector<Requirement> requirements;

  if (const boost::json::value* labels = obj.if_contains("matchLabels");
      labels != nullptr && !labels->is_null()) {
    if (!labels->is_object()) return BadRequest("matchLabels: expected object");
    for (const auto& member : labels->get_object()) {
      std::string key(member.key().data(), member.key().size());
      std::string value;
      if (member.value().is_string()) {
        value = ToStdString(member.value().get_string());
      } else if (!member.value().is_null()) {
        return BadRequest(fmt::format("matchLabels.{}: expected string", Echo(key)));
      }
      auto r = Requirement::Create(std::move(key), SelectorOperator::kEquals, {std::move(value)});
      if (!r.ok()) return BadRequest("matchLabels: " + r.error().message);
      requirements.push_back(std::move(*r));
    }
  }

  if (const boost::json::value* exprs = obj.if_contains("matchExpressions");
      exprs != nullptr && !exprs->is_null()) {
    if (!exprs->is_array()) return BadRequest("matchExpressions: expected array");
    const boost::json::array& arr = exprs->get_array();
    for (std::size_t i = 0; i < arr.size(); ++i) {
      auto r = ExpressionFromJson(arr[i], i);
      if (!r.ok()) return std::move(r).error();
      requirements.push_back(std::move(*r));
    }
  }

  LabelSelector out;
  out.requirements_ = std::move(requirements);
  StableSortByKey(out.requirements_);
  return out;
}

bool LabelSelector::Matches(const std::map<std::string, std::string>& labels) const {
  if (nothing_) return false;
  for (const Requirement& r : requirements_) {
    const auto it = labels.find(r.key);
    const std::optional<std::string_view> value =
        it == labels.end() ? std::nullopt : std::optional<std::string_view>(it->second);
    if (!r.Matches(value)) return false;
  }
  return true;
}

Result<void> LabelSelector::Add(Requirement requirement) {
  auto errs = RequirementErrors(requirement);
  if (!errs.empty()) return BadRequest(Aggregate(errs));
  if (nothing_) return Ok();
  Normalize(requirement);
  const auto at = std::upper_bound(
      requirements_.begin(), requirements_.end(), requirement.key,
      [](const std::string& key, const Requirement& r) { return key < r.key; });
  requirements_.insert(at, std::move(requirement));
  return Ok();
}

std::optional<std::string> LabelSelector::RequiresExactMatch(std::string_view key) const {
  for (const Requirement& r : requirements_) {
    if (r.key != key) continue;
    switch (r.op) {
      case SelectorOperator::kEquals:
      case SelectorOperator::kDoubleEquals:
      case SelectorOperator::kIn:
        if (r.values.size() == 1) return r.values.front();
        return std::nullopt;
      case SelectorOperator::kNotEquals:
      case SelectorOperator::kNotIn:
      case SelectorOperator::kExists:
      case SelectorOperator::kDoesNotExist:
      case SelectorOperator::kGreaterThan:
      case SelectorOperator::kLessThan:
        return std::nullopt;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

std::string LabelSelector::String() const {
  if (nothing_) return std::string(kNothingString);
  std::string out;
  for (std::size_t i = 0; i < requirements_.size(); ++i) {
    if (i > 0) out += ',';
    out += requirements_[i].String();
  }
  return out;
}

}  // namespace kube
