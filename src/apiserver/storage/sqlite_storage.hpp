#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <kube/apiserver/storage.hpp>
#include <kube/base/mutex.hpp>

#include "apiserver/storage/memory_storage.hpp"
#include "apiserver/storage/mvcc_store.hpp"
#include "apiserver/storage/sqlite_db.hpp"

namespace kube::apiserver::internal {

/// The durable engine behind `NewSqliteStorage` (design in docs/apiserver-storage.md).
///
/// SQLite is the append-only revision log (table `kube_log`, one row per revision, plus
/// `kube_meta` for the compaction point and the revision floor); reads and watches are served by
/// the same in-memory MvccStore as the memory engine, loaded from the table on open.
///
/// Write path (group commit): a writer takes `write_mu_`, checks its precondition against the
/// latest *pending or committed* version of its key, takes the next revision, builds the value,
/// queues itself and releases `write_mu_`; the committer thread writes every queued write in one
/// transaction (one fsync), then publishes them to the index and watchers, and only then
/// acknowledges the writers. If the transaction fails, its writes and every write queued behind
/// it (whose preconditions may depend on them) fail with 500 and never become visible.
/// **Thread-safety:** every member may be called concurrently.
class SqliteStorage final : public Storage, public EngineIntrospection {
  struct PassKey {};

 public:
  /// Opens or creates the database at `path`, loads it and starts the committer.
  /// **Errors:** 500 InternalError when the file cannot be opened, is not a kubecpp database,
  /// or cannot be read.
  static Result<std::unique_ptr<SqliteStorage>> Open(const std::string& path,
                                                     const StorageOptions& options);
  /// Use `Open`.
  SqliteStorage(PassKey, std::unique_ptr<SqliteDb> db, const StorageOptions& options);
  /// Completes the queued writes, then stops the committer and ends every watch.
  ~SqliteStorage() override;

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

  /// Group-commit counters.
  struct CommitStats {
    int64_t transactions = 0;         ///< committed transactions
    int64_t writes = 0;               ///< writes committed by them
    int64_t failed_transactions = 0;  ///< transactions that failed (their writes got 500)
  };
  /// The counters so far. **Thread-safety:** safe; the fields are read independently.
  CommitStats GetCommitStats() const;

  /// Test hook: the committer stops taking batches until `ResumeCommitsForTest`.
  void PauseCommitsForTest() KUBE_EXCLUDES(queue_mu_);
  /// Test hook: undoes `PauseCommitsForTest`.
  void ResumeCommitsForTest() KUBE_EXCLUDES(queue_mu_);
  /// Test hook: blocks until at least `n` writes wait for the committer, or `timeout` of real
  /// time passed. Returns whether they did.
  bool WaitForQueuedForTest(std::size_t n, std::chrono::milliseconds timeout)
      KUBE_EXCLUDES(queue_mu_);

 private:
  // One acknowledged-after-commit write, owned by the writer's stack frame.
  struct PendingWrite {
    // Handed to the committer when queued; only it touches the mutation afterwards.
    Mutation mutation;
    Mutex mu;
    CondVar cv;
    bool done KUBE_GUARDED_BY(mu) = false;
    std::optional<Error> error KUBE_GUARDED_BY(mu);
  };

  // The connection and its prepared statements (destroyed before `db`).
  struct Connection {
    std::unique_ptr<SqliteDb> db;
    SqliteStatement insert;
    SqliteStatement raise_max_revision;
    SqliteStatement raise_compact_revision;
    SqliteStatement delete_row;
  };

  Result<void> Load() KUBE_EXCLUDES(db_mu_, write_mu_);
  void Start();
  Result<Revision> Write(WriteOp op, std::string_view key, Revision expected, const ValueFn& make)
      KUBE_EXCLUDES(write_mu_, queue_mu_);
  void RunCommitter() KUBE_EXCLUDES(queue_mu_, db_mu_, write_mu_);
  void CommitBatch(const std::vector<PendingWrite*>& batch) KUBE_EXCLUDES(db_mu_, write_mu_);
  // One transaction for the whole batch; rolled back on any error.
  Result<void> WriteBatch(const std::vector<PendingWrite*>& batch) KUBE_REQUIRES(db_mu_);
  // Inserts the log row of `m` with the prepared `insert` statement.
  static Result<void> InsertRow(SqliteStatement& insert, const Mutation& m);
  // Binds `value` as the single parameter of `stmt` and runs it.
  static Result<void> RunWithInt(SqliteStatement& stmt, int64_t value);
  Result<void> DeleteRows(Revision compacted, const std::vector<Revision>& rows)
      KUBE_EXCLUDES(db_mu_);
  static void Complete(PendingWrite* pw, std::optional<Error> error);

  MvccStore store_;

  Mutex db_mu_;
  Connection conn_ KUBE_GUARDED_BY(db_mu_);

  // Serializes writers from the precondition check to queueing.
  Mutex write_mu_;  // acquired before queue_mu_ and before store_'s locks
  // The latest version of every key with a queued, not yet published write: writers check
  // preconditions against it first, then against the index.
  std::map<std::string, Version, std::less<>> pending_ KUBE_GUARDED_BY(write_mu_);
  Revision last_assigned_ KUBE_GUARDED_BY(write_mu_) = 0;  // >= store_.Current()

  Mutex queue_mu_;
  CondVar queue_cv_;  // signalled on enqueue, on pause changes and on stop
  std::deque<PendingWrite*> queue_ KUBE_GUARDED_BY(queue_mu_);  // ascending revisions
  bool paused_ KUBE_GUARDED_BY(queue_mu_) = false;
  bool stopping_ KUBE_GUARDED_BY(queue_mu_) = false;

  // Serializes compactions, so that the durable point only moves forward.
  Mutex compact_mu_;

  std::atomic<int64_t> transactions_{0};
  std::atomic<int64_t> writes_{0};
  std::atomic<int64_t> failed_transactions_{0};

  std::jthread committer_;                      // joined in the destructor
  std::optional<PeriodicCompactor> compactor_;  // last: stopped first
};

}  // namespace kube::apiserver::internal
