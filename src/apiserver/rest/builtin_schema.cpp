// Built-in type schemas as compact OpenAPI v3 JSON, composed from per-type fragments (OpenAPI's
// $ref is not supported by ParseTypeSchema, so shared types are inlined). The x-kubernetes-*
// values are kube 1.32's (k8s.io/api core/v1, apps/v1, meta/v1 types.go tags: `patchStrategy`,
// `patchMergeKey`, `+listType`, `+listMapKey`, `+mapType`, `+structType`).

#include "apiserver/rest/builtin_schema.hpp"

#include <array>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>

namespace kube::apiserver::rest {
namespace {

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

// {"type":"object","properties":{...}} plus optional extra members.
std::string Obj(std::initializer_list<std::pair<std::string_view, std::string>> props, std::string_view extra = "") {
  std::string out = R"({"type":"object","properties":{)";
  bool first = true;
  for (const auto& [name, schema] : props) {
    if (!first) out += ',';
    first = false;
    out += Quoted(name) + ":" + schema;
  }
  out += "}";
  if (!extra.empty()) out += "," + std::string(extra);
  out += "}";
  return out;
}

std::string Str() { return R"({"type":"string"})"; }
std::string Int() { return R"({"type":"integer"})"; }
std::string AnyObj() { return R"({"type":"object","x-kubernetes-preserve-unknown-fields":true})"; }
std::string StrMap() { return R"({"type":"object","additionalProperties":{"type":"string"}})"; }
std::string AtomicStrMap() {
  return R"({"type":"object","additionalProperties":{"type":"string"},"x-kubernetes-map-type":"atomic"})";
}
// resource.Quantity maps (requests, limits, capacity, overhead).
std::string QuantityMap() { return R"({"type":"object","additionalProperties":{"x-kubernetes-int-or-string":true}})"; }

// +listType=atomic
std::string Atomic(const std::string& items) {
  return R"({"type":"array","x-kubernetes-list-type":"atomic","items":)" + items + "}";
}
// +listType=set with patchStrategy merge (a primitive set-merge list).
std::string MergeSet() {
  return R"({"type":"array","items":{"type":"string"},"x-kubernetes-list-type":"set","x-kubernetes-patch-strategy":"merge"})";
}
// +listType=map +listMapKey=<keys...> and patchStrategy/patchMergeKey (both optional).
std::string MapList(std::initializer_list<std::string_view> keys, std::string_view strategy,
                    std::string_view merge_key, const std::string& items) {
  std::string out = R"({"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":[)";
  bool first = true;
  for (auto k : keys) {
    if (!first) out += ',';
    first = false;
    out += Quoted(k);
  }
  out += "]";
  if (!strategy.empty()) out += R"(,"x-kubernetes-patch-strategy":)" + Quoted(strategy);
  if (!merge_key.empty()) out += R"(,"x-kubernetes-patch-merge-key":)" + Quoted(merge_key);
  out += R"(,"items":)" + items + "}";
  return out;
}
// A merge list without a list type (kube tags some fields only with patch metadata).
std::string MergeOnly(std::string_view merge_key, const std::string& items, std::string_view list_type = "") {
  std::string out = R"({"type":"array","x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":)" +
                    Quoted(merge_key);
  if (!list_type.empty()) out += R"(,"x-kubernetes-list-type":)" + Quoted(list_type);
  out += R"(,"items":)" + items + "}";
  return out;
}

// --- meta/v1 ---------------------------------------------------------------------------------

std::string OwnerReference() {
  return Obj({{"apiVersion", Str()},
              {"kind", Str()},
              {"name", Str()},
              {"uid", Str()},
              {"controller", R"({"type":"boolean"})"},
              {"blockOwnerDeletion", R"({"type":"boolean"})"}},
             R"("x-kubernetes-map-type":"atomic")");
}

std::string ObjectMeta() {
  return Obj({{"name", Str()},
              {"generateName", Str()},
              {"namespace", Str()},
              {"uid", Str()},
              {"resourceVersion", Str()},
              {"generation", Int()},
              {"creationTimestamp", Str()},
              {"deletionTimestamp", Str()},
              {"deletionGracePeriodSeconds", Int()},
              {"labels", StrMap()},
              {"annotations", StrMap()},
              {"ownerReferences", MapList({"uid"}, "merge", "uid", OwnerReference())},
              {"finalizers", MergeSet()},
              {"managedFields", Atomic(AnyObj())}});
}

std::string LabelSelector() {
  return Obj({{"matchLabels", StrMap()}, {"matchExpressions", Atomic(AnyObj())}},
             R"("x-kubernetes-map-type":"atomic")");
}

// A status condition list keyed by type (pods, nodes, namespaces, services, apps kinds).
std::string Conditions() {
  return MapList({"type"}, "merge", "type", Obj({{"type", Str()}, {"status", Str()}}));
}

// --- core/v1 pods ----------------------------------------------------------------------------

std::string ContainerPort() {
  return Obj({{"containerPort", Int()},
              {"protocol", R"({"type":"string","default":"TCP"})"},
              {"name", Str()},
              {"hostPort", Int()},
              {"hostIP", Str()}});
}

// Container and EphemeralContainer (EphemeralContainerCommon has the same tags).
std::string Container() {
  return Obj({{"name", Str()},
              {"image", Str()},
              {"command", Atomic(Str())},
              {"args", Atomic(Str())},
              {"workingDir", Str()},
              {"ports", MapList({"containerPort", "protocol"}, "merge", "containerPort", ContainerPort())},
              {"envFrom", Atomic(AnyObj())},
              {"env", MapList({"name"}, "merge", "name", Obj({{"name", Str()}, {"value", Str()}}))},
              {"resources", Obj({{"limits", QuantityMap()},
                                 {"requests", QuantityMap()},
                                 {"claims", MapList({"name"}, "", "", Obj({{"name", Str()}}))}})},
              {"resizePolicy", Atomic(AnyObj())},
              {"volumeMounts", MapList({"mountPath"}, "merge", "mountPath",
                                       Obj({{"name", Str()}, {"mountPath", Str()}}))},
              {"volumeDevices", MapList({"devicePath"}, "merge", "devicePath",
                                        Obj({{"name", Str()}, {"devicePath", Str()}}))},
              {"securityContext",
               Obj({{"capabilities", Obj({{"add", Atomic(Str())}, {"drop", Atomic(Str())}})}})}});
}

std::string Volume() {
  return Obj({{"name", Str()},
              {"configMap", Obj({{"items", Atomic(AnyObj())}})},
              {"secret", Obj({{"items", Atomic(AnyObj())}})},
              {"projected", Obj({{"sources", Atomic(AnyObj())}})},
              {"downwardAPI", Obj({{"items", Atomic(AnyObj())}})}});
}

std::string PodSpec() {
  return Obj({{"volumes", MapList({"name"}, "merge,retainKeys", "name", Volume())},
              {"initContainers", MapList({"name"}, "merge", "name", Container())},
              {"containers", MapList({"name"}, "merge", "name", Container())},
              {"ephemeralContainers", MapList({"name"}, "merge", "name", Container())},
              {"restartPolicy", Str()},
              {"terminationGracePeriodSeconds", Int()},
              {"activeDeadlineSeconds", Int()},
              {"dnsPolicy", Str()},
              {"nodeSelector", AtomicStrMap()},
              {"serviceAccountName", Str()},
              {"nodeName", Str()},
              {"hostNetwork", R"({"type":"boolean"})"},
              {"securityContext", Obj({{"supplementalGroups", Atomic(Int())}, {"sysctls", Atomic(AnyObj())}})},
              {"imagePullSecrets", MapList({"name"}, "merge", "name", Obj({{"name", Str()}}, R"("x-kubernetes-map-type":"atomic")"))},
              {"hostname", Str()},
              {"subdomain", Str()},
              {"schedulerName", Str()},
              {"tolerations", Atomic(AnyObj())},
              {"hostAliases", MapList({"ip"}, "merge", "ip", Obj({{"ip", Str()}, {"hostnames", Atomic(Str())}}))},
              {"priorityClassName", Str()},
              {"priority", Int()},
              {"dnsConfig", Obj({{"nameservers", Atomic(Str())}, {"searches", Atomic(Str())}, {"options", Atomic(AnyObj())}})},
              {"readinessGates", Atomic(AnyObj())},
              {"overhead", QuantityMap()},
              {"topologySpreadConstraints",
               MapList({"topologyKey", "whenUnsatisfiable"}, "merge", "topologyKey",
                       Obj({{"topologyKey", Str()}, {"whenUnsatisfiable", Str()}, {"maxSkew", Int()},
                            {"labelSelector", LabelSelector()}, {"matchLabelKeys", Atomic(Str())}}))},
              {"schedulingGates", MapList({"name"}, "merge", "name", Obj({{"name", Str()}}))},
              {"resourceClaims", MapList({"name"}, "merge,retainKeys", "name", Obj({{"name", Str()}}))}});
}

std::string PodStatus() {
  return Obj({{"phase", Str()},
              {"conditions", Conditions()},
              {"message", Str()},
              {"reason", Str()},
              {"hostIP", Str()},
              {"hostIPs", MergeOnly("ip", Obj({{"ip", Str()}}), "atomic")},
              {"podIP", Str()},
              {"podIPs", MapList({"ip"}, "merge", "ip", Obj({{"ip", Str()}}))},
              {"startTime", Str()},
              {"initContainerStatuses", Atomic(AnyObj())},
              {"containerStatuses", Atomic(AnyObj())},
              {"ephemeralContainerStatuses", Atomic(AnyObj())},
              {"qosClass", Str()},
              {"resourceClaimStatuses", MapList({"name"}, "merge,retainKeys", "name", Obj({{"name", Str()}}))}});
}

std::string PodTemplateSpec() { return Obj({{"metadata", ObjectMeta()}, {"spec", PodSpec()}}); }

// --- top-level kinds -------------------------------------------------------------------------

std::string TopLevel(std::initializer_list<std::pair<std::string_view, std::string>> rest) {
  std::string props = R"({"type":"object","properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"metadata":)" +
                      ObjectMeta();
  for (const auto& [name, schema] : rest) props += "," + Quoted(name) + ":" + schema;
  return props + "}}";
}

std::string Pod() { return TopLevel({{"spec", PodSpec()}, {"status", PodStatus()}}); }

std::string WorkloadSpec(bool deployment) {
  if (deployment) {
    return Obj({{"replicas", Int()},
                {"selector", LabelSelector()},
                {"template", PodTemplateSpec()},
                {"strategy", Obj({{"type", Str()}, {"rollingUpdate", AnyObj()}}, R"("x-kubernetes-patch-strategy":"retainKeys")")},
                {"minReadySeconds", Int()},
                {"revisionHistoryLimit", Int()},
                {"paused", R"({"type":"boolean"})"},
                {"progressDeadlineSeconds", Int()}});
  }
  return Obj({{"replicas", Int()}, {"minReadySeconds", Int()}, {"selector", LabelSelector()}, {"template", PodTemplateSpec()}});
}

std::string WorkloadStatus() {
  return Obj({{"observedGeneration", Int()},
              {"replicas", Int()},
              {"updatedReplicas", Int()},
              {"readyReplicas", Int()},
              {"availableReplicas", Int()},
              {"unavailableReplicas", Int()},
              {"fullyLabeledReplicas", Int()},
              {"conditions", Conditions()}});
}

std::string Service() {
  const std::string port = Obj({{"name", Str()},
                                {"protocol", R"({"type":"string","default":"TCP"})"},
                                {"port", Int()},
                                {"targetPort", R"({"x-kubernetes-int-or-string":true})"},
                                {"nodePort", Int()}});
  return TopLevel({{"spec", Obj({{"ports", MapList({"port", "protocol"}, "merge", "port", port)},
                                 {"selector", AtomicStrMap()},
                                 {"clusterIP", Str()},
                                 {"clusterIPs", Atomic(Str())},
                                 {"type", Str()},
                                 {"externalIPs", Atomic(Str())},
                                 {"loadBalancerSourceRanges", Atomic(Str())},
                                 {"ipFamilies", Atomic(Str())}})},
                   {"status", Obj({{"loadBalancer", Obj({{"ingress", Atomic(AnyObj())}})}, {"conditions", Conditions()}})}});
}

std::string Node() {
  return TopLevel({{"spec", Obj({{"podCIDR", Str()},
                                 {"podCIDRs", MergeSet()},
                                 {"providerID", Str()},
                                 {"unschedulable", R"({"type":"boolean"})"},
                                 {"taints", Atomic(AnyObj())}})},
                   {"status", Obj({{"capacity", QuantityMap()},
                                   {"allocatable", QuantityMap()},
                                   {"phase", Str()},
                                   {"conditions", Conditions()},
                                   // Tagged merge-by-type without a list type (kube warns the key
                                   // is not unique enough; kept for compatibility).
                                   {"addresses", MergeOnly("type", Obj({{"type", Str()}, {"address", Str()}}))},
                                   {"images", Atomic(AnyObj())},
                                   {"volumesInUse", Atomic(Str())},
                                   {"volumesAttached", Atomic(AnyObj())}})}});
}

std::string Namespace() {
  return TopLevel({{"spec", Obj({{"finalizers", Atomic(Str())}})},
                   {"status", Obj({{"phase", Str()}, {"conditions", Conditions()}})}});
}

std::string ConfigMap() {
  return TopLevel({{"data", StrMap()},
                   {"binaryData", StrMap()},
                   {"immutable", R"({"type":"boolean"})"}});
}

std::string Secret() {
  return TopLevel({{"data", StrMap()}, {"stringData", StrMap()}, {"type", Str()}, {"immutable", R"({"type":"boolean"})"}});
}

std::string ServiceAccount() {
  const std::string ref = Obj({{"name", Str()}, {"namespace", Str()}, {"kind", Str()}, {"uid", Str()}},
                              R"("x-kubernetes-map-type":"atomic")");
  return TopLevel({{"secrets", MapList({"name"}, "merge", "name", ref)},
                   {"imagePullSecrets", Atomic(Obj({{"name", Str()}}, R"("x-kubernetes-map-type":"atomic")"))},
                   {"automountServiceAccountToken", R"({"type":"boolean"})"}});
}

std::string ObjectReference() {
  return Obj({{"kind", Str()}, {"namespace", Str()}, {"name", Str()}, {"uid", Str()}, {"apiVersion", Str()},
              {"resourceVersion", Str()}, {"fieldPath", Str()}},
             R"("x-kubernetes-map-type":"atomic")");
}

std::string CoreEvent() {
  return TopLevel({{"involvedObject", ObjectReference()},
                   {"reason", Str()},
                   {"message", Str()},
                   {"source", Obj({{"component", Str()}, {"host", Str()}})},
                   {"firstTimestamp", Str()},
                   {"lastTimestamp", Str()},
                   {"count", Int()},
                   {"type", Str()},
                   {"eventTime", Str()},
                   {"series", Obj({{"count", Int()}, {"lastObservedTime", Str()}})},
                   {"action", Str()},
                   {"related", ObjectReference()},
                   {"reportingComponent", Str()},
                   {"reportingInstance", Str()}});
}

std::string EventV1() {
  return TopLevel({{"eventTime", Str()},
                   {"series", Obj({{"count", Int()}, {"lastObservedTime", Str()}})},
                   {"reportingController", Str()},
                   {"reportingInstance", Str()},
                   {"action", Str()},
                   {"reason", Str()},
                   {"regarding", ObjectReference()},
                   {"related", ObjectReference()},
                   {"note", Str()},
                   {"type", Str()},
                   {"deprecatedSource", Obj({{"component", Str()}, {"host", Str()}})},
                   {"deprecatedFirstTimestamp", Str()},
                   {"deprecatedLastTimestamp", Str()},
                   {"deprecatedCount", Int()}});
}

std::string Lease() {
  return TopLevel({{"spec", Obj({{"holderIdentity", Str()},
                                 {"leaseDurationSeconds", Int()},
                                 {"acquireTime", Str()},
                                 {"renewTime", Str()},
                                 {"leaseTransitions", Int()},
                                 {"strategy", Str()},
                                 {"preferredHolder", Str()}})}});
}

constexpr std::array kKinds = {BuiltinKind::kGeneric,    BuiltinKind::kNamespace, BuiltinKind::kConfigMap,
                               BuiltinKind::kSecret,     BuiltinKind::kEvent,     BuiltinKind::kEventV1,
                               BuiltinKind::kPod,        BuiltinKind::kService,   BuiltinKind::kServiceAccount,
                               BuiltinKind::kNode,       BuiltinKind::kDeployment, BuiltinKind::kReplicaSet,
                               BuiltinKind::kLease};

}  // namespace

std::string BuiltinSchemaJson(BuiltinKind kind) {
  switch (kind) {
    case BuiltinKind::kGeneric: return "";
    case BuiltinKind::kNamespace: return Namespace();
    case BuiltinKind::kConfigMap: return ConfigMap();
    case BuiltinKind::kSecret: return Secret();
    case BuiltinKind::kEvent: return CoreEvent();
    case BuiltinKind::kEventV1: return EventV1();
    case BuiltinKind::kPod: return Pod();
    case BuiltinKind::kService: return Service();
    case BuiltinKind::kServiceAccount: return ServiceAccount();
    case BuiltinKind::kNode: return Node();
    case BuiltinKind::kDeployment: return TopLevel({{"spec", WorkloadSpec(true)}, {"status", WorkloadStatus()}});
    case BuiltinKind::kReplicaSet: return TopLevel({{"spec", WorkloadSpec(false)}, {"status", WorkloadStatus()}});
    case BuiltinKind::kLease: return Lease();
  }
  return "";
}

TypeSchemaPtr BuiltinSchema(BuiltinKind kind) {
  static const std::array<TypeSchemaPtr, kKinds.size()> schemas = [] {
    std::array<TypeSchemaPtr, kKinds.size()> out;
    for (std::size_t i = 0; i < kKinds.size(); ++i) {
      const std::string text = BuiltinSchemaJson(kKinds[i]);
      if (text.empty()) continue;
      auto parsed = ParseTypeSchema(std::string_view(text));
      // The tables are compile-time constants; a parse failure is a programming error.
      if (!parsed.ok()) std::abort();
      out[i] = std::move(*parsed);
    }
    return out;
  }();
  for (std::size_t i = 0; i < kKinds.size(); ++i) {
    if (kKinds[i] == kind) return schemas[i];
  }
  return nullptr;
}

}  // namespace kube::apiserver::rest
