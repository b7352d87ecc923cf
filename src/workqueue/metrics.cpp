#include <kube/workqueue/metrics.hpp>

namespace kube::workqueue {

std::unique_ptr<GaugeMetric> MetricsProvider::NewDepthMetric(std::string_view) { return nullptr; }
std::unique_ptr<CounterMetric> MetricsProvider::NewAddsMetric(std::string_view) { return nullptr; }
std::unique_ptr<HistogramMetric> MetricsProvider::NewLatencyMetric(std::string_view) {
  return nullptr;
}
std::unique_ptr<HistogramMetric> MetricsProvider::NewWorkDurationMetric(std::string_view) {
  return nullptr;
}
std::unique_ptr<SettableGaugeMetric> MetricsProvider::NewUnfinishedWorkSecondsMetric(
    std::string_view) {
  return nullptr;
}
std::unique_ptr<SettableGaugeMetric> MetricsProvider::NewLongestRunningProcessorSecondsMetric(
    std::string_view) {
  return nullptr;
}
std::unique_ptr<CounterMetric> MetricsProvider::NewRetriesMetric(std::string_view) {
  return nullptr;
}

MetricsProvider& NoopMetricsProvider() {
  static MetricsProvider provider;
  return provider;
}

}  // namespace kube::workqueue

#include <kube/workqueue/internal/queue_metrics.hpp>

namespace kube::workqueue::internal {

QueueMetrics::QueueMetrics(MetricsProvider* provider, std::string_view name) {
  if (provider == nullptr) return;
  depth_ = provider->NewDepthMetric(name);
  adds_ = provider->NewAddsMetric(name);
  latency_ = provider->NewLatencyMetric(name);
  work_duration_ = provider->NewWorkDurationMetric(name);
  unfinished_ = provider->NewUnfinishedWorkSecondsMetric(name);
  longest_ = provider->NewLongestRunningProcessorSecondsMetric(name);
  retries_ = provider->NewRetriesMetric(name);
  enabled_ = depth_ || adds_ || latency_ || work_duration_ || unfinished_ || longest_;
}

QueueMetrics::~QueueMetrics() = default;

void QueueMetrics::Added(int count) {
  for (int i = 0; i < count; ++i) {
    if (adds_) adds_->Inc();
    if (depth_) depth_->Inc();
  }
}

void QueueMetrics::Got(double queued_seconds) {
  if (depth_) depth_->Dec();
  if (latency_) latency_->Observe(queued_seconds);
}

void QueueMetrics::Finished(double work_seconds) {
  if (work_duration_) work_duration_->Observe(work_seconds);
}

void QueueMetrics::SetUnfinished(double total_seconds, double longest_seconds) {
  if (unfinished_) unfinished_->Set(total_seconds);
  if (longest_) longest_->Set(longest_seconds);
}

void QueueMetrics::Retried() {
  if (retries_) retries_->Inc();
}

}  // namespace kube::workqueue::internal
