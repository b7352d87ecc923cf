#include <kube/base/clock.hpp>

#include <algorithm>
#include <mutex>

namespace kube {

bool Clock::SleepUntil(TimePoint deadline, std::stop_token stop) {
  Mutex mu;
  CondVar cv;
  bool stopped = false;
  // The callback may run on the thread calling request_stop(); it only touches mu/cv/stopped,
  // which outlive it because the callback is destroyed before they are.
  std::stop_callback on_stop(stop, [&] {
    MutexLock lock(mu);
    stopped = true;
    cv.SignalAll();
  });
  MutexLock lock(mu);
  while (!stopped) {
    if (Now() >= deadline) return true;
    WaitUntil(cv, mu, deadline);
  }
  return false;
}

bool Clock::SleepFor(Duration d, std::stop_token stop) {
  return SleepUntil(Now() + d, std::move(stop));
}

RealClock& RealClock::Instance() {
  static RealClock clock;
  return clock;
}

bool RealClock::WaitUntil(CondVar& cv, Mutex& mu, TimePoint deadline) {
  if (deadline == TimePoint::max()) {
    cv.Wait(mu);
    return false;
  }
  cv.WaitUntil(mu, deadline);
  return Now() >= deadline;
}

namespace {
// A fixed, recognisable origin for fake time: 2026-01-01T00:00:00Z.
constexpr auto kFakeWallEpoch = std::chrono::seconds(1767225600);
}  // namespace

FakeClock::FakeClock()
    : now_(TimePoint(std::chrono::hours(24 * 365))), wall_(WallTime(kFakeWallEpoch)) {}

FakeClock::~FakeClock() = default;

Clock::TimePoint FakeClock::Now() const {
  MutexLock lock(mu_);
  return now_;
}

Clock::WallTime FakeClock::WallNow() const {
  MutexLock lock(mu_);
  return wall_;
}

bool FakeClock::WaitUntil(CondVar& cv, Mutex& mu, TimePoint deadline) {
  // Lock order: the caller's mu, then mu_. Advance never holds mu_ while locking a caller's mu.
  auto waiter = std::make_shared<Waiter>(Waiter{&cv, &mu, deadline});
  {
    MutexLock lock(mu_);
    if (now_ >= deadline) return true;
    waiters_.push_back(waiter);
    changed_.SignalAll();
  }
  cv.Wait(mu);
  bool must_wait_for_notifier = false;
  {
    MutexLock lock(mu_);
    // WakeDue already removed it if its deadline was reached.
    auto it = std::find(waiters_.begin(), waiters_.end(), waiter);
    if (it != waiters_.end()) waiters_.erase(it);
    changed_.SignalAll();
    must_wait_for_notifier = waiter->notifying > 0;
  }
  if (must_wait_for_notifier) {
    // Advance is about to lock `mu` to signal us; let it finish before `cv`/`mu` may go away.
    mu.Unlock();
    {
      MutexLock lock(mu_);
      while (waiter->notifying > 0) changed_.Wait(mu_);
    }
    mu.Lock();
  }
  MutexLock lock(mu_);
  return now_ >= deadline;
}

void FakeClock::Advance(Duration d) {
  {
    MutexLock lock(mu_);
    if (d > Duration::zero()) {
      now_ += d;
      wall_ += std::chrono::duration_cast<WallTime::duration>(d);
    }
  }
  WakeDue();
}

void FakeClock::SetTime(TimePoint t) {
  {
    MutexLock lock(mu_);
    if (t > now_) {
      wall_ += std::chrono::duration_cast<WallTime::duration>(t - now_);
      now_ = t;
    }
  }
  WakeDue();
}

void FakeClock::WakeDue() {
  std::vector<std::shared_ptr<Waiter>> due;
  {
    MutexLock lock(mu_);
    // Due waiters leave the list now, so that Waiters()/BlockUntilWaiters() count only threads
    // that are still parked: a test that advances and then waits for the component to park again
    // does not see the stale registration.
    auto keep = waiters_.begin();
    for (auto& w : waiters_) {
      if (w->deadline <= now_) {
        ++w->notifying;
        due.push_back(w);
      } else {
        *keep++ = std::move(w);
      }
    }
    waiters_.erase(keep, waiters_.end());
    if (!due.empty()) changed_.SignalAll();
  }
  for (auto& w : due) {
    // The waiter registered while holding *w->mu and only releases it inside cv.Wait, so once we
    // hold it the waiter is parked and the signal cannot be lost.
    w->mu->Lock();
    w->cv->SignalAll();
    w->mu->Unlock();
    MutexLock lock(mu_);
    --w->notifying;
    changed_.SignalAll();
  }
}

std::size_t FakeClock::CountTimedWaitersLocked() const {
  std::size_t n = 0;
  for (const auto& w : waiters_) {
    if (w->deadline != TimePoint::max()) ++n;
  }
  return n;
}

std::size_t FakeClock::Waiters() const {
  MutexLock lock(mu_);
  return CountTimedWaitersLocked();
}

bool FakeClock::BlockUntilWaiters(std::size_t n, std::chrono::milliseconds real_timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + real_timeout;
  MutexLock lock(mu_);
  while (CountTimedWaitersLocked() < n) {
    if (changed_.WaitUntil(mu_, deadline) && CountTimedWaitersLocked() < n) return false;
  }
  return true;
}

std::optional<Clock::TimePoint> FakeClock::NextDeadline() const {
  MutexLock lock(mu_);
  std::optional<TimePoint> next;
  for (const auto& w : waiters_) {
    if (w->deadline == TimePoint::max()) continue;
    if (!next || w->deadline < *next) next = w->deadline;
  }
  return next;
}

}  // namespace kube
