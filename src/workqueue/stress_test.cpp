// Concurrency stress test, meant to run under ThreadSanitizer: several producers and workers
// drive a RateLimitingQueue with random Add / AddAfter / AddRateLimited on a FakeClock that a
// separate thread keeps advancing, and check the queue's invariants:
//  * an item is never processed by two workers at once;
//  * every item is processed at least once after its last add;
//  * after ShutDown, nothing added later is processed, and only work accepted before the
//    shutdown (queued or in flight) is still handed out.

#include <atomic>
#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <kube/base/clock.hpp>
#include <kube/workqueue/priority_queue.hpp>
#include <kube/workqueue/rate_limiting_queue.hpp>

namespace kube::workqueue {
namespace {

using std::chrono::milliseconds;

constexpr int kItems = 64;
constexpr int kProducers = 3;
constexpr int kWorkers = 4;
constexpr int kOpsPerProducer = 20000;

struct ItemState {
  std::atomic<int> in_process{0};        // workers currently holding the item
  std::atomic<long> added_version{0};    // bumped before every add
  std::atomic<long> seen_version{0};     // highest added_version a worker saw after Get
};

std::string Key(int i) { return "namespace-01/item-" + std::to_string(i); }
int IndexOf(const std::string& key) { return std::stoi(key.substr(key.rfind('-') + 1)); }

// Drives `q` (a RateLimitingQueue or PriorityQueue: same add/get surface) and checks the
// invariants. `add_rate_limited` and `add_after` adapt the two APIs.
template <class Q, class AddAfterFn, class AddRateLimitedFn>
void RunStress(Q& q, FakeClock& clock, AddAfterFn add_after, AddRateLimitedFn add_rate_limited) {
  std::vector<ItemState> items(kItems);
  std::atomic<bool> violation{false};
  std::atomic<long> processed{0};

  std::vector<std::jthread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&, w] {
      std::mt19937 rng(1000 + w);
      while (auto key = q.Get()) {
        if (key->starts_with("after-shutdown")) {  // added after ShutDown: must never come out
          violation = true;
          q.Done(*key);
          continue;
        }
        ItemState& s = items[IndexOf(*key)];
        if (s.in_process.fetch_add(1) != 0) violation = true;  // two workers on one item
        // The item's adds up to here are covered by this processing.
        const long v = s.added_version.load();
        long seen = s.seen_version.load();
        while (seen < v && !s.seen_version.compare_exchange_weak(seen, v)) {
        }
        processed.fetch_add(1);
        const bool fail = rng() % 4 == 0;
        s.in_process.fetch_sub(1);
        if (fail) {
          add_rate_limited(*key);
        } else {
          q.Forget(*key);
        }
        q.Done(*key);
      }
    });
  }

  std::atomic<int> producers_left{kProducers};
  std::vector<std::jthread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      std::mt19937 rng(p);
      for (int op = 0; op < kOpsPerProducer; ++op) {
        const int i = static_cast<int>(rng() % kItems);
        items[i].added_version.fetch_add(1);
        switch (rng() % 3) {
          case 0: q.Add(Key(i)); break;
          case 1: add_after(Key(i), milliseconds(rng() % 20)); break;
          default: add_rate_limited(Key(i)); break;
        }
      }
      --producers_left;
    });
  }

  // Keep time moving (no sleeps: the fake clock jumps) until every item has been processed
  // after its last add.
  auto all_seen = [&] {
    for (auto& s : items) {
      if (s.seen_version.load() < s.added_version.load()) return false;
    }
    return true;
  };
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (producers_left.load() > 0 || !all_seen()) {
    clock.Advance(milliseconds(1));
    std::this_thread::yield();
    if (std::chrono::steady_clock::now() > give_up) {
      ADD_FAILURE() << "some item was not processed after its last add";
      break;
    }
  }
  producers.clear();

  // Shut down, then add new work: none of it may be processed.
  q.ShutDown();
  for (int i = 0; i < kItems; ++i) {
    q.Add("after-shutdown-" + std::to_string(i));
    add_after("after-shutdown-delayed-" + std::to_string(i), milliseconds(1));
  }
  clock.Advance(milliseconds(100));
  workers.clear();  // every worker sees shutdown and returns

  EXPECT_FALSE(violation.load());
  EXPECT_GT(processed.load(), 0);
  for (auto& s : items) EXPECT_EQ(s.in_process.load(), 0);
}

TEST(WorkqueueStress, RateLimitingQueueKeepsItsInvariantsUnderConcurrentUse) {
  FakeClock clock;
  RateLimitingQueue<std::string> q(
      std::make_unique<ItemExponentialFailureRateLimiter<std::string>>(
          ItemExponentialFailureOptions{.base_delay = milliseconds(1),
                                        .max_delay = milliseconds(20)}),
      {}, clock);
  RunStress(
      q, clock, [&](const std::string& k, milliseconds d) { q.AddAfter(k, d); },
      [&](const std::string& k) { q.AddRateLimited(k); });
}

TEST(WorkqueueStress, PriorityQueueKeepsItsInvariantsUnderConcurrentUse) {
  FakeClock clock;
  PriorityQueue<std::string> q(
      std::make_unique<ItemExponentialFailureRateLimiter<std::string>>(
          ItemExponentialFailureOptions{.base_delay = milliseconds(1),
                                        .max_delay = milliseconds(20)}),
      {.aging_step = milliseconds(5)}, clock);
  std::atomic<int> prio{0};
  RunStress(
      q, clock,
      [&](const std::string& k, milliseconds d) {
        q.Add(k, {.priority = prio.fetch_add(1) % 7, .after = d});
      },
      [&](const std::string& k) { q.AddRateLimited(k); });
}

}  // namespace
}  // namespace kube::workqueue
