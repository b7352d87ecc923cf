#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include <kube/apiserver/storage.hpp>
#include <kube/base/mutex.hpp>

#include "apiserver/storage/mvcc_store.hpp"

namespace kube::apiserver::internal {

/// Introspection both engines offer to tests and metrics (reach it with dynamic_cast from a
/// `Storage*`). **Thread-safety:** may be called concurrently with everything else.
class EngineIntrospection {
 public:
  virtual ~EngineIntrospection() = default;
  /// Sizes of the in-memory index.
  virtual MvccStore::Stats IndexStats() = 0;
};

/// The in-memory engine behind `NewMemoryStorage`: writers are serialized by `write_mu_`, check
/// their precondition against the index, build the value and publish at once.
/// **Thread-safety:** every member may be called concurrently.
class MemoryStorage final : public Storage, public EngineIntrospection {
 public:
  /// See `NewMemoryStorage`.
  explicit MemoryStorage(const StorageOptions& options);
  ~MemoryStorage() override;

  Result<Revision> Create(std::string_view key, const ValueFn& make) override;
  Result<Revision> Update(std::string_view key, Revision expected, const ValueFn& make) override;
  Result<Revision> Delete(std::string_view key, Revision expected, const ValueFn& make) override;
  Result<KeyValue> Get(std::string_view key, Revision revision) override;
  Result<ListResult> List(const ListRequest& request) override;
  Result<std::unique_ptr<Watcher>> Watch(std::string_view prefix, Revision after) override;
  Revision CurrentRevision() override;
  Revision CompactedRevision() override;
  Revision Compact(Revision revision) override;
  MvccStore::Stats IndexStats() override;

 private:
  Result<Revision> Write(WriteOp op, std::string_view key, Revision expected,
                         const ValueFn& make) KUBE_EXCLUDES(write_mu_);

  MvccStore store_;
  // Serializes writers from the precondition check to publication, so that the revision a
  // writer computes (current + 1) is the one it commits at.
  Mutex write_mu_;
  std::optional<PeriodicCompactor> compactor_;  // last: stopped before store_ goes away
};

}  // namespace kube::apiserver::internal
