// kubectl against the TLS server, with the generated PKI, token and kubeconfig.
// Skipped when kubectl is not on PATH.

#include <kube/apiserver/http_server.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <kube/core/status.hpp>

namespace kube::apiserver {
namespace {

namespace fs = std::filesystem;

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

CommandResult RunCommand(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buf[4096];
  while (const std::size_t n = std::fread(buf, 1, sizeof buf, pipe)) result.output.append(buf, n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

bool HaveKubectl() { return std::system("command -v kubectl >/dev/null 2>&1") == 0; }

/// Answers like kube-apiserver for /version and /healthz; 404 Status otherwise.
void FakeApiServer(const HttpRequest& req, ResponseWriter& w) {
  if (req.path == "/version") {
    w.Respond(200, "application/json", R"({"major":"1","minor":"32","gitVersion":"v1.32.0"})");
  } else if (req.path == "/healthz") {
    w.Respond(200, "text/plain; charset=utf-8", "ok");
  } else {
    w.Respond(404, "application/json",
              StatusJson(MakeError(404, reason::kNotFound,
                                   "the server could not find the requested resource")));
  }
}

class KubectlE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HaveKubectl()) GTEST_SKIP() << "kubectl is not on PATH";
    dir_ = (fs::temp_directory_path() /
            ("kube-http-e2e-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    fs::remove_all(dir_);
    auto pki = EnsurePki(dir_);
    ASSERT_TRUE(pki.ok()) << pki.error().ToString();
    auto token = EnsureToken(dir_);
    ASSERT_TRUE(token.ok()) << token.error().ToString();
    server_ = NewHttpServer(
        {.tls = TlsOptions{.cert_file = pki->cert_file, .key_file = pki->key_file},
         .bearer_token = *token},
        FakeApiServer);
    auto started = server_->Start();
    ASSERT_TRUE(started.ok()) << started.error().ToString();
    url_ = "https://127.0.0.1:" + std::to_string(server_->port());
    kubeconfig_ = dir_ + "/kubeconfig";
    ASSERT_TRUE(WriteKubeconfig(kubeconfig_, url_, pki->ca_file, *token).ok());
    ca_file_ = pki->ca_file;
  }
  void TearDown() override {
    if (server_) server_->Stop();
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  CommandResult Kubectl(const std::string& kubeconfig, const std::string& args) {
    return RunCommand("kubectl --kubeconfig " + kubeconfig + " --cache-dir " + dir_ +
                      "/cache --request-timeout 30s " + args);
  }

  std::string dir_;
  std::string url_;
  std::string kubeconfig_;
  std::string ca_file_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(KubectlE2e, KubectlVersionReachesTheServerThroughTheGeneratedKubeconfig) {
  const auto r = Kubectl(kubeconfig_, "version -o json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // kubectl may print a version-skew warning on stderr after the JSON.
  const auto end = r.output.rfind('}');
  ASSERT_NE(end, std::string::npos) << r.output;
  boost::system::error_code ec;
  const auto json = boost::json::parse(std::string_view(r.output).substr(0, end + 1), ec);
  ASSERT_FALSE(ec) << r.output;
  const auto* server = json.as_object().if_contains("serverVersion");
  ASSERT_NE(server, nullptr) << r.output;
  EXPECT_EQ(server->as_object().at("gitVersion").as_string(), "v1.32.0");
}

TEST_F(KubectlE2e, KubectlGetRawHealthzAndConfigView) {
  const auto health = Kubectl(kubeconfig_, "get --raw /healthz");
  ASSERT_EQ(health.exit_code, 0) << health.output;
  EXPECT_EQ(health.output, "ok");
  const auto view = Kubectl(kubeconfig_, "config view --raw -o jsonpath={.current-context}");
  ASSERT_EQ(view.exit_code, 0) << view.output;
  EXPECT_EQ(view.output, "kubecpp");
}

TEST_F(KubectlE2e, KubectlWithAWrongTokenIsUnauthorized) {
  const std::string bad = dir_ + "/bad-kubeconfig";
  ASSERT_TRUE(WriteKubeconfig(bad, url_, ca_file_, "not-the-token").ok());
  const auto r = Kubectl(bad, "get --raw /api/v1/namespaces");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("Unauthorized"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace kube::apiserver
