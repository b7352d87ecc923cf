// The metrics hooks of kube::cache (reflector / informer) and kube::client (RestClient) rendered
// by the controller runtime's registry, and the informer's sync notification (OnSynced).
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <kube/base/clock.hpp>
#include <kube/cache/lister_watcher.hpp>
#include <kube/cache/reflector.hpp>
#include <kube/cache/shared_informer.hpp>
#include <kube/client/fake_transport.hpp>
#include <kube/client/rest_client.hpp>
#include <kube/client/watch.hpp>
#include <kube/controller/metrics.hpp>
#include <kube/core/status.hpp>

#include "cache/test_objects.hpp"

namespace kube::controller {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;

// Real-time wait for a condition changed by other threads (no clock is involved).
bool Eventually(const std::function<bool()>& cond) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!cond()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

// Records what a reflector writes, so that a test can wait for it.
class CountingStore final : public cache::ReflectorStore {
 public:
  Result<void> Add(const ObjectPtr&) override { return Bump(); }
  Result<void> Update(const ObjectPtr&) override { return Bump(); }
  Result<void> Delete(const ObjectPtr&) override { return Bump(); }
  Result<void> Replace(std::vector<ObjectPtr>, std::string_view) override { return Bump(); }
  int Calls() const { return calls_.load(); }

 private:
  Result<void> Bump() {
    calls_.fetch_add(1);
    return Ok();
  }
  std::atomic<int> calls_{0};
};

bool Has(const std::string& text, const std::string& line) { return text.find(line) != std::string::npos; }

TEST(InformerMetrics, ReflectorReportsListsWatchesItemsResourceVersionAndExpiry) {
  MetricsRegistry registry;
  auto provider = NewInformerMetricsProvider(registry);
  FakeClock clock;
  cache::FakeListerWatcher lw;
  CountingStore store;
  lw.AddListResult(cache::MakeObjectList({cache::testing::Obj("n", "a", "3"), cache::testing::Obj("n", "b", "4")}, "10"));
  cache::ReflectorOptions o;
  o.name = "cms";
  o.use_watch_list = false;
  o.clock = &clock;
  o.rand = [] { return 0.0; };
  o.backoff.rand = [] { return 0.0; };
  o.metrics = provider.get();
  cache::Reflector reflector(lw, store, o);
  std::jthread run([&](std::stop_token st) { reflector.Run(st); });

  auto w1 = lw.WaitForWatch(1);
  ASSERT_TRUE(w1);
  std::string text = registry.Render();
  EXPECT_TRUE(Has(text, "reflector_lists_total{name=\"cms\"} 1\n")) << text;
  EXPECT_TRUE(Has(text, "reflector_items_per_list_sum{name=\"cms\"} 2\n")) << text;
  EXPECT_TRUE(Has(text, "reflector_list_duration_seconds_count{name=\"cms\"} 1\n")) << text;
  EXPECT_TRUE(Has(text, "reflector_watches_total{name=\"cms\"} 1\n")) << text;
  EXPECT_TRUE(Has(text, "reflector_last_resource_version{name=\"cms\"} 10\n")) << text;

  // Three events over 90 s of (fake) time, then the server closes the watch normally.
  w1->Push(WatchEventType::kAdded, R"({"metadata":{"name":"c","namespace":"n","resourceVersion":"11"}})");
  w1->Push(WatchEventType::kModified, R"({"metadata":{"name":"c","namespace":"n","resourceVersion":"12"}})");
  w1->Push(WatchEventType::kBookmark, R"({"metadata":{"resourceVersion":"15"}})");
  ASSERT_TRUE(Eventually([&] { return store.Calls() == 3; }));
  clock.Advance(90s);
  w1->End();
  auto w2 = lw.WaitForWatch(2);
  ASSERT_TRUE(w2);
  text = registry.Render();
  EXPECT_TRUE(Has(text, "reflector_watches_total{name=\"cms\"} 2\n")) << text;
  EXPECT_TRUE(Has(text, "reflector_items_per_watch_sum{name=\"cms\"} 3\n")) << text;
  EXPECT_TRUE(Has(text, "reflector_watch_duration_seconds_sum{name=\"cms\"} 90\n")) << text;
  EXPECT_TRUE(Has(text, "reflector_last_resource_version{name=\"cms\"} 15\n")) << text;
  EXPECT_TRUE(Has(text, "reflector_resource_version_expired_total{name=\"cms\"} 0\n")) << text;

  // 410 Expired in the watch: counted, and the reflector relists (after its backoff).
  lw.AddListResult(cache::MakeObjectList({cache::testing::Obj("n", "a", "20")}, "20"));
  w2->Fail(MakeError(410, reason::kExpired, "too old resource version: 15 (20)"));
  ASSERT_TRUE(clock.BlockUntilWaiters(1));
  clock.Advance(1min);
  ASSERT_TRUE(lw.WaitForWatch(3));
  text = registry.Render();
  EXPECT_TRUE(Has(text, "reflector_resource_version_expired_total{name=\"cms\"} 1\n")) << text;
  EXPECT_TRUE(Has(text, "reflector_lists_total{name=\"cms\"} 2\n")) << text;
  EXPECT_TRUE(Has(text, "reflector_last_resource_version{name=\"cms\"} 20\n")) << text;
  EXPECT_TRUE(Has(text, "reflector_short_watches_total{name=\"cms\"} 0\n")) << text;
  run.request_stop();
  for (auto& s : lw.Streams()) s->Stop();
}

TEST(InformerMetrics, ShortEmptyWatchIsCounted) {
  MetricsRegistry registry;
  auto provider = NewInformerMetricsProvider(registry);
  FakeClock clock;
  cache::FakeListerWatcher lw;
  CountingStore store;
  lw.AddListResult(cache::MakeObjectList({}, "5"));
  cache::ReflectorOptions o;
  o.name = "short";
  o.use_watch_list = false;
  o.clock = &clock;
  o.backoff.rand = [] { return 0.0; };
  o.metrics = provider.get();
  cache::Reflector reflector(lw, store, o);
  std::jthread run([&](std::stop_token st) { reflector.Run(st); });
  auto w1 = lw.WaitForWatch(1);
  ASSERT_TRUE(w1);
  w1->End();  // no event, no time: a "very short watch"
  ASSERT_TRUE(clock.BlockUntilWaiters(1));
  const std::string text = registry.Render();
  EXPECT_TRUE(Has(text, "reflector_short_watches_total{name=\"short\"} 1\n")) << text;
  EXPECT_TRUE(Has(text, "reflector_items_per_watch_sum{name=\"short\"} 0\n")) << text;
  run.request_stop();
}

TEST(InformerMetrics, ProviderWithoutRegistryFamiliesSwitchesMetricsOff) {
  // The base provider hands out no handles: a reflector with it works and reports nothing.
  cache::MetricsProvider none;
  FakeClock clock;
  cache::FakeListerWatcher lw;
  CountingStore store;
  lw.AddListResult(cache::MakeObjectList({cache::testing::Obj("n", "a", "3")}, "7"));
  cache::ReflectorOptions o;
  o.use_watch_list = false;
  o.clock = &clock;
  o.metrics = &none;
  cache::Reflector reflector(lw, store, o);
  std::jthread run([&](std::stop_token st) { reflector.Run(st); });
  ASSERT_TRUE(lw.WaitForWatch(1));
  EXPECT_EQ(reflector.LastSyncResourceVersion(), "7");
  EXPECT_EQ(store.Calls(), 1);
  run.request_stop();
  for (auto& s : lw.Streams()) s->Stop();
}

struct InformerFixture {
  MetricsRegistry registry;
  std::unique_ptr<cache::MetricsProvider> provider = NewInformerMetricsProvider(registry);
  FakeClock clock;
  std::shared_ptr<cache::FakeListerWatcher> lw = std::make_shared<cache::FakeListerWatcher>();
  std::unique_ptr<cache::SharedIndexInformer> informer;
  std::jthread thread;

  void Make() {
    cache::InformerOptions o;
    o.name = "configmaps";
    o.clock = &clock;
    o.reflector.use_watch_list = false;
    o.reflector.metrics = provider.get();
    informer = std::make_unique<cache::SharedIndexInformer>(lw, o);
  }
  void Run() {
    thread = std::jthread([this](std::stop_token st) { informer->Run(st); });
  }
  ~InformerFixture() {
    thread.request_stop();
    for (auto& s : lw->Streams()) s->Stop();
    if (thread.joinable()) thread.join();
  }
};

TEST(InformerMetrics, StoreItemsFollowsTheCache) {
  InformerFixture f;
  f.lw->AddListResult(cache::MakeObjectList({cache::testing::Obj("n", "a", "3"), cache::testing::Obj("n", "b", "4")}, "10"));
  f.Make();
  f.Run();
  auto w = f.lw->WaitForWatch(1);
  ASSERT_TRUE(w);
  ASSERT_TRUE(Eventually([&] { return Has(f.registry.Render(), "informer_store_items{name=\"configmaps\"} 2\n"); }))
      << f.registry.Render();
  w->Push(WatchEventType::kDeleted, R"({"metadata":{"name":"a","namespace":"n","resourceVersion":"11"}})");
  ASSERT_TRUE(Eventually([&] { return Has(f.registry.Render(), "informer_store_items{name=\"configmaps\"} 1\n"); }))
      << f.registry.Render();
  EXPECT_TRUE(Has(f.registry.Render(), "reflector_lists_total{name=\"configmaps\"} 1\n"));
}

// ---- HandlerRegistration::OnSynced ----

class SyncCounter {
 public:
  std::function<void()> Callback() {
    return [this] { calls_.fetch_add(1); };
  }
  int Calls() const { return calls_.load(); }

 private:
  std::atomic<int> calls_{0};
};

TEST(InformerSync, OnSyncedFiresOnceAfterTheHandlerProcessedTheInitialList) {
  InformerFixture f;
  f.lw->AddListResult(cache::MakeObjectList({cache::testing::Obj("n", "a", "3"), cache::testing::Obj("n", "b", "4")}, "10"));
  f.Make();
  std::atomic<bool> release{false};
  std::atomic<int> adds{0};
  auto handler = std::make_shared<cache::ResourceEventHandlerFuncs>();
  handler->add = [&](const ObjectPtr&, bool) {
    while (!release.load()) std::this_thread::yield();  // holds the initial list back
    adds.fetch_add(1);
  };
  auto reg = f.informer->AddEventHandler(handler);
  ASSERT_TRUE(reg.ok());
  SyncCounter synced;
  std::atomic<bool> was_synced_when_called{false};
  (*reg)->OnSynced([&, r = *reg] {
    was_synced_when_called = r->HasSynced();
    synced.Callback()();
  });
  f.Run();
  ASSERT_TRUE(Eventually([&] { return f.informer->HasSynced(); }));
  EXPECT_EQ(synced.Calls(), 0);  // the informer synced, the handler has not caught up
  EXPECT_FALSE((*reg)->HasSynced());
  release = true;
  ASSERT_TRUE(Eventually([&] { return synced.Calls() == 1; }));
  EXPECT_TRUE(was_synced_when_called.load());
  EXPECT_EQ(adds.load(), 2);
  // Later events do not call it again; a callback added now runs at once, on this thread.
  auto w = f.lw->WaitForWatch(1);
  ASSERT_TRUE(w);
  w->Push(WatchEventType::kAdded, R"({"metadata":{"name":"c","namespace":"n","resourceVersion":"11"}})");
  ASSERT_TRUE(Eventually([&] { return adds.load() == 3; }));
  EXPECT_EQ(synced.Calls(), 1);
  const std::thread::id me = std::this_thread::get_id();
  std::thread::id ran_on;
  (*reg)->OnSynced([&] { ran_on = std::this_thread::get_id(); });
  EXPECT_EQ(ran_on, me);
}

TEST(InformerSync, OnSyncedFiresForAnEmptyInitialList) {
  // Nothing is popped from the FIFO: the sync is announced from the reflector's Replace.
  InformerFixture f;
  f.lw->AddListResult(cache::MakeObjectList({}, "10"));
  f.Make();
  auto reg = f.informer->AddEventHandler(std::make_shared<cache::ResourceEventHandlerFuncs>());
  ASSERT_TRUE(reg.ok());
  SyncCounter synced;
  (*reg)->OnSynced(synced.Callback());
  f.Run();
  ASSERT_TRUE(Eventually([&] { return synced.Calls() == 1; }));
  EXPECT_TRUE((*reg)->HasSynced());
}

TEST(InformerSync, HandlerAddedAfterTheSyncOfAnEmptyCacheIsNotified) {
  InformerFixture f;
  f.lw->AddListResult(cache::MakeObjectList({}, "10"));
  f.Make();
  f.Run();
  ASSERT_TRUE(Eventually([&] { return f.informer->HasSynced(); }));
  auto reg = f.informer->AddEventHandler(std::make_shared<cache::ResourceEventHandlerFuncs>());
  ASSERT_TRUE(reg.ok());
  SyncCounter synced;
  (*reg)->OnSynced(synced.Callback());
  ASSERT_TRUE(Eventually([&] { return synced.Calls() == 1; }));
}

TEST(InformerSync, RemovedHandlerIsNeverNotified) {
  InformerFixture f;
  f.lw->AddListResult(MakeError(500, reason::kInternalError, "not yet"));
  f.Make();
  auto reg = f.informer->AddEventHandler(std::make_shared<cache::ResourceEventHandlerFuncs>());
  ASSERT_TRUE(reg.ok());
  SyncCounter synced;
  (*reg)->OnSynced(synced.Callback());
  f.Run();
  ASSERT_TRUE(f.lw->WaitForLists(1));
  ASSERT_TRUE(f.informer->RemoveEventHandler(*reg).ok());
  f.lw->AddListResult(cache::MakeObjectList({}, "10"));
  ASSERT_TRUE(f.clock.BlockUntilWaiters(1));  // the reflector's backoff
  f.clock.Advance(1min);
  ASSERT_TRUE(Eventually([&] { return f.informer->HasSynced(); }));
  auto other = f.informer->AddEventHandler(std::make_shared<cache::ResourceEventHandlerFuncs>());
  ASSERT_TRUE(other.ok());
  SyncCounter other_synced;
  (*other)->OnSynced(other_synced.Callback());
  ASSERT_TRUE(Eventually([&] { return other_synced.Calls() == 1; }));
  EXPECT_EQ(synced.Calls(), 0);
}

// ---- REST client hook ----

TEST(RestClientRequestMetrics, EveryAttemptIsReportedWithVerbHostCodeAndClockLatency) {
  MetricsRegistry registry;
  auto metrics = std::make_shared<RestClientMetrics>(registry);
  FakeClock clock;
  auto transport = std::make_shared<client::FakeTransport>();
  auto rest = client::RestClient::Create({.host = "https://10.0.0.1:6443/prefix", .qps = -1},
                                         {.clock = &clock, .transport = transport, .metrics = metrics});
  ASSERT_TRUE(rest.ok()) << rest.error().message;

  // A 429 with Retry-After, then the retry succeeds: two attempts.
  transport->Enqueue(client::HttpResponse{429, {{"Content-Type", "text/plain"}, {"Retry-After", "1"}}, "slow"});
  transport->EnqueueJson(200, "{}");
  Result<client::HttpResponse> got = MakeError(0, "", "unset");
  std::jthread caller([&] { got = (*rest)->Do({.path = "/api/v1/pods"}); });
  ASSERT_TRUE(clock.BlockUntilWaiters(1));
  clock.Advance(1s);
  caller.join();
  ASSERT_TRUE(got.ok()) << got.error().message;

  // The latency is measured on the client's clock: the transport takes 250 ms of it.
  transport->SetHandler([&](const client::HttpRequest&) -> Result<client::HttpResponse> {
    clock.Advance(250ms);
    return client::HttpResponse{404, {{"Content-Type", "text/plain"}}, "nope"};
  });
  EXPECT_FALSE((*rest)->Do({.method = "DELETE", .path = "/api/v1/namespaces/a/pods/x"}).ok());

  // A transport error is code "<error>".
  transport->SetHandler(nullptr);
  transport->Enqueue(client::MakeTransportError(client::transport_cause::kConnectFailed, "refused"));
  EXPECT_FALSE((*rest)->Do({.method = "POST", .path = "/api/v1/pods", .body = "{}"}).ok());

  const std::string text = registry.Render();
  EXPECT_THAT(text, HasSubstr("rest_client_requests_total{code=\"429\",method=\"GET\",host=\"10.0.0.1:6443\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("rest_client_requests_total{code=\"200\",method=\"GET\",host=\"10.0.0.1:6443\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("rest_client_requests_total{code=\"404\",method=\"DELETE\",host=\"10.0.0.1:6443\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("rest_client_requests_total{code=\"<error>\",method=\"POST\",host=\"10.0.0.1:6443\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("rest_client_request_duration_seconds_count{verb=\"GET\",host=\"10.0.0.1:6443\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("rest_client_request_duration_seconds_sum{verb=\"DELETE\",host=\"10.0.0.1:6443\"} 0.25\n"));
  EXPECT_THAT(text, HasSubstr("rest_client_request_duration_seconds_bucket{verb=\"DELETE\",host=\"10.0.0.1:6443\",le=\"0.128\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("rest_client_request_duration_seconds_bucket{verb=\"DELETE\",host=\"10.0.0.1:6443\",le=\"0.256\"} 1\n"));
  EXPECT_THAT(text, Not(HasSubstr("prefix")));
}

TEST(RestClientRequestMetrics, WatchAttemptsAreReported) {
  MetricsRegistry registry;
  auto metrics = std::make_shared<RestClientMetrics>(registry);
  FakeClock clock;
  auto transport = std::make_shared<client::FakeTransport>();
  auto rest = client::RestClient::Create({.host = "http://127.0.0.1:8080", .qps = -1},
                                         {.clock = &clock, .transport = transport, .metrics = metrics});
  ASSERT_TRUE(rest.ok());
  auto script = transport->EnqueueStream(200, {{"Content-Type", "application/json"}});
  auto w = (*rest)->Watch({.path = "/api/v1/pods", .query = "watch=true"});
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_THAT(registry.Render(),
              HasSubstr("rest_client_requests_total{code=\"200\",method=\"GET\",host=\"127.0.0.1:8080\"} 1\n"));
  (void)script;
}

}  // namespace
}  // namespace kube::controller
