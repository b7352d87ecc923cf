#include <kube/cache/delta_fifo.hpp>

#include <algorithm>
#include <chrono>

#include <kube/base/spin.hpp>

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

std::string DeltaFifo::KeyOfObject(const Object& obj) const {
  return options_.key_func ? options_.key_func(obj) : obj.Key();
}

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

DeltaFifo::Entry* DeltaFifo::FindLocked(std::string_view key) {
  auto it = items_.find(key);
  return it == items_.end() ? nullptr : it->second;
}

const DeltaFifo::Entry* DeltaFifo::FindLocked(std::string_view key) const {
  auto it = items_.find(key);
  return it == items_.end() ? nullptr : it->second;
}

void DeltaFifo::UpdateSyncedLocked() {
  synced_.store(populated_ && initial_population_count_ == 0, std::memory_order_release);
}

DeltaFifo::Entry& DeltaFifo::QueueActionLocked(DeltaType type, ObjectPtr obj,
                                               std::shared_ptr<const DeletedFinalStateUnknown> tombstone,
                                               std::string_view key) {
  Entry* e = FindLocked(key);
  if (e == nullptr) {
    e = &queue_.emplace_back();
    e->key.assign(key.data(), key.size());
    items_.emplace(std::string_view(e->key), e);
    pop_ready_.store(true, std::memory_order_relaxed);
    // Pop waits only while the queue is empty, so only a new key can be the one it waits for.
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
  QueueActionLocked(DeltaType::kAdded, obj, nullptr, KeyView(*obj, buf, &owned));
  return Ok();
}

Result<void> DeltaFifo::Update(const ObjectPtr& obj) {
  if (!obj) return BadRequest("DeltaFifo::Update: null object");
  char buf[256];
  std::string owned;
  SpinMutexLock lock(mu_);  // Pop holds mu_ for a few µs while it processes: spin, not park
  populated_ = true;
  UpdateSyncedLocked();
  QueueActionLocked(DeltaType::kUpdated, obj, nullptr, KeyView(*obj, buf, &owned));
  return Ok();
}

Result<void> DeltaFifo::Delete(const ObjectPtr& obj) {
  if (!obj) return BadRequest("DeltaFifo::Delete: null object");
  char buf[256];
  std::string owned;
  const std::string_view key = KeyView(*obj, buf, &owned);
  SpinMutexLock lock(mu_);
  populated_ = true;
  UpdateSyncedLocked();
  if (FindLocked(key) == nullptr) {
    // Nothing to delete: unknown to the queue and (when there is one) to the consumer's store.
    if (options_.known_objects == nullptr || options_.known_objects->GetByKey(key) == nullptr) {
      return Ok();
    }
  }
  QueueActionLocked(DeltaType::kDeleted, obj, nullptr, key);
  return Ok();
}

Result<void> DeltaFifo::Replace(const std::vector<ObjectPtr>& list, std::string_view /*resource_version*/) {
  MutexLock lock(mu_);
  const DeltaType action = options_.emit_replaced ? DeltaType::kReplaced : DeltaType::kSync;
  // Listed keys are marked with this Replace's epoch instead of being collected in a set.
  const uint64_t epoch = ++replace_epoch_;
  std::size_t listed = 0;  // distinct listed keys
  // One allocation of the key map instead of a doubling series (each step a rehash into new
  // memory; on a VM where a first touch of a page costs microseconds, that is most of a cold
  // Replace's cost beyond the entries themselves).
  items_.reserve(items_.size() + list.size());
  char buf[256];
  std::string owned;
  for (const auto& obj : list) {
    if (!obj) continue;
    Entry& e = QueueActionLocked(action, obj, nullptr, KeyView(*obj, buf, &owned));
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
    auto tombstone = std::make_shared<const DeletedFinalStateUnknown>(DeletedFinalStateUnknown{e.key, last});
    e.deltas.push_back(Delta{DeltaType::kDeleted, std::move(last), std::move(tombstone)});
    DedupDeltas(e.deltas);
  }

  // And against the consumer's store, for keys with nothing queued (every queued key is either
  // listed or has just been given a tombstone).
  if (options_.known_objects != nullptr) {
    for (auto& key : options_.known_objects->ListKeys()) {
      if (FindLocked(key) != nullptr) continue;
      ObjectPtr last = options_.known_objects->GetByKey(key);
      ++queued_deletions;
      auto tombstone =
          std::make_shared<const DeletedFinalStateUnknown>(DeletedFinalStateUnknown{key, last});
      QueueActionLocked(DeltaType::kDeleted, std::move(last), std::move(tombstone), key);
    }
  }

  if (!populated_) {
    populated_ = true;
    initial_population_count_ = listed + queued_deletions;
    UpdateSyncedLocked();
  }
  return Ok();
}

Result<void> DeltaFifo::Resync() {
  MutexLock lock(mu_);
  if (options_.known_objects == nullptr) return Ok();
  char buf[256];
  std::string owned;
  for (const auto& key : options_.known_objects->ListKeys()) {
    ObjectPtr obj = options_.known_objects->GetByKey(key);
    if (!obj) continue;
    const std::string_view id = KeyView(*obj, buf, &owned);
    // An object with pending deltas will be delivered anyway; a Sync would reorder them.
    if (FindLocked(id) != nullptr) continue;
    QueueActionLocked(DeltaType::kSync, std::move(obj), nullptr, id);
  }
  return Ok();
}

Result<Deltas> DeltaFifo::Pop(const ProcessFunc& process) {
  // A consumer that drains faster than its producer adds would otherwise park after every
  // item and need a cross-CPU wake-up for the next one (costly on small VMs); a short spin
  // usually sees the next item arrive, and a Pop that is not parked needs no signal.
  if (!pop_ready_.load(std::memory_order_relaxed)) {
    SpinFor(kPopSpin, [this] { return pop_ready_.load(std::memory_order_relaxed); });
  }
  MutexLock lock(mu_);
  while (queue_.empty()) {
    if (closed_) return CanceledError("DeltaFIFO: manipulating with closed queue");
    ++waiters_;
    cond_.Wait(mu_);
    --waiters_;
  }
  const bool is_in_initial_list = !(populated_ && initial_population_count_ == 0);
  Entry& front = queue_.front();
  items_.erase(std::string_view(front.key));
  std::string key = std::move(front.key);
  Deltas deltas = std::move(front.deltas);
  queue_.pop_front();
  if (queue_.empty() && !closed_) pop_ready_.store(false, std::memory_order_relaxed);
  const bool counted = initial_population_count_ > 0;
  if (counted) --initial_population_count_;
  if (items_.empty() && items_.bucket_count() > kShrinkBuckets) {
    // A drained FIFO gives back the table a big Replace grew, instead of keeping it for the
    // informer's whole life.
    items_ = decltype(items_)();
    queue_.shrink_to_fit();
  }
  // Called under the lock, by design (see the class comment).
  ProcessResult outcome = process(deltas, is_in_initial_list);
  // Synced only once the last initial item is processed (in the store): HasSynced reads the
  // flag without the lock, so it must not turn true while `process` still runs.
  if (counted) UpdateSyncedLocked();
  if (outcome.requeue && FindLocked(key) == nullptr) {
    Entry& e = queue_.emplace_back();
    e.key = std::move(key);
    e.deltas = deltas;
    items_.emplace(std::string_view(e.key), &e);
    pop_ready_.store(true, std::memory_order_relaxed);
    if (waiters_ > 0) cond_.SignalAll();
  }
  if (!outcome.status.ok()) return std::move(outcome.status).error();
  return deltas;
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
  for (const Entry& e : queue_) keys.push_back(e.key);
  return keys;
}

Deltas DeltaFifo::GetByKey(std::string_view key) const {
  MutexLock lock(mu_);
  const Entry* e = FindLocked(key);
  return e == nullptr ? Deltas{} : e->deltas;
}

std::size_t DeltaFifo::Len() const {
  MutexLock lock(mu_);
  return queue_.size();
}

}  // namespace kube::cache
