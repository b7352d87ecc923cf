// The Go zero values laid onto the built-in schemas, as the field manager sees them.

#include "apiserver/rest/go_zero.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <kube/core/json.hpp>

#include "apiserver/rest/builtin_schema.hpp"
#include "apiserver/rest/managed_fields.hpp"

namespace kube::apiserver::rest {
namespace {
namespace json = boost::json;

std::string FieldsOf(const json::object& obj) {
  return SerializeJson(obj.at("metadata").at("managedFields").at(0).at("fieldsV1"));
}

json::object Created(std::string_view text, const TypeSchema* schema) {
  json::object obj = json::parse(text).as_object();
  TrackUpdate(nullptr, obj, WriteManager{"m", "apps/v1", "", "2026-01-01T00:00:00Z"}, schema);
  return obj;
}

TEST(GoZero, UnmarshalStopsAtTheFirstValueInDocumentOrderThatItsGoTypeCannotTake) {
  const TypeSchemaPtr cm = OpenApiSchema("", "v1", "ConfigMap");
  ASSERT_NE(cm, nullptr);
  EXPECT_FALSE(GoUnmarshalError(*cm, json::parse(R"({"data":{"a":"1"},"immutable":true})")));
  const json::value bad = json::parse(R"({"immutable":"yes","data":{"a":1}})");
  EXPECT_EQ(GoUnmarshalError(*cm, bad),
            "json: cannot unmarshal string into Go struct field ConfigMap.immutable of type bool");
  const auto failure = FindGoUnmarshalFailure(*cm, json::parse(R"({"data":{"a":"1","b":2},"immutable":"yes"})"));
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->message, "json: cannot unmarshal number into Go struct field ConfigMap.data of type string");
  EXPECT_EQ(failure->value, json::value(2));
  EXPECT_EQ(failure->go_type, "string");
}

TEST(GoZero, TheTableMarksNonPointerStructsAlwaysEncodedSlicesAndAtomicStructs) {
  const auto deploy = BuiltinSchema(BuiltinKind::kDeployment);
  ASSERT_NE(deploy, nullptr);
  EXPECT_TRUE(deploy->go_type);
  const TypeSchema* spec = deploy->Member("spec");
  ASSERT_NE(spec, nullptr);
  EXPECT_TRUE(spec->go_zero_members.contains("strategy"));  // DeploymentStrategy, not a pointer
  EXPECT_TRUE(spec->go_zero_members.contains("template"));
  EXPECT_FALSE(spec->go_zero_members.contains("selector"));  // *LabelSelector
  const TypeSchema* pod_spec = spec->Member("template")->Member("spec");
  ASSERT_NE(pod_spec, nullptr);
  EXPECT_TRUE(pod_spec->go_zero_members.at("containers").is_null());  // always encoded
  ResourceInfo binding;
  binding.group = "rbac.authorization.k8s.io";
  binding.version = "v1";
  binding.kind = "RoleBinding";
  binding.resource = "rolebindings";
  binding.builtin = true;
  const auto rb = BuiltinFieldSchema(binding);
  ASSERT_NE(rb, nullptr);
  EXPECT_TRUE(rb->Member("roleRef")->map_atomic);
}

TEST(GoZero, ACreateHasDotEntriesOnlyWhereGosZeroValueHadNothing) {
  const auto obj = Created(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{}},
      "spec":{"replicas":1,"selector":{"matchLabels":{"app":"d"}},
      "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%"}},
      "template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}})",
                           BuiltinSchema(BuiltinKind::kDeployment).get());
  // No "." for spec.strategy, spec.template, its metadata and spec, or the containers list (all
  // in the zero value); one for rollingUpdate (a pointer), labels (absent) and the container
  // (a new list element). The empty labels of the object's own metadata are omitted, as Go does.
  EXPECT_EQ(FieldsOf(obj),
            R"({"f:spec":{"f:replicas":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{}},)"
            R"("f:type":{}},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{)"
            R"("k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{}}}}}}})");
}

TEST(GoZero, FillAddsWhatGoAlwaysEncodesAndNormalizeDropsOrNullsEmptyCollections) {
  const auto schema = BuiltinSchema(BuiltinKind::kDeployment);
  boost::json::value v = boost::json::parse(R"({"spec":{"template":{"spec":{"containers":[{"name":"c"}]}}}})");
  FillGoZero(*schema, v);
  // Non-pointer structs appear as their zero values (status, strategy, the template's metadata
  // with a null creationTimestamp, a container's resources); the container's name stays.
  EXPECT_EQ(v.at("status"), boost::json::object());
  EXPECT_EQ(v.at("spec").at("strategy"), boost::json::object());
  EXPECT_TRUE(v.at("spec").at("template").at("metadata").at("creationTimestamp").is_null());
  EXPECT_EQ(v.at("spec").at("template").at("spec").at("containers").at(0).at("resources"), boost::json::object());
  EXPECT_EQ(v.at("spec").at("template").at("spec").at("containers").at(0).at("name"), "c");
  // Empty collections: omitempty ones vanish on decode; always-encoded ones become null once stored.
  boost::json::value pod = boost::json::parse(R"({"metadata":{"labels":{}},"spec":{"containers":[],"volumes":[]}})");
  NormalizeGoEmpty(*BuiltinSchema(BuiltinKind::kPod), pod, /*stored=*/false);
  EXPECT_EQ(pod, boost::json::parse(R"({"metadata":{},"spec":{"containers":[]}})"));
  NormalizeGoEmpty(*BuiltinSchema(BuiltinKind::kPod), pod, /*stored=*/true);
  EXPECT_EQ(pod, boost::json::parse(R"({"metadata":{},"spec":{"containers":null}})"));
  EXPECT_EQ(GoZeroObject(*schema->Member("status")), boost::json::object());
}

}  // namespace
}  // namespace kube::apiserver::rest
