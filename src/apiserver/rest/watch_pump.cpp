#include "apiserver/rest/watch_pump.hpp"

#include <algorithm>
#include <cassert>
#include <utility>

namespace kube::apiserver::rest {

WatchPump::WatchPump(std::chrono::nanoseconds period) : period_(period) {
  assert(period_.count() > 0);
  thread_ = std::jthread([this] { Run(); });
}

WatchPump::~WatchPump() {
  {
    MutexLock lock(mu_);
    assert(parked_ == 0 && "WatchPump destroyed while a watch is parked");
    stopping_ = true;
  }
  work_.SignalAll();
  thread_.join();
}

std::size_t WatchPump::Rounds() const {
  MutexLock lock(mu_);
  return rounds_;
}

void WatchPump::MarkReady(Slot& slot) {
  bool wake = false;
  {
    MutexLock lock(mu_);
    if (slot.ready || slot.returned) return;
    slot.ready = true;
    ready_.push_back(&slot);
    wake = pump_waiting_;
    pump_waiting_ = false;  // one signal is enough
  }
  if (wake) work_.Signal();
}

WatchPump::Outcome WatchPump::Park(Watcher& watcher, Clock& clock, Clock::TimePoint until,
                                   std::stop_token stop, const std::function<Step()>& step) {
  Slot slot;
  slot.step = &step;
  {
    MutexLock lock(mu_);
    if (stopping_) return Outcome::kUnsupported;
    ++parked_;
  }
  // From here on the watcher may call MarkReady (on a writer's thread, under its own lock:
  // lock order watcher, then mu_; the pump runs steps without mu_).
  if (!watcher.SetReadyCallback([this, &slot] { MarkReady(slot); })) {
    MutexLock lock(mu_);
    --parked_;
    return Outcome::kUnsupported;
  }
  Outcome outcome = Outcome::kDue;
  {
    std::stop_callback on_stop(stop, [this, &slot] {
      MutexLock lock(mu_);
      slot.cv.SignalAll();
    });
    MutexLock lock(mu_);
    while (true) {
      if (slot.returned) {
        outcome = Outcome::kReturned;
        break;
      }
      if (stop.stop_requested() || stopping_) {
        outcome = Outcome::kStopped;
        break;
      }
      if (clock.WaitUntil(slot.cv, mu_, until)) {
        outcome = slot.returned ? Outcome::kReturned : Outcome::kDue;
        break;
      }
    }
  }
  // No MarkReady after this; then wait until the pump is done with the slot.
  watcher.SetReadyCallback(nullptr);
  MutexLock lock(mu_);
  while (slot.busy) idle_.Wait(mu_);
  if (slot.ready) ready_.erase(std::find(ready_.begin(), ready_.end(), &slot));
  if (slot.returned) outcome = Outcome::kReturned;
  --parked_;
  return outcome;
}

void WatchPump::Run() {
  using Steady = std::chrono::steady_clock;
  std::vector<Slot*> round;
  std::vector<Step> results;
  Steady::time_point next_round = Steady::now();
  while (true) {
    {
      MutexLock lock(mu_);
      while (!stopping_) {
        if (ready_.empty()) {
          pump_waiting_ = true;
          work_.Wait(mu_);
          pump_waiting_ = false;
        } else if (Steady::now() < next_round) {
          // Pace the rounds: what arrives until then is delivered together. (RealClock's time
          // points are steady_clock's.)
          RealClock::Instance().WaitUntil(work_, mu_, next_round);
        } else {
          break;
        }
      }
      if (stopping_) return;
      next_round = Steady::now() + period_;
      ++rounds_;
      round.swap(ready_);
      for (Slot* s : round) {
        s->ready = false;
        s->busy = true;
      }
    }
    // The steps run without the lock: a writer marking a watch ready never waits for a round.
    // `returned` is written only by this thread.
    results.assign(round.size(), Step::kContinue);
    for (std::size_t i = 0; i < round.size(); ++i) {
      if (!round[i]->returned) results[i] = (*round[i]->step)();
    }
    {
      MutexLock lock(mu_);
      for (std::size_t i = 0; i < round.size(); ++i) {
        Slot* s = round[i];
        s->busy = false;
        if (results[i] == Step::kReturn) {
          s->returned = true;
          s->cv.SignalAll();
        }
      }
    }
    idle_.SignalAll();
    round.clear();
  }
}

}  // namespace kube::apiserver::rest
