#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

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

/// The pending changes of one key, oldest first.
using Deltas = std::vector<Delta>;

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
  std::string KeyOf(const Delta& d) const;
  std::string KeyOfObject(const Object& obj) const;
  Result<void> QueueActionLocked(DeltaType type, ObjectPtr obj,
                                 std::shared_ptr<const DeletedFinalStateUnknown> tombstone,
                                 std::string key) KUBE_REQUIRES(mu_);

  DeltaFifoOptions options_;
  mutable Mutex mu_;
  CondVar cond_;
  boost::unordered_flat_map<std::string, Deltas> items_ KUBE_GUARDED_BY(mu_);
  std::deque<std::string> queue_ KUBE_GUARDED_BY(mu_);  // a key is in queue_ iff it is in items_
  bool populated_ KUBE_GUARDED_BY(mu_) = false;
  std::size_t initial_population_count_ KUBE_GUARDED_BY(mu_) = 0;
  bool closed_ KUBE_GUARDED_BY(mu_) = false;
};

}  // namespace kube::cache
