#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <kube/api/object.hpp>
#include <kube/base/log.hpp>
#include <kube/base/result.hpp>
#include <kube/cache/indexer.hpp>
#include <kube/cache/shared_informer.hpp>
#include <kube/client/typed_api.hpp>
#include <kube/core/label_selector.hpp>

/// Typed informers and listers (client-go's generated `listers` and `informers` packages): the
/// same SharedIndexInformer and cache as the dynamic ones, read as generated (or user-declared)
/// types. A cached object is decoded at most once per version, and the decoded value is kept
/// with it (`kube::api::Decoded`): handlers and listers that read it share that one copy. With a
/// typed handler, a list's items are decoded as they arrive; other objects on first typed read. Objects nobody reads as T stay compact JSON.
namespace kube::cache {

/// The NotFound error of a typed lister, worded as client-go's listers
/// (`errors.NewNotFound(resource, name)`): `deployment.apps "web" not found`.
Error TypedListerNotFound(std::string_view group, std::string_view kind, std::string_view name);

/// The lister of one namespace (client-go's `DeploymentNamespaceLister`).
/// **Lifetime:** the informer's cache must outlive it. **Thread-safety:** safe from any thread.
template <client::TypedResource T>
class TypedNamespaceLister final {
 public:
  TypedNamespaceLister(const Indexer& indexer, std::string ns) : indexer_(indexer), ns_(std::move(ns)) {}

  /// The object `name` of this namespace. **Errors:** NotFound (`deployment.apps "web" not
  /// found`); 400 BadRequest when the cached object does not decode as T.
  Result<std::shared_ptr<const T>> Get(std::string_view name) const {
    auto obj = Lister(indexer_).Get(ns_, name);
    if (!obj.ok()) return TypedListerNotFound(T::kGroup, T::kKind, name);
    return api::Decoded<T>(*obj);
  }
  /// The objects of this namespace matching `selector`, in the cache's order. Objects that do
  /// not decode as T are skipped (and logged).
  std::vector<std::shared_ptr<const T>> List(const LabelSelector& selector = LabelSelector::Everything()) const {
    return DecodeAll(Lister(indexer_).List(ns_, selector));
  }

  /// Decodes `objects`; skips (and logs) the ones that fail.
  static std::vector<std::shared_ptr<const T>> DecodeAll(const std::vector<ObjectPtr>& objects) {
    std::vector<std::shared_ptr<const T>> out;
    out.reserve(objects.size());
    for (const ObjectPtr& o : objects) {
      auto typed = api::Decoded<T>(o);
      if (typed.ok()) {
        out.push_back(std::move(*typed));
      } else {
        log::Error("typed lister: cached object does not decode",
                   {{"kind", std::string(T::kKind)}, {"key", o->Key()}, {"error", typed.error().message}});
      }
    }
    return out;
  }

 private:
  const Indexer& indexer_;
  std::string ns_;
};

/// The lister of T over an informer's cache (client-go's `DeploymentLister`).
/// **Lifetime:** the informer's cache must outlive it. **Thread-safety:** safe from any thread.
template <client::TypedResource T>
class TypedLister final {
 public:
  explicit TypedLister(const Indexer& indexer) : indexer_(indexer) {}

  /// Every cached object matching `selector`.
  std::vector<std::shared_ptr<const T>> List(const LabelSelector& selector = LabelSelector::Everything()) const {
    return TypedNamespaceLister<T>::DecodeAll(Lister(indexer_).List(selector));
  }
  /// The lister of namespace `ns` (`lister.Deployments(ns).Get(name)` in client-go).
  TypedNamespaceLister<T> Namespace(std::string ns) const { return TypedNamespaceLister<T>(indexer_, std::move(ns)); }
  /// A cluster-scoped object by name (for namespaced kinds use `Namespace(ns).Get(name)`).
  /// **Errors:** as TypedNamespaceLister::Get.
  Result<std::shared_ptr<const T>> Get(std::string_view name) const {
    return TypedNamespaceLister<T>(indexer_, "").Get(name);
  }

 private:
  const Indexer& indexer_;
};

/// Typed event handler functions; unset ones ignore the notification. An object that does not
/// decode as T is logged and its notification skipped.
template <class T>
struct TypedEventHandlerFuncs {
  /// A new object; `is_in_initial_list` as ResourceEventHandler::OnAdd.
  std::function<void(const std::shared_ptr<const T>&, bool is_in_initial_list)> add{};
  /// A changed object (old == new on a resync).
  std::function<void(const std::shared_ptr<const T>& old_obj, const std::shared_ptr<const T>& new_obj)> update{};
  /// A deleted object's last known state: null when the delete was missed and the cache never
  /// had the object; `final_state_unknown` as ResourceEventHandler::OnDelete.
  std::function<void(const std::shared_ptr<const T>&, bool final_state_unknown)> del{};
};

namespace internal {

template <class T>
class TypedHandlerAdapter final : public ResourceEventHandler {
 public:
  explicit TypedHandlerAdapter(TypedEventHandlerFuncs<T> funcs) : funcs_(std::move(funcs)) {}
  void OnAdd(const ObjectPtr& obj, bool initial) override {
    if (!funcs_.add) return;
    if (auto t = Decode(obj)) funcs_.add(*t, initial);
  }
  void OnUpdate(const ObjectPtr& old_obj, const ObjectPtr& new_obj) override {
    if (!funcs_.update) return;
    auto o = Decode(old_obj);
    auto n = Decode(new_obj);
    if (o && n) funcs_.update(*o, *n);
  }
  void OnDelete(const ObjectPtr& obj, bool unknown) override {
    if (!funcs_.del) return;
    if (!obj) {
      funcs_.del(nullptr, unknown);
      return;
    }
    if (auto t = Decode(obj)) funcs_.del(*t, unknown);
  }

 private:
  static std::optional<std::shared_ptr<const T>> Decode(const ObjectPtr& obj) {
    auto typed = api::Decoded<T>(obj);
    if (typed.ok()) return std::move(*typed);
    log::Error("typed handler: object does not decode",
               {{"kind", std::string(T::kKind)}, {"key", obj->Key()}, {"error", typed.error().message}});
    return std::nullopt;
  }
  TypedEventHandlerFuncs<T> funcs_;
};

}  // namespace internal

/// A typed handle on a SharedIndexInformer (client-go's `DeploymentInformer`): a cheap value.
/// **Lifetime:** the informer (owned by its factory) must outlive it.
/// **Thread-safety:** safe from any thread.
template <client::TypedResource T>
class TypedInformer final {
 public:
  explicit TypedInformer(SharedIndexInformer& informer) : informer_(&informer) {}

  /// The shared informer underneath (dynamic handlers, indexers, transform).
  SharedIndexInformer& Informer() const { return *informer_; }
  /// The typed lister over its cache.
  TypedLister<T> Lister() const { return TypedLister<T>(informer_->GetIndexer()); }
  /// Adds typed handlers. Added before the informer starts, it also has the informer decode
  /// each list item as T as it arrives (SharedIndexInformer::AddDecoder): a handler reads every
  /// object anyway, and a list's items are then decoded beside its parse.
  /// **Errors:** as SharedIndexInformer::AddEventHandler.
  Result<std::shared_ptr<HandlerRegistration>> AddEventHandler(
      TypedEventHandlerFuncs<T> funcs, std::optional<Clock::Duration> resync = std::nullopt) const {
    informer_->AddDecoder(&api::internal::DecodedTag<T>::id,
                          [](const ObjectPtr& obj) { (void)api::Decoded<T>(obj); });
    return informer_->AddEventHandler(std::make_shared<internal::TypedHandlerAdapter<T>>(std::move(funcs)), resync);
  }
  /// True once the first list is in the cache.
  bool HasSynced() const { return informer_->HasSynced(); }

 private:
  SharedIndexInformer* informer_;
};

}  // namespace kube::cache
