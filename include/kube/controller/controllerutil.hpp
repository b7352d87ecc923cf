#pragma once

/// \file
/// controller-runtime's controllerutil for immutable `kube::Object`s: every mutation happens on
/// an `ObjectBuilder` (a mutable JSON copy) and is then written through a `client::Api`.
///
/// ```cpp
/// kube::ObjectBuilder cm("v1", "ConfigMap");      // apiVersion, kind, namespace and name select
/// cm.SetNamespace("default").SetName("settings");  // the object; the rest comes from mutate
/// auto r = kube::controller::CreateOrUpdate(api, cm, [&](kube::ObjectBuilder& obj) {
///   obj.SetLabel("app", "demo");
///   return kube::controller::SetControllerReference(*owner, obj);
/// });
/// if (r && r->operation == kube::controller::OperationResult::kCreated) { ... }
/// ```

#include <functional>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <kube/base/backoff.hpp>
#include <kube/base/result.hpp>
#include <kube/base/wait.hpp>
#include <kube/client/dynamic_client.hpp>
#include <kube/controller/client_interface.hpp>
#include <kube/core/gvk.hpp>
#include <kube/core/object.hpp>

namespace kube::controller {

/// What CreateOrUpdate / CreateOrPatch did.
enum class OperationResult {
  kUnchanged,          ///< the object existed and mutate changed nothing: nothing was written
  kCreated,            ///< the object did not exist and was created
  kUpdated,            ///< the object (outside status) was updated
  kUpdatedStatus,      ///< CreateOrPatch: the object and its status were patched
  kUpdatedStatusOnly,  ///< CreateOrPatch: only the status was patched
};
/// "unchanged", "created", "updated", "updatedStatus", "updatedStatusOnly".
std::string_view ToString(OperationResult result);

/// The outcome of CreateOrUpdate / CreateOrPatch: what was done and the object as the server
/// last returned it (or as read, when unchanged).
struct OperationOutcome {
  OperationResult operation = OperationResult::kUnchanged;
  ObjectPtr object;
};

/// Edits the desired state into `obj` (called with the current object, or with the seed when the
/// object does not exist yet). It must be idempotent and must not change name or namespace.
/// Return an error to abort without writing.
using MutateFn = std::function<Result<void>(ObjectBuilder& obj)>;

/// Gets the object named by `seed` (its namespace and name; its apiVersion and kind are used
/// when creating), calls `mutate` on a copy, and
/// - creates it (`seed` + mutate) when it does not exist -> kCreated;
/// - updates it (PUT with the read resourceVersion) when mutate changed anything -> kUpdated;
/// - writes nothing when the mutated JSON equals what was read -> kUnchanged.
/// `api` is the resource's Api; its namespace, if set, must match the seed's (or the seed's may
/// be empty). **Errors:** the Get/Create/Update error (a concurrent writer yields `IsConflict`:
/// wrap in RetryOnConflict to retry), mutate's error, 400 BadRequest when mutate changed the
/// name or namespace or the seed has no name.
Result<OperationOutcome> CreateOrUpdate(const client::Api& api, const ObjectBuilder& seed,
                                        const MutateFn& mutate);
/// As above through `client` (the Manager's Client, which reads from the cache, or a fake): the
/// resource comes from the seed's apiVersion and kind (`ResourceFor`). With the cache-reading
/// client a just-written object may not be read back yet: a retry can see AlreadyExists or a
/// Conflict (enable `ClientOptions::read_your_writes`, or requeue). **Thread-safety:** as
/// `client`. **Errors:** as above; ResourceFor's NoMatch.
Result<OperationOutcome> CreateOrUpdate(ClientInterface& client, const ObjectBuilder& seed, const MutateFn& mutate);

/// As CreateOrUpdate, but writes only the difference as JSON merge patches (RFC 7386, from
/// `CreateMergePatch`): one on the object for changes outside `status` and one on the `status`
/// subresource for changes to `status`. No resourceVersion precondition is sent, so the patch
/// applies over concurrent changes to other fields. Results: kCreated, kUnchanged, kUpdated
/// (only non-status fields), kUpdatedStatus (both), kUpdatedStatusOnly.
/// **Errors:** as CreateOrUpdate.
Result<OperationOutcome> CreateOrPatch(const client::Api& api, const ObjectBuilder& seed,
                                       const MutateFn& mutate);
/// As above through `client` (see the ClientInterface overload of CreateOrUpdate).
/// **Errors:** as CreateOrUpdate.
Result<OperationOutcome> CreateOrPatch(ClientInterface& client, const ObjectBuilder& seed, const MutateFn& mutate);

/// Makes `owner` the controller of `object`: adds (or refreshes) an ownerReference with
/// `controller: true` and `blockOwnerDeletion: true`, as controller-runtime does, so that
/// garbage collection deletes `object` with its owner and `Owns()` watches enqueue the owner.
/// **Errors:** 400 BadRequest when `owner` lacks apiVersion, kind, name or uid; when `owner` is
/// namespaced and `object` is cluster-scoped or in another namespace (cross-namespace owner
/// references are disallowed); 409 Conflict (`IsAlreadyOwned`) when another object is already
/// the controller of `object`.
Result<void> SetControllerReference(const Object& owner, ObjectBuilder& object);

/// Adds (or refreshes) a non-controller ownerReference to `owner` (no `controller`, no
/// `blockOwnerDeletion`), keeping an existing controller flag of the same owner.
/// **Errors:** as SetControllerReference, except the already-owned case.
Result<void> SetOwnerReference(const Object& owner, ObjectBuilder& object);

/// Removes the ownerReference to `owner` (matched by API group, kind and name); returns whether
/// one was removed.
bool RemoveOwnerReference(const Object& owner, ObjectBuilder& object);

/// True when `object` has an ownerReference to `owner` (matched by API group, kind and name).
bool HasOwnerReference(const Object& owner, const Object& object);
/// True when `owner` is the controller of `object`.
bool HasControllerReference(const Object& owner, const Object& object);

/// True for the 409 Conflict that SetControllerReference returns when the object already has a
/// different controller.
bool IsAlreadyOwned(const Error& e);
/// The StatusCause reason that marks an already-owned error (`IsAlreadyOwned`).
inline constexpr std::string_view kAlreadyOwnedReason = "AlreadyOwned";

/// Appends `finalizer` to `object`'s finalizers unless present; returns whether it was added.
bool AddFinalizer(ObjectBuilder& object, std::string_view finalizer);
/// Removes `finalizer` from `object`'s finalizers; returns whether it was present.
bool RemoveFinalizer(ObjectBuilder& object, std::string_view finalizer);
/// True when `object` carries `finalizer`.
bool ContainsFinalizer(const Object& object, std::string_view finalizer);

/// Options of UpdateStatus.
struct UpdateStatusOptions {
  /// Conflict retries (client-go DefaultRetry: 5 steps, 10 ms, jitter 0.1).
  Backoff backoff = DefaultRetry();
  /// Time for the retry waits; nullptr = RealClock.
  Clock* clock = nullptr;
  /// Set `status.observedGeneration` on every attempt (the status convention after acting on a
  /// spec): to `observed_generation` when given, else to the fetched object's generation.
  bool set_observed_generation = true;
  /// The generation whose spec the caller acted on: the `Generation()` of the object it
  /// reconciled. Pass it. The helper GETs a fresh copy, which may already carry a newer spec the
  /// caller has not acted on, and `status.observedGeneration` must not claim that one (the
  /// reconcile queued by that change reports it). nullopt: the fetched object's generation, right
  /// only when the spec cannot have changed since the caller read it.
  std::optional<std::int64_t> observed_generation{};
};

/// The status helper: GETs `key` through `api`, calls `mutate` on a copy of the fresh object,
/// sets `status.observedGeneration` (see `UpdateStatusOptions::observed_generation`), and PUTs the `status` subresource with the read
/// resourceVersion; a 409 Conflict starts over from the GET (RetryOnConflict). When the status
/// after mutate equals the stored one nothing is written. Returns the object as last stored.
/// **Errors:** the Get / UpdateStatus error (Conflict once retries run out), mutate's error.
/// **Blocks?** Yes: requests and retry waits.
Result<ObjectPtr> UpdateStatus(const client::Api& api, const ObjectKey& key,
                               const MutateFn& mutate, UpdateStatusOptions options = {});
/// As above, reading `key` of `gvr` and writing through `client`. With the Manager's client the
/// read comes from the cache, so a conflict retry may read the same stale copy again until the
/// cache catches up (the retries of `options.backoff` bound it; enable read-your-writes to wait
/// for the cache instead). **Errors:** as above. **Blocks?** Yes: reads, writes, retry waits.
Result<ObjectPtr> UpdateStatus(ClientInterface& client, const GroupVersionResource& gvr, const ObjectKey& key,
                               const MutateFn& mutate, UpdateStatusOptions options = {});

}  // namespace kube::controller
