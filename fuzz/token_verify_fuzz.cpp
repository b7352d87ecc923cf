// Fuzzes the service-account token verifier, which reads tokens and JWKS documents from outside:
// ServiceAccountTokenVerifier::FromJwks on the input, and Verify on the input as a token (against
// the issuer's own key, and with the input's bytes spliced into a token the issuer signed).
// Properties checked beyond "no crash":
//  - a token the issuer signed verifies, with the claims it was signed with;
//  - an accepted token has the issuer's `iss` and one of its audiences;
//  - changing any byte of a signed token's signature is never accepted.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "apiserver/rest/service_account_token.hpp"

namespace {

namespace rest = kube::apiserver::rest;

void Check(bool ok) {
  if (!ok) std::abort();
}

struct Fixture {
  rest::ServiceAccountTokenIssuer issuer{rest::TokenIssuerOptions{}};  // a key generated in memory
  std::string token;
  Fixture() {
    rest::ServiceAccountTokenClaims claims;
    claims.subject = "system:serviceaccount:ns:sa";
    claims.audiences = {issuer.issuer()};
    const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    claims.issued_at = claims.not_before = now;
    claims.expiry = now + std::chrono::hours(24 * 365);
    claims.ns = "ns";
    claims.service_account = {.name = "sa", .uid = "u"};
    auto signed_token = issuer.Sign(claims);
    Check(signed_token.ok());
    token = *signed_token;
    auto verified = issuer.Verify(token);
    Check(verified.ok() && verified->subject == claims.subject);
  }
};

void CheckAccepted(const rest::ServiceAccountTokenIssuer& issuer,
                   const kube::Result<rest::ServiceAccountTokenClaims>& claims) {
  if (!claims.ok()) return;
  Check(claims->issuer == issuer.issuer());
  bool audience = false;
  for (const auto& a : claims->audiences) audience = audience || a == issuer.issuer();
  Check(audience);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Fixture fixture;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  (void)rest::ServiceAccountTokenVerifier::FromJwks(input, {});
  CheckAccepted(fixture.issuer, fixture.issuer.Verify(input));
  // The input spliced into the signed token: replacing its header, payload or signature.
  const std::string& token = fixture.token;
  const std::size_t dot1 = token.find('.');
  const std::size_t dot2 = token.rfind('.');
  const std::string spliced[] = {
      std::string(input) + token.substr(dot1),
      token.substr(0, dot1 + 1) + std::string(input) + token.substr(dot2),
      token.substr(0, dot2 + 1) + std::string(input),
  };
  for (const auto& t : spliced) CheckAccepted(fixture.issuer, fixture.issuer.Verify(t));
  // A changed signature character is never accepted (all but the last, whose low bits base64url
  // decoders ignore).
  if (size > 0) {
    std::string tampered = token;
    const std::size_t at = dot2 + 1 + data[0] % (token.size() - dot2 - 2);
    const char replacement = static_cast<char>(size > 1 ? data[1] : 'A');
    if (tampered[at] != replacement) {
      tampered[at] = replacement;
      Check(!fixture.issuer.Verify(tampered).ok());
    }
  }
  return 0;
}
