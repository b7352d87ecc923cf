#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <stop_token>
#include <vector>

#include <kube/base/mutex.hpp>

namespace kube {

/// The source of time for every component that waits. Production code uses `RealClock`;
/// unit tests inject a `FakeClock` and advance it, so that they never sleep.
/// **Thread-safety:** implementations are safe to call from any thread.
class Clock {
 public:
  /// Monotonic time, used for every delay, deadline and timeout.
  using TimePoint = std::chrono::steady_clock::time_point;
  using Duration = std::chrono::steady_clock::duration;
  /// Wall-clock time, used only for timestamps written into objects (creationTimestamp, ...).
  using WallTime = std::chrono::system_clock::time_point;

  virtual ~Clock() = default;

  /// Current monotonic time.
  virtual TimePoint Now() const = 0;
  /// Current wall-clock time.
  virtual WallTime WallNow() const = 0;

  /// Blocks on `cv` (with `mu` held, released while waiting) until it is signalled or until this
  /// clock reaches `deadline`, whichever comes first. Returns true if the deadline has passed.
  /// May wake spuriously: callers wait in a loop that re-checks their predicate.
  /// `TimePoint::max()` waits without a deadline. **Blocks?** Yes.
  virtual bool WaitUntil(CondVar& cv, Mutex& mu, TimePoint deadline) KUBE_REQUIRES(mu) = 0;

  /// Sleeps until `deadline` on this clock or until `stop` is requested. Returns true if the
  /// deadline was reached, false if stopped first. **Blocks?** Yes.
  bool SleepUntil(TimePoint deadline, std::stop_token stop = {});
  /// `SleepUntil(Now() + d, stop)`.
  bool SleepFor(Duration d, std::stop_token stop = {});
  /// Time elapsed since `t` on this clock.
  Duration Since(TimePoint t) const { return Now() - t; }
};

/// The process-wide real clock (steady_clock + system_clock).
/// **Ownership:** a static singleton that lives for the whole process.
class RealClock final : public Clock {
 public:
  /// The shared instance; every component's default `Clock&`.
  static RealClock& Instance();

  TimePoint Now() const override { return std::chrono::steady_clock::now(); }
  WallTime WallNow() const override { return std::chrono::system_clock::now(); }
  bool WaitUntil(CondVar& cv, Mutex& mu, TimePoint deadline) override KUBE_REQUIRES(mu);
};

/// A manually driven clock for tests. Time only moves when the test calls `Advance` or `SetTime`;
/// threads blocked in `WaitUntil`/`SleepUntil` whose deadline is reached are woken by that call.
/// `BlockUntilWaiters(n)` lets a test wait (without sleeping) until component threads are parked
/// on the clock, so that the order of events is deterministic.
/// **Thread-safety:** all members may be called concurrently.
class FakeClock final : public Clock {
 public:
  /// Starts at an arbitrary fixed monotonic time and at 2026-01-01T00:00:00Z wall time.
  FakeClock();
  ~FakeClock() override;

  TimePoint Now() const override;
  WallTime WallNow() const override;
  bool WaitUntil(CondVar& cv, Mutex& mu, TimePoint deadline) override KUBE_REQUIRES(mu);

  /// Moves time forward by `d` (negative is treated as zero) and wakes due waiters.
  void Advance(Duration d);
  /// Sets the monotonic time to `t` if it is later than now (time never goes back) and wakes due
  /// waiters. Wall time moves by the same amount.
  void SetTime(TimePoint t);
  /// Number of threads currently blocked in WaitUntil/SleepUntil on this clock with a deadline
  /// (waits without a deadline cannot be ended by Advance and are not counted).
  std::size_t Waiters() const;
  /// Blocks (on a condition variable, not a sleep) until at least `n` threads are waiting on this
  /// clock with a deadline. Returns false if that did not happen within `real_timeout` of real time.
  bool BlockUntilWaiters(std::size_t n,
                         std::chrono::milliseconds real_timeout = std::chrono::seconds(30)) const;
  /// The earliest deadline of a current waiter (ignoring waiters without a deadline).
  std::optional<TimePoint> NextDeadline() const;

 private:
  struct Waiter {
    CondVar* cv;
    Mutex* mu;
    TimePoint deadline;
    int notifying = 0;  // >0 while Advance is about to lock mu and signal cv
  };
  void WakeDue() KUBE_EXCLUDES(mu_);
  std::size_t CountTimedWaitersLocked() const KUBE_REQUIRES(mu_);

  mutable Mutex mu_;
  mutable CondVar changed_;  // signalled when waiters_ or a waiter's notifying count changes
  TimePoint now_ KUBE_GUARDED_BY(mu_);
  WallTime wall_ KUBE_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<Waiter>> waiters_ KUBE_GUARDED_BY(mu_);
};

}  // namespace kube
