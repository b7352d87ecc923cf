#include <kube/cache/shared_informer.hpp>

#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "cache/test_objects.hpp"

namespace kube::cache {
namespace {

using namespace std::chrono_literals;
using testing::Obj;

// Records notifications as strings; tests block (real time, on a condition variable) for them.
class Recorder final : public ResourceEventHandler {
 public:
  void OnAdd(const ObjectPtr& o, bool initial) override {
    Record(fmt::format("add {}@{}{}", o->Key(), o->ResourceVersion(), initial ? " initial" : ""));
  }
  void OnUpdate(const ObjectPtr& old_obj, const ObjectPtr& new_obj) override {
    Record(fmt::format("update {}@{}->{}", new_obj->Key(), old_obj->ResourceVersion(), new_obj->ResourceVersion()));
  }
  void OnDelete(const ObjectPtr& o, bool unknown) override {
    Record(fmt::format("delete {}{}", o ? o->Key() : std::string("<nil>"), unknown ? " final-state-unknown" : ""));
  }
  bool WaitFor(std::size_t n) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    MutexLock lock(mu_);
    while (events_.size() < n) {
      if (cv_.WaitUntil(mu_, deadline) && events_.size() < n) return false;
    }
    return true;
  }
  std::vector<std::string> Events() const {
    MutexLock lock(mu_);
    return events_;
  }

 private:
  void Record(std::string s) {
    MutexLock lock(mu_);
    events_.push_back(std::move(s));
    cv_.SignalAll();
  }
  mutable Mutex mu_;
  CondVar cv_;
  std::vector<std::string> events_ KUBE_GUARDED_BY(mu_);
};

struct Fixture {
  FakeClock clock;
  std::shared_ptr<FakeListerWatcher> lw = std::make_shared<FakeListerWatcher>();
  std::unique_ptr<SharedIndexInformer> informer;
  std::jthread thread;

  explicit Fixture(InformerOptions opts = {}) {
    opts.clock = &clock;
    opts.reflector.use_watch_list = false;
    opts.reflector.backoff.rand = [] { return 0.0; };
    informer = std::make_unique<SharedIndexInformer>(lw, std::move(opts));
  }
  void Start() {
    thread = std::jthread([this](std::stop_token st) { informer->Run(st); });
  }
  ~Fixture() {
    if (thread.joinable()) {
      thread.request_stop();
      thread.join();
    }
  }
};

bool WaitUntil(const std::function<bool()>& cond) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!cond()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

TEST(SharedIndexInformer, InitialListIsDeliveredAsInitialAddsAndThenHasSynced) {
  Fixture f;
  f.lw->AddListResult(MakeObjectList({Obj("n", "a", "1"), Obj("n", "b", "2")}, "2"));
  auto rec = std::make_shared<Recorder>();
  auto reg = f.informer->AddEventHandler(rec);
  ASSERT_TRUE(reg.ok());
  f.Start();
  ASSERT_TRUE(rec->WaitFor(2));
  ASSERT_TRUE(WaitUntil([&] { return (*reg)->HasSynced(); }));
  EXPECT_TRUE(f.informer->HasSynced());
  auto events = rec->Events();
  std::sort(events.begin(), events.end());
  EXPECT_EQ(events, (std::vector<std::string>{"add n/a@1 initial", "add n/b@2 initial"}));
  EXPECT_EQ(f.informer->GetIndexer().Size(), 2u);
  // The reflector records the list's RV right after Replace returns, which may be after the
  // popped items already reached the handler (as in client-go).
  EXPECT_TRUE(WaitUntil([&] { return f.informer->LastSyncResourceVersion() == "2"; }))
      << f.informer->LastSyncResourceVersion();
}

TEST(SharedIndexInformer, LargeInitialListReachesEveryHandlerWholeThenUpdatesCarryBothObjects) {
  // More objects than one chunk of the initial Replace and one popped batch, and two handlers:
  // each gets every object (the last one the informer's own reference, the other a copy).
  constexpr int kObjects = 3000;
  Fixture f;
  std::vector<ObjectPtr> items;
  for (int i = 0; i < kObjects; ++i) items.push_back(Obj("n", fmt::format("o{:05d}", i), "1"));
  f.lw->AddListResult(MakeObjectList(items, "1"));
  items.clear();
  struct Counting final : ResourceEventHandler {
    std::atomic<int> initial_adds{0};
    std::atomic<int> bad{0};
    std::atomic<int> updates{0};
    void OnAdd(const ObjectPtr& o, bool initial) override {
      if (!o || o->Namespace() != "n" || !initial) ++bad;
      ++initial_adds;
    }
    void OnUpdate(const ObjectPtr& old_obj, const ObjectPtr& new_obj) override {
      if (!old_obj || !new_obj || old_obj->ResourceVersion() != "1" || new_obj->ResourceVersion() != "2") ++bad;
      ++updates;
    }
    void OnDelete(const ObjectPtr&, bool) override { ++bad; }
  };
  auto h1 = std::make_shared<Counting>();
  auto h2 = std::make_shared<Counting>();
  auto r1 = f.informer->AddEventHandler(h1);
  auto r2 = f.informer->AddEventHandler(h2);
  ASSERT_TRUE(r1.ok() && r2.ok());
  f.Start();
  ASSERT_TRUE(WaitUntil([&] { return (*r1)->HasSynced() && (*r2)->HasSynced(); }));
  EXPECT_EQ(h1->initial_adds.load(), kObjects);
  EXPECT_EQ(h2->initial_adds.load(), kObjects);
  EXPECT_EQ(f.informer->GetIndexer().Size(), static_cast<std::size_t>(kObjects));
  auto s = f.lw->WaitForWatch(1);
  ASSERT_TRUE(s);
  s->Push(WatchEventType::kModified, R"({"metadata":{"name":"o00007","namespace":"n","resourceVersion":"2"}})");
  ASSERT_TRUE(WaitUntil([&] { return h1->updates.load() == 1 && h2->updates.load() == 1; }));
  EXPECT_EQ(h1->bad.load(), 0);
  EXPECT_EQ(h2->bad.load(), 0);
  EXPECT_EQ(f.informer->GetIndexer().GetByKey("n/o00007")->ResourceVersion(), "2");
}

TEST(SharedIndexInformer, WatchEventsBecomeAddUpdateDelete) {
  Fixture f;
  f.lw->AddListResult(MakeObjectList({Obj("n", "a", "1")}, "1"));
  auto rec = std::make_shared<Recorder>();
  ASSERT_TRUE(f.informer->AddEventHandler(rec).ok());
  f.Start();
  auto s = f.lw->WaitForWatch(1);
  ASSERT_TRUE(s);
  ASSERT_TRUE(rec->WaitFor(1));
  // One at a time: the DeltaFIFO groups queued deltas by key, so the order across keys depends on
  // when the informer pops; per key it is always preserved.
  s->Push(WatchEventType::kAdded, R"({"metadata":{"name":"b","namespace":"n","resourceVersion":"2"}})");
  ASSERT_TRUE(rec->WaitFor(2));
  s->Push(WatchEventType::kModified, R"({"metadata":{"name":"a","namespace":"n","resourceVersion":"3"}})");
  ASSERT_TRUE(rec->WaitFor(3));
  s->Push(WatchEventType::kDeleted, R"({"metadata":{"name":"b","namespace":"n","resourceVersion":"4"}})");
  ASSERT_TRUE(rec->WaitFor(4));
  EXPECT_EQ(rec->Events(), (std::vector<std::string>{"add n/a@1 initial", "add n/b@2", "update n/a@1->3", "delete n/b"}));
  EXPECT_EQ(f.informer->GetIndexer().ListKeys(), (std::vector<std::string>{"n/a"}));
}

TEST(SharedIndexInformer, RelistThatDropsObjectsYieldsDeletedFinalStateUnknown) {
  Fixture f;
  f.lw->AddListResult(MakeObjectList({Obj("n", "a", "1"), Obj("n", "b", "2")}, "2"));
  auto rec = std::make_shared<Recorder>();
  ASSERT_TRUE(f.informer->AddEventHandler(rec).ok());
  f.Start();
  auto s = f.lw->WaitForWatch(1);
  ASSERT_TRUE(s);
  ASSERT_TRUE(rec->WaitFor(2));
  // The watch is compacted away; meanwhile b was deleted and a changed.
  f.lw->AddListResult(MakeObjectList({Obj("n", "a", "5")}, "6"));
  WatchEvent gone;
  gone.type = WatchEventType::kError;
  gone.error = MakeError(410, reason::kExpired, "too old resource version");
  s->Push(gone);
  ASSERT_TRUE(f.clock.BlockUntilWaiters(1));
  f.clock.Advance(800ms);
  ASSERT_TRUE(rec->WaitFor(4));
  auto events = rec->Events();
  std::vector<std::string> tail(events.begin() + 2, events.end());
  std::sort(tail.begin(), tail.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"delete n/b final-state-unknown", "update n/a@1->5"}));
}

TEST(SharedIndexInformer, RelistOfUnchangedObjectsDoesNotNotify) {
  Fixture f;
  f.lw->AddListResult(MakeObjectList({Obj("n", "a", "1"), Obj("n", "b", "2")}, "2"));
  auto rec = std::make_shared<Recorder>();
  ASSERT_TRUE(f.informer->AddEventHandler(rec).ok());
  f.Start();
  auto s = f.lw->WaitForWatch(1);
  ASSERT_TRUE(rec->WaitFor(2));
  f.lw->AddListResult(MakeObjectList({Obj("n", "a", "1"), Obj("n", "b", "3")}, "3"));
  WatchEvent gone;
  gone.type = WatchEventType::kError;
  gone.error = MakeError(410, reason::kExpired, "expired");
  s->Push(gone);
  ASSERT_TRUE(f.clock.BlockUntilWaiters(1));
  f.clock.Advance(800ms);
  ASSERT_TRUE(f.lw->WaitForWatch(2));
  ASSERT_TRUE(rec->WaitFor(3));
  // Only b changed; a (same resourceVersion) is a silent resync.
  EXPECT_EQ(rec->Events().back(), "update n/b@2->3");
  EXPECT_EQ(rec->Events().size(), 3u);
}

TEST(SharedIndexInformer, LateHandlerGetsSyntheticAddsAndItsOwnHasSynced) {
  Fixture f;
  f.lw->AddListResult(MakeObjectList({Obj("n", "a", "1"), Obj("n", "b", "2")}, "2"));
  f.Start();
  ASSERT_TRUE(WaitUntil([&] { return f.informer->HasSynced(); }));
  auto rec = std::make_shared<Recorder>();
  auto reg = f.informer->AddEventHandler(rec);
  ASSERT_TRUE(reg.ok());
  ASSERT_TRUE(rec->WaitFor(2));
  ASSERT_TRUE(WaitUntil([&] { return (*reg)->HasSynced(); }));
  auto events = rec->Events();
  std::sort(events.begin(), events.end());
  EXPECT_EQ(events, (std::vector<std::string>{"add n/a@1 initial", "add n/b@2 initial"}));
}

TEST(SharedIndexInformer, SlowHandlerDoesNotBlockOtherHandlers) {
  Fixture f;
  f.lw->AddListResult(MakeObjectList({}, "1"));
  Mutex gate_mu;
  bool open = false;
  CondVar gate_cv;
  auto slow_rec = std::make_shared<Recorder>();
  auto slow = std::make_shared<ResourceEventHandlerFuncs>();
  slow->add = [&](const ObjectPtr& o, bool initial) {
    {
      MutexLock lock(gate_mu);
      while (!open) gate_cv.Wait(gate_mu);
    }
    slow_rec->OnAdd(o, initial);
  };
  auto fast = std::make_shared<Recorder>();
  ASSERT_TRUE(f.informer->AddEventHandler(slow).ok());
  ASSERT_TRUE(f.informer->AddEventHandler(fast).ok());
  f.Start();
  auto s = f.lw->WaitForWatch(1);
  ASSERT_TRUE(s);
  for (int i = 0; i < 100; ++i) {
    s->Push(WatchEventType::kAdded,
            fmt::format(R"({{"metadata":{{"name":"o{}","namespace":"n","resourceVersion":"{}"}}}})", i, i + 2));
  }
  // The fast handler sees everything while the slow one is stuck on its first event.
  ASSERT_TRUE(fast->WaitFor(100));
  EXPECT_EQ(slow_rec->Events().size(), 0u);
  EXPECT_EQ(f.informer->GetIndexer().Size(), 100u);  // the cache is not held back either
  {
    MutexLock lock(gate_mu);
    open = true;
    gate_cv.SignalAll();
  }
  ASSERT_TRUE(slow_rec->WaitFor(100));
  EXPECT_EQ(slow_rec->Events(), fast->Events());  // same order
}

TEST(SharedIndexInformer, ResyncRedeliversTheLocalCacheWithoutTheServer) {
  Fixture f;
  f.lw->AddListResult(MakeObjectList({Obj("n", "a", "1")}, "1"));
  auto rec = std::make_shared<Recorder>();
  auto quiet = std::make_shared<Recorder>();
  ASSERT_TRUE(f.informer->AddEventHandler(rec, 30s).ok());
  ASSERT_TRUE(f.informer->AddEventHandler(quiet, Clock::Duration::zero()).ok());
  f.Start();
  ASSERT_TRUE(f.lw->WaitForWatch(1));
  ASSERT_TRUE(rec->WaitFor(1));
  ASSERT_TRUE(f.clock.BlockUntilWaiters(1));  // the resync loop parks until the due time
  EXPECT_EQ(f.clock.NextDeadline(), f.clock.Now() + 30s);
  f.clock.Advance(30s);
  ASSERT_TRUE(rec->WaitFor(2));
  EXPECT_EQ(rec->Events()[1], "update n/a@1->1");
  EXPECT_EQ(f.lw->ListCalls().size(), 1u);  // no server round trip
  ASSERT_TRUE(quiet->WaitFor(1));
  EXPECT_EQ(quiet->Events().size(), 1u);  // a handler without resync is not resynced
}

TEST(SharedIndexInformer, ResyncPeriodBelowOneSecondIsRaisedToOneSecond) {
  Fixture f;
  f.lw->AddListResult(MakeObjectList({}, "1"));
  ASSERT_TRUE(f.informer->AddEventHandler(std::make_shared<Recorder>(), 10ms).ok());
  f.Start();
  ASSERT_TRUE(f.lw->WaitForWatch(1));
  ASSERT_TRUE(f.clock.BlockUntilWaiters(1));
  EXPECT_EQ(f.clock.NextDeadline(), f.clock.Now() + 1s);
}

TEST(SharedIndexInformer, HandlerExceptionsAreCaughtAndCounted) {
  Fixture f;
  f.lw->AddListResult(MakeObjectList({Obj("n", "a", "1"), Obj("n", "b", "1")}, "1"));
  auto thrower = std::make_shared<ResourceEventHandlerFuncs>();
  std::atomic<int> calls{0};
  thrower->add = [&](const ObjectPtr&, bool) {
    ++calls;
    throw std::runtime_error("handler bug");
  };
  auto reg = f.informer->AddEventHandler(thrower);
  ASSERT_TRUE(reg.ok());
  f.Start();
  ASSERT_TRUE(WaitUntil([&] { return (*reg)->HandlerErrors() == 2; }));
  EXPECT_EQ(calls.load(), 2);
  ASSERT_TRUE(WaitUntil([&] { return (*reg)->HasSynced(); }));
}

TEST(SharedIndexInformer, RemovedHandlerStopsReceiving) {
  Fixture f;
  f.lw->AddListResult(MakeObjectList({}, "1"));
  auto rec = std::make_shared<Recorder>();
  auto reg = f.informer->AddEventHandler(rec);
  auto other = std::make_shared<Recorder>();
  ASSERT_TRUE(f.informer->AddEventHandler(other).ok());
  f.Start();
  auto s = f.lw->WaitForWatch(1);
  ASSERT_TRUE(f.informer->RemoveEventHandler(*reg).ok());
  EXPECT_TRUE(IsNotFound(f.informer->RemoveEventHandler(*reg).error()));
  s->Push(WatchEventType::kAdded, R"({"metadata":{"name":"x","namespace":"n","resourceVersion":"2"}})");
  ASSERT_TRUE(other->WaitFor(1));
  EXPECT_TRUE(rec->Events().empty());
}

TEST(SharedIndexInformer, TransformRunsBeforeObjectsAreStored) {
  InformerOptions o;
  o.transform = StripManagedFields;
  Fixture f(o);
  f.lw->AddListResult(MakeObjectList(
      {*Object::Parse(R"({"metadata":{"name":"a","namespace":"n","resourceVersion":"1","managedFields":[{"manager":"m"}]}})")},
      "1"));
  f.Start();
  ASSERT_TRUE(WaitUntil([&] { return f.informer->HasSynced(); }));
  auto stored = f.informer->GetIndexer().GetByKey("n/a");
  ASSERT_NE(stored, nullptr);
  EXPECT_FALSE(stored->HasManagedFields());
  auto late = f.informer->SetTransform(nullptr);
  ASSERT_FALSE(late.ok());
  EXPECT_TRUE(IsConflict(late.error()));
}

constexpr char kDecodedTag = 0;

// Records, for each add, whether the object reached the handler already decoded.
class DecodedRecorder final : public ResourceEventHandler {
 public:
  void OnAdd(const ObjectPtr& o, bool) override {
    auto d = std::static_pointer_cast<const std::string>(o->DerivedValue(&kDecodedTag));
    MutexLock lock(mu_);
    adds_.push_back(o->Key() + (d ? " " + *d : std::string(" not decoded")));
  }
  void OnUpdate(const ObjectPtr&, const ObjectPtr&) override {}
  void OnDelete(const ObjectPtr&, bool) override {}
  std::vector<std::string> Adds() const {
    MutexLock lock(mu_);
    return adds_;
  }

 private:
  mutable Mutex mu_;
  std::vector<std::string> adds_ KUBE_GUARDED_BY(mu_);
};

TEST(SharedIndexInformer, DecodersRunOnListItemsAfterTheTransformBeforeHandlersSeeThem) {
  InformerOptions o;
  o.transform = StripManagedFields;
  Fixture f(o);
  std::atomic<int> decodes{0};
  auto decode = [&](const ObjectPtr& obj) {
    decodes.fetch_add(1);
    obj->KeepDerivedValue(&kDecodedTag, std::make_shared<const std::string>(
                                            obj->HasManagedFields() ? "decoded-before-transform" : "decoded"));
  };
  ASSERT_TRUE(f.informer->AddDecoder(&kDecodedTag, decode));
  ASSERT_TRUE(f.informer->AddDecoder(&kDecodedTag, decode));  // same key: kept once
  auto handler = std::make_shared<DecodedRecorder>();
  ASSERT_TRUE(f.informer->AddEventHandler(handler).ok());
  f.lw->AddListResult(MakeObjectList(
      {*Object::Parse(R"({"metadata":{"name":"a","namespace":"n","resourceVersion":"1","managedFields":[{"manager":"m"}]}})")},
      "1"));
  f.Start();
  auto s = f.lw->WaitForWatch(1);
  ASSERT_TRUE(s);
  s->Push(WatchEventType::kAdded, R"({"metadata":{"name":"b","namespace":"n","resourceVersion":"2"}})");
  ASSERT_TRUE(WaitUntil([&] { return handler->Adds().size() >= 2; }));
  // List items are decoded before the list is handed over; a watch event's object is left to
  // its first typed reader.
  EXPECT_EQ(handler->Adds(), (std::vector<std::string>{"n/a decoded", "n/b not decoded"}));
  EXPECT_EQ(decodes.load(), 1);
  EXPECT_FALSE(f.informer->AddDecoder(&decodes, decode));  // started: objects are decoded on first read
}

TEST(SharedIndexInformer, StopEndsRunAndLaterHandlersAreRefused) {
  Fixture f;
  f.lw->AddListResult(MakeObjectList({}, "1"));
  f.Start();
  ASSERT_TRUE(f.lw->WaitForWatch(1));
  f.thread.request_stop();
  f.thread.join();
  EXPECT_TRUE(f.informer->IsStopped());
  auto r = f.informer->AddEventHandler(std::make_shared<Recorder>());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsCanceled(r.error()));
}

}  // namespace
}  // namespace kube::cache
