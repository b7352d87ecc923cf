#include <kube/controller/metrics.hpp>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <kube/base/clock.hpp>
#include <kube/client/fake_transport.hpp>
#include <kube/workqueue/queue.hpp>

namespace kube::controller {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(MetricsRegistry, RendersCounterWithHelpTypeAndSortedChildren) {
  MetricsRegistry r;
  auto& c = r.Counter("jobs_total", "Jobs done.", {"queue"});
  c.With({"slow"}).Inc(2);
  c.With({"fast"}).Inc();
  EXPECT_EQ(r.Render(),
            "# HELP jobs_total Jobs done.\n"
            "# TYPE jobs_total counter\n"
            "jobs_total{queue=\"fast\"} 1\n"
            "jobs_total{queue=\"slow\"} 2\n");
}

TEST(MetricsRegistry, FamiliesAreSortedByNameAndUnlabelledSamplesHaveNoBraces) {
  MetricsRegistry r;
  r.Gauge("zeta", "z").With({}).Set(1.5);
  r.Counter("alpha_total", "a").With({}).Inc();
  EXPECT_EQ(r.Render(),
            "# HELP alpha_total a\n# TYPE alpha_total counter\nalpha_total 1\n"
            "# HELP zeta z\n# TYPE zeta gauge\nzeta 1.5\n");
}

TEST(MetricsRegistry, EscapesHelpAndLabelValues) {
  MetricsRegistry r;
  r.Counter("esc_total", "line1\nback\\slash \"quoted\"", {"l"}).With({"a\"b\\c\nd"}).Inc();
  const std::string text = r.Render();
  EXPECT_THAT(text, HasSubstr("# HELP esc_total line1\\nback\\\\slash \"quoted\"\n"));
  EXPECT_THAT(text, HasSubstr("esc_total{l=\"a\\\"b\\\\c\\nd\"} 1\n"));
}

TEST(MetricsRegistry, HistogramRendersCumulativeBucketsSumAndCount) {
  MetricsRegistry r;
  auto& h = r.Histogram("lat_seconds", "Latency.", {"verb"}, {0.1, 1});
  auto& get = h.With({"GET"});
  get.Observe(0.05);
  get.Observe(0.1);  // le is inclusive
  get.Observe(0.5);
  get.Observe(7);
  EXPECT_EQ(r.Render(),
            "# HELP lat_seconds Latency.\n"
            "# TYPE lat_seconds histogram\n"
            "lat_seconds_bucket{verb=\"GET\",le=\"0.1\"} 2\n"
            "lat_seconds_bucket{verb=\"GET\",le=\"1\"} 3\n"
            "lat_seconds_bucket{verb=\"GET\",le=\"+Inf\"} 4\n"
            "lat_seconds_sum{verb=\"GET\"} 7.65\n"
            "lat_seconds_count{verb=\"GET\"} 4\n");
}

TEST(MetricsRegistry, SpecialValuesUsePrometheusSpelling) {
  MetricsRegistry r;
  auto& g = r.Gauge("g", "g", {"k"});
  g.With({"inf"}).Set(std::numeric_limits<double>::infinity());
  g.With({"ninf"}).Set(-std::numeric_limits<double>::infinity());
  g.With({"nan"}).Set(std::numeric_limits<double>::quiet_NaN());
  const std::string text = r.Render();
  EXPECT_THAT(text, HasSubstr("g{k=\"inf\"} +Inf\n"));
  EXPECT_THAT(text, HasSubstr("g{k=\"ninf\"} -Inf\n"));
  EXPECT_THAT(text, HasSubstr("g{k=\"nan\"} NaN\n"));
}

TEST(MetricsRegistry, ReRegistrationReturnsTheSameFamilyAndChildrenAreStable) {
  MetricsRegistry r;
  auto& a = r.Counter("x_total", "x", {"l"});
  auto& b = r.Counter("x_total", "x", {"l"});
  EXPECT_EQ(&a, &b);
  Counter& child = a.With({"v"});
  for (int i = 0; i < 100; ++i) a.With({"v" + std::to_string(i)});
  EXPECT_EQ(&child, &b.With({"v"}));
}

TEST(MetricsRegistryDeathTest, ConflictingRegistrationAborts) {
  MetricsRegistry r;
  (void)r.Counter("x_total", "x", {"l"});
  EXPECT_DEATH((void)r.Gauge("x_total", "x", {"l"}), "already registered");
  EXPECT_DEATH((void)r.Counter("x_total", "x", {"other"}), "already registered");
  EXPECT_DEATH((void)r.Counter("bad-name", "x"), "invalid metric name");
  EXPECT_DEATH((void)r.Counter("y_total", "y", {"le"}), "invalid label name");
  EXPECT_DEATH((void)r.Counter("x_total", "x", {"l"}).With({"a", "b"}), "label values");
}

TEST(MetricsRegistry, CounterIgnoresNegativeIncrements) {
  Counter c;
  c.Inc(3);
  c.Inc(-1);
  EXPECT_EQ(c.Value(), 3);
}

TEST(MetricsRegistry, GaugeFuncIsEvaluatedAtRenderTimeAndExceptionsRenderNaN) {
  MetricsRegistry r;
  int calls = 0;
  r.GaugeFunc("items", "Items.", [&] { return static_cast<double>(++calls); });
  r.GaugeFunc("broken", "Broken.", []() -> double { throw std::runtime_error("x"); });
  EXPECT_THAT(r.Render(), HasSubstr("\nitems 1\n"));
  const std::string second = r.Render();
  EXPECT_THAT(second, HasSubstr("\nitems 2\n"));
  EXPECT_THAT(second, HasSubstr("\nbroken NaN\n"));
  // Sorted with the families: broken < items.
  EXPECT_LT(second.find("broken"), second.find("items"));
}

TEST(MetricsRegistry, ConcurrentIncrementsAreNotLost) {
  MetricsRegistry r;
  auto& vec = r.Counter("c_total", "c", {"k"});
  auto& h = r.Histogram("h", "h", {}, {1});
  std::vector<std::jthread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        vec.With({"k"}).Inc();
        h.With({}).Observe(0.5);
      }
    });
  }
  threads.clear();
  EXPECT_EQ(vec.With({"k"}).Value(), 40000);
  const auto s = h.With({}).Read();
  EXPECT_EQ(s.count, 40000u);
  EXPECT_EQ(s.cumulative[0], 40000u);
  EXPECT_DOUBLE_EQ(s.sum, 20000);
}

TEST(MetricsRegistry, ExponentialBucketsMatchPrometheus) {
  EXPECT_THAT(ExponentialBuckets(1, 2, 4), ::testing::ElementsAre(1, 2, 4, 8));
  const auto wq = WorkqueueDurationBuckets();
  ASSERT_EQ(wq.size(), 10u);
  EXPECT_DOUBLE_EQ(wq.front(), 1e-8);
  EXPECT_NEAR(wq.back(), 10, 1e-9);
}

TEST(WorkqueueMetricsProvider, QueueReportsUnderClientGoNames) {
  MetricsRegistry r;
  auto provider = NewWorkqueueMetricsProvider(r);
  FakeClock clock;
  {
    workqueue::Queue<std::string> q({.name = "pods", .metrics_provider = provider.get(),
                                     .unfinished_work_update_period = Clock::Duration::zero()},
                                    clock);
    q.Add("a");
    q.Add("b");
    q.Add("a");  // stingy: not an add
    clock.Advance(std::chrono::seconds(2));
    auto item = q.Get();
    ASSERT_TRUE(item.has_value());
    clock.Advance(std::chrono::seconds(3));
    q.UpdateUnfinishedWork();
    const std::string mid = r.Render();
    EXPECT_THAT(mid, HasSubstr("workqueue_depth{name=\"pods\"} 1\n"));
    EXPECT_THAT(mid, HasSubstr("workqueue_adds_total{name=\"pods\"} 2\n"));
    EXPECT_THAT(mid, HasSubstr("workqueue_unfinished_work_seconds{name=\"pods\"} 3\n"));
    EXPECT_THAT(mid, HasSubstr("workqueue_longest_running_processor_seconds{name=\"pods\"} 3\n"));
    EXPECT_THAT(mid, HasSubstr("workqueue_queue_duration_seconds_count{name=\"pods\"} 1\n"));
    EXPECT_THAT(mid, HasSubstr("workqueue_queue_duration_seconds_sum{name=\"pods\"} 2\n"));
    q.Done(*item);
    const std::string done = r.Render();
    EXPECT_THAT(done, HasSubstr("workqueue_work_duration_seconds_sum{name=\"pods\"} 3\n"));
    EXPECT_THAT(done, HasSubstr("# TYPE workqueue_retries_total counter\n"));
  }
}

TEST(ControllerMetrics, InitialisesEveryResultAndCountsOutcomes) {
  MetricsRegistry r;
  ControllerMetrics m(r, "pods");
  const std::string initial = r.Render();
  for (std::string_view result : {"success", "error", "requeue", "requeue_after"}) {
    EXPECT_THAT(initial, HasSubstr("controller_runtime_reconcile_total{controller=\"pods\",result=\"" +
                                   std::string(result) + "\"} 0\n"));
  }
  m.ObserveReconcile(ReconcileOutcome::kSuccess, 0.01);
  m.ObserveReconcile(ReconcileOutcome::kError, 0.02);
  m.RecordTerminalError();
  m.ObserveReconcile(ReconcileOutcome::kError, 0.02);
  m.RecordPanic();
  m.ObserveReconcile(ReconcileOutcome::kRequeueAfter, 0.5);
  m.SetMaxConcurrentReconciles(4);
  m.AddActiveWorkers(1);
  m.AddActiveWorkers(1);
  m.AddActiveWorkers(-1);
  const std::string text = r.Render();
  EXPECT_THAT(text, HasSubstr("controller_runtime_reconcile_total{controller=\"pods\",result=\"success\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("controller_runtime_reconcile_total{controller=\"pods\",result=\"error\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("controller_runtime_reconcile_total{controller=\"pods\",result=\"requeue_after\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("controller_runtime_reconcile_errors_total{controller=\"pods\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("controller_runtime_terminal_reconcile_errors_total{controller=\"pods\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("controller_runtime_reconcile_panics_total{controller=\"pods\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("controller_runtime_reconcile_time_seconds_count{controller=\"pods\"} 4\n"));
  EXPECT_THAT(text, HasSubstr("controller_runtime_reconcile_time_seconds_bucket{controller=\"pods\",le=\"60\"} 4\n"));
  EXPECT_THAT(text, HasSubstr("controller_runtime_max_concurrent_reconciles{controller=\"pods\"} 4\n"));
  EXPECT_THAT(text, HasSubstr("controller_runtime_active_workers{controller=\"pods\"} 1\n"));
  // A second controller shares the families.
  ControllerMetrics other(r, "nodes");
  other.ObserveReconcile(ReconcileOutcome::kRequeue, 0.001);
  EXPECT_THAT(r.Render(), HasSubstr("controller_runtime_reconcile_total{controller=\"nodes\",result=\"requeue\"} 1\n"));
}

TEST(RestClientMetrics, InstrumentedTransportCountsCodesMethodsAndErrors) {
  MetricsRegistry r;
  RestClientMetrics metrics(r);
  auto fake = std::make_shared<client::FakeTransport>();
  fake->EnqueueJson(200, "{}");
  fake->EnqueueJson(404, "{}");
  fake->Enqueue(TransportError("refused"));
  auto transport = NewInstrumentedTransport(fake, metrics, "10.0.0.1:6443");
  client::HttpRequest get{.method = "GET", .target = "/api/v1/pods", .headers = {}, .body = {}, .timeout = {}};
  EXPECT_TRUE(transport->Do(get).ok());
  EXPECT_TRUE(transport->Do(get).ok());
  client::HttpRequest post = get;
  post.method = "POST";
  EXPECT_FALSE(transport->Do(post).ok());
  EXPECT_EQ(fake->RequestCount(), 3u);
  const std::string text = r.Render();
  EXPECT_THAT(text, HasSubstr("rest_client_requests_total{code=\"200\",method=\"GET\",host=\"10.0.0.1:6443\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("rest_client_requests_total{code=\"404\",method=\"GET\",host=\"10.0.0.1:6443\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("rest_client_requests_total{code=\"<error>\",method=\"POST\",host=\"10.0.0.1:6443\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("rest_client_request_duration_seconds_count{verb=\"GET\",host=\"10.0.0.1:6443\"} 2\n"));
  EXPECT_THAT(text, Not(HasSubstr("verb=\"PUT\"")));
}

}  // namespace
}  // namespace kube::controller
