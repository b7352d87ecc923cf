#include "apiserver/rest/managed_fields.hpp"

#include <cstdio>

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <kube/core/json.hpp>

#include "apiserver/rest/apply.hpp"
#include "apiserver/rest/builtin_schema.hpp"
#include "apiserver/rest/strategy.hpp"

namespace kube::apiserver::rest {
namespace {
namespace json = boost::json;

json::value J(std::string_view text) { return json::parse(text); }
json::object O(std::string_view text) { return json::parse(text).as_object(); }

FieldSet Set(std::string_view fields_v1) {
  auto s = FieldSet::FromFieldsV1(J(fields_v1));
  EXPECT_TRUE(s.ok()) << fields_v1;
  return s.ok() ? *s : FieldSet();
}

std::string V1(const FieldSet& s) { return SerializeJson(s.ToFieldsV1()); }

// A pod-like schema: containers are a map list keyed by name, ports keyed by
// containerPort+protocol, finalizers a set, labels a granular map, selector an atomic map.
TypeSchemaPtr PodSchema() {
  auto s = ParseTypeSchema(R"({"type":"object","properties":{
    "metadata":{"type":"object","properties":{
      "labels":{"type":"object","additionalProperties":{"type":"string"}},
      "finalizers":{"type":"array","items":{"type":"string"},"x-kubernetes-list-type":"set"}}},
    "spec":{"type":"object","properties":{
      "selector":{"type":"object","x-kubernetes-map-type":"atomic","additionalProperties":{"type":"string"}},
      "args":{"type":"array","items":{"type":"string"}},
      "containers":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
        "items":{"type":"object","properties":{
          "name":{"type":"string"},"image":{"type":"string"},
          "ports":{"type":"array","x-kubernetes-list-type":"map",
            "x-kubernetes-list-map-keys":["containerPort","protocol"],
            "items":{"type":"object","properties":{"containerPort":{"type":"integer"},
              "protocol":{"type":"string","default":"TCP"}}}}}}}}}}})");
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return s.ok() ? *s : nullptr;
}

TEST(PathElementTest, FieldsV1KeysAndPrintedForm) {
  EXPECT_EQ(PathElement::Field("data").ToFieldsV1Key(), "f:data");
  const auto key = PathElement::Key({{"protocol", "TCP"}, {"containerPort", 80}});
  EXPECT_EQ(key.ToFieldsV1Key(), R"(k:{"containerPort":80,"protocol":"TCP"})");
  EXPECT_EQ(key.ToString(), R"([containerPort=80,protocol="TCP"])");
  EXPECT_EQ(PathElement::Value("a").ToFieldsV1Key(), R"(v:"a")");
  EXPECT_EQ(PathElement::Value("a").ToString(), R"([="a"])");
  EXPECT_EQ(PathElement::Index(3).ToFieldsV1Key(), "i:3");
  EXPECT_EQ(PathString({PathElement::Field("spec"), PathElement::Key({{"name", "c"}}), PathElement::Field("image")}),
            R"(.spec[name="c"].image)");
  for (const char* s : {"f:x", R"(k:{"name":"a"})", R"(v:1)", "i:7"}) {
    auto pe = PathElement::Parse(s);
    ASSERT_TRUE(pe.ok()) << s;
    EXPECT_EQ(pe->ToFieldsV1Key(), s);
  }
  EXPECT_FALSE(PathElement::Parse("x:1").ok());
  EXPECT_FALSE(PathElement::Parse("i:1a").ok());
  EXPECT_FALSE(PathElement::Parse("k:[1]").ok());
}

TEST(PathElementTest, OrderIsFieldsKeysValuesIndices) {
  EXPECT_LT(PathElement::Field("z"), PathElement::Key({{"a", 1}}));
  EXPECT_LT(PathElement::Key({{"a", 1}}), PathElement::Value(0));
  EXPECT_LT(PathElement::Value("z"), PathElement::Index(0));
  EXPECT_LT(PathElement::Key({{"port", 9}}), PathElement::Key({{"port", 10}}));  // numeric, not text
  EXPECT_LT(PathElement::Value(2), PathElement::Value("1"));  // numbers before strings
}

TEST(FieldSetTest, FieldsV1RoundTripWithDot) {
  const std::string text =
      R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{}}}}})";
  const FieldSet s = Set(text);
  EXPECT_EQ(V1(s), text);
  EXPECT_EQ(s.Size(), 5u);
  EXPECT_TRUE(s.Has({PathElement::Field("metadata"), PathElement::Field("labels")}));
  EXPECT_FALSE(s.Has({PathElement::Field("metadata")}));
  EXPECT_TRUE(s.HasMemberBelow({PathElement::Field("spec")}));
  EXPECT_FALSE(FieldSet::FromFieldsV1(J(R"({"f:a":1})")).ok());
  EXPECT_FALSE(FieldSet::FromFieldsV1(J(R"({"q:a":{}})")).ok());
}

TEST(FieldSetTest, SetAlgebra) {
  const FieldSet a = Set(R"({"f:a":{},"f:b":{"f:c":{},"f:d":{}}})");
  const FieldSet b = Set(R"({"f:b":{"f:c":{}},"f:e":{}})");
  EXPECT_EQ(V1(a.Union(b)), R"({"f:a":{},"f:b":{"f:c":{},"f:d":{}},"f:e":{}})");
  EXPECT_EQ(V1(a.Difference(b)), R"({"f:a":{},"f:b":{"f:d":{}}})");
  EXPECT_EQ(V1(a.Intersection(b)), R"({"f:b":{"f:c":{}}})");
  EXPECT_TRUE(a.Difference(a).Empty());
  EXPECT_TRUE(a.Union(b) == b.Union(a));
  EXPECT_FALSE(a == b);
  std::vector<std::string> order;
  a.Union(b).Iterate([&](const FieldPath& p) { order.push_back(PathString(p)); });
  EXPECT_EQ(order, (std::vector<std::string>{".a", ".e", ".b.c", ".b.d"}));
}

TEST(LeafFieldSetTest, ListAndMapTypes) {
  const auto schema = PodSchema();
  const auto set = LeafFieldSet(
      J(R"({"metadata":{"labels":{"app":"x"},"finalizers":["f1"]},
            "spec":{"selector":{"a":"b"},"args":["x","y"],
                    "containers":[{"name":"c","image":"i","ports":[{"containerPort":80}]}]}})"),
      schema.get());
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ(V1(*set),
            R"({"f:metadata":{"f:finalizers":{"v:\"f1\"":{}},"f:labels":{"f:app":{}}},)"
            R"("f:spec":{"f:args":{},"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{},)"
            R"("f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}},)"
            R"("f:selector":{}}})");
}

TEST(LeafFieldSetTest, NullSchemaListsAtomicMapsGranular) {
  const auto set = LeafFieldSet(J(R"({"data":{"k":"v","e":{}},"items":[1,2],"n":null})"), nullptr);
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(V1(*set), R"({"f:data":{"f:e":{},"f:k":{}},"f:items":{},"f:n":{}})");
}

TEST(LeafFieldSetTest, MapListElementMissingKey) {
  const auto schema = PodSchema();
  const auto set = LeafFieldSet(J(R"({"spec":{"containers":[{"image":"i"}]}})"), schema.get());
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.error().message.find(R"(.spec.containers: element 0: associative list with keys has an element that omits key field "name")"),
            std::string::npos)
      << set.error().message;
}

TEST(CompareTest, AddedModifiedRemovedWithNodes) {
  const auto schema = PodSchema();
  const auto lhs = J(R"({"metadata":{"labels":{"a":"1"}},"spec":{"containers":[{"name":"c","image":"i1"},{"name":"d","image":"x"}]}})");
  const auto rhs = J(R"({"metadata":{"labels":{"a":"2"},"annotations":{"n":"v"}},"spec":{"containers":[{"name":"c","image":"i2"}]}})");
  auto c = CompareObjects(&lhs, &rhs, schema.get());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(V1(c->modified), R"({"f:metadata":{"f:labels":{"f:a":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{"f:image":{}}}}})");
  EXPECT_EQ(V1(c->added), R"({"f:metadata":{"f:annotations":{".":{},"f:n":{}}}})");
  EXPECT_EQ(V1(c->removed), R"({"f:spec":{"f:containers":{"k:{\"name\":\"d\"}":{".":{},"f:image":{},"f:name":{}}}}})");
  auto same = CompareObjects(&lhs, &lhs, schema.get());
  ASSERT_TRUE(same.ok());
  EXPECT_TRUE(same->added.Empty() && same->modified.Empty() && same->removed.Empty());
}

TEST(CompareTest, AnEmptyMapGoOmitsCountsAsAbsentExceptInAMergeResult) {
  const auto schema = BuiltinSchema(BuiltinKind::kConfigMap);
  ASSERT_NE(schema, nullptr);
  const auto live = J(R"({"metadata":{"name":"o"}})");
  const auto updated = J(R"({"metadata":{"name":"o"},"data":{}})");
  auto encoded = CompareObjects(&live, &updated, schema.get());
  ASSERT_TRUE(encoded.ok());
  EXPECT_TRUE(encoded->added.Empty());  // an update's object went through Go: data is not there
  auto merged = CompareObjects(&live, &updated, schema.get(), {}, /*rhs_merged=*/true);
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(V1(merged->added), R"({"f:data":{}})");  // an apply's merge result has it
}

TEST(MergeAppliedTest, MergesByListAndMapType) {
  const auto schema = PodSchema();
  const auto live = J(R"({"metadata":{"labels":{"a":"1"},"finalizers":["x"]},
      "spec":{"selector":{"a":"b","c":"d"},"args":["1","2"],
              "containers":[{"name":"a","image":"ia"},{"name":"b","image":"ib","tty":true}]}})");
  const auto config = J(R"({"metadata":{"labels":{"b":"2"},"finalizers":["y"]},
      "spec":{"selector":{"e":"f"},"args":["3"],"containers":[{"name":"b","image":"ib2"},{"name":"c","image":"ic"}]}})");
  auto merged = MergeApplied(live, config, schema.get());
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_EQ(SerializeJson(*merged),
            R"({"metadata":{"labels":{"a":"1","b":"2"},"finalizers":["x","y"]},)"
            R"("spec":{"selector":{"e":"f"},"args":["3"],"containers":[{"name":"a","image":"ia"},)"
            R"({"name":"b","image":"ib2","tty":true},{"name":"c","image":"ic"}]}})");
  // Without a schema every list is atomic.
  auto atomic = MergeApplied(live, config, nullptr);
  ASSERT_TRUE(atomic.ok());
  EXPECT_EQ(SerializeJson(atomic->as_object().at("spec").at("containers")),
            R"([{"name":"b","image":"ib2"},{"name":"c","image":"ic"}])");
}

TEST(MergeAppliedTest, SharedElementsFollowTheConfigurationOrder) {
  const auto schema = PodSchema();
  const auto live = J(R"({"spec":{"containers":[{"name":"a"},{"name":"x"},{"name":"b"}]}})");
  const auto config = J(R"({"spec":{"containers":[{"name":"b"},{"name":"a"}]}})");
  auto merged = MergeApplied(live, config, schema.get());
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(SerializeJson(merged->as_object().at("spec").at("containers")),
            R"([{"name":"x"},{"name":"b"},{"name":"a"}])");
}

TEST(RemoveFieldsTest, KeepsNodesOwnedBelowAndKeyFields) {
  const auto schema = PodSchema();
  auto obj = J(R"({"data":{"a":"1","b":"2"},"spec":{"containers":[{"name":"c","image":"i","tty":true},{"name":"d"}]}})");
  const FieldSet remove = Set(
      R"({"f:data":{"f:a":{}},"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:name":{},"f:tty":{}},"k:{\"name\":\"d\"}":{".":{},"f:name":{}}}}})");
  const FieldSet keep = Set(R"({"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{"f:image":{}}}}})");
  RemoveFields(obj, remove, keep, schema.get());
  EXPECT_EQ(SerializeJson(obj), R"({"data":{"b":"2"},"spec":{"containers":[{"name":"c","image":"i"}]}})");
}

WriteManager Who(std::string manager, std::string time = "2026-01-01T00:00:00Z") {
  return WriteManager{std::move(manager), "v1", "", std::move(time)};
}

TEST(TrackUpdateTest, CreateRecordsAnUpdateEntry) {
  json::object obj = O(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"b"}},"data":{"k":"v"}})");
  TrackUpdate(nullptr, obj, Who("kubectl-create"), nullptr);
  EXPECT_EQ(SerializeJson(obj.at("metadata").at("managedFields")),
            R"([{"manager":"kubectl-create","operation":"Update","apiVersion":"v1","time":"2026-01-01T00:00:00Z",)"
            R"("fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:k":{}},"f:metadata":{"f:labels":{".":{},"f:a":{}}}}}])");
}

TEST(TrackUpdateTest, ChangedFieldsMoveAndNoChangeKeepsTime) {
  json::object live = O(R"({"metadata":{"name":"c"},"data":{"a":"1","b":"2"}})");
  TrackUpdate(nullptr, live, Who("one"), nullptr);
  // "two" changes a and removes b: "one" keeps nothing and its entry goes away.
  json::object next = O(R"({"metadata":{"name":"c"},"data":{"a":"9","c":"3"}})");
  TrackUpdate(&live, next, Who("two", "2026-01-01T00:00:05Z"), nullptr);
  auto entries = DecodeManagedFields(next);
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0].manager, "one");
  EXPECT_EQ(V1((*entries)[0].fields), R"({"f:data":{}})");
  EXPECT_EQ((*entries)[1].manager, "two");
  EXPECT_EQ(V1((*entries)[1].fields), R"({"f:data":{"f:a":{},"f:c":{}}})");
  // An update that changes nothing leaves managedFields byte-identical.
  json::object again = next;
  TrackUpdate(&next, again, Who("three", "2026-01-01T00:01:00Z"), nullptr);
  EXPECT_EQ(SerializeJson(again), SerializeJson(next));
}

TEST(TrackUpdateTest, UntrackedObjectsStayUntrackedAndResetClears) {
  const json::object live = O(R"({"metadata":{"name":"c"},"data":{"a":"1"}})");
  json::object next = O(R"({"metadata":{"name":"c"},"data":{"a":"2"}})");
  TrackUpdate(&live, next, Who("m"), nullptr);
  EXPECT_FALSE(next.at("metadata").as_object().contains("managedFields"));

  json::object tracked = live;
  TrackUpdate(nullptr, tracked, Who("m"), nullptr);
  json::object reset = tracked;
  reset["metadata"].as_object()["managedFields"] = J("[{}]");
  TrackUpdate(&tracked, reset, Who("m"), nullptr);
  EXPECT_FALSE(reset.at("metadata").as_object().contains("managedFields"));
}

TEST(TrackUpdateTest, MoreThanTenUpdateManagersAreBucketed) {
  json::object obj = O(R"({"metadata":{"name":"c"},"data":{}})");
  TrackUpdate(nullptr, obj, Who("m00", "2026-01-01T00:00:00Z"), nullptr);
  for (int i = 1; i <= 11; ++i) {
    json::object next = obj;
    next["data"].as_object()["k" + std::to_string(i)] = "v";
    char name[16];  // room for any int: -O1 builds warn (format-truncation) otherwise
    std::snprintf(name, sizeof name, "m%02d", i);
    char time[32];
    std::snprintf(time, sizeof time, "2026-01-01T00:00:%02dZ", i);
    TrackUpdate(&obj, next, Who(name, time), nullptr);
    obj = std::move(next);
  }
  auto entries = DecodeManagedFields(obj);
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 10u);
  // m00 (data) and m01 (k1), then m02 (k2) were merged into the bucket, which takes m02's time.
  EXPECT_EQ((*entries)[0].manager, "ancient-changes");
  EXPECT_EQ((*entries)[0].time, "2026-01-01T00:00:02Z");
  EXPECT_EQ(V1((*entries)[0].fields), R"({"f:data":{".":{},"f:k1":{},"f:k2":{}}})");
  EXPECT_EQ((*entries)[1].manager, "m03");
}

TEST(TrackUpdateTest, ImplicitTopLevelStructsGetNoDotEntry) {
  json::object live = O(R"({"metadata":{"name":"d"},"spec":{"a":1}})");
  TrackUpdate(nullptr, live, Who("m"), nullptr, TrackOptions{{"spec", "status"}, {}});
  EXPECT_EQ(SerializeJson(live.at("metadata").at("managedFields").at(0).at("fieldsV1")), R"({"f:spec":{"f:a":{}}})");
  json::object next = live;
  next["status"] = J(R"({"ready":true})");
  TrackUpdate(&live, next, WriteManager{"ctl", "v1", "status", "2026-01-01T00:00:01Z"}, nullptr,
              TrackOptions{{"spec", "status"}, {}});
  EXPECT_EQ(SerializeJson(next.at("metadata").at("managedFields").at(1).at("fieldsV1")), R"({"f:status":{"f:ready":{}}})");
  // Without the option the new member is a node of its own.
  json::object plain = live;
  plain["status"] = J(R"({"ready":true})");
  TrackUpdate(&live, plain, Who("ctl", "2026-01-01T00:00:01Z"), nullptr);
  EXPECT_EQ(SerializeJson(plain.at("metadata").at("managedFields").at(1).at("fieldsV1")),
            R"({"f:status":{".":{},"f:ready":{}}})");
}

TEST(TrackUpdateTest, SubresourceAndApiVersionIdentifyEntries) {
  json::object live = O(R"({"metadata":{"name":"c"},"spec":{"a":1}})");
  TrackUpdate(nullptr, live, Who("m"), nullptr);
  json::object next = O(R"({"metadata":{"name":"c"},"spec":{"a":1},"status":{"s":1}})");
  TrackUpdate(&live, next, WriteManager{"m", "v1", "status", "2026-01-01T00:00:01Z"}, nullptr);
  auto entries = DecodeManagedFields(next);
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[1].subresource, "status");
  EXPECT_EQ((*entries)[1].Describe(), R"("m" with subresource "status" using v1)");
}

TEST(ApplyTest, CreateThenPruneDroppedFields) {
  const auto schema = PodSchema();
  auto first = ApplyConfiguration(nullptr, O(R"({"metadata":{"name":"p","labels":{"a":"1","b":"2"}}})"), Who("kubectl"),
                                  false, schema.get());
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_TRUE(first->changed);
  EXPECT_EQ(SerializeJson(first->object.at("metadata").at("managedFields")),
            R"([{"manager":"kubectl","operation":"Apply","apiVersion":"v1","time":"2026-01-01T00:00:00Z",)"
            R"("fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:a":{},"f:b":{}}}}}])");
  auto second = ApplyConfiguration(&first->object, O(R"({"metadata":{"name":"p","labels":{"a":"1"}}})"),
                                   Who("kubectl"), false, schema.get());
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(SerializeJson(second->object.at("metadata").at("labels")), R"({"a":"1"})");
  // The same configuration again changes nothing.
  auto third = ApplyConfiguration(&second->object, O(R"({"metadata":{"name":"p","labels":{"a":"1"}}})"),
                                  Who("kubectl", "2026-02-02T00:00:00Z"), false, schema.get());
  ASSERT_TRUE(third.ok());
  EXPECT_FALSE(third->changed);
  EXPECT_EQ(SerializeJson(third->object), SerializeJson(second->object));
}

TEST(ApplyTest, ConflictsSharedOwnershipAndForce) {
  json::object live = O(R"({"metadata":{"name":"c"},"data":{"k":"v","o":"x"}})");
  TrackUpdate(nullptr, live, WriteManager{"kube-controller-manager", "v1", "", "2026-01-01T00:00:00Z"}, nullptr);
  // Same value: shared ownership, no conflict.
  auto shared = ApplyConfiguration(&live, O(R"({"data":{"k":"v"}})"), Who("a"), false, nullptr);
  ASSERT_TRUE(shared.ok());
  EXPECT_FALSE(shared->changed);
  // Different values: conflicts, listed like kube.
  auto conflict = ApplyConfiguration(&live, O(R"({"data":{"k":"w"}})"), Who("a"), false, nullptr);
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.error().code, 409);
  EXPECT_EQ(conflict.error().message, R"(Apply failed with 1 conflict: conflict with "kube-controller-manager" using v1: .data.k)");
  ASSERT_TRUE(conflict.error().details.has_value());
  ASSERT_EQ(conflict.error().details->causes.size(), 1u);
  EXPECT_EQ(conflict.error().details->causes[0].reason, "FieldManagerConflict");
  EXPECT_EQ(conflict.error().details->causes[0].field, ".data.k");
  auto two = ApplyConfiguration(&live, O(R"({"data":{"k":"w","o":"y"}})"), Who("a"), false, nullptr);
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.error().message, "Apply failed with 2 conflicts: conflicts with \"kube-controller-manager\" using v1:\n"
                                 "- .data.k\n- .data.o");
  // force takes the field.
  auto forced = ApplyConfiguration(&live, O(R"({"data":{"k":"w"}})"), Who("a"), true, nullptr);
  ASSERT_TRUE(forced.ok());
  auto entries = DecodeManagedFields(forced->object);
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0].operation, "Apply");
  EXPECT_EQ(V1((*entries)[0].fields), R"({"f:data":{"f:k":{}}})");
  EXPECT_EQ(V1((*entries)[1].fields), R"({"f:data":{".":{},"f:o":{}}})");
}

TEST(ApplyTest, SharedFieldSurvivesWhenOneManagerDropsIt) {
  auto a = ApplyConfiguration(nullptr, O(R"({"data":{"k":"v"}})"), Who("a"), false, nullptr);
  ASSERT_TRUE(a.ok());
  auto b = ApplyConfiguration(&a->object, O(R"({"data":{"k":"v"}})"), Who("b"), false, nullptr);
  ASSERT_TRUE(b.ok());
  auto dropped = ApplyConfiguration(&b->object, O(R"({"data":{}})"), Who("a"), false, nullptr);
  ASSERT_TRUE(dropped.ok());
  EXPECT_EQ(SerializeJson(dropped->object.at("data")), R"({"k":"v"})");
  auto gone = ApplyConfiguration(&dropped->object, O(R"({"data":{}})"), Who("b"), false, nullptr);
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(SerializeJson(gone->object.at("data")), R"({})");
}

TEST(ManagedEntriesTest, DecodeRejectsBadEntriesAndEncodeSorts) {
  EXPECT_FALSE(DecodeManagedFields(O(R"({"metadata":{"managedFields":[{"manager":"a","fieldsV1":{}}]}})")).ok());
  EXPECT_FALSE(DecodeManagedFields(O(R"({"metadata":{"managedFields":[{"manager":"a","fieldsType":"FieldsV2"}]}})")).ok());
  EXPECT_FALSE(
      DecodeManagedFields(O(R"({"metadata":{"managedFields":[{"manager":"a","fieldsType":"FieldsV1","fieldsV1":{"x":{}}}]}})")).ok());
  json::object obj = O(R"({"metadata":{"name":"x"}})");
  std::vector<ManagedEntry> entries = {
      {"z", "Update", "v1", "2026-01-01T00:00:02Z", "", Set(R"({"f:a":{}})")},
      {"y", "Update", "v1", "2026-01-01T00:00:01Z", "", Set(R"({"f:b":{}})")},
      {"x", "Apply", "v1", "2026-01-01T00:00:09Z", "", Set(R"({"f:c":{}})")},
      {"w", "Update", "v1", "2026-01-01T00:00:00Z", "", FieldSet()},  // empty: dropped
  };
  EncodeManagedFields(obj, entries);
  auto back = DecodeManagedFields(obj);
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->size(), 3u);
  EXPECT_EQ((*back)[0].manager, "x");
  EXPECT_EQ((*back)[1].manager, "y");
  EXPECT_EQ((*back)[2].manager, "z");
  EncodeManagedFields(obj, {});
  EXPECT_FALSE(obj.at("metadata").as_object().contains("managedFields"));
}

TEST(ApplyTest, ApplyEntryIgnoresApiVersionButUpdateEntriesDoNot) {
  ManagedEntry apply_v1{"m", "Apply", "v1", "", "", {}};
  ManagedEntry apply_v2{"m", "Apply", "v2", "", "", {}};
  ManagedEntry update_v1{"m", "Update", "v1", "", "", {}};
  ManagedEntry update_v2{"m", "Update", "v2", "", "", {}};
  ManagedEntry status{"m", "Update", "v1", "", "status", {}};
  EXPECT_TRUE(apply_v1.SameManager(apply_v2));
  EXPECT_FALSE(update_v1.SameManager(update_v2));
  EXPECT_FALSE(update_v1.SameManager(status));
  EXPECT_FALSE(update_v1.SameManager(apply_v1));
  EXPECT_EQ(apply_v1.Describe(), R"("m")");
}

TEST(ApplyTest, MissingListMapKeyIsAnError) {
  const auto schema = PodSchema();
  auto res = ApplyConfiguration(nullptr, O(R"({"spec":{"containers":[{"image":"x"}]}})"), Who("m"), false, schema.get());
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.error().code, 500);
  EXPECT_NE(res.error().message.find("failed to create typed patch object"), std::string::npos) << res.error().message;
}

TEST(ManagerTest, UserAgentPrefixAndValidation) {
  EXPECT_EQ(ManagerFromUserAgent("kubectl/v1.32.0 (linux/amd64) kubernetes/abc"), "kubectl");
  EXPECT_EQ(ManagerFromUserAgent("python\x01-client"), "python-client");
  EXPECT_EQ(ManagerFromUserAgent(std::string(200, 'a')).size(), 128u);
  EXPECT_TRUE(ValidateFieldManager(std::string(128, 'a')).empty());
  const auto errs = ValidateFieldManager(std::string(129, 'a'));
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].String(), "fieldManager: Too long: may not be more than 128 bytes");
}

TEST(ParseYamlTest, Yaml11Scalars) {
  auto v = ParseYaml("a: 1\nb: yes\nc: \"yes\"\nd: 1.5\ne: ~\nf: [x, 2]\ng: text\n");
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(SerializeJson(*v), R"({"a":1,"b":true,"c":"yes","d":1.5E0,"e":null,"f":["x",2],"g":"text"})");
  auto j = ParseYaml(R"({"apiVersion":"v1","n":{"x":[1,"2"]}})");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(SerializeJson(*j), R"({"apiVersion":"v1","n":{"x":[1,"2"]}})");
  auto bad = ParseYaml("a: [1,\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, 400);
  EXPECT_EQ(bad.error().message.rfind("error decoding YAML: ", 0), 0u);
}

TEST(ParseYamlTest, RepeatedKeysKeepTheLastValueAndAreReportedWithTheirLine) {
  std::vector<std::string> strict;
  auto v = ParseYaml("metadata:\n  name: y\n  name: z\ndata:\n  a: '1'\n  b: '2'\n  a: '3'\n", &strict);
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(SerializeJson(*v), R"({"metadata":{"name":"z"},"data":{"a":"3","b":"2"}})");
  EXPECT_EQ(strict, (std::vector<std::string>{R"(line 3: key "name" already set in map)",
                                              R"(line 7: key "a" already set in map)"}));
  strict.clear();
  ASSERT_TRUE(ParseYaml("a: 1\nb: {c: 2}\n", &strict).ok());
  EXPECT_TRUE(strict.empty());
  EXPECT_TRUE(ParseYaml("a: 1\na: 2\n").ok());  // without a collector: lenient, as kube's default decoder
}

}  // namespace
}  // namespace kube::apiserver::rest
