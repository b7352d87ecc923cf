// A complete controller in about twenty lines: every ConfigMap gets the label
// `example.kubecpp.io/seen=true`. Run it against any cluster (kubeconfig, KUBECONFIG or
// in-cluster); Ctrl-C stops it gracefully.
#include <kube/kube.hpp>
#include <kube/api/core/v1.hpp>

using namespace kube;
using namespace kube::controller;
using kube::api::core::v1::ConfigMap;

int main() {
  auto config = client::LoadConfig({});
  if (!config) return log::Error("config", {{"error", config.error().message}}), 1;
  auto mgr = Manager::Create({.config = config->config, .probe_bind_address = "127.0.0.1:8081"});
  if (!mgr) return log::Error("manager", {{"error", mgr.error().message}}), 1;
  Client& c = (*mgr)->GetClient();
  auto ctrl = ControllerManagedBy(**mgr).For<ConfigMap>().Complete(AsReconciler<ConfigMap>(
      c, [&](ReconcileContext& ctx, ConfigMap& cm) -> Result<ReconcileResult> {
        if (cm.metadata.labels["example.kubecpp.io/seen"] == "true") return ReconcileResult::Done();
        ConfigMap labelled = cm;
        labelled.metadata.labels["example.kubecpp.io/seen"] = "true";
        auto patched = c.Patch(labelled, MergeFrom(cm));  // sends only the new label
        if (!patched) return patched.error();
        ctx.log.Info("labelled");
        return ReconcileResult::Done();
      }));
  if (!ctrl) return log::Error("controller", {{"error", ctrl.error().message}}), 1;
  auto done = (*mgr)->Start(SetupSignalHandler());
  return done ? 0 : (log::Error("manager stopped", {{"error", done.error().message}}), 1);
}
