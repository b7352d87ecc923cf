// The CRD schema of generated Kubernetes types embedded in a custom resource.
#include <algorithm>
#include <string>
#include <string_view>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <kube/api/apiextensions/v1.hpp>
#include <kube/api/core/v1.hpp>
#include <kube/api/custom_resource.hpp>
#include <kube/api/openapi_schemas.hpp>

namespace example {

namespace corev1 = kube::api::core::v1;

struct WorkerSpec {
  corev1::PodTemplateSpec template_;
  std::vector<corev1::Toleration> tolerations;
  std::optional<kube::api::apiextensions::v1::JSONSchemaProps> schema;
  static auto Fields() {
    using kube::api::Field;
    return std::tuple{Field("template", &WorkerSpec::template_).Required(),
                      Field("tolerations", &WorkerSpec::tolerations).List(kube::api::ListType::kAtomic),
                      Field("schema", &WorkerSpec::schema)};
  }
  bool operator==(const WorkerSpec&) const = default;
};

struct Worker : kube::api::CustomResource<Worker, WorkerSpec> {
  static constexpr std::string_view kGroup = "example.kubecpp.io";
  static constexpr std::string_view kVersion = "v1";
  static constexpr std::string_view kKind = "Worker";
  static constexpr std::string_view kResource = "workers";
  static constexpr bool kNamespaced = true;
};

// Worker's spec, with controller-gen's default for embedded ObjectMeta.
struct BareMetaWorker : kube::api::CustomResource<BareMetaWorker, WorkerSpec> {
  static constexpr std::string_view kGroup = "example.kubecpp.io";
  static constexpr std::string_view kVersion = "v1";
  static constexpr std::string_view kKind = "BareMetaWorker";
  static constexpr std::string_view kResource = "baremetaworkers";
  static constexpr bool kNamespaced = true;
  static kube::api::CrdOptions Crd() { return {.embedded_object_meta = false}; }
};

}  // namespace example

namespace kube::api {
namespace {

namespace json = boost::json;

// Calls f(path, schema) for `s` and every schema inside it.
template <class F>
void Walk(const json::object& s, const std::string& path, const F& f) {
  f(path, s);
  if (const auto* props = s.if_contains("properties")) {
    for (const auto& [k, v] : props->as_object()) Walk(v.as_object(), path + "." + std::string(k), f);
  }
  if (const auto* items = s.if_contains("items")) Walk(items->as_object(), path + "[]", f);
  if (const auto* extra = s.if_contains("additionalProperties"); extra && extra->is_object()) {
    Walk(extra->as_object(), path + "{}", f);
  }
}

// What kube-apiserver checks of a CRD schema that the generated schemas could get wrong: no
// reference left, list types on arrays only, every list-map key required or defaulted.
std::vector<std::string> StructuralProblems(const json::object& schema) {
  std::vector<std::string> problems;
  Walk(schema, "", [&](const std::string& path, const json::object& s) {
    for (const std::string_view k : {"$ref", "allOf", "oneOf"}) {
      if (s.contains(k)) problems.push_back(path + ": " + std::string(k));
    }
    const json::value* type = s.if_contains("type");
    if (s.contains("x-kubernetes-list-type") && (type == nullptr || *type != "array")) {
      problems.push_back(path + ": x-kubernetes-list-type on a non-array");
    }
    if (s.contains("x-kubernetes-list-map-keys")) {
      const json::object& items = s.at("items").as_object();
      const json::array none;
      const json::array& required = items.contains("required") ? items.at("required").as_array() : none;
      for (const auto& key : s.at("x-kubernetes-list-map-keys").as_array()) {
        const bool is_required = std::find(required.begin(), required.end(), key) != required.end();
        const bool defaulted = items.at("properties").at(key.as_string()).as_object().contains("default");
        if (!is_required && !defaulted) {
          problems.push_back(path + ": list-map key " + std::string(key.as_string()) + " neither required nor defaulted");
        }
      }
    }
  });
  return problems;
}

const json::object& At(const json::object& s, std::initializer_list<std::string_view> path) {
  const json::object* cur = &s;
  for (const std::string_view p : path) cur = &cur->at(p).as_object();
  return *cur;
}

TEST(EmbeddedSchema, PodTemplateSpecIsExpandedInlineAsControllerGenWritesIt) {
  const json::object schema = OpenApiSchemaOf<example::Worker>();
  const json::object& tmpl = At(schema, {"properties", "spec", "properties", "template"});
  EXPECT_EQ(tmpl.at("type"), "object");
  EXPECT_EQ(tmpl.at("properties").at("metadata").at("type"), "object");  // EmbeddedObjectMeta* below
  const json::object& containers = At(tmpl, {"properties", "spec", "properties", "containers"});
  EXPECT_EQ(containers.at("type"), "array");
  EXPECT_EQ(containers.at("x-kubernetes-list-type"), "map");
  EXPECT_EQ(containers.at("x-kubernetes-list-map-keys"), json::parse(R"(["name"])"));
  const json::object& container = containers.at("items").as_object();
  EXPECT_EQ(container.at("required"), json::parse(R"(["name"])"));
  EXPECT_EQ(container.at("properties").at("image"), json::parse(R"({"type":"string"})"));
  EXPECT_EQ(At(tmpl, {"properties", "spec"}).at("required"), json::parse(R"(["containers"])"));
}

// controller-gen's crd:generateEmbeddedObjectMeta=true: these five, nothing else.
const json::value kEmbeddedObjectMeta = json::parse(R"({"type":"object","properties":{
  "annotations":{"type":"object","additionalProperties":{"type":"string"}},
  "finalizers":{"type":"array","items":{"type":"string"}},
  "labels":{"type":"object","additionalProperties":{"type":"string"}},
  "name":{"type":"string"},
  "namespace":{"type":"string"}}})");

TEST(EmbeddedSchema, EmbeddedObjectMetaKeepsLabelsAnnotationsFinalizersNameAndNamespaceByDefault) {
  const json::object schema = OpenApiSchemaOf<example::Worker>();
  const json::object& meta = At(schema, {"properties", "spec", "properties", "template", "properties", "metadata"});
  EXPECT_EQ(json::value(meta), kEmbeddedObjectMeta);
  EXPECT_EQ(meta.at("properties").as_object().size(), 5u);
  EXPECT_EQ(json::value(At(schema, {"properties", "spec", "properties", "template", "properties", "spec",
                                    "properties", "volumes", "items", "properties", "ephemeral", "properties",
                                    "volumeClaimTemplate", "properties", "metadata"})),
            kEmbeddedObjectMeta);
  // The CRD carries the same schema, and the resource's own metadata stays the API server's.
  const json::object crd = CrdOf<example::Worker>();
  const json::object& crd_schema =
      crd.at("spec").at("versions").at(0).at("schema").at("openAPIV3Schema").as_object();
  EXPECT_EQ(crd_schema, schema);
  EXPECT_EQ(crd_schema.at("properties").at("metadata"), json::parse(R"({"type":"object"})"));
  // Wherever the table embeds an ObjectMeta: a generated type's own metadata is embedded too.
  EXPECT_EQ(internal::GeneratedTypeSchema(core::v1::Event::kOpenApiName).at("properties").at("metadata"),
            kEmbeddedObjectMeta);
}

TEST(EmbeddedSchema, EmbeddedObjectMetaOffIsControllerGensBareObject) {
  const json::object schema = OpenApiSchemaOf<example::BareMetaWorker>();
  EXPECT_EQ(At(schema, {"properties", "spec", "properties", "template", "properties", "metadata"}),
            json::parse(R"({"type":"object"})"));
  EXPECT_EQ(schema.at("properties").at("metadata"), json::parse(R"({"type":"object"})"));
  const json::object crd = CrdOf<example::BareMetaWorker>();
  EXPECT_EQ(crd.at("spec").at("versions").at(0).at("schema").at("openAPIV3Schema"), schema);
  EXPECT_EQ(OpenApiSchemaOf<example::Worker>(CrdOptions{.embedded_object_meta = false}), schema);
  // Only the embedded ObjectMetas differ from the default's: the template's and, inside its pod
  // spec, an ephemeral volume's volumeClaimTemplate.metadata.
  std::string with_meta = json::serialize(OpenApiSchemaOf<example::Worker>());
  const std::string meta = json::serialize(internal::EmbeddedObjectMetaSchema(CrdOptions{}));
  const std::string bare = R"({"type":"object"})";
  ASSERT_NE(meta, bare);
  int replaced = 0;
  for (std::size_t at = with_meta.find(meta); at != std::string::npos; at = with_meta.find(meta, at + bare.size())) {
    with_meta.replace(at, meta.size(), bare);
    ++replaced;
  }
  EXPECT_EQ(replaced, 2);
  EXPECT_EQ(json::parse(with_meta), json::value(schema));
  EXPECT_EQ(At(schema, {"properties", "spec", "properties", "template", "properties", "spec", "properties", "volumes",
                        "items", "properties", "ephemeral", "properties", "volumeClaimTemplate", "properties",
                        "metadata"}),
            json::parse(R"({"type":"object"})"));
}

TEST(EmbeddedSchema, ContainerPortsAreAListMapWhoseKeysAreRequiredOrDefaulted) {
  const json::object schema = OpenApiSchemaOf<example::Worker>();
  const json::object& ports = At(schema, {"properties", "spec", "properties", "template", "properties", "spec",
                                          "properties", "containers", "items", "properties", "ports"});
  EXPECT_EQ(ports.at("x-kubernetes-list-type"), "map");
  EXPECT_EQ(ports.at("x-kubernetes-list-map-keys"), json::parse(R"(["containerPort","protocol"])"));
  const json::object& port = ports.at("items").as_object();
  EXPECT_EQ(port.at("required"), json::parse(R"(["containerPort"])"));
  // openapi-gen's `default: 0` of the required containerPort is not carried over.
  EXPECT_EQ(port.at("properties").at("containerPort"), json::parse(R"({"format":"int32","type":"integer"})"));
  EXPECT_EQ(port.at("properties").at("protocol"),
            json::parse(R"({"default":"TCP","enum":["SCTP","TCP","UDP"],"type":"string"})"));
}

TEST(EmbeddedSchema, ResourcesAreIntOrStringQuantitiesAndProbePortsIntOrString) {
  const json::object schema = OpenApiSchemaOf<example::Worker>();
  const json::object& container = At(schema, {"properties", "spec", "properties", "template", "properties", "spec",
                                              "properties", "containers", "items", "properties"});
  const json::object& limits = At(container, {"resources", "properties", "limits"});
  EXPECT_EQ(limits.at("type"), "object");
  EXPECT_EQ(json::value(limits.at("additionalProperties")), json::value(internal::ScalarSchema("quantity")));
  EXPECT_EQ(At(container, {"livenessProbe", "properties", "httpGet", "properties", "port"}),
            internal::ScalarSchema("int-or-string"));
}

TEST(EmbeddedSchema, VectorOfTolerationsIsAnArrayOfTheirSchema) {
  const json::object schema = OpenApiSchemaOf<example::Worker>();
  const json::object& tolerations = At(schema, {"properties", "spec", "properties", "tolerations"});
  EXPECT_EQ(tolerations.at("type"), "array");
  EXPECT_EQ(tolerations.at("x-kubernetes-list-type"), "atomic");  // the field's option
  const json::object& t = tolerations.at("items").as_object();
  EXPECT_EQ(t.at("properties").at("operator"), json::parse(R"({"enum":["Equal","Exists"],"type":"string"})"));
  EXPECT_EQ(t.at("properties").at("tolerationSeconds"), json::parse(R"({"format":"int64","type":"integer"})"));
}

TEST(EmbeddedSchema, NoReferenceIsLeftAnywhereInTheCrd) {
  const json::object schema = OpenApiSchemaOf<example::Worker>();
  EXPECT_EQ(StructuralProblems(schema), std::vector<std::string>{});
  const std::string text = json::serialize(schema);
  EXPECT_EQ(text.find("$ref"), std::string::npos);
  EXPECT_EQ(text.find("io.k8s."), std::string::npos);
}

TEST(EmbeddedSchema, RecursiveJsonSchemaPropsKeepsUnknownFieldsInsteadOfRecursing) {
  const json::object schema = OpenApiSchemaOf<example::Worker>();
  EXPECT_EQ(json::value(At(schema, {"properties", "spec", "properties", "schema"})),
            json::parse(R"({"type":"object","x-kubernetes-preserve-unknown-fields":true})"));
  // A type that holds the recursive one is expanded down to it.
  const json::object validation =
      internal::GeneratedTypeSchema(apiextensions::v1::CustomResourceValidation::kOpenApiName);
  EXPECT_EQ(validation.at("properties").at("openAPIV3Schema"),
            json::parse(R"({"type":"object","x-kubernetes-preserve-unknown-fields":true})"));
}

TEST(EmbeddedSchema, SpecialTypesGetTheirControllerGenSchemas) {
  const json::object event =
      internal::GeneratedTypeSchema(core::v1::Event::kOpenApiName, CrdOptions{.embedded_object_meta = false});
  const json::object& props = event.at("properties").as_object();
  EXPECT_EQ(props.at("metadata"), json::parse(R"({"type":"object"})"));
  EXPECT_EQ(props.at("eventTime"), json::parse(R"({"type":"string","format":"date-time"})"));
  EXPECT_EQ(props.at("lastTimestamp"), json::parse(R"({"type":"string","format":"date-time"})"));
  // A map type written beside a reference overrides the referenced type's.
  const json::object pv = internal::GeneratedTypeSchema(core::v1::PersistentVolumeSpec::kOpenApiName);
  EXPECT_EQ(pv.at("properties").at("claimRef").at("x-kubernetes-map-type"), "granular");
}

TEST(EmbeddedSchema, EveryGeneratedTypeExpandsToAStructuralSchema) {
  const std::vector<std::string_view> names = internal::OpenApiSchemaNames();
  ASSERT_GT(names.size(), 400u);
  for (const std::string_view name : names) {
    const json::object schema = internal::GeneratedTypeSchema(name);
    EXPECT_EQ(StructuralProblems(schema), std::vector<std::string>{}) << name;
  }
  EXPECT_FALSE(internal::OpenApiSchemaText("io.k8s.api.core.v1.NoSuchType").has_value());
  EXPECT_TRUE(internal::OpenApiSchemaText(core::v1::PodSpec::kOpenApiName).has_value());
}

}  // namespace
}  // namespace kube::api
