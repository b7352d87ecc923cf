#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <kube/base/clock.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/thread_annotations.hpp>
#include <kube/workqueue/internal/index_ring.hpp>
#include <kube/workqueue/internal/queue_metrics.hpp>
#include <kube/workqueue/internal/slot_table.hpp>
#include <kube/workqueue/internal/spin_lock.hpp>
#include <kube/workqueue/internal/time.hpp>
#include <kube/workqueue/metrics.hpp>

namespace kube::workqueue {

/// What a queue item must be: a regular value (object keys, ids, small structs) that `Hash`
/// hashes and `KeyEqual` compares. Default-constructible because the queue recycles storage.
template <class T, class Hash, class KeyEqual>
concept QueueItem = std::default_initializable<T> && std::copyable<T> &&
                    requires(const T& a, const Hash& h, const KeyEqual& eq) {
                      { h(a) } -> std::convertible_to<std::size_t>;
                      { eq(a, a) } -> std::convertible_to<bool>;
                    };

/// Options shared by Queue, DelayingQueue and RateLimitingQueue. Set them with designated
/// initializers: `Queue<std::string> q({.name = "pods", .metrics_provider = &provider});`
struct QueueOptions {
  /// The `name` label of the queue's metrics. Default: empty.
  std::string name{};  // (an explicit initializer keeps g++ -Wextra quiet about `{.x = ...}`)
  /// Receives the queue's metrics (client-go names). **Non-owning:** must outlive the queue.
  /// Default nullptr: no metrics, and no clock reads on the hot path.
  MetricsProvider* metrics_provider = nullptr;
  /// How often `workqueue_unfinished_work_seconds` and
  /// `workqueue_longest_running_processor_seconds` are recomputed by a background thread when
  /// metrics are on (client-go: 500 ms). Zero: no thread; call `UpdateUnfinishedWork()`.
  Clock::Duration unfinished_work_update_period = std::chrono::milliseconds(500);
  /// Delaying queues only: the longest single wait of the delivery thread (client-go's
  /// `maxWait` heartbeat, 10 s). It is a safety net: the thread is also woken whenever an item
  /// with an earlier ready time arrives.
  Clock::Duration heartbeat = std::chrono::seconds(10);
};

template <class T, class Hash, class KeyEqual>
  requires QueueItem<T, Hash, KeyEqual>
class DelayingQueue;

/// client-go's work queue (`workqueue.New()`): a FIFO of items that need processing, with
///  * **fair** order: items are handed out in the order they were first added;
///  * **stingy** adds: an item added several times before it is handed out is handed out once;
///  * **exclusive** processing: an item is never handed to two workers at once. An item added
///    while it is being processed is marked dirty and queued again when `Done` is called;
///  * **shutdown**: after `ShutDown`, adds are ignored; `Get` still hands out the items already
///    queued, then reports shutdown. `ShutDownWithDrain` also waits for in-flight items.
///
/// Typical worker loop:
/// ```
/// while (auto key = queue.Get()) { Reconcile(*key); queue.Done(*key); }
/// ```
/// `Get` returns `std::optional<T>`: an item, or `std::nullopt` once the queue is shut down and
/// empty (client-go's `shutdown == true`).
///
/// **Thread-safety:** every member may be called concurrently from any number of producers and
/// workers, except the destructor. **Blocks?** `Get` and `ShutDownWithDrain` block; the others
/// only take the queue's mutex briefly. **Ownership:** the queue copies the items it is given.
/// **Memory:** storage grows to the peak number of distinct items tracked at once and is then
/// reused (a warmed queue does not allocate); it is released when the queue is destroyed.
/// `Hash` and `KeyEqual` must not call back into the queue; `Hash` is called concurrently and
/// outside the lock.
template <class T, class Hash = std::hash<T>, class KeyEqual = std::equal_to<T>>
  requires QueueItem<T, Hash, KeyEqual>
class Queue final {
 public:
  /// Creates an empty queue. `clock` times the metrics only and must outlive the queue.
  explicit Queue(QueueOptions options = {}, Clock& clock = RealClock::Instance())
      : clock_(clock), metrics_(options.metrics_provider, options.name) {
    if (metrics_.enabled() && options.unfinished_work_update_period > Clock::Duration::zero()) {
      metrics_thread_ = std::jthread([this, period = options.unfinished_work_update_period](
                                         std::stop_token stop) {
        while (clock_.SleepFor(period, stop)) UpdateUnfinishedWork();
      });
    }
  }

  /// Shuts the queue down and joins its metrics thread. No other call may be in progress or
  /// made afterwards (workers must have returned from `Get`).
  ~Queue() {
    ShutDown();
    if (metrics_thread_.joinable()) {
      metrics_thread_.request_stop();
      metrics_thread_.join();
    }
  }

  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;

  /// Marks `item` as needing processing. Ignored after shutdown; a no-op if the item is already
  /// queued; if it is being processed it is queued again at `Done`. Wakes one waiting `Get`.
  void Add(const T& item) KUBE_EXCLUDES(mu_) {
    const std::size_t hash = hash_(item);
    const Clock::TimePoint now = metrics_.enabled() ? clock_.Now() : Clock::TimePoint();
    bool added = false;
    bool wake = false;
    {
      internal::SpinMutexLock lock(mu_);
      if (shutting_down_) return;
      added = AddLocked(item, hash, now, wake);
    }
    if (wake) not_empty_.Signal();
    if (added) metrics_.Added();
  }

  /// `Add` for each item, taking the lock once per 64 items (used by the delaying queue to
  /// deliver a batch of due items; also useful to producers that have many keys at once).
  void AddMany(std::span<const T> items) KUBE_EXCLUDES(mu_) {
    constexpr std::size_t kChunk = 64;
    std::array<std::size_t, kChunk> hashes;  // computed outside the lock
    for (std::size_t first = 0; first < items.size(); first += kChunk) {
      const std::span<const T> chunk = items.subspan(first, std::min(kChunk, items.size() - first));
      for (std::size_t i = 0; i < chunk.size(); ++i) hashes[i] = hash_(chunk[i]);
      const Clock::TimePoint now = metrics_.enabled() ? clock_.Now() : Clock::TimePoint();
      int added = 0;
      std::size_t queued = 0;
      std::size_t waiting_gets = 0;
      {
        internal::SpinMutexLock lock(mu_);
        if (shutting_down_) return;
        const std::size_t before = fifo_.size();
        bool wake = false;
        for (std::size_t i = 0; i < chunk.size(); ++i) {
          if (AddLocked(chunk[i], hashes[i], now, wake)) ++added;
        }
        queued = fifo_.size() - before;
        // A spinner takes the first item and chains the wake-up for the rest.
        waiting_gets = spinning_gets_ == 0 ? waiting_gets_ : 0;
      }
      if (queued >= waiting_gets) {
        if (waiting_gets > 0) not_empty_.SignalAll();
      } else {
        for (std::size_t i = 0; i < queued; ++i) not_empty_.Signal();
      }
      if (added > 0) metrics_.Added(added);
    }
  }

  /// Number of items queued and not yet handed out (for information: do not gate `Add` or
  /// `Get` on it, it may change at once).
  std::size_t Len() const KUBE_EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return fifo_.size();
  }

  /// Blocks until an item is available and hands it out, marking it as being processed: the
  /// caller must call `Done(item)` when finished. Returns `std::nullopt` once the queue is shut
  /// down and has no queued item left. **Blocks?** Yes, while the queue is empty and running.
  std::optional<T> Get() KUBE_EXCLUDES(mu_) {
    double queued_seconds = -1;
    std::optional<T> out;
    bool spinning = false;  // this Get counted in spinning_gets_
    int spins = 0;
    for (bool done = false; !done;) {
      {
        internal::SpinMutexLock lock(mu_);
        if (spinning) {
          --spinning_gets_;
          spinning = false;
        }
        if (fifo_.empty() && !shutting_down_) {
          if (spins < kGetSpins && spinning_gets_ == 0) {
            // Become the one spinner: Adds skip the futex wake while a spinner will see
            // their item. One spinner at most, so that on a machine with fewer cores than
            // threads the spinners do not take the core a producer needs.
            ++spinning_gets_;
            spinning = true;
          } else {
            while (fifo_.empty() && !shutting_down_) {
              ++waiting_gets_;
              not_empty_.Wait(mu_);
              --waiting_gets_;
            }
          }
        }
        if (!spinning) {
          if (!fifo_.empty()) {
            TakeLocked(out, queued_seconds);
            done = true;
            // Chain the wake-up: items remain and the Adds that queued them may have left the
            // wake to a spinner (this Get).
            if (!fifo_.empty() && waiting_gets_ > 0 && spinning_gets_ == 0) {
              not_empty_.Signal();
            }
          } else if (shutting_down_) {
            return std::nullopt;
          }
        }
      }
      // Empty: spin a few microseconds outside the lock before sleeping, so that a worker that
      // is faster than its producers does not pay a futex wait and wake for every item.
      while (spinning && spins < kGetSpins &&
             queued_hint_.load(std::memory_order_relaxed) == 0) {
        internal::CpuRelax();
        ++spins;
      }
    }
    if (queued_seconds >= 0) metrics_.Got(queued_seconds);
    return out;
  }

  /// Marks `item` as finished. If it was added again while being processed, it is queued again
  /// now. Calling `Done` for an item that is not being processed does nothing.
  void Done(const T& item) KUBE_EXCLUDES(mu_) { DoneImpl(item, nullptr); }

  /// `Done`, and hands the item's storage back to the queue, which reuses it for a later `Get`:
  /// with `queue.Done(std::move(*key))` a warmed queue of `std::string` keys allocates nothing,
  /// whatever the key length. `item` is left valid but unspecified.
  void Done(T&& item) KUBE_EXCLUDES(mu_) { DoneImpl(item, &item); }


  /// Stops accepting items: later `Add`s are ignored, and `Get` returns `std::nullopt` once the
  /// queued items are handed out. Wakes every waiting `Get`. Does not wait for workers; also
  /// ends a `ShutDownWithDrain` that is waiting. Idempotent.
  void ShutDown() KUBE_EXCLUDES(mu_) {
    {
      MutexLock lock(mu_);
      shutting_down_ = true;
      draining_ = false;
    }
    not_empty_.SignalAll();
    drained_.SignalAll();
  }

  /// Like `ShutDown`, then blocks until every item being processed is `Done` (workers keep
  /// getting the items still queued meanwhile). Returns early if `ShutDown` is called.
  /// **Blocks?** Yes: a worker that never calls `Done` blocks it forever.
  void ShutDownWithDrain() KUBE_EXCLUDES(mu_) {
    {
      MutexLock lock(mu_);
      shutting_down_ = true;
      draining_ = true;
    }
    not_empty_.SignalAll();
    MutexLock lock(mu_);
    while (draining_ && processing_ > 0) drained_.Wait(mu_);
  }

  /// True once `ShutDown` or `ShutDownWithDrain` was called.
  bool ShuttingDown() const KUBE_EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return shutting_down_;
  }

  /// Recomputes the unfinished-work and longest-running-processor gauges (done periodically by
  /// the queue when `unfinished_work_update_period > 0`). A no-op without metrics.
  void UpdateUnfinishedWork() KUBE_EXCLUDES(mu_) {
    if (!metrics_.enabled()) return;
    double total = 0;
    double longest = 0;
    {
      MutexLock lock(mu_);
      const Clock::TimePoint now = clock_.Now();
      for (std::uint32_t i : processing_list_) {
        const double age = internal::Seconds(now - TimesOf(i).start_time);
        total += age;
        if (age > longest) longest = age;
      }
    }
    metrics_.SetUnfinished(total, longest);
  }

 private:
  template <class U, class H, class E>
    requires QueueItem<U, H, E>
  friend class DelayingQueue;

  // Pauses (about 20 ns each) a Get spins on an empty queue before it sleeps: about 10 us.
  static constexpr int kGetSpins = 512;
  // Item storage recycled through Done(T&&) kept for later Gets (a few per worker suffice).
  static constexpr std::size_t kMaxSpares = 16;
  static constexpr std::uint8_t kDirty = 1;       // needs processing (queued, or re-added)
  static constexpr std::uint8_t kProcessing = 2;  // handed out by Get, Done not yet called
  struct ItemState {
    std::uint8_t flags = 0;
  };
  // Kept beside the table, by slot number, and only when metrics are on: a queue without
  // metrics does not pay for them in memory.
  struct Times {
    Clock::TimePoint add_time{};       // when the item last became dirty
    Clock::TimePoint start_time{};     // when Get handed it out
    std::uint32_t processing_pos = 0;  // index in processing_list_ while processing
  };
  using Table = internal::SlotTable<T, ItemState, KeyEqual>;

  void DoneImpl(const T& item, T* recycle) KUBE_EXCLUDES(mu_) {
    const std::size_t hash = hash_(item);
    const Clock::TimePoint now = metrics_.enabled() ? clock_.Now() : Clock::TimePoint();
    double work_seconds = -1;
    bool wake = false;
    bool drained = false;
    {
      internal::SpinMutexLock lock(mu_);
      const std::uint32_t i = table_.Find(item, hash);
      if (i == Table::kNone || (table_[i].data.flags & kProcessing) == 0) return;
      auto& slot = table_[i];
      slot.data.flags &= static_cast<std::uint8_t>(~kProcessing);
      --processing_;
      if (metrics_.enabled()) {
        const Times& t = TimesOf(i);
        work_seconds = internal::Seconds(now - t.start_time);
        RemoveFromProcessingList(t.processing_pos);
      }
      if ((slot.data.flags & kDirty) != 0) {
        fifo_.push_back(i);
        queued_hint_.store(fifo_.size(), std::memory_order_relaxed);
        wake = waiting_gets_ > 0 && spinning_gets_ == 0;
      } else {
        table_.Erase(i);
      }
      drained = processing_ == 0 && draining_;
      if (recycle != nullptr && spares_.size() < kMaxSpares) spares_.push_back(std::move(*recycle));
    }
    if (wake) not_empty_.Signal();
    if (drained) drained_.SignalAll();
    if (work_seconds >= 0) metrics_.Finished(work_seconds);
  }

  void TakeLocked(std::optional<T>& out, double& queued_seconds) KUBE_REQUIRES(mu_) {
    const std::uint32_t i = fifo_.pop_front();
    queued_hint_.store(fifo_.size(), std::memory_order_relaxed);
    auto& slot = table_[i];
    slot.data.flags = kProcessing;  // no longer dirty
    ++processing_;
    if (metrics_.enabled()) {
      const Clock::TimePoint now = clock_.Now();
      Times& t = TimesOf(i);
      queued_seconds = internal::Seconds(now - t.add_time);
      t.start_time = now;
      t.processing_pos = static_cast<std::uint32_t>(processing_list_.size());
      processing_list_.push_back(i);
    }
    if (spares_.empty()) {
      out.emplace(slot.item);
    } else {
      out.emplace(std::move(spares_.back()));  // storage recycled by Done(T&&)
      spares_.pop_back();
      *out = slot.item;
    }
  }

  // Returns true when the item became dirty (a counted add); sets `wake` if it was queued and a
  // Get is waiting.
  bool AddLocked(const T& item, std::size_t hash, Clock::TimePoint now, bool& wake)
      KUBE_REQUIRES(mu_) {
    std::uint32_t i = table_.Find(item, hash);
    if (i == Table::kNone) {
      i = table_.Insert(item, hash);
      table_[i].data.flags = kDirty;
    } else {
      auto& data = table_[i].data;
      if ((data.flags & kDirty) != 0) return false;
      data.flags |= kDirty;
      if ((data.flags & kProcessing) != 0) {
        if (metrics_.enabled()) TimesOf(i).add_time = now;
        return true;  // queued again by Done
      }
    }
    if (metrics_.enabled()) TimesOf(i).add_time = now;
    fifo_.push_back(i);
    queued_hint_.store(fifo_.size(), std::memory_order_relaxed);
    wake = wake || (waiting_gets_ > 0 && spinning_gets_ == 0);
    return true;
  }

  void RemoveFromProcessingList(std::uint32_t pos) KUBE_REQUIRES(mu_) {
    const std::uint32_t last = processing_list_.back();
    processing_list_[pos] = last;
    TimesOf(last).processing_pos = pos;
    processing_list_.pop_back();
  }

  Times& TimesOf(std::uint32_t i) KUBE_REQUIRES(mu_) {
    if (i >= times_.size()) times_.resize(std::max<std::size_t>(i + 1, times_.size() * 2));
    return times_[i];
  }

  Clock& clock_;
  [[no_unique_address]] const Hash hash_{};  // called outside the lock, concurrently
  internal::QueueMetrics metrics_;

  mutable Mutex mu_;
  CondVar not_empty_;  // signalled when an item is queued or on shutdown
  CondVar drained_;    // signalled when processing_ drops to 0 while draining_, or on ShutDown
  // Every tracked item is dirty, processing, or both. An item is in fifo_ iff it is dirty and
  // not processing; each slot number appears in fifo_ at most once.
  Table table_ KUBE_GUARDED_BY(mu_);
  internal::IndexRing fifo_ KUBE_GUARDED_BY(mu_);
  std::size_t processing_ KUBE_GUARDED_BY(mu_) = 0;
  std::vector<Times> times_ KUBE_GUARDED_BY(mu_);                     // metrics only
  std::vector<std::uint32_t> processing_list_ KUBE_GUARDED_BY(mu_);  // metrics only
  std::size_t waiting_gets_ KUBE_GUARDED_BY(mu_) = 0;  // Gets blocked on not_empty_
  // Gets spinning outside the lock on an empty queue (0 or 1): they re-check the queue under
  // the lock before parking, so an Add need not wake anyone while one spins.
  std::size_t spinning_gets_ KUBE_GUARDED_BY(mu_) = 0;
  std::vector<T> spares_ KUBE_GUARDED_BY(mu_);         // from Done(T&&), reused by Get
  bool shutting_down_ KUBE_GUARDED_BY(mu_) = false;
  bool draining_ KUBE_GUARDED_BY(mu_) = false;
  // fifo_.size(), published for Get's lock-free spin; only a hint (stored under mu_).
  std::atomic<std::size_t> queued_hint_{0};
  std::jthread metrics_thread_;  // last: joined before the members it uses are destroyed
};

}  // namespace kube::workqueue
