// kubecpp-finalizer-cleanup: exports ConfigMaps labelled `example.kubecpp.io/export=true` as
// files under --dir (<dir>/<namespace>/<name>/<key>) and removes them, through the finalizer
// `example.kubecpp.io/cleanup-files`, before the ConfigMap is deleted or when the label goes.
//
//   kubecpp-finalizer-cleanup --dir /tmp/export [--kubeconfig PATH] [--metrics-bind-address 127.0.0.1:8081]
//
// SIGINT/SIGTERM stop it gracefully. See README.md.
#include <string>

#include <CLI/CLI.hpp>

#include <kube/kube.hpp>

#include "export_reconciler.hpp"
#include "export_store.hpp"

using namespace kube;
namespace fc = kube::examples::finalizer_cleanup;

int main(int argc, char** argv) {
  std::string dir;
  std::string kubeconfig;
  std::string metrics_bind_address;
  std::string log_level = "info";
  CLI::App app{"Exports labelled ConfigMaps as files; a finalizer removes them before deletion."};
  app.add_option("--dir", dir, "directory receiving <namespace>/<name>/<key> files")->required();
  app.add_option("--kubeconfig", kubeconfig, "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)");
  app.add_option("--metrics-bind-address", metrics_bind_address,
                 "host:port serving /healthz /readyz /metrics (empty = disabled, port 0 = any free port)");
  app.add_option("--log-level", log_level, "trace|debug|info|warn|error")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  log::Level level{};
  if (!log::ParseLevel(log_level, level)) return log::Error("unknown --log-level", {{"level", log_level}}), 2;
  log::Setup({.level = level});
  const std::stop_token stop = controller::SetupSignalHandler();

  auto config = client::LoadConfig({.kubeconfig_path = kubeconfig});
  if (!config) return log::Error("loading configuration", {{"error", config.error().message}}), 1;
  // No read-your-writes: a reconcile that reads a stale cache gets a Conflict on its Update and
  // is retried, which is the ordinary controller contract.
  auto mgr = controller::Manager::Create({.config = config->config, .probe_bind_address = metrics_bind_address});
  if (!mgr) return log::Error("creating manager", {{"error", mgr.error().message}}), 1;

  auto broadcaster = controller::EventBroadcaster::Create(
      controller::NewApiEventSink(client::DynamicClient((*mgr)->GetRestClient())));
  auto recorder = broadcaster->NewRecorder("finalizer-cleanup");
  fc::DirectoryStore store(dir);
  auto ctrl = fc::SetupExportController(**mgr, store, *recorder);
  if (!ctrl) return log::Error("creating controller", {{"error", ctrl.error().message}}), 1;

  log::Info("starting", {{"dir", dir}, {"config", config->source}, {"metrics", metrics_bind_address}});
  auto done = (*mgr)->Start(stop);
  broadcaster->Shutdown();
  if (!done) return log::Error("manager stopped", {{"error", done.error().message}}), 1;
  log::Info("stopped");
  return 0;
}
