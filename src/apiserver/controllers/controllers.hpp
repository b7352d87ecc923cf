#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <stop_token>
#include <string_view>
#include <thread>

#include <kube/apiserver/resource.hpp>

#include "apiserver/rest/context.hpp"

/// The controllers kube-controller-manager runs for the resources the embedded server serves,
/// running inside the server on its storage (not through HTTP): the garbage collector, the
/// namespace controller and the event TTL sweeper. Each owns one thread, started by `Start` and
/// joined by `Stop` / the destructor. Internal to the API server (see docs/apiserver-controllers.md).
namespace kube::apiserver::controllers {

/// A background controller owned by the ApiServer.
class Controller {
 public:
  virtual ~Controller() = default;
  /// Starts the controller's thread. Called once.
  virtual void Start() = 0;
  /// Stops and joins the thread (idempotent). In-progress writes finish first.
  virtual void Stop() = 0;
};

/// A controller whose work is one loop on its own thread. Derived destructors must call `Stop()`
/// first: the loop uses their members.
class LoopController : public Controller {
 public:
  void Start() override {
    thread_ = std::jthread([this](std::stop_token stop) { Run(stop); });
  }
  void Stop() override {
    if (thread_.joinable()) {
      thread_.request_stop();
      thread_.join();
    }
  }

 protected:
  /// The loop; must return promptly once `stop` is requested.
  virtual void Run(std::stop_token stop) = 0;

 private:
  std::jthread thread_;
};

/// The served resource whose objects are stored under `key` (the first registered one when two
/// API views share a storage prefix), or nullptr.
ResourcePtr ResourceForKey(const Registry& registry, std::string_view key);

/// The garbage collector (kube-controller-manager's): deletes dependents whose owners are all
/// absent (by uid; cross-namespace owners count as absent), removes dangling owner references from
/// dependents that still have live owners, and completes `orphan` and `foregroundDeletion`
/// deletions (apiserver-semantics.md §3.5). `env` is borrowed and must outlive the controller.
std::unique_ptr<Controller> NewGarbageCollector(const rest::Env& env);

/// The namespace controller: for every namespace being deleted, deletes its content (each object
/// with background propagation), and once nothing is left removes `kubernetes` from
/// `spec.finalizers`, which deletes the namespace when no other finalizer remains. Objects held by
/// finalizers keep the namespace Terminating until they go (re-checked every `resync`).
std::unique_ptr<Controller> NewNamespaceController(const rest::Env& env,
                                                   Clock::Duration resync = std::chrono::seconds(1));

/// Deletes core/v1 Events `ttl` after their last write (kube-apiserver's --event-ttl, 1 h by
/// default). The last write is the newest time the event records (creationTimestamp,
/// lastTimestamp, eventTime, series.lastObservedTime, managedFields times), so restarts and
/// late observation do not extend it; a deadline is never more than `ttl` from now.
std::unique_ptr<Controller> NewEventTtlController(const rest::Env& env, Clock::Duration ttl);

/// Pod GC (kube-controller-manager's gcOrphaned, for terminating pods): a pod with a
/// deletionTimestamp bound to a node that does not exist is deleted with a period of 0, since no
/// kubelet will; also when its node is deleted later. `env` is borrowed.
std::unique_ptr<Controller> NewPodGc(const rest::Env& env);

}  // namespace kube::apiserver::controllers
