#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <kube/base/result.hpp>

struct sqlite3;
struct sqlite3_stmt;

namespace kube::apiserver::internal {

/// A prepared SQLite statement. Errors are 500 InternalError values naming the database.
/// **Thread-safety:** none; used under its connection's owner lock.
/// **Ownership/lifetime:** must be destroyed before the SqliteDb that prepared it.
class SqliteStatement final {
 public:
  SqliteStatement() = default;
  SqliteStatement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~SqliteStatement();
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;

  /// Binds parameter `index` (1-based). Texts and blobs are not copied (SQLITE_STATIC): the
  /// caller keeps the bytes alive until the statement is reset.
  Result<void> BindInt(int index, int64_t value);
  Result<void> BindText(int index, std::string_view value);
  Result<void> BindBlob(int index, std::string_view value);
  /// Runs one step: true if a row is available, false when done.
  Result<bool> Step();
  /// Steps to completion, ignoring rows, then resets the statement.
  Result<void> Run();
  /// Resets the statement and clears its bindings (errors of the last step were reported).
  void Reset();

  int64_t ColumnInt(int column) const;
  /// The column's bytes (text or blob); empty for NULL. Valid until the next Step/Reset.
  std::string_view ColumnBytes(int column) const;
  bool ColumnIsNull(int column) const;

 private:
  Error LastError(std::string_view what) const;

  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

/// An open SQLite connection.
/// **Thread-safety:** none; the owner serializes every use (SqliteStorage's db mutex).
class SqliteDb final {
 public:
  /// Opens (creating if missing) the database file at `path`.
  /// **Errors:** 500 InternalError when the file cannot be opened.
  static Result<std::unique_ptr<SqliteDb>> Open(const std::string& path);
  /// Adopts an open handle (use `Open`).
  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  /// Runs one or more statements without results.
  Result<void> Exec(std::string_view sql);
  /// Prepares `sql`.
  Result<SqliteStatement> Prepare(std::string_view sql);
  /// Runs a query returning one integer (e.g. a PRAGMA).
  Result<int64_t> QueryInt(std::string_view sql);
  /// Runs a query returning one text value.
  Result<std::string> QueryText(std::string_view sql);
  /// The file path.
  const std::string& path() const { return path_; }

 private:
  Error LastError(std::string_view what) const;

  sqlite3* db_;
  std::string path_;
};

}  // namespace kube::apiserver::internal
