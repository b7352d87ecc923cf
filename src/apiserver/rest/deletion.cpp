#include "apiserver/rest/deletion.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <vector>

#include <boost/json.hpp>

#include <kube/core/status.hpp>
#include <kube/core/time.hpp>

#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/json_util.hpp"
#include "apiserver/rest/write_util.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

constexpr int kAttempts = 16;

std::vector<std::string> Finalizers(const json::object& obj) {
  std::vector<std::string> out;
  const auto* f = MetadataOf(obj).if_contains("finalizers");
  if (f == nullptr || !f->is_array()) return out;
  for (const auto& v : f->get_array()) {
    if (v.is_string()) out.emplace_back(v.get_string());
  }
  return out;
}

void SetFinalizers(json::object& obj, const std::vector<std::string>& finalizers) {
  auto& meta = EnsureObject(obj, "metadata");
  if (finalizers.empty()) {
    meta.erase("finalizers");
    return;
  }
  json::array a;
  for (const auto& f : finalizers) a.emplace_back(f);
  meta["finalizers"] = std::move(a);
}

bool Contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// The strategies whose DefaultGarbageCollectionPolicy is OrphanDependents: core/v1
// ReplicationControllers and batch/v1 Jobs (kept from their first API versions); every other
// type served here deletes its dependents in the background.
bool OrphansByDefault(const ResourceInfo& info) {
  return info.builtin && ((info.group.empty() && info.resource == "replicationcontrollers") ||
                          (info.group == "batch" && info.resource == "jobs"));
}

// kube's shouldOrphanDependents / shouldDeleteDependents: explicit options win, then the
// object's own GC finalizers, then the type's default.
bool ShouldOrphan(const ResourceInfo& info, const DeleteOptions& opts, const std::vector<std::string>& finalizers) {
  if (opts.orphan_dependents) return *opts.orphan_dependents;
  if (opts.propagation_policy) return *opts.propagation_policy == PropagationPolicy::kOrphan;
  for (const auto& f : finalizers) {
    if (f == kOrphanFinalizer) return true;
    if (f == kForegroundFinalizer) return false;
  }
  return OrphansByDefault(info);
}

bool ShouldDeleteDependents(const DeleteOptions& opts, const std::vector<std::string>& finalizers) {
  if (opts.orphan_dependents) return false;
  if (opts.propagation_policy) return *opts.propagation_policy == PropagationPolicy::kForeground;
  return Contains(finalizers, kForegroundFinalizer);
}

// kube's deletionFinalizersForGarbageCollection: drop both GC finalizers, add back what the
// options call for (orphan before foregroundDeletion). Returns whether the set changed.
bool ApplyGcFinalizers(const ResourceInfo& info, json::object& obj, const DeleteOptions& opts) {
  const std::vector<std::string> old = Finalizers(obj);
  std::vector<std::string> updated;
  for (const auto& f : old) {
    if (f != kOrphanFinalizer && f != kForegroundFinalizer) updated.push_back(f);
  }
  if (ShouldOrphan(info, opts, old)) updated.emplace_back(kOrphanFinalizer);
  if (ShouldDeleteDependents(opts, old)) updated.emplace_back(kForegroundFinalizer);
  std::vector<std::string> a = old, b = updated;
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  std::sort(b.begin(), b.end());
  b.erase(std::unique(b.begin(), b.end()), b.end());
  if (a == b) return false;
  SetFinalizers(obj, updated);
  return true;
}

bool HasPendingFinalizers(const ResourceInfo& info, const json::object& obj) {
  if (!Finalizers(obj).empty()) return true;
  if (KindOf(info) != BuiltinKind::kNamespace) return false;
  const auto* spec = ObjectAt(obj, "spec");
  const auto* f = spec != nullptr ? spec->if_contains("finalizers") : nullptr;
  return f != nullptr && f->is_array() && !f->get_array().empty();
}

// kube's markAsDeleting (+ the namespace strategy's Terminating phase). Returns whether it changed.
bool MarkAsDeleting(const ResourceInfo& info, json::object& obj, Clock& clock) {
  bool changed = false;
  auto& meta = EnsureObject(obj, "metadata");
  if (!meta.contains("deletionTimestamp")) {
    if (const auto* g = meta.if_contains("generation"); g != nullptr && g->is_int64() && g->get_int64() > 0) {
      meta["generation"] = g->get_int64() + 1;
    }
    meta["deletionTimestamp"] = FormatTime(clock.WallNow());
    changed = true;
  }
  // The namespace registry marks its objects itself, without a grace period.
  if (const auto* grace = meta.if_contains("deletionGracePeriodSeconds");
      KindOf(info) != BuiltinKind::kNamespace && (grace == nullptr || !grace->is_int64() || grace->get_int64() != 0)) {
    meta["deletionGracePeriodSeconds"] = 0;
    changed = true;
  }
  if (KindOf(info) == BuiltinKind::kNamespace) {
    auto& status = EnsureObject(obj, "status");
    if (StringAt(status, "phase") != "Terminating") {
      status["phase"] = "Terminating";
      changed = true;
    }
  }
  return changed;
}

Result<void> CheckPreconditions(const ResourceInfo& info, std::string_view name, const DeleteOptions& opts,
                                const json::object& current) {
  if (!opts.preconditions) return Ok();
  const auto& meta = MetadataOf(current);
  const GroupResource by_kind{info.group, info.kind};  // kube names the Kind here
  const auto uid = StringAt(meta, "uid");
  const auto rv = StringAt(meta, "resourceVersion");
  if (opts.preconditions->uid && *opts.preconditions->uid != uid) {
    return NewConflict(by_kind, name,
                       "the UID in the precondition (" + *opts.preconditions->uid +
                           ") does not match the UID in record (" + std::string(uid) +
                           "). The object might have been deleted and then recreated");
  }
  if (opts.preconditions->resource_version && *opts.preconditions->resource_version != rv) {
    return NewConflict(by_kind, name,
                       "the ResourceVersion in the precondition (" + *opts.preconditions->resource_version +
                           ") does not match the ResourceVersion in record (" + std::string(rv) +
                           "). The object might have been modified");
  }
  return Ok();
}

Result<Revision> WriteStamped(const Env& env, const ResourceInfo& info, std::string_view name, const KeyValue& kv,
                              json::object obj, std::string* stored) {
  NormalizeMemberOrder(obj);
  const StampedJson stamped(std::move(obj));
  auto rev = env.storage.Update(kv.key, kv.mod_revision,
                                [&](Revision rv) -> Result<std::string> { return stamped.At(rv); });
  if (!rev.ok()) return MapStorageError(rev.error(), info.Gr(), name);
  *stored = stamped.At(*rev);
  return rev;
}

}  // namespace

bool RemoveFinalizer(json::object& obj, std::string_view finalizer) {
  std::vector<std::string> f = Finalizers(obj);
  const auto before = f.size();
  f.erase(std::remove(f.begin(), f.end(), finalizer), f.end());
  if (f.size() == before) return false;
  SetFinalizers(obj, f);
  return true;
}

namespace {

std::optional<int64_t> IntMember(const json::object& obj, std::string_view key) {
  const auto* v = obj.if_contains(key);
  if (v == nullptr || !v->is_int64()) return std::nullopt;
  return v->get_int64();
}

// The pod strategy's CheckGracefulDelete: the requested period, else the pod's
// terminationGracePeriodSeconds (else 0); 0 for a pod never scheduled or already finished; a
// negative period is 1.
int64_t PodGracePeriod(const json::object& pod, const DeleteOptions& opts) {
  const json::object empty;
  const auto* spec = ObjectAt(pod, "spec");
  const auto* status = ObjectAt(pod, "status");
  int64_t period = opts.grace_period_seconds.value_or(
      IntMember(spec != nullptr ? *spec : empty, "terminationGracePeriodSeconds").value_or(0));
  if (spec == nullptr || StringAt(*spec, "nodeName").empty()) period = 0;
  const auto phase = status != nullptr ? StringAt(*status, "phase") : std::string_view();
  if (phase == "Failed" || phase == "Succeeded") period = 0;
  return period < 0 ? 1 : period;
}

enum class Graceful { kNo, kPending, kMarked };

// kube's rest.BeforeDelete for the pods' graceful strategy: a first delete with a period marks
// the pod (deletionTimestamp = now + period); a later one may only shorten the period. kNo: go
// on as for any object (delete it, or mark it for its finalizers).
Graceful BeforeGracefulDelete(json::object& pod, const DeleteOptions& opts, Clock& clock) {
  auto& meta = EnsureObject(pod, "metadata");
  if (meta.contains("deletionTimestamp")) {
    const auto current = IntMember(meta, "deletionGracePeriodSeconds");
    if (!current || *current == 0) return Graceful::kNo;
    if (!opts.grace_period_seconds) return Graceful::kPending;
    const int64_t period = *opts.grace_period_seconds < 0 ? 1 : *opts.grace_period_seconds;
    if (period >= *current) return Graceful::kPending;
    auto when = ParseTime(StringAt(meta, "deletionTimestamp"));
    const auto base = when.ok() ? *when : clock.WallNow();
    meta["deletionTimestamp"] = FormatTime(base - std::chrono::seconds(*current) + std::chrono::seconds(period));
    meta["deletionGracePeriodSeconds"] = period;
    return Graceful::kMarked;
  }
  const int64_t period = PodGracePeriod(pod, opts);
  if (period == 0) return Graceful::kNo;
  meta["deletionTimestamp"] = FormatTime(clock.WallNow() + std::chrono::seconds(period));
  meta["deletionGracePeriodSeconds"] = period;
  return Graceful::kMarked;
}

}  // namespace

Result<DeleteOutcome> DeleteObject(const Env& env, const ResourceInfo& info, std::string_view ns,
                                   std::string_view name, const DeleteOptions& opts, bool dry_run) {
  const std::string key = info.StorageKey(ns, name);
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    auto kv = env.storage.Get(key);
    if (!kv.ok()) return MapStorageError(kv.error(), info.Gr(), name);
    auto current = ParseStored(*kv->value);
    if (!current.ok()) return std::move(current).error();
    KUBE_RETURN_IF_ERROR(CheckPreconditions(info, name, opts, *current));
    const std::string uid(StringAt(MetadataOf(*current), "uid"));
    json::object obj = *current;
    if (KindOf(info) == BuiltinKind::kPod) {
      const Graceful graceful = BeforeGracefulDelete(obj, opts, env.clock);
      if (graceful == Graceful::kPending) return DeleteOutcome{*kv->value, false, uid};
      if (graceful == Graceful::kMarked) {
        // The pod stays until its kubelet deletes it with a period of 0 (a period shortened to 0
        // is that delete: the marked pod is written, then deleted).
        ApplyGcFinalizers(info, obj, opts);
        const bool now = IntMember(MetadataOf(obj), "deletionGracePeriodSeconds").value_or(0) == 0;
        if (dry_run) {
          NormalizeMemberOrder(obj);
          return DeleteOutcome{json::serialize(obj), false, uid};
        }
        std::string stored;
        auto rev = WriteStamped(env, info, name, *kv, std::move(obj), &stored);
        if (!rev.ok()) {
          if (IsConflict(rev.error())) continue;
          return std::move(rev).error();
        }
        if (now) continue;  // delete it, as marked
        return DeleteOutcome{std::move(stored), false, uid};
      }
    }
    bool changed = ApplyGcFinalizers(info, obj, opts);
    if (HasPendingFinalizers(info, obj)) {
      changed = MarkAsDeleting(info, obj, env.clock) || changed;
      if (!changed) return DeleteOutcome{*kv->value, false, uid};
      if (dry_run) {
        NormalizeMemberOrder(obj);
        return DeleteOutcome{json::serialize(obj), false, uid};
      }
      std::string stored;
      auto rev = WriteStamped(env, info, name, *kv, std::move(obj), &stored);
      if (!rev.ok()) {
        if (IsConflict(rev.error())) continue;  // changed since read: decide again
        return std::move(rev).error();
      }
      return DeleteOutcome{std::move(stored), false, uid};
    }
    auto deleted = DeleteStored(env, info.Gr(), name, *kv, dry_run);
    if (!deleted.ok()) {
      if (IsConflict(deleted.error())) continue;
      return std::move(deleted).error();
    }
    return DeleteOutcome{std::move(deleted->stored), true, uid};
  }
  return NewConflict(info.Gr(), name, kOptimisticLockErrorMsg);
}

Result<std::string> MutateObject(const Env& env, const ResourceInfo& info, std::string_view ns, std::string_view name,
                                 std::optional<std::string_view> uid, const MutateFn& fn) {
  const std::string key = info.StorageKey(ns, name);
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    auto kv = env.storage.Get(key);
    if (!kv.ok()) {
      if (IsNotFound(kv.error())) return std::string();
      return std::move(kv).error();
    }
    auto current = ParseStored(*kv->value);
    if (!current.ok()) return std::move(current).error();
    if (uid && StringAt(MetadataOf(*current), "uid") != *uid) return std::string();
    json::object obj = *current;
    auto changed = fn(obj);
    if (!changed.ok()) return std::move(changed).error();
    if (!*changed) return *kv->value;
    if (ShouldDeleteDuringUpdate(info, obj, *current)) {
      auto deleted = DeleteStored(env, info.Gr(), name, *kv, false);
      if (deleted.ok() || IsNotFound(deleted.error())) return std::string();
      if (IsConflict(deleted.error())) continue;
      return std::move(deleted).error();
    }
    std::string stored;
    auto rev = WriteStamped(env, info, name, *kv, std::move(obj), &stored);
    if (rev.ok()) return stored;
    if (IsNotFound(rev.error())) return std::string();
    if (!IsConflict(rev.error())) return std::move(rev).error();
  }
  return NewConflict(info.Gr(), name, kOptimisticLockErrorMsg);
}

}  // namespace kube::apiserver::rest
