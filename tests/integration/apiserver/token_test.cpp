// The TokenRequest API end to end: a token from serviceaccounts/NAME/token verifies against the
// server's own /openid/v1/jwks, and the signing key survives a restart with a data dir.

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include <kube/core/time.hpp>

#include "apiserver/rest/service_account_token.hpp"
#include "fixture.hpp"

namespace kube::apiserver::testing {
namespace {

namespace fs = std::filesystem;
using rest::ServiceAccountTokenVerifier;

constexpr std::string_view kSa = R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"robot"}})";
constexpr std::string_view kNode = R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"node-1"}})";
constexpr std::string_view kPod =
    R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},)"
    R"("spec":{"serviceAccountName":"robot","nodeName":"node-1","containers":[{"name":"c","image":"nginx:1.27"}]}})";

class TokenTest : public ApiServerTest {
 protected:
  ApiServerOptions Options() override {
    ApiServerOptions o = ApiServerTest::Options();
    o.service_accounts.issuer = "https://issuer.test";
    o.service_accounts.api_audiences = {"https://issuer.test", "api"};
    return o;
  }

  ServiceAccountTokenVerifier Verifier(std::vector<std::string> audiences) {
    auto jwks = client().Get("/openid/v1/jwks");
    EXPECT_EQ(jwks.status, 200) << jwks.body;
    EXPECT_EQ(jwks.Header("content-type"), "application/jwk-set+json");
    auto verifier = ServiceAccountTokenVerifier::FromJwks(
        jwks.body, {.issuer = "https://issuer.test", .audiences = std::move(audiences), .clock = nullptr});
    EXPECT_TRUE(verifier.ok()) << verifier.error().message;
    return std::move(verifier).value();
  }
};

TEST_F(TokenTest, ATokenRequestedForABoundPodVerifiesAgainstTheServersJwks) {
  auto sa = client().Post("/api/v1/namespaces/default/serviceaccounts", kSa);
  ASSERT_EQ(sa.status, 201) << sa.body;
  auto node = client().Post("/api/v1/nodes", kNode);
  ASSERT_EQ(node.status, 201) << node.body;
  auto pod = client().Post("/api/v1/namespaces/default/pods", kPod);
  ASSERT_EQ(pod.status, 201) << pod.body;

  auto res = client().Post("/api/v1/namespaces/default/serviceaccounts/robot/token",
                           R"({"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"p"}}})");
  ASSERT_EQ(res.status, 201) << res.body;
  const auto body = res.Json();
  EXPECT_EQ(Str(body, {"kind"}), "TokenRequest");
  EXPECT_EQ(Str(body, {"spec", "audiences"}), R"(["https://issuer.test","api"])");
  EXPECT_EQ(Str(body, {"spec", "expirationSeconds"}), "3600");
  const std::string token = Str(body, {"status", "token"});

  auto claims = Verifier({"api"}).Verify(token);
  ASSERT_TRUE(claims.ok()) << claims.error().message;
  EXPECT_EQ(claims->issuer, "https://issuer.test");
  EXPECT_EQ(claims->subject, "system:serviceaccount:default:robot");
  EXPECT_EQ(claims->audiences, (std::vector<std::string>{"https://issuer.test", "api"}));
  EXPECT_EQ(claims->expiry - claims->issued_at, std::chrono::seconds(3600));
  EXPECT_EQ(claims->not_before, claims->issued_at);
  EXPECT_FALSE(claims->id.empty());
  EXPECT_EQ(claims->ns, "default");
  EXPECT_EQ(claims->service_account.name, "robot");
  EXPECT_EQ(claims->service_account.uid, Str(sa.Json(), {"metadata", "uid"}));
  ASSERT_TRUE(claims->pod && claims->node);
  EXPECT_EQ(claims->pod->uid, Str(pod.Json(), {"metadata", "uid"}));
  EXPECT_EQ(claims->node->name, "node-1");
  EXPECT_EQ(claims->node->uid, Str(node.Json(), {"metadata", "uid"}));
  EXPECT_FALSE(claims->secret);
  EXPECT_EQ(Str(body, {"status", "expirationTimestamp"}),
            FormatTime(Clock::WallTime(claims->expiry.time_since_epoch())));

  // Another audience's verifier refuses it.
  auto other = Verifier({"vault"}).Verify(token);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().code, 401);

  // The discovery document names the issuer and where its keys are.
  auto config = client().Get("/.well-known/openid-configuration");
  ASSERT_EQ(config.status, 200) << config.body;
  EXPECT_EQ(Str(config.Json(), {"issuer"}), "https://issuer.test");
  EXPECT_EQ(Str(config.Json(), {"jwks_uri"}), server_->url() + "/openid/v1/jwks");
}

TEST_F(TokenTest, NothingIsStoredAndAMissingServiceAccountIsKubesNotFound) {
  auto missing = client().Post("/api/v1/namespaces/default/serviceaccounts/ghost/token", R"({"spec":{}})");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"serviceaccounts \"ghost\" not found","reason":"NotFound",)"
            R"("details":{"name":"ghost","kind":"serviceaccounts"},"code":404})");
  ASSERT_EQ(client().Post("/api/v1/namespaces/default/serviceaccounts", kSa).status, 201);
  const std::string before = Rv(client().Get("/api/v1/namespaces/default/serviceaccounts").Json());
  auto res = client().Post("/api/v1/namespaces/default/serviceaccounts/robot/token", R"({"spec":{}})");
  ASSERT_EQ(res.status, 201) << res.body;
  EXPECT_EQ(Rv(client().Get("/api/v1/namespaces/default/serviceaccounts").Json()), before);
  EXPECT_EQ(client().Get("/api/v1/namespaces/default/serviceaccounts/robot/token").status, 405);
}

TEST(TokenKey, TheSigningKeyIsKeptInTheDataDirAcrossRestarts) {
  const fs::path dir = fs::temp_directory_path() / ("kubecpp-token-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ApiServerOptions o;
  o.data_dir = dir.string();
  o.storage = ApiServerOptions::StorageKind::kMemory;
  o.tls = false;
  o.authenticate = false;
  std::string jwks;
  {
    auto server = ApiServer::Start(o);
    ASSERT_TRUE(server.ok()) << server.error().message;
    jwks = HttpClient((*server)->port()).Get("/openid/v1/jwks").body;
  }
  struct stat st {};
  ASSERT_EQ(::stat((dir / "pki" / "sa.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  {
    auto server = ApiServer::Start(o);
    ASSERT_TRUE(server.ok()) << server.error().message;
    EXPECT_EQ(HttpClient((*server)->port()).Get("/openid/v1/jwks").body, jwks);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kube::apiserver::testing
