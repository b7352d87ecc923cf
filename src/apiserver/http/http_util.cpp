#include "apiserver/http/http_util.hpp"

#include <ctime>

#include <fmt/format.h>

#include <kube/apiserver/http_server.hpp>
#include <kube/core/status.hpp>

namespace kube::apiserver {

std::optional<std::string_view> HttpRequest::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return std::string_view(value);
  }
  return std::nullopt;
}

}  // namespace kube::apiserver

namespace kube::apiserver::internal {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char LowerChar(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

Result<SplitTarget> SplitRequestTarget(std::string_view target) {
  if (target == "*") return SplitTarget{.path = target, .query = {}};
  if (target.empty()) return NewBadRequest("empty request target");
  if (target.front() != '/') {
    // absolute-form: scheme "://" authority [path] ["?" query]
    const auto scheme_end = target.find("://");
    if (scheme_end == std::string_view::npos || scheme_end == 0) {
      return NewBadRequest(fmt::format("invalid request target \"{}\"", target));
    }
    target.remove_prefix(scheme_end + 3);
    const auto path_start = target.find_first_of("/?");
    if (path_start == std::string_view::npos) return SplitTarget{.path = "/", .query = {}};
    target.remove_prefix(path_start);
    if (target.front() == '?') {
      target.remove_prefix(1);
      return SplitTarget{.path = "/", .query = target};
    }
  }
  const auto q = target.find('?');
  if (q == std::string_view::npos) return SplitTarget{.path = target, .query = {}};
  return SplitTarget{.path = target.substr(0, q), .query = target.substr(q + 1)};
}

Result<std::string> PercentDecodePath(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (std::size_t i = 0; i < path.size(); ++i) {
    char c = path[i];
    if (c == '%') {
      const int hi = i + 1 < path.size() ? HexValue(path[i + 1]) : -1;
      const int lo = i + 2 < path.size() ? HexValue(path[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        const auto escape = path.substr(i, std::min<std::size_t>(3, path.size() - i));
        return NewBadRequest(fmt::format("invalid URL escape \"{}\" in path", escape));
      }
      c = static_cast<char>(hi * 16 + lo);
      i += 2;
    }
    if (c == '\0') return NewBadRequest("invalid NUL character in path");
    out.push_back(c);
  }
  return out;
}

bool ConstantTimeEquals(std::string_view presented, std::string_view expected) {
  // Every byte of `expected` is visited whatever `presented` holds; the length difference is
  // folded into the result instead of returning early.
  unsigned diff = presented.size() == expected.size() ? 0U : 1U;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const unsigned char p =
        i < presented.size() ? static_cast<unsigned char>(presented[i]) : 0U;
    diff |= p ^ static_cast<unsigned char>(expected[i]);
  }
  return diff == 0;
}

std::optional<std::string_view> BearerToken(std::string_view authorization) {
  // kube-apiserver: strings.SplitN(auth, " ", 3), scheme compared case-insensitively.
  const auto space = authorization.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  if (LowerAscii(authorization.substr(0, space)) != "bearer") return std::nullopt;
  std::string_view token = authorization.substr(space + 1);
  token = token.substr(0, token.find(' '));
  if (token.empty()) return std::nullopt;
  return token;
}

bool IsAnonymousPath(std::string_view path, const std::vector<std::string>& anonymous) {
  for (const auto& p : anonymous) {
    if (path == p) return true;
    if (path.size() > p.size() && path.substr(0, p.size()) == p && path[p.size()] == '/') {
      return true;
    }
  }
  return false;
}

std::string HttpDate(std::chrono::system_clock::time_point t) {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm g{};
  gmtime_r(&tt, &g);
  return fmt::format("{}, {:02d} {} {:04d} {:02d}:{:02d}:{:02d} GMT", kDays[g.tm_wday], g.tm_mday,
                     kMonths[g.tm_mon], g.tm_year + 1900, g.tm_hour, g.tm_min, g.tm_sec);
}

std::string LowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = LowerChar(c);
  return out;
}

}  // namespace kube::apiserver::internal
