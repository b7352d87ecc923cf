#include <kube/core/merge_patch.hpp>

#include <random>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <kube/core/json_pointer.hpp>

namespace kube {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;

json::value J(std::string_view text) { return json::parse(text); }

// ---------------------------------------------------------------------------------------------
// ApplyMergePatch: RFC 7386.

struct RfcCase {
  const char* target;
  const char* patch;
  const char* result;
};

TEST(ApplyMergePatch, MatchesEveryRowOfRfc7386AppendixA) {
  const RfcCase cases[] = {
      {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
      {R"({"a":"b"})", R"({"a":null})", R"({})"},
      {R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
      {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
      {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
      {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
      {R"(["a","b"])", R"(["c","d"])", R"(["c","d"])"},
      {R"({"a":"b"})", R"(["c"])", R"(["c"])"},
      {R"({"a":"foo"})", "null", "null"},
      {R"({"a":"foo"})", R"("bar")", R"("bar")"},
      {R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
      {R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
      {R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
  };
  for (const auto& c : cases) {
    const auto result = ApplyMergePatch(J(c.target), J(c.patch));
    EXPECT_EQ(result, J(c.result))
        << c.target << " + " << c.patch << " -> " << json::serialize(result);
    // The same, serialized (member order is deterministic: kept, new members appended).
    auto text = ApplyMergePatch(c.target, c.patch);
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(*text, json::serialize(J(c.result)));
  }
}

TEST(ApplyMergePatch, MatchesTheRfc7386Section3Example) {
  const auto target = J(R"({
    "title": "Goodbye!",
    "author": {"givenName": "John", "familyName": "Doe"},
    "tags": ["example", "sample"],
    "content": "This will be unchanged"
  })");
  const auto patch = J(R"({
    "title": "Hello!",
    "phoneNumber": "+01-123-456-7890",
    "author": {"familyName": null},
    "tags": ["example"]
  })");
  EXPECT_EQ(ApplyMergePatch(target, patch), J(R"({
    "title": "Hello!",
    "author": {"givenName": "John"},
    "tags": ["example"],
    "content": "This will be unchanged",
    "phoneNumber": "+01-123-456-7890"
  })"));
}

TEST(ApplyMergePatch, KeepsMemberOrderAndAppendsNewMembers) {
  auto result = ApplyMergePatch(R"({"a":1,"b":2,"c":3})", R"({"a":null,"d":4,"b":{"x":1}})");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(*result, R"({"b":{"x":1},"c":3,"d":4})");
}

TEST(ApplyMergePatch, DoesNotModifyItsInputs) {
  const auto target = J(R"({"a":{"b":1}})");
  const auto patch = J(R"({"a":{"b":null,"c":2}})");
  const auto target_copy = target;
  const auto patch_copy = patch;
  EXPECT_EQ(ApplyMergePatch(target, patch), J(R"({"a":{"c":2}})"));
  EXPECT_EQ(target, target_copy);
  EXPECT_EQ(patch, patch_copy);
}

TEST(ApplyMergePatch, EmptyObjectPatchOnNonObjectYieldsEmptyObject) {
  EXPECT_EQ(ApplyMergePatch(J("[1]"), J("{}")), J("{}"));
  EXPECT_EQ(ApplyMergePatch(J("3"), J("{}")), J("{}"));
  EXPECT_EQ(ApplyMergePatch(J(R"({"a":1})"), J("{}")), J(R"({"a":1})"));
}

TEST(ApplyMergePatch, StringOverloadRejectsInvalidJsonWith400) {
  auto bad_patch = ApplyMergePatch("{}", "{\"a\":");
  ASSERT_FALSE(bad_patch.ok());
  EXPECT_TRUE(IsBadRequest(bad_patch.error()));
  EXPECT_THAT(bad_patch.error().message, HasSubstr("merge patch: invalid JSON"));
  EXPECT_THAT(bad_patch.error().message, HasSubstr("(offset "));

  auto bad_target = ApplyMergePatch("{x}", "{}");
  ASSERT_FALSE(bad_target.ok());
  EXPECT_THAT(bad_target.error().message, HasSubstr("merge patch target: invalid JSON"));

  const std::string deep =
      std::string(kMergePatchMaxDepth + 1, '[') + std::string(kMergePatchMaxDepth + 1, ']');
  auto too_deep = ApplyMergePatch(std::string_view("{}"), std::string_view(deep));
  ASSERT_FALSE(too_deep.ok());
  EXPECT_TRUE(IsBadRequest(too_deep.error()));
}

// ---------------------------------------------------------------------------------------------
// CreateMergePatch.

TEST(CreateMergePatch, EqualObjectsGiveEmptyPatch) {
  const auto obj = J(R"({"a":{"b":[1,2,{"c":null}]},"d":null,"e":1})");
  EXPECT_EQ(CreateMergePatch(obj, obj), J("{}"));
  EXPECT_EQ(CreateMergePatch(J("{}"), J("{}")), J("{}"));
}

TEST(CreateMergePatch, NumericallyEqualValuesAreUnchanged) {
  EXPECT_EQ(CreateMergePatch(J(R"({"a":1,"b":[1]})"), J(R"({"a":1.0,"b":[1.0]})")), J("{}"));
}

TEST(CreateMergePatch, RemovedMembersBecomeNullAndChangedLeavesTakeTheNewValue) {
  EXPECT_EQ(CreateMergePatch(J(R"({"a":1,"b":2,"c":{"d":3,"e":4}})"),
                             J(R"({"a":1,"b":5,"c":{"d":3},"f":[1]})")),
            J(R"({"b":5,"c":{"e":null},"f":[1]})"));
}

TEST(CreateMergePatch, ChangedArraysAreSentWhole) {
  EXPECT_EQ(
      CreateMergePatch(J(R"({"a":[1,2,3],"b":[{"x":1}]})"), J(R"({"a":[1,2],"b":[{"x":2}]})")),
      J(R"({"a":[1,2],"b":[{"x":2}]})"));
}

TEST(CreateMergePatch, TypeChangesSendTheNewValue) {
  EXPECT_EQ(CreateMergePatch(J(R"({"a":{"b":1},"c":"s"})"), J(R"({"a":"s","c":{"d":1}})")),
            J(R"({"a":"s","c":{"d":1}})"));
}

TEST(CreateMergePatch, NonObjectModifiedIsThePatchItself) {
  EXPECT_EQ(CreateMergePatch(J(R"({"a":1})"), J("[1]")), J("[1]"));
  EXPECT_EQ(CreateMergePatch(J("[1]"), J("[1]")), J("[1]"));  // `{}` would yield an object
  EXPECT_EQ(CreateMergePatch(J("5"), J("5")), J("5"));
  EXPECT_EQ(CreateMergePatch(J(R"({"a":1})"), J("null")), J("null"));
}

TEST(CreateMergePatch, ObjectReplacingANonObjectIsSentWithoutNullMembers) {
  EXPECT_EQ(CreateMergePatch(J("[1]"), J(R"({"a":1,"b":null,"c":{"d":null}})")),
            J(R"({"a":1,"c":{}})"));
}

TEST(CreateMergePatch, NullMembersInModifiedAreTreatedAsAbsent) {
  // Present and non-null before: deleted.
  EXPECT_EQ(CreateMergePatch(J(R"({"a":1})"), J(R"({"a":null})")), J(R"({"a":null})"));
  // Absent before: nothing to do (a null in the patch cannot add a null member).
  EXPECT_EQ(CreateMergePatch(J(R"({})"), J(R"({"a":null})")), J("{}"));
  // Null on both sides: left alone.
  EXPECT_EQ(CreateMergePatch(J(R"({"a":null})"), J(R"({"a":null})")), J("{}"));
  // Null before, absent after: deleted.
  EXPECT_EQ(CreateMergePatch(J(R"({"a":null})"), J("{}")), J(R"({"a":null})"));
  // Added objects carry no null members; nulls inside arrays are kept verbatim.
  EXPECT_EQ(CreateMergePatch(J("{}"), J(R"({"a":{"b":null,"c":1},"d":[null,{"e":null}]})")),
            J(R"({"a":{"c":1},"d":[null,{"e":null}]})"));
}

// A realistic object: a Deployment with a nested pod template.
json::value Deployment() {
  return J(R"({
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {
      "name": "web",
      "namespace": "default",
      "uid": "6f1c1d9e-2b7a-4b8e-9d5c-1a2b3c4d5e6f",
      "resourceVersion": "12345",
      "generation": 3,
      "labels": {"app": "web", "tier": "frontend"},
      "annotations": {"deployment.kubernetes.io/revision": "2", "owner": "team-a"}
    },
    "spec": {
      "replicas": 3,
      "selector": {"matchLabels": {"app": "web"}},
      "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
      "template": {
        "metadata": {"labels": {"app": "web"}},
        "spec": {
          "containers": [
            {"name": "web", "image": "nginx:1.25", "ports": [{"containerPort": 80, "protocol": "TCP"}],
             "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}}},
            {"name": "sidecar", "image": "envoy:1.29", "args": ["--config", "/etc/envoy.yaml"]}
          ],
          "nodeSelector": {"kubernetes.io/os": "linux"},
          "terminationGracePeriodSeconds": 30
        }
      }
    },
    "status": {"replicas": 3, "readyReplicas": 3, "conditions": [{"type": "Available", "status": "True"}]}
  })");
}

void ExpectRoundTrip(const json::value& original, const json::value& modified) {
  const auto patch = CreateMergePatch(original, modified);
  const auto result = ApplyMergePatch(original, patch);
  EXPECT_TRUE(JsonEqual(result, modified))
      << "patch " << json::serialize(patch) << "\n got " << json::serialize(result) << "\n want "
      << json::serialize(modified);
}

TEST(CreateMergePatch, DeploymentEditProducesTheMinimalPatchAndRoundTrips) {
  const auto original = Deployment();
  auto modified = original;
  modified.at_pointer("/spec/replicas") = 5;
  modified.at_pointer("/metadata/labels").as_object()["release"] = "canary";
  modified.at_pointer("/metadata/annotations").as_object().erase("owner");
  modified.at_pointer("/spec/template/spec/containers/0/image") = "nginx:1.27";
  modified.at_pointer("/spec/strategy").as_object().erase("rollingUpdate");
  modified.at_pointer("/status").as_object()["readyReplicas"] = 4;

  const auto patch = CreateMergePatch(original, modified);
  auto expected_containers = modified.at_pointer("/spec/template/spec/containers");
  EXPECT_EQ(patch, J(R"({
    "metadata": {"labels": {"release": "canary"}, "annotations": {"owner": null}},
    "spec": {"replicas": 5, "strategy": {"rollingUpdate": null},
             "template": {"spec": {"containers": )" +
                     json::serialize(expected_containers) + R"(}}},
    "status": {"readyReplicas": 4}
  })"));
  ExpectRoundTrip(original, modified);
}

TEST(CreateMergePatch, DeploymentRoundTripsThroughStructuralChanges) {
  const auto original = Deployment();
  std::vector<json::value> variants;
  {
    auto m = original;
    m.as_object().erase("status");
    variants.push_back(m);
  }
  {
    auto m = original;
    m.at_pointer("/spec/template/spec").as_object()["containers"] = json::array{};
    variants.push_back(m);
  }
  {
    auto m = original;
    m.at_pointer("/spec").as_object()["paused"] = true;
    m.at_pointer("/metadata").as_object()["finalizers"] = json::array{"example.com/cleanup"};
    variants.push_back(m);
  }
  {
    auto m = original;
    m.at_pointer("/spec/selector") = "not-an-object-any-more";
    variants.push_back(m);
  }
  variants.push_back(
      J(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"}})"));
  variants.push_back(J("{}"));
  for (const auto& modified : variants) {
    ExpectRoundTrip(original, modified);
    ExpectRoundTrip(modified, original);
    EXPECT_EQ(CreateMergePatch(modified, modified), J("{}"));
  }
}

// Deterministic random edits (fixed seed): replace, delete and add members at random places.
void RandomEdit(json::value& v, std::mt19937& rng, int depth) {
  auto* obj = v.if_object();
  if (obj == nullptr || obj->empty()) return;
  auto it = obj->begin() + static_cast<std::ptrdiff_t>(rng() % obj->size());
  switch (rng() % 6) {
    case 0:
      obj->erase(it);
      break;
    case 1:
      it->value() = static_cast<std::int64_t>(rng() % 100);
      break;
    case 2:
      it->value() = json::array{"x", static_cast<std::int64_t>(rng() % 3)};
      break;
    case 3:
      (*obj)["new" + std::to_string(rng() % 5)] = json::object{{"k", "v"}};
      break;
    case 4:
      it->value() = nullptr;
      break;
    default:
      if (depth < 8) RandomEdit(it->value(), rng, depth + 1);
      break;
  }
}

// Drops null object members recursively (not inside arrays): what a merge patch can express.
json::value WithoutNullMembers(const json::value& v) {
  if (!v.is_object()) return v;
  json::object out;
  for (const auto& m : v.get_object()) {
    if (!m.value().is_null()) out[m.key()] = WithoutNullMembers(m.value());
  }
  return out;
}

TEST(CreateMergePatch, RandomEditsOfADeploymentRoundTripUpToNullMembers) {
  std::mt19937 rng(20240601);
  const auto original = Deployment();
  for (int i = 0; i < 500; ++i) {
    auto modified = original;
    const int edits = 1 + static_cast<int>(rng() % 5);
    for (int e = 0; e < edits; ++e) RandomEdit(modified, rng, 0);
    const auto patch = CreateMergePatch(original, modified);
    const auto result = ApplyMergePatch(original, patch);
    ASSERT_TRUE(JsonEqual(WithoutNullMembers(result), WithoutNullMembers(modified)))
        << "iteration " << i << "\n patch " << json::serialize(patch);
    // Minimality: applying the patch to the result changes nothing further, and the patch from
    // the result to itself is empty.
    ASSERT_TRUE(JsonEqual(ApplyMergePatch(result, patch), result));
    ASSERT_EQ(CreateMergePatch(result, result), J("{}"));
  }
}

}  // namespace
}  // namespace kube
