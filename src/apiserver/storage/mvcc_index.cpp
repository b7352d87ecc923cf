#include "apiserver/storage/mvcc_index.hpp"

#include <algorithm>
#include <cassert>
#include <exception>
#include <memory>
#include <set>
#include <utility>

#include "apiserver/storage/storage_errors.hpp"

namespace kube::apiserver::internal {
namespace {

bool HasPrefix(std::string_view key, std::string_view prefix) {
  return key.substr(0, prefix.size()) == prefix;
}

// The version of `versions` visible at `revision` (the latest at or before it), or nullptr.
const Version* VersionAt(const std::vector<Version>& versions, Revision revision) {
  auto it = std::upper_bound(versions.begin(), versions.end(), revision,
                             [](Revision r, const Version& v) { return r < v.revision; });
  if (it == versions.begin()) return nullptr;
  return &*std::prev(it);
}

}  // namespace

Result<Mutation> PlanWrite(WriteOp op, std::string_view key, Revision expected,
                           const Version* latest, Revision revision, const ValueFn& make) {
  const bool live = latest != nullptr && !latest->deleted;
  Mutation m;
  m.event.key = std::string(key);
  m.event.revision = revision;
  m.prev_revision = latest != nullptr ? latest->revision : 0;
  switch (op) {
    case WriteOp::kCreate:
      if (live) return KeyExistsError(key);
      m.event.type = StorageEvent::Type::kCreated;
      m.create_revision = revision;
      break;
    case WriteOp::kUpdate:
    case WriteOp::kDelete:
      if (!live) return KeyNotFoundError(key);
      if (expected != 0 && expected != latest->revision) {
        return RevisionConflictError(key, expected, latest->revision);
      }
      m.event.type =
          op == WriteOp::kUpdate ? StorageEvent::Type::kUpdated : StorageEvent::Type::kDeleted;
      m.event.prev_value = latest->value;
      m.create_revision = latest->create_revision;
      break;
  }
  // `make` is user code: an exception must not escape the storage (nor leave a lock held).
  try {
    Result<std::string> value = make(revision);
    if (!value.ok()) return std::move(value).error();
    m.event.value = std::make_shared<const std::string>(std::move(value).value());
  } catch (const std::exception& e) {
    return StorageInternalError(std::string("value function threw: ") + e.what());
  } catch (...) {
    return StorageInternalError("value function threw a non-standard exception");
  }
  return m;
}

const Version* MvccIndex::Latest(std::string_view key) const {
  auto it = keys_.find(key);
  if (it == keys_.end()) return nullptr;
  return &it->second.back();
}

void MvccIndex::Apply(const Mutation& m, Clock::TimePoint commit_time) {
  assert(m.event.revision > current_);
  auto it = keys_.find(m.event.key);
  if (it == keys_.end()) it = keys_.emplace(m.event.key, std::vector<Version>{}).first;
  it->second.push_back(Version{.revision = m.event.revision,
                               .create_revision = m.create_revision,
                               .value = m.event.value,
                               .deleted = m.event.type == StorageEvent::Type::kDeleted});
  ++version_count_;
  log_.push_back(LogEntry{.event = m.event, .commit_time = commit_time});
  current_ = m.event.revision;
}

void MvccIndex::RaiseCurrent(Revision revision) { current_ = std::max(current_, revision); }

std::optional<KeyValue> MvccIndex::Get(std::string_view key, Revision revision) const {
  auto it = keys_.find(key);
  if (it == keys_.end()) return std::nullopt;
  const Version* v = VersionAt(it->second, revision);
  if (v == nullptr || v->deleted) return std::nullopt;
  return KeyValue{.key = it->first,
                  .value = v->value,
                  .create_revision = v->create_revision,
                  .mod_revision = v->revision};
}

MvccIndex::ScanResult MvccIndex::Scan(std::string_view prefix, std::string_view from,
                                      bool exclusive, Revision revision,
                                      std::size_t max_examined, std::vector<KeyValue>* out) const {
  assert(max_examined > 0);
  ScanResult result;
  if (from < prefix) {
    from = prefix;
    exclusive = false;
  }
  auto it = exclusive ? keys_.upper_bound(from) : keys_.lower_bound(from);
  std::size_t examined = 0;
  for (; it != keys_.end() && HasPrefix(it->first, prefix); ++it) {
    if (examined == max_examined) {
      result.last_key = std::prev(it)->first;
      return result;
    }
    ++examined;
    const Version* v = VersionAt(it->second, revision);
    if (v == nullptr || v->deleted) continue;
    ++result.live;
    if (out != nullptr) {
      out->push_back(KeyValue{.key = it->first,
                              .value = v->value,
                              .create_revision = v->create_revision,
                              .mod_revision = v->revision});
    }
  }
  if (examined > 0) result.last_key = std::prev(it)->first;
  result.end = true;
  return result;
}

void MvccIndex::ForEachEventAfter(Revision after,
                                  const std::function<bool(const StorageEvent&)>& fn) const {
  auto it = std::partition_point(log_.begin(), log_.end(), [after](const LogEntry& e) {
    return e.event.revision <= after;
  });
  for (; it != log_.end(); ++it) {
    if (!fn(it->event)) return;
  }
}

Revision MvccIndex::LatestCommittedAtOrBefore(Clock::TimePoint cutoff) const {
  // Commit times are non-decreasing along the log (one monotonic clock).
  auto it = std::partition_point(log_.begin(), log_.end(), [cutoff](const LogEntry& e) {
    return e.commit_time <= cutoff;
  });
  if (it == log_.begin()) return compacted_;
  // Revisions after the last logged one (none today) would share its state.
  if (it == log_.end()) return current_;
  return std::prev(it)->event.revision;
}

std::vector<Revision> MvccIndex::Compact(Revision point) {
  assert(point > compacted_ && point <= current_);
  // Only keys written in (compacted_, point] can hold versions that became superseded, or
  // tombstones that became droppable: everything older was handled by earlier compactions.
  // The views point into log_ entries, which are popped only after the loop.
  std::set<std::string_view> touched;
  for (const LogEntry& e : log_) {
    if (e.event.revision > point) break;
    touched.insert(e.event.key);
  }
  std::vector<Revision> dropped;
  for (std::string_view key : touched) {
    auto it = keys_.find(key);
    assert(it != keys_.end());
    std::vector<Version>& versions = it->second;
    auto keep = std::upper_bound(versions.begin(), versions.end(), point,
                                 [](Revision r, const Version& v) { return r < v.revision; });
    // `keep` is the first version after the point; the one before it is the state at the point,
    // kept unless it is a tombstone.
    assert(keep != versions.begin());
    auto at_point = std::prev(keep);
    auto drop_end = at_point->deleted ? keep : at_point;
    for (auto v = versions.begin(); v != drop_end; ++v) dropped.push_back(v->revision);
    version_count_ -= static_cast<std::size_t>(drop_end - versions.begin());
    versions.erase(versions.begin(), drop_end);
    if (versions.empty()) keys_.erase(it);
  }
  while (!log_.empty() && log_.front().event.revision <= point) log_.pop_front();
  compacted_ = point;
  std::sort(dropped.begin(), dropped.end());
  return dropped;
}

}  // namespace kube::apiserver::internal
