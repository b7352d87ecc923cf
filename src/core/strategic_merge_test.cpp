#include <kube/core/strategic_merge.hpp>

#include <string>
#include <string_view>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <kube/base/error.hpp>
#include <kube/core/json_pointer.hpp>
#include <kube/core/type_schema.hpp>

namespace kube {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;

json::value J(std::string_view text) { return json::parse(text); }

// A pod-like schema with kube's patch metadata.
const TypeSchema* Schema() {
  static const TypeSchemaPtr schema = [] {
    auto s = ParseTypeSchema(R"({"type":"object","properties":{
      "metadata":{"type":"object","properties":{
        "finalizers":{"type":"array","items":{"type":"string"},"x-kubernetes-patch-strategy":"merge","x-kubernetes-list-type":"set"},
        "ownerReferences":{"type":"array","items":{"type":"object"},"x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"uid"},
        "labels":{"type":"object","additionalProperties":{"type":"string"}}}},
      "spec":{"type":"object","properties":{
        "containers":{"type":"array","x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"name",
          "items":{"type":"object","properties":{
            "env":{"type":"array","x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"name","items":{"type":"object"}},
            "args":{"type":"array","items":{"type":"string"}}}}},
        "volumes":{"type":"array","x-kubernetes-patch-strategy":"merge,retainKeys","x-kubernetes-patch-merge-key":"name","items":{"type":"object"}},
        "tolerations":{"type":"array","items":{"type":"object"}},
        "strategy":{"type":"object","x-kubernetes-patch-strategy":"retainKeys"},
        "nodeSelector":{"type":"object","x-kubernetes-patch-strategy":"replace","additionalProperties":{"type":"string"}}}}}})");
    EXPECT_TRUE(s.ok());
    return *s;
  }();
  return schema.get();
}

json::value Apply(std::string_view original, std::string_view patch, const TypeSchema* schema = Schema()) {
  auto r = ApplyStrategicMergePatch(J(original), J(patch), schema);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? *r : json::value();
}

Error ApplyError(std::string_view original, std::string_view patch) {
  auto r = ApplyStrategicMergePatch(J(original), J(patch), Schema());
  EXPECT_FALSE(r.ok()) << json::serialize(*r);
  return r.ok() ? Error{} : r.error();
}

TEST(StrategicMerge, MapsMergeRecursivelyNullDeletesScalarsReplace) {
  EXPECT_EQ(Apply(R"({"a":{"b":1,"c":2},"d":"x"})", R"({"a":{"b":null,"e":3},"d":"y"})"),
            J(R"({"a":{"c":2,"e":3},"d":"y"})"));
  // A null for an absent member is ignored (IgnoreUnmatchedNulls); nulls inside new values go.
  EXPECT_EQ(Apply(R"({})", R"({"x":null,"y":{"z":null,"w":1}})"), J(R"({"y":{"w":1}})"));
}

TEST(StrategicMerge, ListsWithoutMergeStrategyAreReplaced) {
  EXPECT_EQ(Apply(R"({"spec":{"tolerations":[{"key":"a"},{"key":"b"}]}})", R"({"spec":{"tolerations":[{"key":"c"}]}})"),
            J(R"({"spec":{"tolerations":[{"key":"c"}]}})"));
  // Unknown members and a null schema: replaced too.
  EXPECT_EQ(Apply(R"({"spec":{"other":[1,2]}})", R"({"spec":{"other":[3]}})"), J(R"({"spec":{"other":[3]}})"));
  EXPECT_EQ(Apply(R"({"spec":{"containers":[{"name":"a"}]}})", R"({"spec":{"containers":[{"name":"b"}]}})", nullptr),
            J(R"({"spec":{"containers":[{"name":"b"}]}})"));
}

TEST(StrategicMerge, ListsOfObjectsMergeByKeyAndNewElementsPrecedeLiveOnlyOnes) {
  const auto out = Apply(
      R"({"spec":{"containers":[{"name":"a","image":"a:1"},{"name":"b","image":"b:1","env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}]}]}})",
      R"({"spec":{"containers":[{"name":"b","image":"b:2","env":[{"name":"Y","value":"3"},{"name":"Z","value":"4"}]},{"name":"c","image":"c:1"}]}})");
  // kube: `b` keeps its live position relative to `a`; the new `c` follows the patch order and
  // comes before the live-only elements that the merge walk has not placed yet; env merges by name.
  EXPECT_EQ(out, J(R"({"spec":{"containers":[{"name":"a","image":"a:1"},
      {"name":"b","image":"b:2","env":[{"name":"X","value":"1"},{"name":"Y","value":"3"},{"name":"Z","value":"4"}]},
      {"name":"c","image":"c:1"}]}})"));
  // A new element alone goes first (kube's documented `kubectl patch` result).
  EXPECT_EQ(Apply(R"({"spec":{"containers":[{"name":"a"}]}})", R"({"spec":{"containers":[{"name":"n"}]}})"),
            J(R"({"spec":{"containers":[{"name":"n"},{"name":"a"}]}})"));
}

TEST(StrategicMerge, PrimitiveMergeListsAreSetUnions) {
  EXPECT_EQ(Apply(R"({"metadata":{"finalizers":["a","b"]}})", R"({"metadata":{"finalizers":["b","c"]}})"),
            J(R"({"metadata":{"finalizers":["a","b","c"]}})"));
  EXPECT_EQ(Apply(R"({"metadata":{"finalizers":["a"]}})", R"({"metadata":{"finalizers":["c"]}})"),
            J(R"({"metadata":{"finalizers":["c","a"]}})"));
  EXPECT_EQ(Apply(R"({"metadata":{}})", R"({"metadata":{"finalizers":["x"]}})"),
            J(R"({"metadata":{"finalizers":["x"]}})"));
}

TEST(StrategicMerge, PatchDeleteElementRemovesEveryMatchByMergeKey) {
  EXPECT_EQ(Apply(R"({"metadata":{"ownerReferences":[{"uid":"1","name":"a"},{"uid":"2","name":"b"}]}})",
                  R"({"metadata":{"ownerReferences":[{"uid":"1","$patch":"delete"}]}})"),
            J(R"({"metadata":{"ownerReferences":[{"uid":"2","name":"b"}]}})"));
  EXPECT_EQ(Apply(R"({"spec":{"containers":[{"name":"a"},{"name":"b"}]}})",
                  R"({"spec":{"containers":[{"$patch":"delete","name":"a"},{"name":"c"}]}})"),
            J(R"({"spec":{"containers":[{"name":"c"},{"name":"b"}]}})"));
}

TEST(StrategicMerge, ListLevelReplaceKeepsOnlyThePatchElements) {
  EXPECT_EQ(Apply(R"({"spec":{"containers":[{"name":"a","image":"x"},{"name":"b"}]}})",
                  R"({"spec":{"containers":[{"name":"a"},{"$patch":"replace"}]}})"),
            J(R"({"spec":{"containers":[{"name":"a"}]}})"));
  EXPECT_EQ(Apply(R"({"spec":{"containers":[{"name":"a"}]}})", R"({"spec":{"containers":[{"$patch":"replace"}]}})"),
            J(R"({"spec":{"containers":[]}})"));
}

TEST(StrategicMerge, MapDirectivesReplaceAndDelete) {
  EXPECT_EQ(Apply(R"({"metadata":{"labels":{"a":"1","b":"2"}}})", R"({"metadata":{"labels":{"$patch":"replace","c":"3"}}})"),
            J(R"({"metadata":{"labels":{"c":"3"}}})"));
  EXPECT_EQ(Apply(R"({"metadata":{"labels":{"a":"1"}}})", R"({"metadata":{"labels":{"$patch":"delete"}}})"),
            J(R"({"metadata":{"labels":{}}})"));
  // A new member whose value carries $patch is dropped (kube's removeDirectives).
  EXPECT_EQ(Apply(R"({"spec":{}})", R"({"spec":{"x":{"$patch":"delete"},"y":[{"$patch":"replace"},{"k":1}]}})"),
            J(R"({"spec":{"y":[{"k":1}]}})"));
  // A field with patchStrategy replace takes the patch map whole.
  EXPECT_EQ(Apply(R"({"spec":{"nodeSelector":{"a":"1"}}})", R"({"spec":{"nodeSelector":{"b":"2"}}})"),
            J(R"({"spec":{"nodeSelector":{"b":"2"}}})"));
}

TEST(StrategicMerge, DeleteFromPrimitiveList) {
  EXPECT_EQ(Apply(R"({"metadata":{"finalizers":["a","b","c"]}})",
                  R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["b","x"]}})"),
            J(R"({"metadata":{"finalizers":["a","c"]}})"));
  // Together with additions in the same patch.
  EXPECT_EQ(Apply(R"({"spec":{"containers":[{"name":"a","args":["1","2"]}]}})",
                  R"({"spec":{"containers":[{"name":"a","$deleteFromPrimitiveList/args":["1"]}]}})"),
            J(R"({"spec":{"containers":[{"name":"a","args":["2"]}]}})"));
  // Absent list: nothing to delete, nothing added.
  EXPECT_EQ(Apply(R"({"metadata":{}})", R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]}})"),
            J(R"({"metadata":{}})"));
}

TEST(StrategicMerge, SetElementOrderDecidesTheFinalOrder) {
  EXPECT_EQ(Apply(R"({"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}})",
                  R"({"spec":{"$setElementOrder/containers":[{"name":"c"},{"name":"a"},{"name":"b"}]}})"),
            J(R"({"spec":{"containers":[{"name":"c"},{"name":"a"},{"name":"b"}]}})"));
  // kubectl apply adding `d` at the end and changing `b`.
  EXPECT_EQ(Apply(R"({"spec":{"containers":[{"name":"a"},{"name":"b","image":"1"}]}})",
                  R"({"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"b"},{"name":"d"}],
                      "containers":[{"name":"b","image":"2"},{"name":"d"}]}})"),
            J(R"({"spec":{"containers":[{"name":"a"},{"name":"b","image":"2"},{"name":"d"}]}})"));
  // Primitive lists.
  EXPECT_EQ(Apply(R"({"metadata":{"finalizers":["a","b"]}})",
                  R"({"metadata":{"$setElementOrder/finalizers":["c","b","a"],"finalizers":["c"]}})"),
            J(R"({"metadata":{"finalizers":["c","b","a"]}})"));
}

TEST(StrategicMerge, SetElementOrderThatContradictsThePatchFails) {
  const Error e = ApplyError(R"({"spec":{"containers":[{"name":"a"},{"name":"b"}]}})",
                             R"({"spec":{"$setElementOrder/containers":[{"name":"a"}],"containers":[{"name":"b"}]}})");
  EXPECT_EQ(e.code, 500);
  EXPECT_THAT(e.message, HasSubstr("doesn't match $setElementOrder list"));
}

TEST(StrategicMerge, RetainKeysClearsUnlistedMembers) {
  EXPECT_EQ(Apply(R"({"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}}})",
                  R"({"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}})"),
            J(R"({"spec":{"strategy":{"type":"Recreate"}}})"));
  // A member in the patch but not in $retainKeys is a 400.
  const Error e = ApplyError(R"({"spec":{"strategy":{}}})", R"({"spec":{"strategy":{"$retainKeys":["a"],"b":1}}})");
  EXPECT_EQ(e.code, 400);
  EXPECT_EQ(e.message, "invalid patch format of retainKeys");
  EXPECT_EQ(ApplyError(R"({"spec":{}})", R"({"spec":{"$retainKeys":"a"}})").message, "invalid patch format of retainKeys");
}

TEST(StrategicMerge, VolumesWithMergeAndRetainKeysReplaceTheVolumeSource) {
  EXPECT_EQ(Apply(R"({"spec":{"volumes":[{"name":"v","emptyDir":{}}]}})",
                  R"({"spec":{"volumes":[{"name":"v","$retainKeys":["configMap","name"],"configMap":{"name":"c"}}]}})"),
            J(R"({"spec":{"volumes":[{"name":"v","configMap":{"name":"c"}}]}})"));
}

TEST(StrategicMerge, DirectiveErrorsCarryKubesCodesAndMessages) {
  Error e = ApplyError(R"({"metadata":{"labels":{}}})", R"({"metadata":{"labels":{"$patch":"bogus"}}})");
  EXPECT_EQ(e.code, 500);
  EXPECT_EQ(e.reason, "");
  EXPECT_EQ(e.message, "unknown patch type: bogus in map: map[$patch:bogus]");

  e = ApplyError(R"({"spec":{"containers":[{"name":"a"}]}})", R"({"spec":{"containers":[{"$patch":"delete"}]}})");
  EXPECT_EQ(e.message, "map: map[$patch:delete] does not contain declared merge key: name");

  e = ApplyError(R"({"spec":{"containers":[{"name":"a"}]}})", R"({"spec":{"containers":[{"$patch":"merge"}]}})");
  EXPECT_EQ(e.message, "merging lists cannot yet be specified in the patch");

  e = ApplyError(R"({"spec":{"containers":[{"name":"a"}]}})", R"({"spec":{"containers":[{"image":"x"}]}})");
  EXPECT_EQ(e.message, "map: map[image:x] does not contain declared merge key: name");

  e = ApplyError(R"({"metadata":{"finalizers":["a"]}})", R"({"metadata":{"$deleteFromPrimitiveList":["a"]}})");
  EXPECT_EQ(e.code, 400);
  EXPECT_EQ(e.message, "invalid patch format of primitive list");

  e = ApplyError(R"({"spec":{}})", R"({"spec":{"$setElementOrderX/containers":[]}})");
  EXPECT_EQ(e.code, 400);
  EXPECT_EQ(e.message, "invalid patch format of setElementOrder list");

  e = ApplyError(R"({"spec":{}})", R"({"spec":{"$setElementOrder/containers":"a"}})");
  EXPECT_EQ(e.message, "expected a []interface {}, but received a string");

  e = ApplyError(R"({"metadata":{"finalizers":[]}})", R"({"metadata":{"finalizers":[["b"]]}})");
  EXPECT_EQ(e.code, 422);
  EXPECT_EQ(e.reason, "Invalid");

  e = ApplyError(R"({"metadata":{"finalizers":["a"]}})", R"({"metadata":{"finalizers":[1]}})");
  EXPECT_EQ(e.code, 500);
  EXPECT_THAT(e.message, HasSubstr("list element types are not identical"));
}

TEST(StrategicMerge, NonObjectPatchIsABadRequest) {
  auto r = ApplyStrategicMergePatch(J("{}"), J("[1]"), Schema());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, 400);
  EXPECT_THAT(r.error().message, HasSubstr("cannot unmarshal array into Go value of type map[string]interface {}"));
}

TEST(StrategicMerge, DirectiveKeysNeverReachTheResult) {
  // A new container that carries nested directives keeps its data, not the directives.
  EXPECT_EQ(Apply(R"({"spec":{"containers":[]}})",
                  R"({"spec":{"containers":[{"name":"n","env":[{"name":"A"}],"$setElementOrder/env":[{"name":"A"}]}]}})"),
            J(R"({"spec":{"containers":[{"name":"n","env":[{"name":"A"}]}]}})"));
}

TEST(StrategicMerge, InputsAreNotModifiedAndTheResultIsIdempotentForPlainPatches) {
  const json::value original = J(R"({"metadata":{"finalizers":["a"]},"spec":{"containers":[{"name":"a"}]}})");
  const json::value patch = J(R"({"metadata":{"finalizers":["b"]},"spec":{"containers":[{"name":"a","image":"i"}]}})");
  const json::value original_copy = original;
  const json::value patch_copy = patch;
  auto once = ApplyStrategicMergePatch(original, patch, Schema());
  ASSERT_TRUE(once.ok());
  EXPECT_EQ(original, original_copy);
  EXPECT_EQ(patch, patch_copy);
  auto twice = ApplyStrategicMergePatch(*once, patch, Schema());
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(*twice, *once);
}

TEST(StrategicMerge, DeepPatchesAreRefusedInsteadOfRecursingWithoutBound) {
  std::string deep;
  std::string close;
  for (int i = 0; i < 1100; ++i) {
    deep += R"({"a":)";
    close += "}";
  }
  boost::json::parse_options opts;
  opts.max_depth = 5000;
  const json::value patch = json::parse(deep + "1" + close, {}, opts);
  const json::value original = patch;  // both deep, so the merge descends
  auto r = ApplyStrategicMergePatch(original, patch, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, 400);
}

}  // namespace
}  // namespace kube
