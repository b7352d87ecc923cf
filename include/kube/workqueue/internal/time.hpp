#pragma once

#include <chrono>

#include <kube/base/clock.hpp>

namespace kube::workqueue::internal {

/// `now + d` without overflow: saturates at `TimePoint::max()` (which means "never"); a
/// non-positive `d` gives `now`. Accepts any duration type so that `std::chrono::hours` of
/// absurd size is clamped instead of overflowing in the conversion to nanoseconds.
template <class Rep, class Period>
Clock::TimePoint SaturatingAdd(Clock::TimePoint now, std::chrono::duration<Rep, Period> d) {
  if (!(d > d.zero())) return now;  // also catches NaN for floating-point reps
  using Wide = std::chrono::duration<long double, std::nano>;
  const long double room =
      static_cast<long double>(Clock::TimePoint::max().time_since_epoch().count()) -
      static_cast<long double>(now.time_since_epoch().count());
  // The margin keeps duration_cast below clear of rounding at the very top of the range.
  if (Wide(d).count() >= room - 1e6L) return Clock::TimePoint::max();
  return now + std::chrono::duration_cast<Clock::Duration>(d);
}

/// Seconds between two time points, as a double (metrics unit).
inline double Seconds(Clock::Duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace kube::workqueue::internal
