#pragma once
/// \file
/// The Manager's client (controller-runtime's delegating client): reads from the shared
/// informer cache, writes to the API server.

#include <chrono>
#include <map>
#include <memory>
#include <stop_token>
#include <string>
#include <tuple>
#include <vector>

#include <kube/api/object.hpp>
#include <kube/base/clock.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/result.hpp>
#include <kube/base/thread_annotations.hpp>
#include <kube/cache/informer_factory.hpp>
#include <kube/client/dynamic_client.hpp>
#include <kube/client/rest_mapper.hpp>
#include <kube/client/typed_api.hpp>
#include <kube/controller/client_interface.hpp>
#include <kube/core/gvk.hpp>
#include <kube/core/json.hpp>
#include <kube/core/label_selector.hpp>
#include <kube/core/merge_patch.hpp>
#include <kube/core/object.hpp>
#include <kube/core/options.hpp>

namespace kube::controller {

/// Options of Client.
struct ClientOptions {
  /// **Opt-in read-your-writes.** After a successful write through this client, a later `Get`
  /// of the same key waits (at most `read_your_writes_timeout`) until the cache has seen at least
  /// the written resourceVersion (after a delete: until the object left the cache, or a newer
  /// version of it arrived). After a write to an object being deleted (for example the removal
  /// of its last finalizer, which deletes it), the next `Get` of that key reads from the API
  /// server once instead, since the cache cannot tell. Without it, a reconcile that just created an object may not find it
  /// in the cache and create it again (getting AlreadyExists, or a duplicate for generateName).
  /// resourceVersions are compared as integers (etcd and the embedded server use revisions); a
  /// non-numeric version is treated as "seen" as soon as it appears in the cache.
  bool read_your_writes = false;
  /// The bound of the read-your-writes wait. Default 10 s.
  Clock::Duration read_your_writes_timeout = std::chrono::seconds(10);
  /// How long the first read of a resource waits for its informer to sync. Default 2 min.
  Clock::Duration cache_sync_timeout = std::chrono::minutes(2);
};

/// Reads from the informer cache, writes through the API.
///
/// Reads (`Get`, `List`) use the informer of the resource in `factory` (its default scope),
/// creating and starting it on first use and waiting for its sync, as controller-runtime's
/// cache does: the first read of a resource costs a LIST, later reads cost nothing. Read
/// objects are shared, immutable cache entries: edit a copy (`ObjectBuilder`).
/// Writes go straight to the API server; the resource is found from the object's apiVersion and
/// kind through the RESTMapper. A `List` with `ListFilter::field` answers from a field index of
/// the informer, registered with `IndexField` before the informer starts.
///
/// **Thread-safety:** all members may be called concurrently.
/// **Lifetime:** `factory` and `mapper` must outlive the client.
/// **Errors:** reads: NotFound (404, like the server's) for a missing object; Timeout (504) when
/// the informer does not sync within `cache_sync_timeout` or a read-your-writes wait times out;
/// Canceled when `stop` fires. Writes: the API server's errors; the RESTMapper's NoMatch.
class Client final : public ClientInterface {
 public:
  /// `rest` is shared; `factory`, `mapper` and `clock` are borrowed.
  Client(std::shared_ptr<client::RestClient> rest, client::RestMapper& mapper,
         cache::SharedInformerFactory& factory, ClientOptions options = {},
         Clock& clock = RealClock::Instance());
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  /// Registers the field index `field` of `gvr` (controller-runtime's
  /// `mgr.GetFieldIndexer().IndexField(obj, field, extract)`): a `List` of `gvr` with
  /// `ListFilter::field` naming `field` then answers from the informer's index instead of
  /// scanning. The index lives in the informer of `gvr` in the factory's default scope (the one
  /// reads use), under `FieldIndexName(field)`, with values per namespace and for all namespaces
  /// (`FieldIndexValue`). Register before the first read of `gvr` and before the manager starts.
  /// **Thread-safety:** safe. **Errors:** 400 BadRequest for an empty field or a null function;
  /// 409 Conflict once the informer of `gvr` has started (client-go's AddIndexers after start);
  /// AlreadyExists when `field` is registered for `gvr` already.
  Result<void> IndexField(const GroupVersionResource& gvr, const std::string& field, FieldIndexFunc extract);
  /// As above for type T, with `extract` on the decoded value (see TypedFieldIndex).
  template <client::TypedResource T>
  Result<void> IndexField(const std::string& field, std::function<std::vector<std::string>(const T&)> extract) {
    if (!extract) return BadRequest("IndexField: no extract function for field " + field);
    return IndexField(client::ResourceOf<T>(), field, TypedFieldIndex<T>(std::move(extract)));
  }

  /// The uncached API of `gvr` (for reads that must hit the server, e.g. with a quorum).
  client::Api Api(const GroupVersionResource& gvr, std::string ns = {}) const;
  /// The RESTMapper. Borrowed.
  client::RestMapper& Mapper() const { return mapper_; }

 private:
  // Reads from the informer cache (waiting for its sync on first use); see the class comment.
  Result<ObjectPtr> DoGet(const GroupVersionResource& gvr, const ObjectKey& key, std::stop_token stop) override
      KUBE_EXCLUDES(mu_);
  Result<std::vector<ObjectPtr>> DoList(const GroupVersionResource& gvr, const ListFilter& filter,
                                        std::stop_token stop) override KUBE_EXCLUDES(mu_);
  // Writes go to the API server.
  Result<ObjectPtr> DoCreate(const Object& object, const CreateOptions& options) override KUBE_EXCLUDES(mu_);
  Result<ObjectPtr> DoUpdate(const Object& object, const UpdateOptions& options, std::string_view subresource) override
      KUBE_EXCLUDES(mu_);
  Result<ObjectPtr> DoPatch(const Object& object, PatchType type, std::string_view patch, const PatchOptions& options,
                            std::string_view subresource) override KUBE_EXCLUDES(mu_);
  Result<ObjectPtr> DoDelete(const Object& object, const DeleteOptions& options) override KUBE_EXCLUDES(mu_);
  Result<GroupVersionResource> DoResourceFor(const GroupVersionKind& gvk) const override;

  // Wakes read-your-writes waits on every cache event of a read resource. Shared with the
  // informer handlers, which may outlive the client by one notification.
  struct Signal {
    Mutex mu;
    CondVar cv;
    std::uint64_t events KUBE_GUARDED_BY(mu) = 0;
  };
  struct Watched {
    cache::SharedIndexInformer* informer = nullptr;  // owned by the factory
    std::shared_ptr<cache::HandlerRegistration> registration;
  };
  struct Pending {
    std::string resource_version;  // "" for a delete that returned no object
    std::string uid;               // of the deleted object
    // The write was to an object being deleted (it may have removed the last finalizer, which
    // deletes the object while kube answers with the last stored state): the next Get reads
    // from the server.
    bool deleting = false;
  };
  using PendingKey = std::tuple<GroupVersionResource, std::string>;
  Result<cache::SharedIndexInformer*> Informer(const GroupVersionResource& gvr, std::stop_token stop)
      KUBE_EXCLUDES(mu_);
  Result<std::tuple<GroupVersionResource, client::Api>> ApiFor(const Object& object) const;
  void RecordWrite(const GroupVersionResource& gvr, const Object& written) KUBE_EXCLUDES(mu_);
  void RecordDelete(const GroupVersionResource& gvr, const Object& target, const Object& answer)
      KUBE_EXCLUDES(mu_);
  static bool CaughtUp(const Pending& p, const ObjectPtr& cached);

  std::shared_ptr<client::RestClient> rest_;
  client::RestMapper& mapper_;
  cache::SharedInformerFactory& factory_;
  const ClientOptions options_;
  Clock& clock_;

  const std::shared_ptr<Signal> signal_ = std::make_shared<Signal>();
  mutable Mutex mu_;
  std::map<GroupVersionResource, Watched> watched_ KUBE_GUARDED_BY(mu_);
  // Writes not yet known to be in the cache (read-your-writes only), by resource and key.
  std::map<PendingKey, Pending> pending_ KUBE_GUARDED_BY(mu_);
};

/// Options of MergeFrom.
struct MergeFromOptions {
  /// Adds the base's `metadata.resourceVersion` to the patch, so that it fails with IsConflict
  /// when the object changed since (controller-runtime's `MergeFromWithOptimisticLock`).
  bool optimistic_lock = false;
};

/// A JSON merge patch (RFC 7386) from a base value to the object it is applied with
/// (controller-runtime's `client.MergeFrom(original)`): `client.Patch(obj, MergeFrom(original))`
/// sends only what changed between `original` and `obj`.
/// **Thread-safety:** an immutable value.
template <class T>
class MergeFromPatch final {
 public:
  static constexpr PatchType kType = PatchType::kMerge;
  MergeFromPatch(const T& original, MergeFromOptions options)
      : original_(api::ToJson(original)), options_(options), resource_version_(original.metadata.resourceVersion) {}
  /// The patch that turns the base into `modified`. **Errors:** none in practice (both sides are
  /// encoded by the typed codec).
  Result<std::string> Data(const T& modified) const {
    auto base = ParseJson(original_);
    if (!base.ok()) return std::move(base).error();
    auto target = ParseJson(api::ToJson(modified));
    if (!target.ok()) return std::move(target).error();
    boost::json::value patch = CreateMergePatch(*base, *target);
    if (options_.optimistic_lock && patch.is_object()) {
      boost::json::value& meta = patch.as_object()["metadata"];
      if (!meta.is_object()) meta.emplace_object();
      meta.as_object()["resourceVersion"] = resource_version_;
    }
    return SerializeJson(patch);
  }

 private:
  std::string original_;
  MergeFromOptions options_;
  std::string resource_version_;
};

/// The merge patch from `original` (see MergeFromPatch).
template <class T>
MergeFromPatch<T> MergeFrom(const T& original, MergeFromOptions options = {}) {
  return MergeFromPatch<T>(original, options);
}

}  // namespace kube::controller
