#include "apiserver/rest/hpa_metrics.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kube::apiserver::rest {
namespace {
namespace json = boost::json;

json::object Parse(std::string_view text) { return json::parse(text).as_object(); }

TEST(HpaMetrics, GoJsonKeepsMemberOrderAndEscapesHtml) {
  EXPECT_EQ(GoJson(json::parse(R"({"z":"<a&b>","a":[1,null,true],"s":"\u2028\n"})")),
            R"({"z":"\u003ca\u0026b\u003e","a":[1,null,true],"s":"\u2028\n"})");
}

TEST(HpaMetrics, V1MetricSpecsHaveGoMemberOrderAndZeroQuantities) {
  EXPECT_EQ(
      GoJson(MetricSpecToV1(Parse(R"({"type":"Object","object":{"target":{"averageValue":"3","type":"AverageValue"},
      "metric":{"selector":{"matchExpressions":[{"values":["x"],"operator":"In","key":"k"}]},"name":"m"},
      "describedObject":{"name":"n","kind":"K"}}})"))),
      R"({"type":"Object","object":{"target":{"kind":"K","name":"n"},"metricName":"m","targetValue":"0",)"
      R"("selector":{"matchExpressions":[{"key":"k","operator":"In","values":["x"]}]},"averageValue":"3"}})");
  EXPECT_EQ(GoJson(MetricSpecToV1(Parse(R"({"type":"External","external":{"metric":{"name":"q"},
      "target":{"type":"Value","value":5}}})"))),
            R"({"type":"External","external":{"metricName":"q","targetValue":"5"}})");
}

TEST(HpaMetrics, V1MetricStatusesAndConditions) {
  EXPECT_EQ(GoJson(MetricStatusToV1(Parse(R"({"type":"Pods","pods":{"metric":{"name":"qps"},"current":{}}})"))),
            R"({"type":"Pods","pods":{"metricName":"qps","currentAverageValue":"0"}})");
  EXPECT_EQ(GoJson(ConditionToV1(Parse(R"({"type":"T","status":"True"})"))),
            R"({"type":"T","status":"True","lastTransitionTime":null})");
  EXPECT_EQ(
      GoJson(BehaviorToInternal(Parse(R"({"scaleDown":{"policies":[{"type":"Pods","value":1,"periodSeconds":2}]}})"))),
      R"({"ScaleUp":null,"ScaleDown":{"StabilizationWindowSeconds":null,"SelectPolicy":null,)"
      R"("Policies":[{"Type":"Pods","Value":1,"PeriodSeconds":2}]}})");
}

TEST(HpaMetrics, AnnotationsDecodeAsGoDecodes) {
  EXPECT_EQ(
      *MetricSpecsFromV1(R"([{"TYPE":"Resource","Resource":{"name":"memory","targetAverageValue":" 1Gi "}}])"),
      json::parse(
          R"([{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"1Gi"}}}])"));
  EXPECT_EQ(*MetricSpecsFromV1("null"), json::array());
  EXPECT_FALSE(MetricSpecsFromV1(R"([{"type":"Pods","pods":{"metricName":1}}])").has_value());
  EXPECT_FALSE(
      MetricSpecsFromV1(R"([{"type":"Resource","resource":{"name":"cpu","targetAverageValue":"1x"}}])").has_value());
  EXPECT_FALSE(MetricSpecsFromV1("{}").has_value());
  EXPECT_EQ(*MetricStatusesFromV1(R"([{"type":"External","external":{"metricName":"q","currentValue":"2"}}])"),
            json::parse(R"([{"type":"External","external":{"metric":{"name":"q"},"current":{"value":"2"}}}])"));
  EXPECT_EQ(*ConditionsFromV1(R"([{"type":"T","status":"False","reason":"R"}])"),
            json::parse(R"([{"type":"T","status":"False","lastTransitionTime":null,"reason":"R"}])"));
}

TEST(HpaMetrics, TheZeroBehaviorIsNoBehavior) {
  EXPECT_FALSE(BehaviorFromInternal("{}").has_value());
  EXPECT_FALSE(BehaviorFromInternal(R"({"ScaleUp":null})").has_value());
  EXPECT_FALSE(BehaviorFromInternal(R"({"ScaleUp":{"Policies":"all"}})").has_value());
  EXPECT_EQ(*BehaviorFromInternal(R"({"scaleup":{"selectPolicy":"Min"}})"),
            json::parse(R"({"scaleUp":{"selectPolicy":"Min"}})"));
}

}  // namespace
}  // namespace kube::apiserver::rest
