#include "client/internal/pem.hpp"

#include <memory>
#include <string>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

namespace kube::client::internal {
namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

BioPtr MemBio(std::string_view data) {
  return BioPtr(BIO_new_mem_buf(data.data(), static_cast<int>(data.size())));
}

std::string LastSslError() {
  const unsigned long code = ERR_peek_last_error();
  ERR_clear_error();
  if (code == 0) return "unknown error";
  const char* reason = ERR_reason_error_string(code);
  return reason != nullptr ? std::string(reason) : "error " + std::to_string(code);
}

}  // namespace

Result<int> CheckCertificatesPem(std::string_view pem) {
  if (pem.find("-----BEGIN") == std::string_view::npos) {
    return BadRequest("no PEM certificate found");
  }
  BioPtr bio = MemBio(pem);
  int count = 0;
  ERR_clear_error();
  for (;;) {
    X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (!cert) break;
    ++count;
  }
  const unsigned long err = ERR_peek_last_error();
  // Running out of PEM blocks is the normal end; anything else is a malformed block.
  if (err != 0 && !(ERR_GET_LIB(err) == ERR_LIB_PEM && ERR_GET_REASON(err) == PEM_R_NO_START_LINE)) {
    return BadRequest("invalid PEM certificate: " + LastSslError());
  }
  ERR_clear_error();
  if (count == 0) return BadRequest("no PEM certificate found");
  return count;
}

Result<void> CheckPrivateKeyPem(std::string_view pem) {
  if (pem.find("-----BEGIN") == std::string_view::npos) return BadRequest("no PEM private key found");
  BioPtr bio = MemBio(pem);
  ERR_clear_error();
  PkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) return BadRequest("invalid PEM private key: " + LastSslError());
  return Ok();
}

Result<void> CheckKeyPair(std::string_view cert_pem, std::string_view key_pem) {
  KUBE_RETURN_IF_ERROR(CheckCertificatesPem(cert_pem));
  KUBE_RETURN_IF_ERROR(CheckPrivateKeyPem(key_pem));
  BioPtr cbio = MemBio(cert_pem);
  X509Ptr cert(PEM_read_bio_X509(cbio.get(), nullptr, nullptr, nullptr));
  BioPtr kbio = MemBio(key_pem);
  PkeyPtr key(PEM_read_bio_PrivateKey(kbio.get(), nullptr, nullptr, nullptr));
  ERR_clear_error();
  if (!cert || !key || X509_check_private_key(cert.get(), key.get()) != 1) {
    ERR_clear_error();
    return BadRequest("private key does not match public key");
  }
  return Ok();
}

}  // namespace kube::client::internal
