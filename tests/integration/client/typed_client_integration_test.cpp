// The typed client (TypedApi<T>) against the embedded API server: every verb on generated
// types, typed lists and watches, conflicts, status, patch and server-side apply.
#include <kube/api/apps/v1.hpp>
#include <kube/api/core/v1.hpp>
#include <kube/apiserver/apiserver.hpp>
#include <kube/client/config.hpp>
#include <kube/client/typed_api.hpp>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>

#include <gtest/gtest.h>

namespace kube::client {
namespace {

using namespace std::chrono_literals;
namespace appsv1 = ::kube::api::apps::v1;
namespace corev1 = ::kube::api::core::v1;
namespace metav1 = ::kube::api::meta::v1;

class TypedClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kubecpp-typed-it-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    apiserver::ApiServerOptions o;
    o.data_dir = dir_;
    o.storage = apiserver::ApiServerOptions::StorageKind::kMemory;
    auto server = apiserver::ApiServer::Start(o);
    ASSERT_TRUE(server.ok()) << server.error().message;
    server_ = std::move(server).value();
    auto loaded = LoadConfig({.kubeconfig_path = server_->kubeconfig_path()});
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    loaded->config.qps = -1;
    auto client = DynamicClient::Create(loaded->config);
    ASSERT_TRUE(client.ok()) << client.error().message;
    client_ = std::make_unique<DynamicClient>(std::move(client).value());
  }
  void TearDown() override {
    client_.reset();
    if (server_) server_->Stop();
    (void)std::system(("rm -rf '" + dir_ + "'").c_str());
  }

  static appsv1::Deployment NewDeployment(const std::string& name, int32_t replicas) {
    appsv1::Deployment d;
    d.metadata.name = name;
    d.metadata.labels = {{"app", name}};
    d.spec.replicas = replicas;
    d.spec.selector.matchLabels = {{"app", name}};
    d.spec.template_.metadata.labels = {{"app", name}};
    d.spec.template_.spec.containers.push_back(
        corev1::Container{.image = "nginx:1.27", .name = "web", .ports = {corev1::ContainerPort{.containerPort = 80}}});
    return d;
  }

  std::string dir_;
  std::unique_ptr<apiserver::ApiServer> server_;
  std::unique_ptr<DynamicClient> client_;
};

TEST_F(TypedClientTest, CreateGetUpdateDeleteDeployment) {
  TypedApi<appsv1::Deployment> deployments(*client_, "default");
  auto created = deployments.Create(NewDeployment("web", 2));
  ASSERT_TRUE(created.ok()) << created.error().message;
  EXPECT_EQ(created->metadata.namespace_, "default");
  EXPECT_FALSE(created->metadata.uid.empty());
  EXPECT_EQ(created->metadata.generation, 1);
  EXPECT_EQ(created->spec.replicas, 2);
  EXPECT_EQ(created->spec.template_.spec.containers.at(0).ports.at(0).containerPort, 80);

  auto got = deployments.Get("web");
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(got->metadata.resourceVersion, created->metadata.resourceVersion);
  EXPECT_EQ(*got, *created);

  appsv1::Deployment changed = *got;
  changed.spec.replicas = 5;
  auto updated = deployments.Update(changed);
  ASSERT_TRUE(updated.ok()) << updated.error().message;
  EXPECT_EQ(updated->spec.replicas, 5);
  EXPECT_EQ(updated->metadata.generation, 2);

  // The old resourceVersion is stale now.
  auto stale = deployments.Update(changed);
  ASSERT_FALSE(stale.ok());
  EXPECT_TRUE(IsConflict(stale.error())) << stale.error().message;

  ASSERT_TRUE(deployments.Delete("web").ok());
  auto gone = deployments.Get("web");
  ASSERT_FALSE(gone.ok());
  EXPECT_TRUE(IsNotFound(gone.error()));
  EXPECT_TRUE(IsNotFound(deployments.Delete("web").error()));
}

TEST_F(TypedClientTest, UpdateStatusWritesOnlyTheStatus) {
  TypedApi<appsv1::Deployment> deployments(*client_, "default");
  auto created = deployments.Create(NewDeployment("web", 1));
  ASSERT_TRUE(created.ok()) << created.error().message;
  appsv1::Deployment d = *created;
  d.status.replicas = 1;
  d.status.observedGeneration = d.metadata.generation;
  d.spec.replicas = 9;  // ignored by the status subresource
  auto written = deployments.UpdateStatus(d);
  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_EQ(written->status.replicas, 1);
  EXPECT_EQ(written->status.observedGeneration, 1);
  EXPECT_EQ(written->spec.replicas, 1);
}

TEST_F(TypedClientTest, ListAndWatchAreTyped) {
  TypedApi<corev1::ConfigMap> configmaps(*client_, "default");
  for (const char* name : {"a", "b", "c"}) {
    corev1::ConfigMap cm;
    cm.metadata.name = name;
    cm.data = {{"key", name}};
    ASSERT_TRUE(configmaps.Create(cm).ok());
  }
  auto list = configmaps.List();
  ASSERT_TRUE(list.ok()) << list.error().message;
  ASSERT_EQ(list->items.size(), 3u);
  EXPECT_EQ(list->items[1].data.at("key"), "b");
  EXPECT_EQ(list->items[1].kind, "ConfigMap");
  EXPECT_FALSE(list->metadata.resourceVersion.empty());

  auto paged = configmaps.ListAll({}, 2);
  ASSERT_TRUE(paged.ok()) << paged.error().message;
  EXPECT_EQ(paged->items.size(), 3u);

  ListOptions from;
  from.resource_version = list->metadata.resourceVersion;
  auto watch = configmaps.Watch(from);
  ASSERT_TRUE(watch.ok()) << watch.error().message;
  corev1::ConfigMap d;
  d.metadata.name = "d";
  d.data = {{"key", "d"}};
  ASSERT_TRUE(configmaps.Create(d).ok());
  auto event = (*watch)->Next();
  ASSERT_TRUE(event.ok()) << event.error().message;
  ASSERT_TRUE(event->has_value());
  EXPECT_EQ((*event)->type, WatchEventType::kAdded);
  EXPECT_EQ((*event)->object.metadata.name, "d");
  EXPECT_EQ((*event)->object.data.at("key"), "d");
  (*watch)->Stop();
}

TEST_F(TypedClientTest, PatchAndApplyReturnTypedObjects) {
  TypedApi<corev1::ConfigMap> configmaps(*client_, "default");
  corev1::ConfigMap cm;
  cm.metadata.name = "cfg";
  cm.data = {{"a", "1"}};
  ASSERT_TRUE(configmaps.Create(cm).ok());
  auto patched = configmaps.Patch("cfg", PatchType::kMerge, R"({"data":{"b":"2"}})");
  ASSERT_TRUE(patched.ok()) << patched.error().message;
  EXPECT_EQ(patched->data, (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));

  corev1::ConfigMap intent;
  intent.metadata.name = "applied";
  intent.metadata.namespace_ = "default";
  intent.data = {{"owned", "yes"}};
  auto applied = configmaps.Apply(intent, {.field_manager = "typed-test"});
  ASSERT_TRUE(applied.ok()) << applied.error().message;
  EXPECT_EQ(applied->data.at("owned"), "yes");
  ASSERT_FALSE(applied->metadata.managedFields.empty());
  EXPECT_EQ(applied->metadata.managedFields[0].manager, "typed-test");
  EXPECT_FALSE(applied->metadata.managedFields[0].fieldsV1->empty());

  auto no_manager = configmaps.Apply(intent, {});
  ASSERT_FALSE(no_manager.ok());
  EXPECT_EQ(no_manager.error().code, 400);
}

TEST_F(TypedClientTest, ClusterScopedKindsIgnoreTheNamespace) {
  TypedApi<corev1::Namespace> namespaces(*client_);
  corev1::Namespace ns;
  ns.metadata.name = "typed-ns";
  auto created = namespaces.Create(ns);
  ASSERT_TRUE(created.ok()) << created.error().message;
  EXPECT_TRUE(created->metadata.namespace_.empty());
  EXPECT_EQ(created->status.phase, "Active");
}

TEST_F(TypedClientTest, ServerErrorsKeepTheirClassification) {
  TypedApi<corev1::ConfigMap> configmaps(*client_, "default");
  corev1::ConfigMap cm;
  cm.metadata.name = "dup";
  ASSERT_TRUE(configmaps.Create(cm).ok());
  auto again = configmaps.Create(cm);
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(IsAlreadyExists(again.error()));
  corev1::ConfigMap nameless;
  auto invalid = configmaps.Create(nameless);
  ASSERT_FALSE(invalid.ok());
  EXPECT_TRUE(IsInvalid(invalid.error())) << invalid.error().message;
}

}  // namespace
}  // namespace kube::client
