// EnsureToken and WriteKubeconfig: the client credentials generated into the data dir.

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <cctype>

#include <fmt/format.h>

#include <kube/apiserver/http_server.hpp>

#include "apiserver/http/file_util.hpp"

namespace kube::apiserver {
namespace {

std::string Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

/// A YAML double-quoted scalar (a JSON string is one), so that any value round-trips.
std::string YamlQuote(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\x{:02x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
  return out;
}

std::string Base64(std::string_view data) {
  std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(data.data()),
                                static_cast<int>(data.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

}  // namespace

Result<std::string> EnsureToken(const std::string& dir) {
  const std::string path = dir + "/token";
  auto existing = internal::ReadFile(path);
  if (existing.ok()) {
    std::string token = Trim(*existing);
    if (!token.empty()) return token;
  } else if (!IsNotFound(existing.error())) {
    return std::move(existing).error();
  }
  unsigned char raw[32];
  if (RAND_bytes(raw, sizeof raw) != 1) return InternalError("generate token: RAND_bytes failed");
  std::string token;
  for (const unsigned char b : raw) token += fmt::format("{:02x}", b);
  KUBE_RETURN_IF_ERROR(internal::MakeDirs(dir, 0700));
  KUBE_RETURN_IF_ERROR(internal::WriteFileAtomic(path, token + "\n", 0600));
  return token;
}

Result<void> WriteKubeconfig(const std::string& path, const std::string& server_url,
                             const std::string& ca_file, const std::string& token) {
  std::string cluster = fmt::format("    server: {}\n", YamlQuote(server_url));
  if (!ca_file.empty()) {
    auto ca = internal::ReadFile(ca_file);
    if (!ca.ok()) return InternalError(ca.error().message);
    cluster += fmt::format("    certificate-authority-data: {}\n", Base64(*ca));
  }
  const std::string user =
      token.empty() ? std::string("  user: {}\n")
                    : fmt::format("  user:\n    token: {}\n", YamlQuote(token));
  const std::string yaml = fmt::format(
      "apiVersion: v1\n"
      "kind: Config\n"
      "clusters:\n"
      "- name: kubecpp\n"
      "  cluster:\n"
      "{}"
      "users:\n"
      "- name: admin\n"
      "{}"
      "contexts:\n"
      "- name: kubecpp\n"
      "  context:\n"
      "    cluster: kubecpp\n"
      "    user: admin\n"
      "current-context: kubecpp\n"
      "preferences: {{}}\n",
      cluster, user);
  return internal::WriteFileAtomic(path, yaml, 0600);
}

}  // namespace kube::apiserver
