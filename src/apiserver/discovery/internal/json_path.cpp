#include "apiserver/discovery/internal/json_path.hpp"

#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

namespace kube::apiserver::internal {
namespace {

namespace bj = boost::json;
using Nodes = std::vector<const bj::value*>;

std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Reads a dotted field name starting at `pos` (after the dot): up to the next unescaped '.' or
// '['. `\.` is a literal dot.
std::string ReadName(std::string_view path, std::size_t& pos) {
  std::string name;
  while (pos < path.size() && path[pos] != '.' && path[pos] != '[') {
    if (path[pos] == '\\' && pos + 1 < path.size()) ++pos;
    name.push_back(path[pos++]);
  }
  return name;
}

// The `[...]` body starting after '['; advances past the matching ']' (quotes and nested
// parentheses respected). nullopt when unterminated.
std::optional<std::string_view> ReadBracket(std::string_view path, std::size_t& pos) {
  const std::size_t start = pos;
  int parens = 0;
  char quote = 0;
  for (; pos < path.size(); ++pos) {
    const char c = path[pos];
    if (quote != 0) {
      if (c == '\\') {
        ++pos;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(') {
      ++parens;
    } else if (c == ')') {
      --parens;
    } else if (c == ']' && parens == 0) {
      std::string_view body = path.substr(start, pos - start);
      ++pos;
      return body;
    }
  }
  return std::nullopt;
}

std::optional<std::string> Unquote(std::string_view s) {
  s = TrimSpaces(s);
  if (s.size() < 2 || (s.front() != '\'' && s.front() != '"') || s.back() != s.front()) {
    return std::nullopt;
  }
  std::string out;
  for (std::size_t i = 1; i + 1 < s.size(); ++i) {
    if (s[i] == '\\' && i + 2 < s.size()) ++i;
    out.push_back(s[i]);
  }
  return out;
}

void Children(const bj::value* v, Nodes& out) {
  if (const auto* o = v->if_object()) {
    for (const auto& kv : *o) out.push_back(&kv.value());
  } else if (const auto* a = v->if_array()) {
    for (const auto& e : *a) out.push_back(&e);
  }
}

std::optional<double> AsNumber(const bj::value& v) {
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  if (v.is_double()) return v.get_double();
  return std::nullopt;
}

Nodes Eval(const bj::value& root, std::string_view path);

// A filter `?(@.a.b OP literal)` or `?(@.a.b)`, applied to one candidate element.
bool FilterMatches(const bj::value& element, std::string_view filter) {
  filter = TrimSpaces(filter);
  static constexpr std::string_view kOps[] = {"==", "!=", "<=", ">=", "<", ">"};
  std::size_t op_pos = std::string_view::npos;
  std::string_view op;
  char quote = 0;
  for (std::size_t i = 0; i < filter.size() && op_pos == std::string_view::npos; ++i) {
    const char c = filter[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      continue;
    }
    for (std::string_view candidate : kOps) {
      if (filter.substr(i, candidate.size()) == candidate) {
        op_pos = i;
        op = candidate;
        break;
      }
    }
  }
  const std::string_view lhs = TrimSpaces(filter.substr(0, op_pos));
  if (!lhs.starts_with("@")) return false;
  const Nodes found = Eval(element, lhs.substr(1));
  if (op_pos == std::string_view::npos) return !found.empty();
  if (found.empty()) return false;
  const bj::value& actual = *found.front();
  const std::string_view rhs = TrimSpaces(filter.substr(op_pos + op.size()));
  int cmp = 0;
  if (auto s = Unquote(rhs)) {
    if (!actual.is_string()) return op == "!=";
    const std::string_view a = actual.get_string();
    cmp = a < *s ? -1 : (a == *s ? 0 : 1);
  } else if (rhs == "true" || rhs == "false") {
    if (!actual.is_bool()) return op == "!=";
    if (op != "==" && op != "!=") return false;
    cmp = actual.get_bool() == (rhs == "true") ? 0 : 1;
  } else {
    std::string text(rhs);
    char* end = nullptr;
    const double want = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0') return false;
    const auto have = AsNumber(actual);
    if (!have) return op == "!=";
    cmp = *have < want ? -1 : (*have == want ? 0 : 1);
  }
  if (op == "==") return cmp == 0;
  if (op == "!=") return cmp != 0;
  if (op == "<") return cmp < 0;
  if (op == "<=") return cmp <= 0;
  if (op == ">") return cmp > 0;
  return cmp >= 0;
}

Nodes Eval(const bj::value& root, std::string_view path) {
  Nodes current{&root};
  std::size_t pos = 0;
  while (pos < path.size() && !current.empty()) {
    const char c = path[pos];
    Nodes next;
    if (c == '.') {
      ++pos;
      if (pos < path.size() && path[pos] == '.') return {};  // recursive descent: unsupported
      if (pos < path.size() && path[pos] == '*') {
        ++pos;
        for (const bj::value* v : current) Children(v, next);
      } else {
        const std::string name = ReadName(path, pos);
        if (name.empty()) continue;  // "a.[0]" or a trailing ".": the current nodes
        for (const bj::value* v : current) {
          if (const auto* o = v->if_object()) {
            if (const auto* found = o->if_contains(name)) next.push_back(found);
          }
        }
      }
    } else if (c == '[') {
      ++pos;
      const auto body_opt = ReadBracket(path, pos);
      if (!body_opt) return {};
      const std::string_view body = TrimSpaces(*body_opt);
      if (body == "*") {
        for (const bj::value* v : current) Children(v, next);
      } else if (body.starts_with("?(") && body.ends_with(")")) {
        const std::string_view filter = body.substr(2, body.size() - 3);
        for (const bj::value* v : current) {
          Nodes candidates;
          if (v->is_array()) {
            Children(v, candidates);
          } else {
            candidates.push_back(v);
          }
          for (const bj::value* e : candidates) {
            if (FilterMatches(*e, filter)) next.push_back(e);
          }
        }
      } else if (auto key = Unquote(body)) {
        for (const bj::value* v : current) {
          if (const auto* o = v->if_object()) {
            if (const auto* found = o->if_contains(*key)) next.push_back(found);
          }
        }
      } else {
        std::string text(body);
        char* end = nullptr;
        const long long index = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0') return {};  // slices, unions: unsupported
        for (const bj::value* v : current) {
          const auto* a = v->if_array();
          if (a == nullptr) continue;
          const long long n = static_cast<long long>(a->size());
          const long long i = index < 0 ? n + index : index;
          if (i >= 0 && i < n) next.push_back(&(*a)[static_cast<std::size_t>(i)]);
        }
      }
    } else {
      return {};
    }
    current = std::move(next);
  }
  return current;
}

}  // namespace

const bj::value* EvalJsonPath(const bj::value& root, std::string_view path) {
  path = TrimSpaces(path);
  if (path.starts_with("{") && path.ends_with("}")) path = TrimSpaces(path.substr(1, path.size() - 2));
  if (path.starts_with("$")) path.remove_prefix(1);
  if (path.empty()) return &root;
  if (path.front() != '.' && path.front() != '[') return nullptr;
  const Nodes found = Eval(root, path);
  return found.empty() ? nullptr : found.front();
}

}  // namespace kube::apiserver::internal
