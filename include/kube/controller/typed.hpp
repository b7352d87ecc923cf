#pragma once
/// \file
/// The typed controller helpers (controller-runtime's `reconcile.AsReconciler` and
/// `controllerutil` on typed objects):
/// ```cpp
/// auto ctrl = ControllerManagedBy(mgr).For<apps::v1::Deployment>().Owns<apps::v1::ReplicaSet>().Complete(
///     AsReconciler<apps::v1::Deployment>(mgr.GetClient(), [&](ReconcileContext& ctx, apps::v1::Deployment& d)
///         -> Result<ReconcileResult> {
///       apps::v1::ReplicaSet rs;
///       rs.metadata.name = d.metadata.name;
///       rs.metadata.namespace_ = d.metadata.namespace_;
///       auto op = CreateOrUpdate(client, rs, [&](apps::v1::ReplicaSet& r) -> Result<void> {
///         r.spec.replicas = d.spec.replicas;
///         return SetControllerReference(d, r);
///       });
///       ...
///     }));
/// ```

#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>

#include <kube/api/meta/v1.hpp>
#include <kube/base/result.hpp>
#include <kube/client/typed_api.hpp>
#include <kube/controller/client.hpp>
#include <kube/controller/controllerutil.hpp>
#include <kube/controller/event_recorder.hpp>
#include <kube/controller/reconciler.hpp>

namespace kube::controller {

/// A reconcile function that is handed the object (a copy of the cached one, its own to edit).
template <class T>
using ObjectReconcileFunc = std::function<Result<ReconcileResult>(ReconcileContext&, T&)>;

/// A Reconciler that gets the requested object of type T from `client` (the cache) and calls
/// `fn` with it; a request whose object is gone is done without calling `fn` (controller-runtime's
/// `reconcile.AsReconciler`, kube-rs's `reconcile(Arc<K>, ctx)`).
/// **Lifetime:** `client` must outlive the reconciler. **Errors:** the Get's other errors are
/// returned (and retried by the controller); `fn`'s errors.
template <client::TypedResource T>
std::shared_ptr<Reconciler> AsReconciler(ClientInterface& client, ObjectReconcileFunc<T> fn) {
  return MakeReconciler([&client, fn = std::move(fn)](ReconcileContext& ctx, const Request& req) -> Result<ReconcileResult> {
    auto obj = client.Get<T>(req.key, ctx.stop);
    if (!obj.ok()) {
      if (IsNotFound(obj.error())) return ReconcileResult::Done();
      return std::move(obj).error();
    }
    return fn(ctx, *obj);
  });
}

/// `Ok()` when `error` is NotFound, else `error` (controller-runtime's `client.IgnoreNotFound`).
inline Result<void> IgnoreNotFound(const Error& error) {
  if (IsNotFound(error)) return Ok();
  return error;
}

/// `Ok()` when `r` succeeded or failed with NotFound, else its error.
template <class T>
Result<void> IgnoreNotFound(const Result<T>& r) {
  if (r.ok()) return Ok();
  return IgnoreNotFound(r.error());
}

/// The ObjectKey of a typed object.
template <class T>
ObjectKey KeyOf(const T& object) {
  return ObjectKey{object.metadata.namespace_, object.metadata.name};
}

/// Edits the desired state into the object (typed MutateFn).
template <class T>
using TypedMutateFn = std::function<Result<void>(T&)>;

/// controller-runtime's `CreateOrUpdate` on a typed object: gets `object` (by its namespace and
/// name) from the cache, calls `mutate` on it, and
/// - creates it when it does not exist (`object` as given, then mutate) -> kCreated;
/// - updates it when mutate changed it (semantic equality, `operator==`) -> kUpdated;
/// - writes nothing when it did not -> kUnchanged.
/// On success `object` holds the server's answer (or the cached object when unchanged).
/// **Errors:** the Get/Create/Update error (a concurrent writer yields `IsConflict`: wrap in
/// RetryOnConflict), mutate's error, 400 BadRequest when mutate changed the name or namespace.
template <client::TypedResource T>
Result<OperationResult> CreateOrUpdate(ClientInterface& client, T& object, const TypedMutateFn<T>& mutate,
                                       std::stop_token stop = {}) {
  const ObjectKey key = KeyOf(object);
  if (key.name.empty()) return BadRequest("CreateOrUpdate: the object has no metadata.name");
  auto check = [&](const T& o) -> Result<void> {
    if (KeyOf(o) != key) return BadRequest("MutateFn cannot mutate object name and/or object namespace");
    return Ok();
  };
  auto current = client.Get<T>(key, stop);
  if (!current.ok()) {
    if (!IsNotFound(current.error())) return std::move(current).error();
    KUBE_RETURN_IF_ERROR(mutate(object));
    KUBE_RETURN_IF_ERROR(check(object));
    auto created = client.Create(object);
    if (!created.ok()) return std::move(created).error();
    object = std::move(*created);
    return OperationResult::kCreated;
  }
  object = std::move(*current);
  const T existing = object;
  KUBE_RETURN_IF_ERROR(mutate(object));
  KUBE_RETURN_IF_ERROR(check(object));
  if (object == existing) return OperationResult::kUnchanged;
  auto updated = client.Update(object);
  if (!updated.ok()) return std::move(updated).error();
  object = std::move(*updated);
  return OperationResult::kUpdated;
}

namespace internal {

inline std::string_view GroupOfApiVersion(std::string_view api_version) {
  const auto slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

// The reference to `owner`: its type's apiVersion and kind, its name and uid.
template <class Owner>
Result<api::meta::v1::OwnerReference> ReferenceTo(const Owner& owner) {
  const auto& m = owner.metadata;
  if (m.name.empty() || m.uid.empty()) {
    return BadRequest("owner " + (m.namespace_.empty() ? m.name : m.namespace_ + "/" + m.name) +
                      " must have apiVersion, kind, name and uid (pass an object read from the API server)");
  }
  api::meta::v1::OwnerReference ref;
  ref.apiVersion = client::ApiVersionOf<Owner>();
  ref.kind = std::string(Owner::kKind);
  ref.name = m.name;
  ref.uid = m.uid;
  return ref;
}

template <class Owner, class Object>
Result<void> ValidateOwner(const Owner& owner, const Object& object) {
  const std::string& owner_ns = owner.metadata.namespace_;
  const std::string& object_ns = object.metadata.namespace_;
  if (!owner_ns.empty()) {
    if (object_ns.empty()) {
      return BadRequest("cluster-scoped resource must not have a namespace-scoped owner, owner's namespace " + owner_ns);
    }
    if (object_ns != owner_ns) {
      return BadRequest("cross-namespace owner references are disallowed, owner's namespace " + owner_ns +
                        ", obj's namespace " + object_ns);
    }
  }
  return Ok();
}

inline bool SameOwner(const api::meta::v1::OwnerReference& a, const api::meta::v1::OwnerReference& b) {
  return GroupOfApiVersion(a.apiVersion) == GroupOfApiVersion(b.apiVersion) && a.kind == b.kind && a.name == b.name;
}

// Replaces the reference to the same owner, or appends `ref`.
inline void UpsertOwnerReference(std::vector<api::meta::v1::OwnerReference>& refs, api::meta::v1::OwnerReference ref) {
  for (auto& existing : refs) {
    if (SameOwner(existing, ref)) {
      existing = std::move(ref);
      return;
    }
  }
  refs.push_back(std::move(ref));
}

}  // namespace internal

/// Makes `owner` the controller of `object` (controller-runtime's `SetControllerReference`): adds
/// or refreshes an ownerReference with `controller: true` and `blockOwnerDeletion: true`, so that
/// garbage collection deletes `object` with its owner and `Owns<>()` watches enqueue the owner.
/// The reference's apiVersion and kind come from Owner's type.
/// **Errors:** 400 BadRequest when `owner` lacks a name or uid (it was not read from the server),
/// when `owner` is namespaced and `object` is cluster-scoped or in another namespace; 409
/// Conflict (`IsAlreadyOwned`) when another object is already the controller of `object`.
template <client::TypedResource Owner, class Object>
Result<void> SetControllerReference(const Owner& owner, Object& object) {
  auto ref = internal::ReferenceTo(owner);
  if (!ref.ok()) return std::move(ref).error();
  KUBE_RETURN_IF_ERROR(internal::ValidateOwner(owner, object));
  for (const auto& existing : object.metadata.ownerReferences) {
    if (existing.controller.value_or(false) && !internal::SameOwner(existing, *ref)) {
      Error e = MakeError(409, reason::kConflict,
                          "object " + object.metadata.name + " is already owned by another " + existing.kind +
                              " controller " + existing.name);
      e.details = StatusDetails{};
      e.details->name = object.metadata.name;
      e.details->causes.push_back(StatusCause{std::string(kAlreadyOwnedReason), e.message, "metadata.ownerReferences"});
      return e;
    }
  }
  ref->controller = true;
  ref->blockOwnerDeletion = true;
  internal::UpsertOwnerReference(object.metadata.ownerReferences, std::move(*ref));
  return Ok();
}

/// Adds or refreshes a non-controller ownerReference to `owner` (controller-runtime's
/// `SetOwnerReference`), keeping the controller flag of an existing reference to the same owner.
/// **Errors:** as SetControllerReference, except the already-owned case.
template <client::TypedResource Owner, class Object>
Result<void> SetOwnerReference(const Owner& owner, Object& object) {
  auto ref = internal::ReferenceTo(owner);
  if (!ref.ok()) return std::move(ref).error();
  KUBE_RETURN_IF_ERROR(internal::ValidateOwner(owner, object));
  for (const auto& existing : object.metadata.ownerReferences) {
    if (internal::SameOwner(existing, *ref)) {
      ref->controller = existing.controller;
      ref->blockOwnerDeletion = existing.blockOwnerDeletion;
    }
  }
  internal::UpsertOwnerReference(object.metadata.ownerReferences, std::move(*ref));
  return Ok();
}

/// The ownerReference with `controller: true`, or nullptr (apimachinery's `GetControllerOf`).
namespace internal {
/// The Object an event refers to: apiVersion, kind, and the metadata an Event copies.
/// **Errors:** as ObjectBuilder::Build (none for names the API server accepted).
Result<ObjectPtr> InvolvedObject(std::string_view api_version, std::string_view kind, std::string_view ns,
                                 std::string_view name, std::string_view uid, std::string_view resource_version);
}  // namespace internal

/// Records an event about the typed `object` (client-go's `recorder.Event(obj, ...)`): the
/// Event's involvedObject gets T's apiVersion and kind and the object's namespace, name, uid and
/// resourceVersion; nothing else of the object is converted. Never blocks (see EventRecorder).
template <client::TypedResource T>
void RecordEvent(EventRecorder& recorder, const T& object, EventType type, std::string_view reason,
                 std::string_view message) {
  const auto& m = object.metadata;
  auto involved = internal::InvolvedObject(client::ApiVersionOf<T>(), T::kKind, m.namespace_, m.name, m.uid,
                                           m.resourceVersion);
  if (involved.ok()) recorder.Event(**involved, type, reason, message);
}

/// `RecordEvent` with a fmt-formatted message (client-go's `recorder.Eventf`).
template <client::TypedResource T, class... Args>
void RecordEventf(EventRecorder& recorder, const T& object, EventType type, std::string_view reason,
                  fmt::format_string<Args...> format, Args&&... args) {
  RecordEvent(recorder, object, type, reason, fmt::format(format, std::forward<Args>(args)...));
}

template <class Object>
const api::meta::v1::OwnerReference* GetControllerOf(const Object& object) {
  for (const auto& ref : object.metadata.ownerReferences) {
    if (ref.controller.value_or(false)) return &ref;
  }
  return nullptr;
}

/// True when `object` has the finalizer `name`.
template <class Object>
bool ContainsFinalizer(const Object& object, std::string_view name) {
  for (const auto& f : object.metadata.finalizers) {
    if (f == name) return true;
  }
  return false;
}

/// Adds the finalizer `name` unless present; returns whether it changed the object
/// (controller-runtime's `AddFinalizer`).
template <class Object>
bool AddFinalizer(Object& object, std::string_view name) {
  if (ContainsFinalizer(object, name)) return false;
  object.metadata.finalizers.emplace_back(name);
  return true;
}

/// Removes every occurrence of the finalizer `name`; returns whether it changed the object.
template <class Object>
bool RemoveFinalizer(Object& object, std::string_view name) {
  auto& f = object.metadata.finalizers;
  const auto before = f.size();
  std::erase(f, name);
  return f.size() != before;
}

}  // namespace kube::controller
