// Server-side apply and managedFields over real HTTP (apiserver-semantics.md §3.4): create via
// apply, Apply and Update entries, pruning of dropped fields, shared ownership, conflicts and
// force, list-map merges, /status entries, option validation and no-op applies.

#include <chrono>
#include <regex>
#include <thread>

#include "fixture.hpp"

namespace kube::apiserver::testing {
namespace {

namespace json = boost::json;

constexpr std::string_view kCm = "/api/v1/namespaces/default/configmaps";
constexpr std::string_view kApply = "application/apply-patch+yaml";
constexpr std::string_view kDeploy = "/apis/apps/v1/namespaces/default/deployments";

class ApplyTest : public ApiServerTest {
 protected:
  HttpResponse Apply(std::string_view target, std::string_view body, std::string_view manager, bool force = false,
                     std::string_view extra = "") {
    std::string url(target);
    url += "?fieldManager=" + std::string(manager);
    if (force) url += "&force=true";
    url += extra;
    return client().Patch(url, body, kApply);
  }
  // The managedFields entries without their timestamps (checked separately).
  static std::string Entries(const json::value& obj) {
    const auto* meta = obj.as_object().if_contains("metadata");
    if (meta == nullptr) return "";
    const auto* mf = meta->as_object().if_contains("managedFields");
    if (mf == nullptr) return "";
    json::array copy;
    for (const auto& e : mf->as_array()) {
      EXPECT_TRUE(std::regex_match(std::string(e.as_object().at("time").as_string()),
                                   std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
          << e;
      json::object entry;  // member order kept (json::object::erase would move the last member)
      for (const auto& kv : e.as_object()) {
        if (kv.key() != "time") entry[kv.key()] = kv.value();
      }
      copy.push_back(std::move(entry));
    }
    return json::serialize(copy);
  }
};

TEST_F(ApplyTest, CreatesTheObjectWithAnApplyEntry) {
  auto res = Apply(std::string(kCm) + "/app",
                   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  labels:\n    tier: web\ndata:\n  a: \"1\"\n",
                   "tester");
  ASSERT_EQ(res.status, 201) << res.body;
  auto obj = res.Json();
  EXPECT_EQ(Str(obj, {"data", "a"}), "1");
  EXPECT_EQ(Str(obj, {"metadata", "namespace"}), "default");
  EXPECT_EQ(Entries(obj),
            R"([{"manager":"tester","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1",)"
            R"("fieldsV1":{"f:data":{"f:a":{}},"f:metadata":{"f:labels":{"f:tier":{}}}}}])");
  auto got = client().Get(std::string(kCm) + "/app");
  EXPECT_EQ(got.body, res.body);
}

TEST_F(ApplyTest, UpdateEntriesFromFieldManagerAndUserAgent) {
  auto created = client().Post(std::string(kCm) + "?fieldManager=creator",
                               R"({"metadata":{"name":"u","labels":{"x":"1"}},"data":{"a":"1"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(Entries(created.Json()),
            R"([{"manager":"creator","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1",)"
            R"("fieldsV1":{"f:data":{".":{},"f:a":{}},"f:metadata":{"f:labels":{".":{},"f:x":{}}}}}])");
  // A PUT from another client: the fields it changes move to it.
  json::object body = created.Json().as_object();
  body["data"].as_object()["a"] = "2";
  body["data"].as_object()["b"] = "3";
  auto put = client().Put(std::string(kCm) + "/u", json::serialize(body), {{"User-Agent", "my-tool/1.2 (linux)"}});
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(Entries(put.Json()),
            R"([{"manager":"creator","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1",)"
            R"("fieldsV1":{"f:data":{},"f:metadata":{"f:labels":{".":{},"f:x":{}}}}},)"
            R"({"manager":"my-tool","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1",)"
            R"("fieldsV1":{"f:data":{"f:a":{},"f:b":{}}}}])");
  // A merge patch with the same manager merges into its entry.
  auto patched = client().Request("PATCH", std::string(kCm) + "/u?fieldManager=my-tool",
                                  R"({"metadata":{"labels":{"y":"2"}}})",
                                  {{"Content-Type", "application/merge-patch+json"}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_NE(Entries(patched.Json()).find(R"("fieldsV1":{"f:data":{"f:a":{},"f:b":{}},"f:metadata":{"f:labels":{"f:y":{}}}})"),
            std::string::npos)
      << patched.body;
  // A write that changes nothing keeps everything, resourceVersion included.
  auto again = client().Put(std::string(kCm) + "/u?fieldManager=third", json::serialize(patched.Json()));
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.body, patched.body);
}

TEST_F(ApplyTest, FieldManagerLongerThan128IsInvalid) {
  auto res = client().Post(std::string(kCm) + "?fieldManager=" + std::string(129, 'm'), R"({"metadata":{"name":"x"}})");
  ASSERT_EQ(res.status, 422) << res.body;
  EXPECT_EQ(Str(res.Json(), {"message"}),
            R"(CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes)");
  auto ok = client().Post(std::string(kCm) + "?fieldManager=" + std::string(128, 'm'), R"({"metadata":{"name":"x"}})");
  EXPECT_EQ(ok.status, 201) << ok.body;
}

TEST_F(ApplyTest, FieldManagerIsRequired) {
  auto res = client().Patch(std::string(kCm) + "/x", R"({"apiVersion":"v1","kind":"ConfigMap"})", kApply);
  ASSERT_EQ(res.status, 422);
  EXPECT_EQ(res.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"PatchOptions","causes":[{"reason":"FieldValueRequired","message":"Required value: is required for apply patch","field":"fieldManager"}]},"code":422})");
}

TEST_F(ApplyTest, BodyMustNameTheResourceTypeAndCarryNoManagedFields) {
  auto wrong = Apply(std::string(kCm) + "/x", R"({"apiVersion":"apps/v1","kind":"Deployment"})", "m");
  ASSERT_EQ(wrong.status, 400);
  EXPECT_EQ(Str(wrong.Json(), {"message"}), "invalid object type: apps/v1, Kind=Deployment");
  auto missing = Apply(std::string(kCm) + "/x", R"({"metadata":{"name":"x"}})", "m");
  ASSERT_EQ(missing.status, 400);
  EXPECT_EQ(Str(missing.Json(), {"message"}), "invalid object type: /, Kind=");
  auto mf = Apply(std::string(kCm) + "/x",
                  R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","managedFields":[{"manager":"a"}]}})", "m");
  ASSERT_EQ(mf.status, 400);
  EXPECT_EQ(Str(mf.Json(), {"message"}), "metadata.managedFields must be nil");
  auto yaml = Apply(std::string(kCm) + "/x", "a: [1,\n", "m");
  ASSERT_EQ(yaml.status, 400);
  EXPECT_EQ(Str(yaml.Json(), {"message"}).rfind("error decoding YAML: ", 0), 0u) << yaml.body;
}

// YAML plain scalars resolve as YAML 1.1 (sigs.k8s.io/yaml): signs and underscores in integers,
// yes/no (and y/n, as go-yaml v2) booleans, quoted scalars stay strings.
TEST_F(ApplyTest, YamlPlainScalarsResolveAsYaml11) {
  const std::string yaml =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: y\n  labels:\n    n: \"10\"\n"
      "spec:\n  replicas: +3\n  minReadySeconds: 1_0\n  paused: yes\n  progressDeadlineSeconds: 600\n"
      "  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n"
      "    spec:\n      containers:\n      - name: c\n        image: nginx\n";
  auto res = Apply("/apis/apps/v1/namespaces/default/deployments/y", yaml, "m");
  ASSERT_EQ(res.status, 201) << res.body;
  auto obj = res.Json();
  EXPECT_EQ(Str(obj, {"spec", "replicas"}), "3");
  EXPECT_EQ(Str(obj, {"spec", "minReadySeconds"}), "10");
  EXPECT_EQ(Str(obj, {"spec", "paused"}), "true");
  EXPECT_EQ(Str(obj, {"spec", "progressDeadlineSeconds"}), "600");
  EXPECT_EQ(Str(obj, {"metadata", "labels", "n"}), "10");
  auto bad = Apply("/apis/apps/v1/namespaces/default/deployments/y",
                   "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: y\nspec:\n  replicas: 1e\n", "m");
  EXPECT_NE(bad.status, 200) << "\"1e\" is not a number, so replicas gets a string: " << bad.body;
}

TEST_F(ApplyTest, DroppedFieldsAreRemovedUnlessSharedAndNoOpKeepsTheVersion) {
  const std::string url = std::string(kCm) + "/p";
  auto first = Apply(url, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p"},"data":{"a":"1","b":"2","c":"3"}})", "one");
  ASSERT_EQ(first.status, 201) << first.body;
  // "two" applies b with the same value: both own it.
  auto shared = Apply(url, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p"},"data":{"b":"2"}})", "two");
  ASSERT_EQ(shared.status, 200) << shared.body;
  // "one" drops b and c: c goes, b stays (two owns it).
  auto dropped = Apply(url, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p"},"data":{"a":"1"}})", "one");
  ASSERT_EQ(dropped.status, 200) << dropped.body;
  EXPECT_EQ(Str(dropped.Json(), {"data"}), R"({"a":"1","b":"2"})");
  // (Entries are sorted by time first: the order of the two depends on the clock's second.)
  const std::string entries = Entries(dropped.Json());
  EXPECT_NE(entries.find(R"({"manager":"one","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}})"),
            std::string::npos)
      << entries;
  EXPECT_NE(entries.find(R"({"manager":"two","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:b":{}}}})"),
            std::string::npos)
      << entries;
  EXPECT_EQ(dropped.Json().at("metadata").at("managedFields").as_array().size(), 2u);
  // Applying the same configuration again is a no-op: same resourceVersion, same body.
  auto noop = Apply(url, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p"},"data":{"a":"1"}})", "one");
  ASSERT_EQ(noop.status, 200) << noop.body;
  EXPECT_EQ(Rv(noop.Json()), Rv(dropped.Json()));
  EXPECT_EQ(noop.body, dropped.body);
}

TEST_F(ApplyTest, ConflictsAreReportedAndForceTakesOwnership) {
  const std::string url = std::string(kCm) + "/c";
  auto created = client().Post(std::string(kCm) + "?fieldManager=kube-controller-manager",
                               R"({"metadata":{"name":"c"},"data":{"key":"v","other":"o"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  auto conflict = Apply(url, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"key":"w"}})", "kubectl");
  ASSERT_EQ(conflict.status, 409);
  EXPECT_EQ(conflict.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Apply failed with 1 conflict: conflict with \"kube-controller-manager\" using v1: .data.key","reason":"Conflict","details":{"causes":[{"reason":"FieldManagerConflict","message":"conflict with \"kube-controller-manager\" using v1","field":".data.key"}]},"code":409})");
  // Two conflicts (and a second manager) are listed per manager.
  auto b = Apply(url, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"extra":"e"}})", "bob");
  ASSERT_EQ(b.status, 200) << b.body;
  auto many = Apply(url, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"key":"w","other":"p","extra":"f"}})",
                    "kubectl");
  ASSERT_EQ(many.status, 409);
  EXPECT_EQ(Str(many.Json(), {"message"}),
            "Apply failed with 3 conflicts: conflicts with \"bob\":\n- .data.extra\n"
            "conflicts with \"kube-controller-manager\" using v1:\n- .data.key\n- .data.other");
  EXPECT_EQ(Str(many.Json(), {"details", "causes"}),
            R"([{"reason":"FieldManagerConflict","message":"conflict with \"bob\"","field":".data.extra"},)"
            R"({"reason":"FieldManagerConflict","message":"conflict with \"kube-controller-manager\" using v1","field":".data.key"},)"
            R"({"reason":"FieldManagerConflict","message":"conflict with \"kube-controller-manager\" using v1","field":".data.other"}])");
  // Nothing changed.
  auto got = client().Get(url);
  EXPECT_EQ(Str(got.Json(), {"data", "key"}), "v");
  // force=true takes the field.
  auto forced = Apply(url, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"key":"w"}})", "kubectl", true);
  ASSERT_EQ(forced.status, 200) << forced.body;
  EXPECT_EQ(Str(forced.Json(), {"data", "key"}), "w");
  const std::string entries = Entries(forced.Json());
  EXPECT_NE(entries.find(R"({"manager":"kubectl","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:key":{}}}})"),
            std::string::npos)
      << entries;
  EXPECT_NE(entries.find(R"({"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:other":{}}}})"),
            std::string::npos)
      << entries;
  // force on a non-apply patch stays invalid.
  auto bad = client().Request("PATCH", url + "?force=true", R"({"data":{"a":"b"}})",
                              {{"Content-Type", "application/merge-patch+json"}});
  EXPECT_EQ(bad.status, 422) << bad.body;
}

TEST_F(ApplyTest, DryRunAppliesNothing) {
  auto res = Apply(std::string(kCm) + "/d", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d"},"data":{"a":"1"}})",
                   "m", false, "&dryRun=All");
  ASSERT_EQ(res.status, 201) << res.body;
  EXPECT_EQ(Str(res.Json(), {"data", "a"}), "1");
  EXPECT_EQ(client().Get(std::string(kCm) + "/d").status, 404);
}

TEST_F(ApplyTest, ClientSentManagedFieldsReplaceOrReset) {
  auto created = client().Post(std::string(kCm) + "?fieldManager=creator", R"({"metadata":{"name":"m"},"data":{"a":"1"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  // A PUT carrying edited entries replaces the stored ones.
  json::object body = created.Json().as_object();
  body["metadata"].as_object()["managedFields"] = json::parse(
      R"([{"manager":"renamed","operation":"Update","apiVersion":"v1","time":"2020-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}}])");
  auto edited = client().Put(std::string(kCm) + "/m?fieldManager=editor", json::serialize(body));
  ASSERT_EQ(edited.status, 200) << edited.body;
  EXPECT_EQ(Str(edited.Json(), {"metadata", "managedFields"}),
            R"([{"manager":"renamed","operation":"Update","apiVersion":"v1","time":"2020-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}}])");
  // An empty list keeps them.
  auto kept = client().Request("PATCH", std::string(kCm) + "/m", R"({"metadata":{"managedFields":[]}})",
                               {{"Content-Type", "application/merge-patch+json"}});
  ASSERT_EQ(kept.status, 200) << kept.body;
  EXPECT_EQ(kept.body, edited.body);
  // `[{}]` clears them.
  auto reset = client().Request("PATCH", std::string(kCm) + "/m", R"({"metadata":{"managedFields":[{}]}})",
                                {{"Content-Type", "application/merge-patch+json"}});
  ASSERT_EQ(reset.status, 200) << reset.body;
  EXPECT_EQ(Str(reset.Json(), {"metadata", "managedFields"}), "");
  // Untracked now: further updates are not recorded until an apply.
  auto untracked = client().Request("PATCH", std::string(kCm) + "/m?fieldManager=late", R"({"data":{"b":"2"}})",
                                    {{"Content-Type", "application/merge-patch+json"}});
  ASSERT_EQ(untracked.status, 200) << untracked.body;
  EXPECT_EQ(Str(untracked.Json(), {"metadata", "managedFields"}), "");
}

TEST_F(ApplyTest, CustomResourcesUseTheirSchemaListTypes) {
  auto crd = client().Post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                           R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"routes.example.com"},
    "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"routes","kind":"Route"},
      "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{
        "spec":{"type":"object","properties":{
          "hosts":{"type":"array","items":{"type":"string"},"x-kubernetes-list-type":"set"},
          "backends":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
            "items":{"type":"object","properties":{"name":{"type":"string"},"weight":{"type":"integer"}}}},
          "labels":{"type":"object","x-kubernetes-map-type":"atomic","additionalProperties":{"type":"string"}}}}}}}}]}})");
  ASSERT_EQ(crd.status, 201) << crd.body;
  const std::string url = "/apis/example.com/v1/namespaces/default/routes/r";
  const auto route = [](std::string_view spec) {
    return std::string(R"({"apiVersion":"example.com/v1","kind":"Route","metadata":{"name":"r"},"spec":)") +
           std::string(spec) + "}";
  };
  // The CRD's resource is served once the controller has established it.
  HttpResponse first;
  for (int i = 0; i < 200; ++i) {
    first = Apply(url, route(R"({"hosts":["a"],"backends":[{"name":"x","weight":1}],"labels":{"k":"v"}})"), "one");
    if (first.status != 404) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(first.status, 201) << first.body;
  EXPECT_EQ(Entries(first.Json()),
            R"([{"manager":"one","operation":"Apply","apiVersion":"example.com/v1","fieldsType":"FieldsV1",)"
            R"("fieldsV1":{"f:spec":{"f:backends":{"k:{\"name\":\"x\"}":{".":{},"f:name":{},"f:weight":{}}},)"
            R"("f:hosts":{"v:\"a\"":{}},"f:labels":{}}}}])");
  auto second = Apply(url, route(R"({"hosts":["b"],"backends":[{"name":"y","weight":2}],"labels":{"k2":"v2"}})"), "two",
                      /*force=*/true);
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_EQ(Str(second.Json(), {"spec", "hosts"}), R"(["a","b"])");
  EXPECT_EQ(Str(second.Json(), {"spec", "backends"}), R"([{"name":"x","weight":1},{"name":"y","weight":2}])");
  EXPECT_EQ(Str(second.Json(), {"spec", "labels"}), R"({"k2":"v2"})") << "atomic maps are replaced";
  // An Update of a CR created without managers records the new spec node itself.
  auto created = client().Post("/apis/example.com/v1/namespaces/default/routes?fieldManager=maker",
                               R"({"apiVersion":"example.com/v1","kind":"Route","metadata":{"name":"s"},"spec":{"hosts":["h"]}})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(Entries(created.Json()),
            R"([{"manager":"maker","operation":"Update","apiVersion":"example.com/v1","fieldsType":"FieldsV1",)"
            R"("fieldsV1":{"f:spec":{".":{},"f:hosts":{".":{},"v:\"h\"":{}}}}}])");
}

constexpr std::string_view kDeployment = R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
  "spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},
  "spec":{"containers":[CONTAINERS]}}}})";

std::string DeploymentWith(std::string_view containers) {
  std::string s(kDeployment);
  s.replace(s.find("CONTAINERS"), 10, containers);
  return s;
}

TEST_F(ApplyTest, ContainersMergeByName) {
  const std::string url = std::string(kDeploy) + "/web";
  auto first = Apply(url, DeploymentWith(R"({"name":"app","image":"app:1"})"), "team-a");
  ASSERT_EQ(first.status, 201) << first.body;
  EXPECT_NE(Entries(first.Json()).find(R"("f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:name":{}}})"),
            std::string::npos)
      << first.body;
  // Another manager adds a sidecar: both containers stay.
  auto second = Apply(url, DeploymentWith(R"({"name":"sidecar","image":"side:1"})"), "team-b");
  ASSERT_EQ(second.status, 200) << second.body;
  auto containers = second.Json().at("spec").at("template").at("spec").at("containers").as_array();
  ASSERT_EQ(containers.size(), 2u) << second.body;
  EXPECT_EQ(Str(containers[0], {"name"}), "app");
  EXPECT_EQ(Str(containers[1], {"name"}), "sidecar");
  // team-a changes its image without touching the sidecar.
  auto third = Apply(url, DeploymentWith(R"({"name":"app","image":"app:2"})"), "team-a");
  ASSERT_EQ(third.status, 200) << third.body;
  containers = third.Json().at("spec").at("template").at("spec").at("containers").as_array();
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(Str(containers[0], {"image"}), "app:2");
  EXPECT_EQ(Str(containers[1], {"image"}), "side:1");
  // team-b changing team-a's image is a conflict on that container's field.
  auto conflict = Apply(url, DeploymentWith(R"({"name":"app","image":"app:3"})"), "team-b");
  ASSERT_EQ(conflict.status, 409) << conflict.body;
  EXPECT_EQ(Str(conflict.Json(), {"message"}),
            R"(Apply failed with 1 conflict: conflict with "team-a": .spec.template.spec.containers[name="app"].image)");
}

TEST_F(ApplyTest, StatusWritesRecordASubresourceEntry) {
  const std::string url = std::string(kDeploy) + "/web";
  auto created = Apply(url, DeploymentWith(R"({"name":"app","image":"app:1"})"), "owner");
  ASSERT_EQ(created.status, 201) << created.body;
  json::object obj = created.Json().as_object();
  obj["status"] = json::parse(R"({"replicas":3,"readyReplicas":2})");
  auto put = client().Put(url + "/status?fieldManager=controller", json::serialize(obj));
  ASSERT_EQ(put.status, 200) << put.body;
  const std::string entries = Entries(put.Json());
  EXPECT_NE(entries.find(R"({"manager":"controller","operation":"Update","apiVersion":"apps/v1","fieldsType":"FieldsV1",)"
                         R"("fieldsV1":{"f:status":{"f:readyReplicas":{},"f:replicas":{}}},"subresource":"status"})"),
            std::string::npos)
      << entries;
  // The Apply entry is untouched and comes first.
  EXPECT_EQ(entries.rfind(R"([{"manager":"owner","operation":"Apply","apiVersion":"apps/v1")", 0), 0u) << entries;
}

}  // namespace
}  // namespace kube::apiserver::testing
