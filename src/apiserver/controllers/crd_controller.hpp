#pragma once

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <boost/json/object.hpp>

#include <kube/apiserver/resource.hpp>
#include <kube/apiserver/storage.hpp>
#include <kube/base/clock.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/result.hpp>

#include "apiserver/controllers/controllers.hpp"

/// The apiextensions controllers of kube-apiserver, for the embedded server: the naming and
/// establishing controllers (CRD status: acceptedNames, storedVersions, NamesAccepted,
/// Established), the registration of each served version in the Registry (which discovery,
/// OpenAPI and the REST routes follow), and the CRD finalizer (deletes every custom resource of a
/// CRD being deleted, then removes `customresourcecleanup.apiextensions.k8s.io`).
///
/// Status and registration are applied synchronously, inside every storage write of a CRD (the
/// controller wraps the server's Storage): when a CRD create or update returns, its resources are
/// served already and its stored status is final, so `kubectl wait --for=condition=established`
/// followed by the use of the resource never races. CRD writes are serialized with their
/// registry updates, so concurrent writers of one CRD (two operator replicas installing it) leave
/// the registry serving exactly what is stored. The cleanup of deleted CRDs runs on the
/// controller's thread.
namespace kube::apiserver::controllers {

/// See the namespace comment. **Thread-safety:** all members may be called concurrently, except
/// `WrapStorage` and `RegisterStored`, which run once before the server serves.
/// **Lifetime:** `registry` and `clock` are borrowed and must outlive the controller; the wrapped
/// storage must not be used for CRD writes after the controller is destroyed.
class CrdController final : public Controller {
 public:
  /// `retry` is how long the cleanup waits before re-checking custom resources that still have
  /// finalizers.
  CrdController(Registry& registry, Clock& clock, Clock::Duration retry = std::chrono::seconds(1));
  ~CrdController() override;
  CrdController(const CrdController&) = delete;
  CrdController& operator=(const CrdController&) = delete;

  /// Returns `inner` wrapped so that every write of a CRD key updates the CRD's status and the
  /// registry (and queues the cleanup of a CRD being deleted). Other keys pass through. The
  /// controller keeps a pointer to the wrapper for its own writes.
  std::unique_ptr<Storage> WrapStorage(std::unique_ptr<Storage> inner);

  /// Registers the served versions of every CRD already stored (a restart of durable storage) and
  /// queues the cleanup of those being deleted. Call after `WrapStorage`, before serving.
  /// **Errors:** storage failures.
  Result<void> RegisterStored();

  /// Starts the cleanup thread.
  void Start() override;
  /// Stops and joins the cleanup thread (idempotent).
  void Stop() override;

  /// Called by the storage wrapper inside a CRD write (also usable directly): recomputes the
  /// status of `crd` against the registry and registers or unregisters its served versions.
  /// `crd` is modified in place.
  void OnCrdWrite(boost::json::object& crd);
  /// Called by the storage wrapper when the CRD `name` was deleted: unregisters its resources.
  void OnCrdDeleted(const std::string& name);
  /// Queues the cleanup of the CRD `name` (called once a write that left it with a
  /// deletionTimestamp is visible). For a CRD that is not being deleted, the controller rewrites
  /// its status if it would change (a CRD whose names conflicted is re-checked when another CRD of
  /// its group is deleted, as kube's naming controller does).
  void QueueCleanup(const std::string& name);

 private:
  void Run();
  // One cleanup pass over the CRD `name` (or a status refresh when it is not being deleted);
  // returns true when it must be retried later.
  bool Cleanup(const std::string& name);
  // True when a write of `crd` would change its status (names now free, ...).
  bool StatusWouldChange(const boost::json::object& crd);
  void Enqueue(const std::string& name) KUBE_REQUIRES(mu_);
  void ApplyLocked(boost::json::object& crd) KUBE_REQUIRES(mu_);
  void UnregisterLocked(const std::string& name) KUBE_REQUIRES(mu_);
  // Everything served in `group` except the resources of the CRD `name`: built-ins and other CRDs.
  std::vector<ResourcePtr> OthersInGroupLocked(const std::string& name, const std::string& group) KUBE_REQUIRES(mu_);

  Registry& registry_;
  Clock& clock_;
  const Clock::Duration retry_;
  Storage* storage_ = nullptr;  // the wrapper; set once by WrapStorage before any use

  Mutex mu_;
  CondVar cv_;
  // The group/version/resource each CRD (by name) has registered.
  std::map<std::string, std::vector<GroupVersionResource>> owned_ KUBE_GUARDED_BY(mu_);
  // CRDs whose names were not accepted (name -> group): re-checked when a CRD of the group goes.
  std::map<std::string, std::string> unaccepted_ KUBE_GUARDED_BY(mu_);
  std::deque<std::string> queue_ KUBE_GUARDED_BY(mu_);
  bool stopping_ KUBE_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace kube::apiserver::controllers
