// Pods as kube's pod registry serves them: binding (pods/NAME/binding and the bindings
// collection), eviction, and the narrow set of spec fields an update may change.

#include "fixture.hpp"

namespace kube::apiserver::testing {
namespace {

constexpr std::string_view kPods = "/api/v1/namespaces/default/pods";
constexpr std::string_view kPod =
    R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"nginx:1.27"}]}})";
constexpr std::string_view kBinding =
    R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"p","annotations":{"a":"b"}},"target":{"kind":"Node","name":"node-1"}})";
constexpr std::string_view kCreated = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201})";

class PodTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    auto res = client().Post(std::string(kPods), kPod);
    ASSERT_EQ(res.status, 201) << res.body;
  }
};

TEST_F(PodTest, BindingSetsTheNodeTheAnnotationsAndThePodScheduledCondition) {
  auto bound = client().Post(std::string(kPods) + "/p/binding", kBinding);
  ASSERT_EQ(bound.status, 201) << bound.body;
  EXPECT_EQ(bound.body, kCreated);
  auto pod = client().Get(std::string(kPods) + "/p").Json();
  EXPECT_EQ(Str(pod, {"spec", "nodeName"}), "node-1");
  EXPECT_EQ(Str(pod, {"metadata", "annotations", "a"}), "b");
  const auto& cond = pod.at("status").at("conditions").at(0);
  EXPECT_EQ(Str(cond, {"type"}), "PodScheduled");
  EXPECT_EQ(Str(cond, {"status"}), "True");
  EXPECT_TRUE(cond.as_object().contains("lastTransitionTime"));

  // A second binding is a conflict naming the node; the pod keeps its first.
  auto again = client().Post(std::string(kPods) + "/p/binding",
                             R"({"metadata":{"name":"p"},"target":{"kind":"Node","name":"node-2"}})");
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(Str(again.Json(), {"message"}),
            "Operation cannot be fulfilled on pods/binding \"p\": pod p is already assigned to node \"node-1\"");
  EXPECT_EQ(Str(client().Get(std::string(kPods) + "/p").Json(), {"spec", "nodeName"}), "node-1");
}

TEST_F(PodTest, BindingsCollectionBindsThePodItNames) {
  auto bound = client().Post("/api/v1/namespaces/default/bindings", kBinding);
  ASSERT_EQ(bound.status, 201) << bound.body;
  EXPECT_EQ(Str(client().Get(std::string(kPods) + "/p").Json(), {"spec", "nodeName"}), "node-1");
  EXPECT_EQ(client().Get("/api/v1/namespaces/default/bindings").status, 405);
}

TEST_F(PodTest, BadBindingsGetKubesAnswers) {
  auto mismatch = client().Post(std::string(kPods) + "/p/binding", R"({"metadata":{"name":"q"},"target":{"name":"n"}})");
  EXPECT_EQ(mismatch.status, 400);
  EXPECT_EQ(Str(mismatch.Json(), {"message"}), "name in URL does not match name in Binding object");
  // ValidatePodBinding's errors come back as kube returns them: a 500 without a reason.
  auto kind = client().Post(std::string(kPods) + "/p/binding", R"({"metadata":{"name":"p"},"target":{"kind":"Pod","name":"n"}})");
  EXPECT_EQ(kind.status, 500);
  EXPECT_EQ(kind.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"target.kind: Unsupported value: \"Pod\": supported values: \"Node\", \"\u003cempty\u003e\"","code":500})");
  auto no_name = client().Post(std::string(kPods) + "/p/binding", R"({"metadata":{"name":"p"},"target":{"kind":"Node"}})");
  EXPECT_EQ(no_name.status, 500);
  EXPECT_EQ(Str(no_name.Json(), {"message"}), "target.name: Required value");
  auto missing = client().Post(std::string(kPods) + "/q/binding", R"({"metadata":{"name":"q"},"target":{"name":"n"}})");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(Str(missing.Json(), {"message"}), "pods \"q\" not found");
  EXPECT_EQ(client().Get(std::string(kPods) + "/p/binding").status, 405);
  // Dry run binds nothing.
  auto dry = client().Post(std::string(kPods) + "/p/binding?dryRun=All", kBinding);
  EXPECT_EQ(dry.status, 201) << dry.body;
  EXPECT_EQ(Str(client().Get(std::string(kPods) + "/p").Json(), {"spec", "nodeName"}), "");
}

TEST_F(PodTest, EvictionDeletesThePod) {
  auto bad = client().Post(std::string(kPods) + "/p/eviction",
                           R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"q"}})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(Str(bad.Json(), {"message"}), "name in URL does not match name in Eviction object");
  auto evicted = client().Post(std::string(kPods) + "/p/eviction",
                               R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"}})");
  ASSERT_EQ(evicted.status, 201) << evicted.body;
  EXPECT_EQ(evicted.body, kCreated);
  EXPECT_EQ(client().Get(std::string(kPods) + "/p").status, 404);
  auto gone = client().Post(std::string(kPods) + "/p/eviction",
                            R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"}})");
  EXPECT_EQ(gone.status, 404);
}

TEST_F(PodTest, UpdatesMayChangeOnlyImagesDeadlinesAndAddedTolerations) {
  const std::string path = std::string(kPods) + "/p";
  auto image = client().Patch(path, R"({"spec":{"containers":[{"name":"c","image":"nginx:1.28"}],"activeDeadlineSeconds":30,
      "tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule"}]}})",
                              "application/strategic-merge-patch+json");
  ASSERT_EQ(image.status, 200) << image.body;
  auto node = client().Patch(path, R"({"spec":{"nodeName":"n1"}})", "application/merge-patch+json");
  EXPECT_EQ(node.status, 422);
  const std::string message = Str(node.Json(), {"message"});
  EXPECT_EQ(message.rfind("Pod \"p\" is invalid: spec: Forbidden: pod updates may not change fields other than "
                          "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
                          "`spec.tolerations` (only additions to existing tolerations),"
                          "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n"
                          "  core.PodSpec{\n",
                          0),
            0U)
      << message;
  EXPECT_NE(message.find("+ \tNodeName: \"n1\""), std::string::npos) << message;
  auto added = client().Patch(path, R"({"spec":{"containers":[{"name":"c","image":"x"},{"name":"d","image":"y"}]}})",
                              "application/merge-patch+json");
  EXPECT_EQ(added.status, 422);
  EXPECT_EQ(Str(added.Json(), {"message"}),
            "Pod \"p\" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers");
  // Removing a toleration is not an addition.
  auto removed = client().Patch(path, R"({"spec":{"tolerations":null}})", "application/merge-patch+json");
  EXPECT_EQ(removed.status, 422);
  // The status subresource is not bound by the spec rule.
  auto status = client().Patch(path + "/status", R"({"status":{"phase":"Running"}})", "application/merge-patch+json");
  EXPECT_EQ(status.status, 200) << status.body;
}

TEST_F(PodTest, ImmutableConfigMapsAndSecretsKeepTheirData) {
  const std::string cms = "/api/v1/namespaces/default/configmaps";
  ASSERT_EQ(client().Post(cms, R"({"metadata":{"name":"i"},"data":{"k":"v"},"immutable":true})").status, 201);
  auto data = client().Patch(cms + "/i", R"({"data":{"k":"w"}})", "application/merge-patch+json");
  EXPECT_EQ(data.status, 422);
  EXPECT_EQ(Str(data.Json(), {"message"}),
            "ConfigMap \"i\" is invalid: data: Forbidden: field is immutable when `immutable` is set");
  auto unset = client().Patch(cms + "/i", R"({"immutable":false})", "application/merge-patch+json");
  EXPECT_EQ(Str(unset.Json(), {"message"}),
            "ConfigMap \"i\" is invalid: immutable: Forbidden: field is immutable when `immutable` is set");
  EXPECT_EQ(client().Patch(cms + "/i", R"({"metadata":{"labels":{"a":"b"}}})", "application/merge-patch+json").status, 200);
  const std::string secrets = "/api/v1/namespaces/default/secrets";
  ASSERT_EQ(client().Post(secrets, R"({"metadata":{"name":"s"},"data":{"k":"dg=="}})").status, 201);
  auto type = client().Patch(secrets + "/s", R"({"type":"example.com/other"})", "application/merge-patch+json");
  EXPECT_EQ(Str(type.Json(), {"message"}),
            "Secret \"s\" is invalid: type: Invalid value: \"example.com/other\": field is immutable");
  const std::string rbs = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings";
  ASSERT_EQ(client().Post(rbs, R"({"metadata":{"name":"rb"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"}})").status,
            201);
  auto ref = client().Patch(rbs + "/rb", R"({"roleRef":{"name":"other"}})", "application/merge-patch+json");
  EXPECT_EQ(Str(ref.Json(), {"message"}),
            "RoleBinding.rbac.authorization.k8s.io \"rb\" is invalid: roleRef: Invalid value: "
            "rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\", Kind:\"Role\", Name:\"other\"}: cannot change roleRef");
}

}  // namespace
}  // namespace kube::apiserver::testing
