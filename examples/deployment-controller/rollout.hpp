#pragma once
/// \file
/// The pure arithmetic of the deployment controller, kept free of I/O so that unit tests can
/// drive it: the pod-template hash, maxSurge / maxUnavailable resolution and one step of a
/// rolling or recreate rollout. The rules follow kube's `pkg/controller/deployment`.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <kube/api/core/v1.hpp>
#include <kube/api/int_or_string.hpp>
#include <kube/base/clock.hpp>
#include <kube/base/result.hpp>

namespace deployctl {

/// The label that ties a ReplicaSet (selector and template) and its pods to one pod template.
inline constexpr std::string_view kPodTemplateHashLabel = "pod-template-hash";
/// The rollout revision of a ReplicaSet (and of its Deployment: the newest revision).
inline constexpr std::string_view kRevisionAnnotation = "deployment.kubernetes.io/revision";
/// The Deployment's spec.replicas when the ReplicaSet was last scaled by the controller.
inline constexpr std::string_view kDesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas";
/// spec.replicas + maxSurge when the ReplicaSet was last scaled by the controller.
inline constexpr std::string_view kMaxReplicasAnnotation = "deployment.kubernetes.io/max-replicas";

/// 32-bit FNV-1a of `data`, continuing from `state` (the offset basis by default).
std::uint32_t Fnv32a(std::string_view data, std::uint32_t state = 2166136261U);

/// kube's `rand.SafeEncodeString`: every byte mapped into the alphabet
/// `bcdfghjklmnpqrstvwxz2456789` (no vowels, no look-alikes), so hashes never spell words.
std::string SafeEncodeString(std::string_view s);

/// The `pod-template-hash` of a pod template (`spec.template` of a Deployment): FNV-1a over the
/// template's typed encoding (`kube::api::ToJson`, members in a fixed order, maps sorted) without
/// its own `pod-template-hash` label, then the `collision_count` (as 4 little-endian bytes) when
/// set, rendered in decimal and safe-encoded, as kube does. Stable across runs and processes:
/// the same template always gives the same hash, whatever order its members arrived in.
std::string ComputePodTemplateHash(const kube::api::core::v1::PodTemplateSpec& pod_template,
                                   std::optional<std::int32_t> collision_count);

/// True when two pod templates are semantically equal once the `pod-template-hash` label is
/// ignored (kube's `EqualIgnoreHash`): how the controller finds the ReplicaSet of the current
/// template.
bool EqualIgnoreHash(const kube::api::core::v1::PodTemplateSpec& a, const kube::api::core::v1::PodTemplateSpec& b);

/// kube's `GetScaledValueFromIntOrPercent` (`kube::api::GetScaledValueFromIntOrPercent`) with the
/// validation kube applies to maxSurge / maxUnavailable: an integer is taken as is; a string
/// "N%" is N percent of `total`, rounded up when `round_up`, else down. A missing value is 0.
/// **Errors:** BadRequest for a negative value or a string that is not "<digits>%".
kube::Result<std::int32_t> ScaledValueFromIntOrPercent(const std::optional<kube::api::IntOrString>& value,
                                                       std::int32_t total, bool round_up);

/// The resolved bounds of a rolling update.
struct Fenceposts {
  std::int32_t max_surge = 0;        ///< pods allowed above spec.replicas
  std::int32_t max_unavailable = 0;  ///< pods allowed to be unavailable below spec.replicas
  bool operator==(const Fenceposts&) const = default;
};

/// kube's `ResolveFenceposts`: maxSurge rounds up, maxUnavailable rounds down, both of
/// `desired`; when both resolve to zero, maxUnavailable becomes 1 so the rollout can progress.
/// **Errors:** as ScaledValueFromIntOrPercent.
kube::Result<Fenceposts> ResolveFenceposts(const std::optional<kube::api::IntOrString>& max_surge,
                                           const std::optional<kube::api::IntOrString>& max_unavailable,
                                           std::int32_t desired);

/// What the rollout arithmetic needs to know of one ReplicaSet.
struct ReplicaSetCounts {
  std::string name{};
  std::int32_t spec_replicas = 0;       ///< spec.replicas
  std::int32_t status_replicas = 0;     ///< status.replicas: the pods that exist now
  std::int32_t available_replicas = 0;  ///< status.availableReplicas
};

/// One ReplicaSet resize decided by a rollout step.
struct ScaleChange {
  std::string name{};
  std::int32_t from = 0;
  std::int32_t to = 0;
  bool operator==(const ScaleChange&) const = default;
};

/// One step of a RollingUpdate (kube's `rolloutRolling`): scale the new ReplicaSet up as far as
/// `desired + max_surge` allows, or, when it cannot grow, scale old ReplicaSets down — first
/// their unavailable pods, then available ones down to `desired - max_unavailable` available
/// pods. `old_rss` must be sorted oldest first (they are scaled down in that order).
///
/// Two deliberate tightenings of kube's rules, so that the bounds hold for the *pods that exist*
/// and not only for spec.replicas while ReplicaSet statuses lag: a ReplicaSet counts as
/// `max(spec, status.replicas)` pods (pods of a shrunk ReplicaSet count until they are gone),
/// and as `min(status.availableReplicas, spec)` available pods (a ReplicaSet deletes not-ready
/// pods first, so at most `spec` of its available pods remain).
/// A pure scaling event (no old pods left) sets the new ReplicaSet to `desired` directly, and a
/// new ReplicaSet above `desired` mid-rollout is clamped to `desired` (kube scales
/// proportionally there instead).
std::vector<ScaleChange> RollingUpdateStep(std::int32_t desired, Fenceposts fenceposts,
                                           const ReplicaSetCounts& new_rs,
                                           const std::vector<ReplicaSetCounts>& old_rss);

/// One step of a Recreate rollout: scale every old ReplicaSet to 0; once none has pods left,
/// scale the new one to `desired`.
std::vector<ScaleChange> RecreateStep(std::int32_t desired, const ReplicaSetCounts& new_rs,
                                      const std::vector<ReplicaSetCounts>& old_rss);

/// One step while the Deployment is paused (kube's `scale` during `sync`): no rollout, but a
/// changed `spec.replicas` still resizes the one active ReplicaSet (the only one with replicas,
/// else `new_rs`, else the newest old one). `new_rs` is nullptr when the current template has no
/// ReplicaSet (a paused Deployment does not create one). `old_rss` sorted oldest first. With
/// several active ReplicaSets (paused mid-rollout) nothing is resized: kube scales them
/// proportionally, which this example does not implement.
std::vector<ScaleChange> PausedScaleStep(std::int32_t desired, const ReplicaSetCounts* new_rs,
                                         const std::vector<ReplicaSetCounts>& old_rss);

/// What revision-history cleanup needs to know of one old ReplicaSet.
struct HistoryEntry {
  std::string name{};
  std::int64_t revision = 0;
  std::int32_t spec_replicas = 0;
  std::int32_t status_replicas = 0;
  bool synced = true;      ///< status.observedGeneration >= metadata.generation
  bool deleting = false;   ///< metadata.deletionTimestamp is set
};

/// kube's `cleanupDeployment`: of the old ReplicaSets not being deleted, the `size - limit`
/// lowest revisions are candidates, oldest revision first; a candidate that still has replicas
/// (spec or status) or whose status lags its spec is skipped (it is not replaced by a newer one).
/// Returns the names to delete. A negative `limit` is treated as 0.
std::vector<std::string> RevisionHistoryToDelete(std::vector<HistoryEntry> old_rss, std::int32_t limit);

/// The Progressing condition a reconcile should write.
struct ConditionUpdate {
  std::string status{};   ///< "True", "False" or "Unknown"
  std::string reason{};
  std::string message{};
  /// Refresh lastUpdateTime even when status, reason and message are unchanged (progress was
  /// made: kube's progress deadline counts from the last progress).
  bool refresh = false;
  bool operator==(const ConditionUpdate&) const = default;
};

/// The inputs of NextProgressing.
struct ProgressInput {
  bool paused = false;                 ///< spec.paused
  /// spec.progressDeadlineSeconds (default 600); nullopt = no deadline (kube's MaxInt32).
  std::optional<std::chrono::seconds> deadline = std::chrono::seconds(600);
  std::string current_reason{};        ///< reason of the current Progressing condition ("" = none)
  /// lastUpdateTime of the current Progressing condition.
  std::optional<kube::Clock::WallTime> last_update{};
  kube::Clock::WallTime now{};
  bool created_new = false;            ///< this reconcile created the new ReplicaSet
  bool complete = false;               ///< kube's DeploymentComplete of the new status
  bool progressed = false;             ///< ReplicaSets were resized or status counts moved
  std::string rs_name{};               ///< the new ReplicaSet
};

/// What NextProgressing decided.
struct ProgressDecision {
  /// Condition writes, in order (a resume writes DeploymentResumed before the rollout's own).
  std::vector<ConditionUpdate> updates{};
  /// Reconcile again after this long to check the progress deadline (kube's
  /// requeueStuckDeployment); nullopt = no check pending.
  std::optional<kube::Clock::Duration> recheck_after{};
};

/// The Progressing condition state machine (kube's checkPausedConditions + syncRolloutStatus):
/// paused -> Unknown/DeploymentPaused (a ProgressDeadlineExceeded stays); resumed ->
/// Unknown/DeploymentResumed; a created new ReplicaSet -> True/NewReplicaSetCreated; complete ->
/// True/NewReplicaSetAvailable; progress -> True/ReplicaSetUpdated (lastUpdateTime refreshed);
/// first sight -> True/FoundNewReplicaSet; no progress for `deadline` since lastUpdateTime ->
/// False/ProgressDeadlineExceeded `ReplicaSet "x" has timed out progressing.`. Without a
/// deadline the paused/resumed reasons and the timeout are not used.
ProgressDecision NextProgressing(const ProgressInput& in);

}  // namespace deployctl
