#include <kube/controller/manager.hpp>

#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <mutex>
#include <thread>

#include <kube/base/log.hpp>

namespace kube::controller {
namespace {

std::atomic<int> g_signals{0};
int g_pipe[2] = {-1, -1};

extern "C" void OnSignal(int) {
  // Async-signal-safe only: count, then wake the watcher through the pipe.
  if (g_signals.fetch_add(1) >= 1) std::_Exit(1);
  const char byte = 's';
  [[maybe_unused]] ssize_t n = ::write(g_pipe[1], &byte, 1);
}

// Owns the watcher thread; the static instance is destroyed (and the thread joined) at exit.
class SignalWatcher final {
 public:
  SignalWatcher() {
    if (::pipe(g_pipe) != 0) {
      log::Error("SetupSignalHandler: pipe() failed; signals will not stop the manager");
      return;
    }
    struct sigaction sa = {};
    sa.sa_handler = OnSignal;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
    thread_ = std::jthread([this](std::stop_token st) { Watch(st); });
  }
  ~SignalWatcher() {
    if (!thread_.joinable()) return;
    thread_.request_stop();
    const char byte = 'q';
    [[maybe_unused]] ssize_t n = ::write(g_pipe[1], &byte, 1);
    thread_.join();
  }
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

  std::stop_token Token() const { return source_.get_token(); }

 private:
  void Watch(std::stop_token st) {
    while (!st.stop_requested()) {
      char byte = 0;
      const ssize_t n = ::read(g_pipe[0], &byte, 1);
      if (n <= 0) continue;
      if (byte == 's' && !source_.stop_requested()) {
        log::Info("received a termination signal; shutting down (a second signal exits at once)");
        source_.request_stop();
      }
    }
  }

  std::stop_source source_;
  std::jthread thread_;
};

}  // namespace

std::stop_token SetupSignalHandler() {
  static SignalWatcher watcher;
  return watcher.Token();
}

}  // namespace kube::controller
