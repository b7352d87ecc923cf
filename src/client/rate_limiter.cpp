#include <kube/client/rate_limiter.hpp>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>

namespace kube::client {

TokenBucketRateLimiter::TokenBucketRateLimiter(double qps, int burst, Clock& clock)
    : qps_(qps), burst_(burst), clock_(clock), tokens_(burst), last_(clock.Now()) {
  assert(qps > 0 && burst >= 1);
}

void TokenBucketRateLimiter::AdvanceLocked(Clock::TimePoint now) const {
  if (now <= last_) return;
  const double elapsed = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min<double>(burst_, tokens_ + elapsed * qps_);
  last_ = now;
}

bool TokenBucketRateLimiter::TryAccept() {
  MutexLock lock(mu_);
  AdvanceLocked(clock_.Now());
  if (tokens_ < 1.0) return false;
  tokens_ -= 1.0;
  return true;
}

Clock::Duration TokenBucketRateLimiter::Delay() const {
  MutexLock lock(mu_);
  AdvanceLocked(clock_.Now());
  if (tokens_ >= 1.0) return Clock::Duration::zero();
  return std::chrono::duration_cast<Clock::Duration>(std::chrono::duration<double>((1.0 - tokens_) / qps_));
}

Result<void> TokenBucketRateLimiter::Wait(std::stop_token stop) {
  Clock::TimePoint ready;
  {
    MutexLock lock(mu_);
    const auto now = clock_.Now();
    AdvanceLocked(now);
    tokens_ -= 1.0;  // reserve now; a negative balance is the queue of waiters ahead of us
    if (tokens_ >= 0.0) return Ok();
    const auto wait = std::chrono::duration<double>(-tokens_ / qps_);
    // Round up so that the token has really accrued when the sleeper wakes.
    ready = now + std::chrono::ceil<Clock::Duration>(wait);
  }
  if (clock_.SleepUntil(ready, stop)) return Ok();
  {
    MutexLock lock(mu_);
    AdvanceLocked(clock_.Now());
    tokens_ = std::min<double>(burst_, tokens_ + 1.0);  // give the reservation back
  }
  return CanceledError("client rate limiter Wait: stop requested");
}

}  // namespace kube::client
