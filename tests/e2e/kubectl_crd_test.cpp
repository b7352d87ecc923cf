// kubectl 1.32 with CustomResourceDefinitions against the embedded API server (TLS + token):
// apply -f of a CRD, wait --for=condition=established, apply and get of custom resources with
// printer columns (and -o wide), scale of a CR through /scale, a 422 from schema validation, and
// delete crd removing its custom resources and the resource type. Skipped without kubectl.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "e2e_util.hpp"

namespace kube::apiserver::e2e {
namespace {

constexpr const char* kCrdYaml = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    shortNames: [wd]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
    additionalPrinterColumns:
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Color
      type: string
      jsonPath: .spec.color
      priority: 1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer, minimum: 0}
              color: {type: string}
          status:
            type: object
            properties:
              replicas: {type: integer}
)";

std::string WidgetYaml(const std::string& name, int replicas, const std::string& color) {
  return "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: " + name + "\n  namespace: default\n" +
         "spec:\n  replicas: " + std::to_string(replicas) + "\n  color: " + color + "\n";
}

class KubectlCrdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HaveKubectl()) GTEST_SKIP() << "kubectl not installed";
    server_ = std::make_unique<TestServer>("kubectl-crd");
    ASSERT_EQ(server_->error(), "");
  }
  void TearDown() override { server_.reset(); }

  CommandResult Kubectl(const std::string& args) { return server_->Kubectl(args); }
  std::string Ok(const std::string& args) {
    const CommandResult r = Kubectl(args);
    EXPECT_EQ(r.exit_code, 0) << "kubectl " << args << "\n" << r.output;
    return r.output;
  }
  std::string File(const std::string& name, const std::string& yaml) { return server_->WriteFile(name, yaml); }
  void InstallCrd() {
    EXPECT_EQ(Ok("apply -f " + File("crd.yaml", kCrdYaml)),
              "customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\n");
    EXPECT_EQ(Ok("wait --for=condition=established --timeout=30s crd/widgets.example.com"),
              "customresourcedefinition.apiextensions.k8s.io/widgets.example.com condition met\n");
  }

  std::unique_ptr<TestServer> server_;
};

TEST_F(KubectlCrdTest, ApplyWaitGetWithPrinterColumns) {
  InstallCrd();
  EXPECT_EQ(Ok("apply -f " + File("w1.yaml", WidgetYaml("w1", 2, "red"))), "widget.example.com/w1 created\n");
  EXPECT_EQ(Ok("apply -f " + File("w2.yaml", WidgetYaml("w2", 5, "blue"))), "widget.example.com/w2 created\n");

  std::vector<Fields> lines = Lines(Ok("get widgets"));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], (Fields{"NAME", "REPLICAS"}));
  ASSERT_NE(Row(lines, "w1"), nullptr);
  EXPECT_EQ(*Row(lines, "w1"), (Fields{"w1", "2"}));
  lines = Lines(Ok("get wd -o wide"));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], (Fields{"NAME", "REPLICAS", "COLOR"}));
  ASSERT_NE(Row(lines, "w2"), nullptr);
  EXPECT_EQ(*Row(lines, "w2"), (Fields{"w2", "5", "blue"}));

  // The CRD itself: kube's default table (NAME, CREATED AT), short name crd.
  lines = Lines(Ok("get crd"));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], (Fields{"NAME", "CREATED", "AT"}));
  EXPECT_EQ(lines[1][0], "widgets.example.com");

  // api-resources shows the new type.
  const std::string resources = Ok("api-resources --api-group=example.com");
  EXPECT_NE(resources.find("widgets"), std::string::npos) << resources;
  EXPECT_NE(resources.find("Widget"), std::string::npos) << resources;

  // Re-applying a change (client-side apply: a merge patch for custom resources).
  EXPECT_EQ(Ok("apply -f " + File("w1b.yaml", WidgetYaml("w1", 3, "red"))), "widget.example.com/w1 configured\n");
  EXPECT_EQ(Ok("get widget w1 -o jsonpath={.spec.replicas}/{.metadata.generation}"), "3/2");

  // Schema validation.
  const CommandResult bad = Kubectl("apply -f " + File("bad.yaml", WidgetYaml("bad", -1, "red")));
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0"), std::string::npos)
      << bad.output;
}

TEST_F(KubectlCrdTest, ScaleACustomResource) {
  InstallCrd();
  Ok("apply -f " + File("w1.yaml", WidgetYaml("w1", 1, "red")));
  EXPECT_EQ(Ok("scale widget w1 --replicas=4"), "widget.example.com/w1 scaled\n");
  EXPECT_EQ(Ok("get widget w1 -o jsonpath={.spec.replicas}"), "4");
  const std::string scale = Ok("get --raw /apis/example.com/v1/namespaces/default/widgets/w1/scale");
  EXPECT_NE(scale.find(R"("kind":"Scale","apiVersion":"autoscaling/v1")"), std::string::npos) << scale;
  EXPECT_NE(scale.find(R"("spec":{"replicas":4})"), std::string::npos) << scale;
  // A precondition on the current replicas.
  const CommandResult stale = Kubectl("scale widget w1 --current-replicas=1 --replicas=2");
  EXPECT_NE(stale.exit_code, 0) << stale.output;
  EXPECT_EQ(Ok("get widget w1 -o jsonpath={.spec.replicas}"), "4");
}

TEST_F(KubectlCrdTest, DeleteCrdRemovesCustomResources) {
  InstallCrd();
  Ok("apply -f " + File("w1.yaml", WidgetYaml("w1", 1, "red")));
  Ok("apply -f " + File("w2.yaml", WidgetYaml("w2", 1, "red")));
  EXPECT_EQ(Ok("delete crd widgets.example.com"),
            "customresourcedefinition.apiextensions.k8s.io \"widgets.example.com\" deleted\n");
  const CommandResult gone = Kubectl("get crd widgets.example.com");
  EXPECT_NE(gone.exit_code, 0);
  EXPECT_NE(gone.output.find("NotFound"), std::string::npos) << gone.output;
  const CommandResult type_gone = Kubectl("get widgets");
  EXPECT_NE(type_gone.exit_code, 0);
  // With its discovery cache, kubectl still maps the name and the server answers 404; without
  // one, the type is unknown.
  EXPECT_TRUE(type_gone.output.find("the server could not find the requested resource") != std::string::npos ||
              type_gone.output.find("the server doesn't have a resource type \"widgets\"") != std::string::npos)
      << type_gone.output;
  const CommandResult raw = Kubectl("get --raw /apis/example.com/v1");
  EXPECT_NE(raw.exit_code, 0);
  EXPECT_NE(raw.output.find("NotFound"), std::string::npos) << raw.output;
  // Installing it again starts empty.
  InstallCrd();
  EXPECT_EQ(Ok("get widgets -A -o name"), "");
}

}  // namespace
}  // namespace kube::apiserver::e2e
