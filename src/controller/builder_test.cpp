#include <kube/controller/builder.hpp>

#include <gtest/gtest.h>

#include <kube/controller/manager.hpp>

namespace kube::controller {
namespace {

// A manager whose REST client points nowhere: the builder checks below fail before any request.
std::unique_ptr<Manager> OfflineManager() {
  auto m = Manager::Create({.config = {.host = "http://127.0.0.1:1"}});
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? std::move(*m) : nullptr;
}

Result<ReconcileResult> Noop(ReconcileContext&, const Request&) { return ReconcileResult::Done(); }

const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};

TEST(Builder, WithoutForIsAnError) {
  auto mgr = OfflineManager();
  auto r = ControllerManagedBy(*mgr).Complete(Noop);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsBadRequest(r.error()));
  // Watches alone is not enough without a name either.
  auto r2 = ControllerManagedBy(*mgr).Watches(std::make_shared<Channel>(), EnqueueRequestForObject()).Complete(Noop);
  ASSERT_FALSE(r2.ok());
  EXPECT_TRUE(IsBadRequest(r2.error()));
}

TEST(Builder, ForTwiceAndOwnsWithoutForAreErrors) {
  auto mgr = OfflineManager();
  auto twice = ControllerManagedBy(*mgr).For(kConfigMaps).For(kConfigMaps).Complete(Noop);
  ASSERT_FALSE(twice.ok());
  EXPECT_TRUE(IsBadRequest(twice.error()));
  auto owns = ControllerManagedBy(*mgr)
                  .Named("owns-only")
                  .Owns(kConfigMaps)
                  .Watches(std::make_shared<Channel>(), EnqueueRequestForObject())
                  .Complete(Noop);
  ASSERT_FALSE(owns.ok());
  EXPECT_TRUE(IsBadRequest(owns.error()));
}

TEST(Builder, NullReconcilerSourceOrHandlerAreErrors) {
  auto mgr = OfflineManager();
  EXPECT_TRUE(IsBadRequest(ControllerManagedBy(*mgr)
                               .Named("a")
                               .Watches(std::make_shared<Channel>(), EnqueueRequestForObject())
                               .Complete(std::shared_ptr<Reconciler>())
                               .error()));
  EXPECT_TRUE(IsBadRequest(
      ControllerManagedBy(*mgr).Named("b").Watches(nullptr, EnqueueRequestForObject()).Complete(Noop).error()));
  EXPECT_TRUE(IsBadRequest(
      ControllerManagedBy(*mgr).Named("c").Watches(std::make_shared<Channel>(), nullptr).Complete(Noop).error()));
}

TEST(Builder, DuplicateControllerNameIsAnError) {
  auto mgr = OfflineManager();
  auto first =
      ControllerManagedBy(*mgr).Named("dup").Watches(std::make_shared<Channel>(), EnqueueRequestForObject()).Complete(Noop);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ((*first)->Name(), "dup");
  auto second =
      ControllerManagedBy(*mgr).Named("dup").Watches(std::make_shared<Channel>(), EnqueueRequestForObject()).Complete(Noop);
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(IsAlreadyExists(second.error()));
}

TEST(Builder, InvalidNameAndOptionsAreErrors) {
  auto mgr = OfflineManager();
  EXPECT_TRUE(IsBadRequest(ControllerManagedBy(*mgr)
                               .Named("has space")
                               .Watches(std::make_shared<Channel>(), EnqueueRequestForObject())
                               .Complete(Noop)
                               .error()));
  EXPECT_TRUE(IsBadRequest(ControllerManagedBy(*mgr)
                               .Named("zero-workers")
                               .WithOptions({.max_concurrent_reconciles = 0})
                               .Watches(std::make_shared<Channel>(), EnqueueRequestForObject())
                               .Complete(Noop)
                               .error()));
}

TEST(Manager, CreateValidatesLeaderElectionOptions) {
  auto no_id = Manager::Create({.config = {.host = "http://127.0.0.1:1"}, .leader_election = {.enabled = true}});
  ASSERT_FALSE(no_id.ok());
  EXPECT_TRUE(IsBadRequest(no_id.error()));
  auto bad_timing = Manager::Create({.config = {.host = "http://127.0.0.1:1"},
                                     .leader_election = {.enabled = true,
                                                         .id = "x",
                                                         .lease_duration = std::chrono::seconds(5),
                                                         .renew_deadline = std::chrono::seconds(10)}});
  ASSERT_FALSE(bad_timing.ok());
  EXPECT_TRUE(IsBadRequest(bad_timing.error()));
}

TEST(Manager, HealthChecksRunAndRejectDuplicates) {
  auto mgr = OfflineManager();
  ASSERT_TRUE(mgr->AddHealthzCheck("ping", PingCheck()).ok());
  EXPECT_TRUE(IsAlreadyExists(mgr->AddHealthzCheck("ping", PingCheck()).error()));
  EXPECT_TRUE(mgr->CheckHealthz().ok());
  ASSERT_TRUE(mgr->AddReadyzCheck("never", [] { return Result<void>(InternalError("not ready")); }).ok());
  EXPECT_FALSE(mgr->CheckReadyz().ok());
  EXPECT_TRUE(IsBadRequest(mgr->AddReadyzCheck("a/b", PingCheck()).error()));
}

}  // namespace
}  // namespace kube::controller
