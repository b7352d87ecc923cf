// WatchPump: the watch delivery thread (watch_pump.hpp), over real memory-storage watchers.

#include "apiserver/rest/watch_pump.hpp"

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <kube/apiserver/storage.hpp>
#include <kube/base/clock.hpp>

namespace kube::apiserver::rest {
namespace {

using namespace std::chrono_literals;
using Step = WatchPump::Step;
using Outcome = WatchPump::Outcome;

ValueFn Val(std::string s) {
  return [s](Revision) -> Result<std::string> { return s; };
}

class WatchPumpTest : public ::testing::Test {
 protected:
  WatchPumpTest()
      : storage_(NewMemoryStorage({.compaction_interval = Clock::Duration::zero(), .clock = &clock_})) {}

  std::unique_ptr<Watcher> Watch(const std::string& prefix) {
    auto w = storage_->Watch(prefix, 0);
    EXPECT_TRUE(w.ok());
    return w.ok() ? std::move(w).value() : nullptr;
  }
  void Create(const std::string& key) { ASSERT_TRUE(storage_->Create(key, Val("v")).ok()); }
  Clock::TimePoint Far() { return clock_.Now() + 24h; }

  FakeClock clock_;
  std::unique_ptr<Storage> storage_;
};

// A step that takes the watcher's events (on the pump thread) and records their revisions;
// it asks to go back once `until_count` events were seen.
struct Collector {
  Watcher* watcher = nullptr;
  std::size_t until_count = 0;
  std::vector<Revision> seen{};  // touched only by the step, read after Park returned
  std::atomic<std::thread::id> step_thread{};
  std::atomic<int> steps{0};  // steps finished
  Collector(Watcher* w, std::size_t n) : watcher(w), until_count(n) {}
  std::function<Step()> Fn() {
    return [this] {
      step_thread = std::this_thread::get_id();
      for (const StorageEvent& e : watcher->Next(Clock::TimePoint::min(), {})) seen.push_back(e.revision);
      const bool back = watcher->Done() || seen.size() >= until_count;
      ++steps;
      return back ? Step::kReturn : Step::kContinue;
    };
  }
};

TEST_F(WatchPumpTest, StepsRunOnThePumpThreadAsEventsArriveUntilOneReturns) {
  WatchPump pump(1ms);
  auto w = Watch("/p/");
  Collector c(w.get(), 3);
  const auto step = c.Fn();
  auto parked = std::async(std::launch::async, [&] {
    return pump.Park(*w, clock_, Far(), {}, step);
  });
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));  // parked (its wait has a deadline)
  Create("/p/a");
  Create("/p/b");
  Create("/other");  // not under the prefix: no step for it
  Create("/p/c");
  EXPECT_EQ(parked.get(), Outcome::kReturned);
  EXPECT_EQ(c.seen, (std::vector<Revision>{1, 2, 4}));
  EXPECT_NE(c.step_thread.load(), std::this_thread::get_id());
  EXPECT_GE(pump.Rounds(), 1u);
}

TEST_F(WatchPumpTest, ParkReturnsWhenTheDeadlinePassesOnTheInjectedClock) {
  WatchPump pump(1ms);
  auto w = Watch("/p/");
  Collector c(w.get(), 100);
  const auto step = c.Fn();
  const Clock::TimePoint until = clock_.Now() + 30s;
  auto parked = std::async(std::launch::async, [&] { return pump.Park(*w, clock_, until, {}, step); });
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  clock_.Advance(30s);
  EXPECT_EQ(parked.get(), Outcome::kDue);
  EXPECT_TRUE(c.seen.empty());
}

TEST_F(WatchPumpTest, ParkReturnsOnStopAndLeavesUndeliveredEventsInTheWatcher) {
  // A period far longer than the test: after the first round, later events wait for the next.
  WatchPump pump(std::chrono::hours(1));
  auto w = Watch("/p/");
  Collector c(w.get(), 100);
  const auto step = c.Fn();
  std::stop_source stop;
  auto parked = std::async(std::launch::async, [&] {
    return pump.Park(*w, clock_, Far(), stop.get_token(), step);
  });
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  Create("/p/a");  // first round: at once
  while (c.steps.load() < 1) std::this_thread::yield();
  Create("/p/b");  // paced: waits for a round an hour away
  Create("/p/c");
  stop.request_stop();
  EXPECT_EQ(parked.get(), Outcome::kStopped);
  EXPECT_EQ(pump.Rounds(), 1u);
  EXPECT_EQ(c.steps.load(), 1);
  EXPECT_EQ(c.seen, (std::vector<Revision>{1}));
  const auto rest = w->Next(Clock::TimePoint::min(), {});
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0].revision, 2);
}

TEST_F(WatchPumpTest, AStopAlreadyRequestedReturnsAtOnce) {
  WatchPump pump(1ms);
  auto w = Watch("/p/");
  Collector c(w.get(), 0);
  std::stop_source stop;
  stop.request_stop();
  EXPECT_EQ(pump.Park(*w, clock_, Far(), stop.get_token(), c.Fn()), Outcome::kStopped);
}

TEST_F(WatchPumpTest, TheEndOfTheWatchGoesBackToItsThread) {
  WatchPump pump(1ms);
  auto w = Watch("/p/");
  Collector c(w.get(), 100);
  const auto step = c.Fn();
  auto parked = std::async(std::launch::async, [&] { return pump.Park(*w, clock_, Far(), {}, step); });
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  Create("/p/a");
  storage_.reset();  // the storage goes away: the watch ends after its buffered events
  EXPECT_EQ(parked.get(), Outcome::kReturned);
  EXPECT_TRUE(w->Done());
}

class PollOnlyWatcher final : public Watcher {
 public:
  std::vector<StorageEvent> Next(Clock::TimePoint, std::stop_token) override { return {}; }
  bool Done() const override { return false; }
  bool Overflowed() const override { return false; }
  void Close() override {}
};

TEST_F(WatchPumpTest, AWatcherWithoutReadyCallbacksIsUnsupported) {
  WatchPump pump(1ms);
  PollOnlyWatcher w;
  const std::function<Step()> step = [] { return Step::kContinue; };
  EXPECT_EQ(pump.Park(w, clock_, Far(), {}, step), Outcome::kUnsupported);
}

// Many watches parked at once while a writer creates objects: every watch gets every event of
// its prefix exactly once, in order, whether the pump or its own thread collected it.
TEST_F(WatchPumpTest, ManyParkedWatchesEachGetEveryEventOnceInOrder) {
  constexpr int kWatches = 16;
  constexpr int kEvents = 200;
  WatchPump pump(100us);
  std::vector<std::unique_ptr<Watcher>> watchers;
  for (int i = 0; i < kWatches; ++i) watchers.push_back(Watch("/m/" + std::to_string(i % 4) + "/"));
  std::vector<std::vector<Revision>> seen(kWatches);
  std::vector<std::jthread> threads;
  for (int i = 0; i < kWatches; ++i) {
    threads.emplace_back([&, i] {
      Watcher& w = *watchers[i];
      std::vector<Revision>& got = seen[i];
      // Every few events the step hands back, as a blocked write would.
      const std::function<Step()> step = [&] {
        for (const StorageEvent& e : w.Next(Clock::TimePoint::min(), {})) got.push_back(e.revision);
        const bool all = got.size() >= kEvents / 4;
        return all || got.size() % 7 == 3 ? Step::kReturn : Step::kContinue;
      };
      while (got.size() < kEvents / 4) {
        pump.Park(w, clock_, Far(), {}, step);
        for (const StorageEvent& e : w.Next(Clock::TimePoint::min(), {})) got.push_back(e.revision);
      }
    });
  }
  ASSERT_TRUE(clock_.BlockUntilWaiters(kWatches));
  for (int e = 0; e < kEvents; ++e) Create("/m/" + std::to_string(e % 4) + "/" + std::to_string(e));
  threads.clear();  // joins: every watch got its share
  for (int i = 0; i < kWatches; ++i) {
    std::vector<Revision> want;
    for (int e = 0; e < kEvents; ++e) {
      if (e % 4 == i % 4) want.push_back(e + 1);
    }
    EXPECT_EQ(seen[i], want) << "watch " << i;
  }
}

}  // namespace
}  // namespace kube::apiserver::rest
