// An out-of-tree program built against the *installed* kubecpp package (tests/package/run.sh
// builds it twice: with find_package(kubecpp CONFIG) and with pkg-config).
//
// A tiny controller: every ConfigMap gets the label `consumer.kubecpp.io/seen=true`.
//
//   kubecpp-consumer [--kubeconfig PATH] [--metrics-bind-address HOST:PORT] [--self-test]
//
// --self-test creates the ConfigMap default/consumer-probe, runs the controller until the probe
// carries the label (exit 0) or 60 s pass (exit 1), and stops the manager itself.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>

#include <kube/kube.hpp>

using namespace kube;
using namespace kube::controller;

namespace {

constexpr const char* kLabel = "consumer.kubecpp.io/seen";

int Usage(int code) {
  std::printf(
      "usage: kubecpp-consumer [--kubeconfig PATH] [--metrics-bind-address HOST:PORT] [--self-test]\n"
      "Labels every ConfigMap %s=true.\n",
      kLabel);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  client::LoadOptions load;
  std::string metrics;
  bool self_test = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return Usage(0);
    if (arg == "--self-test") {
      self_test = true;
    } else if (arg == "--kubeconfig" && i + 1 < argc) {
      load.kubeconfig_path = argv[++i];
    } else if (arg == "--metrics-bind-address" && i + 1 < argc) {
      metrics = argv[++i];
    } else {
      std::fprintf(stderr, "unknown argument: %s\n", arg.c_str());
      return Usage(2);
    }
  }

  auto config = client::LoadConfig(load);
  if (!config) return log::Error("config", {{"error", config.error().message}}), 1;
  auto mgr = Manager::Create({.config = config->config, .probe_bind_address = metrics});
  if (!mgr) return log::Error("manager", {{"error", mgr.error().message}}), 1;
  Client& c = (*mgr)->GetClient();
  const GroupVersionResource configmaps{"", "v1", "configmaps"};

  std::stop_source stop;
  std::atomic<bool> probe_labelled{false};
  auto ctrl = ControllerManagedBy(**mgr).For(configmaps).Complete(
      [&](ReconcileContext& ctx, const Request& req) -> Result<ReconcileResult> {
        auto cm = c.Get(configmaps, req.key, ctx.stop);
        if (!cm) return IsNotFound(cm.error()) ? Result<ReconcileResult>(ReconcileResult::Done()) : cm.error();
        if ((*cm)->Labels().Get(kLabel) != "true") {
          auto patched = c.Patch(**cm, PatchType::kMerge,
                                 std::string(R"({"metadata":{"labels":{")") + kLabel + R"(":"true"}}})");
          if (!patched) return patched.error();
          ctx.log.Info("labelled");
        }
        if (self_test && req.key.name == "consumer-probe") {
          probe_labelled = true;
          stop.request_stop();
        }
        return ReconcileResult::Done();
      });
  if (!ctrl) return log::Error("controller", {{"error", ctrl.error().message}}), 1;

  std::jthread watchdog;
  if (self_test) {
    auto probe = Object::Parse(
        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"consumer-probe","namespace":"default"}})");
    if (!probe) return log::Error("probe", {{"error", probe.error().message}}), 1;
    auto created = c.Create(**probe);
    if (!created && !IsAlreadyExists(created.error())) {
      return log::Error("create probe", {{"error", created.error().message}}), 1;
    }
    // A deadline: the manager stops at once when the probe is labelled, at the latest after 60 s.
    watchdog = std::jthread([&stop](std::stop_token own) {
      std::mutex mu;
      std::condition_variable_any cv;
      std::unique_lock lock(mu);
      cv.wait_for(lock, own, std::chrono::seconds(60), [] { return false; });
      stop.request_stop();
    });
  }
  // Ctrl-C / SIGTERM stop a normal run.
  auto done = (*mgr)->Start(self_test ? stop.get_token() : SetupSignalHandler());
  watchdog.request_stop();
  if (!done) return log::Error("manager stopped", {{"error", done.error().message}}), 1;
  if (self_test) {
    std::printf("self-test: %s\n", probe_labelled ? "consumer-probe labelled" : "TIMEOUT");
    return probe_labelled ? 0 : 1;
  }
  return 0;
}
