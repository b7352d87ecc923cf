#pragma once
/// \file
/// The crd-operator example: a `Website` custom resource (website_types.hpp) whose reconciler
/// owns a ConfigMap `<name>-content` holding index.html and an apps/v1 Deployment `<name>` of
/// nginx pods serving it, and reports status.observedGeneration, readyReplicas, url and a Ready
/// condition.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <kube/api/apps/v1.hpp>
#include <kube/kube.hpp>

#include "website_types.hpp"

namespace kube::examples::website {

/// The pod-template annotation carrying a hash of the content, so that a content change rolls
/// the pods (nginx reads the mounted file, but a rollout makes the change visible at once).
inline constexpr std::string_view kContentHashAnnotation = "example.kubecpp.io/content-hash";

/// The Ready condition the reconciler writes, from the Deployment it manages.
struct ReadyState {
  bool ready = false;
  std::string reason;   ///< "Available", "RolloutPending" or "Progressing"
  std::string message;  ///< e.g. "2/3 replicas available"
  int32_t ready_replicas = 0;
};

/// Ready is True when the Deployment controller observed the Deployment's current generation and
/// `status.availableReplicas == replicas` (both zero counts as ready).
ReadyState ReadyFromDeployment(const api::apps::v1::Deployment& deployment, int32_t replicas);

/// Reconciles one Website: typed CreateOrUpdate of the ConfigMap and the Deployment (controller
/// ownerReferences, so garbage collection deletes them with the Website and `Owns` watches
/// enqueue it), events `Created` / `Updated` for each child written, then the status (only when
/// it changed; `observedGeneration = metadata.generation`). Reads come from the manager's cache,
/// writes go to the API server.
/// Give it a Manager whose client has `read_your_writes` (main.cpp does): a reconcile that follows
/// its own writes then reads them from the cache. Without it, such a reconcile may read the cache
/// one event behind and fail with a conflict or AlreadyExists (retried, and logged).
/// **Errors:** API errors are retried by the controller; a child controlled by another owner or
/// a negative spec.replicas (possible only without the CRD's schema) is a terminal error with a
/// Warning event.
/// **Thread-safety:** safe for concurrent reconciles of different keys.
/// **Lifetime:** borrows the client, the clock and the recorder; they must outlive it.
class WebsiteReconciler final {
 public:
  /// A reconciler writing through `client` (the Manager's) and stamping conditions with `clock`.
  WebsiteReconciler(controller::Client& client, Clock& clock, controller::EventRecorder& recorder);

  /// See the class comment. `website` is the cached Website (a copy: the reconciler's to edit).
  Result<controller::ReconcileResult> Reconcile(controller::ReconcileContext& ctx, Website& website) const;

 private:
  controller::Client& client_;
  Clock& clock_;
  controller::EventRecorder& recorder_;
};

/// Options of `SetupWebsiteController`.
struct WebsiteControllerOptions {
  /// Controller options; the name defaults to "website".
  controller::ControllerOptions controller{};
};

/// Registers the Website controller with `mgr`: For<Website> (spec changes only:
/// GenerationChanged), Owns<ConfigMap> and Owns<Deployment>, reconciled by a WebsiteReconciler
/// through AsReconciler. It is leader-gated, like every controller.
/// **Errors:** as `Builder::Complete` (NoMatch when the CRD is not installed).
/// **Lifetime:** `mgr` and `recorder` must outlive the controller.
Result<std::shared_ptr<controller::Controller>> SetupWebsiteController(controller::Manager& mgr,
                                                                        controller::EventRecorder& recorder,
                                                                        WebsiteControllerOptions options = {});

}  // namespace kube::examples::website
