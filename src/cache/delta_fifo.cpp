#include <kube/cache/delta_fifo.hpp>

#include <boost/unordered/unordered_flat_set.hpp>

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

std::string DeltaFifo::KeyOf(const Delta& d) const {
  if (d.tombstone) return d.tombstone->key;
  return KeyOfObject(*d.object);
}

Result<void> DeltaFifo::QueueActionLocked(DeltaType type, ObjectPtr obj,
                                          std::shared_ptr<const DeletedFinalStateUnknown> tombstone,
                                          std::string key) {
  auto [it, inserted] = items_.try_emplace(key);
  it->second.push_back(Delta{type, std::move(obj), std::move(tombstone)});
  DedupDeltas(it->second);
  if (inserted) queue_.push_back(std::move(key));
  cond_.SignalAll();
  return Ok();
}

Result<void> DeltaFifo::Add(const ObjectPtr& obj) {
  if (!obj) return BadRequest("DeltaFifo::Add: null object");
  MutexLock lock(mu_);
  populated_ = true;
  return QueueActionLocked(DeltaType::kAdded, obj, nullptr, KeyOfObject(*obj));
}

Result<void> DeltaFifo::Update(const ObjectPtr& obj) {
  if (!obj) return BadRequest("DeltaFifo::Update: null object");
  MutexLock lock(mu_);
  populated_ = true;
  return QueueActionLocked(DeltaType::kUpdated, obj, nullptr, KeyOfObject(*obj));
}

Result<void> DeltaFifo::Delete(const ObjectPtr& obj) {
  if (!obj) return BadRequest("DeltaFifo::Delete: null object");
  std::string key = KeyOfObject(*obj);
  MutexLock lock(mu_);
  populated_ = true;
  const bool queued = items_.contains(key);
  if (!queued) {
    // Nothing to delete: unknown to the queue and (when there is one) to the consumer's store.
    if (options_.known_objects == nullptr || options_.known_objects->GetByKey(key) == nullptr) {
      return Ok();
    }
  }
  return QueueActionLocked(DeltaType::kDeleted, obj, nullptr, std::move(key));
}

Result<void> DeltaFifo::Replace(const std::vector<ObjectPtr>& list, std::string_view /*resource_version*/) {
  MutexLock lock(mu_);
  const DeltaType action = options_.emit_replaced ? DeltaType::kReplaced : DeltaType::kSync;
  boost::unordered_flat_set<std::string> keys;
  keys.reserve(list.size());
  for (const auto& obj : list) {
    if (!obj) continue;
    std::string key = KeyOfObject(*obj);
    keys.insert(key);
    KUBE_RETURN_IF_ERROR(QueueActionLocked(action, obj, nullptr, std::move(key)));
  }

  // Deletion detection against queued items (a watch delete missed while disconnected).
  std::size_t queued_deletions = 0;
  std::vector<std::pair<std::string, ObjectPtr>> vanished;
  for (const auto& [key, deltas] : items_) {
    if (keys.contains(key)) continue;
    ObjectPtr last = deltas.empty() ? nullptr : deltas.back().object;
    vanished.emplace_back(key, std::move(last));
  }
  for (auto& [key, last] : vanished) {
    ++queued_deletions;
    auto tombstone = std::make_shared<const DeletedFinalStateUnknown>(DeletedFinalStateUnknown{key, last});
    KUBE_RETURN_IF_ERROR(QueueActionLocked(DeltaType::kDeleted, last, std::move(tombstone), key));
  }

  // And against the consumer's store, for keys with nothing queued.
  if (options_.known_objects != nullptr) {
    for (auto& key : options_.known_objects->ListKeys()) {
      if (keys.contains(key)) continue;
      if (auto it = items_.find(key); it != items_.end() && !it->second.empty()) continue;
      ObjectPtr last = options_.known_objects->GetByKey(key);
      ++queued_deletions;
      auto tombstone =
          std::make_shared<const DeletedFinalStateUnknown>(DeletedFinalStateUnknown{key, last});
      KUBE_RETURN_IF_ERROR(QueueActionLocked(DeltaType::kDeleted, last, std::move(tombstone), key));
    }
  }

  if (!populated_) {
    populated_ = true;
    initial_population_count_ = keys.size() + queued_deletions;
  }
  return Ok();
}

Result<void> DeltaFifo::Resync() {
  MutexLock lock(mu_);
  if (options_.known_objects == nullptr) return Ok();
  for (const auto& key : options_.known_objects->ListKeys()) {
    ObjectPtr obj = options_.known_objects->GetByKey(key);
    if (!obj) continue;
    std::string id = KeyOfObject(*obj);
    // An object with pending deltas will be delivered anyway; a Sync would reorder them.
    if (auto it = items_.find(id); it != items_.end() && !it->second.empty()) continue;
    KUBE_RETURN_IF_ERROR(QueueActionLocked(DeltaType::kSync, std::move(obj), nullptr, std::move(id)));
  }
  return Ok();
}

Result<Deltas> DeltaFifo::Pop(const ProcessFunc& process) {
  MutexLock lock(mu_);
  while (true) {
    while (queue_.empty()) {
      if (closed_) return CanceledError("DeltaFIFO: manipulating with closed queue");
      cond_.Wait(mu_);
    }
    const bool is_in_initial_list = !(populated_ && initial_population_count_ == 0);
    std::string key = std::move(queue_.front());
    queue_.pop_front();
    if (initial_population_count_ > 0) --initial_population_count_;
    auto it = items_.find(key);
    if (it == items_.end()) continue;  // cannot happen: a key is queued iff it has deltas
    Deltas deltas = std::move(it->second);
    items_.erase(it);
    if (items_.empty() && items_.bucket_count() > kShrinkBuckets) {
      // A drained FIFO gives back the table a big Replace grew (100k keys: ~7 MB), instead of
      // keeping it for the informer's whole life.
      items_ = decltype(items_)();
      queue_.shrink_to_fit();
    }
    // Called under the lock, by design (see the class comment).
    ProcessResult outcome = process(deltas, is_in_initial_list);
    if (outcome.requeue && !items_.contains(key)) {
      items_.emplace(key, deltas);
      queue_.push_back(key);
      cond_.SignalAll();
    }
    if (!outcome.status.ok()) return std::move(outcome.status).error();
    return deltas;
  }
}

void DeltaFifo::Close() {
  MutexLock lock(mu_);
  closed_ = true;
  cond_.SignalAll();
}

bool DeltaFifo::IsClosed() const {
  MutexLock lock(mu_);
  return closed_;
}

bool DeltaFifo::HasSynced() const {
  MutexLock lock(mu_);
  return populated_ && initial_population_count_ == 0;
}

std::vector<std::string> DeltaFifo::ListKeys() const {
  MutexLock lock(mu_);
  return std::vector<std::string>(queue_.begin(), queue_.end());
}

Deltas DeltaFifo::GetByKey(std::string_view key) const {
  MutexLock lock(mu_);
  auto it = items_.find(std::string(key));
  return it == items_.end() ? Deltas{} : it->second;
}

std::size_t DeltaFifo::Len() const {
  MutexLock lock(mu_);
  return queue_.size();
}

}  // namespace kube::cache
