// Service-account tokens: claims, RS256 signing and verification, key management and the
// issuer's discovery documents, with the OpenSSL 3 EVP API.

#include "apiserver/rest/service_account_token.hpp"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <utility>

#include <boost/json.hpp>

#include <kube/base/log.hpp>
#include <kube/core/json.hpp>
#include <kube/core/status.hpp>

#include "apiserver/http/file_util.hpp"
#include "apiserver/rest/continue_token.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

template <auto Fn>
struct Free {
  template <class T>
  void operator()(T* p) const {
    Fn(p);
  }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, Free<EVP_PKEY_free>>;
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, Free<EVP_PKEY_CTX_free>>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, Free<EVP_MD_CTX_free>>;
using BioPtr = std::unique_ptr<BIO, Free<BIO_free_all>>;
using BignumPtr = std::unique_ptr<BIGNUM, Free<BN_free>>;
using ParamBldPtr = std::unique_ptr<OSSL_PARAM_BLD, Free<OSSL_PARAM_BLD_free>>;
using ParamPtr = std::unique_ptr<OSSL_PARAM, Free<OSSL_PARAM_free>>;

constexpr std::string_view kAlgorithm = "RS256";
constexpr int kGeneratedKeyBits = 2048;
/// go-jose's DefaultLeeway, which kube's service-account validator uses for exp, nbf and iat.
constexpr std::chrono::seconds kLeeway{60};

// Drains OpenSSL's thread-local error queue into one line.
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

Error SslError(std::string_view what) { return InternalError(std::string(what) + ": " + OpenSslErrors()); }

Error Malformed(std::string_view why) { return NewUnauthorized("invalid token: " + std::string(why)); }

std::string_view AsView(const unsigned char* data, std::size_t n) {
  return {reinterpret_cast<const char*>(data), n};
}

// The big-endian bytes of an RSA parameter (n or e) of `key`.
Result<std::string> RsaParam(EVP_PKEY* key, const char* name) {
  BIGNUM* raw = nullptr;
  if (EVP_PKEY_get_bn_param(key, name, &raw) != 1) return SslError("read RSA key parameter");
  BignumPtr bn(raw);
  std::string out(static_cast<std::size_t>(BN_num_bytes(bn.get())), '\0');
  BN_bn2bin(bn.get(), reinterpret_cast<unsigned char*>(out.data()));
  return out;
}

// kube's keyIDFromPublicKey: base64url(SHA-256(PKIX DER of the public key)).
Result<std::string> KeyIdOf(EVP_PKEY* key) {
  unsigned char* der = nullptr;
  const int n = i2d_PUBKEY(key, &der);
  if (n <= 0) return SslError("encode public key");
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_len = 0;
  const int ok = EVP_Digest(der, static_cast<std::size_t>(n), digest, &digest_len, EVP_sha256(), nullptr);
  OPENSSL_free(der);
  if (ok != 1) return SslError("hash public key");
  return Base64RawUrlEncode(AsView(digest, digest_len));
}

// An RSA public key from its big-endian modulus and exponent.
Result<PkeyPtr> RsaPublicKey(std::string_view n, std::string_view e) {
  BignumPtr bn_n(BN_bin2bn(reinterpret_cast<const unsigned char*>(n.data()), static_cast<int>(n.size()), nullptr));
  BignumPtr bn_e(BN_bin2bn(reinterpret_cast<const unsigned char*>(e.data()), static_cast<int>(e.size()), nullptr));
  ParamBldPtr bld(OSSL_PARAM_BLD_new());
  if (!bn_n || !bn_e || !bld || OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get()) != 1) {
    return SslError("build RSA public key");
  }
  ParamPtr params(OSSL_PARAM_BLD_to_param(bld.get()));
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr));
  EVP_PKEY* raw = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    return SslError("build RSA public key");
  }
  return PkeyPtr(raw);
}

Result<PkeyPtr> ParsePrivateKey(std::string_view pem, std::string_view what) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  PkeyPtr key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!key) return SslError("load service account signing key " + std::string(what));
  if (EVP_PKEY_get_base_id(key.get()) != EVP_PKEY_RSA) {
    return InternalError("service account signing key " + std::string(what) + " is not an RSA key");
  }
  return key;
}

Result<std::string> PrivateKeyPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return SslError("encode service account signing key");
  }
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  if (n < 0) return SslError("encode service account signing key");
  return std::string(data, static_cast<std::size_t>(n));
}

Result<PkeyPtr> GenerateRsaKey() {
  PkeyPtr key(EVP_RSA_gen(kGeneratedKeyBits));
  if (!key) return SslError("generate service account signing key");
  return key;
}

json::array StringArray(const std::vector<std::string>& values) {
  json::array out;
  for (const auto& v : values) out.emplace_back(v);
  return out;
}

json::object RefJson(const TokenObjectRef& ref) {
  json::object out;
  if (!ref.name.empty()) out["name"] = ref.name;
  if (!ref.uid.empty()) out["uid"] = ref.uid;
  return out;
}

int64_t Unix(std::chrono::sys_seconds t) { return t.time_since_epoch().count(); }

// Go's %q of a []string: `["a" "b"]`.
std::string GoQuotedList(const std::vector<std::string>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ' ';
    out += QuoteJson(values[i]);
  }
  return out + "]";
}

Result<std::string> SignRs256(EVP_PKEY* key, std::string_view data) {
  MdCtxPtr ctx(EVP_MD_CTX_new());
  std::size_t len = 0;
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &len, bytes, data.size()) != 1) {
    return SslError("sign service account token");
  }
  std::string sig(len, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len, bytes, data.size()) != 1) {
    return SslError("sign service account token");
  }
  sig.resize(len);
  return sig;
}

bool VerifyRs256(EVP_PKEY* key, std::string_view data, std::string_view sig) {
  MdCtxPtr ctx(EVP_MD_CTX_new());
  const bool ok = ctx && EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key) == 1 &&
                  EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
                                   reinterpret_cast<const unsigned char*>(data.data()), data.size()) == 1;
  ERR_clear_error();  // a bad signature leaves its reason on the queue
  return ok;
}

// Members of a parsed payload, with the type checks of Go's decoder.
Result<std::string> StringMember(const json::object& obj, std::string_view key) {
  const auto* v = obj.if_contains(key);
  if (v == nullptr || v->is_null()) return std::string();
  if (!v->is_string()) return Malformed("claim " + std::string(key) + " is not a string");
  return std::string(v->get_string());
}

Result<std::optional<std::chrono::sys_seconds>> DateMember(const json::object& obj, std::string_view key) {
  const auto* v = obj.if_contains(key);
  if (v == nullptr || v->is_null()) return std::optional<std::chrono::sys_seconds>();
  if (v->is_int64()) return std::optional(std::chrono::sys_seconds(std::chrono::seconds(v->get_int64())));
  if (v->is_uint64()) {
    return std::optional(std::chrono::sys_seconds(std::chrono::seconds(static_cast<int64_t>(v->get_uint64()))));
  }
  if (v->is_double()) {
    return std::optional(std::chrono::sys_seconds(std::chrono::seconds(static_cast<int64_t>(v->get_double()))));
  }
  return Malformed("claim " + std::string(key) + " is not a number");
}

Result<std::optional<TokenObjectRef>> RefMember(const json::object& obj, std::string_view key) {
  const auto* v = obj.if_contains(key);
  if (v == nullptr || v->is_null()) return std::optional<TokenObjectRef>();
  if (!v->is_object()) return Malformed("claim kubernetes.io." + std::string(key) + " is not an object");
  auto name = StringMember(v->get_object(), "name");
  if (!name.ok()) return std::move(name).error();
  auto uid = StringMember(v->get_object(), "uid");
  if (!uid.ok()) return std::move(uid).error();
  return std::optional(TokenObjectRef{std::move(*name), std::move(*uid)});
}

std::optional<std::string> DecodeSegment(std::string_view segment) {
  std::string out;
  if (!Base64RawUrlDecode(segment, out)) return std::nullopt;
  return out;
}

}  // namespace

// ---- claims ----

std::string ServiceAccountUsername(std::string_view ns, std::string_view name) {
  return "system:serviceaccount:" + std::string(ns) + ":" + std::string(name);
}

std::string ClaimsPayloadJson(const ServiceAccountTokenClaims& c) {
  json::object k8s;
  if (!c.ns.empty()) k8s["namespace"] = c.ns;
  if (c.node) k8s["node"] = RefJson(*c.node);
  if (c.pod) k8s["pod"] = RefJson(*c.pod);
  if (c.secret) k8s["secret"] = RefJson(*c.secret);
  k8s["serviceaccount"] = RefJson(c.service_account);
  if (c.warn_after) k8s["warnafter"] = Unix(*c.warn_after);
  json::object out;
  if (!c.audiences.empty()) out["aud"] = StringArray(c.audiences);
  out["exp"] = Unix(c.expiry);
  out["iat"] = Unix(c.issued_at);
  if (!c.issuer.empty()) out["iss"] = c.issuer;
  if (!c.id.empty()) out["jti"] = c.id;
  out["kubernetes.io"] = std::move(k8s);
  out["nbf"] = Unix(c.not_before);
  if (!c.subject.empty()) out["sub"] = c.subject;
  return json::serialize(out);
}

Result<ServiceAccountTokenClaims> ParseClaimsPayload(std::string_view text) {
  auto parsed = ParseJson(text);
  if (!parsed.ok() || !parsed->is_object()) return Malformed("the payload is not a JSON object");
  const json::object& obj = parsed->get_object();
  ServiceAccountTokenClaims c;
  auto iss = StringMember(obj, "iss");
  if (!iss.ok()) return std::move(iss).error();
  c.issuer = std::move(*iss);
  auto sub = StringMember(obj, "sub");
  if (!sub.ok()) return std::move(sub).error();
  c.subject = std::move(*sub);
  auto jti = StringMember(obj, "jti");
  if (!jti.ok()) return std::move(jti).error();
  c.id = std::move(*jti);
  if (const auto* aud = obj.if_contains("aud"); aud != nullptr && !aud->is_null()) {
    // go-jose's Audience takes a string or an array of strings.
    if (aud->is_string()) {
      c.audiences.emplace_back(aud->get_string());
    } else if (aud->is_array()) {
      for (const auto& a : aud->get_array()) {
        if (!a.is_string()) return Malformed("claim aud is not a list of strings");
        c.audiences.emplace_back(a.get_string());
      }
    } else {
      return Malformed("claim aud is not a list of strings");
    }
  }
  for (auto [key, field] : {std::pair{"exp", &c.expiry}, std::pair{"iat", &c.issued_at}, std::pair{"nbf", &c.not_before}}) {
    auto d = DateMember(obj, key);
    if (!d.ok()) return std::move(d).error();
    if (*d) *field = **d;
  }
  if (const auto* k8s = obj.if_contains("kubernetes.io"); k8s != nullptr && !k8s->is_null()) {
    if (!k8s->is_object()) return Malformed("claim kubernetes.io is not an object");
    const json::object& k = k8s->get_object();
    auto ns = StringMember(k, "namespace");
    if (!ns.ok()) return std::move(ns).error();
    c.ns = std::move(*ns);
    auto sa = RefMember(k, "serviceaccount");
    if (!sa.ok()) return std::move(sa).error();
    if (*sa) c.service_account = std::move(**sa);
    for (auto [key, field] : {std::pair{"pod", &c.pod}, std::pair{"secret", &c.secret}, std::pair{"node", &c.node}}) {
      auto ref = RefMember(k, key);
      if (!ref.ok()) return std::move(ref).error();
      *field = std::move(*ref);
    }
    auto warn = DateMember(k, "warnafter");
    if (!warn.ok()) return std::move(warn).error();
    c.warn_after = *warn;
  }
  return c;
}

// ---- verification ----

struct ServiceAccountTokenVerifier::PublicKey {
  std::string kid;
  PkeyPtr key;
};

ServiceAccountTokenVerifier::ServiceAccountTokenVerifier(std::vector<std::shared_ptr<const PublicKey>> keys,
                                                         TokenVerifyOptions options)
    : keys_(std::move(keys)), options_(std::move(options)) {}

Result<ServiceAccountTokenVerifier> ServiceAccountTokenVerifier::FromJwks(std::string_view jwks_json,
                                                                          TokenVerifyOptions options) {
  auto parsed = ParseJson(jwks_json);
  const json::value* keys = parsed.ok() && parsed->is_object() ? parsed->get_object().if_contains("keys") : nullptr;
  if (keys == nullptr || !keys->is_array()) return NewBadRequest("not a JWK set: no \"keys\" array");
  std::vector<std::shared_ptr<const PublicKey>> out;
  for (const auto& k : keys->get_array()) {
    if (!k.is_object()) continue;
    const auto& jwk = k.get_object();
    const auto kty = jwk.if_contains("kty");
    const auto n = jwk.if_contains("n");
    const auto e = jwk.if_contains("e");
    if (kty == nullptr || !kty->is_string() || kty->get_string() != "RSA" || n == nullptr || !n->is_string() ||
        e == nullptr || !e->is_string()) {
      continue;
    }
    auto n_bytes = DecodeSegment(n->get_string());
    auto e_bytes = DecodeSegment(e->get_string());
    if (!n_bytes || !e_bytes) return NewBadRequest("JWK set: n or e is not base64url");
    auto key = RsaPublicKey(*n_bytes, *e_bytes);
    if (!key.ok()) return NewBadRequest("JWK set: " + key.error().message);
    auto entry = std::make_shared<PublicKey>();
    if (const auto* kid = jwk.if_contains("kid"); kid != nullptr && kid->is_string()) entry->kid = kid->get_string();
    entry->key = std::move(*key);
    out.push_back(std::move(entry));
  }
  if (out.empty()) return NewBadRequest("JWK set has no RSA key");
  if (options.clock == nullptr) options.clock = &RealClock::Instance();
  return ServiceAccountTokenVerifier(std::move(out), std::move(options));
}

Result<ServiceAccountTokenClaims> ServiceAccountTokenVerifier::Verify(std::string_view token) const {
  const auto dot1 = token.find('.');
  const auto dot2 = dot1 == std::string_view::npos ? dot1 : token.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos) {
    return Malformed("compact JWS format must have three parts");
  }
  const auto header_text = DecodeSegment(token.substr(0, dot1));
  const auto payload_text = DecodeSegment(token.substr(dot1 + 1, dot2 - dot1 - 1));
  const auto signature = DecodeSegment(token.substr(dot2 + 1));
  if (!header_text || !payload_text || !signature) return Malformed("a part is not base64url");
  auto header = ParseJson(*header_text);
  if (!header.ok() || !header->is_object()) return Malformed("the header is not a JSON object");
  const auto* alg = header->get_object().if_contains("alg");
  if (alg == nullptr || !alg->is_string() || alg->get_string() != kAlgorithm) {
    return Malformed("the signing algorithm is not RS256");
  }
  std::string kid;
  if (const auto* k = header->get_object().if_contains("kid"); k != nullptr && k->is_string()) kid = k->get_string();

  const std::string_view signed_part = token.substr(0, dot2);
  bool verified = false;
  bool known_kid = kid.empty();
  for (const auto& key : keys_) {
    if (!kid.empty() && key->kid != kid) continue;
    known_kid = true;
    if (VerifyRs256(key->key.get(), signed_part, *signature)) {
      verified = true;
      break;
    }
  }
  if (!known_kid) return Malformed("no key with id " + QuoteJson(kid));
  if (!verified) return NewUnauthorized("invalid token signature");

  auto claims = ParseClaimsPayload(*payload_text);
  if (!claims.ok()) return claims;
  if (claims->issuer != options_.issuer) {
    return NewUnauthorized("token issuer " + QuoteJson(claims->issuer) + " is not " + QuoteJson(options_.issuer));
  }
  const bool audience_ok = std::any_of(claims->audiences.begin(), claims->audiences.end(), [&](const std::string& a) {
    return std::find(options_.audiences.begin(), options_.audiences.end(), a) != options_.audiences.end();
  });
  if (!audience_ok) {
    return NewUnauthorized("token audiences " + GoQuotedList(claims->audiences) + " is invalid for the target audiences " +
                           GoQuotedList(options_.audiences));
  }
  const auto now = std::chrono::time_point_cast<std::chrono::seconds>(options_.clock->WallNow());
  const std::chrono::sys_seconds now_s(now.time_since_epoch());
  if (now_s - kLeeway > claims->expiry) return NewUnauthorized("service account token has expired");
  if (now_s + kLeeway < claims->not_before) return NewUnauthorized("service account token is not valid yet");
  if (now_s + kLeeway < claims->issued_at) return NewUnauthorized("service account token was issued in the future");
  return claims;
}

// ---- issuer ----

struct ServiceAccountTokenIssuer::Key {
  std::shared_ptr<const ServiceAccountTokenVerifier::PublicKey> key;  // the private key, its kid
  std::string jwks;
};

ServiceAccountTokenIssuer::ServiceAccountTokenIssuer(TokenIssuerOptions options) : options_(std::move(options)) {
  if (options_.api_audiences.empty()) options_.api_audiences = {options_.issuer};
  if (options_.clock == nullptr) options_.clock = &RealClock::Instance();
}

ServiceAccountTokenIssuer::~ServiceAccountTokenIssuer() = default;

Result<std::shared_ptr<const ServiceAccountTokenIssuer::Key>> ServiceAccountTokenIssuer::LoadedKey() const {
  MutexLock lock(mu_);
  if (key_ != nullptr) return key_;
  ERR_clear_error();
  Result<PkeyPtr> pkey = InternalError("unset");
  if (!options_.private_key_pem.empty()) {
    pkey = ParsePrivateKey(options_.private_key_pem, "(PEM)");
  } else if (!options_.key_file.empty()) {
    auto pem = internal::ReadFile(options_.key_file);
    if (pem.ok()) {
      pkey = ParsePrivateKey(*pem, options_.key_file);
    } else if (IsNotFound(pem.error())) {
      pkey = GenerateRsaKey();
      if (pkey.ok()) {
        auto text = PrivateKeyPem(pkey->get());
        if (!text.ok()) return std::move(text).error();
        KUBE_RETURN_IF_ERROR(internal::WriteFileAtomic(options_.key_file, *text, 0600));
        log::Info("generated service account signing key", {{"file", options_.key_file}});
      }
    } else {
      return std::move(pem).error();
    }
  } else {
    pkey = GenerateRsaKey();
  }
  if (!pkey.ok()) return std::move(pkey).error();
  auto kid = KeyIdOf(pkey->get());
  if (!kid.ok()) return std::move(kid).error();
  auto n = RsaParam(pkey->get(), OSSL_PKEY_PARAM_RSA_N);
  if (!n.ok()) return std::move(n).error();
  auto e = RsaParam(pkey->get(), OSSL_PKEY_PARAM_RSA_E);
  if (!e.ok()) return std::move(e).error();
  // go-jose's JSONWebKey member order.
  json::object jwk{{"use", "sig"},
                   {"kty", "RSA"},
                   {"kid", *kid},
                   {"alg", kAlgorithm},
                   {"n", Base64RawUrlEncode(*n)},
                   {"e", Base64RawUrlEncode(*e)}};
  auto public_key = std::make_shared<ServiceAccountTokenVerifier::PublicKey>();
  public_key->kid = std::move(*kid);
  public_key->key = std::move(*pkey);
  auto key = std::make_shared<Key>();
  key->key = std::move(public_key);
  key->jwks = json::serialize(json::object{{"keys", json::array{std::move(jwk)}}});
  key_ = std::move(key);
  return key_;
}

Result<void> ServiceAccountTokenIssuer::EnsureKey() const {
  auto key = LoadedKey();
  if (!key.ok()) return std::move(key).error();
  return Ok();
}

Result<std::string> ServiceAccountTokenIssuer::Sign(ServiceAccountTokenClaims claims) const {
  auto key = LoadedKey();
  if (!key.ok()) return std::move(key).error();
  claims.issuer = options_.issuer;
  const std::string header = json::serialize(json::object{{"alg", kAlgorithm}, {"kid", (*key)->key->kid}});
  std::string token = Base64RawUrlEncode(header) + "." + Base64RawUrlEncode(ClaimsPayloadJson(claims));
  auto sig = SignRs256((*key)->key->key.get(), token);
  if (!sig.ok()) return std::move(sig).error();
  return token + "." + Base64RawUrlEncode(*sig);
}

Result<ServiceAccountTokenClaims> ServiceAccountTokenIssuer::Verify(std::string_view token) const {
  return Verify(token, options_.api_audiences);
}

Result<ServiceAccountTokenClaims> ServiceAccountTokenIssuer::Verify(std::string_view token,
                                                                    const std::vector<std::string>& audiences) const {
  auto key = LoadedKey();
  if (!key.ok()) return std::move(key).error();
  const ServiceAccountTokenVerifier verifier(
      {(*key)->key}, TokenVerifyOptions{.issuer = options_.issuer, .audiences = audiences, .clock = options_.clock});
  return verifier.Verify(token);
}

Result<std::string> ServiceAccountTokenIssuer::KeyId() const {
  auto key = LoadedKey();
  if (!key.ok()) return std::move(key).error();
  return (*key)->key->kid;
}

Result<std::string> ServiceAccountTokenIssuer::JwksJson() const {
  auto key = LoadedKey();
  if (!key.ok()) return std::move(key).error();
  return (*key)->jwks;
}

std::string ServiceAccountTokenIssuer::OpenIdConfigurationJson(std::string_view jwks_uri) const {
  // kube's openIDMetadata member order.
  return json::serialize(json::object{{"issuer", options_.issuer},
                                      {"jwks_uri", jwks_uri},
                                      {"response_types_supported", json::array{"id_token"}},
                                      {"subject_types_supported", json::array{"public"}},
                                      {"id_token_signing_alg_values_supported", json::array{kAlgorithm}}});
}

}  // namespace kube::apiserver::rest
