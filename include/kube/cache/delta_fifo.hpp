#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <span>
#include <string_view>
#include <vector>

#include <boost/container/deque.hpp>
#include <boost/container/options.hpp>
#include <boost/container/small_vector.hpp>
#include <boost/unordered/unordered_flat_set.hpp>

#include <kube/base/large_array_allocator.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/result.hpp>
#include <kube/cache/indexer.hpp>
#include <kube/core/object.hpp>

namespace kube::cache {

/// What happened to an object, as recorded by the DeltaFIFO.
enum class DeltaType { kAdded, kUpdated, kDeleted, kReplaced, kSync };

/// "Added", "Updated", "Deleted", "Replaced", "Sync".
std::string_view DeltaTypeName(DeltaType type);

/// One change. For a delete the reflector missed (a key that vanished during a relist),
/// `tombstone` is set (client-go's DeletedFinalStateUnknown) and `object` is the last state the
/// cache knew, which may be null.
struct Delta {
  DeltaType type = DeltaType::kAdded;
  ObjectPtr object;
  std::shared_ptr<const DeletedFinalStateUnknown> tombstone;

  /// True for a DeletedFinalStateUnknown delta.
  bool FinalStateUnknown() const { return tombstone != nullptr; }
};

/// The pending changes of one key, oldest first. A vector-like container that keeps one delta
/// inline (the common case: one change per key between two Pops) so that queueing a new key
/// allocates no delta storage.
using Deltas = boost::container::small_vector<Delta, 1>;

/// What the process function of `Pop` decided.
struct ProcessResult {
  Result<void> status;   ///< the processing outcome, returned by Pop
  bool requeue = false;  ///< put the deltas back (unless newer ones arrived meanwhile)
};

/// Called by Pop with the deltas of one key and whether they come from the initial list.
using ProcessFunc = std::function<ProcessResult(const Deltas& deltas, bool is_in_initial_list)>;

/// One key handed out by `DeltaFifo::PopBatch`: its deltas, whether they come from the initial
/// list, and the processing outcome the batch function records for it.
struct PoppedDeltas {
  Deltas deltas;  ///< never empty; `DeltaFifo::KeyOf(deltas)` is the key
  bool is_in_initial_list = false;
  ProcessResult result;  ///< set by the batch function; `requeue` is honoured as in Pop
};

/// Called by PopBatch, without the FIFO's lock, with the popped keys in queue order.
using BatchProcessFunc = std::function<void(std::span<PoppedDeltas> batch)>;

/// Options of DeltaFIFO.
struct DeltaFifoOptions {
  KeyFunc key_func{};  ///< default MetaNamespaceKeyFunc
  /// The store the consumer keeps (the informer's Indexer): used by Replace to detect deletions
  /// and by Resync. May be null (then only queued items are known). Must outlive the FIFO.
  const KeyListerGetter* known_objects = nullptr;
  /// Replace emits Replaced deltas (true, as informers use it) or Sync deltas (legacy).
  bool emit_replaced = true;
};

/// client-go's DeltaFIFO: a FIFO of keys, each with the list of its pending deltas. A key is in
/// the queue iff it has deltas. Two consecutive Deleted deltas collapse into one (keeping the
/// one that is not a tombstone). `Replace` adds Replaced for every listed object and a Deleted
/// DeletedFinalStateUnknown for every known key missing from the list. `Pop` hands the whole
/// delta list of the oldest key to the process function.
///
/// **Thread-safety:** all members may be called concurrently. `Pop` calls the process function
/// while holding the FIFO's lock (as client-go does) so that a concurrent Replace sees a
/// consistent KnownObjects; the process function must therefore be internal code that does not
/// call back into the FIFO or block (informers pass their delta handler, never user handlers).
/// `PopBatch` processes without the lock; while its batch is in flight, the members that read
/// KnownObjects (Delete, Replace, Resync) and other Pops wait for it, so they see the same
/// consistent state, and Add/Update proceed.
///
/// **The initial Replace** (nothing queued, popped or known yet) releases the lock every few
/// hundred objects, so that a consumer can pop the first objects while the rest are queued.
/// It has nothing to detect deletions against; HasSynced still waits for its last object. Keys
/// another writer adds meanwhile count as part of the initial population (is_in_initial_list).
class DeltaFifo final {
 public:
  explicit DeltaFifo(DeltaFifoOptions options = {});

  /// Queues an Added delta.
  Result<void> Add(const ObjectPtr& obj);
  /// Queues an Updated delta.
  Result<void> Update(const ObjectPtr& obj);
  /// Queues a Deleted delta, unless the key is unknown both to the queue and to KnownObjects.
  Result<void> Delete(const ObjectPtr& obj);
  /// Replaces the content with `list` (a relist at `resource_version`); see the class comment.
  Result<void> Replace(const std::vector<ObjectPtr>& list, std::string_view resource_version);
  /// As above, taking over the list's references (the objects are moved into the queue; `list`
  /// is left with null entries).
  Result<void> Replace(std::vector<ObjectPtr>&& list, std::string_view resource_version);
  /// Queues a Sync delta for every object in KnownObjects that has no pending delta.
  Result<void> Resync();

  /// Blocks until a key is queued (or the FIFO is closed), then removes it and calls `process`
  /// with its deltas. Returns the deltas and `process`'s status (an error status still returns
  /// the error). **Errors:** Canceled when the FIFO is closed and empty (items queued before
  /// Close are still handed out, as in client-go). **Blocks?** Until an item or Close.
  Result<Deltas> Pop(const ProcessFunc& process);
  /// Blocks like Pop, then removes up to `max` keys (oldest first) in one lock round trip and
  /// calls `process` once with all of them, without holding the FIFO's lock. Afterwards the keys
  /// whose result asks for `requeue` are put back (unless newer deltas arrived meanwhile), and
  /// HasSynced counts the batch as processed. One batch is in flight at a time. Returns the
  /// number of keys handed out; their statuses are in the batch. If `process` throws, the whole
  /// batch is put back at the front (keys queued again meanwhile keep their new deltas) and the
  /// exception propagates. **Errors:** BadRequest for `max` == 0; Canceled as Pop.
  /// **Blocks?** Until an item or Close.
  Result<std::size_t> PopBatch(std::size_t max, const BatchProcessFunc& process);
  /// Wakes blocked Pop calls with Canceled; later calls fail the same way.
  void Close();
  bool IsClosed() const;

  /// True once the first Replace (or any Add/Update/Delete before it) has been called and every
  /// item of that first batch has been popped.
  bool HasSynced() const;
  /// Keys with pending deltas, in queue order.
  std::vector<std::string> ListKeys() const;
  /// The pending deltas of `key` (empty if none).
  Deltas GetByKey(std::string_view key) const;
  /// Number of queued keys.
  std::size_t Len() const;
  /// The key of a non-empty delta list of this FIFO (as handed out by Pop and PopBatch): the
  /// tombstone's key for a DeletedFinalStateUnknown delta, else the KeyFunc of the object.
  /// **Errors:** none; an empty list (or one whose last delta has neither) gives "".
  std::string KeyOf(const Deltas& deltas) const;

 private:
  // One queued key. The key is not stored: it is derived from the deltas (the tombstone's key or
  // the object's), as the Indexer does, which saves a string and its allocation per queued key.
  // The hash of the key is kept, so that the key set grows and erases without reading objects.
  struct Entry {
    Deltas deltas;
    std::size_t hash = 0;       // std::hash<std::string_view> of the key
    uint64_t listed_epoch = 0;  // replace_epoch_ of the last Replace that listed this key
  };
  // An element of the key set: the entry and its key's hash. Two slots are equal only when they
  // are the same entry (a key is inserted only after a lookup missed).
  struct Slot {
    Entry* entry = nullptr;
    std::size_t hash = 0;
  };
  // A lookup by key, with the key's hash computed once.
  struct KeyProbe {
    std::string_view key;
    std::size_t hash = 0;
  };
  struct SlotHash {
    using is_transparent = void;
    std::size_t operator()(const Slot& s) const { return s.hash; }
    std::size_t operator()(const KeyProbe& p) const { return p.hash; }
  };
  struct SlotEq {
    using is_transparent = void;
    const DeltaFifo* fifo = nullptr;
    bool operator()(const Slot& a, const Slot& b) const { return a.entry == b.entry; }
    bool operator()(const Slot& a, const KeyProbe& b) const { return fifo->EntryHasKey(*a.entry, b.key); }
    bool operator()(const KeyProbe& a, const Slot& b) const { return fifo->EntryHasKey(*b.entry, a.key); }
  };
  // The key of `obj` as a view into `buf` (or into `*owned` when it does not fit).
  std::string_view KeyView(const Object& obj, char (&buf)[256], std::string* owned) const;
  // The key of a delta list as KeyView does (empty for an empty list).
  std::string_view DeltasKeyView(const Deltas& deltas, char (&buf)[256], std::string* owned) const;
  // True when the queued entry's key is `key`.
  bool EntryHasKey(const Entry& e, std::string_view key) const;
  static KeyProbe Probe(std::string_view key) { return KeyProbe{key, std::hash<std::string_view>{}(key)}; }
  Entry* FindLocked(const KeyProbe& key) const KUBE_REQUIRES(mu_);
  Entry& QueueActionLocked(DeltaType type, ObjectPtr obj,
                           std::shared_ptr<const DeletedFinalStateUnknown> tombstone,
                           const KeyProbe& key) KUBE_REQUIRES(mu_);
  void UpdateSyncedLocked() KUBE_REQUIRES(mu_);
  // client-go's hasSynced_locked: populated and every initial item popped (not counting an
  // initial Replace still being queued).
  bool PoppedInitialLocked() const KUBE_REQUIRES(mu_);
  // Spins briefly until an item may be queued (pop_ready_), before Pop/PopBatch take the lock.
  void SpinForItem() const;
  // Blocks until a key can be popped (queued, no batch in flight) or the FIFO is closed and empty.
  void WaitForItemLocked() KUBE_REQUIRES(mu_);
  // Blocks while a PopBatch batch is in flight.
  void WaitIdleLocked() KUBE_REQUIRES(mu_);
  // Removes the front entry; counts it against the initial population.
  void PopFrontLocked(Deltas& deltas, bool& is_in_initial_list, bool& counted) KUBE_REQUIRES(mu_);
  // Queues `deltas` (non-empty) again unless their key has been queued meanwhile (front or back).
  void RequeueLocked(Deltas deltas, bool at_front) KUBE_REQUIRES(mu_);
  // Replace's two forms: the initial one (chunked, see the class comment) and the general one.
  // `consume`: move the objects out of `list` instead of copying the references.
  Result<void> ReplaceImpl(std::vector<ObjectPtr>& list, bool consume);
  void ReplaceInitial(std::vector<ObjectPtr>& list, bool consume, DeltaType action);
  void ReplaceLocked(std::vector<ObjectPtr>& list, bool consume, DeltaType action) KUBE_REQUIRES(mu_);

  DeltaFifoOptions options_;
  mutable Mutex mu_;
  CondVar cond_;
  // The memory of queue_ and items_. Beyond 256 KiB of it in use (about 3,000 queued keys), it
  // comes from huge-page slabs: a 100k-object list would otherwise touch about 2,500 new small
  // pages (8 MB of entries, a 2 MB key set and its growth steps). A queue that drains gives its
  // slabs back, so the huge pages last only as long as the backlog.
  static constexpr std::size_t kHeapBytes = std::size_t{256} << 10;
  HugePageBlockPool pool_ KUBE_GUARDED_BY(mu_){kHeapBytes};
  // A deque with blocks of 256 entries (std::deque's are 512 bytes: 4 entries, one allocation per
  // 4 keys). A key is in queue_ iff it is in items_.
  static constexpr std::size_t kEntryBlock = 256;
  using EntryQueue = boost::container::deque<Entry, BlockPoolAllocator<Entry>,
                                             boost::container::deque_options_t<boost::container::block_size<kEntryBlock>>>;
  EntryQueue queue_ KUBE_GUARDED_BY(mu_){BlockPoolAllocator<Entry>(&pool_)};
  // The queued keys: one slot per entry of queue_ (a deque: only its ends change, so an entry
  // never moves while queued).
  using KeySet = boost::unordered_flat_set<Slot, SlotHash, SlotEq, BlockPoolAllocator<Slot>>;
  KeySet NewKeySet() { return KeySet(0, SlotHash{}, SlotEq{this}, BlockPoolAllocator<Slot>(&pool_)); }
  KeySet items_ KUBE_GUARDED_BY(mu_){NewKeySet()};
  uint64_t replace_epoch_ KUBE_GUARDED_BY(mu_) = 0;
  int waiters_ KUBE_GUARDED_BY(mu_) = 0;  // Pop calls blocked on cond_
  int idle_waiters_ KUBE_GUARDED_BY(mu_) = 0;  // calls blocked on cond_ in WaitIdleLocked
  bool in_flight_ KUBE_GUARDED_BY(mu_) = false;  // a PopBatch batch is being processed
  std::size_t in_flight_initial_ KUBE_GUARDED_BY(mu_) = 0;  // its items counted as initial
  std::size_t in_flight_size_ KUBE_GUARDED_BY(mu_) = 0;     // its items
  bool initial_replace_open_ KUBE_GUARDED_BY(mu_) = false;  // an initial Replace is queueing
  bool populated_ KUBE_GUARDED_BY(mu_) = false;
  std::size_t initial_population_count_ KUBE_GUARDED_BY(mu_) = 0;
  bool closed_ KUBE_GUARDED_BY(mu_) = false;
  // populated_ && initial_population_count_ == 0, readable without the lock (HasSynced is polled
  // by every handler registration and after each Pop).
  std::atomic<bool> synced_{false};
  // !queue_.empty() || closed_, readable without the lock: Pop spins on it briefly before it
  // parks (kPopSpin).
  std::atomic<bool> pop_ready_{false};
  // Pop/PopBatch calls waiting for mu_: the initial Replace lets them in between its chunks.
  std::atomic<int> pop_lock_waiters_{0};
  // Locks mu_ for Pop/PopBatch, counted in pop_lock_waiters_ while it waits.
  class KUBE_SCOPED_CAPABILITY ConsumerLock final {
   public:
    explicit ConsumerLock(DeltaFifo& fifo) KUBE_ACQUIRE(fifo.mu_) : mu_(fifo.mu_) {
      fifo.pop_lock_waiters_.fetch_add(1, std::memory_order_relaxed);
      mu_.Lock();
      fifo.pop_lock_waiters_.fetch_sub(1, std::memory_order_relaxed);
    }
    ~ConsumerLock() KUBE_RELEASE() { mu_.Unlock(); }
    ConsumerLock(const ConsumerLock&) = delete;
    ConsumerLock& operator=(const ConsumerLock&) = delete;

   private:
    Mutex& mu_;
  };
};

}  // namespace kube::cache
