#include "apiserver/discovery/internal/table_printers.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <boost/json.hpp>
#include <fmt/format.h>

#include <kube/apiserver/table.hpp>
#include <kube/core/label_selector.hpp>
#include <kube/core/time.hpp>

#include "apiserver/discovery/internal/json_access.hpp"
#include "apiserver/discovery/internal/json_out.hpp"

// Each Print* function below is a port of the function of the same name in
// k8s.io/kubernetes pkg/printers/internalversion/printers.go (v1.32), reading the stored JSON
// instead of typed structs. Defaults kube-apiserver would have applied on create (replicas 1,
// service type ClusterIP, protocol TCP, secret type Opaque) are applied when a field is absent.
namespace kube::apiserver::internal {

const std::string_view kNameDescription =
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const std::string_view kCreationTimestampDescription =
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
    "UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

void CellWriter::Sep() {
  if (!first_) out_.push_back(',');
  first_ = false;
}
void CellWriter::String(std::string_view s) {
  Sep();
  AppendJsonString(out_, s);
}
void CellWriter::Int(int64_t v) {
  Sep();
  out_ += std::to_string(v);
}
void CellWriter::Number(double v) {
  Sep();
  AppendGoFloat(out_, v);
}
void CellWriter::Bool(bool v) {
  Sep();
  out_ += v ? "true" : "false";
}
void CellWriter::Null() {
  Sep();
  out_ += "null";
}
void CellWriter::Raw(std::string_view json) {
  Sep();
  out_.append(json);
}

std::string TranslateTimestampSince(std::string_view timestamp, Clock::WallTime now) {
  if (timestamp.empty()) return "<unknown>";
  auto t = ParseTime(timestamp);
  if (!t.ok()) return "<unknown>";
  return HumanDuration(now - *t);
}

namespace {

using namespace printer;  // NOLINT: the JSON accessors

std::string TrimSpace(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return std::string(s);
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i != 0) out.append(sep);
    out.append(parts[i]);
  }
  return out;
}

// layoutContainerCells: container names and images, comma-joined.
void ContainerCells(const bj::object* pod_spec, CellWriter& cells) {
  std::vector<std::string> names, images;
  ForEachObject(Arr(pod_spec, "containers"), [&](const bj::object& c) {
    names.emplace_back(Str(&c, "name"));
    images.emplace_back(Str(&c, "image"));
  });
  cells.String(Join(names, ","));
  cells.String(Join(images, ","));
}

// metav1.LabelSelectorAsSelector(sel).String(); nullopt when the selector does not convert.
// An absent selector is labels.Nothing(), whose String() is "".
std::optional<std::string> SelectorString(const bj::object* spec) {
  const bj::value* sel = spec != nullptr ? spec->if_contains("selector") : nullptr;
  if (sel == nullptr || sel->is_null()) return std::string();
  auto selector = LabelSelector::FromLabelSelectorJson(*sel);
  if (!selector.ok()) return std::nullopt;
  if (selector->IsNothing()) return std::string();
  return selector->String();
}

// labels.FormatLabels: sorted "k=v" joined by ",", "<none>" when empty.
std::string FormatLabels(const bj::object* labels) {
  if (labels == nullptr || labels->empty()) return "<none>";
  std::map<std::string_view, std::string_view> sorted;
  for (const auto& kv : *labels) {
    sorted.emplace(kv.key(), kv.value().is_string() ? std::string_view(kv.value().get_string()) : "");
  }
  std::string out;
  for (const auto& [k, v] : sorted) {
    if (!out.empty()) out.push_back(',');
    out.append(k).append("=").append(v);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Other core types

void PrintNamespace(const bj::object& ns, Clock::WallTime now, CellWriter& cells, std::string&) {
  cells.String(Name(ns));
  cells.String(Str(Obj(&ns, "status"), "phase"));
  cells.String(Age(ns, now));
}

void PrintConfigMap(const bj::object& cm, Clock::WallTime now, CellWriter& cells, std::string&) {
  cells.String(Name(cm));
  cells.Int(static_cast<int64_t>(MapSize(&cm, "data") + MapSize(&cm, "binaryData")));
  cells.String(Age(cm, now));
}

void PrintSecret(const bj::object& secret, Clock::WallTime now, CellWriter& cells, std::string&) {
  // kube merges stringData into data when the object is decoded; count the union.
  std::size_t data = MapSize(&secret, "data");
  const bj::object* data_map = Obj(&secret, "data");
  if (const bj::object* string_data = Obj(&secret, "stringData")) {
    for (const auto& kv : *string_data) {
      if (data_map == nullptr || !data_map->contains(kv.key())) ++data;
    }
  }
  const std::string_view type = Str(&secret, "type");
  cells.String(Name(secret));
  cells.String(type.empty() ? "Opaque" : type);
  cells.Int(static_cast<int64_t>(data));
  cells.String(Age(secret, now));
}

void PrintServiceAccount(const bj::object& sa, Clock::WallTime now, CellWriter& cells, std::string&) {
  cells.String(Name(sa));
  cells.Int(static_cast<int64_t>(ArrSize(&sa, "secrets")));
  cells.String(Age(sa, now));
}

// loadBalancerStatusStringer(s, wide=true): ingress IPs (or hostnames), de-duplicated.
std::string LoadBalancerStatus(const bj::object* status) {
  std::vector<std::string> out;
  ForEachObject(Arr(Obj(status, "loadBalancer"), "ingress"), [&](const bj::object& ing) {
    std::string v(Str(&ing, "ip"));
    if (v.empty()) v = std::string(Str(&ing, "hostname"));
    if (!v.empty() && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  });
  return Join(out, ",");
}

std::vector<std::string> StringList(const bj::array* a) {
  std::vector<std::string> out;
  if (a == nullptr) return out;
  for (const bj::value& v : *a) {
    if (v.is_string()) out.emplace_back(v.get_string());
  }
  return out;
}

void PrintService(const bj::object& svc, Clock::WallTime now, CellWriter& cells, std::string&) {
  const bj::object* spec = Obj(&svc, "spec");
  std::string type(Str(spec, "type"));
  if (type.empty()) type = "ClusterIP";
  std::string internal_ip = "<none>";
  if (const bj::array* ips = Arr(spec, "clusterIPs"); ips != nullptr && !ips->empty() && (*ips)[0].is_string()) {
    internal_ip = std::string((*ips)[0].get_string());
  } else if (!Str(spec, "clusterIP").empty()) {
    internal_ip = std::string(Str(spec, "clusterIP"));  // objects stored without clusterIPs
  }
  const std::vector<std::string> external_ips = StringList(Arr(spec, "externalIPs"));
  std::string external;
  if (type == "ClusterIP" || type == "NodePort") {
    external = external_ips.empty() ? "<none>" : Join(external_ips, ",");
  } else if (type == "LoadBalancer") {
    const std::string lb = LoadBalancerStatus(Obj(&svc, "status"));
    if (!external_ips.empty()) {
      std::vector<std::string> all;
      if (!lb.empty()) all.push_back(lb);
      all.insert(all.end(), external_ips.begin(), external_ips.end());
      external = Join(all, ",");
    } else {
      external = lb.empty() ? "<pending>" : lb;
    }
  } else if (type == "ExternalName") {
    external = std::string(Str(spec, "externalName"));
  } else {
    external = "<unknown>";
  }
  std::vector<std::string> ports;
  ForEachObject(Arr(spec, "ports"), [&](const bj::object& p) {
    std::string protocol(Str(&p, "protocol"));
    if (protocol.empty()) protocol = "TCP";
    const int64_t node_port = Int(&p, "nodePort");
    ports.push_back(node_port > 0 ? fmt::format("{}:{}/{}", Int(&p, "port"), node_port, protocol)
                                  : fmt::format("{}/{}", Int(&p, "port"), protocol));
  });
  std::string port_string = Join(ports, ",");
  if (port_string.empty()) port_string = "<none>";

  cells.String(Name(svc));
  cells.String(type);
  cells.String(internal_ip);
  cells.String(external);
  cells.String(port_string);
  cells.String(Age(svc, now));
  cells.String(FormatLabels(Obj(spec, "selector")));
}

std::string NodeAddress(const bj::object* status, std::string_view type) {
  std::string out = "<none>";
  bool found = false;
  ForEachObject(Arr(status, "addresses"), [&](const bj::object& a) {
    if (!found && Str(&a, "type") == type) {
      out = std::string(Str(&a, "address"));
      found = true;
    }
  });
  return out;
}

void PrintNode(const bj::object& node, Clock::WallTime now, CellWriter& cells, std::string&) {
  const bj::object* status = Obj(&node, "status");
  std::vector<std::string> state;
  // The last Ready condition wins, as in kube's condition map.
  const bj::object* ready = nullptr;
  ForEachObject(Arr(status, "conditions"), [&](const bj::object& c) {
    if (Str(&c, "type") == "Ready") ready = &c;
  });
  if (ready != nullptr) state.push_back(Str(ready, "status") == "True" ? "Ready" : "NotReady");
  if (state.empty()) state.push_back("Unknown");
  if (Bool(Obj(&node, "spec"), "unschedulable")) state.push_back("SchedulingDisabled");

  std::set<std::string> roles;
  if (const bj::object* labels = Obj(Meta(node), "labels")) {
    constexpr std::string_view kRolePrefix = "node-role.kubernetes.io/";
    for (const auto& kv : *labels) {
      const std::string_view key = kv.key();
      const std::string_view value = kv.value().is_string() ? std::string_view(kv.value().get_string()) : "";
      if (key.starts_with(kRolePrefix)) {
        if (key.size() > kRolePrefix.size()) roles.emplace(key.substr(kRolePrefix.size()));
      } else if (key == "kubernetes.io/role" && !value.empty()) {
        roles.emplace(value);
      }
    }
  }
  std::string role_string = Join(std::vector<std::string>(roles.begin(), roles.end()), ",");
  if (role_string.empty()) role_string = "<none>";

  const bj::object* info = Obj(status, "nodeInfo");
  auto or_unknown = [](std::string_view s) { return s.empty() ? std::string("<unknown>") : std::string(s); };
  cells.String(Name(node));
  cells.String(Join(state, ","));
  cells.String(role_string);
  cells.String(Age(node, now));
  cells.String(Str(info, "kubeletVersion"));
  cells.String(NodeAddress(status, "InternalIP"));
  cells.String(NodeAddress(status, "ExternalIP"));
  cells.String(or_unknown(Str(info, "osImage")));
  cells.String(or_unknown(Str(info, "kernelVersion")));
  cells.String(or_unknown(Str(info, "containerRuntimeVersion")));
}

// Field names of the two Event APIs, which kube prints through the same internal type.
struct EventFields {
  std::string_view involved_object, message, source, first_timestamp, last_timestamp, count,
      reporting_controller;
};
constexpr EventFields kCoreEventFields = {"involvedObject", "message", "source", "firstTimestamp",
                                          "lastTimestamp", "count", "reportingComponent"};
constexpr EventFields kEventsV1Fields = {"regarding", "note", "deprecatedSource",
                                         "deprecatedFirstTimestamp", "deprecatedLastTimestamp",
                                         "deprecatedCount", "reportingController"};

void PrintEventWith(const EventFields& f, const bj::object& ev, Clock::WallTime now, CellWriter& cells) {
  std::string first = SinceField(&ev, f.first_timestamp, now);
  if (Str(&ev, f.first_timestamp).empty()) first = SinceField(&ev, "eventTime", now);
  std::string last = SinceField(&ev, f.last_timestamp, now);
  if (Str(&ev, f.last_timestamp).empty()) last = first;
  int64_t count = Int(&ev, f.count);
  if (const bj::object* series = Obj(&ev, "series")) {
    last = SinceField(series, "lastObservedTime", now);
    count = Int(series, "count");
  } else if (count == 0) {
    count = 1;  // singleton events have no count in the new API
  }
  const bj::object* involved = Obj(&ev, f.involved_object);
  const std::string kind = ToLower(Str(involved, "kind"));
  const std::string target =
      Str(involved, "name").empty() ? kind : kind + "/" + std::string(Str(involved, "name"));
  // formatEventSource: component (or reportingController), then ", host" (or reportingInstance).
  const bj::object* source = Obj(&ev, f.source);
  std::string component(Str(source, "component"));
  if (component.empty()) component = std::string(Str(&ev, f.reporting_controller));
  std::string host(Str(source, "host"));
  if (host.empty()) host = std::string(Str(&ev, "reportingInstance"));
  const std::string source_string = host.empty() ? component : component + ", " + host;

  cells.String(last);
  cells.String(Str(&ev, "type"));
  cells.String(Str(&ev, "reason"));
  cells.String(target);
  cells.String(Str(involved, "fieldPath"));
  cells.String(source_string);
  cells.String(TrimSpace(Str(&ev, f.message)));
  cells.String(first);
  cells.Int(count);
  cells.String(Name(ev));
}

void PrintEvent(const bj::object& ev, Clock::WallTime now, CellWriter& cells, std::string&) {
  PrintEventWith(kCoreEventFields, ev, now, cells);
}
void PrintEventsV1Event(const bj::object& ev, Clock::WallTime now, CellWriter& cells, std::string&) {
  PrintEventWith(kEventsV1Fields, ev, now, cells);
}

// ---------------------------------------------------------------------------------------------
// apps, coordination

void PrintDeployment(const bj::object& d, Clock::WallTime now, CellWriter& cells, std::string&) {
  const bj::object* spec = Obj(&d, "spec");
  const bj::object* status = Obj(&d, "status");
  const int64_t desired = OptInt(spec, "replicas").value_or(1);
  cells.String(Name(d));
  cells.String(fmt::format("{}/{}", Int(status, "readyReplicas"), desired));
  cells.Int(Int(status, "updatedReplicas"));
  cells.Int(Int(status, "availableReplicas"));
  cells.String(Age(d, now));
  ContainerCells(Obj(Obj(spec, "template"), "spec"), cells);
  cells.String(SelectorString(spec).value_or("<invalid>"));
}

void PrintReplicaSet(const bj::object& rs, Clock::WallTime now, CellWriter& cells, std::string&) {
  const bj::object* spec = Obj(&rs, "spec");
  const bj::object* status = Obj(&rs, "status");
  cells.String(Name(rs));
  cells.Int(OptInt(spec, "replicas").value_or(1));
  cells.Int(Int(status, "replicas"));
  cells.Int(Int(status, "readyReplicas"));
  cells.String(Age(rs, now));
  ContainerCells(Obj(Obj(spec, "template"), "spec"), cells);
  // metav1.FormatLabelSelector: "<none>" for an empty selector, "<error>" when it does not convert.
  const auto selector = SelectorString(spec);
  cells.String(!selector ? "<error>" : selector->empty() ? "<none>" : *selector);
}

void PrintLease(const bj::object& lease, Clock::WallTime now, CellWriter& cells, std::string&) {
  cells.String(Name(lease));
  cells.String(Str(Obj(&lease, "spec"), "holderIdentity"));
  cells.String(Age(lease, now));
}

// ---------------------------------------------------------------------------------------------
// Column definitions (descriptions are the types' swagger docs).

constexpr std::string_view kAge = "Age";

ColumnSpec NameColumn() { return {"Name", "string", "name", kNameDescription, 0}; }
ColumnSpec AgeColumn() { return {kAge, "string", "", kCreationTimestampDescription, 0}; }
ColumnSpec ContainersColumn() {
  return {"Containers", "string", "", "Names of each container in the template.", 1};
}
ColumnSpec ImagesColumn() {
  return {"Images", "string", "", "Images referenced by each container in the template.", 1};
}

std::vector<ColumnSpec> EventColumns() {
  return {
      {"Last Seen", "string", "", "The time at which the most recent occurrence of this event was recorded.", 0},
      {"Type", "string", "", "Type of this event (Normal, Warning), new types could be added in the future", 0},
      {"Reason", "string", "", "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.", 0},
      {"Object", "string", "", "The object that this event is about.", 0},
      {"Subobject", "string", "", "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: \"spec.containers{name}\" (where \"name\" refers to the name of the container that triggered the event) or if no container name is specified \"spec.containers[2]\" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.", 1},
      {"Source", "string", "", "The component reporting this event. Should be a short machine understandable string.", 1},
      {"Message", "string", "", "A human-readable description of the status of this operation.", 0},
      {"First Seen", "string", "", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)", 1},
      {"Count", "string", "", "The number of times this event has occurred.", 1},
      {"Name", "string", "name", kNameDescription, 1},
  };
}

std::map<std::pair<std::string_view, std::string_view>, BuiltinPrinter> MakePrinters() {
  std::map<std::pair<std::string_view, std::string_view>, BuiltinPrinter> p;
  p[{"", "pods"}] = {
      {NameColumn(),
       {"Ready", "string", "", "The aggregate readiness state of this pod for accepting traffic.", 0},
       {"Status", "string", "", "The aggregate status of the containers in this pod.", 0},
       {"Restarts", "string", "", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.", 0},
       AgeColumn(),
       {"IP", "string", "", "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.", 1},
       {"Node", "string", "", "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename", 1},
       {"Nominated Node", "string", "", "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.", 1},
       {"Readiness Gates", "string", "", "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to \"True\" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates", 1}},
      &PrintPod};
  p[{"", "namespaces"}] = {
      {NameColumn(), {"Status", "string", "", "The status of the namespace", 0}, AgeColumn()},
      &PrintNamespace};
  p[{"", "configmaps"}] = {
      {NameColumn(),
       {"Data", "string", "", "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.", 0},
       AgeColumn()},
      &PrintConfigMap};
  p[{"", "secrets"}] = {
      {NameColumn(),
       {"Type", "string", "", "Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types", 0},
       {"Data", "string", "", "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4", 0},
       AgeColumn()},
      &PrintSecret};
  p[{"", "serviceaccounts"}] = {
      {NameColumn(),
       {"Secrets", "string", "", "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a \"kubernetes.io/enforce-mountable-secrets\" annotation set to \"true\". The \"kubernetes.io/enforce-mountable-secrets\" annotation is deprecated since v1.32. Prefer separate namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret", 0},
       AgeColumn()},
      &PrintServiceAccount};
  p[{"", "services"}] = {
      {NameColumn(),
       {"Type", "string", "", "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. \"ClusterIP\" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is \"None\", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. \"NodePort\" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. \"LoadBalancer\" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. \"ExternalName\" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types", 0},
       {"Cluster-IP", "string", "", "clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are \"None\", empty string (\"\"), or a valid IP address. Setting this to \"None\" makes a \"headless service\" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies", 0},
       {"External-IP", "string", "", "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.", 0},
       {"Port(s)", "string", "", "The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies", 0},
       AgeColumn(),
       {"Selector", "string", "", "Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/", 1}},
      &PrintService};
  constexpr std::string_view kAddresses =
      "List of addresses reachable to the node. Queried from cloud provider, if available. More "
      "info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is "
      "declared as mergeable, but the merge key is not sufficiently unique, which can cause data "
      "corruption when it is merged. Callers should instead use a full-replacement patch. See "
      "https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change "
      "during the lifetime of a Node. However, there are some exceptions where this may not be "
      "possible, such as Pods that inherit a Node's address in its own status or consumers of the "
      "downward API (status.hostIP).";
  p[{"", "nodes"}] = {
      {NameColumn(),
       {"Status", "string", "", "The status of the node", 0},
       {"Roles", "string", "", "The roles of the node", 0},
       AgeColumn(),
       {"Version", "string", "", "Kubelet Version reported by the node.", 0},
       {"Internal-IP", "string", "", kAddresses, 1},
       {"External-IP", "string", "", kAddresses, 1},
       {"OS-Image", "string", "", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", 1},
       {"Kernel-Version", "string", "", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1},
       {"Container-Runtime", "string", "", "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).", 1}},
      &PrintNode};
  p[{"", "events"}] = {EventColumns(), &PrintEvent};
  p[{"events.k8s.io", "events"}] = {EventColumns(), &PrintEventsV1Event};
  p[{"apps", "deployments"}] = {
      {NameColumn(),
       {"Ready", "string", "", "Number of the pod with ready state", 0},
       {"Up-to-date", "string", "", "Total number of non-terminated pods targeted by this deployment that have the desired template spec.", 0},
       {"Available", "string", "", "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.", 0},
       AgeColumn(), ContainersColumn(), ImagesColumn(),
       {"Selector", "string", "", "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.", 1}},
      &PrintDeployment};
  p[{"apps", "replicasets"}] = {
      {NameColumn(),
       {"Desired", "integer", "", "Replicas is the number of desired pods. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset", 0},
       {"Current", "integer", "", "Replicas is the most recently observed number of non-terminating pods. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset", 0},
       {"Ready", "integer", "", "The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.", 0},
       AgeColumn(), ContainersColumn(), ImagesColumn(),
       {"Selector", "string", "", "Selector is a label query over pods that should match the replica count. Label keys and values that must match in order to be controlled by this replica set. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", 1}},
      &PrintReplicaSet};
  p[{"coordination.k8s.io", "leases"}] = {
      {NameColumn(),
       {"Holder", "string", "", "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.", 0},
       AgeColumn()},
      &PrintLease};
  p[{"autoscaling", "horizontalpodautoscalers"}] = HorizontalPodAutoscalerPrinter();
  p[{"certificates.k8s.io", "certificatesigningrequests"}] = CertificateSigningRequestPrinter();
  return p;
}

}  // namespace

const BuiltinPrinter* FindBuiltinPrinter(std::string_view group, std::string_view resource) {
  static const auto printers = MakePrinters();
  auto it = printers.find({group, resource});
  return it == printers.end() ? nullptr : &it->second;
}

}  // namespace kube::apiserver::internal
