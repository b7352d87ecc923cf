#include <kube/workqueue/rate_limiting_queue.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <kube/base/clock.hpp>
#include <kube/workqueue/fake_metrics.hpp>

namespace kube::workqueue {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

std::unique_ptr<RateLimiter<std::string>> Steps(std::vector<Clock::Duration> steps) {
  auto r = StepRateLimiter<std::string>::Create(std::move(steps));
  EXPECT_TRUE(r.ok());
  return std::move(r).value();
}

TEST(RateLimitingQueue, AddRateLimitedWaitsAsLongAsTheLimiterSays) {
  FakeClock clock;
  RateLimitingQueue<std::string> q(Steps({seconds(1), seconds(2)}), {}, clock);
  q.AddRateLimited("a");
  EXPECT_EQ(q.NumRequeues("a"), 1);
  q.AddAfter("barrier", milliseconds(999));
  clock.Advance(milliseconds(999));
  EXPECT_EQ(q.Get(), "barrier");
  EXPECT_EQ(q.Len(), 0u);
  clock.Advance(milliseconds(1));
  EXPECT_EQ(q.Get(), "a");
  q.Done("a");

  q.AddRateLimited("a");  // second failure: 2 s
  EXPECT_EQ(q.NumRequeues("a"), 2);
  q.AddAfter("barrier2", milliseconds(1999));
  clock.Advance(milliseconds(1999));
  EXPECT_EQ(q.Get(), "barrier2");
  EXPECT_EQ(q.Len(), 0u);
  clock.Advance(milliseconds(1));
  EXPECT_EQ(q.Get(), "a");
}

TEST(RateLimitingQueue, ForgetResetsTheBackoffButLeavesTheQueueAlone) {
  FakeClock clock;
  RateLimitingQueue<std::string> q(Steps({seconds(1), seconds(60)}), {}, clock);
  q.Add("a");
  q.AddRateLimited("a");
  q.AddRateLimited("a");
  EXPECT_EQ(q.NumRequeues("a"), 2);
  q.Forget("a");
  EXPECT_EQ(q.NumRequeues("a"), 0);
  EXPECT_EQ(q.Len(), 1u);
  EXPECT_EQ(q.Get(), "a");
}

TEST(RateLimitingQueue, DefaultsToTheControllerRateLimiterOnTheInjectedClock) {
  FakeClock clock;
  RateLimitingQueue<std::string> q({}, clock);
  q.AddRateLimited("a");  // 5 ms
  q.AddAfter("barrier", milliseconds(4));
  clock.Advance(milliseconds(4));
  EXPECT_EQ(q.Get(), "barrier");
  EXPECT_EQ(q.Len(), 0u);
  clock.Advance(milliseconds(1));
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.NumRequeues("a"), 1);
}

TEST(RateLimitingQueue, ZeroDelayFromTheLimiterAddsAtOnce) {
  FakeClock clock;
  RateLimitingQueue<std::string> q(Steps({Clock::Duration::zero()}), {}, clock);
  q.AddRateLimited("a");
  EXPECT_EQ(q.Len(), 1u);
}

TEST(RateLimitingQueue, RetriesMetricCountsEveryRateLimitedAdd) {
  FakeClock clock;
  FakeMetricsProvider provider;
  RateLimitingQueue<std::string> q(Steps({seconds(1)}),
                                   {.name = "rl", .metrics_provider = &provider,
                                    .unfinished_work_update_period = Clock::Duration::zero()},
                                   clock);
  q.AddRateLimited("a");
  q.AddRateLimited("b");
  q.AddRateLimited("a");
  EXPECT_EQ(provider.Value(kRetriesMetric, "rl"), 3);
}

TEST(RateLimitingQueue, ShutDownStopsDelayedItemsAndWakesWorkers) {
  FakeClock clock;
  RateLimitingQueue<std::string> q(Steps({seconds(1)}), {}, clock);
  q.AddRateLimited("a");
  std::jthread worker([&] { EXPECT_EQ(q.Get(), std::nullopt); });
  q.ShutDown();
  worker.join();
  clock.Advance(seconds(5));
  EXPECT_EQ(q.Len(), 0u);
}

}  // namespace
}  // namespace kube::workqueue
