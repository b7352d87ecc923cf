#pragma once

/// \file
/// The metrics hook of reflectors and informers (client-go's reflector `MetricsProvider`). A
/// Reflector created with `ReflectorOptions::metrics` asks the provider for one handle per metric,
/// labelled by the reflector's name, at construction, and reports through the handles from its
/// thread; a SharedIndexInformer reports the size of its cache through the same provider. The
/// Prometheus rendering lives with the controller runtime (`kube::controller`). The names are
/// client-go's where client-go has the metric; the last two are kubecpp's own.

#include <memory>
#include <string_view>

namespace kube::cache {

/// Metric names (each labelled `name=<reflector>`), as client-go's reflector metrics.
inline constexpr std::string_view kReflectorListsMetric = "reflector_lists_total";
inline constexpr std::string_view kReflectorListDurationMetric = "reflector_list_duration_seconds";
inline constexpr std::string_view kReflectorItemsPerListMetric = "reflector_items_per_list";
inline constexpr std::string_view kReflectorWatchesMetric = "reflector_watches_total";
inline constexpr std::string_view kReflectorShortWatchesMetric = "reflector_short_watches_total";
inline constexpr std::string_view kReflectorWatchDurationMetric = "reflector_watch_duration_seconds";
inline constexpr std::string_view kReflectorItemsPerWatchMetric = "reflector_items_per_watch";
inline constexpr std::string_view kReflectorLastResourceVersionMetric = "reflector_last_resource_version";
/// kubecpp's: list or watch answers "410 Expired" / too-large resourceVersion, each forcing a
/// relist (client-go only logs these).
inline constexpr std::string_view kReflectorExpiredMetric = "reflector_resource_version_expired_total";
/// kubecpp's: objects in the informer's cache (client-go has no such metric).
inline constexpr std::string_view kInformerStoreItemsMetric = "informer_store_items";

/// A monotonically increasing counter. **Thread-safety:** implementations must be safe to call
/// from any thread.
class CounterMetric {
 public:
  virtual ~CounterMetric() = default;
  /// Adds one.
  virtual void Inc() = 0;
};

/// A gauge set to absolute values. **Thread-safety:** as CounterMetric.
class GaugeMetric {
 public:
  virtual ~GaugeMetric() = default;
  /// Replaces the value.
  virtual void Set(double value) = 0;
};

/// A distribution of observations (seconds or counts). **Thread-safety:** as CounterMetric.
class HistogramMetric {
 public:
  virtual ~HistogramMetric() = default;
  /// Records one observation.
  virtual void Observe(double value) = 0;
};

/// Creates the metric handles of one reflector (and its informer); one call per metric per
/// reflector, at construction. Every factory has a default returning nullptr, which switches
/// that metric off, so a provider overrides only what it exports. The handles are owned by the
/// reflector / informer and called without its locks held, from its threads, until it is
/// destroyed. **Thread-safety:** the factories may be called from any thread.
/// **Lifetime:** the provider itself is only used during construction; whatever the handles
/// refer to must outlive the reflector.
class MetricsProvider {
 public:
  virtual ~MetricsProvider() = default;
  /// `reflector_lists_total`: lists started (LIST or streaming list).
  virtual std::unique_ptr<CounterMetric> NewListsMetric(std::string_view /*name*/) { return nullptr; }
  /// `reflector_list_duration_seconds`: how long a successful list took (all pages, until the
  /// store was replaced).
  virtual std::unique_ptr<HistogramMetric> NewListDurationMetric(std::string_view /*name*/) {
    return nullptr;
  }
  /// `reflector_items_per_list`: objects a successful list returned.
  virtual std::unique_ptr<HistogramMetric> NewItemsInListMetric(std::string_view /*name*/) {
    return nullptr;
  }
  /// `reflector_watches_total`: watches opened (attempts, successful or not).
  virtual std::unique_ptr<CounterMetric> NewWatchesMetric(std::string_view /*name*/) { return nullptr; }
  /// `reflector_short_watches_total`: watches that ended in under a second without an event.
  virtual std::unique_ptr<CounterMetric> NewShortWatchesMetric(std::string_view /*name*/) {
    return nullptr;
  }
  /// `reflector_watch_duration_seconds`: how long an opened watch lasted.
  virtual std::unique_ptr<HistogramMetric> NewWatchDurationMetric(std::string_view /*name*/) {
    return nullptr;
  }
  /// `reflector_items_per_watch`: events (bookmarks included) an opened watch delivered.
  virtual std::unique_ptr<HistogramMetric> NewItemsInWatchMetric(std::string_view /*name*/) {
    return nullptr;
  }
  /// `reflector_last_resource_version`: the last synced resourceVersion, when it is numeric.
  virtual std::unique_ptr<GaugeMetric> NewLastResourceVersionMetric(std::string_view /*name*/) {
    return nullptr;
  }
  /// `reflector_resource_version_expired_total`: 410 Expired / too-large RV answers.
  virtual std::unique_ptr<CounterMetric> NewExpiredMetric(std::string_view /*name*/) { return nullptr; }
  /// `informer_store_items`: objects in the informer's cache (set by SharedIndexInformer after
  /// every batch of deltas it applies).
  virtual std::unique_ptr<GaugeMetric> NewStoreItemsMetric(std::string_view /*name*/) { return nullptr; }
};

}  // namespace kube::cache
