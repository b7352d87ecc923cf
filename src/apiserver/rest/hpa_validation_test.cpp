#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/rest/hpa.hpp"

namespace kube::apiserver::rest {
namespace {
namespace json = boost::json;

std::vector<std::string> Errors(std::string_view spec, std::string_view old_spec = "") {
  json::object obj{{"spec", json::parse(spec)}};
  std::vector<FieldError> errs;
  if (old_spec.empty()) {
    ValidateHorizontalPodAutoscaler(obj, nullptr, errs);
  } else {
    const json::object old{{"spec", json::parse(old_spec)}};
    ValidateHorizontalPodAutoscaler(obj, &old, errs);
  }
  std::vector<std::string> out;
  for (const auto& e : errs) out.push_back(e.String());
  return out;
}

constexpr std::string_view kRef = R"("scaleTargetRef":{"kind":"Deployment","name":"d"})";

std::string Spec(std::string_view rest) { return "{" + std::string(kRef) + "," + std::string(rest) + "}"; }

TEST(HpaValidation, ReplicaBoundsAndTheScaleToZeroRule) {
  EXPECT_EQ(Errors(R"({"scaleTargetRef":{"kind":"","name":"a/b"},"minReplicas":0,"maxReplicas":0,"metrics":[]})"),
            (std::vector<std::string>{"spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
                                      "spec.maxReplicas: Invalid value: 0: must be greater than 0",
                                      "spec.scaleTargetRef.kind: Required value",
                                      "spec.scaleTargetRef.name: Invalid value: \"a/b\": may not contain '/'",
                                      "spec.metrics: Forbidden: must specify at least one Object or External metric to "
                                      "support scaling to zero replicas"}));
  EXPECT_EQ(
      Errors(Spec(R"("minReplicas":5,"maxReplicas":2)")),
      std::vector<std::string>{"spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`"});
  // An object that already scales to zero may keep doing so.
  const std::string zero = Spec(R"("minReplicas":0,"maxReplicas":2,"metrics":[{"type":"External","external":{
      "metric":{"name":"q"},"target":{"type":"Value","value":"1"}}}])");
  EXPECT_EQ(Errors(zero).size(), 1u);
  EXPECT_TRUE(Errors(zero, zero).empty());
}

TEST(HpaValidation, MetricSourcesAndTargets) {
  EXPECT_EQ(
      Errors(Spec(R"("maxReplicas":1,"metrics":[{"type":"Pods","resource":{"name":"cpu"}}])")),
      (std::vector<std::string>{
          "spec.metrics[0].resource.target.type: Required value: must specify a metric target type",
          "spec.metrics[0].resource.target.type: Invalid value: \"\": must be either Utilization, Value, or "
          "AverageValue",
          "spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target raw value "
          "or a target utilization",
          "spec.metrics[0].pods: Required value: must populate information for the given metric source"}));
  const auto unknown = Errors(Spec(R"("maxReplicas":1,"metrics":[{"type":"Bogus"}])"));
  ASSERT_EQ(unknown.size(), 2u);  // the type is refused twice, as kube does
  EXPECT_EQ(unknown[0],
            "spec.metrics[0].type: Unsupported value: \"Bogus\": supported values: \"ContainerResource\", "
            "\"External\", \"Object\", \"Pods\", \"Resource\"");
  EXPECT_EQ(
      Errors(Spec(R"("maxReplicas":1,"metrics":[{"type":"External","external":{"metric":{"name":""},
      "target":{"type":"Value","value":"1","averageValue":"2"}}}])")),
      (std::vector<std::string>{"spec.metrics[0].external.metric.name: Required value: must specify a metric name",
                                "spec.metrics[0].external.target.value: Forbidden: may not set both a target "
                                "value for metric and a per-pod target"}));
}

TEST(HpaValidation, QuantitiesPrintAsGoPrintsTheStruct) {
  EXPECT_EQ(Errors(Spec(R"("maxReplicas":1,"metrics":[{"type":"Pods","pods":{"metric":{"name":"qps"},
      "target":{"type":"AverageValue","averageValue":"-1"}}}])")),
            std::vector<std::string>{
                "spec.metrics[0].pods.target.averageValue: Invalid value: resource.Quantity{i:resource.int64Amount{"
                "value:-1, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"-1\", Format:\"DecimalSI\"}: "
                "must be positive"});
  const auto zero =
      Errors(Spec(R"("maxReplicas":1,"metrics":[{"type":"Object","object":{"describedObject":{"kind":"I","name":"i"},
      "metric":{"name":"m"},"target":{"type":"Value","value":"0"}}},{"type":"Object","object":{"describedObject":{"kind":"I","name":"i"},
      "metric":{"name":"m"},"target":{"type":"AverageValue","averageValue":"-0.5"}}}])"));
  ASSERT_EQ(zero.size(), 2u);
  EXPECT_NE(zero[0].find("int64Amount{value:0, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"0\""),
            std::string::npos);
  EXPECT_NE(zero[1].find("int64Amount{value:-5, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\""),
            std::string::npos);
}

TEST(HpaValidation, ContainerResourceNamesPrintUnquoted) {
  const auto errs = Errors(Spec(R"("maxReplicas":1,"metrics":[{"type":"ContainerResource","containerResource":{
      "name":"gpu","container":"App_1","target":{"type":"Utilization","averageUtilization":50}}}])"));
  ASSERT_EQ(errs.size(), 3u);
  EXPECT_EQ(errs[0],
            "spec.metrics[0].containerResource.name: Invalid value: gpu: must be a standard resource type or "
            "fully qualified");
  EXPECT_EQ(errs[1],
            "spec.metrics[0].containerResource.name: Invalid value: gpu: must be a standard resource for "
            "containers");
  EXPECT_TRUE(
      errs[2].starts_with("spec.metrics[0].containerResource.container: Invalid value: \"App_1\": a lowercase"));
}

TEST(HpaValidation, BehaviorRules) {
  EXPECT_EQ(
      Errors(Spec(R"("maxReplicas":1,"behavior":{"scaleUp":{"stabilizationWindowSeconds":4000,
      "selectPolicy":"Fastest","policies":[{"type":"Nodes","value":0,"periodSeconds":2000}]},"scaleDown":{}})")),
      (std::vector<std::string>{
          "spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600",
          "spec.behavior.scaleUp.selectPolicy: Unsupported value: \"Fastest\": supported values: \"Disabled\", "
          "\"Max\", \"Min\"",
          "spec.behavior.scaleUp.policies[0].type: Unsupported value: \"Nodes\": supported values: \"Percent\", "
          "\"Pods\"",
          "spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero",
          "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 2000: must be less than or equal to 1800",
          "spec.behavior.scaleDown.policies: Required value: must specify at least one Policy"}));
}

TEST(HpaValidation, StatusCountsOfAnUpdateAreNotNegative) {
  json::object obj{{"spec", json::parse(Spec(R"("maxReplicas":1)"))},
                   {"status", json::object{{"currentReplicas", -1}, {"desiredReplicas", -2}}}};
  const json::object old = obj;
  std::vector<FieldError> errs;
  ValidateHorizontalPodAutoscaler(obj, &old, errs);
  ASSERT_EQ(errs.size(), 2u);
  EXPECT_EQ(errs[1].String(), "status.desiredReplicas: Invalid value: -2: must be greater than or equal to 0");
}

}  // namespace
}  // namespace kube::apiserver::rest
