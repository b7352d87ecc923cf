#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <kube/apiserver/storage.hpp>
#include <kube/base/clock.hpp>
#include <kube/base/result.hpp>

namespace kube::apiserver::internal {

/// What a write does to its key.
enum class WriteOp { kCreate, kUpdate, kDelete };

/// One key at one revision: a row of the revision log.
struct Version {
  Revision revision = 0;         ///< the write's revision (mod_revision)
  Revision create_revision = 0;  ///< the revision that created this incarnation of the key
  ValuePtr value;                ///< the stored value; for a tombstone, the tombstone value
  bool deleted = false;          ///< true for a tombstone
};

/// One change ready to commit: the event watchers receive plus what a log row needs.
struct Mutation {
  StorageEvent event;
  Revision create_revision = 0;
  /// The key's previous version (live or tombstone), 0 if none: kine's `prev_revision`.
  Revision prev_revision = 0;
};

/// Checks the preconditions of `op` on `key` against its latest version (`latest` is nullptr when
/// the key has no retained version; a tombstone means "absent"), then calls `make(revision)` and
/// builds the mutation that commits at `revision`.
/// **Errors:** 409 AlreadyExists (create of a live key), 404 NotFound (update/delete of an absent
/// key), 409 Conflict (`expected` != 0 and != the live mod_revision), the error of `make`, or
/// 500 InternalError if `make` throws. **Thread-safety:** pure; `make` runs on the calling thread.
Result<Mutation> PlanWrite(WriteOp op, std::string_view key, Revision expected,
                           const Version* latest, Revision revision, const ValueFn& make);

/// A retained event and the time (on the storage's Clock) its revision committed.
struct LogEntry {
  StorageEvent event;
  Clock::TimePoint commit_time;
};

/// The in-memory MVCC index shared by both engines: every key's retained versions in key order,
/// and the log of every event after the compaction point (for watch replay and compaction).
///
/// Invariants: `current()` >= every retained revision; `compacted()` <= `current()`; for each key
/// the versions are in ascending revision order and no version is empty; the log holds exactly the
/// committed events with revision in (compacted, current], ascending; every version with revision
/// <= compacted is the latest of its key at or before `compacted()` and is not a tombstone.
///
/// **Thread-safety:** none; the owner (MvccStore) guards it with its mutex.
class MvccIndex final {
 public:
  /// The outcome of one bounded step of a key-ordered scan.
  struct ScanResult {
    int64_t live = 0;        ///< live keys found at the revision in this step
    std::string last_key;    ///< the last key examined ("" if none)
    bool end = false;        ///< true if no key under the prefix follows `last_key`
  };

  /// The latest retained version of `key` (possibly a tombstone), or nullptr.
  /// **Lifetime:** valid until the next Apply/Compact.
  const Version* Latest(std::string_view key) const;

  /// Appends `m` (its revision must be greater than `current()`: asserted) as the key's new
  /// version and as a log entry committed at `commit_time`; `current()` becomes its revision.
  void Apply(const Mutation& m, Clock::TimePoint commit_time);

  /// Raises `current()` to `revision` (no-op if lower): the revision floor after a reload.
  void RaiseCurrent(Revision revision);

  /// The live value of `key` at `revision` (the caller has checked compacted <= revision <=
  /// current), or nullopt if absent or deleted there.
  std::optional<KeyValue> Get(std::string_view key, Revision revision) const;

  /// Examines at most `max_examined` keys under `prefix`, in key order, starting at `from`
  /// (exclusive if `exclusive`), and reports those live at `revision`; when `out` is non-null
  /// their KeyValues are appended to it.
  ScanResult Scan(std::string_view prefix, std::string_view from, bool exclusive,
                  Revision revision, std::size_t max_examined, std::vector<KeyValue>* out) const;

  /// Calls `fn` with each retained event with revision > `after`, in order, until it returns
  /// false. The caller has checked `after` >= compacted().
  void ForEachEventAfter(Revision after, const std::function<bool(const StorageEvent&)>& fn) const;

  /// The latest revision whose state was current at or before `cutoff` (the newest revision that
  /// committed at or before `cutoff`, or compacted() if none of the retained ones did).
  Revision LatestCommittedAtOrBefore(Clock::TimePoint cutoff) const;

  /// Compacts to `point` (compacted() < point <= current(): asserted): drops every version that
  /// is superseded at `point`, and tombstones at or before it, and log entries at or before it.
  /// Returns the revisions of the dropped versions (ascending) so that a durable engine can delete
  /// the same rows.
  std::vector<Revision> Compact(Revision point);

  /// The latest committed revision.
  Revision current() const { return current_; }
  /// The compaction point: reads below it are Expired.
  Revision compacted() const { return compacted_; }
  /// Number of retained versions, tombstones included (for tests and metrics).
  std::size_t version_count() const { return version_count_; }
  /// Number of keys with at least one retained version.
  std::size_t key_count() const { return keys_.size(); }
  /// Number of retained events.
  std::size_t log_size() const { return log_.size(); }

 private:
  std::map<std::string, std::vector<Version>, std::less<>> keys_;
  std::deque<LogEntry> log_;  // committed events in (compacted_, current_], ascending revision
  Revision current_ = 0;
  Revision compacted_ = 0;
  std::size_t version_count_ = 0;  // sum of the sizes of keys_' vectors
};

}  // namespace kube::apiserver::internal
