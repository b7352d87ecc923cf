#pragma once

// Helpers shared by the real-client e2e tests: running commands, splitting their output, and an
// embedded API server (memory storage, TLS + bearer token, kubeconfig in a temp data dir).

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <kube/apiserver/apiserver.hpp>

namespace kube::apiserver::e2e {

/// The exit code and the combined stdout/stderr of a finished command.
struct CommandResult {
  int exit_code = -1;  ///< -1 when the command could not be run or was killed by a signal
  std::string output;
};

/// Runs `command` with /bin/sh, stderr merged into stdout, and waits for it.
inline CommandResult RunCommand(const std::string& command) {
  CommandResult r;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  while (const std::size_t n = std::fread(buf, 1, sizeof(buf), pipe)) r.output.append(buf, n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

/// The whitespace-separated fields of one output line.
using Fields = std::vector<std::string>;

/// The fields of each non-empty line of `out`.
inline std::vector<Fields> Lines(const std::string& out) {
  std::vector<Fields> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    Fields fields;
    std::istringstream words(line);
    for (std::string w; words >> w;) fields.push_back(w);
    if (!fields.empty()) lines.push_back(std::move(fields));
  }
  return lines;
}

/// The first line whose first field is `name`, or nullptr.
inline const Fields* Row(const std::vector<Fields>& lines, const std::string& name) {
  auto it = std::find_if(lines.begin(), lines.end(), [&](const Fields& f) { return f[0] == name; });
  return it == lines.end() ? nullptr : &*it;
}

/// A line-by-line reader of a running command's output (stderr merged), for `kubectl get -w`.
/// The command runs in its own process group; `Stop()` (and the destructor) end it with SIGTERM.
class LineStream {
 public:
  /// Starts `/bin/sh -c command`.
  explicit LineStream(const std::string& command) {
    int fds[2];
    if (::pipe(fds) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);
      ::dup2(fds[1], 1);
      ::dup2(fds[1], 2);
      ::close(fds[0]);
      ::close(fds[1]);
      ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    if (pid_ < 0) {
      ::close(fds[0]);
      return;
    }
    ::setpgid(pid_, pid_);
    pipe_ = ::fdopen(fds[0], "r");
  }
  /// Stops the command.
  ~LineStream() { Stop(); }
  LineStream(const LineStream&) = delete;
  LineStream& operator=(const LineStream&) = delete;

  /// The next line without '\n'; false at end of output. Every line read is kept in `seen()`.
  bool Next(std::string& line) {
    if (pipe_ == nullptr) return false;
    line.clear();
    char buf[4096];
    while (std::fgets(buf, sizeof(buf), pipe_) != nullptr) {
      line += buf;
      if (!line.empty() && line.back() == '\n') {
        line.pop_back();
        seen_ += line + "\n";
        return true;
      }
    }
    seen_ += line;
    return !line.empty();
  }
  /// Reads lines until one contains every string of `needles`; false at end of output.
  bool WaitFor(const std::vector<std::string>& needles) {
    for (std::string line; Next(line);) {
      if (std::all_of(needles.begin(), needles.end(),
                      [&](const std::string& n) { return line.find(n) != std::string::npos; })) {
        return true;
      }
    }
    return false;
  }
  /// Everything read so far.
  const std::string& seen() const { return seen_; }
  /// Sends SIGTERM to the command's process group and reaps it. Idempotent.
  void Stop() {
    if (pid_ > 0) {
      ::kill(-pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
    }
    if (pipe_ != nullptr) std::fclose(pipe_);
    pipe_ = nullptr;
  }

 private:
  pid_t pid_ = -1;
  FILE* pipe_ = nullptr;
  std::string seen_;
};

/// An embedded API server in a fresh temp data dir: memory storage, TLS and token authentication
/// with the generated kubeconfig. The directory is removed on destruction.
class TestServer {
 public:
  /// Starts the server; check `error()` before use.
  explicit TestServer(const std::string& tag) {
    dir_ = std::filesystem::temp_directory_path() / ("kubecpp-" + tag + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    ApiServerOptions options;
    options.data_dir = (dir_ / "data").string();
    options.storage = ApiServerOptions::StorageKind::kMemory;
    auto server = ApiServer::Start(options);
    if (!server.ok()) {
      error_ = server.error().message;
      return;
    }
    server_ = std::move(server).value();
  }
  ~TestServer() {
    server_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  /// Empty when the server started.
  const std::string& error() const { return error_; }
  /// The temp directory (holds `data/` and anything a test writes).
  const std::filesystem::path& dir() const { return dir_; }
  /// The running server.
  ApiServer& server() { return *server_; }

  /// The kubectl command prefix: kubeconfig, private HOME and cache dir, a request timeout.
  std::string KubectlPrefix() const {
    return "HOME=" + dir_.string() + " kubectl --kubeconfig=" + server_->kubeconfig_path() +
           " --cache-dir=" + (dir_ / "cache").string() + " --request-timeout=30s ";
  }
  /// Runs `kubectl <args>`.
  CommandResult Kubectl(const std::string& args) const { return RunCommand(KubectlPrefix() + args); }
  /// Writes `content` to `<dir>/<name>` and returns the path.
  std::string WriteFile(const std::string& name, const std::string& content) const {
    const std::filesystem::path file = dir_ / name;
    FILE* f = std::fopen(file.c_str(), "w");
    if (f != nullptr) {
      std::fwrite(content.data(), 1, content.size(), f);
      std::fclose(f);
    }
    return file.string();
  }

 private:
  std::filesystem::path dir_;
  std::string error_;
  std::unique_ptr<ApiServer> server_;
};

/// True when kubectl runs.
inline bool HaveKubectl() { return RunCommand("kubectl version --client").exit_code == 0; }

/// A kubectl test suite: one TestServer per suite (`Derived::kTag` names its temp dir), skipped
/// when kubectl is missing, and the helpers every suite uses. CRTP so each suite has its own server.
template <typename Derived>
class KubectlSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!HaveKubectl()) return;
    server_ = new TestServer(Derived::kTag);
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    if (server_ == nullptr) GTEST_SKIP() << "kubectl not installed";
    ASSERT_EQ(server_->error(), "");
  }

  /// Runs `kubectl <args>` against the suite's server.
  static CommandResult Kubectl(const std::string& args) { return server_->Kubectl(args); }
  /// Runs kubectl, expects success, returns the output.
  static std::string Ok(const std::string& args) {
    const CommandResult r = Kubectl(args);
    EXPECT_EQ(r.exit_code, 0) << "kubectl " << args << "\n" << r.output;
    return r.output;
  }
  /// Writes a file into the suite's temp dir; returns its path.
  static std::string File(const std::string& name, const std::string& content) {
    return server_->WriteFile(name, content);
  }
  /// `kubectl get <what> -o jsonpath='<path>'`.
  static std::string JsonPath(const std::string& what, const std::string& path) {
    return Ok("get " + what + " -o jsonpath='" + path + "'");
  }
  /// Creates namespace `ns` from a manifest (`kubectl create namespace` sends protobuf).
  static void Namespace(const std::string& ns) {
    const std::string out =
        Ok("create -f " + File(ns + "-ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + ns + "\n"));
    EXPECT_EQ(out, "namespace/" + ns + " created\n");
  }

  static inline TestServer* server_ = nullptr;
};

}  // namespace kube::apiserver::e2e
