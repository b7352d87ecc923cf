#pragma once

#include <chrono>
#include <climits>

#include <kube/base/clock.hpp>
#include <kube/base/random.hpp>

namespace kube {

/// Returns `d` plus a random extra in [0, max_factor * d) (client-go `wait.Jitter`);
/// `max_factor <= 0` means 1.0.
Clock::Duration Jitter(Clock::Duration d, double max_factor, const RandomSource& rand = {});

/// Exponential backoff parameters and state, as client-go's `wait.Backoff`.
/// Each `Step()` returns the next wait: `duration` (jittered), then multiplies `duration` by
/// `factor` and caps it at `cap` (reaching the cap ends the steps). When `steps` is exhausted,
/// `Step()` keeps returning the (jittered) last duration.
/// **Thread-safety:** none; a Backoff is a value owned by one caller.
struct Backoff {
  Clock::Duration duration = std::chrono::milliseconds(10);  ///< the next wait, before jitter
  double factor = 1.0;   ///< multiplier per step; 0 or 1 = constant
  double jitter = 0.0;   ///< extra random fraction of each wait; 0 = none
  int steps = 1;         ///< remaining steps (the number of attempts for retry helpers)
  Clock::Duration cap = Clock::Duration::zero();  ///< maximum duration; 0 = uncapped
  RandomSource rand{};     ///< jitter source; empty = UniformRandom01

  /// Returns the next wait and advances the state.
  Clock::Duration Step();
};

/// Options of ExponentialBackoffManager; the defaults are the Reflector's
/// (800 ms initial, 30 s max, reset after 2 min, factor 2, jitter 1.0).
struct BackoffManagerOptions {
  Clock::Duration initial = std::chrono::milliseconds(800);
  Clock::Duration max = std::chrono::seconds(30);
  /// A backoff requested more than this long after the previous one starts again from `initial`.
  Clock::Duration reset_after = std::chrono::minutes(2);
  double factor = 2.0;
  double jitter = 1.0;
  RandomSource rand{};
};

/// client-go's exponential backoff manager: each `Next()` returns a growing wait, and the backoff
/// resets to the initial value after `reset_after` of health (no `Next()` call).
/// **Thread-safety:** none; owned by one component thread.
class ExponentialBackoffManager final {
 public:
  /// `clock` must outlive the manager.
  explicit ExponentialBackoffManager(BackoffManagerOptions options = {},
                                     Clock& clock = RealClock::Instance());
  /// The wait before the next attempt.
  Clock::Duration Next();
  /// Forgets past failures: the next wait is `initial` again.
  void Reset();

 private:
  BackoffManagerOptions options_{};
  Clock& clock_;
  Backoff backoff_;
  Clock::TimePoint last_start_;
  bool started_ = false;
};

}  // namespace kube
