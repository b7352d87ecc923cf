#include <kube/base/wait.hpp>

#include <atomic>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

namespace kube {
namespace {

using namespace std::chrono_literals;

TEST(Until, RunsEveryPeriodUntilStopped) {
  FakeClock clock;
  std::atomic<int> calls{0};
  std::stop_source stop;
  std::jthread loop([&] { Until([&] { ++calls; }, 1s, stop.get_token(), clock); });
  ASSERT_TRUE(clock.BlockUntilWaiters(1));
  EXPECT_EQ(calls.load(), 1);
  clock.Advance(1s);
  ASSERT_TRUE(clock.BlockUntilWaiters(1));
  // The loop may not have re-parked yet; wait until the second call is visible.
  while (calls.load() < 2) std::this_thread::yield();
  EXPECT_EQ(calls.load(), 2);
  stop.request_stop();
  loop.join();
  EXPECT_EQ(calls.load(), 2);
}

TEST(Until, ExceptionsDoNotEndTheLoop) {
  FakeClock clock;
  std::atomic<int> calls{0};
  std::stop_source stop;
  std::jthread loop([&] {
    Until([&] {
      ++calls;
      throw std::runtime_error("boom");
    }, 1s, stop.get_token(), clock);
  });
  ASSERT_TRUE(clock.BlockUntilWaiters(1));
  clock.Advance(1s);
  while (calls.load() < 2) std::this_thread::yield();
  stop.request_stop();
  loop.join();
  EXPECT_GE(calls.load(), 2);
}

TEST(PollUntil, ImmediateSuccessDoesNotWait) {
  FakeClock clock;
  auto r = PollUntil([] { return Result<bool>(true); }, PollOptions{}, {}, clock);
  EXPECT_TRUE(r.ok());
}

TEST(PollUntil, ConditionErrorAborts) {
  FakeClock clock;
  auto r = PollUntil([] { return Result<bool>(BadRequest("nope")); }, PollOptions{}, {}, clock);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsBadRequest(r.error()));
}

TEST(PollUntil, TimesOutOnTheClock) {
  FakeClock clock;
  std::atomic<int> calls{0};
  Result<void> result = Ok();
  std::jthread poller([&] {
    result = PollUntil([&] {
      ++calls;
      return Result<bool>(false);
    }, PollOptions{.interval = 1s, .timeout = 3s, .immediate = true}, {}, clock);
  });
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(clock.BlockUntilWaiters(1));
    clock.Advance(1s);
  }
  poller.join();
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(IsTimeout(result.error()));
  EXPECT_EQ(result.error().message, "timed out waiting for the condition");
  EXPECT_EQ(calls.load(), 4);  // t=0, 1, 2, and the final check at the 3 s deadline
}

TEST(PollUntil, StopCancels) {
  FakeClock clock;
  std::stop_source stop;
  Result<void> result = Ok();
  std::jthread poller([&] {
    result = PollUntil([] { return Result<bool>(false); }, PollOptions{.interval = 1h}, stop.get_token(),
                       clock);
  });
  ASSERT_TRUE(clock.BlockUntilWaiters(1));
  stop.request_stop();
  poller.join();
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(IsCanceled(result.error()));
}

TEST(PollUntil, ThrowingConditionBecomesInternalError) {
  FakeClock clock;
  auto r = PollUntil([]() -> Result<bool> { throw std::runtime_error("bad"); }, PollOptions{}, {}, clock);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsInternalError(r.error()));
}

TEST(RetryOnConflict, RetriesConflictsThenSucceeds) {
  FakeClock clock;
  int attempts = 0;
  Result<void> result = BadRequest("unset");
  std::jthread runner([&] {
    result = RetryOnConflict(DefaultRetry(), [&]() -> Result<void> {
      if (++attempts < 3) return MakeError(409, reason::kConflict, "stale");
      return Ok();
    }, {}, clock);
  });
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(clock.BlockUntilWaiters(1));
    clock.Advance(20ms);
  }
  runner.join();
  EXPECT_TRUE(result.ok());
  EXPECT_EQ(attempts, 3);
}

TEST(RetryOnConflict, ReturnsLastConflictWhenStepsRunOut) {
  FakeClock clock;
  int attempts = 0;
  Result<void> result = Ok();
  std::jthread runner([&] {
    result = RetryOnConflict(Backoff{.duration = 10ms, .factor = 1, .jitter = 0, .steps = 3, .cap = {}, .rand = {}},
                             [&]() -> Result<void> {
                               ++attempts;
                               return MakeError(409, reason::kConflict, "stale");
                             }, {}, clock);
  });
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(clock.BlockUntilWaiters(1));
    clock.Advance(10ms);
  }
  runner.join();
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(IsConflict(result.error()));
  EXPECT_EQ(attempts, 3);
}

TEST(RetryOnConflict, NonConflictErrorStopsImmediately) {
  FakeClock clock;
  int attempts = 0;
  auto r = RetryOnConflict(DefaultRetry(), [&]() -> Result<void> {
    ++attempts;
    return MakeError(404, reason::kNotFound, "gone");
  }, {}, clock);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsNotFound(r.error()));
  EXPECT_EQ(attempts, 1);
}

TEST(ExponentialBackoff, ReportsTimeoutWhenConditionNeverHolds) {
  FakeClock clock;
  Result<void> result = Ok();
  int calls = 0;
  std::jthread runner([&] {
    result = ExponentialBackoff(Backoff{.duration = 1s, .factor = 2, .jitter = 0, .steps = 3, .cap = {}, .rand = {}},
                                [&] { ++calls; return Result<bool>(false); }, {}, clock);
  });
  ASSERT_TRUE(clock.BlockUntilWaiters(1));
  clock.Advance(1s);
  ASSERT_TRUE(clock.BlockUntilWaiters(1));
  clock.Advance(2s);
  runner.join();
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(IsTimeout(result.error()));
  EXPECT_EQ(calls, 3);
}

}  // namespace
}  // namespace kube
