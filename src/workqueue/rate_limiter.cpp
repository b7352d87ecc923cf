#include <kube/workqueue/rate_limiter.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace kube::workqueue {

Clock::Duration ExponentialDelay(Clock::Duration base, Clock::Duration max, int failures) {
  if (base <= Clock::Duration::zero()) return std::min(Clock::Duration::zero(), max);
  // Computed in floating point, as client-go does, so that any exponent is safe.
  const double delay = std::ldexp(static_cast<double>(base.count()), std::max(failures, 0));
  // 2^63 is the first double that does not fit an int64 nanosecond count.
  if (!(delay < 9223372036854775808.0)) return max;
  return std::min(Clock::Duration(static_cast<std::int64_t>(delay)), max);
}

std::vector<Clock::Duration> DefaultStepDelays() {
  using std::chrono::milliseconds;
  using std::chrono::seconds;
  return {milliseconds(5),   milliseconds(10),  milliseconds(20),  milliseconds(40),
          milliseconds(80),  milliseconds(160), milliseconds(320), milliseconds(640),
          seconds(1),        seconds(2),        seconds(4),        seconds(8)};
}

TokenBucket::TokenBucket(BucketOptions options, Clock& clock)
    : options_(options), clock_(clock), tokens_(std::max(options.burst, 1)), last_(clock.Now()) {}

Clock::Duration TokenBucket::Reserve() {
  const double burst = std::max(options_.burst, 1);
  const Clock::TimePoint now = clock_.Now();
  internal::SpinMutexLock lock(mu_);
  const Clock::TimePoint from = std::min(last_, now);  // a stale `now` from a racing caller
  double tokens = tokens_;
  if (options_.qps > 0) {
    const double elapsed = std::chrono::duration<double>(now - from).count();
    tokens = std::min(burst, tokens + elapsed * options_.qps);
  }
  last_ = std::max(last_, now);
  tokens -= 1;
  if (tokens >= 0) {
    tokens_ = tokens;
    return Clock::Duration::zero();
  }
  const bool capped = options_.max_delay > Clock::Duration::zero();
  if (options_.qps <= 0) {
    tokens_ = capped ? tokens + 1 : tokens;
    return capped ? options_.max_delay : Clock::Duration::max();
  }
  const double wait_ns = -tokens * 1e9 / options_.qps;
  if (capped && wait_ns > static_cast<double>(options_.max_delay.count())) {
    tokens_ = tokens + 1;  // the item waits max_delay without adding to the debt
    return options_.max_delay;
  }
  tokens_ = tokens;
  if (!(wait_ns < 9223372036854775808.0)) return Clock::Duration::max();
  return Clock::Duration(static_cast<std::int64_t>(wait_ns));
}

}  // namespace kube::workqueue
