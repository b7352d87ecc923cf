#include <kube/client/auth.hpp>
#include <kube/client/fake_transport.hpp>
#include <kube/client/rest_client.hpp>

#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/internal/exec_plugin.hpp"
#include "client/testing/scripted_server.hpp"
#include "client/testing/test_util.hpp"

namespace kube::client {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;
using testing::TempDir;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

int Count(const TempDir& dir) {
  const std::string s = ReadAll(dir.path() + "/count");
  return s.empty() ? 0 : std::stoi(s);
}

/// A plugin that counts its runs, records KUBERNETES_EXEC_INFO and prints token "tok-<n>"
/// expiring at `expiry`.
std::string TokenPlugin(const TempDir& dir, const std::string& expiry = "2026-01-01T00:10:00Z",
                        const std::string& api_version = "client.authentication.k8s.io/v1") {
  const std::string d = dir.path();
  return dir.Write("plugin.sh",
                   "#!/bin/sh\n"
                   "n=$(cat '" + d + "/count' 2>/dev/null || echo 0)\n"
                   "n=$((n+1))\n"
                   "echo $n > '" + d + "/count'\n"
                   "printf '%s' \"$KUBERNETES_EXEC_INFO\" > '" + d + "/info'\n"
                   "printf '%s' \"$FOO\" > '" + d + "/foo'\n"
                   "echo '{\"kind\":\"ExecCredential\",\"apiVersion\":\"" + api_version +
                       "\",\"status\":{\"token\":\"tok-'$n'\",\"expirationTimestamp\":\"" + expiry + "\"}}'\n",
                   true);
}

Config ExecConfigFor(const std::string& command) {
  Config c;
  c.host = "https://k";
  ExecConfig e;
  e.command = command;
  e.api_version = "client.authentication.k8s.io/v1";
  e.interactive_mode = "Never";
  c.exec = e;
  return c;
}

TEST(ExecAuthenticator, CachesCredentialsUntilExpirationTimestamp) {
  TempDir dir;
  FakeClock clock;  // wall time starts at 2026-01-01T00:00:00Z
  auto auth = NewAuthenticator(ExecConfigFor(TokenPlugin(dir)), clock);
  ASSERT_TRUE(auth.ok()) << auth.error().message;
  ASSERT_NE(*auth, nullptr);
  auto h1 = (*auth)->Authorization();
  ASSERT_TRUE(h1.ok()) << h1.error().message;
  EXPECT_EQ(*h1, "Bearer tok-1");
  EXPECT_EQ((*auth)->Authorization().value(), "Bearer tok-1");
  clock.Advance(9min);
  EXPECT_EQ((*auth)->Authorization().value(), "Bearer tok-1");
  EXPECT_EQ(Count(dir), 1);
  clock.Advance(61s);  // past 00:10:00
  EXPECT_EQ((*auth)->Authorization().value(), "Bearer tok-2");
  EXPECT_EQ(Count(dir), 2);
}

TEST(ExecAuthenticator, CredentialsWithoutExpirationAreKeptUntilA401) {
  TempDir dir;
  FakeClock clock;
  const std::string plugin = dir.Write(
      "p.sh",
      "#!/bin/sh\nn=$(cat '" + dir.path() + "/count' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '" + dir.path() +
          "/count'\necho '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\","
          "\"status\":{\"token\":\"t'$n'\"}}'\n",
      true);
  auto auth = NewAuthenticator(ExecConfigFor(plugin), clock).value();
  EXPECT_EQ(auth->Authorization().value(), "Bearer t1");
  clock.Advance(24h * 365);
  EXPECT_EQ(auth->Authorization().value(), "Bearer t1");
  // A 401 to a request made with the current token re-runs the plugin.
  EXPECT_TRUE(auth->Refresh("Bearer t1").value());
  EXPECT_EQ(auth->Authorization().value(), "Bearer t2");
  // A 401 to a request made with an older token does not: someone already rotated it.
  EXPECT_TRUE(auth->Refresh("Bearer t1").value());
  EXPECT_EQ(Count(dir), 2);
}

TEST(ExecAuthenticator, RestClientRerunsThePluginOnA401AndRetriesOnce) {
  TempDir dir;
  FakeClock clock;
  Config config = ExecConfigFor(TokenPlugin(dir, "2030-01-01T00:00:00Z"));
  auto auth = NewAuthenticator(config, clock).value();
  auto transport = std::make_shared<FakeTransport>();
  transport->SetHandler([](const HttpRequest& r) -> Result<HttpResponse> {
    HttpResponse resp;
    resp.headers.emplace_back("Content-Type", "application/json");
    if (FindHeader(r.headers, "Authorization").value_or("") == "Bearer tok-2") {
      resp.status = 200;
      resp.body = "{}";
    } else {
      resp.status = 401;
      resp.body = R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})";
    }
    return resp;
  });
  auto rest = RestClient::Create(config, {.clock = &clock, .transport = transport, .authenticator = auth}).value();
  auto r = rest->Do(Request{.path = "/api"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(Count(dir), 2);
  EXPECT_EQ(rest->Stats().auth_refreshes, 1u);
  EXPECT_EQ(transport->RequestCount(), 2u);

  // A server that keeps answering 401 is retried once, then the Unauthorized error surfaces.
  transport->SetHandler([](const HttpRequest&) -> Result<HttpResponse> {
    return HttpResponse{401, {{"Content-Type", "application/json"}},
                        R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})"};
  });
  auto denied = rest->Do(Request{.path = "/api"});
  ASSERT_FALSE(denied.ok());
  EXPECT_TRUE(IsUnauthorized(denied.error()));
  EXPECT_EQ(transport->RequestCount(), 4u);
}

TEST(ExecAuthenticator, PassesEnvAndClusterInfo) {
  TempDir dir;
  FakeClock clock;
  Config config = ExecConfigFor(TokenPlugin(dir));
  config.exec->env.push_back({"FOO", "from-kubeconfig"});
  config.exec->provide_cluster_info = true;
  KubeconfigCluster cluster;
  cluster.server = "https://api.example:6443";
  cluster.tls_server_name = "api";
  cluster.certificate_authority_data = "CA";
  cluster.exec_extension_json = R"({"audience":"x"})";
  config.exec_cluster = cluster;
  auto auth = NewAuthenticator(config, clock).value();
  ASSERT_TRUE(auth->Authorization().ok());
  EXPECT_EQ(ReadAll(dir.path() + "/foo"), "from-kubeconfig");
  auto info = boost::json::parse(ReadAll(dir.path() + "/info")).as_object();
  EXPECT_EQ(info["kind"], "ExecCredential");
  EXPECT_EQ(info["apiVersion"], "client.authentication.k8s.io/v1");
  auto& spec = info["spec"].as_object();
  EXPECT_EQ(spec["interactive"], false);
  auto& c = spec["cluster"].as_object();
  EXPECT_EQ(c["server"], "https://api.example:6443");
  EXPECT_EQ(c["tls-server-name"], "api");
  EXPECT_EQ(c["certificate-authority-data"], "Q0E=");
  EXPECT_EQ(c["config"].as_object()["audience"], "x");
}

TEST(ExecAuthenticator, FailuresNameTheCommandAndCarryStderr) {
  TempDir dir;
  FakeClock clock;
  const auto error_of = [&](const std::string& script, const std::string& api = "client.authentication.k8s.io/v1") {
    Config c = ExecConfigFor(dir.Write("p.sh", "#!/bin/sh\n" + script, true));
    c.exec->api_version = api;
    auto auth = NewAuthenticator(c, clock).value();
    auto h = auth->Authorization();
    EXPECT_FALSE(h.ok());
    return h.ok() ? std::string() : h.error().message;
  };
  const std::string cmd = dir.path() + "/p.sh";
  EXPECT_EQ(error_of("echo boom >&2; exit 3\n"),
            "getting credentials: exec: executable " + cmd + " failed with exit code 3: boom");
  EXPECT_THAT(error_of("echo 'this is not json'\n"), HasSubstr("getting credentials: decoding stdout: invalid JSON"));
  EXPECT_THAT(error_of("echo '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1beta1\","
                       "\"status\":{\"token\":\"x\"}}'\n"),
              HasSubstr("exec plugin is configured to use API version client.authentication.k8s.io/v1, plugin "
                        "returned version client.authentication.k8s.io/v1beta1"));
  EXPECT_THAT(error_of("echo '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\"}'\n"),
              HasSubstr("exec plugin didn't return a status field"));
  EXPECT_THAT(error_of("echo '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\","
                       "\"status\":{}}'\n"),
              HasSubstr("exec plugin didn't return a token or cert/key pair"));
  EXPECT_THAT(error_of("echo '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\","
                       "\"status\":{\"clientCertificateData\":\"x\"}}'\n"),
              HasSubstr("exec plugin returned only certificate or key, not both"));
  EXPECT_THAT(error_of("echo '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\","
                       "\"status\":{\"token\":\"x\",\"expirationTimestamp\":\"tomorrow\"}}'\n"),
              HasSubstr("status.expirationTimestamp: parsing time"));
  EXPECT_THAT(error_of("kill -9 $$\n"), HasSubstr("was terminated by signal 9"));
}

TEST(ExecAuthenticator, MissingCommandShowsInstallHint) {
  FakeClock clock;
  Config c = ExecConfigFor("kubecpp-no-such-plugin");
  c.exec->install_hint = "brew install kubecpp-plugin";
  auto auth = NewAuthenticator(c, clock).value();
  auto h = auth->Authorization();
  ASSERT_FALSE(h.ok());
  EXPECT_TRUE(IsTransport(h.error()));
  EXPECT_THAT(h.error().message, HasSubstr("exec: executable kubecpp-no-such-plugin not found"));
  EXPECT_THAT(h.error().message, HasSubstr("brew install kubecpp-plugin"));
}

TEST(ExecAuthenticator, HungPluginIsKilledAfterTheTimeout) {
  TempDir dir;
  FakeClock clock;
  Config c = ExecConfigFor(dir.Write("p.sh", "#!/bin/sh\nexec sleep 30\n", true));
  c.exec_timeout = 200ms;
  auto auth = NewAuthenticator(c, clock).value();
  const auto start = std::chrono::steady_clock::now();
  auto h = auth->Authorization();
  ASSERT_FALSE(h.ok());
  EXPECT_THAT(h.error().message, HasSubstr("did not finish within 200ms and was killed"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
}

TEST(ExecAuthenticator, ReturnsClientCertificates) {
  TempDir dir;
  FakeClock clock;
  auto pki = testing::TestPki::Create();
  ASSERT_NE(pki, nullptr);
  boost::json::object status;
  status["clientCertificateData"] = testing::TestPki::Read(pki->client_cert);
  status["clientKeyData"] = testing::TestPki::Read(pki->client_key);
  boost::json::object root;
  root["kind"] = "ExecCredential";
  root["apiVersion"] = "client.authentication.k8s.io/v1";
  root["status"] = status;
  const std::string json = dir.Write("cred.json", boost::json::serialize(root));
  auto auth = NewAuthenticator(ExecConfigFor(dir.Write("p.sh", "#!/bin/sh\ncat '" + json + "'\n", true)), clock).value();
  EXPECT_EQ(auth->Authorization().value(), "");  // no token: certificate only
  auto cert = auth->ClientCert();
  ASSERT_TRUE(cert.ok()) << cert.error().message;
  ASSERT_TRUE(cert->has_value());
  EXPECT_EQ((*cert)->cert_pem, testing::TestPki::Read(pki->client_cert));
}

TEST(TokenFileAuthenticator, RereadsTheFilePeriodically) {
  TempDir dir;
  FakeClock clock;
  Config c;
  c.bearer_token_file = dir.Write("token", "one\n");
  c.bearer_token = "one";
  auto auth = NewAuthenticator(c, clock).value();
  EXPECT_EQ(auth->Authorization().value(), "Bearer one");
  dir.Write("token", "two");
  clock.Advance(59s);
  EXPECT_EQ(auth->Authorization().value(), "Bearer one");
  clock.Advance(1s);
  EXPECT_EQ(auth->Authorization().value(), "Bearer two");
  // A vanished or empty file keeps the last good token.
  (void)std::remove(c.bearer_token_file.c_str());
  clock.Advance(2min);
  EXPECT_EQ(auth->Authorization().value(), "Bearer two");
}

TEST(TokenFileAuthenticator, A401RereadsTheFileAtOnce) {
  TempDir dir;
  FakeClock clock;
  Config c;
  c.bearer_token_file = dir.Write("token", "old");
  auto auth = NewAuthenticator(c, clock).value();
  EXPECT_EQ(auth->Authorization().value(), "Bearer old");
  EXPECT_FALSE(auth->Refresh("Bearer old").value());  // unchanged file: nothing better to retry with
  dir.Write("token", "rotated");
  EXPECT_TRUE(auth->Refresh("Bearer old").value());
  EXPECT_EQ(auth->Authorization().value(), "Bearer rotated");
}

TEST(Authenticators, StaticTokenBasicAndNone) {
  FakeClock clock;
  Config token;
  token.bearer_token = "abc";
  EXPECT_EQ(NewAuthenticator(token, clock).value()->Authorization().value(), "Bearer abc");
  Config basic;
  basic.username = "user";
  basic.password = "pass";
  EXPECT_EQ(NewAuthenticator(basic, clock).value()->Authorization().value(), "Basic dXNlcjpwYXNz");
  EXPECT_EQ(NewAuthenticator(Config{}, clock).value(), nullptr);
  Config both = token;
  both.username = "x";
  auto err = NewAuthenticator(both, clock);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.error().message, "username/password or bearer token may be set, but not both");
}

}  // namespace
}  // namespace kube::client
