#include <kube/core/type_schema.hpp>

#include <gtest/gtest.h>

namespace kube {
namespace {

TEST(TypeSchemaTest, ParsesStructureAndKubernetesExtensions) {
  auto s = ParseTypeSchema(R"({
    "type":"object",
    "properties":{
      "spec":{"type":"object","properties":{
        "containers":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
                      "x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"name",
                      "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}},
        "labels":{"type":"object","additionalProperties":{"type":"string"},"x-kubernetes-map-type":"atomic"},
        "finalizers":{"type":"array","x-kubernetes-list-type":"set","x-kubernetes-patch-strategy":"merge,retainKeys","items":{"type":"string"}}
      }},
      "extra":{"x-kubernetes-preserve-unknown-fields":true}
    }})");
  ASSERT_TRUE(s.ok()) << s.error().message;
  const TypeSchema& root = **s;
  EXPECT_EQ(root.type, TypeSchema::Type::kObject);
  const TypeSchema* spec = root.Member("spec");
  ASSERT_NE(spec, nullptr);
  const TypeSchema* containers = spec->Member("containers");
  ASSERT_NE(containers, nullptr);
  EXPECT_EQ(containers->type, TypeSchema::Type::kArray);
  EXPECT_EQ(containers->list_type, TypeSchema::ListType::kMap);
  EXPECT_TRUE(containers->list_type_set);
  EXPECT_EQ(containers->list_map_keys, std::vector<std::string>{"name"});
  EXPECT_EQ(containers->patch_merge_key, "name");
  EXPECT_TRUE(containers->HasPatchStrategy("merge"));
  EXPECT_FALSE(containers->HasPatchStrategy("retainKeys"));
  ASSERT_NE(containers->items, nullptr);
  EXPECT_EQ(containers->items->required, std::vector<std::string>{"name"});
  const TypeSchema* labels = spec->Member("labels");
  ASSERT_NE(labels, nullptr);
  EXPECT_TRUE(labels->map_atomic);
  ASSERT_NE(labels->Member("any-key"), nullptr);
  EXPECT_EQ(labels->Member("any-key")->type, TypeSchema::Type::kString);
  const TypeSchema* finalizers = spec->Member("finalizers");
  ASSERT_NE(finalizers, nullptr);
  EXPECT_EQ(finalizers->list_type, TypeSchema::ListType::kSet);
  EXPECT_TRUE(finalizers->HasPatchStrategy("merge"));
  EXPECT_TRUE(finalizers->HasPatchStrategy("retainKeys"));
  EXPECT_TRUE(root.Member("extra")->preserve_unknown_fields);
  EXPECT_EQ(root.Member("unknown"), nullptr);
  EXPECT_EQ(spec->Member("unknown"), nullptr);
}

TEST(TypeSchemaTest, ListTypeDefaultsToAtomicAndUnset) {
  auto s = ParseTypeSchema(R"({"type":"array","items":{"type":"integer"}})");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->list_type, TypeSchema::ListType::kAtomic);
  EXPECT_FALSE((*s)->list_type_set);
  EXPECT_EQ((*s)->items->type, TypeSchema::Type::kInteger);
}

TEST(TypeSchemaTest, ParsesValueConstraints) {
  auto s = ParseTypeSchema(R"({"type":"integer","minimum":0,"maximum":10.5,"exclusiveMaximum":true,
    "enum":[1,2,3],"default":2,"nullable":true})");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ((*s)->minimum, 0.0);
  EXPECT_EQ((*s)->maximum, 10.5);
  EXPECT_FALSE((*s)->exclusive_minimum);
  EXPECT_TRUE((*s)->exclusive_maximum);
  EXPECT_EQ((*s)->enum_values.size(), 3u);
  EXPECT_TRUE((*s)->has_default);
  EXPECT_EQ((*s)->default_value, 2);
  EXPECT_TRUE((*s)->nullable);
  auto str = ParseTypeSchema(R"({"type":"string","minLength":1,"maxLength":5,"pattern":"^a+$","format":"date-time"})");
  ASSERT_TRUE(str.ok());
  EXPECT_EQ((*str)->min_length, 1);
  EXPECT_EQ((*str)->max_length, 5);
  EXPECT_EQ((*str)->pattern, "^a+$");
  EXPECT_EQ((*str)->format, "date-time");
}

TEST(TypeSchemaTest, AdditionalPropertiesTrueMeansAnyValue) {
  auto s = ParseTypeSchema(R"({"type":"object","additionalProperties":true})");
  ASSERT_TRUE(s.ok());
  ASSERT_NE((*s)->Member("x"), nullptr);
  EXPECT_EQ((*s)->Member("x")->type, TypeSchema::Type::kAny);
  auto none = ParseTypeSchema(R"({"type":"object","additionalProperties":false})");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ((*none)->Member("x"), nullptr);
}

TEST(TypeSchemaTest, BadSchemasNameThePath) {
  auto bad_type = ParseTypeSchema(R"({"type":"object","properties":{"spec":{"type":"map"}}})");
  ASSERT_FALSE(bad_type.ok());
  EXPECT_EQ(bad_type.error().code, 400);
  EXPECT_NE(bad_type.error().message.find("properties.spec.type: unsupported value \"map\""), std::string::npos)
      << bad_type.error().message;
  auto bad_node = ParseTypeSchema(R"({"properties":{"a":[]}})");
  ASSERT_FALSE(bad_node.ok());
  EXPECT_EQ(bad_node.error().message, "properties.a: must be an object");
  auto bad_keys = ParseTypeSchema(R"({"type":"array","x-kubernetes-list-map-keys":"name"})");
  ASSERT_FALSE(bad_keys.ok());
  EXPECT_EQ(bad_keys.error().message, "x-kubernetes-list-map-keys: must be an array of strings");
  auto bad_list_type = ParseTypeSchema(R"({"type":"array","x-kubernetes-list-type":"bag"})");
  ASSERT_FALSE(bad_list_type.ok());
  auto bad_len = ParseTypeSchema(R"({"type":"string","maxLength":-1})");
  ASSERT_FALSE(bad_len.ok());
  EXPECT_EQ(bad_len.error().message, "maxLength: must be a non-negative integer");
  auto bad_json = ParseTypeSchema(std::string_view("{"));
  ASSERT_FALSE(bad_json.ok());
  EXPECT_EQ(bad_json.error().code, 400);
}

TEST(TypeSchemaTest, DeepNestingIsRejectedNotOverflowed) {
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += R"({"type":"array","items":)";
  deep += R"({"type":"string"})";
  for (int i = 0; i < 200; ++i) deep += "}";
  auto s = ParseTypeSchema(std::string_view(deep));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("deeper than 64"), std::string::npos);
}

}  // namespace
}  // namespace kube
