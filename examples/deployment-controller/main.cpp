// kubecpp-deployment-controller: a small working control plane on top of any API server —
// the Deployment controller, the ReplicaSet controller and a simulated kubelet in one Manager.
// See README.md in this directory.
#include <charconv>
#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>

#include <kube/kube.hpp>

#include "control_plane.hpp"

namespace {

constexpr std::string_view kUsage = R"(Usage: kubecpp-deployment-controller [flags]

Runs the Deployment controller, the ReplicaSet controller and a simulated kubelet in one
controller Manager against the cluster of the kubeconfig.

Flags:
  --kubeconfig PATH               kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, in-cluster)
  --metrics-bind-address H:P      serve /healthz /readyz /metrics there (default: disabled)
  --kubelet-ready-delay-ms N      time from binding a pod to reporting it Ready (default 1000)
  --no-kubelet                    do not run the simulated kubelet (a real cluster has its own)
  --workers N                     concurrent reconciles per controller (default 2)
  --kube-api-qps Q                client-side request rate limit (default 50; negative = none)
  --kube-api-burst N              client-side burst (default 100)
  --help                          show this help
)";

struct Flags {
  std::string kubeconfig;
  std::string metrics_bind_address;
  long long ready_delay_ms = 1000;
  bool kubelet = true;
  int workers = 2;
  double qps = 50;
  int burst = 100;
};

bool ParseInt(std::string_view text, long long& out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size() && out >= 0;
}

bool ParseDouble(std::string_view text, double& out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size() && out != 0;
}

// Returns 0 to run, 1 for a usage error, 2 for --help.
int ParseFlags(int argc, char** argv, Flags& flags) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string_view value;
    bool has_value = false;
    if (auto eq = arg.find('='); arg.starts_with("--") && eq != std::string_view::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    auto need_value = [&]() -> bool {
      if (has_value) return true;
      if (i + 1 >= argc) return false;
      value = argv[++i];
      return true;
    };
    long long n = 0;
    if (arg == "--help" || arg == "-h") return 2;
    if (arg == "--no-kubelet") {
      flags.kubelet = false;
    } else if (arg == "--kubeconfig" && need_value()) {
      flags.kubeconfig = value;
    } else if (arg == "--metrics-bind-address" && need_value()) {
      flags.metrics_bind_address = value;
    } else if (arg == "--kubelet-ready-delay-ms" && need_value() && ParseInt(value, n)) {
      flags.ready_delay_ms = n;
    } else if (arg == "--workers" && need_value() && ParseInt(value, n) && n >= 1 && n <= 1000) {
      flags.workers = static_cast<int>(n);
    } else if (arg == "--kube-api-qps" && need_value() && ParseDouble(value, flags.qps)) {
    } else if (arg == "--kube-api-burst" && need_value() && ParseInt(value, n) && n >= 1 && n <= 100000) {
      flags.burst = static_cast<int>(n);
    } else {
      std::fprintf(stderr, "kubecpp-deployment-controller: invalid flag or value: %s\n\n%s", argv[i], kUsage.data());
      return 1;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kube;
  Flags flags;
  if (int r = ParseFlags(argc, argv, flags); r != 0) {
    if (r == 2) std::fputs(kUsage.data(), stdout);
    return r == 2 ? 0 : 2;
  }
  const std::stop_token stop = controller::SetupSignalHandler();
  auto config = client::LoadConfig({.kubeconfig_path = flags.kubeconfig});
  if (!config) return log::Error("loading the client configuration", {{"error", config.error().message}}), 1;
  // Three controllers, a kubelet and their events share one client: client-go's 5 QPS would
  // make every rollout step wait for tokens.
  config->config.qps = flags.qps;
  config->config.burst = flags.burst;
  auto mgr = controller::Manager::Create({.config = config->config,
                                          .probe_bind_address = flags.metrics_bind_address});
  if (!mgr) return log::Error("creating the manager", {{"error", mgr.error().message}}), 1;
  auto cp = deployctl::ControlPlane::Setup(
      **mgr, {.workers = flags.workers,
              .kubelet = flags.kubelet,
              .kubelet_options = {.ready_delay = std::chrono::milliseconds(flags.ready_delay_ms)}});
  if (!cp) return log::Error("setting up the controllers", {{"error", cp.error().message}}), 1;
  log::Info("starting", {{"source", config->source},
                         {"workers", flags.workers},
                         {"kubelet", flags.kubelet},
                         {"kubeletReadyDelayMs", flags.ready_delay_ms},
                         {"qps", flags.qps},
                         {"burst", flags.burst},
                         {"metrics", flags.metrics_bind_address}});
  auto done = (*mgr)->Start(stop);
  cp->reset();  // flush events while the manager's client still exists
  if (!done) return log::Error("manager stopped", {{"error", done.error().message}}), 1;
  log::Info("stopped");
  return 0;
}
