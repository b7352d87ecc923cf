#include "apiserver/rest/builtin_schema.hpp"

#include <string>
#include <vector>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <kube/apiserver/apiserver.hpp>
#include <kube/core/strategic_merge.hpp>

namespace kube::apiserver::rest {
namespace {

namespace json = boost::json;

// Walks member names from `root` (array nodes step into `items`).
const TypeSchema* At(const TypeSchemaPtr& root, const std::vector<std::string>& path) {
  const TypeSchema* node = root.get();
  for (const auto& name : path) {
    if (node == nullptr) return nullptr;
    if (name == "[]") {
      node = node->items.get();
    } else {
      node = node->Member(name);
    }
  }
  return node;
}

TEST(BuiltinSchema, EveryServedKindHasAParsedSchemaAndGenericHasNone) {
  for (BuiltinKind kind : {BuiltinKind::kNamespace, BuiltinKind::kConfigMap, BuiltinKind::kSecret, BuiltinKind::kEvent,
                           BuiltinKind::kEventV1, BuiltinKind::kPod, BuiltinKind::kService,
                           BuiltinKind::kServiceAccount, BuiltinKind::kNode, BuiltinKind::kDeployment,
                           BuiltinKind::kReplicaSet, BuiltinKind::kLease}) {
    const TypeSchemaPtr s = BuiltinSchema(kind);
    ASSERT_NE(s, nullptr) << static_cast<int>(kind);
    // Parsed from the published JSON text, and cached (the same pointer every time).
    EXPECT_TRUE(ParseTypeSchema(std::string_view(BuiltinSchemaJson(kind))).ok());
    EXPECT_EQ(s, BuiltinSchema(kind));
    const TypeSchema* finalizers = At(s, {"metadata", "finalizers"});
    ASSERT_NE(finalizers, nullptr);
    EXPECT_TRUE(finalizers->HasPatchStrategy("merge"));
    EXPECT_EQ(finalizers->list_type, TypeSchema::ListType::kSet);
  }
  EXPECT_EQ(BuiltinSchema(BuiltinKind::kGeneric), nullptr);
}

TEST(BuiltinSchema, RegisteredBuiltinsCarryTheirSchema) {
  Registry registry;
  RegisterBuiltins(registry);
  auto pods = registry.Find("", "v1", "pods");
  ASSERT_NE(pods, nullptr);
  EXPECT_EQ(pods->schema, BuiltinSchema(BuiltinKind::kPod));
  auto deployments = registry.Find("apps", "v1", "deployments");
  ASSERT_NE(deployments, nullptr);
  EXPECT_EQ(deployments->schema, BuiltinSchema(BuiltinKind::kDeployment));
  auto events = registry.Find("events.k8s.io", "v1", "events");
  ASSERT_NE(events, nullptr);
  EXPECT_EQ(events->schema, BuiltinSchema(BuiltinKind::kEventV1));
}

TEST(BuiltinSchema, ObjectMetaUsesKubesKeys) {
  const auto pod = BuiltinSchema(BuiltinKind::kPod);
  const TypeSchema* owners = At(pod, {"metadata", "ownerReferences"});
  ASSERT_NE(owners, nullptr);
  EXPECT_EQ(owners->patch_merge_key, "uid");
  EXPECT_EQ(owners->list_type, TypeSchema::ListType::kMap);
  EXPECT_EQ(owners->list_map_keys, std::vector<std::string>{"uid"});
  EXPECT_TRUE(owners->items->map_atomic);
  const TypeSchema* managed = At(pod, {"metadata", "managedFields"});
  ASSERT_NE(managed, nullptr);
  EXPECT_EQ(managed->list_type, TypeSchema::ListType::kAtomic);
  EXPECT_TRUE(managed->list_type_set);
  EXPECT_TRUE(managed->patch_strategy.empty());
}

TEST(BuiltinSchema, PodSpecListsUseKubesMergeKeysAndListTypes) {
  const auto deploy = BuiltinSchema(BuiltinKind::kDeployment);
  const std::vector<std::string> spec = {"spec", "template", "spec"};
  auto field = [&](std::vector<std::string> rest) {
    std::vector<std::string> path = spec;
    path.insert(path.end(), rest.begin(), rest.end());
    return At(deploy, path);
  };
  const TypeSchema* containers = field({"containers"});
  ASSERT_NE(containers, nullptr);
  EXPECT_EQ(containers->patch_merge_key, "name");
  EXPECT_EQ(containers->list_map_keys, std::vector<std::string>{"name"});
  const TypeSchema* ports = field({"containers", "[]", "ports"});
  ASSERT_NE(ports, nullptr);
  EXPECT_EQ(ports->patch_merge_key, "containerPort");
  EXPECT_EQ(ports->list_map_keys, (std::vector<std::string>{"containerPort", "protocol"}));
  EXPECT_EQ(field({"containers", "[]", "volumeMounts"})->patch_merge_key, "mountPath");
  EXPECT_EQ(field({"initContainers", "[]", "env"})->patch_merge_key, "name");
  const TypeSchema* volumes = field({"volumes"});
  EXPECT_TRUE(volumes->HasPatchStrategy("merge"));
  EXPECT_TRUE(volumes->HasPatchStrategy("retainKeys"));
  const TypeSchema* tolerations = field({"tolerations"});
  EXPECT_TRUE(tolerations->patch_strategy.empty());
  EXPECT_EQ(tolerations->list_type, TypeSchema::ListType::kAtomic);
  const TypeSchema* spread = field({"topologySpreadConstraints"});
  EXPECT_EQ(spread->patch_merge_key, "topologyKey");
  EXPECT_EQ(spread->list_map_keys, (std::vector<std::string>{"topologyKey", "whenUnsatisfiable"}));
  EXPECT_EQ(field({"hostAliases"})->patch_merge_key, "ip");
  EXPECT_EQ(field({"imagePullSecrets"})->patch_merge_key, "name");
  EXPECT_TRUE(At(deploy, {"spec", "strategy"})->HasPatchStrategy("retainKeys"));
  EXPECT_EQ(At(deploy, {"status", "conditions"})->patch_merge_key, "type");
}

TEST(BuiltinSchema, StatusServiceNodeAndServiceAccountTables) {
  EXPECT_EQ(At(BuiltinSchema(BuiltinKind::kPod), {"status", "conditions"})->patch_merge_key, "type");
  EXPECT_EQ(At(BuiltinSchema(BuiltinKind::kReplicaSet), {"status", "conditions"})->patch_merge_key, "type");
  EXPECT_EQ(At(BuiltinSchema(BuiltinKind::kNamespace), {"status", "conditions"})->patch_merge_key, "type");
  const auto node = BuiltinSchema(BuiltinKind::kNode);
  EXPECT_EQ(At(node, {"status", "conditions"})->patch_merge_key, "type");
  const TypeSchema* addresses = At(node, {"status", "addresses"});
  EXPECT_EQ(addresses->patch_merge_key, "type");
  EXPECT_EQ(addresses->list_map_keys, std::vector<std::string>{"type"});  // +listType=map in 1.32
  const TypeSchema* ports = At(BuiltinSchema(BuiltinKind::kService), {"spec", "ports"});
  EXPECT_EQ(ports->patch_merge_key, "port");
  EXPECT_EQ(ports->list_map_keys, (std::vector<std::string>{"port", "protocol"}));
  EXPECT_EQ(At(BuiltinSchema(BuiltinKind::kServiceAccount), {"secrets"})->patch_merge_key, "name");
}

TEST(BuiltinSchema, DrivesStrategicMergeOfAPodTemplate) {
  const json::value live = json::parse(R"({"spec":{"template":{"spec":{"containers":[
      {"name":"app","image":"a:1","env":[{"name":"A","value":"1"}],"ports":[{"containerPort":80,"protocol":"TCP"}]}]}}}})");
  const json::value patch = json::parse(R"({"spec":{"template":{"spec":{"containers":[
      {"name":"app","env":[{"name":"B","value":"2"}]}]}}}})");
  auto out = ApplyStrategicMergePatch(live, patch, BuiltinSchema(BuiltinKind::kDeployment).get());
  ASSERT_TRUE(out.ok()) << out.error().message;
  const auto& c = out->at_pointer("/spec/template/spec/containers/0").as_object();
  EXPECT_EQ(c.at("image"), "a:1");
  EXPECT_EQ(c.at("env"), json::parse(R"([{"name":"B","value":"2"},{"name":"A","value":"1"}])"));
  EXPECT_EQ(c.at("ports").as_array().size(), 1U);
}

}  // namespace
}  // namespace kube::apiserver::rest
