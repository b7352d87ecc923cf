#include "apiserver/storage/sqlite_db.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <sqlite3.h>

#include <utility>

#include <fmt/format.h>

#include "apiserver/storage/storage_errors.hpp"

namespace kube::apiserver::internal {
namespace {

Error SqliteError(sqlite3* db, std::string_view what) {
  const char* file = db != nullptr ? sqlite3_db_filename(db, "main") : nullptr;
  return StorageInternalError(fmt::format("sqlite storage {}: {}: {} (code {})",
                                          file != nullptr ? file : "", what,
                                          db != nullptr ? sqlite3_errmsg(db) : "out of memory",
                                          db != nullptr ? sqlite3_extended_errcode(db) : 0));
}

}  // namespace

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), stmt_(std::exchange(other.stmt_, nullptr)) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    db_ = std::exchange(other.db_, nullptr);
    stmt_ = std::exchange(other.stmt_, nullptr);
  }
  return *this;
}

Error SqliteStatement::LastError(std::string_view what) const { return SqliteError(db_, what); }

Result<void> SqliteStatement::BindInt(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) return LastError("bind");
  return Ok();
}

Result<void> SqliteStatement::BindText(int index, std::string_view value) {
  if (sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_STATIC,
                          SQLITE_UTF8) != SQLITE_OK) {
    return LastError("bind");
  }
  return Ok();
}

Result<void> SqliteStatement::BindBlob(int index, std::string_view value) {
  // A zero-length blob from a null pointer would bind NULL; "" keeps it an empty blob.
  const char* data = value.empty() ? "" : value.data();
  if (sqlite3_bind_blob64(stmt_, index, data, value.size(), SQLITE_STATIC) != SQLITE_OK) {
    return LastError("bind");
  }
  return Ok();
}

Result<bool> SqliteStatement::Step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return LastError(fmt::format("step \"{}\"", sqlite3_sql(stmt_)));
}

Result<void> SqliteStatement::Run() {
  while (true) {
    Result<bool> row = Step();
    if (!row.ok()) {
      Reset();
      return std::move(row).error();
    }
    if (!*row) break;
  }
  Reset();
  return Ok();
}

void SqliteStatement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t SqliteStatement::ColumnInt(int column) const { return sqlite3_column_int64(stmt_, column); }

std::string_view SqliteStatement::ColumnBytes(int column) const {
  const void* data = sqlite3_column_blob(stmt_, column);
  const int size = sqlite3_column_bytes(stmt_, column);
  if (data == nullptr || size <= 0) return {};
  return {static_cast<const char*>(data), static_cast<std::size_t>(size)};
}

bool SqliteStatement::ColumnIsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

Result<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::string& path) {
  // The database holds Secrets: a new one is its owner's alone (SQLite gives the -wal and -shm
  // files the database's mode).
  if (const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600); fd >= 0) ::close(fd);
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                                 nullptr);
  if (rc != SQLITE_OK) {
    Error e = StorageInternalError(fmt::format("sqlite storage {}: cannot open: {}", path,
                                               db != nullptr ? sqlite3_errmsg(db)
                                                             : sqlite3_errstr(rc)));
    sqlite3_close_v2(db);
    return e;
  }
  sqlite3_extended_result_codes(db, 1);
  return std::make_unique<SqliteDb>(db, path);
}

SqliteDb::~SqliteDb() { sqlite3_close_v2(db_); }

Error SqliteDb::LastError(std::string_view what) const { return SqliteError(db_, what); }

Result<void> SqliteDb::Exec(std::string_view sql) {
  const std::string text(sql);
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    return LastError(fmt::format("exec \"{}\"", sql));
  }
  return Ok();
}

Result<SqliteStatement> SqliteDb::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                         &stmt, nullptr) != SQLITE_OK) {
    return LastError(fmt::format("prepare \"{}\"", sql));
  }
  return SqliteStatement(db_, stmt);
}

Result<int64_t> SqliteDb::QueryInt(std::string_view sql) {
  Result<SqliteStatement> stmt = Prepare(sql);
  if (!stmt.ok()) return std::move(stmt).error();
  Result<bool> row = stmt->Step();
  if (!row.ok()) return std::move(row).error();
  if (!*row) return StorageInternalError(fmt::format("sqlite storage {}: no row for \"{}\"", path_, sql));
  return stmt->ColumnInt(0);
}

Result<std::string> SqliteDb::QueryText(std::string_view sql) {
  Result<SqliteStatement> stmt = Prepare(sql);
  if (!stmt.ok()) return std::move(stmt).error();
  Result<bool> row = stmt->Step();
  if (!row.ok()) return std::move(row).error();
  if (!*row) return StorageInternalError(fmt::format("sqlite storage {}: no row for \"{}\"", path_, sql));
  return std::string(stmt->ColumnBytes(0));
}

}  // namespace kube::apiserver::internal
