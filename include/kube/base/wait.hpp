#pragma once

#include <functional>
#include <stop_token>

#include <kube/base/backoff.hpp>
#include <kube/base/clock.hpp>
#include <kube/base/result.hpp>

namespace kube {

/// Options of `JitterUntil`.
struct JitterUntilOptions {
  Clock::Duration period = std::chrono::seconds(1);
  double jitter = 0.0;  ///< extra random fraction of the period; 0 = none
  /// true: the period counts from the end of each call (client-go "sliding");
  /// false: from its start.
  bool sliding = true;
  RandomSource rand{};
};

/// Calls `fn` repeatedly, waiting `options.period` (jittered) between calls on `clock`, until `stop`
/// is requested. `fn` runs at least once unless stop is already requested. Exceptions from `fn`
/// are caught, logged and do not end the loop. **Blocks?** Until stop.
void JitterUntil(const std::function<void()>& fn, const JitterUntilOptions& options,
                 std::stop_token stop, Clock& clock = RealClock::Instance());

/// `JitterUntil` with no jitter, sliding (client-go `wait.Until`).
void Until(const std::function<void()>& fn, Clock::Duration period, std::stop_token stop,
           Clock& clock = RealClock::Instance());

/// A condition polled by the Poll/backoff helpers: true = done, false = not yet, error = abort.
using ConditionFunc = std::function<Result<bool>()>;

/// Options of `PollUntil`.
struct PollOptions {
  Clock::Duration interval = std::chrono::seconds(1);
  /// Give up after this long; `Clock::Duration::max()` = never.
  Clock::Duration timeout = Clock::Duration::max();
  /// Check the condition before the first interval.
  bool immediate = true;
};

/// Polls `condition` every `interval` until it returns true (-> Ok), returns an error (-> that
/// error), the timeout passes (-> Timeout error "timed out waiting for the condition") or stop
/// is requested (-> Canceled). Exceptions from the condition become InternalError.
/// **Blocks?** Yes.
Result<void> PollUntil(const ConditionFunc& condition, const PollOptions& options,
                       std::stop_token stop = {}, Clock& clock = RealClock::Instance());

/// Retries `condition` with exponential `backoff` (client-go `wait.ExponentialBackoff`): up to
/// `backoff.steps` attempts, sleeping `backoff.Step()` between them. Returns Ok when the condition
/// is true, its error if it fails, Timeout when the steps run out, Canceled on stop.
Result<void> ExponentialBackoff(Backoff backoff, const ConditionFunc& condition,
                                std::stop_token stop = {}, Clock& clock = RealClock::Instance());

/// Runs `fn` until it succeeds, it fails with an error `retriable` rejects, or the backoff steps
/// run out (then the last error is returned). client-go `retry.OnError`.
Result<void> RetryOnError(Backoff backoff, const std::function<bool(const Error&)>& retriable,
                          const std::function<Result<void>()>& fn, std::stop_token stop = {},
                          Clock& clock = RealClock::Instance());

/// client-go `retry.DefaultRetry`: 5 steps, 10 ms, factor 1.0, jitter 0.1.
Backoff DefaultRetry();
/// client-go `retry.DefaultBackoff`: 4 steps, 10 ms, factor 5.0, jitter 0.1.
Backoff DefaultBackoff();

/// Runs `fn` again while it fails with a Conflict (409), up to the backoff's steps; `fn` must
/// re-read the latest object on every attempt. client-go `retry.RetryOnConflict`.
Result<void> RetryOnConflict(Backoff backoff, const std::function<Result<void>()>& fn,
                             std::stop_token stop = {}, Clock& clock = RealClock::Instance());

}  // namespace kube
