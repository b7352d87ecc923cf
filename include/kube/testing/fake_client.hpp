#pragma once
/// \file
/// An in-memory `ClientInterface` for unit tests of reconcilers (controller-runtime's
/// `fake.NewClientBuilder()`): no server, no informer, no threads. Reads see every write at once.
///
/// ```cpp
/// auto fake = kube::testing::FakeClientBuilder()
///                 .WithObjects(deployment)                        // typed or ObjectPtr
///                 .WithStatusSubresource<MyResource>()
///                 .WithIndex<corev1::Pod>("spec.nodeName", [](const corev1::Pod& p) {
///                   return std::vector<std::string>{p.spec.nodeName};
///                 })
///                 .Build();
/// auto reconciler = AsReconciler<apps::v1::Deployment>(**fake, reconcile);
/// ```
/// The semantics, and where they differ from a real API server, are in docs/fake-client.md.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <kube/api/object.hpp>
#include <kube/base/clock.hpp>
#include <kube/base/result.hpp>
#include <kube/client/typed_api.hpp>
#include <kube/controller/client_interface.hpp>
#include <kube/core/gvk.hpp>
#include <kube/core/object.hpp>
#include <kube/core/options.hpp>
#include <kube/core/type_schema.hpp>

namespace kube::testing {

/// A kind the fake serves: its plural resource and scope (what a RESTMapper would say).
struct FakeKind {
  GroupVersionKind gvk;
  std::string resource;  ///< plural, e.g. "configmaps"
  bool namespaced = true;
};

/// The resource apimachinery's `UnsafeGuessKindToResource` guesses for `gvk` (lower-case kind
/// plus "s", "es" after an "s", "ies" for a trailing "y"; "endpoints" stays): what the fake uses
/// for kinds never registered, as controller-runtime's fake does.
GroupVersionResource GuessResource(const GroupVersionKind& gvk);

/// Functions that take over calls of a FakeClient (controller-runtime's `interceptor.Funcs`).
/// Each receives `next`, the fake without interceptors, and the call's arguments: return an
/// error to inject one, or call `next` to pass through (possibly after changing the arguments).
/// Unset functions pass through. Called without any lock held, on the caller's thread; they may
/// keep state (a call counter), which they must guard themselves if the test calls concurrently.
struct FakeInterceptors {
  using Next = controller::ClientInterface;
  std::function<Result<ObjectPtr>(Next& next, const GroupVersionResource& gvr, const ObjectKey& key)> get{};
  std::function<Result<std::vector<ObjectPtr>>(Next& next, const GroupVersionResource& gvr,
                                               const controller::ListFilter& filter)>
      list{};
  std::function<Result<ObjectPtr>(Next& next, const Object& object, const CreateOptions& options)> create{};
  std::function<Result<ObjectPtr>(Next& next, const Object& object, const UpdateOptions& options)> update{};
  /// UpdateStatus (`subresource` "status").
  std::function<Result<ObjectPtr>(Next& next, const Object& object, const UpdateOptions& options,
                                  std::string_view subresource)>
      sub_resource_update{};
  /// Patch of the object itself.
  std::function<Result<ObjectPtr>(Next& next, const Object& object, PatchType type, std::string_view patch,
                                  const PatchOptions& options)>
      patch{};
  /// Patch of a subresource (`subresource` not empty).
  std::function<Result<ObjectPtr>(Next& next, const Object& object, PatchType type, std::string_view patch,
                                  const PatchOptions& options, std::string_view subresource)>
      sub_resource_patch{};
  std::function<Result<ObjectPtr>(Next& next, const Object& object, const DeleteOptions& options)> del{};
};

class FakeClientBuilder;

/// The fake client: an object tracker keyed by resource, namespace and name, holding immutable
/// `ObjectPtr`s, with controller-runtime v0.19's fake semantics (resourceVersion conflicts,
/// status subresource, finalizers, generateName, field indexes) and interceptors.
///
/// **Thread-safety:** every member may be called concurrently (one mutex guards the tracker;
/// index functions and interceptors run outside it). **Blocks?** Never (no waits, no threads).
/// **Errors:** kube's, with kube's messages and Status details: NotFound, AlreadyExists,
/// Conflict (`Operation cannot be fulfilled on configmaps "x": the object has been modified;
/// ...`), Invalid, BadRequest; see docs/fake-client.md.
class FakeClient final : public controller::ClientInterface {
 public:
  struct State;  // the tracker and registrations (src/testing)
  /// Use FakeClientBuilder::Build.
  FakeClient(std::unique_ptr<controller::ClientInterface> tracker, FakeInterceptors interceptors);
  ~FakeClient() override;

  /// The fake without its interceptors (what interceptors receive as `next`): for setting up
  /// or inspecting state in a test without going through injected failures.
  controller::ClientInterface& Tracker() { return *tracker_; }

 private:
  Result<ObjectPtr> DoGet(const GroupVersionResource& gvr, const ObjectKey& key, std::stop_token stop) override;
  Result<std::vector<ObjectPtr>> DoList(const GroupVersionResource& gvr, const controller::ListFilter& filter,
                                        std::stop_token stop) override;
  Result<ObjectPtr> DoCreate(const Object& object, const CreateOptions& options) override;
  Result<ObjectPtr> DoUpdate(const Object& object, const UpdateOptions& options, std::string_view subresource) override;
  Result<ObjectPtr> DoPatch(const Object& object, PatchType type, std::string_view patch, const PatchOptions& options,
                            std::string_view subresource) override;
  Result<ObjectPtr> DoDelete(const Object& object, const DeleteOptions& options) override;
  Result<GroupVersionResource> DoResourceFor(const GroupVersionKind& gvk) const override;

  std::unique_ptr<controller::ClientInterface> tracker_;
  const FakeInterceptors interceptors_;
};

/// Builds a FakeClient (controller-runtime's `fake.ClientBuilder`). Builder calls record what
/// to set up; problems (an invalid initial object, an index registered twice) are reported by
/// Build. **Thread-safety:** none (a value owned by one test).
class FakeClientBuilder final {
 public:
  FakeClientBuilder();
  ~FakeClientBuilder();
  FakeClientBuilder(FakeClientBuilder&&) noexcept;
  FakeClientBuilder& operator=(FakeClientBuilder&&) noexcept;

  /// Registers a kind (for dynamic objects of kinds that `GuessResource` gets wrong, or to make
  /// a kind cluster-scoped). Typed objects register their kind themselves.
  FakeClientBuilder& WithKind(FakeKind kind);
  /// Registers T's kind from its traits (kGroup, kVersion, kKind, kResource, kNamespaced).
  template <client::TypedResource T>
  FakeClientBuilder& WithKind() {
    return WithKind(FakeKind{client::KindOf<T>(), std::string(T::kResource), T::kNamespaced});
  }

  /// Initial objects, stored as given (controller-runtime's `WithObjects`): dynamic `ObjectPtr`s
  /// or typed values (which register their kind). An object without a resourceVersion gets the
  /// tracker's next one; uid and creationTimestamp are kept as given.
  template <class... Objects>
  FakeClientBuilder& WithObjects(const Objects&... objects) {
    (AddInitial(objects), ...);
    return *this;
  }
  /// Initial dynamic objects from a vector.
  FakeClientBuilder& WithObjects(const std::vector<ObjectPtr>& objects);

  /// Gives `gvk` a status subresource: Update and Patch leave `status` alone, UpdateStatus and
  /// status patches change only `status`, and spec changes bump `metadata.generation`. The
  /// built-in kinds controller-runtime's fake lists (Pod, Deployment, ...) have one already.
  FakeClientBuilder& WithStatusSubresource(const GroupVersionKind& gvk);
  /// As above for T (and registers T's kind).
  template <client::TypedResource T>
  FakeClientBuilder& WithStatusSubresource() {
    WithKind<T>();
    return WithStatusSubresource(client::KindOf<T>());
  }

  /// Registers the field index `field` of `gvr` (controller-runtime's `WithIndex`): a List with
  /// `ListFilter::field` naming it keeps the objects for which `extract` returns the value.
  /// Registering the same field twice for a resource makes Build fail.
  FakeClientBuilder& WithIndex(const GroupVersionResource& gvr, std::string field, controller::FieldIndexFunc extract);
  /// As above for T, with `extract` on the decoded value (and registers T's kind).
  template <client::TypedResource T>
  FakeClientBuilder& WithIndex(std::string field, std::function<std::vector<std::string>(const T&)> extract) {
    WithKind<T>();
    return WithIndex(client::ResourceOf<T>(), std::move(field), controller::TypedFieldIndex<T>(std::move(extract)));
  }

  /// The patch metadata strategic merge patches of `gvk` use (merge keys and strategies);
  /// without one, lists in a strategic merge patch replace the stored lists.
  FakeClientBuilder& WithPatchSchema(const GroupVersionKind& gvk, TypeSchemaPtr schema);

  /// Interceptors (see FakeInterceptors); a later call replaces an earlier one.
  FakeClientBuilder& WithInterceptors(FakeInterceptors interceptors);

  /// The clock of creationTimestamp and deletionTimestamp (default RealClock). Borrowed: it must
  /// outlive the client.
  FakeClientBuilder& WithClock(Clock& clock);

  /// The client. Call it once: it uses the builder up. **Errors:** the first problem recorded: 400
  /// BadRequest for an initial object without name, apiVersion or kind, or with a
  /// deletionTimestamp but no finalizers, or an index registered twice; 409 AlreadyExists for
  /// two initial objects with the same key.
  Result<std::unique_ptr<FakeClient>> Build();

 private:
  void AddInitial(const ObjectPtr& object);
  template <client::TypedResource T>
  void AddInitial(const T& object) {
    WithKind<T>();
    auto o = api::ToObject(object);
    if (!o.ok()) {
      RecordError(o.error());
      return;
    }
    AddInitial(*o);
  }
  void RecordError(const Error& error);

  std::unique_ptr<FakeClient::State> state_;
};

}  // namespace kube::testing
