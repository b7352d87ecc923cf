#include <kube/workqueue/fake_metrics.hpp>

#include <map>
#include <utility>

#include <kube/base/mutex.hpp>

namespace kube::workqueue {

struct FakeMetricsProvider::State {
  struct Series {
    double value = 0;
    std::vector<double> observations;
    std::size_t created = 0;
  };
  using Key = std::pair<std::string, std::string>;  // (metric, queue)

  // std::map: handles keep a pointer to their Series, and map nodes never move.
  Series* Create(std::string_view metric, std::string_view queue) {
    MutexLock lock(mu);
    Series& s = series[Key(metric, queue)];
    ++s.created;
    return &s;
  }
  const Series* Find(std::string_view metric, std::string_view queue) const
      KUBE_REQUIRES(mu) {
    auto it = series.find(Key(metric, queue));
    return it == series.end() ? nullptr : &it->second;
  }

  mutable Mutex mu;
  mutable CondVar changed;  // signalled after every recorded value
  std::map<Key, Series> series KUBE_GUARDED_BY(mu);
};

namespace {

// One handle class implements every metric interface; each factory hands out the facet it needs.
class FakeHandle final : public CounterMetric,
                         public GaugeMetric,
                         public SettableGaugeMetric,
                         public HistogramMetric {
 public:
  template <class S, class Series>
  FakeHandle(std::shared_ptr<S> state, Mutex* mu, CondVar* changed, Series* series)
      : keep_alive_(std::move(state)), mu_(mu), changed_(changed), value_(&series->value),
        observations_(&series->observations) {}

  void Inc() override {
    {
      MutexLock lock(*mu_);
      *value_ += 1;
    }
    changed_->SignalAll();
  }
  void Dec() override {
    {
      MutexLock lock(*mu_);
      *value_ -= 1;
    }
    changed_->SignalAll();
  }
  void Set(double value) override {
    {
      MutexLock lock(*mu_);
      *value_ = value;
    }
    changed_->SignalAll();
  }
  void Observe(double seconds) override {
    {
      MutexLock lock(*mu_);
      observations_->push_back(seconds);
    }
    changed_->SignalAll();
  }

 private:
  std::shared_ptr<void> keep_alive_;
  Mutex* mu_;
  CondVar* changed_;
  // Point into the provider's map, guarded by *mu_ (not expressible to the analysis through a
  // pointer to a foreign mutex; every access above holds it).
  double* value_;
  std::vector<double>* observations_;
};

}  // namespace

FakeMetricsProvider::FakeMetricsProvider() : state_(std::make_shared<State>()) {}
FakeMetricsProvider::~FakeMetricsProvider() = default;

namespace {
// A template so that it can name the provider's private State through deduction.
template <class S>
std::unique_ptr<FakeHandle> MakeHandle(const std::shared_ptr<S>& state, std::string_view metric,
                                       std::string_view queue) {
  auto* series = state->Create(metric, queue);
  return std::make_unique<FakeHandle>(state, &state->mu, &state->changed, series);
}
}  // namespace

std::unique_ptr<GaugeMetric> FakeMetricsProvider::NewDepthMetric(std::string_view name) {
  return MakeHandle(state_, kDepthMetric, name);
}
std::unique_ptr<CounterMetric> FakeMetricsProvider::NewAddsMetric(std::string_view name) {
  return MakeHandle(state_, kAddsMetric, name);
}
std::unique_ptr<HistogramMetric> FakeMetricsProvider::NewLatencyMetric(std::string_view name) {
  return MakeHandle(state_, kQueueDurationMetric, name);
}
std::unique_ptr<HistogramMetric> FakeMetricsProvider::NewWorkDurationMetric(
    std::string_view name) {
  return MakeHandle(state_, kWorkDurationMetric, name);
}
std::unique_ptr<SettableGaugeMetric> FakeMetricsProvider::NewUnfinishedWorkSecondsMetric(
    std::string_view name) {
  return MakeHandle(state_, kUnfinishedWorkMetric, name);
}
std::unique_ptr<SettableGaugeMetric> FakeMetricsProvider::NewLongestRunningProcessorSecondsMetric(
    std::string_view name) {
  return MakeHandle(state_, kLongestRunningProcessorMetric, name);
}
std::unique_ptr<CounterMetric> FakeMetricsProvider::NewRetriesMetric(std::string_view name) {
  return MakeHandle(state_, kRetriesMetric, name);
}

double FakeMetricsProvider::Value(std::string_view metric, std::string_view queue) const {
  MutexLock lock(state_->mu);
  const auto* s = state_->Find(metric, queue);
  return s == nullptr ? 0 : s->value;
}

std::vector<double> FakeMetricsProvider::Observations(std::string_view metric,
                                                      std::string_view queue) const {
  MutexLock lock(state_->mu);
  const auto* s = state_->Find(metric, queue);
  return s == nullptr ? std::vector<double>{} : s->observations;
}

bool FakeMetricsProvider::AwaitValue(std::string_view metric, std::string_view queue,
                                     double value, std::chrono::milliseconds real_timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + real_timeout;
  MutexLock lock(state_->mu);
  for (;;) {
    const auto* s = state_->Find(metric, queue);
    if ((s == nullptr ? 0 : s->value) == value) return true;
    if (state_->changed.WaitUntil(state_->mu, deadline)) {
      s = state_->Find(metric, queue);
      return (s == nullptr ? 0 : s->value) == value;
    }
  }
}

std::size_t FakeMetricsProvider::Created(std::string_view metric, std::string_view queue) const {
  MutexLock lock(state_->mu);
  const auto* s = state_->Find(metric, queue);
  return s == nullptr ? 0 : s->created;
}

}  // namespace kube::workqueue
