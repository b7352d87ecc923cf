#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <kube/base/result.hpp>

namespace kube::apiserver::rest {

/// A decoded list continue token: where the next page starts and at which snapshot revision.
struct ContinuePosition {
  std::string key;       ///< the full storage key to start from (inclusive)
  int64_t revision = 0;  ///< the snapshot revision; -1 = "continue at the latest revision"
  bool operator==(const ContinuePosition&) const = default;
};

/// Encodes a continue token as kube-apiserver does (`storage.EncodeContinue`):
/// `base64url-nopad({"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key minus prefix>"})`.
/// `key` must start with `prefix` and be longer than it (asserted).
std::string EncodeContinue(std::string_view key, std::string_view prefix, int64_t revision);

/// Decodes a token issued for a list under `prefix` (`storage.DecodeContinue`). The start key is
/// path-cleaned so that a forged token cannot reach outside `prefix`.
/// **Errors:** 400 BadRequest `invalid continue token: continue key is not valid: ...` with kube's
/// wording for bad base64/JSON, an unknown version, rv 0, an empty or unclean start key.
Result<ContinuePosition> DecodeContinue(std::string_view token, std::string_view prefix);

/// Go's `path.Clean` (lexical: collapses "//", removes "." and resolves ".." elements; "" -> ".").
/// Exposed for tests.
std::string CleanPath(std::string_view path);

/// RFC 4648 base64url without padding (Go's `base64.RawURLEncoding`).
std::string Base64RawUrlEncode(std::string_view data);
/// Decodes base64url without padding; returns false on a character outside the alphabet, a
/// padding character or an impossible length (Go rejects those too).
bool Base64RawUrlDecode(std::string_view text, std::string& out);

}  // namespace kube::apiserver::rest
