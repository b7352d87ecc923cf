#include <kube/workqueue/queue.hpp>

#include <algorithm>
#include <atomic>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <kube/base/clock.hpp>
#include <kube/workqueue/fake_metrics.hpp>

namespace kube::workqueue {
namespace {

using ::testing::ElementsAre;

TEST(Queue, GetHandsOutItemsInOrderOfFirstAdd) {
  Queue<std::string> q;
  q.Add("a");
  q.Add("b");
  q.Add("a");
  q.Add("c");
  EXPECT_EQ(q.Len(), 3u);
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), "b");
  EXPECT_EQ(q.Get(), "c");
  EXPECT_EQ(q.Len(), 0u);
}

TEST(Queue, ItemAddedManyTimesBeforeGetIsHandedOutOnce) {
  Queue<std::string> q;
  for (int i = 0; i < 5; ++i) q.Add("a");
  EXPECT_EQ(q.Len(), 1u);
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Len(), 0u);
  q.Done("a");
  EXPECT_EQ(q.Len(), 0u);
}

TEST(Queue, ItemAddedWhileProcessingIsNotHandedOutUntilDone) {
  Queue<std::string> q;
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  q.Add("a");
  q.Add("a");
  EXPECT_EQ(q.Len(), 0u) << "a second worker must not get an item being processed";
  q.Add("b");
  EXPECT_EQ(q.Get(), "b");
  q.Done("a");
  EXPECT_EQ(q.Len(), 1u);
  EXPECT_EQ(q.Get(), "a");
  q.Done("a");
  q.Done("b");
  EXPECT_EQ(q.Len(), 0u);
}

TEST(Queue, ReAddedWhileProcessingGoesToTheBackAtDone) {
  Queue<std::string> q;
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  q.Add("a");
  q.Add("b");
  q.Done("a");
  EXPECT_EQ(q.Get(), "b");
  EXPECT_EQ(q.Get(), "a");
}

TEST(Queue, DoneForAnItemNotBeingProcessedDoesNothing) {
  Queue<std::string> q;
  q.Done("ghost");
  q.Add("a");
  q.Done("a");  // queued, not processing: must not be queued twice
  EXPECT_EQ(q.Len(), 1u);
  EXPECT_EQ(q.Get(), "a");
  q.Done("a");
  q.Done("a");
  EXPECT_EQ(q.Len(), 0u);
}

TEST(Queue, DoneWithAMovedItemBehavesLikeDoneAndRecyclesItsStorage) {
  Queue<std::string> q;
  const std::string long_a = "namespace-01/a-key-longer-than-the-small-string-buffer";
  const std::string long_b = "namespace-02/b";
  q.Add(long_a);
  auto a = q.Get();
  ASSERT_EQ(a, long_a);
  q.Add(long_a);  // dirty while processing
  q.Done(std::move(*a));
  q.Add(long_b);
  EXPECT_EQ(q.Get(), long_a) << "re-queued at Done";
  auto b = q.Get();
  EXPECT_EQ(b, long_b) << "a recycled buffer must hold the new item only";
  q.Done(std::move(*b));
  q.Done(long_a);
  EXPECT_EQ(q.Len(), 0u);
}

TEST(Queue, AddManyDeduplicatesAndKeepsOrder) {
  Queue<std::string> q;
  q.Add("b");
  const std::vector<std::string> batch = {"a", "b", "c", "a"};
  q.AddMany(batch);
  EXPECT_EQ(q.Len(), 3u);
  EXPECT_EQ(q.Get(), "b");
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), "c");
}

TEST(Queue, WorksWithIntegerItems) {
  Queue<int> q;
  q.Add(3);
  q.Add(1);
  q.Add(3);
  EXPECT_EQ(q.Get(), 3);
  EXPECT_EQ(q.Get(), 1);
}

TEST(Queue, SlotsAreReusedAfterDone) {
  Queue<std::string> q;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 1000; ++i) q.Add("key-" + std::to_string(i));
    for (int i = 0; i < 1000; ++i) {
      auto item = q.Get();
      ASSERT_EQ(item, "key-" + std::to_string(i));
      q.Done(*item);
    }
  }
  EXPECT_EQ(q.Len(), 0u);
}

TEST(Queue, AddAfterShutDownIsIgnored) {
  Queue<std::string> q;
  q.ShutDown();
  q.Add("a");
  EXPECT_EQ(q.Len(), 0u);
  EXPECT_TRUE(q.ShuttingDown());
  EXPECT_EQ(q.Get(), std::nullopt);
}

TEST(Queue, GetDrainsQueuedItemsAfterShutDownThenReportsShutdown) {
  Queue<std::string> q;
  q.Add("a");
  q.Add("b");
  q.ShutDown();
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), "b");
  EXPECT_EQ(q.Get(), std::nullopt);
  EXPECT_EQ(q.Get(), std::nullopt);
}

TEST(Queue, ShutDownWakesEveryWorkerBlockedInGet) {
  Queue<std::string> q;
  std::atomic<int> returned{0};
  std::vector<std::jthread> workers;
  for (int i = 0; i < 4; ++i) {
    workers.emplace_back([&] {
      EXPECT_EQ(q.Get(), std::nullopt);
      ++returned;
    });
  }
  q.ShutDown();
  workers.clear();  // joins
  EXPECT_EQ(returned.load(), 4);
}

TEST(Queue, AddWakesABlockedWorker) {
  Queue<std::string> q;
  std::jthread worker([&] {
    auto item = q.Get();
    EXPECT_EQ(item, "a");
    q.Done(*item);
  });
  q.Add("a");
  worker.join();
  EXPECT_EQ(q.Len(), 0u);
}

TEST(Queue, ShutDownWithDrainWaitsForInFlightItems) {
  Queue<std::string> q;
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  std::atomic<bool> drained{false};
  std::jthread stopper([&] {
    q.ShutDownWithDrain();
    drained = true;
  });
  // The stopper cannot finish before Done; whatever the interleaving, Done releases it.
  EXPECT_FALSE(drained.load());
  q.Done("a");
  stopper.join();
  EXPECT_TRUE(drained.load());
  EXPECT_TRUE(q.ShuttingDown());
}

TEST(Queue, ShutDownWithDrainReturnsAtOnceWhenNothingIsInFlight) {
  Queue<std::string> q;
  q.ShutDownWithDrain();
  EXPECT_TRUE(q.ShuttingDown());
}

TEST(Queue, ShutDownEndsAWaitingShutDownWithDrain) {
  Queue<std::string> q;
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  std::jthread stopper([&] { q.ShutDownWithDrain(); });
  while (!q.ShuttingDown()) std::this_thread::yield();  // the drain has started
  q.ShutDown();
  stopper.join();  // returns although "a" is never Done
}

TEST(Queue, DrainedItemReAddedDuringDrainIsNotQueued) {
  Queue<std::string> q;
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  std::jthread stopper([&] { q.ShutDownWithDrain(); });
  while (!q.ShuttingDown()) std::this_thread::yield();
  q.Add("a");  // ignored: shutting down
  q.Done("a");
  stopper.join();
  EXPECT_EQ(q.Get(), std::nullopt);
}

TEST(Queue, DestroyingWithItemsQueuedAndInFlightIsClean) {
  auto q = std::make_unique<Queue<std::string>>();
  q->Add("a");
  q->Add("b");
  ASSERT_EQ(q->Get(), "a");
  q.reset();
}

// The producer inbox (adds recorded under their own lock, applied in batches under the
// queue's lock) must keep every rule of the queue.

TEST(Queue, InboxAppliedInBatchesKeepsFirstAddOrderAndDedup) {
  // More adds than kInboxLimit, so both the producer's own flush and the Get-side drain run;
  // every key is added twice, the second adds interleaved with later first adds.
  Queue<std::string> q;
  constexpr int kKeys = 3 * static_cast<int>(Queue<std::string>::kInboxLimit) + 17;
  for (int i = 0; i < kKeys; ++i) {
    q.Add("key-" + std::to_string(i));
    if (i >= 5) q.Add("key-" + std::to_string(i - 5));
  }
  EXPECT_EQ(q.Len(), static_cast<std::size_t>(kKeys));
  for (int i = 0; i < kKeys; ++i) {
    auto item = q.Get();
    ASSERT_EQ(item, "key-" + std::to_string(i));
    q.Done(std::move(*item));
  }
  EXPECT_EQ(q.Len(), 0u);
}

TEST(Queue, LenCountsAddsStillInTheInboxOncePerItem) {
  Queue<std::string> q;
  q.Add("a");
  q.Add("b");
  q.Add("a");
  EXPECT_EQ(q.Len(), 2u);
  q.Add("c");
  q.Add("b");
  EXPECT_EQ(q.Len(), 3u);
}

TEST(Queue, AddInTheInboxOfAnItemBeingProcessedIsAppliedBeforeItsDone) {
  Queue<std::string> q;
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  q.Add("a");  // in the inbox: no Get or Len has run since
  q.Add("b");
  q.Done("a");  // must see the re-add: "a" is queued again, behind "b"
  EXPECT_EQ(q.Len(), 2u);
  EXPECT_EQ(q.Get(), "b");
  EXPECT_EQ(q.Get(), "a");
}

TEST(Queue, RepeatedAddIsSkippedOnlyWhileTheFirstIsStillInTheInbox) {
  Queue<std::string> q;
  q.Add("a");
  q.Add("a");  // same thread, same inbox: skipped without a lock
  q.Add("a");
  ASSERT_EQ(q.Len(), 1u);  // applies the inbox
  ASSERT_EQ(q.Get(), "a");
  // The inbox was taken since the last add of "a": this add must count, and queue "a" again
  // at Done. (Were it skipped as a repeat, "a" would be forgotten.)
  q.Add("a");
  q.Add("a");  // repeats again
  q.Add("a");
  q.Done("a");
  ASSERT_EQ(q.Len(), 1u);  // (ASSERT: a Get on an empty queue would block)
  EXPECT_EQ(q.Get(), "a");
}

TEST(Queue, RepeatedAddIsSkippedPerQueueEvenAtTheSameAddress) {
  std::optional<Queue<std::string>> q;
  q.emplace();
  q->Add("a");  // remembered by this thread, inbox epoch 0
  q->Add("a");
  q.reset();
  q.emplace();  // same address, same epoch: only the queue's id tells them apart
  q->Add("a");
  EXPECT_EQ(q->Len(), 1u);
  Queue<std::string> other;
  other.Add("a");  // a different queue, while q's add of "a" is still remembered
  EXPECT_EQ(other.Len(), 1u);
}

TEST(Queue, AnotherThreadsRepeatOfAnAppliedAddIsNotSkipped) {
  Queue<int> q;
  q.Add(1);
  q.Add(1);
  ASSERT_EQ(q.Get(), 1);  // inbox taken; 1 is being processed
  std::thread([&] { q.Add(1); }).join();
  q.Add(1);  // this thread's last add of 1 was applied long ago: counts (a no-op here)
  q.Done(1);
  ASSERT_EQ(q.Len(), 1u);
  EXPECT_EQ(q.Get(), 1);
  q.Done(1);
  EXPECT_EQ(q.Len(), 0u);
}

TEST(Queue, ShutDownQueuesTheAddsStillInTheInboxAndClosesIt) {
  Queue<std::string> q;
  q.Add("a");
  q.Add("b");
  q.Add("a");
  q.ShutDown();  // "a" and "b" were accepted before the shutdown: still handed out
  q.Add("c");    // after: ignored
  EXPECT_EQ(q.Len(), 2u);
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), "b");
  EXPECT_EQ(q.Get(), std::nullopt);
}

TEST(Queue, EveryAddReachesAParkedWorker) {
  // Ping-pong: the producer adds one item and waits until a worker has processed it, so the
  // workers are parked (or spinning) at every add. A lost wake-up hangs this test.
  Queue<int> q;
  std::atomic<int> processed{0};
  std::vector<std::jthread> workers;
  for (int w = 0; w < 3; ++w) {
    workers.emplace_back([&] {
      while (auto item = q.Get()) {
        q.Done(*item);
        processed.fetch_add(1);
        processed.notify_all();
      }
    });
  }
  constexpr int kRounds = 1000;
  for (int i = 0; i < kRounds; ++i) {
    q.Add(i);
    for (int seen = processed.load(); seen < i + 1; seen = processed.load()) {
      processed.wait(seen);
    }
  }
  q.ShutDown();
  workers.clear();
  EXPECT_EQ(processed.load(), kRounds);
}

TEST(Queue, ConcurrentProducersLoseNoAddAndWorkersNeverShareAnItem) {
  // Each add bumps the key's version first; a worker records the version it sees after Get.
  // Every key must finally be processed after its last add (seen == added).
  Queue<int> q;
  constexpr int kProducers = 3;
  constexpr int kKeys = 200;
  constexpr int kAddsPerProducer = 20000;
  std::vector<std::atomic<int>> holders(kKeys);
  std::vector<std::atomic<long>> added(kKeys);
  std::vector<std::atomic<long>> seen(kKeys);
  std::atomic<bool> shared{false};
  std::vector<std::jthread> workers;
  for (int w = 0; w < 3; ++w) {
    workers.emplace_back([&] {
      while (auto item = q.Get()) {
        if (holders[*item].fetch_add(1) != 0) shared = true;
        const long version = added[*item].load();
        if (version > seen[*item].load()) seen[*item].store(version);  // one holder at a time
        holders[*item].fetch_sub(1);
        q.Done(*item);
      }
    });
  }
  {
    std::vector<std::jthread> producers;
    for (int p = 0; p < kProducers; ++p) {
      producers.emplace_back([&, p] {
        for (int n = 0; n < kAddsPerProducer; ++n) {
          const int key = (n * 7 + p * 13) % kKeys;
          added[key].fetch_add(1);
          q.Add(key);
        }
      });
    }
  }
  q.ShutDownWithDrain();  // hands out what is still queued and waits for it
  workers.clear();
  EXPECT_FALSE(shared.load()) << "two workers held one item at once";
  for (int k = 0; k < kKeys; ++k) {
    EXPECT_GT(added[k].load(), 0);
    EXPECT_EQ(seen[k].load(), added[k].load()) << "key " << k << " not processed after its last add";
  }
  EXPECT_EQ(q.Len(), 0u);
}

TEST(Queue, MetricsCountAddsDepthAndDurationsOnTheInjectedClock) {
  FakeClock clock;
  FakeMetricsProvider provider;
  {
    Queue<std::string> q(
        {.name = "test", .metrics_provider = &provider,
         .unfinished_work_update_period = Clock::Duration::zero()},
        clock);
    q.Add("a");
    q.Add("a");  // deduplicated: not counted
    q.Add("b");
    EXPECT_EQ(provider.Value(kAddsMetric, "test"), 2);
    EXPECT_EQ(provider.Value(kDepthMetric, "test"), 2);

    clock.Advance(std::chrono::seconds(2));
    ASSERT_EQ(q.Get(), "a");
    EXPECT_EQ(provider.Value(kDepthMetric, "test"), 1);
    EXPECT_THAT(provider.Observations(kQueueDurationMetric, "test"), ElementsAre(2.0));

    clock.Advance(std::chrono::seconds(3));
    q.UpdateUnfinishedWork();
    EXPECT_EQ(provider.Value(kUnfinishedWorkMetric, "test"), 3);
    EXPECT_EQ(provider.Value(kLongestRunningProcessorMetric, "test"), 3);

    ASSERT_EQ(q.Get(), "b");
    clock.Advance(std::chrono::seconds(1));
    q.UpdateUnfinishedWork();
    EXPECT_EQ(provider.Value(kUnfinishedWorkMetric, "test"), 4 + 1);
    EXPECT_EQ(provider.Value(kLongestRunningProcessorMetric, "test"), 4);

    q.Done("a");
    EXPECT_THAT(provider.Observations(kWorkDurationMetric, "test"), ElementsAre(4.0));
    q.Done("b");
    q.UpdateUnfinishedWork();
    EXPECT_EQ(provider.Value(kUnfinishedWorkMetric, "test"), 0);
    EXPECT_EQ(provider.Value(kLongestRunningProcessorMetric, "test"), 0);
  }
  EXPECT_EQ(provider.Created(kRetriesMetric, "test"), 1u);
  EXPECT_EQ(provider.Created(kDepthMetric, "test"), 1u);
}

TEST(Queue, DepthCountsAnItemReAddedWhileProcessing) {
  // client-go counts an add (and depth) when the item becomes dirty, even while it is processed.
  FakeClock clock;
  FakeMetricsProvider provider;
  Queue<std::string> q({.name = "q", .metrics_provider = &provider,
                        .unfinished_work_update_period = Clock::Duration::zero()},
                       clock);
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  EXPECT_EQ(provider.Value(kDepthMetric, "q"), 0);
  clock.Advance(std::chrono::seconds(1));
  q.Add("a");
  EXPECT_EQ(provider.Value(kDepthMetric, "q"), 1);
  EXPECT_EQ(provider.Value(kAddsMetric, "q"), 2);
  clock.Advance(std::chrono::seconds(5));
  q.Done("a");
  ASSERT_EQ(q.Get(), "a");
  EXPECT_EQ(provider.Value(kDepthMetric, "q"), 0);
  // Queue latency runs from the re-add, not from the first add.
  EXPECT_THAT(provider.Observations(kQueueDurationMetric, "q"), ElementsAre(0.0, 5.0));
}

TEST(Queue, UnfinishedWorkIsPublishedPeriodicallyOnTheClock) {
  FakeClock clock;
  FakeMetricsProvider provider;
  Queue<std::string> q({.name = "q", .metrics_provider = &provider}, clock);  // 500 ms period
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  ASSERT_TRUE(clock.BlockUntilWaiters(1));  // the metrics thread sleeps on the clock
  clock.Advance(std::chrono::milliseconds(500));
  EXPECT_TRUE(provider.AwaitValue(kLongestRunningProcessorMetric, "q", 0.5));
  EXPECT_TRUE(provider.AwaitValue(kUnfinishedWorkMetric, "q", 0.5));
}

TEST(Queue, NoMetricsProviderMeansNoMetricsThread) {
  FakeClock clock;
  Queue<std::string> q({}, clock);
  q.Add("a");
  EXPECT_EQ(clock.Waiters(), 0u);
}

}  // namespace
}  // namespace kube::workqueue
