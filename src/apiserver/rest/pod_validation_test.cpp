#include "apiserver/rest/pod_validation.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kube::apiserver::rest {
namespace {

std::vector<std::string> PodErrors(std::string_view spec) {
  std::vector<FieldError> errs;
  ValidatePodSpec(boost::json::parse(spec).as_object(), "spec", errs);
  std::vector<std::string> out;
  for (const auto& e : errs) out.push_back(e.String());
  return out;
}

TEST(PodValidation, AValidSpecHasNoErrorsAndEachRuleNamesItsFieldAsKubeDoes) {
  EXPECT_EQ(PodErrors(R"({"containers":[{"name":"c","image":"i"}],"restartPolicy":"Always","dnsPolicy":"ClusterFirst"})"),
            std::vector<std::string>{});
  EXPECT_EQ(PodErrors(R"({"containers":[{"name":"a","image":"i"},{"name":"a","image":"i"}],"restartPolicy":"Always",
                          "dnsPolicy":"ClusterFirst"})"),
            std::vector<std::string>{"spec.containers[1].name: Duplicate value: \"a\""});
  EXPECT_EQ(PodErrors(R"({"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"2"},"limits":{"cpu":"1"}}}],
                          "restartPolicy":"Always","dnsPolicy":"ClusterFirst"})"),
            std::vector<std::string>{"spec.containers[0].resources.requests: Invalid value: \"2\": must be less than or "
                                     "equal to cpu limit of 1"});
  EXPECT_EQ(PodErrors(R"({"containers":[{"name":"c","image":"i","volumeMounts":[{"name":"v","mountPath":"/v"}]}],
                          "restartPolicy":"Sometimes","dnsPolicy":"ClusterFirst"})"),
            (std::vector<std::string>{"spec.containers[0].volumeMounts[0].name: Not found: \"v\"",
                                      "spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: "
                                      "\"Always\", \"OnFailure\", \"Never\""}));
}

TEST(ServiceValidation, PortsNodePortsAndClusterIpsAreChecked) {
  std::vector<FieldError> errs;
  ValidateServiceSpec(boost::json::parse(R"({"spec":{"type":"ClusterIP","ports":[{"port":80,"protocol":"TCP","nodePort":30080}],
                                           "clusterIPs":["abc"]}})").as_object(),
                      nullptr, errs);
  ASSERT_EQ(errs.size(), 2U);
  EXPECT_EQ(errs[0].String(), "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'");
  EXPECT_EQ(errs[1].String(), "spec.clusterIPs[0]: Invalid value: \"abc\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
  // A headless service may have no ports; an update may not move the cluster IP.
  errs.clear();
  const auto old = boost::json::parse(R"({"spec":{"clusterIP":"None","clusterIPs":["None"]}})").as_object();
  ValidateServiceSpec(boost::json::parse(R"({"spec":{"type":"ClusterIP","clusterIP":"10.96.0.9","clusterIPs":["10.96.0.9"]}})")
                          .as_object(),
                      &old, errs);
  ASSERT_EQ(errs.size(), 2U);  // no ports now that it is not headless, and the IP changed
  EXPECT_EQ(errs[1].String(), "spec.clusterIPs[0]: Invalid value: []string{\"10.96.0.9\"}: may not change once set");
}

}  // namespace
}  // namespace kube::apiserver::rest
