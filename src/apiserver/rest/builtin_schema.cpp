// Built-in type schemas as compact OpenAPI v3 JSON, composed from per-type fragments (OpenAPI's
// $ref is not supported by ParseTypeSchema, so shared types are inlined). The x-kubernetes-*
// values are kube 1.32's (k8s.io/api core/v1, apps/v1, meta/v1 types.go tags: `patchStrategy`,
// `patchMergeKey`, `+listType`, `+listMapKey`, `+mapType`, `+structType`).

#include "apiserver/rest/builtin_schema.hpp"

#include "apiserver/rest/go_zero.hpp"

#include <array>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>
#include <tuple>

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

std::string Bool() { return R"({"type":"boolean"})"; }
// An int-or-string value (intstr.IntOrString, resource.Quantity).
std::string IntOrStr() { return R"({"x-kubernetes-int-or-string":true})"; }
// A struct kubecpp does not describe member by member: every member is kept (never dropped nor
// reported), the safe direction when a kube 1.32 type is not listed with certainty.
std::string OpenObj(std::initializer_list<std::pair<std::string_view, std::string>> props, std::string_view extra = "") {
  std::string more = R"("x-kubernetes-preserve-unknown-fields":true)";
  if (!extra.empty()) more += "," + std::string(extra);
  return Obj(props, more);
}
std::string AtomicObj(std::initializer_list<std::pair<std::string_view, std::string>> props) {
  return Obj(props, R"("x-kubernetes-map-type":"atomic")");
}

std::string OwnerReference() {
  return AtomicObj({{"apiVersion", Str()},
                    {"kind", Str()},
                    {"name", Str()},
                    {"uid", Str()},
                    {"controller", Bool()},
                    {"blockOwnerDeletion", Bool()}});
}

std::string ManagedFieldsEntry() {
  return Obj({{"manager", Str()},
              {"operation", Str()},
              {"apiVersion", Str()},
              {"time", Str()},
              {"fieldsType", Str()},
              {"fieldsV1", AnyObj()},
              {"subresource", Str()}});
}

// metav1.ObjectMeta, complete for kube 1.32.
std::string ObjectMeta() {
  return Obj({{"name", Str()},
              {"generateName", Str()},
              {"namespace", Str()},
              {"selfLink", Str()},
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
              {"managedFields", Atomic(ManagedFieldsEntry())}});
}

std::string LabelSelector() {
  const std::string requirement = Obj({{"key", Str()}, {"operator", Str()}, {"values", Atomic(Str())}});
  return Obj({{"matchLabels", StrMap()}, {"matchExpressions", Atomic(requirement)}},
             R"("x-kubernetes-map-type":"atomic")");
}

// A status condition list keyed by type (pods, nodes, namespaces, services): the members beyond
// type and status differ per kind and are kept.
std::string Conditions() {
  return MapList({"type"}, "merge", "type", OpenObj({{"type", Str()}, {"status", Str()}}));
}

// --- core/v1 pods ----------------------------------------------------------------------------

std::string ContainerPort() {
  return Obj({{"containerPort", Int()},
              {"protocol", R"({"type":"string","default":"TCP"})"},
              {"name", Str()},
              {"hostPort", Int()},
              {"hostIP", Str()}});
}

std::string KeySelector() { return AtomicObj({{"name", Str()}, {"key", Str()}, {"optional", Bool()}}); }

std::string EnvVar() {
  const std::string source =
      Obj({{"fieldRef", AtomicObj({{"apiVersion", Str()}, {"fieldPath", Str()}})},
           {"resourceFieldRef", AtomicObj({{"containerName", Str()}, {"resource", Str()}, {"divisor", IntOrStr()}})},
           {"configMapKeyRef", KeySelector()},
           {"secretKeyRef", KeySelector()}});
  return Obj({{"name", Str()}, {"value", Str()}, {"valueFrom", source}});
}

std::string EnvFromSource() {
  const std::string ref = Obj({{"name", Str()}, {"optional", Bool()}});
  return Obj({{"prefix", Str()}, {"configMapRef", ref}, {"secretRef", ref}});
}

std::string ResourceRequirements() {
  return Obj({{"limits", QuantityMap()},
              {"requests", QuantityMap()},
              {"claims", MapList({"name"}, "", "", Obj({{"name", Str()}, {"request", Str()}}))}});
}

std::string HttpGet() {
  return Obj({{"path", Str()},
              {"port", IntOrStr()},
              {"host", Str()},
              {"scheme", Str()},
              {"httpHeaders", Atomic(Obj({{"name", Str()}, {"value", Str()}}))}});
}

std::string ExecAction() { return Obj({{"command", Atomic(Str())}}); }
std::string TcpSocket() { return Obj({{"port", IntOrStr()}, {"host", Str()}}); }

std::string Probe() {
  return Obj({{"exec", ExecAction()},
              {"httpGet", HttpGet()},
              {"tcpSocket", TcpSocket()},
              {"grpc", Obj({{"port", Int()}, {"service", Str()}})},
              {"initialDelaySeconds", Int()},
              {"timeoutSeconds", Int()},
              {"periodSeconds", Int()},
              {"successThreshold", Int()},
              {"failureThreshold", Int()},
              {"terminationGracePeriodSeconds", Int()}});
}

std::string LifecycleHandler() {
  return Obj({{"exec", ExecAction()}, {"httpGet", HttpGet()}, {"tcpSocket", TcpSocket()},
              {"sleep", Obj({{"seconds", Int()}})}});
}

std::string SeLinuxOptions() { return Obj({{"user", Str()}, {"role", Str()}, {"type", Str()}, {"level", Str()}}); }
std::string WindowsOptions() {
  return Obj({{"gmsaCredentialSpecName", Str()}, {"gmsaCredentialSpec", Str()}, {"runAsUserName", Str()},
              {"hostProcess", Bool()}});
}
std::string ProfileRef() { return Obj({{"type", Str()}, {"localhostProfile", Str()}}); }

std::string SecurityContext() {
  return Obj({{"capabilities", Obj({{"add", Atomic(Str())}, {"drop", Atomic(Str())}})},
              {"privileged", Bool()},
              {"seLinuxOptions", SeLinuxOptions()},
              {"windowsOptions", WindowsOptions()},
              {"runAsUser", Int()},
              {"runAsGroup", Int()},
              {"runAsNonRoot", Bool()},
              {"readOnlyRootFilesystem", Bool()},
              {"allowPrivilegeEscalation", Bool()},
              {"procMount", Str()},
              {"seccompProfile", ProfileRef()},
              {"appArmorProfile", ProfileRef()}});
}

// Container and EphemeralContainer (EphemeralContainerCommon has the same fields and tags, plus
// targetContainerName), complete for kube 1.32.
std::string Container(bool ephemeral) {
  std::string out = Obj({{"name", Str()},
                         {"image", Str()},
                         {"command", Atomic(Str())},
                         {"args", Atomic(Str())},
                         {"workingDir", Str()},
                         {"ports", MapList({"containerPort", "protocol"}, "merge", "containerPort", ContainerPort())},
                         {"envFrom", Atomic(EnvFromSource())},
                         {"env", MapList({"name"}, "merge", "name", EnvVar())},
                         {"resources", ResourceRequirements()},
                         {"resizePolicy", Atomic(Obj({{"resourceName", Str()}, {"restartPolicy", Str()}}))},
                         {"restartPolicy", Str()},
                         {"volumeMounts", MapList({"mountPath"}, "merge", "mountPath",
                                                  Obj({{"name", Str()},
                                                       {"readOnly", Bool()},
                                                       {"recursiveReadOnly", Str()},
                                                       {"mountPath", Str()},
                                                       {"subPath", Str()},
                                                       {"mountPropagation", Str()},
                                                       {"subPathExpr", Str()}}))},
                         {"volumeDevices", MapList({"devicePath"}, "merge", "devicePath",
                                                   Obj({{"name", Str()}, {"devicePath", Str()}}))},
                         {"livenessProbe", Probe()},
                         {"readinessProbe", Probe()},
                         {"startupProbe", Probe()},
                         {"lifecycle", Obj({{"postStart", LifecycleHandler()}, {"preStop", LifecycleHandler()}})},
                         {"terminationMessagePath", Str()},
                         {"terminationMessagePolicy", Str()},
                         {"imagePullPolicy", Str()},
                         {"securityContext", SecurityContext()},
                         {"stdin", Bool()},
                         {"stdinOnce", Bool()},
                         {"tty", Bool()}});
  if (ephemeral) {
    out.insert(out.find(R"("properties":{)") + 14, R"("targetContainerName":{"type":"string"},)");
  }
  return out;
}

// Volume: the name plus one of kube's volume sources. The sources kubecpp has merge metadata for
// are described; the others keep every member.
std::string Volume() {
  return Obj({{"name", Str()},
              {"hostPath", OpenObj({{"path", Str()}, {"type", Str()}})},
              {"emptyDir", OpenObj({{"medium", Str()}, {"sizeLimit", IntOrStr()}})},
              {"gcePersistentDisk", AnyObj()},
              {"awsElasticBlockStore", AnyObj()},
              {"gitRepo", AnyObj()},
              {"secret", OpenObj({{"secretName", Str()}, {"items", Atomic(AnyObj())}, {"defaultMode", Int()},
                                  {"optional", Bool()}})},
              {"nfs", AnyObj()},
              {"iscsi", AnyObj()},
              {"glusterfs", AnyObj()},
              {"persistentVolumeClaim", OpenObj({{"claimName", Str()}, {"readOnly", Bool()}})},
              {"rbd", AnyObj()},
              {"flexVolume", AnyObj()},
              {"cinder", AnyObj()},
              {"cephfs", AnyObj()},
              {"flocker", AnyObj()},
              {"downwardAPI", OpenObj({{"items", Atomic(AnyObj())}, {"defaultMode", Int()}})},
              {"fc", AnyObj()},
              {"azureFile", AnyObj()},
              {"configMap", OpenObj({{"name", Str()}, {"items", Atomic(AnyObj())}, {"defaultMode", Int()},
                                     {"optional", Bool()}})},
              {"vsphereVolume", AnyObj()},
              {"quobyte", AnyObj()},
              {"azureDisk", AnyObj()},
              {"photonPersistentDisk", AnyObj()},
              {"projected", OpenObj({{"sources", Atomic(AnyObj())}, {"defaultMode", Int()}})},
              {"portworxVolume", AnyObj()},
              {"scaleIO", AnyObj()},
              {"storageos", AnyObj()},
              {"csi", AnyObj()},
              {"ephemeral", AnyObj()},
              {"image", AnyObj()}});
}

std::string PodSecurityContext() {
  return Obj({{"seLinuxOptions", SeLinuxOptions()},
              {"windowsOptions", WindowsOptions()},
              {"runAsUser", Int()},
              {"runAsGroup", Int()},
              {"runAsNonRoot", Bool()},
              {"supplementalGroups", Atomic(Int())},
              {"supplementalGroupsPolicy", Str()},
              {"fsGroup", Int()},
              {"sysctls", Atomic(Obj({{"name", Str()}, {"value", Str()}}))},
              {"fsGroupChangePolicy", Str()},
              {"seccompProfile", ProfileRef()},
              {"appArmorProfile", ProfileRef()},
              {"seLinuxChangePolicy", Str()}});
}

std::string Toleration() {
  return Obj({{"key", Str()}, {"operator", Str()}, {"value", Str()}, {"effect", Str()}, {"tolerationSeconds", Int()}});
}

std::string TopologySpreadConstraint() {
  return Obj({{"maxSkew", Int()},
              {"topologyKey", Str()},
              {"whenUnsatisfiable", Str()},
              {"labelSelector", LabelSelector()},
              {"minDomains", Int()},
              {"nodeAffinityPolicy", Str()},
              {"nodeTaintsPolicy", Str()},
              {"matchLabelKeys", Atomic(Str())}});
}

// PodSpec, every top-level field of kube 1.32.
std::string PodSpec() {
  return Obj({{"volumes", MapList({"name"}, "merge,retainKeys", "name", Volume())},
              {"initContainers", MapList({"name"}, "merge", "name", Container(false))},
              {"containers", MapList({"name"}, "merge", "name", Container(false))},
              {"ephemeralContainers", MapList({"name"}, "merge", "name", Container(true))},
              {"restartPolicy", Str()},
              {"terminationGracePeriodSeconds", Int()},
              {"activeDeadlineSeconds", Int()},
              {"dnsPolicy", Str()},
              {"nodeSelector", AtomicStrMap()},
              {"serviceAccountName", Str()},
              {"serviceAccount", Str()},
              {"automountServiceAccountToken", Bool()},
              {"nodeName", Str()},
              {"hostNetwork", Bool()},
              {"hostPID", Bool()},
              {"hostIPC", Bool()},
              {"shareProcessNamespace", Bool()},
              {"securityContext", PodSecurityContext()},
              {"imagePullSecrets", MapList({"name"}, "merge", "name", AtomicObj({{"name", Str()}}))},
              {"hostname", Str()},
              {"subdomain", Str()},
              {"affinity", Obj({{"nodeAffinity", AnyObj()}, {"podAffinity", AnyObj()}, {"podAntiAffinity", AnyObj()}})},
              {"schedulerName", Str()},
              {"tolerations", Atomic(Toleration())},
              {"hostAliases", MapList({"ip"}, "merge", "ip", Obj({{"ip", Str()}, {"hostnames", Atomic(Str())}}))},
              {"priorityClassName", Str()},
              {"priority", Int()},
              {"dnsConfig", Obj({{"nameservers", Atomic(Str())},
                                 {"searches", Atomic(Str())},
                                 {"options", Atomic(Obj({{"name", Str()}, {"value", Str()}}))}})},
              {"readinessGates", Atomic(Obj({{"conditionType", Str()}}))},
              {"runtimeClassName", Str()},
              {"enableServiceLinks", Bool()},
              {"preemptionPolicy", Str()},
              {"overhead", QuantityMap()},
              {"topologySpreadConstraints",
               MapList({"topologyKey", "whenUnsatisfiable"}, "merge", "topologyKey", TopologySpreadConstraint())},
              {"setHostnameAsFQDN", Bool()},
              {"os", Obj({{"name", Str()}})},
              {"hostUsers", Bool()},
              {"schedulingGates", MapList({"name"}, "merge", "name", Obj({{"name", Str()}}))},
              {"resourceClaims", MapList({"name"}, "merge,retainKeys", "name", OpenObj({{"name", Str()}}))},
              {"resources", ResourceRequirements()}});
}

// PodStatus is written by kubelets and controllers: merge metadata for the lists, every member kept.
std::string PodStatus() {
  return OpenObj({{"phase", Str()},
                  {"conditions", Conditions()},
                  {"message", Str()},
                  {"reason", Str()},
                  {"hostIP", Str()},
                  {"hostIPs", MergeOnly("ip", OpenObj({{"ip", Str()}}), "atomic")},
                  {"podIP", Str()},
                  {"podIPs", MapList({"ip"}, "merge", "ip", OpenObj({{"ip", Str()}}))},
                  {"startTime", Str()},
                  {"initContainerStatuses", Atomic(AnyObj())},
                  {"containerStatuses", Atomic(AnyObj())},
                  {"ephemeralContainerStatuses", Atomic(AnyObj())},
                  {"qosClass", Str()},
                  {"resourceClaimStatuses", MapList({"name"}, "merge,retainKeys", "name", OpenObj({{"name", Str()}}))}});
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
                {"strategy", Obj({{"type", Str()},
                                  {"rollingUpdate", Obj({{"maxUnavailable", IntOrStr()}, {"maxSurge", IntOrStr()}})}},
                                 R"("x-kubernetes-patch-strategy":"retainKeys")")},
                {"minReadySeconds", Int()},
                {"revisionHistoryLimit", Int()},
                {"paused", Bool()},
                {"progressDeadlineSeconds", Int()}});
  }
  return Obj({{"replicas", Int()}, {"minReadySeconds", Int()}, {"selector", LabelSelector()}, {"template", PodTemplateSpec()}});
}

// DeploymentStatus / ReplicaSetStatus, complete for kube 1.32.
std::string WorkloadStatus(bool deployment) {
  const std::string condition = Obj({{"type", Str()},
                                     {"status", Str()},
                                     {"lastUpdateTime", Str()},
                                     {"lastTransitionTime", Str()},
                                     {"reason", Str()},
                                     {"message", Str()}});
  if (deployment) {
    return Obj({{"observedGeneration", Int()},
                {"replicas", Int()},
                {"updatedReplicas", Int()},
                {"readyReplicas", Int()},
                {"availableReplicas", Int()},
                {"unavailableReplicas", Int()},
                {"conditions", MapList({"type"}, "merge", "type", condition)},
                {"collisionCount", Int()}});
  }
  const std::string rs_condition = Obj({{"type", Str()},
                                        {"status", Str()},
                                        {"lastTransitionTime", Str()},
                                        {"reason", Str()},
                                        {"message", Str()}});
  return Obj({{"replicas", Int()},
              {"fullyLabeledReplicas", Int()},
              {"readyReplicas", Int()},
              {"availableReplicas", Int()},
              {"observedGeneration", Int()},
              {"conditions", MapList({"type"}, "merge", "type", rs_condition)}});
}

std::string Service() {
  const std::string port = Obj({{"name", Str()},
                                {"protocol", R"({"type":"string","default":"TCP"})"},
                                {"appProtocol", Str()},
                                {"port", Int()},
                                {"targetPort", IntOrStr()},
                                {"nodePort", Int()}});
  return TopLevel(
      {{"spec", Obj({{"ports", MapList({"port", "protocol"}, "merge", "port", port)},
                     {"selector", AtomicStrMap()},
                     {"clusterIP", Str()},
                     {"clusterIPs", Atomic(Str())},
                     {"type", Str()},
                     {"externalIPs", Atomic(Str())},
                     {"sessionAffinity", Str()},
                     {"loadBalancerIP", Str()},
                     {"loadBalancerSourceRanges", Atomic(Str())},
                     {"externalName", Str()},
                     {"externalTrafficPolicy", Str()},
                     {"healthCheckNodePort", Int()},
                     {"publishNotReadyAddresses", Bool()},
                     {"sessionAffinityConfig", Obj({{"clientIP", Obj({{"timeoutSeconds", Int()}})}})},
                     {"ipFamilies", Atomic(Str())},
                     {"ipFamilyPolicy", Str()},
                     {"allocateLoadBalancerNodePorts", Bool()},
                     {"loadBalancerClass", Str()},
                     {"internalTrafficPolicy", Str()},
                     {"trafficDistribution", Str()}})},
       {"status", OpenObj({{"loadBalancer", OpenObj({{"ingress", Atomic(AnyObj())}})}, {"conditions", Conditions()}})}});
}

std::string Node() {
  return TopLevel({{"spec", Obj({{"podCIDR", Str()},
                                 {"podCIDRs", MergeSet()},
                                 {"providerID", Str()},
                                 {"unschedulable", Bool()},
                                 {"taints", Atomic(Obj({{"key", Str()}, {"value", Str()}, {"effect", Str()},
                                                        {"timeAdded", Str()}}))},
                                 {"configSource", AnyObj()},
                                 {"externalID", Str()}})},
                   {"status", OpenObj({{"capacity", QuantityMap()},
                                       {"allocatable", QuantityMap()},
                                       {"phase", Str()},
                                       {"conditions", Conditions()},
                                       // Tagged merge-by-type without a list type (kube warns the key
                                       // is not unique enough; kept for compatibility).
                                       {"addresses", MergeOnly("type", OpenObj({{"type", Str()}, {"address", Str()}}))},
                                       {"images", Atomic(AnyObj())},
                                       {"volumesInUse", Atomic(Str())},
                                       {"volumesAttached", Atomic(AnyObj())}})}});
}

std::string Namespace() {
  return TopLevel({{"spec", Obj({{"finalizers", Atomic(Str())}})},
                   {"status", Obj({{"phase", Str()}, {"conditions", Conditions()}})}});
}

std::string ConfigMap() {
  return TopLevel({{"data", StrMap()}, {"binaryData", StrMap()}, {"immutable", Bool()}});
}

std::string Secret() {
  return TopLevel({{"data", StrMap()}, {"stringData", StrMap()}, {"type", Str()}, {"immutable", Bool()}});
}

std::string ServiceAccount() {
  const std::string ref = Obj({{"kind", Str()}, {"namespace", Str()}, {"name", Str()}, {"uid", Str()},
                               {"apiVersion", Str()}, {"resourceVersion", Str()}, {"fieldPath", Str()}},
                              R"("x-kubernetes-map-type":"atomic")");
  return TopLevel({{"secrets", MapList({"name"}, "merge", "name", ref)},
                   {"imagePullSecrets", Atomic(AtomicObj({{"name", Str()}}))},
                   {"automountServiceAccountToken", Bool()}});
}

std::string ObjectReference() {
  return AtomicObj({{"kind", Str()}, {"namespace", Str()}, {"name", Str()}, {"uid", Str()}, {"apiVersion", Str()},
                    {"resourceVersion", Str()}, {"fieldPath", Str()}});
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

// --- rbac.authorization.k8s.io/v1 ------------------------------------------------------------

std::string PolicyRules() {
  return Atomic(Obj({{"verbs", Atomic(Str())},
                     {"apiGroups", Atomic(Str())},
                     {"resources", Atomic(Str())},
                     {"resourceNames", Atomic(Str())},
                     {"nonResourceURLs", Atomic(Str())}}));
}

std::string RbacBinding() {
  return TopLevel({{"subjects", Atomic(AtomicObj({{"kind", Str()}, {"apiGroup", Str()}, {"name", Str()},
                                                  {"namespace", Str()}}))},
                   {"roleRef", AtomicObj({{"apiGroup", Str()}, {"kind", Str()}, {"name", Str()}})}});
}

// --- apiextensions.k8s.io/v1 -----------------------------------------------------------------

// The CRD's own schema. `openAPIV3Schema` (JSONSchemaProps, recursive) and the status keep every
// member.
std::string CustomResourceDefinition() {
  const std::string version = Obj(
      {{"name", Str()},
       {"served", Bool()},
       {"storage", Bool()},
       {"deprecated", Bool()},
       {"deprecationWarning", Str()},
       {"schema", Obj({{"openAPIV3Schema", AnyObj()}})},
       {"subresources", Obj({{"status", AnyObj()},
                             {"scale", Obj({{"specReplicasPath", Str()}, {"statusReplicasPath", Str()},
                                            {"labelSelectorPath", Str()}})}})},
       {"additionalPrinterColumns", Atomic(Obj({{"name", Str()}, {"type", Str()}, {"format", Str()},
                                                {"description", Str()}, {"priority", Int()}, {"jsonPath", Str()}}))},
       {"selectableFields", Atomic(Obj({{"jsonPath", Str()}}))}});
  const std::string webhook = Obj(
      {{"clientConfig", Obj({{"url", Str()},
                             {"service", Obj({{"namespace", Str()}, {"name", Str()}, {"path", Str()}, {"port", Int()}})},
                             {"caBundle", Str()}})},
       {"conversionReviewVersions", Atomic(Str())}});
  return TopLevel({{"spec", Obj({{"group", Str()},
                                 {"names", Obj({{"plural", Str()}, {"singular", Str()}, {"shortNames", Atomic(Str())},
                                                {"kind", Str()}, {"listKind", Str()}, {"categories", Atomic(Str())}})},
                                 {"scope", Str()},
                                 {"versions", Atomic(version)},
                                 {"conversion", Obj({{"strategy", Str()}, {"webhook", webhook}})},
                                 {"preserveUnknownFields", Bool()}})},
                   {"status", AnyObj()}});
}

constexpr std::array kKinds = {BuiltinKind::kGeneric,    BuiltinKind::kNamespace, BuiltinKind::kConfigMap,
                               BuiltinKind::kSecret,     BuiltinKind::kEvent,     BuiltinKind::kEventV1,
                               BuiltinKind::kPod,        BuiltinKind::kService,   BuiltinKind::kServiceAccount,
                               BuiltinKind::kNode,       BuiltinKind::kDeployment, BuiltinKind::kReplicaSet,
                               BuiltinKind::kLease};

// The group, version and kind whose Go type `kind`'s schema describes (the stored form: core/v1
// for both views of Events).
std::tuple<std::string_view, std::string_view, std::string_view> GvkOf(BuiltinKind kind) {
  switch (kind) {
    case BuiltinKind::kNamespace: return {"", "v1", "Namespace"};
    case BuiltinKind::kConfigMap: return {"", "v1", "ConfigMap"};
    case BuiltinKind::kSecret: return {"", "v1", "Secret"};
    case BuiltinKind::kEvent:
    case BuiltinKind::kEventV1: return {"", "v1", "Event"};
    case BuiltinKind::kPod: return {"", "v1", "Pod"};
    case BuiltinKind::kService: return {"", "v1", "Service"};
    case BuiltinKind::kServiceAccount: return {"", "v1", "ServiceAccount"};
    case BuiltinKind::kNode: return {"", "v1", "Node"};
    case BuiltinKind::kDeployment: return {"apps", "v1", "Deployment"};
    case BuiltinKind::kReplicaSet: return {"apps", "v1", "ReplicaSet"};
    case BuiltinKind::kLease: return {"coordination.k8s.io", "v1", "Lease"};
    case BuiltinKind::kGeneric: break;
  }
  return {"", "", ""};
}

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
    case BuiltinKind::kDeployment: return TopLevel({{"spec", WorkloadSpec(true)}, {"status", WorkloadStatus(true)}});
    case BuiltinKind::kReplicaSet: return TopLevel({{"spec", WorkloadSpec(false)}, {"status", WorkloadStatus(false)}});
    case BuiltinKind::kLease: return Lease();
  }
  return "";
}

namespace {

// Parses a compile-time table (a failure is a programming error) and lays the Go zero values of
// `kind` of rbac.authorization.k8s.io/v1 onto it.
TypeSchemaPtr ParseTable(const std::string& text, std::string_view rbac_kind = {}) {
  auto parsed = ParseTypeSchema(std::string_view(text));
  if (!parsed.ok()) std::abort();
  if (!rbac_kind.empty()) AnnotateGoZero(const_cast<TypeSchema&>(**parsed), "rbac.authorization.k8s.io", "v1", rbac_kind);
  return std::move(*parsed);
}

}  // namespace

TypeSchemaPtr BuiltinFieldSchema(const ResourceInfo& info) {
  const BuiltinKind kind = KindOf(info);
  // The events.k8s.io view is converted to the stored core/v1 form when decoded.
  if (kind == BuiltinKind::kEventV1) return BuiltinSchema(BuiltinKind::kEvent);
  if (kind != BuiltinKind::kGeneric) return BuiltinSchema(kind);
  if (info.group == "rbac.authorization.k8s.io") {
    static const TypeSchemaPtr role = ParseTable(TopLevel({{"rules", PolicyRules()}}), "Role");
    static const TypeSchemaPtr cluster_role = ParseTable(
        TopLevel({{"rules", PolicyRules()}, {"aggregationRule", Obj({{"clusterRoleSelectors", Atomic(LabelSelector())}})}}),
        "ClusterRole");
    static const TypeSchemaPtr binding = ParseTable(RbacBinding(), "RoleBinding");
    static const TypeSchemaPtr cluster_binding = ParseTable(RbacBinding(), "ClusterRoleBinding");
    if (info.kind == "Role") return role;
    if (info.kind == "ClusterRole") return cluster_role;
    if (info.kind == "RoleBinding") return binding;
    if (info.kind == "ClusterRoleBinding") return cluster_binding;
    return nullptr;
  }
  if (info.group == "apiextensions.k8s.io" && info.resource == "customresourcedefinitions") {
    static const TypeSchemaPtr crd = ParseTable(CustomResourceDefinition());
    return crd;
  }
  return nullptr;
}

std::string BuiltinFieldSchemaJson(const ResourceInfo& info) {
  const BuiltinKind kind = KindOf(info);
  if (kind == BuiltinKind::kEventV1) return BuiltinSchemaJson(BuiltinKind::kEvent);
  if (kind != BuiltinKind::kGeneric) return BuiltinSchemaJson(kind);
  if (info.group == "rbac.authorization.k8s.io") {
    if (info.kind == "Role") return TopLevel({{"rules", PolicyRules()}});
    if (info.kind == "ClusterRole") {
      return TopLevel({{"rules", PolicyRules()}, {"aggregationRule", Obj({{"clusterRoleSelectors", Atomic(LabelSelector())}})}});
    }
    if (info.kind == "RoleBinding" || info.kind == "ClusterRoleBinding") return RbacBinding();
    return "";
  }
  if (info.group == "apiextensions.k8s.io" && info.resource == "customresourcedefinitions") {
    return CustomResourceDefinition();
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
      const auto [group, version, kind_name] = GvkOf(kKinds[i]);
      AnnotateGoZero(const_cast<TypeSchema&>(**parsed), group, version, kind_name);  // not yet shared
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
