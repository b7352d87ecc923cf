#include <kube/base/base64.hpp>

namespace kube {
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

}  // namespace kube
