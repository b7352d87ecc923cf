#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>

#include <kube/base/clock.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/random.hpp>
#include <kube/base/result.hpp>
#include <kube/leaderelection/lease_lock.hpp>

namespace kube::leaderelection {

/// client-go's JitterFactor: the acquire loop waits retry_period * (1 + [0, 1.2)).
inline constexpr double kJitterFactor = 1.2;

/// What the elector calls. `on_started_leading` and `on_stopped_leading` are required.
/// No callback is ever called with an elector lock held, so callbacks may call back into the
/// elector (IsLeader, GetLeader, ...).
struct LeaderCallbacks {
  /// Called on a thread of its own when this candidate becomes leader. `stop` is requested the
  /// moment leadership ends (lost, renew deadline passed, or Run cancelled): the leader's work
  /// must stop acting then and return promptly. May return earlier (leadership is kept).
  std::function<void(std::stop_token stop)> on_started_leading{};
  /// Called on Run's thread after leadership ended: after `stop` of on_started_leading was
  /// requested and that call has returned. Not called if this candidate never led.
  std::function<void()> on_stopped_leading{};
  /// Optional. Called on Run's thread whenever the observed holder changes (including to this
  /// candidate itself, and to "" after a release).
  std::function<void(const std::string& identity)> on_new_leader{};
};

/// Configuration of a `LeaderElector` (client-go `LeaderElectionConfig`).
/// Validation (`LeaderElector::Create`): lease_duration > renew_deadline >
/// kJitterFactor * retry_period, all three > 0; lock non-null with a non-empty Identity();
/// on_started_leading and on_stopped_leading set.
struct LeaderElectionConfig {
  /// The lock to compete for. **Ownership:** sink; the elector owns it.
  std::unique_ptr<ResourceLock> lock{};
  /// How long non-leaders wait after the last observed change of the record before they try to
  /// take over. Written to the record rounded up to whole seconds (leaseDurationSeconds).
  Clock::Duration lease_duration = std::chrono::seconds(15);
  /// How long the leader keeps leading without a successful renewal, counted from the start of
  /// its last successful renewal request.
  Clock::Duration renew_deadline = std::chrono::seconds(10);
  /// Period between acquire attempts (jittered) and between renewals.
  Clock::Duration retry_period = std::chrono::seconds(2);
  /// When Run is cancelled while leading, write an empty holder with leaseDurationSeconds = 1
  /// so that another candidate can take over at once (after the leader's work has returned).
  bool release_on_cancel = false;
  /// Name used in logs.
  std::string name{};
  /// The callbacks (see LeaderCallbacks for which are required).
  LeaderCallbacks callbacks{};
  /// Jitter source for the acquire loop; empty = UniformRandom01 (tests make it deterministic).
  RandomSource rand{};
};

/// A leadership claim that reconcilers can attach to their writes: the holder plus the lease's
/// transition count at the time this candidate acquired it. A new leadership term always has a
/// larger `lease_transitions`, so a stale token can be recognised by comparing it to the Lease.
struct FencingToken {
  std::string holder_identity{};
  std::int64_t lease_transitions = 0;
  bool operator==(const FencingToken&) const = default;
  /// "holder/transitions".
  std::string ToString() const;
};

/// Competes for a `ResourceLock` and, while it holds it, runs `on_started_leading`
/// (client-go `LeaderElector`).
///
/// Expiry is judged with this candidate's own `Clock`, from the moment it last observed a change
/// of the record (client-go's observedTime), never from the record's timestamps: a holder's
/// lease is considered expired once `record.lease_duration_seconds` passed on our clock without
/// the record changing. Updates are compare-and-swap: a Conflict loses the round.
///
/// Guarantee (when candidates' clocks run at the same rate and lock calls return promptly):
/// the leader stops (requests stop on the leader's token and reports !IsLeader()) at
/// `renew_deadline` after sending its last successful renewal, which is before any other
/// candidate can see the lease expire (`lease_duration` after it observed that renewal).
/// There is no fencing at the API server: work must obey the stop token. A lock call that blocks
/// past the deadline delays the stop until it returns (IsLeader() turns false on time anyway).
///
/// **Thread-safety:** Run on one thread at a time; the accessors may be called from any thread.
/// **Ownership:** owns the lock; `clock` must outlive the elector.
class LeaderElector final {
 public:
  /// Validates `config` and builds an elector. **Errors:** 400 BadRequest naming the violated
  /// rule (e.g. "leaseDuration must be greater than renewDeadline").
  static Result<std::unique_ptr<LeaderElector>> Create(LeaderElectionConfig config,
                                                       Clock& clock = RealClock::Instance());
  ~LeaderElector();
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  /// Tries to acquire the lock every retry_period (jittered) until it succeeds or `stop` is
  /// requested; then renews it every retry_period until a renewal has not succeeded for
  /// renew_deadline or `stop` is requested. Returns when leadership ended or when stopped before
  /// acquiring. Before returning, stop has been requested on the leader's token,
  /// on_started_leading has returned, the lock was released if configured, and
  /// on_stopped_leading has been called. May be called again after it returns.
  /// **Blocks?** Yes.
  void Run(std::stop_token stop);

  /// True while this candidate leads: it acquired the lock and its renew deadline has not passed.
  bool IsLeader() const;
  /// The holder identity last observed in the record ("" when none/unknown).
  std::string GetLeader() const;
  /// This candidate's identity (the lock's).
  std::string Identity() const;
  /// The token of the current leadership term, or nullopt when not leading.
  std::optional<FencingToken> GetFencingToken() const;
  /// Health check for a /healthz endpoint (client-go `HealthzAdaptor`): fails when this candidate
  /// believes it leads but its lease expired more than `max_tolerable_expiration` ago.
  /// **Errors:** 500 InternalError describing the overdue renewal.
  Result<void> Check(Clock::Duration max_tolerable_expiration) const;

 private:
  LeaderElector(LeaderElectionConfig config, Clock& clock);

  class Impl;
  std::unique_ptr<Impl> impl_;
};

/// Checks the timing and required fields of `config` (as Create does).
Result<void> ValidateConfig(const LeaderElectionConfig& config);

}  // namespace kube::leaderelection
