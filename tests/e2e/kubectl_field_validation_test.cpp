// kubectl 1.32's field validation against the embedded API server: kubectl sends
// fieldValidation=Strict by default (--validate=strict), Warn with --validate=warn and Ignore with
// --validate=false; unknown fields of built-in objects are dropped in every mode, and a
// server-side apply with one fails like kube's typed conversion. Skipped without kubectl.
#include <string>

#include <gtest/gtest.h>

#include "e2e_util.hpp"

namespace kube::apiserver::e2e {
namespace {

class KubectlFieldValidationTest : public KubectlSuite<KubectlFieldValidationTest> {
 public:
  static constexpr const char* kTag = "kubectl-field-validation";

 protected:
  // A Deployment with a typo (`replica`) and an unknown container field.
  static std::string Deployment(const std::string& name) {
    return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name +
           "\n  namespace: default\nspec:\n  replica: 2\n  selector:\n    matchLabels: {app: " + name +
           "}\n  template:\n    metadata:\n      labels: {app: " + name +
           "}\n    spec:\n      containers:\n      - name: c\n        image: nginx\n        imagePolicy: Always\n";
  }
};

TEST_F(KubectlFieldValidationTest, StrictByDefaultWarnAndIgnore) {
  const CommandResult strict = Kubectl("apply -f " + File("fv1.yaml", Deployment("fv-strict")));
  EXPECT_NE(strict.exit_code, 0);
  EXPECT_NE(strict.output.find(R"(Error from server (BadRequest): error when creating ")"), std::string::npos)
      << strict.output;
  EXPECT_NE(strict.output.find(R"(Deployment in version "v1" cannot be handled as a Deployment: strict decoding )"
                               R"(error: unknown field "spec.replica", unknown field )"
                               R"("spec.template.spec.containers[0].imagePolicy")"),
            std::string::npos)
      << strict.output;
  EXPECT_NE(Kubectl("get deploy fv-strict").exit_code, 0) << "nothing created";

  const CommandResult warn = Kubectl("apply --validate=warn -f " + File("fv2.yaml", Deployment("fv-warn")));
  EXPECT_EQ(warn.exit_code, 0) << warn.output;
  EXPECT_NE(warn.output.find(R"(Warning: unknown field "spec.replica")"), std::string::npos) << warn.output;
  EXPECT_NE(warn.output.find(R"(Warning: unknown field "spec.template.spec.containers[0].imagePolicy")"),
            std::string::npos)
      << warn.output;
  EXPECT_EQ(JsonPath("deploy fv-warn", "{.spec.replicas}|{.spec.template.spec.containers[0].name}"), "1|c");
  EXPECT_EQ(JsonPath("deploy fv-warn", "{.spec.replica}{.spec.template.spec.containers[0].imagePolicy}"), "");

  const CommandResult ignore = Kubectl("apply --validate=false -f " + File("fv3.yaml", Deployment("fv-ignore")));
  EXPECT_EQ(ignore.exit_code, 0) << ignore.output;
  EXPECT_EQ(ignore.output.find("Warning"), std::string::npos) << ignore.output;
  EXPECT_EQ(JsonPath("deploy fv-ignore", "{.spec.replica}"), "");
}

TEST_F(KubectlFieldValidationTest, ServerSideApplyRejectsUndeclaredFields) {
  const CommandResult ssa = Kubectl("apply --server-side -f " + File("fv4.yaml", Deployment("fv-ssa")));
  EXPECT_NE(ssa.exit_code, 0);
  EXPECT_NE(ssa.output.find("failed to create typed patch object (default/fv-ssa; apps/v1, Kind=Deployment): "),
            std::string::npos)
      << ssa.output;
  EXPECT_NE(ssa.output.find(".spec.replica: field not declared in schema"), std::string::npos) << ssa.output;
  EXPECT_NE(ssa.output.find(R"(.spec.template.spec.containers[name="c"].imagePolicy: field not declared in schema)"),
            std::string::npos)
      << ssa.output;
}

}  // namespace
}  // namespace kube::apiserver::e2e
