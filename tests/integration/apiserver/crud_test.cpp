// Create / get / update / delete over real HTTP: system fields, optimistic concurrency, strategies
// (generation, status and scale subresources, create-on-update), namespaces, and bad input.

#include <chrono>
#include <regex>
#include <thread>

#include "fixture.hpp"

namespace kube::apiserver::testing {
namespace {

namespace json = boost::json;

constexpr std::string_view kCm = "/api/v1/namespaces/default/configmaps";

class CrudTest : public ApiServerTest {};

TEST_F(CrudTest, SystemNamespacesExistAtStart) {
  for (const char* ns : {"default", "kube-system", "kube-public"}) {
    auto res = client().Get(std::string("/api/v1/namespaces/") + ns);
    ASSERT_EQ(res.status, 200) << res.body;
    auto obj = res.Json();
    EXPECT_EQ(Str(obj, {"status", "phase"}), "Active");
    EXPECT_EQ(Str(obj, {"spec", "finalizers"}), R"(["kubernetes"])");
    EXPECT_EQ(Str(obj, {"metadata", "labels", "kubernetes.io/metadata.name"}), ns);
  }
  auto svc = client().Get("/api/v1/namespaces/default/services/kubernetes");
  EXPECT_EQ(svc.status, 200) << svc.body;
}

TEST_F(CrudTest, CreateSetsSystemFieldsAndGetReturnsTheStoredObject) {
  auto res = client().Post(std::string(kCm), R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}})");
  ASSERT_EQ(res.status, 201) << res.body;
  auto obj = res.Json();
  EXPECT_TRUE(std::regex_match(Str(obj, {"metadata", "uid"}),
                               std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")));
  EXPECT_TRUE(std::regex_match(Str(obj, {"metadata", "creationTimestamp"}),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  EXPECT_TRUE(std::regex_match(Rv(obj), std::regex("[1-9][0-9]*")));
  EXPECT_EQ(Str(obj, {"metadata", "namespace"}), "default");
  EXPECT_EQ(Str(obj, {"metadata", "generation"}), "") << "ConfigMaps have no generation";
  auto got = client().Get(std::string(kCm) + "/a");
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(got.body, res.body);
  EXPECT_EQ(got.Header("content-type"), "application/json");
}

TEST_F(CrudTest, GenerateNameAddsFiveRandomCharacters) {
  auto res = client().Post(std::string(kCm), R"({"metadata":{"generateName":"web-"}})");
  ASSERT_EQ(res.status, 201) << res.body;
  EXPECT_TRUE(std::regex_match(Str(res.Json(), {"metadata", "name"}), std::regex("web-[bcdfghjklmnpqrstvwxz2456789]{5}")));
}

TEST_F(CrudTest, CreatingAnExistingNameIsAlreadyExists) {
  CreateConfigMap("default", "a");
  auto res = client().Post(std::string(kCm), R"({"metadata":{"name":"a"}})");
  EXPECT_EQ(res.status, 409);
  EXPECT_EQ(res.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"a\" already exists","reason":"AlreadyExists","details":{"name":"a","kind":"configmaps"},"code":409})");
}

TEST_F(CrudTest, GetOfAMissingObjectIsNotFound) {
  auto res = client().Get("/apis/apps/v1/namespaces/default/deployments/web");
  EXPECT_EQ(res.status, 404);
  EXPECT_EQ(res.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \"web\" not found","reason":"NotFound","details":{"name":"web","group":"apps","kind":"deployments"},"code":404})");
}

TEST_F(CrudTest, CreateInAMissingNamespaceIsNotFoundOnTheNamespace) {
  auto res = client().Post("/api/v1/namespaces/nope/configmaps", R"({"metadata":{"name":"a"}})");
  EXPECT_EQ(res.status, 404);
  EXPECT_EQ(res.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"namespaces \"nope\" not found","reason":"NotFound","details":{"name":"nope","kind":"namespaces"},"code":404})");
}

TEST_F(CrudTest, BadInputIsAClear4xxAndStoresNothing) {
  const Revision before = storage().CurrentRevision();
  struct Case {
    std::string body;
    int status;
    std::string message;
  } cases[] = {
      {R"({"metadata":{"name":"a","namespace":"other"}})", 400,
       "the namespace of the provided object does not match the namespace sent on the request"},
      {R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"a"}})", 400,
       "Secret in version \"v1\" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion"},
      {R"({"apiVersion":"apps/v1","kind":"ConfigMap","metadata":{"name":"a"}})", 400,
       "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: no kind \"ConfigMap\" is registered for version "
       "\"apps/v1\" in scheme \"pkg/runtime/scheme.go:100\""},
      {R"({"metadata":{"name":"a"},)", 400, ""},
      {R"([1,2])", 400,
       "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" } (5b312c325d)"},
      {R"({"metadata":{"name":"a","labels":"x"}})", 400, ""},
      {R"({"metadata":{"name":"a"},"data":{"k":1}})", 400,
       "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string"},
      {R"({"metadata":{"name":"Bad_Name"}})", 422,
       "ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
      {R"({"metadata":{}})", 422,
       "ConfigMap \"\" is invalid: metadata.name: Required value: name or generateName is required"},
      {R"({"metadata":{"name":"a","resourceVersion":"5"}})", 500,
       "resourceVersion should not be set on objects to be created"},
  };
  for (const auto& c : cases) {
    auto res = client().Post(std::string(kCm), c.body);
    EXPECT_EQ(res.status, c.status) << c.body << " -> " << res.body;
    EXPECT_EQ(Str(res.Json(), {"kind"}), "Status") << res.body;
    EXPECT_EQ(Str(res.Json(), {"code"}), std::to_string(c.status)) << res.body;
    if (!c.message.empty()) {
      EXPECT_EQ(Str(res.Json(), {"message"}), c.message) << c.body;
    }
  }
  auto malformed = client().Post(std::string(kCm), R"({"metadata":{"name":"a"},)");
  EXPECT_EQ(Str(malformed.Json(), {"message"}),
            "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: "
            "unexpected end of JSON input ({\"metadata\":{\"name\":\"a\"},)")
      << malformed.body;
  EXPECT_EQ(storage().CurrentRevision(), before) << "nothing was stored";
  EXPECT_EQ(client().Get(std::string(kCm) + "/a").status, 404);
}

TEST_F(CrudTest, NameRulesPerKind) {
  auto ns = client().Post("/api/v1/namespaces", R"({"metadata":{"name":"a.b"}})");
  EXPECT_EQ(ns.status, 422);
  EXPECT_EQ(Str(ns.Json(), {"message"}),
            "Namespace \"a.b\" is invalid: metadata.name: Invalid value: \"a.b\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
  EXPECT_EQ(Str(ns.Json(), {"details", "causes"}),
            R"J([{"reason":"FieldValueInvalid","message":"Invalid value: \"a.b\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')","field":"metadata.name"}])J");
  auto svc = client().Post("/api/v1/namespaces/default/services", R"({"metadata":{"name":"1svc"},"spec":{"ports":[{"port":80}]}})");
  EXPECT_EQ(svc.status, 422) << svc.body;
  auto event = client().Post("/api/v1/namespaces/default/events",
                             R"({"metadata":{"name":"Pod.17a3b"},"involvedObject":{"namespace":"default"}})");
  EXPECT_EQ(event.status, 201) << "core/v1 events only need a valid path segment: " << event.body;
}

TEST_F(CrudTest, OversizedBodyIs413) {
  std::string big = R"({"metadata":{"name":"big"},"data":{"k":")" + std::string(4 << 20, 'x') + "\"}}";
  auto res = client().Post(std::string(kCm), big);
  EXPECT_EQ(res.status, 413);
  EXPECT_EQ(Str(res.Json(), {"reason"}), "RequestEntityTooLarge") << res.body;
  EXPECT_EQ(client().Get(std::string(kCm) + "/big").status, 404);
}

TEST_F(CrudTest, StaleUpdateIsAConflictAndUnconditionalUpdateIsAllowedForConfigMaps) {
  auto created = CreateConfigMap("default", "a");
  const std::string rv = Rv(created);
  auto first = client().Put(std::string(kCm) + "/a",
                            R"({"metadata":{"name":"a","resourceVersion":")" + rv + R"("},"data":{"k":"1"}})");
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_NE(Rv(first.Json()), rv);
  auto stale = client().Put(std::string(kCm) + "/a",
                            R"({"metadata":{"name":"a","resourceVersion":")" + rv + R"("},"data":{"k":"2"}})");
  EXPECT_EQ(stale.status, 409);
  EXPECT_EQ(stale.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on configmaps \"a\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"a","kind":"configmaps"},"code":409})");
  auto unconditional = client().Put(std::string(kCm) + "/a", R"({"metadata":{"name":"a"},"data":{"k":"3"}})");
  ASSERT_EQ(unconditional.status, 200) << unconditional.body;
  EXPECT_EQ(Str(unconditional.Json(), {"data", "k"}), "3");
  EXPECT_EQ(Str(unconditional.Json(), {"metadata", "uid"}), Str(created, {"metadata", "uid"}));
  EXPECT_EQ(Str(unconditional.Json(), {"metadata", "creationTimestamp"}),
            Str(created, {"metadata", "creationTimestamp"}));
}

TEST_F(CrudTest, UpdateChecksTheNameAndMissingObjects) {
  CreateConfigMap("default", "a");
  auto wrong = client().Put(std::string(kCm) + "/a", R"({"metadata":{"name":"b"}})");
  EXPECT_EQ(wrong.status, 400);
  EXPECT_EQ(Str(wrong.Json(), {"message"}), "the name of the object (b) does not match the name on the URL (a)");
  auto missing = client().Put(std::string(kCm) + "/zz", R"({"metadata":{"name":"zz"}})");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(Str(missing.Json(), {"message"}), "configmaps \"zz\" not found");
}

TEST_F(CrudTest, NoOpUpdateWritesNothing) {
  auto created = CreateConfigMap("default", "a", R"({"x":"y"})", R"({"k":"v"})");
  const Revision before = storage().CurrentRevision();
  auto same = client().Put(std::string(kCm) + "/a", json::serialize(created));
  ASSERT_EQ(same.status, 200) << same.body;
  EXPECT_EQ(Rv(same.Json()), Rv(created));
  auto patch = client().Patch(std::string(kCm) + "/a", R"({"data":{"k":"v"}})", "application/merge-patch+json");
  ASSERT_EQ(patch.status, 200);
  EXPECT_EQ(Rv(patch.Json()), Rv(created));
  EXPECT_EQ(storage().CurrentRevision(), before);
}

TEST_F(CrudTest, RbacObjectsAreStoredWithTheirScope) {
  const std::string base = "/apis/rbac.authorization.k8s.io/v1";
  auto role = client().Post(base + "/clusterroles", R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",
      "metadata":{"name":"website-operator"},"rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["get","list"]}]})");
  ASSERT_EQ(role.status, 201) << role.body;
  EXPECT_EQ(Str(role.Json(), {"metadata", "namespace"}), "");
  EXPECT_EQ(client().Get(base + "/clusterroles/website-operator").status, 200);
  EXPECT_EQ(client().Post(base + "/namespaces/default/clusterroles", R"({"metadata":{"name":"x"}})").status, 404);
  auto binding = client().Post(base + "/namespaces/default/rolebindings", R"({"apiVersion":"rbac.authorization.k8s.io/v1",
      "kind":"RoleBinding","metadata":{"name":"b"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole",
      "name":"website-operator"},"subjects":[{"kind":"ServiceAccount","name":"op","namespace":"default"}]})");
  ASSERT_EQ(binding.status, 201) << binding.body;
  EXPECT_EQ(Str(binding.Json(), {"metadata", "namespace"}), "default");
  auto discovery = client().Get(base);
  ASSERT_EQ(discovery.status, 200);
  for (const char* r : {"\"roles\"", "\"rolebindings\"", "\"clusterroles\"", "\"clusterrolebindings\""}) {
    EXPECT_NE(discovery.body.find(r), std::string::npos) << r;
  }
}

TEST_F(CrudTest, LeasesAreCreatedOnUpdateAndNeedAResourceVersion) {
  const std::string lease = "/apis/coordination.k8s.io/v1/namespaces/default/leases/lock";
  auto created = client().Put(lease, R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"lock"},
      "spec":{"holderIdentity":"a","leaseDurationSeconds":15,"renewTime":"2026-01-01T00:00:00.123456Z"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(Str(created.Json(), {"spec", "renewTime"}), "2026-01-01T00:00:00.123456Z");
  EXPECT_EQ(Str(created.Json(), {"metadata", "generation"}), "");
  auto unconditional = client().Put(lease, R"({"metadata":{"name":"lock"},"spec":{"holderIdentity":"b"}})");
  EXPECT_EQ(unconditional.status, 422);
  EXPECT_EQ(unconditional.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"leases.coordination.k8s.io \"lock\" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update","reason":"Invalid","details":{"name":"lock","group":"coordination.k8s.io","kind":"leases","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: 0x0: must be specified for an update","field":"metadata.resourceVersion"}]},"code":422})");
  auto renewed = client().Put(lease, R"({"metadata":{"name":"lock","resourceVersion":")" + Rv(created.Json()) +
                                         R"("},"spec":{"holderIdentity":"b"}})");
  EXPECT_EQ(renewed.status, 200) << renewed.body;
  auto race = client().Post("/apis/coordination.k8s.io/v1/namespaces/default/leases", R"({"metadata":{"name":"lock"}})");
  EXPECT_EQ(race.status, 409);
  EXPECT_EQ(Str(race.Json(), {"message"}), "leases.coordination.k8s.io \"lock\" already exists");
}

TEST_F(CrudTest, DeploymentGenerationStatusSplitAndScale) {
  const std::string base = "/apis/apps/v1/namespaces/default/deployments";
  auto created = client().Post(base, R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
      "spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},
      "spec":{"containers":[{"name":"c","image":"nginx:1.25"}]}}},"status":{"replicas":9}})");
  ASSERT_EQ(created.status, 201) << created.body;
  auto obj = created.Json().as_object();
  EXPECT_EQ(Str(obj, {"metadata", "generation"}), "1");
  EXPECT_EQ(Str(obj, {"spec", "replicas"}), "1");
  EXPECT_EQ(Str(obj, {"status"}), "{}") << "status is reset on create (Go's zero status)";

  // The main resource ignores status changes: no new generation.
  obj["status"] = json::object{{"replicas", 5}};
  auto status_via_main = client().Put(base + "/web", json::serialize(obj));
  ASSERT_EQ(status_via_main.status, 200) << status_via_main.body;
  EXPECT_EQ(Str(status_via_main.Json(), {"metadata", "generation"}), "1");
  EXPECT_EQ(Str(status_via_main.Json(), {"status"}), "{}");
  EXPECT_EQ(Rv(status_via_main.Json()), Rv(obj)) << "ignoring the status change made it a no-op";

  // /status takes only status (and keeps generation); spec changes there are ignored.
  auto current = status_via_main.Json().as_object();
  current["status"] = json::object{{"replicas", 1}, {"readyReplicas", 1}};
  current["spec"].as_object()["replicas"] = 7;
  auto status = client().Put(base + "/web/status", json::serialize(current));
  ASSERT_EQ(status.status, 200) << status.body;
  EXPECT_EQ(Str(status.Json(), {"status", "readyReplicas"}), "1");
  EXPECT_EQ(Str(status.Json(), {"spec", "replicas"}), "1");
  EXPECT_EQ(Str(status.Json(), {"metadata", "generation"}), "1");

  // A spec change bumps generation.
  auto spec = client().Patch(base + "/web", R"({"spec":{"replicas":3}})", "application/merge-patch+json");
  ASSERT_EQ(spec.status, 200) << spec.body;
  EXPECT_EQ(Str(spec.Json(), {"metadata", "generation"}), "2");
  EXPECT_EQ(Str(spec.Json(), {"status", "readyReplicas"}), "1");

  auto scale = client().Get(base + "/web/scale");
  ASSERT_EQ(scale.status, 200) << scale.body;
  EXPECT_EQ(Str(scale.Json(), {"kind"}), "Scale");
  EXPECT_EQ(Str(scale.Json(), {"apiVersion"}), "autoscaling/v1");
  EXPECT_EQ(Str(scale.Json(), {"spec", "replicas"}), "3");
  EXPECT_EQ(Str(scale.Json(), {"status", "selector"}), "app=web");
  auto scaled = client().Patch(base + "/web/scale", R"({"spec":{"replicas":5}})", "application/merge-patch+json");
  ASSERT_EQ(scaled.status, 200) << scaled.body;
  EXPECT_EQ(Str(scaled.Json(), {"spec", "replicas"}), "5");
  auto after = client().Get(base + "/web").Json();
  EXPECT_EQ(Str(after, {"spec", "replicas"}), "5");
  EXPECT_EQ(Str(after, {"metadata", "generation"}), "3");
  auto stale = client().Put(base + "/web/scale", R"({"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"web","resourceVersion":")" +
                                                      Rv(scale.Json()) + R"("},"spec":{"replicas":2}})");
  EXPECT_EQ(stale.status, 409) << stale.body;
  auto negative = client().Put(base + "/web/scale", R"({"metadata":{"name":"web"},"spec":{"replicas":-1}})");
  EXPECT_EQ(negative.status, 422);
  EXPECT_EQ(Str(negative.Json(), {"message"}),
            "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0");
}

TEST_F(CrudTest, WorkloadValidation) {
  auto res = client().Post("/apis/apps/v1/namespaces/default/deployments", R"({"metadata":{"name":"web"},"spec":{}})");
  EXPECT_EQ(res.status, 422);
  EXPECT_NE(Str(res.Json(), {"message"}).find("spec.selector: Required value"), std::string::npos) << res.body;
}

TEST_F(CrudTest, PatchTypes) {
  CreateConfigMap("default", "a", R"({"x":"y"})", R"({"k":"v"})");
  const std::string path = std::string(kCm) + "/a";
  auto merge = client().Patch(path, R"({"metadata":{"labels":{"x":null,"n":"1"}}})", "application/merge-patch+json");
  ASSERT_EQ(merge.status, 200) << merge.body;
  EXPECT_EQ(Str(merge.Json(), {"metadata", "labels"}), R"({"n":"1"})");
  auto jp = client().Patch(path, R"([{"op":"add","path":"/data/k2","value":"v2"}])", "application/json-patch+json");
  ASSERT_EQ(jp.status, 200) << jp.body;
  EXPECT_EQ(Str(jp.Json(), {"data", "k2"}), "v2");
  auto failing = client().Patch(path, R"([{"op":"test","path":"/data/k","value":"nope"}])", "application/json-patch+json");
  EXPECT_EQ(failing.status, 422);
  EXPECT_EQ(Str(failing.Json(), {"reason"}), "Invalid");
  EXPECT_EQ(Str(failing.Json(), {"message"}), "the server rejected our request due to an error in our request");
  // A strategic merge patch without lists or $-directives is exactly a merge patch: served.
  auto smp = client().Patch(path, R"({"data":{"k":"x","k2":null},"metadata":{"annotations":{"a":"b"}}})",
                            "application/strategic-merge-patch+json");
  ASSERT_EQ(smp.status, 200) << smp.body;
  EXPECT_EQ(Str(smp.Json(), {"data"}), R"({"k":"x"})");
  EXPECT_EQ(Str(smp.Json(), {"metadata", "annotations"}), R"({"a":"b"})");
  auto smp_not_object = client().Patch(path, R"([1])", "application/strategic-merge-patch+json");
  EXPECT_EQ(smp_not_object.status, 400) << smp_not_object.body;
  // Lists and directives follow the type's merge keys (details in strategic_merge_test.cpp).
  auto fin = client().Patch(path, R"({"metadata":{"finalizers":["example.com/x"]}})", "application/strategic-merge-patch+json");
  ASSERT_EQ(fin.status, 200) << fin.body;
  EXPECT_EQ(Str(fin.Json(), {"metadata", "finalizers"}), R"(["example.com/x"])");
  auto replace = client().Patch(path, R"({"data":{"$patch":"replace","k":"y"}})", "application/strategic-merge-patch+json");
  ASSERT_EQ(replace.status, 200) << replace.body;
  EXPECT_EQ(Str(replace.Json(), {"data"}), R"({"k":"y"})");
  ASSERT_EQ(client().Patch(path, R"({"metadata":{"finalizers":null}})", "application/merge-patch+json").status, 200);
  auto unknown_type = client().Patch(path, R"({})", "application/x-unknown");
  EXPECT_EQ(unknown_type.status, 415);
  EXPECT_EQ(unknown_type.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"415: Unsupported Media Type","reason":"UnsupportedMediaType","details":{},"code":415})");
  auto stale = client().Patch(path, R"({"metadata":{"resourceVersion":"1"}})", "application/merge-patch+json");
  EXPECT_EQ(stale.status, 409) << stale.body;
  auto rename = client().Patch(path, R"({"metadata":{"name":"b"}})", "application/merge-patch+json");
  EXPECT_EQ(rename.status, 400) << rename.body;
  auto missing = client().Patch(std::string(kCm) + "/zz", R"({})", "application/merge-patch+json");
  EXPECT_EQ(missing.status, 404);
  auto bad = client().Patch(path, R"({"data":)", "application/merge-patch+json");
  EXPECT_EQ(bad.status, 400);
}

TEST_F(CrudTest, DeleteAnswersPerKindAndChecksPreconditions) {
  auto cm = CreateConfigMap("default", "a");
  auto wrong_uid = client().Delete(std::string(kCm) + "/a", R"({"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"x"}})");
  EXPECT_EQ(wrong_uid.status, 409);
  EXPECT_EQ(Str(wrong_uid.Json(), {"message"}),
            "Operation cannot be fulfilled on ConfigMap \"a\": the UID in the precondition (x) does not match the UID in record (" +
                Str(cm, {"metadata", "uid"}) + "). The object might have been deleted and then recreated");
  auto wrong_rv = client().Delete(std::string(kCm) + "/a", R"({"preconditions":{"resourceVersion":"1"}})");
  EXPECT_EQ(wrong_rv.status, 409);
  EXPECT_NE(Str(wrong_rv.Json(), {"message"}).find("the ResourceVersion in the precondition (1) does not match"),
            std::string::npos);
  auto deleted = client().Delete(std::string(kCm) + "/a", R"({"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"})");
  ASSERT_EQ(deleted.status, 200);
  EXPECT_EQ(deleted.body, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"a","kind":"configmaps","uid":")" +
                              Str(cm, {"metadata", "uid"}) + R"("}})");
  EXPECT_EQ(client().Get(std::string(kCm) + "/a").status, 404);
  EXPECT_EQ(client().Delete(std::string(kCm) + "/a").status, 404);

  auto pod = client().Post("/api/v1/namespaces/default/pods", R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"busybox"}]}})");
  ASSERT_EQ(pod.status, 201) << pod.body;
  EXPECT_EQ(Str(pod.Json(), {"status", "phase"}), "Pending");
  auto pod_deleted = client().Delete("/api/v1/namespaces/default/pods/p");
  ASSERT_EQ(pod_deleted.status, 200);
  EXPECT_EQ(Str(pod_deleted.Json(), {"kind"}), "Pod") << "pods return the deleted object";
}

TEST_F(CrudTest, FinalizersKeepADeletedObjectUntilRemoved) {
  auto res = client().Post(std::string(kCm), R"({"metadata":{"name":"f","finalizers":["example.com/hold"]}})");
  ASSERT_EQ(res.status, 201);
  auto deleting = client().Delete(std::string(kCm) + "/f");
  ASSERT_EQ(deleting.status, 200);
  EXPECT_NE(Str(deleting.Json(), {"metadata", "deletionTimestamp"}), "");
  auto still = client().Get(std::string(kCm) + "/f");
  ASSERT_EQ(still.status, 200);
  auto added = client().Patch(std::string(kCm) + "/f", R"({"metadata":{"finalizers":["example.com/hold","x.io/new"]}})",
                              "application/merge-patch+json");
  EXPECT_EQ(added.status, 422) << added.body;
  auto release = client().Patch(std::string(kCm) + "/f", R"({"metadata":{"finalizers":null}})", "application/merge-patch+json");
  ASSERT_EQ(release.status, 200) << release.body;
  // The answer is the object as the update left it: deleting, its finalizers gone.
  EXPECT_NE(Str(release.Json(), {"metadata", "deletionTimestamp"}), "");
  EXPECT_EQ(release.Json().at("metadata").as_object().if_contains("finalizers"), nullptr) << release.body;
  EXPECT_EQ(client().Get(std::string(kCm) + "/f").status, 404);
}

TEST_F(CrudTest, DeleteCollectionWithALabelSelector) {
  CreateConfigMap("default", "a", R"({"t":"x"})");
  CreateConfigMap("default", "b", R"({"t":"x"})");
  CreateConfigMap("default", "c", R"({"t":"y"})");
  auto res = client().Delete(std::string(kCm) + "?labelSelector=t%3Dx");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(Str(res.Json(), {"kind"}), "ConfigMapList");
  EXPECT_EQ(res.Json().as_object().at("items").as_array().size(), 2u);
  EXPECT_EQ(client().Get(std::string(kCm) + "/a").status, 404);
  EXPECT_EQ(client().Get(std::string(kCm) + "/c").status, 200);
  auto bad = client().Delete(std::string(kCm) + "?labelSelector=t%20in");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(client().Delete("/api/v1/namespaces").status, 405) << "namespaces have no deletecollection";
}

TEST_F(CrudTest, NamespaceLifecycle) {
  auto immortal = client().Delete("/api/v1/namespaces/kube-system");
  EXPECT_EQ(immortal.status, 403);
  EXPECT_EQ(Str(immortal.Json(), {"message"}), "namespaces \"kube-system\" is forbidden: this namespace may not be deleted");
  CreateNamespace("team");
  CreateConfigMap("team", "a");
  auto deleted = client().Delete("/api/v1/namespaces/team");
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  EXPECT_EQ(Str(deleted.Json(), {"status", "phase"}), "Terminating");
  // The content and then the namespace go right after the response (as kube's namespace
  // controller does it, only sooner): poll briefly instead of racing the purge.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (client().Get("/api/v1/namespaces/team").status != 404 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // integration test: real server
  }
  EXPECT_EQ(client().Get("/api/v1/namespaces/team/configmaps/a").status, 404);
  EXPECT_EQ(client().Get("/api/v1/namespaces/team").status, 404);
}

TEST_F(CrudTest, ATerminatingNamespaceRefusesNewContentAndIsFinalizedThroughFinalize) {
  CreateNamespace("held");
  ASSERT_EQ(client().Post("/api/v1/namespaces/held/configmaps",
                          R"({"metadata":{"name":"pinned","finalizers":["example.com/hold"]}})").status, 201);
  auto deleted = client().Delete("/api/v1/namespaces/held");
  ASSERT_EQ(deleted.status, 200);
  // The finalizer keeps the content, so the namespace stays Terminating.
  auto ns = client().Get("/api/v1/namespaces/held");
  ASSERT_EQ(ns.status, 200);
  EXPECT_EQ(Str(ns.Json(), {"status", "phase"}), "Terminating");
  auto refused = client().Post("/api/v1/namespaces/held/configmaps", R"({"metadata":{"name":"new"}})");
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(refused.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"new\" is forbidden: unable to create new content in namespace held because it is being terminated","reason":"Forbidden","details":{"name":"new","kind":"configmaps","causes":[{"reason":"NamespaceTerminating","message":"namespace held is being terminated","field":"metadata.namespace"}]},"code":403})");
  // The namespace controller deletes the content asynchronously, as kube-apiserver's does: wait
  // (bounded) until it has marked the pinned object.
  std::string pinned_deletion;
  const auto pinned_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  do {
    auto pinned = client().Get("/api/v1/namespaces/held/configmaps/pinned");
    ASSERT_EQ(pinned.status, 200);
    pinned_deletion = Str(pinned.Json(), {"metadata", "deletionTimestamp"});
    if (pinned_deletion.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(5));  // real server
  } while (pinned_deletion.empty() && std::chrono::steady_clock::now() < pinned_deadline);
  EXPECT_NE(pinned_deletion, "");
  // A status update of the Terminating namespace does not delete it (spec.finalizers remain).
  auto status = client().Patch("/api/v1/namespaces/held/status", R"({"status":{"conditions":[]}})", "application/merge-patch+json");
  EXPECT_EQ(status.status, 200) << status.body;
  EXPECT_EQ(client().Get("/api/v1/namespaces/held").status, 200);
  // Removing spec.finalizers through /finalize completes the deletion. The server's namespace
  // controller writes the deletion conditions back (the patch above cleared them) whenever it
  // gets to it, so a read-modify-write may meet a 409: retry on conflict, as a client must.
  int finalize_status = 0;
  std::string finalize_body;
  for (int attempt = 0; attempt < 20; ++attempt) {
    auto current = client().Get("/api/v1/namespaces/held").Json().as_object();
    current["spec"] = json::object{{"finalizers", json::array{}}};
    auto finalized = client().Put("/api/v1/namespaces/held/finalize", json::serialize(current));
    finalize_status = finalized.status;
    finalize_body = finalized.body;
    if (finalize_status != 409) break;
  }
  EXPECT_EQ(finalize_status, 200) << finalize_body;
  EXPECT_EQ(client().Get("/api/v1/namespaces/held").status, 404);
}

TEST_F(CrudTest, EventsAreServedThroughBothApis) {
  auto core = client().Post("/api/v1/namespaces/default/events", R"({"metadata":{"name":"p.1"},
      "involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"reason":"Started","message":"hi","type":"Normal","count":1})");
  ASSERT_EQ(core.status, 201) << core.body;
  auto v1 = client().Get("/apis/events.k8s.io/v1/namespaces/default/events/p.1");
  ASSERT_EQ(v1.status, 200) << v1.body;
  EXPECT_EQ(Str(v1.Json(), {"apiVersion"}), "events.k8s.io/v1");
  EXPECT_EQ(Str(v1.Json(), {"regarding", "name"}), "p");
  EXPECT_EQ(Str(v1.Json(), {"note"}), "hi");
  EXPECT_EQ(Str(v1.Json(), {"deprecatedCount"}), "1");
  auto mismatch = client().Post("/api/v1/namespaces/default/events", R"({"metadata":{"name":"p.2"},"involvedObject":{"namespace":"other"}})");
  EXPECT_EQ(mismatch.status, 422);
  EXPECT_EQ(Str(mismatch.Json(), {"message"}),
            "Event \"p.2\" is invalid: involvedObject.namespace: Invalid value: \"other\": does not match event.namespace");
  auto strict = client().Post("/apis/events.k8s.io/v1/namespaces/default/events", R"({"metadata":{"name":"e2"},"regarding":{"namespace":"default"}})");
  EXPECT_EQ(strict.status, 422) << strict.body;
  auto created = client().Post("/apis/events.k8s.io/v1/namespaces/default/events",
                               R"({"metadata":{"name":"e3"},"eventTime":"2026-01-01T00:00:00.000000Z","reportingController":"example.com/ctl",
      "reportingInstance":"i","action":"Do","reason":"Done","type":"Normal","note":"n","regarding":{"kind":"Pod","name":"p","namespace":"default"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  auto via_core = client().Get("/api/v1/namespaces/default/events/e3");
  ASSERT_EQ(via_core.status, 200);
  EXPECT_EQ(Str(via_core.Json(), {"message"}), "n");
  EXPECT_EQ(Str(via_core.Json(), {"reportingComponent"}), "example.com/ctl");
  auto selected = client().Get("/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dp,reason%3DStarted");
  ASSERT_EQ(selected.status, 200) << selected.body;
  EXPECT_EQ(selected.Json().as_object().at("items").as_array().size(), 1u);
}

TEST_F(CrudTest, SecretsMergeStringData) {
  auto res = client().Post("/api/v1/namespaces/default/secrets", R"({"metadata":{"name":"s"},"stringData":{"p":"pw"}})");
  ASSERT_EQ(res.status, 201) << res.body;
  EXPECT_EQ(Str(res.Json(), {"data", "p"}), "cHc=");
  EXPECT_EQ(Str(res.Json(), {"type"}), "Opaque");
  EXPECT_EQ(Str(res.Json(), {"stringData"}), "");
}

TEST_F(CrudTest, DryRunStoresNothing) {
  const Revision before = storage().CurrentRevision();
  auto res = client().Post(std::string(kCm) + "?dryRun=All", R"({"metadata":{"name":"d"}})");
  ASSERT_EQ(res.status, 201) << res.body;
  EXPECT_EQ(Rv(res.Json()), "");
  EXPECT_NE(Str(res.Json(), {"metadata", "uid"}), "");
  EXPECT_EQ(storage().CurrentRevision(), before);
  auto bad = client().Post(std::string(kCm) + "?dryRun=Some", R"({"metadata":{"name":"d"}})");
  EXPECT_EQ(bad.status, 422);
  EXPECT_EQ(Str(bad.Json(), {"message"}),
            "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: []string{\"Some\"}: supported values: \"All\"");
}

TEST_F(CrudTest, RoutingErrors) {
  // An unknown resource of a served group-version gets a Status; an unknown group-version is no
  // route at all.
  auto unknown = client().Get("/api/v1/namespaces/default/widgets");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404})");
  auto unknown_group = client().Get("/apis/widgets.example.com/v1/widgets");
  EXPECT_EQ(unknown_group.status, 404);
  EXPECT_EQ(unknown_group.body, "404 page not found\n");
  EXPECT_EQ(client().Get("/api/v1/namespaces/default/configmaps/a/status").status, 404) << "no status subresource";
  EXPECT_EQ(client().Get("/api/v1/namespaces/default/nodes").status, 404) << "nodes are cluster-scoped";
  auto not_allowed = client().Post(std::string(kCm) + "/a", "{}");
  EXPECT_EQ(not_allowed.status, 405);
  EXPECT_EQ(not_allowed.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405})");
  auto all_ns_create = client().Post("/api/v1/configmaps", R"({"metadata":{"name":"a"}})");
  EXPECT_EQ(all_ns_create.status, 405);
  auto unsupported_type = client().Request("POST", std::string(kCm), "a: b", {{"Content-Type", "text/plain"}});
  EXPECT_EQ(unsupported_type.status, 415);
}

}  // namespace
}  // namespace kube::apiserver::testing
