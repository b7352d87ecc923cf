#pragma once
/// \file
/// The events a Source delivers to predicates and handlers (controller-runtime `event`), and the
/// queue type the handlers fill.

#include <kube/core/object.hpp>
#include <kube/controller/reconciler.hpp>
#include <kube/workqueue/rate_limiting_queue.hpp>

namespace kube::controller {

/// The rate-limited work queue of a controller: handlers add Requests, workers take them.
using Queue = workqueue::RateLimitingQueue<Request>;

/// An object appeared (or was listed at start-up).
struct CreateEvent {
  ObjectPtr object;                 ///< never null
  bool is_in_initial_list = false;  ///< part of the informer's first list
};

/// An object changed (or a periodic resync redelivered it: then `old_object == new_object`).
struct UpdateEvent {
  ObjectPtr old_object;  ///< never null
  ObjectPtr new_object;  ///< never null
};

/// An object was deleted.
struct DeleteEvent {
  /// The last known state; null only when `delete_state_unknown` and the cache never had it.
  ObjectPtr object;
  /// The delete was missed and detected by a relist: `object` may be stale.
  bool delete_state_unknown = false;
};

/// Something outside the cluster's watch stream asks for an object to be reconciled (a Channel
/// source, a timer, an external system).
struct GenericEvent {
  ObjectPtr object;  ///< never null
};

}  // namespace kube::controller
