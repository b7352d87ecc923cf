// Custom resources declared in C++: the reflected codec, the structural schema and the CRD.
#include <kube/api/custom_resource.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

namespace example {

struct Backend {
  std::string name;
  int32_t port = 0;
  static auto Fields() {
    using kube::api::Field;
    return std::tuple{Field("name", &Backend::name).Required(), Field("port", &Backend::port).Minimum(1).Maximum(65535)};
  }
  bool operator==(const Backend&) const = default;
};

struct WebsiteSpec {
  std::string image;
  int32_t replicas = 1;
  std::optional<std::string> domain;
  std::vector<std::string> paths;
  std::vector<Backend> backends;
  std::map<std::string, std::string> labels;
  std::optional<kube::api::Quantity> memory;
  std::string tier;
  kube::api::UnknownFields unknown_fields;

  static auto Fields() {
    using kube::api::Field;
    using kube::api::ListType;
    return std::tuple{
        Field("image", &WebsiteSpec::image).Required().Pattern("^[a-z0-9./:-]+$").Description("The image."),
        Field("replicas", &WebsiteSpec::replicas).Minimum(0).Maximum(100).Default(1),
        Field("domain", &WebsiteSpec::domain),
        Field("paths", &WebsiteSpec::paths).List(ListType::kSet).MaxItems(8),
        Field("backends", &WebsiteSpec::backends).List(ListType::kMap, {"name"}),
        Field("labels", &WebsiteSpec::labels),
        Field("memory", &WebsiteSpec::memory),
        Field("tier", &WebsiteSpec::tier).Enum({"free", "paid"}).Default("free")};
  }
  bool operator==(const WebsiteSpec&) const = default;
};

struct WebsiteStatus {
  std::optional<int64_t> observedGeneration;
  int32_t readyReplicas = 0;
  std::vector<kube::api::meta::v1::Condition> conditions;
  static auto Fields() {
    using kube::api::Field;
    return std::tuple{Field("observedGeneration", &WebsiteStatus::observedGeneration),
                      Field("readyReplicas", &WebsiteStatus::readyReplicas),
                      Field("conditions", &WebsiteStatus::conditions).List(kube::api::ListType::kMap, {"type"})};
  }
  bool operator==(const WebsiteStatus&) const = default;
};

struct Website : kube::api::CustomResource<Website, WebsiteSpec, WebsiteStatus> {
  static constexpr std::string_view kGroup = "example.kubecpp.io";
  static constexpr std::string_view kVersion = "v1";
  static constexpr std::string_view kKind = "Website";
  static constexpr std::string_view kResource = "websites";
  static constexpr bool kNamespaced = true;
  static kube::api::CrdOptions Crd() {
    return {.short_names = {"ws"},
            .printer_columns = {{.name = "Replicas", .type = "integer", .json_path = ".spec.replicas"}},
            .scale = kube::api::ScaleSubresource{.spec_replicas_path = ".spec.replicas",
                                                 .status_replicas_path = ".status.readyReplicas"}};
  }
};

}  // namespace example

namespace kube::api {
namespace {

using example::Website;

TEST(CustomResource, NewObjectsCarryTheirTypeMeta) {
  Website w;
  EXPECT_EQ(w.apiVersion, "example.kubecpp.io/v1");
  EXPECT_EQ(w.kind, "Website");
  w.metadata.name = "site";
  w.spec.image = "nginx:1.27";
  EXPECT_EQ(ToJson(w),
            R"({"apiVersion":"example.kubecpp.io/v1","kind":"Website","metadata":{"name":"site"},)"
            R"("spec":{"image":"nginx:1.27","replicas":1}})");
}

TEST(CustomResource, RoundTripsEveryFieldAndKeepsUnknownOnes) {
  const std::string json =
      R"({"apiVersion":"example.kubecpp.io/v1","kind":"Website","metadata":{"name":"site","namespace":"web"},)"
      R"("spec":{"image":"nginx","replicas":3,"domain":"example.com","paths":["/a","/b"],)"
      R"("backends":[{"name":"api","port":8080}],"labels":{"team":"web"},"memory":"1Gi","tier":"paid","future":[1]},)"
      R"("status":{"observedGeneration":2,"readyReplicas":3,"conditions":[{"type":"Ready","status":"True",)"
      R"("reason":"Available","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}})";
  auto w = FromJson<Website>(json);
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->spec.replicas, 3);
  EXPECT_EQ(w->spec.domain, "example.com");
  EXPECT_EQ(w->spec.backends.at(0).port, 8080);
  EXPECT_EQ(w->spec.memory->Value(), 1024 * 1024 * 1024);
  EXPECT_EQ(w->spec.unknown_fields.raw(), R"("future":[1])");
  ASSERT_TRUE(w->status.has_value());
  EXPECT_EQ(w->status->conditions.at(0).reason, "Available");
  EXPECT_EQ(boost::json::parse(ToJson(*w)), boost::json::parse(json));
  auto again = FromJson<Website>(ToJson(*w));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *w);
}

TEST(CustomResource, DecodeErrorsNameThePath) {
  auto w = FromJson<Website>(R"({"spec":{"image":"x","backends":[{"name":"a","port":"80"}]}})");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().message.rfind("spec.backends[0].port: expected integer, found string", 0), 0u)
      << w.error().message;
}

TEST(CustomResource, SchemaCarriesTypesRequiredBoundsPatternsDefaultsEnumsAndListTypes) {
  const boost::json::object schema = OpenApiSchemaOf<Website>();
  const auto& props = schema.at("properties").as_object();
  EXPECT_EQ(props.at("metadata"), boost::json::parse(R"({"type":"object"})"));
  const auto& spec = props.at("spec").as_object();
  EXPECT_EQ(spec.at("required"), boost::json::parse(R"(["image"])"));
  const auto& sp = spec.at("properties").as_object();
  EXPECT_EQ(sp.at("image"),
            boost::json::parse(R"({"type":"string","description":"The image.","pattern":"^[a-z0-9./:-]+$"})"));
  EXPECT_EQ(sp.at("replicas"),
            boost::json::parse(R"({"type":"integer","format":"int32","default":1,"minimum":0,"maximum":100})"));
  EXPECT_EQ(sp.at("paths"),
            boost::json::parse(R"({"type":"array","items":{"type":"string"},"maxItems":8,"x-kubernetes-list-type":"set"})"));
  EXPECT_EQ(sp.at("backends").at("x-kubernetes-list-map-keys"), boost::json::parse(R"(["name"])"));
  EXPECT_EQ(sp.at("backends").at("items").at("required"), boost::json::parse(R"(["name"])"));
  EXPECT_EQ(sp.at("labels"), boost::json::parse(R"({"type":"object","additionalProperties":{"type":"string"}})"));
  EXPECT_EQ(sp.at("memory").at("x-kubernetes-int-or-string"), true);
  EXPECT_EQ(sp.at("tier"), boost::json::parse(R"({"type":"string","default":"free","enum":["free","paid"]})"));
  const auto& status = props.at("status").as_object();
  EXPECT_EQ(status.at("properties").at("conditions").at("items").at("required"),
            boost::json::parse(R"(["lastTransitionTime","message","reason","status","type"])"));
}

struct Route {
  std::string host;
  std::string path;
  static auto Fields() {
    using kube::api::Field;
    return std::tuple{Field("host", &Route::host), Field("path", &Route::path).Default("/")};
  }
  bool operator==(const Route&) const = default;
};

struct RouteTable {
  std::vector<Route> routes;
  static auto Fields() {
    return std::tuple{Field("routes", &RouteTable::routes).List(ListType::kMap, {"host", "path"})};
  }
  bool operator==(const RouteTable&) const = default;
};

// A user's own template type, with a meta::v1::ObjectMeta member.
struct ClaimTemplate {
  kube::api::meta::v1::ObjectMeta metadata;
  std::string size;
  static auto Fields() {
    using kube::api::Field;
    return std::tuple{Field("metadata", &ClaimTemplate::metadata), Field("size", &ClaimTemplate::size)};
  }
  bool operator==(const ClaimTemplate&) const = default;
};

struct ClaimSetSpec {
  std::vector<ClaimTemplate> templates;
  static auto Fields() { return std::tuple{kube::api::Field("templates", &ClaimSetSpec::templates)}; }
  bool operator==(const ClaimSetSpec&) const = default;
};

struct ClaimSet : kube::api::CustomResource<ClaimSet, ClaimSetSpec> {
  static constexpr std::string_view kGroup = "example.kubecpp.io";
  static constexpr std::string_view kVersion = "v1";
  static constexpr std::string_view kKind = "ClaimSet";
  static constexpr std::string_view kResource = "claimsets";
  static constexpr bool kNamespaced = true;
};

TEST(CustomResource, AnObjectMetaMemberOfAReflectedStructIsAnEmbeddedObjectMeta) {
  const boost::json::value embedded = boost::json::parse(R"({"type":"object","properties":{
    "annotations":{"type":"object","additionalProperties":{"type":"string"}},
    "finalizers":{"type":"array","items":{"type":"string"}},
    "labels":{"type":"object","additionalProperties":{"type":"string"}},
    "name":{"type":"string"},"namespace":{"type":"string"}}})");
  const auto template_meta = [](const boost::json::object& schema) {
    return schema.at("properties").at("spec").at("properties").at("templates").at("items").at("properties").at(
        "metadata");
  };
  const boost::json::object schema = OpenApiSchemaOf<ClaimSet>();
  EXPECT_EQ(template_meta(schema), embedded);
  EXPECT_EQ(schema.at("properties").at("metadata"), boost::json::parse(R"({"type":"object"})"));
  const boost::json::object bare = OpenApiSchemaOf<ClaimSet>(CrdOptions{.embedded_object_meta = false});
  EXPECT_EQ(template_meta(bare), boost::json::parse(R"({"type":"object"})"));
  EXPECT_EQ(bare.at("properties").at("metadata"), boost::json::parse(R"({"type":"object"})"));
}

TEST(CustomResource, ListMapKeysThatAreNeitherRequiredNorDefaultedBecomeRequired) {
  // kube-apiserver rejects a CRD whose list-map key is neither; `path` has a default.
  const boost::json::object schema = internal::StructSchema<RouteTable>();
  EXPECT_EQ(schema.at("properties").at("routes").at("items").at("required"), boost::json::parse(R"(["host"])"));
}

TEST(CustomResource, CrdHasNamesScopeSubresourcesAndColumns) {
  const boost::json::object crd = CrdOf<Website>();
  EXPECT_EQ(crd.at("metadata").at("name"), "websites.example.kubecpp.io");
  const auto& spec = crd.at("spec").as_object();
  EXPECT_EQ(spec.at("scope"), "Namespaced");
  EXPECT_EQ(spec.at("names"), boost::json::parse(R"({"kind":"Website","listKind":"WebsiteList","plural":"websites",)"
                                                 R"("singular":"website","shortNames":["ws"]})"));
  const auto& v = spec.at("versions").as_array().at(0).as_object();
  EXPECT_EQ(v.at("subresources"),
            boost::json::parse(R"({"status":{},"scale":{"specReplicasPath":".spec.replicas",)"
                               R"("statusReplicasPath":".status.readyReplicas"}})"));
  EXPECT_EQ(v.at("additionalPrinterColumns"),
            boost::json::parse(R"([{"name":"Replicas","type":"integer","jsonPath":".spec.replicas"}])"));
  EXPECT_EQ(v.at("schema").at("openAPIV3Schema"), OpenApiSchemaOf<Website>());
}

// Converts a yaml-cpp node back to JSON, to check that ToYaml is read back as written.
boost::json::value FromYaml(const YAML::Node& n) {
  if (n.IsMap()) {
    boost::json::object o;
    for (const auto& kv : n) o[kv.first.as<std::string>()] = FromYaml(kv.second);
    return o;
  }
  if (n.IsSequence()) {
    boost::json::array a;
    for (const auto& e : n) a.push_back(FromYaml(e));
    return a;
  }
  if (n.IsNull()) return nullptr;
  // Scalars: the tag tells a quoted string ("!") from a plain scalar.
  const std::string s = n.Scalar();
  if (n.Tag() == "!") return boost::json::string(s);
  if (s == "true" || s == "false") return s == "true";
  boost::system::error_code ec;
  auto num = boost::json::parse(s, ec);
  if (!ec && num.is_number()) return num;
  return boost::json::string(s);
}

TEST(CustomResource, YamlManifestReadsBackAsTheSameDocument) {
  const boost::json::value crd = CrdOf<Website>();
  const std::string yaml = ToYaml(crd);
  EXPECT_EQ(yaml.rfind("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n", 0), 0u) << yaml;
  EXPECT_EQ(FromYaml(YAML::Load(yaml)), crd);
  const boost::json::value tricky = boost::json::parse(
      R"({"a":"true","b":"1","c":"","d":"x: y","e":"-","f":[],"g":{},"h":[{"k":"v","l":[1,"2"]},[true]],"i":"ok"})");
  EXPECT_EQ(FromYaml(YAML::Load(ToYaml(tricky))), tricky) << ToYaml(tricky);
}

}  // namespace
}  // namespace kube::api
