#pragma once
/// \file
/// The crd-operator example: a `Website` custom resource (example.kubecpp.io/v1, see
/// deploy/crd.yaml) whose reconciler owns a ConfigMap `<name>-content` holding index.html and an
/// apps/v1 Deployment `<name>` of nginx pods serving it, and reports status.observedGeneration,
/// readyReplicas, url and a Ready condition.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <kube/kube.hpp>

namespace kube::examples::website {

/// The Website resource.
inline const GroupVersionResource kWebsites{"example.kubecpp.io", "v1", "websites"};
/// The ConfigMap resource.
inline const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
/// The Deployment resource.
inline const GroupVersionResource kDeployments{"apps", "v1", "deployments"};
/// The image used when spec.image is empty (also the CRD's schema default).
inline constexpr std::string_view kDefaultImage = "nginx:1.27";
/// The pod-template annotation carrying a hash of the content, so that a content change rolls
/// the pods (nginx reads the mounted file, but a rollout makes the change visible at once).
inline constexpr std::string_view kContentHashAnnotation = "example.kubecpp.io/content-hash";

/// A Website's spec with defaults applied.
struct WebsiteSpec {
  std::string image{kDefaultImage};
  std::int64_t replicas = 1;
  std::string content{};

  /// Reads `/spec` of `website`; missing fields take the defaults above.
  /// **Errors:** 422 Invalid for a negative replicas or a field of the wrong type.
  static Result<WebsiteSpec> From(const Object& website);
};

/// The Ready condition the reconciler writes, from the Deployment it manages.
struct ReadyState {
  bool ready = false;
  std::string reason;   ///< "Available", "RolloutPending" or "Progressing"
  std::string message;  ///< e.g. "2/3 replicas available"
  std::int64_t ready_replicas = 0;
};

/// Ready is True when the Deployment controller observed the Deployment's current generation and
/// `status.availableReplicas == replicas` (both zero counts as ready).
ReadyState ReadyFromDeployment(const Object& deployment, std::int64_t replicas);

/// Reconciles one Website: CreateOrUpdate of the ConfigMap and the Deployment (controller
/// ownerReferences, so garbage collection deletes them with the Website and `Owns` watches
/// enqueue it), events `Created` / `Updated` for each child written, then the status (only when
/// it changed; `observedGeneration = metadata.generation`). Writes go straight to the API
/// server; the Website is read from the manager's cache.
/// **Errors:** API errors are retried by the controller; a child controlled by another owner or
/// an invalid spec is a terminal error with a Warning event.
/// **Thread-safety:** safe for concurrent reconciles of different keys.
/// **Lifetime:** borrows the manager and the recorder; they must outlive it.
class WebsiteReconciler final : public controller::Reconciler {
 public:
  /// A reconciler using `mgr`'s client, REST client and clock.
  WebsiteReconciler(controller::Manager& mgr, controller::EventRecorder& recorder);

  /// See the class comment.
  Result<controller::ReconcileResult> Reconcile(controller::ReconcileContext& ctx,
                                                const controller::Request& request) override;

 private:
  controller::Client& client_;
  std::shared_ptr<client::RestClient> rest_;
  Clock& clock_;
  controller::EventRecorder& recorder_;
};

/// Options of `SetupWebsiteController`.
struct WebsiteControllerOptions {
  /// Controller options; the name defaults to "website".
  controller::ControllerOptions controller{};
};

/// Registers the Website controller with `mgr`: For websites (spec changes only:
/// GenerationChanged), Owns configmaps and deployments. It is leader-gated, like every
/// controller. **Errors:** as `Builder::Complete` (NoMatch when the CRD is not installed).
Result<std::shared_ptr<controller::Controller>> SetupWebsiteController(controller::Manager& mgr,
                                                                        controller::EventRecorder& recorder,
                                                                        WebsiteControllerOptions options = {});

}  // namespace kube::examples::website
