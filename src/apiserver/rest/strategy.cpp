#include "apiserver/rest/strategy.hpp"

#include <random>

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/json_pointer.hpp>
#include <kube/core/label_selector.hpp>

#include "apiserver/rest/builtin_schema.hpp"
#include "apiserver/rest/crd.hpp"
#include "apiserver/rest/csr.hpp"
#include "apiserver/rest/go_zero.hpp"
#include "apiserver/rest/hpa.hpp"
#include "apiserver/rest/kinds.hpp"
#include "apiserver/rest/json_util.hpp"
#include "apiserver/rest/schema_validation.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;

BuiltinKind KindOf(const ResourceInfo& info) {
  const auto& g = info.group;
  const auto& r = info.resource;
  if (g.empty()) {
    if (r == "namespaces") return BuiltinKind::kNamespace;
    if (r == "configmaps") return BuiltinKind::kConfigMap;
    if (r == "secrets") return BuiltinKind::kSecret;
    if (r == "events") return BuiltinKind::kEvent;
    if (r == "pods") return BuiltinKind::kPod;
    if (r == "services") return BuiltinKind::kService;
    if (r == "serviceaccounts") return BuiltinKind::kServiceAccount;
    if (r == "nodes") return BuiltinKind::kNode;
  } else if (g == "apps") {
    if (r == "deployments") return BuiltinKind::kDeployment;
    if (r == "replicasets") return BuiltinKind::kReplicaSet;
  } else if (g == "coordination.k8s.io" && r == "leases") {
    return BuiltinKind::kLease;
  } else if (g == "events.k8s.io" && r == "events") {
    return BuiltinKind::kEventV1;
  }
  return BuiltinKind::kGeneric;
}

NameRule NameRuleFor(const ResourceInfo& info) {
  switch (KindOf(info)) {
    case BuiltinKind::kNamespace:
      return NameRule::kDnsLabel;
    case BuiltinKind::kService:
      return NameRule::kDns1035Label;
    case BuiltinKind::kEvent:
      return NameRule::kPathSegment;
    case BuiltinKind::kGeneric:
      // CertificateSigningRequests take any name that is a path segment.
      return IsCertificateSigningRequest(info) ? NameRule::kPathSegment : NameRule::kDnsSubdomain;
    case BuiltinKind::kConfigMap:
    case BuiltinKind::kSecret:
    case BuiltinKind::kEventV1:
    case BuiltinKind::kPod:
    case BuiltinKind::kServiceAccount:
    case BuiltinKind::kNode:
    case BuiltinKind::kDeployment:
    case BuiltinKind::kReplicaSet:
    case BuiltinKind::kLease:
      return NameRule::kDnsSubdomain;
  }
  return NameRule::kDnsSubdomain;
}

bool ReturnsDeletedObject(const ResourceInfo& info) {
  switch (KindOf(info)) {
    case BuiltinKind::kNamespace:
    case BuiltinKind::kPod:
    case BuiltinKind::kService:
    case BuiltinKind::kServiceAccount:
      return true;
    case BuiltinKind::kGeneric:
      // The generic stores with ReturnDeletedObject among the further kinds.
      return info.builtin && ((info.group.empty() && (info.resource == "podtemplates" ||
                                                      info.resource == "replicationcontrollers" ||
                                                      info.resource == "resourcequotas")) ||
                              (info.group == "storage.k8s.io" &&
                               (info.resource == "csidrivers" || info.resource == "csinodes" ||
                                info.resource == "storageclasses")));
    case BuiltinKind::kConfigMap:
    case BuiltinKind::kSecret:
    case BuiltinKind::kEvent:
    case BuiltinKind::kEventV1:
    case BuiltinKind::kNode:
    case BuiltinKind::kDeployment:
    case BuiltinKind::kReplicaSet:
    case BuiltinKind::kLease:
      return false;
  }
  return false;
}

std::string FieldValueString(std::string_view field, const json::value* value) {
  if (value == nullptr || value->is_null()) {
    // kube's field sets hold Go zero values for absent fields.
    if (field == "spec.hostNetwork" || field == "spec.unschedulable") return "false";
    if (field == "status.replicas") return "0";
    return "";
  }
  if (value->is_string()) return std::string(value->get_string());
  if (value->is_bool()) return value->get_bool() ? "true" : "false";
  if (value->is_int64()) return std::to_string(value->get_int64());
  if (value->is_uint64()) return std::to_string(value->get_uint64());
  return json::serialize(*value);
}

GroupKind GroupKindOf(const ResourceInfo& info) {
  // events.k8s.io Events are the core Events' storage, which names errors with the core kind.
  if (KindOf(info) == BuiltinKind::kEventV1) return {"", info.kind};
  return {info.group, info.kind};
}

namespace {

// The members that are not metadata (and not status when it is a subresource): the parts of an
// object whose change bumps generation.
bool NonMetadataEqual(const json::object& a, const json::object& b, bool skip_status) {
  auto skip = [&](std::string_view k) {
    return k == "metadata" || k == "kind" || k == "apiVersion" || (skip_status && k == "status");
  };
  for (const auto& kv : a) {
    const std::string_view k(kv.key().data(), kv.key().size());
    if (skip(k)) continue;
    const auto* other = b.if_contains(k);
    if (other == nullptr || !JsonEqual(kv.value(), *other)) return false;
  }
  for (const auto& kv : b) {
    const std::string_view k(kv.key().data(), kv.key().size());
    if (skip(k)) continue;
    if (!a.contains(k)) return false;
  }
  return true;
}

bool MemberEqual(const json::object& a, const json::object& b, std::string_view key) {
  const auto* x = a.if_contains(key);
  const auto* y = b.if_contains(key);
  if (x == nullptr || y == nullptr) return x == y;
  return JsonEqual(*x, *y);
}

// The default admission plugins' changes to a new pod: Priority (no class: priority 0 and the
// default preemption policy) and DefaultTolerationSeconds (5 minutes on not-ready and
// unreachable nodes, unless the pod tolerates those taints already).
void AdmitPod(json::object& spec) {
  // The pod strategy's PrepareFor*: a negative grace period is 1 second.
  if (const auto* g = spec.if_contains("terminationGracePeriodSeconds"); g != nullptr && g->is_int64() && g->get_int64() < 0) {
    spec["terminationGracePeriodSeconds"] = 1;
  }
  if (StringAt(spec, "priorityClassName").empty()) {
    SetDefault(spec, "priority", 0);
    SetDefault(spec, "preemptionPolicy", "PreemptLowerPriority");
  }
  auto* existing = spec.if_contains("tolerations");
  json::array tolerations = existing != nullptr && existing->is_array() ? existing->get_array() : json::array();
  bool added = false;
  for (std::string_view key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    bool tolerated = false;
    for (const auto& t : tolerations) {
      if (!t.is_object()) continue;
      const auto& o = t.get_object();
      const auto effect = StringAt(o, "effect");
      const auto tkey = StringAt(o, "key");
      const bool matches_key = tkey == key || (tkey.empty() && StringAt(o, "operator") == "Exists");
      tolerated = tolerated || (matches_key && (effect.empty() || effect == "NoExecute"));
    }
    if (tolerated) continue;
    tolerations.push_back(json::object{{"key", key}, {"operator", "Exists"}, {"effect", "NoExecute"},
                                       {"tolerationSeconds", 300}});
    added = true;
  }
  if (added) spec["tolerations"] = std::move(tolerations);
}

// NodeStatus's struct members Go always encodes: the kubelet endpoint and the node info.
void DefaultNodeStatus(json::object& obj) {
  auto& status = EnsureObject(obj, "status");
  auto& endpoints = EnsureObject(EnsureObject(status, "daemonEndpoints"), "kubeletEndpoint");
  SetDefault(endpoints, "Port", 0);
  auto& info = EnsureObject(status, "nodeInfo");
  for (std::string_view member : {"machineID", "systemUUID", "bootID", "kernelVersion", "osImage", "containerRuntimeVersion",
                                  "kubeletVersion", "kubeProxyVersion", "operatingSystem", "architecture"}) {
    SetDefault(info, member, "");
  }
}

// The node-port allocator: a random free-looking port of 30000-32767 for each port without one.
void AllocateNodePorts(json::object& spec) {
  auto* ports = spec.if_contains("ports");
  if (ports == nullptr || !ports->is_array()) return;
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_int_distribution<int64_t> dist(30000, 32767);
  for (auto& p : ports->get_array()) {
    if (!p.is_object()) continue;
    const auto* n = p.get_object().if_contains("nodePort");
    if (n == nullptr || (n->is_int64() && n->get_int64() == 0)) p.get_object()["nodePort"] = dist(rng);
  }
}

std::string RandomClusterIp() {
  // 10.96.0.0/12 without the network address and 10.96.0.1 (the kubernetes Service).
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_int_distribution<uint32_t> dist(2, (1u << 20) - 2);
  const uint32_t ip = (10u << 24) | (96u << 16) | dist(rng);
  return std::to_string(ip >> 24) + "." + std::to_string((ip >> 16) & 255) + "." +
         std::to_string((ip >> 8) & 255) + "." + std::to_string(ip & 255);
}

bool HasCpuOrMemory(const json::object* list) {
  if (list == nullptr) return false;
  return list->contains("cpu") || list->contains("memory");
}

// apis/core/helper/qos GetPodQOS, simplified to cpu and memory of regular and init containers.
std::string PodQosClass(const json::object& spec) {
  bool any = false;
  bool guaranteed = true;
  for (std::string_view key : {"containers", "initContainers"}) {
    const auto* arr = spec.if_contains(key);
    if (arr == nullptr || !arr->is_array()) continue;
    for (const auto& c : arr->get_array()) {
      if (!c.is_object()) continue;
      const auto* res = ObjectAt(c.get_object(), "resources");
      const json::object* requests = res != nullptr ? ObjectAt(*res, "requests") : nullptr;
      const json::object* limits = res != nullptr ? ObjectAt(*res, "limits") : nullptr;
      if (HasCpuOrMemory(requests) || HasCpuOrMemory(limits)) any = true;
      for (std::string_view r : {"cpu", "memory"}) {
        const json::value* lim = limits != nullptr ? limits->if_contains(r) : nullptr;
        const json::value* req = requests != nullptr ? requests->if_contains(r) : nullptr;
        if (lim == nullptr) {
          guaranteed = false;
        } else if (req != nullptr && !JsonEqual(*req, *lim)) {
          guaranteed = false;
        }
      }
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

}  // namespace

// A built-in object as it reads back from storage (see NormalizeGoEmpty).
void NormalizeStored(const ResourceInfo& info, json::object& obj) {
  const TypeSchemaPtr schema = info.builtin && !IsCrdResource(info) ? BuiltinFieldSchema(info) : nullptr;
  if (schema == nullptr) return;
  json::value v(std::move(obj));
  NormalizeGoEmpty(*schema, v, /*stored=*/true);
  obj = std::move(v.as_object());
}

void PrepareForCreate(const ResourceInfo& info, json::object& obj, std::string_view user) {
  const BuiltinKind kind = KindOf(info);
  // kube decodes built-in objects into Go structs: members they do not have are dropped.
  PruneBuiltinFields(info, obj);
  if (info.has_status && kind != BuiltinKind::kNamespace && kind != BuiltinKind::kNode) {
    obj.erase("status");
    // The status starts over: Go's zero value of the status type, as Go encodes it (a
    // Deployment's {}, a ReplicaSet's replicas count, which has no omitempty).
    const TypeSchemaPtr schema = info.builtin ? BuiltinFieldSchema(info) : nullptr;
    const TypeSchema* status = schema != nullptr ? schema->Member("status") : nullptr;
    if (const json::object* initial = InitialStatusOf(info)) {
      obj["status"] = *initial;
    } else if (status != nullptr && schema->go_zero_members.contains("status")) {
      obj["status"] = GoZeroObject(*status);
    }
  }
  if (info.tracks_generation) EnsureObject(obj, "metadata")["generation"] = 1;
  PrepareOtherKindCreate(info, obj);
  if (IsCertificateSigningRequest(info)) PrepareCsrCreate(obj, user);
  NormalizeStored(info, obj);
  if (!info.builtin || IsCrdResource(info)) PrepareGenericKind(info, obj, /*creating=*/true);
  switch (kind) {
    case BuiltinKind::kNamespace: {
      auto& spec = EnsureObject(obj, "spec");
      auto* finalizers = spec.if_contains("finalizers");
      if (finalizers == nullptr || !finalizers->is_array()) {
        spec["finalizers"] = json::array{"kubernetes"};
      } else {
        bool has = false;
        for (const auto& f : finalizers->get_array()) has = has || (f.is_string() && f.get_string() == "kubernetes");
        if (!has) finalizers->get_array().emplace_back("kubernetes");
      }
      auto& status = EnsureObject(obj, "status");
      status["phase"] = "Active";
      break;
    }
    case BuiltinKind::kPod: {
      AdmitPod(EnsureObject(obj, "spec"));
      json::object status;
      status["phase"] = "Pending";
      const auto* spec = ObjectAt(obj, "spec");
      status["qosClass"] = PodQosClass(spec != nullptr ? *spec : json::object());
      obj["status"] = std::move(status);
      break;
    }
    case BuiltinKind::kService: {
      auto& spec = EnsureObject(obj, "spec");
      const auto type = StringAt(spec, "type");
      if (type != "ExternalName") {
        auto* ip = spec.if_contains("clusterIP");
        if (ip == nullptr || !ip->is_string() || ip->get_string().empty()) {
          spec["clusterIP"] = RandomClusterIp();
        }
        const auto cluster_ip = std::string(StringAt(spec, "clusterIP"));
        SetDefault(spec, "clusterIPs", json::array{json::value(cluster_ip)});
        SetDefault(spec, "ipFamilies", json::array{"IPv4"});
        SetDefault(spec, "ipFamilyPolicy", "SingleStack");
      }
      if (type == "NodePort" || type == "LoadBalancer") {
        const auto* allocate = spec.if_contains("allocateLoadBalancerNodePorts");
        if (type == "NodePort" || allocate == nullptr || (allocate->is_bool() && allocate->get_bool())) {
          AllocateNodePorts(spec);
        }
      }
      obj["status"] = json::object{{"loadBalancer", json::object()}};
      break;
    }
    case BuiltinKind::kNode: {
      // TaintNodesByCondition admission: a new node is not ready until its kubelet says so.
      auto& spec = EnsureObject(obj, "spec");
      auto* taints = spec.if_contains("taints");
      json::array list = taints != nullptr && taints->is_array() ? taints->get_array() : json::array();
      bool has = false;
      for (const auto& t : list) {
        has = has || (t.is_object() && StringAt(t.get_object(), "key") == "node.kubernetes.io/not-ready" &&
                      StringAt(t.get_object(), "effect") == "NoSchedule");
      }
      if (!has) list.push_back(json::object{{"key", "node.kubernetes.io/not-ready"}, {"effect", "NoSchedule"}});
      spec["taints"] = std::move(list);
      DefaultNodeStatus(obj);
      break;
    }
    case BuiltinKind::kGeneric:
    case BuiltinKind::kConfigMap:
    case BuiltinKind::kSecret:
    case BuiltinKind::kEvent:
    case BuiltinKind::kEventV1:
    case BuiltinKind::kServiceAccount:
    case BuiltinKind::kDeployment:
    case BuiltinKind::kReplicaSet:
    case BuiltinKind::kLease:
      break;
  }
}

namespace {

// The service registry's patchAllocatedValues: an update that leaves the cluster IPs or a node
// port out keeps the allocated ones; a cluster IP given alone is also the first of the list.
void KeepAllocatedValues(json::object& obj, const json::object& old) {
  const auto* old_spec = ObjectAt(old, "spec");
  if (old_spec == nullptr) return;
  auto& spec = EnsureObject(obj, "spec");
  if (StringAt(spec, "clusterIP").empty()) {
    CopyMember(spec, *old_spec, "clusterIP");
    if (!spec.contains("clusterIPs")) CopyMember(spec, *old_spec, "clusterIPs");
  } else if (!spec.contains("clusterIPs")) {
    spec["clusterIPs"] = json::array{spec.at("clusterIP")};
  }
  if (!spec.contains("ipFamilies")) CopyMember(spec, *old_spec, "ipFamilies");
  if (!spec.contains("ipFamilyPolicy")) CopyMember(spec, *old_spec, "ipFamilyPolicy");
  const auto* old_ports = old_spec->if_contains("ports");
  auto* ports = spec.if_contains("ports");
  if (old_ports == nullptr || !old_ports->is_array() || ports == nullptr || !ports->is_array()) return;
  for (auto& p : ports->get_array()) {
    if (!p.is_object() || p.get_object().contains("nodePort")) continue;
    for (const auto& q : old_ports->get_array()) {
      if (q.is_object() && JsonEqual(q.get_object().contains("port") ? q.get_object().at("port") : json::value(),
                                     p.get_object().contains("port") ? p.get_object().at("port") : json::value())) {
        CopyMember(p.get_object(), q.get_object(), "nodePort");
      }
    }
  }
}

}  // namespace

void PrepareForUpdate(const ResourceInfo& info, Subresource sub, json::object& obj,
                      const json::object& old, std::string_view now) {
  const BuiltinKind kind = KindOf(info);
  switch (sub) {
    case Subresource::kBinding:
    case Subresource::kEviction:
    case Subresource::kToken:
      break;  // never an update through the strategy (pod_subresources.cpp, token_request.cpp)
    case Subresource::kNone:
    case Subresource::kScale:
      if (info.has_status) CopyMember(obj, old, "status");
      if (kind == BuiltinKind::kService) KeepAllocatedValues(obj, old);
      if (kind == BuiltinKind::kPod) AdmitPod(EnsureObject(obj, "spec"));  // the admission plugins run on updates too
      if (kind == BuiltinKind::kNamespace) {
        // Only /finalize changes spec.finalizers.
        const auto* old_spec = ObjectAt(old, "spec");
        auto& spec = EnsureObject(obj, "spec");
        if (old_spec != nullptr) {
          CopyMember(spec, *old_spec, "finalizers");
        } else {
          spec.erase("finalizers");
        }
      }
      break;
    case Subresource::kStatus: {
      json::object merged = old;
      CopyMember(merged, obj, "metadata");
      CopyMember(merged, obj, "status");
      if (kind == BuiltinKind::kPod) {
        // A pod's QoS class is fixed at creation: the status strategy keeps it.
        const auto* old_status = ObjectAt(old, "status");
        if (old_status != nullptr) CopyMember(EnsureObject(merged, "status"), *old_status, "qosClass");
      }
      const bool custom_status = !info.builtin || IsCrdResource(info);
      if (kind == BuiltinKind::kDeployment || kind == BuiltinKind::kReplicaSet || custom_status) {
        const auto& old_meta = MetadataOf(old);
        auto& meta = EnsureObject(merged, "metadata");
        if (custom_status) {
          // Custom resources take nothing but status through /status.
          merged["metadata"] = old_meta;
        } else {
          CopyMember(meta, old_meta, "labels");
        }
      }
      obj = std::move(merged);
      break;
    }
    case Subresource::kFinalize: {
      json::object merged = old;
      CopyMember(merged, obj, "metadata");
      const auto* new_spec = ObjectAt(obj, "spec");
      auto& spec = EnsureObject(merged, "spec");
      if (new_spec != nullptr) {
        CopyMember(spec, *new_spec, "finalizers");
      } else {
        spec.erase("finalizers");
      }
      obj = std::move(merged);
      break;
    }
    case Subresource::kApproval: {
      // certificatesigningrequests/approval: the new conditions, everything else as it was.
      json::object merged = old;
      CopyMember(merged, obj, "metadata");
      const auto* new_status = ObjectAt(obj, "status");
      auto& status = EnsureObject(merged, "status");
      if (new_status != nullptr) {
        CopyMember(status, *new_status, "conditions");
      } else {
        status.erase("conditions");
      }
      obj = std::move(merged);
      break;
    }
  }
  if (IsCertificateSigningRequest(info)) PrepareCsrUpdate(sub, obj, old, now);

  // Unknown fields of built-in objects dropped; CRD defaulting; pruning and defaults of custom
  // resources (before the generation check, so that pruned fields never count as a change).
  PruneBuiltinFields(info, obj);
  if (!info.builtin || IsCrdResource(info)) PrepareGenericKind(info, obj, /*creating=*/false);
  NormalizeStored(info, obj);

  // Clients cannot set generation; it starts from the old value.
  auto& meta = EnsureObject(obj, "metadata");
  const auto& old_meta = MetadataOf(old);
  CopyMember(meta, old_meta, "generation");
  if (info.tracks_generation && (sub == Subresource::kNone || sub == Subresource::kScale)) {
    bool changed = !NonMetadataEqual(obj, old, info.has_status);
    if (kind == BuiltinKind::kDeployment) changed = changed || !MemberEqual(meta, old_meta, "annotations");
    // An EndpointSlice's labels count as a change (its strategy compares them with the body).
    if (info.builtin && info.group == "discovery.k8s.io") changed = changed || !MemberEqual(meta, old_meta, "labels");
    if (changed) {
      const auto* g = old_meta.if_contains("generation");
      const int64_t gen = g != nullptr && g->is_int64() ? g->get_int64() : 0;
      meta["generation"] = gen + 1;
    }
  }
}

void PrepareForStorage(const ResourceInfo& info, json::object& obj) {
  if (IsHorizontalPodAutoscaler(info)) DefaultHorizontalPodAutoscaler(obj, /*behavior=*/true);
}

std::vector<std::string> ResetFields(const ResourceInfo& info, Subresource sub) {
  if (IsCertificateSigningRequest(info)) return CsrResetFields(sub);
  return {};
}

Result<json::object> ScaleFromObject(const ResourceInfo& info, const json::object& obj) {
  const auto& meta = MetadataOf(obj);
  json::object scale_meta;
  for (std::string_view key : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
    if (const auto* v = meta.if_contains(key)) scale_meta[key] = *v;
  }
  json::value doc = obj;
  if (!info.builtin) {
    // Custom resources (kube's scaleFromCustomResource): the spec replicas field must exist.
    auto p = JsonPointer::Parse(info.scale_spec_replicas_path);
    const json::value* v = p.ok() ? Find(doc, *p) : nullptr;
    if (v == nullptr || !(v->is_int64() || v->is_uint64())) {
      std::string path;
      if (p.ok()) {
        for (const auto& t : p->Tokens()) path += "." + t;
      }
      if (v == nullptr) return NewInternalError("the spec replicas field " + QuoteJson(path) + " does not exist");
      return NewInternalError(".spec.replicas accessor error: " + SerializeJson(*v) + " is of the type " +
                              std::string(JsonTypeName(*v)) + ", expected int64");
    }
  }
  auto read_int = [&](const std::string& pointer) -> int64_t {
    auto p = JsonPointer::Parse(pointer);
    if (!p.ok()) return 0;
    const auto* v = Find(doc, *p);
    return v != nullptr && v->is_int64() ? v->get_int64() : 0;
  };
  std::string selector;
  if (!info.scale_label_selector_path.empty()) {
    auto p = JsonPointer::Parse(info.scale_label_selector_path);
    const json::value* v = p.ok() ? Find(doc, *p) : nullptr;
    if (v != nullptr && v->is_string()) {
      selector = std::string(v->get_string());
    } else if (v != nullptr && v->is_object()) {
      auto sel = LabelSelector::FromLabelSelectorJson(*v);
      if (!sel.ok()) return NewBadRequest(sel.error().message);
      selector = sel->String();
    }
  }
  json::object status;
  status["replicas"] = read_int(info.scale_status_replicas_path);
  if (!selector.empty()) status["selector"] = selector;
  json::object spec;
  // autoscaling/v1 ScaleSpec.replicas is omitempty; ScaleStatus.replicas is not.
  if (const int64_t replicas = read_int(info.scale_spec_replicas_path); replicas != 0) {
    spec["replicas"] = replicas;
  }
  return json::object{{"kind", "Scale"},
                      {"apiVersion", "autoscaling/v1"},
                      {"metadata", std::move(scale_meta)},
                      {"spec", std::move(spec)},
                      {"status", std::move(status)}};
}

}  // namespace kube::apiserver::rest
