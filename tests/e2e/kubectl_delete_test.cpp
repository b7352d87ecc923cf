// kubectl 1.32 deletion against the embedded API server: `delete --cascade=background|foreground|
// orphan` with owner references (the built-in garbage collector does the cascading), `wait
// --for=delete`, a namespace deletion that completes, and `kubectl scale` of a Deployment.
// Skipped without kubectl.
#include <string>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "e2e_util.hpp"

namespace kube::apiserver::e2e {
namespace {

class KubectlDeleteTest : public KubectlSuite<KubectlDeleteTest> {
 public:
  static constexpr const char* kTag = "kubectl-delete";

 protected:
  static std::string Uid(const std::string& what) { return Ok("get " + what + " -o jsonpath={.metadata.uid}"); }
  // A ConfigMap owned by ConfigMap `owner` (uid `uid`) with blockOwnerDeletion.
  static void CreateDependent(const std::string& ns, const std::string& name, const std::string& owner,
                              const std::string& uid) {
    Ok("create -f " + File(name + ".yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name +
                                               "\n  namespace: " + ns +
                                               "\n  ownerReferences:\n  - apiVersion: v1\n    kind: ConfigMap\n    name: " +
                                               owner + "\n    uid: " + uid +
                                               "\n    controller: true\n    blockOwnerDeletion: true\n"));
  }
  static void CreateOwner(const std::string& ns, const std::string& name) {
    Ok("create -f " + File(name + ".yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name +
                                               "\n  namespace: " + ns + "\n"));
  }
};

TEST_F(KubectlDeleteTest, CascadeBackgroundCollectsDependents) {
  Namespace("del-bg");
  CreateOwner("del-bg", "owner");
  CreateDependent("del-bg", "dep", "owner", Uid("cm owner -n del-bg"));
  EXPECT_EQ(Ok("delete cm owner -n del-bg --cascade=background"), "configmap \"owner\" deleted\n");
  Ok("wait --for=delete cm/dep -n del-bg --timeout=20s");
  EXPECT_NE(Kubectl("get cm dep -n del-bg").exit_code, 0);
}

TEST_F(KubectlDeleteTest, CascadeForegroundDeletesDependentsFirstAndWaits) {
  Namespace("del-fg");
  CreateOwner("del-fg", "owner");
  CreateDependent("del-fg", "dep", "owner", Uid("cm owner -n del-fg"));
  // kubectl delete waits (--wait defaults to true) until the owner is gone, which needs the
  // dependent gone first.
  EXPECT_EQ(Ok("delete cm owner -n del-fg --cascade=foreground --timeout=20s"), "configmap \"owner\" deleted\n");
  EXPECT_NE(Kubectl("get cm owner -n del-fg").exit_code, 0);
  EXPECT_NE(Kubectl("get cm dep -n del-fg").exit_code, 0);
}

TEST_F(KubectlDeleteTest, CascadeOrphanKeepsDependents) {
  Namespace("del-orphan");
  CreateOwner("del-orphan", "owner");
  CreateDependent("del-orphan", "dep", "owner", Uid("cm owner -n del-orphan"));
  EXPECT_EQ(Ok("delete cm owner -n del-orphan --cascade=orphan --timeout=20s"), "configmap \"owner\" deleted\n");
  EXPECT_NE(Kubectl("get cm owner -n del-orphan").exit_code, 0);
  EXPECT_EQ(Ok("get cm dep -n del-orphan -o jsonpath={.metadata.name}/{.metadata.ownerReferences}"), "dep/");
}

TEST_F(KubectlDeleteTest, WaitForDeleteReturnsWhenAFinalizerIsReleased) {
  Namespace("del-wait");
  Ok("create -f " + File("held.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  namespace: del-wait\n"
                                      "  finalizers: [example.com/hold]\n"));
  EXPECT_EQ(Ok("delete cm held -n del-wait --wait=false"), "configmap \"held\" deleted\n");
  const CommandResult early = Kubectl("wait --for=delete cm/held -n del-wait --timeout=1s");
  EXPECT_NE(early.exit_code, 0) << "still held: " << early.output;
  Ok(R"(patch cm held -n del-wait --type=merge -p '{"metadata":{"finalizers":null}}')");
  Ok("wait --for=delete cm/held -n del-wait --timeout=20s");
}

TEST_F(KubectlDeleteTest, NamespaceDeletionCompletes) {
  Namespace("del-ns");
  CreateOwner("del-ns", "a");
  CreateOwner("del-ns", "b");
  EXPECT_EQ(Ok("delete namespace del-ns --timeout=30s"), "namespace \"del-ns\" deleted\n");
  EXPECT_NE(Kubectl("get namespace del-ns").exit_code, 0);
  const CommandResult forbidden = Kubectl("delete namespace kube-system");
  EXPECT_NE(forbidden.exit_code, 0);
  EXPECT_NE(forbidden.output.find("this namespace may not be deleted"), std::string::npos) << forbidden.output;
}

TEST_F(KubectlDeleteTest, ScaleDeploymentThroughTheScaleSubresource) {
  Namespace("scale");
  Ok("create -f " + File("web.yaml", R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: scale
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: c
        image: nginx
)"));
  EXPECT_EQ(Ok("scale deployment web -n scale --replicas=5"), "deployment.apps/web scaled\n");
  EXPECT_EQ(Ok("get deployment web -n scale -o jsonpath={.spec.replicas}/{.metadata.generation}"), "5/2");
  const CommandResult wrong = Kubectl("scale deployment web -n scale --current-replicas=3 --replicas=1");
  EXPECT_NE(wrong.exit_code, 0);
  EXPECT_NE(wrong.output.find("Expected replicas to be 3, was 5"), std::string::npos) << wrong.output;
  const std::string scale = Ok("get --raw /apis/apps/v1/namespaces/scale/deployments/web/scale");
  EXPECT_NE(scale.find(R"("kind":"Scale","apiVersion":"autoscaling/v1")"), std::string::npos) << scale;
  EXPECT_NE(scale.find(R"("selector":"app=web")"), std::string::npos) << scale;
}

}  // namespace
}  // namespace kube::apiserver::e2e
