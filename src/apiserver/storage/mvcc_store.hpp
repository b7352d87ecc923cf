#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <stop_token>
#include <thread>
#include <string_view>
#include <vector>

#include <kube/apiserver/storage.hpp>
#include <kube/base/clock.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/result.hpp>

#include "apiserver/storage/mvcc_index.hpp"
#include "apiserver/storage/watch_state.hpp"

namespace kube::apiserver::internal {

/// The engine-independent half of a Storage: the MVCC index behind a mutex, consistent reads,
/// watch registration and fan-out, and in-memory compaction. Engines decide *when* a mutation is
/// committed (memory: at once; sqlite: after its transaction) and then `Publish` it.
///
/// Locking: `publish_mu_` (publication order, the watcher list) is acquired before `mu_` (the
/// index). Publish holds publish_mu_ across applying to the index and delivering to watchers, so
/// when publish_mu_ is free every applied event has been delivered: Watch registers under both
/// locks and therefore replays exactly the events before it and receives exactly those after.
/// **Thread-safety:** every member may be called concurrently.
class MvccStore final {
 public:
  /// Resolves `options.clock` (nullptr = RealClock). **Lifetime:** the clock must outlive the
  /// store and every Watcher it hands out.
  explicit MvccStore(const StorageOptions& options);
  /// Ends every watch (watchers still drain what they buffered).
  ~MvccStore();
  MvccStore(const MvccStore&) = delete;
  MvccStore& operator=(const MvccStore&) = delete;

  /// The storage's clock.
  Clock& clock() const { return clock_; }
  /// The options, with `clock` resolved.
  const StorageOptions& options() const { return options_; }

  /// The latest retained version of `key` (possibly a tombstone), or nullopt.
  std::optional<Version> Latest(std::string_view key) KUBE_EXCLUDES(mu_);

  /// Makes `batch` visible to readers and delivers it to watchers, in order. Revisions must be
  /// strictly increasing and above `Current()` (asserted): each engine has a single publisher.
  /// **Blocks?** On the locks only; never on a slow watcher.
  void Publish(std::span<const Mutation> batch) KUBE_EXCLUDES(publish_mu_, mu_);

  /// Raises the current revision to `revision` (used after a reload, whose revision floor may be
  /// above the last retained row).
  void RaiseCurrent(Revision revision) KUBE_EXCLUDES(publish_mu_, mu_);

  /// `Storage::Get`.
  Result<KeyValue> Get(std::string_view key, Revision revision) KUBE_EXCLUDES(mu_);
  /// `Storage::List`. The filter runs outside the lock; the snapshot revision is pinned (not
  /// compacted) while the list is in progress.
  Result<ListResult> List(const ListRequest& request) KUBE_EXCLUDES(mu_);
  /// `Storage::Watch`.
  Result<std::unique_ptr<Watcher>> Watch(std::string_view prefix, Revision after)
      KUBE_EXCLUDES(publish_mu_, mu_);

  /// The latest committed revision.
  Revision Current() KUBE_EXCLUDES(mu_);
  /// The compaction point.
  Revision Compacted() KUBE_EXCLUDES(mu_);

  /// The result of a compaction.
  struct CompactOutcome {
    Revision point = 0;              ///< the compaction point after the call
    std::vector<Revision> dropped;   ///< revisions of the versions dropped by this call
  };
  /// Compacts up to `target`, clamped so that at least `compaction_min_revisions` revisions and
  /// `compaction_min_age` of history remain and no in-progress List loses its snapshot.
  CompactOutcome Compact(Revision target) KUBE_EXCLUDES(mu_);
  /// Compacts exactly to `point` (if above the current point), ignoring the retention options:
  /// for a reload, where the durable compaction point is authoritative.
  CompactOutcome ForceCompact(Revision point) KUBE_EXCLUDES(mu_);

  /// Counters for tests and metrics.
  struct Stats {
    std::size_t keys = 0;
    std::size_t versions = 0;
    std::size_t log_events = 0;
    std::size_t watchers = 0;
  };
  Stats GetStats() KUBE_EXCLUDES(publish_mu_, mu_);

 private:
  // Validates a read revision (0 = current) against the window; requires mu_.
  Result<Revision> ReadRevision(Revision requested) KUBE_REQUIRES(mu_);
  void Unpin(Revision revision) KUBE_EXCLUDES(mu_);

  const StorageOptions options_;
  Clock& clock_;

  Mutex publish_mu_;  // acquired before mu_
  // Active watches; ended ones are dropped on the next publish or registration.
  std::vector<std::shared_ptr<WatchState>> watchers_ KUBE_GUARDED_BY(publish_mu_);
  // Every event through this revision has been pushed to every watcher (stored under
  // publish_mu_ after delivery; read by watchers for `Progress`, even after the store is gone).
  const std::shared_ptr<std::atomic<Revision>> delivered_ =
      std::make_shared<std::atomic<Revision>>(0);

  Mutex mu_;
  MvccIndex index_ KUBE_GUARDED_BY(mu_);
  // Snapshot revisions of Lists in progress; compaction never passes the smallest.
  std::multiset<Revision> pins_ KUBE_GUARDED_BY(mu_);
};

/// Runs `compact` every `interval` on the clock, on its own thread, until destroyed.
/// **Ownership/lifetime:** `clock` and whatever `compact` uses must outlive this object: declare
/// it as the last member of its owner, so that it is destroyed (and joined) first.
class PeriodicCompactor final {
 public:
  /// Starts the thread; `interval` must be positive.
  PeriodicCompactor(Clock& clock, Clock::Duration interval, std::function<void()> compact);
  /// Requests stop and joins (a running compaction completes first).
  ~PeriodicCompactor() = default;

 private:
  void Run(std::stop_token stop);

  Clock& clock_;
  const Clock::Duration interval_;
  const std::function<void()> compact_;
  std::jthread thread_;  // last: joined before the members above are destroyed
};

}  // namespace kube::apiserver::internal
