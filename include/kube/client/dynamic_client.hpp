#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include <kube/base/result.hpp>
#include <kube/client/rest_client.hpp>
#include <kube/client/watch.hpp>
#include <kube/core/gvk.hpp>
#include <kube/core/object.hpp>
#include <kube/core/options.hpp>

/// The dynamic client: every verb of the Kubernetes API for any GroupVersionResource, on
/// `kube::Object` (client-go `dynamic.Interface` + `pager`).
namespace kube::client {

/// Options of a server-side apply (PATCH with `application/apply-patch+yaml`).
struct ApplyOptions {
  std::string field_manager{};         ///< required
  bool force = false;                  ///< take ownership of conflicting fields
  std::vector<std::string> dry_run{};  ///< {"All"} or empty
  std::string field_validation{};      ///< "", "Ignore", "Warn" or "Strict"
};

/// client-go's default page size for paginated lists.
inline constexpr std::int64_t kDefaultPageSize = 500;

class ListPager;

/// The API of one resource (a GroupVersionResource), optionally in one namespace.
/// A cheap value (a shared RestClient plus the resource coordinates); copy it freely.
/// The namespace of a request is the Api's, or for Create/Update/Apply of an Api without one,
/// the object's own `metadata.namespace`.
/// **Thread-safety:** const members may be called concurrently.
/// **Errors (all verbs):** the classified Error of the server's answer (`IsNotFound`,
/// `IsConflict`, `IsAlreadyExists`, `IsInvalid`, ...); transport errors; 400 BadRequest for
/// local mistakes (missing name, invalid path segment); 500 InternalError when a 2xx body cannot
/// be decoded; Canceled when the stop token fires while throttled or retrying.
class Api final {
 public:
  /// `ns` empty = cluster-scoped resource, or all namespaces of a namespaced one.
  Api(std::shared_ptr<RestClient> rest, GroupVersionResource gvr, std::string ns = {});

  /// A copy targeting namespace `ns`.
  Api Namespace(std::string ns) const;
  /// A copy whose requests are cancelled (while throttled or sleeping for Retry-After) by `stop`.
  Api WithStop(std::stop_token stop) const;

  const GroupVersionResource& gvr() const { return gvr_; }
  const std::string& ns() const { return ns_; }
  const std::shared_ptr<RestClient>& rest() const { return rest_; }

  /// GET one object.
  Result<ObjectPtr> Get(std::string_view name, const GetOptions& options = {}) const;
  /// GET a subresource of an object (e.g. "status", "scale").
  Result<ObjectPtr> GetSubresource(std::string_view name, std::string_view subresource) const;
  /// One LIST request (a single page when `options.limit` is set). The body is parsed as it
  /// arrives (ObjectListParser).
  Result<ObjectList> List(const ListOptions& options = {}) const;
  /// As List, handing each item to `on_item` on the calling thread as soon as it is parsed,
  /// while the rest of the list is still arriving (the reflector transforms and decodes items
  /// so). `on_item` may replace the item; the list holds what it leaves there. When an attempt
  /// is retried (a reset connection), its items are handed again. `on_item` must not throw.
  Result<ObjectList> List(const ListOptions& options, const std::function<void(ObjectPtr&)>& on_item) const;
  /// Every item, following `continue` tokens in pages of `page_size` (the pager's semantics,
  /// including the fallback to one full list when a continue token expires).
  Result<ObjectList> ListAll(ListOptions options = {}, std::int64_t page_size = kDefaultPageSize) const;
  /// A pager over this resource.
  ListPager Pager(ListOptions options = {}, std::int64_t page_size = kDefaultPageSize) const;
  /// Opens a watch (`watch=true` is set). Use `options.resource_version` from the list,
  /// `allow_watch_bookmarks`, `timeout_seconds`. **Errors:** as Do (410 Expired when the
  /// resourceVersion is too old and the server says so before streaming).
  Result<std::unique_ptr<WatchStream>> Watch(ListOptions options) const;

  /// POST the object to the collection; returns what the server stored.
  Result<ObjectPtr> Create(const Object& object, const CreateOptions& options = {}) const;
  /// POST `object` (of the subresource's own kind) to `subresource` of the object `name`:
  /// client-go's `Bind` (pods/NAME/binding with a Binding), `EvictV1` (pods/NAME/eviction with
  /// an Eviction), `CreateToken` (serviceaccounts/NAME/token with a TokenRequest). Returns the
  /// server's answer (a Success Status for binding and eviction).
  /// **Errors:** 400 locally when `name` is empty; the server's (409 for a pod already bound).
  Result<ObjectPtr> CreateSubresource(std::string_view name, std::string_view subresource, const Object& object,
                                      const CreateOptions& options = {}) const;
  /// PUT the object (by its name); a stale resourceVersion gives `IsConflict`.
  Result<ObjectPtr> Update(const Object& object, const UpdateOptions& options = {}) const;
  /// PUT the object to its `status` subresource.
  Result<ObjectPtr> UpdateStatus(const Object& object, const UpdateOptions& options = {}) const;
  /// PUT the object to `subresource`.
  Result<ObjectPtr> UpdateSubresource(const Object& object, std::string_view subresource,
                                      const UpdateOptions& options = {}) const;
  /// PATCH `name` (or its `subresource`) with `patch` of type `type`.
  Result<ObjectPtr> Patch(std::string_view name, PatchType type, std::string_view patch,
                          const PatchOptions& options = {}, std::string_view subresource = {}) const;
  /// Server-side apply of `object` (its name and, for an Api without a namespace, its
  /// namespace select the target). **Errors:** 400 locally when `field_manager` is empty;
  /// `IsConflict` (FieldManagerConflict causes) when another manager owns a field and not `force`.
  Result<ObjectPtr> Apply(const Object& object, const ApplyOptions& options,
                          std::string_view subresource = {}) const;
  /// Server-side apply to the `status` subresource.
  Result<ObjectPtr> ApplyStatus(const Object& object, const ApplyOptions& options) const;
  /// DELETE `name` with `options` as the JSON body (propagation policy, preconditions, grace
  /// period, dry run). Returns the server's answer: the object (when it still exists with a
  /// deletionTimestamp because of finalizers, or for kinds that return it) or the success
  /// Status object (kind "Status"; `details.uid` at `/details/uid`).
  Result<ObjectPtr> Delete(std::string_view name, const DeleteOptions& options = {}) const;
  /// DELETE on the collection with `delete_options` as the body and `list_options` (selectors)
  /// as the query.
  Result<void> DeleteCollection(const DeleteOptions& delete_options = {},
                                const ListOptions& list_options = {}) const;

 private:
  Result<std::string> Path(std::string_view ns, std::string_view name = {},
                           std::string_view subresource = {}) const;
  std::string_view NamespaceFor(const Object& object) const;
  Result<ObjectPtr> SendForObject(Request request) const;
  // Whether lists and watches of this resource ask for protobuf first (Config::protobuf).
  bool AskForProtobuf() const;

  std::shared_ptr<RestClient> rest_;
  GroupVersionResource gvr_;
  std::string ns_;
  std::stop_token stop_;
};

/// Pages through a LIST as client-go's `pager.ListPager` does: the first request carries the
/// caller's options with `limit = page_size` (unless the caller set a limit); each following
/// request carries the `continue` token with resourceVersion and resourceVersionMatch cleared.
/// When a continue token has expired (410 Expired on page 2 or later), the pager falls back to
/// one full list (no limit, no continue, the original resourceVersion) and returns it as a page
/// with `restarted = true`: the caller must discard what earlier pages delivered.
/// **Thread-safety:** none (one consumer).
class ListPager final {
 public:
  /// One page.
  struct Page {
    ObjectList list;
    bool restarted = false;  ///< true for the full-list fallback page
  };

  /// `page_size` <= 0 means no paging (one full list).
  ListPager(Api api, ListOptions options, std::int64_t page_size = kDefaultPageSize);

  /// The next page; nullopt once the list is complete. **Errors:** as Api::List (an error on the
  /// first page, or an Expired on a later page when the fallback fails, ends the pager).
  Result<std::optional<Page>> Next();
  /// Calls `fn` for every item, restarting the walk (fn sees items again) when the pager
  /// falls back to a full list; stops at the first error `fn` returns.
  Result<void> ForEach(const std::function<Result<void>(const ObjectPtr&)>& fn);

 private:
  Api api_;
  ListOptions options_;
  std::string requested_rv_;
  std::string requested_rv_match_;
  bool done_ = false;
};

/// The dynamic client: an entry point that hands out `Api`s sharing one RestClient.
/// **Thread-safety:** safe to share.
class DynamicClient final {
 public:
  /// Wraps an existing RestClient.
  explicit DynamicClient(std::shared_ptr<RestClient> rest);
  /// Builds a RestClient for `config`. **Errors:** as RestClient::Create.
  static Result<DynamicClient> Create(const Config& config, RestClientOptions options = {});

  /// The Api of `gvr` at cluster scope / across all namespaces.
  Api Resource(GroupVersionResource gvr) const { return Api(rest_, std::move(gvr)); }
  /// The Api of `gvr` in namespace `ns`.
  Api Resource(GroupVersionResource gvr, std::string ns) const {
    return Api(rest_, std::move(gvr), std::move(ns));
  }
  const std::shared_ptr<RestClient>& rest() const { return rest_; }

 private:
  std::shared_ptr<RestClient> rest_;
};

}  // namespace kube::client
