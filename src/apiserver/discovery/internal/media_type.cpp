#include "apiserver/discovery/internal/media_type.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

namespace kube::apiserver::internal {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Splits on `sep`, keeping empty pieces.
std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const auto pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

double ParseQ(std::string_view s) {
  // strconv.ParseFloat semantics are overkill: q-values are "0", "0.5", "1.000".
  std::string text(Trim(s));
  char* end = nullptr;
  const double q = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || q != q) return 0.0;  // unparsable: goautoneg's ParseFloat yields 0
  return q;
}

}  // namespace

std::optional<std::string_view> MediaRange::Param(std::string_view name) const {
  for (const auto& [k, v] : params) {
    if (k == name) return std::string_view(v);
  }
  return std::nullopt;
}

bool MediaRange::AcceptsJson() const {
  return (type == "application" && (subtype == "json" || subtype == "*")) ||
         (type == "*" && subtype == "*");
}

bool MediaRange::HasConversion() const {
  return Param("as").has_value() || Param("g").has_value() || Param("v").has_value();
}

std::vector<MediaRange> ParseAccept(std::string_view header) {
  std::vector<MediaRange> out;
  for (std::string_view part : Split(header, ',')) {
    const auto pieces = Split(part, ';');
    const std::string_view range = Trim(pieces[0]);
    MediaRange m;
    if (range == "*") {
      m.type = "*";
      m.subtype = "*";
    } else {
      const auto slash = range.find('/');
      if (slash == std::string_view::npos || range.find('/', slash + 1) != std::string_view::npos) {
        continue;
      }
      m.type = Lower(Trim(range.substr(0, slash)));
      m.subtype = Lower(Trim(range.substr(slash + 1)));
      if (m.type.empty() || m.subtype.empty()) continue;
    }
    for (std::size_t i = 1; i < pieces.size(); ++i) {
      const auto eq = pieces[i].find('=');
      if (eq == std::string_view::npos) continue;
      const std::string_view key = Trim(pieces[i].substr(0, eq));
      std::string_view value = Trim(pieces[i].substr(eq + 1));
      if (key == "q") {
        m.q = ParseQ(value);
        continue;
      }
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
        value = value.substr(1, value.size() - 2);
      }
      m.params.emplace_back(std::string(key), std::string(value));
    }
    if (m.q <= 0) continue;
    out.push_back(std::move(m));
  }
  std::stable_sort(out.begin(), out.end(), [](const MediaRange& a, const MediaRange& b) {
    if (a.q != b.q) return a.q > b.q;
    const bool a_type = a.type != "*", b_type = b.type != "*";
    if (a_type != b_type) return a_type;
    const bool a_sub = a.subtype != "*", b_sub = b.subtype != "*";
    return a_sub && !b_sub;
  });
  return out;
}

}  // namespace kube::apiserver::internal
