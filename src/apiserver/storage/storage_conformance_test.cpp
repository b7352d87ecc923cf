// The Storage contract, run against every engine (memory, and sqlite in a temp dir).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <kube/apiserver/storage.hpp>
#include <kube/base/clock.hpp>
#include <kube/base/error.hpp>

#include "apiserver/storage/memory_storage.hpp"
#include "apiserver/storage/storage_test_util.hpp"

namespace kube::apiserver {
namespace {

using namespace std::chrono_literals;
using testing::At;
using testing::Keys;
using testing::Str;
using testing::Val;
using Type = StorageEvent::Type;

enum class Engine { kMemory, kSqlite };

std::string EngineName(const ::testing::TestParamInfo<Engine>& info) {
  return info.param == Engine::kMemory ? "Memory" : "Sqlite";
}

class StorageTest : public ::testing::TestWithParam<Engine> {
 protected:
  /// Test defaults: the fake clock, no automatic compaction, no retention floor.
  StorageOptions Options() {
    return StorageOptions{.compaction_min_revisions = 0,
                          .compaction_min_age = Clock::Duration::zero(),
                          .compaction_interval = Clock::Duration::zero(),
                          .clock = &clock_};
  }

  std::unique_ptr<Storage> OpenEngine(const StorageOptions& options) {
    switch (GetParam()) {
      case Engine::kMemory:
        return NewMemoryStorage(options);
      case Engine::kSqlite: {
        auto s = NewSqliteStorage(dir_.File("kube.db"), options);
        EXPECT_TRUE(s.ok()) << s.error().ToString();
        return s.ok() ? std::move(s).value() : nullptr;
      }
    }
    return nullptr;
  }

  /// Opens `storage_` with `options` (default: Options()).
  Storage& Open(std::optional<StorageOptions> options = std::nullopt) {
    options_ = options.value_or(Options());
    storage_ = OpenEngine(options_);
    return *storage_;
  }

  Storage& s() { return *storage_; }

  Revision MustCreate(std::string_view key, std::string text) {
    auto r = s().Create(key, Val(std::move(text)));
    EXPECT_TRUE(r.ok()) << r.error().ToString();
    return r.ok() ? *r : 0;
  }
  Revision MustUpdate(std::string_view key, std::string text, Revision expected = 0) {
    auto r = s().Update(key, expected, Val(std::move(text)));
    EXPECT_TRUE(r.ok()) << r.error().ToString();
    return r.ok() ? *r : 0;
  }
  Revision MustDelete(std::string_view key, Revision expected = 0) {
    auto r = s().Delete(key, expected, Val("tombstone"));
    EXPECT_TRUE(r.ok()) << r.error().ToString();
    return r.ok() ? *r : 0;
  }
  std::string GetValue(std::string_view key, Revision rev = 0) {
    auto r = s().Get(key, rev);
    return r.ok() ? Str(r->value) : "<" + std::string(ReasonFor(r.error())) + ">";
  }
  std::vector<std::string> ListKeys(std::string prefix, Revision rev = 0) {
    auto r = s().List({.prefix = std::move(prefix), .revision = rev});
    EXPECT_TRUE(r.ok()) << r.error().ToString();
    return r.ok() ? Keys(r->items) : std::vector<std::string>{};
  }
  internal::MvccStore::Stats IndexStats() {
    auto* introspection = dynamic_cast<internal::EngineIntrospection*>(storage_.get());
    EXPECT_NE(introspection, nullptr);
    return introspection != nullptr ? introspection->IndexStats() : internal::MvccStore::Stats{};
  }
  /// A deadline the tests never reach: a parked Next is visible to BlockUntilWaiters (which
  /// counts only waits with a deadline) and can only be woken by what the test does.
  Clock::TimePoint Far() { return clock_.Now() + std::chrono::hours(24); }
  /// Drains whatever `w` has buffered (never blocks: the deadline is now).
  std::vector<StorageEvent> Drain(Watcher& w) { return w.Next(clock_.Now(), {}); }

  FakeClock clock_;
  testing::TempDir dir_;
  StorageOptions options_;
  std::unique_ptr<Storage> storage_;
};

// ---------------------------------------------------------------------------------------------
// Writes

TEST_P(StorageTest, CreateAssignsIncreasingRevisionsAndPassesTheRevisionToTheValueFn) {
  Open();
  EXPECT_EQ(s().CurrentRevision(), 0);
  const Revision a = MustCreate("/a", "a");
  const Revision b = MustCreate("/b", "b");
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 2);
  EXPECT_EQ(s().CurrentRevision(), 2);
  auto kv = s().Get("/a");
  ASSERT_TRUE(kv.ok());
  EXPECT_EQ(kv->key, "/a");
  EXPECT_EQ(Str(kv->value), At("a", 1));
  EXPECT_EQ(kv->create_revision, 1);
  EXPECT_EQ(kv->mod_revision, 1);
}

TEST_P(StorageTest, CreateOfAnExistingKeyIsAlreadyExistsAndStoresNothing) {
  Open();
  MustCreate("/a", "a");
  bool called = false;
  auto r = s().Create("/a", [&](Revision) -> Result<std::string> {
    called = true;
    return std::string("x");
  });
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsAlreadyExists(r.error()));
  EXPECT_EQ(r.error().code, 409);
  EXPECT_FALSE(called);
  EXPECT_EQ(s().CurrentRevision(), 1);
  EXPECT_EQ(GetValue("/a"), At("a", 1));
}

TEST_P(StorageTest, UpdateAndDeleteOfAMissingKeyAreNotFound) {
  Open();
  auto u = s().Update("/missing", 0, Val("x"));
  ASSERT_FALSE(u.ok());
  EXPECT_TRUE(IsNotFound(u.error()));
  EXPECT_EQ(u.error().code, 404);
  auto d = s().Delete("/missing", 0, Val("x"));
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(IsNotFound(d.error()));
  auto g = s().Get("/missing");
  ASSERT_FALSE(g.ok());
  EXPECT_TRUE(IsNotFound(g.error()));
  EXPECT_EQ(s().CurrentRevision(), 0);
}

TEST_P(StorageTest, UpdateIsCompareAndSwapOnTheModRevision) {
  Open();
  const Revision r1 = MustCreate("/a", "v1");
  const Revision r2 = MustUpdate("/a", "v2", r1);
  EXPECT_EQ(r2, r1 + 1);
  auto stale = s().Update("/a", r1, Val("v3"));
  ASSERT_FALSE(stale.ok());
  EXPECT_TRUE(IsConflict(stale.error()));
  EXPECT_FALSE(IsAlreadyExists(stale.error()));
  EXPECT_EQ(stale.error().code, 409);
  EXPECT_EQ(GetValue("/a"), At("v2", r2));
  // expected = 0 is unconditional.
  const Revision r3 = MustUpdate("/a", "v3", 0);
  auto kv = s().Get("/a");
  ASSERT_TRUE(kv.ok());
  EXPECT_EQ(kv->mod_revision, r3);
  EXPECT_EQ(kv->create_revision, r1);
}

TEST_P(StorageTest, DeleteIsCompareAndSwapAndWritesATombstoneRevision) {
  Open();
  const Revision r1 = MustCreate("/a", "v1");
  const Revision r2 = MustUpdate("/a", "v2");
  auto stale = s().Delete("/a", r1, Val("t"));
  ASSERT_FALSE(stale.ok());
  EXPECT_TRUE(IsConflict(stale.error()));
  const Revision r3 = MustDelete("/a", r2);
  EXPECT_EQ(r3, r2 + 1);
  EXPECT_EQ(s().CurrentRevision(), r3);
  EXPECT_EQ(GetValue("/a"), "<NotFound>");
  EXPECT_EQ(GetValue("/a", r2), At("v2", r2));
  auto again = s().Delete("/a", 0, Val("t"));
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(IsNotFound(again.error()));
}

TEST_P(StorageTest, CreateAfterDeleteStartsANewIncarnation) {
  Open();
  MustCreate("/a", "old");
  MustDelete("/a");
  const Revision r = MustCreate("/a", "new");
  auto kv = s().Get("/a");
  ASSERT_TRUE(kv.ok());
  EXPECT_EQ(kv->create_revision, r);
  EXPECT_EQ(kv->mod_revision, r);
  EXPECT_EQ(Str(kv->value), At("new", r));
}

TEST_P(StorageTest, AValueFnErrorAbortsTheWriteWithoutConsumingARevision) {
  Open();
  auto r = s().Create("/a", [](Revision) -> Result<std::string> {
    return MakeError(422, reason::kInvalid, "bad object");
  });
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsInvalid(r.error()));
  EXPECT_EQ(s().CurrentRevision(), 0);
  EXPECT_EQ(GetValue("/a"), "<NotFound>");
  EXPECT_EQ(MustCreate("/a", "a"), 1);
}

TEST_P(StorageTest, AThrowingValueFnIsAnInternalError) {
  Open();
  auto r = s().Create("/a", [](Revision) -> Result<std::string> {
    throw std::runtime_error("boom");
  });
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsInternalError(r.error()));
  EXPECT_EQ(r.error().code, 500);
  EXPECT_EQ(s().CurrentRevision(), 0);
  EXPECT_EQ(MustCreate("/a", "a"), 1);  // no lock was left held
}

TEST_P(StorageTest, NegativeRevisionsAndLimitsAreBadRequests) {
  Open();
  EXPECT_TRUE(IsBadRequest(s().Get("/a", -1).error()));
  EXPECT_TRUE(IsBadRequest(s().List({.prefix = "/", .limit = -1}).error()));
  EXPECT_TRUE(IsBadRequest(s().List({.prefix = "/", .revision = -3}).error()));
  EXPECT_TRUE(IsBadRequest(s().Watch("/", -1).error()));
}

// ---------------------------------------------------------------------------------------------
// Reads at past revisions, too-large revisions

TEST_P(StorageTest, GetAndListAtPastRevisionsSeeTheStateThen) {
  Open();
  const Revision a1 = MustCreate("/k/a", "a1");
  const Revision b1 = MustCreate("/k/b", "b1");
  const Revision a2 = MustUpdate("/k/a", "a2");
  const Revision bd = MustDelete("/k/b");
  const Revision c1 = MustCreate("/k/c", "c1");

  EXPECT_EQ(GetValue("/k/a", a1), At("a1", a1));
  EXPECT_EQ(GetValue("/k/a", b1), At("a1", a1));
  EXPECT_EQ(GetValue("/k/a", a2), At("a2", a2));
  EXPECT_EQ(GetValue("/k/b", a1), "<NotFound>");
  EXPECT_EQ(GetValue("/k/b", a2), At("b1", b1));
  EXPECT_EQ(GetValue("/k/b", bd), "<NotFound>");

  EXPECT_EQ(ListKeys("/k/", a1), (std::vector<std::string>{"/k/a"}));
  EXPECT_EQ(ListKeys("/k/", a2), (std::vector<std::string>{"/k/a", "/k/b"}));
  EXPECT_EQ(ListKeys("/k/", bd), (std::vector<std::string>{"/k/a"}));
  EXPECT_EQ(ListKeys("/k/", c1), (std::vector<std::string>{"/k/a", "/k/c"}));
  auto past = s().List({.prefix = "/k/", .revision = b1});
  ASSERT_TRUE(past.ok());
  EXPECT_EQ(past->revision, b1);
  ASSERT_EQ(past->items.size(), 2u);
  EXPECT_EQ(past->items[0].mod_revision, a1);
  EXPECT_EQ(Str(past->items[0].value), At("a1", a1));
  auto latest = s().List({.prefix = "/k/"});
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ(latest->revision, c1);
}

TEST_P(StorageTest, ReadsAboveTheCurrentRevisionAreTooLargeResourceVersion) {
  Open();
  MustCreate("/a", "a");
  auto g = s().Get("/a", 2);
  ASSERT_FALSE(g.ok());
  EXPECT_TRUE(IsTooLargeResourceVersion(g.error()));
  EXPECT_EQ(g.error().code, 504);
  auto l = s().List({.prefix = "/", .revision = 5});
  ASSERT_FALSE(l.ok());
  EXPECT_TRUE(IsTooLargeResourceVersion(l.error()));
  auto w = s().Watch("/", 7);
  ASSERT_FALSE(w.ok());
  EXPECT_TRUE(IsTooLargeResourceVersion(w.error()));
  EXPECT_TRUE(s().Get("/a", 1).ok());
}

// ---------------------------------------------------------------------------------------------
// List: prefix, pagination, filter

TEST_P(StorageTest, ListReturnsKeysUnderThePrefixInKeyOrder) {
  Open();
  for (const char* k : {"/r/b", "/r/a", "/rx/a", "/q/z", "/r/c/d", "/r"}) MustCreate(k, k);
  EXPECT_EQ(ListKeys("/r/"), (std::vector<std::string>{"/r/a", "/r/b", "/r/c/d"}));
  EXPECT_EQ(ListKeys("/r"), (std::vector<std::string>{"/r", "/r/a", "/r/b", "/r/c/d", "/rx/a"}));
  EXPECT_EQ(ListKeys("").size(), 6u);
  EXPECT_TRUE(ListKeys("/none/").empty());
  auto all = s().List({.prefix = "/r/"});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->continue_key, "");
  EXPECT_EQ(all->remaining, 0);
}

TEST_P(StorageTest, ListPagesWithLimitAndContinueKeyAndExactRemaining) {
  Open();
  for (int i = 0; i < 7; ++i) MustCreate(fmt::format("/p/{:02}", i), "v");
  MustDelete("/p/03");
  MustCreate("/q/after", "v");  // outside the prefix: never counted
  std::vector<std::string> seen;
  std::vector<int64_t> remaining;
  ListRequest req{.prefix = "/p/", .limit = 2};
  for (int page = 0; page < 10; ++page) {
    auto r = s().List(req);
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    for (auto& k : Keys(r->items)) seen.push_back(k);
    remaining.push_back(r->remaining);
    if (r->continue_key.empty()) break;
    req.start_key = r->continue_key;
    req.revision = r->revision;
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"/p/00", "/p/01", "/p/02", "/p/04", "/p/05", "/p/06"}));
  EXPECT_EQ(remaining, (std::vector<int64_t>{4, 2, 0}));
}

TEST_P(StorageTest, ListEndingExactlyAtTheLimitHasNoContinueKey) {
  Open();
  MustCreate("/p/a", "v");
  MustCreate("/p/b", "v");
  auto r = s().List({.prefix = "/p/", .limit = 2});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->items.size(), 2u);
  EXPECT_EQ(r->continue_key, "");
  EXPECT_EQ(r->remaining, 0);
}

TEST_P(StorageTest, ListStartKeyIsInclusive) {
  Open();
  for (const char* k : {"/p/a", "/p/b", "/p/c"}) MustCreate(k, "v");
  auto r = s().List({.prefix = "/p/", .start_key = "/p/b"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Keys(r->items), (std::vector<std::string>{"/p/b", "/p/c"}));
}

TEST_P(StorageTest, PaginationIsAConsistentSnapshotWhileWritesHappen) {
  Open();
  constexpr int kKeys = 1200;  // spans several internal scan chunks
  testing::ParallelFor(kKeys, [&](int i) { MustCreate(fmt::format("/p/{:05}", i), "v0"); });
  std::map<std::string, std::string> snapshot;
  {
    auto full = s().List({.prefix = "/p/"});
    ASSERT_TRUE(full.ok());
    for (auto& kv : full->items) snapshot[kv.key] = Str(kv.value);
  }
  ListRequest req{.prefix = "/p/", .limit = 100};
  std::map<std::string, std::string> paged;
  Revision snapshot_rev = 0;
  for (int page = 0;; ++page) {
    auto r = s().List(req);
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    if (page == 0) snapshot_rev = r->revision;
    EXPECT_EQ(r->revision, snapshot_rev);
    for (auto& kv : r->items) paged[kv.key] = Str(kv.value);
    if (r->continue_key.empty()) break;
    // Writes between pages: updates, deletes and creates both before and after the cursor.
    MustUpdate(fmt::format("/p/{:05}", (page * 97) % kKeys), "v1");
    MustDelete(fmt::format("/p/{:05}", (page * 131 + 7) % kKeys));
    MustCreate(fmt::format("/p/{:05}-new", page * 50), "new");
    req.start_key = r->continue_key;
    req.revision = r->revision;
  }
  EXPECT_EQ(paged, snapshot);
}

TEST_P(StorageTest, ListFilterRunsBeforeTheLimitAndRemainingIgnoresIt) {
  Open();
  for (int i = 0; i < 10; ++i) MustCreate(fmt::format("/f/{}", i), i % 2 == 0 ? "even" : "odd");
  auto even = [](const KeyValue& kv) { return kv.value->starts_with("even"); };
  auto r = s().List({.prefix = "/f/", .limit = 2, .filter = even});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Keys(r->items), (std::vector<std::string>{"/f/0", "/f/2"}));
  EXPECT_EQ(r->remaining, 7);  // /f/3 .. /f/9, whatever the filter says
  EXPECT_EQ(r->continue_key, std::string("/f/2") + '\0');
  auto next = s().List({.prefix = "/f/", .start_key = r->continue_key, .limit = 10,
                        .revision = r->revision, .filter = even});
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(Keys(next->items), (std::vector<std::string>{"/f/4", "/f/6", "/f/8"}));
  EXPECT_EQ(next->continue_key, "");
}

TEST_P(StorageTest, AThrowingListFilterIsAnInternalError) {
  Open();
  MustCreate("/a", "a");
  auto r = s().List({.prefix = "/", .filter = [](const KeyValue&) -> bool {
                       throw std::runtime_error("boom");
                     }});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsInternalError(r.error()));
  // The snapshot pin was released: compaction is not held back.
  MustUpdate("/a", "b");
  EXPECT_EQ(s().Compact(2), 2);
}

// ---------------------------------------------------------------------------------------------
// Compaction

TEST_P(StorageTest, ReadsBelowTheCompactionPointAreExpired) {
  Open();
  const Revision r1 = MustCreate("/a", "v1");
  const Revision r2 = MustUpdate("/a", "v2");
  const Revision r3 = MustUpdate("/a", "v3");
  EXPECT_EQ(s().CompactedRevision(), 0);
  EXPECT_EQ(s().Compact(r2), r2);
  EXPECT_EQ(s().CompactedRevision(), r2);
  auto g = s().Get("/a", r1);
  ASSERT_FALSE(g.ok());
  EXPECT_TRUE(IsExpired(g.error()));
  EXPECT_EQ(g.error().code, 410);
  EXPECT_EQ(g.error().reason, "Expired");
  auto l = s().List({.prefix = "/", .revision = r1});
  ASSERT_FALSE(l.ok());
  EXPECT_TRUE(IsExpired(l.error()));
  auto w = s().Watch("/", r1);
  ASSERT_FALSE(w.ok());
  EXPECT_TRUE(IsExpired(w.error()));
  EXPECT_EQ(w.error().code, 410);
  // At and above the compaction point everything is still readable.
  EXPECT_EQ(GetValue("/a", r2), At("v2", r2));
  EXPECT_EQ(GetValue("/a", r3), At("v3", r3));
  auto w2 = s().Watch("/", r2);
  ASSERT_TRUE(w2.ok());
  auto events = Drain(**w2);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].revision, r3);
  EXPECT_EQ(Str(events[0].prev_value), At("v2", r2));
}

TEST_P(StorageTest, CompactionNeverGoesBackwardsAndClampsToTheCurrentRevision) {
  Open();
  for (int i = 0; i < 5; ++i) MustCreate(fmt::format("/k{}", i), "v");
  EXPECT_EQ(s().Compact(3), 3);
  EXPECT_EQ(s().Compact(2), 3);
  EXPECT_EQ(s().Compact(100), 5);
  EXPECT_EQ(s().CompactedRevision(), 5);
  EXPECT_EQ(ListKeys("/").size(), 5u);
}

TEST_P(StorageTest, CompactionDropsSupersededVersionsAndTombstones) {
  Open();
  MustCreate("/live", "v1");
  MustUpdate("/live", "v2");
  MustUpdate("/live", "v3");
  MustCreate("/gone", "g1");
  MustDelete("/gone");
  const Revision last = MustCreate("/later", "l1");
  MustUpdate("/later", "l2");
  EXPECT_EQ(IndexStats().versions, 7u);
  EXPECT_EQ(s().Compact(last), last);
  auto stats = IndexStats();
  // /live keeps v3, /gone nothing, /later keeps l1 (the state at the point) and l2.
  EXPECT_EQ(stats.versions, 3u);
  EXPECT_EQ(stats.keys, 2u);
  EXPECT_EQ(stats.log_events, 1u);
  EXPECT_EQ(GetValue("/live", last), At("v3", 3));
  EXPECT_EQ(GetValue("/gone", last), "<NotFound>");
  EXPECT_EQ(GetValue("/later", last), At("l1", last));
  EXPECT_EQ(ListKeys("/", last), (std::vector<std::string>{"/later", "/live"}));
  // A re-created key after its tombstone was compacted starts a fresh incarnation.
  const Revision again = MustCreate("/gone", "g2");
  auto kv = s().Get("/gone");
  ASSERT_TRUE(kv.ok());
  EXPECT_EQ(kv->create_revision, again);
}

TEST_P(StorageTest, CompactionKeepsAtLeastMinRevisions) {
  auto options = Options();
  options.compaction_min_revisions = 10;
  Open(options);
  for (int i = 0; i < 25; ++i) MustCreate(fmt::format("/k{:02}", i), "v");
  EXPECT_EQ(s().Compact(25), 15);
  EXPECT_EQ(s().Compact(14), 15);
  for (int i = 0; i < 3; ++i) MustUpdate("/k00", "w");
  EXPECT_EQ(s().Compact(1000), 18);
}

TEST_P(StorageTest, CompactionKeepsAtLeastMinAgeOfHistory) {
  auto options = Options();
  options.compaction_min_age = 5min;
  Open(options);
  for (int i = 0; i < 10; ++i) MustCreate(fmt::format("/old{}", i), "v");  // 1..10 at +0
  clock_.Advance(3min);
  for (int i = 0; i < 10; ++i) MustCreate(fmt::format("/new{}", i), "v");  // 11..20 at +3m
  EXPECT_EQ(s().Compact(20), 0);  // nothing is 5 minutes old
  clock_.Advance(1min + 59s);
  EXPECT_EQ(s().Compact(20), 0);
  // +5m: the state of 5 minutes ago is revision 10; it must stay readable, older ones need not.
  clock_.Advance(1s);
  EXPECT_EQ(s().Compact(20), 10);
  EXPECT_EQ(GetValue("/old9", 10), At("v", 10));
  clock_.Advance(2min + 59s);  // +7:59: revision 10 was still current 5 minutes ago
  EXPECT_EQ(s().Compact(20), 10);
  clock_.Advance(1s);  // +8m: the +3m writes are 5 minutes old
  EXPECT_EQ(s().Compact(20), 20);
}

TEST_P(StorageTest, CompactionDefaultsKeep1000RevisionsAnd5Minutes) {
  StorageOptions defaults;
  EXPECT_EQ(defaults.compaction_min_revisions, 1000);
  EXPECT_EQ(defaults.compaction_min_age, std::chrono::minutes(5));
  EXPECT_EQ(defaults.compaction_interval, std::chrono::minutes(1));
  Open(StorageOptions{.compaction_interval = Clock::Duration::zero(), .clock = &clock_});
  testing::ParallelFor(1500, [&](int i) { MustCreate(fmt::format("/k{:04}", i), "v"); });
  EXPECT_EQ(s().Compact(1500), 0);  // 1500 revisions, but all younger than 5 minutes
  clock_.Advance(5min + 1s);
  EXPECT_EQ(s().Compact(1500), 500);  // old enough, but the last 1000 revisions stay
  EXPECT_EQ(s().Compact(1200), 500);
}

TEST_P(StorageTest, AutomaticCompactionRunsEveryIntervalOnTheClock) {
  Open(StorageOptions{.compaction_min_revisions = 2,
                      .compaction_min_age = Clock::Duration::zero(),
                      .compaction_interval = 1min,
                      .clock = &clock_});
  for (int i = 0; i < 10; ++i) MustCreate(fmt::format("/k{}", i), "v");
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));  // the compactor is parked
  EXPECT_EQ(s().CompactedRevision(), 0);
  clock_.Advance(30s);
  EXPECT_EQ(s().CompactedRevision(), 0);
  clock_.Advance(30s);
  // Advance took the compactor off the waiter list; it parks again only after compacting.
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  EXPECT_EQ(s().CompactedRevision(), 8);
  for (int i = 0; i < 5; ++i) MustUpdate("/k0", "w");
  clock_.Advance(1min);
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  EXPECT_EQ(s().CompactedRevision(), 13);
}

TEST_P(StorageTest, CompactionNeverRemovesTheSnapshotOfAListInProgress) {
  Open();
  constexpr int kKeys = 1500;  // several internal scan chunks
  testing::ParallelFor(kKeys, [&](int i) { MustCreate(fmt::format("/k/{:05}", i), "v1"); });
  const Revision snapshot = s().CurrentRevision();
  testing::ParallelFor(kKeys, [&](int i) { MustUpdate(fmt::format("/k/{:05}", i), "v2"); });
  bool compacted = false;
  Revision point = 0;
  auto r = s().List({.prefix = "/k/", .revision = snapshot, .filter = [&](const KeyValue&) {
                       // The filter runs outside the storage lock, mid-list.
                       if (!compacted) {
                         compacted = true;
                         point = s().Compact(s().CurrentRevision());
                       }
                       return true;
                     }});
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(point, snapshot);
  ASSERT_EQ(r->items.size(), static_cast<std::size_t>(kKeys));
  for (const auto& kv : r->items) EXPECT_EQ(Str(kv.value), At("v1", kv.mod_revision));
  // Once the list is done the pin is gone.
  EXPECT_EQ(s().Compact(s().CurrentRevision()), s().CurrentRevision());
}

// ---------------------------------------------------------------------------------------------
// Watch

TEST_P(StorageTest, WatchReplaysRetainedEventsThenDeliversLiveOnesWithoutGaps) {
  Open();
  const Revision a = MustCreate("/w/a", "a1");
  MustCreate("/w/b", "b1");
  MustUpdate("/w/a", "a2");
  auto w = s().Watch("/w/", a);
  ASSERT_TRUE(w.ok());
  MustDelete("/w/b");
  MustCreate("/w/c", "c1");
  std::vector<Revision> revisions;
  std::vector<Type> types;
  for (auto& e : Drain(**w)) {
    revisions.push_back(e.revision);
    types.push_back(e.type);
  }
  EXPECT_EQ(revisions, (std::vector<Revision>{2, 3, 4, 5}));
  EXPECT_EQ(types, (std::vector<Type>{Type::kCreated, Type::kUpdated, Type::kDeleted,
                                      Type::kCreated}));
  EXPECT_FALSE((*w)->Done());
}

TEST_P(StorageTest, ReadyCallbackFiresOncePerDrainAndAtOnceWhenEventsArePending) {
  Open();
  auto w = s().Watch("/r/", 0);
  ASSERT_TRUE(w.ok());
  int calls = 0;
  ASSERT_TRUE((*w)->SetReadyCallback([&calls] { ++calls; }));
  EXPECT_EQ(calls, 0);  // nothing pending yet
  MustCreate("/r/a", "a");
  EXPECT_EQ(calls, 1);
  MustCreate("/r/b", "b");
  MustCreate("/x", "not under the prefix");
  EXPECT_EQ(calls, 1);  // once until the consumer drains
  EXPECT_EQ(Drain(**w).size(), 2u);
  MustUpdate("/r/a", "a2");
  EXPECT_EQ(calls, 2);  // news again after the drain

  // Set while events are pending: called at once.
  ASSERT_TRUE((*w)->SetReadyCallback(nullptr));
  MustUpdate("/r/b", "b2");
  EXPECT_EQ(calls, 2);  // removed: not called
  int second = 0;
  ASSERT_TRUE((*w)->SetReadyCallback([&second] { ++second; }));
  EXPECT_EQ(second, 1);
  EXPECT_EQ(Drain(**w).size(), 2u);

  // The end of the watch is news too.
  (*w)->Close();
  EXPECT_EQ(second, 2);
  ASSERT_TRUE((*w)->SetReadyCallback(nullptr));
}

TEST_P(StorageTest, AWatchWithAReadyCallbackDoesNotCoalesce) {
  StorageOptions o = Options();
  o.watch_coalesce = std::chrono::hours(1);  // a lingering Next would never return in time
  Open(o);
  auto w = s().Watch("/c/", 0);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->SetReadyCallback([] {}));
  for (int round = 0; round < 3; ++round) {
    MustCreate("/c/" + std::to_string(round) + "a", "x");
    MustCreate("/c/" + std::to_string(round) + "b", "x");
    // With events pending, Next returns them at once every time; without the callback the
    // third call would linger for the coalescing period (the stream counts as busy by then).
    EXPECT_EQ((*w)->Next(Far(), {}).size(), 2u) << round;
  }
  ASSERT_TRUE((*w)->SetReadyCallback(nullptr));
}

TEST_P(StorageTest, WatchFromZeroStartsAtTheCurrentRevision) {
  Open();
  MustCreate("/a", "a");
  auto w = s().Watch("/", 0);
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE(Drain(**w).empty());
  const Revision b = MustCreate("/b", "b");
  auto events = Drain(**w);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].revision, b);
}

TEST_P(StorageTest, WatchDeliversOnlyKeysUnderItsPrefix) {
  Open();
  auto w = s().Watch("/pods/ns1/", 0);
  ASSERT_TRUE(w.ok());
  MustCreate("/pods/ns1/a", "a");
  MustCreate("/pods/ns10/a", "x");
  MustCreate("/pods/ns2/a", "x");
  MustCreate("/pods/ns1/b", "b");
  auto events = Drain(**w);
  std::vector<std::string> keys;
  for (auto& e : events) keys.push_back(e.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"/pods/ns1/a", "/pods/ns1/b"}));
}

TEST_P(StorageTest, WatchEventsCarryValueAndPrevValueAndTheDeleteTombstone) {
  Open();
  auto w = s().Watch("/", 0);
  ASSERT_TRUE(w.ok());
  const Revision c = MustCreate("/a", "v1");
  const Revision u = MustUpdate("/a", "v2");
  auto d = s().Delete("/a", 0, Val("last-state"));
  ASSERT_TRUE(d.ok());
  auto events = Drain(**w);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, Type::kCreated);
  EXPECT_EQ(Str(events[0].value), At("v1", c));
  EXPECT_EQ(events[0].prev_value, nullptr);
  EXPECT_EQ(events[1].type, Type::kUpdated);
  EXPECT_EQ(Str(events[1].value), At("v2", u));
  EXPECT_EQ(Str(events[1].prev_value), At("v1", c));
  EXPECT_EQ(events[2].type, Type::kDeleted);
  EXPECT_EQ(events[2].revision, *d);
  EXPECT_EQ(Str(events[2].value), At("last-state", *d));
  EXPECT_EQ(Str(events[2].prev_value), At("v2", u));
}

TEST_P(StorageTest, OverflowClosesASlowWatcherWithoutBlockingWriters) {
  auto options = Options();
  options.watcher_buffer = 4;
  Open(options);
  auto slow = s().Watch("/", 0);
  auto other = s().Watch("/other/", 0);
  ASSERT_TRUE(slow.ok());
  ASSERT_TRUE(other.ok());
  for (int i = 0; i < 20; ++i) MustCreate(fmt::format("/k{:02}", i), "v");  // never blocks
  EXPECT_EQ(s().CurrentRevision(), 20);
  EXPECT_FALSE((*slow)->Done());  // the buffered events are still delivered
  auto events = Drain(**slow);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events.front().revision, 1);
  EXPECT_EQ(events.back().revision, 4);
  EXPECT_TRUE(Drain(**slow).empty());
  EXPECT_TRUE((*slow)->Done());
  EXPECT_TRUE((*slow)->Overflowed());
  // A watcher whose prefix saw nothing is unaffected.
  EXPECT_FALSE((*other)->Done());
  EXPECT_FALSE((*other)->Overflowed());
  // The client resumes from the last revision it got.
  auto resumed = s().Watch("/", events.back().revision);
  ASSERT_TRUE(resumed.ok());
  auto rest = Drain(**resumed);
  ASSERT_EQ(rest.size(), 4u);
  EXPECT_EQ(rest.front().revision, 5);
  EXPECT_EQ(IndexStats().watchers, 1u);  // `other`; the ended ones were dropped
}

TEST_P(StorageTest, AReplayLargerThanTheBufferIsServedInInstallments) {
  auto options = Options();
  options.watcher_buffer = 3;
  Open(options);
  for (int i = 0; i < 8; ++i) MustCreate(fmt::format("/k{}", i), "v");
  Revision from = 1;
  std::vector<Revision> all;
  for (int round = 0; round < 10; ++round) {
    auto w = s().Watch("/", from);
    ASSERT_TRUE(w.ok());
    for (auto& e : Drain(**w)) all.push_back(e.revision);
    if (!(*w)->Overflowed()) break;
    EXPECT_TRUE((*w)->Done());
    from = all.back();
  }
  EXPECT_EQ(all, (std::vector<Revision>{2, 3, 4, 5, 6, 7, 8}));
}

TEST_P(StorageTest, ProgressAdvancesForAQuietWatchButNeverPastAnUnreturnedEvent) {
  Open();
  MustCreate("/a/1", "v");  // 1
  auto w = s().Watch("/b/", 0);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ((*w)->Progress(), 1);
  MustCreate("/a/2", "v");  // 2: not under the prefix, yet the watch is complete through it
  EXPECT_EQ((*w)->Progress(), 2);
  MustCreate("/b/1", "v");  // 3: buffered, not returned
  MustCreate("/a/3", "v");  // 4
  EXPECT_EQ((*w)->Progress(), 2);
  ASSERT_EQ(Drain(**w).size(), 1u);
  EXPECT_EQ((*w)->Progress(), 4);
  // A watch from the past starts at its start revision.
  auto past = s().Watch("/a/", 1);
  ASSERT_TRUE(past.ok());
  EXPECT_EQ((*past)->Progress(), 1);
  ASSERT_EQ(Drain(**past).size(), 2u);
  EXPECT_EQ((*past)->Progress(), 4);
}

TEST_P(StorageTest, ProgressOfAnOverflowedWatchStopsAtItsLastEvent) {
  auto options = Options();
  options.watcher_buffer = 2;
  Open(options);
  auto w = s().Watch("/", 0);
  ASSERT_TRUE(w.ok());
  for (int i = 0; i < 5; ++i) MustCreate(fmt::format("/k{}", i), "v");
  EXPECT_EQ((*w)->Progress(), 0);
  ASSERT_EQ(Drain(**w).size(), 2u);
  EXPECT_TRUE((*w)->Done());
  EXPECT_EQ((*w)->Progress(), 2);  // not 5: events 3..5 were never returned
}

TEST_P(StorageTest, NextWakesWhenTheDeadlinePassesOnTheClock) {
  Open();
  auto w = s().Watch("/", 0);
  ASSERT_TRUE(w.ok());
  std::vector<StorageEvent> got{StorageEvent{}};
  std::thread consumer([&] { got = (*w)->Next(clock_.Now() + 10s, {}); });
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  clock_.Advance(10s);
  consumer.join();
  EXPECT_TRUE(got.empty());
  EXPECT_FALSE((*w)->Done());
}

TEST_P(StorageTest, NextWakesOnNewEvents) {
  Open();
  auto w = s().Watch("/", 0);
  ASSERT_TRUE(w.ok());
  std::vector<StorageEvent> got;
  std::thread consumer([&] { got = (*w)->Next(Far(), {}); });
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  MustCreate("/a", "a");
  consumer.join();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].key, "/a");
}

TEST_P(StorageTest, NextWakesOnStop) {
  Open();
  auto w = s().Watch("/", 0);
  ASSERT_TRUE(w.ok());
  std::stop_source stop;
  std::vector<StorageEvent> got{StorageEvent{}};
  std::thread consumer([&] { got = (*w)->Next(Far(), stop.get_token()); });
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  stop.request_stop();
  consumer.join();
  EXPECT_TRUE(got.empty());
  EXPECT_FALSE((*w)->Done());
  // An already-stopped token returns at once, with what is buffered.
  MustCreate("/a", "a");
  EXPECT_EQ((*w)->Next(Far(), stop.get_token()).size(), 1u);
}

TEST_P(StorageTest, NextWakesOnCloseAndTheWatchIsDone) {
  Open();
  auto w = s().Watch("/", 0);
  ASSERT_TRUE(w.ok());
  std::vector<StorageEvent> got{StorageEvent{}};
  std::thread consumer([&] { got = (*w)->Next(Far(), {}); });
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  (*w)->Close();
  consumer.join();
  EXPECT_TRUE(got.empty());
  EXPECT_TRUE((*w)->Done());
  EXPECT_FALSE((*w)->Overflowed());
  (*w)->Close();  // idempotent
  MustCreate("/a", "a");
  EXPECT_TRUE(Drain(**w).empty());
}

TEST_P(StorageTest, NextWakesWhenTheStorageIsDestroyedAndBufferedEventsAreStillDelivered) {
  Open();
  auto w1 = s().Watch("/", 0);
  ASSERT_TRUE(w1.ok());
  MustCreate("/a", "a");
  auto w2 = s().Watch("/", s().CurrentRevision());
  ASSERT_TRUE(w2.ok());
  std::vector<StorageEvent> got{StorageEvent{}};
  std::thread consumer([&] { got = (*w2)->Next(Far(), {}); });
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  storage_.reset();
  consumer.join();
  EXPECT_TRUE(got.empty());
  EXPECT_TRUE((*w2)->Done());
  EXPECT_FALSE((*w1)->Done());
  EXPECT_EQ(Drain(**w1).size(), 1u);
  EXPECT_TRUE((*w1)->Done());
}

// ---------------------------------------------------------------------------------------------
// Concurrency

TEST_P(StorageTest, ConcurrentWritersGetDistinctRevisionsAndWatchersSeeEveryEventInOrder) {
  Open();
  constexpr int kThreads = 8;
  constexpr int kPerThread = 60;
  auto w = s().Watch("/", 0);
  ASSERT_TRUE(w.ok());
  // A consumer drains while the writers run, and registers a second watch mid-stream.
  std::vector<Revision> seen;
  std::unique_ptr<Watcher> late;
  Revision late_from = 0;
  std::thread consumer([&] {
    while (true) {
      for (auto& e : (*w)->Next(Clock::TimePoint::max(), {})) {
        if (e.key == "/end") return;
        seen.push_back(e.revision);
        // Registered per event, not per batch: a slow consumer may get the rest (and /end) in
        // one batch, and the late watch must exist whatever the batching.
        if (!late && seen.size() > 200) {
          late_from = seen.back();
          auto lw = s().Watch("/c/", late_from);
          ASSERT_TRUE(lw.ok());
          late = std::move(*lw);
        }
      }
    }
  });
  std::vector<std::vector<Revision>> acked(kThreads);
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const std::string key = fmt::format("/c/{}/{}", t, i);
        auto r = s().Create(key, Val("v"));
        ASSERT_TRUE(r.ok()) << r.error().ToString();
        acked[t].push_back(*r);
        if (i % 3 == 0) {
          auto u = s().Update(key, *r, Val("u"));
          ASSERT_TRUE(u.ok()) << u.error().ToString();
          acked[t].push_back(*u);
        }
      }
    });
  }
  for (auto& t : writers) t.join();
  MustCreate("/end", "sentinel");
  consumer.join();
  std::set<Revision> all;
  std::size_t total = 0;
  for (auto& v : acked) {
    all.insert(v.begin(), v.end());
    total += v.size();
  }
  EXPECT_EQ(total, static_cast<std::size_t>(kThreads * (kPerThread + kPerThread / 3)));
  EXPECT_EQ(all.size(), total);                                    // distinct
  EXPECT_EQ(seen, std::vector<Revision>(all.begin(), all.end()));  // in order, no gaps or dups
  ASSERT_TRUE(late);
  std::vector<Revision> late_seen;
  for (auto& e : Drain(*late)) late_seen.push_back(e.revision);
  EXPECT_EQ(late_seen, std::vector<Revision>(all.upper_bound(late_from), all.end()));
}

TEST_P(StorageTest, WatchesRegisteredDuringConcurrentWritesHaveNoGapsOrDuplicates) {
  Open();
  // Revision 0 means "from now" to Watch; start above it so every `from` below is exact.
  MustCreate("/seed", "s");
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int i = 0; i < 150; ++i) {
      auto r = s().Create(fmt::format("/g/{}", i), Val("v"));
      ASSERT_TRUE(r.ok());
    }
    done = true;
  });
  std::vector<std::pair<Revision, std::unique_ptr<Watcher>>> watchers;
  while (!done) {
    const Revision from = s().CurrentRevision();
    auto w = s().Watch("/g/", from);
    ASSERT_TRUE(w.ok());
    watchers.emplace_back(from, std::move(*w));
    if (watchers.size() > 200) break;
  }
  writer.join();
  const Revision last = s().CurrentRevision();
  for (auto& [from, w] : watchers) {
    std::vector<Revision> got;
    for (auto& e : Drain(*w)) got.push_back(e.revision);
    std::vector<Revision> expected;
    for (Revision r = from + 1; r <= last; ++r) expected.push_back(r);
    ASSERT_EQ(got, expected) << "watch from " << from;
  }
}

TEST_P(StorageTest, ConcurrentCompareAndSwapLoopsLoseNoUpdates) {
  Open();
  MustCreate("/counter", "0");
  constexpr int kThreads = 4;
  constexpr int kIncrements = 25;
  std::vector<std::thread> threads;
  std::atomic<int> conflicts{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kIncrements;) {
        auto cur = s().Get("/counter");
        ASSERT_TRUE(cur.ok());
        const int n = std::stoi(*cur->value);
        auto r = s().Update("/counter", cur->mod_revision, [n](Revision) -> Result<std::string> {
          return std::to_string(n + 1);
        });
        if (r.ok()) {
          ++i;
        } else {
          ASSERT_TRUE(IsConflict(r.error())) << r.error().ToString();
          ++conflicts;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(GetValue("/counter"), std::to_string(kThreads * kIncrements));
}

INSTANTIATE_TEST_SUITE_P(Engines, StorageTest, ::testing::Values(Engine::kMemory, Engine::kSqlite),
                         EngineName);

}  // namespace
}  // namespace kube::apiserver
