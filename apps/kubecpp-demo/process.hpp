/// \file
/// Child processes and tiny loopback HTTP for the demo driver: start a program with its output in a
/// log file (it dies with the driver), stop it with SIGTERM then SIGKILL, find a free port, and GET
/// a plain-HTTP URL on 127.0.0.1 (the controllers' /metrics).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace kube::demo {

/// A program started by the driver.
class ChildProcess {
 public:
  /// Starts `argv[0]` (a path) with `argv`, stdout and stderr appended to `log_path`. The child
  /// gets SIGTERM if the driver dies. **Errors:** returns an unstarted process (`Running()` false,
  /// `error()` says why).
  static ChildProcess Start(std::string name, std::vector<std::string> argv, std::string log_path);

  ChildProcess() = default;
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  /// Stops the process (as `Stop`) if it still runs.
  ~ChildProcess();

  /// True while the process has not exited (reaps it when it has).
  bool Running();
  /// SIGTERM, wait up to `grace`, then SIGKILL. Returns the exit status as `waitpid` reports it
  /// (nullopt if it was not running).
  std::optional<int> Stop(std::chrono::milliseconds grace = std::chrono::seconds(10));

  const std::string& name() const { return name_; }
  pid_t pid() const { return pid_; }
  const std::string& log_path() const { return log_path_; }
  const std::string& error() const { return error_; }
  /// The exit status once reaped (as `waitpid`), else nullopt.
  std::optional<int> exit_status() const { return status_; }

 private:
  std::string name_;
  std::string log_path_;
  std::string error_;
  pid_t pid_ = -1;
  std::optional<int> status_;
};

/// A TCP port on 127.0.0.1 that was free a moment ago (bind to 0, read, close).
int FreeLoopbackPort();

/// GET http://127.0.0.1:`port``path` with a timeout; the body on a 200, else nullopt.
std::optional<std::string> HttpGet(int port, const std::string& path,
                                   std::chrono::milliseconds timeout = std::chrono::seconds(2));

/// The whole content of a file ("" if it cannot be read).
std::string ReadFile(const std::string& path);

}  // namespace kube::demo
