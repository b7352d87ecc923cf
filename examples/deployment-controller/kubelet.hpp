#pragma once
/// \file
/// A simulated kubelet (and scheduler): binds every unscheduled pod to one node and, after a
/// configurable delay, reports it Running and Ready, as a real kubelet would once its containers
/// started. No container runs.

#include <chrono>
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

/// Options of KubeletReconciler.
struct KubeletOptions {
  /// The node every pod is bound to (created if absent).
  std::string node_name = "kubecpp-node-1";
  /// Time from binding to Running/Ready, on `clock`.
  kube::Clock::Duration ready_delay = std::chrono::milliseconds(1000);
  /// Time source of the delay; nullptr = RealClock. The kubelet controller's queue should run on
  /// the same clock, so that its RequeueAfter fires when this clock reaches the ready time.
  kube::Clock* clock = nullptr;
};

/// Reconciles one pod: a pod without `spec.nodeName` is bound to the node (a merge patch, the
/// node created on first use); a pod bound to the node becomes Running/Ready `ready_delay` after
/// the kubelet first saw it bound: phase Running, podIP, hostIP, startTime, conditions
/// PodScheduled/Initialized/ContainersReady/Ready = True and a ready `containerStatuses` entry
/// per container with its image (a merge patch of `/status`). Until then it asks for a
/// requeue at the ready time. Pods of other nodes and pods being deleted are left alone.
/// **Thread-safety:** Reconcile may run concurrently for different pods.
/// **Lifetime:** `client` and `recorder` are borrowed and must outlive it.
class KubeletReconciler final : public kube::controller::Reconciler {
 public:
  KubeletReconciler(kube::controller::Client& client, kube::controller::EventRecorder& recorder,
                    KubeletOptions options);

  /// Binds or starts the pod. **Errors:** API errors (retried).
  kube::Result<kube::controller::ReconcileResult> Reconcile(kube::controller::ReconcileContext& ctx,
                                                            const kube::controller::Request& request) override;

  /// The clock the kubelet measures its delay on.
  kube::Clock& GetClock() const { return clock_; }

 private:
  kube::Result<void> EnsureNode() KUBE_EXCLUDES(mu_);
  std::string NextPodIp() KUBE_EXCLUDES(mu_);

  kube::controller::Client& client_;
  kube::controller::EventRecorder& recorder_;
  const KubeletOptions options_;
  kube::Clock& clock_;
  kube::Mutex mu_;
  bool node_ready_ KUBE_GUARDED_BY(mu_) = false;
  std::uint32_t next_ip_ KUBE_GUARDED_BY(mu_) = 0;
  struct Bound {
    std::string uid{};  // a re-created pod of the same name starts over
    kube::Clock::TimePoint at{};
  };
  // When each pod (by key) was first seen bound here; it is ready at `at + ready_delay`.
  std::map<std::string, Bound> bound_at_ KUBE_GUARDED_BY(mu_);
};

}  // namespace deployctl
