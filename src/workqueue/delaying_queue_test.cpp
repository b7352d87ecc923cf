#include <kube/workqueue/delaying_queue.hpp>

#include <atomic>
#include <chrono>
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
using std::chrono::nanoseconds;
using std::chrono::seconds;

// The delivery thread hands every due item to the queue in ready order, in one batch. So when a
// "barrier" item due at time t comes out of Get, every item due at t or earlier has been
// delivered, and nothing due later has: tests synchronise on barriers instead of sleeping.

TEST(DelayingQueue, AddAfterDeliversOnlyOnceTheDelayHasPassed) {
  FakeClock clock;
  DelayingQueue<std::string> q({}, clock);
  q.AddAfter("a", seconds(1));
  q.AddAfter("barrier", milliseconds(999));
  EXPECT_EQ(q.Len(), 0u);
  clock.Advance(milliseconds(999));
  EXPECT_EQ(q.Get(), "barrier");
  EXPECT_EQ(q.Len(), 0u) << "a was delivered 1 ms early";
  clock.Advance(milliseconds(1));
  EXPECT_EQ(q.Get(), "a");
}

TEST(DelayingQueue, NonPositiveDelayAddsAtOnce) {
  FakeClock clock;
  DelayingQueue<std::string> q({}, clock);
  q.AddAfter("zero", seconds(0));
  q.AddAfter("negative", seconds(-5));
  EXPECT_EQ(q.Len(), 2u);
  EXPECT_EQ(q.Get(), "zero");
  EXPECT_EQ(q.Get(), "negative");
}

TEST(DelayingQueue, WaitingItemAddedAgainKeepsTheEarlierReadyTime) {
  FakeClock clock;
  DelayingQueue<std::string> q({}, clock);
  q.AddAfter("a", seconds(10));
  q.AddAfter("a", seconds(1));
  clock.Advance(seconds(1));
  EXPECT_EQ(q.Get(), "a");
  q.Done("a");
  q.AddAfter("barrier", seconds(9));
  clock.Advance(seconds(9));  // the stale 10 s entry of "a" comes due now
  EXPECT_EQ(q.Get(), "barrier");
  EXPECT_EQ(q.Len(), 0u) << "a was delivered a second time from its superseded ready time";
}

// A FakeClock that, while `ticking` is set, moves forward 1 us on every Now(): an AddAfter with a
// nanosecond delay then finds its item due when it reads the clock again, as on the real clock.
class TickingClock final : public Clock {
 public:
  TimePoint Now() const override {
    if (ticking.load()) fake.Advance(std::chrono::microseconds(1));
    return fake.Now();
  }
  WallTime WallNow() const override { return fake.WallNow(); }
  bool WaitUntil(CondVar& cv, Mutex& mu, TimePoint deadline) override KUBE_REQUIRES(mu) {
    return fake.WaitUntil(cv, mu, deadline);
  }
  mutable FakeClock fake;
  std::atomic<bool> ticking{false};
};

TEST(DelayingQueue, AlreadyDueShortDelayIsAddedAtOnceWhenNothingWaits) {
  TickingClock clock;
  DelayingQueue<std::string> q({}, clock);
  clock.ticking = true;
  q.AddAfter("a", nanoseconds(1));
  clock.ticking = false;
  EXPECT_EQ(q.Len(), 1u) << "a due by the second clock read was not added by AddAfter itself";
  EXPECT_EQ(q.Get(), "a");
  q.Done("a");
  // Once the waiting items are delivered, the direct path is open again.
  q.AddAfter("b", seconds(1));
  clock.fake.Advance(seconds(1));
  EXPECT_EQ(q.Get(), "b");
  q.Done("b");
  clock.ticking = true;
  q.AddAfter("c", nanoseconds(1));
  clock.ticking = false;
  EXPECT_EQ(q.Len(), 1u);
}

TEST(DelayingQueue, AlreadyDueShortDelayOfAWaitingItemIsDeliveredOnce) {
  TickingClock clock;
  DelayingQueue<std::string> q({}, clock);
  q.AddAfter("a", seconds(10));
  clock.ticking = true;
  q.AddAfter("a", nanoseconds(1));  // due by the second clock read, but "a" already waits
  clock.ticking = false;
  clock.fake.Advance(std::chrono::microseconds(1));
  EXPECT_EQ(q.Get(), "a");
  q.Done("a");
  q.AddAfter("barrier", seconds(11));
  clock.fake.Advance(seconds(11));  // the superseded 10 s entry of "a" is due by now
  EXPECT_EQ(q.Get(), "barrier");
  EXPECT_EQ(q.Len(), 0u) << "a was delivered a second time from its superseded ready time";
}

TEST(DelayingQueue, LaterReadyTimeDoesNotPostponeAWaitingItem) {
  FakeClock clock;
  DelayingQueue<std::string> q({}, clock);
  q.AddAfter("a", seconds(1));
  q.AddAfter("a", seconds(10));
  clock.Advance(seconds(1));
  EXPECT_EQ(q.Get(), "a");
}

TEST(DelayingQueue, DueItemsArriveInReadyTimeOrderAndTiesInAddOrder) {
  FakeClock clock;
  DelayingQueue<std::string> q({}, clock);
  q.AddAfter("c", seconds(3));
  q.AddAfter("a", seconds(1));
  q.AddAfter("b1", seconds(2));
  q.AddAfter("b2", seconds(2));
  clock.Advance(seconds(5));
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), "b1");
  EXPECT_EQ(q.Get(), "b2");
  EXPECT_EQ(q.Get(), "c");
}

TEST(DelayingQueue, DeliveryIsDrivenByTheInjectedClockOneStepAtATime) {
  FakeClock clock;
  DelayingQueue<std::string> q({}, clock);
  for (int i = 1; i <= 5; ++i) q.AddAfter("item-" + std::to_string(i), seconds(i));
  for (int i = 1; i <= 5; ++i) {
    clock.Advance(seconds(1));
    EXPECT_EQ(q.Get(), "item-" + std::to_string(i));
    EXPECT_EQ(q.Len(), 0u);
  }
}

TEST(DelayingQueue, ItemDueWhileBeingProcessedIsQueuedAgainAtDone) {
  FakeClock clock;
  DelayingQueue<std::string> q({}, clock);
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  q.AddAfter("a", seconds(1));
  q.AddAfter("barrier", seconds(1));
  clock.Advance(seconds(1));
  EXPECT_EQ(q.Get(), "barrier");
  EXPECT_EQ(q.Len(), 0u) << "a must wait for Done";
  q.Done("a");
  EXPECT_EQ(q.Get(), "a");
}

TEST(DelayingQueue, HugeDelaysNeverFireAndDoNotOverflow) {
  FakeClock clock;
  DelayingQueue<std::string> q({}, clock);
  q.AddAfter("hours-max", hours::max());
  q.AddAfter("duration-max", Clock::Duration::max());
  q.AddAfter("double-seconds", std::chrono::duration<double>(1e300));
  q.AddAfter("soon", seconds(1));
  clock.Advance(seconds(1));
  EXPECT_EQ(q.Get(), "soon");
  clock.Advance(hours(24 * 365 * 200));
  q.AddAfter("barrier", nanoseconds(1));
  clock.Advance(nanoseconds(1));
  EXPECT_EQ(q.Get(), "barrier");
  EXPECT_EQ(q.Len(), 0u);
}

TEST(DelayingQueue, TheDeliveryThreadNeverWaitsLongerThanTheHeartbeat) {
  FakeClock clock;
  const auto start = clock.Now();
  DelayingQueue<std::string> q({.heartbeat = seconds(10)}, clock);
  q.AddAfter("far", hours(1));
  ASSERT_TRUE(clock.BlockUntilWaiters(1));
  ASSERT_TRUE(clock.NextDeadline().has_value());
  EXPECT_LE(*clock.NextDeadline(), start + seconds(10));
}

TEST(DelayingQueue, DueItemIsDeliveredWhileAnotherThreadFloodsAddAfter) {
  FakeClock clock;
  DelayingQueue<std::string> q({}, clock);
  std::atomic<bool> stop{false};
  std::jthread flooder([&] {
    for (int i = 0; !stop.load(); ++i) q.AddAfter("flood-" + std::to_string(i % 100000), hours(1));
  });
  q.AddAfter("due", seconds(1));
  clock.Advance(seconds(1));
  EXPECT_EQ(q.Get(), "due");  // would hang if the flood starved delivery
  stop = true;
}

// Stalls the delivery thread on demand: it compares items only when their hashes collide, and
// with GateHash every hash collides. GateEq waits while the gate is closed.
std::atomic<bool> g_gate_open{true};
struct GateHash {
  std::size_t operator()(int) const { return 7; }
};
struct GateEq {
  bool operator()(int a, int b) const {
    while (!g_gate_open.load()) std::this_thread::yield();
    return a == b;
  }
};
using GatedQueue = DelayingQueue<int, GateHash, GateEq>;
constexpr int kMaxPending = static_cast<int>(GatedQueue::kMaxPendingAddAfter);

// Runs `calls` AddAfter calls of distinct items on another thread, counting those that returned.
struct Producer {
  Producer(GatedQueue& q, int first, int calls)
      : thread([&q, first, calls, this] {
          for (int i = first; i < first + calls; ++i) {
            q.AddAfter(i, seconds(1));
            returned.fetch_add(1);
          }
        }) {}
  std::atomic<int> returned{0};
  std::jthread thread;
};

TEST(DelayingQueue, AddAfterWaitsWhileTheDeliveryThreadIsBehind) {
  FakeClock clock;
  GatedQueue q({}, clock);
  g_gate_open = false;
  q.AddAfter(0, seconds(1));  // merged without a comparison...
  q.AddAfter(1, seconds(1));  // ...but this one is compared with 0: the thread stalls there
  // The stalled thread took at most one inbox (<= kMaxPending calls); the next fill blocks.
  const int calls = 3 * kMaxPending;
  Producer producer(q, 2, calls);
  while (producer.returned.load() < kMaxPending) std::this_thread::yield();
  for (int i = 0; i < 100'000; ++i) {
    ASSERT_LE(producer.returned.load(), 2 * kMaxPending + 1) << "AddAfter did not wait";
    std::this_thread::yield();
  }
  g_gate_open = true;  // the thread catches up, and the producer with it
  producer.thread.join();
  EXPECT_EQ(producer.returned.load(), calls);
  clock.Advance(seconds(1));
  for (int n = 0; n < calls + 2; ++n) {  // every call's item, once
    auto item = q.Get();
    ASSERT_TRUE(item.has_value());
    q.Done(*item);
  }
  EXPECT_EQ(q.Len(), 0u);
}

TEST(DelayingQueue, ShutDownReleasesAddAfterCallsWaitingForTheDeliveryThread) {
  FakeClock clock;
  GatedQueue q({}, clock);
  g_gate_open = false;
  q.AddAfter(0, seconds(1));
  q.AddAfter(1, seconds(1));
  Producer producer(q, 2, 3 * kMaxPending);  // blocks once the inbox is full again
  while (producer.returned.load() < kMaxPending) std::this_thread::yield();
  q.ShutDown();            // with the delivery thread still stalled
  producer.thread.join();  // would hang if the waiting call were not released
  EXPECT_EQ(producer.returned.load(), 3 * kMaxPending);
  g_gate_open = true;  // lets the thread finish its batch; the destructor joins it
}

TEST(DelayingQueue, ShutDownDropsWaitingItemsAndIgnoresLaterAdds) {
  FakeClock clock;
  DelayingQueue<std::string> q({}, clock);
  q.AddAfter("waiting", seconds(1));
  q.Add("queued");
  q.ShutDown();
  clock.Advance(seconds(2));
  q.AddAfter("after", seconds(0));
  q.AddAfter("after-delayed", seconds(1));
  EXPECT_TRUE(q.ShuttingDown());
  EXPECT_EQ(q.Get(), "queued");
  EXPECT_EQ(q.Get(), std::nullopt);
}

TEST(DelayingQueue, ShutDownWakesWorkersBlockedInGet) {
  FakeClock clock;
  DelayingQueue<std::string> q({}, clock);
  q.AddAfter("never", hours(1));
  std::vector<std::jthread> workers;
  for (int i = 0; i < 3; ++i) workers.emplace_back([&] { EXPECT_EQ(q.Get(), std::nullopt); });
  q.ShutDown();
}

TEST(DelayingQueue, DestroyingWithItemsStillWaitingJoinsTheThread) {
  FakeClock clock;
  auto q = std::make_unique<DelayingQueue<std::string>>(QueueOptions{}, clock);
  for (int i = 0; i < 1000; ++i) q->AddAfter("k" + std::to_string(i), seconds(1 + i));
  q->Add("ready");
  q.reset();
  EXPECT_EQ(clock.Waiters(), 0u);
}

TEST(DelayingQueue, ShutDownWithDrainWaitsForInFlightItems) {
  FakeClock clock;
  DelayingQueue<std::string> q({}, clock);
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  std::jthread stopper([&] { q.ShutDownWithDrain(); });
  q.Done("a");
  stopper.join();
  EXPECT_TRUE(q.ShuttingDown());
}

TEST(DelayingQueue, EveryAddAfterCountsARetry) {
  FakeClock clock;
  FakeMetricsProvider provider;
  DelayingQueue<std::string> q({.name = "dq", .metrics_provider = &provider,
                                .unfinished_work_update_period = Clock::Duration::zero()},
                               clock);
  q.AddAfter("a", seconds(0));
  q.AddAfter("b", seconds(1));
  q.AddAfter("b", seconds(2));
  q.Add("c");
  EXPECT_EQ(provider.Value(kRetriesMetric, "dq"), 3);
  EXPECT_EQ(provider.Created(kRetriesMetric, "dq"), 1u);
  EXPECT_EQ(provider.Created(kDepthMetric, "dq"), 1u);
  clock.Advance(seconds(1));
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), "c");
  EXPECT_EQ(q.Get(), "b");
  // The delivery thread reports the add after it released the queue's lock.
  EXPECT_TRUE(provider.AwaitValue(kAddsMetric, "dq", 3));
}

}  // namespace
}  // namespace kube::workqueue
