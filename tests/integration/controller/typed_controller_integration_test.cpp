// The typed API end to end against the in-process API server: typed informers and listers
// (`factory.Apps().V1().Deployments()`), typed handlers, the one-decode-per-version cache, a typed
// controller (`For<Deployment>().Owns<ReplicaSet>()` with AsReconciler, CreateOrUpdate,
// SetControllerReference, status update with observedGeneration) and MergeFrom patches.
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include <kube/api/apps/v1.hpp>
#include <kube/api/core/v1.hpp>
#include <kube/apiserver/apiserver.hpp>
#include <kube/cache/informer_factory.hpp>
#include <kube/client/typed_api.hpp>
#include <kube/controller/builder.hpp>
#include <kube/controller/manager.hpp>
#include <kube/controller/typed.hpp>
#include <kube/informers/apps/v1.hpp>
#include <kube/informers/core/v1.hpp>

#include "../../support/eventually.hpp"
#include "../../support/in_process_server.hpp"

namespace kube::controller {
namespace {

using namespace std::chrono_literals;
using kube::test_support::Eventually;
namespace appsv1 = ::kube::api::apps::v1;
namespace corev1 = ::kube::api::core::v1;

appsv1::Deployment NewDeployment(const std::string& name, int32_t replicas) {
  appsv1::Deployment d;
  d.metadata.name = name;
  d.metadata.namespace_ = "default";
  d.spec.replicas = replicas;
  d.spec.selector.matchLabels = {{"app", name}};
  d.spec.template_.metadata.labels = {{"app", name}};
  d.spec.template_.spec.containers.push_back(corev1::Container{.image = "nginx:1.27", .name = "web"});
  return d;
}

class TypedControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto started = test_support::StartInProcessServer([](auto&) {});
    ASSERT_TRUE(started.ok()) << started.error().message;
    server_ = std::move(started->server);
    rest_ = started->rest;
    client_ = std::make_unique<client::DynamicClient>(rest_);
  }
  void TearDown() override {
    client_.reset();
    if (server_) server_->Stop();
  }

  std::unique_ptr<apiserver::ApiServer> server_;
  std::shared_ptr<client::RestClient> rest_;
  std::unique_ptr<client::DynamicClient> client_;
};

TEST_F(TypedControllerTest, TypedInformerListerAndHandlers) {
  client::TypedApi<appsv1::Deployment> deployments(*client_, "default");
  ASSERT_TRUE(deployments.Create(NewDeployment("before", 1)).ok());

  cache::SharedInformerFactory factory(*client_);
  auto informer = factory.Apps().V1().Deployments();
  std::mutex mu;
  std::map<std::string, int32_t> seen;  // name -> replicas of the last add/update
  std::set<std::string> deleted;
  auto reg = informer.AddEventHandler({
      .add = [&](const std::shared_ptr<const appsv1::Deployment>& d, bool) {
        std::lock_guard lock(mu);
        seen[d->metadata.name] = d->spec.replicas.value_or(-1);
      },
      .update = [&](const std::shared_ptr<const appsv1::Deployment>&, const std::shared_ptr<const appsv1::Deployment>& d) {
        std::lock_guard lock(mu);
        seen[d->metadata.name] = d->spec.replicas.value_or(-1);
      },
      .del = [&](const std::shared_ptr<const appsv1::Deployment>& d, bool) {
        std::lock_guard lock(mu);
        if (d) deleted.insert(d->metadata.name);
      },
  });
  ASSERT_TRUE(reg.ok());
  std::stop_source stop;
  factory.Start(stop.get_token());
  auto synced = factory.WaitForCacheSync(stop.get_token(), 30s);
  ASSERT_TRUE(synced.at(client::ResourceOf<appsv1::Deployment>()));

  ASSERT_TRUE(deployments.Create(NewDeployment("after", 2)).ok());
  ASSERT_TRUE(Eventually([&] {
    std::lock_guard lock(mu);
    return seen.count("before") && seen.count("after") && seen["after"] == 2;
  }));

  auto lister = informer.Lister();
  auto got = lister.Namespace("default").Get("after");
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ((*got)->spec.replicas, 2);
  // One decode per cached version: the lister and the handler share the value.
  auto again = lister.Namespace("default").Get("after");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(got->get(), again->get());
  EXPECT_EQ(lister.List().size(), 2u);
  auto missing = lister.Namespace("default").Get("nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(IsNotFound(missing.error()));
  EXPECT_EQ(missing.error().message, "deployment.apps \"nope\" not found");

  ASSERT_TRUE(deployments.Delete("before").ok());
  ASSERT_TRUE(Eventually([&] {
    std::lock_guard lock(mu);
    return deleted.count("before") == 1;
  }));

  // The same informer, asked for by type or by client-go's accessor.
  EXPECT_EQ(&factory.For<appsv1::Deployment>().Informer(), &informer.Informer());
  stop.request_stop();  // Start(stop): the factory shuts down
}

// Records whether the initial list's objects reach a dynamic handler already decoded as T.
template <class T>
class DecodedProbe final : public cache::ResourceEventHandler {
 public:
  void OnAdd(const ObjectPtr& obj, bool initial) override {
    if (!initial) return;
    std::lock_guard lock(mu);
    (obj->DerivedValue(&api::internal::DecodedTag<T>::id) ? decoded : undecoded).insert(std::string(obj->Name()));
  }
  void OnUpdate(const ObjectPtr&, const ObjectPtr&) override {}
  void OnDelete(const ObjectPtr&, bool) override {}
  std::mutex mu;
  std::set<std::string> decoded, undecoded;
};

TEST_F(TypedControllerTest, ATypedHandlerHasListItemsDecodedAsTheyArriveAListerAloneDecodesOnRead) {
  client::TypedApi<appsv1::Deployment> deployments(*client_, "default");
  client::TypedApi<corev1::ConfigMap> configmaps(*client_, "default");
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(deployments.Create(NewDeployment("d" + std::to_string(i), 1)).ok());
    corev1::ConfigMap cm;
    cm.metadata.name = "c" + std::to_string(i);
    ASSERT_TRUE(configmaps.Create(cm).ok());
  }
  cache::SharedInformerFactory factory(*client_);
  auto typed = factory.Apps().V1().Deployments();
  ASSERT_TRUE(typed.AddEventHandler({.add = [](const std::shared_ptr<const appsv1::Deployment>&, bool) {}}).ok());
  auto probe = std::make_shared<DecodedProbe<appsv1::Deployment>>();
  ASSERT_TRUE(typed.Informer().AddEventHandler(probe).ok());
  auto lister_only = factory.Core().V1().ConfigMaps();
  auto cm_probe = std::make_shared<DecodedProbe<corev1::ConfigMap>>();
  ASSERT_TRUE(lister_only.Informer().AddEventHandler(cm_probe).ok());
  std::stop_source stop;
  factory.Start(stop.get_token());
  ASSERT_TRUE(factory.WaitForCacheSync(stop.get_token(), 30s).at(client::ResourceOf<appsv1::Deployment>()));
  ASSERT_TRUE(Eventually([&] {
    std::lock_guard lock(probe->mu);
    return probe->decoded.size() + probe->undecoded.size() == 20;
  }));
  {
    // Every item of the initial list was decoded before any handler could see it.
    std::lock_guard lock(probe->mu);
    EXPECT_EQ(probe->decoded.size(), 20u);
    EXPECT_TRUE(probe->undecoded.empty());
  }
  ASSERT_TRUE(Eventually([&] {
    std::lock_guard lock(cm_probe->mu);
    return cm_probe->undecoded.size() >= 20;
  }));
  {
    std::lock_guard lock(cm_probe->mu);
    EXPECT_TRUE(cm_probe->decoded.empty());
  }
  // Without a typed handler, an object is decoded on its first typed read, once.
  auto obj = lister_only.Informer().GetIndexer().GetByKey("default/c3");
  ASSERT_NE(obj, nullptr);
  EXPECT_EQ(obj->DerivedValue(&api::internal::DecodedTag<corev1::ConfigMap>::id), nullptr);
  auto got = lister_only.Lister().Namespace("default").Get("c3");
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_NE(obj->DerivedValue(&api::internal::DecodedTag<corev1::ConfigMap>::id), nullptr);
  stop.request_stop();
}

TEST_F(TypedControllerTest, TypedDeploymentControllerCreatesOwnedReplicaSetAndReportsStatus) {
  auto m = Manager::Create({.rest = rest_});
  ASSERT_TRUE(m.ok()) << m.error().message;
  Manager& mgr = **m;
  Client& c = mgr.GetClient();
  std::atomic<int> reconciles{0};
  auto ctrl = ControllerManagedBy(mgr)
                  .For<appsv1::Deployment>()
                  .Owns<appsv1::ReplicaSet>()
                  .Complete(AsReconciler<appsv1::Deployment>(
                      c, [&](ReconcileContext&, appsv1::Deployment& d) -> Result<ReconcileResult> {
                        reconciles.fetch_add(1);
                        appsv1::ReplicaSet rs;
                        rs.metadata.name = d.metadata.name + "-rs";
                        rs.metadata.namespace_ = d.metadata.namespace_;
                        auto op = CreateOrUpdate<appsv1::ReplicaSet>(c, rs, [&](appsv1::ReplicaSet& r) -> Result<void> {
                          r.metadata.labels = d.spec.template_.metadata.labels;
                          r.spec.replicas = d.spec.replicas;
                          r.spec.selector = d.spec.selector;
                          r.spec.template_ = d.spec.template_;
                          return SetControllerReference(d, r);
                        });
                        if (!op.ok()) return op.error();
                        if (d.status.observedGeneration != d.metadata.generation ||
                            d.status.replicas != rs.spec.replicas) {
                          d.status.observedGeneration = d.metadata.generation;
                          d.status.replicas = rs.spec.replicas;
                          auto written = c.UpdateStatus(d);
                          if (!written.ok()) return written.error();
                        }
                        return ReconcileResult::Done();
                      }));
  ASSERT_TRUE(ctrl.ok()) << ctrl.error().message;
  std::stop_source stop;
  std::jthread run([&] { (void)mgr.Start(stop.get_token()); });

  client::TypedApi<appsv1::Deployment> deployments(*client_, "default");
  client::TypedApi<appsv1::ReplicaSet> replicasets(*client_, "default");
  ASSERT_TRUE(deployments.Create(NewDeployment("web", 3)).ok());
  ASSERT_TRUE(Eventually([&] {
    auto d = deployments.Get("web");
    return d.ok() && d->status.observedGeneration == 1 && d->status.replicas == 3;
  }));
  auto rs = replicasets.Get("web-rs");
  ASSERT_TRUE(rs.ok()) << rs.error().message;
  EXPECT_EQ(rs->spec.replicas, 3);
  const auto* owner = GetControllerOf(*rs);
  ASSERT_NE(owner, nullptr);
  EXPECT_EQ(owner->kind, "Deployment");
  EXPECT_EQ(owner->apiVersion, "apps/v1");
  EXPECT_EQ(owner->name, "web");
  EXPECT_EQ(owner->blockOwnerDeletion, true);

  // Scale through a MergeFrom patch: the controller follows.
  auto d = deployments.Get("web");
  ASSERT_TRUE(d.ok());
  appsv1::Deployment scaled = *d;
  scaled.spec.replicas = 5;
  auto patched = c.Patch(scaled, MergeFrom(*d));
  ASSERT_TRUE(patched.ok()) << patched.error().message;
  EXPECT_EQ(patched->spec.replicas, 5);
  ASSERT_TRUE(Eventually([&] {
    auto r = replicasets.Get("web-rs");
    auto dd = deployments.Get("web");
    return r.ok() && r->spec.replicas == 5 && dd.ok() && dd->status.observedGeneration == 2;
  }));

  // A stale optimistic-lock patch is a conflict.
  appsv1::Deployment stale = *d;
  stale.spec.replicas = 7;
  auto conflict = c.Patch(stale, MergeFrom(*d, {.optimistic_lock = true}));
  ASSERT_FALSE(conflict.ok());
  EXPECT_TRUE(IsConflict(conflict.error())) << conflict.error().message;

  // Editing the owned object is undone (Owns enqueues the owner).
  auto current_rs = replicasets.Get("web-rs");
  ASSERT_TRUE(current_rs.ok());
  appsv1::ReplicaSet tampered = *current_rs;
  tampered.spec.replicas = 1;
  ASSERT_TRUE(replicasets.Update(tampered).ok());
  ASSERT_TRUE(Eventually([&] {
    auto r = replicasets.Get("web-rs");
    return r.ok() && r->spec.replicas == 5;
  }));

  // Deleted objects are not reconciled with stale state: the reconciler is not called.
  ASSERT_TRUE(deployments.Delete("web").ok());
  stop.request_stop();
}

TEST_F(TypedControllerTest, CreateOrUpdateReportsUnchangedWhenMutateChangesNothing) {
  auto m = Manager::Create({.rest = rest_});
  ASSERT_TRUE(m.ok()) << m.error().message;
  Client& c = (*m)->GetClient();
  corev1::ConfigMap cm;
  cm.metadata.name = "settings";
  cm.metadata.namespace_ = "default";
  auto mutate = [](corev1::ConfigMap& o) -> Result<void> {
    o.data["mode"] = "fast";
    return Ok();
  };
  auto first = CreateOrUpdate<corev1::ConfigMap>(c, cm, mutate);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(*first, OperationResult::kCreated);
  EXPECT_FALSE(cm.metadata.uid.empty());
  ASSERT_TRUE(Eventually([&] {
    corev1::ConfigMap again;
    again.metadata.name = "settings";
    again.metadata.namespace_ = "default";
    auto r = CreateOrUpdate<corev1::ConfigMap>(c, again, mutate);
    return r.ok() && *r == OperationResult::kUnchanged;
  }));
  corev1::ConfigMap renamed;
  renamed.metadata.name = "settings";
  renamed.metadata.namespace_ = "default";
  auto bad = CreateOrUpdate<corev1::ConfigMap>(c, renamed, [](corev1::ConfigMap& o) -> Result<void> {
    o.metadata.name = "other";
    return Ok();
  });
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, 400);
}

TEST(TypedOwnerReferences, SetControllerReferenceRulesAsControllerRuntime) {
  appsv1::Deployment owner = NewDeployment("web", 1);
  owner.metadata.uid = "uid-1";
  appsv1::ReplicaSet rs;
  rs.metadata.name = "web-rs";
  rs.metadata.namespace_ = "default";
  ASSERT_TRUE(SetControllerReference(owner, rs).ok());
  ASSERT_TRUE(SetControllerReference(owner, rs).ok());  // idempotent
  ASSERT_EQ(rs.metadata.ownerReferences.size(), 1u);
  EXPECT_EQ(rs.metadata.ownerReferences[0].controller, true);

  appsv1::Deployment other = NewDeployment("other", 1);
  other.metadata.uid = "uid-2";
  auto owned = SetControllerReference(other, rs);
  ASSERT_FALSE(owned.ok());
  EXPECT_TRUE(IsAlreadyOwned(owned.error()));
  ASSERT_TRUE(SetOwnerReference(other, rs).ok());
  EXPECT_EQ(rs.metadata.ownerReferences.size(), 2u);

  appsv1::ReplicaSet elsewhere = rs;
  elsewhere.metadata.ownerReferences.clear();
  elsewhere.metadata.namespace_ = "prod";
  auto cross = SetControllerReference(owner, elsewhere);
  ASSERT_FALSE(cross.ok());
  EXPECT_EQ(cross.error().message,
            "cross-namespace owner references are disallowed, owner's namespace default, obj's namespace prod");
  appsv1::Deployment unsaved = NewDeployment("new", 1);
  EXPECT_EQ(SetControllerReference(unsaved, elsewhere).error().code, 400);
}

TEST(TypedFinalizers, AddRemoveContains) {
  corev1::ConfigMap cm;
  EXPECT_TRUE(AddFinalizer(cm, "example.com/cleanup"));
  EXPECT_FALSE(AddFinalizer(cm, "example.com/cleanup"));
  EXPECT_TRUE(ContainsFinalizer(cm, "example.com/cleanup"));
  EXPECT_TRUE(RemoveFinalizer(cm, "example.com/cleanup"));
  EXPECT_FALSE(RemoveFinalizer(cm, "example.com/cleanup"));
  EXPECT_TRUE(cm.metadata.finalizers.empty());
}

}  // namespace
}  // namespace kube::controller
