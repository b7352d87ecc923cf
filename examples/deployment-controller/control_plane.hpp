#pragma once
/// \file
/// The three controllers of the example wired into one Manager: Deployment -> ReplicaSets,
/// ReplicaSet -> Pods and the simulated kubelet. `kubecpp-deployment-controller` and the tests
/// both go through `ControlPlane::Setup`, so the tests run exactly what the binary runs.

#include <chrono>
#include <memory>
#include <string>

#include <kube/base/clock.hpp>
#include <kube/base/result.hpp>
#include <kube/controller/controller.hpp>
#include <kube/controller/event_recorder.hpp>
#include <kube/controller/manager.hpp>

#include "deployment_controller.hpp"
#include "expectations.hpp"
#include "kubelet.hpp"
#include "replicaset_controller.hpp"

namespace deployctl {

/// Options of ControlPlane::Setup.
struct ControlPlaneOptions {
  /// MaxConcurrentReconciles of each controller (--workers). Default 2.
  int workers = 2;
  /// Run the simulated kubelet (--no-kubelet turns it off, e.g. on a real cluster).
  bool kubelet = true;
  /// The kubelet's node and ready delay (--kubelet-ready-delay-ms). Its clock also drives the
  /// kubelet controller's queue.
  KubeletOptions kubelet_options{};
  /// Time of the deployment and replicaset controllers (condition times, minReadySeconds, the
  /// progress deadline) and of their queues; nullptr = the manager's clock. Tests share one
  /// FakeClock with the kubelet (whose Ready times minReadySeconds is measured from). Must
  /// outlive the manager.
  kube::Clock* clock = nullptr;
  /// How long unobserved pod writes hold a ReplicaSet back (kube: 5 minutes).
  kube::Clock::Duration expectations_ttl = std::chrono::minutes(5);
};

/// Owns the event broadcaster, the expectations and the reconcilers, and registers the
/// controllers `deployment`, `replicaset` and `kubelet` with the manager.
/// **Thread-safety:** the accessors may be called from any thread.
/// **Lifetime:** must outlive the manager's `Start` (the controllers borrow what it owns) and
/// must be destroyed before the manager (its event broadcaster writes through the manager's
/// REST client).
class ControlPlane final {
 public:
  /// Registers the controllers with `manager`. Leave `ClientOptions::read_your_writes` off: with
  /// it, a pod that the ReplicaSet controller deletes (the server answers a DELETE with the pod)
  /// leaves a pending write that the cache never shows, and the kubelet's next Get of that pod
  /// waits for the full timeout. The controllers guard against stale reads themselves
  /// (expectations, written resourceVersions). **Errors:** the Builder's (e.g. duplicate controller names).
  static kube::Result<std::unique_ptr<ControlPlane>> Setup(kube::controller::Manager& manager,
                                                           ControlPlaneOptions options = {});
  ~ControlPlane();
  ControlPlane(const ControlPlane&) = delete;
  ControlPlane& operator=(const ControlPlane&) = delete;

  /// The Deployment controller.
  kube::controller::Controller& Deployments() const { return *deployments_; }
  /// The ReplicaSet controller.
  kube::controller::Controller& ReplicaSets() const { return *replicasets_; }
  /// The kubelet controller, or nullptr when disabled.
  kube::controller::Controller* Kubelet() const { return kubelet_.get(); }
  /// The ReplicaSet controller's expectations.
  Expectations& GetExpectations() const { return *expectations_; }
  /// Writes queued events (tests read them back from the API).
  void FlushEvents() const { broadcaster_->Flush(); }

 private:
  ControlPlane() = default;

  std::unique_ptr<kube::controller::EventBroadcaster> broadcaster_;
  std::unique_ptr<kube::controller::EventRecorder> deployment_events_;
  std::unique_ptr<kube::controller::EventRecorder> replicaset_events_;
  std::unique_ptr<kube::controller::EventRecorder> kubelet_events_;
  std::unique_ptr<Expectations> expectations_;
  std::shared_ptr<kube::controller::Controller> deployments_;
  std::shared_ptr<kube::controller::Controller> replicasets_;
  std::shared_ptr<kube::controller::Controller> kubelet_;
};

}  // namespace deployctl
