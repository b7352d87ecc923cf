// The controller runtime against the in-process API server (plain HTTP, port 0): reconcile
// semantics (retry, requeue_after, terminal errors, exceptions, per-key exclusivity with 8
// workers), owner-based enqueue, GenerationChanged filtering, the cache-reading client with
// read-your-writes, and graceful shutdown with the probe endpoint answering until the end.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <chrono>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

#include <kube/apiserver/apiserver.hpp>
#include <kube/client/rest_client.hpp>
#include <kube/kube.hpp>

#include "../apiserver/test_client.hpp"
#include "../../support/in_process_server.hpp"
#include "../../support/eventually.hpp"

namespace kube::controller {
namespace {

using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
const GroupVersionResource kDeployments{"apps", "v1", "deployments"};

using kube::test_support::Eventually;

// Counts reconciles per key.
class Calls {
 public:
  int Hit(const Request& r) {
    std::lock_guard lock(mu_);
    return ++calls_[r.String()];
  }
  int Of(const std::string& key) {
    std::lock_guard lock(mu_);
    return calls_[key];
  }

 private:
  std::mutex mu_;
  std::map<std::string, int> calls_;
};

class ControllerIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto started = test_support::StartInProcessServer([](auto& o) { o.rest.bookmark_interval = 300ms; });
    ASSERT_TRUE(started.ok()) << started.error().message;
    server_ = std::move(started->server);
    rest_ = started->rest;
  }
  void TearDown() override {
    (void)StopManager();
    mgr_.reset();
    if (server_) server_->Stop();
  }

  Manager& NewManager(ManagerOptions o = {}) {
    o.rest = rest_;
    auto m = Manager::Create(std::move(o));
    EXPECT_TRUE(m.ok()) << m.error().message;
    mgr_ = std::move(m).value();
    return *mgr_;
  }
  // Stops the manager when it goes out of scope. Reconcilers capture the test's locals by
  // reference, and gtest destroys those before TearDown: declared after them, this stops the
  // workers first (a late event would otherwise reconcile against destroyed state).
  class [[nodiscard]] RunningManager {
   public:
    explicit RunningManager(ControllerIntegrationTest& t) : t_(t) {}
    RunningManager(const RunningManager&) = delete;
    RunningManager& operator=(const RunningManager&) = delete;
    ~RunningManager() { (void)t_.StopManager(); }

   private:
    ControllerIntegrationTest& t_;
  };
  RunningManager StartManager() {
    run_ = std::async(std::launch::async, [this] { return mgr_->Start(stop_.get_token()); });
    return RunningManager(*this);
  }
  Result<void> StopManager() {
    if (!run_.valid()) return {};
    stop_.request_stop();
    return run_.get();
  }

  ObjectPtr CreateConfigMap(std::string_view name, std::string_view owners_json = "[]") {
    auto obj = Object::Parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + std::string(name) +
                             R"(","namespace":"default","ownerReferences":)" + std::string(owners_json) +
                             R"(},"data":{"k":"v"}})");
    EXPECT_TRUE(obj.ok());
    auto created = client::Api(rest_, kConfigMaps, "default").Create(**obj);
    EXPECT_TRUE(created.ok()) << created.error().message;
    return created.ok() ? *created : nullptr;
  }
  ObjectPtr CreateDeployment(std::string_view name) {
    auto obj = Object::Parse(
        R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":")" + std::string(name) +
        R"(","namespace":"default"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"x"}},)"
        R"("template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}})");
    EXPECT_TRUE(obj.ok());
    auto created = client::Api(rest_, kDeployments, "default").Create(**obj);
    EXPECT_TRUE(created.ok()) << created.error().message;
    return created.ok() ? *created : nullptr;
  }
  void PatchConfigMap(std::string_view name, std::string_view value) {
    auto r = client::Api(rest_, kConfigMaps, "default")
                 .Patch(name, PatchType::kMerge, R"({"data":{"k":")" + std::string(value) + R"("}})");
    ASSERT_TRUE(r.ok()) << r.error().message;
  }

  std::unique_ptr<apiserver::ApiServer> server_;
  std::shared_ptr<client::RestClient> rest_;
  std::unique_ptr<Manager> mgr_;
  std::stop_source stop_;
  std::future<Result<void>> run_;
};

TEST_F(ControllerIntegrationTest, ErrorIsRetriedUntilReconcileSucceeds) {
  Manager& mgr = NewManager();
  Calls calls;
  auto ctrl = ControllerManagedBy(mgr).For(kConfigMaps).Complete(
      [&](ReconcileContext&, const Request& r) -> Result<ReconcileResult> {
        if (calls.Hit(r) < 3) return InternalError("transient");
        return ReconcileResult::Done();
      });
  ASSERT_TRUE(ctrl.ok()) << ctrl.error().message;
  EXPECT_EQ((*ctrl)->Name(), "configmap");  // the For kind, lower-cased
  auto running = StartManager();
  CreateConfigMap("flaky");
  ASSERT_TRUE(Eventually([&] { return (*ctrl)->Stats().successes >= 1; }));
  EXPECT_EQ(calls.Of("default/flaky"), 3);
  EXPECT_EQ((*ctrl)->Stats().errors, 2);
  EXPECT_TRUE(StopManager().ok());
}

TEST_F(ControllerIntegrationTest, RequeueAfterReconcilesAgainWithoutEvents) {
  Manager& mgr = NewManager();
  Calls calls;
  auto ctrl = ControllerManagedBy(mgr).For(kConfigMaps).Complete(
      [&](ReconcileContext&, const Request& r) -> Result<ReconcileResult> {
        if (calls.Hit(r) < 4) return ReconcileResult::RequeueAfter(20ms);
        return ReconcileResult::Done();
      });
  ASSERT_TRUE(ctrl.ok());
  auto running = StartManager();
  CreateConfigMap("periodic");
  ASSERT_TRUE(Eventually([&] { return (*ctrl)->Stats().successes >= 1; }));
  EXPECT_EQ(calls.Of("default/periodic"), 4);
  EXPECT_EQ((*ctrl)->Stats().requeue_afters, 3);
  EXPECT_EQ((*ctrl)->Stats().errors, 0);
}

TEST_F(ControllerIntegrationTest, TerminalErrorIsNotRetriedAndExceptionIsRecovered) {
  Manager& mgr = NewManager();
  Calls calls;
  auto ctrl = ControllerManagedBy(mgr).For(kConfigMaps).Complete(
      [&](ReconcileContext&, const Request& r) -> Result<ReconcileResult> {
        const int n = calls.Hit(r);
        if (r.key.name == "invalid") return TerminalError(BadRequest("spec can never work"));
        if (r.key.name == "buggy" && n == 1) throw std::runtime_error("nil pointer, C++ style");
        return ReconcileResult::Done();
      });
  ASSERT_TRUE(ctrl.ok());
  auto running = StartManager();
  CreateConfigMap("invalid");
  CreateConfigMap("buggy");
  ASSERT_TRUE(Eventually([&] { return calls.Of("default/buggy") == 2; }));
  // One worker, FIFO: a key created afterwards is reconciled after any retry queued before it.
  CreateConfigMap("barrier");
  ASSERT_TRUE(Eventually([&] { return calls.Of("default/barrier") == 1; }));
  std::this_thread::sleep_for(100ms);  // well past the first backoffs (5 ms, 10 ms)
  EXPECT_EQ(calls.Of("default/invalid"), 1);
  EXPECT_EQ((*ctrl)->Stats().terminal_errors, 1);
  EXPECT_EQ((*ctrl)->Stats().panics, 1);
  EXPECT_EQ((*ctrl)->Stats().errors, 1);
  // The metrics registry saw them under controller-runtime's names.
  const std::string metrics = mgr.GetMetricsRegistry().Render();
  EXPECT_NE(metrics.find("controller_runtime_terminal_reconcile_errors_total{controller=\"configmap\"} 1"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("controller_runtime_reconcile_panics_total{controller=\"configmap\"} 1"), std::string::npos);
}

TEST_F(ControllerIntegrationTest, OneKeyIsNeverReconciledConcurrentlyWithEightWorkers) {
  Manager& mgr = NewManager();
  std::mutex mu;
  std::map<std::string, int> in_flight;
  std::atomic<bool> overlap{false};
  std::atomic<int> total{0};
  auto ctrl = ControllerManagedBy(mgr)
                  .For(kConfigMaps)
                  .WithOptions({.max_concurrent_reconciles = 8})
                  .Complete([&](ReconcileContext&, const Request& r) -> Result<ReconcileResult> {
                    {
                      std::lock_guard lock(mu);
                      if (++in_flight[r.String()] > 1) overlap = true;
                    }
                    std::this_thread::sleep_for(1ms);  // widen the window a second worker could use
                    {
                      std::lock_guard lock(mu);
                      --in_flight[r.String()];
                    }
                    ++total;
                    return ReconcileResult::Done();
                  });
  ASSERT_TRUE(ctrl.ok());
  auto running = StartManager();
  for (int i = 0; i < 4; ++i) CreateConfigMap("hot-" + std::to_string(i));
  for (int round = 0; round < 40; ++round) {
    for (int i = 0; i < 4; ++i) PatchConfigMap("hot-" + std::to_string(i), std::to_string(round));
  }
  ASSERT_TRUE(Eventually([&] {
    return (*ctrl)->GetQueue().Len() == 0 && (*ctrl)->Stats().active_workers == 0 && total.load() >= 4;
  }));
  EXPECT_FALSE(overlap.load());
}

TEST_F(ControllerIntegrationTest, OwnedObjectsEnqueueTheirControllerOwner) {
  Manager& mgr = NewManager();
  Calls calls;
  auto ctrl = ControllerManagedBy(mgr).For(kDeployments).Owns(kConfigMaps).Complete(
      [&](ReconcileContext&, const Request& r) -> Result<ReconcileResult> {
        calls.Hit(r);
        return ReconcileResult::Done();
      });
  ASSERT_TRUE(ctrl.ok()) << ctrl.error().message;
  auto running = StartManager();
  auto owner = CreateDeployment("web");
  ASSERT_NE(owner, nullptr);
  ASSERT_TRUE(Eventually([&] { return calls.Of("default/web") == 1; })) << calls.Of("default/web");
  const std::string ref = R"([{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":")" +
                          std::string(owner->Uid()) + R"(","controller":true}])";
  CreateConfigMap("web-config", ref);
  ASSERT_TRUE(Eventually([&] { return calls.Of("default/web") >= 2; }));
  // An update enqueues the owners of both the old and the new object; when a worker has already
  // taken the first, the second reconciles again (level-triggered: one or two reconciles).
  const int before_patch = calls.Of("default/web");
  PatchConfigMap("web-config", "changed");
  ASSERT_TRUE(Eventually([&] { return calls.Of("default/web") > before_patch; }));
  // Not a controller reference: ignored by Owns.
  CreateConfigMap("loose", R"([{"apiVersion":"apps/v1","kind":"Deployment","name":"other","uid":"u1"}])");
  CreateDeployment("barrier");
  ASSERT_TRUE(Eventually([&] { return calls.Of("default/barrier") == 1; }));
  EXPECT_EQ(calls.Of("default/other"), 0);
  EXPECT_LE(calls.Of("default/web"), before_patch + 2);
}

TEST_F(ControllerIntegrationTest, GenerationChangedFiltersStatusOnlyUpdates) {
  Manager& mgr = NewManager();
  Calls calls;
  auto ctrl = ControllerManagedBy(mgr)
                  .For(kDeployments)
                  .WithEventFilter(GenerationChanged())
                  .Complete([&](ReconcileContext&, const Request& r) -> Result<ReconcileResult> {
                    calls.Hit(r);
                    return ReconcileResult::Done();
                  });
  ASSERT_TRUE(ctrl.ok());
  auto running = StartManager();
  CreateDeployment("app");
  ASSERT_TRUE(Eventually([&] { return calls.Of("default/app") == 1; }));
  client::Api api(rest_, kDeployments, "default");
  auto status = api.Patch("app", PatchType::kMerge, R"({"status":{"observedGeneration":1,"replicas":1}})", {}, "status");
  ASSERT_TRUE(status.ok()) << status.error().message;
  const std::int64_t generation = (*status)->Generation();
  // A later key, through the same informer and queue: the status update came first.
  CreateDeployment("barrier");
  ASSERT_TRUE(Eventually([&] { return calls.Of("default/barrier") == 1; }));
  EXPECT_EQ(calls.Of("default/app"), 1);
  auto spec = api.Patch("app", PatchType::kMerge, R"({"spec":{"replicas":3}})");
  ASSERT_TRUE(spec.ok());
  EXPECT_GT((*spec)->Generation(), generation);
  ASSERT_TRUE(Eventually([&] { return calls.Of("default/app") == 2; }));
}

TEST_F(ControllerIntegrationTest, ClientReadsFromTheCacheAndReadsItsOwnWrites) {
  Manager& mgr = NewManager({.client = {.read_your_writes = true}});
  Client& c = mgr.GetClient();
  CreateConfigMap("existing");
  auto got = c.Get(kConfigMaps, {"default", "existing"});
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ((*got)->Name(), "existing");
  auto missing = c.Get(kConfigMaps, {"default", "missing"});
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(IsNotFound(missing.error()));

  // Read-your-writes: each Get right after a write sees at least that write.
  for (int i = 0; i < 20; ++i) {
    ObjectBuilder b("v1", "ConfigMap");
    b.SetName("ryw-" + std::to_string(i)).SetNamespace("default").SetLabel("batch", "ryw");
    auto obj = b.Build();
    ASSERT_TRUE(obj.ok());
    auto created = c.Create(**obj);
    ASSERT_TRUE(created.ok()) << created.error().message;
    auto read = c.Get(kConfigMaps, {"default", "ryw-" + std::to_string(i)});
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_EQ((*read)->ResourceVersion(), (*created)->ResourceVersion());
    ObjectBuilder edit(**read);
    edit.SetLabel("edited", "yes");
    auto edited = edit.Build();
    ASSERT_TRUE(edited.ok());
    auto updated = c.Update(**edited);
    ASSERT_TRUE(updated.ok()) << updated.error().message;
    auto reread = c.Get(GroupVersionKind{"", "v1", "ConfigMap"}, {"default", "ryw-" + std::to_string(i)});
    ASSERT_TRUE(reread.ok());
    EXPECT_EQ((*reread)->Labels().Get("edited"), "yes");
  }
  auto sel = LabelSelector::Parse("batch=ryw");
  ASSERT_TRUE(sel.ok());
  auto listed = c.List(kConfigMaps, {.ns = "default", .selector = *sel});
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), 20u);

  auto target = c.Get(kConfigMaps, {"default", "ryw-0"});
  ASSERT_TRUE(target.ok());
  ASSERT_TRUE(c.Delete(**target).ok());
  auto gone = c.Get(kConfigMaps, {"default", "ryw-0"});
  ASSERT_FALSE(gone.ok());
  EXPECT_TRUE(IsNotFound(gone.error()));

  // An Update that removes the last finalizer of an object being deleted deletes it: the next Get
  // must answer NotFound at once (not wait for a resourceVersion the cache will never see).
  ObjectBuilder guarded("v1", "ConfigMap");
  guarded.SetName("guarded").SetNamespace("default").AddFinalizer("example.kubecpp.io/hold");
  auto guarded_obj = guarded.Build();
  ASSERT_TRUE(guarded_obj.ok());
  auto held = c.Create(**guarded_obj);
  ASSERT_TRUE(held.ok()) << held.error().message;
  auto deleting = c.Delete(**held);
  ASSERT_TRUE(deleting.ok()) << deleting.error().message;
  auto terminating = c.Get(kConfigMaps, {"default", "guarded"});
  ASSERT_TRUE(terminating.ok()) << terminating.error().message;
  EXPECT_FALSE((*terminating)->DeletionTimestamp().empty());
  ObjectBuilder release(**terminating);
  ASSERT_TRUE(release.RemoveFinalizer("example.kubecpp.io/hold"));
  auto released = release.Build();
  ASSERT_TRUE(released.ok());
  auto upd = c.Update(**released);  // kube answers with the last stored state (finalizer still listed)
  ASSERT_TRUE(upd.ok());
  auto finalized = c.Get(kConfigMaps, {"default", "guarded"});
  ASSERT_FALSE(finalized.ok());
  EXPECT_TRUE(IsNotFound(finalized.error())) << finalized.error().message;
  // The read-your-writes wait gives up after 10 s with a Timeout; NotFound must come from the cache.
  EXPECT_FALSE(IsTimeout(finalized.error()));

  // Pods are deleted at once and the DELETE answers with the pod's last state (no
  // deletionTimestamp): that is a deletion too.
  const GroupVersionResource pods{"", "v1", "pods"};
  auto pod = Object::Parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"},
      "spec":{"containers":[{"name":"c","image":"nginx"}]}})");
  ASSERT_TRUE(pod.ok());
  auto created_pod = c.Create(**pod);
  ASSERT_TRUE(created_pod.ok()) << created_pod.error().message;
  ASSERT_TRUE(c.Get(pods, {"default", "p"}).ok());
  auto deleted_pod = c.Delete(**created_pod);
  ASSERT_TRUE(deleted_pod.ok()) << deleted_pod.error().message;
  EXPECT_EQ((*deleted_pod)->Kind(), "Pod");
  auto pod_gone = c.Get(pods, {"default", "p"});
  ASSERT_FALSE(pod_gone.ok());
  EXPECT_TRUE(IsNotFound(pod_gone.error())) << pod_gone.error().message;
}

TEST_F(ControllerIntegrationTest, ListByAFieldIndexAnswersFromTheInformerIndexRegisteredBeforeStart) {
  Manager& mgr = NewManager();
  auto by_value = [](const Object& o) {
    auto v = o.GetString("/data/k");
    return v ? std::vector<std::string>{*v} : std::vector<std::string>{};
  };
  ASSERT_TRUE(mgr.IndexField(kConfigMaps, "data.k", by_value).ok());
  auto twice = mgr.IndexField(kConfigMaps, "data.k", by_value);
  ASSERT_FALSE(twice.ok());
  EXPECT_TRUE(IsAlreadyExists(twice.error())) << twice.error().message;

  CreateConfigMap("a");  // k=v
  CreateConfigMap("b");
  PatchConfigMap("b", "w");
  auto labelled = Object::Parse(
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"kube-system","labels":{"tier":"x"}},"data":{"k":"v"}})");
  ASSERT_TRUE(labelled.ok());
  ASSERT_TRUE(client::Api(rest_, kConfigMaps, "kube-system").Create(**labelled).ok());

  Client& c = mgr.GetClient();
  auto keys = [](const std::vector<ObjectPtr>& objs) {
    std::vector<std::string> out;
    for (const auto& o : objs) out.push_back(o->Key());
    return out;
  };
  // The first read syncs the informer, so everything created above is listed.
  auto all = c.List(kConfigMaps, {.field = FieldMatch{"data.k", "v"}});
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(keys(*all), (std::vector<std::string>{"default/a", "kube-system/c"}));
  auto in_default = c.List(kConfigMaps, {.ns = "default", .field = FieldMatch{"data.k", "v"}});
  ASSERT_TRUE(in_default.ok());
  EXPECT_EQ(keys(*in_default), (std::vector<std::string>{"default/a"}));
  auto w = c.List(kConfigMaps, {.ns = "default", .field = FieldMatch{"data.k", "w"}});
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(keys(*w), (std::vector<std::string>{"default/b"}));
  auto sel = LabelSelector::Parse("tier=x");
  ASSERT_TRUE(sel.ok());
  auto with_labels = c.List(kConfigMaps, {.selector = *sel, .field = FieldMatch{"data.k", "v"}});
  ASSERT_TRUE(with_labels.ok());
  EXPECT_EQ(keys(*with_labels), (std::vector<std::string>{"kube-system/c"}));

  // The index follows the cache: a changed value moves the object.
  PatchConfigMap("a", "w");
  ASSERT_TRUE(Eventually([&] {
    auto moved = c.List(kConfigMaps, {.ns = "default", .field = FieldMatch{"data.k", "w"}});
    return moved.ok() && moved->size() == 2;
  }));

  // Unknown fields are an error; an index added once the informer runs is refused.
  auto unknown = c.List(kConfigMaps, {.field = FieldMatch{"data.other", "v"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(IsBadRequest(unknown.error()));
  EXPECT_NE(unknown.error().message.find("no index with name data.other has been registered"), std::string::npos);
  auto late = mgr.IndexField(kConfigMaps, "data.late", by_value);
  ASSERT_FALSE(late.ok());
  EXPECT_TRUE(IsConflict(late.error())) << late.error().message;
}

TEST_F(ControllerIntegrationTest, GracefulShutdownFinishesInFlightStartsNothingAndServesProbes) {
  Manager& mgr = NewManager({.probe_bind_address = "127.0.0.1:0"});
  ASSERT_TRUE(mgr.AddHealthzCheck("ping", PingCheck()).ok());
  std::promise<void> entered;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  Calls calls;
  std::atomic<bool> finished{false};
  auto ctrl = ControllerManagedBy(mgr).For(kConfigMaps).Complete(
      [&](ReconcileContext&, const Request& r) -> Result<ReconcileResult> {
        calls.Hit(r);
        if (r.key.name == "slow") {
          entered.set_value();
          released.wait();
          finished = true;
        }
        return ReconcileResult::Done();
      });
  ASSERT_TRUE(ctrl.ok());
  auto running = StartManager();
  CreateConfigMap("slow");
  entered.get_future().wait();
  CreateConfigMap("later");  // queued behind the slow one (one worker)
  ASSERT_TRUE(Eventually([&] { return (*ctrl)->GetQueue().Len() == 1; }));
  ASSERT_GT(mgr.ProbePort(), 0);
  apiserver::testing::HttpClient probe(static_cast<uint16_t>(mgr.ProbePort()));
  EXPECT_EQ(probe.Get("/healthz").status, 200);

  stop_.request_stop();
  // Shutting down, the in-flight reconcile still runs: the endpoint answers meanwhile.
  auto during = probe.Get("/metrics");
  EXPECT_EQ(during.status, 200);
  EXPECT_NE(during.body.find("controller_runtime_active_workers{controller=\"configmap\"} 1"), std::string::npos)
      << during.body;
  // The manager tells its controllers asynchronously: release the slow reconcile only once this
  // controller is shutting down, so that "nothing new starts" is what is being tested.
  ASSERT_TRUE(Eventually([&] { return (*ctrl)->GetQueue().ShuttingDown(); }));
  release.set_value();
  EXPECT_TRUE(run_.get().ok());
  EXPECT_TRUE(finished.load());
  EXPECT_EQ(calls.Of("default/later"), 0);
  EXPECT_EQ((*ctrl)->Stats().successes, 1);
}

// The value of the sample `series` (name plus labels, as rendered) in a Prometheus text page,
// or nullopt when absent.
std::optional<double> SampleValue(const std::string& page, const std::string& series) {
  const std::string prefix = series + " ";
  std::size_t pos = 0;
  while ((pos = page.find(prefix, pos)) != std::string::npos) {
    if (pos == 0 || page[pos - 1] == '\n') {
      const std::size_t end = page.find('\n', pos);
      return std::stod(page.substr(pos + prefix.size(), end - pos - prefix.size()));
    }
    pos += prefix.size();
  }
  return std::nullopt;
}

// controller-runtime's GetConfig raises client-go's 5 QPS / burst 10 to 20 / 30 for controllers;
// explicit values are kept.
TEST_F(ControllerIntegrationTest, ManagerRaisesClientGoDefaultRateLimitToControllerRuntimes) {
  const std::string host = "http://127.0.0.1:" + std::to_string(server_->port());
  auto defaults = Manager::Create({.config = {.host = host}});
  ASSERT_TRUE(defaults.ok()) << defaults.error().message;
  EXPECT_EQ((*defaults)->GetRestClient()->config().qps, kManagerDefaultQps);
  EXPECT_EQ((*defaults)->GetRestClient()->config().burst, kManagerDefaultBurst);
  EXPECT_EQ(kManagerDefaultQps, 20.0);
  EXPECT_EQ(kManagerDefaultBurst, 30);
  auto custom = Manager::Create({.config = {.host = host, .qps = 7.5, .burst = 12}});
  ASSERT_TRUE(custom.ok()) << custom.error().message;
  EXPECT_EQ((*custom)->GetRestClient()->config().qps, 7.5);
  EXPECT_EQ((*custom)->GetRestClient()->config().burst, 12);
}

// A manager built from a Config (not a shared RestClient) reports its REST requests, and its
// informers report lists, watches, the cache size and the resource version, on /metrics.
TEST_F(ControllerIntegrationTest, MetricsEndpointServesInformerAndRestClientMetrics) {
  const std::string host = "127.0.0.1:" + std::to_string(server_->port());
  auto made = Manager::Create({.config = {.host = "http://" + host, .qps = -1},
                               .probe_bind_address = "127.0.0.1:0"});
  ASSERT_TRUE(made.ok()) << made.error().message;
  mgr_ = std::move(made).value();
  Calls calls;
  auto ctrl = ControllerManagedBy(*mgr_).For(kConfigMaps).Complete(
      [&](ReconcileContext&, const Request& r) -> Result<ReconcileResult> {
        calls.Hit(r);
        return ReconcileResult::Done();
      });
  ASSERT_TRUE(ctrl.ok()) << ctrl.error().message;
  CreateConfigMap("one");
  auto running = StartManager();
  ASSERT_TRUE(Eventually([&] { return calls.Of("default/one") == 1; }));
  CreateConfigMap("two");
  ASSERT_TRUE(Eventually([&] { return calls.Of("default/two") == 1; }));
  // The watch event that carried "two" moved the resource version past the initial list's.
  const auto created = client::Api(rest_, kConfigMaps, "default").Get("two");
  ASSERT_TRUE(created.ok());
  const double two_rv = std::stod(std::string((*created)->ResourceVersion()));

  ASSERT_GT(mgr_->ProbePort(), 0);
  apiserver::testing::HttpClient probe(static_cast<uint16_t>(mgr_->ProbePort()));
  std::string page;
  ASSERT_TRUE(Eventually([&] {
    auto r = probe.Get("/metrics");
    page = r.body;
    // The reflector records the resource version right after handing the event to the cache.
    return r.status == 200 && SampleValue(page, R"(informer_store_items{name="configmaps"})") == 2.0 &&
           SampleValue(page, R"(reflector_last_resource_version{name="configmaps"})").value_or(0) >= two_rv;
  })) << page;
  EXPECT_GE(SampleValue(page, R"(reflector_lists_total{name="configmaps"})").value_or(0), 1.0) << page;
  EXPECT_GE(SampleValue(page, R"(reflector_watches_total{name="configmaps"})").value_or(0), 1.0) << page;
  EXPECT_GE(SampleValue(page, R"(reflector_list_duration_seconds_count{name="configmaps"})").value_or(0), 1.0)
      << page;
  // The initial list held "one" only (the sum over every list counts it at least once).
  EXPECT_GE(SampleValue(page, R"(reflector_items_per_list_sum{name="configmaps"})").value_or(0), 1.0) << page;
  EXPECT_EQ(SampleValue(page, R"(reflector_resource_version_expired_total{name="configmaps"})"), 0.0) << page;
  // The REST client's requests, by code, method and host: discovery and the informer's GETs.
  EXPECT_GE(SampleValue(page, R"(rest_client_requests_total{code="200",method="GET",host=")" + host + R"("})")
                .value_or(0),
            2.0)
      << page;
  EXPECT_GE(SampleValue(page, R"(rest_client_request_duration_seconds_count{verb="GET",host=")" + host + R"("})")
                .value_or(0),
            2.0)
      << page;
  // Workqueue and reconcile metrics share the page.
  EXPECT_EQ(SampleValue(page, R"(controller_runtime_reconcile_total{controller="configmap",result="success"})"), 2.0)
      << page;
  EXPECT_TRUE(SampleValue(page, R"(workqueue_adds_total{name="configmap"})").has_value()) << page;
  EXPECT_TRUE(StopManager().ok());
}

// Three managers with leader election share one Lease: at every moment at most one runs its
// leader-gated runnable; each term has its own fencing token; stopping the leader hands over.
TEST_F(ControllerIntegrationTest, ThreeManagersElectOneLeaderAndHandOverWhenItStops) {
  struct Term {
    int manager;
    SteadyClock::time_point start, end;
    std::string fencing;
  };
  std::mutex mu;
  std::vector<Term> terms;  // guarded by mu
  std::atomic<int> acting{0};
  std::atomic<bool> overlap{false};
  std::vector<std::unique_ptr<Manager>> managers;
  std::vector<std::stop_source> stops(3);
  std::vector<std::future<Result<void>>> runs;
  // On an early return (a failed ASSERT), stop every manager before `runs` waits for them.
  struct StopAll {
    std::vector<std::stop_source>& sources;
    ~StopAll() {
      for (auto& s : sources) s.request_stop();
    }
  } stop_all{stops};
  for (int m = 0; m < 3; ++m) {
    ManagerOptions o;
    o.rest = rest_;
    o.leader_election = {.enabled = true,
                         .id = "bench-leader",
                         .identity = "manager-" + std::to_string(m),
                         // Generous deadlines: a fencing token is only handed out while the
                         // last renewal is younger than renew_deadline, and under TSan on a busy
                         // machine one acquire can take longer than a second. The handover
                         // below goes through the release on shutdown, not through expiry.
                         .lease_duration = 6000ms,
                         .renew_deadline = 4000ms,
                         .retry_period = 200ms};
    auto made = Manager::Create(std::move(o));
    ASSERT_TRUE(made.ok()) << made.error().message;
    Manager* mgr = made->get();
    auto added = mgr->Add(std::make_shared<RunnableFunc>([&, m, mgr](std::stop_token stop) -> Result<void> {
      if (acting.fetch_add(1) != 0) overlap = true;
      const auto token = mgr->GetFencingToken();
      Term t{m, SteadyClock::now(), {}, token ? token->ToString() : "none"};
      std::mutex wait_mu;
      std::condition_variable_any cv;
      std::unique_lock lock(wait_mu);
      cv.wait(lock, stop, [] { return false; });
      acting.fetch_sub(1);
      t.end = SteadyClock::now();
      std::lock_guard g(mu);
      terms.push_back(t);
      return {};
    }));
    ASSERT_TRUE(added.ok());
    managers.push_back(std::move(made).value());
  }
  for (int m = 0; m < 3; ++m) {
    runs.push_back(std::async(std::launch::async,
                              [&, m] { return managers[m]->Start(stops[m].get_token()); }));
  }
  auto leader = [&]() -> int {
    for (int m = 0; m < 3; ++m) {
      if (managers[m]->IsLeader()) return m;
    }
    return -1;
  };
  ASSERT_TRUE(Eventually([&] { return leader() >= 0; }));
  const int first = leader();
  const auto token1 = managers[first]->GetFencingToken();
  ASSERT_TRUE(token1.has_value());
  EXPECT_EQ(token1->holder_identity, "manager-" + std::to_string(first));
  // Stop the leader (it releases the lease on a clean shutdown); another one takes over.
  stops[first].request_stop();
  ASSERT_TRUE(runs[first].get().ok());
  ASSERT_TRUE(Eventually([&] {
    const int l = leader();
    return l >= 0 && l != first;
  }));
  const int second = leader();
  const auto token2 = managers[second]->GetFencingToken();
  ASSERT_TRUE(token2.has_value());
  EXPECT_EQ(token2->holder_identity, "manager-" + std::to_string(second));
  EXPECT_GT(token2->lease_transitions, token1->lease_transitions);
  for (int m = 0; m < 3; ++m) {
    if (m == first) continue;
    stops[m].request_stop();
    EXPECT_TRUE(runs[m].get().ok());
  }
  EXPECT_FALSE(overlap.load());
  std::lock_guard g(mu);
  ASSERT_EQ(terms.size(), 2u);
  std::sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) { return a.start < b.start; });
  EXPECT_LE(terms[0].end, terms[1].start);  // the second term starts after the first ended
  EXPECT_NE(terms[0].fencing, terms[1].fencing);
  EXPECT_EQ(terms[0].manager, first);
  EXPECT_EQ(terms[1].manager, second);
  EXPECT_FALSE(managers[first]->GetFencingToken().has_value());
}

}  // namespace
}  // namespace kube::controller
