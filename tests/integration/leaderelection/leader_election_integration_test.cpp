// kube::leaderelection against the embedded API server: three electors competing for one Lease
// with short durations on the real clock. Checked: at most one candidate acts as leader at any
// moment (from the leaders' own callbacks), the Lease history seen through a watch respects the
// lock's invariants, a stopped leader is replaced, and a leader whose renewals fail stops acting
// before another one starts.
#include <kube/apiserver/apiserver.hpp>
#include <kube/client/dynamic_client.hpp>
#include <kube/client/rest_client.hpp>
#include <kube/api/object.hpp>
#include <kube/client/typed_api.hpp>
#include <kube/core/watch_event.hpp>
#include <kube/leaderelection/leader_elector.hpp>
#include <kube/leaderelection/lease_lock.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace kube::leaderelection {
namespace {

using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;

constexpr auto kLeaseDuration = 1500ms;  // written as leaseDurationSeconds = 2
constexpr auto kRenewDeadline = 1000ms;
constexpr auto kRetryPeriod = 200ms;
constexpr auto kRecordLeaseDuration = 2s;
constexpr const char* kLeaseName = "it-lock";

// Who acts as leader, from the leaders' own callbacks. A start while someone else still acts is
// a violation of the election's guarantee.
class Timeline {
 public:
  struct Term {
    std::string id;
    Steady::time_point start;
    std::optional<Steady::time_point> end;
  };

  void Started(const std::string& id) {
    MutexLock lock(mu_);
    if (!acting_.empty()) violations_.push_back(id + " started while " + acting_ + " was acting");
    acting_ = id;
    terms_.push_back({id, Steady::now(), std::nullopt});
    cv_.SignalAll();
  }
  void Stopped(const std::string& id) {
    MutexLock lock(mu_);
    if (acting_ == id) acting_.clear();
    for (auto& t : terms_) {
      if (t.id == id && !t.end) t.end = Steady::now();
    }
    cv_.SignalAll();
  }
  // Waits (bounded) until `pred(terms)` holds; returns whether it did.
  bool WaitUntil(const std::function<bool(const std::vector<Term>&)>& pred, Steady::duration limit = 60s) {
    const auto deadline = Steady::now() + limit;
    MutexLock lock(mu_);
    while (!pred(terms_)) {
      if (cv_.WaitUntil(mu_, deadline) && !pred(terms_)) return false;
    }
    return true;
  }
  std::vector<Term> Terms() const {
    MutexLock lock(mu_);
    return terms_;
  }
  std::vector<std::string> Violations() const {
    MutexLock lock(mu_);
    return violations_;
  }

 private:
  mutable Mutex mu_;
  CondVar cv_;
  std::string acting_ KUBE_GUARDED_BY(mu_);
  std::vector<Term> terms_ KUBE_GUARDED_BY(mu_);
  std::vector<std::string> violations_ KUBE_GUARDED_BY(mu_);
};

// Wraps a lock so that a test can make its renewals (updates) fail on purpose.
class FlakyLock final : public ResourceLock {
 public:
  FlakyLock(std::unique_ptr<ResourceLock> inner, std::shared_ptr<std::atomic<bool>> fail)
      : inner_(std::move(inner)), fail_(std::move(fail)) {}
  Result<ObservedRecord> Get() override { return inner_->Get(); }
  Result<void> Create(const LeaderElectionRecord& r) override { return inner_->Create(r); }
  Result<void> Update(const LeaderElectionRecord& r) override {
    if (fail_->load()) return MakeError(503, reason::kServiceUnavailable, "injected renewal failure");
    return inner_->Update(r);
  }
  std::string Identity() const override { return inner_->Identity(); }
  std::string Describe() const override { return inner_->Describe(); }

 private:
  std::unique_ptr<ResourceLock> inner_;
  std::shared_ptr<std::atomic<bool>> fail_;
};

void WaitForStop(std::stop_token stop) {
  std::mutex m;
  std::condition_variable_any cv;
  std::unique_lock lock(m);
  cv.wait(lock, stop, [] { return false; });
}

// One candidate campaigning in a loop (Run again after losing) until stopped.
class Candidate {
 public:
  Candidate(const client::TypedApi<LeaseLock::Lease>& leases, std::string id, Timeline& timeline)
      : id_(std::move(id)), fail_(std::make_shared<std::atomic<bool>>(false)) {
    auto lease_lock = std::make_unique<LeaseLock>(leases, kLeaseName, id_);
    LeaderElectionConfig config{
        .lock = std::make_unique<FlakyLock>(std::move(lease_lock), fail_),
        .lease_duration = kLeaseDuration,
        .renew_deadline = kRenewDeadline,
        .retry_period = kRetryPeriod,
        .name = "it-" + id_,
    };
    config.callbacks.on_started_leading = [this, &timeline](std::stop_token stop) {
      timeline.Started(id_);
      WaitForStop(stop);
      timeline.Stopped(id_);
    };
    config.callbacks.on_stopped_leading = [] {};
    auto elector = LeaderElector::Create(std::move(config));
    EXPECT_TRUE(elector.ok()) << elector.error().message;
    if (elector.ok()) elector_ = std::move(*elector);
  }
  ~Candidate() { Stop(); }

  void Start() {
    thread_ = std::jthread([this](std::stop_token stop) {
      while (!stop.stop_requested()) elector_->Run(stop);
    });
  }
  void Stop() {
    if (thread_.joinable()) {
      thread_.request_stop();
      thread_.join();
    }
  }
  void FailRenewals() { fail_->store(true); }
  const std::string& id() const { return id_; }
  LeaderElector& elector() { return *elector_; }

 private:
  std::string id_;
  std::shared_ptr<std::atomic<bool>> fail_;
  std::unique_ptr<LeaderElector> elector_;
  std::jthread thread_;
};

// Every version of the Lease, as a watch delivers it.
class LeaseHistory {
 public:
  explicit LeaseHistory(const client::TypedApi<LeaseLock::Lease>& leases) {
    ListOptions options;
    options.field_selector = std::string("metadata.name=") + kLeaseName;
    options.timeout_seconds = 600;
    auto stream = leases.dynamic().Watch(options);
    EXPECT_TRUE(stream.ok()) << stream.error().ToString();
    if (!stream.ok()) return;
    stream_ = std::move(*stream);
    thread_ = std::jthread([this] {
      while (true) {
        auto event = stream_->Next();
        if (!event.ok() || !event->has_value()) return;
        const auto& e = **event;
        if ((e.type != WatchEventType::kAdded && e.type != WatchEventType::kModified) || !e.object) continue;
        auto lease = api::FromObject<LeaseLock::Lease>(*e.object);
        EXPECT_TRUE(lease.ok()) << lease.error().ToString();
        if (!lease.ok()) continue;
        MutexLock lock(mu_);
        records_.push_back(RecordFromLease(*lease));
        versions_.push_back(std::string(e.object->ResourceVersion()));
        cv_.SignalAll();
      }
    });
  }
  ~LeaseHistory() {
    if (stream_) stream_->Stop();
  }
  std::vector<LeaderElectionRecord> Records() const {
    MutexLock lock(mu_);
    return records_;
  }
  // Waits (bounded) until the watch delivered the Lease's current version.
  bool CaughtUpWith(const client::TypedApi<LeaseLock::Lease>& leases) {
    auto lease = leases.Get(kLeaseName);
    if (!lease.ok()) return false;
    const std::string rv = lease->metadata.resourceVersion;
    const auto deadline = Steady::now() + 30s;
    MutexLock lock(mu_);
    while (std::find(versions_.begin(), versions_.end(), rv) == versions_.end()) {
      if (cv_.WaitUntil(mu_, deadline)) {
        return std::find(versions_.begin(), versions_.end(), rv) != versions_.end();
      }
    }
    return true;
  }

 private:
  std::unique_ptr<client::WatchStream> stream_;
  mutable Mutex mu_;
  CondVar cv_;
  std::vector<LeaderElectionRecord> records_ KUBE_GUARDED_BY(mu_);
  std::vector<std::string> versions_ KUBE_GUARDED_BY(mu_);  // resourceVersion of records_[i]
  std::jthread thread_;
};

// The lock's invariants over consecutive versions of the record.
void ExpectLeaseHistoryIsConsistent(const std::vector<LeaderElectionRecord>& history) {
  ASSERT_FALSE(history.empty());
  EXPECT_EQ(history.front().lease_transitions, 0);
  for (std::size_t i = 1; i < history.size(); ++i) {
    const auto& prev = history[i - 1];
    const auto& cur = history[i];
    SCOPED_TRACE("version " + std::to_string(i) + ": " + prev.holder_identity + " -> " + cur.holder_identity);
    if (cur.holder_identity == prev.holder_identity) {
      // A renewal by the same holder: same term.
      EXPECT_EQ(cur.lease_transitions, prev.lease_transitions);
      EXPECT_EQ(cur.acquire_time, prev.acquire_time);
      EXPECT_GE(cur.renew_time, prev.renew_time);
    } else if (cur.holder_identity.empty()) {
      EXPECT_EQ(cur.lease_transitions, prev.lease_transitions);  // a release
    } else {
      // A takeover: a new term, and (all candidates share this process's wall clock) not before
      // the previous holder's lease, counted from its last renewal, had run out.
      EXPECT_EQ(cur.lease_transitions, prev.lease_transitions + 1);
      if (!prev.holder_identity.empty()) {
        EXPECT_GE(cur.acquire_time - prev.renew_time, std::chrono::seconds(prev.lease_duration_seconds));
      }
    }
  }
}

class LeaderElectionIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    apiserver::ApiServerOptions o;
    o.storage = apiserver::ApiServerOptions::StorageKind::kMemory;
    o.tls = false;
    o.authenticate = false;
    auto server = apiserver::ApiServer::Start(o);
    ASSERT_TRUE(server.ok()) << server.error().message;
    server_ = std::move(*server);
    client::Config c;
    c.host = "http://127.0.0.1:" + std::to_string(server_->port());
    c.qps = -1;
    c.timeout = 5s;
    auto rest = client::RestClient::Create(c);
    ASSERT_TRUE(rest.ok()) << rest.error().ToString();
    leases_.emplace(client::Api(*rest, client::ResourceOf<LeaseLock::Lease>(), "default"));
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }

  std::unique_ptr<apiserver::ApiServer> server_;
  std::optional<client::TypedApi<LeaseLock::Lease>> leases_;
  Timeline timeline_;
};

TEST_F(LeaderElectionIntegrationTest, AtMostOneLeaderAndAnotherTakesOverWhenTheLeaderStops) {
  LeaseHistory history(*leases_);
  std::vector<std::unique_ptr<Candidate>> candidates;
  for (const char* id : {"c0", "c1", "c2"}) {
    candidates.push_back(std::make_unique<Candidate>(*leases_, id, timeline_));
  }
  for (auto& c : candidates) c->Start();

  // Stop whoever leads, twice; each time another candidate must take over.
  for (int round = 0; round < 2; ++round) {
    ASSERT_TRUE(timeline_.WaitUntil([&](const auto& terms) { return terms.size() > std::size_t(round); }))
        << "no leader elected in round " << round;
    const std::size_t terms_before = timeline_.Terms().size();
    const auto leader_id = timeline_.Terms().back().id;
    Candidate* leader = nullptr;
    for (auto& c : candidates) {
      if (c->id() == leader_id) leader = c.get();
    }
    ASSERT_NE(leader, nullptr);
    // Let it renew a few times, then stop it (no release: the others must wait out the lease).
    std::this_thread::sleep_for(3 * kRetryPeriod);
    const auto stopped_at = Steady::now();
    leader->Stop();
    ASSERT_TRUE(timeline_.WaitUntil([&](const auto& terms) { return terms.size() > terms_before; }))
        << "no takeover after " << leader_id << " stopped";
    const auto terms = timeline_.Terms();
    const auto& next = terms.back();
    EXPECT_NE(next.id, leader_id);
    const auto takeover = next.start - stopped_at;
    // Bound: the lease as written (whole seconds) plus one jittered retry period, with slack for
    // a loaded machine; the measured value is printed.
    const auto bound = kRecordLeaseDuration + kJitterFactor * kRetryPeriod + kRetryPeriod;
    std::cout << "takeover after stopping " << leader_id << ": "
              << std::chrono::duration_cast<std::chrono::milliseconds>(takeover).count() << " ms\n";
    EXPECT_LE(takeover, bound + 3s);
    EXPECT_GT(takeover, kRenewDeadline) << "taken over before the stopped leader's lease could expire";
  }
  for (auto& c : candidates) c->Stop();

  EXPECT_TRUE(timeline_.Violations().empty()) << timeline_.Violations().front();
  const auto terms = timeline_.Terms();
  for (std::size_t i = 1; i < terms.size(); ++i) {
    ASSERT_TRUE(terms[i - 1].end.has_value());
    EXPECT_LE(*terms[i - 1].end, terms[i].start) << terms[i - 1].id << " overlaps " << terms[i].id;
  }
  ASSERT_TRUE(history.CaughtUpWith(*leases_));
  const auto records = history.Records();
  ExpectLeaseHistoryIsConsistent(records);
  // Every term in the callbacks is a term in the Lease history, in order.
  std::vector<std::string> holders;
  for (const auto& r : records) {
    if (!r.holder_identity.empty() && (holders.empty() || holders.back() != r.holder_identity)) {
      holders.push_back(r.holder_identity);
    }
  }
  std::vector<std::string> leaders;
  for (const auto& t : terms) leaders.push_back(t.id);
  EXPECT_EQ(holders, leaders);
}

TEST_F(LeaderElectionIntegrationTest, LeaderWhoseRenewalsFailStopsActingBeforeANewOneStarts) {
  LeaseHistory history(*leases_);
  std::vector<std::unique_ptr<Candidate>> candidates;
  for (const char* id : {"c0", "c1", "c2"}) {
    candidates.push_back(std::make_unique<Candidate>(*leases_, id, timeline_));
  }
  for (auto& c : candidates) c->Start();
  ASSERT_TRUE(timeline_.WaitUntil([](const auto& terms) { return !terms.empty(); }));
  const auto first = timeline_.Terms().front().id;
  std::this_thread::sleep_for(3 * kRetryPeriod);
  for (auto& c : candidates) {
    if (c->id() == first) c->FailRenewals();
  }
  ASSERT_TRUE(timeline_.WaitUntil([](const auto& terms) { return terms.size() >= 2; }))
      << "nobody replaced " << first;
  const auto terms = timeline_.Terms();
  ASSERT_TRUE(terms[0].end.has_value()) << first << " still acting while " << terms[1].id << " leads";
  EXPECT_LE(*terms[0].end, terms[1].start);
  EXPECT_NE(terms[1].id, first);
  for (auto& c : candidates) {
    if (c->id() == first) {
      EXPECT_FALSE(c->elector().IsLeader());
    }
  }
  for (auto& c : candidates) c->Stop();
  EXPECT_TRUE(timeline_.Violations().empty()) << timeline_.Violations().front();
  ASSERT_TRUE(history.CaughtUpWith(*leases_));
  ExpectLeaseHistoryIsConsistent(history.Records());
}

}  // namespace
}  // namespace kube::leaderelection
