// fieldValidation (Strict / Warn / Ignore) and unknown-field dropping for built-in kinds, realistic
// objects round-tripped under Strict, the apply typed-conversion error, and the CR create refusal
// while its CRD is terminating (issue 8).

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "fixture.hpp"

namespace kube::apiserver::testing {
namespace {

namespace bj = boost::json;

constexpr std::string_view kPods = "/api/v1/namespaces/default/pods";
constexpr std::string_view kDeployments = "/apis/apps/v1/namespaces/default/deployments";
constexpr std::string_view kServices = "/api/v1/namespaces/default/services";
constexpr std::string_view kConfigMaps = "/api/v1/namespaces/default/configmaps";
constexpr std::string_view kMerge = "application/merge-patch+json";
constexpr std::string_view kStrategic = "application/strategic-merge-patch+json";
constexpr std::string_view kJsonPatch = "application/json-patch+json";
constexpr std::string_view kApply = "application/apply-patch+yaml";

// Appends to `missing` every path of `sent` whose value is not in `stored` (objects: every
// member of `sent`, recursively; arrays: same length, element by element; scalars: equal).
void CollectMissing(const bj::value& sent, const bj::value* stored, const std::string& path,
                    std::vector<std::string>& missing) {
  if (stored == nullptr) {
    missing.push_back(path + " (absent)");
    return;
  }
  if (sent.is_object()) {
    if (!stored->is_object()) {
      missing.push_back(path + " (not an object)");
      return;
    }
    for (const auto& kv : sent.as_object()) {
      CollectMissing(kv.value(), stored->as_object().if_contains(kv.key()), path + "." + std::string(kv.key()),
                     missing);
    }
    return;
  }
  if (sent.is_array()) {
    if (!stored->is_array() || stored->as_array().size() != sent.as_array().size()) {
      missing.push_back(path + " (array differs)");
      return;
    }
    for (std::size_t i = 0; i < sent.as_array().size(); ++i) {
      CollectMissing(sent.as_array()[i], &stored->as_array()[i], path + "[" + std::to_string(i) + "]", missing);
    }
    return;
  }
  if (sent != *stored) missing.push_back(path + " (" + bj::serialize(sent) + " != " + bj::serialize(*stored) + ")");
}

std::vector<std::string> Missing(std::string_view sent_json, const bj::value& stored) {
  std::vector<std::string> missing;
  CollectMissing(bj::parse(sent_json), &stored, "", missing);
  return missing;
}

// A Pod using many kube 1.32 fields: every one must survive a Strict create unchanged.
constexpr std::string_view kFullPod = R"({
  "apiVersion":"v1","kind":"Pod",
  "metadata":{"name":"full","labels":{"app":"web"},"annotations":{"a":"b"},"finalizers":["example.com/f"]},
  "spec":{
    "initContainers":[{"name":"sidecar","image":"envoy:1.30","restartPolicy":"Always",
      "ports":[{"name":"admin","containerPort":9901,"protocol":"TCP"}],
      "startupProbe":{"tcpSocket":{"port":9901},"failureThreshold":30,"periodSeconds":1}},
      {"name":"init","image":"busybox:1.36","command":["sh","-c","true"],"workingDir":"/tmp",
       "securityContext":{"runAsUser":1000,"runAsGroup":1000,"runAsNonRoot":true}}],
    "containers":[{"name":"app","image":"nginx:1.27","imagePullPolicy":"IfNotPresent",
      "args":["--port","8080"],
      "ports":[{"name":"http","containerPort":8080,"protocol":"TCP","hostPort":0}],
      "env":[{"name":"A","value":"1"},
             {"name":"POD","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}},
             {"name":"CPU","valueFrom":{"resourceFieldRef":{"containerName":"app","resource":"limits.cpu","divisor":"1m"}}},
             {"name":"CM","valueFrom":{"configMapKeyRef":{"name":"cm","key":"k","optional":true}}},
             {"name":"SEC","valueFrom":{"secretKeyRef":{"name":"s","key":"k"}}}],
      "envFrom":[{"prefix":"X_","configMapRef":{"name":"cm","optional":true}},{"secretRef":{"name":"s"}}],
      "resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"1","memory":"128Mi"}},
      "resizePolicy":[{"resourceName":"cpu","restartPolicy":"NotRequired"},
                      {"resourceName":"memory","restartPolicy":"RestartContainer"}],
      "volumeMounts":[{"name":"data","mountPath":"/data","subPath":"x","readOnly":true,
                       "mountPropagation":"None","recursiveReadOnly":"Disabled"},
                      {"name":"cfg","mountPath":"/etc/cfg","subPathExpr":"$(POD)/x"}],
      "livenessProbe":{"httpGet":{"path":"/healthz","port":"http","scheme":"HTTP",
                                  "httpHeaders":[{"name":"X-Probe","value":"1"}]},
                       "initialDelaySeconds":3,"timeoutSeconds":2,"periodSeconds":10,
                       "successThreshold":1,"failureThreshold":3,"terminationGracePeriodSeconds":5},
      "readinessProbe":{"grpc":{"port":9090,"service":"ready"}},
      "startupProbe":{"exec":{"command":["cat","/tmp/ok"]}},
      "lifecycle":{"postStart":{"exec":{"command":["true"]}},"preStop":{"sleep":{"seconds":5}}},
      "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"FallbackToLogsOnError",
      "securityContext":{"allowPrivilegeEscalation":false,"readOnlyRootFilesystem":true,"privileged":false,
        "capabilities":{"drop":["ALL"],"add":["NET_BIND_SERVICE"]},
        "seccompProfile":{"type":"RuntimeDefault"},"appArmorProfile":{"type":"RuntimeDefault"},
        "seLinuxOptions":{"level":"s0:c1,c2"},"procMount":"Default"},
      "stdin":false,"stdinOnce":false,"tty":false}],
    "volumes":[{"name":"data","emptyDir":{"medium":"Memory","sizeLimit":"1Gi"}},
               {"name":"cfg","configMap":{"name":"cm","items":[{"key":"k","path":"p","mode":420}],"defaultMode":420}},
               {"name":"sec","secret":{"secretName":"s","optional":true}},
               {"name":"proj","projected":{"sources":[{"serviceAccountToken":{"path":"token","expirationSeconds":3600,"audience":"api"}},
                                                      {"downwardAPI":{"items":[{"path":"labels","fieldRef":{"fieldPath":"metadata.labels"}}]}}]}},
               {"name":"pvc","persistentVolumeClaim":{"claimName":"claim","readOnly":true}},
               {"name":"host","hostPath":{"path":"/var/log","type":"Directory"}},
               {"name":"eph","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"],
                  "resources":{"requests":{"storage":"1Gi"}}}}}},
               {"name":"csi","csi":{"driver":"secrets-store.csi.k8s.io","readOnly":true,"volumeAttributes":{"a":"b"}}}],
    "restartPolicy":"Always","terminationGracePeriodSeconds":45,"activeDeadlineSeconds":3600,
    "dnsPolicy":"ClusterFirstWithHostNet","dnsConfig":{"nameservers":["1.1.1.1"],"searches":["svc.local"],
      "options":[{"name":"ndots","value":"2"}]},
    "nodeSelector":{"disktype":"ssd"},"serviceAccountName":"default","automountServiceAccountToken":false,
    "hostNetwork":false,"hostPID":false,"hostIPC":false,"shareProcessNamespace":true,
    "securityContext":{"runAsUser":1000,"runAsGroup":3000,"fsGroup":2000,"fsGroupChangePolicy":"OnRootMismatch",
      "supplementalGroups":[4000],"sysctls":[{"name":"net.ipv4.ip_local_port_range","value":"1024 65535"}],
      "seccompProfile":{"type":"RuntimeDefault"},"runAsNonRoot":true},
    "imagePullSecrets":[{"name":"regcred"}],"hostname":"web","subdomain":"sub",
    "affinity":{
      "nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
          {"matchExpressions":[{"key":"kubernetes.io/os","operator":"In","values":["linux"]}]}]},
        "preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"preference":{"matchExpressions":[
          {"key":"zone","operator":"In","values":["a"]}]}}]},
      "podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":100,"podAffinityTerm":{
          "labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname",
          "matchLabelKeys":["pod-template-hash"]}}]}},
    "schedulerName":"default-scheduler",
    "tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},
                   {"key":"dedicated","operator":"Equal","value":"web","effect":"NoSchedule"},
                   {"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],
    "hostAliases":[{"ip":"10.0.0.1","hostnames":["db.local"]}],
    "priorityClassName":"high","priority":1000,"preemptionPolicy":"PreemptLowerPriority",
    "readinessGates":[{"conditionType":"example.com/ready"}],
    "runtimeClassName":"runc","enableServiceLinks":false,"overhead":{"cpu":"10m"},
    "topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone",
      "whenUnsatisfiable":"ScheduleAnyway","labelSelector":{"matchLabels":{"app":"web"}},
      "minDomains":2,"nodeAffinityPolicy":"Honor","nodeTaintsPolicy":"Ignore","matchLabelKeys":["pod-template-hash"]}],
    "setHostnameAsFQDN":false,"os":{"name":"linux"},"hostUsers":true,
    "schedulingGates":[{"name":"example.com/gate"}],
    "resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"gpu-template"}]}})";

// A Deployment: spec, strategy, template.
constexpr std::string_view kFullDeployment = R"({
  "apiVersion":"apps/v1","kind":"Deployment",
  "metadata":{"name":"web","labels":{"app":"web"}},
  "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"},
      "matchExpressions":[{"key":"tier","operator":"In","values":["front"]}]},
    "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":1}},
    "minReadySeconds":5,"revisionHistoryLimit":4,"paused":false,"progressDeadlineSeconds":300,
    "template":{"metadata":{"labels":{"app":"web","tier":"front"},"annotations":{"x":"y"}},
      "spec":{"containers":[{"name":"app","image":"nginx:1.27",
          "ports":[{"containerPort":80,"protocol":"TCP"}],
          "readinessProbe":{"httpGet":{"path":"/","port":80}},
          "resources":{"limits":{"memory":"128Mi"}}}],
        "terminationGracePeriodSeconds":10,
        "tolerations":[{"operator":"Exists"}]}}}})";

// A Service: every spec field a ClusterIP/LoadBalancer Service uses.
constexpr std::string_view kFullService = R"({
  "apiVersion":"v1","kind":"Service",
  "metadata":{"name":"web","labels":{"app":"web"}},
  "spec":{"type":"LoadBalancer","selector":{"app":"web"},
    "ports":[{"name":"http","protocol":"TCP","appProtocol":"http","port":80,"targetPort":"http"},
             {"name":"dns","protocol":"UDP","port":53,"targetPort":5353}],
    "sessionAffinity":"ClientIP","sessionAffinityConfig":{"clientIP":{"timeoutSeconds":600}},
    "externalTrafficPolicy":"Local","internalTrafficPolicy":"Cluster",
    "loadBalancerSourceRanges":["10.0.0.0/8"],"loadBalancerClass":"example.com/lb",
    "allocateLoadBalancerNodePorts":true,"publishNotReadyAddresses":true,
    "ipFamilyPolicy":"SingleStack","ipFamilies":["IPv4"],"externalIPs":["192.0.2.10"],
    "trafficDistribution":"PreferClose"}})";

class FieldValidationTest : public ApiServerTest {
 protected:
  HttpResponse PatchAs(std::string_view target, std::string_view content_type, std::string_view body) {
    return client().Patch(target, body, content_type);
  }
  // POSTs `body` under Strict and checks that GET returns every sent field unchanged.
  void ExpectStrictRoundTrip(std::string_view collection, std::string_view name, std::string_view body) {
    auto res = client().Post(std::string(collection) + "?fieldValidation=Strict", body);
    ASSERT_EQ(res.status, 201) << res.body;
    EXPECT_EQ(res.headers.count("warning"), 0u) << res.headers["warning"];
    EXPECT_EQ(Missing(body, res.Json()), std::vector<std::string>{});
    auto got = client().Get(std::string(collection) + "/" + std::string(name));
    ASSERT_EQ(got.status, 200) << got.body;
    EXPECT_EQ(Missing(body, got.Json()), std::vector<std::string>{});
  }
};

TEST_F(FieldValidationTest, RealisticBuiltinObjectsRoundTripUnderStrict) {
  ExpectStrictRoundTrip(kPods, "full", kFullPod);
  ExpectStrictRoundTrip(kDeployments, "web", kFullDeployment);
  ExpectStrictRoundTrip(kServices, "web", kFullService);
}

TEST_F(FieldValidationTest, RealisticObjectsSurviveStrictPutPatchAndApply) {
  ExpectStrictRoundTrip(kPods, "full", kFullPod);
  // PUT of the object as read, Strict: accepted, nothing lost.
  auto got = client().Get(std::string(kPods) + "/full");
  ASSERT_EQ(got.status, 200);
  auto put = client().Put(std::string(kPods) + "/full?fieldValidation=Strict", got.body);
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(Missing(kFullPod, put.Json()), std::vector<std::string>{});
  // Strategic merge patch of nested fields, Strict: a container's image is one of the pod spec's
  // few mutable fields (a probe change would be refused, as kube refuses it).
  auto smp = PatchAs(std::string(kPods) + "/full?fieldValidation=Strict", kStrategic,
                            R"({"metadata":{"labels":{"v":"2"}},"spec":{"containers":[{"name":"app",
                                "image":"nginx:1.28"}]}})");
  ASSERT_EQ(smp.status, 200) << smp.body;
  EXPECT_EQ(Str(smp.Json(), {"metadata", "labels", "v"}), "2");
  auto probe = PatchAs(std::string(kPods) + "/full?fieldValidation=Strict", kStrategic,
                       R"({"spec":{"containers":[{"name":"app","readinessProbe":{"grpc":{"port":9091}}}]}})");
  EXPECT_EQ(probe.status, 422) << probe.body;
  // Deployment through server-side apply (kubectl's default for --server-side is Strict).
  std::string yaml(kFullDeployment);
  auto applied = PatchAs(std::string(kDeployments) + "/web?fieldManager=m&fieldValidation=Strict", kApply, yaml);
  ASSERT_EQ(applied.status, 201) << applied.body;
  EXPECT_EQ(Missing(kFullDeployment, applied.Json()), std::vector<std::string>{});
  // /status of the Deployment with every DeploymentStatus field.
  const std::string status = R"({"status":{"observedGeneration":1,"replicas":3,"updatedReplicas":3,
      "readyReplicas":2,"availableReplicas":2,"unavailableReplicas":1,"collisionCount":0,
      "conditions":[{"type":"Available","status":"True","lastUpdateTime":"2024-01-01T00:00:00Z",
                     "lastTransitionTime":"2024-01-01T00:00:00Z","reason":"MinimumReplicasAvailable","message":"ok"}]}})";
  auto st = PatchAs(std::string(kDeployments) + "/web/status?fieldValidation=Strict", kMerge, status);
  ASSERT_EQ(st.status, 200) << st.body;
  EXPECT_EQ(Missing(status, st.Json()), std::vector<std::string>{});
}

TEST_F(FieldValidationTest, StrictRejectsUnknownFieldsWithKubesMessageAndStoresNothing) {
  auto res = client().Post(std::string(kPods) + "?fieldValidation=Strict",
                           R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labelz":{"a":"b"}},
                               "spec":{"containers":[{"name":"c","image":"i","imagePolicy":"x"}],"foo":1},"bar":2})");
  ASSERT_EQ(res.status, 400) << res.body;
  EXPECT_EQ(Str(res.Json(), {"reason"}), "BadRequest");
  EXPECT_EQ(Str(res.Json(), {"message"}),
            R"(Pod in version "v1" cannot be handled as a Pod: )"
            R"(strict decoding error: unknown field "metadata.labelz", unknown field "spec.containers[0].imagePolicy", )"
            R"(unknown field "spec.foo", unknown field "bar")");
  EXPECT_EQ(client().Get(std::string(kPods) + "/p").status, 404);
}

TEST_F(FieldValidationTest, WarnDefaultAndIgnoreDropTheFields) {
  const std::string body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"NAME"},"data":{"k":"v"},"spec":{"x":1}})";
  auto with = [&](std::string_view name) {
    std::string b = body;
    b.replace(b.find("NAME"), 4, name);
    return b;
  };
  // Explicit Warn and no parameter (kube 1.32's default): one Warning header, field dropped.
  for (std::string_view query : {"?fieldValidation=Warn", ""}) {
    const std::string name = query.empty() ? "default" : "warn";
    auto res = client().Post(std::string(kConfigMaps) + std::string(query), with(name));
    ASSERT_EQ(res.status, 201) << res.body;
    EXPECT_EQ(res.headers["warning"], R"(299 - "unknown field \"spec\"")");
    EXPECT_FALSE(res.Json().as_object().contains("spec"));
    auto got = client().Get(std::string(kConfigMaps) + "/" + name);
    EXPECT_FALSE(got.Json().as_object().contains("spec")) << got.body;
    EXPECT_EQ(Str(got.Json(), {"data", "k"}), "v");
  }
  auto ignored = client().Post(std::string(kConfigMaps) + "?fieldValidation=Ignore", with("ignore"));
  ASSERT_EQ(ignored.status, 201) << ignored.body;
  EXPECT_EQ(ignored.headers.count("warning"), 0u);
  EXPECT_FALSE(client().Get(std::string(kConfigMaps) + "/ignore").Json().as_object().contains("spec"));
}

TEST_F(FieldValidationTest, PutPatchAndStatusWritesValidateTheResultingObject) {
  CreateConfigMap("default", "cm", "{}", R"({"k":"v"})");
  const std::string cm = std::string(kConfigMaps) + "/cm";
  // PUT, Strict.
  auto current = client().Get(cm).Json().as_object();
  current["bogus"] = 1;
  auto put = client().Put(cm + "?fieldValidation=Strict", bj::serialize(current));
  EXPECT_EQ(put.status, 400) << put.body;
  EXPECT_EQ(Str(put.Json(), {"message"}),
            R"(ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus")");
  // Merge patch, Strict -> 400; JSON patch, Strict -> 400; strategic merge patch, Warn -> dropped.
  auto merge = PatchAs(cm + "?fieldValidation=Strict", kMerge, R"({"metadata":{"labelz":{"a":"b"}}})");
  EXPECT_EQ(merge.status, 400) << merge.body;
  EXPECT_EQ(Str(merge.Json(), {"message"}), R"(strict decoding error: unknown field "metadata.labelz")");
  auto json_patch = PatchAs(cm + "?fieldValidation=Strict", kJsonPatch, R"([{"op":"add","path":"/x","value":1}])");
  EXPECT_EQ(json_patch.status, 400) << json_patch.body;
  EXPECT_EQ(Str(json_patch.Json(), {"message"}), R"(strict decoding error: unknown field "x")");
  auto smp = PatchAs(cm + "?fieldValidation=Warn", kStrategic, R"({"data":{"k":"w"},"extra":true})");
  ASSERT_EQ(smp.status, 200) << smp.body;
  EXPECT_EQ(smp.headers["warning"], R"(299 - "unknown field \"extra\"")");
  EXPECT_EQ(Str(smp.Json(), {"data", "k"}), "w");
  EXPECT_FALSE(smp.Json().as_object().contains("extra"));
  // A patch adding only unknown fields (Ignore) changes nothing: same resourceVersion.
  const std::string rv = Rv(smp.Json());
  auto noop = PatchAs(cm + "?fieldValidation=Ignore", kMerge, R"({"extra":true})");
  ASSERT_EQ(noop.status, 200) << noop.body;
  EXPECT_EQ(Rv(noop.Json()), rv);

  // /status of a Deployment: DeploymentStatus is complete, so a typo is reported.
  auto dep = client().Post(std::string(kDeployments), kFullDeployment);
  ASSERT_EQ(dep.status, 201) << dep.body;
  auto st = PatchAs(std::string(kDeployments) + "/web/status?fieldValidation=Strict", kMerge,
                           R"({"status":{"readyReplica":1}})");
  EXPECT_EQ(st.status, 400) << st.body;
  EXPECT_EQ(Str(st.Json(), {"message"}), R"(strict decoding error: unknown field "status.readyReplica")");
  auto st_warn = PatchAs(std::string(kDeployments) + "/web/status", kMerge, R"({"status":{"readyReplica":1}})");
  ASSERT_EQ(st_warn.status, 200) << st_warn.body;
  EXPECT_EQ(st_warn.headers["warning"], R"(299 - "unknown field \"status.readyReplica\"")");
  EXPECT_EQ(Str(st_warn.Json(), {"status", "readyReplica"}), "");
}

TEST_F(FieldValidationTest, ApplyWithAnUndeclaredFieldFailsLikeKubesTypedConversion) {
  auto res = PatchAs(std::string(kConfigMaps) + "/applied?fieldManager=m", kApply,
                            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: default\n"
                            "data:\n  k: v\nbogus: 1\n");
  ASSERT_EQ(res.status, 500) << res.body;
  EXPECT_EQ(Str(res.Json(), {"reason"}), "");
  EXPECT_EQ(Str(res.Json(), {"message"}),
            "failed to create typed patch object (default/applied; /v1, Kind=ConfigMap): "
            ".bogus: field not declared in schema");
  EXPECT_EQ(client().Get(std::string(kConfigMaps) + "/applied").status, 404);
  auto dep = PatchAs(std::string(kDeployments) + "/d?fieldManager=m", kApply,
                            R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
                                "spec":{"template":{"spec":{"containers":[{"name":"c","image":"i","imag":"x"}]}},
                                "replica":1}})");
  ASSERT_EQ(dep.status, 500) << dep.body;
  EXPECT_EQ(Str(dep.Json(), {"message"}),
            "failed to create typed patch object (/d; apps/v1, Kind=Deployment): errors:\n"
            "  .spec.template.spec.containers[name=\"c\"].imag: field not declared in schema\n"
            "  .spec.replica: field not declared in schema");
}

TEST_F(FieldValidationTest, ApplyOfACustomResourceChecksItsStructuralSchema) {
  auto crd = client().Post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                           R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"gizmos.example.com"},
    "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"gizmos","kind":"Gizmo"},
      "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",
        "properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"},
          "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}}}]}})");
  ASSERT_EQ(crd.status, 201) << crd.body;
  const std::string gizmo = "/apis/example.com/v1/namespaces/default/gizmos/g?fieldManager=m";
  // apiVersion, kind and metadata come from kube's own schemas; preserved subtrees take anything.
  auto ok = PatchAs(gizmo, kApply, R"({"apiVersion":"example.com/v1","kind":"Gizmo",
      "metadata":{"name":"g","labels":{"a":"b"}},"spec":{"size":1,"free":{"any":{"thing":1}}}})");
  ASSERT_EQ(ok.status, 201) << ok.body;
  auto bad = PatchAs(gizmo, kApply, R"({"apiVersion":"example.com/v1","kind":"Gizmo",
      "metadata":{"name":"g","namespace":"default"},"spec":{"size":2,"colour":"red"}})");
  ASSERT_EQ(bad.status, 500) << bad.body;
  EXPECT_EQ(Str(bad.Json(), {"message"}),
            "failed to create typed patch object (default/g; example.com/v1, Kind=Gizmo): "
            ".spec.colour: field not declared in schema");
  EXPECT_EQ(Str(client().Get("/apis/example.com/v1/namespaces/default/gizmos/g").Json(), {"spec", "size"}), "1");
}

TEST_F(FieldValidationTest, RbacAndCrdObjectsHaveFieldSchemas) {
  auto role = client().Post("/apis/rbac.authorization.k8s.io/v1/clusterroles?fieldValidation=Strict",
                            R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",
                                "metadata":{"name":"r"},"rules":[{"apiGroups":[""],"resources":["pods"],"verb":["get"]}]})");
  EXPECT_EQ(role.status, 400) << role.body;
  EXPECT_EQ(Str(role.Json(), {"message"}),
            R"(ClusterRole in version "v1" cannot be handled as a ClusterRole: strict decoding error: unknown field "rules[0].verb")");
  const std::string good = R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",
      "metadata":{"name":"r"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"],
      "resourceNames":["a"]},{"nonResourceURLs":["/healthz"],"verbs":["get"]}],
      "aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"agg":"true"}}]}})";
  ExpectStrictRoundTrip("/apis/rbac.authorization.k8s.io/v1/clusterroles", "r", good);
  const std::string binding = R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",
      "metadata":{"name":"b"},"subjects":[{"kind":"ServiceAccount","name":"default","namespace":"default"},
      {"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"alice"}],
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"r"}})";
  ExpectStrictRoundTrip("/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", "b", binding);

  // A CRD: its own fields are checked, everything below openAPIV3Schema is kept.
  const std::string crd = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"gadgets.example.com"},
    "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"gadgets","kind":"Gadget"},
      "versions":[{"name":"v1","served":true,"storage":true,"deprecated":false,
        "subresources":{"status":{}},
        "schema":{"openAPIV3Schema":{"type":"object","description":"d","x-kubernetes-preserve-unknown-fields":true,
          "properties":{"spec":{"type":"object","properties":{"n":{"type":"integer","format":"int32"}},
          "x-kubernetes-validations":[{"rule":"self.n >= 0","message":"m"}]}}}}}]}})";
  auto bad = client().Post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions?fieldValidation=Strict",
                           R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
                               "metadata":{"name":"things.example.com"},"spec":{"group":"example.com","scop":"x"}})");
  EXPECT_EQ(bad.status, 400) << bad.body;
  EXPECT_EQ(Str(bad.Json(), {"message"}), R"(CustomResourceDefinition in version "v1" cannot be handled as a )"
                                           R"(CustomResourceDefinition: strict decoding error: unknown field "spec.scop")");
  ExpectStrictRoundTrip("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "gadgets.example.com", crd);
}

TEST_F(FieldValidationTest, CustomResourceCreateIsRefusedWhileItsCrdIsTerminating) {
  const std::string crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  auto crd = client().Post(crds, R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"gadgets.example.com"},
    "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"gadgets","kind":"Gadget"},
      "versions":[{"name":"v1","served":true,"storage":true,
        "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}})");
  ASSERT_EQ(crd.status, 201) << crd.body;
  const std::string gadgets = "/apis/example.com/v1/namespaces/default/gadgets";
  // A finalizer keeps this one (and so the CRD) around while the CRD is terminating.
  auto held = client().Post(gadgets, R"({"apiVersion":"example.com/v1","kind":"Gadget",
                                         "metadata":{"name":"held","finalizers":["example.com/hold"]}})");
  ASSERT_EQ(held.status, 201) << held.body;
  auto del = client().Delete(crds + "/gadgets.example.com");
  ASSERT_EQ(del.status, 200) << del.body;
  auto refused = client().Post(gadgets, R"({"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"new"}})");
  ASSERT_EQ(refused.status, 405) << refused.body;
  const auto status = refused.Json();
  EXPECT_EQ(Str(status, {"kind"}), "Status");
  EXPECT_EQ(Str(status, {"reason"}), "MethodNotAllowed");
  EXPECT_EQ(Str(status, {"message"}), "create not allowed while custom resource definition is terminating");
  EXPECT_EQ(Str(status, {"details", "group"}), "example.com");
  EXPECT_EQ(Str(status, {"details", "kind"}), "gadgets");
  EXPECT_EQ(Str(status, {"code"}), "405");
  // Reads and updates of existing objects still work.
  EXPECT_EQ(client().Get(gadgets + "/held").status, 200);
}

}  // namespace
}  // namespace kube::apiserver::testing
