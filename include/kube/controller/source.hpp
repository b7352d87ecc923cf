#pragma once
/// \file
/// Sources (controller-runtime `source`): where a controller's events come from. `Kind` watches
/// a resource through a shared informer; `Channel` delivers objects the program pushes.

#include <deque>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include <kube/base/mutex.hpp>
#include <kube/base/result.hpp>
#include <kube/base/thread_annotations.hpp>
#include <kube/cache/informer_factory.hpp>
#include <kube/cache/shared_informer.hpp>
#include <kube/controller/event.hpp>
#include <kube/controller/handler.hpp>
#include <kube/controller/predicate.hpp>

namespace kube::controller {

/// One `Controller::Watch` binding: events pass every predicate, then go through the handler
/// into the queue. Holds the queue shared, so a source that delivers late (after the controller
/// stopped) adds to a shut-down queue, which ignores it.
/// **Thread-safety:** immutable; the On* members may be called concurrently.
class EventDispatcher final {
 public:
  /// `handler` and `queue` must not be null.
  EventDispatcher(std::shared_ptr<EventHandler> handler, std::vector<Predicate> predicates,
                  std::shared_ptr<Queue> queue);
  /// Filters and handles a create.
  void OnCreate(const CreateEvent& e) const;
  /// Filters and handles an update.
  void OnUpdate(const UpdateEvent& e) const;
  /// Filters and handles a delete.
  void OnDelete(const DeleteEvent& e) const;
  /// Filters and handles a generic event.
  void OnGeneric(const GenericEvent& e) const;

 private:
  std::shared_ptr<EventHandler> handler_;
  std::vector<Predicate> predicates_;
  std::shared_ptr<Queue> queue_;
};

/// A stream of events for a controller. A source may be started once per dispatcher; most
/// sources serve exactly one `Watch`.
/// **Thread-safety:** Start/Stop are called by the controller; HasSynced from any thread.
class Source {
 public:
  virtual ~Source() = default;
  /// Starts delivering events to `dispatcher` until `Stop`. Must not block for long.
  /// **Errors:** when the source cannot start (e.g. its informer already stopped).
  virtual Result<void> Start(std::shared_ptr<const EventDispatcher> dispatcher) = 0;
  /// True once the source has delivered its initial state (Kind: the informer synced and the
  /// handler processed the initial list). The controller starts its workers only then.
  virtual bool HasSynced() const = 0;
  /// Arranges for `notify` to be called whenever HasSynced may have become true, so that the
  /// controller waits for the sync on a condition variable instead of polling. The controller
  /// calls it once, after Start. `notify` may run at once on the calling thread (when already
  /// synced), later on any thread, and more than once; it only wakes the waiter, which re-checks
  /// HasSynced. An implementation must call it at least once after HasSynced turns true, and
  /// must not hold its own locks while calling it. `notify` is cheap and does not block.
  virtual void OnSynced(std::function<void()> notify) = 0;
  /// Stops delivering to every dispatcher (idempotent). Events in flight may still arrive.
  virtual void Stop() = 0;
  /// A description for logs ("kind source: apps/v1, Resource=deployments").
  virtual std::string String() const = 0;
};

/// Watches one resource through the shared informer of `factory` (created on first use and
/// started when the source starts). `scope` defaults to the factory's default scope.
/// **Lifetime:** `factory` must outlive the source.
std::shared_ptr<Source> Kind(cache::SharedInformerFactory& factory, GroupVersionResource gvr);
/// As above, for an informer in `scope`.
std::shared_ptr<Source> Kind(cache::SharedInformerFactory& factory, GroupVersionResource gvr,
                             const cache::InformerScope& scope);
/// Watches an informer the caller runs. **Lifetime:** `informer` must outlive the source.
std::shared_ptr<Source> Kind(cache::SharedIndexInformer& informer);

/// A source of GenericEvents pushed by the program (controller-runtime `source.Channel`), e.g.
/// from a webhook or an external system. Objects pushed before Start are buffered and delivered
/// at Start; afterwards `Push` delivers on the calling thread (predicates and handler run
/// there). Always synced.
/// **Thread-safety:** all members may be called concurrently.
class Channel final : public Source {
 public:
  Channel() = default;
  /// Delivers `object` as a GenericEvent (null objects are ignored). Dropped after Stop.
  void Push(ObjectPtr object) KUBE_EXCLUDES(mu_);
  Result<void> Start(std::shared_ptr<const EventDispatcher> dispatcher) override KUBE_EXCLUDES(mu_);
  bool HasSynced() const override { return true; }
  /// Calls `notify` at once: a channel is always synced.
  void OnSynced(std::function<void()> notify) override {
    if (notify) notify();
  }
  void Stop() override KUBE_EXCLUDES(mu_);
  std::string String() const override { return "channel source"; }

 private:
  mutable Mutex mu_;
  std::vector<std::shared_ptr<const EventDispatcher>> dispatchers_ KUBE_GUARDED_BY(mu_);
  std::deque<ObjectPtr> pending_ KUBE_GUARDED_BY(mu_);  // pushed before the first Start
  bool stopped_ KUBE_GUARDED_BY(mu_) = false;
};

}  // namespace kube::controller
