// What Go's encoding/pem, encoding/asn1 and crypto/x509 say about a CertificateSigningRequest's
// request and certificate, for kube's validation messages. Parsing and signature checks use
// OpenSSL; the outer DER structure is checked first as Go's asn1.Unmarshal reads it, so that its
// messages are Go's.

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <kube/base/base64.hpp>
#include <memory>
#include <string>
#include <string_view>

#include "apiserver/rest/csr.hpp"

namespace kube::apiserver::rest {
namespace {

constexpr std::string_view kPemStart = "\n-----BEGIN ";
constexpr std::string_view kPemEnd = "\n-----END ";
constexpr std::string_view kPemEndOfLine = "-----";

std::string_view TrimRight(std::string_view s, std::string_view chars) {
  const auto end = s.find_last_not_of(chars);
  return end == std::string_view::npos ? std::string_view() : s.substr(0, end + 1);
}

std::string_view TrimSpace(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n\v\f";
  const auto start = s.find_first_not_of(kSpace);
  if (start == std::string_view::npos) return {};
  return TrimRight(s.substr(start), kSpace);
}

// Go's pem getLine: the line without its '\n' (and '\r'), trailing spaces and tabs removed.
std::pair<std::string_view, std::string_view> GetLine(std::string_view data) {
  auto i = data.find('\n');
  std::size_t j = 0;
  if (i == std::string_view::npos) {
    i = data.size();
    j = i;
  } else {
    j = i + 1;
    if (i > 0 && data[i - 1] == '\r') --i;
  }
  return {TrimRight(data.substr(0, i), " \t"), data.substr(j)};
}

template <auto Fn>
struct Free {
  template <class T>
  void operator()(T* p) const {
    Fn(p);
  }
};
using ReqPtr = std::unique_ptr<X509_REQ, Free<X509_REQ_free>>;
using CertPtr = std::unique_ptr<X509, Free<X509_free>>;

// asn1.Unmarshal's view of the outermost TLV, which must be a SEQUENCE spanning `der`: "" when it
// is, else Go's error for the first thing wrong with it.
std::string OuterSequenceError(std::string_view der, std::string_view type_name) {
  if (der.empty()) return "asn1: syntax error: sequence truncated";
  std::size_t offset = 0;
  const auto b = static_cast<unsigned char>(der[offset++]);
  const int klass = b >> 6;
  const bool compound = (b & 0x20) != 0;
  long long tag = b & 0x1f;
  if (tag == 0x1f) {
    tag = 0;
    for (int shifted = 0;; ++shifted) {
      if (offset >= der.size()) return "asn1: syntax error: truncated base 128 integer";
      if (shifted == 5) return "asn1: structure error: base 128 integer too large";
      const auto c = static_cast<unsigned char>(der[offset++]);
      if (shifted == 0 && c == 0x80) return "asn1: syntax error: integer is not minimally encoded";
      tag = (tag << 7) | (c & 0x7f);
      if ((c & 0x80) == 0) break;
    }
    if (tag > 0x7fffffff) return "asn1: structure error: base 128 integer too large";
    if (tag < 0x1f) return "asn1: syntax error: non-minimal tag";
  }
  if (offset >= der.size()) return "asn1: syntax error: truncated tag or length";
  const auto l = static_cast<unsigned char>(der[offset++]);
  std::size_t length = 0;
  if ((l & 0x80) == 0) {
    length = l & 0x7f;
  } else {
    const int count = l & 0x7f;
    if (count == 0) return "asn1: syntax error: indefinite length found (not DER)";
    for (int i = 0; i < count; ++i) {
      if (offset >= der.size()) return "asn1: syntax error: truncated tag or length";
      if (length >= (std::size_t{1} << 23)) return "asn1: structure error: length too large";
      length = (length << 8) | static_cast<unsigned char>(der[offset++]);
      if (length == 0) return "asn1: structure error: superfluous leading zeros in length";
    }
    if (length < 0x80) return "asn1: structure error: non-minimal length";
  }
  if (klass != 0 || tag != 16 || !compound) {
    return "asn1: structure error: tags don't match (16 vs {class:" + std::to_string(klass) +
           " tag:" + std::to_string(tag) + " length:" + std::to_string(length) +
           " isCompound:" + (compound ? "true" : "false") +
           "}) {optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> "
           "stringType:0 timeType:0 set:false omitEmpty:false} " +
           std::string(type_name) + " @" + std::to_string(offset);
  }
  if (offset + length > der.size()) return "asn1: syntax error: data truncated";
  if (offset + length < der.size()) return "asn1: syntax error: trailing data";
  return "";
}

}  // namespace

std::optional<PemBlock> DecodePem(std::string_view data, std::string_view* rest_out) {
  std::string_view rest = data;
  for (;;) {
    if (rest.starts_with(kPemStart.substr(1))) {
      rest.remove_prefix(kPemStart.size() - 1);
    } else if (const auto at = rest.find(kPemStart); at != std::string_view::npos) {
      rest.remove_prefix(at + kPemStart.size());
    } else {
      if (rest_out != nullptr) *rest_out = data;
      return std::nullopt;
    }
    auto [type_line, after_type] = GetLine(rest);
    rest = after_type;
    if (!type_line.ends_with(kPemEndOfLine)) continue;
    type_line.remove_suffix(kPemEndOfLine.size());

    PemBlock block;
    block.type = std::string(type_line);
    bool truncated = false;
    for (;;) {
      if (rest.empty()) {
        truncated = true;
        break;
      }
      auto [line, next] = GetLine(rest);
      const auto colon = line.find(':');
      if (colon == std::string_view::npos) break;
      block.headers[std::string(TrimSpace(line.substr(0, colon)))] = std::string(TrimSpace(line.substr(colon + 1)));
      rest = next;
    }
    if (truncated) {
      if (rest_out != nullptr) *rest_out = data;
      return std::nullopt;
    }
    std::size_t end_index = 0;
    std::size_t end_trailer_index = 0;
    if (block.headers.empty() && rest.starts_with(kPemEnd.substr(1))) {
      end_trailer_index = kPemEnd.size() - 1;
    } else {
      end_index = rest.find(kPemEnd);
      if (end_index == std::string_view::npos) continue;
      end_trailer_index = end_index + kPemEnd.size();
    }
    std::string_view end_trailer = rest.substr(end_trailer_index);
    const std::size_t end_trailer_len = type_line.size() + kPemEndOfLine.size();
    if (end_trailer.size() < end_trailer_len) continue;
    const std::string_view rest_of_end_line = end_trailer.substr(end_trailer_len);
    end_trailer = end_trailer.substr(0, end_trailer_len);
    if (!end_trailer.starts_with(type_line) || !end_trailer.ends_with(kPemEndOfLine)) continue;
    if (!GetLine(rest_of_end_line).first.empty()) continue;

    std::string base64;
    for (char c : rest.substr(0, end_index)) {
      if (c != ' ' && c != '\t') base64.push_back(c);
    }
    auto decoded = Base64Decode(base64);
    if (!decoded.ok()) continue;
    block.bytes = std::move(*decoded);
    if (rest_out != nullptr) *rest_out = GetLine(rest.substr(end_index + kPemEnd.size() - 1)).second;
    return block;
  }
}

std::string CertificateRequestError(std::string_view pem) {
  const auto block = DecodePem(pem);
  if (!block || block->type != "CERTIFICATE REQUEST") return "PEM block type must be CERTIFICATE REQUEST";
  if (std::string outer = OuterSequenceError(block->bytes, "certificateRequest"); !outer.empty()) return outer;
  const auto* der = reinterpret_cast<const unsigned char*>(block->bytes.data());
  ReqPtr req(d2i_X509_REQ(nullptr, &der, static_cast<long>(block->bytes.size())));
  if (req == nullptr) return "x509: malformed certificate request";
  EVP_PKEY* key = X509_REQ_get0_pubkey(req.get());
  if (key == nullptr) return "x509: cannot verify signature: algorithm unimplemented";
  if (X509_REQ_verify(req.get(), key) == 1) return "";
  switch (EVP_PKEY_base_id(key)) {
    case EVP_PKEY_RSA:
    case EVP_PKEY_RSA_PSS:
      return "crypto/rsa: verification error";
    case EVP_PKEY_EC:
      return "x509: ECDSA verification failure";
    case EVP_PKEY_ED25519:
      return "x509: Ed25519 verification failure";
    default:
      return "x509: cannot verify signature: algorithm unimplemented";
  }
}

std::string CertificateError(std::string_view pem) {
  if (pem.empty()) return "";
  int blocks = 0;
  std::string_view rest = pem;
  while (auto block = DecodePem(rest, &rest)) {
    if (block->type != "CERTIFICATE") return "only CERTIFICATE PEM blocks are allowed, found \"" + block->type + "\"";
    if (!block->headers.empty()) return "no PEM block headers are permitted";
    ++blocks;
    // x509.ParseCertificates: DER certificates back to back.
    std::string_view der = block->bytes;
    int certificates = 0;
    while (!der.empty()) {
      const auto* p = reinterpret_cast<const unsigned char*>(der.data());
      CertPtr cert(d2i_X509(nullptr, &p, static_cast<long>(der.size())));
      if (cert == nullptr) return "x509: malformed certificate";
      der.remove_prefix(static_cast<std::size_t>(p - reinterpret_cast<const unsigned char*>(der.data())));
      ++certificates;
    }
    if (certificates == 0) return "found CERTIFICATE PEM block containing 0 certificates";
  }
  if (blocks == 0) return "must contain at least one CERTIFICATE PEM block";
  return "";
}

}  // namespace kube::apiserver::rest
