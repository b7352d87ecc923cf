#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <kube/apiserver/http_server.hpp>
#include <kube/base/result.hpp>
#include <kube/client/config.hpp>

/// etcd + kube-apiserver as child processes of a test (TestEnvironment's real mode).
namespace kube::testing::internal {

/// How `RealControlPlane::Start` runs the binaries.
struct RealControlPlaneOptions {
  std::filesystem::path assets{};  ///< holds `etcd` and `kube-apiserver`
  std::filesystem::path dir{};     ///< an existing, private, empty dir for this instance
  std::chrono::milliseconds start_timeout = std::chrono::seconds(60);
  std::chrono::milliseconds stop_timeout = std::chrono::seconds(15);
  std::vector<std::string> extra_apiserver_flags{};
};

/// One child process: its own process group, stdin /dev/null, stdout + stderr to a log file,
/// PR_SET_PDEATHSIG(SIGKILL) so that it dies with the thread that started it.
/// **Thread-safety:** none; owned by one RealControlPlane.
class ChildProcess final {
 public:
  /// Forks and execs `argv` (argv[0] a path). **Errors:** 500 when the log cannot be opened or
  /// fork fails (exec failures show as exit status 127 and a log line).
  static Result<ChildProcess> Spawn(const std::vector<std::string>& argv, const std::filesystem::path& log);
  ChildProcess() = default;
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  /// Whether it still runs; reaps it (and records its status) when it has exited.
  bool Running();
  /// "exit status N" / "killed by signal N" once it has exited.
  std::string ExitDescription() const;
  /// SIGTERM, then SIGKILL to its process group after `grace`; reaps it. Idempotent.
  void Stop(std::chrono::milliseconds grace);

 private:
  pid_t pid_ = -1;  // -1 once reaped (or never started)
  int status_ = 0;  // valid once reaped
  bool exited_ = false;
};

/// A running etcd + kube-apiserver pair, with its PKI.
/// **Thread-safety:** the const accessors may be called concurrently; Stop by the owner.
class RealControlPlane final {
 public:
  /// Writes the PKI and token file into `options.dir`, starts etcd and kube-apiserver on free
  /// loopback ports (restarting both on fresh ports when one lost its port to another process,
  /// up to 3 attempts) and waits for `/readyz`.
  /// **Errors:** 400 when a binary is missing; 500 (PKI, spawn, early exit, with the logs'
  /// tail); 504 Timeout when not ready in time (with the logs' tail). Nothing runs on error.
  static Result<std::unique_ptr<RealControlPlane>> Start(RealControlPlaneOptions options);
  ~RealControlPlane();
  RealControlPlane(const RealControlPlane&) = delete;
  RealControlPlane& operator=(const RealControlPlane&) = delete;

  /// https://127.0.0.1:<port>, the serving CA, the `system:masters` token, unthrottled.
  const client::Config& config() const { return config_; }
  /// The CA kube-apiserver trusts for client certificates (--client-ca-file).
  const apiserver::CertificateAndKey& client_ca() const { return client_ca_; }
  /// `<dir>/pki/ca.crt`: the CA of the serving certificate.
  std::filesystem::path ca_file() const { return options_.dir / "pki" / "ca.crt"; }
  /// kube-apiserver's and etcd's pids while they run.
  std::vector<int> pids() const;
  /// The last `bytes` of each log.
  std::string LogTail(std::size_t bytes = 3000) const;
  /// kube-apiserver first, then etcd (SIGTERM, SIGKILL after stop_timeout). Idempotent.
  void Stop();

 private:
  explicit RealControlPlane(RealControlPlaneOptions options) : options_(std::move(options)) {}
  Result<void> WritePki();
  // One attempt: spawn both on fresh ports and wait. `port_taken` is set when a process exited
  // because its port was in use (the caller retries).
  Result<void> Launch(bool& port_taken);

  RealControlPlaneOptions options_;
  client::Config config_;
  apiserver::CertificateAndKey client_ca_;
  ChildProcess etcd_;
  ChildProcess apiserver_;
};

}  // namespace kube::testing::internal
