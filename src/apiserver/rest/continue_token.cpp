#include "apiserver/rest/go_json.hpp"
#include "apiserver/rest/continue_token.hpp"

#include <array>
#include <cassert>
#include <vector>

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/status.hpp>

namespace kube::apiserver::rest {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr std::string_view kTokenVersion = "meta.k8s.io/v1";
constexpr std::string_view kNotValid = "continue key is not valid";

int DecodeChar(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

Error Invalid(std::string detail) {
  return NewBadRequest("invalid continue token: " + std::move(detail));
}

}  // namespace

std::string Base64RawUrlEncode(std::string_view data) {
  std::string out;
  out.reserve((data.size() * 4 + 2) / 3);
  std::size_t i = 0;
  for (; i + 3 <= data.size(); i += 3) {
    const uint32_t n = (static_cast<uint8_t>(data[i]) << 16) |
                       (static_cast<uint8_t>(data[i + 1]) << 8) | static_cast<uint8_t>(data[i + 2]);
    out.push_back(kAlphabet[(n >> 18) & 63]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out.push_back(kAlphabet[(n >> 6) & 63]);
    out.push_back(kAlphabet[n & 63]);
  }
  const std::size_t rest = data.size() - i;
  if (rest == 1) {
    const uint32_t n = static_cast<uint8_t>(data[i]) << 16;
    out.push_back(kAlphabet[(n >> 18) & 63]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
  } else if (rest == 2) {
    const uint32_t n = (static_cast<uint8_t>(data[i]) << 16) | (static_cast<uint8_t>(data[i + 1]) << 8);
    out.push_back(kAlphabet[(n >> 18) & 63]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out.push_back(kAlphabet[(n >> 6) & 63]);
  }
  return out;
}

bool Base64RawUrlDecode(std::string_view text, std::string& out) {
  out.clear();
  if (text.size() % 4 == 1) return false;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    const int v = DecodeChar(c);
    if (v < 0) return false;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return true;
}

std::string CleanPath(std::string_view path) {
  if (path.empty()) return ".";
  const bool rooted = path.front() == '/';
  std::vector<std::string_view> stack;
  std::size_t dotdots = 0;  // leading ".." elements kept in an unrooted path
  std::size_t i = 0;
  while (i < path.size()) {
    std::size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    const auto elem = path.substr(i, j - i);
    i = j + 1;
    if (elem.empty() || elem == ".") continue;
    if (elem == "..") {
      if (stack.size() > dotdots) {
        stack.pop_back();
      } else if (!rooted) {
        stack.push_back(elem);
        ++dotdots;
      }
      continue;
    }
    stack.push_back(elem);
  }
  std::string out = rooted ? "/" : "";
  for (std::size_t k = 0; k < stack.size(); ++k) {
    if (k > 0) out.push_back('/');
    out.append(stack[k]);
  }
  if (out.empty()) return ".";
  return out;
}

std::string EncodeContinue(std::string_view key, std::string_view prefix, int64_t revision) {
  assert(key.size() > prefix.size() && key.substr(0, prefix.size()) == prefix);
  std::string json = "{\"v\":";
  json += QuoteJson(kTokenVersion);
  json += ",\"rv\":";
  json += std::to_string(revision);
  json += ",\"start\":";
  json += QuoteJson(key.substr(prefix.size()));
  json += '}';
  return Base64RawUrlEncode(json);
}

Result<ContinuePosition> DecodeContinue(std::string_view token, std::string_view prefix) {
  std::string raw;
  if (!Base64RawUrlDecode(token, raw)) {
    std::size_t at = 0;
    while (at < token.size() && DecodeChar(token[at]) >= 0) ++at;
    if (at == token.size() && !token.empty()) at = token.size() - 1;
    return Invalid(std::string(kNotValid) + ": illegal base64 data at input byte " +
                   std::to_string(at));
  }
  auto parsed = ParseJson(raw);
  if (!parsed.ok()) {
    const std::string go = GoJsonSyntaxError(raw);
    return Invalid(std::string(kNotValid) + ": " + (go.empty() ? parsed.error().message : go));
  }
  if (!parsed->is_object()) {
    return Invalid(std::string(kNotValid) + ": json: cannot unmarshal " +
                   std::string(JsonTypeName(*parsed)) + " into Go value of type storage.continueToken");
  }
  const auto& obj = parsed->get_object();
  std::string version;
  int64_t rv = 0;
  std::string start;
  if (const auto* v = obj.if_contains("v"); v && !v->is_null()) {
    if (!v->is_string()) {
      return Invalid(std::string(kNotValid) + ": json: cannot unmarshal " +
                     std::string(JsonTypeName(*v)) + " into Go struct field continueToken.v of type string");
    }
    version = std::string(v->get_string());
  }
  if (const auto* v = obj.if_contains("rv"); v && !v->is_null()) {
    if (v->is_int64()) {
      rv = v->get_int64();
    } else {
      return Invalid(std::string(kNotValid) + ": json: cannot unmarshal " +
                     std::string(JsonTypeName(*v)) + " into Go struct field continueToken.rv of type int64");
    }
  }
  if (const auto* v = obj.if_contains("start"); v && !v->is_null()) {
    if (!v->is_string()) {
      return Invalid(std::string(kNotValid) + ": json: cannot unmarshal " +
                     std::string(JsonTypeName(*v)) +
                     " into Go struct field continueToken.start of type string");
    }
    start = std::string(v->get_string());
  }
  if (version != kTokenVersion) {
    return Invalid(std::string(kNotValid) + ": server does not recognize this encoded version " +
                   version);
  }
  if (rv == 0) {
    return Invalid(std::string(kNotValid) +
                   ": incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  }
  if (start.empty()) {
    return Invalid(std::string(kNotValid) + ": encoded start key empty (version meta.k8s.io/v1)");
  }
  std::string key = start.front() == '/' ? start : "/" + start;
  const std::string cleaned = CleanPath(key);
  // A trailing NUL (our "key after" marker) survives Clean; "/" alone would mean the prefix itself.
  if (cleaned != key || cleaned == "/") return Invalid(std::string(kNotValid) + ": " + start);
  return ContinuePosition{std::string(prefix) + cleaned.substr(1), rv};
}

}  // namespace kube::apiserver::rest
