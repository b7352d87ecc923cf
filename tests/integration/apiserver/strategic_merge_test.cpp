// Strategic merge patch (application/strategic-merge-patch+json) on the built-in kinds, with the
// merge keys and strategies of their schemas, kube's directives and error answers; custom
// resources answer 415.

#include <string>
#include <string_view>
#include <thread>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "fixture.hpp"

namespace kube::apiserver::testing {
namespace {

namespace json = boost::json;

constexpr std::string_view kSmp = "application/strategic-merge-patch+json";
constexpr std::string_view kDeploys = "/apis/apps/v1/namespaces/default/deployments";
constexpr std::string_view kCms = "/api/v1/namespaces/default/configmaps";

class StrategicMergeTest : public ApiServerTest {
 protected:
  json::value CreateDeployment() {
    auto res = client().Post(kDeploys, R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
      "spec":{"selector":{"matchLabels":{"app":"web"}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}},
      "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[
        {"name":"app","image":"app:1","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],
         "ports":[{"containerPort":80},{"containerPort":443}]},
        {"name":"log","image":"log:1"}]}}}})");
    EXPECT_EQ(res.status, 201) << res.body;
    return res.Json();
  }

  HttpResponse PatchDeployment(std::string_view body) {
    return client().Patch(std::string(kDeploys) + "/web", body, kSmp);
  }

  static const json::array& Containers(const json::value& deploy) {
    return deploy.at_pointer("/spec/template/spec/containers").as_array();
  }
  static std::string Names(const json::array& list, std::string_view key = "name") {
    std::string out;
    for (const auto& e : list) {
      if (!out.empty()) out += ",";
      out += Str(e, {key});
    }
    return out;
  }
};

TEST_F(StrategicMergeTest, ContainersAndEnvMergeByName) {
  CreateDeployment();
  auto res = PatchDeployment(R"({"spec":{"template":{"spec":{"containers":[
      {"name":"app","image":"app:2","env":[{"name":"B","value":"3"},{"name":"C","value":"4"}]}]}}}})");
  ASSERT_EQ(res.status, 200) << res.body;
  const auto obj = res.Json();
  const auto& containers = Containers(obj);
  ASSERT_EQ(Names(containers), "app,log");
  EXPECT_EQ(Str(containers[0], {"image"}), "app:2");
  EXPECT_EQ(Names(containers[0].at("env").as_array()), "A,B,C");
  EXPECT_EQ(Str(containers[0].at("env").as_array()[1], {"value"}), "3");
  // Untouched lists survive (a merge patch would have replaced the containers list).
  EXPECT_EQ(containers[0].at("ports").as_array().size(), 2U);
  EXPECT_EQ(Str(containers[1], {"image"}), "log:1");
  EXPECT_EQ(Str(obj, {"metadata", "generation"}), "2");
}

TEST_F(StrategicMergeTest, PatchDeleteRemovesOneContainerAndANewOneGoesFirst) {
  CreateDeployment();
  auto res = PatchDeployment(R"({"spec":{"template":{"spec":{"containers":[
      {"name":"log","$patch":"delete"},{"name":"side","image":"side:1"}]}}}})");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(Names(Containers(res.Json())), "side,app");
  // The stored object agrees and carries no directive keys.
  auto got = client().Get(std::string(kDeploys) + "/web");
  EXPECT_EQ(Names(Containers(got.Json())), "side,app");
  EXPECT_EQ(got.body.find("$patch"), std::string::npos);
}

TEST_F(StrategicMergeTest, SetElementOrderAndDeleteFromPrimitiveListAsKubectlSendsThem) {
  CreateDeployment();
  auto res = PatchDeployment(R"({"spec":{"template":{"spec":{
      "$setElementOrder/containers":[{"name":"log"},{"name":"app"},{"name":"new"}],
      "containers":[{"name":"new","image":"new:1","args":["a","b"]}]}}}})");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(Names(Containers(res.Json())), "log,app,new");
  auto args = PatchDeployment(R"({"spec":{"template":{"spec":{"containers":[
      {"name":"new","$deleteFromPrimitiveList/args":["a"]}]}}}})");
  ASSERT_EQ(args.status, 200) << args.body;
  EXPECT_EQ(Str(Containers(args.Json())[2], {"args"}), R"(["b"])");
}

TEST_F(StrategicMergeTest, RetainKeysReplacesTheDeploymentStrategy) {
  CreateDeployment();
  auto res = PatchDeployment(R"({"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}})");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(Str(res.Json(), {"spec", "strategy"}), R"({"type":"Recreate"})");
  // Without the directive the old rollingUpdate would survive and validation would refuse it.
  auto bad = PatchDeployment(R"({"spec":{"strategy":{"$retainKeys":["type"],"rollingUpdate":{"maxSurge":2}}}})");
  EXPECT_EQ(bad.status, 400) << bad.body;
  EXPECT_EQ(Str(bad.Json(), {"message"}), "invalid patch format of retainKeys");
}

TEST_F(StrategicMergeTest, FinalizersMergeAsASetAndDeleteFromPrimitiveList) {
  CreateConfigMap("default", "cm");
  const std::string path = std::string(kCms) + "/cm";
  auto add = client().Patch(path, R"({"metadata":{"finalizers":["example.com/a","example.com/b"]}})", kSmp);
  ASSERT_EQ(add.status, 200) << add.body;
  auto more = client().Patch(path, R"({"metadata":{"finalizers":["example.com/b","example.com/c"]}})", kSmp);
  ASSERT_EQ(more.status, 200) << more.body;
  EXPECT_EQ(Str(more.Json(), {"metadata", "finalizers"}), R"(["example.com/a","example.com/b","example.com/c"])");
  auto del = client().Patch(path, R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["example.com/a","example.com/c"]}})",
                            kSmp);
  ASSERT_EQ(del.status, 200) << del.body;
  EXPECT_EQ(Str(del.Json(), {"metadata", "finalizers"}), R"(["example.com/b"])");
  auto clear = client().Patch(path, R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["example.com/b"]}})", kSmp);
  ASSERT_EQ(clear.status, 200) << clear.body;
  EXPECT_FALSE(clear.Json().at("metadata").as_object().contains("finalizers")) << "empty lists are omitted";
}

TEST_F(StrategicMergeTest, OwnerReferencesMergeByUid) {
  // Real owners, so that the garbage collector keeps the dependent.
  const std::string u1 = Str(CreateConfigMap("default", "o1"), {"metadata", "uid"});
  const std::string u2 = Str(CreateConfigMap("default", "o2"), {"metadata", "uid"});
  CreateConfigMap("default", "cm");
  const std::string path = std::string(kCms) + "/cm";
  auto ref = [](const std::string& name, const std::string& uid, const std::string& extra = "") {
    return R"({"apiVersion":"v1","kind":"ConfigMap","name":")" + name + R"(","uid":")" + uid + "\"" + extra + "}";
  };
  auto first = client().Patch(path, R"({"metadata":{"ownerReferences":[)" + ref("o1", u1) + "]}}", kSmp);
  ASSERT_EQ(first.status, 200) << first.body;
  auto second = client().Patch(
      path, R"({"metadata":{"ownerReferences":[)" + ref("o2", u2) + "," + ref("o1", u1, R"(,"controller":true)") + "]}}",
      kSmp);
  ASSERT_EQ(second.status, 200) << second.body;
  const json::value second_obj = second.Json();
  const auto& refs = second_obj.at_pointer("/metadata/ownerReferences").as_array();
  ASSERT_EQ(refs.size(), 2U);
  EXPECT_EQ(Names(refs, "uid"), u2 + "," + u1);
  EXPECT_EQ(Str(refs[1], {"controller"}), "true");
  auto del = client().Patch(path, R"({"metadata":{"ownerReferences":[{"uid":")" + u2 + R"(","$patch":"delete"}]}})", kSmp);
  ASSERT_EQ(del.status, 200) << del.body;
  EXPECT_EQ(Names(del.Json().at_pointer("/metadata/ownerReferences").as_array(), "uid"), u1);
}

TEST_F(StrategicMergeTest, PodConditionsMergeByTypeOnStatus) {
  auto pod = client().Post("/api/v1/namespaces/default/pods", R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
      "spec":{"containers":[{"name":"c","image":"busybox"}]}})");
  ASSERT_EQ(pod.status, 201) << pod.body;
  const std::string status = "/api/v1/namespaces/default/pods/p/status";
  auto one = client().Patch(status, R"({"status":{"conditions":[{"type":"Ready","status":"False"},
      {"type":"PodScheduled","status":"True"}]}})", kSmp);
  ASSERT_EQ(one.status, 200) << one.body;
  auto two = client().Patch(status, R"({"status":{"conditions":[{"type":"Ready","status":"True","reason":"Up"}]}})", kSmp);
  ASSERT_EQ(two.status, 200) << two.body;
  const json::value two_obj = two.Json();
  const auto& conditions = two_obj.at_pointer("/status/conditions").as_array();
  EXPECT_EQ(Names(conditions, "type"), "Ready,PodScheduled");
  EXPECT_EQ(Str(conditions[0], {"status"}), "True");
  EXPECT_EQ(Str(conditions[0], {"reason"}), "Up");
  EXPECT_EQ(Str(conditions[1], {"status"}), "True");
}

TEST_F(StrategicMergeTest, EventRecorderPatchUpdatesCountAndLastTimestamp) {
  auto ev = client().Post("/api/v1/namespaces/default/events", R"({"apiVersion":"v1","kind":"Event",
      "metadata":{"name":"web.1"},"involvedObject":{"kind":"Pod","namespace":"default","name":"web"},
      "reason":"Pulled","message":"pulled","type":"Normal","source":{"component":"kubelet"},
      "count":1,"firstTimestamp":"2025-01-01T00:00:00Z","lastTimestamp":"2025-01-01T00:00:00Z"})");
  ASSERT_EQ(ev.status, 201) << ev.body;
  // client-go's recorder sends exactly this shape (tools/record/events_cache.go).
  auto res = client().Patch("/api/v1/namespaces/default/events/web.1",
                            R"({"count":2,"lastTimestamp":"2025-01-01T00:01:00Z","message":"pulled again"})", kSmp);
  ASSERT_EQ(res.status, 200) << res.body;
  const auto obj = res.Json();
  EXPECT_EQ(Str(obj, {"count"}), "2");
  EXPECT_EQ(Str(obj, {"lastTimestamp"}), "2025-01-01T00:01:00Z");
  EXPECT_EQ(Str(obj, {"firstTimestamp"}), "2025-01-01T00:00:00Z");
  EXPECT_EQ(Str(obj, {"message"}), "pulled again");
}

TEST_F(StrategicMergeTest, MalformedDirectivesAnswerKubesErrorsAndWriteNothing) {
  CreateDeployment();
  const std::string rv = Rv(client().Get(std::string(kDeploys) + "/web").Json());
  auto bogus = PatchDeployment(R"({"spec":{"selector":{"$patch":"bogus"}}})");
  EXPECT_EQ(bogus.status, 500) << bogus.body;
  EXPECT_EQ(Str(bogus.Json(), {"message"}), "unknown patch type: bogus in map: map[$patch:bogus]");
  EXPECT_EQ(Str(bogus.Json(), {"reason"}), "");
  auto no_key = PatchDeployment(R"({"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}})");
  EXPECT_EQ(no_key.status, 500) << no_key.body;
  EXPECT_EQ(Str(no_key.Json(), {"message"}), "map: map[image:x] does not contain declared merge key: name");
  auto prefix = PatchDeployment(R"({"metadata":{"$deleteFromPrimitiveList":["x"]}})");
  EXPECT_EQ(prefix.status, 400) << prefix.body;
  EXPECT_EQ(Str(prefix.Json(), {"reason"}), "BadRequest");
  EXPECT_EQ(Str(prefix.Json(), {"message"}), "invalid patch format of primitive list");
  auto order = PatchDeployment(R"({"spec":{"template":{"spec":{"$setElementOrder/containers":"x"}}}})");
  EXPECT_EQ(order.status, 500) << order.body;
  auto lists = PatchDeployment(R"({"spec":{"template":{"spec":{"containers":[["a"]]}}}})");
  EXPECT_EQ(lists.status, 500) << lists.body;  // element types differ from the live list's maps
  EXPECT_EQ(Rv(client().Get(std::string(kDeploys) + "/web").Json()), rv) << "nothing was written";
}

TEST_F(StrategicMergeTest, CustomResourcesAnswer415) {
  auto crd = client().Post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", R"({
    "apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"widgets.example.com"},
    "spec":{"group":"example.com","scope":"Namespaced",
      "names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},
      "versions":[{"name":"v1","served":true,"storage":true,
        "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}})");
  ASSERT_EQ(crd.status, 201) << crd.body;
  const std::string base = "/apis/example.com/v1/namespaces/default/widgets";
  HttpResponse created;
  for (int i = 0; i < 200; ++i) {  // the CRD is served once the controller has established it
    created = client().Post(base, R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"a":1}})");
    if (created.status != 404) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ASSERT_EQ(created.status, 201) << created.body;
  auto res = client().Patch(base + "/w", R"({"spec":{"a":2}})", kSmp);
  EXPECT_EQ(res.status, 415);
  EXPECT_EQ(res.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml","reason":"UnsupportedMediaType","code":415})");
  // A merge patch still works.
  EXPECT_EQ(client().Patch(base + "/w", R"({"spec":{"a":2}})", "application/merge-patch+json").status, 200);
}

}  // namespace
}  // namespace kube::apiserver::testing
