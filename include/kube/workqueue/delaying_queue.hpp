#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stop_token>
#include <thread>
#include <utility>
#include <vector>

#include <kube/base/clock.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/thread_annotations.hpp>
#include <kube/workqueue/internal/slot_table.hpp>
#include <kube/workqueue/internal/spin_lock.hpp>
#include <kube/workqueue/internal/time.hpp>
#include <kube/workqueue/internal/timer_wheel.hpp>
#include <kube/workqueue/queue.hpp>

namespace kube::workqueue {

/// client-go's delaying queue: a `Queue` plus `AddAfter(item, delay)`, which adds the item once
/// `delay` has passed on the injected clock.
///  * A delay <= 0 adds at once.
///  * An item already waiting keeps the EARLIER of its ready times (and is delivered once).
///  * One delivery thread per queue (not a thread or timer per item) keeps the waiting items in a
///    timing wheel of 1 ms ticks (internal::TimerWheel: O(1) insert; each tick's timers are
///    sorted when the clock reaches it) and adds each due batch to the queue under one lock.
///  * `AddAfter` only appends to a small inbox under a short lock; the delivery thread takes the
///    whole inbox at once, so a burst of `AddAfter` calls cannot starve delivery of due items.
///    The inbox is bounded (`kMaxPendingAddAfter`): a burst faster than the thread can merge
///    waits for it rather than leaving short-delay items behind an ever longer backlog.
///  * Delays that overflow the clock (hours::max()) wait forever instead of wrapping.
///  * After shutdown, `AddAfter` is ignored and items still waiting are dropped.
///
/// **Thread-safety:** every member may be called concurrently, except the destructor.
/// **Blocks?** `Get` and `ShutDownWithDrain`, as for `Queue`; `AddAfter` while
/// `kMaxPendingAddAfter` calls wait to be merged (briefly: until the delivery thread takes them).
/// **Ownership:** owns its thread; the destructor shuts down and joins it (workers must have
/// returned from `Get`).
template <class T, class Hash = std::hash<T>, class KeyEqual = std::equal_to<T>>
  requires QueueItem<T, Hash, KeyEqual>
class DelayingQueue final {
 public:
  /// Starts the delivery thread. `clock` drives every delay and must outlive the queue.
  explicit DelayingQueue(QueueOptions options = {}, Clock& clock = RealClock::Instance())
      : clock_(clock), heartbeat_(options.heartbeat), queue_(std::move(options), clock) {
    if (heartbeat_ <= Clock::Duration::zero()) heartbeat_ = std::chrono::seconds(10);
    thread_ = std::jthread([this] { Run(); });
  }

  /// Shuts down and joins the delivery thread; items still waiting are dropped.
  ~DelayingQueue() {
    ShutDown();
    thread_.join();
  }

  DelayingQueue(const DelayingQueue&) = delete;
  DelayingQueue& operator=(const DelayingQueue&) = delete;

  /// Adds `item` once `delay` has passed (any `std::chrono::duration`; saturates instead of
  /// overflowing). Counts one `workqueue_retries_total`. Ignored after shutdown.
  /// **Blocks?** On a short lock, and while `kMaxPendingAddAfter` earlier calls are still
  /// waiting for the delivery thread (backpressure). The item is copied into a recycled inbox
  /// entry and hashed here, outside every lock, so that the delivery thread does as little per
  /// item as possible.
  template <class Rep, class Period>
  void AddAfter(const T& item, std::chrono::duration<Rep, Period> delay) KUBE_EXCLUDES(mu_) {
    if (stopped_.load(std::memory_order_relaxed)) return;
    queue_.metrics_.Retried();
    if (!(delay > delay.zero())) {
      queue_.Add(item);
      return;
    }
    const Clock::TimePoint now = clock_.Now();
    const Clock::TimePoint ready = internal::SaturatingAdd(now, delay);
    // (Compared as time points: `delay < kShortDelay` would overflow for hours::max().)
    // Only while nothing is scheduled: a waiting copy of the item must take the earlier ready
    // time (and so be delivered once), which only the delivery thread can do.
    if (ready - now < kShortDelay && scheduled_.load(std::memory_order_acquire) == 0 &&
        clock_.Now() >= ready) {
      // Already due (a nanosecond backoff): add it now instead of waking the delivery thread
      // for it. Exactly on time, and no thread hand-off.
      queue_.Add(item);
      return;
    }
    const std::size_t hash = hash_(item);
    bool wake = false;
    {
      internal::SpinMutexLock lock(mu_);
      // Backpressure (client-go: a channel of 1,000): while kMaxPendingAddAfter calls wait to
      // be merged, the delivery thread is behind, and every further call would only make the
      // items in the inbox later. Wait until it takes the inbox.
      while (inbox_size_ >= kMaxPendingAddAfter && !stopping_) {
        ++blocked_producers_;
        room_.Wait(mu_);
        --blocked_producers_;
      }
      if (stopping_) return;
      if (inbox_size_ == inbox_.size()) {
        inbox_.push_back(Pending{item, hash, ready});
      } else {
        Pending& p = inbox_[inbox_size_];
        p.item = item;  // reuses the entry's storage (a string's capacity)
        p.hash = hash;
        p.ready = ready;
      }
      ++inbox_size_;
      scheduled_.fetch_add(1, std::memory_order_relaxed);
      if (ready < wake_at_) {
        wake_at_ = ready;  // later producers need not wake the thread again for a later item
        wake = true;
      } else if (inbox_size_ == kMaxPendingAddAfter && wake_at_ != Clock::TimePoint::min()) {
        wake_at_ = Clock::TimePoint::min();  // the inbox is full: merge it now
        wake = true;
      }
    }
    if (wake) cv_.Signal();
  }

  /// `AddAfter` calls that may wait to be merged by the delivery thread. A call that finds this
  /// many waiting blocks until the thread takes them (or the queue shuts down): bursts cannot
  /// run ahead of delivery, so items with short delays are not held up behind a backlog of
  /// unmerged calls. client-go's equivalent is its 1,000-entry `waitingForAddCh`.
  static constexpr std::size_t kMaxPendingAddAfter = 4096;

  /// See `Queue::Add`.
  void Add(const T& item) { queue_.Add(item); }
  /// See `Queue::AddMany`.
  void AddMany(std::span<const T> items) { queue_.AddMany(items); }
  /// See `Queue::Len` (items ready to be handed out; waiting items are not counted).
  std::size_t Len() const { return queue_.Len(); }
  /// See `Queue::Get`.
  std::optional<T> Get() { return queue_.Get(); }
  /// See `Queue::Done`.
  void Done(const T& item) { queue_.Done(item); }
  /// See `Queue::Done(T&&)` (recycles the item's storage).
  void Done(T&& item) { queue_.Done(std::move(item)); }
  /// Stops the delivery thread (waiting items are dropped), then `Queue::ShutDown`.
  void ShutDown() KUBE_EXCLUDES(mu_) {
    StopDelivery();
    queue_.ShutDown();
  }
  /// Stops the delivery thread (waiting items are dropped), then `Queue::ShutDownWithDrain`.
  void ShutDownWithDrain() KUBE_EXCLUDES(mu_) {
    StopDelivery();
    queue_.ShutDownWithDrain();
  }
  /// See `Queue::ShuttingDown`.
  bool ShuttingDown() const { return queue_.ShuttingDown(); }
  /// See `Queue::UpdateUnfinishedWork`.
  void UpdateUnfinishedWork() { queue_.UpdateUnfinishedWork(); }

 private:
  struct Pending {
    T item;
    std::size_t hash;  // hash_(item), computed by the producer
    Clock::TimePoint ready;
  };
  struct Waiting {
    Clock::TimePoint ready{};
    std::uint64_t seq = 0;  // identifies the slot's live timer (older timers are stale)
  };
  using WaitTable = internal::SlotTable<T, Waiting, KeyEqual>;

  // Below this delay AddAfter checks the clock once more and adds an item that is already due
  // directly (a second clock read is only worth it when the item may be due by then).
  static constexpr Clock::Duration kShortDelay = std::chrono::microseconds(50);
  // How many inbox entries are merged between two checks for due items.
  static constexpr std::size_t kMergeSlice = 256;
  // How many inbox entries ahead Merge prefetches the table bucket of.
  static constexpr std::size_t kPrefetchAhead = 8;

  void StopDelivery() KUBE_EXCLUDES(mu_) {
    stopped_.store(true, std::memory_order_relaxed);
    {
      MutexLock lock(mu_);
      stopping_ = true;
    }
    cv_.SignalAll();
    room_.SignalAll();
  }

  // The delivery thread.
  void Run() KUBE_EXCLUDES(mu_) {
    // Entries [0, n) of `batch` are the AddAfter calls to merge; the vectors are swapped, not
    // freed, so their entries (and a string's capacity) are reused by later calls.
    std::vector<Pending> batch;
    for (;;) {
      std::size_t n = 0;
      bool unblock = false;
      {
        MutexLock lock(mu_);
        for (;;) {
          if (stopping_) return;
          if (inbox_size_ > 0) {
            n = TakeInboxLocked(batch, unblock);
            break;
          }
          const Clock::TimePoint now = clock_.Now();
          const Clock::TimePoint next = NextReady(now);
          if (next <= now) break;
          const Clock::TimePoint deadline =
              std::min(next, internal::SaturatingAdd(now, heartbeat_));
          wake_at_ = deadline;
          clock_.WaitUntil(cv_, mu_, deadline);
          wake_at_ = Clock::TimePoint::min();
        }
      }
      if (unblock) room_.SignalAll();
      Merge(batch, n);
      // Every AddAfter that happened before the clock read `now` is merged before the items
      // due at `now` are delivered, so that they come out in ready-time order (a test advancing
      // a FakeClock past several items relies on it): calls made while the batch above was
      // merged are taken now. Once only: a steady stream of calls must not hold delivery back.
      const Clock::TimePoint now = clock_.Now();
      {
        MutexLock lock(mu_);
        n = TakeInboxLocked(batch, unblock);
      }
      if (unblock) room_.SignalAll();
      Merge(batch, n);
      DeliverDue(now);
    }
  }

  // Takes the AddAfter calls waiting in the inbox into `batch` (the vectors are swapped) and
  // returns how many there are; `unblock` tells whether producers wait for room.
  std::size_t TakeInboxLocked(std::vector<Pending>& batch, bool& unblock) KUBE_REQUIRES(mu_) {
    const std::size_t n = inbox_size_;
    unblock = n > 0 && blocked_producers_ > 0;
    if (n == 0) return 0;
    batch.swap(inbox_);
    inbox_size_ = 0;
    return n;
  }

  // Thread-confined: only the delivery thread touches waiting_, wheel_, due_ and next_seq_.
  // When the delivery thread must look again: the earliest live timer's ready time, or an
  // earlier bound (the start of the next occupied tick, or a stale timer's time).
  Clock::TimePoint NextReady(Clock::TimePoint now) {
    wheel_.Advance(now);
    while (const internal::TimerEntry* e = wheel_.Due()) {
      if (Live(*e)) break;
      wheel_.PopDue();
    }
    return wheel_.NextBound();
  }

  bool Live(const internal::TimerEntry& e) const { return waiting_[e.slot].data.seq == e.seq; }

  void Merge(std::vector<Pending>& batch, std::size_t count) {
    Clock::TimePoint now = clock_.Now();
    wheel_.Advance(now);  // so that new timers land in the wheel's current turn
    for (std::size_t n = 0; n < count; ++n) {
      if (n > 0 && n % kMergeSlice == 0) {
        now = clock_.Now();
        DeliverDue(now);  // keep due items flowing while a large inbox is merged
      }
      // The table lookups miss the cache when many items wait: ask for a later entry's
      // bucket now, so that the misses of several entries overlap.
      if (n + kPrefetchAhead < count) waiting_.Prefetch(batch[n + kPrefetchAhead].hash);
      Pending& p = batch[n];
      const std::size_t hash = p.hash;
      std::uint32_t i = waiting_.Find(p.item, hash);
      if (i != WaitTable::kNone) {
        scheduled_.fetch_sub(1, std::memory_order_release);  // merged into the waiting item
        auto& w = waiting_[i].data;
        if (p.ready >= w.ready) continue;  // the earlier ready time wins
        w.ready = p.ready;
        w.seq = next_seq_++;  // the old heap entry becomes stale
      } else {
        i = waiting_.Insert(std::move(p.item), hash);  // exchanges storage with a free slot
        waiting_[i].data = Waiting{p.ready, next_seq_++};
      }
      wheel_.Push(internal::TimerEntry{p.ready, waiting_[i].data.seq, i});
    }
    if constexpr (!requires(T& t) { t.clear(); }) {
      for (std::size_t n = 0; n < count; ++n) batch[n].item = T{};  // hold no resources
    }
  }

  void DeliverDue(Clock::TimePoint now) {
    // Entries [0, n) of due_ are this batch; the vector keeps its entries, whose storage is
    // exchanged with the slots' (move-assignment), so a warmed queue does not allocate here.
    std::size_t n = 0;
    wheel_.Advance(now);
    while (const internal::TimerEntry* e = wheel_.Due()) {
      if (e->ready > now) break;
      const std::uint32_t i = e->slot;
      const bool live = Live(*e);
      wheel_.PopDue();
      if (!live) continue;  // the item's ready time was moved earlier: a newer timer exists
      if (n == due_.size()) {
        due_.push_back(std::move(waiting_[i].item));
      } else {
        due_[n] = std::move(waiting_[i].item);
      }
      ++n;
      waiting_[i].data.seq = 0;  // no heap entry may match a freed slot
      waiting_.Erase(i);
    }
    if (n == 0) return;
    // Before the items are added: an AddAfter that finds nothing scheduled may then add one of
    // them itself; both adds are legitimate (the item was due), and the queue merges them.
    scheduled_.fetch_sub(n, std::memory_order_release);
    queue_.AddMany(std::span<const T>(due_.data(), n));
    if constexpr (!requires(T& t) { t.clear(); }) {
      for (std::size_t k = 0; k < n; ++k) due_[k] = T{};  // hold no resources
    }
  }

  Clock& clock_;
  Clock::Duration heartbeat_;
  Queue<T, Hash, KeyEqual> queue_;

  Mutex mu_;
  CondVar cv_;  // wakes the delivery thread: an earlier item arrived, or stop
  // AddAfter calls not yet merged: entries [0, inbox_size_); later entries are spare.
  std::vector<Pending> inbox_ KUBE_GUARDED_BY(mu_);
  std::size_t inbox_size_ KUBE_GUARDED_BY(mu_) = 0;
  std::size_t blocked_producers_ KUBE_GUARDED_BY(mu_) = 0;  // AddAfter calls waiting on room_
  CondVar room_;  // signalled when the delivery thread takes the inbox, and on stop
  // When the delivery thread will wake by itself; TimePoint::min() while it is busy (it looks at
  // the inbox before it waits again). A producer signals only for an item due earlier.
  Clock::TimePoint wake_at_ KUBE_GUARDED_BY(mu_) = Clock::TimePoint::min();
  bool stopping_ KUBE_GUARDED_BY(mu_) = false;
  std::atomic<bool> stopped_{false};  // stopping_, readable without the lock (a fast-path hint)
  // AddAfter calls in the inbox plus items waiting in waiting_: AddAfter's already-due path is
  // taken only at zero. Incremented under mu_, decremented by the delivery thread.
  std::atomic<std::size_t> scheduled_{0};

  [[no_unique_address]] const Hash hash_{};  // called by producers, outside the lock
  WaitTable waiting_;                 // delivery thread only: the items waiting, by item
  internal::TimerWheel wheel_;        // delivery thread only: timers by (ready, seq)
  std::vector<T> due_;                // delivery thread only: recycled batch for AddMany
  std::uint64_t next_seq_ = 1;        // delivery thread only
  std::jthread thread_;               // last: started once everything above is constructed
};

}  // namespace kube::workqueue
