#include <kube/base/wait.hpp>

#include <exception>
#include <string>

#include <kube/base/log.hpp>

namespace kube {

namespace {

Error WaitTimeout() { return MakeError(0, reason::kTimeout, "timed out waiting for the condition"); }

Result<bool> RunCondition(const ConditionFunc& condition) {
  try {
    return condition();
  } catch (const std::exception& e) {
    return InternalError(std::string("condition threw: ") + e.what());
  } catch (...) {
    return InternalError("condition threw a non-standard exception");
  }
}

}  // namespace

void JitterUntil(const std::function<void()>& fn, const JitterUntilOptions& options,
                 std::stop_token stop, Clock& clock) {
  while (!stop.stop_requested()) {
    auto wait = options.jitter > 0 ? Jitter(options.period, options.jitter, options.rand)
                                   : options.period;
    const auto start = clock.Now();
    try {
      fn();
    } catch (const std::exception& e) {
      log::Error("periodic function threw", {{"error", e.what()}});
    } catch (...) {
      log::Error("periodic function threw a non-standard exception", {});
    }
    if (!options.sliding) wait -= clock.Now() - start;
    if (stop.stop_requested()) return;
    if (wait > Clock::Duration::zero() && !clock.SleepFor(wait, stop)) return;
  }
}

void Until(const std::function<void()>& fn, Clock::Duration period, std::stop_token stop,
           Clock& clock) {
  JitterUntil(fn, JitterUntilOptions{.period = period, .jitter = 0, .sliding = true, .rand = {}},
              std::move(stop), clock);
}

Result<void> PollUntil(const ConditionFunc& condition, const PollOptions& options,
                       std::stop_token stop, Clock& clock) {
  const auto start = clock.Now();
  const bool has_deadline = options.timeout != Clock::Duration::max();
  const auto deadline = has_deadline ? start + options.timeout : Clock::TimePoint::max();
  bool first = true;
  while (true) {
    if (stop.stop_requested()) return CanceledError();
    if (!first || options.immediate) {
      auto done = RunCondition(condition);
      if (!done.ok()) return std::move(done).error();
      if (*done) return Ok();
    }
    first = false;
    auto next = clock.Now() + options.interval;
    if (has_deadline && clock.Now() >= deadline) return WaitTimeout();
    if (next > deadline) next = deadline;
    if (!clock.SleepUntil(next, stop)) return CanceledError();
    if (has_deadline && clock.Now() >= deadline) {
      // One last check at the deadline, as client-go does for non-immediate polls.
      auto done = RunCondition(condition);
      if (!done.ok()) return std::move(done).error();
      if (*done) return Ok();
      return WaitTimeout();
    }
  }
}

Result<void> ExponentialBackoff(Backoff backoff, const ConditionFunc& condition,
                                std::stop_token stop, Clock& clock) {
  while (backoff.steps > 0) {
    if (stop.stop_requested()) return CanceledError();
    auto done = RunCondition(condition);
    if (!done.ok()) return std::move(done).error();
    if (*done) return Ok();
    if (backoff.steps == 1) break;
    if (!clock.SleepFor(backoff.Step(), stop)) return CanceledError();
  }
  return WaitTimeout();
}

Result<void> RetryOnError(Backoff backoff, const std::function<bool(const Error&)>& retriable,
                          const std::function<Result<void>()>& fn, std::stop_token stop,
                          Clock& clock) {
  std::optional<Error> last;
  auto result = ExponentialBackoff(
      std::move(backoff),
      [&]() -> Result<bool> {
        Result<void> r = [&]() -> Result<void> {
          try {
            return fn();
          } catch (const std::exception& e) {
            return InternalError(std::string("retried function threw: ") + e.what());
          } catch (...) {
            return InternalError("retried function threw a non-standard exception");
          }
        }();
        if (r.ok()) return true;
        if (retriable(r.error())) {
          last = r.error();
          return false;
        }
        return std::move(r).error();
      },
      std::move(stop), clock);
  if (!result.ok() && IsTimeout(result.error()) && result.error().code == 0 && last) return *last;
  return result;
}

Backoff DefaultRetry() {
  return Backoff{.duration = std::chrono::milliseconds(10), .factor = 1.0, .jitter = 0.1, .steps = 5,
                 .cap = {}, .rand = {}};
}

Backoff DefaultBackoff() {
  return Backoff{.duration = std::chrono::milliseconds(10), .factor = 5.0, .jitter = 0.1, .steps = 4,
                 .cap = {}, .rand = {}};
}

Result<void> RetryOnConflict(Backoff backoff, const std::function<Result<void>()>& fn,
                             std::stop_token stop, Clock& clock) {
  return RetryOnError(std::move(backoff), [](const Error& e) { return IsConflict(e); }, fn,
                      std::move(stop), clock);
}

}  // namespace kube
