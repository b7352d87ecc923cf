#include <kube/controller/controller.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <map>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace kube::controller {
namespace {

using namespace std::chrono_literals;
using testing::Obj;

bool Eventually(const std::function<bool()>& cond) {
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (!cond()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

Request Key(std::string name) { return Request{ObjectKey{"ns", std::move(name)}}; }

// Exponential per-item backoff from 1 s, so that a test can tell retries apart on a FakeClock.
RateLimiterFactory SlowBackoff() {
  return [](Clock&) {
    return std::make_unique<workqueue::ItemExponentialFailureRateLimiter<Request>>(
        workqueue::ItemExponentialFailureOptions{.base_delay = 1s, .max_delay = 1min});
  };
}

// Runs a controller's Start on a thread; stops and joins on destruction.
class Running {
 public:
  explicit Running(std::shared_ptr<Controller> c) : c_(std::move(c)) {
    thread_ = std::jthread([this](std::stop_token st) { result_.set_value(c_->Start(st)); });
  }
  ~Running() { (void)Stop(); }
  Result<void> Stop() {
    if (!stopped_) {
      stopped_ = true;
      thread_.request_stop();
      thread_.join();
      last_ = future_.get();
    }
    return last_;
  }
  std::stop_source stop_source() { return thread_.get_stop_source(); }
  std::future<Result<void>>& future() { return future_; }

 private:
  std::shared_ptr<Controller> c_;
  std::promise<Result<void>> result_;
  std::future<Result<void>> future_ = result_.get_future();
  std::jthread thread_;
  bool stopped_ = false;
  Result<void> last_;
};

// Counts calls per key.
class Counting {
 public:
  void Hit(const Request& r) {
    std::lock_guard lock(mu_);
    ++calls_[r.String()];
  }
  int Calls(const std::string& key) {
    std::lock_guard lock(mu_);
    return calls_[key];
  }

 private:
  std::mutex mu_;
  std::map<std::string, int> calls_;
};

std::shared_ptr<Controller> Make(ControllerOptions o, ReconcileFunc fn) {
  auto c = Controller::Create(std::move(o), MakeReconciler(std::move(fn)));
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  return c.ok() ? *c : nullptr;
}

TEST(Controller, CreateRejectsInvalidOptions) {
  auto fn = MakeReconciler([](ReconcileContext&, const Request&) -> Result<ReconcileResult> { return ReconcileResult::Done(); });
  EXPECT_TRUE(IsBadRequest(Controller::Create({}, fn).error()));
  EXPECT_TRUE(IsBadRequest(Controller::Create({.name = "x", .max_concurrent_reconciles = 0}, fn).error()));
  EXPECT_TRUE(IsBadRequest(Controller::Create({.name = "x"}, nullptr).error()));
  EXPECT_TRUE(IsBadRequest(Controller::Create({.name = "x", .reconcile_timeout = 0s}, fn).error()));
  auto c = Controller::Create({.name = "x"}, fn);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(IsBadRequest((*c)->Watch(nullptr, EnqueueRequestForObject()).error()));
  EXPECT_TRUE(IsBadRequest((*c)->Watch(std::make_shared<Channel>(), nullptr).error()));
}

TEST(Controller, ErrorIsRetriedWithRateLimitedBackoffAndSuccessForgets) {
  FakeClock clock;
  Counting counts;
  std::atomic<int> failures_left{2};
  auto c = Make({.name = "retry", .rate_limiter = SlowBackoff(), .clock = &clock},
                [&](ReconcileContext&, const Request& r) -> Result<ReconcileResult> {
                  counts.Hit(r);
                  if (failures_left.fetch_sub(1) > 0) return InternalError("boom");
                  return ReconcileResult::Done();
                });
  Running run(c);
  c->GetQueue().Add(Key("a"));
  ASSERT_TRUE(Eventually([&] { return c->Stats().errors == 1; }));
  EXPECT_EQ(c->GetQueue().NumRequeues(Key("a")), 1);
  EXPECT_EQ(c->GetQueue().Len(), 0u);  // waiting out its backoff, not queued
  clock.Advance(1s);                   // first backoff: 1 s
  ASSERT_TRUE(Eventually([&] { return c->Stats().errors == 2; }));
  EXPECT_EQ(c->GetQueue().NumRequeues(Key("a")), 2);
  clock.Advance(1s);  // second backoff is 2 s: not yet
  EXPECT_EQ(counts.Calls("ns/a"), 2);
  clock.Advance(1s);
  ASSERT_TRUE(Eventually([&] { return c->Stats().successes == 1; }));
  EXPECT_EQ(counts.Calls("ns/a"), 3);
  EXPECT_EQ(c->GetQueue().NumRequeues(Key("a")), 0);
  EXPECT_TRUE(run.Stop().ok());
}

TEST(Controller, RequeueAfterForgetsAndReconcilesAgainAfterTheDelay) {
  FakeClock clock;
  Counting counts;
  auto c = Make({.name = "requeue", .rate_limiter = SlowBackoff(), .clock = &clock},
                [&](ReconcileContext&, const Request& r) -> Result<ReconcileResult> {
                  counts.Hit(r);
                  if (counts.Calls(r.String()) == 1) return ReconcileResult::RequeueAfter(30s);
                  return ReconcileResult::Done();
                });
  Running run(c);
  c->GetQueue().Add(Key("a"));
  ASSERT_TRUE(Eventually([&] { return c->Stats().requeue_afters == 1; }));
  EXPECT_EQ(c->GetQueue().NumRequeues(Key("a")), 0);
  clock.Advance(29s);
  EXPECT_EQ(counts.Calls("ns/a"), 1);
  clock.Advance(1s);
  ASSERT_TRUE(Eventually([&] { return c->Stats().successes == 1; }));
  EXPECT_EQ(counts.Calls("ns/a"), 2);
}

TEST(Controller, TerminalErrorIsRecordedAndNotRetried) {
  FakeClock clock;
  Counting counts;
  auto c = Make({.name = "terminal", .rate_limiter = SlowBackoff(), .clock = &clock},
                [&](ReconcileContext&, const Request& r) -> Result<ReconcileResult> {
                  counts.Hit(r);
                  if (r.key.name == "bad") return TerminalError(MakeError(422, reason::kInvalid, "bad spec"));
                  return ReconcileResult::Done();
                });
  Running run(c);
  c->GetQueue().Add(Key("bad"));
  ASSERT_TRUE(Eventually([&] { return c->Stats().terminal_errors == 1; }));
  EXPECT_EQ(c->GetQueue().NumRequeues(Key("bad")), 0);
  clock.Advance(10min);
  // A later key is processed after anything the queue would have handed out first.
  c->GetQueue().Add(Key("barrier"));
  ASSERT_TRUE(Eventually([&] { return c->Stats().successes == 1; }));
  EXPECT_EQ(counts.Calls("ns/bad"), 1);
  EXPECT_EQ(c->Stats().errors, 0);
}

TEST(Controller, ExceptionsAreRecoveredCountedAndRetried) {
  FakeClock clock;
  std::atomic<int> calls{0};
  auto c = Make({.name = "throws", .rate_limiter = SlowBackoff(), .clock = &clock},
                [&](ReconcileContext&, const Request&) -> Result<ReconcileResult> {
                  if (calls.fetch_add(1) == 0) throw std::runtime_error("user bug");
                  return ReconcileResult::Done();
                });
  Running run(c);
  c->GetQueue().Add(Key("a"));
  ASSERT_TRUE(Eventually([&] { return c->Stats().errors == 1; }));
  EXPECT_EQ(c->Stats().panics, 1);
  clock.Advance(1s);
  ASSERT_TRUE(Eventually([&] { return c->Stats().successes == 1; }));
  EXPECT_EQ(calls.load(), 2);
}

TEST(Controller, OneKeyIsNeverReconciledConcurrentlyWithEightWorkers) {
  std::mutex mu;
  std::map<std::string, int> in_flight;
  std::atomic<bool> overlap{false};
  std::atomic<int> max_parallel{0}, parallel{0};
  std::atomic<int> done{0};
  auto c = Make({.name = "exclusive", .max_concurrent_reconciles = 8},
                [&](ReconcileContext&, const Request& r) -> Result<ReconcileResult> {
                  {
                    std::lock_guard lock(mu);
                    if (++in_flight[r.String()] > 1) overlap = true;
                  }
                  const int p = parallel.fetch_add(1) + 1;
                  int seen = max_parallel.load();
                  while (p > seen && !max_parallel.compare_exchange_weak(seen, p)) {
                  }
                  for (int i = 0; i < 200; ++i) std::this_thread::yield();
                  parallel.fetch_sub(1);
                  {
                    std::lock_guard lock(mu);
                    --in_flight[r.String()];
                  }
                  done.fetch_add(1);
                  return ReconcileResult::Done();
                });
  Running run(c);
  constexpr int kKeys = 4;
  constexpr int kAdds = 3000;
  for (int i = 0; i < kAdds; ++i) c->GetQueue().Add(Key("k" + std::to_string(i % kKeys)));
  // An empty queue with no active worker is also the moment between a worker's Get and its
  // count going up: wait for the reconciles themselves too.
  ASSERT_TRUE(Eventually(
      [&] { return done.load() >= kKeys && c->GetQueue().Len() == 0 && c->Stats().active_workers == 0; }));
  EXPECT_FALSE(overlap.load());
  EXPECT_LE(max_parallel.load(), kKeys);   // never more than one worker per key
}

TEST(Controller, ShutdownLetsInFlightReconcilesFinishAndStartsNothingNew) {
  std::promise<void> started;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> saw_stop{false};
  Counting counts;
  auto c = Make({.name = "shutdown"}, [&](ReconcileContext& ctx, const Request& r) -> Result<ReconcileResult> {
    counts.Hit(r);
    if (r.key.name == "slow") {
      started.set_value();
      released.wait();
      saw_stop = ctx.stop.stop_requested();
    }
    return ReconcileResult::Done();
  });
  Running run(c);
  c->GetQueue().Add(Key("slow"));
  started.get_future().wait();
  c->GetQueue().Add(Key("queued-behind"));  // one worker: waits behind "slow"
  run.stop_source().request_stop();
  release.set_value();
  EXPECT_TRUE(run.Stop().ok());
  EXPECT_TRUE(saw_stop.load());  // the in-flight reconcile saw ctx.stop
  EXPECT_EQ(c->Stats().successes, 1);
  EXPECT_EQ(counts.Calls("ns/slow"), 1);
  EXPECT_EQ(counts.Calls("ns/queued-behind"), 0);
  EXPECT_TRUE(IsCanceled(c->Watch(std::make_shared<Channel>(), EnqueueRequestForObject()).error()));
}

TEST(Controller, ReconcileTimeoutRequestsStopAndCountsAsError) {
  FakeClock clock;
  std::atomic<int> calls{0};
  auto c = Make({.name = "timeout", .rate_limiter = SlowBackoff(), .reconcile_timeout = 5s, .clock = &clock},
                [&](ReconcileContext& ctx, const Request&) -> Result<ReconcileResult> {
                  if (calls.fetch_add(1) == 0) {
                    std::mutex m;
                    std::condition_variable_any cv;
                    std::unique_lock lock(m);
                    cv.wait(lock, ctx.stop, [] { return false; });  // until the timeout fires
                  }
                  return ReconcileResult::Done();
                });
  Running run(c);
  c->GetQueue().Add(Key("a"));
  ASSERT_TRUE(Eventually([&] { return calls.load() == 1; }));
  // The timeout thread parks on the clock until the deadline.
  ASSERT_TRUE(Eventually([&] { return clock.NextDeadline() && *clock.NextDeadline() <= clock.Now() + 5s; }));
  clock.Advance(5s);
  ASSERT_TRUE(Eventually([&] { return c->Stats().errors == 1; }));
  clock.Advance(1s);  // the retry after the first backoff
  ASSERT_TRUE(Eventually([&] { return c->Stats().successes == 1; }));
  EXPECT_EQ(calls.load(), 2);
}

// A source whose sync the test controls.
class ManualSource final : public Source {
 public:
  Result<void> Start(std::shared_ptr<const EventDispatcher> d) override {
    std::lock_guard lock(mu);
    dispatcher = std::move(d);
    return {};
  }
  std::shared_ptr<const EventDispatcher> Dispatcher() {
    std::lock_guard lock(mu);
    return dispatcher;
  }
  bool HasSynced() const override { return synced.load(); }
  void OnSynced(std::function<void()> notify) override {
    std::lock_guard lock(mu);
    observers.push_back(std::move(notify));
  }
  // Marks the source synced and wakes the observers, as an informer-backed source does.
  void SetSynced() {
    synced = true;
    std::vector<std::function<void()>> copy;
    {
      std::lock_guard lock(mu);
      copy = observers;
    }
    for (auto& fn : copy) fn();
  }
  std::size_t Observers() {
    std::lock_guard lock(mu);
    return observers.size();
  }
  void Stop() override { stopped = true; }
  std::string String() const override { return "manual"; }
  std::atomic<bool> synced{false};
  std::atomic<bool> stopped{false};
  std::mutex mu;
  std::shared_ptr<const EventDispatcher> dispatcher;
  std::vector<std::function<void()>> observers;
};

TEST(Controller, StartTimesOutWhenSourcesNeverSync) {
  FakeClock clock;
  auto c = Make({.name = "nosync", .cache_sync_timeout = 1min, .clock = &clock},
                [](ReconcileContext&, const Request&) -> Result<ReconcileResult> { return ReconcileResult::Done(); });
  auto src = std::make_shared<ManualSource>();
  ASSERT_TRUE(c->Watch(src, EnqueueRequestForObject()).ok());
  Running run(c);
  ASSERT_TRUE(Eventually([&] {
    clock.Advance(10s);
    return run.future().wait_for(0s) == std::future_status::ready;
  }));
  auto r = run.Stop();
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsTimeout(r.error()));
  EXPECT_TRUE(src->stopped.load());
}

TEST(Controller, WorkersStartOnlyAfterSourcesSynced) {
  FakeClock clock;
  std::atomic<int> calls{0};
  auto c = Make({.name = "waits", .clock = &clock}, [&](ReconcileContext&, const Request&) -> Result<ReconcileResult> {
    ++calls;
    return ReconcileResult::Done();
  });
  auto src = std::make_shared<ManualSource>();
  ASSERT_TRUE(c->Watch(src, EnqueueRequestForObject()).ok());
  Running run(c);
  ASSERT_TRUE(Eventually([&] { return src->Dispatcher() != nullptr; }));
  src->Dispatcher()->OnCreate({.object = Obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"ns"}})")});
  ASSERT_TRUE(clock.BlockUntilWaiters(1));
  clock.Advance(1s);
  EXPECT_EQ(calls.load(), 0);  // queued, but no worker yet
  EXPECT_EQ(src->Observers(), 1u);
  // The sync notification alone wakes the controller: the fake clock does not move, so a
  // controller that polled HasSynced on its clock would never see it.
  src->SetSynced();
  ASSERT_TRUE(Eventually([&] { return calls.load() == 1; }));
  EXPECT_TRUE(run.Stop().ok());
}

TEST(Controller, SourceFoundSyncedAtTheCacheSyncDeadlineIsNotATimeout) {
  // A source that syncs without notifying is only looked at again when the deadline wakes the
  // wait; the check made then comes before the timeout verdict.
  FakeClock clock;
  std::atomic<int> calls{0};
  auto c = Make({.name = "silent", .cache_sync_timeout = 1min, .clock = &clock},
                [&](ReconcileContext&, const Request&) -> Result<ReconcileResult> {
                  ++calls;
                  return ReconcileResult::Done();
                });
  auto src = std::make_shared<ManualSource>();
  ASSERT_TRUE(c->Watch(src, EnqueueRequestForObject()).ok());
  Running run(c);
  ASSERT_TRUE(Eventually([&] { return src->Dispatcher() != nullptr; }));
  src->Dispatcher()->OnCreate({.object = Obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"ns"}})")});
  ASSERT_TRUE(clock.BlockUntilWaiters(1));
  src->synced = true;  // no notification
  clock.Advance(1min);
  ASSERT_TRUE(Eventually([&] { return calls.load() == 1; }));
  EXPECT_TRUE(run.Stop().ok());
}

TEST(Controller, StartTwiceIsAConflict) {
  auto c = Make({.name = "twice"}, [](ReconcileContext&, const Request&) -> Result<ReconcileResult> { return ReconcileResult::Done(); });
  std::stop_source s;
  s.request_stop();
  EXPECT_TRUE(c->Start(s.get_token()).ok());  // stopped at once: returns after setting up
  auto again = c->Start(s.get_token());
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(IsConflict(again.error()));
}

TEST(Controller, ChannelEventsPassPredicatesIntoTheQueue) {
  Counting counts;
  auto c = Make({.name = "channel"}, [&](ReconcileContext& ctx, const Request& r) -> Result<ReconcileResult> {
    EXPECT_EQ(ctx.controller, "channel");
    counts.Hit(r);
    return ReconcileResult::Done();
  });
  auto ch = std::make_shared<Channel>();
  auto sel = LabelSelector::Parse("pick=me");
  ASSERT_TRUE(sel.ok());
  ASSERT_TRUE(c->Watch(ch, EnqueueRequestForObject(), {LabelSelectorPredicate(*sel)}).ok());
  Running run(c);
  ch->Push(Obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"skip","namespace":"ns"}})"));
  ch->Push(Obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"take","namespace":"ns","labels":{"pick":"me"}}})"));
  ASSERT_TRUE(Eventually([&] { return c->Stats().successes == 1; }));
  EXPECT_EQ(counts.Calls("ns/take"), 1);
  EXPECT_EQ(counts.Calls("ns/skip"), 0);
}

TEST(TerminalError, MarksWithoutLosingTheClassification) {
  Error e = TerminalError(MakeError(404, reason::kNotFound, "gone"));
  EXPECT_TRUE(IsTerminal(e));
  EXPECT_TRUE(IsNotFound(e));
  EXPECT_EQ(TerminalError(e), e);  // idempotent
  EXPECT_FALSE(IsTerminal(InternalError("x")));
}

}  // namespace
}  // namespace kube::controller
