#include <kube/core/json_patch.hpp>

#include <string>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kube {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;

json::value J(std::string_view text) { return json::parse(text); }

// Applies `patch` to `doc` and expects success with a result JsonEqual to `expected`.
void ExpectPatched(std::string_view doc, std::string_view patch, std::string_view expected) {
  auto result = ApplyJsonPatch(J(doc), J(patch));
  ASSERT_TRUE(result.ok()) << result.error().ToString() << "\n doc: " << doc
                           << "\n patch: " << patch;
  EXPECT_TRUE(JsonEqual(*result, J(expected)))
      << "got " << json::serialize(*result) << ", want " << expected;
}

// Applies `patch` to `doc` and returns the error, failing the test when the patch applies.
Error PatchError(std::string_view doc, std::string_view patch,
                 const JsonPatchOptions& options = {}) {
  auto result = ApplyJsonPatch(J(doc), J(patch), options);
  EXPECT_FALSE(result.ok()) << "unexpectedly applied: " << json::serialize(result.value());
  return result.ok() ? Error{} : result.error();
}

// ---------------------------------------------------------------------------------------------
// RFC 6902 Appendix A, every example.

TEST(JsonPatchRfc6902, A1AddingAnObjectMember) {
  ExpectPatched(R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux"}])",
                R"({"baz":"qux","foo":"bar"})");
}

TEST(JsonPatchRfc6902, A2AddingAnArrayElement) {
  ExpectPatched(R"({"foo":["bar","baz"]})", R"([{"op":"add","path":"/foo/1","value":"qux"}])",
                R"({"foo":["bar","qux","baz"]})");
}

TEST(JsonPatchRfc6902, A3RemovingAnObjectMember) {
  ExpectPatched(R"({"baz":"qux","foo":"bar"})", R"([{"op":"remove","path":"/baz"}])",
                R"({"foo":"bar"})");
}

TEST(JsonPatchRfc6902, A4RemovingAnArrayElement) {
  ExpectPatched(R"({"foo":["bar","qux","baz"]})", R"([{"op":"remove","path":"/foo/1"}])",
                R"({"foo":["bar","baz"]})");
}

TEST(JsonPatchRfc6902, A5ReplacingAValue) {
  ExpectPatched(R"({"baz":"qux","foo":"bar"})", R"([{"op":"replace","path":"/baz","value":"boo"}])",
                R"({"baz":"boo","foo":"bar"})");
}

TEST(JsonPatchRfc6902, A6MovingAValue) {
  ExpectPatched(R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
                R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])",
                R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})");
}

TEST(JsonPatchRfc6902, A7MovingAnArrayElement) {
  ExpectPatched(R"({"foo":["all","grass","cows","eat"]})",
                R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])",
                R"({"foo":["all","cows","eat","grass"]})");
}

TEST(JsonPatchRfc6902, A8TestingAValueSuccess) {
  ExpectPatched(
      R"({"baz":"qux","foo":["a",2,"c"]})",
      R"([{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}])",
      R"({"baz":"qux","foo":["a",2,"c"]})");
}

TEST(JsonPatchRfc6902, A9TestingAValueError) {
  const auto err = PatchError(R"({"baz":"qux"})", R"([{"op":"test","path":"/baz","value":"bar"}])");
  EXPECT_TRUE(IsInvalid(err));
  EXPECT_EQ(
      err.message,
      R"(jsonpatch operation 0 (test) failed: path "/baz": test failed: found "qux", expected "bar")");
}

TEST(JsonPatchRfc6902, A10AddingANestedMemberObject) {
  ExpectPatched(R"({"foo":"bar"})", R"([{"op":"add","path":"/child","value":{"grandchild":{}}}])",
                R"({"foo":"bar","child":{"grandchild":{}}})");
}

TEST(JsonPatchRfc6902, A11IgnoringUnrecognizedElements) {
  ExpectPatched(R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux","xyz":123}])",
                R"({"foo":"bar","baz":"qux"})");
}

TEST(JsonPatchRfc6902, A12AddingToANonexistentTarget) {
  const auto err =
      PatchError(R"({"foo":"bar"})", R"([{"op":"add","path":"/baz/bat","value":"qux"}])");
  EXPECT_TRUE(IsInvalid(err));
  EXPECT_EQ(err.message,
            R"(jsonpatch operation 0 (add) failed: path "/baz/bat": missing value at "/baz")");
}

// A.13's duplicate "op" cannot be seen after parsing: as Go's encoding/json in kube-apiserver,
// Boost.JSON keeps the last member, so the operation is `remove /baz`, which has no target here.
TEST(JsonPatchRfc6902, A13InvalidPatchDocumentWithDuplicateOpIsReadAsTheLastOp) {
  auto result = ApplyJsonPatch(R"({"foo":"bar"})",
                               R"([{"op":"add","path":"/baz","value":"qux","op":"remove"}])");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message,
            R"(jsonpatch operation 0 (remove) failed: path "/baz": missing value)");
}

TEST(JsonPatchRfc6902, A14TildeEscapeOrdering) {
  ExpectPatched(R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":10}])",
                R"({"/":9,"~1":10})");
}

TEST(JsonPatchRfc6902, A15ComparingStringsAndNumbers) {
  const auto err =
      PatchError(R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":"10"}])");
  EXPECT_TRUE(IsInvalid(err));
  EXPECT_THAT(err.message, HasSubstr(R"(test failed: found 10, expected "10")"));
}

TEST(JsonPatchRfc6902, A16AddingAnArrayValue) {
  ExpectPatched(R"({"foo":["bar"]})", R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])",
                R"({"foo":["bar",["abc","def"]]})");
}

// ---------------------------------------------------------------------------------------------
// Cases in the style of the community json-patch test suite (json-patch/json-patch-tests).

struct SuiteCase {
  const char* name;
  const char* doc;
  const char* patch;
  const char* expected;  // nullptr: the patch must fail
};

class JsonPatchSuite : public ::testing::TestWithParam<SuiteCase> {};

TEST_P(JsonPatchSuite, AppliesOrFailsAsSpecified) {
  const SuiteCase& c = GetParam();
  auto result = ApplyJsonPatch(J(c.doc), J(c.patch));
  if (c.expected == nullptr) {
    ASSERT_FALSE(result.ok()) << "unexpectedly applied: " << json::serialize(result.value());
    EXPECT_TRUE(IsInvalid(result.error())) << result.error().ToString();
    EXPECT_EQ(result.error().code, 422);
  } else {
    ASSERT_TRUE(result.ok()) << result.error().ToString();
    EXPECT_TRUE(JsonEqual(*result, J(c.expected)))
        << "got " << json::serialize(*result) << ", want " << c.expected;
  }
}

constexpr SuiteCase kSuiteCases[] = {
    {"EmptyPatchOnEmptyDoc", "{}", "[]", "{}"},
    {"EmptyPatchKeepsDoc", R"({"foo":1})", "[]", R"({"foo":1})"},
    {"EmptyPatchOnNestedDoc", R"([{"foo":1,"bar":2}])", "[]", R"([{"bar":2,"foo":1}])"},
    {"AddReplacesExistingNullMember", R"({"foo":null})",
     R"([{"op":"add","path":"/foo","value":1}])", R"({"foo":1})"},
    {"AddToTopLevelEmptyArray", "[]", R"([{"op":"add","path":"/0","value":"foo"}])", R"(["foo"])"},
    {"AddNumericStringValue", "{}", R"([{"op":"add","path":"/foo","value":"1"}])",
     R"({"foo":"1"})"},
    {"ReplaceObjectDocumentWithArrayViaAddAtRoot", "{}", R"([{"op":"add","path":"","value":[]}])",
     "[]"},
    {"ReplaceArrayDocumentWithObjectViaAddAtRoot", "[]", R"([{"op":"add","path":"","value":{}}])",
     "{}"},
    {"AppendToRootArrayWithDash", "[]", R"([{"op":"add","path":"/-","value":"hi"}])", R"(["hi"])"},
    {"AddWithSlashPathTargetsEmptyKey", "{}", R"([{"op":"add","path":"/","value":1}])",
     R"({"":1})"},
    {"AddWithTrailingSlashTargetsEmptyKeyOfChild", R"({"foo":{}})",
     R"([{"op":"add","path":"/foo/","value":1}])", R"({"foo":{"":1}})"},
    {"AddCompositeValueAtTopLevel", R"({"foo":1})", R"([{"op":"add","path":"/bar","value":[1,2]}])",
     R"({"foo":1,"bar":[1,2]})"},
    {"AddIntoCompositeValue", R"({"foo":1,"baz":[{"qux":"hello"}]})",
     R"([{"op":"add","path":"/baz/0/foo","value":"world"}])",
     R"({"foo":1,"baz":[{"qux":"hello","foo":"world"}]})"},
    {"AddBeyondArrayUpperBoundFails", R"({"bar":[1,2]})",
     R"([{"op":"add","path":"/bar/8","value":"5"}])", nullptr},
    {"AddNegativeArrayIndexFails", R"({"bar":[1,2]})",
     R"([{"op":"add","path":"/bar/-1","value":"5"}])", nullptr},
    {"AddTrueFalseNullValues", R"({"foo":1})",
     R"([{"op":"add","path":"/t","value":true},{"op":"add","path":"/f","value":false},{"op":"add","path":"/n","value":null}])",
     R"({"foo":1,"t":true,"f":false,"n":null})"},
    {"ZeroIsAMemberNameOnObjects", R"({"foo":1})", R"([{"op":"add","path":"/0","value":"bar"}])",
     R"({"foo":1,"0":"bar"})"},
    {"AddAtArrayEndByIndex", R"(["foo"])", R"([{"op":"add","path":"/1","value":"bar"}])",
     R"(["foo","bar"])"},
    {"AddInsertsInTheMiddle", R"(["foo","sil"])", R"([{"op":"add","path":"/1","value":"bar"}])",
     R"(["foo","bar","sil"])"},
    {"AddInsertsAtTheFront", R"(["foo","sil"])", R"([{"op":"add","path":"/0","value":"bar"}])",
     R"(["bar","foo","sil"])"},
    {"AddAtLengthPlusOneFails", R"(["foo","sil"])", R"([{"op":"add","path":"/3","value":"bar"}])",
     nullptr},
    {"TestMemberNamedLikeANumber", R"({"1e0":"foo"})",
     R"([{"op":"test","path":"/1e0","value":"foo"}])", R"({"1e0":"foo"})"},
    {"TestWithExponentArrayIndexFails", R"(["foo","bar"])",
     R"([{"op":"test","path":"/1e0","value":"bar"}])", nullptr},
    {"ObjectMemberOnArrayFails", R"(["foo","sil"])", R"([{"op":"add","path":"/bar","value":42}])",
     nullptr},
    {"AddedArrayIsNotFlattened", R"(["foo","sil"])",
     R"([{"op":"add","path":"/1","value":["bar","baz"]}])", R"(["foo",["bar","baz"],"sil"])"},
    {"RemoveMember", R"({"foo":1,"bar":[1,2,3,4]})", R"([{"op":"remove","path":"/bar"}])",
     R"({"foo":1})"},
    {"RemoveNestedMember", R"({"foo":1,"baz":[{"qux":"hello"}]})",
     R"([{"op":"remove","path":"/baz/0/qux"}])", R"({"foo":1,"baz":[{}]})"},
    {"ReplaceWithArray", R"({"foo":1,"baz":[{"qux":"hello"}]})",
     R"([{"op":"replace","path":"/foo","value":[1,2,3,4]}])",
     R"({"foo":[1,2,3,4],"baz":[{"qux":"hello"}]})"},
    {"ReplaceNested", R"({"foo":[1,2,3,4],"baz":[{"qux":"hello"}]})",
     R"([{"op":"replace","path":"/baz/0/qux","value":"world"}])",
     R"({"foo":[1,2,3,4],"baz":[{"qux":"world"}]})"},
    {"ReplaceArrayElementWithScalars", R"(["","",""," ",""])",
     R"([{"op":"replace","path":"/0","value":0},{"op":"replace","path":"/1","value":true},{"op":"replace","path":"/2","value":false},{"op":"replace","path":"/3","value":null},{"op":"replace","path":"/4","value":"bar"}])",
     R"([0,true,false,null,"bar"])"},
    {"ReplacedArrayIsNotFlattened", R"(["foo","sil"])",
     R"([{"op":"replace","path":"/1","value":["bar","baz"]}])", R"(["foo",["bar","baz"]])"},
    {"ReplaceWholeDocument", R"({"foo":"bar"})",
     R"([{"op":"replace","path":"","value":{"baz":"qux"}}])", R"({"baz":"qux"})"},
    {"ReplaceWithMissingParentFails", R"({"bar":"baz"})",
     R"([{"op":"replace","path":"/foo/bar","value":false}])", nullptr},
    {"SpuriousMembersAreIgnored", R"({"foo":1})",
     R"([{"op":"test","path":"/foo","value":1,"spurious":1}])", R"({"foo":1})"},
    {"TestNullMember", R"({"foo":null})", R"([{"op":"test","path":"/foo","value":null}])",
     R"({"foo":null})"},
    {"ReplaceNullMember", R"({"foo":null})", R"([{"op":"replace","path":"/foo","value":"truthy"}])",
     R"({"foo":"truthy"})"},
    {"MoveNullMember", R"({"foo":null})", R"([{"op":"move","from":"/foo","path":"/bar"}])",
     R"({"bar":null})"},
    {"CopyNullMember", R"({"foo":null})", R"([{"op":"copy","from":"/foo","path":"/bar"}])",
     R"({"foo":null,"bar":null})"},
    {"RemoveNullMember", R"({"foo":null})", R"([{"op":"remove","path":"/foo"}])", "{}"},
    {"ReplaceWithNull", R"({"foo":"bar"})", R"([{"op":"replace","path":"/foo","value":null}])",
     R"({"foo":null})"},
    {"TestIgnoresMemberOrder", R"({"foo":{"foo":1,"bar":2}})",
     R"([{"op":"test","path":"/foo","value":{"bar":2,"foo":1}}])", R"({"foo":{"foo":1,"bar":2}})"},
    {"TestIgnoresNestedMemberOrder", R"({"foo":[{"foo":1,"bar":2}]})",
     R"([{"op":"test","path":"/foo","value":[{"bar":2,"foo":1}]}])",
     R"({"foo":[{"foo":1,"bar":2}]})"},
    {"TestDifferentValueFails", R"({"foo":{"bar":[1,2,5,4]}})",
     R"([{"op":"test","path":"/foo","value":[1,2]}])", nullptr},
    {"TestWholeDocument", R"({"foo":1})", R"([{"op":"test","path":"","value":{"foo":1}}])",
     R"({"foo":1})"},
    {"TestEmptyStringMember", R"({"":1})", R"([{"op":"test","path":"/","value":1}])", R"({"":1})"},
    {"TestEverySpecialCharacterMember",
     R"({"foo":["bar","baz"],"":0,"a/b":1,"c%d":2,"e^f":3,"g|h":4,"i\\j":5,"k\"l":6," ":7,"m~n":8})",
     R"([{"op":"test","path":"/foo","value":["bar","baz"]},{"op":"test","path":"/foo/0","value":"bar"},
         {"op":"test","path":"/","value":0},{"op":"test","path":"/a~1b","value":1},
         {"op":"test","path":"/c%d","value":2},{"op":"test","path":"/e^f","value":3},
         {"op":"test","path":"/g|h","value":4},{"op":"test","path":"/i\\j","value":5},
         {"op":"test","path":"/k\"l","value":6},{"op":"test","path":"/ ","value":7},
         {"op":"test","path":"/m~0n","value":8}])",
     R"({"foo":["bar","baz"],"":0,"a/b":1,"c%d":2,"e^f":3,"g|h":4,"i\\j":5,"k\"l":6," ":7,"m~n":8})"},
    {"MoveToSameLocationIsANoOp", R"({"foo":1})", R"([{"op":"move","from":"/foo","path":"/foo"}])",
     R"({"foo":1})"},
    {"MoveMember", R"({"foo":1,"baz":[{"qux":"hello"}]})",
     R"([{"op":"move","from":"/foo","path":"/bar"}])", R"({"baz":[{"qux":"hello"}],"bar":1})"},
    {"MoveIntoArrayAfterRemoval", R"({"baz":[{"qux":"hello"}],"bar":1})",
     R"([{"op":"move","from":"/baz/0/qux","path":"/baz/1"}])", R"({"baz":[{},"hello"],"bar":1})"},
    {"CopyArrayElementToMember", R"({"baz":[{"qux":"hello"}],"bar":1})",
     R"([{"op":"copy","from":"/baz/0","path":"/boo"}])",
     R"({"baz":[{"qux":"hello"}],"bar":1,"boo":{"qux":"hello"}})"},
    {"AddAtRootReplacesDocument", R"({"foo":"bar"})",
     R"([{"op":"add","path":"","value":{"baz":"qux"}}])", R"({"baz":"qux"})"},
    {"DashAppendsComposite", "[1,2]", R"([{"op":"add","path":"/-","value":{"foo":["bar","baz"]}}])",
     R"([1,2,{"foo":["bar","baz"]}])"},
    {"DashAppendsNLevelsDown", "[1,2,[3,[4,5]]]",
     R"([{"op":"add","path":"/2/1/-","value":{"foo":["bar","baz"]}}])",
     R"([1,2,[3,[4,5,{"foo":["bar","baz"]}]]])"},
    {"RemoveWithExponentIndexFails", R"({"foo":1,"baz":[{"qux":"hello"}]})",
     R"([{"op":"remove","path":"/baz/1e0/qux"}])", nullptr},
    {"RemoveArrayElement", "[1,2,3,4]", R"([{"op":"remove","path":"/0"}])", "[2,3,4]"},
    {"RepeatedRemovesSeeShiftedIndices", "[1,2,3,4]",
     R"([{"op":"remove","path":"/1"},{"op":"remove","path":"/2"}])", "[1,3]"},
    {"RemoveTopLevelExponentIndexFails", "[1,2,3,4]", R"([{"op":"remove","path":"/1e0"}])",
     nullptr},
    {"ReplaceExponentIndexFails", R"([""])", R"([{"op":"replace","path":"/1e0","value":false}])",
     nullptr},
    {"CopyFromExponentIndexFails", R"({"baz":[1,2,3],"bar":1})",
     R"([{"op":"copy","from":"/baz/1e0","path":"/boo"}])", nullptr},
    {"MoveFromExponentIndexFails", R"({"foo":1,"baz":[1,2,3,4]})",
     R"([{"op":"move","from":"/baz/1e0","path":"/foo"}])", nullptr},
    {"AddExponentIndexFails", R"(["foo","sil"])", R"([{"op":"add","path":"/1e0","value":"bar"}])",
     nullptr},
    {"AddWithoutValueFails", "[1]", R"([{"op":"add","path":"/-"}])", nullptr},
    {"ReplaceWithoutValueFails", "[1]", R"([{"op":"replace","path":"/0"}])", nullptr},
    {"TestWithoutValueFailsEvenOnNull", "[null]", R"([{"op":"test","path":"/0"}])", nullptr},
    {"TestWithoutValueFailsEvenOnFalse", "[false]", R"([{"op":"test","path":"/0"}])", nullptr},
    {"CopyWithoutFromFails", "[1]", R"([{"op":"copy","path":"/-"}])", nullptr},
    {"MoveWithoutFromFails", R"({"foo":1})", R"([{"op":"move","path":""}])", nullptr},
    {"UnknownOpFails", R"({"foo":1})", R"([{"op":"spam","path":"/foo","value":1}])", nullptr},
    {"LeadingZeroIndexFails", R"(["foo","bar"])", R"([{"op":"test","path":"/00","value":"foo"}])",
     nullptr},
    {"LeadingZeroNonZeroIndexFails", R"(["foo","bar"])",
     R"([{"op":"test","path":"/01","value":"bar"}])", nullptr},
    {"RemoveNonexistentMemberFails", R"({"foo":"bar"})", R"([{"op":"remove","path":"/baz"}])",
     nullptr},
    {"RemoveNonexistentIndexFails", R"(["foo","bar"])", R"([{"op":"remove","path":"/2"}])",
     nullptr},
    {"MemberNamesAreCaseSensitive", R"({"foo":"bar"})",
     R"([{"op":"add","path":"/FOO","value":"BAR"}])", R"({"foo":"bar","FOO":"BAR"})"},
    // Beyond the suite.
    {"RemoveWithDashFails", "[1,2]", R"([{"op":"remove","path":"/-"}])", nullptr},
    {"ReplaceWithDashFails", "[1,2]", R"([{"op":"replace","path":"/-","value":3}])", nullptr},
    {"TestWithDashFails", "[1,2]", R"([{"op":"test","path":"/-","value":2}])", nullptr},
    {"CopyFromDashFails", R"({"a":[1]})", R"([{"op":"copy","from":"/a/-","path":"/b"}])", nullptr},
    {"TestComparesNumbersByValue", R"({"n":1,"d":2.0})",
     R"([{"op":"test","path":"/n","value":1.0},{"op":"test","path":"/d","value":2}])",
     R"({"n":1,"d":2})"},
    {"CopyIntoOwnChildCopiesTheSnapshot", R"({"a":{"b":1}})",
     R"([{"op":"copy","from":"/a","path":"/a/c"}])", R"({"a":{"b":1,"c":{"b":1}}})"},
    {"CopyWholeDocumentIntoAMember", R"({"a":1})", R"([{"op":"copy","from":"","path":"/b"}])",
     R"({"a":1,"b":{"a":1}})"},
    {"MoveIntoOwnChildFails", R"({"a":{"b":1}})", R"([{"op":"move","from":"/a","path":"/a/c"}])",
     nullptr},
    {"MoveRootIntoAMemberFails", R"({"a":1})", R"([{"op":"move","from":"","path":"/b"}])", nullptr},
    {"MoveChildOntoParentReplacesIt", R"({"a":{"b":{"c":1}}})",
     R"([{"op":"move","from":"/a/b","path":"/a"}])", R"({"a":{"c":1}})"},
    {"MoveMemberToRootReplacesDocument", R"({"a":{"b":1},"c":2})",
     R"([{"op":"move","from":"/a","path":""}])", R"({"b":1})"},
    {"MoveSameLocationStillRequiresTheSource", R"({"foo":1})",
     R"([{"op":"move","from":"/bar","path":"/bar"}])", nullptr},
    {"MoveToMissingParentFails", R"({"foo":1})", R"([{"op":"move","from":"/foo","path":"/x/y"}])",
     nullptr},
    {"RemoveWholeDocumentFails", R"({"foo":1})", R"([{"op":"remove","path":""}])", nullptr},
    {"ReplaceMissingMemberFails", R"({"foo":1})", R"([{"op":"replace","path":"/bar","value":1}])",
     nullptr},
    {"ReplaceOutOfRangeIndexFails", "[1]", R"([{"op":"replace","path":"/1","value":2}])", nullptr},
    {"TestMissingTargetFails", R"({"foo":1})", R"([{"op":"test","path":"/bar","value":null}])",
     nullptr},
    {"AddThroughScalarFails", R"({"foo":"s"})", R"([{"op":"add","path":"/foo/bar","value":1}])",
     nullptr},
    {"AddIntoScalarParentFails", R"({"foo":3})", R"([{"op":"add","path":"/foo/0","value":1}])",
     nullptr},
    {"MissingOpFails", R"({"foo":1})", R"([{"path":"/foo","value":1}])", nullptr},
    {"NonStringOpFails", R"({"foo":1})", R"([{"op":1,"path":"/foo","value":1}])", nullptr},
    {"MissingPathFails", R"({"foo":1})", R"([{"op":"remove"}])", nullptr},
    {"NonStringPathFails", R"({"foo":1})", R"([{"op":"remove","path":["foo"]}])", nullptr},
    {"NonStringFromFails", R"({"foo":1})", R"([{"op":"copy","from":null,"path":"/x"}])", nullptr},
    {"PathWithoutLeadingSlashFails", R"({"foo":1})", R"([{"op":"remove","path":"foo"}])", nullptr},
    {"PathWithBadEscapeFails", R"({"foo":1})", R"([{"op":"add","path":"/a~2","value":1}])",
     nullptr},
    {"OpNamesAreCaseSensitive", R"({"foo":1})", R"([{"op":"ADD","path":"/bar","value":1}])",
     nullptr},
    {"LaterOpsSeeEarlierOnes", R"({})",
     R"([{"op":"add","path":"/a","value":{}},{"op":"add","path":"/a/b","value":[]},{"op":"add","path":"/a/b/-","value":1},{"op":"test","path":"/a","value":{"b":[1]}}])",
     R"({"a":{"b":[1]}})"},
};

INSTANTIATE_TEST_SUITE_P(Cases, JsonPatchSuite, ::testing::ValuesIn(kSuiteCases),
                         [](const ::testing::TestParamInfo<SuiteCase>& param_info) {
                           return std::string(param_info.param.name);
                         });

// ---------------------------------------------------------------------------------------------
// Errors: status codes and messages.

TEST(JsonPatchErrors, FailedOpIs422InvalidNamingIndexOpAndPath) {
  const auto err = PatchError(R"({"spec":{"y":1}})",
                              R"([{"op":"test","path":"/spec/y","value":1},
                                  {"op":"add","path":"/spec/z","value":2},
                                  {"op":"replace","path":"/spec/x","value":3}])");
  EXPECT_EQ(err.code, 422);
  EXPECT_EQ(err.reason, reason::kInvalid);
  EXPECT_TRUE(IsInvalid(err));
  EXPECT_EQ(err.message,
            R"(jsonpatch operation 2 (replace) failed: path "/spec/x": missing value)");
}

TEST(JsonPatchErrors, MessagesDescribeEachKindOfFailure) {
  struct Case {
    const char* doc;
    const char* patch;
    const char* message;
  };
  const Case cases[] = {
      {"{}", R"([{"op":"add","path":"/a"}])",
       R"(jsonpatch operation 0 (add) failed: missing required member "value")"},
      {"{}", R"([{"op":"move","path":"/a"}])",
       R"(jsonpatch operation 0 (move) failed: missing required member "from")"},
      {"{}", R"([{"op":"remove"}])",
       R"(jsonpatch operation 0 (remove) failed: missing required member "path")"},
      {"{}", R"([{"path":"/a"}])", R"(jsonpatch operation 0 failed: missing required member "op")"},
      {"{}", R"([{"op":true,"path":"/a"}])",
       R"(jsonpatch operation 0 failed: member "op" must be a string, got boolean)"},
      {"{}", R"([{"op":"remove","path":7}])",
       R"(jsonpatch operation 0 (remove) failed: member "path" must be a string, got number)"},
      {"{}", R"([{"op":"spam","path":"/a"}])",
       R"(jsonpatch operation 0 failed: unknown op "spam" (want add, remove, replace, move, copy or test))"},
      {"{}", R"([{"op":"remove","path":"a"}])",
       R"(jsonpatch operation 0 (remove) failed: member "path": invalid JSON pointer "a": must be empty or start with "/")"},
      {R"({"a":[1,2]})", R"([{"op":"add","path":"/a/5","value":0}])",
       R"(jsonpatch operation 0 (add) failed: path "/a/5": array index 5 out of range (array length 2))"},
      {R"({"a":[1,2]})", R"([{"op":"remove","path":"/a/01"}])",
       R"(jsonpatch operation 0 (remove) failed: path "/a/01": invalid array index "01")"},
      {R"({"a":[1,2]})", R"([{"op":"remove","path":"/a/-"}])",
       R"(jsonpatch operation 0 (remove) failed: path "/a/-": array index "-" names no existing element)"},
      {R"({"a":"s"})", R"([{"op":"add","path":"/a/b","value":0}])",
       R"(jsonpatch operation 0 (add) failed: path "/a/b": value at "/a" is a string, not an object or array)"},
      {R"({"a":{"b":{}}})", R"([{"op":"copy","from":"/a/x/y","path":"/c"}])",
       R"(jsonpatch operation 0 (copy) failed: from "/a/x/y": missing value at "/a/x")"},
      {R"({"a":{}})", R"([{"op":"move","from":"/a","path":"/a/b"}])",
       R"(jsonpatch operation 0 (move) failed: from "/a" is a proper prefix of path "/a/b": a value cannot be moved into its own child)"},
      {R"({"a":1})", R"([{"op":"remove","path":""}])",
       R"(jsonpatch operation 0 (remove) failed: path "": cannot remove the whole document)"},
  };
  for (const auto& c : cases) {
    const auto err = PatchError(c.doc, c.patch);
    EXPECT_EQ(err.code, 422) << c.patch;
    EXPECT_EQ(err.message, c.message);
  }
}

TEST(JsonPatchErrors, TestFailureQuotesLongValuesTruncated) {
  const std::string big(500, 'x');
  const auto err =
      PatchError(R"({"a":")" + big + R"("})", R"([{"op":"test","path":"/a","value":"y"}])");
  EXPECT_THAT(err.message, HasSubstr(R"(test failed: found ")" + std::string(63, 'x') + "...,"));
  EXPECT_LT(err.message.size(), 200u);
}

TEST(JsonPatchErrors, PatchThatIsNotAnArrayIs400BadRequest) {
  for (const char* patch : {R"({"op":"add","path":"/a","value":1})", "null", "\"x\"", "3"}) {
    const auto err = PatchError("{}", patch);
    EXPECT_EQ(err.code, 400) << patch;
    EXPECT_TRUE(IsBadRequest(err));
    EXPECT_THAT(err.message, HasSubstr("must be a JSON array"));
  }
}

TEST(JsonPatchErrors, OperationThatIsNotAnObjectIs400EvenAfterAFailingOperation) {
  const auto err = PatchError(R"({"a":1})", R"([{"op":"remove","path":"/missing"},"add"])");
  EXPECT_TRUE(IsBadRequest(err));
  EXPECT_EQ(err.message, "jsonpatch operation 1: must be a JSON object, got string");
}

TEST(JsonPatchErrors, TooManyOperationsIs413WithKubeApiserversMessage) {
  const auto err =
      PatchError("{}", R"([{"op":"test","path":"","value":{}},{"op":"test","path":"","value":{}},
                                        {"op":"test","path":"","value":{}}])",
                 {.max_operations = 2});
  EXPECT_EQ(err.code, 413);
  EXPECT_TRUE(IsRequestEntityTooLarge(err));
  EXPECT_EQ(err.message,
            "Request entity too large: The allowed maximum operations in a JSON patch is 2, got 3");
  EXPECT_TRUE(
      ApplyJsonPatch(J("{}"), J(R"([{"op":"test","path":"","value":{}}])"), {.max_operations = 1})
          .ok());
}

// ---------------------------------------------------------------------------------------------
// Atomicity and the string overload.

TEST(JsonPatchAtomicity, FailedPatchLeavesTheInputUntouchedAndReturnsOnlyTheError) {
  const auto original = J(R"({"metadata":{"labels":{"a":"1"}},"spec":{"replicas":1}})");
  const auto doc = original;
  auto result = ApplyJsonPatch(doc, J(R"([{"op":"replace","path":"/spec/replicas","value":5},
                                          {"op":"remove","path":"/metadata/labels/a"},
                                          {"op":"test","path":"/spec/replicas","value":1}])"));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(
      result.error().message,
      R"(jsonpatch operation 2 (test) failed: path "/spec/replicas": test failed: found 5, expected 1)");
  EXPECT_EQ(doc, original);
}

TEST(JsonPatchAtomicity, SuccessfulPatchDoesNotModifyTheInput) {
  const auto original = J(R"({"a":[1,2,3]})");
  const auto doc = original;
  auto result = ApplyJsonPatch(
      doc, J(R"([{"op":"remove","path":"/a/0"},{"op":"move","from":"/a","path":"/b"}])"));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(*result, J(R"({"b":[2,3]})"));
  EXPECT_EQ(doc, original);
}

TEST(JsonPatchString, AppliesAndSerializesPreservingMemberOrder) {
  auto result =
      ApplyJsonPatch(R"({"kind":"Pod","metadata":{"name":"p","labels":{"x":"1"}},"spec":{}})",
                     R"([{"op":"remove","path":"/metadata/labels/x"},
                                   {"op":"add","path":"/metadata/labels/app.kubernetes.io~1name","value":"web"},
                                   {"op":"add","path":"/metadata/annotations","value":{"k":"v"}}])");
  ASSERT_TRUE(result.ok()) << result.error().ToString();
  EXPECT_EQ(
      *result,
      R"({"kind":"Pod","metadata":{"name":"p","labels":{"app.kubernetes.io/name":"web"},"annotations":{"k":"v"}},"spec":{}})");
}

TEST(JsonPatchString, RemovingAMemberKeepsTheOrderOfTheOthers) {
  auto result = ApplyJsonPatch(R"({"a":1,"b":2,"c":3,"d":4})", R"([{"op":"remove","path":"/a"}])");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(*result, R"({"b":2,"c":3,"d":4})");
}

TEST(JsonPatchString, InvalidJsonIs400NamingTheInputAndOffset) {
  auto bad_patch = ApplyJsonPatch(std::string_view("{}"), std::string_view("[{\"op\":"));
  ASSERT_FALSE(bad_patch.ok());
  EXPECT_TRUE(IsBadRequest(bad_patch.error()));
  EXPECT_THAT(bad_patch.error().message, HasSubstr("patch: invalid JSON"));
  EXPECT_THAT(bad_patch.error().message, HasSubstr("(offset "));

  auto bad_doc = ApplyJsonPatch("{\"a\":}", "[]");
  ASSERT_FALSE(bad_doc.ok());
  EXPECT_TRUE(IsBadRequest(bad_doc.error()));
  EXPECT_THAT(bad_doc.error().message, HasSubstr("document: invalid JSON"));
}

TEST(JsonPatchString, InputNestedDeeperThanTheJsonLimitIs400) {
  // Text input is parsed with kubecpp's JSON limits (depth 1000, as every other entry point).
  const std::string deep = std::string(1001, '[') + std::string(1001, ']');
  auto result = ApplyJsonPatch(std::string_view(deep), std::string_view("[]"));
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(IsBadRequest(result.error()));
  EXPECT_THAT(result.error().message, HasSubstr("nesting too deep"));
  const std::string ok = std::string(50, '[') + std::string(50, ']');
  EXPECT_TRUE(ApplyJsonPatch(std::string_view(ok), std::string_view("[]")).ok());
}

// ---------------------------------------------------------------------------------------------
// Guards against pathological patches.

TEST(JsonPatchLimits, RepeatedSelfCopyIsStoppedByTheSizeBudget) {
  // Each op doubles the document; 40 ops would make it 2^40 times larger.
  json::array ops;
  for (int i = 0; i < 40; ++i) {
    ops.push_back(json::object{{"op", "copy"}, {"from", ""}, {"path", "/" + std::to_string(i)}});
  }
  const auto doc = J(R"({"payload":")" + std::string(1000, 'p') + R"("})");
  auto result = ApplyJsonPatch(doc, ops, {.max_depth = 1000});
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(IsInvalid(result.error()));
  EXPECT_THAT(result.error().message, HasSubstr("result would exceed the size limit of"));
}

TEST(JsonPatchLimits, RepeatedSiblingCopiesAreStoppedByTheSizeBudget) {
  json::array ops;
  for (int i = 0; i < 10000; ++i) {
    ops.push_back(
        json::object{{"op", "copy"}, {"from", "/big"}, {"path", "/c" + std::to_string(i)}});
  }
  const auto doc = J(R"({"big":")" + std::string(100000, 'b') + R"("})");
  auto result = ApplyJsonPatch(doc, ops);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.error().message, HasSubstr("size limit"));
}

TEST(JsonPatchLimits, SizeBudgetAllowsModestGrowth) {
  json::array ops;
  for (int i = 0; i < 20; ++i) {
    ops.push_back(json::object{{"op", "copy"}, {"from", "/item"}, {"path", "/items/-"}});
  }
  const auto doc =
      J(R"({"item":{"name":"x","value":")" + std::string(1000, 'v') + R"("},"items":[]})");
  auto result = ApplyJsonPatch(doc, ops);
  ASSERT_TRUE(result.ok()) << result.error().ToString();
  EXPECT_EQ(result->at("items").as_array().size(), 20u);
}

TEST(JsonPatchLimits, RepeatedSelfCopyIsStoppedByMaxDepth) {
  json::array ops;
  for (int i = 0; i < 30; ++i)
    ops.push_back(json::object{{"op", "copy"}, {"from", ""}, {"path", "/a"}});
  auto result = ApplyJsonPatch(J(R"({"a":1})"), ops, {.max_depth = 10});
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.error().message,
              HasSubstr("result would nest 11 levels deep, more than the limit of 10"));
  EXPECT_THAT(result.error().message, HasSubstr("jsonpatch operation 9 (copy)"));
}

TEST(JsonPatchLimits, AddingADeepValueAtADeepPathIsRejected) {
  const auto doc = J(R"({"a":{"b":{}}})");
  EXPECT_TRUE(
      ApplyJsonPatch(doc, J(R"([{"op":"add","path":"/a/b/c","value":[[1]]}])"), {.max_depth = 5})
          .ok());
  auto result =
      ApplyJsonPatch(doc, J(R"([{"op":"add","path":"/a/b/c","value":[[[1]]]}])"), {.max_depth = 5});
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.error().message, HasSubstr("nest 6 levels deep"));
  auto replaced = ApplyJsonPatch(doc, J(R"([{"op":"replace","path":"/a","value":[[[[[1]]]]]}])"),
                                 {.max_depth = 5});
  ASSERT_FALSE(replaced.ok());
}

TEST(JsonPatchLimits, MoveThatDeepensTheDocumentPastMaxDepthIsRejected) {
  const auto doc = J(R"({"a":{"b":{}},"c":{"d":{}}})");
  const JsonPatchOptions options{.max_depth = 3};
  // Moving a shallow value to a shallower or equal place is fine.
  EXPECT_TRUE(
      ApplyJsonPatch(doc, J(R"([{"op":"move","from":"/c/d","path":"/a/e"}])"), options).ok());
  // Moving {"d":{}} (2 levels) to /a/b/c (3 tokens) would nest 5 levels.
  auto result = ApplyJsonPatch(doc, J(R"([{"op":"move","from":"/c","path":"/a/b/c"}])"), options);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.error().message, HasSubstr("nest 5 levels deep"));
  // A scalar moved deep stays within the limit even though the conservative bound would not.
  EXPECT_TRUE(ApplyJsonPatch(J(R"({"a":{"b":{}},"s":1})"),
                             J(R"([{"op":"move","from":"/s","path":"/a/b/s"}])"), options)
                  .ok());
}

TEST(JsonPatchLimits, DeepPointerIntoShallowDocumentFailsCleanly) {
  std::string path;
  for (int i = 0; i < 100000; ++i) path += "/a";
  json::array ops{json::object{{"op", "add"}, {"path", path}, {"value", 1}}};
  auto result = ApplyJsonPatch(J(R"({"a":{}})"), ops);
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(IsInvalid(result.error()));
}

TEST(JsonPatchLimits, ManyOperationsOnALargeDocumentFinish) {
  json::object big;
  for (int i = 0; i < 2000; ++i) big["k" + std::to_string(i)] = std::string(100, 'v');
  json::array ops;
  for (int i = 0; i < 5000; ++i) {
    ops.push_back(json::object{{"op", "move"},
                               {"from", i % 2 == 0 ? "/big" : "/moved"},
                               {"path", i % 2 == 0 ? "/moved" : "/big"}});
  }
  auto result = ApplyJsonPatch(json::object{{"big", big}}, ops);
  ASSERT_TRUE(result.ok()) << result.error().ToString();
  EXPECT_EQ(result->at("big").as_object().size(), 2000u);
}

}  // namespace
}  // namespace kube

namespace kube {
TEST(JsonPatchOptionsTest, ReplaceOfAMissingMemberSetsItLikeKubeApiserversLibrary) {
  const auto doc = boost::json::parse(R"({"data":{"a":"1"},"list":[1]})");
  const auto patch = boost::json::parse(R"([{"op":"replace","path":"/data/k","value":"j"}])");
  EXPECT_FALSE(ApplyJsonPatch(doc, patch).ok());  // RFC 6902
  auto lenient = ApplyJsonPatch(doc, patch, {.replace_missing_member_adds = true});
  ASSERT_TRUE(lenient.ok()) << lenient.error().message;
  EXPECT_EQ(boost::json::serialize(*lenient), R"({"data":{"a":"1","k":"j"},"list":[1]})");
  // An array index must still exist, and so must the parent.
  EXPECT_FALSE(ApplyJsonPatch(doc, boost::json::parse(R"([{"op":"replace","path":"/list/3","value":2}])"),
                              {.replace_missing_member_adds = true})
                   .ok());
  EXPECT_FALSE(ApplyJsonPatch(doc, boost::json::parse(R"([{"op":"replace","path":"/nope/k","value":2}])"),
                              {.replace_missing_member_adds = true})
                   .ok());
}
}  // namespace kube
