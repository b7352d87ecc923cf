#include <kube/workqueue/rate_limiter.hpp>

#include <chrono>
#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <kube/base/clock.hpp>

namespace kube::workqueue {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;

TEST(ExponentialDelay, DoublesFromBaseAndCapsAtMax) {
  EXPECT_EQ(ExponentialDelay(milliseconds(5), seconds(1000), 0), milliseconds(5));
  EXPECT_EQ(ExponentialDelay(milliseconds(5), seconds(1000), 3), milliseconds(40));
  EXPECT_EQ(ExponentialDelay(milliseconds(5), seconds(1), 10), seconds(1));
}

TEST(ExponentialDelay, HugeExponentsReturnMaxInsteadOfOverflowing) {
  EXPECT_EQ(ExponentialDelay(nanoseconds(1), Clock::Duration::max(), 62),
            nanoseconds(int64_t{1} << 62));
  EXPECT_EQ(ExponentialDelay(nanoseconds(1), Clock::Duration::max(), 63), Clock::Duration::max());
  EXPECT_EQ(ExponentialDelay(milliseconds(1), seconds(7), 1'000'000), seconds(7));
  EXPECT_EQ(ExponentialDelay(milliseconds(1), seconds(7), INT_MAX), seconds(7));
}

TEST(ExponentialDelay, NonPositiveBaseGivesZero) {
  EXPECT_EQ(ExponentialDelay(Clock::Duration::zero(), seconds(1), 50), Clock::Duration::zero());
}

TEST(ItemExponentialFailureRateLimiter, DelayDoublesPerFailureOfTheSameItem) {
  ItemExponentialFailureRateLimiter<std::string> limiter(
      {.base_delay = milliseconds(1), .max_delay = seconds(1)});
  EXPECT_EQ(limiter.When("a"), milliseconds(1));
  EXPECT_EQ(limiter.When("a"), milliseconds(2));
  EXPECT_EQ(limiter.When("a"), milliseconds(4));
  EXPECT_EQ(limiter.When("b"), milliseconds(1)) << "items back off independently";
  EXPECT_EQ(limiter.NumRequeues("a"), 3);
  EXPECT_EQ(limiter.NumRequeues("b"), 1);
  EXPECT_EQ(limiter.NumRequeues("never"), 0);
}

TEST(ItemExponentialFailureRateLimiter, ForgetResetsTheItem) {
  ItemExponentialFailureRateLimiter<std::string> limiter(
      {.base_delay = milliseconds(1), .max_delay = seconds(1)});
  (void)limiter.When("a");
  (void)limiter.When("a");
  limiter.Forget("a");
  EXPECT_EQ(limiter.NumRequeues("a"), 0);
  EXPECT_EQ(limiter.When("a"), milliseconds(1));
}

TEST(ItemExponentialFailureRateLimiter, CapsAtMaxDelayForever) {
  ItemExponentialFailureRateLimiter<std::string> limiter(
      {.base_delay = milliseconds(1), .max_delay = milliseconds(100)});
  Clock::Duration last{};
  for (int i = 0; i < 200; ++i) last = limiter.When("a");
  EXPECT_EQ(last, milliseconds(100));
  EXPECT_EQ(limiter.NumRequeues("a"), 200);
}

TEST(ItemExponentialFailureRateLimiter, KeepsEachOfManyItemsCountSeparately) {
  // Many items spread over the failure counter's shards; Forget of some must leave the others,
  // and Forget / NumRequeues of unknown items (including when nothing has failed) is 0.
  ItemExponentialFailureRateLimiter<std::string> limiter({.base_delay = nanoseconds(1),
                                                          .max_delay = seconds(1)});
  EXPECT_EQ(limiter.NumRequeues("never"), 0);
  limiter.Forget("never");
  constexpr int kItems = 1000;
  auto key = [](int i) { return "namespace-" + std::to_string(i % 7) + "/item-" + std::to_string(i); };
  for (int i = 0; i < kItems; ++i) {
    for (int f = 0; f < i % 5; ++f) limiter.When(key(i));
  }
  for (int i = 0; i < kItems; ++i) ASSERT_EQ(limiter.NumRequeues(key(i)), i % 5) << key(i);
  for (int i = 0; i < kItems; i += 2) limiter.Forget(key(i));
  for (int i = 0; i < kItems; ++i) {
    ASSERT_EQ(limiter.NumRequeues(key(i)), i % 2 == 0 ? 0 : i % 5) << key(i);
  }
  EXPECT_EQ(limiter.When(key(1)), nanoseconds(2)) << "item 1 failed once before: 1 ns * 2^1";
  for (int i = 1; i < kItems; i += 2) limiter.Forget(key(i));
  for (int i = 0; i < kItems; ++i) ASSERT_EQ(limiter.NumRequeues(key(i)), 0) << key(i);
  EXPECT_EQ(limiter.When(key(3)), nanoseconds(1)) << "forgotten: starts again from the base";
  // Forgotten items' slots are reused by other items (longer keys too): each keeps its own
  // count, and no forgotten key is found in a reused slot.
  limiter.Forget(key(3));
  auto other = [](int i) { return "another-namespace-with-a-longer-name/other-" + std::to_string(i); };
  for (int i = 0; i < kItems; ++i) {
    for (int f = 0; f <= i % 3; ++f) limiter.When(other(i));
  }
  for (int i = 0; i < kItems; ++i) {
    ASSERT_EQ(limiter.NumRequeues(other(i)), i % 3 + 1) << other(i);
    ASSERT_EQ(limiter.NumRequeues(key(i)), 0) << key(i);
  }
}

TEST(ItemFastSlowRateLimiter, FastForTheFirstAttemptsThenSlow) {
  ItemFastSlowRateLimiter<std::string> limiter(
      {.fast_delay = milliseconds(5), .slow_delay = seconds(10), .max_fast_attempts = 3});
  EXPECT_EQ(limiter.When("a"), milliseconds(5));
  EXPECT_EQ(limiter.When("a"), milliseconds(5));
  EXPECT_EQ(limiter.When("a"), milliseconds(5));
  EXPECT_EQ(limiter.When("a"), seconds(10));
  EXPECT_EQ(limiter.When("a"), seconds(10));
  EXPECT_EQ(limiter.When("b"), milliseconds(5));
  EXPECT_EQ(limiter.NumRequeues("a"), 5);
  limiter.Forget("a");
  EXPECT_EQ(limiter.NumRequeues("a"), 0);
  EXPECT_EQ(limiter.When("a"), milliseconds(5));
}

TEST(BucketRateLimiter, BurstPassesThenTokensArriveAtQps) {
  FakeClock clock;
  BucketRateLimiter<std::string> limiter({.qps = 2, .burst = 3}, clock);
  EXPECT_EQ(limiter.When("a"), Clock::Duration::zero());
  EXPECT_EQ(limiter.When("b"), Clock::Duration::zero());
  EXPECT_EQ(limiter.When("c"), Clock::Duration::zero());
  EXPECT_EQ(limiter.When("d"), milliseconds(500));
  EXPECT_EQ(limiter.When("e"), milliseconds(1000));
  clock.Advance(seconds(1));  // two tokens arrive and pay the debt of d and e
  EXPECT_EQ(limiter.When("f"), milliseconds(500));
  clock.Advance(seconds(100));  // refills to the burst, not beyond
  for (int i = 0; i < 3; ++i) EXPECT_EQ(limiter.When("g"), Clock::Duration::zero());
  EXPECT_EQ(limiter.When("h"), milliseconds(500));
}

TEST(BucketRateLimiter, IgnoresItemsForRequeuesAndForget) {
  FakeClock clock;
  BucketRateLimiter<std::string> limiter({.qps = 1, .burst = 1}, clock);
  (void)limiter.When("a");
  EXPECT_EQ(limiter.NumRequeues("a"), 0);
  limiter.Forget("a");
  EXPECT_EQ(limiter.When("a"), seconds(1)) << "Forget does not return the token";
}

TEST(BucketRateLimiter, WithoutMaxDelayTenThousandFailuresWaitAboutSixteenMinutes) {
  // The client-go behaviour this module improves on (opt-in): 10 qps, burst 100.
  FakeClock clock;
  BucketRateLimiter<int> limiter({}, clock);
  Clock::Duration last{};
  for (int i = 0; i < 10'000; ++i) last = limiter.When(i);
  EXPECT_EQ(last, seconds(990));
}

TEST(BucketRateLimiter, MaxDelayCapsTheTailWithoutGrowingTheDebt) {
  FakeClock clock;
  BucketRateLimiter<int> limiter({.qps = 10, .burst = 100, .max_delay = seconds(30)}, clock);
  Clock::Duration longest{};
  int capped = 0;
  for (int i = 0; i < 10'000; ++i) {
    const auto d = limiter.When(i);
    longest = std::max(longest, d);
    if (d == seconds(30)) ++capped;
  }
  EXPECT_EQ(longest, seconds(30));
  EXPECT_GT(capped, 9000);
  // The debt is bounded by max_delay: 30 s later the bucket is back to about one token.
  clock.Advance(seconds(30));
  EXPECT_LE(limiter.When(0), milliseconds(100));
}

TEST(BucketRateLimiter, BurstBelowOneIsTreatedAsOne) {
  FakeClock clock;
  BucketRateLimiter<int> limiter({.qps = 1, .burst = 0}, clock);
  EXPECT_EQ(limiter.When(1), Clock::Duration::zero());
  EXPECT_EQ(limiter.When(2), seconds(1));
}

TEST(BucketRateLimiter, ZeroQpsNeverRefillsAndSaturates) {
  FakeClock clock;
  BucketRateLimiter<int> limiter({.qps = 0, .burst = 1}, clock);
  EXPECT_EQ(limiter.When(1), Clock::Duration::zero());
  EXPECT_EQ(limiter.When(2), Clock::Duration::max());
  BucketRateLimiter<int> capped({.qps = 0, .burst = 1, .max_delay = seconds(5)}, clock);
  (void)capped.When(1);
  EXPECT_EQ(capped.When(2), seconds(5));
}

std::unique_ptr<RateLimiter<std::string>> Step(std::vector<Clock::Duration> steps) {
  auto r = StepRateLimiter<std::string>::Create(std::move(steps));
  EXPECT_TRUE(r.ok());
  return std::move(r).value();
}

TEST(MaxOfRateLimiter, ReturnsTheLongestDelayAndForwardsForget) {
  std::vector<std::unique_ptr<RateLimiter<std::string>>> parts;
  parts.push_back(Step({milliseconds(1), milliseconds(50)}));
  parts.push_back(Step({milliseconds(10), milliseconds(20), milliseconds(30)}));
  MaxOfRateLimiter<std::string> limiter(std::move(parts));
  EXPECT_EQ(limiter.When("a"), milliseconds(10));
  EXPECT_EQ(limiter.When("a"), milliseconds(50));
  EXPECT_EQ(limiter.When("a"), milliseconds(50));
  EXPECT_EQ(limiter.NumRequeues("a"), 3);
  limiter.Forget("a");
  EXPECT_EQ(limiter.NumRequeues("a"), 0);
  EXPECT_EQ(limiter.When("a"), milliseconds(10));
}

TEST(StepRateLimiter, WalksTheTableThenRepeatsTheLastDelay) {
  auto limiter = Step({milliseconds(1), milliseconds(2), milliseconds(3)});
  EXPECT_EQ(limiter->When("a"), milliseconds(1));
  EXPECT_EQ(limiter->When("a"), milliseconds(2));
  EXPECT_EQ(limiter->When("a"), milliseconds(3));
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(limiter->When("a"), milliseconds(3));
  EXPECT_EQ(limiter->NumRequeues("a"), 1003);
  limiter->Forget("a");
  EXPECT_EQ(limiter->When("a"), milliseconds(1));
}

TEST(StepRateLimiter, SingleEntryTableIsConstant) {
  auto limiter = Step({milliseconds(7)});
  for (int i = 0; i < 10; ++i) EXPECT_EQ(limiter->When("a"), milliseconds(7));
}

TEST(StepRateLimiter, DefaultTableGoesFromFiveMillisecondsToEightSeconds) {
  auto r = StepRateLimiter<std::string>::Create();
  ASSERT_TRUE(r.ok());
  auto& limiter = *r.value();
  const std::vector<Clock::Duration> want = DefaultStepDelays();
  ASSERT_EQ(want.size(), 12u);
  EXPECT_EQ(want.front(), milliseconds(5));
  EXPECT_EQ(want[7], milliseconds(640));
  EXPECT_EQ(want.back(), seconds(8));
  for (const auto& d : want) EXPECT_EQ(limiter.When("a"), d);
  EXPECT_EQ(limiter.When("a"), seconds(8));
}

TEST(StepRateLimiter, EmptyTableIsRejectedAtConstruction) {
  auto r = StepRateLimiter<std::string>::Create({});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsBadRequest(r.error()));
}

TEST(StepRateLimiter, NegativeDelayIsRejectedAtConstruction) {
  auto r = StepRateLimiter<std::string>::Create({milliseconds(1), milliseconds(-1)});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsBadRequest(r.error()));
}

TEST(DefaultControllerRateLimiter, IsExponentialFromFiveMillisecondsUnderATenQpsBucket) {
  FakeClock clock;
  auto limiter = DefaultControllerRateLimiter<std::string>(clock);
  EXPECT_EQ(limiter->When("a"), milliseconds(5));
  EXPECT_EQ(limiter->When("a"), milliseconds(10));
  EXPECT_EQ(limiter->NumRequeues("a"), 2);
  // 98 more tokens of the burst of 100, then the bucket dominates: 100 ms per token.
  for (int i = 0; i < 98; ++i) (void)limiter->When("x" + std::to_string(i));
  EXPECT_EQ(limiter->When("fresh"), milliseconds(100));
  limiter->Forget("a");
  EXPECT_EQ(limiter->NumRequeues("a"), 0);
}

TEST(DefaultControllerRateLimiter, AcceptsABucketMaxDelay) {
  FakeClock clock;
  auto limiter = DefaultControllerRateLimiter<int>(clock, {.max_delay = seconds(30)});
  Clock::Duration longest{};
  for (int i = 0; i < 10'000; ++i) longest = std::max(longest, limiter->When(i));
  EXPECT_EQ(longest, seconds(30));
}

TEST(DefaultItemBasedRateLimiter, IsExponentialFromOneMillisecondToThousandSeconds) {
  auto limiter = DefaultItemBasedRateLimiter<std::string>();
  EXPECT_EQ(limiter->When("a"), milliseconds(1));
  EXPECT_EQ(limiter->When("a"), milliseconds(2));
  Clock::Duration last{};
  for (int i = 0; i < 100; ++i) last = limiter->When("a");
  EXPECT_EQ(last, seconds(1000));
}

}  // namespace
}  // namespace kube::workqueue
