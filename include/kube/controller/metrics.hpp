#pragma once

/// \file
/// Prometheus metrics for controllers: a thread-safe `MetricsRegistry` of counters, gauges and
/// histograms with label sets, rendered in the Prometheus text exposition format 0.0.4, plus the
/// metric sets of client-go and controller-runtime under their usual names:
/// - `NewWorkqueueMetricsProvider(registry)`: `workqueue_*{name}` for `kube::workqueue` queues;
/// - `ReconcileMetrics`: `controller_runtime_*{controller}`;
/// - `NewInformerMetricsProvider(registry)`: `reflector_*{name}` and `informer_store_items{name}`
///   for `kube::cache` reflectors and informers;
/// - `RestClientMetrics` (a `client::RequestMetrics`): `rest_client_*` for `kube::client`.
///
/// Hot paths resolve a child once and keep the reference:
/// ```cpp
/// kube::controller::MetricsRegistry registry;
/// auto& total = registry.Counter("jobs_total", "Jobs done.", {"queue"});
/// kube::controller::Counter& fast = total.With({"fast"});   // cache this
/// fast.Inc();                                                // one atomic add
/// ```

#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <kube/base/mutex.hpp>
#include <kube/cache/metrics.hpp>
#include <kube/client/metrics.hpp>
#include <kube/client/transport.hpp>
#include <kube/workqueue/metrics.hpp>

namespace kube::controller {

/// Prometheus' default histogram buckets (seconds): .005 .01 .025 .05 .1 .25 .5 1 2.5 5 10.
std::vector<double> DefaultBuckets();
/// `count` buckets starting at `start`, each `factor` times the previous (Prometheus
/// ExponentialBuckets). `start` > 0, `factor` > 1, `count` >= 1 (asserted).
std::vector<double> ExponentialBuckets(double start, double factor, int count);

/// A monotonically increasing value (one label combination of a `CounterVec`).
/// **Thread-safety:** all members may be called concurrently (lock-free atomics).
/// **Lifetime:** owned by its registry; references stay valid while the registry lives.
class Counter final {
 public:
  Counter() = default;
  Counter(const Counter&) = delete;
  Counter& operator=(const Counter&) = delete;
  /// Adds `v` (must be >= 0; a negative value is ignored, as a counter never goes down).
  void Inc(double v = 1.0);
  /// The current value.
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

/// A value that goes up and down (one label combination of a `GaugeVec`).
/// **Thread-safety / Lifetime:** as Counter.
class Gauge final {
 public:
  Gauge() = default;
  Gauge(const Gauge&) = delete;
  Gauge& operator=(const Gauge&) = delete;
  /// Replaces the value.
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  /// Adds `v` (may be negative).
  void Add(double v);
  /// Adds one.
  void Inc() { Add(1.0); }
  /// Subtracts one.
  void Dec() { Add(-1.0); }
  /// The current value.
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

/// A distribution of observations in cumulative buckets (one label combination of a
/// `HistogramVec`). **Thread-safety / Lifetime:** as Counter. A concurrent render may see an
/// observation in `count` before it is in `sum` (as Prometheus' Go client allows).
class Histogram final {
 public:
  /// `upper_bounds` strictly increasing, without +Inf (implied).
  explicit Histogram(std::span<const double> upper_bounds);
  Histogram(const Histogram&) = delete;
  Histogram& operator=(const Histogram&) = delete;
  /// Records one observation.
  void Observe(double v);

  /// A consistent-enough copy for rendering and tests.
  struct Snapshot {
    std::vector<double> upper_bounds;          ///< without +Inf
    std::vector<std::uint64_t> cumulative;     ///< per upper bound: observations <= bound
    std::uint64_t count = 0;                   ///< all observations (the +Inf bucket)
    double sum = 0.0;
  };
  /// Reads the current state.
  Snapshot Read() const;

 private:
  std::vector<double> upper_bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> buckets_;  // non-cumulative, size bounds + 1
  std::atomic<std::uint64_t> count_{0};
  std::atomic<double> sum_{0.0};
};

namespace internal {
/// The label-set bookkeeping shared by the three vector types. Not for direct use.
class FamilyBase {
 public:
  enum class Type { kCounter, kGauge, kHistogram };
  FamilyBase(std::string name, std::string help, std::vector<std::string> label_names, Type type);
  virtual ~FamilyBase() = default;
  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::vector<std::string>& label_names() const { return label_names_; }
  Type type() const { return type_; }
  /// Appends the family's exposition text (HELP, TYPE, samples in label-value order).
  virtual void Render(std::string& out) const = 0;

 protected:
  /// Asserts that `values` has one value per label name (a programming error otherwise).
  void CheckArity(std::size_t n) const;
  const std::string name_;
  const std::string help_;
  const std::vector<std::string> label_names_;
  const Type type_;
};
}  // namespace internal

/// A family of counters sharing a name and label names; one child per label-value combination.
/// **Thread-safety:** all members may be called concurrently. **Lifetime:** owned by the registry.
class CounterVec final : public internal::FamilyBase {
 public:
  CounterVec(std::string name, std::string help, std::vector<std::string> label_names);
  /// The child for `values` (one per label name, in order; a wrong count aborts), created at 0 on
  /// first use. Takes a lock: resolve once and keep the reference on hot paths.
  Counter& With(std::initializer_list<std::string_view> values);
  /// As above, for values computed at run time.
  Counter& With(std::span<const std::string> values);
  void Render(std::string& out) const override;

 private:
  mutable Mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<Counter>> children_ KUBE_GUARDED_BY(mu_);
};

/// A family of gauges; as CounterVec.
class GaugeVec final : public internal::FamilyBase {
 public:
  GaugeVec(std::string name, std::string help, std::vector<std::string> label_names);
  /// The child for `values`; as CounterVec::With.
  Gauge& With(std::initializer_list<std::string_view> values);
  /// As above, for values computed at run time.
  Gauge& With(std::span<const std::string> values);
  void Render(std::string& out) const override;

 private:
  mutable Mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<Gauge>> children_ KUBE_GUARDED_BY(mu_);
};

/// A family of histograms with common buckets; as CounterVec.
class HistogramVec final : public internal::FamilyBase {
 public:
  HistogramVec(std::string name, std::string help, std::vector<std::string> label_names,
               std::vector<double> buckets);
  /// The child for `values`; as CounterVec::With.
  Histogram& With(std::initializer_list<std::string_view> values);
  /// As above, for values computed at run time.
  Histogram& With(std::span<const std::string> values);
  const std::vector<double>& buckets() const { return buckets_; }
  void Render(std::string& out) const override;

 private:
  const std::vector<double> buckets_;
  mutable Mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<Histogram>> children_ KUBE_GUARDED_BY(mu_);
};

/// The set of metric families a process exposes on `/metrics`.
///
/// Registration is idempotent: asking again for a name with the same type, label names (and
/// buckets) returns the existing family, so several controllers can share one registry. Asking
/// for a registered name with a different type or label names, or an invalid metric/label name,
/// is a programming error and aborts with a message (Prometheus' MustRegister panics likewise).
/// **Thread-safety:** all members may be called concurrently. **Lifetime:** families and
/// children live as long as the registry; references to them may be cached.
class MetricsRegistry final {
 public:
  MetricsRegistry() = default;
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  /// Registers (or returns) a counter family. Names end in `_total` by convention.
  CounterVec& Counter(std::string_view name, std::string_view help,
                      std::vector<std::string> label_names = {});
  /// Registers (or returns) a gauge family.
  GaugeVec& Gauge(std::string_view name, std::string_view help,
                  std::vector<std::string> label_names = {});
  /// Registers (or returns) a histogram family with `buckets` (strictly increasing upper bounds,
  /// without +Inf; empty = DefaultBuckets()).
  HistogramVec& Histogram(std::string_view name, std::string_view help,
                          std::vector<std::string> label_names = {},
                          std::vector<double> buckets = {});
  /// Registers a gauge without labels whose value is read by calling `fn` at render time (for
  /// values owned elsewhere: informer store sizes, leader state). `fn` runs on the rendering
  /// thread without registry locks held; an exception it throws renders the sample as NaN.
  /// Registering the same name again replaces the function.
  void GaugeFunc(std::string_view name, std::string_view help, std::function<double()> fn);

  /// The whole registry in the Prometheus text format 0.0.4: families sorted by name, each with
  /// `# HELP` and `# TYPE` lines, then samples sorted by label values; histograms as
  /// `_bucket{le="..."}` (cumulative, ending with `le="+Inf"`), `_sum` and `_count`.
  /// A family without children renders only its HELP and TYPE lines.
  std::string Render() const;

 private:
  struct Func {
    std::string help;
    std::function<double()> fn;
  };
  mutable Mutex mu_;
  std::map<std::string, std::unique_ptr<internal::FamilyBase>, std::less<>> families_
      KUBE_GUARDED_BY(mu_);
  std::map<std::string, Func, std::less<>> funcs_ KUBE_GUARDED_BY(mu_);  // disjoint from families_
};

/// The MIME type of `MetricsRegistry::Render` output.
inline constexpr std::string_view kPrometheusTextContentType = "text/plain; version=0.0.4; charset=utf-8";

// ---------------------------------------------------------------------------------------------
// Work queue metrics (client-go names).

/// Buckets of `workqueue_queue_duration_seconds` / `workqueue_work_duration_seconds`
/// (client-go: ExponentialBuckets(10e-9, 10, 10)).
std::vector<double> WorkqueueDurationBuckets();

/// A `kube::workqueue::MetricsProvider` that registers the seven `workqueue_*` families (label
/// `name`) in `registry` and hands out handles to the children of each queue.
/// **Lifetime:** `registry` must outlive the provider and every queue created with it.
std::unique_ptr<workqueue::MetricsProvider> NewWorkqueueMetricsProvider(MetricsRegistry& registry);

// ---------------------------------------------------------------------------------------------
// Reconcile metrics (controller-runtime names).

inline constexpr std::string_view kReconcileTotalMetric = "controller_runtime_reconcile_total";
inline constexpr std::string_view kReconcileErrorsMetric = "controller_runtime_reconcile_errors_total";
inline constexpr std::string_view kTerminalReconcileErrorsMetric =
    "controller_runtime_terminal_reconcile_errors_total";
inline constexpr std::string_view kReconcilePanicsMetric = "controller_runtime_reconcile_panics_total";
inline constexpr std::string_view kReconcileTimeMetric = "controller_runtime_reconcile_time_seconds";
inline constexpr std::string_view kMaxConcurrentReconcilesMetric =
    "controller_runtime_max_concurrent_reconciles";
inline constexpr std::string_view kActiveWorkersMetric = "controller_runtime_active_workers";

/// Buckets of `controller_runtime_reconcile_time_seconds` (controller-runtime's: 5 ms .. 60 s).
std::vector<double> ReconcileTimeBuckets();

/// How one reconcile ended; the `result` label of `controller_runtime_reconcile_total`.
enum class ReconcileOutcome {
  kSuccess,       ///< "success"
  kError,         ///< "error" (terminal errors and caught exceptions included)
  kRequeue,       ///< "requeue" (immediate, rate-limited requeue asked for)
  kRequeueAfter,  ///< "requeue_after"
};
/// The label value of `outcome`.
std::string_view ToString(ReconcileOutcome outcome);

/// The reconcile metrics of one controller: the children of the `controller_runtime_*` families
/// for `controller=<name>`, resolved once. All `result` values start at 0, so that rates exist
/// before the first reconcile (as controller-runtime initialises them).
/// **Thread-safety:** all members may be called concurrently. **Lifetime:** the registry it
/// came from must outlive it.
class ControllerMetrics final {
 public:
  /// Registers the families in `registry` (idempotent) and resolves the children for `controller`.
  ControllerMetrics(MetricsRegistry& registry, std::string_view controller);

  /// Counts one finished reconcile: `reconcile_total{result}`, `reconcile_time_seconds`, and for
  /// kError `reconcile_errors_total`.
  void ObserveReconcile(ReconcileOutcome outcome, double seconds);
  /// Counts a terminal error (`terminal_reconcile_errors_total`); call in addition to
  /// ObserveReconcile(kError, ...).
  void RecordTerminalError();
  /// Counts an exception caught from user code (`reconcile_panics_total`); call in addition to
  /// ObserveReconcile(kError, ...).
  void RecordPanic();
  /// Sets `max_concurrent_reconciles`.
  void SetMaxConcurrentReconciles(int n);
  /// Moves `active_workers` by `delta` (+1 when a worker starts, -1 when it ends).
  void AddActiveWorkers(int delta);

 private:
  Counter* total_[4];
  Counter* errors_;
  Counter* terminal_errors_;
  Counter* panics_;
  Histogram* time_;
  Gauge* max_concurrent_;
  Gauge* active_workers_;
};

// ---------------------------------------------------------------------------------------------
// REST client metrics (client-go names).

inline constexpr std::string_view kRestClientRequestsMetric = "rest_client_requests_total";
inline constexpr std::string_view kRestClientDurationMetric = "rest_client_request_duration_seconds";

/// Buckets of `rest_client_request_duration_seconds` (1 ms .. 512 ms, factor 2).
std::vector<double> RestClientDurationBuckets();

/// `rest_client_requests_total{code,method,host}` and
/// `rest_client_request_duration_seconds{verb,host}` in a registry (client-go's labels). Pass it
/// as `client::RestClientOptions::metrics`: the REST client then reports every HTTP attempt,
/// retries included.
/// **Thread-safety:** all members may be called concurrently. **Lifetime:** the registry must
/// outlive it.
class RestClientMetrics final : public client::RequestMetrics {
 public:
  /// Registers the two families in `registry` (idempotent).
  explicit RestClientMetrics(MetricsRegistry& registry);
  /// Records one attempt reported by a RestClient.
  void Observe(const client::RequestSample& sample) override;
  /// Records one HTTP exchange: `code` is the status code, or "<error>" for a transport error
  /// (client-go's convention); `method` the HTTP method ("GET", ...).
  void Observe(std::string_view method, std::string_view code, std::string_view host,
               double seconds);

 private:
  CounterVec& requests_;
  HistogramVec& duration_;
};

/// Wraps `inner` so that every `Do` and `Open` is recorded in `metrics` (one sample per attempt,
/// so retries count, as in client-go; an `Open` is timed until its response headers). `host` is
/// the `host` label (e.g. "127.0.0.1:6443"). Pass the result as `RestClientOptions::transport`.
/// Prefer `RestClientOptions::metrics` (the client's own hook, which the Manager uses); this
/// decorator remains for clients whose transport is built by hand.
/// **Lifetime:** `metrics` must outlive the returned transport.
std::shared_ptr<client::Transport> NewInstrumentedTransport(std::shared_ptr<client::Transport> inner,
                                                            RestClientMetrics& metrics,
                                                            std::string host);

// ---------------------------------------------------------------------------------------------
// Informer metrics (client-go reflector names).

/// Buckets of `reflector_list_duration_seconds` (1 ms .. ~33 s, factor 2).
std::vector<double> ReflectorListDurationBuckets();
/// Buckets of `reflector_watch_duration_seconds` (1 s .. 2048 s, factor 2: watches last 5-10 min).
std::vector<double> ReflectorWatchDurationBuckets();
/// Buckets of `reflector_items_per_list` / `reflector_items_per_watch` (1 .. 262144, factor 4).
std::vector<double> ReflectorItemsBuckets();

/// A `kube::cache::MetricsProvider` that registers the `reflector_*` families and
/// `informer_store_items` (label `name`, the reflector's / informer's name) in `registry` and
/// hands out handles to one child per reflector. client-go exports the duration and item
/// counts as summaries; they are histograms here. Pass it as `ReflectorOptions::metrics` (the
/// Manager puts it in its informer factory's options).
/// **Lifetime:** `registry` must outlive the provider and every reflector created with it.
std::unique_ptr<cache::MetricsProvider> NewInformerMetricsProvider(MetricsRegistry& registry);

}  // namespace kube::controller
