#include "apiserver/storage/sqlite_storage.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include <kube/base/log.hpp>

#include "apiserver/storage/storage_errors.hpp"

namespace kube::apiserver::internal {
namespace {

// "kube" in ASCII: marks a file as a kubecpp storage database.
constexpr int64_t kApplicationId = 0x6B756265;
constexpr int64_t kSchemaVersion = 1;
// Writes per transaction at most: bounds a transaction's size when thousands of writers queue.
constexpr std::size_t kMaxBatch = 1024;
// Rows deleted per compaction transaction: bounds how long compaction holds the connection.
constexpr std::size_t kDeleteChunk = 4096;

constexpr std::string_view kSchema = R"sql(
BEGIN IMMEDIATE;
CREATE TABLE kube_log (
  id INTEGER PRIMARY KEY,           -- the revision
  name TEXT NOT NULL,               -- the key
  created INTEGER NOT NULL,         -- 1 if this write created the key
  deleted INTEGER NOT NULL,         -- 1 for a delete tombstone
  create_revision INTEGER NOT NULL, -- the revision that created this incarnation
  prev_revision INTEGER NOT NULL,   -- the key's previous row, 0 if none
  value BLOB NOT NULL               -- the value; for a tombstone, the last state
);
CREATE TABLE kube_meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO kube_meta VALUES ('schema_version', 1), ('compact_revision', 0), ('max_revision', 0);
PRAGMA application_id = 1802855013;
COMMIT;
)sql";

static_assert(kApplicationId == 1802855013);

}  // namespace

Result<std::unique_ptr<SqliteStorage>> SqliteStorage::Open(const std::string& path,
                                                           const StorageOptions& options) {
  Result<std::unique_ptr<SqliteDb>> opened = SqliteDb::Open(path);
  if (!opened.ok()) return std::move(opened).error();
  SqliteDb& db = **opened;
  // One server per database: revisions are assigned in this process, so a second writer would
  // break them. EXCLUSIVE keeps the file locked for as long as the connection is open.
  KUBE_RETURN_IF_ERROR(db.Exec("PRAGMA busy_timeout = 5000; PRAGMA locking_mode = EXCLUSIVE;"));
  // The first statement that reads the file: a non-SQLite file fails here ("file is not a
  // database").
  Result<int64_t> app_id = db.QueryInt("PRAGMA application_id");
  if (!app_id.ok()) return std::move(app_id).error();
  Result<int64_t> objects = db.QueryInt("SELECT count(*) FROM sqlite_master");
  if (!objects.ok()) return std::move(objects).error();
  if (*app_id == 0 && *objects == 0) {
    Result<std::string> mode = db.QueryText("PRAGMA journal_mode = WAL");
    if (!mode.ok()) return std::move(mode).error();
    KUBE_RETURN_IF_ERROR(db.Exec(kSchema));
  } else if (*app_id != kApplicationId) {
    return StorageInternalError(fmt::format(
        "sqlite storage {}: not a kubecpp database (application_id {}, {} schema objects)", path,
        *app_id, *objects));
  }
  Result<int64_t> version =
      db.QueryInt("SELECT value FROM kube_meta WHERE name = 'schema_version'");
  if (!version.ok()) return std::move(version).error();
  if (*version != kSchemaVersion) {
    return StorageInternalError(fmt::format(
        "sqlite storage {}: unsupported schema version {} (this build reads {})", path, *version,
        kSchemaVersion));
  }
  Result<std::string> mode = db.QueryText("PRAGMA journal_mode = WAL");
  if (!mode.ok()) return std::move(mode).error();
  if (*mode != "wal") {
    return StorageInternalError(
        fmt::format("sqlite storage {}: cannot enable WAL mode (journal_mode {})", path, *mode));
  }
  // FULL: every commit fsyncs the WAL, so an acknowledged write survives a crash or power loss.
  KUBE_RETURN_IF_ERROR(db.Exec("PRAGMA synchronous = FULL;"));

  auto storage = std::make_unique<SqliteStorage>(PassKey{}, std::move(opened).value(), options);
  KUBE_RETURN_IF_ERROR(storage->Load());
  storage->Start();
  return storage;
}

SqliteStorage::SqliteStorage(PassKey, std::unique_ptr<SqliteDb> db, const StorageOptions& options)
    : store_(options) {
  MutexLock lock(db_mu_);
  conn_.db = std::move(db);
}

Result<void> SqliteStorage::Load() {
  Revision compacted = 0;
  Revision floor = 0;
  {
    MutexLock lock(db_mu_);
    SqliteDb& db = *conn_.db;
    auto prepare = [&](SqliteStatement& stmt, std::string_view sql) -> Result<void> {
      Result<SqliteStatement> prepared = db.Prepare(sql);
      if (!prepared.ok()) return std::move(prepared).error();
      stmt = std::move(prepared).value();
      return Ok();
    };
    KUBE_RETURN_IF_ERROR(prepare(conn_.insert,
                                 "INSERT INTO kube_log (id, name, created, deleted, "
                                 "create_revision, prev_revision, value) VALUES (?, ?, ?, ?, ?, ?, ?)"));
    KUBE_RETURN_IF_ERROR(prepare(conn_.raise_max_revision,
                                 "UPDATE kube_meta SET value = max(value, ?) "
                                 "WHERE name = 'max_revision'"));
    KUBE_RETURN_IF_ERROR(prepare(conn_.raise_compact_revision,
                                 "UPDATE kube_meta SET value = max(value, ?) "
                                 "WHERE name = 'compact_revision'"));
    KUBE_RETURN_IF_ERROR(prepare(conn_.delete_row, "DELETE FROM kube_log WHERE id = ?"));

    Result<int64_t> meta_compacted =
        db.QueryInt("SELECT value FROM kube_meta WHERE name = 'compact_revision'");
    if (!meta_compacted.ok()) return std::move(meta_compacted).error();
    Result<int64_t> meta_max =
        db.QueryInt("SELECT value FROM kube_meta WHERE name = 'max_revision'");
    if (!meta_max.ok()) return std::move(meta_max).error();
    compacted = *meta_compacted;
    floor = *meta_max;

    Result<SqliteStatement> rows = db.Prepare(
        "SELECT id, name, created, deleted, create_revision, prev_revision, value FROM kube_log "
        "ORDER BY id");
    if (!rows.ok()) return std::move(rows).error();
    Revision last = 0;
    while (true) {
      Result<bool> row = rows->Step();
      if (!row.ok()) return std::move(row).error();
      if (!*row) break;
      Mutation m;
      m.event.revision = rows->ColumnInt(0);
      m.event.key = std::string(rows->ColumnBytes(1));
      const bool created = rows->ColumnInt(2) != 0;
      const bool deleted = rows->ColumnInt(3) != 0;
      m.create_revision = rows->ColumnInt(4);
      m.prev_revision = rows->ColumnInt(5);
      m.event.value = std::make_shared<const std::string>(rows->ColumnBytes(6));
      if (m.event.revision <= last) {
        return StorageInternalError(fmt::format(
            "sqlite storage {}: corrupt log: revision {} after {}", db.path(), m.event.revision,
            last));
      }
      last = m.event.revision;
      m.event.type = deleted   ? StorageEvent::Type::kDeleted
                     : created ? StorageEvent::Type::kCreated
                               : StorageEvent::Type::kUpdated;
      if (!created) {
        std::optional<Version> prev = store_.Latest(m.event.key);
        if (prev && prev->revision == m.prev_revision) m.event.prev_value = prev->value;
      }
      store_.Publish(std::span<const Mutation>(&m, 1));
    }
    floor = std::max(floor, last);
  }
  // Revisions never go back, even when compaction removed the newest rows (a trailing
  // tombstone): the floor is kept in kube_meta.
  store_.RaiseCurrent(floor);
  {
    MutexLock lock(write_mu_);
    last_assigned_ = store_.Current();
  }
  // Apply the durable compaction point; a crash during an earlier compaction may have left rows
  // it meant to delete.
  MvccStore::CompactOutcome outcome = store_.ForceCompact(compacted);
  if (!outcome.dropped.empty()) KUBE_RETURN_IF_ERROR(DeleteRows(outcome.point, outcome.dropped));
  return Ok();
}

void SqliteStorage::Start() {
  committer_ = std::jthread([this] { RunCommitter(); });
  if (store_.options().compaction_interval > Clock::Duration::zero()) {
    compactor_.emplace(store_.clock(), store_.options().compaction_interval,
                       [this] { (void)Compact(CurrentRevision()); });
  }
}

SqliteStorage::~SqliteStorage() {
  compactor_.reset();
  {
    MutexLock lock(queue_mu_);
    stopping_ = true;
    paused_ = false;
    queue_cv_.SignalAll();
  }
  if (committer_.joinable()) committer_.join();
}

Result<Revision> SqliteStorage::Write(WriteOp op, std::string_view key, Revision expected,
                                      const ValueFn& make) {
  PendingWrite pw;
  Revision revision = 0;
  {
    MutexLock lock(write_mu_);
    std::optional<Version> committed;
    const Version* latest = nullptr;
    if (auto it = pending_.find(key); it != pending_.end()) {
      latest = &it->second;
    } else {
      committed = store_.Latest(key);
      if (committed) latest = &*committed;
    }
    revision = last_assigned_ + 1;
    Result<Mutation> m = PlanWrite(op, key, expected, latest, revision, make);
    if (!m.ok()) return std::move(m).error();
    last_assigned_ = revision;
    pending_.insert_or_assign(std::string(key),
                              Version{.revision = revision,
                                      .create_revision = m->create_revision,
                                      .value = m->event.value,
                                      .deleted = op == WriteOp::kDelete});
    pw.mutation = std::move(m).value();
    MutexLock queue(queue_mu_);
    queue_.push_back(&pw);
    queue_cv_.SignalAll();
  }
  MutexLock lock(pw.mu);
  while (!pw.done) pw.cv.Wait(pw.mu);
  if (pw.error) return *pw.error;
  return revision;
}

void SqliteStorage::Complete(PendingWrite* pw, std::optional<Error> error) {
  // Signalled under pw->mu: once the writer sees `done` it may destroy *pw, and by then this
  // function no longer touches it.
  MutexLock lock(pw->mu);
  pw->done = true;
  pw->error = std::move(error);
  pw->cv.Signal();
}

void SqliteStorage::RunCommitter() {
  std::vector<PendingWrite*> batch;
  while (true) {
    batch.clear();
    {
      MutexLock lock(queue_mu_);
      while (!stopping_ && (queue_.empty() || paused_)) queue_cv_.Wait(queue_mu_);
      if (queue_.empty()) return;  // stopping, and every queued write was completed
      const std::size_t n = std::min(queue_.size(), kMaxBatch);
      batch.assign(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
      queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
    }
    CommitBatch(batch);
  }
}

Result<void> SqliteStorage::InsertRow(SqliteStatement& insert, const Mutation& m) {
  Result<void> r = [&]() -> Result<void> {
    KUBE_RETURN_IF_ERROR(insert.BindInt(1, m.event.revision));
    KUBE_RETURN_IF_ERROR(insert.BindText(2, m.event.key));
    KUBE_RETURN_IF_ERROR(insert.BindInt(3, m.event.type == StorageEvent::Type::kCreated));
    KUBE_RETURN_IF_ERROR(insert.BindInt(4, m.event.type == StorageEvent::Type::kDeleted));
    KUBE_RETURN_IF_ERROR(insert.BindInt(5, m.create_revision));
    KUBE_RETURN_IF_ERROR(insert.BindInt(6, m.prev_revision));
    KUBE_RETURN_IF_ERROR(insert.BindBlob(7, *m.event.value));
    return insert.Run();
  }();
  if (!r.ok()) insert.Reset();
  return r;
}

Result<void> SqliteStorage::RunWithInt(SqliteStatement& stmt, int64_t value) {
  Result<void> r = stmt.BindInt(1, value);
  if (r.ok()) r = stmt.Run();
  if (!r.ok()) stmt.Reset();
  return r;
}

Result<void> SqliteStorage::WriteBatch(const std::vector<PendingWrite*>& batch) {
  SqliteDb& db = *conn_.db;
  KUBE_RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE"));
  Result<void> r = Ok();
  for (const PendingWrite* pw : batch) {
    r = InsertRow(conn_.insert, pw->mutation);
    if (!r.ok()) break;
  }
  if (r.ok()) r = RunWithInt(conn_.raise_max_revision, batch.back()->mutation.event.revision);
  if (r.ok()) r = db.Exec("COMMIT");
  if (!r.ok()) (void)db.Exec("ROLLBACK");  // fails harmlessly if SQLite already rolled back
  return r;
}

void SqliteStorage::CommitBatch(const std::vector<PendingWrite*>& batch) {
  Result<void> written = Ok();
  {
    MutexLock lock(db_mu_);
    written = WriteBatch(batch);
  }
  if (written.ok()) {
    transactions_.fetch_add(1, std::memory_order_relaxed);
    writes_.fetch_add(static_cast<int64_t>(batch.size()), std::memory_order_relaxed);
    std::vector<Mutation> mutations;
    mutations.reserve(batch.size());
    for (PendingWrite* pw : batch) mutations.push_back(std::move(pw->mutation));
    // Visible to readers and watchers before any writer is acknowledged.
    store_.Publish(mutations);
    {
      MutexLock lock(write_mu_);
      for (const Mutation& m : mutations) {
        auto it = pending_.find(m.event.key);
        if (it != pending_.end() && it->second.revision == m.event.revision) pending_.erase(it);
      }
    }
    for (PendingWrite* pw : batch) Complete(pw, std::nullopt);
    return;
  }
  failed_transactions_.fetch_add(1, std::memory_order_relaxed);
  const Error error = std::move(written).error();
  log::Error("storage commit failed; failing every pending write",
             {{"error", error.message}, {"writes", batch.size()}});
  // Writes queued behind the failed ones checked their preconditions against them: fail them
  // too, and forget every pending version, before any writer can plan against stale state.
  std::vector<PendingWrite*> failed = batch;
  {
    MutexLock lock(write_mu_);
    pending_.clear();
    MutexLock queue(queue_mu_);
    failed.insert(failed.end(), queue_.begin(), queue_.end());
    queue_.clear();
  }
  for (PendingWrite* pw : failed) Complete(pw, error);
}

Result<void> SqliteStorage::DeleteRows(Revision compacted, const std::vector<Revision>& rows) {
  // The point is recorded in the first transaction: if a crash interrupts the deletes, the
  // next Load re-applies it and deletes what is left.
  std::size_t next = 0;
  bool first = true;
  while (first || next < rows.size()) {
    MutexLock lock(db_mu_);
    SqliteDb& db = *conn_.db;
    KUBE_RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE"));
    Result<void> r = Ok();
    if (first) r = RunWithInt(conn_.raise_compact_revision, compacted);
    const std::size_t end = std::min(rows.size(), next + kDeleteChunk);
    for (; r.ok() && next < end; ++next) r = RunWithInt(conn_.delete_row, rows[next]);
    if (r.ok()) r = db.Exec("COMMIT");
    if (!r.ok()) {
      (void)db.Exec("ROLLBACK");
      return r;
    }
    first = false;
  }
  return Ok();
}

Result<Revision> SqliteStorage::Create(std::string_view key, const ValueFn& make) {
  return Write(WriteOp::kCreate, key, 0, make);
}

Result<Revision> SqliteStorage::Update(std::string_view key, Revision expected,
                                       const ValueFn& make) {
  return Write(WriteOp::kUpdate, key, expected, make);
}

Result<Revision> SqliteStorage::Delete(std::string_view key, Revision expected,
                                       const ValueFn& make) {
  return Write(WriteOp::kDelete, key, expected, make);
}

Result<KeyValue> SqliteStorage::Get(std::string_view key, Revision revision) {
  return store_.Get(key, revision);
}

Result<ListResult> SqliteStorage::List(const ListRequest& request) { return store_.List(request); }

Result<std::unique_ptr<Watcher>> SqliteStorage::Watch(std::string_view prefix, Revision after) {
  return store_.Watch(prefix, after);
}

Revision SqliteStorage::CurrentRevision() { return store_.Current(); }

Revision SqliteStorage::CompactedRevision() { return store_.Compacted(); }

Revision SqliteStorage::Compact(Revision revision) {
  MutexLock lock(compact_mu_);
  const Revision before = store_.Compacted();
  MvccStore::CompactOutcome outcome = store_.Compact(revision);
  if (outcome.point > before) {
    Result<void> deleted = DeleteRows(outcome.point, outcome.dropped);
    if (!deleted.ok()) {
      // Reads are already served compacted; the rows go at the next successful compaction's
      // point or the next open.
      log::Warn("storage compaction could not delete rows",
                {{"error", deleted.error().message}, {"point", outcome.point}});
    }
  }
  return outcome.point;
}

MvccStore::Stats SqliteStorage::IndexStats() { return store_.GetStats(); }

SqliteStorage::CommitStats SqliteStorage::GetCommitStats() const {
  return {.transactions = transactions_.load(std::memory_order_relaxed),
          .writes = writes_.load(std::memory_order_relaxed),
          .failed_transactions = failed_transactions_.load(std::memory_order_relaxed)};
}

void SqliteStorage::PauseCommitsForTest() {
  MutexLock lock(queue_mu_);
  paused_ = true;
}

void SqliteStorage::ResumeCommitsForTest() {
  MutexLock lock(queue_mu_);
  paused_ = false;
  queue_cv_.SignalAll();
}

bool SqliteStorage::WaitForQueuedForTest(std::size_t n, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  MutexLock lock(queue_mu_);
  while (queue_.size() < n) {
    if (queue_cv_.WaitUntil(queue_mu_, deadline)) return queue_.size() >= n;
  }
  return true;
}

}  // namespace kube::apiserver::internal

namespace kube::apiserver {

Result<std::unique_ptr<Storage>> NewSqliteStorage(const std::string& path,
                                                  StorageOptions options) {
  Result<std::unique_ptr<internal::SqliteStorage>> storage =
      internal::SqliteStorage::Open(path, options);
  if (!storage.ok()) return std::move(storage).error();
  return std::unique_ptr<Storage>(std::move(storage).value());
}

}  // namespace kube::apiserver
