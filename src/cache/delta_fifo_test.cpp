#include <kube/cache/delta_fifo.hpp>

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

TEST(DeltaType, Names) {
  EXPECT_EQ(DeltaTypeName(DeltaType::kReplaced), "Replaced");
  EXPECT_EQ(DeltaTypeName(DeltaType::kSync), "Sync");
}

}  // namespace
}  // namespace kube::cache
