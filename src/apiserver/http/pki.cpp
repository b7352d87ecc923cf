// EnsurePki (a self-signed CA and a serving certificate), IssueCertificate and GenerateKeyPair,
// with the OpenSSL 3 C API.

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <unistd.h>

#include <ctime>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <kube/apiserver/http_server.hpp>
#include <kube/base/log.hpp>

#include "apiserver/http/file_util.hpp"

namespace kube::apiserver {
namespace {

template <auto Fn>
struct Free {
  template <class T>
  void operator()(T* p) const {
    Fn(p);
  }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, Free<EVP_PKEY_free>>;
using X509Ptr = std::unique_ptr<X509, Free<X509_free>>;
using BioPtr = std::unique_ptr<BIO, Free<BIO_free_all>>;
using BignumPtr = std::unique_ptr<BIGNUM, Free<BN_free>>;
using ExtensionPtr = std::unique_ptr<X509_EXTENSION, Free<X509_EXTENSION_free>>;

constexpr int kValidityDays = 3650;
/// A serving certificate closer than this to its expiry is reissued (with the same CA).
constexpr long kRenewBeforeSeconds = 30L * 24 * 3600;

/// Drains OpenSSL's thread-local error queue into one line.
std::string OpenSslErrors() {
  std::string out;
  while (const unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

Error SslError(std::string_view what) {
  return InternalError(fmt::format("{}: {}", what, OpenSslErrors()));
}

bool FileExists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

Result<PkeyPtr> NewKey() {
  // EVP_PKEY_Q_keygen is variadic and reads the curve name as `char*`.
  PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", const_cast<char*>("P-256")));
  if (!key) return SslError("generate EC P-256 key");
  return key;
}

using Extensions = std::vector<std::pair<int, std::string>>;

/// The extensions of a certificate for `usage` (as CertificateSpec::Usage documents).
Extensions ExtensionsFor(CertificateSpec::Usage usage, const std::string& subject_alt_names) {
  using Usage = CertificateSpec::Usage;
  Extensions out;
  switch (usage) {
    case Usage::kCa:
      out = {{NID_basic_constraints, "critical,CA:TRUE"},
             {NID_key_usage, "critical,digitalSignature,keyCertSign,cRLSign"}};
      break;
    case Usage::kServer:
      out = {{NID_basic_constraints, "critical,CA:FALSE"},
             {NID_key_usage, "critical,digitalSignature"},
             {NID_ext_key_usage, "serverAuth"}};
      break;
    case Usage::kClient:
      out = {{NID_basic_constraints, "critical,CA:FALSE"},
             {NID_key_usage, "critical,digitalSignature"},
             {NID_ext_key_usage, "clientAuth"}};
      break;
  }
  if (!subject_alt_names.empty()) out.emplace_back(NID_subject_alt_name, subject_alt_names);
  out.emplace_back(NID_subject_key_identifier, "hash");
  out.emplace_back(NID_authority_key_identifier, "keyid:always");
  return out;
}

/// Issues a v3 certificate for `key` named O=`organizations`..., CN=`common_name`, signed by
/// `issuer`/`issuer_key` (self-signed when `issuer` is null), with `extensions` as (NID,
/// OpenSSL config value), valid for `validity_days`.
Result<X509Ptr> IssueCert(std::string_view common_name, const std::vector<std::string>& organizations,
                          EVP_PKEY* key, X509* issuer, EVP_PKEY* issuer_key, const Extensions& extensions,
                          int validity_days = kValidityDays) {
  X509Ptr cert(X509_new());
  if (!cert) return SslError("allocate certificate");
  X509* x = cert.get();
  // A random positive 127-bit serial (Go rejects negative serials).
  BignumPtr serial(BN_new());
  if (!serial || BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1 ||
      BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(x)) == nullptr) {
    return SslError("certificate serial");
  }
  const std::string cn(common_name);
  X509_NAME* name = X509_get_subject_name(x);
  if (X509_set_version(x, X509_VERSION_3) != 1 ||
      // an hour of slack for clocks that are a little behind ours
      X509_gmtime_adj(X509_getm_notBefore(x), -3600) == nullptr ||
      X509_time_adj_ex(X509_getm_notAfter(x), validity_days, 0, nullptr) == nullptr ||
      X509_set_pubkey(x, key) != 1) {
    return SslError("fill certificate");
  }
  for (const std::string& o : organizations) {
    if (X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(o.c_str()),
                                   -1, -1, 0) != 1) {
      return SslError("fill certificate subject O=" + o);
    }
  }
  if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1,
                                 0) != 1 ||
      X509_set_issuer_name(x, issuer != nullptr ? X509_get_subject_name(issuer) : name) != 1) {
    return SslError("fill certificate");
  }
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer != nullptr ? issuer : x, x, nullptr, nullptr, 0);
  if (issuer == nullptr && X509V3_set_issuer_pkey(&ctx, key) != 1) {
    return SslError("certificate extension context");
  }
  for (const auto& [nid, value] : extensions) {
    ExtensionPtr ext(X509V3_EXT_nconf_nid(nullptr, &ctx, nid, value.c_str()));
    if (!ext || X509_add_ext(x, ext.get(), -1) != 1) {
      return SslError(fmt::format("certificate extension {}={}", OBJ_nid2sn(nid), value));
    }
  }
  if (X509_sign(x, issuer_key, EVP_sha256()) == 0) return SslError("sign certificate");
  return cert;
}

Result<std::string> BioContents(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  if (n < 0) return SslError("read memory BIO");
  return std::string(data, static_cast<std::size_t>(n));
}

Result<std::string> CertPem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) return SslError("encode certificate");
  return BioContents(bio.get());
}

Result<std::string> KeyPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio ||
      PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return SslError("encode private key");
  }
  return BioContents(bio.get());
}

Result<X509Ptr> ParseCert(const std::string& pem, std::string_view what) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  X509Ptr cert(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!cert) return SslError(fmt::format("load certificate {}", what));
  return cert;
}

Result<PkeyPtr> ParseKey(const std::string& pem, std::string_view what) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  PkeyPtr key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!key) return SslError(fmt::format("load private key {}", what));
  return key;
}

Result<X509Ptr> LoadCert(const std::string& path) {
  auto pem = internal::ReadFile(path);
  if (!pem.ok()) return std::move(pem).error();
  return ParseCert(*pem, path);
}

Result<PkeyPtr> LoadKey(const std::string& path) {
  auto pem = internal::ReadFile(path);
  if (!pem.ok()) return std::move(pem).error();
  return ParseKey(*pem, path);
}

/// Writes the key (0600) before the certificate (0644): a crash in between leaves a pair that
/// does not match, which the next call detects and replaces.
Result<void> WritePair(const std::string& cert_file, X509* cert, const std::string& key_file,
                       EVP_PKEY* key) {
  auto key_pem = KeyPem(key);
  if (!key_pem.ok()) return std::move(key_pem).error();
  auto cert_pem = CertPem(cert);
  if (!cert_pem.ok()) return std::move(cert_pem).error();
  KUBE_RETURN_IF_ERROR(internal::WriteFileAtomic(key_file, *key_pem, 0600));
  return internal::WriteFileAtomic(cert_file, *cert_pem, 0644);
}

struct LoadedCa {
  X509Ptr cert;
  PkeyPtr key;
};

/// Loads the CA, or creates it when `ca.crt` does not exist. A CA that exists but does not load,
/// does not match its key or has expired is an error: replacing it silently would invalidate
/// every kubeconfig that embeds it.
Result<LoadedCa> EnsureCa(const std::string& cert_file, const std::string& key_file,
                          bool& created) {
  created = false;
  if (FileExists(cert_file)) {
    auto cert = LoadCert(cert_file);
    if (!cert.ok()) return std::move(cert).error();
    auto key = LoadKey(key_file);
    if (!key.ok()) return std::move(key).error();
    if (X509_check_private_key(cert->get(), key->get()) != 1) {
      return InternalError(fmt::format("{} does not match {} (delete both to regenerate): {}",
                                       key_file, cert_file, OpenSslErrors()));
    }
    if (X509_cmp_current_time(X509_get0_notAfter(cert->get())) <= 0) {
      return InternalError(
          fmt::format("CA certificate {} has expired (delete the pki directory to regenerate)",
                      cert_file));
    }
    return LoadedCa{std::move(cert).value(), std::move(key).value()};
  }
  auto key = NewKey();
  if (!key.ok()) return std::move(key).error();
  auto cert = IssueCert("kubecpp-ca", {"kubecpp"}, key->get(), nullptr, key->get(),
                        ExtensionsFor(CertificateSpec::Usage::kCa, ""));
  if (!cert.ok()) return std::move(cert).error();
  KUBE_RETURN_IF_ERROR(WritePair(cert_file, cert->get(), key_file, key->get()));
  created = true;
  log::Info("generated CA certificate", {{"file", cert_file}});
  return LoadedCa{std::move(cert).value(), std::move(key).value()};
}

/// Why the serving pair cannot be used, or "" when it loads, matches, is signed by `ca` and
/// is not about to expire.
std::string ServingPairProblem(const std::string& cert_file, const std::string& key_file,
                               X509* ca) {
  if (!FileExists(cert_file)) return "missing";
  auto cert = LoadCert(cert_file);
  if (!cert.ok()) return cert.error().message;
  auto key = LoadKey(key_file);
  if (!key.ok()) return key.error().message;
  if (X509_check_private_key(cert->get(), key->get()) != 1) return "key does not match";
  EVP_PKEY* ca_key = X509_get0_pubkey(ca);
  if (ca_key == nullptr || X509_verify(cert->get(), ca_key) != 1) return "not signed by the CA";
  std::time_t renew_at = std::time(nullptr) + kRenewBeforeSeconds;
  if (X509_cmp_time(X509_get0_notAfter(cert->get()), &renew_at) <= 0) return "expiring";
  return "";
}

}  // namespace

Result<GeneratedPki> EnsurePki(const std::string& dir) {
  const std::string pki = dir + "/pki";
  KUBE_RETURN_IF_ERROR(internal::MakeDirs(pki, 0700));
  GeneratedPki out{.ca_file = pki + "/ca.crt",
                   .cert_file = pki + "/server.crt",
                   .key_file = pki + "/server.key"};
  const std::string ca_key_file = pki + "/ca.key";
  ERR_clear_error();

  bool ca_created = false;
  auto ca = EnsureCa(out.ca_file, ca_key_file, ca_created);
  if (!ca.ok()) return std::move(ca).error();
  if (!ca_created) {
    const std::string problem = ServingPairProblem(out.cert_file, out.key_file, ca->cert.get());
    if (problem.empty()) return out;
    ERR_clear_error();
    log::Info("reissuing the serving certificate", {{"file", out.cert_file}, {"reason", problem}});
  }

  auto key = NewKey();
  if (!key.ok()) return std::move(key).error();
  auto cert = IssueCert("kubecpp-apiserver", {"kubecpp"}, key->get(), ca->cert.get(), ca->key.get(),
                        ExtensionsFor(CertificateSpec::Usage::kServer, "DNS:localhost,IP:127.0.0.1,IP:::1"));
  if (!cert.ok()) return std::move(cert).error();
  KUBE_RETURN_IF_ERROR(WritePair(out.cert_file, cert->get(), out.key_file, key->get()));
  log::Info("generated serving certificate", {{"file", out.cert_file}});
  return out;
}

Result<CertificateAndKey> IssueCertificate(const CertificateSpec& spec, const CertificateAndKey* issuer) {
  ERR_clear_error();
  X509Ptr issuer_cert;
  PkeyPtr issuer_key;
  if (issuer != nullptr) {
    auto cert = ParseCert(issuer->cert_pem, "of the issuer");
    if (!cert.ok()) return std::move(cert).error();
    auto key = ParseKey(issuer->key_pem, "of the issuer");
    if (!key.ok()) return std::move(key).error();
    issuer_cert = std::move(cert).value();
    issuer_key = std::move(key).value();
  }
  auto key = NewKey();
  if (!key.ok()) return std::move(key).error();
  auto cert = IssueCert(spec.common_name, spec.organizations, key->get(), issuer_cert.get(),
                        issuer != nullptr ? issuer_key.get() : key->get(),
                        ExtensionsFor(spec.usage, spec.subject_alt_names), spec.validity_days);
  if (!cert.ok()) return std::move(cert).error();
  auto cert_pem = CertPem(cert->get());
  if (!cert_pem.ok()) return std::move(cert_pem).error();
  auto key_pem = KeyPem(key->get());
  if (!key_pem.ok()) return std::move(key_pem).error();
  return CertificateAndKey{.cert_pem = std::move(cert_pem).value(), .key_pem = std::move(key_pem).value()};
}

Result<KeyPairPem> GenerateKeyPair() {
  ERR_clear_error();
  auto key = NewKey();
  if (!key.ok()) return std::move(key).error();
  auto private_pem = KeyPem(key->get());
  if (!private_pem.ok()) return std::move(private_pem).error();
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PUBKEY(bio.get(), key->get()) != 1) return SslError("encode public key");
  auto public_pem = BioContents(bio.get());
  if (!public_pem.ok()) return std::move(public_pem).error();
  return KeyPairPem{.private_key_pem = std::move(private_pem).value(), .public_key_pem = std::move(public_pem).value()};
}

}  // namespace kube::apiserver
