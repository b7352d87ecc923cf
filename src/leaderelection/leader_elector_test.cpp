#include <kube/leaderelection/leader_elector.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <kube/core/time.hpp>
#include <kube/leaderelection/fake_lock.hpp>

namespace kube::leaderelection {
namespace {

using namespace std::chrono_literals;

// An ordered log of what the candidates' callbacks did, shared by all candidates of a test.
class EventLog {
 public:
  void Add(std::string event) {
    MutexLock lock(mu_);
    events_.push_back(std::move(event));
    cv_.SignalAll();
  }
  std::vector<std::string> Events() const {
    MutexLock lock(mu_);
    return events_;
  }
  // Waits (on a condition variable, bounded in real time) until `event` was logged.
  bool WaitFor(const std::string& event) {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    MutexLock lock(mu_);
    while (std::find(events_.begin(), events_.end(), event) == events_.end()) {
      if (cv_.WaitUntil(mu_, deadline)) {
        return std::find(events_.begin(), events_.end(), event) != events_.end();
      }
    }
    return true;
  }
  // Position of `event` in the log, or -1.
  int IndexOf(const std::string& event) const {
    MutexLock lock(mu_);
    auto it = std::find(events_.begin(), events_.end(), event);
    return it == events_.end() ? -1 : static_cast<int>(it - events_.begin());
  }
  int CountPrefix(const std::string& prefix) const {
    MutexLock lock(mu_);
    return static_cast<int>(std::count_if(events_.begin(), events_.end(), [&](const std::string& e) {
      return e.rfind(prefix, 0) == 0;
    }));
  }

 private:
  mutable Mutex mu_;
  CondVar cv_;
  std::vector<std::string> events_ KUBE_GUARDED_BY(mu_);
};

// Blocks until `stop` is requested, without any clock.
void WaitForStop(std::stop_token stop) {
  std::mutex m;
  std::condition_variable_any cv;
  std::unique_lock lock(m);
  cv.wait(lock, stop, [] { return false; });
}

// One candidate: a FakeLock on the shared store, an elector, and the thread running it.
class Candidate {
 public:
  Candidate(FakeClock& clock, std::shared_ptr<FakeLeaseStore> store, std::string id, EventLog& log,
            const std::function<void(LeaderElectionConfig&)>& tweak = {})
      : id_(std::move(id)), clock_(clock), log_(log) {
    auto lock = std::make_unique<FakeLock>(std::move(store), id_);
    lock_ = lock.get();
    LeaderElectionConfig config{.lock = std::move(lock), .name = "test-" + id_};
    config.rand = [] { return 0.0; };
    config.callbacks.on_started_leading = [this](std::stop_token stop) {
      log_.Add(id_ + ":started");
      WaitForStop(stop);
      log_.Add(id_ + ":work-stopped");
    };
    config.callbacks.on_stopped_leading = [this] {
      stopped_at_ = clock_.Now();
      log_.Add(id_ + ":stopped");
    };
    config.callbacks.on_new_leader = [this](const std::string& leader) { log_.Add(id_ + ":new:" + leader); };
    if (tweak) tweak(config);
    auto elector = LeaderElector::Create(std::move(config), clock);
    EXPECT_TRUE(elector.ok()) << elector.error().message;
    if (elector.ok()) elector_ = std::move(*elector);
  }
  ~Candidate() { Stop(); }

  void Start() {
    thread_.emplace([this](std::stop_token stop) {
      elector_->Run(stop);
      log_.Add(id_ + ":run-returned");
    });
  }
  void Stop() {
    if (thread_) {
      thread_->request_stop();
      thread_->join();
      thread_.reset();
    }
  }

  LeaderElector& elector() { return *elector_; }
  FakeLock& lock() { return *lock_; }
  // Clock time of the last on_stopped_leading; read after the Run thread returned.
  Clock::TimePoint stopped_at() const { return stopped_at_; }

 private:
  std::string id_;
  FakeClock& clock_;
  EventLog& log_;
  FakeLock* lock_ = nullptr;  // owned by elector_
  std::unique_ptr<LeaderElector> elector_;
  Clock::TimePoint stopped_at_{};
  std::optional<std::jthread> thread_;
};

LeaderElectionRecord HeldBy(const std::string& holder, const Clock& clock, std::int64_t transitions = 0) {
  // The timestamps are an hour old on purpose: candidates must not judge expiry from them.
  const auto t = TruncateToMicrosecond(clock.WallNow() - 1h);
  return {.holder_identity = holder,
          .lease_duration_seconds = 15,
          .acquire_time = t,
          .renew_time = t,
          .lease_transitions = transitions};
}

class LeaderElectorTest : public ::testing::Test {
 protected:
  // Advances the fake clock by `d` and waits until `parked` candidate threads wait on it again.
  void Step(Clock::Duration d, std::size_t parked) {
    clock_.Advance(d);
    ASSERT_TRUE(clock_.BlockUntilWaiters(parked));
  }

  FakeClock clock_;
  std::shared_ptr<FakeLeaseStore> store_ = std::make_shared<FakeLeaseStore>();
  EventLog log_;
};

TEST_F(LeaderElectorTest, AcquiresAFreeLockAndReportsItselfAsLeader) {
  Candidate a(clock_, store_, "a", log_);
  a.Start();
  ASSERT_TRUE(log_.WaitFor("a:started"));
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  EXPECT_TRUE(a.elector().IsLeader());
  EXPECT_EQ(a.elector().GetLeader(), "a");
  EXPECT_EQ(a.elector().GetFencingToken(), (FencingToken{"a", 0}));
  EXPECT_TRUE(a.elector().Check(0s).ok());
  EXPECT_GE(log_.IndexOf("a:new:a"), 0);
  auto current = store_->Current();
  ASSERT_TRUE(current.has_value());
  EXPECT_EQ(current->record.holder_identity, "a");
  EXPECT_EQ(current->record.lease_duration_seconds, 15);
  EXPECT_EQ(current->record.acquire_time, TruncateToMicrosecond(clock_.WallNow()));
  EXPECT_EQ(current->record.lease_transitions, 0);

  a.Stop();
  EXPECT_FALSE(a.elector().IsLeader());
  EXPECT_EQ(a.elector().GetFencingToken(), std::nullopt);
  EXPECT_LT(log_.IndexOf("a:work-stopped"), log_.IndexOf("a:stopped"));
  EXPECT_LT(log_.IndexOf("a:stopped"), log_.IndexOf("a:run-returned"));
  // Without release_on_cancel the record keeps naming the old holder.
  EXPECT_EQ(store_->Current()->record.holder_identity, "a");
}

TEST_F(LeaderElectorTest, LeaseDurationIsWrittenRoundedUpToWholeSeconds) {
  Candidate a(clock_, store_, "a", log_, [](LeaderElectionConfig& c) {
    c.lease_duration = 1500ms;
    c.renew_deadline = 1s;
    c.retry_period = 200ms;
  });
  a.Start();
  ASSERT_TRUE(log_.WaitFor("a:started"));
  EXPECT_EQ(store_->Current()->record.lease_duration_seconds, 2);
}

TEST_F(LeaderElectorTest, WaitsWhileAnotherHoldersLeaseIsFreshThenTakesOverAfterLeaseDuration) {
  store_->Put(HeldBy("other", clock_, 4));
  Candidate a(clock_, store_, "a", log_);
  a.Start();
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  EXPECT_EQ(a.elector().GetLeader(), "other");
  // The other holder keeps renewing for a minute: no takeover, however old its timestamps are.
  for (int i = 0; i < 30; ++i) {
    auto renewed = HeldBy("other", clock_, 4);
    renewed.renew_time += std::chrono::seconds(2 * i + 2);
    store_->Put(renewed);
    Step(2s, 1);
    ASSERT_FALSE(a.elector().IsLeader());
  }
  // It stops renewing: `a` saw the last change at this instant.
  for (int k = 1; k <= 7; ++k) {
    Step(2s, 1);
    ASSERT_FALSE(a.elector().IsLeader()) << "took over after " << 2 * k << "s without a change";
  }
  EXPECT_EQ(log_.IndexOf("a:started"), -1);
  Step(2s, 1);  // 16 s >= 15 s without an observed change
  ASSERT_TRUE(log_.WaitFor("a:started"));
  EXPECT_TRUE(a.elector().IsLeader());
  auto current = store_->Current();
  EXPECT_EQ(current->record.holder_identity, "a");
  EXPECT_EQ(current->record.lease_transitions, 5);
  EXPECT_EQ(current->record.acquire_time, TruncateToMicrosecond(clock_.WallNow()));
  EXPECT_EQ(a.elector().GetFencingToken(), (FencingToken{"a", 5}));
  EXPECT_EQ(log_.CountPrefix("a:new:"), 2);  // other, then a
}

TEST_F(LeaderElectorTest, TakesAReleasedLockAtOnceAndCountsTheTransition) {
  auto released = HeldBy("", clock_, 2);
  released.lease_duration_seconds = 1;
  store_->Put(released);
  Candidate a(clock_, store_, "a", log_);
  a.Start();
  ASSERT_TRUE(log_.WaitFor("a:started"));
  EXPECT_EQ(store_->Current()->record.lease_transitions, 3);
}

TEST_F(LeaderElectorTest, RenewsEveryRetryPeriodKeepingAcquireTime) {
  Candidate a(clock_, store_, "a", log_);
  a.Start();
  ASSERT_TRUE(log_.WaitFor("a:started"));
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  const auto acquired = store_->Current()->record;
  for (int i = 1; i <= 15; ++i) {  // 30 s: well past renew_deadline and lease_duration
    Step(2s, 1);
    const auto rec = store_->Current()->record;
    ASSERT_EQ(rec.renew_time, acquired.renew_time + std::chrono::seconds(2 * i));
    ASSERT_EQ(rec.acquire_time, acquired.acquire_time);
    ASSERT_EQ(rec.lease_transitions, 0);
    ASSERT_TRUE(a.elector().IsLeader());
  }
  const auto history = store_->History();
  ASSERT_EQ(history.size(), 16u);
  for (const auto& w : history) EXPECT_EQ(w.writer, "a");
  EXPECT_EQ(log_.CountPrefix("a:started"), 1);
}

TEST_F(LeaderElectorTest, FailingRenewalsStopTheLeaderAtRenewDeadlineBeforeAnotherCanAcquire) {
  const auto tweak = [](LeaderElectionConfig& c) { c.retry_period = 3s; };  // 10 s is not a multiple
  Candidate a(clock_, store_, "a", log_, tweak);
  Candidate b(clock_, store_, "b", log_, tweak);
  a.Start();
  ASSERT_TRUE(log_.WaitFor("a:started"));
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  const auto t0 = clock_.Now();
  b.Start();
  ASSERT_TRUE(clock_.BlockUntilWaiters(2));
  a.lock().FailNextUpdates(1000);

  // Drive time to each next deadline of any waiter, so that nothing is skipped over.
  bool a_returned = false;
  while (log_.IndexOf("b:started") < 0) {
    ASSERT_LT(clock_.Now() - t0, 60s) << "b never took over";
    auto next = clock_.NextDeadline();
    ASSERT_TRUE(next.has_value());
    clock_.SetTime(*next);
    if (!a_returned && clock_.Now() - t0 >= 10s) {
      ASSERT_TRUE(log_.WaitFor("a:run-returned"));
      a_returned = true;
    }
    if (clock_.Now() - t0 >= 15s) {
      ASSERT_TRUE(log_.WaitFor("b:started"));
    }
    ASSERT_TRUE(clock_.BlockUntilWaiters(a_returned ? 1 : 2));
    EXPECT_EQ(a.elector().IsLeader(), clock_.Now() - t0 < 10s);
  }
  EXPECT_EQ(a.stopped_at() - t0, 10s);  // exactly at the renew deadline, not at the next retry
  EXPECT_LT(log_.IndexOf("a:work-stopped"), log_.IndexOf("a:stopped"));
  EXPECT_LT(log_.IndexOf("a:stopped"), log_.IndexOf("b:started"));
  EXPECT_GE(clock_.Now() - t0, 15s);
  EXPECT_EQ(store_->Current()->record.holder_identity, "b");
  EXPECT_EQ(store_->Current()->record.lease_transitions, 1);
  EXPECT_EQ(b.elector().GetFencingToken(), (FencingToken{"b", 1}));
}

TEST_F(LeaderElectorTest, LeaderThatSeesAnotherHolderStopsAtOnce) {
  Candidate a(clock_, store_, "a", log_);
  a.Start();
  ASSERT_TRUE(log_.WaitFor("a:started"));
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  const auto t0 = clock_.Now();
  store_->Put(HeldBy("thief", clock_, 1));
  clock_.Advance(2s);
  ASSERT_TRUE(log_.WaitFor("a:run-returned"));
  EXPECT_EQ(a.stopped_at() - t0, 2s);
  EXPECT_EQ(store_->Current()->record.holder_identity, "thief");
  EXPECT_GE(log_.IndexOf("a:new:thief"), 0);
}

TEST_F(LeaderElectorTest, ReleaseOnCancelWritesAnEmptyHolderAndAnotherCandidateTakesOverAtOnce) {
  Candidate a(clock_, store_, "a", log_, [](LeaderElectionConfig& c) { c.release_on_cancel = true; });
  Candidate b(clock_, store_, "b", log_);
  a.Start();
  ASSERT_TRUE(log_.WaitFor("a:started"));
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  b.Start();
  ASSERT_TRUE(clock_.BlockUntilWaiters(2));
  a.Stop();
  auto released = store_->Current()->record;
  EXPECT_EQ(released.holder_identity, "");
  EXPECT_EQ(released.lease_duration_seconds, 1);
  EXPECT_EQ(released.lease_transitions, 0);
  EXPECT_EQ(store_->History().back().writer, "a");
  // The release happens after the leader's work returned, and before on_stopped_leading.
  EXPECT_LT(log_.IndexOf("a:work-stopped"), log_.IndexOf("a:new:"));
  EXPECT_LT(log_.IndexOf("a:new:"), log_.IndexOf("a:stopped"));

  Step(2s, 1);
  ASSERT_TRUE(log_.WaitFor("b:started"));
  EXPECT_EQ(store_->Current()->record.holder_identity, "b");
  EXPECT_EQ(store_->Current()->record.lease_transitions, 1);
}

TEST_F(LeaderElectorTest, OnNewLeaderFiresOnlyWhenTheHolderChanges) {
  store_->Put(HeldBy("x", clock_));
  Candidate a(clock_, store_, "a", log_);
  a.Start();
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  store_->Put(HeldBy("y", clock_, 1));
  Step(2s, 1);
  auto renewed = HeldBy("y", clock_, 1);
  renewed.renew_time += 5s;
  store_->Put(renewed);
  Step(2s, 1);
  Step(2s, 1);
  EXPECT_EQ(log_.CountPrefix("a:new:"), 2);
  EXPECT_LT(log_.IndexOf("a:new:x"), log_.IndexOf("a:new:y"));
  a.Stop();
  EXPECT_EQ(log_.IndexOf("a:stopped"), -1) << "on_stopped_leading without having led";
}

// Lets another writer slip in between this candidate's read and its update, once.
class InterposingLock final : public ResourceLock {
 public:
  InterposingLock(std::unique_ptr<ResourceLock> inner, std::shared_ptr<FakeLeaseStore> store,
                  LeaderElectionRecord intruder)
      : inner_(std::move(inner)), store_(std::move(store)), intruder_(std::move(intruder)) {}
  Result<ObservedRecord> Get() override { return inner_->Get(); }
  Result<void> Create(const LeaderElectionRecord& r) override { return inner_->Create(r); }
  Result<void> Update(const LeaderElectionRecord& r) override {
    if (!interposed_) {
      interposed_ = true;
      store_->Put(intruder_);
    }
    return inner_->Update(r);
  }
  std::string Identity() const override { return inner_->Identity(); }
  std::string Describe() const override { return inner_->Describe(); }

 private:
  std::unique_ptr<ResourceLock> inner_;
  std::shared_ptr<FakeLeaseStore> store_;
  LeaderElectionRecord intruder_;
  bool interposed_ = false;  // only the Run thread calls Update
};

TEST_F(LeaderElectorTest, ConflictOnUpdateLosesTheRound) {
  auto released = HeldBy("", clock_, 7);
  released.lease_duration_seconds = 1;
  store_->Put(released);
  const auto intruder = HeldBy("intruder", clock_, 8);
  Candidate a(clock_, store_, "a", log_, [&](LeaderElectionConfig& c) {
    c.lock = std::make_unique<InterposingLock>(std::move(c.lock), store_, intruder);
  });
  a.Start();
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  Step(2s, 1);
  Step(2s, 1);
  EXPECT_FALSE(a.elector().IsLeader());
  EXPECT_EQ(log_.IndexOf("a:started"), -1);
  EXPECT_EQ(a.elector().GetLeader(), "intruder");
  for (const auto& w : store_->History()) EXPECT_NE(w.writer, "a");
  EXPECT_EQ(store_->Current()->record, intruder);
}

TEST_F(LeaderElectorTest, ExceptionFromOnStartedLeadingIsContainedAndLeadershipKept) {
  Candidate a(clock_, store_, "a", log_, [this](LeaderElectionConfig& c) {
    c.callbacks.on_started_leading = [this](std::stop_token) {
      log_.Add("a:threw");
      throw std::runtime_error("boom");
    };
  });
  a.Start();
  ASSERT_TRUE(log_.WaitFor("a:threw"));
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  Step(2s, 1);
  EXPECT_TRUE(a.elector().IsLeader());
  a.Stop();
  EXPECT_GE(log_.IndexOf("a:stopped"), 0);
}

TEST_F(LeaderElectorTest, GetFailuresDuringRenewalAreToleratedUntilTheDeadline) {
  Candidate a(clock_, store_, "a", log_);
  a.Start();
  ASSERT_TRUE(log_.WaitFor("a:started"));
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  a.lock().FailNextGets(3);  // 2, 4, 6 s fail; 8 s succeeds (deadline 10 s)
  for (int i = 0; i < 6; ++i) {
    Step(2s, 1);
    ASSERT_TRUE(a.elector().IsLeader()) << "at " << 2 * (i + 1) << "s";
  }
  EXPECT_EQ(log_.IndexOf("a:stopped"), -1);
}

struct InvalidCase {
  const char* what;
  std::function<void(LeaderElectionConfig&)> tweak;
};

TEST(LeaderElectionConfigValidation, RejectsInvalidTimingsAndMissingParts) {
  const std::vector<InvalidCase> cases = {
      {"leaseDuration must be greater than zero", [](auto& c) { c.lease_duration = 0s; }},
      {"renewDeadline must be greater than zero", [](auto& c) { c.renew_deadline = -1s; }},
      {"retryPeriod must be greater than zero", [](auto& c) { c.retry_period = 0s; }},
      {"leaseDuration must be greater than renewDeadline", [](auto& c) { c.lease_duration = 10s; }},
      {"renewDeadline must be greater than retryPeriod*JitterFactor",
       [](auto& c) { c.retry_period = 8500ms; }},  // 1.2 * 8.5 s = 10.2 s
      {"lock must not be null", [](auto& c) { c.lock.reset(); }},
      {"lock identity is empty",
       [](auto& c) { c.lock = std::make_unique<FakeLock>(std::make_shared<FakeLeaseStore>(), ""); }},
      {"on_started_leading callback must be set", [](auto& c) { c.callbacks.on_started_leading = {}; }},
      {"on_stopped_leading callback must be set", [](auto& c) { c.callbacks.on_stopped_leading = {}; }},
  };
  FakeClock clock;
  for (const auto& tc : cases) {
    LeaderElectionConfig config{.lock = std::make_unique<FakeLock>(std::make_shared<FakeLeaseStore>(), "a")};
    config.callbacks.on_started_leading = [](std::stop_token) {};
    config.callbacks.on_stopped_leading = [] {};
    ASSERT_TRUE(ValidateConfig(config).ok()) << "defaults must be valid";
    tc.tweak(config);
    auto elector = LeaderElector::Create(std::move(config), clock);
    ASSERT_FALSE(elector.ok()) << tc.what;
    EXPECT_TRUE(IsBadRequest(elector.error()));
    EXPECT_EQ(elector.error().message, tc.what);
  }
}

TEST(LeaderElectionConfigValidation, DefaultsAreThoseOfClientGo) {
  const LeaderElectionConfig config;
  EXPECT_EQ(config.lease_duration, 15s);
  EXPECT_EQ(config.renew_deadline, 10s);
  EXPECT_EQ(config.retry_period, 2s);
  EXPECT_FALSE(config.release_on_cancel);
  EXPECT_DOUBLE_EQ(kJitterFactor, 1.2);
}

}  // namespace
}  // namespace kube::leaderelection
