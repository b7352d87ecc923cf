#include <kube/cache/delta_fifo.hpp>

#include <algorithm>
#include <chrono>
#include <utility>

#include <kube/base/spin.hpp>

#include "store_key.hpp"

namespace kube::cache {

std::string_view DeltaTypeName(DeltaType type) {
  switch (type) {
    case DeltaType::kAdded: return "Added";
    case DeltaType::kUpdated: return "Updated";
    case DeltaType::kDeleted: return "Deleted";
    case DeltaType::kReplaced: return "Replaced";
    case DeltaType::kSync: return "Sync";
  }
  return "Unknown";
}

namespace {

// Bucket count above which a drained FIFO releases its table.
constexpr std::size_t kShrinkBuckets = 1024;
// How long Pop spins on an empty queue before it parks (see Pop).
constexpr std::chrono::microseconds kPopSpin{20};
// Objects the initial Replace queues per lock hold (see ReplaceInitial).
constexpr std::size_t kReplaceChunk = 512;
// How long the initial Replace waits, between two chunks, for a consumer waiting on the lock.
constexpr std::chrono::microseconds kHandoffSpin{200};

// Loops over objects that were not touched recently (a listed page, the queue) prefetch the
// headers of the object this many items ahead and the identities (name, namespace) of the one
// half as far: each object's key is computed from cold memory otherwise, one miss after another.
constexpr std::size_t kPrefetchAhead = 8;

void PrefetchListed(const std::vector<ObjectPtr>& list, std::size_t i) {
  if (i + kPrefetchAhead < list.size() && list[i + kPrefetchAhead]) {
    Object::PrefetchHeader(list[i + kPrefetchAhead].get());
  }
  if (i + kPrefetchAhead / 2 < list.size() && list[i + kPrefetchAhead / 2]) {
    list[i + kPrefetchAhead / 2]->PrefetchIdentity();
  }
}

// client-go dedupDeltas: two trailing Deleted deltas collapse; a real Deleted wins over a
// DeletedFinalStateUnknown one.
void DedupDeltas(Deltas& deltas) {
  const std::size_t n = deltas.size();
  if (n < 2) return;
  Delta& a = deltas[n - 2];
  Delta& b = deltas[n - 1];
  if (a.type != DeltaType::kDeleted || b.type != DeltaType::kDeleted) return;
  if (!b.FinalStateUnknown()) a = std::move(b);
  deltas.pop_back();
}

}  // namespace

DeltaFifo::DeltaFifo(DeltaFifoOptions options) : options_(std::move(options)) {}

std::string_view DeltaFifo::KeyView(const Object& obj, char (&buf)[256], std::string* owned) const {
  if (options_.key_func) {
    *owned = options_.key_func(obj);
    return *owned;
  }
  // MetaNamespaceKeyFunc without allocating: "ns/name" composed in the caller's buffer.
  const std::string_view ns = obj.Namespace();
  const std::string_view name = obj.Name();
  if (ns.empty()) return name;
  const std::size_t n = ns.size() + 1 + name.size();
  if (n > sizeof(buf)) {
    *owned = obj.Key();
    return *owned;
  }
  std::copy(ns.begin(), ns.end(), buf);
  buf[ns.size()] = '/';
  std::copy(name.begin(), name.end(), buf + ns.size() + 1);
  return {buf, n};
}

std::string_view DeltaFifo::DeltasKeyView(const Deltas& deltas, char (&buf)[256], std::string* owned) const {
  if (deltas.empty()) return {};
  const Delta& d = deltas.back();
  if (d.tombstone) return d.tombstone->key;
  if (!d.object) return {};
  return KeyView(*d.object, buf, owned);
}

std::string DeltaFifo::KeyOf(const Deltas& deltas) const {
  char buf[256];
  std::string owned;
  return std::string(DeltasKeyView(deltas, buf, &owned));
}

bool DeltaFifo::EntryHasKey(const Entry& e, std::string_view key) const {
  // Every delta of an entry has the entry's key; the last one is the newest.
  if (e.deltas.empty()) return false;
  const Delta& d = e.deltas.back();
  if (d.tombstone) return d.tombstone->key == key;
  if (!d.object) return false;
  if (options_.key_func) return options_.key_func(*d.object) == key;
  return internal::KeyPartsEqual(*d.object, key);
}

DeltaFifo::Entry* DeltaFifo::FindLocked(const KeyProbe& key) const {
  auto it = items_.find(key);
  return it == items_.end() ? nullptr : it->entry;
}

bool DeltaFifo::PoppedInitialLocked() const {
  return populated_ && initial_population_count_ == 0 && !initial_replace_open_;
}

void DeltaFifo::UpdateSyncedLocked() {
  // Synced once the last initial item is processed (in the consumer's store), not merely popped.
  synced_.store(PoppedInitialLocked() && in_flight_initial_ == 0, std::memory_order_release);
}

void DeltaFifo::WaitIdleLocked() {
  while (in_flight_) {
    ++idle_waiters_;
    cond_.Wait(mu_);
    --idle_waiters_;
  }
}

DeltaFifo::Entry& DeltaFifo::QueueActionLocked(DeltaType type, ObjectPtr obj,
                                               std::shared_ptr<const DeletedFinalStateUnknown> tombstone,
                                               const KeyProbe& key) {
  Entry* e = FindLocked(key);
  if (e == nullptr) {
    e = &queue_.emplace_back();
    e->hash = key.hash;
    items_.insert(Slot{e, key.hash});
    pop_ready_.store(true, std::memory_order_relaxed);
    // Pop waits only while the queue is empty or a batch is in flight; only a new key (or the
    // batch's end, which signals itself) can be what it waits for.
    if (waiters_ > 0) cond_.SignalAll();
  }
  e->deltas.push_back(Delta{type, std::move(obj), std::move(tombstone)});
  DedupDeltas(e->deltas);
  return *e;
}

Result<void> DeltaFifo::Add(const ObjectPtr& obj) {
  if (!obj) return BadRequest("DeltaFifo::Add: null object");
  char buf[256];
  std::string owned;
  SpinMutexLock lock(mu_);  // Pop holds mu_ for a few µs while it processes: spin, not park
  populated_ = true;
  UpdateSyncedLocked();
  QueueActionLocked(DeltaType::kAdded, obj, nullptr, Probe(KeyView(*obj, buf, &owned)));
  return Ok();
}

Result<void> DeltaFifo::Update(const ObjectPtr& obj) {
  if (!obj) return BadRequest("DeltaFifo::Update: null object");
  char buf[256];
  std::string owned;
  SpinMutexLock lock(mu_);  // Pop holds mu_ for a few µs while it processes: spin, not park
  populated_ = true;
  UpdateSyncedLocked();
  QueueActionLocked(DeltaType::kUpdated, obj, nullptr, Probe(KeyView(*obj, buf, &owned)));
  return Ok();
}

Result<void> DeltaFifo::Delete(const ObjectPtr& obj) {
  if (!obj) return BadRequest("DeltaFifo::Delete: null object");
  char buf[256];
  std::string owned;
  const KeyProbe key = Probe(KeyView(*obj, buf, &owned));
  SpinMutexLock lock(mu_);
  // An object in a batch being processed is in neither the queue nor KnownObjects yet.
  WaitIdleLocked();
  populated_ = true;
  UpdateSyncedLocked();
  if (FindLocked(key) == nullptr) {
    // Nothing to delete: unknown to the queue and (when there is one) to the consumer's store.
    if (options_.known_objects == nullptr || options_.known_objects->GetByKey(key.key) == nullptr) {
      return Ok();
    }
  }
  QueueActionLocked(DeltaType::kDeleted, obj, nullptr, key);
  return Ok();
}

Result<void> DeltaFifo::Replace(const std::vector<ObjectPtr>& list, std::string_view /*resource_version*/) {
  // Not consumed: the const_cast only lets both forms share one implementation.
  return ReplaceImpl(const_cast<std::vector<ObjectPtr>&>(list), /*consume=*/false);
}

Result<void> DeltaFifo::Replace(std::vector<ObjectPtr>&& list, std::string_view /*resource_version*/) {
  return ReplaceImpl(list, /*consume=*/true);
}

Result<void> DeltaFifo::ReplaceImpl(std::vector<ObjectPtr>& list, bool consume) {
  const DeltaType action = options_.emit_replaced ? DeltaType::kReplaced : DeltaType::kSync;
  {
    MutexLock lock(mu_);
    // One Replace at a time, and none while a batch is in flight (its keys are in neither the
    // queue nor KnownObjects).
    while (in_flight_ || initial_replace_open_) {
      ++idle_waiters_;
      cond_.Wait(mu_);
      --idle_waiters_;
    }
    const bool initial = !populated_ && !initial_replace_open_ && queue_.empty() && list.size() > kReplaceChunk &&
                         (options_.known_objects == nullptr || options_.known_objects->Empty());
    if (!initial) {
      ReplaceLocked(list, consume, action);
      return Ok();
    }
    initial_replace_open_ = true;
    items_.reserve(list.size());
  }
  ReplaceInitial(list, consume, action);
  return Ok();
}

void DeltaFifo::ReplaceInitial(std::vector<ObjectPtr>& list, bool consume, DeltaType action) {
  // Nothing is queued, popped or known: there are no deletions to detect (a key popped while
  // the lock is released in between chunks was listed here or added concurrently), and no entry
  // needs the epoch stamp, which only the deletion detection of a later Replace reads.
  char buf[256];
  std::string owned;
  for (std::size_t begin = 0; begin < list.size(); begin += kReplaceChunk) {
    const std::size_t end = std::min(list.size(), begin + kReplaceChunk);
    {
      SpinMutexLock lock(mu_);
      for (std::size_t i = begin; i < end; ++i) {
        PrefetchListed(list, i);
        if (!list[i]) continue;
        const KeyProbe key = Probe(KeyView(*list[i], buf, &owned));
        ObjectPtr obj = consume ? std::move(list[i]) : list[i];
        QueueActionLocked(action, std::move(obj), nullptr, key);
      }
    }
    // A mutex is not fair: re-locking at once would keep a waiting consumer out until the whole
    // list is queued. Let it take its batch first (it announces itself in pop_lock_waiters_).
    if (pop_lock_waiters_.load(std::memory_order_relaxed) > 0) {
      SpinFor(kHandoffSpin, [this] { return pop_lock_waiters_.load(std::memory_order_relaxed) == 0; });
    }
  }
  MutexLock lock(mu_);
  populated_ = true;
  // Everything still queued is the initial population, including keys another writer added
  // while the list was being queued (they are interleaved with it: counting only the listed
  // keys would let HasSynced turn true before the last of them is processed).
  initial_population_count_ = queue_.size();
  // So is a batch popped while the list was being queued and still being processed (the
  // consumer may have taken the whole last chunk): HasSynced waits for it too.
  if (in_flight_) in_flight_initial_ = in_flight_size_;
  initial_replace_open_ = false;
  UpdateSyncedLocked();
  if (idle_waiters_ > 0) cond_.SignalAll();
}

void DeltaFifo::ReplaceLocked(std::vector<ObjectPtr>& list, bool consume, DeltaType action) {
  // Listed keys are marked with this Replace's epoch instead of being collected in a set.
  const uint64_t epoch = ++replace_epoch_;
  std::size_t listed = 0;  // distinct listed keys
  // One allocation of the key map instead of a doubling series (each step a rehash into new
  // memory; on a VM where a first touch of a page costs microseconds, that is most of a cold
  // Replace's cost beyond the entries themselves).
  items_.reserve(items_.size() + list.size());
  char buf[256];
  std::string owned;
  for (std::size_t i = 0; i < list.size(); ++i) {
    PrefetchListed(list, i);
    ObjectPtr& item = list[i];
    if (!item) continue;
    const KeyProbe key = Probe(KeyView(*item, buf, &owned));
    ObjectPtr obj = consume ? std::move(item) : item;
    Entry& e = QueueActionLocked(action, std::move(obj), nullptr, key);
    if (e.listed_epoch != epoch) {
      e.listed_epoch = epoch;
      ++listed;
    }
  }

  // Deletion detection against queued items (a watch delete missed while disconnected). A
  // queued key gets its tombstone appended in place (no new entry, so iterating is safe).
  std::size_t queued_deletions = 0;
  for (Entry& e : queue_) {
    if (e.listed_epoch == epoch) continue;
    ObjectPtr last = e.deltas.empty() ? nullptr : e.deltas.back().object;
    ++queued_deletions;
    auto tombstone = std::make_shared<const DeletedFinalStateUnknown>(
        DeletedFinalStateUnknown{std::string(DeltasKeyView(e.deltas, buf, &owned)), last});
    e.deltas.push_back(Delta{DeltaType::kDeleted, std::move(last), std::move(tombstone)});
    DedupDeltas(e.deltas);
  }

  // And against the consumer's store, for keys with nothing queued (every queued key is either
  // listed or has just been given a tombstone).
  if (options_.known_objects != nullptr) {
    for (auto& key : options_.known_objects->ListKeys()) {
      const KeyProbe probe = Probe(key);
      if (FindLocked(probe) != nullptr) continue;
      ObjectPtr last = options_.known_objects->GetByKey(key);
      ++queued_deletions;
      auto tombstone =
          std::make_shared<const DeletedFinalStateUnknown>(DeletedFinalStateUnknown{key, last});
      // The probe's view stays valid: `key` outlives the call (the tombstone holds a copy).
      QueueActionLocked(DeltaType::kDeleted, std::move(last), std::move(tombstone), probe);
    }
  }

  if (!populated_) {
    populated_ = true;
    initial_population_count_ = listed + queued_deletions;
    UpdateSyncedLocked();
  }
}

Result<void> DeltaFifo::Resync() {
  MutexLock lock(mu_);
  // A key in a batch being processed must not be resynced from its stale stored state.
  WaitIdleLocked();
  if (options_.known_objects == nullptr) return Ok();
  char buf[256];
  std::string owned;
  for (const auto& key : options_.known_objects->ListKeys()) {
    ObjectPtr obj = options_.known_objects->GetByKey(key);
    if (!obj) continue;
    const KeyProbe id = Probe(KeyView(*obj, buf, &owned));
    // An object with pending deltas will be delivered anyway; a Sync would reorder them.
    if (FindLocked(id) != nullptr) continue;
    QueueActionLocked(DeltaType::kSync, std::move(obj), nullptr, id);
  }
  return Ok();
}

void DeltaFifo::PopFrontLocked(Deltas& deltas, bool& is_in_initial_list, bool& counted) {
  is_in_initial_list = !PoppedInitialLocked();
  // The consumer reads the popped objects (their keys, for its store): start loading the next
  // ones.
  if (queue_.size() > kPrefetchAhead) {
    const Entry& ahead = queue_[kPrefetchAhead];
    if (!ahead.deltas.empty() && ahead.deltas.back().object) Object::PrefetchHeader(ahead.deltas.back().object.get());
  }
  if (queue_.size() > kPrefetchAhead / 2) {
    const Entry& ahead = queue_[kPrefetchAhead / 2];
    if (!ahead.deltas.empty() && ahead.deltas.back().object) ahead.deltas.back().object->PrefetchIdentity();
  }
  Entry& front = queue_.front();
  items_.erase(Slot{&front, front.hash});
  deltas = std::move(front.deltas);
  queue_.pop_front();
  counted = initial_population_count_ > 0;
  if (counted) --initial_population_count_;
  if (queue_.empty() && !closed_) pop_ready_.store(false, std::memory_order_relaxed);
  if (items_.empty() && items_.bucket_count() > kShrinkBuckets) {
    // A drained FIFO gives back the table a big Replace grew, instead of keeping it for the
    // informer's whole life.
    items_ = NewKeySet();
    queue_.shrink_to_fit();
  }
}

void DeltaFifo::RequeueLocked(Deltas deltas, bool at_front) {
  char buf[256];
  std::string owned;
  const KeyProbe key = Probe(DeltasKeyView(deltas, buf, &owned));
  if (FindLocked(key) != nullptr) return;  // newer deltas arrived meanwhile: they win
  Entry& e = at_front ? queue_.emplace_front() : queue_.emplace_back();
  e.deltas = std::move(deltas);
  e.hash = key.hash;
  items_.insert(Slot{&e, key.hash});
  pop_ready_.store(true, std::memory_order_relaxed);
  if (waiters_ > 0) cond_.SignalAll();
}

void DeltaFifo::WaitForItemLocked() {
  while ((queue_.empty() && !closed_) || (!queue_.empty() && in_flight_)) {
    ++waiters_;
    // Counted as waiting for the lock while parked: once signalled, it is (see ReplaceInitial).
    pop_lock_waiters_.fetch_add(1, std::memory_order_relaxed);
    cond_.Wait(mu_);
    pop_lock_waiters_.fetch_sub(1, std::memory_order_relaxed);
    --waiters_;
  }
}

void DeltaFifo::SpinForItem() const {
  // A consumer that drains faster than its producer adds would otherwise park after every
  // item and need a cross-CPU wake-up for the next one (costly on small VMs); a short spin
  // usually sees the next item arrive, and a Pop that is not parked needs no signal.
  if (!pop_ready_.load(std::memory_order_relaxed)) {
    SpinFor(kPopSpin, [this] { return pop_ready_.load(std::memory_order_relaxed); });
  }
}

Result<Deltas> DeltaFifo::Pop(const ProcessFunc& process) {
  SpinForItem();
  ConsumerLock lock(*this);
  WaitForItemLocked();
  if (queue_.empty()) return CanceledError("DeltaFIFO: manipulating with closed queue");
  Deltas deltas;
  bool is_in_initial_list = false;
  bool counted = false;
  PopFrontLocked(deltas, is_in_initial_list, counted);
  // Called under the lock, by design (see the class comment).
  ProcessResult outcome = process(deltas, is_in_initial_list);
  // Synced only once the last initial item is processed (in the store): HasSynced reads the
  // flag without the lock, so it must not turn true while `process` still runs.
  if (counted) UpdateSyncedLocked();
  if (outcome.requeue) RequeueLocked(deltas, /*at_front=*/false);
  if (!outcome.status.ok()) return std::move(outcome.status).error();
  return deltas;
}

Result<std::size_t> DeltaFifo::PopBatch(std::size_t max, const BatchProcessFunc& process) {
  if (max == 0) return BadRequest("DeltaFifo::PopBatch: max must be positive");
  SpinForItem();
  std::vector<PoppedDeltas> batch;
  std::size_t counted = 0;  // items counted against the initial population
  {
    ConsumerLock lock(*this);
    WaitForItemLocked();
    if (queue_.empty()) return CanceledError("DeltaFIFO: manipulating with closed queue");
    batch.resize(std::min(max, queue_.size()));
    for (PoppedDeltas& p : batch) {
      bool c = false;
      PopFrontLocked(p.deltas, p.is_in_initial_list, c);
      if (c) ++counted;
    }
    in_flight_ = true;
    in_flight_initial_ = counted;
    in_flight_size_ = batch.size();
  }
  // Ends the batch even when `process` throws: then every item goes back, at the front.
  struct Finish {
    DeltaFifo& fifo;
    std::vector<PoppedDeltas>& batch;
    bool completed = false;
    ~Finish() {
      ConsumerLock lock(fifo);
      fifo.in_flight_ = false;
      const std::size_t initial = std::exchange(fifo.in_flight_initial_, 0);
      if (completed) {
        for (PoppedDeltas& p : batch) {
          if (p.result.requeue) fifo.RequeueLocked(p.deltas, /*at_front=*/false);
        }
      } else {
        for (auto it = batch.rbegin(); it != batch.rend(); ++it) {
          fifo.RequeueLocked(std::move(it->deltas), /*at_front=*/true);
        }
        // Back in the queue, so still to be processed before HasSynced.
        fifo.initial_population_count_ += initial;
      }
      fifo.UpdateSyncedLocked();
      if (fifo.waiters_ > 0 || fifo.idle_waiters_ > 0) fifo.cond_.SignalAll();
    }
  } finish{*this, batch};
  process(std::span<PoppedDeltas>(batch));
  finish.completed = true;
  return batch.size();
}

void DeltaFifo::Close() {
  MutexLock lock(mu_);
  closed_ = true;
  pop_ready_.store(true, std::memory_order_relaxed);
  cond_.SignalAll();
}

bool DeltaFifo::IsClosed() const {
  MutexLock lock(mu_);
  return closed_;
}

bool DeltaFifo::HasSynced() const { return synced_.load(std::memory_order_acquire); }

std::vector<std::string> DeltaFifo::ListKeys() const {
  MutexLock lock(mu_);
  std::vector<std::string> keys;
  keys.reserve(queue_.size());
  for (const Entry& e : queue_) keys.push_back(KeyOf(e.deltas));
  return keys;
}

Deltas DeltaFifo::GetByKey(std::string_view key) const {
  MutexLock lock(mu_);
  const Entry* e = FindLocked(Probe(key));
  return e == nullptr ? Deltas{} : e->deltas;
}

std::size_t DeltaFifo::Len() const {
  MutexLock lock(mu_);
  return queue_.size();
}

}  // namespace kube::cache
