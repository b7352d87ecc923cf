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
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int DecodeChar(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

Error Illegal(std::size_t offset) {
  return BadRequest("illegal base64 data at input byte " + std::to_string(offset));
}

}  // namespace

Result<std::string> Base64Decode(std::string_view in) {
  std::string out;
  out.reserve(in.size() / 4 * 3);
  unsigned quad[4];
  int n = 0;       // characters collected in the current quantum
  int pad = 0;     // '=' seen in the current quantum
  std::size_t quantum_start = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '\r' || c == '\n') continue;
    if (n == 0) quantum_start = i;
    if (c == '=') {
      // Padding may only fill positions 3 and 4 of a quantum.
      if (n < 2) return Illegal(i);
      ++pad;
      quad[n++] = 0;
    } else {
      if (pad > 0) return Illegal(i);  // data after padding
      const int v = DecodeChar(c);
      if (v < 0) return Illegal(i);
      quad[n++] = static_cast<unsigned>(v);
    }
    if (n == 4) {
      const unsigned v = (quad[0] << 18) | (quad[1] << 12) | (quad[2] << 6) | quad[3];
      out.push_back(static_cast<char>((v >> 16) & 0xff));
      if (pad < 2) out.push_back(static_cast<char>((v >> 8) & 0xff));
      if (pad < 1) out.push_back(static_cast<char>(v & 0xff));
      if (pad > 0) {
        // Nothing but line breaks may follow the padding.
        for (std::size_t j = i + 1; j < in.size(); ++j) {
          if (in[j] != '\r' && in[j] != '\n') return Illegal(j);
        }
        return out;
      }
      n = 0;
    }
  }
  if (n != 0) return Illegal(quantum_start);  // an unfinished quantum
  return out;
}

std::string Base64Encode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(in[i]) << 16) |
                       (static_cast<unsigned char>(in[i + 1]) << 8) |
                       static_cast<unsigned char>(in[i + 2]);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back(kAlphabet[v & 63]);
  }
  const std::size_t rest = in.size() - i;
  if (rest > 0) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (rest == 2) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(rest == 2 ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

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
