#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include <kube/base/clock.hpp>
#include <kube/base/result.hpp>

namespace kube::apiserver {

/// A global, strictly increasing storage revision. An object's resourceVersion is the revision of
/// its last write (kine/etcd `mod_revision`). 0 means "none/latest" in arguments.
using Revision = int64_t;

/// The bytes of a stored value, shared so that lists and watch fan-out never copy them.
using ValuePtr = std::shared_ptr<const std::string>;

/// One key at one revision.
struct KeyValue {
  std::string key{};
  ValuePtr value{};
  Revision create_revision = 0;  ///< revision of the write that created this incarnation
  Revision mod_revision = 0;     ///< revision of the last write (the resourceVersion)
};

/// One committed change, as delivered to watchers.
struct StorageEvent {
  enum class Type { kCreated, kUpdated, kDeleted };
  Type type = Type::kCreated;
  std::string key{};
  /// The new value; for kDeleted, the tombstone value (the last state re-stamped at `revision`).
  ValuePtr value{};
  /// The previous value (nullptr for kCreated). Lets watchers compute selector transitions.
  ValuePtr prev_value{};
  Revision revision = 0;
};

/// Builds the value to store, given the revision the write will commit at (so the stored JSON
/// can carry its own resourceVersion). Called under the storage's commit lock: keep it short
/// and do not call back into the storage. An error aborts the write (nothing is stored, no
/// revision is used); an exception aborts it with 500 InternalError. It is called only after the
/// write's precondition (exists / absent / expected revision) held.
using ValueFn = std::function<Result<std::string>(Revision revision)>;

/// Options of `List`.
struct ListRequest {
  std::string prefix{};        ///< keys starting with this, in key order
  std::string start_key{};     ///< first key to examine (inclusive); "" = from the prefix start
  int64_t limit = 0;           ///< at most this many *matching* items; 0 = all; < 0: 400
  Revision revision = 0;       ///< snapshot revision; 0 = latest; < 0: 400
  /// Optional filter; items it rejects are skipped and do not count toward `limit`. It runs on
  /// the calling thread *outside* the storage lock (writes proceed meanwhile; the snapshot is
  /// pinned against compaction until List returns). An exception fails the List with 500.
  std::function<bool(const KeyValue&)> filter{};
};

/// The result of `List`: a consistent snapshot at `revision`.
struct ListResult {
  std::vector<KeyValue> items{};
  Revision revision = 0;        ///< the snapshot revision (the list's resourceVersion)
  /// The key to continue from (inclusive, as `start_key` of the next page, with `revision`
  /// set to this result's revision): the last returned key + '\0'. Empty when done, i.e. set
  /// iff `remaining` > 0.
  std::string continue_key{};
  /// Exact count of keys under the prefix, live at `revision`, after the last returned item,
  /// *ignoring* the filter (kube reports remainingItemCount only for unfiltered lists). 0 when
  /// the list is complete.
  int64_t remaining = -1;
};

/// A live watch: committed events with revision > the start revision, for keys under a prefix,
/// in revision order. **Thread-safety:** one consumer thread; `Close` may be called from any thread.
class Watcher {
 public:
  virtual ~Watcher() = default;
  /// Blocks until events are available, the deadline passes (on the storage's Clock), `stop` is
  /// requested, or the watch ends. Returns every pending event, in revision order (possibly
  /// empty on timeout/stop). When the watch has ended (closed, storage shut down, or too slow —
  /// see `Overflowed`) and no events remain, returns an empty vector and `Done()` becomes true.
  /// Events buffered before the storage shut down or the watch overflowed are still returned.
  virtual std::vector<StorageEvent> Next(Clock::TimePoint deadline, std::stop_token stop) = 0;
  /// True once the watch has ended and every buffered event was returned.
  virtual bool Done() const = 0;
  /// True if the watch was closed because the consumer fell behind its bounded buffer. Clients
  /// re-watch from their last revision.
  virtual bool Overflowed() const = 0;
  /// Ends the watch (idempotent) and drops buffered events; a blocked Next returns. The
  /// destructor closes the watch too.
  virtual void Close() = 0;
  /// A revision through which this watch is complete: every event for its prefix with a revision
  /// <= Progress() has already been returned by Next. Use it for BOOKMARK events (a quiet watch
  /// advances with the storage, so clients can resume from a recent revision). Never decreases.
  /// Note that `Storage::CurrentRevision()` is *not* safe for that: a revision becomes current a
  /// moment before its event reaches the watchers. The engines here implement it; the default
  /// returns 0 ("unknown") so that test fakes need not.
  virtual Revision Progress() const { return 0; }
  /// Readiness notification for consumers that do not park in `Next` (the REST layer's watch
  /// delivery thread, which serves many watches). While a callback is set, it is called when
  /// `Next` has something to return without blocking (events arrived, or the watch ended), once
  /// until the next `Next` call; if that is already the case when it is set, it is called at
  /// once. It runs on the thread that makes the watch ready (a writer, or the setter) under the
  /// watch's own lock: it must be short, must not block, and must not call back into this
  /// watcher. `nullptr` removes it; once `SetReadyCallback(nullptr)` has returned, no call is in
  /// progress or will start. While one is set, storage-side coalescing (`watch_coalesce`) is off
  /// for this watch (the consumer paces itself). Returns false when the watcher does not support
  /// it (the default, for test fakes): poll with `Next` instead.
  virtual bool SetReadyCallback(std::function<void()> callback) {
    (void)callback;
    return false;
  }
};

/// Storage options shared by the engines.
struct StorageOptions {
  /// Compaction keeps at least this many revisions...
  int64_t compaction_min_revisions = 1000;
  /// ...and at least this much history (both conditions hold).
  Clock::Duration compaction_min_age = std::chrono::minutes(5);
  /// How often automatic compaction runs; 0 disables it (tests call Compact()).
  Clock::Duration compaction_interval = std::chrono::minutes(1);
  /// Events buffered per watcher before it is closed as too slow (0 is treated as 1). A watch
  /// whose replay alone exceeds it returns the first `watcher_buffer` events and ends as
  /// overflowed: the client resumes from the last one, in installments.
  std::size_t watcher_buffer = 10000;
  /// Event coalescing for busy watches: when a watcher's events arrive less than half of this
  /// apart, its `Watcher::Next` gathers them for up to this long (real time, whatever `clock` is) and
  /// returns them together, so a watch stream is woken and written once per period instead of
  /// once per event (with many watchers and a high write rate, per-event wake-ups of every
  /// watcher thread dominate the server's CPU). A watch whose events arrive further apart gets
  /// each at once. 0 disables it.
  std::chrono::nanoseconds watch_coalesce = std::chrono::milliseconds(10);
  /// nullptr = RealClock::Instance(). Times compaction age, the compaction interval and
  /// `Watcher::Next` deadlines. **Lifetime:** must outlive the storage and all its watchers.
  Clock* clock = nullptr;
};

/// The MVCC revision log of the embedded API server (the kine design): every write appends a
/// revision; create fails if the key exists; update is compare-and-swap on the revision; delete
/// writes a tombstone; reads at the latest or a retained past revision; watch from a revision;
/// reads below the compaction point fail with Expired.
///
/// Errors (kube::Error, messages are storage-level; the registry rewrites them per resource):
///   - Create on an existing key: 409 reason AlreadyExists.
///   - Update/Delete of a missing key: 404 NotFound.
///   - Update/Delete with a stale expected revision: 409 Conflict.
///   - Get/List/Watch at a compacted revision: 410 Expired.
///   - Get/List/Watch above the current revision: 504 Timeout with cause ResourceVersionTooLarge
///     (see `kube::NewTooLargeResourceVersion`).
///   - I/O failures (sqlite): 500 InternalError; nothing is acknowledged that was not committed.
///   - A negative revision or limit: 400 BadRequest.
/// A successful write is visible to Get/List and delivered to watchers before it returns.
/// **Thread-safety:** every member may be called concurrently. Destroying the storage ends
/// every watch (their buffered events are still returned); no call may be in progress then.
class Storage {
 public:
  virtual ~Storage() = default;

  /// Creates `key`. Returns the new revision.
  virtual Result<Revision> Create(std::string_view key, const ValueFn& make) = 0;
  /// Replaces `key` if its current mod_revision equals `expected` (0 = any). Returns the new
  /// revision.
  virtual Result<Revision> Update(std::string_view key, Revision expected, const ValueFn& make) = 0;
  /// Deletes `key` if its current mod_revision equals `expected` (0 = any). `make` builds the
  /// tombstone value (the last state stamped with the delete's revision). Returns the revision.
  virtual Result<Revision> Delete(std::string_view key, Revision expected, const ValueFn& make) = 0;

  /// The key at `revision` (0 = latest). NotFound if absent (or deleted) at that revision.
  virtual Result<KeyValue> Get(std::string_view key, Revision revision = 0) = 0;
  /// A consistent, key-ordered, paginated list.
  virtual Result<ListResult> List(const ListRequest& request) = 0;
  /// Events with revision > `after` for keys under `prefix`, with no gap between the replay of
  /// retained history and live events. `after` below the compaction point: 410 Expired; above
  /// the current revision: 504 TooLargeResourceVersion. `after` = 0 means "from now".
  /// `prefix` "" watches everything.
  virtual Result<std::unique_ptr<Watcher>> Watch(std::string_view prefix, Revision after) = 0;

  /// The latest committed revision.
  virtual Revision CurrentRevision() = 0;
  /// The oldest revision still readable (reads below it are Expired).
  virtual Revision CompactedRevision() = 0;
  /// Compacts history up to `revision`, clamped so that at least `compaction_min_revisions`
  /// revisions and `compaction_min_age` of history stay readable (the state current at any
  /// instant of the last min_age remains), and never past the snapshot of a List in progress.
  /// Superseded versions and tombstones at or below the point are dropped (sqlite: their rows
  /// are deleted). Returns the compaction point after the call (it never decreases).
  virtual Revision Compact(Revision revision) = 0;
};

/// An in-memory engine (tests, `--storage=memory`). Same semantics as the sqlite engine,
/// without durability.
std::unique_ptr<Storage> NewMemoryStorage(StorageOptions options = {});

/// The durable engine: SQLite in WAL mode, one append-only table, group commit, crash-safe
/// (see docs/apiserver-storage.md). Opens or creates `path` and loads the retained history into
/// memory; on restart revisions continue strictly increasing. The file stays locked
/// (exclusively) while the storage is open: one server per database.
/// A failed commit fails its writes and every write queued behind it with 500; none of them
/// becomes visible.
/// **Errors:** 500 InternalError when the file cannot be opened or locked, is not a kubecpp
/// database (a foreign SQLite database is left untouched), or is corrupt.
/// **Blocks?** Opening reads the whole retained history.
Result<std::unique_ptr<Storage>> NewSqliteStorage(const std::string& path, StorageOptions options = {});

}  // namespace kube::apiserver
