#include "apiserver/rest/kinds.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <kube/apiserver/apiserver.hpp>
#include <kube/core/json.hpp>

#include "apiserver/rest/strategy.hpp"

namespace kube::apiserver::rest {
namespace {
namespace json = boost::json;

class KindsTest : public ::testing::Test {
 protected:
  KindsTest() { RegisterBuiltins(registry_); }
  const ResourceInfo& Info(std::string_view group, std::string_view version, std::string_view resource) {
    auto info = registry_.Find(group, version, resource);
    EXPECT_NE(info, nullptr) << resource;
    infos_.push_back(info);
    return *info;
  }
  static json::object Parse(std::string_view text) { return json::parse(text).as_object(); }
  // Decodes and defaults `text` as `info` does, then prepares it for a create (uid set).
  static json::object Created(const ResourceInfo& info, std::string_view text) {
    json::object obj = Parse(text);
    EXPECT_TRUE(DecodeAndDefault(info, obj).ok());
    auto& meta = obj["metadata"].as_object();
    meta["uid"] = "u-1";
    meta["creationTimestamp"] = "2026-01-01T00:00:00Z";
    PrepareForCreate(info, obj);
    return obj;
  }
  static std::vector<std::string> Fields(const std::vector<FieldError>& errs) {
    std::vector<std::string> out;
    for (const auto& e : errs) out.push_back(e.type + " " + e.field);
    return out;
  }
  std::vector<FieldError> Errors(const ResourceInfo& info, std::string_view text) {
    json::object obj = Parse(text);
    EXPECT_TRUE(DecodeAndDefault(info, obj).ok());
    std::vector<FieldError> errs;
    ValidateOtherKind(info, obj, nullptr, errs);
    return errs;
  }

  Registry registry_;
  std::vector<ResourcePtr> infos_;
};

TEST_F(KindsTest, ServedWithKubesDiscoveryData) {
  const auto& sts = Info("apps", "v1", "statefulsets");
  EXPECT_TRUE(sts.builtin && sts.has_status && sts.has_scale && sts.tracks_generation);
  EXPECT_EQ(sts.short_names, std::vector<std::string>{"sts"});
  const auto& pv = Info("", "v1", "persistentvolumes");
  EXPECT_FALSE(pv.namespaced);
  EXPECT_NE(pv.schema, nullptr);
  const auto& hpa = Info("autoscaling", "v2", "horizontalpodautoscalers");
  EXPECT_FALSE(hpa.tracks_generation);  // kube sets no generation on HPAs
  EXPECT_EQ(Info("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations").categories,
            std::vector<std::string>{"api-extensions"});
}

TEST_F(KindsTest, WorkloadDefaultsFillThePodTemplateAndTheStrategy) {
  const auto& sts = Info("apps", "v1", "statefulsets");
  const auto obj = Created(sts, R"({"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"s"},
      "spec":{"selector":{"matchLabels":{"a":"b"}},"serviceName":"s",
              "template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}})");
  const auto& spec = obj.at("spec").as_object();
  EXPECT_EQ(spec.at("podManagementPolicy"), "OrderedReady");
  EXPECT_EQ(spec.at("updateStrategy"), json::parse(R"({"type":"RollingUpdate","rollingUpdate":{"partition":0}})"));
  EXPECT_EQ(spec.at("persistentVolumeClaimRetentionPolicy"),
            json::parse(R"({"whenDeleted":"Retain","whenScaled":"Retain"})"));
  EXPECT_EQ(spec.at("template").at("spec").at("restartPolicy"), "Always");
  EXPECT_TRUE(spec.at("template").at("metadata").at("creationTimestamp").is_null());
  // The status starts as Go's zero value of StatefulSetStatus.
  EXPECT_EQ(obj.at("status"), json::parse(R"({"availableReplicas":0,"replicas":0})"));
  EXPECT_EQ(obj.at("metadata").at("generation"), 1);
}

TEST_F(KindsTest, AJobGetsItsUidSelectorAndLabelsUnlessManual) {
  const auto& jobs = Info("batch", "v1", "jobs");
  const auto obj = Created(jobs, R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},
      "spec":{"template":{"metadata":{"labels":{"app":"x"}},"spec":{"restartPolicy":"Never",
              "containers":[{"name":"c","image":"i"}]}}}})");
  const auto& spec = obj.at("spec").as_object();
  EXPECT_EQ(spec.at("selector"), json::parse(R"({"matchLabels":{"batch.kubernetes.io/controller-uid":"u-1"}})"));
  const auto labels = json::parse(R"({"app":"x","batch.kubernetes.io/controller-uid":"u-1",
      "batch.kubernetes.io/job-name":"j","controller-uid":"u-1","job-name":"j"})");
  EXPECT_EQ(spec.at("template").at("metadata").at("labels"), labels);
  EXPECT_EQ(obj.at("metadata").at("labels"), labels);  // defaulted from the template
  for (auto [k, v] : {std::pair{"completions", json::value(1)}, {"parallelism", json::value(1)},
                      {"backoffLimit", json::value(6)}, {"completionMode", json::value("NonIndexed")},
                      {"manualSelector", json::value(false)}}) {
    EXPECT_EQ(spec.at(k), v) << k;
  }
  const auto manual = Created(jobs, R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},
      "spec":{"manualSelector":true,"selector":{"matchLabels":{"app":"x"}},
              "template":{"metadata":{"labels":{"app":"x"}},"spec":{"restartPolicy":"Never",
              "containers":[{"name":"c","image":"i"}]}}}})");
  EXPECT_EQ(manual.at("spec").at("selector"), json::parse(R"({"matchLabels":{"app":"x"}})"));
}

TEST_F(KindsTest, ProtectionFinalizersAndPendingPhaseOfVolumes) {
  const auto pvc = Created(Info("", "v1", "persistentvolumeclaims"),
                           R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"c"},
      "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})");
  EXPECT_EQ(pvc.at("metadata").at("finalizers"), json::parse(R"(["kubernetes.io/pvc-protection"])"));
  EXPECT_EQ(pvc.at("status"), json::parse(R"({"phase":"Pending"})"));
  EXPECT_EQ(pvc.at("spec").at("volumeMode"), "Filesystem");
  const auto pv = Created(Info("", "v1", "persistentvolumes"),
                          R"({"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"v"},
      "spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/p"}}})");
  EXPECT_EQ(pv.at("status"), json::parse(R"({"phase":"Pending","lastPhaseTransitionTime":"2026-01-01T00:00:00Z"})"));
  EXPECT_EQ(pv.at("spec").at("persistentVolumeReclaimPolicy"), "Retain");
  EXPECT_EQ(pv.at("spec").at("hostPath").at("type"), "");
}

TEST_F(KindsTest, WebhookConfigurationsAndSmallKindsGetKubesDefaults) {
  const auto hooks = Created(Info("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations"),
                             R"({"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration",
      "metadata":{"name":"m"},"webhooks":[{"name":"a.b.c","clientConfig":{"service":{"namespace":"n","name":"s"}},
      "rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"]}],
      "admissionReviewVersions":["v1"],"sideEffects":"None"}]})");
  const auto& hook = hooks.at("webhooks").at(0).as_object();
  EXPECT_EQ(hook.at("failurePolicy"), "Fail");
  EXPECT_EQ(hook.at("reinvocationPolicy"), "Never");
  EXPECT_EQ(hook.at("timeoutSeconds"), 10);
  EXPECT_EQ(hook.at("rules").at(0).at("scope"), "*");
  EXPECT_EQ(hook.at("clientConfig").at("service").at("port"), 443);
  const auto lr = Created(Info("", "v1", "limitranges"), R"({"apiVersion":"v1","kind":"LimitRange",
      "metadata":{"name":"l"},"spec":{"limits":[{"type":"Container","max":{"cpu":"2"},"min":{"memory":"1Mi"}}]}})");
  EXPECT_EQ(lr.at("spec").at("limits").at(0).at("default"), json::parse(R"({"cpu":"2"})"));
  EXPECT_EQ(lr.at("spec").at("limits").at(0).at("defaultRequest"), json::parse(R"({"cpu":"2","memory":"1Mi"})"));
  const auto np = Created(Info("networking.k8s.io", "v1", "networkpolicies"), R"({"apiVersion":"networking.k8s.io/v1",
      "kind":"NetworkPolicy","metadata":{"name":"n"},"spec":{"podSelector":{},"egress":[{"ports":[{"port":53}]}]}})");
  EXPECT_EQ(np.at("spec").at("policyTypes"), json::parse(R"(["Ingress","Egress"])"));
  EXPECT_EQ(np.at("spec").at("egress").at(0).at("ports").at(0).at("protocol"), "TCP");
  // An always-encoded empty slice reads back from storage as null.
  const auto csinode = Created(Info("storage.k8s.io", "v1", "csinodes"), R"({"apiVersion":"storage.k8s.io/v1",
      "kind":"CSINode","metadata":{"name":"n"},"spec":{"drivers":[]}})");
  EXPECT_TRUE(csinode.at("spec").at("drivers").is_null());
}

TEST_F(KindsTest, ValidationGivesKubesCauses) {
  EXPECT_EQ(Fields(Errors(Info("apps", "v1", "daemonsets"),
                          R"({"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"d"}})")),
            (std::vector<std::string>{"FieldValueInvalid spec.template.metadata.labels",
                                      "FieldValueRequired spec.template.spec.containers"}));
  EXPECT_EQ(Fields(Errors(Info("batch", "v1", "cronjobs"),
                          R"({"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"c"}})")),
            (std::vector<std::string>{"FieldValueRequired spec.schedule",
                                      "FieldValueRequired spec.jobTemplate.spec.template.spec.containers",
                                      "FieldValueRequired spec.jobTemplate.spec.template.spec.restartPolicy"}));
  EXPECT_EQ(Fields(Errors(Info("autoscaling", "v2", "horizontalpodautoscalers"),
                          R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"h"}})")),
            (std::vector<std::string>{"FieldValueInvalid spec.maxReplicas", "FieldValueInvalid spec.maxReplicas",
                                      "FieldValueRequired spec.scaleTargetRef.kind",
                                      "FieldValueRequired spec.scaleTargetRef.name"}));
  const auto ingress = Errors(Info("networking.k8s.io", "v1", "ingresses"),
                              R"({"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"i"}})");
  ASSERT_EQ(ingress.size(), 1u);
  EXPECT_EQ(ingress[0].String(),
            "spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified");
  EXPECT_TRUE(Errors(Info("storage.k8s.io", "v1", "storageclasses"),
                     R"({"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"s"},
                         "provisioner":"example.com/p"})")
                  .empty());
}

TEST_F(KindsTest, AControllerRevisionsDataIsImmutable) {
  const auto& info = Info("apps", "v1", "controllerrevisions");
  const auto old = Parse(R"({"metadata":{"name":"r"},"data":{"a":1},"revision":1})");
  const auto changed = Parse(R"({"metadata":{"name":"r"},"data":{"a":2},"revision":1})");
  std::vector<FieldError> errs;
  ValidateOtherKind(info, old, &old, errs);
  EXPECT_TRUE(errs.empty());
  ValidateOtherKind(info, changed, &old, errs);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].String(),
            "data: Invalid value: runtime.RawExtension{Raw:[]uint8{0x7b, 0x22, 0x61, 0x22, 0x3a, 0x32, 0x7d}, "
            "Object:runtime.Object(nil)}: field is immutable");
}

}  // namespace
}  // namespace kube::apiserver::rest
