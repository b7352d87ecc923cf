#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <kube/core/time.hpp>
#include <string>
#include <string_view>

#include "apiserver/discovery/internal/table_printers.hpp"

namespace kube::apiserver::internal {
namespace {
namespace bj = boost::json;

// The cells of one row, as JSON (parsed: the writer escapes as Go does).
bj::value Row(std::string_view group, std::string_view resource, std::string_view obj) {
  const BuiltinPrinter* printer = FindBuiltinPrinter(group, resource);
  EXPECT_NE(printer, nullptr);
  std::string cells;
  std::string conditions;
  CellWriter writer(cells);
  printer->row(bj::parse(obj).as_object(), *ParseTime("2026-01-01T00:01:00Z"), writer, conditions);
  return bj::parse("[" + cells + "]");
}

TEST(HpaCsrPrinters, HorizontalPodAutoscalerColumns) {
  const BuiltinPrinter* printer = FindBuiltinPrinter("autoscaling", "horizontalpodautoscalers");
  ASSERT_NE(printer, nullptr);
  std::string names;
  for (const auto& c : printer->columns) names += std::string(c.name) + ",";
  EXPECT_EQ(names, "Name,Reference,Targets,MinPods,MaxPods,Replicas,Age,");
}

TEST(HpaCsrPrinters, HorizontalPodAutoscalerTargetsAsFormatHpaMetrics) {
  EXPECT_EQ(Row("autoscaling", "horizontalpodautoscalers", R"({"apiVersion":"autoscaling/v2",
      "metadata":{"name":"a","creationTimestamp":"2026-01-01T00:00:00Z"},
      "spec":{"scaleTargetRef":{"kind":"Deployment","name":"d"},"minReplicas":1,"maxReplicas":3,"metrics":[
        {"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"100Mi"}}},
        {"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}},
        {"type":"Pods","pods":{"metric":{"name":"qps"},"target":{"type":"AverageValue","averageValue":"10"}}}]},
      "status":{"currentReplicas":2,"currentMetrics":[
        {"type":"Resource","resource":{"name":"memory","current":{"averageValue":"50Mi"}}},
        {"type":"Resource","resource":{"name":"cpu","current":{"averageUtilization":40}}}]}})"),
            bj::parse(R"(["a","Deployment/d","memory: 50Mi/100Mi, cpu: 40%/50% + 1 more...","1",3,2,"60s"])"));
  EXPECT_EQ(Row("autoscaling", "horizontalpodautoscalers", R"({"apiVersion":"autoscaling/v2","metadata":{"name":"b"},
      "spec":{"scaleTargetRef":{"kind":"StatefulSet","name":"s"},"maxReplicas":2,"metrics":[
        {"type":"External","external":{"metric":{"name":"q"},"target":{"type":"AverageValue","averageValue":"30"}}},
        {"type":"Object","object":{"metric":{"name":"r"},"target":{"type":"Value","value":"2k"}}}]},
      "status":{"currentMetrics":[{"type":"External","external":{"metric":{"name":"q"},"current":{"averageValue":"3"}}},
        {"type":"Object","object":{"metric":{"name":"r"},"current":{}}}]}})"),
            bj::parse(R"(["b","StatefulSet/s","3/30 (avg), <nil>/2k","<unset>",2,0,"<unknown>"])"));
}

TEST(HpaCsrPrinters, AnAutoscalingV1ObjectIsPrintedInItsV2Form) {
  EXPECT_EQ(Row("autoscaling", "horizontalpodautoscalers", R"({"apiVersion":"autoscaling/v1","metadata":{"name":"c",
      "annotations":{"autoscaling.alpha.kubernetes.io/metrics":"[{\"type\":\"External\",\"external\":{\"metricName\":\"q\",\"targetValue\":\"5\"}}]"}},
      "spec":{"scaleTargetRef":{"kind":"Deployment","name":"d"},"minReplicas":1,"maxReplicas":3}})"),
            bj::parse(R"(["c","Deployment/d","<unknown>/5","1",3,0,"<unknown>"])"));
}

TEST(HpaCsrPrinters, CertificateSigningRequestRowsAsPrintCertificateSigningRequest) {
  EXPECT_EQ(Row("certificates.k8s.io", "certificatesigningrequests", R"({"metadata":{"name":"a",
      "creationTimestamp":"2026-01-01T00:00:00Z"},"spec":{"signerName":"example.com/s","username":"u","expirationSeconds":600},
      "status":{"conditions":[{"type":"Approved"},{"type":"Failed"}],"certificate":"YWJj"}})"),
            bj::parse(R"(["a","60s","example.com/s","u","10m","Approved,Failed,Issued"])"));
  EXPECT_EQ(Row("certificates.k8s.io", "certificatesigningrequests", R"({"metadata":{"name":"b"},"spec":{},
      "status":{"conditions":[{"type":"Approved"},{"type":"Denied"}]}})"),
            bj::parse(R"(["b","<unknown>","<none>","","<none>","Denied"])"));
  EXPECT_EQ(
      Row("certificates.k8s.io", "certificatesigningrequests", R"({"metadata":{"name":"c"},"spec":{},"status":{}})"),
      bj::parse(R"(["c","<unknown>","<none>","","<none>","Pending"])"));
}

}  // namespace
}  // namespace kube::apiserver::internal
