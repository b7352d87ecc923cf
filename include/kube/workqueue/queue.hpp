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
#include <utility>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <kube/base/clock.hpp>
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
/// only take the queue's locks briefly. **Ownership:** the queue copies the items it is given.
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
  ///
  /// The add is recorded in a small *inbox* under its own short lock; whoever next holds the
  /// queue's lock (a `Get`, `Done` or `Len`, or this producer once `kInboxLimit` adds are
  /// pending or a `Get` must be woken) applies the inbox in call order with the rules above.
  /// Producers therefore rarely touch the lock the workers use. Every member called after an
  /// `Add` returned (in happens-before order) sees that add applied. A queue with metrics
  /// applies each add at once instead, so that `workqueue_depth` and `workqueue_adds_total`
  /// never lag.
  ///
  /// A thread that adds the same item again while its previous add of it is still in the inbox
  /// (no `Get`, `Done` or `Len` has applied the inbox since) returns at once, without any
  /// lock: that add could only be a no-op. Each thread remembers its last add per item type
  /// for this (a copy of the item: string-like and trivially copyable items only).
  void Add(const T& item) KUBE_EXCLUDES(mu_, inbox_mu_) {
    const std::size_t hash = hash_(item);
    if (metrics_.enabled()) {
      AddDirect(std::span<const T>(&item, 1), &hash, clock_.Now());
      return;
    }
    if constexpr (kProducerCache) {
      const LastAdd& last = ThisThreadsLastAdd();
      // seq_cst: an unchanged epoch means the inbox holding the last add has not been taken
      // (DrainLocked stores the next epoch before it takes the inbox).
      if (last.queue_id == id_ && last.hash == hash && last.epoch == inbox_epoch_.load() &&
          eq_(last.item, item)) {
        return;
      }
    }
    std::size_t pending = 0;
    std::uint64_t epoch = 0;
    {
      internal::SpinLockGuard lock(inbox_mu_);
      if (inbox_closed_) return;
      pending = PushLocked(item, hash, Clock::TimePoint());
      epoch = inbox_epoch_.load(std::memory_order_relaxed);
    }
    if constexpr (kProducerCache) {
      LastAdd& last = ThisThreadsLastAdd();
      last.queue_id = id_;
      last.epoch = epoch;
      last.hash = hash;
      last.item = item;  // reuses the copy's storage
    }
    AfterPush(pending);
  }

  /// `Add` for each item, taking the inbox lock once per 64 items (used by the delaying queue
  /// to deliver a batch of due items; also useful to producers that have many keys at once).
  void AddMany(std::span<const T> items) KUBE_EXCLUDES(mu_, inbox_mu_) {
    constexpr std::size_t kChunk = 64;
    std::array<std::size_t, kChunk> hashes;  // computed outside the lock
    for (std::size_t first = 0; first < items.size(); first += kChunk) {
      const std::span<const T> chunk = items.subspan(first, std::min(kChunk, items.size() - first));
      for (std::size_t i = 0; i < chunk.size(); ++i) hashes[i] = hash_(chunk[i]);
      if (metrics_.enabled()) {
        if (!AddDirect(chunk, hashes.data(), clock_.Now())) return;
        continue;
      }
      std::size_t pending = 0;
      {
        internal::SpinLockGuard lock(inbox_mu_);
        if (inbox_closed_) return;
        for (std::size_t i = 0; i < chunk.size(); ++i) {
          pending = PushLocked(chunk[i], hashes[i], Clock::TimePoint());
        }
      }
      AfterPush(pending);
    }
  }

  /// Number of items queued and not yet handed out (for information: do not gate `Add` or
  /// `Get` on it, it may change at once). Adds still in the inbox are applied first, so they
  /// are counted (once per distinct item, as always).
  std::size_t Len() const KUBE_EXCLUDES(mu_, inbox_mu_) {
    // Applying the inbox changes nothing a caller can observe (those adds already happened),
    // so this const member does it on the (never const-constructed) queue.
    Queue& self = const_cast<Queue&>(*this);
    int added = 0;
    std::size_t len = 0;
    {
      internal::SpinLockGuard lock(mu_);
      self.mu_.AssertHeld();  // the same lock, for the analysis
      added = self.DrainLocked();
      len = fifo_.size();
    }
    if (added > 0) self.metrics_.Added(added);  // (0 here: queues with metrics bypass the inbox)
    return len;
  }

  /// Blocks until an item is available and hands it out, marking it as being processed: the
  /// caller must call `Done(item)` when finished. Returns `std::nullopt` once the queue is shut
  /// down and has no queued item left. **Blocks?** Yes, while the queue is empty and running.
  std::optional<T> Get() KUBE_EXCLUDES(mu_, inbox_mu_) {
    double queued_seconds = -1;
    std::optional<T> out;
    int added = 0;
    bool spinning = false;  // this Get counted in spinning_gets_
    bool parked = false;
    int spins = 0;
    const int spin_budget = get_spin_budget_.load(std::memory_order_relaxed);
    for (bool done = false; !done;) {
      bool wake = false;
      {
        internal::SpinLockGuard lock(mu_);
        if (spinning) {
          --spinning_gets_;
          spinning = false;
          UpdateWakeLocked();
        }
        added += DrainLocked();
        while (fifo_.empty() && !shutting_down_) {
          if (spins < spin_budget && spinning_gets_ == 0) {
            // Become the one spinner: producers skip the wake-up while a spinner will see
            // their item. One spinner at most, so that on a machine with fewer cores than
            // threads the spinners do not take the core a producer needs.
            ++spinning_gets_;
            spinning = true;
            UpdateWakeLocked();
            break;
          }
          ++waiting_gets_;
          // A seq_cst store of wake_ then a seq_cst load of inbox_hint_; producers do the
          // reverse (AfterPush): either this Get sees their add, or they see it must be woken.
          UpdateWakeLocked();
          const bool park = inbox_hint_.load() == 0;
          if (park) {
            parked = true;
            not_empty_.Wait(mu_);
          }
          --waiting_gets_;
          if (park && wakes_pending_ > 0) --wakes_pending_;
          UpdateWakeLocked();
          added += DrainLocked();
        }
        if (!spinning) {
          done = true;
          if (!fifo_.empty()) {
            TakeLocked(out, queued_seconds);
            // Chain the wake-up: items remain and the adds that queued them may have left the
            // wake to a spinner or to this Get.
            wake = ClaimWakeLocked(!fifo_.empty() || inbox_hint_.load() > 0);
          }  // else: shut down and nothing left
        }
      }
      if (wake) not_empty_.Signal();
      // Empty: spin outside the lock before sleeping, so that a worker that is faster than its
      // producers does not pay a futex wait and wake for every item. The spinner yields the
      // CPU now and then: with fewer cores than threads, the producer it waits for may be
      // queued behind it on this very core.
      while (spinning && spins < spin_budget &&
             !queued_hint_.load(std::memory_order_relaxed) &&
             inbox_hint_.load(std::memory_order_relaxed) == 0) {
        internal::CpuRelax();
        if (++spins % kSpinsPerYield == 0) std::this_thread::yield();
      }
    }
    if (spins > 0) AdaptGetSpin(spin_budget, parked);
    if (added > 0) metrics_.Added(added);
    if (queued_seconds >= 0) metrics_.Got(queued_seconds);
    return out;
  }

  /// Marks `item` as finished. If it was added again while being processed, it is queued again
  /// now. Calling `Done` for an item that is not being processed does nothing.
  void Done(const T& item) KUBE_EXCLUDES(mu_, inbox_mu_) { DoneImpl(item, nullptr); }

  /// `Done`, and hands the item's storage back to the queue, which reuses it for a later `Get`:
  /// with `queue.Done(std::move(*key))` a warmed queue of `std::string` keys allocates nothing,
  /// whatever the key length. `item` is left valid but unspecified.
  void Done(T&& item) KUBE_EXCLUDES(mu_, inbox_mu_) { DoneImpl(item, &item); }

  /// Stops accepting items: later `Add`s are ignored, and `Get` returns `std::nullopt` once the
  /// queued items (including adds made before this call and still in the inbox) are handed
  /// out. Wakes every waiting `Get`. Does not wait for workers; also ends a
  /// `ShutDownWithDrain` that is waiting. Idempotent.
  void ShutDown() KUBE_EXCLUDES(mu_, inbox_mu_) {
    int added = 0;
    {
      internal::SpinLockGuard lock(mu_);
      added = CloseLocked();
      draining_ = false;
    }
    not_empty_.SignalAll();
    drained_.SignalAll();
    if (added > 0) metrics_.Added(added);
  }

  /// Like `ShutDown`, then blocks until every item being processed is `Done` (workers keep
  /// getting the items still queued meanwhile). Returns early if `ShutDown` is called.
  /// **Blocks?** Yes: a worker that never calls `Done` blocks it forever.
  void ShutDownWithDrain() KUBE_EXCLUDES(mu_, inbox_mu_) {
    int added = 0;
    {
      internal::SpinLockGuard lock(mu_);
      added = CloseLocked();
      draining_ = true;
    }
    not_empty_.SignalAll();
    if (added > 0) metrics_.Added(added);
    internal::SpinLockGuard lock(mu_);
    while (draining_ && processing_ > 0) drained_.Wait(mu_);
  }

  /// True once `ShutDown` or `ShutDownWithDrain` was called.
  bool ShuttingDown() const KUBE_EXCLUDES(mu_) {
    internal::SpinLockGuard lock(mu_);
    return shutting_down_;
  }

  /// Recomputes the unfinished-work and longest-running-processor gauges (done periodically by
  /// the queue when `unfinished_work_update_period > 0`). A no-op without metrics.
  void UpdateUnfinishedWork() KUBE_EXCLUDES(mu_) {
    if (!metrics_.enabled()) return;
    double total = 0;
    double longest = 0;
    {
      internal::SpinLockGuard lock(mu_);
      const Clock::TimePoint now = clock_.Now();
      for (std::uint32_t i : processing_list_) {
        const double age = internal::Seconds(now - TimesOf(i).start_time);
        total += age;
        if (age > longest) longest = age;
      }
    }
    metrics_.SetUnfinished(total, longest);
  }

  /// Adds pending in the inbox at which the producer applies them itself (bounds the inbox, so
  /// that adds of one item while no worker runs cost no memory beyond this).
  static constexpr std::size_t kInboxLimit = 256;

 private:
  template <class U, class H, class E>
    requires QueueItem<U, H, E>
  friend class DelayingQueue;

  // Pauses (about 20 ns each) a Get spins on an empty queue before it sleeps: adapted between
  // about 20 us and 160 us (AdaptGetSpin), plus a yield every kSpinsPerYield pauses.
  static constexpr int kMinGetSpins = 1024;
  static constexpr int kMaxGetSpins = 8192;
  static constexpr int kSpinsPerYield = 256;
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
  // One add waiting in the inbox. Entries are reused: `item` keeps its storage (a string's
  // capacity), so a warmed inbox does not allocate.
  struct Incoming {
    T item{};
    std::size_t hash = 0;
    Clock::TimePoint time{};  // unused: queues with metrics bypass the inbox
  };
  using Table = internal::SlotTable<T, ItemState, KeyEqual>;
  // Whether Add remembers each thread's last add (items that are cheap to keep a copy of and
  // hold no resource: string-like, or trivially copyable).
  static constexpr bool kProducerCache =
      std::is_trivially_copyable_v<T> || requires(T& t) { t.clear(); };
  // A thread's last add to a queue of this type (see Add).
  struct LastAdd {
    std::uint64_t queue_id = 0;  // 0: none (queue ids start at 1 and are never reused)
    std::uint64_t epoch = 0;     // inbox_epoch_ when the add was pushed
    std::size_t hash = 0;
    T item{};
  };
  static LastAdd& ThisThreadsLastAdd() {
    thread_local LastAdd last;
    return last;
  }

  // Appends one add to the inbox; returns the number of adds pending.
  std::size_t PushLocked(const T& item, std::size_t hash, Clock::TimePoint now)
      KUBE_REQUIRES(inbox_mu_) {
    if (inbox_size_ > 0) {
      // The inbox is applied in one go under mu_, so an add equal to the one just before it is
      // always a no-op (the item is dirty by then): drop it here.
      const Incoming& last = inbox_[inbox_size_ - 1];
      if (last.hash == hash && eq_(last.item, item)) return inbox_size_;
    }
    if (inbox_size_ == inbox_.size()) {
      inbox_.push_back(Incoming{item, hash, now});
    } else {
      Incoming& e = inbox_[inbox_size_];
      e.item = item;
      e.hash = hash;
      e.time = now;
    }
    ++inbox_size_;
    // Only "the inbox is not empty" matters to readers, so only the first add after a drain
    // stores the hint: a spinning Get polls it, and a store per add would pull its cache line
    // back and forth between the producer and the worker. (The handshake with Get still holds:
    // a later add finds an undrained earlier one, whose store a parking Get will see.)
    if (inbox_size_ == 1) inbox_hint_.store(1);  // seq_cst: see Get
    return inbox_size_;
  }

  // Applies adds under mu_ at once (queues with metrics). Returns false after shutdown.
  bool AddDirect(std::span<const T> items, const std::size_t* hashes, Clock::TimePoint now)
      KUBE_EXCLUDES(mu_, inbox_mu_) {
    int added = 0;
    bool wake = false;
    {
      internal::SpinLockGuard lock(mu_);
      if (shutting_down_) return false;
      added = DrainLocked();
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (AddLocked(items[i], hashes[i], now)) ++added;
      }
      wake = ClaimWakeLocked(!fifo_.empty());
    }
    if (wake) not_empty_.Signal();
    if (added > 0) metrics_.Added(added);
    return true;
  }

  // After adds were pushed: apply them now if the inbox is full or a Get must be woken.
  void AfterPush(std::size_t pending) KUBE_EXCLUDES(mu_, inbox_mu_) {
    if (pending < kInboxLimit && !wake_.load()) return;  // seq_cst: see Get
    int added = 0;
    bool wake = false;
    {
      internal::SpinLockGuard lock(mu_);
      added = DrainLocked();
      wake = ClaimWakeLocked(!fifo_.empty());
    }
    if (wake) not_empty_.Signal();
    if (added > 0) metrics_.Added(added);
  }

  // Applies the adds in the inbox, in call order; returns how many made an item dirty.
  int DrainLocked() KUBE_REQUIRES(mu_) KUBE_EXCLUDES(inbox_mu_) {
    // Relaxed is enough: an add that happened before this call is visible, and every earlier
    // drain finished under mu_.
    if (inbox_hint_.load(std::memory_order_relaxed) == 0) return 0;
    std::size_t n = 0;
    {
      internal::SpinLockGuard lock(inbox_mu_);
      n = inbox_size_;
      // Before the inbox is taken (seq_cst): see Add.
      inbox_epoch_.store(inbox_epoch_.load(std::memory_order_relaxed) + 1);
      inbox_.swap(drain_);
      inbox_size_ = 0;
      inbox_hint_.store(0, std::memory_order_relaxed);
    }
    int added = 0;
    for (std::size_t k = 0; k < n; ++k) {
      Incoming& e = drain_[k];
      if constexpr (requires(T& t) { t.clear(); }) {
        // Copied, not moved: the entry keeps its buffer (a string's capacity), which stays in
        // the producer's cache for the next add instead of being exchanged with a slot's
        // buffer last written by this worker. A new slot allocates only while the table grows.
        if (AddLocked(std::as_const(e.item), e.hash, e.time)) ++added;
      } else {
        if (AddLocked(std::move(e.item), e.hash, e.time)) ++added;
        e.item = T{};  // hold no resources
      }
    }
    return added;
  }

  // Closes the inbox, applies what it holds and marks the queue shut down.
  int CloseLocked() KUBE_REQUIRES(mu_) KUBE_EXCLUDES(inbox_mu_) {
    {
      internal::SpinLockGuard lock(inbox_mu_);
      inbox_closed_ = true;
    }
    const int added = DrainLocked();
    shutting_down_ = true;
    return added;
  }

  // Publishes whether a producer must wake a Get: one is parked without a wake-up on its way,
  // and no spinner will see the add.
  void UpdateWakeLocked() KUBE_REQUIRES(mu_) {
    const bool wake = waiting_gets_ > wakes_pending_ && spinning_gets_ == 0;
    // `false` is stored only when it changes: producers read the flag on every add, and a
    // store (even of the same value) takes their copy of the line away. `true` is always
    // stored: a parking Get's seq_cst store must precede its load of inbox_hint_ (see Get).
    if (wake || wake_.load(std::memory_order_relaxed)) wake_.store(wake);  // seq_cst
  }

  // When `have_items` and a parked Get needs a wake-up, books one (the caller signals
  // not_empty_ after unlocking) and returns true.
  bool ClaimWakeLocked(bool have_items) KUBE_REQUIRES(mu_) {
    if (!have_items || spinning_gets_ > 0 || waiting_gets_ <= wakes_pending_) return false;
    ++wakes_pending_;
    UpdateWakeLocked();
    return true;
  }

  // After a Get that spun on an empty queue: an item that came while it spun doubles the next
  // spin (a steady producer keeps its workers off the futex), one that had to sleep halves it
  // (an idle queue costs its workers about 20 us of spinning per wait).
  void AdaptGetSpin(int budget, bool parked) {
    const int next = parked ? std::max(budget / 2, kMinGetSpins)
                            : std::min(budget * 2, kMaxGetSpins);
    if (next != budget) get_spin_budget_.store(next, std::memory_order_relaxed);
  }

  void DoneImpl(const T& item, T* recycle) KUBE_EXCLUDES(mu_, inbox_mu_) {
    const std::size_t hash = hash_(item);
    const Clock::TimePoint now = metrics_.enabled() ? clock_.Now() : Clock::TimePoint();
    double work_seconds = -1;
    int added = 0;
    bool wake = false;
    bool drained = false;
    {
      internal::SpinLockGuard lock(mu_);
      // Adds that happened before this Done are applied first: an Add of this very item must
      // find it processing (and mark it dirty).
      added = DrainLocked();
      const std::uint32_t i = table_.Find(item, hash);
      if (i != Table::kNone && (table_[i].data.flags & kProcessing) != 0) {
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
          PublishQueuedLocked();
        } else {
          table_.Erase(i);
        }
        drained = processing_ == 0 && draining_;
        if (recycle != nullptr && spares_.size() < kMaxSpares) {
          spares_.push_back(std::move(*recycle));
        }
      }
      wake = ClaimWakeLocked(!fifo_.empty());
    }
    if (wake) not_empty_.Signal();
    if (drained) drained_.SignalAll();
    if (added > 0) metrics_.Added(added);
    if (work_seconds >= 0) metrics_.Finished(work_seconds);
  }

  void TakeLocked(std::optional<T>& out, double& queued_seconds) KUBE_REQUIRES(mu_) {
    const std::uint32_t i = fifo_.pop_front();
    PublishQueuedLocked();
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

  // Applies one add; returns true when the item became dirty (a counted add). A new item is
  // copied into a free slot (reusing its string capacity) or, when `item` is an rvalue, moved
  // there (a string's buffer is then exchanged with the slot's recycled one).
  template <class U>
  bool AddLocked(U&& item, std::size_t hash, Clock::TimePoint now) KUBE_REQUIRES(mu_) {
    std::uint32_t i = table_.Find(item, hash);
    if (i == Table::kNone) {
      i = table_.Insert(std::forward<U>(item), hash);
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
    PublishQueuedLocked();
    return true;
  }

  // Keeps queued_hint_ equal to !fifo_.empty(). Stored only when that changes: a spinning Get
  // polls the hint, and a store per Get would take its line from the spinner every time.
  void PublishQueuedLocked() KUBE_REQUIRES(mu_) {
    const bool queued = !fifo_.empty();
    if (queued_hint_.load(std::memory_order_relaxed) != queued) {
      queued_hint_.store(queued, std::memory_order_relaxed);
    }
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
  [[no_unique_address]] const KeyEqual eq_{};  // under inbox_mu_ (the last inbox entry)
  internal::QueueMetrics metrics_;

  // Lock order: mu_, then inbox_mu_. Producers take inbox_mu_ alone. Both are SpinLocks,
  // whose Unlock is a plain store (internal/spin_lock.hpp).
  mutable internal::SpinLock mu_;
  internal::SpinCondVar not_empty_;  // signalled when an item is queued or on shutdown
  // Signalled when processing_ drops to 0 while draining_, or on ShutDown.
  internal::SpinCondVar drained_;
  // Every tracked item is dirty, processing, or both. An item is in fifo_ iff it is dirty and
  // not processing; each slot number appears in fifo_ at most once.
  Table table_ KUBE_GUARDED_BY(mu_);
  internal::IndexRing fifo_ KUBE_GUARDED_BY(mu_);
  std::size_t processing_ KUBE_GUARDED_BY(mu_) = 0;
  std::vector<Times> times_ KUBE_GUARDED_BY(mu_);                     // metrics only
  std::vector<std::uint32_t> processing_list_ KUBE_GUARDED_BY(mu_);  // metrics only
  std::size_t waiting_gets_ KUBE_GUARDED_BY(mu_) = 0;  // Gets parked on not_empty_ (or about to)
  // Signals sent to parked Gets that have not run yet: a producer need not wake another.
  std::size_t wakes_pending_ KUBE_GUARDED_BY(mu_) = 0;
  // Gets spinning outside the lock on an empty queue (0 or 1): they re-check the queue under
  // the lock before parking, so an Add need not wake anyone while one spins.
  std::size_t spinning_gets_ KUBE_GUARDED_BY(mu_) = 0;
  std::vector<T> spares_ KUBE_GUARDED_BY(mu_);         // from Done(T&&), reused by Get
  std::vector<Incoming> drain_ KUBE_GUARDED_BY(mu_);   // the inbox buffer being applied
  bool shutting_down_ KUBE_GUARDED_BY(mu_) = false;
  bool draining_ KUBE_GUARDED_BY(mu_) = false;

  // The producers' side, on cache lines of its own (the workers' side above changes with
  // every Get and Done).
  alignas(64) mutable internal::SpinLock inbox_mu_;
  // Adds not yet applied: entries [0, inbox_size_) in call order; later entries are spare.
  std::vector<Incoming> inbox_ KUBE_GUARDED_BY(inbox_mu_);
  std::size_t inbox_size_ KUBE_GUARDED_BY(inbox_mu_) = 0;
  bool inbox_closed_ KUBE_GUARDED_BY(inbox_mu_) = false;  // set by ShutDown

  // Lock-free hints. Those a producer reads on every add (wake_, inbox_epoch_) share a line
  // that changes rarely; queued_hint_, which the workers write, has a line of its own.
  // The hints are stored under their locks.
  //
  // waiting_gets_ > wakes_pending_ && spinning_gets_ == 0: a producer must wake a Get.
  alignas(64) std::atomic<bool> wake_{false};
  std::atomic<std::size_t> inbox_hint_{0};  // inbox_size_ != 0
  // Incremented (under inbox_mu_) each time the inbox is taken: see Add.
  std::atomic<std::uint64_t> inbox_epoch_{0};
  std::atomic<int> get_spin_budget_{kMinGetSpins};  // see AdaptGetSpin
  // Identifies this queue in the threads' LastAdd (unique per queue type, never reused).
  inline static std::atomic<std::uint64_t> next_id_{1};
  const std::uint64_t id_ = next_id_.fetch_add(1, std::memory_order_relaxed);
  alignas(64) std::atomic<bool> queued_hint_{false};  // !fifo_.empty() (PublishQueuedLocked)
  std::jthread metrics_thread_;  // last: joined before the members it uses are destroyed
};

}  // namespace kube::workqueue
