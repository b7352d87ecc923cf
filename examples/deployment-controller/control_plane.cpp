#include "control_plane.hpp"

#include <utility>

#include <kube/client/dynamic_client.hpp>
#include <kube/controller/builder.hpp>

#include "objects.hpp"

namespace deployctl {

ControlPlane::~ControlPlane() {
  if (broadcaster_) broadcaster_->Shutdown();
}

kube::Result<std::unique_ptr<ControlPlane>> ControlPlane::Setup(kube::controller::Manager& manager,
                                                                ControlPlaneOptions options) {
  std::unique_ptr<ControlPlane> cp(new ControlPlane());
  cp->broadcaster_ = kube::controller::EventBroadcaster::Create(
      kube::controller::NewApiEventSink(kube::client::DynamicClient(manager.GetRestClient())),
      {.clock = &manager.GetClock(), .host = options.kubelet_options.node_name});
  cp->deployment_events_ = cp->broadcaster_->NewRecorder("deployment-controller");
  cp->replicaset_events_ = cp->broadcaster_->NewRecorder("replicaset-controller");
  cp->kubelet_events_ = cp->broadcaster_->NewRecorder("kubelet");
  cp->expectations_ = std::make_unique<Expectations>(manager.GetClock(), options.expectations_ttl);
  kube::controller::Client& client = manager.GetClient();
  kube::Clock& clock = options.clock != nullptr ? *options.clock : manager.GetClock();

  auto deployments =
      kube::controller::ControllerManagedBy(manager)
          .For<appsv1::Deployment>()
          .Owns<appsv1::ReplicaSet>()
          .WithOptions({.max_concurrent_reconciles = options.workers, .clock = &clock})
          .Named("deployment")
          .Complete(std::make_shared<DeploymentReconciler>(client, *cp->deployment_events_, clock));
  if (!deployments) return deployments.error();
  cp->deployments_ = *deployments;

  auto replicasets = kube::controller::ControllerManagedBy(manager)
                         .For<appsv1::ReplicaSet>()
                         .Owns<corev1::Pod>()
                         .WithOptions({.max_concurrent_reconciles = options.workers, .clock = &clock})
                         .Named("replicaset")
                         .Complete(std::make_shared<ReplicaSetReconciler>(client, *cp->replicaset_events_,
                                                                          *cp->expectations_,
                                                                          ReplicaSetReconcilerOptions{.clock = &clock}));
  if (!replicasets) return replicasets.error();
  cp->replicasets_ = *replicasets;

  if (options.kubelet) {
    auto reconciler = std::make_shared<KubeletReconciler>(client, *cp->kubelet_events_, options.kubelet_options);
    auto kubelet = kube::controller::ControllerManagedBy(manager)
                       .For<corev1::Pod>()
                       .WithOptions({.max_concurrent_reconciles = options.workers, .clock = &reconciler->GetClock()})
                       .Named("kubelet")
                       .Complete(reconciler);
    if (!kubelet) return kubelet.error();
    cp->kubelet_ = *kubelet;
  }
  return cp;
}

}  // namespace deployctl
