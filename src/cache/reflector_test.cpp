#include <kube/cache/reflector.hpp>

#include <thread>

#include <gtest/gtest.h>

#include "cache/test_objects.hpp"

namespace kube::cache {
namespace {

using namespace std::chrono_literals;
using testing::Obj;

// Records what the reflector writes.
class RecordingStore final : public ReflectorStore {
 public:
  // With `prepare` set, Prepare renames every object `<name>-p` and records the call.
  bool prepare = false;
  ObjectPtr Prepare(ObjectPtr o, bool in_list) override {
    if (!prepare) return o;
    (void)Record(std::string(in_list ? "prepare list item " : "prepare ") + o->Key());
    return Obj(o->Namespace(), std::string(o->Name()) + "-p", o->ResourceVersion());
  }
  Result<void> Add(const ObjectPtr& o) override { return Record("add " + o->Key() + "@" + std::string(o->ResourceVersion())); }
  Result<void> Update(const ObjectPtr& o) override {
    return Record("update " + o->Key() + "@" + std::string(o->ResourceVersion()));
  }
  Result<void> Delete(const ObjectPtr& o) override { return Record("delete " + o->Key()); }
  Result<void> Replace(std::vector<ObjectPtr> list, std::string_view rv) override {
    std::string s = "replace@" + std::string(rv) + ":";
    for (const auto& o : list) s += " " + o->Key();
    return Record(s);
  }
  std::vector<std::string> Calls() const {
    MutexLock lock(mu_);
    return calls_;
  }
  // Blocks (real time) until `n` calls were recorded.
  bool WaitFor(std::size_t n) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    MutexLock lock(mu_);
    while (calls_.size() < n) {
      if (cv_.WaitUntil(mu_, deadline) && calls_.size() < n) return false;
    }
    return true;
  }

 private:
  Result<void> Record(std::string s) {
    MutexLock lock(mu_);
    calls_.push_back(std::move(s));
    cv_.SignalAll();
    return Ok();
  }
  mutable Mutex mu_;
  CondVar cv_;
  std::vector<std::string> calls_ KUBE_GUARDED_BY(mu_);
};

ReflectorOptions Opts(FakeClock& clock, bool watch_list = false) {
  ReflectorOptions o;
  o.name = "test";
  o.use_watch_list = watch_list;
  o.clock = &clock;
  o.rand = [] { return 0.5; };
  o.backoff.rand = [] { return 0.0; };  // no jitter: exact backoff durations
  return o;
}

struct Fixture {
  FakeClock clock;
  FakeListerWatcher lw;
  RecordingStore store;
  std::unique_ptr<Reflector> reflector;
  std::jthread thread;

  void Start(ReflectorOptions opts) {
    reflector = std::make_unique<Reflector>(lw, store, std::move(opts));
    thread = std::jthread([this](std::stop_token st) { reflector->Run(st); });
  }
  ~Fixture() {
    thread.request_stop();
    for (auto& s : lw.Streams()) s->Stop();  // harmless if already stopped
  }
};

TEST(Reflector, PaginatedListReplacesThenWatchesFromTheListResourceVersion) {
  Fixture f;
  f.lw.AddListResult(MakeObjectList({Obj("n", "a", "3")}, "10", "page2"));
  f.lw.AddListResult(MakeObjectList({Obj("n", "b", "7")}, "10"));
  f.Start(Opts(f.clock));
  auto stream = f.lw.WaitForWatch(1);
  ASSERT_TRUE(stream);
  EXPECT_EQ(f.store.Calls(), (std::vector<std::string>{"replace@10: n/a n/b"}));
  const auto lists = f.lw.ListCalls();
  ASSERT_EQ(lists.size(), 2u);
  EXPECT_EQ(lists[0].resource_version, "0");  // first list may be served from a cache
  EXPECT_EQ(lists[0].limit, 500);
  EXPECT_EQ(lists[1].continue_token, "page2");
  EXPECT_EQ(lists[1].resource_version, "");
  const auto watches = f.lw.WatchCalls();
  ASSERT_EQ(watches.size(), 1u);
  EXPECT_EQ(watches[0].resource_version, "10");
  EXPECT_TRUE(watches[0].allow_watch_bookmarks);
  EXPECT_TRUE(watches[0].watch);
  ASSERT_TRUE(watches[0].timeout_seconds.has_value());
  EXPECT_EQ(*watches[0].timeout_seconds, 450);  // 300 s * (1 + 0.5)
  EXPECT_EQ(f.reflector->LastSyncResourceVersion(), "10");
  EXPECT_EQ(f.reflector->ListCount(), 1);
}

TEST(Reflector, EveryObjectPassesThroughPrepareAndTheStoreGetsWhatItReturns) {
  Fixture f;
  f.store.prepare = true;
  f.lw.AddListResult(MakeObjectList({Obj("n", "a", "3"), Obj("n", "b", "4")}, "10"));
  f.Start(Opts(f.clock));
  auto s = f.lw.WaitForWatch(1);
  ASSERT_TRUE(s);
  s->Push(WatchEventType::kAdded, R"({"metadata":{"name":"c","namespace":"n","resourceVersion":"11"}})");
  s->Push(WatchEventType::kDeleted, R"({"metadata":{"name":"a","namespace":"n","resourceVersion":"12"}})");
  ASSERT_TRUE(f.store.WaitFor(7));
  EXPECT_EQ(f.store.Calls(),
            (std::vector<std::string>{"prepare list item n/a", "prepare list item n/b", "replace@10: n/a-p n/b-p",
                                      "prepare n/c", "add n/c-p@11", "prepare n/a", "delete n/a-p"}));
}

TEST(Reflector, StreamingListItemsPassThroughPrepare) {
  Fixture f;
  f.store.prepare = true;
  f.Start(Opts(f.clock, /*watch_list=*/true));
  auto s = f.lw.WaitForWatch(1);
  ASSERT_TRUE(s);
  s->Push(WatchEventType::kAdded, R"({"metadata":{"name":"a","namespace":"n","resourceVersion":"3"}})");
  s->Push(WatchEventType::kBookmark,
          R"({"metadata":{"resourceVersion":"8","annotations":{"k8s.io/initial-events-end":"true"}}})");
  ASSERT_TRUE(f.store.WaitFor(2));
  EXPECT_EQ(f.store.Calls(), (std::vector<std::string>{"prepare list item n/a", "replace@8: n/a-p"}));
}

TEST(Reflector, WatchTimeoutIsBetweenFiveAndTenMinutes) {
  for (double r : {0.0, 0.999}) {
    Fixture f;
    f.lw.AddListResult(MakeObjectList({}, "1"));
    auto o = Opts(f.clock);
    o.rand = [r] { return r; };
    f.Start(o);
    ASSERT_TRUE(f.lw.WaitForWatch(1));
    const auto t = *f.lw.WatchCalls()[0].timeout_seconds;
    EXPECT_GE(t, 300);
    EXPECT_LT(t, 600);
  }
}

TEST(Reflector, WatchEventsUpdateTheStoreAndBookmarksOnlyAdvanceTheResourceVersion) {
  Fixture f;
  f.lw.AddListResult(MakeObjectList({}, "5"));
  f.Start(Opts(f.clock));
  auto s = f.lw.WaitForWatch(1);
  ASSERT_TRUE(s);
  s->Push(WatchEventType::kAdded, R"({"metadata":{"name":"a","namespace":"n","resourceVersion":"6"}})");
  s->Push(WatchEventType::kModified, R"({"metadata":{"name":"a","namespace":"n","resourceVersion":"7"}})");
  s->Push(WatchEventType::kBookmark, R"({"metadata":{"resourceVersion":"9"}})");
  s->Push(WatchEventType::kDeleted, R"({"metadata":{"name":"a","namespace":"n","resourceVersion":"10"}})");
  s->Push(WatchEventType::kBookmark, R"({"metadata":{"resourceVersion":"12"}})");
  ASSERT_TRUE(f.store.WaitFor(4));
  // The bookmark after the delete advances the RV without a store call: re-watch proves it.
  s->End();
  auto s2 = f.lw.WaitForWatch(2);
  ASSERT_TRUE(s2);
  EXPECT_EQ(f.store.Calls(), (std::vector<std::string>{"replace@5:", "add n/a@6", "update n/a@7", "delete n/a"}));
  EXPECT_EQ(f.lw.WatchCalls()[1].resource_version, "12");
  EXPECT_EQ(f.lw.ListCalls().size(), 1u);  // a normal close re-watches; it does not relist
  EXPECT_EQ(f.clock.Waiters(), 0u);        // ...and it does not back off
}

TEST(Reflector, BookmarkOnlyTrafficAdvancesTheResourceVersion) {
  Fixture f;
  f.lw.AddListResult(MakeObjectList({}, "5"));
  f.Start(Opts(f.clock));
  auto s = f.lw.WaitForWatch(1);
  ASSERT_TRUE(s);
  for (int rv = 6; rv <= 20; rv += 7) {
    s->Push(WatchEventType::kBookmark, fmt::format(R"({{"metadata":{{"resourceVersion":"{}"}}}})", rv));
  }
  s->End();
  ASSERT_TRUE(f.lw.WaitForWatch(2));
  EXPECT_EQ(f.lw.WatchCalls()[1].resource_version, "20");
  EXPECT_EQ(f.store.Calls().size(), 1u);
}

TEST(Reflector, ExpiredWatchBacksOffThenRelistsAndAnExpiredListRetriesFromStorage) {
  Fixture f;
  f.lw.AddListResult(MakeObjectList({Obj("n", "a", "3")}, "10"));
  f.Start(Opts(f.clock));
  auto s = f.lw.WaitForWatch(1);
  ASSERT_TRUE(s);
  WatchEvent gone;
  gone.type = WatchEventType::kError;
  gone.error = MakeError(410, reason::kExpired, "too old resource version: 10 (20)");
  s->Push(gone);
  // Backoff of exactly 800 ms (no jitter) before the relist.
  ASSERT_TRUE(f.clock.BlockUntilWaiters(1));
  EXPECT_EQ(f.clock.NextDeadline(), f.clock.Now() + 800ms);
  EXPECT_EQ(f.reflector->State(), ReflectorState::kBackoff);
  f.lw.AddListResult(MakeError(410, reason::kExpired, "The resourceVersion for the provided list is too old."));
  f.lw.AddListResult(MakeObjectList({Obj("n", "b", "30")}, "30"));
  f.clock.Advance(800ms);
  ASSERT_TRUE(f.lw.WaitForWatch(2));
  const auto lists = f.lw.ListCalls();
  ASSERT_EQ(lists.size(), 3u);
  EXPECT_EQ(lists[1].resource_version, "10");  // first relist: not older than the last RV
  EXPECT_EQ(lists[2].resource_version, "");    // after Expired: a consistent read from storage
  EXPECT_EQ(f.store.Calls().back(), "replace@30: n/b");
  EXPECT_EQ(f.lw.WatchCalls()[1].resource_version, "30");
}

TEST(Reflector, TooLargeResourceVersionOnListRelistsFromStorage) {
  Fixture f;
  Error too_large = MakeError(504, reason::kTimeout, "Timeout: Too large resource version: 99, current: 10");
  too_large.details = StatusDetails{};
  too_large.details->causes.push_back({std::string(cause::kResourceVersionTooLarge), "Too large resource version", ""});
  f.lw.AddListResult(too_large);
  f.lw.AddListResult(MakeObjectList({}, "10"));
  f.Start(Opts(f.clock));
  ASSERT_TRUE(f.lw.WaitForWatch(1));
  const auto lists = f.lw.ListCalls();
  ASSERT_EQ(lists.size(), 2u);
  EXPECT_EQ(lists[1].resource_version, "");
}

TEST(Reflector, ConnectionRefusedOnWatchBacksOffAndRewatchesWithoutRelisting) {
  Fixture f;
  f.lw.AddListResult(MakeObjectList({}, "5"));
  f.lw.AddWatchError(TransportError("connection refused"));
  f.lw.AddWatchError(TransportError("connection refused"));
  std::vector<Error> seen;
  Mutex seen_mu;
  auto o = Opts(f.clock);
  o.watch_error_handler = [&](const Error& e) {
    MutexLock lock(seen_mu);
    seen.push_back(e);
  };
  f.Start(o);
  ASSERT_TRUE(f.clock.BlockUntilWaiters(1));
  EXPECT_EQ(f.clock.NextDeadline(), f.clock.Now() + 800ms);
  f.clock.Advance(800ms);
  ASSERT_TRUE(f.clock.BlockUntilWaiters(1));
  EXPECT_EQ(f.clock.NextDeadline(), f.clock.Now() + 1600ms);  // exponential
  f.clock.Advance(1600ms);
  ASSERT_TRUE(f.lw.WaitForWatch(1));
  EXPECT_EQ(f.lw.ListCalls().size(), 1u);
  EXPECT_EQ(f.lw.WatchCalls().size(), 3u);
  EXPECT_EQ(f.lw.WatchCalls()[2].resource_version, "5");
  MutexLock lock(seen_mu);
  EXPECT_EQ(seen.size(), 2u);
}

TEST(Reflector, BackoffResetsAfterTwoMinutesOfHealth) {
  Fixture f;
  f.lw.AddListResult(MakeObjectList({}, "5"));
  f.lw.AddWatchError(TransportError("connection refused"));
  f.Start(Opts(f.clock));
  ASSERT_TRUE(f.clock.BlockUntilWaiters(1));
  f.clock.Advance(800ms);
  auto s = f.lw.WaitForWatch(1);
  ASSERT_TRUE(s);
  f.clock.Advance(3min);  // healthy for longer than the reset period
  f.lw.AddWatchError(TransportError("connection refused"));
  s->Push(WatchEventType::kBookmark, R"({"metadata":{"resourceVersion":"6"}})");
  s->End();
  ASSERT_TRUE(f.clock.BlockUntilWaiters(1));
  EXPECT_EQ(f.clock.NextDeadline(), f.clock.Now() + 800ms);  // back to the initial backoff
}

TEST(Reflector, VeryShortEmptyWatchBacksOffAndRelists) {
  Fixture f;
  f.lw.AddListResult(MakeObjectList({}, "5"));
  f.Start(Opts(f.clock));
  auto s = f.lw.WaitForWatch(1);
  ASSERT_TRUE(s);
  s->End();  // closed at once with no events
  ASSERT_TRUE(f.clock.BlockUntilWaiters(1));
  f.clock.Advance(800ms);
  ASSERT_TRUE(f.lw.WaitForWatch(2));
  EXPECT_EQ(f.lw.ListCalls().size(), 2u);
}

TEST(Reflector, StreamingListReplacesAtTheInitialEventsEndBookmarkAndKeepsWatching) {
  Fixture f;
  f.Start(Opts(f.clock, /*watch_list=*/true));
  auto s = f.lw.WaitForWatch(1);
  ASSERT_TRUE(s);
  const auto w = f.lw.WatchCalls()[0];
  EXPECT_EQ(w.send_initial_events, true);
  EXPECT_EQ(w.resource_version_match, "NotOlderThan");
  EXPECT_EQ(w.resource_version, "");
  s->Push(WatchEventType::kAdded, R"({"metadata":{"name":"a","namespace":"n","resourceVersion":"3"}})");
  s->Push(WatchEventType::kAdded, R"({"metadata":{"name":"b","namespace":"n","resourceVersion":"4"}})");
  s->Push(WatchEventType::kBookmark,
          R"({"metadata":{"resourceVersion":"8","annotations":{"k8s.io/initial-events-end":"true"}}})");
  s->Push(WatchEventType::kModified, R"({"metadata":{"name":"a","namespace":"n","resourceVersion":"9"}})");
  ASSERT_TRUE(f.store.WaitFor(2));
  EXPECT_EQ(f.store.Calls(), (std::vector<std::string>{"replace@8: n/a n/b", "update n/a@9"}));
  EXPECT_TRUE(f.lw.ListCalls().empty());
  EXPECT_EQ(f.reflector->ListCount(), 1);
  EXPECT_EQ(f.reflector->State(), ReflectorState::kWatch);
  s->End();
  ASSERT_TRUE(f.lw.WaitForWatch(2));
  const auto w2 = f.lw.WatchCalls()[1];
  EXPECT_FALSE(w2.send_initial_events.has_value());  // the stream continues as a plain watch
  EXPECT_EQ(w2.resource_version, "9");
}

TEST(Reflector, StreamingListRejectedByTheServerFallsBackToListForGood) {
  Fixture f;
  f.lw.AddWatchError(MakeError(422, reason::kInvalid, "sendInitialEvents is forbidden"));
  f.lw.AddListResult(MakeObjectList({Obj("n", "a", "1")}, "5"));
  f.Start(Opts(f.clock, /*watch_list=*/true));
  auto s = f.lw.WaitForWatch(1);
  ASSERT_TRUE(s);
  EXPECT_EQ(f.lw.ListCalls().size(), 1u);
  EXPECT_EQ(f.store.Calls(), (std::vector<std::string>{"replace@5: n/a"}));
  // A later relist uses LIST again.
  WatchEvent gone;
  gone.type = WatchEventType::kError;
  gone.error = MakeError(410, reason::kExpired, "expired");
  s->Push(gone);
  ASSERT_TRUE(f.clock.BlockUntilWaiters(1));
  f.clock.Advance(800ms);
  ASSERT_TRUE(f.lw.WaitForLists(2));
  const auto watches = f.lw.WatchCalls();
  EXPECT_TRUE(watches[0].send_initial_events.value_or(false));
  for (std::size_t i = 1; i < watches.size(); ++i) EXPECT_FALSE(watches[i].send_initial_events.has_value());
}

TEST(Reflector, ContinueTokenExpiryFallsBackToAFullList) {
  Fixture f;
  f.lw.AddListResult(MakeObjectList({Obj("n", "a", "1")}, "10", "more"));
  f.lw.AddListResult(MakeError(410, reason::kExpired, "The provided continue parameter is too old"));
  f.lw.AddListResult(MakeObjectList({Obj("n", "a", "1"), Obj("n", "b", "2")}, "12"));
  f.Start(Opts(f.clock));
  ASSERT_TRUE(f.lw.WaitForWatch(1));
  const auto lists = f.lw.ListCalls();
  ASSERT_EQ(lists.size(), 3u);
  EXPECT_EQ(lists[2].limit, 0);
  EXPECT_EQ(lists[2].continue_token, "");
  EXPECT_EQ(f.store.Calls(), (std::vector<std::string>{"replace@12: n/a n/b"}));
}

TEST(Reflector, StopsPromptlyWhileWatching) {
  Fixture f;
  f.lw.AddListResult(MakeObjectList({}, "5"));
  f.Start(Opts(f.clock));
  auto s = f.lw.WaitForWatch(1);
  ASSERT_TRUE(s);
  f.thread.request_stop();
  f.thread.join();
  EXPECT_TRUE(s->Stopped());
  EXPECT_EQ(f.reflector->State(), ReflectorState::kStopped);
}

TEST(Reflector, StopsPromptlyWhileBackingOff) {
  Fixture f;
  f.lw.AddListResult(InternalError("boom"));
  f.Start(Opts(f.clock));
  ASSERT_TRUE(f.clock.BlockUntilWaiters(1));
  f.thread.request_stop();
  f.thread.join();
  EXPECT_EQ(f.reflector->State(), ReflectorState::kStopped);
}

TEST(ReflectorStateMachine, TransitionTable) {
  using S = ReflectorState;
  using E = ReflectorEvent;
  struct Row {
    S from;
    E ev;
    bool watch_list;
    S to;
    S after;
    bool from_storage;
  };
  const Row rows[] = {
      {S::kList, E::kListSucceeded, false, S::kWatch, S::kList, false},
      {S::kList, E::kListFailed, false, S::kBackoff, S::kList, false},
      {S::kList, E::kListFailed, true, S::kBackoff, S::kWatchList, false},
      {S::kList, E::kListExpired, false, S::kList, S::kList, true},
      {S::kWatchList, E::kWatchListSucceeded, true, S::kWatch, S::kList, false},
      {S::kWatchList, E::kWatchListUnsupported, false, S::kList, S::kList, false},
      {S::kWatchList, E::kWatchListFailed, true, S::kList, S::kList, false},
      {S::kWatchList, E::kWatchRetriable, true, S::kBackoff, S::kWatchList, false},
      {S::kWatch, E::kWatchEnded, false, S::kWatch, S::kList, false},
      {S::kWatch, E::kWatchRetriable, false, S::kBackoff, S::kWatch, false},
      {S::kWatch, E::kWatchExpired, false, S::kBackoff, S::kList, false},
      {S::kWatch, E::kWatchFailed, true, S::kBackoff, S::kWatchList, false},
      {S::kBackoff, E::kBackoffElapsed, false, S::kWatch, S::kList, false},
  };
  for (const auto& r : rows) {
    const S after_in = r.from == S::kBackoff ? S::kWatch : S::kList;
    auto t = NextReflectorState(r.from, r.ev, after_in, r.watch_list);
    EXPECT_EQ(t.next, r.to) << ReflectorStateName(r.from) << " ev " << static_cast<int>(r.ev);
    if (t.next == S::kBackoff) {
      EXPECT_EQ(t.after_backoff, r.after) << ReflectorStateName(r.from);
    }
    EXPECT_EQ(t.relist_from_storage, r.from_storage);
  }
  for (S s : {S::kList, S::kWatchList, S::kWatch, S::kBackoff, S::kStopped}) {
    EXPECT_EQ(NextReflectorState(s, E::kStopRequested, S::kList, false).next, S::kStopped);
  }
}

}  // namespace
}  // namespace kube::cache
