#include "apiserver/storage/watch_state.hpp"

#include <algorithm>
#include <cassert>
#include <utility>

namespace kube::apiserver::internal {

WatchState::WatchState(std::string prefix, Revision start, std::size_t capacity,
                       std::shared_ptr<const std::atomic<Revision>> delivered, std::chrono::nanoseconds coalesce)
    : prefix_(std::move(prefix)),
      start_(start),
      capacity_(capacity),
      delivered_(std::move(delivered)),
      coalesce_(coalesce),
      last_pushed_(start) {
  assert(capacity_ >= 1);
  assert(delivered_ != nullptr);
}

bool WatchState::Push(const StorageEvent& event) {
  MutexLock lock(mu_);
  if (ended_) return false;
  if (event.revision <= start_) return true;
  if (buffer_.size() >= capacity_) {
    ended_ = true;
    overflowed_ = true;
  } else {
    buffer_.push_back(event);
    last_pushed_ = event.revision;
  }
  // Only a parked consumer needs a wake-up: it re-checks the buffer before parking again. A
  // coalescing one is woken early only when its buffer fills up or the watch ended.
  if (waiting_ || (lingering_ && (ended_ || buffer_.size() >= LingerLimit()))) cv_.SignalAll();
  NotifyReadyLocked();
  return !ended_;
}

void WatchState::End() {
  MutexLock lock(mu_);
  ended_ = true;
  cv_.SignalAll();
  NotifyReadyLocked();
}

void WatchState::Close() {
  MutexLock lock(mu_);
  ended_ = true;
  buffer_.clear();
  cv_.SignalAll();
  NotifyReadyLocked();
}

void WatchState::NotifyReadyLocked() {
  if (!on_ready_ || ready_notified_ || (buffer_.empty() && !ended_)) return;
  ready_notified_ = true;
  on_ready_();
}

void WatchState::SetReadyCallback(std::function<void()> callback) {
  MutexLock lock(mu_);
  on_ready_ = std::move(callback);
  ready_notified_ = false;
  NotifyReadyLocked();
}

bool WatchState::Ended() const {
  MutexLock lock(mu_);
  return ended_;
}

std::vector<StorageEvent> WatchState::Next(Clock& clock, Clock::TimePoint deadline,
                                           std::stop_token stop) {
  // Registered before taking mu_: if stop is already requested the callback runs right here.
  // Taking mu_ in the callback orders it against the check below: either Next sees the stop
  // request before parking, or it is parked and gets the signal.
  std::stop_callback on_stop(stop, [this] {
    MutexLock lock(mu_);
    cv_.SignalAll();
  });
  MutexLock lock(mu_);
  bool gathered = false;
  if (fast_ && !on_ready_) {
    // Events have been arriving faster than coalesce_: let them gather until coalesce_ after
    // the last return (real time), or the caller's deadline if that comes first.
    const auto steady_now = std::chrono::steady_clock::now();
    auto until = last_return_ + coalesce_;
    // (Compared first: `deadline` may be TimePoint::min(), "do not wait", and the difference
    // would overflow.)
    const Clock::TimePoint clock_now = clock.Now();
    const Clock::Duration caller_left =
        deadline <= clock_now ? Clock::Duration::zero() : deadline - clock_now;
    if (caller_left < until - steady_now) {
      until = steady_now + std::max(caller_left, Clock::Duration::zero());
    }
    lingering_ = true;
    while (!ended_ && !stop.stop_requested() && buffer_.size() < LingerLimit()) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= until) break;
      RealClock::Instance().WaitUntil(cv_, mu_, until);  // RealClock's time points are steady_clock's
    }
    lingering_ = false;
    gathered = !buffer_.empty();
  }
  while (buffer_.empty() && !ended_ && !stop.stop_requested()) {
    if (deadline <= clock.Now()) break;  // a past deadline (or min(): poll) never waits
    waiting_ = true;
    const bool timed_out = clock.WaitUntil(cv_, mu_, deadline);
    waiting_ = false;
    if (timed_out) break;
  }
  if (coalesce_.count() > 0) {
    const auto now = std::chrono::steady_clock::now();
    // Fast: at least about two events per coalescing period. Slower streams get each event at
    // once (a linger would then mostly add latency).
    fast_ = !buffer_.empty() && (gathered || now - last_return_ < coalesce_ / 2);
    last_return_ = now;
  }
  ready_notified_ = false;  // the next event (or the end) is news again
  std::vector<StorageEvent> out;
  out.swap(buffer_);
  return out;
}

bool WatchState::Done() const {
  MutexLock lock(mu_);
  return ended_ && buffer_.empty();
}

Revision WatchState::Progress() const {
  MutexLock lock(mu_);
  if (!buffer_.empty()) return buffer_.front().revision - 1;
  // An ended watch got nothing after its last event. A live one with an empty buffer has
  // returned every event the store has delivered: the store publishes its mark only after
  // pushing to every watcher, and we read it under mu_, after any such push.
  if (ended_) return last_pushed_;
  return std::max(last_pushed_, delivered_->load(std::memory_order_acquire));
}

bool WatchState::Overflowed() const {
  MutexLock lock(mu_);
  return overflowed_;
}

}  // namespace kube::apiserver::internal
