// The kubecpp-apiserver binary: it prints the kubeconfig path and an `export KUBECONFIG=...` line,
// kubectl works through that kubeconfig, and SIGTERM/SIGINT shut it down with exit code 0 (after
// which the sqlite data survives a restart). kubectl-dependent steps are skipped without kubectl.
// Crash test: kill -9 the sqlite server during concurrent HTTP writes; after a restart every
// acknowledged write is there and resourceVersions keep increasing.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "e2e_util.hpp"
#include "integration/apiserver/test_client.hpp"

namespace kube::apiserver::e2e {
namespace {

namespace fs = std::filesystem;

// The binary running as a child with its stdout on a pipe.
class ServerProcess {
 public:
  ServerProcess(const std::string& data_dir, const std::string& storage, bool tls = true) {
    int fds[2];
    if (::pipe(fds) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(fds[1], 1);
      const int devnull = ::open("/dev/null", O_WRONLY);
      ::dup2(devnull, 2);
      ::close(fds[0]);
      ::close(fds[1]);
      ::execl(KUBECPP_APISERVER_BIN, KUBECPP_APISERVER_BIN, "--data-dir", data_dir.c_str(), "--storage",
              storage.c_str(), "--listen", "127.0.0.1:0", "--log-level", "warn", tls ? "--tls" : "--no-tls",
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    out_ = ::fdopen(fds[0], "r");
  }
  ~ServerProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (out_ != nullptr) std::fclose(out_);
  }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // The next stdout line (blocking), "" at end of output.
  std::string Line() {
    char buf[4096];
    if (out_ == nullptr || std::fgets(buf, sizeof(buf), out_) == nullptr) return "";
    std::string line = buf;
    if (!line.empty() && line.back() == '\n') line.pop_back();
    return line;
  }
  // Sends `sig` and returns the exit status as "exit N" or "signal N".
  std::string SignalAndWait(int sig) {
    ::kill(pid_, sig);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                             : "signal " + std::to_string(WTERMSIG(status));
  }

 private:
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
};

class ApiServerBinaryTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kubecpp-binary-" + std::to_string(::getpid()) + "-" + std::to_string(GetParam()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // kubectl with the kubeconfig taken from the export line.
  CommandResult Kubectl(const std::string& kubeconfig, const std::string& args) {
    return RunCommand("HOME=" + dir_.string() + " KUBECONFIG=" + kubeconfig + " kubectl --cache-dir=" +
                      (dir_ / "cache").string() + " --request-timeout=30s " + args);
  }

  fs::path dir_;
};

TEST_P(ApiServerBinaryTest, PrintsTheExportLineServesKubectlAndShutsDownOnSignal) {
  const int sig = GetParam();
  const std::string data = (dir_ / "data").string();
  const bool kubectl = HaveKubectl();
  std::string kubeconfig;
  {
    ServerProcess server(data, "sqlite");
    const std::string listening = server.Line();
    EXPECT_EQ(listening.rfind("kubecpp-apiserver listening on https://127.0.0.1:", 0), 0u) << listening;
    EXPECT_NE(listening.find("(storage=sqlite)"), std::string::npos) << listening;
    const std::string path_line = server.Line();
    EXPECT_EQ(path_line, "kubeconfig: " + (fs::absolute(data) / "kubeconfig").string());
    const std::string export_line = server.Line();
    ASSERT_EQ(export_line.rfind("export KUBECONFIG=", 0), 0u) << export_line;
    kubeconfig = export_line.substr(std::string("export KUBECONFIG=").size());
    EXPECT_EQ(kubeconfig, (fs::absolute(data) / "kubeconfig").string());
    ASSERT_TRUE(fs::exists(kubeconfig));

    if (kubectl) {
      const CommandResult ns = Kubectl(kubeconfig, "get ns -o name");
      ASSERT_EQ(ns.exit_code, 0) << ns.output;
      EXPECT_EQ(ns.output, "namespace/default\nnamespace/kube-public\nnamespace/kube-system\n");
      const std::string cm = (dir_ / "cm.yaml").string();
      FILE* f = std::fopen(cm.c_str(), "w");
      ASSERT_NE(f, nullptr);
      std::fputs("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: survives\n  namespace: default\ndata:\n  k: v\n", f);
      std::fclose(f);
      const CommandResult created = Kubectl(kubeconfig, "create -f " + cm);
      ASSERT_EQ(created.exit_code, 0) << created.output;
    }
    EXPECT_EQ(server.SignalAndWait(sig), "exit 0");
    EXPECT_EQ(server.Line(), "") << "nothing more on stdout";
  }
  if (!kubectl) GTEST_SKIP() << "kubectl not installed: the export line and shutdown were checked";

  // The sqlite store kept the write; the restarted server reuses the PKI, token and kubeconfig.
  ServerProcess again(data, "sqlite");
  again.Line();
  again.Line();
  EXPECT_EQ(again.Line(), "export KUBECONFIG=" + kubeconfig);
  const CommandResult get = Kubectl(kubeconfig, "get cm survives -o jsonpath={.data.k}");
  ASSERT_EQ(get.exit_code, 0) << get.output;
  EXPECT_EQ(get.output, "v");
  EXPECT_EQ(again.SignalAndWait(sig), "exit 0");
}

INSTANTIATE_TEST_SUITE_P(Signals, ApiServerBinaryTest, ::testing::Values(SIGTERM, SIGINT),
                         [](const ::testing::TestParamInfo<int>& param) {
                           return param.param == SIGTERM ? std::string("SIGTERM") : std::string("SIGINT");
                         });

// The port of a "kubecpp-apiserver listening on http://127.0.0.1:<port> (...)" line, or 0.
uint16_t PortOf(const std::string& listening) {
  const std::size_t colon = listening.find(':', listening.find("127.0.0.1"));
  if (colon == std::string::npos) return 0;
  return static_cast<uint16_t>(std::strtoul(listening.c_str() + colon + 1, nullptr, 10));
}

// SIGKILL (a crash) or SIGTERM (graceful: in-flight writes complete, exit code 0) while 8 clients
// write; after a restart every acknowledged write is there and revisions keep increasing.
class ApiServerBinaryCrashTest : public ::testing::TestWithParam<int> {};

TEST_P(ApiServerBinaryCrashTest, StopDuringConcurrentWritesKeepsEveryAcknowledgedWrite) {
  const int sig = GetParam();
  const fs::path dir = fs::temp_directory_path() /
                       ("kubecpp-binary-crash-" + std::to_string(::getpid()) + "-" + std::to_string(sig));
  fs::remove_all(dir);
  const std::string data = (dir / "data").string();
  constexpr int kWriters = 8;
  std::vector<std::vector<std::pair<std::string, int64_t>>> acked(kWriters);  // name, resourceVersion
  {
    ServerProcess server(data, "sqlite", /*tls=*/false);
    const uint16_t port = PortOf(server.Line());
    ASSERT_NE(port, 0);
    std::atomic<bool> stop{false};
    std::atomic<int> total{0};
    std::vector<std::thread> writers;
    for (int w = 0; w < kWriters; ++w) {
      writers.emplace_back([&, w] {
        testing::HttpClient client(port);
        for (int i = 0; !stop.load(); ++i) {
          const std::string name = "w" + std::to_string(w) + "-" + std::to_string(i);
          auto res = client.Post("/api/v1/namespaces/default/configmaps",
                                 R"({"metadata":{"name":")" + name + R"("},"data":{"i":")" + std::to_string(i) + R"("}})");
          if (res.status != 201) return;  // the server is gone
          const auto rv = res.Json().at("metadata").at("resourceVersion").as_string();
          acked[static_cast<std::size_t>(w)].emplace_back(name, std::stoll(std::string(rv)));
          total.fetch_add(1);
        }
      });
    }
    // Kill once a few hundred writes are acknowledged, while the writers are still going.
    while (total.load() < 300) std::this_thread::yield();
    EXPECT_EQ(server.SignalAndWait(sig), sig == SIGKILL ? "signal 9" : "exit 0");
    stop = true;
    for (auto& t : writers) t.join();
  }
  ServerProcess again(data, "sqlite", /*tls=*/false);
  const uint16_t port = PortOf(again.Line());
  ASSERT_NE(port, 0);
  testing::HttpClient client(port);
  int64_t max_rv = 0;
  std::size_t checked = 0;
  for (const auto& writer : acked) {
    for (const auto& [name, rv] : writer) {
      auto res = client.Get("/api/v1/namespaces/default/configmaps/" + name);
      ASSERT_EQ(res.status, 200) << name << " was acknowledged at " << rv << " but is missing: " << res.body;
      EXPECT_EQ(res.Json().at("metadata").at("resourceVersion").as_string(), std::to_string(rv));
      max_rv = std::max(max_rv, rv);
      ++checked;
    }
  }
  EXPECT_GE(checked, 300u);
  auto next = client.Post("/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"after-restart"}})");
  ASSERT_EQ(next.status, 201) << next.body;
  EXPECT_GT(std::stoll(std::string(next.Json().at("metadata").at("resourceVersion").as_string())), max_rv);
  EXPECT_EQ(again.SignalAndWait(SIGTERM), "exit 0");
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Signals, ApiServerBinaryCrashTest, ::testing::Values(SIGKILL, SIGTERM),
                         [](const ::testing::TestParamInfo<int>& param) {
                           return param.param == SIGKILL ? std::string("SIGKILL") : std::string("SIGTERM");
                         });

}  // namespace
}  // namespace kube::apiserver::e2e
