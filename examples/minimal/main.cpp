// A complete controller in about twenty lines: every ConfigMap gets the label
// `example.kubecpp.io/seen=true`. Run it against any cluster (kubeconfig, KUBECONFIG or
// in-cluster); Ctrl-C stops it gracefully.
#include <kube/kube.hpp>

using namespace kube;
using namespace kube::controller;

int main() {
  auto config = client::LoadConfig({});
  if (!config) return log::Error("config", {{"error", config.error().message}}), 1;
  auto mgr = Manager::Create({.config = config->config, .probe_bind_address = "127.0.0.1:8081"});
  if (!mgr) return log::Error("manager", {{"error", mgr.error().message}}), 1;
  Client& c = (*mgr)->GetClient();
  const GroupVersionResource configmaps{"", "v1", "configmaps"};
  auto ctrl = ControllerManagedBy(**mgr).For(configmaps).Complete(
      [&](ReconcileContext& ctx, const Request& req) -> Result<ReconcileResult> {
        auto cm = c.Get(configmaps, req.key, ctx.stop);
        if (!cm) return IsNotFound(cm.error()) ? Result<ReconcileResult>(ReconcileResult::Done()) : cm.error();
        if ((*cm)->Labels().Get("example.kubecpp.io/seen") == "true") return ReconcileResult::Done();
        auto patched = c.Patch(**cm, PatchType::kMerge, R"({"metadata":{"labels":{"example.kubecpp.io/seen":"true"}}})");
        if (!patched) return patched.error();
        ctx.log.Info("labelled");
        return ReconcileResult::Done();
      });
  if (!ctrl) return log::Error("controller", {{"error", ctrl.error().message}}), 1;
  auto done = (*mgr)->Start(SetupSignalHandler());
  return done ? 0 : (log::Error("manager stopped", {{"error", done.error().message}}), 1);
}
