#pragma once
/// \file
/// The Manager (controller-runtime `manager`): one per operator process. Owns the REST client,
/// the RESTMapper, the shared informer factory and the cache-reading Client; runs controllers
/// and other runnables (leader-gated or not), the /healthz /readyz /metrics endpoint, and shuts
/// everything down gracefully.

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

#include <kube/base/clock.hpp>
#include <kube/base/result.hpp>
#include <kube/cache/informer_factory.hpp>
#include <kube/client/config.hpp>
#include <kube/client/rest_client.hpp>
#include <kube/client/rest_mapper.hpp>
#include <kube/controller/client.hpp>
#include <kube/controller/controller.hpp>
#include <kube/controller/metrics.hpp>
#include <kube/controller/probe_server.hpp>
#include <kube/controller/runnable.hpp>
#include <kube/leaderelection/leader_elector.hpp>

namespace kube::controller {

/// The REST client rate limit a Manager uses when its config has client-go's defaults
/// (controller-runtime's GetConfig: QPS 20, burst 30).
inline constexpr double kManagerDefaultQps = 20.0;
inline constexpr int kManagerDefaultBurst = 30;

/// Leader election of a Manager (a `coordination.k8s.io/v1` Lease).
struct LeaderElectionOptions {
  /// Off by default: every replica runs every runnable.
  bool enabled = false;
  /// The Lease name; required when enabled.
  std::string id{};
  /// The Lease namespace; empty = the manager's namespace scope, else "default".
  std::string ns{};
  /// This candidate's identity; empty = hostname + "_" + a random suffix.
  std::string identity{};
  Clock::Duration lease_duration = std::chrono::seconds(15);  ///< client-go default
  Clock::Duration renew_deadline = std::chrono::seconds(10);  ///< client-go default
  Clock::Duration retry_period = std::chrono::seconds(2);     ///< client-go default
  /// Give the lease up (empty holder) on a clean shutdown, so a successor starts at once.
  bool release_on_cancel = true;
};

/// Options of a Manager. Set with designated initializers.
struct ManagerOptions {
  /// How to reach the API server. Ignored when `rest` is set. A client-side rate limit left at
  /// client-go's 5 QPS / burst 10 is raised to controller-runtime's 20 / 30
  /// (`kManagerDefaultQps`, `kManagerDefaultBurst`); any other value is kept.
  client::Config config{};
  /// An existing REST client to share (tests, programs that built one already). Its requests
  /// appear in `rest_client_*` only if it was created with `RestClientOptions::metrics` (e.g. a
  /// `RestClientMetrics` on a registry of its own); a client the manager builds from `config`
  /// always reports to the manager's registry.
  std::shared_ptr<client::RestClient> rest{};
  /// Restrict the caches to one namespace ("" = all namespaces).
  std::string ns{};
  /// host:port of the HTTP endpoint serving /healthz, /readyz and /metrics ("127.0.0.1:0" picks
  /// a free port, see `Manager::ProbePort`); empty disables it.
  std::string probe_bind_address{};
  /// How long Start waits for runnables to return after stop. Default 30 s.
  Clock::Duration graceful_shutdown_timeout = std::chrono::seconds(30);
  /// How long controllers (and the client's first reads) wait for caches to sync. Default 2 min.
  Clock::Duration cache_sync_timeout = std::chrono::minutes(2);
  /// Leader election; off by default.
  LeaderElectionOptions leader_election{};
  /// Options of the cache-reading client (read-your-writes is opt-in there).
  ClientOptions client{};
  /// Default resync of the informers (zero = none, controller-runtime's ~10 h is not copied).
  Clock::Duration sync_period = Clock::Duration::zero();
  /// Time for everything the manager builds; nullptr = RealClock. Must outlive the manager.
  Clock* clock = nullptr;
};

/// Options of `Manager::Add`.
struct RunnableOptions {
  /// Run only while this replica holds the leader lease (controllers default to true, as in
  /// controller-runtime). Without leader election every runnable runs.
  bool needs_leader_election = true;
};

/// The runtime of an operator process.
///
/// **Thread-safety:** Add / AddHealthzCheck / AddReadyzCheck / Get* may be called from any thread,
/// before or during Start. **Lifetime:** everything handed out (Client, factory, mapper) lives
/// as long as the manager.
class Manager final {
 public:
  /// Builds the REST client (unless given), mapper, factory and client. Nothing runs yet.
  /// **Errors:** the REST client's configuration errors; BadRequest for invalid options
  /// (leader election enabled without id, invalid durations, a malformed bind address).
  static Result<std::unique_ptr<Manager>> Create(ManagerOptions options);
  ~Manager();
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  /// The client reading from the cache and writing to the API server.
  Client& GetClient();
  /// Registers the field index `field` of `gvr` on the cache the client reads (controller-runtime's
  /// `mgr.GetFieldIndexer().IndexField`); `List` with `ListFilter::field` then uses it. Call it
  /// before Start (and before the first read of `gvr`). **Errors:** as Client::IndexField (409
  /// Conflict once the informer of `gvr` has started).
  Result<void> IndexField(const GroupVersionResource& gvr, const std::string& field, FieldIndexFunc extract);
  /// As above for type T, with `extract` on the decoded value.
  template <client::TypedResource T>
  Result<void> IndexField(const std::string& field, std::function<std::vector<std::string>(const T&)> extract) {
    return GetClient().IndexField<T>(field, std::move(extract));
  }
  /// The shared informer factory (its default scope is the manager's namespace).
  cache::SharedInformerFactory& GetInformerFactory();
  /// The RESTMapper.
  client::RestMapper& GetRestMapper();
  /// The REST client.
  const std::shared_ptr<client::RestClient>& GetRestClient() const;
  /// The manager's clock.
  Clock& GetClock() const;
  /// The registry served on /metrics (controllers, queues, informers and the REST client report
  /// to it).
  MetricsRegistry& GetMetricsRegistry();
  /// The options the manager was created with.
  const ManagerOptions& GetOptions() const;

  /// Adds a runnable. Added during Start, it starts at once (when it may: leader-gated ones once
  /// this replica leads). **Errors:** Canceled once the manager stopped.
  Result<void> Add(std::shared_ptr<Runnable> runnable, RunnableOptions options = {});
  /// Adds a controller; its name must be unique in this manager. The controller should have
  /// been created with `ControllerDefaults()`. **Errors:** AlreadyExists for a duplicate name;
  /// as Add.
  Result<void> AddController(std::shared_ptr<Controller> controller, RunnableOptions options = {});
  /// Checks that no controller named `name` was added. **Errors:** AlreadyExists.
  Result<void> ReserveControllerName(const std::string& name);
  /// The ControllerOptions fields the manager decides (clock, cache_sync_timeout, metrics) on
  /// top of `options`.
  ControllerOptions ControllerDefaults(ControllerOptions options) const;

  /// Adds a /healthz check (`/healthz/<name>` serves it alone). **Errors:** AlreadyExists.
  Result<void> AddHealthzCheck(std::string name, HealthCheck check);
  /// Adds a /readyz check. **Errors:** AlreadyExists.
  Result<void> AddReadyzCheck(std::string name, HealthCheck check);
  /// Runs the health checks (what /healthz answers): ok, or the first failing check's error.
  Result<void> CheckHealthz() const;
  /// Runs the readiness checks (what /readyz answers).
  Result<void> CheckReadyz() const;

  /// Starts the probe endpoint, the caches, the runnables (leader-gated ones after winning the
  /// election) and blocks until `stop`; then stops the runnables, waits for them at most
  /// `graceful_shutdown_timeout`, stops the caches and returns. The probe endpoint answers
  /// until the end. **Errors:** Conflict when called twice; the first runnable error (which
  /// stops the manager); Timeout when the runnables did not finish within the graceful timeout
  /// (their threads are still joined before Start returns); a probe endpoint bind error.
  Result<void> Start(std::stop_token stop);

  /// The port of the probe endpoint once Start has bound it (0 before, or when disabled).
  int ProbePort() const;
  /// True while this replica runs the leader-gated runnables (always true without election,
  /// once Start began).
  bool IsLeader() const;
  /// The fencing token of the current leadership term (lease holder identity + leaseTransitions)
  /// while this replica leads through leader election; nullopt when it does not lead or when
  /// leader election is disabled. Reconcilers that write to systems outside the API server can
  /// pass it along so that a deposed leader's late writes are recognisable.
  std::optional<leaderelection::FencingToken> GetFencingToken() const;

  struct Internals;
  explicit Manager(std::unique_ptr<Internals> internals);

 private:
  std::unique_ptr<Internals> in_;
};

/// Installs SIGINT/SIGTERM handlers and returns a token that is stopped at the first signal;
/// a second signal exits the process at once (exit code 1). Call it once, early in main; later
/// calls return the same token. **Thread-safety:** safe. **Ownership:** a process-wide handler
/// whose thread is joined at exit.
std::stop_token SetupSignalHandler();

}  // namespace kube::controller
