#include "apiserver/storage/memory_storage.hpp"

#include <utility>

namespace kube::apiserver::internal {

MemoryStorage::MemoryStorage(const StorageOptions& options) : store_(options) {
  if (store_.options().compaction_interval > Clock::Duration::zero()) {
    compactor_.emplace(store_.clock(), store_.options().compaction_interval,
                       [this] { (void)Compact(CurrentRevision()); });
  }
}

MemoryStorage::~MemoryStorage() { compactor_.reset(); }

Result<Revision> MemoryStorage::Write(WriteOp op, std::string_view key, Revision expected,
                                      const ValueFn& make) {
  MutexLock lock(write_mu_);
  const std::optional<Version> latest = store_.Latest(key);
  const Revision revision = store_.Current() + 1;
  Result<Mutation> m =
      PlanWrite(op, key, expected, latest ? &*latest : nullptr, revision, make);
  if (!m.ok()) return std::move(m).error();
  store_.Publish(std::span<const Mutation>(&*m, 1));
  return revision;
}

Result<Revision> MemoryStorage::Create(std::string_view key, const ValueFn& make) {
  return Write(WriteOp::kCreate, key, 0, make);
}

Result<Revision> MemoryStorage::Update(std::string_view key, Revision expected,
                                       const ValueFn& make) {
  return Write(WriteOp::kUpdate, key, expected, make);
}

Result<Revision> MemoryStorage::Delete(std::string_view key, Revision expected,
                                       const ValueFn& make) {
  return Write(WriteOp::kDelete, key, expected, make);
}

Result<KeyValue> MemoryStorage::Get(std::string_view key, Revision revision) {
  return store_.Get(key, revision);
}

Result<ListResult> MemoryStorage::List(const ListRequest& request) { return store_.List(request); }

Result<std::unique_ptr<Watcher>> MemoryStorage::Watch(std::string_view prefix, Revision after) {
  return store_.Watch(prefix, after);
}

Revision MemoryStorage::CurrentRevision() { return store_.Current(); }

Revision MemoryStorage::CompactedRevision() { return store_.Compacted(); }

Revision MemoryStorage::Compact(Revision revision) { return store_.Compact(revision).point; }

MvccStore::Stats MemoryStorage::IndexStats() { return store_.GetStats(); }

}  // namespace kube::apiserver::internal

namespace kube::apiserver {

std::unique_ptr<Storage> NewMemoryStorage(StorageOptions options) {
  return std::make_unique<internal::MemoryStorage>(options);
}

}  // namespace kube::apiserver
