/// \file
/// Child processes and tiny loopback HTTP for the demo driver: start a program with its output in a
/// log file (it dies with the driver), stop it with SIGTERM then SIGKILL, find a free port, and GET
/// a plain-HTTP URL on 127.0.0.1 (the controllers' /metrics).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <kube/base/mutex.hpp>
#include <kube/base/thread_annotations.hpp>

namespace kube::demo {

/// A program started by the driver. **Thread-safety:** all members may be called from any
/// thread (the live view polls `Running` while a step stops the process).
class ChildProcess {
 public:
  /// Starts `argv[0]` (a path) with `argv`, stdout and stderr appended to `log_path`. The child
  /// gets SIGTERM if the driver dies. **Errors:** the process is not started: `Running()` is
  /// false and `error()` says why.
  static std::unique_ptr<ChildProcess> Start(std::string name, std::vector<std::string> argv,
                                             std::string log_path);

  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  /// Stops the process (as `Stop`) if it still runs.
  ~ChildProcess();

  /// True while the process has not exited (reaps it when it has).
  bool Running() KUBE_EXCLUDES(mu_);
  /// SIGTERM, wait up to `grace`, then SIGKILL. Returns the exit status as `waitpid` reports it
  /// (nullopt if it was not running).
  std::optional<int> Stop(std::chrono::milliseconds grace = std::chrono::seconds(10)) KUBE_EXCLUDES(mu_);

  const std::string& name() const { return name_; }
  const std::string& log_path() const { return log_path_; }
  const std::string& error() const { return error_; }

 private:
  ChildProcess(std::string name, std::string log_path) : name_(std::move(name)), log_path_(std::move(log_path)) {}
  bool RunningLocked() KUBE_REQUIRES(mu_);

  const std::string name_;
  const std::string log_path_;
  std::string error_;  // set by Start only
  Mutex mu_;
  pid_t pid_ KUBE_GUARDED_BY(mu_) = -1;
  std::optional<int> status_ KUBE_GUARDED_BY(mu_);
};

/// A TCP port on 127.0.0.1 that was free a moment ago (bind to 0, read, close).
int FreeLoopbackPort();

/// GET http://127.0.0.1:`port``path` with a timeout; the body on a 200, else nullopt.
std::optional<std::string> HttpGet(int port, const std::string& path,
                                   std::chrono::milliseconds timeout = std::chrono::seconds(2));

/// The whole content of a file ("" if it cannot be read).
std::string ReadFile(const std::string& path);

}  // namespace kube::demo
