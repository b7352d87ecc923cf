#pragma once

#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>

#include <kube/api/object.hpp>
#include <kube/base/result.hpp>
#include <kube/client/dynamic_client.hpp>
#include <kube/core/gvk.hpp>
#include <kube/core/options.hpp>

/// The typed client: every verb of the Kubernetes API on generated (or user-declared) API types,
/// such as `TypedApi<kube::api::apps::v1::Deployment>` (client-go's
/// `clientset.AppsV1().Deployments(ns)`). The resource, kind and scope come from the type's
/// traits; requests go through the same `Api` as the dynamic client.
namespace kube::client {

/// What a type must declare to be used with TypedApi, the typed informers and the typed
/// reconcilers: its group, version, kind, plural resource and scope, and its list type. Every
/// generated kind with a REST resource has them; a custom resource declares them (see
/// docs/typed-api.md).
template <class T>
concept TypedResource = requires {
  { T::kGroup } -> std::convertible_to<std::string_view>;
  { T::kVersion } -> std::convertible_to<std::string_view>;
  { T::kKind } -> std::convertible_to<std::string_view>;
  { T::kResource } -> std::convertible_to<std::string_view>;
  { T::kNamespaced } -> std::convertible_to<bool>;
  typename T::List;
};

/// The GroupVersionResource of T.
template <TypedResource T>
GroupVersionResource ResourceOf() {
  return {std::string(T::kGroup), std::string(T::kVersion), std::string(T::kResource)};
}

/// T's apiVersion: `version` for the core group, else `group/version`.
template <TypedResource T>
std::string ApiVersionOf() {
  return T::kGroup.empty() ? std::string(T::kVersion) : std::string(T::kGroup) + "/" + std::string(T::kVersion);
}

/// The GroupVersionKind of T.
template <TypedResource T>
GroupVersionKind KindOf() {
  return {std::string(T::kGroup), std::string(T::kVersion), std::string(T::kKind)};
}

/// One event of a typed watch. For a BOOKMARK only `object.metadata.resourceVersion` (and the
/// initial-events-end annotation) are set.
template <class T>
struct TypedWatchEvent {
  WatchEventType type = WatchEventType::kAdded;
  T object{};
};

/// A typed watch stream over a `WatchStream`.
/// **Thread-safety:** as WatchStream: one consumer; `Stop` from any thread.
template <class T>
class TypedWatch final {
 public:
  explicit TypedWatch(std::unique_ptr<WatchStream> stream) : stream_(std::move(stream)) {}

  /// The next event; nullopt when the watch is over (re-watch from the last resourceVersion).
  /// **Blocks?** Until an event arrives or the stream ends. **Errors:** as WatchStream::Next,
  /// and 400 BadRequest naming the field when an object does not decode as T.
  Result<std::optional<TypedWatchEvent<T>>> Next() {
    auto event = stream_->Next();
    if (!event.ok()) return std::move(event).error();
    if (!event->has_value()) return std::optional<TypedWatchEvent<T>>();
    auto object = api::FromObject<T>(*(*event)->object);
    if (!object.ok()) return std::move(object).error();
    return std::optional<TypedWatchEvent<T>>(TypedWatchEvent<T>{(*event)->type, std::move(*object)});
  }
  /// Ends the watch. Idempotent.
  void Stop() { stream_->Stop(); }

 private:
  std::unique_ptr<WatchStream> stream_;
};

/// The API of resource type T, optionally in one namespace. A cheap value; copy it freely.
/// Every verb encodes and decodes T with the generated codec; unknown fields of a newer server
/// are kept in `unknown_fields` and sent back on Update.
/// **Thread-safety:** const members may be called concurrently.
/// **Errors (all verbs):** as `Api`'s: the classified Error of the server's answer (`IsNotFound`,
/// `IsConflict`, ...), transport errors; and 500 InternalError when a 2xx body does not decode
/// as T (naming the field).
template <TypedResource T>
class TypedApi final {
 public:
  /// T's list type (`DeploymentList`).
  using ListType = typename T::List;

  /// T's resource through `client`, in namespace `ns` ("" = all namespaces, or cluster scope).
  explicit TypedApi(const DynamicClient& client, std::string ns = {})
      : api_(client.Resource(ResourceOf<T>(), std::move(ns))) {}
  /// T's resource through an existing Api (its namespace and stop token are kept).
  explicit TypedApi(Api api) : api_(std::move(api)) {}

  /// A copy targeting namespace `ns`.
  TypedApi Namespace(std::string ns) const { return TypedApi(api_.Namespace(std::move(ns))); }
  /// A copy whose requests are cancelled by `stop` (while throttled or retrying).
  TypedApi WithStop(std::stop_token stop) const { return TypedApi(api_.WithStop(std::move(stop))); }
  /// The dynamic Api underneath.
  const Api& dynamic() const { return api_; }

  /// GET one object.
  Result<T> Get(std::string_view name, const GetOptions& options = {}) const {
    return Decode(api_.Get(name, options));
  }
  /// One LIST request (a single page when `options.limit` is set).
  Result<ListType> List(const ListOptions& options = {}) const { return DecodeList(api_.List(options)); }
  /// Every item, following `continue` tokens (the pager's semantics).
  Result<ListType> ListAll(ListOptions options = {}, std::int64_t page_size = kDefaultPageSize) const {
    return DecodeList(api_.ListAll(std::move(options), page_size));
  }
  /// Opens a typed watch (`options.resource_version` from the list).
  Result<std::unique_ptr<TypedWatch<T>>> Watch(ListOptions options) const {
    auto stream = api_.Watch(std::move(options));
    if (!stream.ok()) return std::move(stream).error();
    return std::make_unique<TypedWatch<T>>(std::move(*stream));
  }

  /// POST `object`; returns what the server stored.
  Result<T> Create(const T& object, const CreateOptions& options = {}) const {
    return WithObject(object, [&](const Object& o) { return api_.Create(o, options); });
  }
  /// PUT `object` (by name); a stale resourceVersion gives `IsConflict`.
  Result<T> Update(const T& object, const UpdateOptions& options = {}) const {
    return WithObject(object, [&](const Object& o) { return api_.Update(o, options); });
  }
  /// PUT `object` to its `status` subresource.
  Result<T> UpdateStatus(const T& object, const UpdateOptions& options = {}) const {
    return WithObject(object, [&](const Object& o) { return api_.UpdateStatus(o, options); });
  }
  /// PATCH `name` (or its `subresource`) with `patch` of type `type`.
  Result<T> Patch(std::string_view name, PatchType type, std::string_view patch,
                  const PatchOptions& options = {}, std::string_view subresource = {}) const {
    return Decode(api_.Patch(name, type, patch, options, subresource));
  }
  /// Server-side apply of `object` (an apply configuration: set only the fields you own).
  /// **Errors:** 400 locally when `field_manager` is empty; `IsConflict` when another manager
  /// owns a field and not `force`.
  Result<T> Apply(const T& object, const ApplyOptions& options) const {
    return WithObject(object, [&](const Object& o) { return api_.Apply(o, options); });
  }
  /// Server-side apply to the `status` subresource.
  Result<T> ApplyStatus(const T& object, const ApplyOptions& options) const {
    return WithObject(object, [&](const Object& o) { return api_.ApplyStatus(o, options); });
  }
  /// DELETE `name`. Succeeds whether the object is gone or still there with a
  /// deletionTimestamp (finalizers); `IsNotFound` when it did not exist.
  Result<void> Delete(std::string_view name, const DeleteOptions& options = {}) const {
    auto r = api_.Delete(name, options);
    if (!r.ok()) return std::move(r).error();
    return Ok();
  }
  /// DELETE on the collection (`list_options` selects).
  Result<void> DeleteCollection(const DeleteOptions& delete_options = {},
                                const ListOptions& list_options = {}) const {
    return api_.DeleteCollection(delete_options, list_options);
  }

 private:
  static Result<T> Decode(Result<ObjectPtr> r) {
    if (!r.ok()) return std::move(r).error();
    auto typed = api::FromObject<T>(**r);
    if (!typed.ok()) return InternalError("decoding " + std::string(T::kKind) + ": " + typed.error().message);
    return typed;
  }

  static Result<ListType> DecodeList(Result<ObjectList> r) {
    if (!r.ok()) return std::move(r).error();
    ListType out;
    out.metadata.resourceVersion = r->resource_version;
    out.metadata.continue_ = r->continue_token;
    out.metadata.remainingItemCount = r->remaining_item_count;
    out.items.reserve(r->items.size());
    for (std::size_t i = 0; i < r->items.size(); ++i) {
      auto typed = api::FromObject<T>(*r->items[i]);
      if (!typed.ok()) {
        return InternalError("decoding " + std::string(T::kKind) + " items[" + std::to_string(i) +
                             "]: " + typed.error().message);
      }
      out.items.push_back(std::move(*typed));
    }
    return out;
  }

  template <class Send>
  static Result<T> WithObject(const T& object, Send&& send) {
    auto o = api::ToObject(object);
    if (!o.ok()) return std::move(o).error();
    return Decode(send(**o));
  }

  Api api_;
};

}  // namespace kube::client
