#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <stop_token>
#include <thread>
#include <vector>

#include <kube/apiserver/storage.hpp>
#include <kube/base/clock.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/thread_annotations.hpp>

/// Internal to src/apiserver/rest: the watch delivery thread.
namespace kube::apiserver::rest {

/// One thread that delivers the live events of many watches (the "pump"). Without it, every
/// watch's connection thread is woken for its events and writes them itself: with many watchers
/// and a high write rate that is one wake-up, context switch and send per (watcher, event), and
/// the scheduler's fair share among hundreds of runnable threads delays everyone. A watch parked
/// here (`Park`) costs nothing until its watcher has events; the pump then runs the watch's
/// `Step` (take the events, encode them, write them if the socket can take them without
/// blocking) for every ready watch in one round, at most one round per `period` while busy.
/// Anything a step cannot do without blocking goes back to the watch's own thread.
///
/// **Thread-safety:** `Park` may be called from any number of threads at once.
/// **Ownership/lifetime:** the pump must outlive every `Park` call (the REST handler owns it and
/// outlives its requests).
class WatchPump final {
 public:
  /// What one step of a parked watch did (run on the pump thread).
  enum class Step {
    kContinue,  ///< delivered what there was (or nothing): stay parked
    kReturn,    ///< something for the watch's own thread: lines it could not write without
                ///< blocking, the watch ended, or a write failed
  };
  /// Why `Park` returned.
  enum class Outcome {
    kUnsupported,  ///< the watcher has no ready callback, or the pump is stopping: nothing done
    kReturned,     ///< a step returned kReturn
    kDue,          ///< `until` passed
    kStopped,      ///< `stop` was requested
  };

  /// Starts the pump thread. `period`: the least time between the starts of two rounds (events
  /// that arrive meanwhile wait for the next round and are written together); must be > 0.
  explicit WatchPump(std::chrono::nanoseconds period);
  /// Stops and joins the thread. No `Park` may be in progress.
  ~WatchPump();
  WatchPump(const WatchPump&) = delete;
  WatchPump& operator=(const WatchPump&) = delete;

  /// Parks the calling thread while the pump delivers `watcher`'s events: whenever the watcher
  /// is ready, `step` runs on the pump thread (never concurrently with itself, and never after
  /// Park returned). Returns when a step returns kReturn, when `until` passes on `clock`, or when
  /// `stop` is requested. Everything `step` touches is handed between the two threads under the
  /// pump's mutex: the caller may use it again once Park returned. **Blocks?** Yes.
  Outcome Park(Watcher& watcher, Clock& clock, Clock::TimePoint until, std::stop_token stop,
               const std::function<Step()>& step) KUBE_EXCLUDES(mu_);

  /// Rounds run so far (for tests).
  std::size_t Rounds() const KUBE_EXCLUDES(mu_);

 private:
  struct Slot {
    const std::function<Step()>* step = nullptr;
    bool ready = false;     // in ready_
    bool busy = false;      // taken by the current round
    bool returned = false;  // a step returned kReturn: the pump leaves it alone
    CondVar cv;             // signalled when `returned` is set (and on stop)
  };

  void MarkReady(Slot& slot) KUBE_EXCLUDES(mu_);
  void Run() KUBE_EXCLUDES(mu_);

  const std::chrono::nanoseconds period_;
  mutable Mutex mu_;
  CondVar work_;  // ready_ became non-empty, or stopping_
  CondVar idle_;  // a round finished (Park waits for its slot to be out of one)
  std::vector<Slot*> ready_ KUBE_GUARDED_BY(mu_);
  bool pump_waiting_ KUBE_GUARDED_BY(mu_) = false;  // the pump sleeps on work_ for new work
  bool stopping_ KUBE_GUARDED_BY(mu_) = false;
  std::size_t parked_ KUBE_GUARDED_BY(mu_) = 0;
  std::size_t rounds_ KUBE_GUARDED_BY(mu_) = 0;
  std::jthread thread_;  // last: started once the members above exist
};

}  // namespace kube::apiserver::rest
