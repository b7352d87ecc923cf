// Custom resources declared in C++ against the embedded API server: the generated CRD is
// accepted and established, its schema validates and defaults custom resources, and the typed
// client, informer and lister work on the C++ type, including the status and scale subresources;
// a generated type embedded in the resource (a PodTemplateSpec) gets its full schema.
#include <kube/api/apiextensions/v1.hpp>
#include <kube/api/core/v1.hpp>
#include <kube/api/custom_resource.hpp>
#include <kube/api/meta/conditions.hpp>
#include <kube/cache/informer_factory.hpp>
#include <kube/client/typed_api.hpp>

#include <chrono>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "../../support/eventually.hpp"
#include "../../support/in_process_server.hpp"

namespace shop {

struct StoreSpec {
  std::string image;
  int32_t replicas = 1;
  std::string tier;
  std::vector<std::string> regions;
  static auto Fields() {
    using kube::api::Field;
    return std::tuple{Field("image", &StoreSpec::image).Required().Pattern("^[a-z0-9./:-]+$"),
                      Field("replicas", &StoreSpec::replicas).Minimum(0).Maximum(10).Default(1),
                      Field("tier", &StoreSpec::tier).Enum({"free", "paid"}).Default("free"),
                      Field("regions", &StoreSpec::regions).List(kube::api::ListType::kSet)};
  }
  bool operator==(const StoreSpec&) const = default;
};

struct StoreStatus {
  int32_t readyReplicas = 0;
  std::optional<int64_t> observedGeneration;
  std::vector<kube::api::meta::v1::Condition> conditions;
  static auto Fields() {
    using kube::api::Field;
    return std::tuple{Field("readyReplicas", &StoreStatus::readyReplicas),
                      Field("observedGeneration", &StoreStatus::observedGeneration),
                      Field("conditions", &StoreStatus::conditions).List(kube::api::ListType::kMap, {"type"})};
  }
  bool operator==(const StoreStatus&) const = default;
};

struct Store : kube::api::CustomResource<Store, StoreSpec, StoreStatus> {
  static constexpr std::string_view kGroup = "shop.example.com";
  static constexpr std::string_view kVersion = "v1";
  static constexpr std::string_view kKind = "Store";
  static constexpr std::string_view kResource = "stores";
  static constexpr bool kNamespaced = true;
  static kube::api::CrdOptions Crd() {
    return {.printer_columns = {{.name = "Tier", .type = "string", .json_path = ".spec.tier"}},
            .scale = kube::api::ScaleSubresource{.spec_replicas_path = ".spec.replicas",
                                                 .status_replicas_path = ".status.readyReplicas"}};
  }
};

// A resource that embeds generated types: its CRD carries their full schemas.
struct RunnerSpec {
  kube::api::core::v1::PodTemplateSpec template_;
  std::vector<kube::api::core::v1::Toleration> tolerations;
  static auto Fields() {
    using kube::api::Field;
    return std::tuple{Field("template", &RunnerSpec::template_).Required(),
                      Field("tolerations", &RunnerSpec::tolerations)};
  }
  bool operator==(const RunnerSpec&) const = default;
};

struct Runner : kube::api::CustomResource<Runner, RunnerSpec> {
  static constexpr std::string_view kGroup = "shop.example.com";
  static constexpr std::string_view kVersion = "v1";
  static constexpr std::string_view kKind = "Runner";
  static constexpr std::string_view kResource = "runners";
  static constexpr bool kNamespaced = true;
};

// Runner's spec with controller-gen's default for the embedded ObjectMeta (`type: object`).
struct BareRunner : kube::api::CustomResource<BareRunner, RunnerSpec> {
  static constexpr std::string_view kGroup = "shop.example.com";
  static constexpr std::string_view kVersion = "v1";
  static constexpr std::string_view kKind = "BareRunner";
  static constexpr std::string_view kResource = "barerunners";
  static constexpr bool kNamespaced = true;
  static kube::api::CrdOptions Crd() { return {.embedded_object_meta = false}; }
};

}  // namespace shop

namespace kube::client {
namespace {

using namespace std::chrono_literals;
using kube::test_support::Eventually;
using shop::Store;
namespace apiextv1 = ::kube::api::apiextensions::v1;

class CustomResourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto started = test_support::StartInProcessServer([](auto&) {});
    ASSERT_TRUE(started.ok()) << started.error().message;
    server_ = std::move(started->server);
    client_ = std::make_unique<DynamicClient>(started->rest);
    InstallCrd<Store>();
  }

  // Creates T's CRD and waits until it is established.
  template <class T>
  void InstallCrd() {
    auto crd = api::FromJson<apiextv1::CustomResourceDefinition>(api::CrdJson<T>());
    ASSERT_TRUE(crd.ok()) << crd.error().message;
    TypedApi<apiextv1::CustomResourceDefinition> crds(*client_);
    auto created = crds.Create(*crd);
    ASSERT_TRUE(created.ok()) << created.error().message;
    ASSERT_TRUE(Eventually([&] {
      auto got = crds.Get(crd->metadata.name);
      if (!got.ok()) return false;
      for (const auto& c : got->status.conditions) {
        if (c.type == "Established" && c.status == "True") return true;
      }
      return false;
    })) << "the CRD " << crd->metadata.name << " was not established";
  }
  void TearDown() override {
    client_.reset();
    if (server_) server_->Stop();
  }

  static Store NewStore(const std::string& name) {
    Store s;
    s.metadata.name = name;
    s.metadata.namespace_ = "default";
    s.spec.image = "nginx:1.27";
    return s;
  }

  std::unique_ptr<apiserver::ApiServer> server_;
  std::unique_ptr<DynamicClient> client_;
};

TEST_F(CustomResourceTest, CreatedObjectsGetTheSchemaDefaults) {
  TypedApi<Store> stores(*client_, "default");
  Store s = NewStore("one");
  s.spec.replicas = 0;  // omitted on the wire (omitempty): the schema default applies
  auto created = stores.Create(s);
  ASSERT_TRUE(created.ok()) << created.error().message;
  EXPECT_EQ(created->spec.replicas, 1);
  EXPECT_EQ(created->spec.tier, "free");
  EXPECT_EQ(created->kind, "Store");
  auto got = stores.Get("one");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, *created);
}

TEST_F(CustomResourceTest, TheSchemaRejectsInvalidObjects) {
  TypedApi<Store> stores(*client_, "default");
  Store too_many = NewStore("many");
  too_many.spec.replicas = 11;
  Store bad_image = NewStore("image");
  bad_image.spec.image = "Not An Image";
  Store bad_tier = NewStore("tier");
  bad_tier.spec.tier = "gold";
  Store no_image = NewStore("noimage");
  no_image.spec.image.clear();  // required: encoded as "" ... and the pattern rejects it
  Store duplicate = NewStore("dup");
  duplicate.spec.regions = {"eu", "eu"};
  for (const Store* s : {&too_many, &bad_image, &bad_tier, &no_image, &duplicate}) {
    auto r = stores.Create(*s);
    ASSERT_FALSE(r.ok()) << s->metadata.name;
    EXPECT_TRUE(IsInvalid(r.error())) << s->metadata.name << ": " << r.error().message;
  }
  auto list = stores.List();
  ASSERT_TRUE(list.ok());
  EXPECT_TRUE(list->items.empty());
}

TEST_F(CustomResourceTest, StatusAndScaleSubresources) {
  TypedApi<Store> stores(*client_, "default");
  auto created = stores.Create(NewStore("st"));
  ASSERT_TRUE(created.ok()) << created.error().message;
  Store s = *created;
  s.status.emplace().readyReplicas = 1;
  s.status->observedGeneration = s.metadata.generation;
  api::meta::v1::SetStatusCondition(s.status->conditions,
                                    {.reason = "Serving", .status = "True", .type = "Ready"}, api::Time::Now());
  auto written = stores.UpdateStatus(s);
  ASSERT_TRUE(written.ok()) << written.error().message;
  ASSERT_TRUE(written->status.has_value());
  EXPECT_EQ(written->status->readyReplicas, 1);
  EXPECT_TRUE(api::meta::v1::IsStatusConditionTrue(written->status->conditions, "Ready"));

  auto scaled = stores.Patch("st", PatchType::kMerge, R"({"spec":{"replicas":3}})", {}, "scale");
  ASSERT_TRUE(scaled.ok()) << scaled.error().message;
  auto got = stores.Get("st");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->spec.replicas, 3);
}

TEST_F(CustomResourceTest, TypedInformerAndListerOfTheCustomType) {
  TypedApi<Store> stores(*client_, "default");
  ASSERT_TRUE(stores.Create(NewStore("a")).ok());
  cache::SharedInformerFactory factory(*client_);
  auto informer = factory.For<Store>();
  std::stop_source stop;
  factory.Start(stop.get_token());
  auto synced = factory.WaitForCacheSync(stop.get_token(), 30s);
  ASSERT_TRUE(synced.at(ResourceOf<Store>()));
  ASSERT_TRUE(stores.Create(NewStore("b")).ok());
  ASSERT_TRUE(Eventually([&] { return informer.Lister().List().size() == 2; }));
  auto b = informer.Lister().Namespace("default").Get("b");
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ((*b)->spec.image, "nginx:1.27");
  EXPECT_EQ((*b)->spec.tier, "free");
  stop.request_stop();
}

TEST_F(CustomResourceTest, EmbeddedPodTemplateIsValidatedDefaultedAndPrunedByItsFullSchema) {
  ASSERT_NO_FATAL_FAILURE(InstallCrd<shop::Runner>());
  Api runners = client_->Resource(ResourceOf<shop::Runner>(), "default");
  // Raw JSON, so that the server sees what the typed encoder could not write.
  const auto create = [&](std::string_view spec) -> Result<ObjectPtr> {
    auto obj = Object::Parse(R"({"apiVersion":"shop.example.com/v1","kind":"Runner",)"
                             R"("metadata":{"name":"r","namespace":"default"},"spec":)" +
                             std::string(spec) + "}");
    if (!obj.ok()) return obj.error();
    return runners.Create(**obj);
  };

  auto bad = create(R"({"template":{"spec":{"containers":"nginx"}}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(IsInvalid(bad.error())) << bad.error().ToString();
  EXPECT_EQ(bad.error().code, 422);
  auto unnamed = create(R"({"template":{"spec":{"containers":[{"image":"nginx"}]}}})");
  ASSERT_FALSE(unnamed.ok());
  EXPECT_TRUE(IsInvalid(unnamed.error())) << unnamed.error().ToString();

  auto created = create(R"({"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.27","bogus":1,)"
                        R"("ports":[{"containerPort":8080}],"resources":{"limits":{"cpu":"500m"}}}]}},)"
                        R"("tolerations":[{"key":"k","operator":"Exists","extra":true}]})");
  ASSERT_TRUE(created.ok()) << created.error().ToString();
  auto got = TypedApi<shop::Runner>(*client_, "default").Get("r");
  ASSERT_TRUE(got.ok()) << got.error().message;
  const auto& containers = got->spec.template_.spec.containers;
  ASSERT_EQ(containers.size(), 1u);
  EXPECT_EQ(containers[0].image, "nginx:1.27");
  EXPECT_TRUE(containers[0].unknown_fields.empty()) << "not pruned: " << containers[0].unknown_fields.raw();
  ASSERT_EQ(containers[0].ports.size(), 1u);
  EXPECT_EQ(containers[0].ports[0].protocol, "TCP");  // the schema's default
  EXPECT_EQ(containers[0].resources.limits.at("cpu"), *api::Quantity::Parse("500m"));
  ASSERT_EQ(got->spec.tolerations.size(), 1u);
  EXPECT_TRUE(got->spec.tolerations[0].unknown_fields.empty()) << got->spec.tolerations[0].unknown_fields.raw();
}

// A Deployment-like operator copies spec.template.metadata.labels to its pods: they must survive.
TEST_F(CustomResourceTest, EmbeddedObjectMetaKeepsTemplateLabelsAndAnnotations) {
  ASSERT_NO_FATAL_FAILURE(InstallCrd<shop::Runner>());
  ASSERT_NO_FATAL_FAILURE(InstallCrd<shop::BareRunner>());
  const std::string spec =
      R"({"template":{"metadata":{"labels":{"app":"web"},"annotations":{"note":"x"},"name":"t",)"
      R"("uid":"set-by-nobody"},"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}})";
  const auto create = [&](const GroupVersionResource& resource, std::string_view kind) -> Result<ObjectPtr> {
    auto obj = Object::Parse(R"({"apiVersion":"shop.example.com/v1","kind":")" + std::string(kind) +
                             R"(","metadata":{"name":"r","namespace":"default"},"spec":)" + spec + "}");
    if (!obj.ok()) return obj.error();
    return client_->Resource(resource, "default").Create(**obj);
  };

  auto created = create(ResourceOf<shop::Runner>(), "Runner");
  ASSERT_TRUE(created.ok()) << created.error().ToString();
  auto got = TypedApi<shop::Runner>(*client_, "default").Get("r");
  ASSERT_TRUE(got.ok()) << got.error().message;
  const auto& meta = got->spec.template_.metadata;
  EXPECT_EQ(meta.labels, (std::map<std::string, std::string>{{"app", "web"}}));
  EXPECT_EQ(meta.annotations, (std::map<std::string, std::string>{{"note", "x"}}));
  EXPECT_EQ(meta.name, "t");
  EXPECT_EQ(meta.uid, "") << "a server-set field of the template's metadata is pruned";
  EXPECT_EQ(got->metadata.uid, (*created)->Uid());

  // With controller-gen's default, the server keeps nothing of the template's metadata.
  auto bare = create(ResourceOf<shop::BareRunner>(), "BareRunner");
  ASSERT_TRUE(bare.ok()) << bare.error().ToString();
  auto bare_got = TypedApi<shop::BareRunner>(*client_, "default").Get("r");
  ASSERT_TRUE(bare_got.ok()) << bare_got.error().message;
  EXPECT_TRUE(bare_got->spec.template_.metadata.labels.empty());
  EXPECT_TRUE(bare_got->spec.template_.metadata.annotations.empty());
  EXPECT_EQ(bare_got->spec.template_.metadata.name, "");
  ASSERT_EQ(bare_got->spec.template_.spec.containers.size(), 1u);  // the rest of the template is kept
}

}  // namespace
}  // namespace kube::client
