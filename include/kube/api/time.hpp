#pragma once

#include <chrono>
#include <compare>

namespace kube::api {

/// The instant type of Time and MicroTime: `kube::Clock::WallTime` (system_clock), spelled out
/// here so that the API headers do not pull in the Clock and its synchronization headers.
using WallTime = std::chrono::system_clock::time_point;

/// `metav1.Time`: an instant encoded as RFC 3339 with whole seconds (`2026-01-01T00:00:00Z`).
/// Decoding accepts any RFC 3339 form Go accepts (offsets, fractions) and keeps the instant;
/// encoding writes UTC and drops the sub-second part, as Go does.
/// **Thread-safety:** as for any value type.
struct Time {
  WallTime time{};  ///< the instant

  /// The current wall time, truncated to the second (what survives a round trip).
  static Time Now();
  auto operator<=>(const Time&) const = default;
  bool operator==(const Time&) const = default;
};

/// `metav1.MicroTime`: as Time, encoded with exactly six fractional digits
/// (`2026-01-01T00:00:00.123456Z`).
struct MicroTime {
  WallTime time{};  ///< the instant

  /// The current wall time, truncated to the microsecond.
  static MicroTime Now();
  auto operator<=>(const MicroTime&) const = default;
  bool operator==(const MicroTime&) const = default;
};

}  // namespace kube::api
