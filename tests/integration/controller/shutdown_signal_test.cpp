// Graceful shutdown with real signals: a separate operator process (controller_shutdown_helper,
// built by CMake) runs a Manager against the in-process API server; the test sends it SIGTERM
// while a slow reconcile is in flight and checks controller-runtime's behaviour: the in-flight
// reconcile finishes, nothing new starts, /metrics answers during the shutdown, the exit code is
// 0; and a second signal exits at once with code 1.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <kube/apiserver/apiserver.hpp>
#include <kube/kube.hpp>

#include "../apiserver/test_client.hpp"
#include "../../support/in_process_server.hpp"

extern char** environ;

namespace kube::controller {
namespace {

using namespace std::chrono_literals;

const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};

// The helper process: stdin and stdout through pipes, stdout collected line by line.
class Helper {
 public:
  explicit Helper(const std::string& server_url) {
    int in[2];
    int out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    std::string path = KUBE_SHUTDOWN_HELPER;
    std::vector<char*> argv = {path.data(), const_cast<char*>(server_url.c_str()), nullptr};
    const int rc = ::posix_spawn(&pid_, path.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    stdin_ = in[1];
    if (rc != 0) {
      pid_ = -1;
      ::close(out[0]);
      return;
    }
    reader_ = std::thread([this, fd = out[0]] { Read(fd); });
  }
  ~Helper() {
    if (pid_ > 0 && !exit_status_) {
      ::kill(pid_, SIGKILL);
      (void)Wait(30s);
    }
    CloseStdin();
    if (reader_.joinable()) reader_.join();
  }
  Helper(const Helper&) = delete;
  Helper& operator=(const Helper&) = delete;

  bool Started() const { return pid_ > 0; }
  void Signal(int sig) { ::kill(pid_, sig); }
  void Release() {
    const char nl = '\n';
    [[maybe_unused]] ssize_t n = ::write(stdin_, &nl, 1);
  }
  void CloseStdin() {
    if (stdin_ >= 0) ::close(stdin_);
    stdin_ = -1;
  }

  // The first line starting with `prefix`, waiting up to `limit` for it.
  std::optional<std::string> WaitForLine(const std::string& prefix, std::chrono::seconds limit = 60s) {
    std::unique_lock lock(mu_);
    std::optional<std::string> found;
    cv_.wait_for(lock, limit, [&] {
      for (const auto& l : lines_) {
        if (l.rfind(prefix, 0) == 0) {
          found = l;
          return true;
        }
      }
      return eof_;
    });
    return found;
  }
  bool HasLine(const std::string& line) {
    std::lock_guard lock(mu_);
    for (const auto& l : lines_) {
      if (l == line) return true;
    }
    return false;
  }
  std::string Transcript() {
    std::lock_guard lock(mu_);
    std::string all;
    for (const auto& l : lines_) all += l + "\n";
    return all;
  }

  // The wait status once the process ended, or nullopt after `limit`.
  std::optional<int> Wait(std::chrono::seconds limit) {
    if (exit_status_) return exit_status_;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      const pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        exit_status_ = status;
        return exit_status_;
      }
      std::this_thread::sleep_for(5ms);  // integration test: a real child process
    }
    return std::nullopt;
  }

 private:
  void Read(int fd) {
    std::string partial;
    char buf[512];
    while (true) {
      const ssize_t n = ::read(fd, buf, sizeof(buf));
      if (n <= 0) break;
      partial.append(buf, static_cast<std::size_t>(n));
      std::size_t nl;
      while ((nl = partial.find('\n')) != std::string::npos) {
        std::lock_guard lock(mu_);
        lines_.push_back(partial.substr(0, nl));
        partial.erase(0, nl + 1);
        cv_.notify_all();
      }
    }
    ::close(fd);
    std::lock_guard lock(mu_);
    eof_ = true;
    cv_.notify_all();
  }

  pid_t pid_ = -1;
  int stdin_ = -1;
  std::optional<int> exit_status_;
  std::thread reader_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> lines_;  // guarded by mu_
  bool eof_ = false;                // guarded by mu_
};

class ShutdownSignalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto started = test_support::StartInProcessServer();
    ASSERT_TRUE(started.ok()) << started.error().message;
    server_ = std::move(started->server);
    url_ = started->url;
    rest_ = started->rest;
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }
  void CreateConfigMap(const std::string& name) {
    auto obj = Object::Parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
                             R"(","namespace":"default"}})");
    ASSERT_TRUE(obj.ok());
    auto created = client::Api(rest_, kConfigMaps, "default").Create(**obj);
    ASSERT_TRUE(created.ok()) << created.error().message;
  }
  // Starts the helper and waits until it is ready and its slow reconcile is in flight, with a
  // second object queued behind it. Returns the probe port (0 on failure).
  int StartWithSlowReconcileInFlight(Helper& helper) {
    if (!helper.Started()) return 0;
    auto ready = helper.WaitForLine("ready ");
    if (!ready) return 0;
    const int port = std::stoi(ready->substr(6));
    CreateConfigMap("slow");
    if (!helper.WaitForLine("start default/slow")) return 0;
    CreateConfigMap("later");
    // One worker: "later" waits in the queue behind the slow reconcile.
    apiserver::testing::HttpClient probe(static_cast<uint16_t>(port));
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (probe.Get("/metrics").body.find("workqueue_depth{name=\"configmap\"} 1\n") == std::string::npos) {
      if (std::chrono::steady_clock::now() > deadline) return 0;
      std::this_thread::sleep_for(5ms);  // integration test: polling another process
    }
    return port;
  }

  std::unique_ptr<apiserver::ApiServer> server_;
  std::string url_;
  std::shared_ptr<client::RestClient> rest_;
};

TEST_F(ShutdownSignalTest, SigtermFinishesInFlightReconcileStartsNothingServesMetricsAndExitsZero) {
  Helper helper(url_);
  ASSERT_TRUE(helper.Started()) << KUBE_SHUTDOWN_HELPER;
  const int port = StartWithSlowReconcileInFlight(helper);
  ASSERT_GT(port, 0) << helper.Transcript();

  helper.Signal(SIGTERM);
  ASSERT_TRUE(helper.WaitForLine("stopping")) << helper.Transcript();
  // Shutting down with the reconcile still in flight: the endpoint answers, and shows it.
  apiserver::testing::HttpClient probe(static_cast<uint16_t>(port));
  auto during = probe.Get("/metrics");
  EXPECT_EQ(during.status, 200);
  EXPECT_NE(during.body.find("controller_runtime_active_workers{controller=\"configmap\"} 1\n"), std::string::npos)
      << during.body;
  EXPECT_EQ(probe.Get("/healthz").status, 200);
  EXPECT_FALSE(helper.HasLine("end default/slow"));

  helper.Release();
  const auto status = helper.Wait(60s);
  ASSERT_TRUE(status.has_value()) << helper.Transcript();
  ASSERT_TRUE(WIFEXITED(*status)) << helper.Transcript();
  EXPECT_EQ(WEXITSTATUS(*status), 0) << helper.Transcript();
  EXPECT_TRUE(helper.WaitForLine("exit ok")) << helper.Transcript();
  EXPECT_TRUE(helper.HasLine("end default/slow")) << helper.Transcript();
  EXPECT_FALSE(helper.HasLine("start default/later")) << helper.Transcript();
}

TEST_F(ShutdownSignalTest, SecondSignalExitsAtOnceWithCodeOne) {
  Helper helper(url_);
  ASSERT_TRUE(helper.Started()) << KUBE_SHUTDOWN_HELPER;
  ASSERT_GT(StartWithSlowReconcileInFlight(helper), 0) << helper.Transcript();

  helper.Signal(SIGTERM);
  ASSERT_TRUE(helper.WaitForLine("stopping")) << helper.Transcript();
  helper.Signal(SIGINT);  // the reconcile is never released: only the forced exit ends it
  const auto status = helper.Wait(60s);
  ASSERT_TRUE(status.has_value()) << helper.Transcript();
  ASSERT_TRUE(WIFEXITED(*status)) << helper.Transcript();
  EXPECT_EQ(WEXITSTATUS(*status), 1) << helper.Transcript();
  EXPECT_FALSE(helper.HasLine("end default/slow")) << helper.Transcript();
  EXPECT_FALSE(helper.HasLine("exit ok")) << helper.Transcript();
}

}  // namespace
}  // namespace kube::controller
