#include "apiserver/rest/url.hpp"

#include <vector>

namespace kube::apiserver::rest {
namespace {

// Splits on '/', rejecting empty segments (a trailing or doubled slash names nothing in kube's
// router). The leading '/' is required.
std::optional<std::vector<std::string_view>> SplitSegments(std::string_view path) {
  if (path.empty() || path.front() != '/') return std::nullopt;
  path.remove_prefix(1);
  std::vector<std::string_view> parts;
  while (!path.empty()) {
    const auto slash = path.find('/');
    const auto part = path.substr(0, slash);
    if (part.empty()) return std::nullopt;
    parts.push_back(part);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
    if (path.empty()) return std::nullopt;  // trailing slash
  }
  return parts;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string QueryUnescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out.push_back(' ');
    } else if (s[i] == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 && HexValue(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> QueryParam(std::string_view query, std::string_view name) {
  if (!query.empty() && query.front() == '?') query.remove_prefix(1);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const auto pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    const auto eq = pair.find('=');
    const auto key = QueryUnescape(pair.substr(0, eq));
    if (key != name) continue;
    return eq == std::string_view::npos ? std::string() : QueryUnescape(pair.substr(eq + 1));
  }
  return std::nullopt;
}

std::optional<RequestPath> ParseRequestPath(std::string_view path) {
  auto split = SplitSegments(path);
  if (!split) return std::nullopt;
  const std::vector<std::string_view>& parts = *split;
  RequestPath out;
  std::size_t i = 0;
  if (parts.size() >= 2 && parts[0] == "api") {
    out.version = std::string(parts[1]);
    i = 2;
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    out.group = std::string(parts[1]);
    out.version = std::string(parts[2]);
    i = 3;
  } else {
    return std::nullopt;
  }
  if (i < parts.size() && parts[i] == "watch") {
    out.legacy_watch = true;
    ++i;
  }
  std::vector<std::string_view> rest(parts.begin() + static_cast<std::ptrdiff_t>(i), parts.end());
  if (rest.empty()) return std::nullopt;  // a group-version discovery document

  if (rest[0] == "namespaces" && rest.size() >= 2) {
    // `namespaces/<ns>/<resource>...` unless the third segment is a namespace subresource.
    if (rest.size() > 2 && rest[2] != "status" && rest[2] != "finalize") {
      out.ns = std::string(rest[1]);
      out.has_namespace = true;
      rest.erase(rest.begin(), rest.begin() + 2);
    }
  }
  if (rest.size() > 3) return std::nullopt;
  out.resource = std::string(rest[0]);
  if (rest.size() >= 2) out.name = std::string(rest[1]);
  if (rest.size() == 3) out.subresource = std::string(rest[2]);
  return out;
}

}  // namespace kube::apiserver::rest
