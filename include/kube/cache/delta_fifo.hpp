#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/container/deque.hpp>
#include <boost/container/options.hpp>
#include <boost/container/small_vector.hpp>
#include <boost/unordered/unordered_flat_map.hpp>

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
  /// Queues a Sync delta for every object in KnownObjects that has no pending delta.
  Result<void> Resync();

  /// Blocks until a key is queued (or the FIFO is closed), then removes it and calls `process`
  /// with its deltas. Returns the deltas and `process`'s status (an error status still returns
  /// the error). **Errors:** Canceled when the FIFO is closed and empty (items queued before
  /// Close are still handed out, as in client-go). **Blocks?** Until an item or Close.
  Result<Deltas> Pop(const ProcessFunc& process);
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

 private:
  // One queued key. Entries live in `queue_` (a deque: only its ends change, so an entry never
  // moves while queued) and `items_` maps a view of the entry's own key to it.
  struct Entry {
    std::string key;
    Deltas deltas;
    uint64_t listed_epoch = 0;  // replace_epoch_ of the last Replace that listed this key
  };
  struct ViewHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // The key of `obj` as a view into `buf` (or into `*owned` when it does not fit).
  std::string_view KeyView(const Object& obj, char (&buf)[256], std::string* owned) const;
  std::string KeyOfObject(const Object& obj) const;
  Entry* FindLocked(std::string_view key) KUBE_REQUIRES(mu_);
  const Entry* FindLocked(std::string_view key) const KUBE_REQUIRES(mu_);
  Entry& QueueActionLocked(DeltaType type, ObjectPtr obj,
                           std::shared_ptr<const DeletedFinalStateUnknown> tombstone,
                           std::string_view key) KUBE_REQUIRES(mu_);
  void UpdateSyncedLocked() KUBE_REQUIRES(mu_);

  DeltaFifoOptions options_;
  mutable Mutex mu_;
  CondVar cond_;
  // A deque with blocks of 256 entries (std::deque's are 512 bytes: 4 entries, one allocation per
  // 4 keys). A key is in queue_ iff it is in items_.
  using EntryQueue =
      boost::container::deque<Entry, void, boost::container::deque_options_t<boost::container::block_size<256U>>>;
  EntryQueue queue_ KUBE_GUARDED_BY(mu_);
  boost::unordered_flat_map<std::string_view, Entry*, ViewHash, std::equal_to<>> items_ KUBE_GUARDED_BY(mu_);
  uint64_t replace_epoch_ KUBE_GUARDED_BY(mu_) = 0;
  int waiters_ KUBE_GUARDED_BY(mu_) = 0;  // Pop calls blocked on cond_
  bool populated_ KUBE_GUARDED_BY(mu_) = false;
  std::size_t initial_population_count_ KUBE_GUARDED_BY(mu_) = 0;
  bool closed_ KUBE_GUARDED_BY(mu_) = false;
  // populated_ && initial_population_count_ == 0, readable without the lock (HasSynced is polled
  // by every handler registration and after each Pop).
  std::atomic<bool> synced_{false};
  // !queue_.empty() || closed_, readable without the lock: Pop spins on it briefly before it
  // parks (kPopSpin).
  std::atomic<bool> pop_ready_{false};
};

}  // namespace kube::cache
