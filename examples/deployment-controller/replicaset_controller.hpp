#pragma once
/// \file
/// The ReplicaSet controller of the example: keeps `spec.replicas` pods of each ReplicaSet,
/// created from its template with `generateName` and a controller ownerReference, and reports
/// `status.replicas` / `fullyLabeledReplicas` / `readyReplicas` / `availableReplicas` /
/// `observedGeneration`.

#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include <kube/api/core/v1.hpp>
#include <kube/base/clock.hpp>
#include <kube/core/label_selector.hpp>

#include <kube/controller/client.hpp>
#include <kube/controller/event_recorder.hpp>
#include <kube/controller/reconciler.hpp>

#include "expectations.hpp"

namespace deployctl {

/// Lists the pods of namespace `ns` matching `selector` (the reconciler's view of the cache):
/// shared, immutable values, as `Client::List<corev1::Pod>` returns them.
using PodLister = std::function<kube::Result<std::vector<std::shared_ptr<const kube::api::core::v1::Pod>>>(
    const std::string& ns, const kube::LabelSelector& selector, std::stop_token stop)>;

/// Options of ReplicaSetReconciler.
struct ReplicaSetReconcilerOptions {
  /// Where pods are read from; empty = the client's informer cache. Tests inject a frozen view
  /// to make the cache deterministically stale.
  PodLister list_pods{};
  /// Pods created or deleted per reconcile at most (kube's burstReplicas). Default 500.
  std::int32_t burst_replicas = 500;
  /// "Now" for `spec.minReadySeconds` (a pod is available once Ready for that long); nullptr =
  /// RealClock. Its wall time is compared with the kubelet's Ready lastTransitionTime, so it
  /// should be the kubelet's clock. Must outlive the reconciler.
  kube::Clock* clock = nullptr;
};

/// Reconciles one ReplicaSet: reads it (`apps::v1::ReplicaSet`) and its pods (`core::v1::Pod`:
/// those matching its selector whose controller is this ReplicaSet) from the cache, creates
/// missing pods or deletes surplus ones (not-ready before ready, newer before older), then
/// writes the status through `/status` with the read resourceVersion (a 409 re-reads the
/// ReplicaSet from the server and tries once more; a second one makes the controller retry).
/// Pod writes are recorded in `expectations` and no sizing happens until the cache reflects
/// them, so a stale cache never creates surplus pods. `availableReplicas` counts the pods Ready
/// for at least `spec.minReadySeconds`; while a Ready pod is not available yet, the reconcile
/// asks to run again when it becomes so.
/// Orphan adoption is not implemented.
/// **Thread-safety:** Reconcile may run concurrently for different ReplicaSets.
/// **Lifetime:** `client`, `recorder` and `expectations` are borrowed and must outlive it.
class ReplicaSetReconciler final : public kube::controller::Reconciler {
 public:
  ReplicaSetReconciler(kube::controller::Client& client, kube::controller::EventRecorder& recorder,
                       Expectations& expectations, ReplicaSetReconcilerOptions options = {})
      : client_(client),
        recorder_(recorder),
        expectations_(expectations),
        options_(std::move(options)),
        clock_(options_.clock != nullptr ? *options_.clock : kube::RealClock::Instance()) {}

  /// Sizes the ReplicaSet's pods and writes its status. **Errors:** API errors (retried).
  kube::Result<kube::controller::ReconcileResult> Reconcile(kube::controller::ReconcileContext& ctx,
                                                            const kube::controller::Request& request) override;

 private:
  kube::controller::Client& client_;
  kube::controller::EventRecorder& recorder_;
  Expectations& expectations_;
  const ReplicaSetReconcilerOptions options_;
  kube::Clock& clock_;
};

}  // namespace deployctl
