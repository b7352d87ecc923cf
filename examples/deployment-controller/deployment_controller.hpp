#pragma once
/// \file
/// The Deployment controller of the example: Deployment -> ReplicaSets named
/// `<deployment>-<pod-template-hash>`, scaling, RollingUpdate (maxSurge / maxUnavailable) and
/// Recreate rollouts, revisions, status and conditions, ScalingReplicaSet events.

#include <cstdint>
#include <map>
#include <string>

#include <kube/base/clock.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/thread_annotations.hpp>
#include <kube/controller/client.hpp>
#include <kube/controller/event_recorder.hpp>
#include <kube/controller/reconciler.hpp>

namespace deployctl {

/// Reconciles one Deployment (typed: `apps::v1::Deployment` and `ReplicaSet` from the cache):
/// 1. lists its ReplicaSets (selector match + controller ownerReference to it) from the cache;
///    when the cache does not show a ReplicaSet write of this controller yet (its
///    resourceVersion is older than the one the write returned), nothing is decided from the
///    stale view: the reconcile waits for the ReplicaSet's event (or a 1 s requeue);
/// 2. finds the ReplicaSet whose template equals the Deployment's (ignoring
///    `pod-template-hash`), or creates it: name `<deployment>-<hash>`, the hash label added to
///    its selector, template labels and so to its pods, a controller ownerReference
///    (`SetControllerReference`, blockOwnerDeletion), revision annotation = highest old
///    revision + 1; an AlreadyExists of a ReplicaSet that is not ours bumps
///    `status.collisionCount` (a new hash next time). An existing one whose revision or
///    minReadySeconds is stale is updated (only when `SemanticEqual` says it changed);
/// 3. takes one rollout step (`RollingUpdateStep` / `RecreateStep`) and writes the resized
///    ReplicaSets (PUT with the read resourceVersion: a 409 retries), recording
///    `ScalingReplicaSet` events ("Scaled up replica set X from A to B");
/// 4. writes the status through `/status` when it changed (`SemanticEqual`; a 409 re-reads the
///    Deployment from the server and tries once more): observedGeneration, replicas, updatedReplicas,
///    readyReplicas, availableReplicas, unavailableReplicas (zero counts omitted, as kube does),
///    conditions Available (MinimumReplicasAvailable / MinimumReplicasUnavailable) and
///    Progressing (NewReplicaSetCreated / FoundNewReplicaSet / ReplicaSetUpdated /
///    NewReplicaSetAvailable / ReplicaSetUpdated, and NextProgressing's DeploymentPaused /
///    DeploymentResumed / ProgressDeadlineExceeded); while a progress deadline is pending the
///    reconcile asks to run again when it falls due;
/// 5. once the rollout is complete (or while paused) deletes old ReplicaSets with no replicas
///    beyond `spec.revisionHistoryLimit` (default 10), oldest revision first.
/// `spec.paused` stops rollouts (no new ReplicaSet, no rollout step) but not scaling;
/// `spec.minReadySeconds` is copied to the ReplicaSets, whose availableReplicas (counted by the
/// ReplicaSet controller) drive availability and the rolling update's budget;
/// `spec.progressDeadlineSeconds` defaults to 600 (2147483647 = none).
/// Not implemented: proportional scaling (mid-rollout, or while paused with several active
/// ReplicaSets).
/// **Thread-safety:** Reconcile may run concurrently for different Deployments.
/// **Lifetime:** `client`, `recorder` and `clock` are borrowed and must outlive it.
class DeploymentReconciler final : public kube::controller::Reconciler {
 public:
  /// `clock` stamps condition times and measures the progress deadline.
  DeploymentReconciler(kube::controller::Client& client, kube::controller::EventRecorder& recorder,
                       kube::Clock& clock)
      : client_(client), recorder_(recorder), clock_(clock) {}

  /// One reconcile of the Deployment. **Errors:** API errors (retried); an invalid selector
  /// or rolling-update parameter is a terminal error.
  kube::Result<kube::controller::ReconcileResult> Reconcile(kube::controller::ReconcileContext& ctx,
                                                            const kube::controller::Request& request) override;

 private:
  // Records the resourceVersion a ReplicaSet write returned; true if the cached `rs_rv` of
  // every written ReplicaSet of `deployment` has caught up (and forgets those that have).
  void RecordWrite(const std::string& deployment, const std::string& rs, std::string_view rv) KUBE_EXCLUDES(mu_);
  bool CacheCaughtUp(const std::string& deployment, const std::map<std::string, std::string>& cached_rvs)
      KUBE_EXCLUDES(mu_);
  void Forget(const std::string& deployment) KUBE_EXCLUDES(mu_);

  kube::controller::Client& client_;
  kube::controller::EventRecorder& recorder_;
  kube::Clock& clock_;
  kube::Mutex mu_;
  // Per Deployment key: ReplicaSet name -> resourceVersion of our last write not yet seen in
  // the cache. (The client's read-your-writes option would do this for Get, but not for List.)
  std::map<std::string, std::map<std::string, std::int64_t>> written_ KUBE_GUARDED_BY(mu_);
};

}  // namespace deployctl
