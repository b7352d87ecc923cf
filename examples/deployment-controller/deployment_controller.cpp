#include "deployment_controller.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <climits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <kube/api/equality.hpp>
#include <kube/base/error.hpp>
#include <kube/controller/typed.hpp>

#include "objects.hpp"
#include "rollout.hpp"

namespace deployctl {

using kube::controller::ReconcileResult;

namespace {

using ReplicaSetPtr = std::shared_ptr<const appsv1::ReplicaSet>;

std::int64_t ParseInt64(std::string_view text) {
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && ptr == text.data() + text.size() ? v : 0;
}

std::int64_t Revision(const metav1::ObjectMeta& meta) {
  auto it = meta.annotations.find(std::string(kRevisionAnnotation));
  return it == meta.annotations.end() ? 0 : ParseInt64(it->second);
}

ReplicaSetCounts Counts(const appsv1::ReplicaSet& rs) {
  return {.name = rs.metadata.name,
          .spec_replicas = rs.spec.replicas.value_or(1),
          .status_replicas = rs.status.replicas,
          .available_replicas = rs.status.availableReplicas.value_or(0)};
}

HistoryEntry History(const appsv1::ReplicaSet& rs) {
  return {.name = rs.metadata.name,
          .revision = Revision(rs.metadata),
          .spec_replicas = rs.spec.replicas.value_or(1),
          .status_replicas = rs.status.replicas,
          .synced = rs.status.observedGeneration.value_or(0) >= rs.metadata.generation,
          .deleting = IsBeingDeleted(rs)};
}

// The Deployment's spec with kube's defaults, and what follows from it.
struct Spec {
  std::int32_t replicas = 1;
  kube::LabelSelector selector{};
  bool recreate = false;
  Fenceposts fenceposts{};
  // kube's MaxUnavailable: 0 for Recreate or zero replicas, never above spec.replicas.
  std::int32_t max_unavailable = 0;
  bool paused = false;
  std::int32_t min_ready_seconds = 0;
  std::int32_t revision_history_limit = 10;
  std::optional<std::chrono::seconds> progress_deadline = std::chrono::seconds(600);
};

// Errors: an invalid selector or rolling-update parameter (the caller makes them terminal).
kube::Result<Spec> ReadSpec(const appsv1::Deployment& d) {
  Spec s;
  s.replicas = d.spec.replicas.value_or(1);
  auto selector = SelectorOf(d.spec.selector);
  if (!selector) return std::move(selector).error();
  if (selector->Empty()) return kube::BadRequest("empty selector is invalid for deployment");
  s.selector = std::move(*selector);
  s.recreate = d.spec.strategy.type.value_or("RollingUpdate") == "Recreate";
  if (!s.recreate) {
    const auto& rolling = d.spec.strategy.rollingUpdate;
    auto f = ResolveFenceposts(rolling ? rolling->maxSurge : std::nullopt,
                               rolling ? rolling->maxUnavailable : std::nullopt, s.replicas);
    if (!f) return std::move(f).error();
    s.fenceposts = *f;
  }
  s.max_unavailable = s.recreate || s.replicas == 0 ? 0 : std::min(s.fenceposts.max_unavailable, s.replicas);
  s.paused = d.spec.paused.value_or(false);
  s.min_ready_seconds = d.spec.minReadySeconds.value_or(0);
  s.revision_history_limit = d.spec.revisionHistoryLimit.value_or(10);
  const std::int32_t deadline = d.spec.progressDeadlineSeconds.value_or(600);
  s.progress_deadline = deadline == INT32_MAX ? std::nullopt : std::optional<std::chrono::seconds>(deadline);
  return s;
}

// The ReplicaSet annotations kube's deployment controller keeps (SetReplicasAnnotations).
void SetReplicasAnnotations(appsv1::ReplicaSet& rs, const Spec& spec) {
  rs.metadata.annotations[std::string(kDesiredReplicasAnnotation)] = std::to_string(spec.replicas);
  rs.metadata.annotations[std::string(kMaxReplicasAnnotation)] =
      std::to_string(spec.replicas + spec.fenceposts.max_surge);
}

// kube's getNewReplicaSet, the object: the ReplicaSet of `d`'s current template, named
// `<deployment>-<hash>`, the hash label added to its selector, its labels and its template
// (so to its pods), controlled by `d`.
kube::Result<appsv1::ReplicaSet> DesiredReplicaSet(const appsv1::Deployment& d, const Spec& spec,
                                                   const std::string& hash, std::int32_t replicas,
                                                   std::int64_t revision) {
  const std::string label(kPodTemplateHashLabel);
  appsv1::ReplicaSet rs;
  rs.metadata.name = d.metadata.name + "-" + hash;
  rs.metadata.namespace_ = d.metadata.namespace_;
  rs.spec.template_ = d.spec.template_;
  rs.spec.template_.metadata.labels[label] = hash;
  rs.metadata.labels = rs.spec.template_.metadata.labels;
  rs.metadata.annotations[std::string(kRevisionAnnotation)] = std::to_string(revision);
  SetReplicasAnnotations(rs, spec);
  rs.spec.replicas = replicas;
  rs.spec.selector = d.spec.selector;
  rs.spec.selector.matchLabels[label] = hash;
  if (spec.min_ready_seconds > 0) rs.spec.minReadySeconds = spec.min_ready_seconds;
  KUBE_RETURN_IF_ERROR(kube::controller::SetControllerReference(d, rs));
  return rs;
}

const appsv1::DeploymentCondition* FindCondition(const std::vector<appsv1::DeploymentCondition>& conditions,
                                                 std::string_view type) {
  for (const auto& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

// kube's SetDeploymentCondition (DeploymentCondition, not metav1.Condition: it also carries
// lastUpdateTime): an unchanged condition keeps both times unless `refresh` (progress was made);
// a changed reason or message with the same status keeps lastTransitionTime.
void SetDeploymentCondition(std::vector<appsv1::DeploymentCondition>& conditions, std::string_view type,
                            std::string_view status, std::string_view reason, std::string_view message,
                            kube::api::Time now, bool refresh = false) {
  for (auto& c : conditions) {
    if (c.type != type) continue;
    const bool same_status = c.status == status;
    if (same_status && c.reason == reason && c.message == message && !refresh) return;
    c.status = status;
    c.reason = std::string(reason);
    c.message = std::string(message);
    c.lastUpdateTime = now;
    if (!same_status) c.lastTransitionTime = now;
    return;
  }
  conditions.push_back({.lastTransitionTime = now,
                        .lastUpdateTime = now,
                        .message = std::string(message),
                        .reason = std::string(reason),
                        .status = std::string(status),
                        .type = std::string(type)});
}

// A count of DeploymentStatus: zero is omitted, as kube serializes it (omitempty).
std::optional<std::int32_t> Count(std::int64_t v) {
  if (v <= 0) return std::nullopt;
  return static_cast<std::int32_t>(std::min<std::int64_t>(v, INT32_MAX));
}

// kube's calculateStatus: `status` (the Deployment's current one, kept for its conditions and
// collisionCount) with the counts of the ReplicaSets and observedGeneration.
appsv1::DeploymentStatus CalculateStatus(const appsv1::Deployment& d, const ReplicaSetPtr& new_rs,
                                         const std::vector<ReplicaSetPtr>& old_rss) {
  std::int64_t replicas = 0, ready = 0, available = 0, spec_total = 0;
  auto add = [&](const appsv1::ReplicaSet& rs) {
    replicas += rs.status.replicas;
    ready += rs.status.readyReplicas.value_or(0);
    available += rs.status.availableReplicas.value_or(0);
    spec_total += rs.spec.replicas.value_or(1);
  };
  if (new_rs != nullptr) add(*new_rs);
  for (const auto& rs : old_rss) add(*rs);
  appsv1::DeploymentStatus status = d.status;
  status.observedGeneration = d.metadata.generation;
  status.replicas = Count(replicas);
  status.updatedReplicas = Count(new_rs != nullptr ? new_rs->status.replicas : 0);
  status.readyReplicas = Count(ready);
  status.availableReplicas = Count(available);
  status.unavailableReplicas = Count(spec_total - available);
  return status;
}

// After an AlreadyExists creating `name`: when the live ReplicaSet of that name is not `d`'s for
// its current template, it is a hash collision, and `status.collisionCount` is bumped so that
// the next attempt computes another name (kube does the same). Ours but not in the cache yet:
// nothing to do, the retry finds it.
kube::Result<void> HandleNameCollision(kube::controller::Client& client, kube::controller::ReconcileContext& ctx,
                                       const appsv1::Deployment& d, const std::string& name) {
  kube::client::TypedApi<appsv1::ReplicaSet> live_rss(
      client.Api(kube::client::ResourceOf<appsv1::ReplicaSet>(), d.metadata.namespace_));
  auto live = live_rss.Get(name);
  if (!live || (IsControlledBy(*live, d.metadata.uid) && EqualIgnoreHash(live->spec.template_, d.spec.template_))) {
    return kube::Ok();
  }
  appsv1::Deployment bumped = d;
  bumped.status.collisionCount = d.status.collisionCount.value_or(0) + 1;
  auto written = client.UpdateStatus(bumped);
  if (!written) return std::move(written).error();
  ctx.log.Info("replica set name collision", {{"replicaSet", name}});
  return kube::Ok();
}

// kube's cleanupDeployment: old ReplicaSets scaled to zero beyond `limit` go, oldest revision
// first; one scaled up or re-created since it was read is not deleted (preconditions).
kube::Result<void> CleanupDeployment(kube::controller::Client& client, kube::controller::ReconcileContext& ctx,
                                     const std::vector<ReplicaSetPtr>& old_rss, std::int32_t limit) {
  std::vector<HistoryEntry> history;
  for (const auto& rs : old_rss) history.push_back(History(*rs));
  for (const auto& name : RevisionHistoryToDelete(std::move(history), limit)) {
    auto it = std::find_if(old_rss.begin(), old_rss.end(),
                           [&](const ReplicaSetPtr& rs) { return rs->metadata.name == name; });
    const appsv1::ReplicaSet& rs = **it;  // RevisionHistoryToDelete only names members of old_rss
    const kube::Preconditions unchanged{.uid = rs.metadata.uid, .resource_version = rs.metadata.resourceVersion};
    auto deleted = client.Delete(rs, {.preconditions = unchanged});
    if (!deleted && !kube::IsNotFound(deleted.error())) return deleted.error();
    ctx.log.Info("deleted old replica set", {{"replicaSet", name}, {"revision", Revision(rs.metadata)}});
  }
  return kube::Ok();
}

}  // namespace

void DeploymentReconciler::RecordWrite(const std::string& deployment, const std::string& rs, std::string_view rv) {
  kube::MutexLock lock(mu_);
  written_[deployment][rs] = ParseInt64(rv);
}

bool DeploymentReconciler::CacheCaughtUp(const std::string& deployment,
                                         const std::map<std::string, std::string>& cached_rvs) {
  kube::MutexLock lock(mu_);
  auto it = written_.find(deployment);
  if (it == written_.end()) return true;
  // A written ReplicaSet missing from the cache is not waited for: if it is new, creating it
  // again fails with AlreadyExists (and retries); if it was deleted, there is nothing to see.
  std::erase_if(it->second, [&](const auto& entry) {
    auto cached = cached_rvs.find(entry.first);
    return cached == cached_rvs.end() || ParseInt64(cached->second) >= entry.second;
  });
  const bool caught_up = it->second.empty();
  if (caught_up) written_.erase(it);
  return caught_up;
}

void DeploymentReconciler::Forget(const std::string& deployment) {
  kube::MutexLock lock(mu_);
  written_.erase(deployment);
}

kube::Result<ReconcileResult> DeploymentReconciler::Reconcile(kube::controller::ReconcileContext& ctx,
                                                              const kube::controller::Request& request) {
  const std::string dkey = request.String();
  auto got = client_.Get<appsv1::Deployment>(request.key, ctx.stop);
  if (!got) {
    if (!kube::IsNotFound(got.error())) return got.error();
    Forget(dkey);
    return ReconcileResult::Done();
  }
  appsv1::Deployment& d = *got;
  if (IsBeingDeleted(d)) return ReconcileResult::Done();  // the garbage collector takes the ReplicaSets
  auto spec_or = ReadSpec(d);
  if (!spec_or) return kube::controller::TerminalError(spec_or.error());
  const Spec& spec = *spec_or;

  // The Deployment's ReplicaSets, as the cache shows them; decide nothing on a view that
  // misses our own last writes (it could scale a ReplicaSet twice).
  auto listed = client_.List<appsv1::ReplicaSet>({.ns = d.metadata.namespace_, .selector = spec.selector}, ctx.stop);
  if (!listed) return listed.error();
  std::vector<ReplicaSetPtr> owned;
  std::map<std::string, std::string> cached_rvs;
  for (const auto& rs : *listed) {
    if (!IsControlledBy(*rs, d.metadata.uid)) continue;
    owned.push_back(rs);
    cached_rvs.emplace(rs->metadata.name, rs->metadata.resourceVersion);
  }
  if (!CacheCaughtUp(dkey, cached_rvs)) {
    ctx.log.Debug("waiting for the cache to show our ReplicaSet writes");
    return ReconcileResult::RequeueAfter(std::chrono::seconds(1));  // the ReplicaSet's event comes first
  }
  std::sort(owned.begin(), owned.end(), [](const ReplicaSetPtr& a, const ReplicaSetPtr& b) {
    return std::tie(a->metadata.creationTimestamp, a->metadata.name) <
           std::tie(b->metadata.creationTimestamp, b->metadata.name);
  });
  ReplicaSetPtr new_rs;
  std::vector<ReplicaSetPtr> old_rss;
  std::int64_t max_old_revision = 0;
  for (const auto& rs : owned) {
    if (new_rs == nullptr && EqualIgnoreHash(rs->spec.template_, d.spec.template_)) {
      new_rs = rs;
    } else {
      old_rss.push_back(rs);
      max_old_revision = std::max(max_old_revision, Revision(rs->metadata));
    }
  }
  std::vector<ReplicaSetCounts> old_counts;
  for (const auto& rs : old_rss) old_counts.push_back(Counts(*rs));

  auto step = [&](const ReplicaSetCounts& n) {
    return spec.recreate ? RecreateStep(spec.replicas, n, old_counts)
                         : RollingUpdateStep(spec.replicas, spec.fenceposts, n, old_counts);
  };
  auto record_scaling = [&](const std::string& name, std::int32_t from, std::int32_t to) {
    kube::controller::RecordEventf(recorder_, d, kube::controller::EventType::kNormal, "ScalingReplicaSet",
                "Scaled {} replica set {} from {} to {}", to > from ? "up" : "down", name, from, to);
    ctx.log.Info("scaled replica set", {{"replicaSet", name}, {"from", from}, {"to", to}});
  };

  // The new ReplicaSet: create it, or bring its revision and minReadySeconds up to date.
  bool created_new = false;
  std::vector<ScaleChange> changes;
  if (new_rs == nullptr && spec.paused) {
    // A paused Deployment does not start a rollout: no new ReplicaSet, scaling only.
    changes = PausedScaleStep(spec.replicas, nullptr, old_counts);
  } else if (new_rs == nullptr) {
    const std::string hash = ComputePodTemplateHash(d.spec.template_, d.status.collisionCount);
    const std::string name = d.metadata.name + "-" + hash;
    changes = step(ReplicaSetCounts{.name = name});
    std::int32_t initial = 0;
    std::erase_if(changes, [&](const ScaleChange& c) {
      if (c.name != name) return false;
      initial = c.to;
      return true;
    });
    auto desired = DesiredReplicaSet(d, spec, hash, initial, max_old_revision + 1);
    if (!desired) return desired.error();
    auto created = client_.Create(*desired);
    if (!created) {
      if (kube::IsAlreadyExists(created.error())) {
        KUBE_RETURN_IF_ERROR(HandleNameCollision(client_, ctx, d, name));
      }
      return created.error();  // retried: with the ReplicaSet in the cache, or under another name
    }
    new_rs = std::make_shared<const appsv1::ReplicaSet>(std::move(*created));
    RecordWrite(dkey, name, new_rs->metadata.resourceVersion);
    created_new = true;
    if (initial > 0) record_scaling(name, 0, initial);
  } else {
    // A rollback to an old template becomes the newest revision again; the ReplicaSet follows
    // the Deployment's minReadySeconds (kube's getNewReplicaSet).
    appsv1::ReplicaSet updated = *new_rs;
    if (Revision(updated.metadata) <= max_old_revision) {
      updated.metadata.annotations[std::string(kRevisionAnnotation)] = std::to_string(max_old_revision + 1);
    }
    if (updated.spec.minReadySeconds.value_or(0) != spec.min_ready_seconds) {
      updated.spec.minReadySeconds = spec.min_ready_seconds;
    }
    if (!kube::api::SemanticEqual(updated, *new_rs)) {
      auto written = client_.Update(updated);
      if (!written) return written.error();
      new_rs = std::make_shared<const appsv1::ReplicaSet>(std::move(*written));
      RecordWrite(dkey, new_rs->metadata.name, new_rs->metadata.resourceVersion);
    }
    const ReplicaSetCounts counts = Counts(*new_rs);
    changes = spec.paused ? PausedScaleStep(spec.replicas, &counts, old_counts) : step(counts);
  }

  // Resize ReplicaSets (optimistic concurrency: a stale resourceVersion fails with 409).
  for (const auto& change : changes) {
    ReplicaSetPtr* target = nullptr;
    if (new_rs != nullptr && new_rs->metadata.name == change.name) target = &new_rs;
    for (auto& rs : old_rss) {
      if (rs->metadata.name == change.name) target = &rs;
    }
    if (target == nullptr) continue;
    appsv1::ReplicaSet scaled = **target;
    scaled.spec.replicas = change.to;
    SetReplicasAnnotations(scaled, spec);
    auto written = client_.Update(scaled);
    if (!written) return written.error();
    *target = std::make_shared<const appsv1::ReplicaSet>(std::move(*written));
    RecordWrite(dkey, change.name, (*target)->metadata.resourceVersion);
    record_scaling(change.name, change.from, change.to);
  }

  // The Deployment carries the revision of its newest ReplicaSet.
  std::optional<appsv1::Deployment> annotated;  // the Deployment as last written, when patched
  const std::string revision_key(kRevisionAnnotation);
  const std::string revision = new_rs != nullptr ? std::to_string(Revision(new_rs->metadata)) : std::string();
  if (new_rs != nullptr && (!d.metadata.annotations.contains(revision_key) ||
                            d.metadata.annotations.at(revision_key) != revision)) {
    appsv1::Deployment with_revision = d;
    with_revision.metadata.annotations[revision_key] = revision;
    auto patched = client_.Patch(with_revision, kube::controller::MergeFrom(d));
    if (!patched) return patched.error();
    annotated = std::move(*patched);
  }

  // Status and conditions.
  appsv1::DeploymentStatus status = CalculateStatus(d, new_rs, old_rss);
  const std::int32_t replicas = status.replicas.value_or(0);
  const std::int32_t updated_replicas = status.updatedReplicas.value_or(0);
  const std::int32_t available = status.availableReplicas.value_or(0);
  const kube::api::Time now = ApiTime(clock_.WallNow());
  if (available >= spec.replicas - spec.max_unavailable) {
    SetDeploymentCondition(status.conditions, "Available", "True", "MinimumReplicasAvailable",
                           "Deployment has minimum availability.", now);
  } else {
    SetDeploymentCondition(status.conditions, "Available", "False", "MinimumReplicasUnavailable",
                           "Deployment does not have minimum availability.", now);
  }
  const bool complete = new_rs != nullptr && updated_replicas == spec.replicas && replicas == spec.replicas &&
                        available == spec.replicas && new_rs->spec.replicas.value_or(1) == spec.replicas;
  const bool progressed = !changes.empty() || d.status.updatedReplicas.value_or(0) != updated_replicas ||
                          d.status.availableReplicas.value_or(0) != available ||
                          d.status.replicas.value_or(0) != replicas;
  const appsv1::DeploymentCondition* progressing = FindCondition(status.conditions, "Progressing");
  const ProgressDecision progress = NextProgressing(
      {.paused = spec.paused,
       .deadline = spec.progress_deadline,
       .current_reason = progressing != nullptr ? progressing->reason.value_or("") : std::string(),
       .last_update = progressing != nullptr && progressing->lastUpdateTime
                          ? std::optional<kube::Clock::WallTime>(progressing->lastUpdateTime->time)
                          : std::nullopt,
       .now = clock_.WallNow(),
       .created_new = created_new,
       .complete = complete,
       .progressed = progressed,
       .rs_name = new_rs != nullptr ? new_rs->metadata.name : std::string()});
  for (const auto& u : progress.updates) {
    SetDeploymentCondition(status.conditions, "Progressing", u.status, u.reason, u.message, now, u.refresh);
  }

  // Once a rollout is complete (or while paused), the revision history is trimmed.
  if (complete || spec.paused) {
    KUBE_RETURN_IF_ERROR(CleanupDeployment(client_, ctx, old_rss, spec.revision_history_limit));
  }
  if (!kube::api::SemanticEqual(status, d.status)) {
    appsv1::Deployment& current = annotated ? *annotated : d;  // its resourceVersion for /status
    current.status = std::move(status);
    auto written = WriteStatus(client_, current);
    if (!written) return written.error();
  }
  if (progress.recheck_after) return ReconcileResult::RequeueAfter(*progress.recheck_after);
  return ReconcileResult::Done();
}

}  // namespace deployctl
