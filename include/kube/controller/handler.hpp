#pragma once
/// \file
/// Event handlers (controller-runtime `handler`): turn events into Requests in a controller's
/// queue. A handler decides *which* keys to reconcile; it never reconciles.

#include <functional>
#include <memory>
#include <vector>

#include <kube/controller/event.hpp>
#include <kube/core/gvk.hpp>

namespace kube::controller {

/// Maps events to Requests added to `queue`. Called on the delivering source's thread (an
/// informer handler thread, or the caller of `Channel::Push`).
/// **Thread-safety:** implementations must be safe to call concurrently (several sources may
/// share one handler). **Errors:** none: a handler that cannot map an event skips it.
class EventHandler {
 public:
  virtual ~EventHandler() = default;
  /// An object was created.
  virtual void Create(const CreateEvent& event, Queue& queue) = 0;
  /// An object was updated.
  virtual void Update(const UpdateEvent& event, Queue& queue) = 0;
  /// An object was deleted.
  virtual void Delete(const DeleteEvent& event, Queue& queue) = 0;
  /// A generic event.
  virtual void Generic(const GenericEvent& event, Queue& queue) = 0;
};

/// An EventHandler from functions; an unset function ignores its events.
struct EventHandlerFuncs final : EventHandler {
  std::function<void(const CreateEvent&, Queue&)> create{};
  std::function<void(const UpdateEvent&, Queue&)> update{};
  std::function<void(const DeleteEvent&, Queue&)> del{};
  std::function<void(const GenericEvent&, Queue&)> generic{};

  void Create(const CreateEvent& e, Queue& q) override {
    if (create) create(e, q);
  }
  void Update(const UpdateEvent& e, Queue& q) override {
    if (update) update(e, q);
  }
  void Delete(const DeleteEvent& e, Queue& q) override {
    if (del) del(e, q);
  }
  void Generic(const GenericEvent& e, Queue& q) override {
    if (generic) generic(e, q);
  }
};

/// Enqueues the event's own object (`For(...)` uses it). Updates enqueue the new object; a
/// delete with an unknown final state and no object is skipped.
std::shared_ptr<EventHandler> EnqueueRequestForObject();

/// Options of EnqueueRequestForOwner.
struct OwnerHandlerOptions {
  /// Only the owner reference with `controller: true` counts (what `Owns(...)` uses). Default
  /// false: every owner reference of the owner's group and kind is enqueued.
  bool only_controller = false;
  /// Whether the owner kind is cluster-scoped: then requests carry no namespace. Default false:
  /// the owner lives in the owned object's namespace (owner references never cross namespaces).
  bool owner_cluster_scoped = false;
};

/// Enqueues the owners of the event's object whose ownerReference has `owner`'s group (parsed
/// from the reference's apiVersion) and kind. Updates enqueue the owners of both the old and
/// the new object, so a change of owner reconciles both.
std::shared_ptr<EventHandler> EnqueueRequestForOwner(GroupKind owner, OwnerHandlerOptions options = {});

/// Maps an object to the requests to enqueue. **Thread-safety:** must be safe to call
/// concurrently; must not block for long (it runs on an informer handler thread).
using MapFunc = std::function<std::vector<Request>(const ObjectPtr& object)>;

/// Enqueues whatever `fn` maps the event's object to (both objects of an update). `fn` is not
/// called for a null object. Exceptions from `fn` are caught by the informer and logged.
std::shared_ptr<EventHandler> EnqueueRequestsFromMapFunc(MapFunc fn);

}  // namespace kube::controller
