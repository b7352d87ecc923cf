#pragma once

#include <memory>
#include <string_view>

#include <kube/workqueue/metrics.hpp>

namespace kube::workqueue::internal {

/// The handles of one queue's metrics. Every call is a no-op for a metric the provider did not
/// create, and `enabled()` is false when none was created, so queues skip the time-keeping.
/// Queues call these outside their locks. **Thread-safety:** as the handles (safe).
class QueueMetrics final {
 public:
  /// `provider` may be null (no metrics); it is only used during construction.
  QueueMetrics(MetricsProvider* provider, std::string_view name);
  ~QueueMetrics();
  QueueMetrics(const QueueMetrics&) = delete;
  QueueMetrics& operator=(const QueueMetrics&) = delete;

  /// True when any of the queue metrics (all but retries) exists.
  bool enabled() const noexcept { return enabled_; }
  /// True when the retries counter exists.
  bool retries_enabled() const noexcept { return retries_ != nullptr; }

  /// An item became dirty: adds_total++, depth++.
  void Added(int count = 1);
  /// An item was handed out after waiting `queued_seconds`: depth--, queue duration observed.
  void Got(double queued_seconds);
  /// An item was finished after `work_seconds` of processing.
  void Finished(double work_seconds);
  /// Publishes the unfinished-work gauges.
  void SetUnfinished(double total_seconds, double longest_seconds);
  /// One AddAfter / AddRateLimited call.
  void Retried();

 private:
  std::unique_ptr<GaugeMetric> depth_;
  std::unique_ptr<CounterMetric> adds_;
  std::unique_ptr<HistogramMetric> latency_;
  std::unique_ptr<HistogramMetric> work_duration_;
  std::unique_ptr<SettableGaugeMetric> unfinished_;
  std::unique_ptr<SettableGaugeMetric> longest_;
  std::unique_ptr<CounterMetric> retries_;
  bool enabled_ = false;
};

}  // namespace kube::workqueue::internal
