#include <kube/base/mutex.hpp>

#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace kube {
namespace {

class Counter {
 public:
  void Increment() {
    MutexLock lock(mu_);
    ++value_;
    cv_.SignalAll();
  }
  void WaitFor(int n) {
    MutexLock lock(mu_);
    while (value_ < n) cv_.Wait(mu_);
  }
  int Get() {
    MutexLock lock(mu_);
    return value_;
  }

 private:
  Mutex mu_;
  CondVar cv_;
  int value_ KUBE_GUARDED_BY(mu_) = 0;
};

TEST(Mutex, GuardsCountersAcrossThreads) {
  Counter c;
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < 10000; ++i) c.Increment();
      });
    }
  }
  EXPECT_EQ(c.Get(), 40000);
}

TEST(CondVar, WaiterSeesSignalledState) {
  Counter c;
  std::jthread waiter([&] { c.WaitFor(3); });
  c.Increment();
  c.Increment();
  c.Increment();
  waiter.join();
  EXPECT_EQ(c.Get(), 3);
}

TEST(CondVar, WaitUntilPastDeadlineTimesOut) {
  Mutex mu;
  CondVar cv;
  MutexLock lock(mu);
  EXPECT_TRUE(cv.WaitUntil(mu, std::chrono::steady_clock::now() - std::chrono::seconds(1)));
}

TEST(Mutex, TryLockFailsWhileHeldElsewhere) {
  Mutex mu;
  mu.Lock();
  bool acquired = true;
  std::jthread other([&] {
    if (mu.TryLock()) {
      acquired = true;
      mu.Unlock();
    } else {
      acquired = false;
    }
  });
  other.join();
  mu.Unlock();
  EXPECT_FALSE(acquired);
}

}  // namespace
}  // namespace kube

namespace kube {
namespace {

class SharedCounter {
 public:
  void Add() {
    WriterLock lock(mu_);
    ++value_;
  }
  int Read() {
    ReaderLock lock(mu_);
    return value_;
  }

 private:
  SharedMutex mu_;
  int value_ KUBE_GUARDED_BY(mu_) = 0;
};

TEST(SharedMutex, ReadersAndWritersSeeConsistentValues) {
  SharedCounter c;
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < 2; ++t) threads.emplace_back([&] { for (int i = 0; i < 5000; ++i) c.Add(); });
    for (int t = 0; t < 2; ++t) {
      threads.emplace_back([&] {
        int last = 0;
        for (int i = 0; i < 5000; ++i) {
          const int v = c.Read();
          EXPECT_GE(v, last);  // monotonic: writers only add
          last = v;
        }
      });
    }
  }
  EXPECT_EQ(c.Read(), 10000);
}

}  // namespace
}  // namespace kube
