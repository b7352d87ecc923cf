// Kubernetes protobuf request bodies -> JSON (see protobuf.hpp). The message tables below follow
// the field numbers of k8s.io/api and k8s.io/apimachinery `generated.proto` (kube 1.32).

#include "apiserver/rest/protobuf.hpp"

#include <cstdint>
#include <ctime>
#include <string>
#include <unordered_map>
#include <vector>

#include <boost/json.hpp>

#include <kube/base/error.hpp>
#include <kube/core/status.hpp>

namespace kube::apiserver::rest {
namespace json = boost::json;

namespace {

// ---------------------------------------------------------------------------------------------
// Message tables.

enum class T : std::uint8_t {
  kString,
  kBytes,       // base64 in JSON
  kInt32,
  kInt64,
  kBool,
  kMsg,         // a nested message (F::msg)
  kTime,        // meta.v1.Time {seconds, nanos} -> RFC 3339, zero -> absent (null)
  kQuantity,    // resource.Quantity {string} -> "100m"
  kIntOrString, // intstr.IntOrString {type, intVal, strVal} -> 8080 or "http"
  kFieldsV1,    // meta.v1.FieldsV1 {Raw} -> the raw JSON
  kMapString,   // map<string, string>
  kMapBytes,    // map<string, bytes>
  kMapQuantity, // map<string, Quantity>
};

// Field flags.
constexpr std::uint8_t kRep = 1;     // repeated
constexpr std::uint8_t kPtr = 2;     // a Go pointer: a zero value is kept (not omitted)
constexpr std::uint8_t kInline = 4;  // an embedded struct: its members go into the parent object

struct F {
  std::uint32_t num;
  const char* json;
  T type;
  std::uint8_t flags = 0;
  const char* msg = nullptr;
};

F S(std::uint32_t n, const char* j, std::uint8_t fl = 0) { return {n, j, T::kString, fl}; }
F I32(std::uint32_t n, const char* j, std::uint8_t fl = 0) { return {n, j, T::kInt32, fl}; }
F I64(std::uint32_t n, const char* j, std::uint8_t fl = 0) { return {n, j, T::kInt64, fl}; }
F B(std::uint32_t n, const char* j, std::uint8_t fl = 0) { return {n, j, T::kBool, fl}; }
F M(std::uint32_t n, const char* j, const char* msg, std::uint8_t fl = 0) { return {n, j, T::kMsg, fl, msg}; }
F Tm(std::uint32_t n, const char* j) { return {n, j, T::kTime}; }
F Q(std::uint32_t n, const char* j, std::uint8_t fl = 0) { return {n, j, T::kQuantity, fl}; }
F IoS(std::uint32_t n, const char* j, std::uint8_t fl = 0) { return {n, j, T::kIntOrString, fl}; }
F MapS(std::uint32_t n, const char* j) { return {n, j, T::kMapString}; }
F MapB(std::uint32_t n, const char* j) { return {n, j, T::kMapBytes}; }
F MapQ(std::uint32_t n, const char* j) { return {n, j, T::kMapQuantity}; }

using Table = std::unordered_map<std::string_view, std::vector<F>>;

const Table& Messages() {
  static const Table* table = new Table{
      // --- k8s.io/apimachinery/pkg/apis/meta/v1
      {"ObjectMeta",
       {S(1, "name"), S(2, "generateName"), S(3, "namespace"), S(4, "selfLink"), S(5, "uid"),
        S(6, "resourceVersion"), I64(7, "generation"), Tm(8, "creationTimestamp"), Tm(9, "deletionTimestamp"),
        I64(10, "deletionGracePeriodSeconds", kPtr), MapS(11, "labels"), MapS(12, "annotations"),
        M(13, "ownerReferences", "OwnerReference", kRep), S(14, "finalizers", kRep),
        M(17, "managedFields", "ManagedFieldsEntry", kRep)}},
      {"OwnerReference",
       {S(1, "kind"), S(3, "name"), S(4, "uid"), S(5, "apiVersion"), B(6, "controller", kPtr),
        B(7, "blockOwnerDeletion", kPtr)}},
      {"ManagedFieldsEntry",
       {S(1, "manager"), S(2, "operation"), S(3, "apiVersion"), Tm(4, "time"), S(6, "fieldsType"),
        {7, "fieldsV1", T::kFieldsV1}, S(8, "subresource")}},
      {"LabelSelector", {MapS(1, "matchLabels"), M(2, "matchExpressions", "LabelSelectorRequirement", kRep)}},
      {"LabelSelectorRequirement", {S(1, "key"), S(2, "operator"), S(3, "values", kRep)}},
      {"Condition",
       {S(1, "type"), S(2, "status"), I64(3, "observedGeneration"), Tm(4, "lastTransitionTime"), S(5, "reason"),
        S(6, "message")}},

      // --- k8s.io/api/core/v1: objects
      {"Namespace", {M(1, "metadata", "ObjectMeta"), M(2, "spec", "NamespaceSpec"), M(3, "status", "NamespaceStatus")}},
      {"NamespaceSpec", {S(1, "finalizers", kRep)}},
      {"NamespaceStatus", {S(1, "phase"), M(2, "conditions", "NamespaceCondition", kRep)}},
      {"NamespaceCondition",
       {S(1, "type"), S(2, "status"), Tm(4, "lastTransitionTime"), S(5, "reason"), S(6, "message")}},
      {"ConfigMap",
       {M(1, "metadata", "ObjectMeta"), MapS(2, "data"), MapB(3, "binaryData"), B(4, "immutable", kPtr)}},
      {"Secret",
       {M(1, "metadata", "ObjectMeta"), MapB(2, "data"), S(3, "type"), MapS(4, "stringData"),
        B(5, "immutable", kPtr)}},
      {"ServiceAccount",
       {M(1, "metadata", "ObjectMeta"), M(2, "secrets", "ObjectReference", kRep),
        M(3, "imagePullSecrets", "LocalObjectReference", kRep), B(4, "automountServiceAccountToken", kPtr)}},
      {"ObjectReference",
       {S(1, "kind"), S(2, "namespace"), S(3, "name"), S(4, "uid"), S(5, "apiVersion"), S(6, "resourceVersion"),
        S(7, "fieldPath")}},
      {"LocalObjectReference", {S(1, "name")}},
      {"Service", {M(1, "metadata", "ObjectMeta"), M(2, "spec", "ServiceSpec"), M(3, "status", "ServiceStatus")}},
      {"ServiceSpec",
       {M(1, "ports", "ServicePort", kRep), MapS(2, "selector"), S(3, "clusterIP"), S(4, "type"),
        S(5, "externalIPs", kRep), S(7, "sessionAffinity"), S(8, "loadBalancerIP"),
        S(9, "loadBalancerSourceRanges", kRep), S(10, "externalName"), S(11, "externalTrafficPolicy"),
        I32(12, "healthCheckNodePort"), B(13, "publishNotReadyAddresses"),
        M(14, "sessionAffinityConfig", "SessionAffinityConfig", kPtr), S(17, "ipFamilyPolicy", kPtr),
        S(18, "clusterIPs", kRep), S(19, "ipFamilies", kRep), B(20, "allocateLoadBalancerNodePorts", kPtr),
        S(21, "loadBalancerClass", kPtr), S(22, "internalTrafficPolicy", kPtr)}},
      {"ServicePort",
       {S(1, "name"), S(2, "protocol"), I32(3, "port"), IoS(4, "targetPort"), I32(5, "nodePort"),
        S(6, "appProtocol", kPtr)}},
      {"SessionAffinityConfig", {M(1, "clientIP", "ClientIPConfig", kPtr)}},
      {"ClientIPConfig", {I32(1, "timeoutSeconds", kPtr)}},
      {"ServiceStatus",
       {M(1, "loadBalancer", "LoadBalancerStatus"), M(2, "conditions", "Condition", kRep)}},
      {"LoadBalancerStatus", {M(1, "ingress", "LoadBalancerIngress", kRep)}},
      {"LoadBalancerIngress", {S(1, "ip"), S(2, "hostname"), M(4, "ports", "PortStatus", kRep)}},
      {"PortStatus", {I32(1, "port"), S(2, "protocol"), S(3, "error", kPtr)}},

      // --- core/v1: pods
      {"Pod", {M(1, "metadata", "ObjectMeta"), M(2, "spec", "PodSpec"), M(3, "status", "PodStatus")}},
      {"PodTemplateSpec", {M(1, "metadata", "ObjectMeta"), M(2, "spec", "PodSpec")}},
      {"PodSpec",
       {M(1, "volumes", "Volume", kRep), M(2, "containers", "Container", kRep), S(3, "restartPolicy"),
        I64(4, "terminationGracePeriodSeconds", kPtr), I64(5, "activeDeadlineSeconds", kPtr), S(6, "dnsPolicy"),
        MapS(7, "nodeSelector"), S(8, "serviceAccountName"), S(9, "serviceAccount"), S(10, "nodeName"),
        B(11, "hostNetwork"), B(12, "hostPID"), B(13, "hostIPC"), M(14, "securityContext", "PodSecurityContext", kPtr),
        M(15, "imagePullSecrets", "LocalObjectReference", kRep), S(16, "hostname"), S(17, "subdomain"),
        S(19, "schedulerName"), M(20, "initContainers", "Container", kRep),
        B(21, "automountServiceAccountToken", kPtr), M(22, "tolerations", "Toleration", kRep),
        M(23, "hostAliases", "HostAlias", kRep), S(24, "priorityClassName"), I32(25, "priority", kPtr),
        M(26, "dnsConfig", "PodDNSConfig", kPtr), B(27, "shareProcessNamespace", kPtr),
        M(28, "readinessGates", "PodReadinessGate", kRep), S(29, "runtimeClassName", kPtr),
        B(30, "enableServiceLinks", kPtr), S(31, "preemptionPolicy", kPtr), MapQ(32, "overhead"),
        M(33, "topologySpreadConstraints", "TopologySpreadConstraint", kRep), B(35, "setHostnameAsFQDN", kPtr)}},
      {"Container",
       {S(1, "name"), S(2, "image"), S(3, "command", kRep), S(4, "args", kRep), S(5, "workingDir"),
        M(6, "ports", "ContainerPort", kRep), M(7, "env", "EnvVar", kRep), M(8, "resources", "ResourceRequirements"),
        M(9, "volumeMounts", "VolumeMount", kRep), M(10, "livenessProbe", "Probe", kPtr),
        M(11, "readinessProbe", "Probe", kPtr), M(12, "lifecycle", "Lifecycle", kPtr),
        S(13, "terminationMessagePath"), S(14, "imagePullPolicy"), M(15, "securityContext", "SecurityContext", kPtr),
        B(16, "stdin"), B(17, "stdinOnce"), B(18, "tty"), M(19, "envFrom", "EnvFromSource", kRep),
        S(20, "terminationMessagePolicy"), M(21, "volumeDevices", "VolumeDevice", kRep),
        M(22, "startupProbe", "Probe", kPtr), M(23, "resizePolicy", "ContainerResizePolicy", kRep),
        S(24, "restartPolicy", kPtr)}},
      {"ContainerPort",
       {S(1, "name"), I32(2, "hostPort"), I32(3, "containerPort"), S(4, "protocol"), S(5, "hostIP")}},
      {"ContainerResizePolicy", {S(1, "resourceName"), S(2, "restartPolicy")}},
      {"EnvVar", {S(1, "name"), S(2, "value"), M(3, "valueFrom", "EnvVarSource", kPtr)}},
      {"EnvVarSource",
       {M(1, "fieldRef", "ObjectFieldSelector", kPtr), M(2, "resourceFieldRef", "ResourceFieldSelector", kPtr),
        M(3, "configMapKeyRef", "ConfigMapKeySelector", kPtr), M(4, "secretKeyRef", "SecretKeySelector", kPtr)}},
      {"ObjectFieldSelector", {S(1, "apiVersion"), S(2, "fieldPath")}},
      {"ResourceFieldSelector", {S(1, "containerName"), S(2, "resource"), Q(3, "divisor")}},
      {"ConfigMapKeySelector",
       {M(1, "", "LocalObjectReference", kInline), S(2, "key"), B(3, "optional", kPtr)}},
      {"SecretKeySelector", {M(1, "", "LocalObjectReference", kInline), S(2, "key"), B(3, "optional", kPtr)}},
      {"EnvFromSource",
       {S(1, "prefix"), M(2, "configMapRef", "ConfigMapEnvSource", kPtr), M(3, "secretRef", "SecretEnvSource", kPtr)}},
      {"ConfigMapEnvSource", {M(1, "", "LocalObjectReference", kInline), B(2, "optional", kPtr)}},
      {"SecretEnvSource", {M(1, "", "LocalObjectReference", kInline), B(2, "optional", kPtr)}},
      {"ResourceRequirements", {MapQ(1, "limits"), MapQ(2, "requests"), M(3, "claims", "ResourceClaim", kRep)}},
      {"ResourceClaim", {S(1, "name"), S(2, "request")}},
      {"VolumeMount",
       {S(1, "name"), B(2, "readOnly"), S(3, "mountPath"), S(4, "subPath"), S(5, "mountPropagation", kPtr),
        S(6, "subPathExpr")}},
      {"VolumeDevice", {S(1, "name"), S(2, "devicePath")}},
      {"Probe",
       {M(1, "", "ProbeHandler", kInline), I32(2, "initialDelaySeconds"), I32(3, "timeoutSeconds"),
        I32(4, "periodSeconds"), I32(5, "successThreshold"), I32(6, "failureThreshold"),
        I64(7, "terminationGracePeriodSeconds", kPtr)}},
      {"ProbeHandler",
       {M(1, "exec", "ExecAction", kPtr), M(2, "httpGet", "HTTPGetAction", kPtr),
        M(3, "tcpSocket", "TCPSocketAction", kPtr), M(4, "grpc", "GRPCAction", kPtr)}},
      {"Lifecycle", {M(1, "postStart", "LifecycleHandler", kPtr), M(2, "preStop", "LifecycleHandler", kPtr)}},
      {"LifecycleHandler",
       {M(1, "exec", "ExecAction", kPtr), M(2, "httpGet", "HTTPGetAction", kPtr),
        M(3, "tcpSocket", "TCPSocketAction", kPtr)}},
      {"ExecAction", {S(1, "command", kRep)}},
      {"HTTPGetAction",
       {S(1, "path"), IoS(2, "port", kPtr), S(3, "host"), S(4, "scheme"), M(5, "httpHeaders", "HTTPHeader", kRep)}},
      {"HTTPHeader", {S(1, "name"), S(2, "value", kPtr)}},
      {"TCPSocketAction", {IoS(1, "port", kPtr), S(2, "host")}},
      {"GRPCAction", {I32(1, "port", kPtr), S(2, "service", kPtr)}},
      {"SecurityContext",
       {M(1, "capabilities", "Capabilities", kPtr), B(2, "privileged", kPtr),
        M(3, "seLinuxOptions", "SELinuxOptions", kPtr), I64(4, "runAsUser", kPtr), B(5, "runAsNonRoot", kPtr),
        B(6, "readOnlyRootFilesystem", kPtr), B(7, "allowPrivilegeEscalation", kPtr), I64(8, "runAsGroup", kPtr),
        S(9, "procMount", kPtr), M(11, "seccompProfile", "SeccompProfile", kPtr)}},
      {"PodSecurityContext",
       {M(1, "seLinuxOptions", "SELinuxOptions", kPtr), I64(2, "runAsUser", kPtr), B(3, "runAsNonRoot", kPtr),
        I64(4, "supplementalGroups", kRep), I64(5, "fsGroup", kPtr), I64(6, "runAsGroup", kPtr),
        M(7, "sysctls", "Sysctl", kRep), S(9, "fsGroupChangePolicy", kPtr),
        M(10, "seccompProfile", "SeccompProfile", kPtr)}},
      {"Capabilities", {S(1, "add", kRep), S(2, "drop", kRep)}},
      {"SELinuxOptions", {S(1, "user"), S(2, "role"), S(3, "type"), S(4, "level")}},
      {"SeccompProfile", {S(1, "type"), S(2, "localhostProfile", kPtr)}},
      {"Sysctl", {S(1, "name"), S(2, "value")}},
      {"Toleration",
       {S(1, "key"), S(2, "operator"), S(3, "value"), S(4, "effect"), I64(5, "tolerationSeconds", kPtr)}},
      {"HostAlias", {S(1, "ip"), S(2, "hostnames", kRep)}},
      {"PodDNSConfig",
       {S(1, "nameservers", kRep), S(2, "searches", kRep), M(3, "options", "PodDNSConfigOption", kRep)}},
      {"PodDNSConfigOption", {S(1, "name"), S(2, "value", kPtr)}},
      {"PodReadinessGate", {S(1, "conditionType")}},
      {"TopologySpreadConstraint",
       {I32(1, "maxSkew"), S(2, "topologyKey"), S(3, "whenUnsatisfiable"),
        M(4, "labelSelector", "LabelSelector", kPtr)}},
      {"Volume", {S(1, "name"), M(2, "", "VolumeSource", kInline)}},
      {"VolumeSource",
       {M(1, "hostPath", "HostPathVolumeSource", kPtr), M(2, "emptyDir", "EmptyDirVolumeSource", kPtr),
        M(6, "secret", "SecretVolumeSource", kPtr),
        M(10, "persistentVolumeClaim", "PersistentVolumeClaimVolumeSource", kPtr),
        M(16, "downwardAPI", "DownwardAPIVolumeSource", kPtr), M(19, "configMap", "ConfigMapVolumeSource", kPtr),
        M(26, "projected", "ProjectedVolumeSource", kPtr)}},
      {"HostPathVolumeSource", {S(1, "path"), S(2, "type", kPtr)}},
      {"EmptyDirVolumeSource", {S(1, "medium"), Q(2, "sizeLimit", kPtr)}},
      {"SecretVolumeSource",
       {S(1, "secretName"), M(2, "items", "KeyToPath", kRep), I32(3, "defaultMode", kPtr), B(4, "optional", kPtr)}},
      {"ConfigMapVolumeSource",
       {M(1, "", "LocalObjectReference", kInline), M(2, "items", "KeyToPath", kRep), I32(3, "defaultMode", kPtr),
        B(4, "optional", kPtr)}},
      {"PersistentVolumeClaimVolumeSource", {S(1, "claimName"), B(2, "readOnly")}},
      {"DownwardAPIVolumeSource", {M(1, "items", "DownwardAPIVolumeFile", kRep), I32(2, "defaultMode", kPtr)}},
      {"DownwardAPIVolumeFile",
       {S(1, "path"), M(2, "fieldRef", "ObjectFieldSelector", kPtr),
        M(3, "resourceFieldRef", "ResourceFieldSelector", kPtr), I32(4, "mode", kPtr)}},
      {"KeyToPath", {S(1, "key"), S(2, "path"), I32(3, "mode", kPtr)}},
      {"ProjectedVolumeSource", {M(1, "sources", "VolumeProjection", kRep), I32(2, "defaultMode", kPtr)}},
      {"VolumeProjection",
       {M(1, "secret", "SecretProjection", kPtr), M(2, "downwardAPI", "DownwardAPIProjection", kPtr),
        M(3, "configMap", "ConfigMapProjection", kPtr),
        M(4, "serviceAccountToken", "ServiceAccountTokenProjection", kPtr)}},
      {"SecretProjection",
       {M(1, "", "LocalObjectReference", kInline), M(2, "items", "KeyToPath", kRep), B(4, "optional", kPtr)}},
      {"ConfigMapProjection",
       {M(1, "", "LocalObjectReference", kInline), M(2, "items", "KeyToPath", kRep), B(4, "optional", kPtr)}},
      {"DownwardAPIProjection", {M(1, "items", "DownwardAPIVolumeFile", kRep)}},
      {"ServiceAccountTokenProjection", {S(1, "audience"), I64(2, "expirationSeconds", kPtr), S(3, "path")}},
      {"PodStatus",
       {S(1, "phase"), M(2, "conditions", "PodCondition", kRep), S(3, "message"), S(4, "reason"), S(5, "hostIP"),
        S(6, "podIP"), Tm(7, "startTime"), M(8, "containerStatuses", "ContainerStatus", kRep), S(9, "qosClass"),
        M(10, "initContainerStatuses", "ContainerStatus", kRep), S(11, "nominatedNodeName"),
        M(12, "podIPs", "PodIP", kRep)}},
      {"PodCondition",
       {S(1, "type"), S(2, "status"), Tm(3, "lastProbeTime"), Tm(4, "lastTransitionTime"), S(5, "reason"),
        S(6, "message")}},
      {"PodIP", {S(1, "ip")}},
      {"ContainerStatus",
       {S(1, "name"), M(2, "state", "ContainerState"), M(3, "lastState", "ContainerState"), B(4, "ready"),
        I32(5, "restartCount"), S(6, "image"), S(7, "imageID"), S(8, "containerID"), B(9, "started", kPtr)}},
      {"ContainerState",
       {M(1, "waiting", "ContainerStateWaiting", kPtr), M(2, "running", "ContainerStateRunning", kPtr),
        M(3, "terminated", "ContainerStateTerminated", kPtr)}},
      {"ContainerStateWaiting", {S(1, "reason"), S(2, "message")}},
      {"ContainerStateRunning", {Tm(1, "startedAt")}},
      {"ContainerStateTerminated",
       {I32(1, "exitCode"), I32(2, "signal"), S(3, "reason"), S(4, "message"), Tm(5, "startedAt"),
        Tm(6, "finishedAt"), S(7, "containerID")}},

      // --- k8s.io/api/apps/v1
      {"Deployment",
       {M(1, "metadata", "ObjectMeta"), M(2, "spec", "DeploymentSpec"), M(3, "status", "DeploymentStatus")}},
      {"DeploymentSpec",
       {I32(1, "replicas", kPtr), M(2, "selector", "LabelSelector", kPtr), M(3, "template", "PodTemplateSpec"),
        M(4, "strategy", "DeploymentStrategy"), I32(5, "minReadySeconds"), I32(6, "revisionHistoryLimit", kPtr),
        B(7, "paused"), I32(9, "progressDeadlineSeconds", kPtr)}},
      {"DeploymentStrategy", {S(1, "type"), M(2, "rollingUpdate", "RollingUpdateDeployment", kPtr)}},
      {"RollingUpdateDeployment", {IoS(1, "maxUnavailable", kPtr), IoS(2, "maxSurge", kPtr)}},
      {"DeploymentStatus",
       {I64(1, "observedGeneration"), I32(2, "replicas"), I32(3, "updatedReplicas"), I32(4, "availableReplicas"),
        I32(5, "unavailableReplicas"), M(6, "conditions", "DeploymentCondition", kRep), I32(7, "readyReplicas"),
        I32(8, "collisionCount", kPtr)}},
      {"DeploymentCondition",
       {S(1, "type"), S(2, "status"), S(4, "reason"), S(5, "message"), Tm(6, "lastUpdateTime"),
        Tm(7, "lastTransitionTime")}},
      {"ReplicaSet",
       {M(1, "metadata", "ObjectMeta"), M(2, "spec", "ReplicaSetSpec"), M(3, "status", "ReplicaSetStatus")}},
      {"ReplicaSetSpec",
       {I32(1, "replicas", kPtr), M(2, "selector", "LabelSelector", kPtr), M(3, "template", "PodTemplateSpec"),
        I32(4, "minReadySeconds")}},
      {"ReplicaSetStatus",
       {I32(1, "replicas"), I32(2, "fullyLabeledReplicas"), I64(3, "observedGeneration"), I32(4, "readyReplicas"),
        I32(5, "availableReplicas"), M(6, "conditions", "ReplicaSetCondition", kRep)}},
      {"ReplicaSetCondition",
       {S(1, "type"), S(2, "status"), Tm(3, "lastTransitionTime"), S(4, "reason"), S(5, "message")}},

      // --- k8s.io/api/rbac/v1
      {"Role", {M(1, "metadata", "ObjectMeta"), M(2, "rules", "PolicyRule", kRep)}},
      {"ClusterRole",
       {M(1, "metadata", "ObjectMeta"), M(2, "rules", "PolicyRule", kRep),
        M(3, "aggregationRule", "AggregationRule", kPtr)}},
      {"AggregationRule", {M(1, "clusterRoleSelectors", "LabelSelector", kRep)}},
      {"PolicyRule",
       {S(1, "verbs", kRep), S(2, "apiGroups", kRep), S(3, "resources", kRep), S(4, "resourceNames", kRep),
        S(5, "nonResourceURLs", kRep)}},
      {"RoleBinding", {M(1, "metadata", "ObjectMeta"), M(2, "subjects", "Subject", kRep), M(3, "roleRef", "RoleRef")}},
      {"ClusterRoleBinding",
       {M(1, "metadata", "ObjectMeta"), M(2, "subjects", "Subject", kRep), M(3, "roleRef", "RoleRef")}},
      {"Subject", {S(1, "kind"), S(2, "apiGroup"), S(3, "name"), S(4, "namespace")}},
      {"RoleRef", {S(1, "apiGroup"), S(2, "kind"), S(3, "name")}},
  };
  return *table;
}

// apiVersion + "/" + kind -> top-level message.
const std::unordered_map<std::string, std::string_view>& Kinds() {
  static const auto* kinds = new std::unordered_map<std::string, std::string_view>{
      {"v1/Namespace", "Namespace"},
      {"v1/ConfigMap", "ConfigMap"},
      {"v1/Secret", "Secret"},
      {"v1/ServiceAccount", "ServiceAccount"},
      {"v1/Service", "Service"},
      {"v1/Pod", "Pod"},
      {"apps/v1/Deployment", "Deployment"},
      {"apps/v1/ReplicaSet", "ReplicaSet"},
      {"rbac.authorization.k8s.io/v1/Role", "Role"},
      {"rbac.authorization.k8s.io/v1/RoleBinding", "RoleBinding"},
      {"rbac.authorization.k8s.io/v1/ClusterRole", "ClusterRole"},
      {"rbac.authorization.k8s.io/v1/ClusterRoleBinding", "ClusterRoleBinding"},
  };
  return *kinds;
}

// ---------------------------------------------------------------------------------------------
// Wire format.

constexpr int kVarint = 0;
constexpr std::uint64_t kMaxFieldNumber = (1u << 29) - 1;  // protobuf's limit
constexpr int kLen = 2;

Error Malformed(std::string_view what) {
  return NewBadRequest("the protobuf body could not be decoded: " + std::string(what));
}

Error Unsupported(std::string message) {
  return MakeError(415, reason::kUnsupportedMediaType, std::move(message));
}

// Strict UTF-8 (no overlongs, surrogates or code points above U+10FFFF), as JSON requires.
bool ValidUtf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<std::uint8_t>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int len = 0;
    std::uint32_t cp = 0;
    if ((c & 0xe0) == 0xc0) {
      len = 2;
      cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      len = 3;
      cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + static_cast<std::size_t>(len) > s.size()) return false;
    for (int k = 1; k < len; ++k) {
      const auto cc = static_cast<std::uint8_t>(s[i + static_cast<std::size_t>(k)]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000)) return false;
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += static_cast<std::size_t>(len);
  }
  return true;
}

// A cursor over one message's bytes.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool Done() const { return pos_ >= data_.size(); }

  Result<std::uint64_t> Varint() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return Malformed("truncated varint");
      const auto byte = static_cast<std::uint8_t>(data_[pos_++]);
      value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    return Malformed("varint longer than 10 bytes");
  }

  Result<std::string_view> LengthDelimited() {
    auto len = Varint();
    if (!len.ok()) return std::move(len).error();
    if (*len > data_.size() - pos_) return Malformed("length-delimited field runs past the end of its message");
    std::string_view out = data_.substr(pos_, static_cast<std::size_t>(*len));
    pos_ += static_cast<std::size_t>(*len);
    return out;
  }

 private:
  std::string_view data_;
  std::size_t pos_ = 0;
};

std::string Base64(std::string_view in) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const std::uint32_t v = (static_cast<std::uint8_t>(in[i]) << 16) | (static_cast<std::uint8_t>(in[i + 1]) << 8) |
                            static_cast<std::uint8_t>(in[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i + 1 == in.size()) {
    const std::uint32_t v = static_cast<std::uint8_t>(in[i]) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    const std::uint32_t v = (static_cast<std::uint8_t>(in[i]) << 16) | (static_cast<std::uint8_t>(in[i + 1]) << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

// Reads the fields of a small fixed message as (number -> raw value) pairs: varints as numbers,
// length-delimited fields as bytes. Used for Time, Quantity, IntOrString, FieldsV1 and map entries.
struct Small {
  std::uint64_t ints[4] = {0, 0, 0, 0};
  std::string_view bytes[4];
  bool has[4] = {false, false, false, false};
};
Result<Small> ReadSmall(std::string_view data, std::string_view what) {
  Small out;
  Reader r(data);
  while (!r.Done()) {
    auto tag = r.Varint();
    if (!tag.ok()) return std::move(tag).error();
    const auto num = *tag >> 3;
    const int wire = static_cast<int>(*tag & 7);
    if (num < 1 || num > 3) return Malformed("unexpected field " + std::to_string(num) + " in " + std::string(what));
    out.has[num] = true;
    if (wire == kVarint) {
      auto v = r.Varint();
      if (!v.ok()) return std::move(v).error();
      out.ints[num] = *v;
    } else if (wire == kLen) {
      auto b = r.LengthDelimited();
      if (!b.ok()) return std::move(b).error();
      out.bytes[num] = *b;
    } else {
      return Malformed("unexpected wire type in " + std::string(what));
    }
  }
  return out;
}

std::string FormatUnixTime(std::int64_t seconds) {
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string Child(const std::string& path, std::string_view name) {
  if (name.empty()) return path;
  return path.empty() ? std::string(name) : path + "." + std::string(name);
}

class Decoder {
 public:
  // Decodes message `name` from `data` into `out` (members added; inline members merge in).
  Result<void> Message(std::string_view name, std::string_view data, json::object& out, const std::string& path) {
    const auto it = Messages().find(name);
    if (it == Messages().end()) return Unsupported("protobuf message " + std::string(name) + " is not supported");
    const std::vector<F>& fields = it->second;
    Reader r(data);
    while (!r.Done()) {
      auto tag = r.Varint();
      if (!tag.ok()) return std::move(tag).error();
      if ((*tag >> 3) == 0 || (*tag >> 3) > kMaxFieldNumber) return Malformed("invalid field number in " + std::string(name));
      const auto num = static_cast<std::uint32_t>(*tag >> 3);
      const int wire = static_cast<int>(*tag & 7);
      const F* field = nullptr;
      for (const auto& f : fields) {
        if (f.num == num) {
          field = &f;
          break;
        }
      }
      if (field == nullptr) {
        return Unsupported("protobuf field " + std::string(name) + "." + std::to_string(num) + " (in " +
                           (path.empty() ? std::string("the object") : path) +
                           ") is not supported by this server; send application/json");
      }
      KUBE_RETURN_IF_ERROR(Field(*field, wire, r, out, path));
    }
    return Ok();
  }

 private:
  Result<void> Field(const F& f, int wire, Reader& r, json::object& out, const std::string& path) {
    const bool repeated = (f.flags & kRep) != 0;
    const bool keep_zero = (f.flags & kPtr) != 0;
    const std::string here = Child(path, f.json);
    // Packed repeated numbers (proto3 style) are accepted too.
    const bool numeric = f.type == T::kInt32 || f.type == T::kInt64 || f.type == T::kBool;
    if (numeric && repeated && wire == kLen) {
      auto packed = r.LengthDelimited();
      if (!packed.ok()) return std::move(packed).error();
      Reader inner(*packed);
      while (!inner.Done()) {
        auto v = inner.Varint();
        if (!v.ok()) return std::move(v).error();
        Append(out, f.json, Scalar(f.type, *v));
      }
      return Ok();
    }
    if (numeric) {
      if (wire != kVarint) return Malformed("field " + here + " has wire type " + std::to_string(wire));
      auto v = r.Varint();
      if (!v.ok()) return std::move(v).error();
      if (repeated) {
        Append(out, f.json, Scalar(f.type, *v));
      } else if (*v != 0 || keep_zero) {
        out[f.json] = Scalar(f.type, *v);
      } else {
        out.erase(f.json);
      }
      return Ok();
    }
    if (wire != kLen) return Malformed("field " + here + " has wire type " + std::to_string(wire));
    auto bytes = r.LengthDelimited();
    if (!bytes.ok()) return std::move(bytes).error();
    const std::string_view data = *bytes;

    switch (f.type) {
      case T::kString:
        if (!ValidUtf8(data)) return Malformed("field " + here + " is not valid UTF-8");
        if (repeated) {
          Append(out, f.json, json::string(data));
        } else if (!data.empty() || keep_zero) {
          out[f.json] = json::string(data);
        }
        return Ok();
      case T::kBytes:
        if (repeated) {
          Append(out, f.json, json::string(Base64(data)));
        } else if (!data.empty() || keep_zero) {
          out[f.json] = json::string(Base64(data));
        }
        return Ok();
      case T::kMsg: {
        if ((f.flags & kInline) != 0) return Message(f.msg, data, out, path);
        std::string element_path = here;
        if (repeated) {
          const auto* existing = out.if_contains(f.json);
          const std::size_t index = existing != nullptr && existing->is_array() ? existing->as_array().size() : 0;
          element_path += "[" + std::to_string(index) + "]";
        }
        json::object child;
        KUBE_RETURN_IF_ERROR(Message(f.msg, data, child, element_path));
        if (repeated) {
          Append(out, f.json, std::move(child));
        } else {
          out[f.json] = std::move(child);
        }
        return Ok();
      }
      case T::kTime: {
        auto t = ReadSmall(data, "Time");
        if (!t.ok()) return std::move(t).error();
        if (t->ints[1] == 0 && t->ints[2] == 0) return Ok();  // the zero Time marshals to null
        out[f.json] = FormatUnixTime(static_cast<std::int64_t>(t->ints[1]));
        return Ok();
      }
      case T::kQuantity: {
        auto q = ReadSmall(data, "Quantity");
        if (!q.ok()) return std::move(q).error();
        if (!ValidUtf8(q->bytes[1])) return Malformed("field " + here + " is not valid UTF-8");
        if (q->bytes[1].empty() && !keep_zero && !repeated) return Ok();
        out[f.json] = json::string(q->bytes[1].empty() ? std::string_view("0") : q->bytes[1]);
        return Ok();
      }
      case T::kIntOrString: {
        auto v = ReadSmall(data, "IntOrString");
        if (!v.ok()) return std::move(v).error();
        if (v->ints[1] == 1) {
          if (!ValidUtf8(v->bytes[3])) return Malformed("field " + here + " is not valid UTF-8");
          out[f.json] = json::string(v->bytes[3]);
        } else {
          const auto i = static_cast<std::int32_t>(static_cast<std::uint32_t>(v->ints[2]));
          if (i == 0 && !keep_zero) return Ok();
          out[f.json] = i;
        }
        return Ok();
      }
      case T::kFieldsV1: {
        auto v = ReadSmall(data, "FieldsV1");
        if (!v.ok()) return std::move(v).error();
        if (v->bytes[1].empty()) return Ok();
        boost::system::error_code ec;
        json::value raw = json::parse(v->bytes[1], ec);
        if (ec) return Malformed("field " + here + " is not JSON");
        out[f.json] = std::move(raw);
        return Ok();
      }
      case T::kMapString:
      case T::kMapBytes:
      case T::kMapQuantity: {
        auto entry = ReadSmall(data, "map entry");
        if (!entry.ok()) return std::move(entry).error();
        if (!ValidUtf8(entry->bytes[1])) return Malformed("a key of " + here + " is not valid UTF-8");
        json::value value;
        if (f.type == T::kMapString) {
          if (!ValidUtf8(entry->bytes[2])) return Malformed("field " + here + " is not valid UTF-8");
          value = json::string(entry->bytes[2]);
        } else if (f.type == T::kMapBytes) {
          value = json::string(Base64(entry->bytes[2]));
        } else {
          auto q = ReadSmall(entry->bytes[2], "Quantity");
          if (!q.ok()) return std::move(q).error();
          if (!ValidUtf8(q->bytes[1])) return Malformed("field " + here + " is not valid UTF-8");
          value = json::string(q->bytes[1].empty() ? std::string_view("0") : q->bytes[1]);
        }
        json::value& map = out[f.json];
        if (!map.is_object()) map = json::object();
        map.as_object()[entry->bytes[1]] = std::move(value);
        return Ok();
      }
      default:
        return Malformed("field " + here + " has an unexpected type");
    }
  }

  static json::value Scalar(T type, std::uint64_t v) {
    switch (type) {
      case T::kBool:
        return json::value(v != 0);
      case T::kInt32:
        return json::value(static_cast<std::int64_t>(static_cast<std::int32_t>(static_cast<std::uint32_t>(v))));
      default:
        return json::value(static_cast<std::int64_t>(v));
    }
  }

  static void Append(json::object& out, const char* key, json::value v) {
    json::value& arr = out[key];
    if (!arr.is_array()) arr = json::array();
    arr.as_array().push_back(std::move(v));
  }
};

}  // namespace

bool ProtobufServed(std::string_view api_version, std::string_view kind) {
  return Kinds().contains(std::string(api_version) + "/" + std::string(kind));
}

Result<json::value> DecodeProtobufObject(std::string_view body) {
  constexpr std::string_view kMagic("k8s\0", 4);
  if (!body.starts_with(kMagic)) return Malformed("missing the k8s protobuf envelope prefix");
  Reader envelope(body.substr(kMagic.size()));
  std::string_view api_version;
  std::string_view kind;
  std::string_view raw;
  bool has_raw = false;
  while (!envelope.Done()) {
    auto tag = envelope.Varint();
    if (!tag.ok()) return std::move(tag).error();
    if ((*tag & 7) != kLen) return Malformed("unexpected wire type in the envelope");
    auto bytes = envelope.LengthDelimited();
    if (!bytes.ok()) return std::move(bytes).error();
    switch (*tag >> 3) {
      case 1: {  // typeMeta
        auto type_meta = ReadSmall(*bytes, "TypeMeta");
        if (!type_meta.ok()) return std::move(type_meta).error();
        api_version = type_meta->bytes[1];
        kind = type_meta->bytes[2];
        break;
      }
      case 2:
        raw = *bytes;
        has_raw = true;
        break;
      case 3:
        if (!bytes->empty()) {
          return Unsupported("protobuf contentEncoding " + std::string(*bytes) + " is not supported");
        }
        break;
      case 4:  // contentType: empty or protobuf
        break;
      default:
        return Malformed("unexpected field " + std::to_string(*tag >> 3) + " in the envelope");
    }
  }
  if (!has_raw || kind.empty()) return Malformed("the envelope has no object");
  if (!ValidUtf8(api_version) || !ValidUtf8(kind)) return Malformed("the envelope's type is not valid UTF-8");
  const auto it = Kinds().find(std::string(api_version) + "/" + std::string(kind));
  if (it == Kinds().end()) {
    return Unsupported("protobuf is not supported for " + std::string(api_version) + ", Kind=" + std::string(kind) +
                       " by this server; send application/json");
  }
  json::object obj;
  obj["apiVersion"] = api_version;
  obj["kind"] = kind;
  Decoder decoder;
  KUBE_RETURN_IF_ERROR(decoder.Message(it->second, raw, obj, ""));
  return json::value(std::move(obj));
}

}  // namespace kube::apiserver::rest
