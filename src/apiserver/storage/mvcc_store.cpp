#include "apiserver/storage/mvcc_store.hpp"

#include <algorithm>
#include <cassert>
#include <exception>
#include <string>
#include <thread>
#include <utility>

#include "apiserver/storage/storage_errors.hpp"

namespace kube::apiserver::internal {
namespace {

// Keys examined per lock hold while listing or counting: bounds how long a large List keeps
// writers and other readers waiting.
constexpr std::size_t kListChunk = 512;
constexpr std::size_t kCountChunk = 4096;

StorageOptions Resolve(StorageOptions options) {
  if (options.clock == nullptr) options.clock = &RealClock::Instance();
  if (options.watcher_buffer == 0) options.watcher_buffer = 1;
  if (options.compaction_min_revisions < 0) options.compaction_min_revisions = 0;
  return options;
}

}  // namespace

MvccStore::MvccStore(const StorageOptions& options)
    : options_(Resolve(options)), clock_(*options_.clock) {}

MvccStore::~MvccStore() {
  MutexLock lock(publish_mu_);
  for (auto& w : watchers_) w->End();
  watchers_.clear();
}

std::optional<Version> MvccStore::Latest(std::string_view key) {
  MutexLock lock(mu_);
  const Version* v = index_.Latest(key);
  if (v == nullptr) return std::nullopt;
  return *v;
}

void MvccStore::Publish(std::span<const Mutation> batch) {
  if (batch.empty()) return;
  const Clock::TimePoint now = clock_.Now();
  MutexLock publish(publish_mu_);
  {
    MutexLock lock(mu_);
    for (const Mutation& m : batch) index_.Apply(m, now);
  }
  // Delivery happens outside mu_ (readers proceed) but inside publish_mu_ (order, no gaps).
  bool any_ended = false;
  for (const auto& w : watchers_) {
    for (const Mutation& m : batch) {
      if (!w->Matches(m.event.key)) continue;
      if (!w->Push(m.event)) {
        any_ended = true;
        break;
      }
    }
  }
  delivered_->store(batch.back().event.revision, std::memory_order_release);
  if (any_ended) {
    std::erase_if(watchers_, [](const std::shared_ptr<WatchState>& w) { return w->Ended(); });
  }
}

void MvccStore::RaiseCurrent(Revision revision) {
  MutexLock publish(publish_mu_);
  MutexLock lock(mu_);
  index_.RaiseCurrent(revision);
  // No event exists between the last one and the new current revision: all are delivered.
  delivered_->store(index_.current(), std::memory_order_release);
}

Result<Revision> MvccStore::ReadRevision(Revision requested) {
  if (requested < 0) return InvalidArgumentError("revision", requested);
  const Revision current = index_.current();
  if (requested == 0) return current;
  if (requested > current) return TooLargeError(requested, current);
  if (requested < index_.compacted()) return ReadExpiredError(requested, index_.compacted());
  return requested;
}

Result<KeyValue> MvccStore::Get(std::string_view key, Revision revision) {
  MutexLock lock(mu_);
  Result<Revision> rev = ReadRevision(revision);
  if (!rev.ok()) return std::move(rev).error();
  std::optional<KeyValue> kv = index_.Get(key, *rev);
  if (!kv) return KeyNotFoundError(key);
  return std::move(*kv);
}

void MvccStore::Unpin(Revision revision) {
  MutexLock lock(mu_);
  auto it = pins_.find(revision);
  assert(it != pins_.end());
  pins_.erase(it);
}

Result<ListResult> MvccStore::List(const ListRequest& request) {
  if (request.limit < 0) return InvalidArgumentError("limit", request.limit);
  ListResult out;
  {
    MutexLock lock(mu_);
    Result<Revision> rev = ReadRevision(request.revision);
    if (!rev.ok()) return std::move(rev).error();
    out.revision = *rev;
    pins_.insert(out.revision);
  }
  struct PinGuard {
    MvccStore* store;
    Revision revision;
    ~PinGuard() { store->Unpin(revision); }
  } pin{this, out.revision};

  const auto limit = static_cast<std::size_t>(request.limit);
  std::string cursor = request.start_key;
  bool exclusive = false;
  bool limited = false;
  std::vector<KeyValue> chunk;
  while (!limited) {
    chunk.clear();
    MvccIndex::ScanResult scan;
    {
      MutexLock lock(mu_);
      scan = index_.Scan(request.prefix, cursor, exclusive, out.revision, kListChunk, &chunk);
    }
    // The filter is caller code: it runs without the lock, on the pinned snapshot.
    for (KeyValue& kv : chunk) {
      if (request.filter) {
        bool keep = false;
        try {
          keep = request.filter(kv);
        } catch (const std::exception& e) {
          return StorageInternalError(std::string("list filter threw: ") + e.what());
        } catch (...) {
          return StorageInternalError("list filter threw a non-standard exception");
        }
        if (!keep) continue;
      }
      out.items.push_back(std::move(kv));
      if (limit > 0 && out.items.size() == limit) {
        limited = true;
        break;
      }
    }
    if (scan.end) break;
    cursor = std::move(scan.last_key);
    exclusive = true;
  }
  if (!limited) {
    out.remaining = 0;
    return out;
  }
  // Exact remainingItemCount: live keys at the snapshot after the last returned one.
  int64_t remaining = 0;
  cursor = out.items.back().key;
  while (true) {
    MvccIndex::ScanResult scan;
    {
      MutexLock lock(mu_);
      scan = index_.Scan(request.prefix, cursor, /*exclusive=*/true, out.revision, kCountChunk,
                         nullptr);
    }
    remaining += scan.live;
    if (scan.end) break;
    cursor = std::move(scan.last_key);
  }
  out.remaining = remaining;
  // The smallest key after the last returned one: the next page starts there (inclusive).
  if (remaining > 0) out.continue_key = out.items.back().key + '\0';
  return out;
}

Result<std::unique_ptr<Watcher>> MvccStore::Watch(std::string_view prefix, Revision after) {
  if (after < 0) return InvalidArgumentError("revision", after);
  MutexLock publish(publish_mu_);
  std::shared_ptr<WatchState> state;
  {
    MutexLock lock(mu_);
    const Revision current = index_.current();
    if (after == 0) after = current;
    if (after > current) return TooLargeError(after, current);
    if (after < index_.compacted()) return WatchExpiredError(after, index_.compacted());
    state = std::make_shared<WatchState>(std::string(prefix), after, options_.watcher_buffer,
                                         delivered_, options_.watch_coalesce);
    // Replay: at most watcher_buffer events fit; beyond that the watch ends as overflowed and
    // the client resumes from the last revision it received.
    index_.ForEachEventAfter(after, [&](const StorageEvent& e) {
      return !state->Matches(e.key) || state->Push(e);
    });
  }
  std::erase_if(watchers_, [](const std::shared_ptr<WatchState>& w) { return w->Ended(); });
  if (!state->Ended()) watchers_.push_back(state);
  return std::unique_ptr<Watcher>(std::make_unique<WatcherImpl>(std::move(state), clock_));
}

Revision MvccStore::Current() {
  MutexLock lock(mu_);
  return index_.current();
}

Revision MvccStore::Compacted() {
  MutexLock lock(mu_);
  return index_.compacted();
}

MvccStore::CompactOutcome MvccStore::Compact(Revision target) {
  const Clock::TimePoint now = clock_.Now();
  // now - min_age, without overflowing for huge ages.
  const Clock::TimePoint cutoff = options_.compaction_min_age >= now.time_since_epoch()
                                      ? Clock::TimePoint::min()
                                      : now - options_.compaction_min_age;
  MutexLock lock(mu_);
  Revision point = std::min(target, index_.current() - options_.compaction_min_revisions);
  point = std::min(point, index_.LatestCommittedAtOrBefore(cutoff));
  if (!pins_.empty()) point = std::min(point, *pins_.begin());
  if (point <= index_.compacted()) return {.point = index_.compacted(), .dropped = {}};
  std::vector<Revision> dropped = index_.Compact(point);
  return {.point = point, .dropped = std::move(dropped)};
}

MvccStore::CompactOutcome MvccStore::ForceCompact(Revision point) {
  MutexLock lock(mu_);
  point = std::min(point, index_.current());
  if (point <= index_.compacted()) return {.point = index_.compacted(), .dropped = {}};
  std::vector<Revision> dropped = index_.Compact(point);
  return {.point = point, .dropped = std::move(dropped)};
}

MvccStore::Stats MvccStore::GetStats() {
  Stats stats;
  {
    MutexLock publish(publish_mu_);
    stats.watchers = static_cast<std::size_t>(std::count_if(
        watchers_.begin(), watchers_.end(),
        [](const std::shared_ptr<WatchState>& w) { return !w->Ended(); }));
  }
  MutexLock lock(mu_);
  stats.keys = index_.key_count();
  stats.versions = index_.version_count();
  stats.log_events = index_.log_size();
  return stats;
}

PeriodicCompactor::PeriodicCompactor(Clock& clock, Clock::Duration interval,
                                     std::function<void()> compact)
    : clock_(clock), interval_(interval), compact_(std::move(compact)) {
  assert(interval_ > Clock::Duration::zero());
  thread_ = std::jthread([this](std::stop_token stop) { Run(std::move(stop)); });
}

void PeriodicCompactor::Run(std::stop_token stop) {
  while (clock_.SleepFor(interval_, stop)) compact_();
}

}  // namespace kube::apiserver::internal
