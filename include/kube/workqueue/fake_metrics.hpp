#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <kube/workqueue/metrics.hpp>

namespace kube::workqueue {

/// A MetricsProvider for tests: it creates every metric and records what the queues report, so
/// a test can read back `Value(kDepthMetric, "my-queue")` or the observations of a histogram.
/// **Thread-safety:** all members may be called concurrently with the queues reporting.
/// **Ownership:** the handles share the recorded state, so they stay valid even if the provider
/// is destroyed first.
class FakeMetricsProvider final : public MetricsProvider {
 public:
  /// A provider with nothing recorded.
  FakeMetricsProvider();
  ~FakeMetricsProvider() override;

  /// Each factory creates a recording handle for its metric (see MetricsProvider).
  std::unique_ptr<GaugeMetric> NewDepthMetric(std::string_view name) override;
  std::unique_ptr<CounterMetric> NewAddsMetric(std::string_view name) override;
  std::unique_ptr<HistogramMetric> NewLatencyMetric(std::string_view name) override;
  std::unique_ptr<HistogramMetric> NewWorkDurationMetric(std::string_view name) override;
  std::unique_ptr<SettableGaugeMetric> NewUnfinishedWorkSecondsMetric(
      std::string_view name) override;
  std::unique_ptr<SettableGaugeMetric> NewLongestRunningProcessorSecondsMetric(
      std::string_view name) override;
  std::unique_ptr<CounterMetric> NewRetriesMetric(std::string_view name) override;

  /// The current value of counter or gauge `metric` (a `k...Metric` name) for queue `queue`;
  /// 0 when it was never created or never changed.
  double Value(std::string_view metric, std::string_view queue) const;
  /// The observations of histogram `metric` for `queue`, oldest first.
  std::vector<double> Observations(std::string_view metric, std::string_view queue) const;
  /// Blocks until counter or gauge `metric` of `queue` equals `value` (on a condition variable,
  /// not a sleep); returns false if that did not happen within `real_timeout` of real time.
  /// Lets a test wait for a queue's background thread to publish.
  bool AwaitValue(std::string_view metric, std::string_view queue, double value,
                  std::chrono::milliseconds real_timeout = std::chrono::seconds(30)) const;
  /// How many handles were created for `metric` and `queue` (1 per queue that reports it).
  std::size_t Created(std::string_view metric, std::string_view queue) const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace kube::workqueue
