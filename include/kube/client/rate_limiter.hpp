#pragma once

#include <stop_token>

#include <kube/base/clock.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/result.hpp>

namespace kube::client {

/// client-go's client-side throttle (`flowcontrol.NewTokenBucketRateLimiter`, built on Go's
/// `x/time/rate`): a bucket of `burst` tokens refilled at `qps` per second. `Wait` reserves a
/// token immediately (the balance may go negative) and sleeps on the injected Clock until the
/// reservation matures, so waiters are served in arrival order and a FakeClock drives it in tests.
/// **Thread-safety:** all members may be called concurrently.
class TokenBucketRateLimiter final {
 public:
  /// A full bucket. `qps` must be > 0 and `burst` >= 1 (asserted). `clock` must outlive this.
  TokenBucketRateLimiter(double qps, int burst, Clock& clock = RealClock::Instance());

  /// Takes a token if one is available now; never blocks.
  bool TryAccept() KUBE_EXCLUDES(mu_);
  /// Takes a token, sleeping until it is available. **Blocks?** Yes, on the clock.
  /// **Errors:** Canceled when `stop` is requested first (the reservation is returned).
  Result<void> Wait(std::stop_token stop = {}) KUBE_EXCLUDES(mu_);
  /// How long a `Wait` starting now would sleep (without reserving).
  Clock::Duration Delay() const KUBE_EXCLUDES(mu_);

  double qps() const { return qps_; }
  int burst() const { return burst_; }

 private:
  void AdvanceLocked(Clock::TimePoint now) const KUBE_REQUIRES(mu_);

  const double qps_;
  const int burst_;
  Clock& clock_;
  mutable Mutex mu_;
  mutable double tokens_ KUBE_GUARDED_BY(mu_);  // may be negative: outstanding reservations
  mutable Clock::TimePoint last_ KUBE_GUARDED_BY(mu_);  // when tokens_ was last brought up to date
};

}  // namespace kube::client
