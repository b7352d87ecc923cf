#include <kube/controller/metrics.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace kube::controller {
namespace {

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "kube::controller::MetricsRegistry: %s\n", message.c_str());
  std::abort();
}

void AtomicAdd(std::atomic<double>& a, double v) {
  double cur = a.load(std::memory_order_relaxed);
  while (!a.compare_exchange_weak(cur, cur + v, std::memory_order_relaxed)) {
  }
}

bool ValidMetricName(std::string_view n) {
  if (n.empty()) return false;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const char c = n[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool ValidLabelName(std::string_view n) {
  if (n.empty() || n.starts_with("__") || n == "le") return false;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const char c = n[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

// Go's strconv.FormatFloat(v, 'g', -1, 64) in spirit: shortest round-trip text, with the
// Prometheus spellings of the special values.
void AppendNumber(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "+Inf" : "-Inf";
    return;
  }
  std::array<char, 64> buf{};
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  if (ec != std::errc()) {
    out += "NaN";
    return;
  }
  out.append(buf.data(), end);
}

void AppendEscapedHelp(std::string& out, std::string_view s) {
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

void AppendEscapedLabelValue(std::string& out, std::string_view s) {
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

void AppendHeader(std::string& out, std::string_view name, std::string_view help,
                  std::string_view type) {
  out += "# HELP ";
  out += name;
  out += ' ';
  AppendEscapedHelp(out, help);
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

// `{a="x",b="y"` + optional extra label, then `}`; nothing when there are no labels at all.
void AppendLabels(std::string& out, const std::vector<std::string>& names,
                  const std::vector<std::string>& values, std::string_view extra_name = {},
                  std::string_view extra_value = {}) {
  if (names.empty() && extra_name.empty()) return;
  out += '{';
  bool first = true;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!first) out += ',';
    first = false;
    out += names[i];
    out += "=\"";
    AppendEscapedLabelValue(out, values[i]);
    out += '"';
  }
  if (!extra_name.empty()) {
    if (!first) out += ',';
    out += extra_name;
    out += "=\"";
    out += extra_value;
    out += '"';
  }
  out += '}';
}

void AppendSample(std::string& out, std::string_view name, const std::vector<std::string>& names,
                  const std::vector<std::string>& values, double v) {
  out += name;
  AppendLabels(out, names, values);
  out += ' ';
  AppendNumber(out, v);
  out += '\n';
}

template <class Map>
auto& FindOrCreate(Map& children, std::vector<std::string> key, auto make) {
  auto it = children.find(key);
  if (it == children.end()) it = children.emplace(std::move(key), make()).first;
  return *it->second;
}

std::vector<std::string> ToKey(std::initializer_list<std::string_view> values) {
  std::vector<std::string> key;
  key.reserve(values.size());
  for (auto v : values) key.emplace_back(v);
  return key;
}

std::vector<std::string> ToKey(std::span<const std::string> values) {
  return {values.begin(), values.end()};
}

void CheckBuckets(const std::vector<double>& b, std::string_view name) {
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (std::isnan(b[i]) || (i > 0 && !(b[i] > b[i - 1]))) {
      Die("histogram " + std::string(name) + ": buckets must be strictly increasing");
    }
  }
}

}  // namespace

std::vector<double> DefaultBuckets() { return {.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}; }

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  if (!(start > 0) || !(factor > 1) || count < 1) Die("ExponentialBuckets: invalid arguments");
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(count));
  double v = start;
  for (int i = 0; i < count; ++i) {
    out.push_back(v);
    v *= factor;
  }
  return out;
}

void Counter::Inc(double v) {
  if (!(v >= 0)) return;
  AtomicAdd(value_, v);
}

void Gauge::Add(double v) { AtomicAdd(value_, v); }

Histogram::Histogram(std::span<const double> upper_bounds)
    : upper_bounds_(upper_bounds.begin(), upper_bounds.end()),
      buckets_(std::make_unique<std::atomic<std::uint64_t>[]>(upper_bounds.size() + 1)) {
  // make_unique<T[]> value-initialises: every bucket starts at 0.
}

void Histogram::Observe(double v) {
  // Buckets are few (<= ~40): a binary search for the first bound >= v.
  const auto it = std::lower_bound(upper_bounds_.begin(), upper_bounds_.end(), v);
  const auto idx = static_cast<std::size_t>(it - upper_bounds_.begin());
  buckets_[idx].fetch_add(1, std::memory_order_relaxed);
  AtomicAdd(sum_, v);
  count_.fetch_add(1, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::Read() const {
  Snapshot s;
  s.upper_bounds = upper_bounds_;
  s.cumulative.resize(upper_bounds_.size());
  std::uint64_t acc = 0;
  for (std::size_t i = 0; i < upper_bounds_.size(); ++i) {
    acc += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative[i] = acc;
  }
  acc += buckets_[upper_bounds_.size()].load(std::memory_order_relaxed);
  // The +Inf bucket and _count must agree in the exposition: derive count from the buckets.
  s.count = acc;
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

namespace internal {

FamilyBase::FamilyBase(std::string name, std::string help, std::vector<std::string> label_names,
                       Type type)
    : name_(std::move(name)), help_(std::move(help)), label_names_(std::move(label_names)), type_(type) {}

void FamilyBase::CheckArity(std::size_t n) const {
  if (n != label_names_.size()) {
    Die("metric " + name_ + ": " + std::to_string(n) + " label values for " +
        std::to_string(label_names_.size()) + " label names");
  }
}

}  // namespace internal

CounterVec::CounterVec(std::string name, std::string help, std::vector<std::string> label_names)
    : FamilyBase(std::move(name), std::move(help), std::move(label_names), Type::kCounter) {}

Counter& CounterVec::With(std::initializer_list<std::string_view> values) {
  CheckArity(values.size());
  MutexLock lock(mu_);
  return FindOrCreate(children_, ToKey(values), [] { return std::make_unique<Counter>(); });
}

Counter& CounterVec::With(std::span<const std::string> values) {
  CheckArity(values.size());
  MutexLock lock(mu_);
  return FindOrCreate(children_, ToKey(values), [] { return std::make_unique<Counter>(); });
}

void CounterVec::Render(std::string& out) const {
  AppendHeader(out, name_, help_, "counter");
  MutexLock lock(mu_);
  for (const auto& [values, child] : children_) AppendSample(out, name_, label_names_, values, child->Value());
}

GaugeVec::GaugeVec(std::string name, std::string help, std::vector<std::string> label_names)
    : FamilyBase(std::move(name), std::move(help), std::move(label_names), Type::kGauge) {}

Gauge& GaugeVec::With(std::initializer_list<std::string_view> values) {
  CheckArity(values.size());
  MutexLock lock(mu_);
  return FindOrCreate(children_, ToKey(values), [] { return std::make_unique<Gauge>(); });
}

Gauge& GaugeVec::With(std::span<const std::string> values) {
  CheckArity(values.size());
  MutexLock lock(mu_);
  return FindOrCreate(children_, ToKey(values), [] { return std::make_unique<Gauge>(); });
}

void GaugeVec::Render(std::string& out) const {
  AppendHeader(out, name_, help_, "gauge");
  MutexLock lock(mu_);
  for (const auto& [values, child] : children_) AppendSample(out, name_, label_names_, values, child->Value());
}

HistogramVec::HistogramVec(std::string name, std::string help, std::vector<std::string> label_names,
                           std::vector<double> buckets)
    : FamilyBase(std::move(name), std::move(help), std::move(label_names), Type::kHistogram),
      buckets_(std::move(buckets)) {}

Histogram& HistogramVec::With(std::initializer_list<std::string_view> values) {
  CheckArity(values.size());
  MutexLock lock(mu_);
  return FindOrCreate(children_, ToKey(values), [this] { return std::make_unique<Histogram>(buckets_); });
}

Histogram& HistogramVec::With(std::span<const std::string> values) {
  CheckArity(values.size());
  MutexLock lock(mu_);
  return FindOrCreate(children_, ToKey(values), [this] { return std::make_unique<Histogram>(buckets_); });
}

void HistogramVec::Render(std::string& out) const {
  AppendHeader(out, name_, help_, "histogram");
  const std::string bucket_name = name_ + "_bucket";
  MutexLock lock(mu_);
  for (const auto& [values, child] : children_) {
    const Histogram::Snapshot s = child->Read();
    for (std::size_t i = 0; i < s.upper_bounds.size(); ++i) {
      std::string le;
      AppendNumber(le, s.upper_bounds[i]);
      out += bucket_name;
      AppendLabels(out, label_names_, values, "le", le);
      out += ' ';
      AppendNumber(out, static_cast<double>(s.cumulative[i]));
      out += '\n';
    }
    out += bucket_name;
    AppendLabels(out, label_names_, values, "le", "+Inf");
    out += ' ';
    AppendNumber(out, static_cast<double>(s.count));
    out += '\n';
    AppendSample(out, name_ + "_sum", label_names_, values, s.sum);
    AppendSample(out, name_ + "_count", label_names_, values, static_cast<double>(s.count));
  }
}

namespace {

template <class Vec>
Vec& RegisterFamily(std::map<std::string, std::unique_ptr<internal::FamilyBase>, std::less<>>& families,
                    bool name_in_funcs, std::string_view name,
                    std::vector<std::string> label_names, internal::FamilyBase::Type type,
                    auto make) {
  if (!ValidMetricName(name)) Die("invalid metric name \"" + std::string(name) + "\"");
  for (const auto& l : label_names) {
    if (!ValidLabelName(l)) Die("metric " + std::string(name) + ": invalid label name \"" + l + "\"");
  }
  if (name_in_funcs) Die("metric " + std::string(name) + " is already registered as a gauge func");
  auto it = families.find(name);
  if (it != families.end()) {
    if (it->second->type() != type || it->second->label_names() != label_names) {
      Die("metric " + std::string(name) + " is already registered with another type or labels");
    }
    return static_cast<Vec&>(*it->second);
  }
  auto family = make(std::move(label_names));
  Vec& ref = *family;
  families.emplace(std::string(name), std::move(family));
  return ref;
}

}  // namespace

CounterVec& MetricsRegistry::Counter(std::string_view name, std::string_view help,
                                     std::vector<std::string> label_names) {
  MutexLock lock(mu_);
  return RegisterFamily<CounterVec>(
      families_, funcs_.contains(name), name, std::move(label_names),
      internal::FamilyBase::Type::kCounter, [&](std::vector<std::string> labels) {
        return std::make_unique<CounterVec>(std::string(name), std::string(help), std::move(labels));
      });
}

GaugeVec& MetricsRegistry::Gauge(std::string_view name, std::string_view help,
                                 std::vector<std::string> label_names) {
  MutexLock lock(mu_);
  return RegisterFamily<GaugeVec>(
      families_, funcs_.contains(name), name, std::move(label_names),
      internal::FamilyBase::Type::kGauge, [&](std::vector<std::string> labels) {
        return std::make_unique<GaugeVec>(std::string(name), std::string(help), std::move(labels));
      });
}

HistogramVec& MetricsRegistry::Histogram(std::string_view name, std::string_view help,
                                         std::vector<std::string> label_names,
                                         std::vector<double> buckets) {
  if (buckets.empty()) buckets = DefaultBuckets();
  if (!buckets.empty() && std::isinf(buckets.back()) && buckets.back() > 0) buckets.pop_back();
  CheckBuckets(buckets, name);
  MutexLock lock(mu_);
  auto& vec = RegisterFamily<HistogramVec>(
      families_, funcs_.contains(name), name, std::move(label_names),
      internal::FamilyBase::Type::kHistogram, [&](std::vector<std::string> labels) {
        return std::make_unique<HistogramVec>(std::string(name), std::string(help), std::move(labels),
                                              buckets);
      });
  if (vec.buckets() != buckets) Die("histogram " + std::string(name) + " is already registered with other buckets");
  return vec;
}

void MetricsRegistry::GaugeFunc(std::string_view name, std::string_view help, std::function<double()> fn) {
  if (!ValidMetricName(name)) Die("invalid metric name \"" + std::string(name) + "\"");
  MutexLock lock(mu_);
  if (families_.contains(name)) Die("metric " + std::string(name) + " is already registered");
  funcs_[std::string(name)] = Func{std::string(help), std::move(fn)};
}

std::string MetricsRegistry::Render() const {
  // Families are never removed and live as long as the registry, so raw pointers taken under the
  // lock stay valid; gauge funcs are copied so that user code runs without the lock.
  std::vector<std::pair<std::string, const internal::FamilyBase*>> families;
  std::vector<std::pair<std::string, Func>> funcs;
  {
    MutexLock lock(mu_);
    families.reserve(families_.size());
    for (const auto& [name, f] : families_) families.emplace_back(name, f.get());
    for (const auto& [name, f] : funcs_) funcs.emplace_back(name, f);
  }
  std::vector<std::pair<std::string, double>> func_values;
  func_values.reserve(funcs.size());
  for (const auto& [name, f] : funcs) {
    double v = std::nan("");
    try {
      v = f.fn();
    } catch (...) {
      v = std::nan("");
    }
    func_values.emplace_back(name, v);
  }
  std::string out;
  std::size_t fi = 0, gi = 0;
  while (fi < families.size() || gi < funcs.size()) {
    const bool take_family = gi >= funcs.size() || (fi < families.size() && families[fi].first < funcs[gi].first);
    if (take_family) {
      families[fi].second->Render(out);
      ++fi;
    } else {
      AppendHeader(out, funcs[gi].first, funcs[gi].second.help, "gauge");
      out += funcs[gi].first;
      out += ' ';
      AppendNumber(out, func_values[gi].second);
      out += '\n';
      ++gi;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

std::vector<double> WorkqueueDurationBuckets() { return ExponentialBuckets(10e-9, 10, 10); }

namespace {

class CounterHandle final : public workqueue::CounterMetric {
 public:
  explicit CounterHandle(Counter& c) : c_(c) {}
  void Inc() override { c_.Inc(); }

 private:
  Counter& c_;
};

class GaugeHandle final : public workqueue::GaugeMetric {
 public:
  explicit GaugeHandle(Gauge& g) : g_(g) {}
  void Inc() override { g_.Inc(); }
  void Dec() override { g_.Dec(); }

 private:
  Gauge& g_;
};

class SettableGaugeHandle final : public workqueue::SettableGaugeMetric {
 public:
  explicit SettableGaugeHandle(Gauge& g) : g_(g) {}
  void Set(double v) override { g_.Set(v); }

 private:
  Gauge& g_;
};

class HistogramHandle final : public workqueue::HistogramMetric {
 public:
  explicit HistogramHandle(Histogram& h) : h_(h) {}
  void Observe(double seconds) override { h_.Observe(seconds); }

 private:
  Histogram& h_;
};

class WorkqueueMetricsProvider final : public workqueue::MetricsProvider {
 public:
  explicit WorkqueueMetricsProvider(MetricsRegistry& r)
      : depth_(r.Gauge(workqueue::kDepthMetric, "Current depth of workqueue", {"name"})),
        adds_(r.Counter(workqueue::kAddsMetric, "Total number of adds handled by workqueue", {"name"})),
        latency_(r.Histogram(workqueue::kQueueDurationMetric,
                             "How long in seconds an item stays in workqueue before being requested",
                             {"name"}, WorkqueueDurationBuckets())),
        work_(r.Histogram(workqueue::kWorkDurationMetric,
                          "How long in seconds processing an item from workqueue takes", {"name"},
                          WorkqueueDurationBuckets())),
        unfinished_(r.Gauge(workqueue::kUnfinishedWorkMetric,
                            "How many seconds of work has been done that is in progress and hasn't "
                            "been observed by work_duration. Large values indicate stuck threads. "
                            "One can deduce the number of stuck threads by observing the rate at "
                            "which this increases.",
                            {"name"})),
        longest_(r.Gauge(workqueue::kLongestRunningProcessorMetric,
                         "How many seconds has the longest running processor for workqueue been running.",
                         {"name"})),
        retries_(r.Counter(workqueue::kRetriesMetric, "Total number of retries handled by workqueue",
                           {"name"})) {}

  std::unique_ptr<workqueue::GaugeMetric> NewDepthMetric(std::string_view name) override {
    return std::make_unique<GaugeHandle>(depth_.With({name}));
  }
  std::unique_ptr<workqueue::CounterMetric> NewAddsMetric(std::string_view name) override {
    return std::make_unique<CounterHandle>(adds_.With({name}));
  }
  std::unique_ptr<workqueue::HistogramMetric> NewLatencyMetric(std::string_view name) override {
    return std::make_unique<HistogramHandle>(latency_.With({name}));
  }
  std::unique_ptr<workqueue::HistogramMetric> NewWorkDurationMetric(std::string_view name) override {
    return std::make_unique<HistogramHandle>(work_.With({name}));
  }
  std::unique_ptr<workqueue::SettableGaugeMetric> NewUnfinishedWorkSecondsMetric(
      std::string_view name) override {
    return std::make_unique<SettableGaugeHandle>(unfinished_.With({name}));
  }
  std::unique_ptr<workqueue::SettableGaugeMetric> NewLongestRunningProcessorSecondsMetric(
      std::string_view name) override {
    return std::make_unique<SettableGaugeHandle>(longest_.With({name}));
  }
  std::unique_ptr<workqueue::CounterMetric> NewRetriesMetric(std::string_view name) override {
    return std::make_unique<CounterHandle>(retries_.With({name}));
  }

 private:
  GaugeVec& depth_;
  CounterVec& adds_;
  HistogramVec& latency_;
  HistogramVec& work_;
  GaugeVec& unfinished_;
  GaugeVec& longest_;
  CounterVec& retries_;
};

}  // namespace

std::unique_ptr<workqueue::MetricsProvider> NewWorkqueueMetricsProvider(MetricsRegistry& registry) {
  return std::make_unique<WorkqueueMetricsProvider>(registry);
}

// ---------------------------------------------------------------------------------------------

std::vector<double> ReconcileTimeBuckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6,
          0.7,   0.8,  0.9,   1.0,  1.25, 1.5, 1.75, 2.0, 2.5, 3.0,  3.5, 4.0,  4.5, 5,
          6,     7,    8,     9,    10,   15,  20,   25,  30,  40,   50,  60};
}

std::string_view ToString(ReconcileOutcome outcome) {
  switch (outcome) {
    case ReconcileOutcome::kSuccess:
      return "success";
    case ReconcileOutcome::kError:
      return "error";
    case ReconcileOutcome::kRequeue:
      return "requeue";
    case ReconcileOutcome::kRequeueAfter:
      return "requeue_after";
  }
  return "unknown";
}

ControllerMetrics::ControllerMetrics(MetricsRegistry& r, std::string_view controller) {
  auto& total = r.Counter(kReconcileTotalMetric, "Total number of reconciliations per controller",
                          {"controller", "result"});
  for (auto o : {ReconcileOutcome::kSuccess, ReconcileOutcome::kError, ReconcileOutcome::kRequeue,
                 ReconcileOutcome::kRequeueAfter}) {
    total_[static_cast<int>(o)] = &total.With({controller, ToString(o)});
  }
  errors_ = &r.Counter(kReconcileErrorsMetric, "Total number of reconciliation errors per controller",
                       {"controller"})
                 .With({controller});
  terminal_errors_ = &r.Counter(kTerminalReconcileErrorsMetric,
                                "Total number of terminal reconciliation errors per controller",
                                {"controller"})
                          .With({controller});
  panics_ = &r.Counter(kReconcilePanicsMetric, "Total number of reconciliation panics per controller",
                       {"controller"})
                 .With({controller});
  time_ = &r.Histogram(kReconcileTimeMetric, "Length of time per reconciliation per controller",
                       {"controller"}, ReconcileTimeBuckets())
               .With({controller});
  max_concurrent_ = &r.Gauge(kMaxConcurrentReconcilesMetric,
                             "Maximum number of concurrent reconciles per controller", {"controller"})
                         .With({controller});
  active_workers_ = &r.Gauge(kActiveWorkersMetric,
                             "Number of currently used workers per controller", {"controller"})
                         .With({controller});
}

void ControllerMetrics::ObserveReconcile(ReconcileOutcome outcome, double seconds) {
  total_[static_cast<int>(outcome)]->Inc();
  if (outcome == ReconcileOutcome::kError) errors_->Inc();
  time_->Observe(seconds);
}

void ControllerMetrics::RecordTerminalError() { terminal_errors_->Inc(); }
void ControllerMetrics::RecordPanic() { panics_->Inc(); }
void ControllerMetrics::SetMaxConcurrentReconciles(int n) { max_concurrent_->Set(n); }
void ControllerMetrics::AddActiveWorkers(int delta) { active_workers_->Add(delta); }

// ---------------------------------------------------------------------------------------------

std::vector<double> RestClientDurationBuckets() { return ExponentialBuckets(0.001, 2, 10); }

RestClientMetrics::RestClientMetrics(MetricsRegistry& r)
    : requests_(r.Counter(kRestClientRequestsMetric,
                          "Number of HTTP requests, partitioned by status code, method, and host.",
                          {"code", "method", "host"})),
      duration_(r.Histogram(kRestClientDurationMetric,
                            "Request latency in seconds. Broken down by verb, and host.", {"verb", "host"},
                            RestClientDurationBuckets())) {}

void RestClientMetrics::Observe(const client::RequestSample& sample) {
  Observe(sample.verb, sample.code, sample.host, std::chrono::duration<double>(sample.latency).count());
}

void RestClientMetrics::Observe(std::string_view method, std::string_view code, std::string_view host,
                                double seconds) {
  requests_.With({code, method, host}).Inc();
  duration_.With({method, host}).Observe(seconds);
}

namespace {

class InstrumentedTransport final : public client::Transport {
 public:
  InstrumentedTransport(std::shared_ptr<client::Transport> inner, RestClientMetrics& metrics, std::string host)
      : inner_(std::move(inner)), metrics_(metrics), host_(std::move(host)) {}

  Result<client::HttpResponse> Do(const client::HttpRequest& request) override {
    const auto start = std::chrono::steady_clock::now();
    auto res = inner_->Do(request);
    Record(request.method, res.ok() ? std::to_string(res->status) : std::string("<error>"), start);
    return res;
  }

  Result<std::unique_ptr<client::ResponseStream>> Open(const client::HttpRequest& request) override {
    const auto start = std::chrono::steady_clock::now();
    auto res = inner_->Open(request);
    Record(request.method, res.ok() ? std::to_string((*res)->status()) : std::string("<error>"), start);
    return res;
  }

 private:
  void Record(const std::string& method, const std::string& code, std::chrono::steady_clock::time_point start) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    metrics_.Observe(method, code, host_, seconds);
  }

  std::shared_ptr<client::Transport> inner_;
  RestClientMetrics& metrics_;
  std::string host_;
};

}  // namespace

std::shared_ptr<client::Transport> NewInstrumentedTransport(std::shared_ptr<client::Transport> inner,
                                                            RestClientMetrics& metrics, std::string host) {
  return std::make_shared<InstrumentedTransport>(std::move(inner), metrics, std::move(host));
}

// ---------------------------------------------------------------------------------------------

std::vector<double> ReflectorListDurationBuckets() { return ExponentialBuckets(0.001, 2, 16); }
std::vector<double> ReflectorWatchDurationBuckets() { return ExponentialBuckets(1, 2, 12); }
std::vector<double> ReflectorItemsBuckets() { return ExponentialBuckets(1, 4, 10); }

namespace {

class CacheCounter final : public cache::CounterMetric {
 public:
  explicit CacheCounter(Counter& c) : c_(c) {}
  void Inc() override { c_.Inc(); }

 private:
  Counter& c_;
};

class CacheGauge final : public cache::GaugeMetric {
 public:
  explicit CacheGauge(Gauge& g) : g_(g) {}
  void Set(double v) override { g_.Set(v); }

 private:
  Gauge& g_;
};

class CacheHistogram final : public cache::HistogramMetric {
 public:
  explicit CacheHistogram(Histogram& h) : h_(h) {}
  void Observe(double v) override { h_.Observe(v); }

 private:
  Histogram& h_;
};

class InformerMetricsProvider final : public cache::MetricsProvider {
 public:
  explicit InformerMetricsProvider(MetricsRegistry& r)
      : lists_(r.Counter(cache::kReflectorListsMetric, "Total number of API lists done by the reflectors",
                         {"name"})),
        list_duration_(r.Histogram(cache::kReflectorListDurationMetric,
                                   "How long an API list takes to return and decode for the reflectors",
                                   {"name"}, ReflectorListDurationBuckets())),
        items_per_list_(r.Histogram(cache::kReflectorItemsPerListMetric,
                                    "How many items an API list returns to the reflectors", {"name"},
                                    ReflectorItemsBuckets())),
        watches_(r.Counter(cache::kReflectorWatchesMetric, "Total number of API watches done by the reflectors",
                           {"name"})),
        short_watches_(r.Counter(cache::kReflectorShortWatchesMetric,
                                 "Total number of short API watches done by the reflectors", {"name"})),
        watch_duration_(r.Histogram(cache::kReflectorWatchDurationMetric,
                                    "How long an API watch takes to return and decode for the reflectors",
                                    {"name"}, ReflectorWatchDurationBuckets())),
        items_per_watch_(r.Histogram(cache::kReflectorItemsPerWatchMetric,
                                     "How many items an API watch returns to the reflectors", {"name"},
                                     ReflectorItemsBuckets())),
        last_rv_(r.Gauge(cache::kReflectorLastResourceVersionMetric,
                         "Last resource version seen for the reflectors", {"name"})),
        expired_(r.Counter(cache::kReflectorExpiredMetric,
                           "Total number of lists and watches answered 410 Expired (or a too large "
                           "resource version), each forcing a relist",
                           {"name"})),
        store_items_(r.Gauge(cache::kInformerStoreItemsMetric, "Number of objects in the informer's cache",
                             {"name"})) {}

  std::unique_ptr<cache::CounterMetric> NewListsMetric(std::string_view n) override {
    return std::make_unique<CacheCounter>(lists_.With({n}));
  }
  std::unique_ptr<cache::HistogramMetric> NewListDurationMetric(std::string_view n) override {
    return std::make_unique<CacheHistogram>(list_duration_.With({n}));
  }
  std::unique_ptr<cache::HistogramMetric> NewItemsInListMetric(std::string_view n) override {
    return std::make_unique<CacheHistogram>(items_per_list_.With({n}));
  }
  std::unique_ptr<cache::CounterMetric> NewWatchesMetric(std::string_view n) override {
    return std::make_unique<CacheCounter>(watches_.With({n}));
  }
  std::unique_ptr<cache::CounterMetric> NewShortWatchesMetric(std::string_view n) override {
    return std::make_unique<CacheCounter>(short_watches_.With({n}));
  }
  std::unique_ptr<cache::HistogramMetric> NewWatchDurationMetric(std::string_view n) override {
    return std::make_unique<CacheHistogram>(watch_duration_.With({n}));
  }
  std::unique_ptr<cache::HistogramMetric> NewItemsInWatchMetric(std::string_view n) override {
    return std::make_unique<CacheHistogram>(items_per_watch_.With({n}));
  }
  std::unique_ptr<cache::GaugeMetric> NewLastResourceVersionMetric(std::string_view n) override {
    return std::make_unique<CacheGauge>(last_rv_.With({n}));
  }
  std::unique_ptr<cache::CounterMetric> NewExpiredMetric(std::string_view n) override {
    return std::make_unique<CacheCounter>(expired_.With({n}));
  }
  std::unique_ptr<cache::GaugeMetric> NewStoreItemsMetric(std::string_view n) override {
    return std::make_unique<CacheGauge>(store_items_.With({n}));
  }

 private:
  CounterVec& lists_;
  HistogramVec& list_duration_;
  HistogramVec& items_per_list_;
  CounterVec& watches_;
  CounterVec& short_watches_;
  HistogramVec& watch_duration_;
  HistogramVec& items_per_watch_;
  GaugeVec& last_rv_;
  CounterVec& expired_;
  GaugeVec& store_items_;
};

}  // namespace

std::unique_ptr<cache::MetricsProvider> NewInformerMetricsProvider(MetricsRegistry& registry) {
  return std::make_unique<InformerMetricsProvider>(registry);
}

}  // namespace kube::controller
