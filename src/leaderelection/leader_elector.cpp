#include <kube/leaderelection/leader_elector.hpp>

#include <algorithm>
#include <exception>
#include <thread>
#include <utility>

#include <kube/base/backoff.hpp>
#include <kube/base/log.hpp>
#include <kube/core/time.hpp>

namespace kube::leaderelection {
namespace {

// leaseDurationSeconds is whole seconds: round up, so that the record never promises less than
// the configured duration (the leader's renew deadline must stay below it).
std::int64_t CeilSeconds(Clock::Duration d) {
  const auto secs = std::chrono::ceil<std::chrono::seconds>(d).count();
  return std::max<std::int64_t>(secs, 1);
}

void CallSafely(const char* what, const std::string& name, const std::function<void()>& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    log::Error("leader election callback threw", {{"callback", what}, {"name", name}, {"error", e.what()}});
  } catch (...) {
    log::Error("leader election callback threw", {{"callback", what}, {"name", name}});
  }
}

}  // namespace

std::string FencingToken::ToString() const {
  return holder_identity + "/" + std::to_string(lease_transitions);
}

Result<void> ValidateConfig(const LeaderElectionConfig& config) {
  using std::chrono::duration_cast;
  if (config.lease_duration <= Clock::Duration::zero()) {
    return BadRequest("leaseDuration must be greater than zero");
  }
  if (config.renew_deadline <= Clock::Duration::zero()) {
    return BadRequest("renewDeadline must be greater than zero");
  }
  if (config.retry_period <= Clock::Duration::zero()) {
    return BadRequest("retryPeriod must be greater than zero");
  }
  if (config.lease_duration <= config.renew_deadline) {
    return BadRequest("leaseDuration must be greater than renewDeadline");
  }
  const auto jittered = duration_cast<Clock::Duration>(
      std::chrono::duration<double, Clock::Duration::period>(
          kJitterFactor * static_cast<double>(config.retry_period.count())));
  if (config.renew_deadline <= jittered) {
    return BadRequest("renewDeadline must be greater than retryPeriod*JitterFactor");
  }
  if (!config.lock) return BadRequest("lock must not be null");
  if (config.lock->Identity().empty()) return BadRequest("lock identity is empty");
  if (!config.callbacks.on_started_leading) {
    return BadRequest("on_started_leading callback must be set");
  }
  if (!config.callbacks.on_stopped_leading) {
    return BadRequest("on_stopped_leading callback must be set");
  }
  return Ok();
}

class LeaderElector::Impl {
 public:
  Impl(LeaderElectionConfig config, Clock& clock)
      : config_(std::move(config)), clock_(clock), identity_(config_.lock->Identity()) {}

  void Run(std::stop_token stop);
  bool IsLeader() const;
  std::string GetLeader() const;
  std::optional<FencingToken> GetFencingToken() const;
  Result<void> Check(Clock::Duration max_tolerable_expiration) const;
  const std::string& identity() const { return identity_; }

 private:
  enum class End { kCanceled, kLost };

  // One round of client-go's tryAcquireOrRenew. `start` is the monotonic time before any request.
  bool TryAcquireOrRenew(Clock::TimePoint start);
  // Records `record` as observed now when it differs from what was last observed.
  void Observe(const LeaderElectionRecord& record) KUBE_EXCLUDES(mu_);
  // Calls on_new_leader when the observed holder changed since the last report (Run thread only).
  void MaybeReportNewLeader() KUBE_EXCLUDES(mu_);
  End RenewLoop(std::stop_token stop);
  void Release() KUBE_EXCLUDES(mu_);
  bool ObservedHolderIs(const std::string& id) const KUBE_EXCLUDES(mu_);

  const LeaderElectionConfig config_;
  Clock& clock_;
  const std::string identity_;
  std::string reported_leader_;  // Run thread only: the holder last passed to on_new_leader

  mutable Mutex mu_;
  std::optional<LeaderElectionRecord> observed_record_ KUBE_GUARDED_BY(mu_);
  // When observed_record_ last changed, on our clock: expiry of others' leases counts from here.
  Clock::TimePoint observed_time_ KUBE_GUARDED_BY(mu_){};
  // leading_ => leading_deadline_ == last_renew_start_ + renew_deadline and token_ is this term's.
  bool leading_ KUBE_GUARDED_BY(mu_) = false;
  Clock::TimePoint last_renew_start_ KUBE_GUARDED_BY(mu_){};
  Clock::TimePoint leading_deadline_ KUBE_GUARDED_BY(mu_){};
  FencingToken token_ KUBE_GUARDED_BY(mu_);
};

void LeaderElector::Impl::Observe(const LeaderElectionRecord& record) {
  MutexLock lock(mu_);
  if (!observed_record_ || *observed_record_ != record) {
    observed_record_ = record;
    observed_time_ = clock_.Now();
  }
}

bool LeaderElector::Impl::ObservedHolderIs(const std::string& id) const {
  MutexLock lock(mu_);
  return observed_record_ && observed_record_->holder_identity == id;
}

bool LeaderElector::Impl::TryAcquireOrRenew(Clock::TimePoint start) {
  auto current = config_.lock->Get();
  const auto wall_now = TruncateToMicrosecond(clock_.WallNow());
  LeaderElectionRecord desired{
      .holder_identity = identity_,
      .lease_duration_seconds = CeilSeconds(config_.lease_duration),
      .acquire_time = wall_now,
      .renew_time = wall_now,
      .lease_transitions = 0,
  };
  if (!current.ok()) {
    if (!IsNotFound(current.error())) {
      log::Warn("error retrieving lease lock", {{"lock", config_.lock->Describe()},
                                                {"error", current.error().ToString()}});
      return false;
    }
    if (auto created = config_.lock->Create(desired); !created.ok()) {
      log::Warn("error initially creating lease lock", {{"lock", config_.lock->Describe()},
                                                        {"error", created.error().ToString()}});
      return false;
    }
    Observe(desired);
    MutexLock lock(mu_);
    token_ = FencingToken{identity_, desired.lease_transitions};
    last_renew_start_ = start;
    return true;
  }

  const LeaderElectionRecord& old = current->record;
  Observe(old);
  if (!old.holder_identity.empty() && old.holder_identity != identity_) {
    MutexLock lock(mu_);
    const auto expires = observed_time_ + std::chrono::seconds(old.lease_duration_seconds);
    if (clock_.Now() < expires) return false;  // held by someone else and not expired
  }
  // Stamped after the expiry decision, so that a takeover's acquireTime is never earlier than
  // the moment the previous holder's lease was judged expired.
  desired.acquire_time = desired.renew_time = TruncateToMicrosecond(clock_.WallNow());

  if (old.holder_identity == identity_) {
    desired.acquire_time = old.acquire_time;
    desired.lease_transitions = old.lease_transitions;
  } else {
    desired.lease_transitions = old.lease_transitions + 1;
  }

  if (auto updated = config_.lock->Update(desired); !updated.ok()) {
    if (!IsConflict(updated.error())) {
      log::Warn("failed to update lease lock", {{"lock", config_.lock->Describe()},
                                               {"error", updated.error().ToString()}});
    }
    return false;  // a Conflict means someone else wrote first: this round is lost
  }
  Observe(desired);
  MutexLock lock(mu_);
  token_ = FencingToken{identity_, desired.lease_transitions};
  last_renew_start_ = start;
  return true;
}

void LeaderElector::Impl::MaybeReportNewLeader() {
  std::string holder;
  {
    MutexLock lock(mu_);
    if (!observed_record_) return;
    holder = observed_record_->holder_identity;
  }
  if (holder == reported_leader_) return;
  reported_leader_ = holder;
  log::Info("new leader observed", {{"name", config_.name}, {"lock", config_.lock->Describe()},
                                    {"leader", holder}, {"identity", identity_}});
  if (config_.callbacks.on_new_leader) {
    CallSafely("on_new_leader", config_.name, [&] { config_.callbacks.on_new_leader(holder); });
  }
}

LeaderElector::Impl::End LeaderElector::Impl::RenewLoop(std::stop_token stop) {
  Clock::TimePoint next_attempt = clock_.Now() + config_.retry_period;
  while (true) {
    Clock::TimePoint deadline;
    {
      MutexLock lock(mu_);
      deadline = leading_deadline_;
    }
    clock_.SleepUntil(std::min(next_attempt, deadline), stop);
    if (stop.stop_requested()) return End::kCanceled;
    const auto now = clock_.Now();
    if (now >= deadline) {
      log::Warn("failed to renew lease before the renew deadline", {{"lock", config_.lock->Describe()},
                                                                    {"identity", identity_}});
      return End::kLost;
    }
    if (now < next_attempt) continue;

    const bool renewed = TryAcquireOrRenew(now);
    MaybeReportNewLeader();
    if (renewed) {
      MutexLock lock(mu_);
      leading_deadline_ = last_renew_start_ + config_.renew_deadline;
    } else if (!ObservedHolderIs(identity_)) {
      // Someone else holds the lock now: there is no point waiting for the deadline.
      log::Warn("lease taken over by another candidate", {{"lock", config_.lock->Describe()},
                                                          {"identity", identity_}});
      return End::kLost;
    }
    next_attempt = now + config_.retry_period;
  }
}

void LeaderElector::Impl::Release() {
  LeaderElectionRecord released;
  {
    MutexLock lock(mu_);
    if (!observed_record_ || observed_record_->holder_identity != identity_) return;
    released = *observed_record_;
  }
  const auto wall_now = TruncateToMicrosecond(clock_.WallNow());
  released.holder_identity.clear();
  released.lease_duration_seconds = 1;
  released.acquire_time = wall_now;
  released.renew_time = wall_now;
  if (auto updated = config_.lock->Update(released); !updated.ok()) {
    log::Warn("failed to release lease lock", {{"lock", config_.lock->Describe()},
                                               {"error", updated.error().ToString()}});
    return;
  }
  Observe(released);
}

void LeaderElector::Impl::Run(std::stop_token stop) {
  {
    MutexLock lock(mu_);
    leading_ = false;
  }
  log::Info("attempting to acquire leader lease", {{"name", config_.name},
                                                   {"lock", config_.lock->Describe()},
                                                   {"identity", identity_}});
  bool acquired = false;
  while (!stop.stop_requested()) {
    const auto start = clock_.Now();
    acquired = TryAcquireOrRenew(start);
    MaybeReportNewLeader();
    if (acquired) break;
    clock_.SleepUntil(start + Jitter(config_.retry_period, kJitterFactor, config_.rand), stop);
  }
  if (!acquired) return;

  {
    MutexLock lock(mu_);
    leading_ = true;
    leading_deadline_ = last_renew_start_ + config_.renew_deadline;
  }
  log::Info("successfully acquired lease", {{"name", config_.name},
                                            {"lock", config_.lock->Describe()},
                                            {"identity", identity_}});
  std::jthread leader([this](std::stop_token leader_stop) {
    CallSafely("on_started_leading", config_.name,
               [&] { config_.callbacks.on_started_leading(leader_stop); });
  });

  const End end = RenewLoop(stop);
  {
    MutexLock lock(mu_);
    leading_ = false;
  }
  // Stop the leader's work first (stop callbacks run here, with no lock held), then wait for it.
  leader.request_stop();
  leader.join();
  switch (end) {
    case End::kCanceled:
      if (config_.release_on_cancel) {
        Release();
        MaybeReportNewLeader();
      }
      break;
    case End::kLost:
      break;
  }
  log::Info("stopped leading", {{"name", config_.name}, {"identity", identity_},
                                {"reason", end == End::kLost ? "lost" : "canceled"}});
  CallSafely("on_stopped_leading", config_.name, [&] { config_.callbacks.on_stopped_leading(); });
}

bool LeaderElector::Impl::IsLeader() const {
  MutexLock lock(mu_);
  return leading_ && clock_.Now() < leading_deadline_;
}

std::string LeaderElector::Impl::GetLeader() const {
  MutexLock lock(mu_);
  return observed_record_ ? observed_record_->holder_identity : std::string();
}

std::optional<FencingToken> LeaderElector::Impl::GetFencingToken() const {
  MutexLock lock(mu_);
  if (!leading_ || clock_.Now() >= leading_deadline_) return std::nullopt;
  return token_;
}

Result<void> LeaderElector::Impl::Check(Clock::Duration max_tolerable_expiration) const {
  MutexLock lock(mu_);
  if (!leading_) return Ok();
  const auto overdue = clock_.Now() - (last_renew_start_ + config_.lease_duration);
  if (overdue > max_tolerable_expiration) {
    return InternalError("failed election to renew leadership on lease " + config_.lock->Describe() +
                         ": overdue by " +
                         std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(overdue).count()) +
                         " ms");
  }
  return Ok();
}

Result<std::unique_ptr<LeaderElector>> LeaderElector::Create(LeaderElectionConfig config,
                                                             Clock& clock) {
  KUBE_RETURN_IF_ERROR(ValidateConfig(config));
  return std::unique_ptr<LeaderElector>(new LeaderElector(std::move(config), clock));
}

LeaderElector::LeaderElector(LeaderElectionConfig config, Clock& clock)
    : impl_(std::make_unique<Impl>(std::move(config), clock)) {}

LeaderElector::~LeaderElector() = default;

void LeaderElector::Run(std::stop_token stop) { impl_->Run(std::move(stop)); }
bool LeaderElector::IsLeader() const { return impl_->IsLeader(); }
std::string LeaderElector::GetLeader() const { return impl_->GetLeader(); }
std::string LeaderElector::Identity() const { return impl_->identity(); }
std::optional<FencingToken> LeaderElector::GetFencingToken() const { return impl_->GetFencingToken(); }
Result<void> LeaderElector::Check(Clock::Duration max_tolerable_expiration) const {
  return impl_->Check(max_tolerable_expiration);
}

}  // namespace kube::leaderelection
