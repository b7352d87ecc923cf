// CustomResourceDefinitions and custom resources through HTTP (apiserver-semantics.md §6, §3.2).

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>
#include <cctype>

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "fixture.hpp"

namespace kube::apiserver::testing {
namespace {

namespace bj = boost::json;

constexpr std::string_view kCrds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
constexpr std::string_view kWidgets = "/apis/example.com/v1/namespaces/default/widgets";

// A Widget CRD: namespaced, v1 served+storage, optional status/scale subresources, a schema with
// constraints, printer columns and a selectable field.
std::string WidgetCrd(bool status = true, bool scale = true, std::string_view extra_versions = "") {
  std::string subresources;
  if (status || scale) {
    subresources = R"(,"subresources":{)";
    if (status) subresources += R"("status":{})";
    if (scale) {
      subresources += std::string(status ? "," : "") +
                      R"("scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas","labelSelectorPath":".status.selector"})";
    }
    subresources += "}";
  }
  return std::string(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"widgets.example.com"},
    "spec":{"group":"example.com","scope":"Namespaced",
      "names":{"plural":"widgets","kind":"Widget","shortNames":["wd"],"categories":["all"]},
      "versions":[{"name":"v1","served":true,"storage":true)") +
         subresources + R"(,
        "additionalPrinterColumns":[{"name":"Replicas","type":"integer","jsonPath":".spec.replicas"},
                                    {"name":"Color","type":"string","jsonPath":".spec.color","priority":1}],
        "selectableFields":[{"jsonPath":".spec.color"}],
        "schema":{"openAPIV3Schema":{"type":"object","properties":{
          "spec":{"type":"object","required":["color"],"properties":{
            "replicas":{"type":"integer","minimum":0,"maximum":10},
            "color":{"type":"string","enum":["red","blue","green"]},
            "name":{"type":"string","maxLength":5,"pattern":"^[a-z]+$"},
            "size":{"type":"string","default":"medium"},
            "tags":{"type":"array","maxItems":2,"items":{"type":"string"}},
            "extra":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},
          "status":{"type":"object","properties":{"replicas":{"type":"integer"},"selector":{"type":"string"},
                                                   "phase":{"type":"string"}}}}}}})" +
         std::string(extra_versions) + "]}}";
}

std::string Widget(std::string_view name, std::string_view spec_json) {
  return std::string(R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":")") +
         std::string(name) + R"("},"spec":)" + std::string(spec_json) + "}";
}

// The condition `type` of a CRD: {status, reason, message} (empty strings when absent).
struct Cond {
  std::string status, reason, message;
};
Cond ConditionOf(const bj::value& crd, std::string_view type) {
  const auto* st = crd.as_object().if_contains("status");
  if (st == nullptr || !st->is_object()) return {};
  const auto* conds = st->as_object().if_contains("conditions");
  if (conds == nullptr || !conds->is_array()) return {};
  for (const auto& c : conds->as_array()) {
    if (ApiServerTest::Str(c, {"type"}) == type) {
      return {ApiServerTest::Str(c, {"status"}), ApiServerTest::Str(c, {"reason"}), ApiServerTest::Str(c, {"message"})};
    }
  }
  return {};
}

class CrdTest : public ApiServerTest {
 protected:
  void CreateWidgetCrd(bool status = true, bool scale = true) {
    auto res = client().Post(kCrds, WidgetCrd(status, scale));
    ASSERT_EQ(res.status, 201) << res.body;
  }
  bj::value GetJson(std::string_view path) {
    auto res = client().Get(path);
    EXPECT_EQ(res.status, 200) << path << ": " << res.body;
    return res.Json();
  }
  // Polls until GET `path` answers `status` (the CRD finalizer runs on the controller's thread).
  bool WaitForStatus(const std::string& path, int status) {
    for (int i = 0; i < 200; ++i) {
      if (client().Get(path).status == status) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
};

TEST_F(CrdTest, CreateSetsStatusConditionsAndFinalizer) {
  CreateWidgetCrd();
  const auto crd = GetJson(std::string(kCrds) + "/widgets.example.com");
  const Cond names = ConditionOf(crd, "NamesAccepted");
  EXPECT_EQ(names.status, "True");
  EXPECT_EQ(names.reason, "NoConflicts");
  EXPECT_EQ(names.message, "no conflicts found");
  const Cond established = ConditionOf(crd, "Established");
  EXPECT_EQ(established.status, "True");
  EXPECT_EQ(established.reason, "InitialNamesAccepted");
  EXPECT_EQ(established.message, "the initial names have been accepted");
  EXPECT_EQ(Str(crd, {"status", "acceptedNames", "plural"}), "widgets");
  EXPECT_EQ(Str(crd, {"status", "acceptedNames", "singular"}), "widget");
  EXPECT_EQ(Str(crd, {"status", "acceptedNames", "listKind"}), "WidgetList");
  EXPECT_EQ(Str(crd, {"status", "storedVersions"}), R"(["v1"])");
  EXPECT_EQ(Str(crd, {"spec", "names", "singular"}), "widget");
  EXPECT_EQ(Str(crd, {"spec", "names", "listKind"}), "WidgetList");
  EXPECT_EQ(Str(crd, {"metadata", "finalizers"}), R"(["customresourcecleanup.apiextensions.k8s.io"])");
  EXPECT_EQ(Str(crd, {"metadata", "generation"}), "1");
}

TEST_F(CrdTest, CrdIsDiscoverableWithShortNameAndCategory) {
  const auto list = GetJson("/apis/apiextensions.k8s.io/v1");
  bool found = false;
  for (const auto& r : list.as_object().at("resources").as_array()) {
    if (Str(r, {"name"}) == "customresourcedefinitions") {
      found = true;
      EXPECT_EQ(Str(r, {"shortNames"}), R"(["crd","crds"])");
      EXPECT_EQ(Str(r, {"categories"}), R"(["api-extensions"])");
      EXPECT_EQ(Str(r, {"namespaced"}), "false");
    }
    if (Str(r, {"name"}) == "customresourcedefinitions/status") found = found && true;
  }
  EXPECT_TRUE(found) << list;
}

TEST_F(CrdTest, CustomResourceAppearsInDiscoveryAndOpenApiRightAfterCreate) {
  EXPECT_EQ(client().Get("/apis/example.com/v1").status, 404);
  CreateWidgetCrd();
  // No wait: registration happens before the create returns.
  const auto gv = GetJson("/apis/example.com/v1");
  std::set<std::string> names;
  for (const auto& r : gv.as_object().at("resources").as_array()) names.insert(Str(r, {"name"}));
  EXPECT_TRUE(names.contains("widgets")) << gv;
  EXPECT_TRUE(names.contains("widgets/status")) << gv;
  EXPECT_TRUE(names.contains("widgets/scale")) << gv;
  const auto groups = GetJson("/apis");
  EXPECT_NE(bj::serialize(groups).find("\"example.com\""), std::string::npos);
  auto agg = client().Get("/apis", {{"Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}});
  ASSERT_EQ(agg.status, 200);
  EXPECT_NE(agg.body.find("\"widgets\""), std::string::npos);
  const auto openapi = GetJson("/openapi/v3");
  EXPECT_NE(bj::serialize(openapi).find("apis/example.com/v1"), std::string::npos);
  EXPECT_EQ(client().Get("/openapi/v3/apis/example.com/v1").status, 200);
  // And the resource is usable at once.
  EXPECT_EQ(client().Post(kWidgets, Widget("w1", R"({"color":"red"})")).status, 201);
}

TEST_F(CrdTest, CrdValidationErrors) {
  std::string bad_name = WidgetCrd();
  bad_name.replace(bad_name.find("widgets.example.com"), 19, "foo.example.com");
  auto res = client().Post(kCrds, bad_name);
  ASSERT_EQ(res.status, 422) << res.body;
  EXPECT_EQ(Str(res.Json(), {"message"}),
            R"(CustomResourceDefinition.apiextensions.k8s.io "foo.example.com" is invalid: metadata.name: Invalid value: "foo.example.com": must be spec.names.plural+"."+spec.group)");
  EXPECT_EQ(Str(res.Json(), {"details", "kind"}), "CustomResourceDefinition");

  std::string no_scope = WidgetCrd();
  no_scope.replace(no_scope.find(R"("scope":"Namespaced")"), 20, R"("scope":"Global")");
  res = client().Post(kCrds, no_scope);
  ASSERT_EQ(res.status, 422) << res.body;
  EXPECT_NE(res.body.find(R"(spec.scope: Unsupported value: \"Global\": supported values: \"Cluster\", \"Namespaced\")"),
            std::string::npos)
      << res.body;

  // Two storage versions.
  std::string two = WidgetCrd(false, false,
                              R"(,{"name":"v2","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}})");
  res = client().Post(kCrds, two);
  ASSERT_EQ(res.status, 422) << res.body;
  EXPECT_NE(res.body.find("must have exactly one version marked as storage version"), std::string::npos) << res.body;

  // A version without a schema.
  res = client().Post(kCrds, R"({"metadata":{"name":"gadgets.example.com"},"spec":{"group":"example.com","scope":"Cluster",
      "names":{"plural":"gadgets","kind":"Gadget"},"versions":[{"name":"v1","served":true,"storage":true}]}})");
  ASSERT_EQ(res.status, 422) << res.body;
  EXPECT_NE(res.body.find("spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required"),
            std::string::npos)
      << res.body;
}

TEST_F(CrdTest, CrdUpdateNeedsResourceVersion) {
  CreateWidgetCrd();
  auto crd = GetJson(std::string(kCrds) + "/widgets.example.com");
  crd.as_object()["metadata"].as_object().erase("resourceVersion");
  auto res = client().Put(std::string(kCrds) + "/widgets.example.com", bj::serialize(crd));
  EXPECT_EQ(res.status, 422) << res.body;
  EXPECT_NE(res.body.find("must be specified for an update"), std::string::npos);
}

TEST_F(CrdTest, EstablishedCrdKeepsItsScopeKindAndPlural) {
  CreateWidgetCrd();
  auto crd = GetJson(std::string(kCrds) + "/widgets.example.com");
  auto& spec = crd.as_object()["spec"].as_object();
  spec["scope"] = "Cluster";
  spec["names"].as_object()["kind"] = "Gadget";
  auto res = client().Put(std::string(kCrds) + "/widgets.example.com", bj::serialize(crd));
  EXPECT_EQ(res.status, 422) << res.body;
  EXPECT_EQ(Str(res.Json(), {"message"}),
            "CustomResourceDefinition.apiextensions.k8s.io \"widgets.example.com\" is invalid: "
            "[spec.scope: Invalid value: \"Cluster\": field is immutable, spec.names.kind: Invalid value: \"Gadget\": "
            "field is immutable]");
  // Other changes are fine.
  auto ok = GetJson(std::string(kCrds) + "/widgets.example.com");
  ok.as_object()["spec"].as_object()["names"].as_object()["shortNames"] = bj::array{"wdg"};
  auto updated = client().Put(std::string(kCrds) + "/widgets.example.com", bj::serialize(ok));
  EXPECT_EQ(updated.status, 200) << updated.body;
}

TEST_F(CrdTest, NamesConflictIsReportedAndNotServed) {
  CreateWidgetCrd();
  // Same kind in the same group under another plural.
  auto res = client().Post(kCrds, R"({"metadata":{"name":"gizmos.example.com"},"spec":{"group":"example.com","scope":"Namespaced",
      "names":{"plural":"gizmos","singular":"gizmo","kind":"Widget","listKind":"GizmoList"},
      "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}})");
  ASSERT_EQ(res.status, 201) << res.body;
  const auto crd = GetJson(std::string(kCrds) + "/gizmos.example.com");
  const Cond names = ConditionOf(crd, "NamesAccepted");
  EXPECT_EQ(names.status, "False");
  EXPECT_EQ(names.reason, "KindConflict");
  EXPECT_EQ(names.message, R"("Widget" is already in use)");
  const Cond established = ConditionOf(crd, "Established");
  EXPECT_EQ(established.status, "False");
  EXPECT_EQ(established.reason, "NotAccepted");
  EXPECT_EQ(client().Get("/apis/example.com/v1/namespaces/default/gizmos").status, 404);
  // The first CRD is unaffected.
  EXPECT_EQ(client().Get(kWidgets).status, 200);

  // Once the holder of the name is gone, the second CRD's names are accepted and it is served.
  ASSERT_EQ(client().Delete(std::string(kCrds) + "/widgets.example.com").status, 200);
  ASSERT_TRUE(WaitForStatus("/apis/example.com/v1/namespaces/default/gizmos", 200));
  const auto accepted = GetJson(std::string(kCrds) + "/gizmos.example.com");
  EXPECT_EQ(ConditionOf(accepted, "NamesAccepted").status, "True");
  EXPECT_EQ(ConditionOf(accepted, "Established").status, "True");
  EXPECT_EQ(ConditionOf(accepted, "Established").reason, "InitialNamesAccepted");
  EXPECT_EQ(Str(accepted, {"status", "acceptedNames", "kind"}), "Widget");
}

TEST_F(CrdTest, CustomResourceCrudAndGeneration) {
  CreateWidgetCrd(/*status=*/true, /*scale=*/false);
  auto res = client().Post(kWidgets, Widget("w1", R"({"color":"red","replicas":1})"));
  ASSERT_EQ(res.status, 201) << res.body;
  auto w = res.Json();
  EXPECT_EQ(Str(w, {"metadata", "generation"}), "1");
  EXPECT_EQ(Str(w, {"kind"}), "Widget");
  EXPECT_EQ(Str(w, {"apiVersion"}), "example.com/v1");

  auto list = GetJson(kWidgets);
  EXPECT_EQ(Str(list, {"kind"}), "WidgetList");
  EXPECT_EQ(list.as_object().at("items").as_array().size(), 1u);

  // No unconditional update.
  auto body = w;
  body.as_object()["metadata"].as_object().erase("resourceVersion");
  res = client().Put(std::string(kWidgets) + "/w1", bj::serialize(body));
  ASSERT_EQ(res.status, 422) << res.body;
  EXPECT_EQ(Str(res.Json(), {"message"}),
            R"(widgets.example.com "w1" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update)");

  // A spec change bumps generation.
  body = w;
  body.as_object()["spec"].as_object()["replicas"] = 2;
  res = client().Put(std::string(kWidgets) + "/w1", bj::serialize(body));
  ASSERT_EQ(res.status, 200) << res.body;
  w = res.Json();
  EXPECT_EQ(Str(w, {"metadata", "generation"}), "2");
  // A metadata change does not.
  body = w;
  body.as_object()["metadata"].as_object()["labels"] = bj::object{{"a", "b"}};
  res = client().Put(std::string(kWidgets) + "/w1", bj::serialize(body));
  ASSERT_EQ(res.status, 200) << res.body;
  w = res.Json();
  EXPECT_EQ(Str(w, {"metadata", "generation"}), "2");
  // With a status subresource, status on the main resource is ignored (no bump either).
  body = w;
  body.as_object()["status"] = bj::object{{"phase", "Ready"}};
  res = client().Put(std::string(kWidgets) + "/w1", bj::serialize(body));
  ASSERT_EQ(res.status, 200) << res.body;
  w = res.Json();
  EXPECT_EQ(Str(w, {"status"}), "");
  EXPECT_EQ(Str(w, {"metadata", "generation"}), "2");
  // /status takes only the status.
  body = w;
  body.as_object()["status"] = bj::object{{"phase", "Ready"}};
  body.as_object()["spec"].as_object()["replicas"] = 7;
  res = client().Put(std::string(kWidgets) + "/w1/status", bj::serialize(body));
  ASSERT_EQ(res.status, 200) << res.body;
  w = res.Json();
  EXPECT_EQ(Str(w, {"status", "phase"}), "Ready");
  EXPECT_EQ(Str(w, {"spec", "replicas"}), "2");
  EXPECT_EQ(Str(w, {"metadata", "generation"}), "2");

  // Strategic merge patch is not supported for custom resources.
  res = client().Patch(std::string(kWidgets) + "/w1", R"({"spec":{"replicas":3}})",
                       "application/strategic-merge-patch+json");
  EXPECT_EQ(res.status, 415) << res.body;
  res = client().Patch(std::string(kWidgets) + "/w1", R"({"spec":{"replicas":3}})", "application/merge-patch+json");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(Str(res.Json(), {"metadata", "generation"}), "3");

  res = client().Delete(std::string(kWidgets) + "/w1");
  EXPECT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(client().Get(std::string(kWidgets) + "/w1").status, 404);
}

TEST_F(CrdTest, WithoutStatusSubresourceStatusChangesBumpGeneration) {
  CreateWidgetCrd(/*status=*/false, /*scale=*/false);
  auto res = client().Post(kWidgets, R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},
      "spec":{"color":"red"},"status":{"phase":"New"}})");
  ASSERT_EQ(res.status, 201) << res.body;
  auto w = res.Json();
  EXPECT_EQ(Str(w, {"status", "phase"}), "New");  // kept: no status subresource
  w.as_object()["status"].as_object()["phase"] = "Ready";
  res = client().Put(std::string(kWidgets) + "/w1", bj::serialize(w));
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(Str(res.Json(), {"metadata", "generation"}), "2");
  EXPECT_EQ(client().Get(std::string(kWidgets) + "/w1/status").status, 404);
}

TEST_F(CrdTest, SchemaValidationAnswers422WithCauses) {
  CreateWidgetCrd();
  auto res = client().Post(kWidgets, Widget("w1", R"({"color":"red","replicas":-1})"));
  ASSERT_EQ(res.status, 422) << res.body;
  auto st = res.Json();
  EXPECT_EQ(Str(st, {"message"}),
            R"(Widget.example.com "w1" is invalid: spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0)");
  EXPECT_EQ(Str(st, {"reason"}), "Invalid");
  EXPECT_EQ(Str(st, {"details", "kind"}), "Widget");
  EXPECT_EQ(Str(st, {"details", "group"}), "example.com");
  const auto& causes = st.as_object().at("details").as_object().at("causes").as_array();
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(Str(causes[0], {"reason"}), "FieldValueInvalid");
  EXPECT_EQ(Str(causes[0], {"field"}), "spec.replicas");
  EXPECT_EQ(Str(causes[0], {"message"}), "Invalid value: -1: spec.replicas in body should be greater than or equal to 0");

  // Several errors, bracketed.
  res = client().Post(kWidgets, Widget("w2", R"({"color":"pink","replicas":11,"name":"ABC"})"));
  ASSERT_EQ(res.status, 422) << res.body;
  st = res.Json();
  const std::string msg = Str(st, {"message"});
  EXPECT_TRUE(msg.starts_with(R"(Widget.example.com "w2" is invalid: [)")) << msg;
  EXPECT_NE(msg.find(R"(spec.color: Unsupported value: "pink": supported values: "red", "blue", "green")"), std::string::npos) << msg;
  EXPECT_NE(msg.find("spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10"), std::string::npos) << msg;
  EXPECT_NE(msg.find(R"(spec.name: Invalid value: "ABC": spec.name in body should match '^[a-z]+$')"), std::string::npos) << msg;
  EXPECT_EQ(st.as_object().at("details").as_object().at("causes").as_array().size(), 3u);

  // Required, type, maxLength, maxItems.
  res = client().Post(kWidgets, Widget("w3", R"({"replicas":"two","name":"abcdefg","tags":["a","b","c"]})"));
  ASSERT_EQ(res.status, 422) << res.body;
  const std::string msg3 = Str(res.Json(), {"message"});
  EXPECT_NE(msg3.find("spec.color: Required value"), std::string::npos) << msg3;
  EXPECT_NE(msg3.find(R"(spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string")"),
            std::string::npos)
      << msg3;
  EXPECT_NE(msg3.find("spec.name: Too long: may not be more than 5 bytes"), std::string::npos) << msg3;
  EXPECT_NE(msg3.find("spec.tags: Too many: 3: must have at most 2 items"), std::string::npos) << msg3;

  // Updates are validated too.
  res = client().Post(kWidgets, Widget("ok", R"({"color":"red"})"));
  ASSERT_EQ(res.status, 201) << res.body;
  res = client().Patch(std::string(kWidgets) + "/ok", R"({"spec":{"replicas":-5}})", "application/merge-patch+json");
  EXPECT_EQ(res.status, 422) << res.body;
}

TEST_F(CrdTest, UnknownFieldsArePrunedAndDefaultsApplied) {
  CreateWidgetCrd();
  auto res = client().Post(kWidgets, R"({"apiVersion":"example.com/v1","kind":"Widget",
      "metadata":{"name":"w1","labels":{"x":"y"}},"spec":{"color":"red","foo":1,"extra":{"anything":{"goes":true}}},
      "bogus":"top"})");
  ASSERT_EQ(res.status, 201) << res.body;
  auto w = res.Json();
  EXPECT_EQ(Str(w, {"spec", "foo"}), "");
  EXPECT_EQ(Str(w, {"bogus"}), "");
  EXPECT_EQ(Str(w, {"spec", "extra"}), R"({"anything":{"goes":true}})");
  EXPECT_EQ(Str(w, {"spec", "size"}), "medium");
  EXPECT_EQ(Str(w, {"metadata", "labels", "x"}), "y");
  // Stored as returned.
  EXPECT_EQ(Str(GetJson(std::string(kWidgets) + "/w1"), {"spec", "foo"}), "");
  // An update that only adds unknown fields is a no-op (no new resourceVersion).
  auto body = w;
  body.as_object()["spec"].as_object()["foo"] = 2;
  res = client().Put(std::string(kWidgets) + "/w1", bj::serialize(body));
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(Rv(res.Json()), Rv(w));
  EXPECT_EQ(Str(res.Json(), {"metadata", "generation"}), "1");
}

TEST_F(CrdTest, FieldValidationStrictWarnAndIgnore) {
  CreateWidgetCrd();
  const std::string body = Widget("fv", R"({"color":"red","foo":1})");
  auto strict = client().Post(std::string(kWidgets) + "?fieldValidation=Strict", body);
  EXPECT_EQ(strict.status, 400) << strict.body;
  EXPECT_EQ(Str(strict.Json(), {"message"}),
            "Widget in version \"v1\" cannot be handled as a Widget: strict decoding error: unknown field \"spec.foo\"");
  EXPECT_EQ(client().Get(std::string(kWidgets) + "/fv").status, 404) << "nothing stored";
  auto warn = client().Post(std::string(kWidgets) + "?fieldValidation=Warn", body);
  ASSERT_EQ(warn.status, 201) << warn.body;
  EXPECT_EQ(warn.Header("warning"), "299 - \"unknown field \\\"spec.foo\\\"\"");
  EXPECT_EQ(Str(warn.Json(), {"spec", "foo"}), "") << "pruned";
  // Patches are checked on the patched object, updates on the body.
  auto patch_strict = client().Patch(std::string(kWidgets) + "/fv?fieldValidation=Strict", R"({"spec":{"bar":2}})",
                                     "application/merge-patch+json");
  EXPECT_EQ(patch_strict.status, 400) << patch_strict.body;
  EXPECT_EQ(Str(patch_strict.Json(), {"message"}), "strict decoding error: unknown field \"spec.bar\"");
  auto patch_ignore = client().Patch(std::string(kWidgets) + "/fv?fieldValidation=Ignore", R"({"spec":{"bar":2}})",
                                     "application/merge-patch+json");
  EXPECT_EQ(patch_ignore.status, 200) << patch_ignore.body;
  EXPECT_EQ(patch_ignore.Header("warning"), "");
  auto current = GetJson(std::string(kWidgets) + "/fv");
  current.as_object()["spec"].as_object()["baz"] = 3;
  auto put_strict = client().Put(std::string(kWidgets) + "/fv?fieldValidation=Strict", bj::serialize(current));
  EXPECT_EQ(put_strict.status, 400) << put_strict.body;
  auto bad_value = client().Post(std::string(kWidgets) + "?fieldValidation=Loose", Widget("fv2", R"({"color":"red"})"));
  EXPECT_EQ(bad_value.status, 422) << bad_value.body;
}

TEST_F(CrdTest, ScaleSubresource) {
  CreateWidgetCrd();
  auto res = client().Post(kWidgets, Widget("w1", R"({"color":"red","replicas":2})"));
  ASSERT_EQ(res.status, 201) << res.body;
  // The status (selector, replicas) through /status.
  auto w = res.Json();
  w.as_object()["status"] = bj::object{{"replicas", 1}, {"selector", "app=w1"}};
  res = client().Put(std::string(kWidgets) + "/w1/status", bj::serialize(w));
  ASSERT_EQ(res.status, 200) << res.body;

  auto scale = GetJson(std::string(kWidgets) + "/w1/scale");
  EXPECT_EQ(Str(scale, {"kind"}), "Scale");
  EXPECT_EQ(Str(scale, {"apiVersion"}), "autoscaling/v1");
  EXPECT_EQ(Str(scale, {"spec", "replicas"}), "2");
  EXPECT_EQ(Str(scale, {"status", "replicas"}), "1");
  EXPECT_EQ(Str(scale, {"status", "selector"}), "app=w1");

  scale.as_object()["spec"].as_object()["replicas"] = 5;
  res = client().Put(std::string(kWidgets) + "/w1/scale", bj::serialize(scale));
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(Str(res.Json(), {"spec", "replicas"}), "5");
  const auto after = GetJson(std::string(kWidgets) + "/w1");
  EXPECT_EQ(Str(after, {"spec", "replicas"}), "5");
  EXPECT_EQ(Str(after, {"metadata", "generation"}), "2");
  // The Scale's resourceVersion is a precondition.
  res = client().Put(std::string(kWidgets) + "/w1/scale", bj::serialize(scale));
  EXPECT_EQ(res.status, 409) << res.body;
  res = client().Patch(std::string(kWidgets) + "/w1/scale", R"({"spec":{"replicas":3}})", "application/merge-patch+json");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(Str(GetJson(std::string(kWidgets) + "/w1"), {"spec", "replicas"}), "3");

  // Missing spec replicas -> 500 with kube's message.
  res = client().Post(kWidgets, Widget("w2", R"({"color":"red"})"));
  ASSERT_EQ(res.status, 201) << res.body;
  res = client().Get(std::string(kWidgets) + "/w2/scale");
  EXPECT_EQ(res.status, 500) << res.body;
  EXPECT_NE(res.body.find(R"(the spec replicas field \".spec.replicas\" does not exist)"), std::string::npos) << res.body;
}

TEST_F(CrdTest, PrinterColumnsInTable) {
  CreateWidgetCrd();
  ASSERT_EQ(client().Post(kWidgets, Widget("w1", R"({"color":"red","replicas":3})")).status, 201);
  auto res = client().Get(kWidgets, {{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}});
  ASSERT_EQ(res.status, 200) << res.body;
  const auto table = res.Json();
  const auto& cols = table.as_object().at("columnDefinitions").as_array();
  ASSERT_EQ(cols.size(), 3u) << res.body;
  EXPECT_EQ(Str(cols[0], {"name"}), "Name");
  EXPECT_EQ(Str(cols[1], {"name"}), "Replicas");
  EXPECT_EQ(Str(cols[2], {"name"}), "Color");
  EXPECT_EQ(Str(cols[2], {"priority"}), "1");
  const auto& rows = table.as_object().at("rows").as_array();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(Str(rows[0], {"cells"}), R"(["w1",3,"red"])");
}

TEST_F(CrdTest, SelectableFieldsFilterLists) {
  CreateWidgetCrd();
  ASSERT_EQ(client().Post(kWidgets, Widget("r", R"({"color":"red"})")).status, 201);
  ASSERT_EQ(client().Post(kWidgets, Widget("b", R"({"color":"blue"})")).status, 201);
  auto list = GetJson(std::string(kWidgets) + "?fieldSelector=spec.color%3Dblue");
  ASSERT_EQ(list.as_object().at("items").as_array().size(), 1u) << list;
  EXPECT_EQ(Str(list.as_object().at("items").as_array()[0], {"metadata", "name"}), "b");
  auto res = client().Get(std::string(kWidgets) + "?fieldSelector=spec.size%3Dmedium");
  EXPECT_EQ(res.status, 400) << res.body;
}

TEST_F(CrdTest, CrdUpdateChangesServedVersionsAndColumnsLive) {
  CreateWidgetCrd();
  auto crd = GetJson(std::string(kCrds) + "/widgets.example.com");
  auto& versions = crd.as_object()["spec"].as_object()["versions"].as_array();
  bj::value v2 = versions[0];
  v2.as_object()["name"] = "v2";
  v2.as_object()["storage"] = false;
  v2.as_object()["additionalPrinterColumns"] =
      bj::array{bj::object{{"name", "Size"}, {"type", "string"}, {"jsonPath", ".spec.size"}}};
  versions.push_back(v2);
  auto res = client().Put(std::string(kCrds) + "/widgets.example.com", bj::serialize(crd));
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(Str(res.Json(), {"metadata", "generation"}), "2");
  ASSERT_EQ(client().Post("/apis/example.com/v2/namespaces/default/widgets",
                          R"({"apiVersion":"example.com/v2","kind":"Widget","metadata":{"name":"w2"},"spec":{"color":"red"}})")
                .status,
            201);
  // Both versions serve the same objects.
  EXPECT_EQ(client().Get(std::string(kWidgets) + "/w2").status, 200);
  auto table = client().Get("/apis/example.com/v2/namespaces/default/widgets",
                            {{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}});
  ASSERT_EQ(table.status, 200);
  EXPECT_NE(table.body.find("\"Size\""), std::string::npos) << table.body;
  EXPECT_NE(GetJson("/apis/example.com").as_object().at("versions").as_array().size(), 1u);

  // Stop serving v2.
  crd = GetJson(std::string(kCrds) + "/widgets.example.com");
  crd.as_object()["spec"].as_object()["versions"].as_array()[1].as_object()["served"] = false;
  res = client().Put(std::string(kCrds) + "/widgets.example.com", bj::serialize(crd));
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(client().Get("/apis/example.com/v2/namespaces/default/widgets").status, 404);
  EXPECT_EQ(client().Get("/apis/example.com/v2").status, 404);
  EXPECT_EQ(client().Get(kWidgets).status, 200);
}

TEST_F(CrdTest, DeletingCrdDeletesCustomResourcesAndRoutes) {
  CreateWidgetCrd();
  CreateNamespace("other");
  ASSERT_EQ(client().Post(kWidgets, Widget("w1", R"({"color":"red"})")).status, 201);
  ASSERT_EQ(client().Post("/apis/example.com/v1/namespaces/other/widgets", Widget("w2", R"({"color":"red"})")).status, 201);
  // One CR held by a finalizer until it is removed.
  ASSERT_EQ(client().Post(kWidgets, R"({"apiVersion":"example.com/v1","kind":"Widget",
      "metadata":{"name":"held","finalizers":["example.com/hold"]},"spec":{"color":"red"}})").status, 201);

  auto res = client().Delete(std::string(kCrds) + "/widgets.example.com");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_FALSE(Str(res.Json(), {"metadata", "deletionTimestamp"}).empty()) << res.body;

  ASSERT_TRUE(WaitForStatus(std::string(kWidgets) + "/w1", 404));
  ASSERT_TRUE(WaitForStatus("/apis/example.com/v1/namespaces/other/widgets/w2", 404));
  // The held CR is being deleted; the CRD waits, Terminating.
  auto held = GetJson(std::string(kWidgets) + "/held");
  EXPECT_FALSE(Str(held, {"metadata", "deletionTimestamp"}).empty());
  const auto crd = GetJson(std::string(kCrds) + "/widgets.example.com");
  const Cond terminating = ConditionOf(crd, "Terminating");
  EXPECT_EQ(terminating.status, "True");
  EXPECT_EQ(terminating.reason, "InstanceDeletionInProgress");

  // Release it: the CR goes, then the CRD and its routes.
  held.as_object()["metadata"].as_object()["finalizers"] = bj::array();
  res = client().Put(std::string(kWidgets) + "/held", bj::serialize(held));
  ASSERT_EQ(res.status, 200) << res.body;
  ASSERT_TRUE(WaitForStatus(std::string(kCrds) + "/widgets.example.com", 404));
  EXPECT_EQ(client().Get(kWidgets).status, 404);
  EXPECT_EQ(client().Get("/apis/example.com/v1").status, 404);
  EXPECT_EQ(bj::serialize(GetJson("/apis")).find("\"example.com\""), std::string::npos);

  // The group can be defined again.
  CreateWidgetCrd();
  EXPECT_EQ(GetJson(kWidgets).as_object().at("items").as_array().size(), 0u);
}

class CrdSqliteTest : public ApiServerTest {
 protected:
  ApiServerOptions Options() override {
    ApiServerOptions o = ApiServerTest::Options();
    o.storage = ApiServerOptions::StorageKind::kSqlite;
    o.data_dir = dir_;
    return o;
  }
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            ("kubecpp-crd-test-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    std::filesystem::remove_all(dir_);
    ApiServerTest::SetUp();
  }
  void TearDown() override {
    ApiServerTest::TearDown();
    std::filesystem::remove_all(dir_);
  }
  void Restart() {
    client_.reset();
    server_->Stop();
    server_.reset();
    auto server = ApiServer::Start(Options());
    ASSERT_TRUE(server.ok()) << server.error().message;
    server_ = std::move(*server);
    client_ = std::make_unique<HttpClient>(server_->port());
  }
  std::string dir_;
};

TEST_F(CrdSqliteTest, RestartReregistersCustomResources) {
  ASSERT_EQ(client().Post(kCrds, WidgetCrd()).status, 201);
  ASSERT_EQ(client().Post(kWidgets, Widget("w1", R"({"color":"red","replicas":1})")).status, 201);
  Restart();
  auto res = client().Get(std::string(kWidgets) + "/w1");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(Str(res.Json(), {"spec", "replicas"}), "1");
  EXPECT_EQ(client().Get("/apis/example.com/v1").status, 200);
  // Schema validation still applies.
  EXPECT_EQ(client().Post(kWidgets, Widget("w2", R"({"color":"red","replicas":-1})")).status, 422);
  EXPECT_EQ(client().Get(std::string(kWidgets) + "/w1/scale").status, 200);
}

// A minimal namespaced CRD `<plural>.race.example.com` serving `versions` (the first one stored).
std::string RaceCrd(const std::string& plural, const std::vector<std::string>& versions) {
  std::string vs;
  for (size_t i = 0; i < versions.size(); ++i) {
    if (i > 0) vs += ",";
    vs += R"({"name":")" + versions[i] + R"(","served":true,"storage":)" + (i == 0 ? "true" : "false") +
          R"(,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}})";
  }
  std::string kind = plural;
  kind[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(kind[0])));
  kind.pop_back();  // "racers" -> "Racer"
  return R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":")" +
         plural + R"(.race.example.com"},"spec":{"group":"race.example.com","scope":"Namespaced","names":{"plural":")" +
         plural + R"(","kind":")" + kind + R"("},"versions":[)" + vs + "]}}";
}

// Several clients creating and applying the same CRD at once (one wins, the others get 409 or
// apply on top) must leave the CRD served: two operator replicas installing their CRD at start.
void ConcurrentCrdInstalls(HttpClient& client, uint16_t port, int rounds) {
  for (int round = 0; round < rounds; ++round) {
    const std::string plural = "racer" + std::to_string(round) + "s";
    const std::string crd = RaceCrd(plural, {"v1"});
    constexpr int kClients = 4;
    std::vector<std::thread> threads;
    for (int c = 0; c < kClients; ++c) {
      threads.emplace_back([&, c] {
        HttpClient mine(port);
        if (c % 2 == 0) {
          const int status = mine.Post(kCrds, crd).status;
          EXPECT_TRUE(status == 201 || status == 409) << status;  // 409 AlreadyExists
        } else {
          // An apply that races a create retries as an update, as kube's store does: never a 409.
          auto res = mine.Patch(std::string(kCrds) + "/" + plural + ".race.example.com?fieldManager=op" +
                                    std::to_string(c) + "&force=true",
                                crd, "application/apply-patch+yaml");
          EXPECT_TRUE(res.status == 200 || res.status == 201) << res.status << " " << res.body;
        }
      });
    }
    for (auto& th : threads) th.join();
    const std::string crs = "/apis/race.example.com/v1/namespaces/default/" + plural;
    auto created = client.Post(crs, R"({"apiVersion":"race.example.com/v1","kind":"Racer)" + std::to_string(round) +
                                        R"(","metadata":{"name":"x"}})");
    ASSERT_EQ(created.status, 201) << "round " << round << ": " << created.body;
    auto discovery = client.Get("/apis/race.example.com/v1");
    ASSERT_EQ(discovery.status, 200) << "round " << round;
    EXPECT_NE(discovery.body.find("\"" + plural + "\""), std::string::npos) << "round " << round;
    const auto stored = client.Get(std::string(kCrds) + "/" + plural + ".race.example.com").Json();
    EXPECT_EQ(ConditionOf(stored, "Established").status, "True") << "round " << round;
  }
}

// Concurrent updates switching the served versions: afterwards the registry serves exactly what
// the stored CRD says.
void ConcurrentCrdVersionFlips(HttpClient& client, uint16_t port, int rounds) {
  ASSERT_EQ(client.Post(kCrds, RaceCrd("flippers", {"v1"})).status, 201);
  const std::string name = std::string(kCrds) + "/flippers.race.example.com";
  for (int round = 0; round < rounds; ++round) {
    std::vector<std::thread> threads;
    for (int c = 0; c < 4; ++c) {
      threads.emplace_back([&, c] {
        HttpClient mine(port);
        const std::vector<std::string> versions =
            c % 2 == 0 ? std::vector<std::string>{"v1"} : std::vector<std::string>{"v1", "v2"};
        auto res = mine.Patch(name + "?fieldManager=op&force=true", RaceCrd("flippers", versions),
                              "application/apply-patch+yaml");
        EXPECT_EQ(res.status, 200) << res.body;  // the store retries a stale apply
      });
    }
    for (auto& th : threads) th.join();
    const auto stored = client.Get(name).Json();
    const bool has_v2 = ApiServerTest::Str(stored, {"spec", "versions"}).find("\"v2\"") != std::string::npos;
    EXPECT_EQ(client.Get("/apis/race.example.com/v2/namespaces/default/flippers").status, has_v2 ? 200 : 404)
        << "round " << round;
    EXPECT_EQ(client.Get("/apis/race.example.com/v1/namespaces/default/flippers").status, 200) << "round " << round;
  }
}

TEST_F(CrdTest, ConcurrentInstallsOfTheSameCrdLeaveItServed) { ConcurrentCrdInstalls(client(), port(), 25); }

TEST_F(CrdTest, ConcurrentVersionChangesLeaveTheRegistryMatchingStorage) {
  ConcurrentCrdVersionFlips(client(), port(), 25);
}

TEST_F(CrdSqliteTest, ConcurrentInstallsOfTheSameCrdLeaveItServed) {
  ConcurrentCrdInstalls(client(), port(), 15);
}

TEST_F(CrdSqliteTest, ConcurrentVersionChangesLeaveTheRegistryMatchingStorage) {
  ConcurrentCrdVersionFlips(client(), port(), 15);
}

}  // namespace
}  // namespace kube::apiserver::testing
