#include <kube/core/object.hpp>

#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <kube/core/json.hpp>

namespace kube {
namespace {

std::string ReadFixture(const std::string& name) {
  std::ifstream in(std::string(KUBE_TESTDATA_DIR) + "/" + name, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

ObjectPtr MustParse(std::string_view json) {
  auto r = Object::Parse(json);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : nullptr;
}

TEST(Object, ParsesMetadataOfRealisticPod) {
  const std::string json = ReadFixture("pod_4k.json");
  ASSERT_GT(json.size(), 4000u);
  auto pod = MustParse(json);
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->ApiVersion(), "v1");
  EXPECT_EQ(pod->Kind(), "Pod");
  EXPECT_EQ(pod->Name(), "web-7d4b9c8f6d-x2k9p");
  EXPECT_EQ(pod->GenerateName(), "web-7d4b9c8f6d-");
  EXPECT_EQ(pod->Namespace(), "production");
  EXPECT_EQ(pod->Uid(), "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
  EXPECT_EQ(pod->ResourceVersion(), "1234567");
  EXPECT_EQ(pod->Generation(), 1);
  EXPECT_EQ(pod->CreationTimestamp(), "2026-11-02T10:15:30Z");
  EXPECT_FALSE(pod->IsBeingDeleted());
  EXPECT_EQ(pod->Key(), "production/web-7d4b9c8f6d-x2k9p");
  EXPECT_EQ(pod->Labels().size(), 4u);
  EXPECT_EQ(pod->Labels().Get("app"), "web");
  EXPECT_EQ(pod->Labels().Get("app.kubernetes.io/part-of"), "storefront");
  EXPECT_FALSE(pod->Labels().Get("missing").has_value());
  EXPECT_EQ(pod->Annotations().Get("note"), "line one\nline \"two\" \xc3\xa9");  // unescaped
  ASSERT_EQ(pod->Finalizers().size(), 1u);
  EXPECT_EQ(pod->Finalizers()[0], "example.com/cleanup");
  EXPECT_TRUE(pod->Finalizers().Contains("example.com/cleanup"));
  auto owners = pod->OwnerReferences();
  ASSERT_EQ(owners.size(), 1u);
  EXPECT_EQ(owners[0].kind, "ReplicaSet");
  EXPECT_EQ(owners[0].name, "web-7d4b9c8f6d");
  EXPECT_EQ(owners[0].controller, true);
  EXPECT_EQ(owners[0].block_owner_deletion, true);
  ASSERT_TRUE(pod->ControllerRef().has_value());
  EXPECT_EQ(pod->ControllerRef()->uid, "5b7e0f2c-8a3d-4c1e-9f6a-2d3b4c5d6e7f");
  EXPECT_TRUE(pod->HasManagedFields());
  EXPECT_EQ(pod->Json(), json);  // compact input is kept byte for byte
}

TEST(Object, JsonPointerAccessReachesAnyField) {
  auto pod = MustParse(ReadFixture("pod_4k.json"));
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->GetString("/status/phase"), "Running");
  EXPECT_EQ(pod->GetString("/spec/containers/0/image"), "registry.example.com/team/web:1.27.3");
  EXPECT_EQ(pod->GetInt("/spec/terminationGracePeriodSeconds"), 30);
  EXPECT_EQ(pod->GetBool("/spec/enableServiceLinks"), true);
  EXPECT_EQ(pod->GetString("/status/conditions/1/type"), "Ready");
  EXPECT_FALSE(pod->GetString("/status/conditions/9/type").has_value());
  EXPECT_FALSE(pod->GetString("/spec/nope").has_value());
  EXPECT_FALSE(pod->GetInt("/status/phase").has_value());  // wrong type
  EXPECT_FALSE(pod->Get("no-leading-slash").has_value());
  auto ports = pod->Get("/spec/containers/0/ports");
  ASSERT_TRUE(ports.has_value());
  ASSERT_TRUE(ports->is_array());
  EXPECT_EQ(ports->as_array()[0].as_object().at("containerPort").as_int64(), 8080);
  EXPECT_EQ(pod->GetRaw("/status/podIPs"), R"([{"ip":"10.244.1.23"}])");
  // "~1" escapes '/' in a key.
  EXPECT_EQ(pod->GetString("/metadata/labels/app.kubernetes.io~1part-of"), "storefront");
}

TEST(Object, PrettyPrintedInputIsStoredCompact) {
  const std::string pretty = ReadFixture("deployment_15k.json");
  auto dep = MustParse(pretty);
  ASSERT_TRUE(dep);
  EXPECT_LT(dep->Json().size(), pretty.size());
  EXPECT_EQ(dep->Json().find('\n'), std::string_view::npos);
  EXPECT_EQ(dep->Kind(), "Deployment");
  EXPECT_EQ(dep->Generation(), 4);
  EXPECT_EQ(dep->GetInt("/spec/replicas"), 3);
  EXPECT_EQ(dep->GetInt("/status/observedGeneration"), 4);
  EXPECT_EQ(dep->GetString("/status/conditions/0/reason"), "MinimumReplicasAvailable");
  EXPECT_EQ(dep->GetString("/spec/strategy/rollingUpdate/maxSurge"), "25%");
  EXPECT_EQ(dep->Annotations().Get("deployment.kubernetes.io/revision"), "3");
  // Strings keep their inner whitespace.
  EXPECT_EQ(dep->GetString("/status/conditions/0/message"), "Deployment has minimum availability.");
  // Same DOM as the pretty input.
  EXPECT_EQ(boost::json::parse(dep->Json()), boost::json::parse(pretty));
}

TEST(Object, StripManagedFieldsRemovesOnlyThatMember) {
  for (const char* fixture : {"pod_4k.json", "pod_15k.json", "deployment_15k.json"}) {
    auto obj = MustParse(ReadFixture(fixture));
    ASSERT_TRUE(obj);
    auto stripped = StripManagedFields(obj);
    ASSERT_NE(stripped, obj);
    EXPECT_FALSE(stripped->HasManagedFields());
    EXPECT_LT(stripped->Json().size(), obj->Json().size());
    auto expected = obj->ToJson();
    expected["metadata"].as_object().erase("managedFields");
    EXPECT_EQ(boost::json::value(stripped->ToJson()), boost::json::value(expected)) << fixture;
    EXPECT_EQ(stripped->Labels().size(), obj->Labels().size());
    EXPECT_EQ(StripManagedFields(stripped), stripped);  // nothing to strip: same pointer
  }
}

TEST(Object, StripManagedFieldsHandlesEveryMemberPosition) {
  for (const char* json : {
           R"({"metadata":{"managedFields":[{"manager":"a"}],"name":"x"}})",
           R"({"metadata":{"name":"x","managedFields":[]}})",
           R"({"metadata":{"managedFields":[]}})",
           R"({"metadata":{"name":"x","managedFields":[{}],"namespace":"y"}})",
       }) {
    auto obj = MustParse(json);
    ASSERT_TRUE(obj);
    auto stripped = StripManagedFields(obj);
    auto expected = boost::json::parse(json);
    expected.as_object()["metadata"].as_object().erase("managedFields");
    EXPECT_EQ(boost::json::parse(stripped->Json()), expected) << json;
    EXPECT_EQ(stripped->Name(), obj->Name());
  }
}

// The splice (no re-parse) must give exactly what a parse of the stripped text gives: every
// accessor, including escaped metadata strings (kept unescaped after the text), labels,
// annotations, finalizers and owner references behind or before the cut.
TEST(Object, StripManagedFieldsEqualsAParseOfTheStrippedText) {
  // {object, the same text without the member}
  const std::pair<const char*, const char*> cases[] = {
      {R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a\u0062c","namespace":"n\"s",)"
       R"("managedFields":[{"manager":"m","fieldsV1":{"f:data":{}}}],"uid":"u-1","resourceVersion":"7",)"
       R"("generation":3,"creationTimestamp":"2026-01-01T00:00:00Z","labels":{"k\u00e9":"v","a":"b"},)"
       R"("annotations":{"x":"y\n"},"finalizers":["f/one","f\/two"],)"
       R"("ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r\u0073","uid":"o-1","controller":true}]},"data":{"k":"v"}})",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a\u0062c","namespace":"n\"s",)"
       R"("uid":"u-1","resourceVersion":"7",)"
       R"("generation":3,"creationTimestamp":"2026-01-01T00:00:00Z","labels":{"k\u00e9":"v","a":"b"},)"
       R"("annotations":{"x":"y\n"},"finalizers":["f/one","f\/two"],)"
       R"("ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r\u0073","uid":"o-1","controller":true}]},"data":{"k":"v"}})"},
      {R"({"metadata":{"labels":{"l":"1"},"ownerReferences":[{"apiVersion":"v1","kind":"K","name":"o","uid":"1"}],)"
       R"("name":"x","deletionTimestamp":"2026-01-01T00:00:00Z","deletionGracePeriodSeconds":30,"managedFields":[]}})",
       R"({"metadata":{"labels":{"l":"1"},"ownerReferences":[{"apiVersion":"v1","kind":"K","name":"o","uid":"1"}],)"
       R"("name":"x","deletionTimestamp":"2026-01-01T00:00:00Z","deletionGracePeriodSeconds":30}})"},
  };
  for (const auto& [json, without] : cases) {
    auto obj = MustParse(json);
    ASSERT_TRUE(obj);
    ASSERT_TRUE(obj->HasManagedFields());
    auto stripped = StripManagedFields(obj);
    auto want = MustParse(without);
    ASSERT_TRUE(want);
    EXPECT_EQ(stripped->Json(), want->Json());
    EXPECT_FALSE(stripped->HasManagedFields());
    EXPECT_EQ(stripped->ApiVersion(), want->ApiVersion());
    EXPECT_EQ(stripped->Kind(), want->Kind());
    EXPECT_EQ(stripped->Name(), want->Name());
    EXPECT_EQ(stripped->Namespace(), want->Namespace());
    EXPECT_EQ(stripped->Uid(), want->Uid());
    EXPECT_EQ(stripped->ResourceVersion(), want->ResourceVersion());
    EXPECT_EQ(stripped->Generation(), want->Generation());
    EXPECT_EQ(stripped->CreationTimestamp(), want->CreationTimestamp());
    EXPECT_EQ(stripped->DeletionTimestamp(), want->DeletionTimestamp());
    EXPECT_EQ(stripped->Key(), want->Key());
    ASSERT_EQ(stripped->Labels().size(), want->Labels().size());
    for (const auto& [k, v] : want->Labels()) EXPECT_EQ(stripped->Labels().Get(k), v) << k;
    ASSERT_EQ(stripped->Annotations().size(), want->Annotations().size());
    for (const auto& [k, v] : want->Annotations()) EXPECT_EQ(stripped->Annotations().Get(k), v) << k;
    EXPECT_EQ(std::vector<std::string>(stripped->Finalizers().begin(), stripped->Finalizers().end()),
              std::vector<std::string>(want->Finalizers().begin(), want->Finalizers().end()));
    const auto got_refs = stripped->OwnerReferences();
    const auto want_refs = want->OwnerReferences();
    ASSERT_EQ(got_refs.size(), want_refs.size());
    for (std::size_t i = 0; i < want_refs.size(); ++i) {
      EXPECT_EQ(got_refs[i].api_version, want_refs[i].api_version);
      EXPECT_EQ(got_refs[i].kind, want_refs[i].kind);
      EXPECT_EQ(got_refs[i].name, want_refs[i].name);
      EXPECT_EQ(got_refs[i].uid, want_refs[i].uid);
      EXPECT_EQ(got_refs[i].controller, want_refs[i].controller);
    }
    EXPECT_EQ(boost::json::value(stripped->ToJson()), boost::json::value(want->ToJson()));
  }
}

TEST(Object, StripManagedFieldsWithTheNameElsewhereStillStripsExactly) {
  // A repeated member, and an annotation whose value contains the member's name: the general
  // path handles both.
  for (const char* json : {
           R"({"metadata":{"name":"x","managedFields":[{"a":1}],"managedFields":[{"b":2}]}})",
           R"({"metadata":{"name":"x","annotations":{"note":"\"managedFields\":"},"managedFields":[]}})",
       }) {
    auto obj = MustParse(json);
    ASSERT_TRUE(obj);
    auto stripped = StripManagedFields(obj);
    EXPECT_FALSE(stripped->HasManagedFields()) << json;
    EXPECT_EQ(stripped->Name(), "x");
    EXPECT_EQ(stripped->Json().find("\"managedFields\":["), std::string_view::npos) << stripped->Json();
  }
}

TEST(Object, NullMetadataFieldsReadAsEmpty) {
  auto obj = MustParse(
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","creationTimestamp":null,)"
      R"("labels":null,"annotations":{"a":null},"finalizers":null,"ownerReferences":null,"generation":null}})");
  ASSERT_TRUE(obj);
  EXPECT_EQ(obj->CreationTimestamp(), "");
  EXPECT_TRUE(obj->Labels().empty());
  EXPECT_EQ(obj->Annotations().Get("a"), "");
  EXPECT_EQ(obj->Generation(), 0);
  EXPECT_EQ(obj->Key(), "c");
}

TEST(Object, DuplicateLabelKeysKeepTheLastValue) {
  auto obj = MustParse(R"({"metadata":{"labels":{"b":"1","a":"x","b":"2"}}})");
  ASSERT_TRUE(obj);
  EXPECT_EQ(obj->Labels().size(), 2u);
  EXPECT_EQ(obj->Labels().Get("b"), "2");
  std::vector<std::string> keys;
  for (const auto& [k, v] : obj->Labels()) keys.emplace_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "b"}));
}

TEST(Object, EscapedKeysAndValuesAreDecoded) {
  auto obj = MustParse(R"({"metadata":{"n\u0061me":"caf\u00e9","labels":{"k\/1":"v\ud83d\ude00"}}})");
  ASSERT_TRUE(obj);
  EXPECT_EQ(obj->Name(), "caf\xc3\xa9");
  EXPECT_EQ(obj->Labels().Get("k/1"), "v\xf0\x9f\x98\x80");
}

TEST(Object, DeletionFields) {
  auto obj = MustParse(
      R"({"metadata":{"name":"x","deletionTimestamp":"2026-11-02T10:00:00Z","deletionGracePeriodSeconds":30}})");
  ASSERT_TRUE(obj);
  EXPECT_TRUE(obj->IsBeingDeleted());
  EXPECT_EQ(obj->DeletionGracePeriodSeconds(), 30);
  auto plain = MustParse(R"({"metadata":{"name":"x"}})");
  EXPECT_FALSE(plain->DeletionGracePeriodSeconds().has_value());
}

struct BadCase {
  const char* json;
  const char* message_part;
};

TEST(Object, RejectsMalformedInputWithPreciseErrors) {
  const BadCase cases[] = {
      {"", "unexpected end of input"},
      {"[]", "expected a JSON object, found array"},
      {"\"x\"", "expected a JSON object, found string"},
      {"{", "unexpected end of input"},
      {R"({"a":1,})", "expected a string key"},
      {R"({"a":01})", "leading zero"},
      {R"({"a":1} x)", "unexpected data after the JSON value"},
      {R"({"a":"\q"})", "invalid escape '\\q'"},
      {R"({"a":"\u12"})", "invalid \\u escape"},
      {"{\"a\":\"\x01\"}", "control character in string"},
      {"{\"a\":\"\xff\"}", "invalid UTF-8"},
      {"{\"a\":\"\xc0\xaf\"}", "invalid UTF-8"},
      {R"({"a":tru})", "invalid literal"},
      {R"({"metadata":{"labels":"app=web"}})", "metadata.labels: expected object, found string"},
      {R"({"metadata":{"labels":{"app":1}}})", "metadata.labels.app: expected string, found number"},
      {R"({"metadata":{"name":5}})", "metadata.name: expected string, found number"},
      {R"({"metadata":{"generation":"1"}})", "metadata.generation: expected integer, found string"},
      {R"({"metadata":{"generation":1.5}})", "metadata.generation: expected an integer, found 1.5"},
      {R"({"metadata":{"generation":99999999999999999999}})", "metadata.generation: expected an integer"},
      {R"({"metadata":{"finalizers":"a"}})", "metadata.finalizers: expected array, found string"},
      {R"({"metadata":{"finalizers":["a",2]}})", "metadata.finalizers[1]: expected string, found number"},
      {R"({"metadata":{"ownerReferences":[{"controller":"yes"}]}})",
       "metadata.ownerReferences[0].controller: expected boolean, found string"},
      {R"({"metadata":[]})", "metadata: expected object, found array"},
      {R"({"apiVersion":1})", "apiVersion: expected string, found number"},
      {R"({"metadata":{"managedFields":{}}})", "metadata.managedFields: expected array, found object"},
      // Literals in typed metadata fields are validated, not just recognised by their first byte.
      {R"({"metadata":{"deletionGracePeriodSeconds":ntll}})", "invalid literal, expected 'null'"},
      {R"({"metadata":{"name":nul}})", "invalid literal, expected 'null'"},
      {R"({"metadata":{"labels":nulx}})", "invalid literal"},
      {R"({"metadata":{"ownerReferences":[{"controller":truth}]}})", "invalid literal"},
  };
  for (const auto& c : cases) {
    auto r = Object::Parse(c.json);
    ASSERT_FALSE(r.ok()) << c.json;
    EXPECT_TRUE(IsBadRequest(r.error())) << c.json;
    EXPECT_NE(r.error().message.find(c.message_part), std::string::npos)
        << "input: " << c.json << "\nmessage: " << r.error().message;
    EXPECT_NE(r.error().message.find("line 1, column"), std::string::npos) << r.error().message;
  }
}

TEST(Object, ErrorPositionCountsLines) {
  auto r = Object::Parse("{\n  \"metadata\": {\n    \"name\": 7\n  }\n}");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("line 3, column 13"), std::string::npos) << r.error().message;
}

TEST(Object, DeepNestingIsRejectedNotCrashing) {
  std::string deep = "{\"a\":";
  for (int i = 0; i < 5000; ++i) deep += "[";
  for (int i = 0; i < 5000; ++i) deep += "]";
  deep += "}";
  auto r = Object::Parse(deep);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("nesting too deep"), std::string::npos);
  std::string ok = "{\"a\":";
  for (int i = 0; i < 500; ++i) ok += "[";
  for (int i = 0; i < 500; ++i) ok += "]";
  ok += "}";
  EXPECT_TRUE(Object::Parse(ok).ok());
}

TEST(Object, GvkAndKey) {
  auto obj = MustParse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"}})");
  auto gvk = obj->Gvk();
  ASSERT_TRUE(gvk.ok());
  EXPECT_EQ(gvk->group, "apps");
  EXPECT_EQ(gvk->version, "v1");
  EXPECT_EQ(gvk->kind, "Deployment");
  EXPECT_EQ(obj->Key(), "web");
  EXPECT_EQ(obj->GetObjectKey(), (ObjectKey{"", "web"}));
  EXPECT_FALSE(MustParse("{}")->Gvk().ok());
}

TEST(Object, RetainedBytesStayCloseToJsonSize) {
  auto pod = MustParse(ReadFixture("pod_4k.json"));
  EXPECT_LT(pod->RetainedBytes(), pod->Json().size() * 3 / 2);
}

TEST(ObjectBuilder, EditsProduceANewObjectAndLeaveTheOriginal) {
  auto pod = MustParse(ReadFixture("pod_4k.json"));
  ObjectBuilder b(*pod);
  b.SetLabel("version", "v2").RemoveLabel("tier").SetAnnotation("a", "b").SetResourceVersion("");
  EXPECT_TRUE(b.AddFinalizer("kubecpp.io/test"));
  EXPECT_FALSE(b.AddFinalizer("kubecpp.io/test"));
  EXPECT_TRUE(b.RemoveFinalizer("example.com/cleanup"));
  ASSERT_TRUE(b.Set("/spec/containers/0/image", "nginx:1.27").ok());
  ASSERT_TRUE(b.Set("/status/new/nested", 5).ok());
  auto edited = b.Build();
  ASSERT_TRUE(edited.ok()) << edited.error().message;
  const auto& e = **edited;
  EXPECT_EQ(e.Labels().Get("version"), "v2");
  EXPECT_FALSE(e.Labels().Contains("tier"));
  EXPECT_EQ(e.Annotations().Get("a"), "b");
  EXPECT_EQ(e.ResourceVersion(), "");
  EXPECT_EQ(e.Finalizers().ToVector(), (std::vector<std::string>{"kubecpp.io/test"}));
  EXPECT_EQ(e.GetString("/spec/containers/0/image"), "nginx:1.27");
  EXPECT_EQ(e.GetInt("/status/new/nested"), 5);
  // The original is untouched.
  EXPECT_EQ(pod->Labels().Get("tier"), "frontend");
  EXPECT_EQ(pod->GetString("/spec/containers/0/image"), "registry.example.com/team/web:1.27.3");
}

TEST(ObjectBuilder, RemovingTheLastFinalizerDropsTheField) {
  ObjectBuilder b("v1", "ConfigMap");
  b.SetName("c");
  EXPECT_TRUE(b.AddFinalizer("f"));
  EXPECT_TRUE(b.RemoveFinalizer("f"));
  EXPECT_FALSE(b.RemoveFinalizer("f"));
  EXPECT_EQ(b.Metadata().if_contains("finalizers"), nullptr);
}

TEST(ObjectBuilder, OwnerReferenceWithSameUidIsReplaced) {
  ObjectBuilder b("v1", "Pod");
  b.AddOwnerReference({"apps/v1", "ReplicaSet", "rs", "u1", true, true});
  b.AddOwnerReference({"apps/v1", "ReplicaSet", "rs-renamed", "u1", true, false});
  b.AddOwnerReference({"v1", "ConfigMap", "cm", "u2", std::nullopt, std::nullopt});
  auto obj = b.Build();
  ASSERT_TRUE(obj.ok());
  auto refs = (*obj)->OwnerReferences();
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0].name, "rs-renamed");
  EXPECT_EQ(refs[0].block_owner_deletion, false);
  EXPECT_FALSE(refs[1].controller.has_value());
}

TEST(ObjectBuilder, SetRejectsDescendingIntoScalars) {
  ObjectBuilder b("v1", "ConfigMap");
  ASSERT_TRUE(b.Set("/data", "scalar").ok());
  auto r = b.Set("/data/key", "v");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsBadRequest(r.error()));
  EXPECT_FALSE(b.Set("bad pointer", 1).ok());
  EXPECT_TRUE(b.Remove("/data"));
  EXPECT_FALSE(b.Remove("/data"));
  EXPECT_EQ(b.Find("/data"), nullptr);
  ASSERT_TRUE(b.Set("/data/key", "v").ok());
  ASSERT_NE(b.Find("/data/key"), nullptr);
  EXPECT_EQ(b.Find("/data/key")->as_string(), "v");
}

TEST(ObjectBuilder, BuildReportsInvalidMetadata) {
  ObjectBuilder b("v1", "ConfigMap");
  b.Metadata()["labels"] = "not-an-object";
  auto r = b.Build();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("metadata.labels: expected object"), std::string::npos);
}

TEST(ObjectList, InjectsApiVersionAndKindIntoTypedListItems) {
  auto list = ObjectList::Parse(
      R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"42","continue":"tok","remainingItemCount":7},)"
      R"("items":[{"metadata":{"name":"a","namespace":"n","labels":{"x":"1"}}},{},)"
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"c"}}]})");
  ASSERT_TRUE(list.ok()) << list.error().message;
  EXPECT_EQ(list->kind, "PodList");
  EXPECT_EQ(list->resource_version, "42");
  EXPECT_EQ(list->continue_token, "tok");
  EXPECT_EQ(list->remaining_item_count, 7);
  ASSERT_EQ(list->items.size(), 3u);
  const auto& a = *list->items[0];
  EXPECT_EQ(a.ApiVersion(), "v1");
  EXPECT_EQ(a.Kind(), "Pod");
  EXPECT_EQ(a.Name(), "a");
  EXPECT_EQ(a.Labels().Get("x"), "1");
  EXPECT_EQ(a.Json(), R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"n","labels":{"x":"1"}}})");
  EXPECT_EQ(list->items[1]->Json(), R"({"apiVersion":"v1","kind":"Pod"})");
  EXPECT_EQ(list->items[2]->Json(), R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"c"}})");
  // The injected members are real JSON members.
  EXPECT_EQ(a.GetString("/kind"), "Pod");
}

TEST(ObjectList, GenericListKeepsItemKinds) {
  auto list = ObjectList::Parse(
      R"({"kind":"List","apiVersion":"v1","metadata":{},"items":[{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"}}]})");
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->items[0]->Kind(), "Deployment");
}

TEST(ObjectList, ItemErrorsNameTheIndex) {
  auto list = ObjectList::Parse(R"({"kind":"PodList","items":[{},{"metadata":{"labels":[]}}]})");
  ASSERT_FALSE(list.ok());
  EXPECT_NE(list.error().message.find("items[1]: metadata.labels: expected object, found array"),
            std::string::npos)
      << list.error().message;
  EXPECT_FALSE(ObjectList::Parse(R"({"items":{}})").ok());
  EXPECT_FALSE(ObjectList::Parse(R"({"items":[1,]})").ok());
}

TEST(ObjectList, ItemsParsedInPlaceKeepTheirBoundariesAndAreCompacted) {
  // apiVersion and kind first, as API servers write them: items are parsed in one pass.
  auto list = ObjectList::Parse(
      R"({"apiVersion":"v1","kind":"PodList","metadata":{},"items":[ { "metadata" : {"name":"a"} } ,)"
      R"({"metadata":{"name":"b","labels":{"k":"}{"}}},{}]})");
  ASSERT_TRUE(list.ok()) << list.error().message;
  ASSERT_EQ(list->items.size(), 3u);
  EXPECT_EQ(list->items[0]->Json(), R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"}})");
  EXPECT_EQ(list->items[1]->Json(), R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"b","labels":{"k":"}{"}}})");
  EXPECT_EQ(list->items[1]->Labels().Get("k"), "}{");
  EXPECT_EQ(list->items[2]->Json(), R"({"apiVersion":"v1","kind":"Pod"})");
}

TEST(ObjectList, ApiVersionAndKindAfterTheItemsAreStillInjected) {
  auto list = ObjectList::Parse(R"({"items":[{"metadata":{"name":"a"}}],"kind":"ConfigMapList","apiVersion":"v1"})");
  ASSERT_TRUE(list.ok()) << list.error().message;
  ASSERT_EQ(list->items.size(), 1u);
  EXPECT_EQ(list->items[0]->Json(), R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}})");
}

TEST(ObjectList, InPlaceItemErrorsNameTheIndexAndReturnNoList) {
  const std::string head = R"({"apiVersion":"v1","kind":"PodList","items":[)";
  auto bad_meta = ObjectList::Parse(head + R"({},{"metadata":{"labels":[]}}]})");
  ASSERT_FALSE(bad_meta.ok());
  EXPECT_NE(bad_meta.error().message.find("items[1]: metadata.labels: expected object, found array"),
            std::string::npos)
      << bad_meta.error().message;
  auto not_object = ObjectList::Parse(head + R"({},3]})");
  ASSERT_FALSE(not_object.ok());
  EXPECT_NE(not_object.error().message.find("items[1]: expected a JSON object, found number"), std::string::npos)
      << not_object.error().message;
  EXPECT_FALSE(ObjectList::Parse(head + R"({"metadata":{"name":"a"})").ok());          // truncated
  EXPECT_FALSE(ObjectList::Parse(head + R"({"metadata":{"name":"a"}} {}]})").ok());    // no comma
  EXPECT_FALSE(ObjectList::Parse(head + R"({"metadata":{"name":"a"}}]} x)").ok());     // trailing data
  EXPECT_FALSE(ObjectList::Parse(head + R"({"metadata":{"name":"a\q"}}]})").ok());  // bad escape
}

TEST(DeletedFinalStateUnknown, CarriesKeyAndLastKnownObject) {
  auto obj = MustParse(R"({"metadata":{"name":"a","namespace":"n"}})");
  DeletedFinalStateUnknown tombstone{obj->Key(), obj};
  EXPECT_EQ(tombstone.key, "n/a");
  EXPECT_EQ(tombstone.obj->Name(), "a");
}

}  // namespace
}  // namespace kube

namespace kube {
namespace {

TEST(ObjectDerivedValue, KeepsTheFirstValueAndOnlyForItsTag) {
  auto obj = Object::Parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}})");
  ASSERT_TRUE(obj.ok());
  static const char tag_a = 0, tag_b = 0;
  EXPECT_EQ((*obj)->DerivedValue(&tag_a), nullptr);
  auto first = std::make_shared<const int>(1);
  EXPECT_EQ((*obj)->KeepDerivedValue(&tag_a, first), first);
  EXPECT_EQ((*obj)->DerivedValue(&tag_a), first);
  // A second value for the same tag loses to the first; another tag gets nothing.
  EXPECT_EQ((*obj)->KeepDerivedValue(&tag_a, std::make_shared<const int>(2)), first);
  EXPECT_EQ((*obj)->KeepDerivedValue(&tag_b, std::make_shared<const int>(3)), nullptr);
  EXPECT_EQ((*obj)->DerivedValue(&tag_b), nullptr);
}

TEST(ObjectDerivedValue, ConcurrentKeepersAgreeOnOneValue) {
  auto obj = Object::Parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}})");
  ASSERT_TRUE(obj.ok());
  static const char tag = 0;
  std::vector<std::shared_ptr<const void>> kept(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] { kept[i] = (*obj)->KeepDerivedValue(&tag, std::make_shared<const int>(i)); });
  }
  for (auto& t : threads) t.join();
  for (const auto& k : kept) EXPECT_EQ(k, kept[0]);
  EXPECT_EQ((*obj)->DerivedValue(&tag), kept[0]);
}

}  // namespace
}  // namespace kube
