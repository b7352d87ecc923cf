#include "client/internal/util.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace kube::client::internal {

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    if (err == ENOENT) {
      return MakeError(404, reason::kNotFound, "open " + path + ": no such file or directory");
    }
    return BadRequest("open " + path + ": " + std::strerror(err));
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return BadRequest("read " + path + ": is a directory");
  }
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return BadRequest("read " + path + ": " + std::strerror(errno));
  return data;
}

std::string_view TrimSpace(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

std::string MediaType(std::string_view content_type) {
  return ToLower(TrimSpace(content_type.substr(0, content_type.find(';'))));
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\x";
          out += kHex[(c >> 4) & 0xf];
          out += kHex[c & 0xf];
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string JoinErrors(const std::vector<std::string>& messages) {
  if (messages.size() == 1) return messages.front();
  std::string out = "[";
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (i > 0) out += ", ";
    out += messages[i];
  }
  out += "]";
  return out;
}

std::string DirName(std::string_view path) {
  const auto slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string ResolvePath(std::string_view path, std::string_view base_dir) {
  if (path.empty() || path.front() == '/') return std::string(path);
  std::string dir(base_dir);
  if (dir.empty() || dir == ".") {
    char buf[4096];
    if (::getcwd(buf, sizeof buf) != nullptr) dir = buf;
  } else if (dir.front() != '/') {
    char buf[4096];
    if (::getcwd(buf, sizeof buf) != nullptr) dir = std::string(buf) + "/" + dir;
  }
  if (!dir.empty() && dir.back() != '/') dir += '/';
  return dir + std::string(path);
}

bool IsIpLiteral(std::string_view s) {
  const std::string str(s);
  unsigned char buf[16];
  return ::inet_pton(AF_INET, str.c_str(), buf) == 1 || ::inet_pton(AF_INET6, str.c_str(), buf) == 1;
}

}  // namespace kube::client::internal
