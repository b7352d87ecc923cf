#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <kube/base/result.hpp>

/// Pure helpers of the HTTP transport (no Beast here, so they are cheap to test and to compile).
/// **Thread-safety:** every function is pure and may be called from any thread.
namespace kube::apiserver::internal {

/// The request target split at the first '?': the still-encoded path and the raw query.
struct SplitTarget {
  std::string_view path;   ///< e.g. "/api/v1/namespaces/a%20b"
  std::string_view query;  ///< without the '?', e.g. "watch=1&labelSelector=a%3Db"
};

/// Splits an origin-form target ("/p?q") or an absolute-form one ("http://host/p?q", whose
/// scheme and authority are dropped). `*` (OPTIONS) yields path "*".
/// **Errors:** 400 BadRequest for any other form (e.g. "p" or "").
Result<SplitTarget> SplitRequestTarget(std::string_view target);

/// Percent-decodes a URL path ("%2F" becomes '/', '+' stays '+').
/// **Errors:** 400 BadRequest for a '%' not followed by two hex digits, and for a decoded NUL.
Result<std::string> PercentDecodePath(std::string_view path);

/// Compares a presented secret with the expected one in time that depends only on the length of
/// `expected`, so that a network observer cannot guess the secret byte by byte.
bool ConstantTimeEquals(std::string_view presented, std::string_view expected);

/// The token of an `Authorization: Bearer <token>` value (scheme case-insensitive, as
/// kube-apiserver's bearer-token authenticator); nullopt when the value is not a bearer
/// credential or the token is empty.
std::optional<std::string_view> BearerToken(std::string_view authorization);

/// True when `path` equals one of `anonymous` or lies below it ("/healthz" also covers
/// "/healthz/ping"; "/healthzfoo" is not covered).
bool IsAnonymousPath(std::string_view path, const std::vector<std::string>& anonymous);

/// The IMF-fixdate of RFC 9110 used in the `Date` header: "Sun, 06 Nov 1994 08:49:37 GMT".
std::string HttpDate(std::chrono::system_clock::time_point t);

/// ASCII lower-case copy (header names).
std::string LowerAscii(std::string_view s);

}  // namespace kube::apiserver::internal
