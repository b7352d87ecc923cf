#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

/// Small helpers that append JSON text the way Go's encoding/json writes it, so that documents
/// built by hand match kube-apiserver's bytes.
namespace kube::apiserver::internal {

/// Appends `s` as a JSON string literal, escaped as encoding/json does: `"`, `\`, `\n`, `\r`,
/// `\t`, `\b`, `\f`, other control bytes as `\u00XX`, `<` `>` `&` as `\u003c` `\u003e`
/// `\u0026`, and U+2028/U+2029 as `\u2028`/`\u2029`. `s` must be UTF-8.
void AppendJsonString(std::string& out, std::string_view s);

/// Appends `["a","b"]`.
void AppendJsonStringArray(std::string& out, const std::vector<std::string>& values);

/// Appends a float64 as encoding/json formats it: shortest round-trip digits, plain notation for
/// 1e-6 <= |d| < 1e21 (`64`, `1.5`), exponent notation otherwise (`1e+21`, `1e-7`). NaN and
/// infinities (not representable in JSON) become `null`.
void AppendGoFloat(std::string& out, double d);

/// Appends `"key":` (the key escaped).
inline void AppendKey(std::string& out, std::string_view key) {
  AppendJsonString(out, key);
  out.push_back(':');
}

/// FNV-1a 64 of `data` as 16 upper-case hex digits: the cache-busting hash of OpenAPI URLs and
/// ETags (kube uses a SHA-512; any stable digest serves the same purpose).
std::string HexDigest(std::string_view data);

}  // namespace kube::apiserver::internal
