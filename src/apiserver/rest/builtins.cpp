// The built-in resources kube-apiserver 1.32 serves that kubecpp serves too, with kube's discovery
// data (short names, categories, verbs), field selectors and strategy flags. Their Table columns
// are kube's printers, which the table renderer owns (keyed by group/resource).

#include <kube/apiserver/apiserver.hpp>

#include <tuple>
#include <utility>

#include "apiserver/rest/builtin_schema.hpp"
#include "apiserver/rest/crd.hpp"
#include "apiserver/rest/strategy.hpp"

namespace kube::apiserver {
namespace {

ResourceInfo Core(std::string resource, std::string singular, std::string kind, bool namespaced) {
  ResourceInfo info;
  info.group = "";
  info.version = "v1";
  info.resource = std::move(resource);
  info.singular = std::move(singular);
  info.kind = std::move(kind);
  info.list_kind = info.kind + "List";
  info.namespaced = namespaced;
  info.schema = rest::BuiltinSchema(rest::KindOf(info));
  return info;
}

ResourceInfo Grouped(std::string group, std::string resource, std::string singular, std::string kind) {
  ResourceInfo info = Core(std::move(resource), std::move(singular), std::move(kind), true);
  info.group = std::move(group);
  info.schema = rest::BuiltinSchema(rest::KindOf(info));
  return info;
}

std::vector<std::pair<std::string, std::string>> CoreEventFields() {
  return {{"involvedObject.kind", "/involvedObject/kind"},
          {"involvedObject.namespace", "/involvedObject/namespace"},
          {"involvedObject.name", "/involvedObject/name"},
          {"involvedObject.uid", "/involvedObject/uid"},
          {"involvedObject.apiVersion", "/involvedObject/apiVersion"},
          {"involvedObject.resourceVersion", "/involvedObject/resourceVersion"},
          {"involvedObject.fieldPath", "/involvedObject/fieldPath"},
          {"reason", "/reason"},
          {"reportingComponent", "/reportingComponent"},
          {"source", "/source/component"},
          {"type", "/type"}};
}

// events.k8s.io/v1 field labels, mapped onto the stored (core/v1) form of the object.
std::vector<std::pair<std::string, std::string>> EventsV1Fields() {
  return {{"regarding.kind", "/involvedObject/kind"},
          {"regarding.namespace", "/involvedObject/namespace"},
          {"regarding.name", "/involvedObject/name"},
          {"regarding.uid", "/involvedObject/uid"},
          {"regarding.apiVersion", "/involvedObject/apiVersion"},
          {"regarding.resourceVersion", "/involvedObject/resourceVersion"},
          {"regarding.fieldPath", "/involvedObject/fieldPath"},
          {"reason", "/reason"},
          {"reportingController", "/reportingComponent"},
          {"type", "/type"}};
}

}  // namespace

void RegisterBuiltins(Registry& registry) {
  {
    ResourceInfo ns = Core("namespaces", "namespace", "Namespace", false);
    ns.short_names = {"ns"};
    ns.verbs = {"create", "delete", "get", "list", "patch", "update", "watch"};
    ns.has_status = true;
    ns.field_selectors = {{"status.phase", "/status/phase"}};
    ns.subresources = {{.name = "finalize", .group = "", .version = "", .kind = "Namespace", .verbs = {"update"}}};
    registry.Add(std::move(ns));
  }
  {
    ResourceInfo cm = Core("configmaps", "configmap", "ConfigMap", true);
    cm.short_names = {"cm"};
    registry.Add(std::move(cm));
  }
  {
    ResourceInfo secret = Core("secrets", "secret", "Secret", true);
    secret.field_selectors = {{"type", "/type"}};
    registry.Add(std::move(secret));
  }
  {
    ResourceInfo ev = Core("events", "event", "Event", true);
    ev.short_names = {"ev"};
    ev.field_selectors = CoreEventFields();
    registry.Add(std::move(ev));
  }
  {
    ResourceInfo pod = Core("pods", "pod", "Pod", true);
    pod.short_names = {"po"};
    pod.categories = {"all"};
    pod.has_status = true;
    pod.field_selectors = {{"spec.nodeName", "/spec/nodeName"},
                           {"spec.restartPolicy", "/spec/restartPolicy"},
                           {"spec.schedulerName", "/spec/schedulerName"},
                           {"spec.serviceAccountName", "/spec/serviceAccountName"},
                           {"spec.hostNetwork", "/spec/hostNetwork"},
                           {"status.phase", "/status/phase"},
                           {"status.podIP", "/status/podIP"},
                           {"status.nominatedNodeName", "/status/nominatedNodeName"}};
    pod.subresources = {{.name = "binding", .group = "", .version = "", .kind = "Binding", .verbs = {"create"}},
                        {.name = "eviction", .group = "policy", .version = "v1", .kind = "Eviction", .verbs = {"create"}}};
    registry.Add(std::move(pod));
  }
  {
    // The legacy way to bind: POST namespaces/NS/bindings (the pod named by the Binding).
    ResourceInfo bindings = Core("bindings", "binding", "Binding", true);
    bindings.verbs = {"create"};
    registry.Add(std::move(bindings));
  }
  {
    ResourceInfo svc = Core("services", "service", "Service", true);
    svc.short_names = {"svc"};
    svc.categories = {"all"};
    svc.has_status = true;
    registry.Add(std::move(svc));
  }
  {
    ResourceInfo sa = Core("serviceaccounts", "serviceaccount", "ServiceAccount", true);
    sa.short_names = {"sa"};
    registry.Add(std::move(sa));
  }
  {
    ResourceInfo node = Core("nodes", "node", "Node", false);
    node.short_names = {"no"};
    node.has_status = true;
    node.field_selectors = {{"spec.unschedulable", "/spec/unschedulable"}};
    registry.Add(std::move(node));
  }
  {
    ResourceInfo deploy = Grouped("apps", "deployments", "deployment", "Deployment");
    deploy.short_names = {"deploy"};
    deploy.categories = {"all"};
    deploy.has_status = true;
    deploy.has_scale = true;
    deploy.scale_label_selector_path = "/spec/selector";
    deploy.tracks_generation = true;
    registry.Add(std::move(deploy));
  }
  {
    ResourceInfo rs = Grouped("apps", "replicasets", "replicaset", "ReplicaSet");
    rs.short_names = {"rs"};
    rs.categories = {"all"};
    rs.has_status = true;
    rs.has_scale = true;
    rs.scale_label_selector_path = "/spec/selector";
    rs.tracks_generation = true;
    rs.field_selectors = {{"status.replicas", "/status/replicas"}};
    registry.Add(std::move(rs));
  }
  {
    ResourceInfo lease = Grouped("coordination.k8s.io", "leases", "lease", "Lease");
    lease.allow_unconditional_update = false;
    lease.allow_create_on_update = true;
    registry.Add(std::move(lease));
  }
  {
    ResourceInfo ev = Grouped("events.k8s.io", "events", "event", "Event");
    ev.short_names = {"ev"};
    ev.field_selectors = EventsV1Fields();
    ResourceInfo core_events = Core("events", "event", "Event", true);
    ev.storage_prefix_override = core_events.StoragePrefix();
    registry.Add(std::move(ev));
  }
  // rbac.authorization.k8s.io/v1: stored and served so that operators' deploy/ manifests apply;
  // the embedded server authenticates with one bearer token and does not authorize by RBAC.
  for (auto [resource, singular, kind, namespaced] :
       {std::tuple{"roles", "role", "Role", true}, std::tuple{"rolebindings", "rolebinding", "RoleBinding", true},
        std::tuple{"clusterroles", "clusterrole", "ClusterRole", false},
        std::tuple{"clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding", false}}) {
    ResourceInfo rbac = Grouped("rbac.authorization.k8s.io", resource, singular, kind);
    rbac.namespaced = namespaced;
    registry.Add(std::move(rbac));
  }
  rest::RegisterCustomResourceDefinitions(registry);  // apiextensions.k8s.io/v1 (CRD helper)
}

}  // namespace kube::apiserver
