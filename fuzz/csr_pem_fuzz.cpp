// Fuzzes the PEM and X.509 readers behind CertificateSigningRequest validation, which take
// `spec.request` and `status.certificate` from clients: DecodePem, CertificateRequestError and
// CertificateError on the input, and on the input wrapped in PEM armour. Properties checked
// beyond "no crash":
//  - DecodePem's `rest` is a suffix of the input, and a block's type is what its BEGIN line names;
//  - random bytes are never a valid, self-signed certificate request.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "apiserver/rest/csr.hpp"

namespace {

namespace rest = kube::apiserver::rest;

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string_view rest_of_input;
  if (auto block = rest::DecodePem(input, &rest_of_input)) {
    Check(rest_of_input.size() <= input.size());
    Check(input.substr(input.size() - rest_of_input.size()) == rest_of_input);
    Check(input.find("-----BEGIN " + block->type + "-----") != std::string_view::npos);
  }
  (void)rest::CertificateError(input);
  (void)rest::CertificateRequestError(input);
  // The input as the DER body of a PEM block: OpenSSL's parsers see arbitrary bytes.
  static constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string b64;
  for (std::size_t i = 0; i < size; i += 3) {
    const unsigned n = (static_cast<unsigned>(data[i]) << 16) |
                       (i + 1 < size ? static_cast<unsigned>(data[i + 1]) << 8 : 0u) |
                       (i + 2 < size ? static_cast<unsigned>(data[i + 2]) : 0u);
    b64 += kB64[(n >> 18) & 63];
    b64 += kB64[(n >> 12) & 63];
    b64 += i + 1 < size ? kB64[(n >> 6) & 63] : '=';
    b64 += i + 2 < size ? kB64[n & 63] : '=';
  }
  const std::string request = "-----BEGIN CERTIFICATE REQUEST-----\n" + b64 + "\n-----END CERTIFICATE REQUEST-----\n";
  if (size < 64) Check(!rest::CertificateRequestError(request).empty());  // too short to be a signed request
  const std::string certificate = "-----BEGIN CERTIFICATE-----\n" + b64 + "\n-----END CERTIFICATE-----\n";
  (void)rest::CertificateError(certificate);
  return 0;
}
