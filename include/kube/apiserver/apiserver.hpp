#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <kube/apiserver/http_server.hpp>
#include <kube/apiserver/resource.hpp>
#include <kube/apiserver/storage.hpp>
#include <kube/base/clock.hpp>
#include <kube/base/result.hpp>

namespace kube::apiserver {

namespace rest {
class ServiceAccountTokenIssuer;  // src/apiserver/rest/service_account_token.hpp
}  // namespace rest

/// Registers the built-in resources with kube-apiserver 1.32's discovery data and strategy flags:
/// core/v1 namespaces (cluster-scoped), configmaps, secrets, events, pods, services,
/// serviceaccounts, nodes (cluster-scoped); apps/v1 deployments and replicasets (status + scale,
/// generation); coordination.k8s.io/v1 leases (create-on-update, no unconditional update);
/// events.k8s.io/v1 events (a converted view of the core/v1 objects, same storage).
/// **Thread-safety:** as `Registry::Add`.
void RegisterBuiltins(Registry& registry);

/// Options of the REST handler.
struct RestOptions {
  /// Time source for timestamps, watch timeouts and bookmarks; nullptr = RealClock::Instance().
  Clock* clock = nullptr;
  /// How often a watch with allowWatchBookmarks=true gets a BOOKMARK (kube: about a minute).
  Clock::Duration bookmark_interval = std::chrono::minutes(1);
  /// A watch without timeoutSeconds ends after a random time in [min, 2*min] (kube's
  /// --min-request-timeout, 30 min by default).
  Clock::Duration min_request_timeout = std::chrono::minutes(30);
  /// Largest list page / watch batch written with one ResponseWriter::Write.
  std::size_t write_chunk_bytes = 256 * 1024;
  /// The live events of watches are written by one delivery thread instead of each watch's own
  /// connection thread: when watches have events, it takes and writes them for all of them in
  /// one round (one write per watch), at most one round per this period while busy — so events
  /// that arrive faster are written together, and a quiet watch gets its event at once. A watch
  /// whose client does not keep up (its socket cannot take the batch without blocking), its
  /// bookmarks and its end are handled by its own thread. 0: no delivery thread (the storage's
  /// `watch_coalesce` then paces busy watches). See docs/apiserver-rest.md.
  std::chrono::nanoseconds watch_delivery_period = std::chrono::milliseconds(2);
  /// Signs the tokens of `serviceaccounts/NAME/token` (ApiServer sets it from
  /// `ApiServerOptions::service_accounts`). nullptr = an issuer `https://kubernetes.default.svc`
  /// whose key is generated in memory on first use.
  std::shared_ptr<const rest::ServiceAccountTokenIssuer> token_issuer;
};

/// The REST API of the resources in `registry`, stored in `storage`: GET/LIST/WATCH/POST/PUT/PATCH/
/// DELETE/DELETECOLLECTION on `/api/v1/...` and `/apis/<group>/<version>/...` with the semantics of
/// apiserver-semantics.md §2-§4. Paths that are not resource paths (and unknown resources) get
/// kube's plain-text `404 page not found`; discovery is served elsewhere.
/// **Ownership/lifetime:** `storage` and `registry` are borrowed and must outlive the handler and
/// every request it is serving. **Thread-safety:** the handler may run on many threads at once.
HttpHandler NewRestHandler(Storage& storage, Registry& registry, RestOptions options = {});

/// Creates the objects a fresh kube-apiserver has: the `default`, `kube-system`, `kube-public`
/// namespaces (status.phase Active, spec.finalizers [kubernetes]) and the `default/kubernetes`
/// Service. Existing objects are left alone (restarts of a durable store).
/// **Errors:** storage failures.
Result<void> EnsureSystemObjects(Storage& storage, Registry& registry, Clock& clock);

/// The controllers the embedded server runs in process (what kube-controller-manager would run
/// for the resources it serves; see docs/apiserver-controllers.md).
struct ControllerOptions {
  /// Garbage collector: ownerReferences, background/foreground/orphan propagation.
  bool garbage_collector = true;
  /// Namespace controller: deletes the content of a Terminating namespace, then finalizes it.
  bool namespace_controller = true;
  /// Pod GC: a pod being deleted gracefully on a node that does not exist (no kubelet will
  /// finish its deletion) is deleted at once.
  bool pod_gc = true;
  /// How often a Terminating namespace whose content is held by finalizers is re-checked.
  Clock::Duration namespace_resync = std::chrono::seconds(1);
  /// Events are deleted this long after their last write (kube's --event-ttl); 0 disables it.
  Clock::Duration event_ttl = std::chrono::hours(1);
};

/// The service-account token issuer (kube-apiserver's --service-account-* and --api-audiences).
/// The signing key is RSA-2048, generated on first start into `<data_dir>/pki/sa.key` (mode 0600)
/// and reused afterwards; without a data dir it lives in memory.
struct ServiceAccountOptions {
  /// `iss` of the tokens and of `/.well-known/openid-configuration` (--service-account-issuer).
  /// The discovery documents are served only for an https URL, as kube does.
  std::string issuer = "https://kubernetes.default.svc";
  /// The audiences a TokenRequest without audiences gets (--api-audiences); empty = {issuer}.
  std::vector<std::string> api_audiences{};
};

/// Options of `ApiServer::Start`.
struct ApiServerOptions {
  /// Where the PKI, token, kubeconfig and the sqlite database live. May be empty only with memory
  /// storage, tls=false and authenticate=false (the test mode).
  std::string data_dir;
  enum class StorageKind { kMemory, kSqlite };
  StorageKind storage = StorageKind::kSqlite;
  std::string address = "127.0.0.1";
  uint16_t port = 0;  ///< 0 = an ephemeral port (read it back with `port()`)
  bool tls = true;
  bool authenticate = true;  ///< require the bearer token from `<data_dir>/token`
  StorageOptions storage_options;
  Clock* clock = nullptr;  ///< nullptr = RealClock::Instance(); also used by storage if it has none
  RestOptions rest;        ///< its clock defaults to `clock`; its token issuer is set from `service_accounts`
  ControllerOptions controllers;
  ServiceAccountOptions service_accounts;
};

/// The embedded Kubernetes-compatible API server: storage + registry (built-ins) + REST +
/// discovery + HTTP(S), with a kubeconfig for kubectl written into the data dir.
/// **Thread-safety:** accessors may be called from any thread; `Stop` from the owner.
/// **Lifetime:** the destructor stops the server.
class ApiServer final {
 public:
  /// Opens the storage, registers the built-ins, creates the system namespaces, generates the PKI,
  /// token and kubeconfig (as configured) and starts listening.
  /// **Errors:** 400 BadRequest for inconsistent options (e.g. sqlite without a data dir); 500
  /// InternalError when storage, PKI or binding fails.
  static Result<std::unique_ptr<ApiServer>> Start(ApiServerOptions options);

  struct Impl;
  /// Construction goes through Start (the tag is only constructible there).
  class PrivateTag {
    friend class ApiServer;
    PrivateTag() = default;
  };
  ApiServer(PrivateTag, std::unique_ptr<Impl> impl);
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  /// The bound port.
  uint16_t port() const;
  /// "https://127.0.0.1:<port>" (or http:// without TLS).
  std::string url() const;
  /// `<data_dir>/kubeconfig`, or "" when none was written (no data dir).
  std::string kubeconfig_path() const;
  /// The bearer token ("" when authentication is off).
  std::string token() const;
  /// The storage engine (borrowed; lives as long as the server).
  Storage& storage();
  /// The served resources (borrowed; lives as long as the server).
  Registry& registry();
  /// Stops accepting, ends watches and waits for in-flight requests (bounded). Idempotent.
  void Stop();

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace kube::apiserver
