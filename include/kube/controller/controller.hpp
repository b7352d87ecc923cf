#pragma once
/// \file
/// The controller (controller-runtime `controller`): sources feed a rate-limited queue of
/// Requests; `max_concurrent_reconciles` workers take keys and call the Reconciler.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <kube/base/clock.hpp>
#include <kube/base/log.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/result.hpp>
#include <kube/base/thread_annotations.hpp>
#include <kube/controller/event.hpp>
#include <kube/controller/handler.hpp>
#include <kube/controller/metrics.hpp>
#include <kube/controller/predicate.hpp>
#include <kube/controller/reconciler.hpp>
#include <kube/controller/runnable.hpp>
#include <kube/controller/source.hpp>
#include <kube/workqueue/metrics.hpp>
#include <kube/workqueue/rate_limiter.hpp>

namespace kube::controller {

/// Builds the rate limiter of a controller's queue.
using RateLimiterFactory = std::function<std::unique_ptr<workqueue::RateLimiter<Request>>(Clock&)>;

/// Options of a Controller. Set with designated initializers.
struct ControllerOptions {
  /// Required: names the controller in logs, metrics and its queue. Unique within a Manager.
  std::string name{};
  /// Workers reconciling different keys in parallel. Default 1; must be >= 1.
  int max_concurrent_reconciles = 1;
  /// The queue's limiter; empty = `workqueue::DefaultControllerRateLimiter` (per-item 5 ms..1000 s
  /// exponential, max with an overall 10 qps / burst 100 bucket) on the controller's clock.
  RateLimiterFactory rate_limiter{};
  /// When set, each reconcile's `ctx.stop` is requested after this long; a reconcile that
  /// returns after that counts as an error (DeadlineExceeded in controller-runtime).
  std::optional<Clock::Duration> reconcile_timeout{};
  /// Catch exceptions thrown by the reconciler (logged, counted as errors, retried). Default
  /// true. False: an exception propagates and terminates the process.
  bool recover_exceptions = true;
  /// How long Start waits for the sources to sync. Default 2 min; zero or negative waits forever.
  Clock::Duration cache_sync_timeout = std::chrono::minutes(2);
  /// Time for the queue, the limiter and the timeouts; nullptr = RealClock. Must outlive the
  /// controller.
  Clock* clock = nullptr;
  /// Where the controller registers its metrics: `controller_runtime_*{controller=<name>}` and
  /// its queue's `workqueue_*{name=<name>}`. nullptr = no metrics. Must outlive the controller.
  MetricsRegistry* metrics = nullptr;
};

/// Counters of a controller (for tests, logs and the metrics adapter).
struct ControllerStats {
  std::int64_t reconciles = 0;        ///< finished reconciles (all outcomes)
  std::int64_t successes = 0;         ///< kSuccess
  std::int64_t requeue_afters = 0;    ///< kRequeueAfter
  std::int64_t errors = 0;            ///< retried errors (thrown and timed-out ones included)
  std::int64_t terminal_errors = 0;   ///< terminal errors (not retried)
  std::int64_t panics = 0;            ///< exceptions caught
  int active_workers = 0;             ///< reconciles running now
};

/// A controller: owns its queue and workers, starts its sources, reconciles.
///
/// Semantics per reconcile (controller-runtime): error -> `AddRateLimited`; terminal error ->
/// logged and counted, `Forget`, not retried; `requeue_after > 0` -> `Forget` + `AddAfter`;
/// success -> `Forget`. An exception is an error. One key is never reconciled by two workers
/// at once (the queue's guarantee). On stop, nothing new starts; reconciles in flight finish
/// (their `ctx.stop` is requested) and `Start` returns after the last one.
///
/// **Thread-safety:** Watch and Stats may be called from any thread; Start once.
/// **Lifetime:** the reconciler is shared; sources are shared (the controller stops them).
class Controller final : public Runnable {
 public:
  /// A controller for `reconciler` (not null). **Errors:** BadRequest for an empty name,
  /// `max_concurrent_reconciles < 1`, a null reconciler, or a non-positive reconcile_timeout.
  static Result<std::shared_ptr<Controller>> Create(ControllerOptions options,
                                                    std::shared_ptr<Reconciler> reconciler);
  ~Controller() override;
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  /// Routes `source`'s events through `predicates` (all must pass) and `handler` into the queue.
  /// Before Start the source is started by Start (and waited for); after Start it is started at
  /// once (not waited for). **Errors:** BadRequest for a null source or handler; the source's
  /// start error; Canceled once the controller has stopped.
  Result<void> Watch(std::shared_ptr<Source> source, std::shared_ptr<EventHandler> handler,
                     std::vector<Predicate> predicates = {}) KUBE_EXCLUDES(mu_);

  /// Starts the sources, waits for them to sync (`cache_sync_timeout`), runs the workers until
  /// `stop`, then shuts the queue down, waits for in-flight reconciles and stops the sources.
  /// **Blocks** until then. **Errors:** Conflict when called twice; Timeout when the sources do
  /// not sync in time; a source's start error. A stop during the sync wait returns ok.
  Result<void> Start(std::stop_token stop) override KUBE_EXCLUDES(mu_);

  /// The controller's name.
  const std::string& Name() const { return options_.name; }
  /// A snapshot of the counters.
  ControllerStats Stats() const;
  /// The queue (for handlers written by hand and tests). Owned by the controller.
  Queue& GetQueue() { return *queue_; }

  struct PrivateTag {};
  Controller(PrivateTag, ControllerOptions options, std::shared_ptr<Reconciler> reconciler);

 private:
  struct Watched {
    std::shared_ptr<Source> source;
    std::shared_ptr<const EventDispatcher> dispatcher;
  };
  void Worker(std::stop_token stop);
  void ProcessOne(const Request& request, std::stop_token stop);
  enum class Outcome { kSuccess, kRequeueAfter, kError, kTerminalError };
  Outcome Handle(const Request& request, const Result<ReconcileResult>& result, bool timed_out,
                 const log::Logger& log);
  void TimeoutLoop(std::stop_token stop) KUBE_EXCLUDES(timeout_mu_);
  // Blocks until every source synced (true), or stop / the cache-sync timeout (false).
  bool WaitForSourcesSynced(const std::vector<Watched>& watches, std::stop_token stop) KUBE_EXCLUDES(mu_);
  void StopSources() KUBE_EXCLUDES(mu_);

  const ControllerOptions options_;
  Clock& clock_;
  const std::shared_ptr<Reconciler> reconciler_;
  // Metrics (null without a registry); declared before the queue, which reports to the provider.
  const std::unique_ptr<workqueue::MetricsProvider> queue_metrics_;
  const std::unique_ptr<ControllerMetrics> metrics_;
  const std::shared_ptr<Queue> queue_;
  log::Logger log_;

  mutable Mutex mu_;
  std::vector<Watched> watches_ KUBE_GUARDED_BY(mu_);
  bool started_ KUBE_GUARDED_BY(mu_) = false;
  bool stopped_ KUBE_GUARDED_BY(mu_) = false;

  // Reconcile deadlines (reconcile_timeout): one slot per running reconcile.
  struct Deadline {
    Clock::TimePoint at;
    std::stop_source source;
    bool fired = false;  // guarded by timeout_mu_ (set when `at` passed)
  };
  Mutex timeout_mu_;
  CondVar timeout_cv_;
  std::vector<std::shared_ptr<Deadline>> deadlines_ KUBE_GUARDED_BY(timeout_mu_);

  std::atomic<bool> stopping_{false};  // set when Start's stop fires: nothing new starts
  std::stop_source in_flight_stop_;     // requested at shutdown: ctx.stop of running reconciles
  std::atomic<std::uint64_t> next_reconcile_id_{1};
  std::atomic<std::int64_t> reconciles_{0}, successes_{0}, requeue_afters_{0}, errors_{0},
      terminal_errors_{0}, panics_{0};
  std::atomic<int> active_workers_{0};
};

}  // namespace kube::controller
