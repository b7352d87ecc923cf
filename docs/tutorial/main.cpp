// greeting-operator: for every Greeting, a ConfigMap `<name>-greeting` holding the message, owned
// by the Greeting (deleted with it), and the message in the Greeting's status. docs/tutorial.md
// builds this file step by step.
#include <kube/kube.hpp>

#include <string>
#include <string_view>

using namespace kube;
using namespace kube::controller;

const GroupVersionResource kGreetings{"tutorial.kubecpp.io", "v1", "greetings"};
const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};

// The whole desired state, computed from the Greeting's spec.
std::string MessageFor(const Object& greeting) {
  std::string message = "Hello, " + greeting.GetString("/spec/name").value_or("stranger");
  return message + (greeting.Get("/spec/excited") == boost::json::value(true) ? "!!!" : ".");
}

int main(int argc, char** argv) {
  client::LoadOptions load;
  if (argc == 3 && std::string_view(argv[1]) == "--kubeconfig") load.kubeconfig_path = argv[2];
  auto config = client::LoadConfig(load);
  if (!config) return log::Error("config", {{"error", config.error().message}}), 1;

  auto mgr = Manager::Create({.config = config->config,
                              .probe_bind_address = "127.0.0.1:0",
                              .leader_election = {.enabled = true, .id = "greeting-operator"}});
  if (!mgr) return log::Error("manager", {{"error", mgr.error().message}}), 1;
  Client& c = (*mgr)->GetClient();

  auto ctrl = ControllerManagedBy(**mgr).For(kGreetings).Owns(kConfigMaps).Complete(
      [&](ReconcileContext& ctx, const Request& req) -> Result<ReconcileResult> {
        auto greeting = c.Get(kGreetings, req.key, ctx.stop);
        if (!greeting) {
          // Deleted: the garbage collector removes the ConfigMap it owned. Nothing to do.
          if (IsNotFound(greeting.error())) return ReconcileResult::Done();
          return greeting.error();
        }
        const std::string message = MessageFor(**greeting);

        // 1. The owned ConfigMap, created or updated to match.
        ObjectBuilder seed("v1", "ConfigMap");
        seed.SetNamespace(req.key.ns).SetName(req.key.name + "-greeting");
        auto cm = CreateOrUpdate(c.Api(kConfigMaps, req.key.ns), seed, [&](ObjectBuilder& obj) -> Result<void> {
          if (auto set = obj.Set("/data/message", boost::json::string(message)); !set) return set;
          return SetControllerReference(**greeting, obj);
        });
        if (!cm) return cm.error();  // retried with backoff (a 409 Conflict too)
        if (cm->operation != OperationResult::kUnchanged) {
          ctx.log.Info("configmap", {{"operation", ToString(cm->operation)}});
        }

        // 2. The status: what we did, for which generation of the spec.
        auto status = UpdateStatus(
            c.Api(kGreetings, req.key.ns), req.key,
            [&](ObjectBuilder& obj) { return obj.Set("/status/message", boost::json::string(message)); },
            {.observed_generation = (*greeting)->Generation()});  // the spec we acted on
        if (!status) return status.error();
        return ReconcileResult::Done();
      });
  if (!ctrl) return log::Error("controller", {{"error", ctrl.error().message}}), 1;

  auto done = (*mgr)->Start(SetupSignalHandler());
  return done ? 0 : (log::Error("manager stopped", {{"error", done.error().message}}), 1);
}
