#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <kube/base/clock.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/result.hpp>

/// Service-account tokens as kube-apiserver issues them (pkg/serviceaccount: claims.go, jwt.go,
/// openidmetadata.go): compact JWS tokens signed RS256 with the server's signing key, kube's
/// public and `kubernetes.io` private claims, the key id kube derives from the public key, and the
/// issuer's discovery documents (`/.well-known/openid-configuration`, `/openid/v1/jwks`).
/// Internal to src/apiserver/rest.
namespace kube::apiserver::rest {

/// kube-apiserver's `--service-account-issuer` in the configurations kubecpp is compared with.
inline constexpr std::string_view kDefaultServiceAccountIssuer = "https://kubernetes.default.svc";

/// `name` and `uid` of an object a token names (the service account, or what it is bound to).
struct TokenObjectRef {
  std::string name{};  ///< `name`
  std::string uid{};   ///< `uid`; "" when unknown (a pod's node that does not exist): omitted from the token
  bool operator==(const TokenObjectRef&) const = default;
};

/// The claims of a service-account token: the registered claims and kube's `kubernetes.io`
/// private claim.
struct ServiceAccountTokenClaims {
  std::string issuer{};                    ///< `iss`
  std::string subject{};                   ///< `sub`: `system:serviceaccount:<ns>:<name>`
  std::vector<std::string> audiences{};    ///< `aud` (always written as an array, as kube does)
  std::chrono::sys_seconds issued_at{};    ///< `iat`
  std::chrono::sys_seconds not_before{};   ///< `nbf`
  std::chrono::sys_seconds expiry{};       ///< `exp`
  std::string id{};                        ///< `jti` ("" = omitted)
  std::string ns{};                        ///< `kubernetes.io.namespace`
  TokenObjectRef service_account{};        ///< `kubernetes.io.serviceaccount`
  std::optional<TokenObjectRef> pod{};     ///< `kubernetes.io.pod` for a pod-bound token
  std::optional<TokenObjectRef> secret{};  ///< `kubernetes.io.secret` for a secret-bound token
  /// `kubernetes.io.node`: for a node-bound token, and for a pod-bound one the pod's node.
  std::optional<TokenObjectRef> node{};
  /// `kubernetes.io.warnafter`: after this a still-valid (extended) token is reported as stale.
  std::optional<std::chrono::sys_seconds> warn_after{};

  bool operator==(const ServiceAccountTokenClaims&) const = default;
};

/// kube's serviceaccount.MakeUsername: `system:serviceaccount:<ns>:<name>`.
std::string ServiceAccountUsername(std::string_view ns, std::string_view name);

/// The JWT payload of `claims` as kube's signer writes it: members sorted by name (`aud`, `exp`,
/// `iat`, `iss`, `jti`, `kubernetes.io`, `nbf`, `sub`; inside `kubernetes.io` likewise), empty
/// optional members omitted. **Thread-safety:** pure.
std::string ClaimsPayloadJson(const ServiceAccountTokenClaims& claims);

/// Parses a JWT payload written by `ClaimsPayloadJson` (or kube; a single-string `aud` is
/// accepted too). **Errors:** 401 Unauthorized `invalid token: ...` for a payload that is not a
/// JSON object or has members of the wrong type.
Result<ServiceAccountTokenClaims> ParseClaimsPayload(std::string_view json);

/// How tokens are checked.
struct TokenVerifyOptions {
  std::string issuer{kDefaultServiceAccountIssuer};  ///< `iss` must equal it
  /// A token is accepted when one of its audiences is one of these (kube's audience intersection).
  std::vector<std::string> audiences{std::string(kDefaultServiceAccountIssuer)};
  /// Time source for `exp`, `nbf` and `iat` (checked with go-jose's one-minute leeway);
  /// nullptr = RealClock::Instance(). Borrowed: must outlive the verifier.
  Clock* clock = nullptr;
};

/// Verifies tokens against a set of public keys, e.g. an issuer's `/openid/v1/jwks` document.
/// Checks, in order: the compact JWS form, the header (`alg` RS256; a `kid`, when given, must
/// name a known key), the signature, `iss`, the audiences, then `exp`, `nbf` and `iat`. It does not
/// look up the service account or the bound objects: that is the authenticator's job.
/// **Thread-safety:** immutable after construction; `Verify` may be called from any thread.
class ServiceAccountTokenVerifier final {
 public:
  /// A verifier of the RSA keys of a JWK set (`{"keys":[{"kty":"RSA","kid":..,"n":..,"e":..}]}`;
  /// keys of other types are skipped). **Errors:** 400 BadRequest for a document that is not a
  /// JWK set or has no usable RSA key.
  static Result<ServiceAccountTokenVerifier> FromJwks(std::string_view jwks_json, TokenVerifyOptions options);

  /// The claims of `token` when it passes every check. **Errors:** 401 Unauthorized with the
  /// reason: `invalid token: ...` (malformed), `invalid token signature`, `token issuer "x" is
  /// not "y"`, kube's `token audiences ["a"] is invalid for the target audiences ["b"]`,
  /// `service account token has expired`, `service account token is not valid yet`,
  /// `service account token was issued in the future`.
  Result<ServiceAccountTokenClaims> Verify(std::string_view token) const;

  struct PublicKey;  ///< one key and its id (OpenSSL state; defined in the .cpp)

 private:
  friend class ServiceAccountTokenIssuer;  // verifies with its own key
  ServiceAccountTokenVerifier(std::vector<std::shared_ptr<const PublicKey>> keys, TokenVerifyOptions options);
  std::vector<std::shared_ptr<const PublicKey>> keys_;
  TokenVerifyOptions options_;
};

/// Options of ServiceAccountTokenIssuer.
struct TokenIssuerOptions {
  std::string issuer{kDefaultServiceAccountIssuer};  ///< `iss` of the tokens (`--service-account-issuer`)
  /// The server's API audiences (`--api-audiences`): a TokenRequest without audiences gets these.
  /// Empty = {issuer}, as kube-apiserver defaults them.
  std::vector<std::string> api_audiences{};
  /// The signing key, PEM (PKCS#8 or PKCS#1 RSA). Takes precedence over `key_file`.
  std::string private_key_pem{};
  /// Where the signing key lives: loaded when it exists, else a new RSA-2048 key is generated and
  /// written there (mode 0600). "" with no `private_key_pem`: a key generated in memory.
  std::string key_file{};
  /// Time source of `Verify`; nullptr = RealClock::Instance(). Borrowed: must outlive the issuer.
  Clock* clock = nullptr;
};

/// The server's service-account token issuer: signs tokens with its RSA key (kube's
/// JWTTokenGenerator with RS256), verifies the tokens it issued, and renders the issuer's OpenID
/// discovery documents. The key is loaded or generated on first use (or by `EnsureKey`), so that
/// a server that never issues a token pays nothing for it.
/// **Thread-safety:** all members may be called concurrently.
class ServiceAccountTokenIssuer final {
 public:
  /// Takes the options; no I/O happens until the key is first needed.
  explicit ServiceAccountTokenIssuer(TokenIssuerOptions options);
  ~ServiceAccountTokenIssuer();
  ServiceAccountTokenIssuer(const ServiceAccountTokenIssuer&) = delete;
  ServiceAccountTokenIssuer& operator=(const ServiceAccountTokenIssuer&) = delete;

  /// Loads, parses or generates the key now (a server start fails early on a bad key file).
  /// **Errors:** 500 InternalError naming the file for a key that does not read or parse, is not
  /// RSA, or cannot be written. A failure is not cached: the next call tries again.
  Result<void> EnsureKey() const;

  /// `iss` of the tokens.
  const std::string& issuer() const { return options_.issuer; }
  /// The API audiences (never empty).
  const std::vector<std::string>& api_audiences() const { return options_.api_audiences; }

  /// The compact JWS of `claims` with `iss` set to `issuer()`: header `{"alg":"RS256","kid":..}`,
  /// payload `ClaimsPayloadJson`, RSASSA-PKCS1-v1_5 SHA-256 signature.
  /// **Errors:** as EnsureKey; 500 when OpenSSL fails to sign.
  Result<std::string> Sign(ServiceAccountTokenClaims claims) const;

  /// Verifies a token against this issuer's key, `issuer()` and `audiences` (default: the API
  /// audiences). **Errors:** as ServiceAccountTokenVerifier::Verify; as EnsureKey.
  Result<ServiceAccountTokenClaims> Verify(std::string_view token) const;
  Result<ServiceAccountTokenClaims> Verify(std::string_view token, const std::vector<std::string>& audiences) const;

  /// kube's key id: base64url (no padding) of the SHA-256 of the public key's PKIX DER.
  /// **Errors:** as EnsureKey.
  Result<std::string> KeyId() const;
  /// The `/openid/v1/jwks` document: `{"keys":[{"use":"sig","kty":"RSA","kid":..,"alg":"RS256",
  /// "n":..,"e":..}]}`. **Errors:** as EnsureKey.
  Result<std::string> JwksJson() const;
  /// The `/.well-known/openid-configuration` document with `jwks_uri`.
  std::string OpenIdConfigurationJson(std::string_view jwks_uri) const;

  struct Key;  ///< the loaded key (OpenSSL state; defined in the .cpp)

 private:
  Result<std::shared_ptr<const Key>> LoadedKey() const KUBE_EXCLUDES(mu_);

  TokenIssuerOptions options_;  // api_audiences defaulted in the constructor
  mutable Mutex mu_;
  mutable std::shared_ptr<const Key> key_ KUBE_GUARDED_BY(mu_);  // set once, on first success
};

}  // namespace kube::apiserver::rest
