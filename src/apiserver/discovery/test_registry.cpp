#include "apiserver/discovery/test_registry.hpp"

#include <gtest/gtest.h>

namespace kube::apiserver::testing {
namespace {

ResourceInfo Make(std::string group, std::string resource, std::string singular, std::string kind,
                  bool namespaced, std::vector<std::string> short_names,
                  std::vector<std::string> categories = {}) {
  ResourceInfo r;
  r.group = std::move(group);
  r.version = "v1";
  r.resource = std::move(resource);
  r.singular = std::move(singular);
  r.kind = kind;
  r.list_kind = kind + "List";
  r.namespaced = namespaced;
  r.short_names = std::move(short_names);
  r.categories = std::move(categories);
  return r;
}

}  // namespace

void AddBuiltins(Registry& registry) {
  registry.Add(Make("", "configmaps", "configmap", "ConfigMap", true, {"cm"}));
  registry.Add(Make("", "events", "event", "Event", true, {"ev"}));
  ResourceInfo ns = Make("", "namespaces", "namespace", "Namespace", false, {"ns"});
  ns.verbs = {"create", "delete", "get", "list", "patch", "update", "watch"};
  ns.has_status = true;
  registry.Add(ns);
  ResourceInfo nodes = Make("", "nodes", "node", "Node", false, {"no"});
  nodes.has_status = true;
  registry.Add(nodes);
  ResourceInfo pods = Make("", "pods", "pod", "Pod", true, {"po"}, {"all"});
  pods.has_status = true;
  registry.Add(pods);
  registry.Add(Make("", "secrets", "secret", "Secret", true, {}));
  registry.Add(Make("", "serviceaccounts", "serviceaccount", "ServiceAccount", true, {"sa"}));
  ResourceInfo services = Make("", "services", "service", "Service", true, {"svc"}, {"all"});
  services.has_status = true;
  registry.Add(services);

  ResourceInfo deployments = Make("apps", "deployments", "deployment", "Deployment", true, {"deploy"}, {"all"});
  deployments.has_status = true;
  deployments.has_scale = true;
  deployments.tracks_generation = true;
  registry.Add(deployments);
  ResourceInfo replicasets = Make("apps", "replicasets", "replicaset", "ReplicaSet", true, {"rs"}, {"all"});
  replicasets.has_status = true;
  replicasets.has_scale = true;
  registry.Add(replicasets);

  ResourceInfo leases = Make("coordination.k8s.io", "leases", "lease", "Lease", true, {});
  leases.allow_create_on_update = true;
  leases.allow_unconditional_update = false;
  registry.Add(leases);

  ResourceInfo events = Make("events.k8s.io", "events", "event", "Event", true, {"ev"});
  events.storage_prefix_override = "/registry/core/events/";
  registry.Add(events);
}

ResourceInfo WidgetResource(std::string_view version) {
  ResourceInfo r;
  r.group = "example.com";
  r.version = std::string(version);
  r.resource = "widgets";
  r.singular = "widget";
  r.kind = "Widget";
  r.list_kind = "WidgetList";
  r.namespaced = true;
  r.short_names = {"wd"};
  r.categories = {"all"};
  r.verbs = {"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"};
  r.has_status = true;
  r.has_scale = true;
  r.allow_unconditional_update = false;
  return r;
}

ObjectPtr MustParse(std::string_view json) {
  auto obj = Object::Parse(json);
  if (!obj.ok()) {
    ADD_FAILURE() << "bad test JSON: " << obj.error().message << "\n" << json;
    std::abort();
  }
  return *obj;
}

}  // namespace kube::apiserver::testing
