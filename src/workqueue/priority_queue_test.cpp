#include <kube/workqueue/priority_queue.hpp>

#include <chrono>
#include <climits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <kube/base/clock.hpp>
#include <kube/workqueue/fake_metrics.hpp>

namespace kube::workqueue {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::seconds;

std::unique_ptr<RateLimiter<std::string>> Steps(std::vector<Clock::Duration> steps) {
  auto r = StepRateLimiter<std::string>::Create(std::move(steps));
  EXPECT_TRUE(r.ok());
  return std::move(r).value();
}

TEST(PriorityQueue, HigherPriorityIsHandedOutFirst) {
  FakeClock clock;
  PriorityQueue<std::string> q({}, clock);
  q.Add("low", {.priority = 0});
  q.Add("high", {.priority = 10});
  q.Add("mid", {.priority = 5});
  EXPECT_EQ(q.Get(), "high");
  EXPECT_EQ(q.Get(), "mid");
  EXPECT_EQ(q.Get(), "low");
}

TEST(PriorityQueue, EqualPrioritiesAreFirstInFirstOut) {
  FakeClock clock;
  PriorityQueue<std::string> q({}, clock);
  for (const char* k : {"a", "b", "c", "b"}) q.Add(k);
  EXPECT_EQ(q.Len(), 3u);
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), "b");
  EXPECT_EQ(q.Get(), "c");
}

TEST(PriorityQueue, AgingLetsALongWaitingLowPriorityItemOvertake) {
  FakeClock clock;
  PriorityQueue<std::string> q({.aging_step = seconds(1)}, clock);
  q.Add("old-low", {.priority = 0});
  clock.Advance(seconds(10));
  q.Add("new-p5", {.priority = 5});    // 10 s of waiting outweigh 5 levels
  q.Add("new-p20", {.priority = 20});  // 20 levels outweigh 10 s
  EXPECT_EQ(q.Get(), "new-p20");
  EXPECT_EQ(q.Get(), "old-low");
  EXPECT_EQ(q.Get(), "new-p5");
}

TEST(PriorityQueue, ZeroAgingStepIsStrictPriority) {
  FakeClock clock;
  PriorityQueue<std::string> q({.aging_step = Clock::Duration::zero()}, clock);
  q.Add("old-low", {.priority = 0});
  clock.Advance(hours(1000));
  q.Add("new-high", {.priority = 1});
  q.Add("newer-low", {.priority = 0});
  EXPECT_EQ(q.Get(), "new-high");
  EXPECT_EQ(q.Get(), "old-low");
  EXPECT_EQ(q.Get(), "newer-low");
}

TEST(PriorityQueue, ReAddKeepsTheHighestPriority) {
  FakeClock clock;
  PriorityQueue<std::string> q({}, clock);
  q.Add("a", {.priority = 10});
  q.Add("a", {.priority = 1});  // does not lower it
  q.Add("b", {.priority = 5});
  q.Add("c", {.priority = 0});
  q.Add("c", {.priority = 9});  // raises it
  EXPECT_EQ(q.Len(), 3u);
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), "c");
  EXPECT_EQ(q.Get(), "b");
  EXPECT_EQ(q.Len(), 0u);
}

TEST(PriorityQueue, ReAddKeepsTheEarliestReadyTime) {
  FakeClock clock;
  PriorityQueue<std::string> q({}, clock);
  q.Add("a", {.after = seconds(10)});
  q.Add("a", {.after = seconds(1)});   // earlier: moves it forward
  q.Add("b", {.after = seconds(1)});
  q.Add("b", {.after = seconds(10)});  // later: ignored
  EXPECT_EQ(q.Len(), 0u);
  clock.Advance(seconds(1));
  EXPECT_EQ(q.Len(), 2u);
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), "b");
  q.Done("a");
  q.Done("b");
  clock.Advance(seconds(20));
  EXPECT_EQ(q.Len(), 0u) << "superseded ready times must not deliver again";
}

TEST(PriorityQueue, ReadyItemAddedWithADelayStaysReady) {
  FakeClock clock;
  PriorityQueue<std::string> q({}, clock);
  q.Add("a");
  q.Add("a", {.after = seconds(5)});
  EXPECT_EQ(q.Len(), 1u);
}

TEST(PriorityQueue, DelayedItemBecomesReadyOnTheInjectedClock) {
  FakeClock clock;
  PriorityQueue<std::string> q({}, clock);
  q.AddAfter("a", seconds(1));
  EXPECT_EQ(q.Len(), 0u);
  clock.Advance(milliseconds(999));
  EXPECT_EQ(q.Len(), 0u);
  clock.Advance(milliseconds(1));
  EXPECT_EQ(q.Len(), 1u);
}

TEST(PriorityQueue, WorkerBlockedInGetIsWokenWhenADelayedItemIsDue) {
  FakeClock clock;
  PriorityQueue<std::string> q({}, clock);
  std::jthread worker([&] { EXPECT_EQ(q.Get(), "a"); });
  q.AddAfter("a", seconds(1));
  clock.Advance(seconds(1));
  worker.join();
}

TEST(PriorityQueue, AddsWhileProcessingMergeAndApplyAtDone) {
  FakeClock clock;
  PriorityQueue<std::string> q({}, clock);
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  q.Add("a", {.priority = 3, .after = seconds(2)});
  q.Add("a", {.priority = 7, .after = seconds(5)});  // merged: priority 7, ready in 2 s
  EXPECT_EQ(q.Len(), 0u) << "never two workers on one item";
  q.Add("b", {.priority = 1});
  q.Done("a");
  EXPECT_EQ(q.Len(), 1u);  // b only: a waits for its ready time
  clock.Advance(seconds(2));
  EXPECT_EQ(q.Len(), 2u);
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), "b");
}

TEST(PriorityQueue, AddRateLimitedWaitsForTheLimiter) {
  FakeClock clock;
  PriorityQueue<std::string> q(Steps({seconds(1), seconds(2)}), {}, clock);
  q.AddRateLimited("a");
  EXPECT_EQ(q.NumRequeues("a"), 1);
  EXPECT_EQ(q.Len(), 0u);
  clock.Advance(seconds(1));
  EXPECT_EQ(q.Len(), 1u);
  q.Forget("a");
  EXPECT_EQ(q.NumRequeues("a"), 0);
}

TEST(PriorityQueue, RateLimitedAddTakesTheLongerOfLimiterAndDelay) {
  FakeClock clock;
  PriorityQueue<std::string> q(Steps({seconds(1)}), {}, clock);
  q.Add("a", {.after = seconds(3), .rate_limited = true});
  clock.Advance(seconds(2));
  EXPECT_EQ(q.Len(), 0u);
  clock.Advance(seconds(1));
  EXPECT_EQ(q.Len(), 1u);
}

TEST(PriorityQueue, ExtremePrioritiesAndDelaysDoNotOverflow) {
  FakeClock clock;
  PriorityQueue<std::string> q({.aging_step = hours(1)}, clock);
  q.Add("min", {.priority = INT_MIN});
  q.Add("max", {.priority = INT_MAX});
  q.Add("zero");
  q.AddAfter("never", hours::max());
  q.Add("never-either", {.priority = INT_MAX, .after = Clock::Duration::max()});
  EXPECT_EQ(q.Get(), "max");
  EXPECT_EQ(q.Get(), "zero");
  EXPECT_EQ(q.Get(), "min");
  clock.Advance(hours(24 * 365 * 100));
  EXPECT_EQ(q.Len(), 0u);
}

TEST(PriorityQueue, ShutDownDropsWaitingItemsButHandsOutReadyOnes) {
  FakeClock clock;
  PriorityQueue<std::string> q({}, clock);
  q.Add("ready");
  q.AddAfter("waiting", seconds(1));
  q.ShutDown();
  q.Add("late");
  clock.Advance(seconds(2));
  EXPECT_EQ(q.Get(), "ready");
  EXPECT_EQ(q.Get(), std::nullopt);
  EXPECT_TRUE(q.ShuttingDown());
}

TEST(PriorityQueue, ShutDownWakesWorkersBlockedInGet) {
  FakeClock clock;
  PriorityQueue<std::string> q({}, clock);
  q.AddAfter("later", hours(1));
  std::vector<std::jthread> workers;
  for (int i = 0; i < 3; ++i) workers.emplace_back([&] { EXPECT_EQ(q.Get(), std::nullopt); });
  q.ShutDown();
}

TEST(PriorityQueue, ShutDownWithDrainWaitsForInFlightItems) {
  FakeClock clock;
  PriorityQueue<std::string> q({}, clock);
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  std::jthread stopper([&] { q.ShutDownWithDrain(); });
  q.Done("a");
  stopper.join();
}

TEST(PriorityQueue, MetricsCountADelayedItemWhenItBecomesReady) {
  FakeClock clock;
  FakeMetricsProvider provider;
  PriorityQueue<std::string> q({.name = "pq", .metrics_provider = &provider,
                                .unfinished_work_update_period = Clock::Duration::zero()},
                               clock);
  q.AddAfter("a", seconds(1));
  q.Add("b");
  q.Add("b");
  EXPECT_EQ(provider.Value(kAddsMetric, "pq"), 1);
  EXPECT_EQ(provider.Value(kDepthMetric, "pq"), 1);
  EXPECT_EQ(provider.Value(kRetriesMetric, "pq"), 1);
  clock.Advance(seconds(1));
  EXPECT_EQ(q.Len(), 2u);
  EXPECT_EQ(provider.Value(kAddsMetric, "pq"), 2);
  EXPECT_EQ(provider.Value(kDepthMetric, "pq"), 2);
  ASSERT_EQ(q.Get(), "b");  // b became ready first
  EXPECT_EQ(provider.Value(kDepthMetric, "pq"), 1);
  clock.Advance(seconds(3));
  q.UpdateUnfinishedWork();
  EXPECT_EQ(provider.Value(kLongestRunningProcessorMetric, "pq"), 3);
  q.Done("b");
  EXPECT_EQ(provider.Observations(kWorkDurationMetric, "pq"), std::vector<double>{3.0});
}

}  // namespace
}  // namespace kube::workqueue
