// kubectl 1.32 against the embedded API server where kubectl sends strategic merge patches:
// client-side `apply` (a three-way patch with $setElementOrder and $patch: delete), `edit` with a
// scripted editor, `patch --type strategic`, and an event recorder style Event patch.
// Skipped without kubectl.
#include <sys/stat.h>

#include <string>

#include <gtest/gtest.h>

#include "e2e_util.hpp"

namespace kube::apiserver::e2e {
namespace {

class KubectlSmpTest : public KubectlSuite<KubectlSmpTest> {
 public:
  static constexpr const char* kTag = "kubectl-smp";

 protected:
  // A Deployment manifest with the given container list (YAML, indented for spec.template.spec).
  static std::string Deployment(const std::string& name, const std::string& containers) {
    return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name +
           "\n  namespace: default\nspec:\n  selector:\n    matchLabels:\n      app: " + name +
           "\n  template:\n    metadata:\n      labels:\n        app: " + name + "\n    spec:\n      containers:\n" +
           containers;
  }
};

TEST_F(KubectlSmpTest, ClientSideApplyAddsAContainerChangesEnvAndRemovesAPort) {
  const std::string v1 = Deployment("web", R"(      - name: app
        image: app:1
        env:
        - name: A
          value: "1"
        - name: B
          value: "2"
        ports:
        - containerPort: 80
        - containerPort: 443
)");
  EXPECT_EQ(Ok("apply -f " + File("web1.yaml", v1)), "deployment.apps/web created\n");
  const std::string v2 = Deployment("web", R"(      - name: app
        image: app:1
        env:
        - name: A
          value: "1"
        - name: B
          value: "3"
        ports:
        - containerPort: 80
      - name: side
        image: side:1
)");
  EXPECT_EQ(Ok("apply -f " + File("web2.yaml", v2)), "deployment.apps/web configured\n");
  EXPECT_EQ(JsonPath("deploy web", "{.spec.template.spec.containers[*].name}"), "app side");
  EXPECT_EQ(JsonPath("deploy web", "{.spec.template.spec.containers[0].env[*].value}"), "1 3");
  EXPECT_EQ(JsonPath("deploy web", "{.spec.template.spec.containers[0].ports[*].containerPort}"), "80");
  EXPECT_EQ(JsonPath("deploy web", "{.metadata.generation}"), "2");
  // Re-applying the same file is a no-op for the server.
  const std::string rv = JsonPath("deploy web", "{.metadata.resourceVersion}");
  EXPECT_EQ(Ok("apply -f " + File("web2.yaml", v2)), "deployment.apps/web unchanged\n");
  EXPECT_EQ(JsonPath("deploy web", "{.metadata.resourceVersion}"), rv);
}

TEST_F(KubectlSmpTest, EditWithAScriptedEditor) {
  Ok("apply -f " + File("ed.yaml", Deployment("ed", "      - name: app\n        image: app:1\n      - name: log\n        image: log:1\n")));
  const std::string editor = File("editor.sh", "#!/bin/sh\nsed -i 's/image: log:1/image: log:2/' \"$1\"\n");
  ASSERT_EQ(::chmod(editor.c_str(), 0755), 0);
  const CommandResult r = RunCommand("KUBE_EDITOR=" + editor + " " + server_->KubectlPrefix() + "edit deploy ed");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("deployment.apps/ed edited"), std::string::npos) << r.output;
  EXPECT_EQ(JsonPath("deploy ed", "{.spec.template.spec.containers[*].image}"), "app:1 log:2");
}

TEST_F(KubectlSmpTest, PatchTypeStrategicWithPatchDelete) {
  Ok("apply -f " + File("pd.yaml", Deployment("pd", "      - name: app\n        image: app:1\n      - name: log\n        image: log:1\n")));
  EXPECT_EQ(Ok(R"(patch deploy pd --type strategic -p '{"spec":{"template":{"spec":{"containers":[{"name":"log","$patch":"delete"}]}}}}')"),
            "deployment.apps/pd patched\n");
  EXPECT_EQ(JsonPath("deploy pd", "{.spec.template.spec.containers[*].name}"), "app");
  // The default --type for kubectl patch is strategic: a container added by name goes first.
  Ok(R"(patch deploy pd -p '{"spec":{"template":{"spec":{"containers":[{"name":"new","image":"new:1"}]}}}}')");
  EXPECT_EQ(JsonPath("deploy pd", "{.spec.template.spec.containers[*].name}"), "new app");
}

TEST_F(KubectlSmpTest, EventRecorderStylePatchOfAnEvent) {
  const std::string ev = R"(apiVersion: v1
kind: Event
metadata:
  name: pd.1
  namespace: default
involvedObject:
  kind: Deployment
  name: pd
  namespace: default
reason: Scaled
message: scaled
type: Normal
source:
  component: test
count: 1
firstTimestamp: "2025-01-01T00:00:00Z"
lastTimestamp: "2025-01-01T00:00:00Z"
)";
  Ok("create -f " + File("ev.yaml", ev));
  Ok(R"(patch event pd.1 --type strategic -p '{"count":2,"lastTimestamp":"2025-01-01T00:05:00Z","message":"scaled again"}')");
  EXPECT_EQ(JsonPath("event pd.1", "{.count} {.lastTimestamp} {.firstTimestamp} {.message}"),
            "2 2025-01-01T00:05:00Z 2025-01-01T00:00:00Z scaled again");
}

}  // namespace
}  // namespace kube::apiserver::e2e
