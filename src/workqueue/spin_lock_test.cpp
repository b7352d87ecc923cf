#include <kube/workqueue/internal/spin_lock.hpp>

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace kube::workqueue::internal {
namespace {

// Whether another thread can take `mu` now (it releases it at once if so).
bool FreeForAnotherThread(SpinLock& mu) {
  bool got = false;
  std::jthread([&] {
    if (mu.TryLock()) {
      got = true;
      mu.Unlock();
    }
  }).join();
  return got;
}

TEST(SpinLockTest, TryLockFailsWhileHeldAndSucceedsAfterUnlock) {
  SpinLock mu;
  EXPECT_TRUE(FreeForAnotherThread(mu));
  mu.Lock();
  EXPECT_FALSE(FreeForAnotherThread(mu));
  mu.Unlock();
  EXPECT_TRUE(FreeForAnotherThread(mu));
  {
    SpinLockGuard guard(mu);
    EXPECT_FALSE(FreeForAnotherThread(mu));
  }
  EXPECT_TRUE(FreeForAnotherThread(mu));
}

// Four threads increment a plain counter under the lock: no increment is lost (and TSan sees
// no race: Lock acquires what Unlock released).
TEST(SpinLockTest, ExcludesConcurrentHolders) {
  SpinLock mu;
  long counter = 0;
  int inside = 0;
  bool overlapped = false;
  constexpr int kThreads = 4;
  constexpr int kRounds = 20'000;
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < kRounds; ++i) {
          SpinLockGuard guard(mu);
          if (++inside != 1) overlapped = true;
          ++counter;
          --inside;
        }
      });
    }
  }
  EXPECT_FALSE(overlapped);
  EXPECT_EQ(counter, long{kThreads} * kRounds);
}

// A Lock that outlasts its spin sleeps, and an Unlock hands it the lock.
TEST(SpinLockTest, SleepingLockAcquiresAfterUnlock) {
  SpinLock mu;
  mu.Lock();
  int value = 0;
  int seen = -1;
  std::jthread waiter([&] {
    SpinLockGuard guard(mu);
    seen = value;
  });
  while (mu.SleepersForTesting() == 0) std::this_thread::yield();  // the waiter is asleep
  value = 42;
  mu.Unlock();
  waiter.join();
  EXPECT_EQ(seen, 42);
  EXPECT_EQ(mu.SleepersForTesting(), 0u);
  EXPECT_TRUE(FreeForAnotherThread(mu));  // the waiter released it
}

// Two threads take turns 2,000 times, each waiting on the condition variable for the other:
// a lost wake-up would hang the test.
TEST(SpinCondVarTest, PingPongLosesNoWakeUp) {
  SpinLock mu;
  SpinCondVar turn_changed;
  int turn = 0;  // guarded by mu
  constexpr int kRounds = 2'000;
  auto player = [&](int me) {
    for (int i = 0; i < kRounds; ++i) {
      mu.Lock();
      while (turn != me) turn_changed.Wait(mu);
      turn = 1 - me;
      mu.Unlock();
      turn_changed.Signal();
    }
  };
  {
    std::jthread a(player, 0);
    std::jthread b(player, 1);
  }
  mu.Lock();
  EXPECT_EQ(turn, 0);
  mu.Unlock();
}

TEST(SpinCondVarTest, SignalAllWakesEveryWaiter) {
  SpinLock mu;
  SpinCondVar go;
  bool open = false;  // guarded by mu
  int waiting = 0;    // guarded by mu
  std::atomic<int> woken{0};
  constexpr int kWaiters = 3;
  {
    std::vector<std::jthread> waiters;
    for (int i = 0; i < kWaiters; ++i) {
      waiters.emplace_back([&] {
        mu.Lock();
        ++waiting;
        while (!open) go.Wait(mu);
        mu.Unlock();
        ++woken;
      });
    }
    for (;;) {  // until every waiter is inside Wait's loop (it released mu to wait)
      SpinLockGuard guard(mu);
      if (waiting == kWaiters) {
        open = true;
        break;
      }
    }
    go.SignalAll();
  }
  EXPECT_EQ(woken.load(), kWaiters);
}

}  // namespace
}  // namespace kube::workqueue::internal
