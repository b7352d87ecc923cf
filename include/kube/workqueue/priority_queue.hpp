#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <kube/base/clock.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/thread_annotations.hpp>
#include <kube/workqueue/internal/queue_metrics.hpp>
#include <kube/workqueue/internal/slot_table.hpp>
#include <kube/workqueue/internal/time.hpp>
#include <kube/workqueue/metrics.hpp>
#include <kube/workqueue/queue.hpp>
#include <kube/workqueue/rate_limiter.hpp>

namespace kube::workqueue {

/// Options of PriorityQueue. Set them with designated initializers.
struct PriorityQueueOptions {
  /// The `name` label of the queue's metrics. Default: empty.
  std::string name{};
  /// Receives the queue's metrics. **Non-owning:** must outlive the queue. Default: none.
  MetricsProvider* metrics_provider = nullptr;
  /// As QueueOptions::unfinished_work_update_period (500 ms; zero = no background thread).
  Clock::Duration unfinished_work_update_period = std::chrono::milliseconds(500);
  /// Aging: every `aging_step` an item has been ready and waiting raises its effective priority
  /// by one, so a low-priority item is never starved: an item of priority p that became ready
  /// at t goes before one of priority p + k that became ready after t - k * aging_step.
  /// Default 1 s. Zero disables aging (strict priority; low priority may starve).
  Clock::Duration aging_step = std::chrono::seconds(1);
};

/// How one item is added to a PriorityQueue.
struct AddOptions {
  /// Higher is handed out first. Default 0.
  int priority = 0;
  /// Not ready before this delay has passed (<= 0: ready now). Saturates instead of overflowing.
  Clock::Duration after = Clock::Duration::zero();
  /// Also wait as long as the queue's rate limiter says (`When(item)`; the longer delay wins).
  bool rate_limited = false;
};

/// **Opt-in improvement** over client-go (in the spirit of controller-runtime's priority queue):
/// a rate-limiting work queue whose items carry a priority.
///  * Ready items are handed out highest effective priority first; effective priority grows with
///    the time an item has been ready (see `aging_step`), and ties go to the earlier first add.
///  * Same guarantees as Queue: stingy (an item waiting is handed out once), exclusive (never two
///    workers on one item; an item added while processing is queued again at `Done`),
///    shutdown semantics of DelayingQueue (waiting items are dropped, ready ones still handed out).
///  * An item added again while it waits keeps the HIGHEST priority and the EARLIEST ready time
///    of its adds (it can only move forward); the same holds for the adds made while it is
///    being processed, which apply at `Done`.
///  * Delays run on the injected clock; workers blocked in `Get` wait for the next ready time
///    (no extra thread).
///
/// **Thread-safety:** every member may be called concurrently, except the destructor.
/// **Blocks?** `Get` and `ShutDownWithDrain`. **Ownership:** owns its limiter.
template <class T, class Hash = std::hash<T>, class KeyEqual = std::equal_to<T>>
  requires QueueItem<T, Hash, KeyEqual>
class PriorityQueue final {
 public:
  /// A queue with `DefaultControllerRateLimiter` on `clock`; `clock` must outlive the queue.
  explicit PriorityQueue(PriorityQueueOptions options = {}, Clock& clock = RealClock::Instance())
      : PriorityQueue(DefaultControllerRateLimiter<T, Hash, KeyEqual>(clock), std::move(options),
                      clock) {}

  /// A queue over `limiter` (taken over; not null); `clock` must outlive the queue.
  PriorityQueue(std::unique_ptr<RateLimiter<T>> limiter, PriorityQueueOptions options = {},
                Clock& clock = RealClock::Instance())
      : clock_(clock), limiter_(std::move(limiter)), aging_step_(options.aging_step),
        metrics_(options.metrics_provider, options.name) {
    if (metrics_.enabled() && options.unfinished_work_update_period > Clock::Duration::zero()) {
      metrics_thread_ = std::jthread([this, period = options.unfinished_work_update_period](
                                         std::stop_token stop) {
        while (clock_.SleepFor(period, stop)) UpdateUnfinishedWork();
      });
    }
  }

  /// Shuts down and joins the metrics thread. No other call may be in progress.
  ~PriorityQueue() {
    ShutDown();
    if (metrics_thread_.joinable()) {
      metrics_thread_.request_stop();
      metrics_thread_.join();
    }
  }

  PriorityQueue(const PriorityQueue&) = delete;
  PriorityQueue& operator=(const PriorityQueue&) = delete;

  /// Adds `item` with `options` (priority, delay, rate limiting). Ignored after shutdown.
  /// The rate limiter is consulted outside the queue's lock.
  void Add(const T& item, AddOptions options = {}) KUBE_EXCLUDES(mu_) {
    if (stopped_.load(std::memory_order_relaxed)) return;  // re-checked under the lock
    if (options.after > Clock::Duration::zero() || options.rate_limited) metrics_.Retried();
    if (options.rate_limited) options.after = std::max(options.after, limiter_->When(item));
    const std::size_t hash = hash_(item);
    const Clock::TimePoint now = clock_.Now();
    const Clock::TimePoint ready = internal::SaturatingAdd(now, options.after);
    int added = 0;
    {
      MutexLock lock(mu_);
      if (shutting_down_) return;
      const Clock::TimePoint earliest_before = NextWaitingReady();
      const std::uint32_t i = table_.Find(item, hash);
      if (i == Table::kNone) {
        const std::uint32_t n = table_.Insert(item, hash);
        State& s = table_[n].data;
        s.priority = options.priority;
        s.ready = ready;
        s.seq = next_seq_++;
        added += Place(n, now);
      } else {
        State& s = table_[i].data;
        if ((s.flags & kProcessing) != 0) {
          if ((s.flags & kDirty) == 0) {
            s.flags |= kDirty;
            s.priority = options.priority;
            s.ready = ready;
          } else {
            s.priority = std::max(s.priority, options.priority);
            s.ready = std::min(s.ready, ready);
          }
          if (s.ready <= now && (s.flags & kCounted) == 0) added += Count(i, now);
        } else if (options.priority > s.priority || ready < s.ready) {
          s.priority = std::max(s.priority, options.priority);
          s.ready = std::min(s.ready, ready);
          added += Place(i, now);  // the old heap entry becomes stale
        }
      }
      // Wake one Get for a newly ready item, or to re-arm its wait for an earlier ready time.
      if (waiting_gets_ > 0 && (queued_ > 0 || NextWaitingReady() < earliest_before)) {
        cv_.Signal();
      }
    }
    if (added > 0) metrics_.Added(added);
  }

  /// `Add(item, {.after = delay})` for any duration type (saturating).
  template <class Rep, class Period>
  void AddAfter(const T& item, std::chrono::duration<Rep, Period> delay) {
    const auto now = clock_.Now();
    Add(item, {.after = internal::SaturatingAdd(now, delay) - now});
  }
  /// `Add(item, {.rate_limited = true})`.
  void AddRateLimited(const T& item) { Add(item, {.rate_limited = true}); }
  /// Clears the limiter's failure history of `item`.
  void Forget(const T& item) { limiter_->Forget(item); }
  /// How many times `item` was rate limited since it was last forgotten.
  int NumRequeues(const T& item) const { return limiter_->NumRequeues(item); }

  /// Number of items ready to be handed out (waiting items are not counted).
  std::size_t Len() KUBE_EXCLUDES(mu_) {
    int added = 0;
    std::size_t n = 0;
    {
      MutexLock lock(mu_);
      if (!shutting_down_) added = Promote(clock_.Now());
      n = queued_;
    }
    if (added > 0) metrics_.Added(added);
    return n;
  }

  /// Blocks until an item is ready and hands out the one with the highest effective priority;
  /// the caller must call `Done(item)`. Returns `std::nullopt` once shut down and no ready item
  /// is left. **Blocks?** Yes, while nothing is ready and the queue runs.
  std::optional<T> Get() KUBE_EXCLUDES(mu_) {
    std::optional<T> out;
    int added = 0;
    double queued_seconds = -1;
    {
      MutexLock lock(mu_);
      for (;;) {
        const Clock::TimePoint now = clock_.Now();
        if (!shutting_down_) added += Promote(now);
        if (queued_ > 0) {
          const std::uint32_t i = PopReady();
          Slot& slot = table_[i];
          slot.data.flags = kProcessing;
          ++processing_;
          if (metrics_.enabled()) {
            MetricTimes& t = Times(i);
            queued_seconds = internal::Seconds(now - t.add_time);
            t.start_time = now;
            t.processing = true;
          }
          out.emplace(slot.item);
          if (queued_ > 0 && waiting_gets_ > 0) cv_.Signal();  // more work for another Get
          break;
        }
        if (shutting_down_) break;
        ++waiting_gets_;
        clock_.WaitUntil(cv_, mu_, NextWaitingReady());
        --waiting_gets_;
      }
    }
    if (added > 0) metrics_.Added(added);
    if (queued_seconds >= 0) metrics_.Got(queued_seconds);
    return out;
  }

  /// Marks `item` as finished; if it was added while being processed, it is placed again with
  /// the merged priority and ready time of those adds. A no-op for an item not being processed.
  void Done(const T& item) KUBE_EXCLUDES(mu_) {
    const std::size_t hash = hash_(item);
    const Clock::TimePoint now = clock_.Now();
    double work_seconds = -1;
    int added = 0;
    {
      MutexLock lock(mu_);
      const std::uint32_t i = table_.Find(item, hash);
      if (i == Table::kNone || (table_[i].data.flags & kProcessing) == 0) return;
      State& s = table_[i].data;
      s.flags &= static_cast<std::uint8_t>(~kProcessing);
      --processing_;
      if (metrics_.enabled()) {
        MetricTimes& t = Times(i);
        work_seconds = internal::Seconds(now - t.start_time);
        t.processing = false;
      }
      if ((s.flags & kDirty) != 0 && !shutting_down_) {
        s.flags &= static_cast<std::uint8_t>(~kDirty);
        s.seq = next_seq_++;  // back of the line among equals, as in Queue
        added += Place(i, now);
        if (waiting_gets_ > 0) cv_.Signal();
      } else if ((s.flags & kDirty) != 0 && s.ready <= now) {
        // Shutting down: a ready re-add still counts as queued work, as Queue does.
        s.flags &= static_cast<std::uint8_t>(~kDirty);
        added += Place(i, now);
      } else {
        s.stamp = 0;
        table_.Erase(i);
      }
      if (processing_ == 0 && draining_) drained_.SignalAll();
    }
    if (added > 0) metrics_.Added(added);
    if (work_seconds >= 0) metrics_.Finished(work_seconds);
  }

  /// Stops accepting items and drops the waiting (not yet ready) ones; `Get` hands out what is
  /// ready, then returns `std::nullopt`. Wakes every waiting `Get`. Idempotent.
  void ShutDown() KUBE_EXCLUDES(mu_) {
    stopped_.store(true, std::memory_order_relaxed);
    {
      MutexLock lock(mu_);
      shutting_down_ = true;
      draining_ = false;
    }
    cv_.SignalAll();
    drained_.SignalAll();
  }

  /// Like `ShutDown`, then blocks until every item being processed is `Done`.
  void ShutDownWithDrain() KUBE_EXCLUDES(mu_) {
    stopped_.store(true, std::memory_order_relaxed);
    {
      MutexLock lock(mu_);
      shutting_down_ = true;
      draining_ = true;
    }
    cv_.SignalAll();
    MutexLock lock(mu_);
    while (draining_ && processing_ > 0) drained_.Wait(mu_);
  }

  /// True once shutdown was requested.
  bool ShuttingDown() const KUBE_EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return shutting_down_;
  }

  /// Recomputes the unfinished-work gauges (see Queue::UpdateUnfinishedWork).
  void UpdateUnfinishedWork() KUBE_EXCLUDES(mu_) {
    if (!metrics_.enabled()) return;
    double total = 0;
    double longest = 0;
    {
      MutexLock lock(mu_);
      const Clock::TimePoint now = clock_.Now();
      for (std::uint32_t i = 0; i < times_.size(); ++i) {
        if (!times_[i].processing) continue;
        const double age = internal::Seconds(now - times_[i].start_time);
        total += age;
        longest = std::max(longest, age);
      }
    }
    metrics_.SetUnfinished(total, longest);
  }

 private:
  static constexpr std::uint8_t kWaiting = 1;     // in waiting_heap_ (ready time in the future)
  static constexpr std::uint8_t kQueued = 2;      // in ready_heap_
  static constexpr std::uint8_t kProcessing = 4;  // handed out, Done not yet called
  static constexpr std::uint8_t kDirty = 8;       // added again while processing
  static constexpr std::uint8_t kCounted = 16;    // counted in depth / adds, not yet handed out

  struct State {
    std::uint8_t flags = 0;
    int priority = 0;
    Clock::TimePoint ready{};
    std::uint64_t seq = 0;    // order of the first add (refreshed when re-queued at Done)
    std::uint64_t stamp = 0;  // the live heap entry of this slot carries the same stamp
  };
  using Table = internal::SlotTable<T, State, KeyEqual>;
  using Slot = typename Table::Slot;

  struct Entry {
    std::int64_t key1;  // smaller first
    std::int64_t key2;
    std::uint64_t seq;
    std::uint64_t stamp;
    std::uint32_t slot;
  };
  struct After {  // std heaps are max-heaps: "a after b" puts the smallest key on top
    bool operator()(const Entry& a, const Entry& b) const noexcept {
      if (a.key1 != b.key1) return a.key1 > b.key1;
      if (a.key2 != b.key2) return a.key2 > b.key2;
      return a.seq > b.seq;
    }
  };
  struct MetricTimes {
    Clock::TimePoint add_time{};
    Clock::TimePoint start_time{};
    bool processing = false;
  };

  static std::int64_t Ns(Clock::TimePoint t) { return t.time_since_epoch().count(); }

  // The ready-heap key: the "virtual ready time" ready - priority * aging_step (saturated),
  // whose order does not change as time passes; or (-priority, ready) without aging.
  Entry ReadyEntry(std::uint32_t i) const KUBE_REQUIRES(mu_) {
    const State& s = table_[i].data;
    if (aging_step_ > Clock::Duration::zero()) {
      constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
      constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
      std::int64_t boost = 0;
      if (__builtin_mul_overflow(static_cast<std::int64_t>(s.priority), aging_step_.count(),
                                 &boost)) {
        boost = s.priority > 0 ? kMax : kMin;
      }
      std::int64_t key = 0;
      if (__builtin_sub_overflow(Ns(s.ready), boost, &key)) key = boost > 0 ? kMin : kMax;
      return Entry{key, 0, s.seq, s.stamp, i};
    }
    return Entry{-static_cast<std::int64_t>(s.priority), Ns(s.ready), s.seq, s.stamp, i};
  }

  // Puts slot i in the heap its ready time calls for, under a fresh stamp (any older heap entry
  // of the slot becomes stale). Returns 1 if this counted a new add for the metrics.
  int Place(std::uint32_t i, Clock::TimePoint now) KUBE_REQUIRES(mu_) {
    State& s = table_[i].data;
    if ((s.flags & kQueued) != 0) --queued_;
    s.flags &= static_cast<std::uint8_t>(~(kQueued | kWaiting));
    s.stamp = next_stamp_++;
    if (s.ready > now) {
      s.flags |= kWaiting;
      waiting_heap_.push_back(Entry{Ns(s.ready), 0, s.seq, s.stamp, i});
      std::push_heap(waiting_heap_.begin(), waiting_heap_.end(), After{});
      return 0;
    }
    s.flags |= kQueued;
    ++queued_;
    ready_heap_.push_back(ReadyEntry(i));
    std::push_heap(ready_heap_.begin(), ready_heap_.end(), After{});
    return (s.flags & kCounted) == 0 ? Count(i, now) : 0;
  }

  int Count(std::uint32_t i, Clock::TimePoint now) KUBE_REQUIRES(mu_) {
    table_[i].data.flags |= kCounted;
    if (metrics_.enabled()) Times(i).add_time = now;
    return 1;
  }

  bool Live(const Entry& e, std::uint8_t flag) const KUBE_REQUIRES(mu_) {
    const State& s = table_[e.slot].data;
    return s.stamp == e.stamp && (s.flags & flag) != 0;
  }

  // Moves every waiting item whose ready time has come into the ready heap.
  int Promote(Clock::TimePoint now) KUBE_REQUIRES(mu_) {
    int added = 0;
    while (!waiting_heap_.empty()) {
      const Entry top = waiting_heap_.front();
      if (Live(top, kWaiting) && top.key1 > Ns(now)) break;
      std::pop_heap(waiting_heap_.begin(), waiting_heap_.end(), After{});
      waiting_heap_.pop_back();
      if (Live(top, kWaiting)) added += Place(top.slot, now);
    }
    return added;
  }

  Clock::TimePoint NextWaitingReady() KUBE_REQUIRES(mu_) {
    while (!waiting_heap_.empty() && !Live(waiting_heap_.front(), kWaiting)) {
      std::pop_heap(waiting_heap_.begin(), waiting_heap_.end(), After{});
      waiting_heap_.pop_back();
    }
    if (waiting_heap_.empty() || shutting_down_) return Clock::TimePoint::max();
    return Clock::TimePoint(Clock::Duration(waiting_heap_.front().key1));
  }

  // Pops the best live ready entry; requires queued_ > 0.
  std::uint32_t PopReady() KUBE_REQUIRES(mu_) {
    for (;;) {
      const Entry top = ready_heap_.front();
      std::pop_heap(ready_heap_.begin(), ready_heap_.end(), After{});
      ready_heap_.pop_back();
      if (!Live(top, kQueued)) continue;
      --queued_;
      table_[top.slot].data.flags &= static_cast<std::uint8_t>(~(kQueued | kCounted));
      table_[top.slot].data.stamp = 0;
      return top.slot;
    }
  }

  MetricTimes& Times(std::uint32_t i) KUBE_REQUIRES(mu_) {
    if (i >= times_.size()) times_.resize(std::max<std::size_t>(i + 1, times_.size() * 2));
    return times_[i];
  }

  Clock& clock_;
  const std::unique_ptr<RateLimiter<T>> limiter_;
  const Clock::Duration aging_step_;
  [[no_unique_address]] const Hash hash_{};  // used outside the lock
  internal::QueueMetrics metrics_;

  mutable Mutex mu_;
  CondVar cv_;       // a ready item, an earlier ready time, or shutdown
  CondVar drained_;  // processing_ reached 0 while draining_, or ShutDown
  // Each tracked item is in exactly one of: waiting (one live entry in waiting_heap_), queued
  // (one live entry in ready_heap_), processing (no live entry; possibly dirty). Heap entries
  // whose stamp no longer matches their slot are stale and skipped.
  Table table_ KUBE_GUARDED_BY(mu_);
  std::vector<Entry> ready_heap_ KUBE_GUARDED_BY(mu_);
  std::vector<Entry> waiting_heap_ KUBE_GUARDED_BY(mu_);  // key1 = ready time (ns)
  std::size_t queued_ KUBE_GUARDED_BY(mu_) = 0;           // live entries in ready_heap_
  std::size_t processing_ KUBE_GUARDED_BY(mu_) = 0;
  std::size_t waiting_gets_ KUBE_GUARDED_BY(mu_) = 0;
  std::uint64_t next_seq_ KUBE_GUARDED_BY(mu_) = 1;
  std::uint64_t next_stamp_ KUBE_GUARDED_BY(mu_) = 1;
  std::vector<MetricTimes> times_ KUBE_GUARDED_BY(mu_);  // metrics only, by slot
  bool shutting_down_ KUBE_GUARDED_BY(mu_) = false;
  bool draining_ KUBE_GUARDED_BY(mu_) = false;
  std::atomic<bool> stopped_{false};  // shutting_down_, readable without the lock (a hint)
  std::jthread metrics_thread_;  // last: joined before the members it uses are destroyed
};

}  // namespace kube::workqueue
