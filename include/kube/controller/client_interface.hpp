#pragma once
/// \file
/// The reads and writes a reconciler makes (controller-runtime's `client.Client`): implemented
/// by the Manager's cache-reading `Client` and by the fake client of `kube::testing`, so that a
/// reconciler written against `ClientInterface&` runs unchanged against either.

#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <kube/api/object.hpp>
#include <kube/base/result.hpp>
#include <kube/client/typed_api.hpp>
#include <kube/core/gvk.hpp>
#include <kube/core/label_selector.hpp>
#include <kube/core/object.hpp>
#include <kube/core/options.hpp>

namespace kube::controller {

/// Selects the objects whose field index `field` holds `value` (controller-runtime's
/// `client.MatchingFields{field: value}`). The index must have been registered for the listed
/// resource (`Client::IndexField`, `FakeClientBuilder::WithIndex`); listing by an unregistered
/// field is an error.
struct FieldMatch {
  std::string field;  ///< the index name given at registration, e.g. "spec.nodeName"
  std::string value;  ///< one of the values the index function returned
};

/// What `List` returns: a namespace (empty = all), a label selector and, optionally, a field
/// index match; all given conditions must hold.
struct ListFilter {
  std::string ns{};
  LabelSelector selector{};
  std::optional<FieldMatch> field{};
};

/// Extracts the values an object is indexed under for one field index (controller-runtime's
/// `client.IndexerFunc`). Must be pure and must not throw (a throw counts as no values).
using FieldIndexFunc = std::function<std::vector<std::string>(const Object& object)>;

/// A FieldIndexFunc over the typed value of T: objects that do not decode as T have no values.
/// **Errors:** none (decode failures count as no values).
template <client::TypedResource T>
FieldIndexFunc TypedFieldIndex(std::function<std::vector<std::string>(const T& object)> extract) {
  return [extract = std::move(extract)](const Object& object) -> std::vector<std::string> {
    auto typed = api::FromObject<T>(object);
    if (!typed.ok()) return {};
    return extract(*typed);
  };
}

/// The client a reconciler reads and writes through (controller-runtime's `client.Client`).
/// Public members are non-virtual and forward to the protected `Do*` hooks, so that every
/// overload (by resource, by kind, typed) stays visible on each implementation.
///
/// **Thread-safety:** implementations allow concurrent calls of every member.
/// **Errors:** the Kubernetes API's, classified with `IsNotFound`, `IsConflict`,
/// `IsAlreadyExists`, ...; each implementation documents where its reads come from.
/// **Blocks?** Reads may wait (for a cache sync, for read-your-writes); writes are requests.
class ClientInterface {
 public:
  virtual ~ClientInterface() = default;
  ClientInterface(const ClientInterface&) = delete;
  ClientInterface& operator=(const ClientInterface&) = delete;

  /// The object `key` of `gvr` (fully specified: group, version, plural resource): a shared,
  /// immutable value (edit a copy, `ObjectBuilder`). **Errors:** NotFound (404) for a missing
  /// object; Canceled when `stop` fires during a wait.
  Result<ObjectPtr> Get(const GroupVersionResource& gvr, const ObjectKey& key, std::stop_token stop = {}) {
    return DoGet(gvr, key, std::move(stop));
  }
  /// As above, the resource found from `gvk` (ResourceFor). **Errors:** also ResourceFor's.
  Result<ObjectPtr> Get(const GroupVersionKind& gvk, const ObjectKey& key, std::stop_token stop = {}) {
    auto gvr = ResourceFor(gvk);
    if (!gvr.ok()) return std::move(gvr).error();
    return DoGet(*gvr, key, std::move(stop));
  }
  /// The objects of `gvr` matching `filter`, sorted by namespace/name.
  /// **Errors:** 400 BadRequest when `filter.field` names an index not registered for `gvr`.
  Result<std::vector<ObjectPtr>> List(const GroupVersionResource& gvr, const ListFilter& filter = {},
                                      std::stop_token stop = {}) {
    return DoList(gvr, filter, std::move(stop));
  }

  /// Creates `object` (its apiVersion and kind select the resource); returns what was stored.
  /// **Errors:** AlreadyExists; Invalid; BadRequest for a resourceVersion set on the object.
  Result<ObjectPtr> Create(const Object& object, const CreateOptions& options = {}) {
    return DoCreate(object, options);
  }
  /// Replaces `object`; a stale resourceVersion gives IsConflict. **Errors:** NotFound, Conflict.
  Result<ObjectPtr> Update(const Object& object, const UpdateOptions& options = {}) {
    return DoUpdate(object, options, {});
  }
  /// Replaces `object`'s status subresource (only `status` changes). **Errors:** as Update;
  /// NotFound for a kind without a status subresource.
  Result<ObjectPtr> UpdateStatus(const Object& object, const UpdateOptions& options = {}) {
    return DoUpdate(object, options, "status");
  }
  /// Patches the object named by `object` (its apiVersion, kind, namespace and name are used)
  /// with `patch` of `type`, on `subresource` when not empty. **Errors:** NotFound; the patch's
  /// errors (400/422); Conflict for a resourceVersion in the patch that is not current.
  Result<ObjectPtr> Patch(const Object& object, PatchType type, std::string_view patch,
                          const PatchOptions& options = {}, std::string_view subresource = {}) {
    return DoPatch(object, type, patch, options, subresource);
  }
  /// Deletes the object named by `object`. Returns the object when finalizers keep it (now with
  /// a deletionTimestamp), else the answer's Status. **Errors:** NotFound; Conflict for failed
  /// preconditions.
  Result<ObjectPtr> Delete(const Object& object, const DeleteOptions& options = {}) {
    return DoDelete(object, options);
  }
  /// The resource of `gvk`. **Errors:** the RESTMapper's NoMatch (`client::IsNoMatch`).
  Result<GroupVersionResource> ResourceFor(const GroupVersionKind& gvk) const { return DoResourceFor(gvk); }

  // ---- Typed: the same calls on generated (or user-declared) API types. ----

  /// A copy of the object `key` of type T (controller-runtime's `Get(ctx, key, &obj)`): edit it
  /// and write it back. A cached object is decoded once per version and shared (see
  /// kube::api::Decoded); the copy is yours. **Errors:** as Get; 400 BadRequest when the object
  /// does not decode as T.
  template <client::TypedResource T>
  Result<T> Get(const ObjectKey& key, std::stop_token stop = {}) {
    auto obj = Get(client::ResourceOf<T>(), key, std::move(stop));
    if (!obj.ok()) return std::move(obj).error();
    auto typed = api::Decoded<T>(*obj);
    if (!typed.ok()) return std::move(typed).error();
    return T(**typed);
  }
  /// The objects of type T matching `filter`, sorted by namespace/name: shared, immutable values
  /// (copy one to edit it). **Errors:** as List; 400 when an object does not decode as T.
  template <client::TypedResource T>
  Result<std::vector<std::shared_ptr<const T>>> List(const ListFilter& filter = {}, std::stop_token stop = {}) {
    auto objs = List(client::ResourceOf<T>(), filter, std::move(stop));
    if (!objs.ok()) return std::move(objs).error();
    std::vector<std::shared_ptr<const T>> out;
    out.reserve(objs->size());
    for (const ObjectPtr& o : *objs) {
      auto typed = api::Decoded<T>(o);
      if (!typed.ok()) return std::move(typed).error();
      out.push_back(std::move(*typed));
    }
    return out;
  }
  /// Creates `object`; returns what was stored. **Errors:** as Create.
  template <client::TypedResource T>
  Result<T> Create(const T& object, const CreateOptions& options = {}) {
    return Typed<T>(object, [&](const Object& o) { return Create(o, options); });
  }
  /// Replaces `object` (its resourceVersion must be current, else IsConflict).
  template <client::TypedResource T>
  Result<T> Update(const T& object, const UpdateOptions& options = {}) {
    return Typed<T>(object, [&](const Object& o) { return Update(o, options); });
  }
  /// Replaces `object`'s status subresource. **Errors:** as UpdateStatus.
  template <client::TypedResource T>
  Result<T> UpdateStatus(const T& object, const UpdateOptions& options = {}) {
    return Typed<T>(object, [&](const Object& o) { return UpdateStatus(o, options); });
  }
  /// Patches `object` with `patch` (for example `MergeFrom(original)`): the difference between
  /// the patch's base and `object`, on `subresource` when not empty. **Errors:** as Patch.
  template <client::TypedResource T, class P>
    requires requires(const P& p, const T& t) { p.Data(t); }
  Result<T> Patch(const T& object, const P& patch, const PatchOptions& options = {},
                  std::string_view subresource = {}) {
    auto data = patch.Data(object);
    if (!data.ok()) return std::move(data).error();
    return Typed<T>(object, [&](const Object& o) { return Patch(o, P::kType, *data, options, subresource); });
  }
  /// Deletes `object` (by its namespace and name). Succeeds when it is gone or is being deleted.
  /// **Errors:** as Delete.
  template <client::TypedResource T>
  Result<void> Delete(const T& object, const DeleteOptions& options = {}) {
    auto o = api::ToObject(object);
    if (!o.ok()) return std::move(o).error();
    auto r = Delete(**o, options);
    if (!r.ok()) return std::move(r).error();
    return Ok();
  }

 protected:
  ClientInterface() = default;

  /// Get by resource.
  virtual Result<ObjectPtr> DoGet(const GroupVersionResource& gvr, const ObjectKey& key, std::stop_token stop) = 0;
  /// List by resource.
  virtual Result<std::vector<ObjectPtr>> DoList(const GroupVersionResource& gvr, const ListFilter& filter,
                                                std::stop_token stop) = 0;
  /// Create.
  virtual Result<ObjectPtr> DoCreate(const Object& object, const CreateOptions& options) = 0;
  /// Update of the object (`subresource` empty) or of its "status" subresource.
  virtual Result<ObjectPtr> DoUpdate(const Object& object, const UpdateOptions& options,
                                     std::string_view subresource) = 0;
  /// Patch of the object or of `subresource`.
  virtual Result<ObjectPtr> DoPatch(const Object& object, PatchType type, std::string_view patch,
                                    const PatchOptions& options, std::string_view subresource) = 0;
  /// Delete.
  virtual Result<ObjectPtr> DoDelete(const Object& object, const DeleteOptions& options) = 0;
  /// The resource of a kind.
  virtual Result<GroupVersionResource> DoResourceFor(const GroupVersionKind& gvk) const = 0;

 private:
  template <class T, class Send>
  static Result<T> Typed(const T& object, Send&& send) {
    auto o = api::ToObject(object);
    if (!o.ok()) return std::move(o).error();
    auto r = send(**o);
    if (!r.ok()) return std::move(r).error();
    auto typed = api::FromObject<T>(**r);
    if (!typed.ok()) return InternalError("decoding " + std::string(T::kKind) + ": " + typed.error().message);
    return typed;
  }
};

/// The name of the cache index that backs the field index `field` (controller-runtime's
/// "field:" prefix), so that it cannot collide with other indexes of an informer.
inline std::string FieldIndexName(std::string_view field) { return "field:" + std::string(field); }

/// The index value under which an object of namespace `ns` ("" = cluster-scoped) with field
/// value `value` is found by a List of namespace `ns`; `ns` empty is the all-namespaces value
/// (controller-runtime's `KeyToNamespacedKey`).
inline std::string FieldIndexValue(std::string_view ns, std::string_view value) {
  return (ns.empty() ? std::string("__all_namespaces") : std::string(ns)) + "/" + std::string(value);
}

}  // namespace kube::controller
