// The built-in resources kube-apiserver 1.32 serves that kubecpp serves too, with kube's discovery
// data (short names, categories, verbs), field selectors and strategy flags. Their Table columns
// are kube's printers, which the table renderer owns (keyed by group/resource).

#include <kube/apiserver/apiserver.hpp>

#include <cctype>
#include <initializer_list>
#include <string_view>
#include <tuple>
#include <vector>
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
  info.builtin = true;
  info.schema = rest::OpenApiSchema(info.group, info.version, info.kind);
  return info;
}

ResourceInfo Grouped(std::string group, std::string resource, std::string singular, std::string kind,
                     std::string version = "v1") {
  ResourceInfo info = Core(std::move(resource), std::move(singular), std::move(kind), true);
  info.group = std::move(group);
  info.version = std::move(version);
  info.schema = rest::OpenApiSchema(info.group, info.version, info.kind);
  return info;
}

// One more built-in resource, as kube-apiserver 1.32's discovery lists it.
struct Builtin {
  std::string_view group;
  std::string_view version;
  std::string_view resource;
  std::string_view kind;
  bool namespaced = true;
  std::vector<std::string> short_names{};
  std::vector<std::string> categories{};
  bool status = false;      // a /status subresource
  bool scale = false;       // a /scale subresource
  bool generation = false;  // metadata.generation starts at 1 and follows spec changes
  std::vector<std::pair<std::string, std::string>> field_selectors{};
};

void Add(Registry& registry, const Builtin& b) {
  std::string singular(b.kind);
  for (char& c : singular) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  ResourceInfo info = Grouped(std::string(b.group), std::string(b.resource), singular, std::string(b.kind),
                              std::string(b.version));
  info.namespaced = b.namespaced;
  info.short_names = b.short_names;
  info.categories = b.categories;
  info.has_status = b.status;
  info.has_scale = b.scale;
  if (b.scale) info.scale_label_selector_path = "/spec/selector";
  info.tracks_generation = b.generation;
  info.field_selectors = b.field_selectors;
  registry.Add(std::move(info));
}

// The further built-in resources: their schema from the OpenAPI documents, their defaults and
// validation where defaults.cpp and validation.cpp know the kind.
const std::vector<Builtin>& MoreBuiltins() {
  const std::vector<std::string> all = {"all"};
  const std::vector<std::string> api_extensions = {"api-extensions"};
  static const std::vector<Builtin> table = {
           {.group = "", .version = "v1", .resource = "endpoints", .kind = "Endpoints", .short_names = {"ep"}},
           {.group = "", .version = "v1", .resource = "limitranges", .kind = "LimitRange", .short_names = {"limits"}},
           {.group = "", .version = "v1", .resource = "persistentvolumeclaims", .kind = "PersistentVolumeClaim",
            .short_names = {"pvc"}, .status = true},
           {.group = "", .version = "v1", .resource = "persistentvolumes", .kind = "PersistentVolume",
            .namespaced = false, .short_names = {"pv"}, .status = true},
           {.group = "", .version = "v1", .resource = "podtemplates", .kind = "PodTemplate", .generation = true},
           {.group = "", .version = "v1", .resource = "replicationcontrollers", .kind = "ReplicationController",
            .short_names = {"rc"}, .categories = all, .status = true, .scale = true, .generation = true,
            .field_selectors = {{"status.replicas", "/status/replicas"}}},
           {.group = "", .version = "v1", .resource = "resourcequotas", .kind = "ResourceQuota",
            .short_names = {"quota"}, .status = true},
           {.group = "admissionregistration.k8s.io", .version = "v1", .resource = "mutatingwebhookconfigurations",
            .kind = "MutatingWebhookConfiguration", .namespaced = false, .categories = api_extensions,
            .generation = true},
           {.group = "admissionregistration.k8s.io", .version = "v1", .resource = "validatingwebhookconfigurations",
            .kind = "ValidatingWebhookConfiguration", .namespaced = false, .categories = api_extensions,
            .generation = true},
           {.group = "apps", .version = "v1", .resource = "controllerrevisions", .kind = "ControllerRevision"},
           {.group = "apps", .version = "v1", .resource = "daemonsets", .kind = "DaemonSet", .short_names = {"ds"},
            .categories = all, .status = true, .generation = true},
           {.group = "apps", .version = "v1", .resource = "statefulsets", .kind = "StatefulSet", .short_names = {"sts"},
            .categories = all, .status = true, .scale = true, .generation = true},
           {.group = "autoscaling", .version = "v2", .resource = "horizontalpodautoscalers",
            .kind = "HorizontalPodAutoscaler", .short_names = {"hpa"}, .categories = all, .status = true},
           {.group = "batch", .version = "v1", .resource = "cronjobs", .kind = "CronJob", .short_names = {"cj"},
            .categories = all, .status = true, .generation = true},
           {.group = "batch", .version = "v1", .resource = "jobs", .kind = "Job", .categories = all, .status = true,
            .generation = true, .field_selectors = {{"status.successful", "/status/succeeded"}}},
           {.group = "discovery.k8s.io", .version = "v1", .resource = "endpointslices", .kind = "EndpointSlice",
            .generation = true},
           {.group = "networking.k8s.io", .version = "v1", .resource = "ingressclasses", .kind = "IngressClass",
            .namespaced = false, .generation = true},
           {.group = "networking.k8s.io", .version = "v1", .resource = "ingresses", .kind = "Ingress",
            .short_names = {"ing"}, .status = true, .generation = true},
           {.group = "networking.k8s.io", .version = "v1", .resource = "networkpolicies", .kind = "NetworkPolicy",
            .short_names = {"netpol"}, .generation = true},
           {.group = "node.k8s.io", .version = "v1", .resource = "runtimeclasses", .kind = "RuntimeClass",
            .namespaced = false},
           {.group = "policy", .version = "v1", .resource = "poddisruptionbudgets", .kind = "PodDisruptionBudget",
            .short_names = {"pdb"}, .status = true, .generation = true},
           {.group = "scheduling.k8s.io", .version = "v1", .resource = "priorityclasses", .kind = "PriorityClass",
            .namespaced = false, .short_names = {"pc"}, .generation = true},
           {.group = "storage.k8s.io", .version = "v1", .resource = "csidrivers", .kind = "CSIDriver",
            .namespaced = false},
           {.group = "storage.k8s.io", .version = "v1", .resource = "csinodes", .kind = "CSINode", .namespaced = false},
           {.group = "storage.k8s.io", .version = "v1", .resource = "csistoragecapacities", .kind = "CSIStorageCapacity"},
           {.group = "storage.k8s.io", .version = "v1", .resource = "storageclasses", .kind = "StorageClass",
            .namespaced = false, .short_names = {"sc"}},
           {.group = "storage.k8s.io", .version = "v1", .resource = "volumeattachments", .kind = "VolumeAttachment",
            .namespaced = false, .status = true},
  };
  return table;
}

// Registers the resources of MoreBuiltins in `group` (the registry orders API groups by their
// first registration, and discovery lists them in kube's order).
void AddGroup(Registry& registry, std::string_view group) {
  for (const Builtin& b : MoreBuiltins()) {
    if (b.group == group) Add(registry, b);
  }
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
    sa.subresources = {{.name = "token", .group = "authentication.k8s.io", .version = "v1", .kind = "TokenRequest",
                        .verbs = {"create"}}};
    registry.Add(std::move(sa));
  }
  {
    ResourceInfo node = Core("nodes", "node", "Node", false);
    node.short_names = {"no"};
    node.has_status = true;
    node.field_selectors = {{"spec.unschedulable", "/spec/unschedulable"}};
    registry.Add(std::move(node));
  }
  AddGroup(registry, "");
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
  // The API groups in kube-apiserver 1.32's discovery order.
  AddGroup(registry, "apps");
  {
    ResourceInfo ev = Grouped("events.k8s.io", "events", "event", "Event");
    ev.short_names = {"ev"};
    ev.field_selectors = EventsV1Fields();
    ResourceInfo core_events = Core("events", "event", "Event", true);
    ev.storage_prefix_override = core_events.StoragePrefix();
    registry.Add(std::move(ev));
  }
  AddGroup(registry, "autoscaling");
  {
    // autoscaling/v1: a second view of the objects stored as autoscaling/v2 (hpa.hpp converts).
    ResourceInfo hpa = Grouped("autoscaling", "horizontalpodautoscalers", "horizontalpodautoscaler",
                               "HorizontalPodAutoscaler");
    hpa.short_names = {"hpa"};
    hpa.categories = {"all"};
    hpa.has_status = true;
    const ResourcePtr stored = registry.Find("autoscaling", "v2", "horizontalpodautoscalers");
    hpa.storage_prefix_override = stored->StoragePrefix();
    registry.Add(std::move(hpa));
  }
  AddGroup(registry, "batch");
  {
    ResourceInfo csr = Grouped("certificates.k8s.io", "certificatesigningrequests", "certificatesigningrequest",
                               "CertificateSigningRequest");
    csr.namespaced = false;
    csr.short_names = {"csr"};
    csr.has_status = true;
    csr.subresources = {{.name = "approval", .group = "", .version = "", .kind = "CertificateSigningRequest",
                         .verbs = {"get", "patch", "update"}}};
    csr.field_selectors = {{"spec.signerName", "/spec/signerName"}};
    registry.Add(std::move(csr));
  }
  for (std::string_view group : {"networking.k8s.io", "policy"}) AddGroup(registry, group);
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
  AddGroup(registry, "storage.k8s.io");
  AddGroup(registry, "admissionregistration.k8s.io");
  rest::RegisterCustomResourceDefinitions(registry);  // apiextensions.k8s.io/v1 (CRD helper)
  AddGroup(registry, "scheduling.k8s.io");
  {
    ResourceInfo lease = Grouped("coordination.k8s.io", "leases", "lease", "Lease");
    lease.allow_unconditional_update = false;
    lease.allow_create_on_update = true;
    registry.Add(std::move(lease));
  }
  AddGroup(registry, "node.k8s.io");
  AddGroup(registry, "discovery.k8s.io");
}

}  // namespace kube::apiserver
