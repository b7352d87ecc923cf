#include <kube/leaderelection/fake_lock.hpp>
#include <kube/leaderelection/lease_lock.hpp>

#include <chrono>
#include <memory>

#include <gtest/gtest.h>

#include <kube/api/object.hpp>
#include <kube/core/time.hpp>

namespace kube::leaderelection {
namespace {

using namespace std::chrono_literals;

LeaderElectionRecord SampleRecord() {
  const auto t = TruncateToMicrosecond(Clock::WallTime(std::chrono::seconds(1767225600)) + 123456us);
  return {.holder_identity = "node-a",
          .lease_duration_seconds = 15,
          .acquire_time = t,
          .renew_time = t + 2s,
          .lease_transitions = 3};
}

TEST(LeaseSpec, RoundTripsThroughALeaseWithMicrosecondTimes) {
  LeaseLock::Lease lease;
  lease.metadata.name = "lock";
  lease.metadata.namespace_ = "ns";
  SetLeaseSpec(lease.spec, SampleRecord());
  auto object = api::ToObject(lease);
  ASSERT_TRUE(object.ok());
  EXPECT_EQ((*object)->GetString("/spec/acquireTime").value_or(""), "2026-01-01T00:00:00.123456Z");
  EXPECT_EQ((*object)->GetInt("/spec/leaseDurationSeconds").value_or(0), 15);
  auto back = api::FromObject<LeaseLock::Lease>(**object);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(RecordFromLease(*back), SampleRecord());
}

TEST(LeaseSpec, EmptyHolderIsWrittenAsEmptyStringAndMissingFieldsReadAsZero) {
  LeaseLock::Lease lease;
  EXPECT_EQ(RecordFromLease(lease), LeaderElectionRecord{});

  LeaderElectionRecord released = SampleRecord();
  released.holder_identity.clear();
  SetLeaseSpec(lease.spec, released);
  auto object = api::ToObject(lease);
  ASSERT_TRUE(object.ok());
  EXPECT_EQ((*object)->GetString("/spec/holderIdentity"), std::optional<std::string>(""));
}

TEST(LeaseSpec, AnUnparsableTimeIsABadRequestNamingTheField) {
  ObjectBuilder b(LeaseLock::Lease::kApiVersion, LeaseLock::Lease::kKind);
  b.SetName("lock").SetNamespace("ns");
  ASSERT_TRUE(b.Set("/spec/renewTime", "yesterday").ok());
  auto object = b.Build();
  ASSERT_TRUE(object.ok());
  auto lease = api::FromObject<LeaseLock::Lease>(**object);
  ASSERT_FALSE(lease.ok());
  EXPECT_TRUE(IsBadRequest(lease.error()));
  EXPECT_NE(lease.error().message.find("spec.renewTime"), std::string::npos) << lease.error().message;
}

TEST(FakeLock, GetOfMissingObjectIsNotFoundAndCreateTwiceIsAlreadyExists) {
  auto store = std::make_shared<FakeLeaseStore>();
  FakeLock a(store, "a");
  FakeLock b(store, "b");
  auto missing = a.Get();
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(IsNotFound(missing.error()));
  ASSERT_TRUE(a.Create(SampleRecord()).ok());
  auto again = b.Create(SampleRecord());
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(IsAlreadyExists(again.error()));
}

TEST(FakeLock, UpdateIsCompareAndSwapOnTheLastReadVersion) {
  auto store = std::make_shared<FakeLeaseStore>();
  store->Put(SampleRecord());
  FakeLock a(store, "a");
  FakeLock b(store, "b");
  ASSERT_TRUE(a.Get().ok());
  ASSERT_TRUE(b.Get().ok());
  LeaderElectionRecord rec = SampleRecord();
  rec.holder_identity = "b";
  ASSERT_TRUE(b.Update(rec).ok());
  rec.holder_identity = "a";
  auto lost = a.Update(rec);
  ASSERT_FALSE(lost.ok());
  EXPECT_TRUE(IsConflict(lost.error()));
  EXPECT_EQ(store->Current()->record.holder_identity, "b");
  // After re-reading, a's update applies.
  ASSERT_TRUE(a.Get().ok());
  EXPECT_TRUE(a.Update(rec).ok());
  EXPECT_EQ(store->History().back().writer, "a");
}

TEST(FakeLock, UpdateBeforeAnyReadIsRejectedAndInjectedFailuresAreCounted) {
  auto store = std::make_shared<FakeLeaseStore>();
  store->Put(SampleRecord());
  FakeLock a(store, "a");
  auto unread = a.Update(SampleRecord());
  ASSERT_FALSE(unread.ok());
  EXPECT_TRUE(IsBadRequest(unread.error()));
  ASSERT_TRUE(a.Get().ok());
  a.FailNextUpdates(2);
  EXPECT_FALSE(a.Update(SampleRecord()).ok());
  EXPECT_FALSE(a.Update(SampleRecord()).ok());
  EXPECT_TRUE(a.Update(SampleRecord()).ok());
  EXPECT_EQ(a.UpdateCalls(), 4);
  a.FailNextGets(1, MakeError(503, reason::kServiceUnavailable, "down"));
  auto get = a.Get();
  ASSERT_FALSE(get.ok());
  EXPECT_TRUE(IsServiceUnavailable(get.error()));
  EXPECT_TRUE(a.Get().ok());
}

}  // namespace
}  // namespace kube::leaderelection
