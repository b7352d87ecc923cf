#pragma once

/// \file
/// The metrics hook of the work queues. A queue created with a `MetricsProvider` asks it for one
/// handle per metric, labelled by the queue's name, and reports through the handles; the
/// Prometheus rendering lives with the controller runtime. The names are client-go's.

#include <memory>
#include <string_view>

namespace kube::workqueue {

/// Metric names, as client-go / controller-runtime export them (each labelled `name=<queue>`).
inline constexpr std::string_view kDepthMetric = "workqueue_depth";
inline constexpr std::string_view kAddsMetric = "workqueue_adds_total";
inline constexpr std::string_view kQueueDurationMetric = "workqueue_queue_duration_seconds";
inline constexpr std::string_view kWorkDurationMetric = "workqueue_work_duration_seconds";
inline constexpr std::string_view kUnfinishedWorkMetric = "workqueue_unfinished_work_seconds";
inline constexpr std::string_view kLongestRunningProcessorMetric =
    "workqueue_longest_running_processor_seconds";
inline constexpr std::string_view kRetriesMetric = "workqueue_retries_total";

/// A monotonically increasing counter. **Thread-safety:** implementations must be safe to call
/// from any thread (queues call them from producers and workers concurrently).
class CounterMetric {
 public:
  virtual ~CounterMetric() = default;
  /// Adds one.
  virtual void Inc() = 0;
};

/// A gauge moved up and down by one (queue depth). **Thread-safety:** as CounterMetric.
class GaugeMetric {
 public:
  virtual ~GaugeMetric() = default;
  /// Adds one.
  virtual void Inc() = 0;
  /// Subtracts one.
  virtual void Dec() = 0;
};

/// A gauge set to absolute values (unfinished work seconds). **Thread-safety:** as CounterMetric.
class SettableGaugeMetric {
 public:
  virtual ~SettableGaugeMetric() = default;
  /// Replaces the value.
  virtual void Set(double value) = 0;
};

/// A distribution of observations in seconds. **Thread-safety:** as CounterMetric.
class HistogramMetric {
 public:
  virtual ~HistogramMetric() = default;
  /// Records one observation (seconds).
  virtual void Observe(double seconds) = 0;
};

/// Creates the metric handles of a queue; one call per metric per queue, at construction.
/// Every factory has a default that returns nullptr, which switches that metric off, so a
/// provider overrides only what it exports. The handles are owned by the queue and called
/// outside the queue's locks, possibly concurrently, until the queue is destroyed.
/// **Thread-safety:** the factories may be called from any thread.
class MetricsProvider {
 public:
  virtual ~MetricsProvider() = default;
  /// `workqueue_depth{name}`: items waiting to be handed out (queued or dirty while processing).
  virtual std::unique_ptr<GaugeMetric> NewDepthMetric(std::string_view name);
  /// `workqueue_adds_total{name}`: adds that marked an item as needing processing.
  virtual std::unique_ptr<CounterMetric> NewAddsMetric(std::string_view name);
  /// `workqueue_queue_duration_seconds{name}`: time from the add to `Get`.
  virtual std::unique_ptr<HistogramMetric> NewLatencyMetric(std::string_view name);
  /// `workqueue_work_duration_seconds{name}`: time from `Get` to `Done`.
  virtual std::unique_ptr<HistogramMetric> NewWorkDurationMetric(std::string_view name);
  /// `workqueue_unfinished_work_seconds{name}`: summed age of the items being processed.
  virtual std::unique_ptr<SettableGaugeMetric> NewUnfinishedWorkSecondsMetric(
      std::string_view name);
  /// `workqueue_longest_running_processor_seconds{name}`: age of the oldest item in process.
  virtual std::unique_ptr<SettableGaugeMetric> NewLongestRunningProcessorSecondsMetric(
      std::string_view name);
  /// `workqueue_retries_total{name}`: `AddAfter` / `AddRateLimited` calls.
  virtual std::unique_ptr<CounterMetric> NewRetriesMetric(std::string_view name);
};

/// A provider that creates no metric at all: the explicit form of `metrics_provider = nullptr`.
/// **Ownership:** a static singleton that lives for the whole process.
MetricsProvider& NoopMetricsProvider();

}  // namespace kube::workqueue
