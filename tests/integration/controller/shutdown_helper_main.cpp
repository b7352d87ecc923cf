// A small operator process for the signal tests (shutdown_signal_test.cpp): a Manager with the
// real SetupSignalHandler, a probe endpoint on a free port, and one ConfigMap controller with
// one worker. It reports on stdout, one line per fact, flushed at once:
//   ready <probe port>       the manager runs (printed by a non-leader runnable)
//   start <ns/name>          a reconcile began
//   end <ns/name>            a reconcile finished
//   stopping                 the manager began its graceful shutdown
//   exit ok | exit <error>   Start returned
// A reconcile of an object whose name starts with "slow" blocks until a line arrives on stdin
// (or stdin closes), so that the test decides when the in-flight work ends.
//
// Usage: controller_shutdown_helper <server URL>
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <string>

#include <kube/kube.hpp>

namespace {

std::mutex g_out_mu;

void Say(const std::string& line) {
  std::lock_guard lock(g_out_mu);
  std::fputs((line + "\n").c_str(), stdout);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kube;
  using namespace kube::controller;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <server URL>\n", argv[0]);
    return 2;
  }
  const std::stop_token stop = SetupSignalHandler();
  auto made = Manager::Create({.config = {.host = argv[1], .qps = -1}, .probe_bind_address = "127.0.0.1:0"});
  if (!made.ok()) {
    Say("exit " + made.error().message);
    return 1;
  }
  Manager& mgr = **made;
  const GroupVersionResource configmaps{"", "v1", "configmaps"};
  auto ctrl = ControllerManagedBy(mgr).For(configmaps).Complete(
      [](ReconcileContext&, const Request& r) -> Result<ReconcileResult> {
        Say("start " + r.String());
        if (r.key.name.rfind("slow", 0) == 0) {
          std::string line;
          std::getline(std::cin, line);
        }
        Say("end " + r.String());
        return ReconcileResult::Done();
      });
  if (!ctrl.ok()) {
    Say("exit " + ctrl.error().message);
    return 1;
  }
  auto added = mgr.Add(std::make_shared<RunnableFunc>([&mgr](std::stop_token st) -> Result<void> {
                         Say("ready " + std::to_string(mgr.ProbePort()));
                         std::mutex mu;
                         std::condition_variable_any cv;
                         std::unique_lock lock(mu);
                         cv.wait(lock, st, [] { return false; });
                         Say("stopping");
                         return {};
                       }),
                       {.needs_leader_election = false});
  if (!added.ok()) {
    Say("exit " + added.error().message);
    return 1;
  }
  auto r = mgr.Start(stop);
  Say(r.ok() ? std::string("exit ok") : "exit " + r.error().message);
  return r.ok() ? 0 : 1;
}
