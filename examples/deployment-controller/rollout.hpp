#pragma once
/// \file
/// The pure arithmetic of the deployment controller, kept free of I/O so that unit tests can
/// drive it: the pod-template hash, maxSurge / maxUnavailable resolution and one step of a
/// rolling or recreate rollout. The rules follow kube's `pkg/controller/deployment`.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

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

/// `v` serialized with the members of every object sorted by key and null members dropped, so
/// that two equal documents hash alike whatever order their members arrived in, and a member
/// set to null (`"creationTimestamp": null`, as kubectl writes templates) equals an absent one.
std::string CanonicalJson(const boost::json::value& v);

/// kube's `rand.SafeEncodeString`: every byte mapped into the alphabet
/// `bcdfghjklmnpqrstvwxz2456789` (no vowels, no look-alikes), so hashes never spell words.
std::string SafeEncodeString(std::string_view s);

/// The `pod-template-hash` of a pod template (`spec.template` of a Deployment): FNV-1a over the
/// canonical JSON of the template without its own `pod-template-hash` label, then the
/// `collision_count` (as 4 little-endian bytes) when set, rendered in decimal and safe-encoded,
/// as kube does. Stable across runs and processes: the same template always gives the same hash.
std::string ComputePodTemplateHash(const boost::json::value& pod_template,
                                   std::optional<std::int64_t> collision_count);

/// True when two pod templates are equal once the `pod-template-hash` label is ignored (kube's
/// `EqualIgnoreHash`): how the controller finds the ReplicaSet of the current template.
bool EqualIgnoreHash(const boost::json::value& a, const boost::json::value& b);

/// kube's `GetScaledValueFromIntOrPercent`: an integer is taken as is; a string "N%" is N percent
/// of `total`, rounded up when `round_up`, else down. A missing value (nullptr or null) is 0.
/// **Errors:** BadRequest for a negative value, a string that is not "<digits>%", or another type.
kube::Result<std::int32_t> ScaledValueFromIntOrPercent(const boost::json::value* value, std::int32_t total,
                                                       bool round_up);

/// The resolved bounds of a rolling update.
struct Fenceposts {
  std::int32_t max_surge = 0;        ///< pods allowed above spec.replicas
  std::int32_t max_unavailable = 0;  ///< pods allowed to be unavailable below spec.replicas
  bool operator==(const Fenceposts&) const = default;
};

/// kube's `ResolveFenceposts`: maxSurge rounds up, maxUnavailable rounds down, both of
/// `desired`; when both resolve to zero, maxUnavailable becomes 1 so the rollout can progress.
/// **Errors:** as ScaledValueFromIntOrPercent.
kube::Result<Fenceposts> ResolveFenceposts(const boost::json::value* max_surge,
                                           const boost::json::value* max_unavailable, std::int32_t desired);

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

}  // namespace deployctl
