#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <kube/base/clock.hpp>
#include <kube/base/mutex.hpp>
#include <kube/cache/shared_informer.hpp>
#include <kube/cache/typed_informer.hpp>
#include <kube/client/dynamic_client.hpp>
#include <kube/core/gvk.hpp>
#include <kube/informers/groups.hpp>

namespace kube::cache {

/// What an informer watches beyond its resource: a namespace, selectors, metadata only.
struct InformerScope {
  std::string ns{};              ///< "" = all namespaces
  std::string label_selector{};  ///< "" = everything
  std::string field_selector{};  ///< "" = everything
  /// Cache PartialObjectMetadata instead of full objects (much less memory when a controller only
  /// needs metadata).
  bool metadata_only = false;
  auto operator<=>(const InformerScope&) const = default;
};

/// Builds the ListerWatcher of one informer. The client module provides one over the dynamic
/// client (`kube::client::NewListerWatcherFactory`); tests provide fakes.
using ListerWatcherFactory =
    std::function<std::shared_ptr<ListerWatcher>(const GroupVersionResource& gvr, const InformerScope& scope)>;

/// Options of a SharedInformerFactory.
struct InformerFactoryOptions {
  Clock::Duration default_resync = Clock::Duration::zero();
  InformerScope scope{};       ///< the default scope of `ForResource(gvr)`
  TransformFunc transform{};   ///< default transform for new informers (e.g. StripManagedFields)
  ReflectorOptions reflector{};
  Clock* clock = nullptr;
};

/// One SharedIndexInformer per resource (and scope), shared by every controller of a process.
/// `Start` runs every informer created so far on a thread owned by the factory; informers created
/// after Start are started at once. `Shutdown` (or the destructor) stops and joins them.
/// **Thread-safety:** all members may be called from any thread.
///
/// Typed: `factory.For<apps::v1::Deployment>()`, or as client-go spells it,
/// `factory.Apps().V1().Deployments()` (include `<kube/informers/apps/v1.hpp>` for that group's
/// accessors); both give a TypedInformer over the same shared informer as `ForResource`.
class SharedInformerFactory final : public informers::Groups<SharedInformerFactory> {
 public:
  explicit SharedInformerFactory(ListerWatcherFactory lw_factory, InformerFactoryOptions options = {});
  /// A factory whose informers list and watch through `client` (client-go's
  /// `informers.NewSharedInformerFactory(clientset, resync)`).
  explicit SharedInformerFactory(const client::DynamicClient& client, InformerFactoryOptions options = {});
  ~SharedInformerFactory();
  SharedInformerFactory(const SharedInformerFactory&) = delete;
  SharedInformerFactory& operator=(const SharedInformerFactory&) = delete;

  /// The informer for `gvr` in the factory's default scope (created on first use).
  /// **Lifetime:** owned by the factory; valid until the factory is destroyed.
  SharedIndexInformer& ForResource(const GroupVersionResource& gvr);
  /// The informer for `gvr` in `scope`.
  SharedIndexInformer& ForResource(const GroupVersionResource& gvr, const InformerScope& scope);

  /// The typed informer of T in the factory's default scope (created on first use).
  /// **Lifetime:** as ForResource.
  template <client::TypedResource T>
  TypedInformer<T> For() {
    return TypedInformer<T>(ForResource(client::ResourceOf<T>()));
  }
  /// The typed informer of T in `scope`.
  template <client::TypedResource T>
  TypedInformer<T> For(const InformerScope& scope) {
    return TypedInformer<T>(ForResource(client::ResourceOf<T>(), scope));
  }

  /// Starts every informer not yet running.
  void Start();
  /// Starts every informer not yet running, and shuts the factory down once `stop` is
  /// requested (client-go's `factory.Start(stopCh)`); the thread that requests the stop then
  /// waits for the informers to stop.
  void Start(std::stop_token stop);
  /// Blocks until every started informer has synced, `stop` is requested or `timeout` passes
  /// (on the factory's clock). Returns the sync state per resource (all scopes of a resource
  /// together: true only when every one has synced).
  std::map<GroupVersionResource, bool> WaitForCacheSync(
      std::stop_token stop = {}, Clock::Duration timeout = Clock::Duration::max());
  /// Stops every informer and joins its thread. Idempotent.
  void Shutdown();

 private:
  struct Key {
    GroupVersionResource gvr;
    InformerScope scope;
    auto operator<=>(const Key&) const = default;
  };
  struct Entry {
    std::unique_ptr<SharedIndexInformer> informer;
    std::jthread thread;
  };
  void StartLocked(Entry& e) KUBE_REQUIRES(mu_);

  ListerWatcherFactory lw_factory_;
  InformerFactoryOptions options_;
  Clock& clock_;
  mutable Mutex mu_;
  std::map<Key, Entry> informers_ KUBE_GUARDED_BY(mu_);
  bool started_ KUBE_GUARDED_BY(mu_) = false;
  bool shut_down_ KUBE_GUARDED_BY(mu_) = false;
  // Shutdown on stop, one per Start(stop) call; destroyed before the destructor's Shutdown.
  std::vector<std::unique_ptr<std::stop_callback<std::function<void()>>>> stop_callbacks_ KUBE_GUARDED_BY(mu_);
};

}  // namespace kube::cache
