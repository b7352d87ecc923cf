#include <kube/cache/delta_fifo.hpp>

#include <algorithm>
#include <atomic>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "cache/test_objects.hpp"

namespace kube::cache {
namespace {

using testing::Obj;

std::vector<DeltaType> Types(const Deltas& d) {
  std::vector<DeltaType> t;
  for (const auto& x : d) t.push_back(x.type);
  return t;
}

// Pops one key and returns its deltas (process does nothing).
Deltas PopOne(DeltaFifo& f, bool* initial = nullptr) {
  auto r = f.Pop([&](const Deltas&, bool is_initial) {
    if (initial) *initial = is_initial;
    return ProcessResult{};
  });
  EXPECT_TRUE(r.ok());
  return r.ok() ? *r : Deltas{};
}

TEST(DeltaFifo, AccumulatesDeltasPerKeyInFifoOrderOfFirstAdd) {
  DeltaFifo f;
  ASSERT_TRUE(f.Add(Obj("n", "a", "1")).ok());
  ASSERT_TRUE(f.Add(Obj("n", "b", "1")).ok());
  ASSERT_TRUE(f.Update(Obj("n", "a", "2")).ok());
  EXPECT_EQ(f.ListKeys(), (std::vector<std::string>{"n/a", "n/b"}));
  auto a = PopOne(f);
  EXPECT_EQ(Types(a), (std::vector<DeltaType>{DeltaType::kAdded, DeltaType::kUpdated}));
  EXPECT_EQ(a[1].object->ResourceVersion(), "2");
  auto b = PopOne(f);
  EXPECT_EQ(b[0].object->Name(), "b");
  EXPECT_EQ(f.Len(), 0u);
}

TEST(DeltaFifo, ConsecutiveDeletesCollapseKeepingTheRealOne) {
  Indexer known;
  known.Add(Obj("n", "a", "1"));
  DeltaFifo f({.key_func = {}, .known_objects = &known, .emit_replaced = true});
  ASSERT_TRUE(f.Delete(Obj("n", "a", "2")).ok());
  ASSERT_TRUE(f.Delete(Obj("n", "a", "3")).ok());
  auto d = f.GetByKey("n/a");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].object->ResourceVersion(), "3");
  // A tombstone after a real delete collapses into the real delete.
  ASSERT_TRUE(f.Replace({}, "10").ok());
  d = f.GetByKey("n/a");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_FALSE(d[0].FinalStateUnknown());
}

TEST(DeltaFifo, DeleteOfAnUnknownKeyIsIgnored) {
  Indexer known;
  DeltaFifo f({.key_func = {}, .known_objects = &known, .emit_replaced = true});
  ASSERT_TRUE(f.Delete(Obj("n", "ghost", "1")).ok());
  EXPECT_EQ(f.Len(), 0u);
  DeltaFifo no_known;
  ASSERT_TRUE(no_known.Delete(Obj("n", "ghost", "1")).ok());
  EXPECT_EQ(no_known.Len(), 0u);
}

TEST(DeltaFifo, ReplaceEmitsReplacedAndDeletedFinalStateUnknownForKeysMissingFromList) {
  Indexer known;
  known.Add(Obj("n", "kept", "1"));
  known.Add(Obj("n", "gone", "1"));
  DeltaFifo f({.key_func = {}, .known_objects = &known, .emit_replaced = true});
  ASSERT_TRUE(f.Add(Obj("n", "queued-gone", "5")).ok());
  ASSERT_TRUE(f.Replace({Obj("n", "kept", "2"), Obj("n", "new", "3")}, "9").ok());

  auto queued = f.GetByKey("n/queued-gone");
  ASSERT_EQ(Types(queued), (std::vector<DeltaType>{DeltaType::kAdded, DeltaType::kDeleted}));
  ASSERT_TRUE(queued[1].FinalStateUnknown());
  EXPECT_EQ(queued[1].tombstone->key, "n/queued-gone");
  EXPECT_EQ(queued[1].object->ResourceVersion(), "5");  // the last queued state

  auto gone = f.GetByKey("n/gone");
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_EQ(gone[0].type, DeltaType::kDeleted);
  ASSERT_TRUE(gone[0].FinalStateUnknown());
  EXPECT_EQ(gone[0].object->ResourceVersion(), "1");  // last state known to the store

  EXPECT_EQ(Types(f.GetByKey("n/kept")), (std::vector<DeltaType>{DeltaType::kReplaced}));
  EXPECT_EQ(Types(f.GetByKey("n/new")), (std::vector<DeltaType>{DeltaType::kReplaced}));
}

TEST(DeltaFifo, ReplaceWithoutKnownObjectsDetectsOnlyQueuedKeys) {
  DeltaFifo f;
  ASSERT_TRUE(f.Add(Obj("n", "a", "1")).ok());
  ASSERT_TRUE(f.Replace({}, "2").ok());
  auto d = f.GetByKey("n/a");
  ASSERT_EQ(d.size(), 2u);
  EXPECT_TRUE(d[1].FinalStateUnknown());
}

TEST(DeltaFifo, LegacyReplaceEmitsSync) {
  DeltaFifo f({.key_func = {}, .known_objects = nullptr, .emit_replaced = false});
  ASSERT_TRUE(f.Replace({Obj("n", "a", "1")}, "1").ok());
  EXPECT_EQ(Types(f.GetByKey("n/a")), (std::vector<DeltaType>{DeltaType::kSync}));
}

TEST(DeltaFifo, HasSyncedAfterTheFirstReplacedBatchIsPoppedAndIsInInitialListIsReported) {
  Indexer known;
  known.Add(Obj("n", "stale", "1"));
  DeltaFifo f({.key_func = {}, .known_objects = &known, .emit_replaced = true});
  EXPECT_FALSE(f.HasSynced());
  ASSERT_TRUE(f.Replace({Obj("n", "a", "1"), Obj("n", "b", "1")}, "5").ok());
  EXPECT_FALSE(f.HasSynced());
  bool initial = false;
  PopOne(f, &initial);
  EXPECT_TRUE(initial);
  EXPECT_FALSE(f.HasSynced());
  PopOne(f, &initial);
  EXPECT_TRUE(initial);
  EXPECT_FALSE(f.HasSynced());  // the tombstone for n/stale is part of the initial batch
  PopOne(f, &initial);
  EXPECT_TRUE(initial);
  EXPECT_TRUE(f.HasSynced());
  ASSERT_TRUE(f.Add(Obj("n", "later", "6")).ok());
  PopOne(f, &initial);
  EXPECT_FALSE(initial);
  // A second Replace does not reset the synced state.
  ASSERT_TRUE(f.Replace({Obj("n", "x", "7")}, "7").ok());
  EXPECT_TRUE(f.HasSynced());
}

TEST(DeltaFifo, NotSyncedWhileTheLastInitialItemIsStillBeingProcessed) {
  // HasSynced means "every initial item is in the store": an informer must not report synced
  // while the last one is still being processed (client-go holds the queue lock over process).
  DeltaFifo f;
  ASSERT_TRUE(f.Replace({Obj("n", "a", "1")}, "5").ok());
  bool synced_during_process = true;
  ASSERT_TRUE(f.Pop([&](const Deltas&, bool) {
                 synced_during_process = f.HasSynced();
                 return ProcessResult{};
               }).ok());
  EXPECT_FALSE(synced_during_process);
  EXPECT_TRUE(f.HasSynced());
}

TEST(DeltaFifo, AddBeforeReplaceCountsAsPopulated) {
  DeltaFifo f;
  ASSERT_TRUE(f.Add(Obj("n", "a", "1")).ok());
  EXPECT_TRUE(f.HasSynced());  // populated, initial count 0 (client-go semantics)
}

TEST(DeltaFifo, ResyncQueuesSyncForKnownObjectsWithoutPendingDeltas) {
  Indexer known;
  known.Add(Obj("n", "a", "1"));
  known.Add(Obj("n", "b", "1"));
  DeltaFifo f({.key_func = {}, .known_objects = &known, .emit_replaced = true});
  ASSERT_TRUE(f.Update(Obj("n", "b", "2")).ok());
  ASSERT_TRUE(f.Resync().ok());
  EXPECT_EQ(Types(f.GetByKey("n/a")), (std::vector<DeltaType>{DeltaType::kSync}));
  EXPECT_EQ(Types(f.GetByKey("n/b")), (std::vector<DeltaType>{DeltaType::kUpdated}));
}

TEST(DeltaFifo, RequeueOnRetryableProcessingErrorPutsDeltasBack) {
  DeltaFifo f;
  ASSERT_TRUE(f.Add(Obj("n", "a", "1")).ok());
  auto r = f.Pop([](const Deltas&, bool) { return ProcessResult{BadRequest("try later"), true}; });
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsBadRequest(r.error()));
  ASSERT_EQ(f.Len(), 1u);
  EXPECT_EQ(Types(f.GetByKey("n/a")), (std::vector<DeltaType>{DeltaType::kAdded}));
  // The requeued deltas are popped again, and a success consumes them.
  auto r2 = f.Pop([](const Deltas& d, bool) {
    EXPECT_EQ(d.size(), 1u);
    return ProcessResult{};
  });
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(f.Len(), 0u);
}

TEST(DeltaFifo, PopBlocksUntilAddAndCloseWakesIt) {
  DeltaFifo f;
  std::atomic<int> outcome{-1};
  std::jthread popper([&] {
    auto r = f.Pop([](const Deltas&, bool) { return ProcessResult{}; });
    outcome = r.ok() ? 1 : 0;
  });
  ASSERT_TRUE(f.Add(Obj("n", "a", "1")).ok());
  popper.join();
  EXPECT_EQ(outcome.load(), 1);

  std::jthread closed_popper([&] {
    auto r = f.Pop([](const Deltas&, bool) { return ProcessResult{}; });
    outcome = (!r.ok() && IsCanceled(r.error())) ? 2 : 3;
  });
  f.Close();
  closed_popper.join();
  EXPECT_EQ(outcome.load(), 2);
  EXPECT_TRUE(f.IsClosed());
}

TEST(DeltaFifo, ItemsQueuedBeforeCloseAreStillPopped) {
  DeltaFifo f;
  ASSERT_TRUE(f.Add(Obj("n", "a", "1")).ok());
  f.Close();
  EXPECT_TRUE(f.Pop([](const Deltas&, bool) { return ProcessResult{}; }).ok());
  EXPECT_FALSE(f.Pop([](const Deltas&, bool) { return ProcessResult{}; }).ok());
}

TEST(DeltaFifo, NullObjectsAreRejected) {
  DeltaFifo f;
  EXPECT_FALSE(f.Add(nullptr).ok());
  EXPECT_FALSE(f.Update(nullptr).ok());
  EXPECT_FALSE(f.Delete(nullptr).ok());
}

// ---- PopBatch ----

std::vector<ObjectPtr> ManyObjects(int n, std::string_view rv = "1") {
  std::vector<ObjectPtr> out;
  out.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out.push_back(Obj("n", fmt::format("o{:05d}", i), rv));
  return out;
}

TEST(DeltaFifoPopBatch, HandsOutUpToMaxKeysOldestFirstWithTheirDeltas) {
  DeltaFifo f;
  ASSERT_TRUE(f.Add(Obj("n", "a", "1")).ok());
  ASSERT_TRUE(f.Add(Obj("n", "b", "1")).ok());
  ASSERT_TRUE(f.Update(Obj("n", "a", "2")).ok());
  ASSERT_TRUE(f.Add(Obj("n", "c", "1")).ok());
  std::vector<std::string> keys;
  std::vector<std::size_t> sizes;
  auto r = f.PopBatch(2, [&](std::span<PoppedDeltas> batch) {
    for (auto& p : batch) {
      keys.push_back(f.KeyOf(p.deltas));
      sizes.push_back(p.deltas.size());
    }
  });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 2u);
  EXPECT_EQ(keys, (std::vector<std::string>{"n/a", "n/b"}));
  EXPECT_EQ(sizes, (std::vector<std::size_t>{2, 1}));
  EXPECT_EQ(f.ListKeys(), (std::vector<std::string>{"n/c"}));
  // Fewer queued than max: all of them.
  r = f.PopBatch(100, [&](std::span<PoppedDeltas> batch) { EXPECT_EQ(batch.size(), 1u); });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 1u);
  EXPECT_EQ(f.Len(), 0u);
}

TEST(DeltaFifoPopBatch, ZeroMaxIsRejectedAndClosedEmptyFifoIsCanceled) {
  DeltaFifo f;
  ASSERT_TRUE(f.Add(Obj("n", "a", "1")).ok());
  auto r = f.PopBatch(0, [](std::span<PoppedDeltas>) { ADD_FAILURE() << "must not be called"; });
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsBadRequest(r.error()));
  EXPECT_EQ(f.Len(), 1u);
  f.Close();
  EXPECT_TRUE(f.PopBatch(8, [](std::span<PoppedDeltas>) {}).ok());  // queued before Close
  r = f.PopBatch(8, [](std::span<PoppedDeltas>) { ADD_FAILURE() << "must not be called"; });
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsCanceled(r.error()));
}

TEST(DeltaFifoPopBatch, InitialListFlagsAndHasSyncedOnlyAfterTheBatchIsProcessed) {
  DeltaFifo f;
  ASSERT_TRUE(f.Replace({Obj("n", "a", "1"), Obj("n", "b", "1"), Obj("n", "c", "1")}, "5").ok());
  ASSERT_TRUE(f.Add(Obj("n", "d", "6")).ok());
  // The batch holds the three initial keys and a later one, flagged as client-go's Pop would.
  bool synced_during = true;
  std::vector<bool> initial;
  ASSERT_TRUE(f.PopBatch(10, [&](std::span<PoppedDeltas> batch) {
                 synced_during = f.HasSynced();
                 for (auto& p : batch) initial.push_back(p.is_in_initial_list);
               }).ok());
  EXPECT_EQ(initial, (std::vector<bool>{true, true, true, false}));
  EXPECT_FALSE(synced_during);  // the last initial key was not in the store yet
  EXPECT_TRUE(f.HasSynced());
}

TEST(DeltaFifoPopBatch, RequeuedKeysGoBackUnlessNewerDeltasArrived) {
  DeltaFifo f;
  ASSERT_TRUE(f.Add(Obj("n", "a", "1")).ok());
  ASSERT_TRUE(f.Add(Obj("n", "b", "1")).ok());
  ASSERT_TRUE(f.PopBatch(10, [&](std::span<PoppedDeltas> batch) {
                 for (auto& p : batch) p.result = ProcessResult{BadRequest("retry"), true};
                 // b changes while the batch is processed: its new deltas win over the requeue.
                 ASSERT_TRUE(f.Update(Obj("n", "b", "2")).ok());
               }).ok());
  EXPECT_EQ(f.ListKeys(), (std::vector<std::string>{"n/b", "n/a"}));
  EXPECT_EQ(Types(f.GetByKey("n/a")), (std::vector<DeltaType>{DeltaType::kAdded}));
  EXPECT_EQ(Types(f.GetByKey("n/b")), (std::vector<DeltaType>{DeltaType::kUpdated}));
}

TEST(DeltaFifoPopBatch, AThrowingBatchPutsEveryKeyBackAtTheFrontInOrder) {
  DeltaFifo f;
  ASSERT_TRUE(f.Replace({Obj("n", "a", "1"), Obj("n", "b", "1"), Obj("n", "c", "1")}, "1").ok());
  EXPECT_THROW((void)f.PopBatch(3,
                                [&](std::span<PoppedDeltas>) {
                                  ASSERT_TRUE(f.Add(Obj("n", "later", "1")).ok());
                                  throw std::runtime_error("handler bug");
                                }),
               std::runtime_error);
  EXPECT_EQ(f.ListKeys(), (std::vector<std::string>{"n/a", "n/b", "n/c", "n/later"}));
  // The initial keys put back are still to be processed: not synced until they are.
  EXPECT_FALSE(f.HasSynced());
  ASSERT_TRUE(f.PopBatch(3, [](std::span<PoppedDeltas>) {}).ok());
  EXPECT_TRUE(f.HasSynced());
  ASSERT_TRUE(f.Add(Obj("n", "c", "1")).ok());
  // The FIFO is usable afterwards (the batch is no longer in flight).
  EXPECT_TRUE(f.Delete(Obj("n", "c", "2")).ok());
  EXPECT_EQ(Types(f.GetByKey("n/c")), (std::vector<DeltaType>{DeltaType::kAdded, DeltaType::kDeleted}));
  EXPECT_EQ(f.ListKeys(), (std::vector<std::string>{"n/later", "n/c"}));
}

// Pops one key with PopBatch; while its batch is in flight, runs `call` on another thread and
// gives it ample time to finish, then stores the popped object in `store` (as an informer
// would) and ends the batch. Returns whether `call` finished while the batch was in flight.
bool FinishesDuringABatch(DeltaFifo& f, Indexer& store, const std::function<void()>& call) {
  std::atomic<bool> started{false};
  std::atomic<bool> finished{false};
  bool finished_during_batch = true;
  std::jthread caller;
  EXPECT_TRUE(f.PopBatch(1, [&](std::span<PoppedDeltas> batch) {
                 caller = std::jthread([&] {
                   started = true;
                   call();
                   finished = true;
                 });
                 while (!started) std::this_thread::yield();
                 for (int i = 0; i < 20000 && !finished; ++i) std::this_thread::yield();
                 finished_during_batch = finished;
                 store.Add(batch[0].deltas.back().object);
               }).ok());
  caller.join();
  return finished_during_batch;
}

TEST(DeltaFifoPopBatch, DeleteOfAKeyInFlightWaitsForTheBatchSoItIsNotLost) {
  // The key being processed is in neither the queue nor the store: a Delete that did not wait
  // would find it unknown and drop it, leaving the object in the store for good.
  Indexer store;
  DeltaFifo f({.key_func = {}, .known_objects = &store, .emit_replaced = true});
  ASSERT_TRUE(f.Add(Obj("n", "a", "1")).ok());
  EXPECT_FALSE(FinishesDuringABatch(f, store, [&] { EXPECT_TRUE(f.Delete(Obj("n", "a", "2")).ok()); }));
  EXPECT_EQ(Types(f.GetByKey("n/a")), (std::vector<DeltaType>{DeltaType::kDeleted}));
}

TEST(DeltaFifoPopBatch, ResyncWaitsForTheBatchSoItNeverQueuesAStaleObject) {
  // While n/a@2 is being processed the store still holds n/a@1: a Resync then would queue a Sync
  // of the stale object, and processing it would roll the store back.
  Indexer store;
  store.Add(Obj("n", "a", "1"));
  DeltaFifo f({.key_func = {}, .known_objects = &store, .emit_replaced = true});
  ASSERT_TRUE(f.Update(Obj("n", "a", "2")).ok());
  EXPECT_FALSE(FinishesDuringABatch(f, store, [&] { EXPECT_TRUE(f.Resync().ok()); }));
  auto d = f.GetByKey("n/a");
  ASSERT_EQ(Types(d), (std::vector<DeltaType>{DeltaType::kSync}));
  EXPECT_EQ(d[0].object->ResourceVersion(), "2");
}

TEST(DeltaFifoPopBatch, ReplaceWaitsForTheBatchSoItDetectsTheDeletionOfAKeyInFlight) {
  // A relist without n/a while n/a is being processed: had it not waited, n/a would be in
  // neither the queue nor the store, get no tombstone, and stay in the store for good.
  Indexer store;
  DeltaFifo f({.key_func = {}, .known_objects = &store, .emit_replaced = true});
  ASSERT_TRUE(f.Add(Obj("n", "a", "1")).ok());
  EXPECT_FALSE(FinishesDuringABatch(f, store, [&] { EXPECT_TRUE(f.Replace({Obj("n", "b", "5")}, "5").ok()); }));
  auto d = f.GetByKey("n/a");
  ASSERT_EQ(Types(d), (std::vector<DeltaType>{DeltaType::kDeleted}));
  EXPECT_TRUE(d[0].FinalStateUnknown());
}

TEST(DeltaFifoPopBatch, AddAndUpdateProceedWhileABatchIsInFlight) {
  DeltaFifo f;
  ASSERT_TRUE(f.Add(Obj("n", "a", "1")).ok());
  ASSERT_TRUE(f.PopBatch(1, [&](std::span<PoppedDeltas>) {
                 // Called from the processing thread itself: would deadlock if Add waited.
                 ASSERT_TRUE(f.Add(Obj("n", "b", "1")).ok());
                 ASSERT_TRUE(f.Update(Obj("n", "a", "2")).ok());
               }).ok());
  EXPECT_EQ(f.ListKeys(), (std::vector<std::string>{"n/b", "n/a"}));
}

// ---- the initial Replace, queued in chunks while a consumer pops ----

TEST(DeltaFifoInitialReplace, AConcurrentConsumerGetsEveryObjectOnceAllFlaggedInitial) {
  constexpr int kObjects = 5000;  // many chunks
  Indexer store;
  DeltaFifo f({.key_func = {}, .known_objects = &store, .emit_replaced = true});
  std::atomic<bool> consumer_done{false};
  std::vector<std::string> seen;
  int not_initial = 0;
  int synced_early = 0;
  std::jthread consumer([&] {
    while (static_cast<int>(seen.size()) < kObjects + 1) {
      auto r = f.PopBatch(64, [&](std::span<PoppedDeltas> batch) {
        // Another writer while the list is (most likely) still being queued: it must not make
        // the FIFO look synced before the list's last object is processed (it may itself count
        // as initial or not, depending on when it lands).
        if (seen.empty()) {
          EXPECT_TRUE(f.Add(Obj("x", "concurrent", "1")).ok());
        }
        for (auto& p : batch) {
          const std::string key = f.KeyOf(p.deltas);
          if (key == "x/concurrent") {
            seen.push_back(key);
            continue;
          }
          if (!p.is_in_initial_list) ++not_initial;
          if (f.HasSynced()) ++synced_early;
          seen.push_back(key);
          EXPECT_EQ(p.deltas.size(), 1u);
          EXPECT_EQ(p.deltas[0].type, DeltaType::kReplaced);
          store.Add(p.deltas[0].object);
        }
      });
      if (!r.ok()) break;
    }
    consumer_done = true;
  });
  auto list = ManyObjects(kObjects);
  ASSERT_TRUE(f.Replace(std::move(list), "100").ok());
  consumer.join();
  ASSERT_TRUE(consumer_done);
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(kObjects + 1));
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::unique(seen.begin(), seen.end()), seen.end());
  EXPECT_EQ(not_initial, 0);
  EXPECT_EQ(synced_early, 0);
  EXPECT_TRUE(f.HasSynced());
  EXPECT_EQ(store.Size(), static_cast<std::size_t>(kObjects));
}

TEST(DeltaFifoInitialReplace, NotSyncedUntilItsLastObjectIsProcessedAndALaterAddIsNotInitial) {
  constexpr int kObjects = 3000;
  DeltaFifo f;
  ASSERT_TRUE(f.Replace(ManyObjects(kObjects), "100").ok());
  EXPECT_FALSE(f.HasSynced());
  ASSERT_TRUE(f.Add(Obj("x", "late", "101")).ok());  // after the list: not in the initial population
  int popped = 0;
  while (popped < kObjects) {
    EXPECT_FALSE(f.HasSynced());
    const auto max = static_cast<std::size_t>(std::min(700, kObjects - popped));  // not the Add yet
    auto r = f.PopBatch(max, [&](std::span<PoppedDeltas> batch) {
      for (auto& p : batch) EXPECT_TRUE(p.is_in_initial_list) << f.KeyOf(p.deltas);
    });
    ASSERT_TRUE(r.ok());
    popped += static_cast<int>(*r);
  }
  EXPECT_TRUE(f.HasSynced());
  bool initial = true;
  PopOne(f, &initial);
  EXPECT_FALSE(initial);  // the Add came after the list
}

TEST(DeltaFifoInitialReplace, ALaterLargeRelistStillDetectsDeletions) {
  // Only the first Replace into an empty FIFO and store is chunked; a relist of as many
  // objects must still tombstone what disappeared, from the queue and from the store.
  constexpr int kObjects = 2000;
  Indexer store;
  DeltaFifo f({.key_func = {}, .known_objects = &store, .emit_replaced = true});
  ASSERT_TRUE(f.Replace(ManyObjects(kObjects), "100").ok());
  while (f.Len() > 0) {
    ASSERT_TRUE(f.PopBatch(512, [&](std::span<PoppedDeltas> batch) {
                   for (auto& p : batch) store.Add(p.deltas.back().object);
                 }).ok());
  }
  ASSERT_TRUE(f.Add(Obj("n", "queued-only", "200")).ok());
  auto relist = ManyObjects(kObjects, "300");
  relist.erase(relist.begin());  // n/o00000 is gone
  ASSERT_TRUE(f.Replace(relist, "300").ok());
  ASSERT_EQ(relist.size(), static_cast<std::size_t>(kObjects - 1));
  EXPECT_NE(relist.front(), nullptr);  // the const& form leaves the caller's list alone
  auto gone = f.GetByKey("n/o00000");
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_TRUE(gone[0].FinalStateUnknown());
  auto queued = f.GetByKey("n/queued-only");
  ASSERT_EQ(Types(queued), (std::vector<DeltaType>{DeltaType::kAdded, DeltaType::kDeleted}));
  EXPECT_TRUE(queued[1].FinalStateUnknown());
  EXPECT_EQ(Types(f.GetByKey("n/o00001")), (std::vector<DeltaType>{DeltaType::kReplaced}));
}

TEST(DeltaFifoInitialReplace, TheRvalueFormTakesTheListsReferences) {
  DeltaFifo f;
  auto list = ManyObjects(1500);
  const ObjectPtr first = list.front();
  ASSERT_EQ(first.use_count(), 2);
  ASSERT_TRUE(f.Replace(std::move(list), "1").ok());
  EXPECT_EQ(first.use_count(), 2);  // ours and the queue's: the list's reference moved
  EXPECT_EQ(f.GetByKey("n/o00000")[0].object, first);
}

// Queued keys are not stored: each is derived from its deltas (tombstone or object).
TEST(DeltaFifoKeys, KeyOfIsTheTombstonesKeyOrTheObjectsKey) {
  Indexer known;
  known.Add(Obj("n", "gone", "1"));
  DeltaFifo f({.key_func = {}, .known_objects = &known, .emit_replaced = true});
  EXPECT_EQ(f.KeyOf(Deltas{}), "");
  ASSERT_TRUE(f.Add(Obj("", "cluster-scoped", "2")).ok());
  ASSERT_TRUE(f.Replace({Obj("", "cluster-scoped", "3")}, "3").ok());  // "n/gone" missing: a tombstone
  EXPECT_EQ(f.ListKeys(), (std::vector<std::string>{"cluster-scoped", "n/gone"}));
  EXPECT_EQ(f.KeyOf(PopOne(f)), "cluster-scoped");
  const Deltas gone = PopOne(f);
  ASSERT_EQ(gone.size(), 1u);
  ASSERT_TRUE(gone[0].FinalStateUnknown());
  EXPECT_EQ(f.KeyOf(gone), "n/gone");
  // A requeued tombstone finds its key again.
  ASSERT_TRUE(f.Replace({}, "4").ok());
  ASSERT_FALSE(f.Pop([](const Deltas&, bool) { return ProcessResult{BadRequest("later"), true}; }).ok());
  EXPECT_EQ(f.ListKeys(), (std::vector<std::string>{"n/gone"}));
  EXPECT_EQ(f.GetByKey("n/gone").size(), 1u);
}

TEST(DeltaFifoKeys, ACustomKeyFuncGroupsDeltasAndIsUsedForEveryLookup) {
  const KeyFunc by_name = [](const Object& o) { return "k:" + std::string(o.Name()); };
  Indexer known({}, by_name);
  known.Add(Obj("one", "stored", "1"));
  DeltaFifo f({.key_func = by_name, .known_objects = &known, .emit_replaced = true});
  ASSERT_TRUE(f.Add(Obj("one", "a", "1")).ok());
  ASSERT_TRUE(f.Update(Obj("two", "a", "2")).ok());  // same custom key: same entry
  ASSERT_TRUE(f.Add(Obj("one", "b", "3")).ok());
  EXPECT_EQ(f.ListKeys(), (std::vector<std::string>{"k:a", "k:b"}));
  EXPECT_EQ(Types(f.GetByKey("k:a")), (std::vector<DeltaType>{DeltaType::kAdded, DeltaType::kUpdated}));
  EXPECT_TRUE(f.GetByKey("one/a").empty());
  ASSERT_TRUE(f.Delete(Obj("elsewhere", "stored", "4")).ok());  // known under its custom key
  EXPECT_EQ(Types(f.GetByKey("k:stored")), (std::vector<DeltaType>{DeltaType::kDeleted}));
  ASSERT_TRUE(f.Replace({Obj("one", "a", "5")}, "5").ok());
  const Deltas b = f.GetByKey("k:b");
  ASSERT_EQ(b.size(), 2u);
  ASSERT_TRUE(b[1].FinalStateUnknown());
  EXPECT_EQ(b[1].tombstone->key, "k:b");
  const Deltas a = PopOne(f);
  EXPECT_EQ(f.KeyOf(a), "k:a");
  EXPECT_EQ(Types(a), (std::vector<DeltaType>{DeltaType::kAdded, DeltaType::kUpdated, DeltaType::kReplaced}));
}

TEST(DeltaFifoKeys, AKeyLongerThanTheStackBufferWorksLikeAnyOther) {
  const std::string ns(63, 'n');
  const std::string name(253, 'x');
  const std::string key = ns + "/" + name;
  DeltaFifo f;
  ASSERT_TRUE(f.Add(Obj(ns, name, "1")).ok());
  ASSERT_TRUE(f.Update(Obj(ns, name, "2")).ok());
  EXPECT_EQ(f.ListKeys(), (std::vector<std::string>{key}));
  EXPECT_EQ(f.GetByKey(key).size(), 2u);
  ASSERT_FALSE(f.Pop([](const Deltas&, bool) { return ProcessResult{BadRequest("later"), true}; }).ok());
  const Deltas d = PopOne(f);
  EXPECT_EQ(f.KeyOf(d), key);
  EXPECT_EQ(d.size(), 2u);
}

TEST(DeltaFifoKeys, ManyKeysSurviveGrowthDrainingAndReuse) {
  // Enough keys that the key set grows several times, then is released when drained (see
  // PopFrontLocked), then is used again.
  constexpr int kKeys = 20000;
  DeltaFifo f;
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < kKeys; ++i) ASSERT_TRUE(f.Add(Obj("n", "o" + std::to_string(i), "1")).ok());
    for (int i = 0; i < kKeys; i += 2) ASSERT_TRUE(f.Update(Obj("n", "o" + std::to_string(i), "2")).ok());
    ASSERT_EQ(f.Len(), static_cast<std::size_t>(kKeys));
    for (int i = 0; i < kKeys; i += 997) {
      EXPECT_EQ(f.GetByKey("n/o" + std::to_string(i)).size(), i % 2 == 0 ? 2u : 1u) << i;
    }
    EXPECT_TRUE(f.GetByKey("n/missing").empty());
    for (int i = 0; i < kKeys; ++i) {
      const Deltas d = PopOne(f);
      ASSERT_EQ(f.KeyOf(d), "n/o" + std::to_string(i));
      ASSERT_EQ(d.size(), i % 2 == 0 ? 2u : 1u);
    }
    EXPECT_EQ(f.Len(), 0u);
    EXPECT_TRUE(f.GetByKey("n/o0").empty());
  }
}

TEST(DeltaType, Names) {
  EXPECT_EQ(DeltaTypeName(DeltaType::kReplaced), "Replaced");
  EXPECT_EQ(DeltaTypeName(DeltaType::kSync), "Sync");
}

}  // namespace
}  // namespace kube::cache
