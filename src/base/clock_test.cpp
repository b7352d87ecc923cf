#include <kube/base/clock.hpp>

#include <atomic>
#include <thread>

#include <gtest/gtest.h>

namespace kube {
namespace {

using namespace std::chrono_literals;

TEST(FakeClock, TimeMovesOnlyWhenAdvanced) {
  FakeClock clock;
  const auto t0 = clock.Now();
  const auto w0 = clock.WallNow();
  EXPECT_EQ(clock.Now(), t0);
  clock.Advance(5s);
  EXPECT_EQ(clock.Now() - t0, 5s);
  EXPECT_EQ(clock.WallNow() - w0, 5s);
}

TEST(FakeClock, NegativeAdvanceAndEarlierSetTimeAreIgnored) {
  FakeClock clock;
  const auto t0 = clock.Now();
  clock.Advance(-3s);
  EXPECT_EQ(clock.Now(), t0);
  clock.SetTime(t0 - 1s);
  EXPECT_EQ(clock.Now(), t0);
  clock.SetTime(t0 + 2s);
  EXPECT_EQ(clock.Now(), t0 + 2s);
}

TEST(FakeClock, SleepingThreadWakesExactlyWhenDeadlineIsReached) {
  FakeClock clock;
  std::atomic<bool> woke{false};
  std::jthread sleeper([&] {
    EXPECT_TRUE(clock.SleepFor(10s));
    woke = true;
  });
  ASSERT_TRUE(clock.BlockUntilWaiters(1));
  EXPECT_EQ(clock.NextDeadline(), clock.Now() + 10s);
  clock.Advance(9s);
  // Not due yet: the sleeper stays parked.
  ASSERT_TRUE(clock.BlockUntilWaiters(1));
  EXPECT_FALSE(woke.load());
  clock.Advance(1s);
  sleeper.join();
  EXPECT_TRUE(woke.load());
  EXPECT_EQ(clock.Waiters(), 0u);
}

TEST(FakeClock, StopRequestEndsSleepEarly) {
  FakeClock clock;
  std::stop_source stop;
  std::atomic<int> result{-1};
  std::jthread sleeper([&] { result = clock.SleepFor(1h, stop.get_token()) ? 1 : 0; });
  ASSERT_TRUE(clock.BlockUntilWaiters(1));
  stop.request_stop();
  sleeper.join();
  EXPECT_EQ(result.load(), 0);
}

TEST(FakeClock, SleepWithPastDeadlineReturnsImmediately) {
  FakeClock clock;
  EXPECT_TRUE(clock.SleepUntil(clock.Now() - 1s));
  EXPECT_TRUE(clock.SleepFor(0s));
}

TEST(FakeClock, WaitUntilReturnsTrueOnlyWhenDeadlinePassed) {
  FakeClock clock;
  Mutex mu;
  CondVar cv;
  bool ready = false;
  std::atomic<bool> timed_out{false};
  std::jthread waiter([&] {
    MutexLock lock(mu);
    const auto deadline = clock.Now() + 1s;
    while (!ready) {
      if (clock.WaitUntil(cv, mu, deadline)) {
        timed_out = true;
        return;
      }
    }
  });
  ASSERT_TRUE(clock.BlockUntilWaiters(1));
  {
    MutexLock lock(mu);
    ready = true;
    cv.SignalAll();
  }
  waiter.join();
  EXPECT_FALSE(timed_out.load());
}

TEST(FakeClock, ManyWaitersWakeInDeadlineOrder) {
  FakeClock clock;
  Mutex mu;
  std::vector<int> order;
  std::vector<std::jthread> threads;
  for (int i = 3; i >= 1; --i) {
    threads.emplace_back([&, i] {
      clock.SleepFor(std::chrono::seconds(i));
      MutexLock lock(mu);
      order.push_back(i);
    });
  }
  ASSERT_TRUE(clock.BlockUntilWaiters(3));
  for (int i = 1; i <= 3; ++i) {
    clock.Advance(1s);
    ASSERT_TRUE(clock.BlockUntilWaiters(static_cast<std::size_t>(3 - i)));
    // Wait for the woken thread to record itself before advancing again.
    while (true) {
      MutexLock lock(mu);
      if (order.size() == static_cast<std::size_t>(i)) break;
    }
  }
  threads.clear();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST(FakeClock, BlockUntilWaitersTimesOut) {
  FakeClock clock;
  EXPECT_FALSE(clock.BlockUntilWaiters(1, std::chrono::milliseconds(1)));
}

TEST(RealClock, SleepForShortDurationReturnsTrue) {
  auto& clock = RealClock::Instance();
  const auto start = clock.Now();
  EXPECT_TRUE(clock.SleepFor(1ms));
  EXPECT_GE(clock.Now() - start, 1ms);
}

}  // namespace
}  // namespace kube
