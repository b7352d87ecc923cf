#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <kube/apiserver/apiserver.hpp>
#include <string>
#include <string_view>

#include "apiserver/rest/hpa.hpp"
#include "apiserver/rest/strategy.hpp"

namespace kube::apiserver::rest {
namespace {
namespace json = boost::json;

json::object Parse(std::string_view text) { return json::parse(text).as_object(); }

std::string Annotation(const json::object& obj, std::string_view key) {
  const auto& annotations = obj.at("metadata").at("annotations").as_object();
  const auto* v = annotations.if_contains(key);
  return v != nullptr ? std::string(v->as_string()) : std::string("<absent>");
}

// A v2 object with one metric of each source, as kube-apiserver 1.32 stores it.
constexpr std::string_view kAllMetrics = R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler",
  "metadata":{"name":"b","annotations":{"x":"y","autoscaling.alpha.kubernetes.io/conditions":"stale"}},
  "spec":{"scaleTargetRef":{"kind":"Deployment","name":"d","apiVersion":"apps/v1"},"minReplicas":1,"maxReplicas":3,
    "metrics":[
      {"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"100Mi"}}},
      {"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}},
      {"type":"Pods","pods":{"metric":{"name":"qps"},"target":{"type":"AverageValue","averageValue":"10"}}},
      {"type":"Object","object":{"describedObject":{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","name":"main"},
        "metric":{"name":"rps","selector":{"matchLabels":{"b":"2","a":"1"}}},"target":{"type":"Value","value":"2k"}}},
      {"type":"External","external":{"metric":{"name":"queue"},"target":{"type":"AverageValue","averageValue":"30"}}},
      {"type":"ContainerResource","containerResource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":60},
        "container":"app"}}],
    "behavior":{"scaleUp":{"stabilizationWindowSeconds":0,"selectPolicy":"Max",
        "policies":[{"type":"Pods","value":4,"periodSeconds":15},{"type":"Percent","value":100,"periodSeconds":15}]},
      "scaleDown":{"stabilizationWindowSeconds":60,"selectPolicy":"Max","policies":[{"type":"Percent","value":100,"periodSeconds":15}]}}},
  "status":{"desiredReplicas":0,"currentMetrics":null}})";

TEST(HpaConversion, V1ViewKeepsTheFirstCpuUtilizationAndAnnotatesTheOtherMetricsAsGoWritesThem) {
  json::object obj = Parse(kAllMetrics);
  HpaV2ToV1(obj);
  EXPECT_EQ(obj.at("apiVersion"), "autoscaling/v1");
  EXPECT_EQ(obj.at("spec"), json::parse(R"({"scaleTargetRef":{"kind":"Deployment","name":"d","apiVersion":"apps/v1"},
      "minReplicas":1,"maxReplicas":3,"targetCPUUtilizationPercentage":50})"));
  // kube-apiserver 1.32's bytes, HTML escapes and struct member order included.
  EXPECT_EQ(
      Annotation(obj, kHpaMetricsAnnotation),
      R"([{"type":"Resource","resource":{"name":"memory","targetAverageValue":"100Mi"}},)"
      R"({"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}},)"
      R"({"type":"Object","object":{"target":{"kind":"Ingress","name":"main","apiVersion":"networking.k8s.io/v1"},)"
      R"("metricName":"rps","targetValue":"2k","selector":{"matchLabels":{"a":"1","b":"2"}}}},)"
      R"({"type":"External","external":{"metricName":"queue","targetAverageValue":"30"}},)"
      R"({"type":"ContainerResource","containerResource":{"name":"cpu","targetAverageUtilization":60,"container":"app"}}])");
  EXPECT_EQ(
      Annotation(obj, kHpaBehaviorAnnotation),
      R"({"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,)"
      R"("PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}]},"ScaleDown":{)"
      R"("StabilizationWindowSeconds":60,"SelectPolicy":"Max","Policies":[{"Type":"Percent","Value":100,"PeriodSeconds":15}]}})");
  // A round-trip annotation the object carried is not kept; Go writes the map sorted.
  EXPECT_EQ(Annotation(obj, kHpaConditionsAnnotation), "<absent>");
  EXPECT_EQ(obj.at("metadata").at("annotations").as_object().begin()->key(), kHpaBehaviorAnnotation);
  // autoscaling/v1's status counts have no omitempty.
  EXPECT_EQ(obj.at("status"), json::parse(R"({"currentReplicas":0,"desiredReplicas":0})"));
}

TEST(HpaConversion, V1ViewAnnotatesTheCurrentMetricsAndConditions) {
  json::object obj = Parse(R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"h"},
    "spec":{"scaleTargetRef":{"kind":"Deployment","name":"d"},"maxReplicas":3,
      "metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":80}}}]},
    "status":{"currentReplicas":2,"desiredReplicas":3,"observedGeneration":4,
      "currentMetrics":[{"type":"Resource","resource":{"name":"cpu","current":{"averageUtilization":55}}},
        {"type":"Object","object":{"metric":{"name":"rps"},"current":{"value":"1k"},"describedObject":{"kind":"Ingress","name":"main"}}}],
      "conditions":[{"type":"AbleToScale","status":"True","lastTransitionTime":null,"reason":"R","message":"a <b>"}]}})");
  HpaV2ToV1(obj);
  EXPECT_EQ(obj.at("status"), json::parse(R"({"observedGeneration":4,"currentReplicas":2,"desiredReplicas":3,
      "currentCPUUtilizationPercentage":55})"));
  EXPECT_EQ(
      Annotation(obj, kHpaCurrentMetricsAnnotation),
      R"([{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":55,"currentAverageValue":"0"}},)"
      R"({"type":"Object","object":{"target":{"kind":"Ingress","name":"main"},"metricName":"rps","currentValue":"1k"}}])");
  EXPECT_EQ(
      Annotation(obj, kHpaConditionsAnnotation),
      R"([{"type":"AbleToScale","status":"True","lastTransitionTime":null,"reason":"R","message":"a \u003cb\u003e"}])");
  EXPECT_EQ(Annotation(obj, kHpaMetricsAnnotation), "<absent>");
}

TEST(HpaConversion, StoredFormPutsTheCpuTargetAfterTheAnnotatedMetrics) {
  json::object obj = Parse(R"({"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"h",
    "annotations":{"keep":"me","autoscaling.alpha.kubernetes.io/metrics":
      "[{\"type\":\"Pods\",\"pods\":{\"metricName\":\"qps\",\"targetAverageValue\":\"10\"}},{\"type\":\"Object\",\"object\":{\"target\":{\"kind\":\"Ingress\",\"name\":\"main\"},\"MetricName\":\"rps\",\"targetValue\":5}}]"}},
    "spec":{"scaleTargetRef":{"kind":"Deployment","name":"d"},"maxReplicas":3,"targetCPUUtilizationPercentage":70}})");
  HpaV1ToV2(obj);
  EXPECT_EQ(obj.at("apiVersion"), "autoscaling/v2");
  EXPECT_EQ(obj.at("metadata").at("annotations"), json::parse(R"({"keep":"me"})"));
  EXPECT_EQ(obj.at("spec").at("metrics"), json::parse(R"([
      {"type":"Pods","pods":{"metric":{"name":"qps"},"target":{"type":"AverageValue","averageValue":"10"}}},
      {"type":"Object","object":{"describedObject":{"kind":"Ingress","name":"main"},"target":{"type":"Value","value":"5"},
        "metric":{"name":"rps"}}},
      {"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":70}}}])"));
}

TEST(HpaConversion, StoredFormDefaultsTheCpuTargetAndIgnoresAnnotationsGoCannotDecode) {
  json::object obj = Parse(R"({"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"h",
    "annotations":{"autoscaling.alpha.kubernetes.io/metrics":"not json",
      "autoscaling.alpha.kubernetes.io/current-metrics":"[{\"type\":\"Pods\",\"pods\":{\"metricName\":5}}]",
      "autoscaling.alpha.kubernetes.io/behavior":"{\"ScaleUp\":\"fast\"}"}},
    "spec":{"scaleTargetRef":{"kind":"Deployment","name":"d"},"maxReplicas":3},
    "status":{"currentCPUUtilizationPercentage":40}})");
  HpaV1ToV2(obj);
  EXPECT_FALSE(obj.at("metadata").as_object().contains("annotations"));
  EXPECT_EQ(
      obj.at("spec").at("metrics"),
      json::parse(
          R"([{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":80}}}])"));
  EXPECT_FALSE(obj.at("spec").as_object().contains("behavior"));
  // The annotation that fails to decode leaves the v1 status' own current metric.
  EXPECT_EQ(obj.at("status").at("currentMetrics"),
            json::parse(R"([{"type":"Resource","resource":{"name":"cpu","current":{"averageUtilization":40}}}])"));
}

TEST(HpaConversion, BehaviorAnnotationIsTheInternalTypeMatchedCaseInsensitivelyAndNotDefaulted) {
  json::object obj = Parse(R"({"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"h",
    "annotations":{"autoscaling.alpha.kubernetes.io/behavior":"{\"scaleDown\":{\"stabilizationWindowSeconds\":30}}",
      "autoscaling.alpha.kubernetes.io/conditions":"[{\"type\":\"AbleToScale\",\"status\":\"True\"}]"}},
    "spec":{"scaleTargetRef":{"kind":"Deployment","name":"d"},"maxReplicas":3}})");
  HpaV1ToV2(obj);
  EXPECT_EQ(obj.at("spec").at("behavior"), json::parse(R"({"scaleDown":{"stabilizationWindowSeconds":30}})"));
  EXPECT_EQ(obj.at("status").at("conditions"),
            json::parse(R"([{"type":"AbleToScale","status":"True","lastTransitionTime":null}])"));
  DefaultHorizontalPodAutoscaler(obj, /*behavior=*/true);
  EXPECT_EQ(obj.at("spec").at("behavior"), json::parse(R"({
      "scaleUp":{"stabilizationWindowSeconds":0,"selectPolicy":"Max","policies":[{"type":"Pods","value":4,"periodSeconds":15},
        {"type":"Percent","value":100,"periodSeconds":15}]},
      "scaleDown":{"stabilizationWindowSeconds":30,"selectPolicy":"Max","policies":[{"type":"Percent","value":100,"periodSeconds":15}]}})"));
  EXPECT_EQ(obj.at("spec").at("minReplicas"), 1);
}

TEST(HpaConversion, UnknownMembersGoThroughUnlessAV2FieldHasTheirName) {
  json::object obj =
      Parse(R"({"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"h"},"extra":1,
    "spec":{"scaleTargetRef":{"kind":"Deployment","name":"d","bogus":2},"maxReplicas":3,"foo":3,"metrics":[]},
    "status":{"conditions":[],"bar":4}})");
  EXPECT_EQ(HpaV1UnknownFieldsLost(obj), (std::vector<std::string>{"spec.metrics", "status.conditions"}));
  HpaV1ToV2(obj);
  EXPECT_EQ(obj.at("extra"), 1);
  EXPECT_EQ(obj.at("spec").at("foo"), 3);
  EXPECT_EQ(obj.at("spec").at("scaleTargetRef").at("bogus"), 2);
  EXPECT_EQ(obj.at("status").at("bar"), 4);
  EXPECT_FALSE(obj.at("status").as_object().contains("conditions"));
}

TEST(HpaConversion, EachVersionSeesTheStoredObjectAsItServesIt) {
  const json::object stored = Parse(kAllMetrics);
  EXPECT_EQ(*HpaAsVersion(stored, "autoscaling/v2"), stored);
  EXPECT_EQ(HpaAsVersion(stored, "autoscaling/v1")->at("spec").at("targetCPUUtilizationPercentage"), 50);
  EXPECT_FALSE(HpaAsVersion(stored, "v1").has_value());
}

TEST(HpaConversion, TheV1ViewIsRegisteredOverTheV2Storage) {
  Registry registry;
  RegisterBuiltins(registry);
  const auto v1 = registry.Find("autoscaling", "v1", "horizontalpodautoscalers");
  const auto v2 = registry.Find("autoscaling", "v2", "horizontalpodautoscalers");
  ASSERT_NE(v1, nullptr);
  ASSERT_NE(v2, nullptr);
  EXPECT_EQ(v1->StoragePrefix(), v2->StoragePrefix());
  EXPECT_TRUE(IsHpaV1View(*v1));
  EXPECT_FALSE(IsHpaV1View(*v2));
  EXPECT_TRUE(NeedsViewConversion(*v1));
  EXPECT_EQ(v1->short_names, std::vector<std::string>{"hpa"});
  EXPECT_EQ(v1->categories, std::vector<std::string>{"all"});
}

}  // namespace
}  // namespace kube::apiserver::rest
