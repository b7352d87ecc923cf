// kubecpp-website-operator: the operator of the `Website` custom resource (website_types.hpp).
// Each Website gets a ConfigMap `<name>-content` (index.html) and a Deployment `<name>` of nginx
// pods; its status reports readyReplicas, url and a Ready condition. Safe to run against a real
// cluster: it touches only Websites and the objects they own.
//
//   kubecpp-website-operator --install-crd [--kubeconfig PATH] [--metrics-bind-address 127.0.0.1:8080]
//                            [--leader-elect=false] [--leader-election-id website-operator]
//                            [--leader-election-namespace default] [--identity NAME]
//
// Leader election is on by default: run several replicas, one reconciles. SIGINT/SIGTERM stop it
// gracefully (the lease is released so another replica takes over at once). See README.md.
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>

#include <kube/kube.hpp>

#include "crd_install.hpp"
#include "website.hpp"

using namespace kube;
namespace ws = kube::examples::website;

namespace {

std::string DefaultIdentity() {
  char host[256] = {};
  if (::gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  return std::string(host[0] != '\0' ? host : "unknown") + "_" + std::to_string(::getpid());
}

Clock::Duration Seconds(double s) {
  return std::chrono::duration_cast<Clock::Duration>(std::chrono::duration<double>(s));
}

}  // namespace

int main(int argc, char** argv) {
  std::string kubeconfig;
  std::string metrics_bind_address;
  bool leader_elect = true;
  std::string leader_election_id = "website-operator";
  std::string leader_election_namespace = "default";
  std::string identity;
  bool install_crd = false;
  double lease_duration = 15, renew_deadline = 10, retry_period = 2;
  std::string log_level = "info";

  CLI::App app{"The Website operator: a ConfigMap and an nginx Deployment per Website custom resource."};
  app.add_option("--kubeconfig", kubeconfig, "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)");
  app.add_option("--metrics-bind-address", metrics_bind_address,
                 "host:port serving /healthz /readyz /metrics (empty = disabled, port 0 = any free port)");
  app.add_flag("--leader-elect,!--no-leader-elect", leader_elect,
               "elect a leader through a Lease; only the leader reconciles (default on; --leader-elect=false or "
               "--no-leader-elect to disable)");
  app.add_option("--leader-election-id", leader_election_id, "name of the Lease")->capture_default_str();
  app.add_option("--leader-election-namespace", leader_election_namespace, "namespace of the Lease")
      ->capture_default_str();
  app.add_option("--identity", identity, "this replica's identity in the Lease (default: <hostname>_<pid>)");
  app.add_option("--lease-duration", lease_duration, "seconds a leader's lease is valid")->capture_default_str();
  app.add_option("--renew-deadline", renew_deadline, "seconds the leader keeps trying to renew")->capture_default_str();
  app.add_option("--retry-period", retry_period, "seconds between election attempts")->capture_default_str();
  app.add_flag("--install-crd", install_crd,
               "apply the Website CRD (CrdOf<Website>, compiled in) on start and wait until it is Established");
  app.add_option("--log-level", log_level, "trace|debug|info|warn|error")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  log::Level level{};
  if (!log::ParseLevel(log_level, level)) return log::Error("unknown --log-level", {{"level", log_level}}), 2;
  log::Setup({.level = level});
  if (identity.empty()) identity = DefaultIdentity();
  const std::stop_token stop = controller::SetupSignalHandler();

  auto config = client::LoadConfig({.kubeconfig_path = kubeconfig});
  if (!config) return log::Error("loading configuration", {{"error", config.error().message}}), 1;

  if (install_crd) {
    auto rest = client::RestClient::Create(config->config);
    if (!rest) return log::Error("creating client", {{"error", rest.error().message}}), 1;
    auto crd = ws::InstallWebsiteCrd(*rest, stop);
    if (!crd) return log::Error("installing the Website CRD", {{"error", crd.error().message}}), 1;
    log::Info("website CRD established", {{"name", ws::kWebsiteCrdName}});
  }

  auto mgr = controller::Manager::Create({
      .config = config->config,
      .probe_bind_address = metrics_bind_address,
      .leader_election = {.enabled = leader_elect,
                          .id = leader_election_id,
                          .ns = leader_election_namespace,
                          .identity = identity,
                          .lease_duration = Seconds(lease_duration),
                          .renew_deadline = Seconds(renew_deadline),
                          .retry_period = Seconds(retry_period)},
      // A reconcile right after a write reads the cache at least at that write (see website.hpp).
      .client = {.read_your_writes = true},
  });
  if (!mgr) return log::Error("creating manager", {{"error", mgr.error().message}}), 1;

  auto broadcaster = controller::EventBroadcaster::Create(
      controller::NewApiEventSink(client::DynamicClient((*mgr)->GetRestClient())));
  auto recorder = broadcaster->NewRecorder("website-operator");
  // Right after the CRD is Established, discovery may not list it yet (the RESTMapper refreshes at
  // most once a second, and API servers publish discovery a moment after Established): retry for
  // a while before giving up.
  auto ctrl = ws::SetupWebsiteController(**mgr, *recorder);
  for (int attempt = 0; !ctrl && client::IsNoMatch(ctrl.error()) && attempt < 30 && !stop.stop_requested(); ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    (*mgr)->GetRestMapper().Reset();
    ctrl = ws::SetupWebsiteController(**mgr, *recorder);
  }
  if (!ctrl) {
    log::Error("creating controller (is the CRD installed? use --install-crd or kubectl apply -f deploy/crd.yaml)",
               {{"error", ctrl.error().message}});
    return 1;
  }

  log::Info("starting", {{"identity", identity},
                         {"leaderElect", leader_elect},
                         {"lease", leader_election_namespace + "/" + leader_election_id},
                         {"config", config->source}});
  auto done = (*mgr)->Start(stop);
  broadcaster->Shutdown();
  if (!done) return log::Error("manager stopped", {{"error", done.error().message}}), 1;
  log::Info("stopped");
  return 0;
}
