#pragma once
/// \file
/// The controller builder (controller-runtime `builder`):
/// ```
/// auto ctrl = ControllerManagedBy(mgr)
///                 .For<apps::v1::ReplicaSet>()      // or .For(kReplicaSets), a GroupVersionResource
///                 .Owns<core::v1::Pod>()
///                 .WithEventFilter(GenerationChanged())
///                 .Complete(reconciler);
/// ```

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <kube/base/result.hpp>
#include <kube/client/typed_api.hpp>
#include <kube/controller/controller.hpp>
#include <kube/controller/handler.hpp>
#include <kube/controller/predicate.hpp>
#include <kube/controller/reconciler.hpp>
#include <kube/controller/source.hpp>
#include <kube/core/gvk.hpp>

namespace kube::controller {

class Manager;

/// Collects a controller's watches and options, then builds it and adds it to the manager.
/// Misuse is reported by `Complete`, never silently ignored.
/// **Thread-safety:** none (a builder is used by one thread, then discarded).
/// **Lifetime:** borrows the manager.
class Builder final {
 public:
  explicit Builder(Manager& manager) : manager_(manager) {}

  /// The primary resource: its events enqueue the object itself. Required (once), unless the
  /// controller is `Named` and has at least one `Watches`. `predicates` apply to this watch only.
  Builder& For(GroupVersionResource gvr, std::vector<Predicate> predicates = {});
  /// An owned resource: its events enqueue the owner that is its *controller* (ownerReference
  /// with `controller: true` and the For resource's group and kind).
  Builder& Owns(GroupVersionResource gvr, std::vector<Predicate> predicates = {});
  /// For the resource of API type T (`For<apps::v1::Deployment>()`).
  template <client::TypedResource T>
  Builder& For(std::vector<Predicate> predicates = {}) {
    return For(client::ResourceOf<T>(), std::move(predicates));
  }
  /// Owns the resource of API type T (`Owns<apps::v1::ReplicaSet>()`).
  template <client::TypedResource T>
  Builder& Owns(std::vector<Predicate> predicates = {}) {
    return Owns(client::ResourceOf<T>(), std::move(predicates));
  }
  /// Any other source and handler.
  Builder& Watches(std::shared_ptr<Source> source, std::shared_ptr<EventHandler> handler,
                   std::vector<Predicate> predicates = {});
  /// As Watches, with a Kind source on the manager's factory for `gvr`.
  Builder& Watches(GroupVersionResource gvr, std::shared_ptr<EventHandler> handler,
                   std::vector<Predicate> predicates = {});
  /// A predicate applied to every watch (For, Owns and Watches). May be called several times.
  Builder& WithEventFilter(Predicate predicate);
  /// Controller options (workers, rate limiter, timeout, ...). The name is taken from `Named`
  /// when both are given; clock, cache-sync timeout and metrics default to the manager's.
  Builder& WithOptions(ControllerOptions options);
  /// The controller name. Default: the For resource's kind, lower-cased (controller-runtime).
  Builder& Named(std::string name);

  /// Builds the controller, registers its watches and adds it to the manager (leader-gated).
  /// **Errors:** BadRequest when For is missing (and not Named + Watches), For was given twice,
  /// Owns has no For, a name is invalid, a watch has a null source or handler; AlreadyExists for
  /// a controller name already used in the manager; the RESTMapper's NoMatch when the For
  /// resource is unknown; the controller's creation errors.
  Result<std::shared_ptr<Controller>> Complete(std::shared_ptr<Reconciler> reconciler);
  /// As above, with a reconcile function.
  Result<std::shared_ptr<Controller>> Complete(ReconcileFunc reconcile);

 private:
  struct PendingWatch {
    std::shared_ptr<Source> source;               // null for For/Owns (a Kind on `gvr`)
    std::optional<GroupVersionResource> gvr{};    // For/Owns/Watches(gvr)
    std::shared_ptr<EventHandler> handler{};      // null for For/Owns (decided at Complete)
    std::vector<Predicate> predicates{};
    enum class Role { kFor, kOwns, kWatches } role = Role::kWatches;
  };

  Manager& manager_;
  std::vector<PendingWatch> watches_;
  std::vector<Predicate> global_predicates_;
  std::optional<ControllerOptions> options_;
  std::optional<std::string> name_;
  int for_count_ = 0;
};

/// Starts a Builder for a controller run by `manager`.
inline Builder ControllerManagedBy(Manager& manager) { return Builder(manager); }

}  // namespace kube::controller
