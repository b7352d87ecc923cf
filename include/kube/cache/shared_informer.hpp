#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <kube/base/clock.hpp>
#include <kube/base/log.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/result.hpp>
#include <kube/cache/delta_fifo.hpp>
#include <kube/cache/indexer.hpp>
#include <kube/cache/lister_watcher.hpp>
#include <kube/cache/metrics.hpp>
#include <kube/cache/reflector.hpp>
#include <kube/core/object.hpp>

namespace kube::cache {

/// Receives notifications from an informer. Each handler runs on its own thread, in order.
/// Exceptions thrown by a handler are caught, logged and counted; they do not stop delivery.
class ResourceEventHandler {
 public:
  virtual ~ResourceEventHandler() = default;
  /// A new object; `is_in_initial_list` is true for objects of the first list (and for the
  /// synthetic adds a handler added later receives).
  virtual void OnAdd(const ObjectPtr& obj, bool is_in_initial_list) = 0;
  /// A changed object (also delivered with old == new on a periodic resync).
  virtual void OnUpdate(const ObjectPtr& old_obj, const ObjectPtr& new_obj) = 0;
  /// A deleted object: its last known state. `final_state_unknown` is true when the delete was
  /// missed and detected by a relist (client-go's DeletedFinalStateUnknown); `obj` may then be a
  /// stale state, or null when the cache never had it.
  virtual void OnDelete(const ObjectPtr& obj, bool final_state_unknown) = 0;
};

/// A ResourceEventHandler from functions; unset functions ignore the notification.
struct ResourceEventHandlerFuncs final : ResourceEventHandler {
  std::function<void(const ObjectPtr&, bool)> add{};
  std::function<void(const ObjectPtr&, const ObjectPtr&)> update{};
  std::function<void(const ObjectPtr&, bool)> del{};

  void OnAdd(const ObjectPtr& obj, bool initial) override {
    if (add) add(obj, initial);
  }
  void OnUpdate(const ObjectPtr& o, const ObjectPtr& n) override {
    if (update) update(o, n);
  }
  void OnDelete(const ObjectPtr& obj, bool unknown) override {
    if (del) del(obj, unknown);
  }
};

/// Transforms every object before it is stored (e.g. `StripManagedFields`). Must be pure.
using TransformFunc = std::function<ObjectPtr(const ObjectPtr&)>;

/// Options of a SharedIndexInformer.
struct InformerOptions {
  std::string name = "informer";
  /// Resync period of handlers added without one; 0 = never.
  Clock::Duration default_resync = Clock::Duration::zero();
  Indexers indexers{};       ///< besides the namespace index
  TransformFunc transform{}; ///< applied before objects are stored; empty = none
  ReflectorOptions reflector{};
  Clock* clock = nullptr;  ///< nullptr = RealClock
};

class SharedIndexInformer;

/// The handle of one handler registration (client-go ResourceEventHandlerRegistration).
/// **Thread-safety:** HasSynced may be called from any thread.
class HandlerRegistration {
 public:
  virtual ~HandlerRegistration() = default;
  /// True once the informer has synced and this handler has processed every notification from
  /// the initial list (or its synthetic adds).
  virtual bool HasSynced() const = 0;
  /// Notifications this handler threw on.
  virtual int64_t HandlerErrors() const = 0;
  /// Calls `fn` once, as soon as HasSynced() holds: at once on the calling thread when it
  /// already does, otherwise later on an informer or handler thread. Lets a caller wait for the
  /// sync on its own condition variable instead of polling. `fn` must be cheap and must not
  /// block or call back into the informer. Not called for a handler removed (or an informer
  /// stopped) before it synced, unless the removal races with the sync: the function must stay
  /// safe to call until the registration is destroyed.
  virtual void OnSynced(std::function<void()> fn) = 0;
};

/// client-go's SharedIndexInformer: one reflector and one indexed cache for a resource, shared by
/// many handlers. Each handler has its own unbounded buffer and thread, so a slow handler never
/// blocks the others or the reflector. Handlers added after start receive synthetic adds for
/// everything in the cache. Per-handler resync (minimum 1 s) redelivers the cache as updates.
///
/// **Thread-safety:** all members may be called from any thread. `Run` blocks until stop.
/// **Lifetime:** keep the informer alive until `Run` has returned.
class SharedIndexInformer final {
 public:
  /// `lw` is shared (the informer keeps it alive).
  SharedIndexInformer(std::shared_ptr<ListerWatcher> lw, InformerOptions options = {});
  ~SharedIndexInformer();
  SharedIndexInformer(const SharedIndexInformer&) = delete;
  SharedIndexInformer& operator=(const SharedIndexInformer&) = delete;

  /// Adds a handler (at any time). `resync` defaults to the informer's default; values below
  /// 1 s are raised to 1 s; 0 = never. **Errors:** Canceled after the informer stopped.
  Result<std::shared_ptr<HandlerRegistration>> AddEventHandler(
      std::shared_ptr<ResourceEventHandler> handler,
      std::optional<Clock::Duration> resync = std::nullopt);
  /// Removes a handler; its thread stops after the notification in progress. **Errors:**
  /// NotFound for an unknown registration.
  Result<void> RemoveEventHandler(const std::shared_ptr<HandlerRegistration>& registration);
  /// Sets the transform. **Errors:** Conflict once the informer has started.
  Result<void> SetTransform(TransformFunc transform);
  /// Has `decode` run on every item of every list the informer receives, after the transform,
  /// on a decode thread of the informer while the reflector parses the rest of the list; the
  /// list is handed over once its items are decoded, so handlers find them decoded. (A watch
  /// event's object is left to its first reader, on a handler's thread.) A typed informer
  /// decodes list items so (`kube::api::Decoded`). One decoder per `key` (later ones with the
  /// same key are ignored). `decode` must not throw. Returns false, and registers nothing,
  /// once the informer has started.
  bool AddDecoder(const void* key, std::function<void(const ObjectPtr&)> decode);
  /// Adds indexes (allowed at any time; existing objects are indexed).
  Result<void> AddIndexers(const Indexers& indexers) { return indexer_.AddIndexers(indexers); }
  /// Adds indexes only while the informer has not started (client-go's AddIndexers before
  /// v0.26; what controller-runtime's field indexer relies on: every object the informer ever
  /// stores is indexed). **Errors:** 409 Conflict "informer has already started"; as AddIndexers.
  Result<void> AddIndexersBeforeStart(const Indexers& indexers) KUBE_EXCLUDES(listeners_mu_);

  /// Runs the reflector, the delta processing and the handlers until `stop`. **Blocks.**
  /// Calling Run twice is a no-op for the second call.
  void Run(std::stop_token stop);
  /// True once the first list has been processed into the cache.
  bool HasSynced() const;
  /// True once Run has returned.
  bool IsStopped() const;
  /// The resourceVersion of the last list or watch event seen.
  std::string LastSyncResourceVersion() const;

  /// The cache (safe to read concurrently; never mutate it).
  Indexer& GetIndexer() { return indexer_; }
  const Indexer& GetIndexer() const { return indexer_; }
  /// A lister over the cache.
  Lister GetLister() const { return Lister(indexer_); }
  const std::string& Name() const { return options_.name; }

 private:
  struct Notification;
  class Listener;
  class StoreAdapter;
  // Applies one popped batch to the store and hands its notifications to the listeners (one
  // lock round trip per listener per batch).
  void HandleBatch(std::span<PoppedDeltas> batch) KUBE_EXCLUDES(listeners_mu_);
  // Consumes the deltas' object references (moved into the notifications).
  ProcessResult HandleDeltasLocked(Deltas& deltas, bool is_in_initial_list) KUBE_REQUIRES(listeners_mu_);
  void Distribute(Notification&& n, bool sync) KUBE_REQUIRES(listeners_mu_);
  void ResyncLoop(std::stop_token stop);
  bool ShouldResync() KUBE_EXCLUDES(listeners_mu_);
  // Tells the listeners, once, that the informer has synced (they then check their own backlog).
  void NotifyIfSynced() KUBE_EXCLUDES(listeners_mu_);

  InformerOptions options_;
  Clock& clock_;
  log::Logger log_;
  std::shared_ptr<ListerWatcher> lw_;
  Indexer indexer_;
  DeltaFifo fifo_;
  std::unique_ptr<StoreAdapter> store_adapter_;
  std::unique_ptr<Reflector> reflector_;

  // Guards the listener set and, while held, blocks delta distribution: a late handler gets its
  // synthetic adds from a cache that does not change underneath it.
  mutable Mutex listeners_mu_;
  CondVar listeners_changed_;
  std::vector<std::shared_ptr<Listener>> listeners_ KUBE_GUARDED_BY(listeners_mu_);
  std::vector<Listener*> syncing_ KUBE_GUARDED_BY(listeners_mu_);
  bool started_ KUBE_GUARDED_BY(listeners_mu_) = false;
  bool stopped_ KUBE_GUARDED_BY(listeners_mu_) = false;
  // Written only before Run starts (SetTransform refuses afterwards); thread start orders the
  // write before every read on the reflector thread.
  TransformFunc transform_{};
  std::vector<std::pair<const void*, std::function<void(const ObjectPtr&)>>> decoders_;  // as transform_
  std::atomic<bool> sync_announced_{false};  // NotifyIfSynced has told the listeners
  std::unique_ptr<GaugeMetric> store_items_;  // informer_store_items; null without metrics
};

}  // namespace kube::cache
