#include "apiserver/rest/token_request.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kube::apiserver::rest {
namespace {

namespace json = boost::json;

HttpRequest Get(std::string path, std::string accept = "") {
  HttpRequest req;
  req.method = "GET";
  req.path = std::move(path);
  req.target = req.path;
  if (!accept.empty()) req.headers.emplace_back("accept", std::move(accept));
  return req;
}

TEST(ValidateTokenRequestSpec, ExpirationMustBeTenMinutesToTwoToTheThirtySecondSeconds) {
  EXPECT_TRUE(ValidateTokenRequestSpec(json::object{{"expirationSeconds", 600}}).empty());
  EXPECT_TRUE(ValidateTokenRequestSpec(json::object{{"expirationSeconds", int64_t{1} << 32}}).empty());
  auto short_lived = ValidateTokenRequestSpec(json::object{{"expirationSeconds", 599}});
  ASSERT_EQ(short_lived.size(), 1u);
  EXPECT_EQ(short_lived[0].field, "spec.expirationSeconds");
  EXPECT_EQ(short_lived[0].String(),
            "spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes");
  auto long_lived = ValidateTokenRequestSpec(json::object{{"expirationSeconds", (int64_t{1} << 32) + 1}});
  ASSERT_EQ(long_lived.size(), 1u);
  EXPECT_EQ(long_lived[0].String(),
            "spec.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds");
  EXPECT_EQ(ValidateTokenRequestSpec(json::object{{"expirationSeconds", -5}})[0].String(),
            "spec.expirationSeconds: Invalid value: -5: may not specify a duration less than 10 minutes");
}

class IssuerDiscoveryTest : public ::testing::Test {
 protected:
  ServiceAccountTokenIssuer issuer_{TokenIssuerOptions{}};
  static constexpr std::string_view kJwksUri = "https://127.0.0.1:6443/openid/v1/jwks";
};

TEST_F(IssuerDiscoveryTest, ServesTheOpenIdConfigurationAndTheKeySet) {
  auto config = ServeServiceAccountIssuerDiscovery(Get("/.well-known/openid-configuration"), issuer_, kJwksUri);
  ASSERT_TRUE(config);
  EXPECT_EQ(config->status, 200);
  EXPECT_EQ(config->content_type, "application/json");
  EXPECT_EQ(config->body, issuer_.OpenIdConfigurationJson(kJwksUri));
  ASSERT_EQ(config->headers.size(), 1u);
  EXPECT_EQ(config->headers[0], (std::pair<std::string, std::string>{"Cache-Control", "public, max-age=3600"}));

  auto jwks = ServeServiceAccountIssuerDiscovery(Get("/openid/v1/jwks/", "*/*"), issuer_, kJwksUri);
  ASSERT_TRUE(jwks);
  EXPECT_EQ(jwks->status, 200);
  EXPECT_EQ(jwks->content_type, "application/jwk-set+json");
  EXPECT_EQ(jwks->body, *issuer_.JwksJson());
}

TEST_F(IssuerDiscoveryTest, AnswersAsGoRestfulRoutesDo) {
  auto below = ServeServiceAccountIssuerDiscovery(Get("/openid/v1/jwks/x"), issuer_, kJwksUri);
  ASSERT_TRUE(below);
  EXPECT_EQ(below->status, 404);
  EXPECT_EQ(below->body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404})");
  HttpRequest post = Get("/.well-known/openid-configuration");
  post.method = "POST";
  auto not_allowed = ServeServiceAccountIssuerDiscovery(post, issuer_, kJwksUri);
  ASSERT_TRUE(not_allowed);
  EXPECT_EQ(not_allowed->status, 405);
  // The key set is only application/jwk-set+json: plain JSON is not acceptable.
  auto json_jwks = ServeServiceAccountIssuerDiscovery(Get("/openid/v1/jwks", "application/json"), issuer_, kJwksUri);
  ASSERT_TRUE(json_jwks);
  EXPECT_EQ(json_jwks->status, 406);
  EXPECT_EQ(json::parse(json_jwks->body).at("message"),
            "406: Not Acceptable\n\nAvailable representations: application/jwk-set+json");
  EXPECT_EQ(ServeServiceAccountIssuerDiscovery(Get("/openid/v1/jwks", "text/plain, application/jwk-set+json;q=0.5"),
                                               issuer_, kJwksUri)
                ->status,
            200);
  EXPECT_EQ(ServeServiceAccountIssuerDiscovery(Get("/.well-known/openid-configuration", "application/*"), issuer_,
                                               kJwksUri)
                ->status,
            406);
  // Not these routes.
  for (std::string_view path : {"/.well-known", "/openid/v1", "/openid/v1/jwksx", "/api/v1"}) {
    EXPECT_FALSE(ServeServiceAccountIssuerDiscovery(Get(std::string(path)), issuer_, kJwksUri)) << path;
  }
}

TEST(IssuerDiscovery, NothingIsServedForAnIssuerThatIsNotAnHttpsUrl) {
  ServiceAccountTokenIssuer issuer(TokenIssuerOptions{.issuer = "kubecpp"});
  EXPECT_FALSE(ServeServiceAccountIssuerDiscovery(Get("/.well-known/openid-configuration"), issuer, "x"));
  EXPECT_FALSE(ServeServiceAccountIssuerDiscovery(Get("/openid/v1/jwks"), issuer, "x"));
}

}  // namespace
}  // namespace kube::apiserver::rest
