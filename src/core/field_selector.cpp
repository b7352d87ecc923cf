#include <kube/core/field_selector.hpp>

#include <algorithm>
#include <cstddef>
#include <utility>

#include <fmt/format.h>

namespace kube {
namespace {

// Echoed input is bounded and kept printable ASCII, so that an error message is always valid
// UTF-8 (it may end up in a JSON Status) and never huge.
constexpr std::size_t kMaxEchoedBytes = 256;

std::string Echo(std::string_view s) {
  std::string out;
  const std::size_t n = std::min(s.size(), kMaxEchoedBytes);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (s.size() > n) out += "...";
  return out;
}

// The byte length of the UTF-8 sequence starting with `lead` (1 for anything malformed), so that
// an invalid escape is reported with the whole character after the backslash, as Go does.
std::size_t Utf8Length(unsigned char lead) {
  if (lead >= 0xf0 && lead < 0xf8) return 4;
  if (lead >= 0xe0) return lead < 0xf0 ? 3 : 1;
  if (lead >= 0xc0) return 2;
  return 1;
}

// Splits at commas that are not escaped by a backslash; escapes stay in the terms.
std::vector<std::string_view> SplitTerms(std::string_view selector) {
  std::vector<std::string_view> terms;
  if (selector.empty()) return terms;
  std::size_t start = 0;
  bool in_slash = false;
  for (std::size_t i = 0; i < selector.size(); ++i) {
    const char c = selector[i];
    if (in_slash) {
      in_slash = false;
    } else if (c == '\\') {
      in_slash = true;
    } else if (c == ',') {
      terms.push_back(selector.substr(start, i - start));
      start = i + 1;
    }
  }
  terms.push_back(selector.substr(start));
  return terms;
}

struct SplitTerm {
  std::string_view lhs;
  FieldRequirement::Op op;
  std::string_view rhs;
};

// The first operator scanning left to right; at one position "!=" beats "==" beats "=".
std::optional<SplitTerm> SplitAtOperator(std::string_view term) {
  for (std::size_t i = 0; i < term.size(); ++i) {
    const std::string_view rest = term.substr(i);
    if (rest.starts_with("!=")) {
      return SplitTerm{term.substr(0, i), FieldRequirement::Op::kNotEquals, rest.substr(2)};
    }
    if (rest.starts_with("==")) {
      return SplitTerm{term.substr(0, i), FieldRequirement::Op::kEquals, rest.substr(2)};
    }
    if (rest.starts_with("=")) {
      return SplitTerm{term.substr(0, i), FieldRequirement::Op::kEquals, rest.substr(1)};
    }
  }
  return std::nullopt;
}

void SortCanonically(std::vector<FieldRequirement>& requirements) {
  std::vector<std::pair<std::string, FieldRequirement>> keyed;
  keyed.reserve(requirements.size());
  for (FieldRequirement& r : requirements) {
    std::string text = r.String();
    keyed.emplace_back(std::move(text), std::move(r));
  }
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  requirements.clear();
  for (auto& [text, r] : keyed) requirements.push_back(std::move(r));
}

}  // namespace

// ---- escaping -----------------------------------------------------------------------------------

std::string EscapeFieldValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (c == '\\' || c == ',' || c == '=') out += '\\';
    out += c;
  }
  return out;
}

Result<std::string> UnescapeFieldValue(std::string_view escaped) {
  if (escaped.find_first_of("\\,=") == std::string_view::npos) return std::string(escaped);
  std::string out;
  out.reserve(escaped.size());
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    const char c = escaped[i];
    if (c == '\\') {
      if (i + 1 == escaped.size()) {
        return BadRequest("invalid field selector: invalid escape sequence: \\");
      }
      const char next = escaped[i + 1];
      if (next != '\\' && next != ',' && next != '=') {
        const std::size_t len = std::min(Utf8Length(static_cast<unsigned char>(next)),
                                         escaped.size() - (i + 1));
        return BadRequest(fmt::format("invalid field selector: invalid escape sequence: \\{}",
                                      Echo(escaped.substr(i + 1, len))));
      }
      out += next;
      ++i;
    } else if (c == ',' || c == '=') {
      return BadRequest(
          // Go prints the rune with %v: its code point.
          fmt::format("invalid field selector: unescaped character in value: {}", static_cast<int>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

// ---- FieldRequirement ---------------------------------------------------------------------------

bool FieldRequirement::Matches(std::optional<std::string_view> field_value) const {
  const std::string_view actual = field_value.value_or(std::string_view());
  switch (op) {
    case Op::kEquals: return actual == value;
    case Op::kNotEquals: return actual != value;
  }
  return false;
}

std::string FieldRequirement::String() const {
  std::string out = field;
  out += op == Op::kNotEquals ? "!=" : "=";
  out += EscapeFieldValue(value);
  return out;
}

// ---- FieldSelector ------------------------------------------------------------------------------

Result<FieldSelector> FieldSelector::Parse(std::string_view selector) {
  FieldSelector out;
  for (const std::string_view term : SplitTerms(selector)) {
    if (term.empty()) continue;
    const auto split = SplitAtOperator(term);
    if (!split) {
      return BadRequest(fmt::format("invalid selector: '{}'; can't understand '{}'",
                                    Echo(selector), Echo(term)));
    }
    auto value = UnescapeFieldValue(split->rhs);
    if (!value.ok()) {
      return std::move(value).error();
    }
    // apimachinery's identity transform drops a term whose field and value are both empty.
    if (split->lhs.empty() && value->empty()) continue;
    out.requirements_.push_back(
        {.field = std::string(split->lhs), .op = split->op, .value = std::move(*value)});
  }
  SortCanonically(out.requirements_);
  return out;
}

FieldSelector FieldSelector::Everything() { return FieldSelector(); }

FieldSelector FieldSelector::FromSet(const std::map<std::string, std::string>& set) {
  FieldSelector out;
  out.requirements_.reserve(set.size());
  for (const auto& [field, value] : set) {
    out.requirements_.push_back({.field = field, .op = FieldRequirement::Op::kEquals, .value = value});
  }
  SortCanonically(out.requirements_);
  return out;
}

FieldSelector FieldSelector::OneTermEqual(std::string field, std::string value) {
  FieldSelector out;
  out.requirements_.push_back(
      {.field = std::move(field), .op = FieldRequirement::Op::kEquals, .value = std::move(value)});
  return out;
}

bool FieldSelector::Matches(const std::map<std::string, std::string>& fields) const {
  for (const FieldRequirement& r : requirements_) {
    const auto it = fields.find(r.field);
    const std::optional<std::string_view> value =
        it == fields.end() ? std::nullopt : std::optional<std::string_view>(it->second);
    if (!r.Matches(value)) return false;
  }
  return true;
}

std::optional<std::string> FieldSelector::RequiresExactMatch(std::string_view field) const {
  for (const FieldRequirement& r : requirements_) {
    if (r.field == field && r.op == FieldRequirement::Op::kEquals) return r.value;
  }
  return std::nullopt;
}

std::string FieldSelector::String() const {
  std::string out;
  for (std::size_t i = 0; i < requirements_.size(); ++i) {
    if (i > 0) out += ',';
    out += requirements_[i].String();
  }
  return out;
}

}  // namespace kube
