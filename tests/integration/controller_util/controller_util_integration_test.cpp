// kube::controller utilities against the embedded API server: CreateOrUpdate idempotence (checked
// on the server's resourceVersion and on the client's request metrics), CreateOrPatch, the
// finalizer flow end to end, the status helper under concurrent writers, and Event
// deduplication/aggregation as stored by the server.
#include <kube/apiserver/apiserver.hpp>
#include <kube/client/dynamic_client.hpp>
#include <kube/client/http_transport.hpp>
#include <kube/client/retry.hpp>
#include <kube/controller/controllerutil.hpp>
#include <kube/controller/event_recorder.hpp>
#include <kube/controller/finalizer.hpp>
#include <kube/controller/metrics.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kube::controller {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
const GroupVersionResource kEvents{"", "v1", "events"};

class ControllerUtilIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    apiserver::ApiServerOptions o;
    o.storage = apiserver::ApiServerOptions::StorageKind::kMemory;
    o.tls = false;
    o.authenticate = false;
    o.storage_options.compaction_interval = 0s;
    auto server = apiserver::ApiServer::Start(o);
    ASSERT_TRUE(server.ok()) << server.error().message;
    server_ = std::move(*server);
    client::Config config;
    const std::string host = "127.0.0.1:" + std::to_string(server_->port());
    config.host = "http://" + host;
    config.qps = -1;
    auto transport = client::NewHttpTransport({.server = config.host});
    ASSERT_TRUE(transport.ok()) << transport.error().message;
    rest_metrics_ = std::make_unique<RestClientMetrics>(registry_);
    auto rest = client::RestClient::Create(
        config, {.transport = NewInstrumentedTransport(std::move(*transport), *rest_metrics_, host)});
    ASSERT_TRUE(rest.ok()) << rest.error().message;
    client_ = std::make_unique<client::DynamicClient>(std::move(*rest));
  }
  void TearDown() override {
    client_.reset();
    if (server_) server_->Stop();
  }

  client::Api ConfigMaps() const { return client_->Resource(kConfigMaps, "default"); }
  // Writes (POST/PUT/PATCH/DELETE) the client has sent so far, from its request metrics.
  double Writes() {
    double n = 0;
    for (const char* method : {"POST", "PUT", "PATCH", "DELETE"}) {
      for (const char* code : {"200", "201", "409", "404", "422"}) {
        n += registry_.Counter(kRestClientRequestsMetric, "", {"code", "method", "host"})
                 .With({code, method, "127.0.0.1:" + std::to_string(server_->port())})
                 .Value();
      }
    }
    return n;
  }
  static ObjectBuilder Seed(std::string_view name) {
    ObjectBuilder b("v1", "ConfigMap");
    b.SetName(name).SetNamespace("default");
    return b;
  }

  std::unique_ptr<apiserver::ApiServer> server_;
  MetricsRegistry registry_;
  std::unique_ptr<RestClientMetrics> rest_metrics_;
  std::unique_ptr<client::DynamicClient> client_;
};

TEST_F(ControllerUtilIntegrationTest, CreateOrUpdateIsIdempotent) {
  auto mutate = [](ObjectBuilder& b) {
    b.SetLabel("app", "demo");
    return b.Set("/data/greeting", boost::json::value("hello"));
  };
  auto created = CreateOrUpdate(ConfigMaps(), Seed("cfg"), mutate);
  ASSERT_TRUE(created.ok()) << created.error().message;
  EXPECT_EQ(created->operation, OperationResult::kCreated);
  const std::string rv(created->object->ResourceVersion());
  const double writes = Writes();
  EXPECT_EQ(writes, 1);

  auto second = CreateOrUpdate(ConfigMaps(), Seed("cfg"), mutate);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->operation, OperationResult::kUnchanged);
  EXPECT_EQ(Writes(), writes);  // nothing written
  auto stored = ConfigMaps().Get("cfg");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ((*stored)->ResourceVersion(), rv);

  auto changed = CreateOrUpdate(ConfigMaps(), Seed("cfg"), [](ObjectBuilder& b) {
    return b.Set("/data/greeting", boost::json::value("bye"));
  });
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(changed->operation, OperationResult::kUpdated);
  EXPECT_NE(changed->object->ResourceVersion(), rv);
  EXPECT_EQ(changed->object->Labels().Get("app"), "demo");  // the rest of the object is kept
}

TEST_F(ControllerUtilIntegrationTest, CreateOrPatchWritesOnlyWhenSomethingDiffers) {
  auto first = CreateOrPatch(ConfigMaps(), Seed("p"), [](ObjectBuilder& b) { return b.Set("/data/a", boost::json::value("1")); });
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->operation, OperationResult::kCreated);
  auto same = CreateOrPatch(ConfigMaps(), Seed("p"), [](ObjectBuilder& b) { return b.Set("/data/a", boost::json::value("1")); });
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->operation, OperationResult::kUnchanged);
  auto patched = CreateOrPatch(ConfigMaps(), Seed("p"), [](ObjectBuilder& b) {
    b.Remove("/data/a");
    return b.Set("/data/b", boost::json::value("2"));
  });
  ASSERT_TRUE(patched.ok()) << patched.error().message;
  EXPECT_EQ(patched->operation, OperationResult::kUpdated);
  auto stored = ConfigMaps().Get("p");
  ASSERT_TRUE(stored.ok());
  EXPECT_FALSE((*stored)->Get("/data/a").has_value());
  EXPECT_EQ((*stored)->GetString("/data/b"), "2");
}

TEST_F(ControllerUtilIntegrationTest, FinalizerFlowCleansUpThenTheObjectIsGone) {
  FinalizerRegistry finalizers;
  std::vector<std::string> cleaned;
  ASSERT_TRUE(finalizers.Register("example.com/cleanup", [&](const Object& o) {
                cleaned.push_back(std::string(o.Name()));
                return Ok();
              }).ok());
  ASSERT_TRUE(CreateOrUpdate(ConfigMaps(), Seed("fin"), [](ObjectBuilder&) { return Ok(); }).ok());

  // Reconcile 1: the live object gets the finalizer.
  auto live = ConfigMaps().Get("fin");
  ASSERT_TRUE(live.ok());
  auto added = finalizers.FinalizeAndUpdate(ConfigMaps(), **live);
  ASSERT_TRUE(added.ok()) << added.error().message;
  EXPECT_EQ(added->added.size(), 1u);
  EXPECT_TRUE(cleaned.empty());

  // Delete: the server keeps the object, now terminating.
  ASSERT_TRUE(ConfigMaps().Delete("fin").ok());
  auto terminating = ConfigMaps().Get("fin");
  ASSERT_TRUE(terminating.ok()) << terminating.error().message;
  EXPECT_TRUE((*terminating)->IsBeingDeleted());
  EXPECT_TRUE(ContainsFinalizer(**terminating, "example.com/cleanup"));

  // Reconcile 2: cleanup runs, the finalizer goes, and the server deletes the object.
  auto removed = finalizers.FinalizeAndUpdate(ConfigMaps(), **terminating);
  ASSERT_TRUE(removed.ok()) << removed.error().message;
  EXPECT_EQ(removed->removed.size(), 1u);
  EXPECT_EQ(cleaned, std::vector<std::string>{"fin"});
  auto gone = ConfigMaps().Get("fin");
  ASSERT_FALSE(gone.ok());
  EXPECT_TRUE(IsNotFound(gone.error()));
}

TEST_F(ControllerUtilIntegrationTest, FailedCleanupKeepsTheObject) {
  FinalizerRegistry finalizers;
  ASSERT_TRUE(finalizers.Register("example.com/cleanup", [](const Object&) -> Result<void> {
                return MakeError(503, reason::kServiceUnavailable, "external system down");
              }).ok());
  ASSERT_TRUE(CreateOrUpdate(ConfigMaps(), Seed("stuck"), [](ObjectBuilder& b) {
                AddFinalizer(b, "example.com/cleanup");
                return Ok();
              }).ok());
  ASSERT_TRUE(ConfigMaps().Delete("stuck").ok());
  auto terminating = ConfigMaps().Get("stuck");
  ASSERT_TRUE(terminating.ok());
  auto r = finalizers.FinalizeAndUpdate(ConfigMaps(), **terminating);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, 503);
  auto still = ConfigMaps().Get("stuck");
  ASSERT_TRUE(still.ok());
  EXPECT_TRUE(ContainsFinalizer(**still, "example.com/cleanup"));
}

TEST_F(ControllerUtilIntegrationTest, ConcurrentWritersWithRetryOnConflictLoseNoUpdate) {
  ASSERT_TRUE(CreateOrUpdate(ConfigMaps(), Seed("counter"), [](ObjectBuilder& b) {
                return b.Set("/data/n", boost::json::value("0"));
              }).ok());
  constexpr int kPerWriter = 15;
  std::atomic<int> failures{0};
  auto writer = [&] {
    for (int i = 0; i < kPerWriter; ++i) {
      Backoff backoff = DefaultRetry();
      backoff.steps = 50;  // two writers racing: many conflicts are expected
      auto r = RetryOnConflict(backoff, [&]() -> Result<void> {
        auto out = CreateOrUpdate(ConfigMaps(), Seed("counter"), [](ObjectBuilder& b) {
          const auto* n = b.Find("/data/n");
          const int value = std::stoi(std::string(n->as_string()));
          return b.Set("/data/n", boost::json::value(std::to_string(value + 1)));
        });
        if (!out.ok()) return std::move(out).error();
        return Ok();
      });
      if (!r.ok()) ++failures;
    }
  };
  {
    std::jthread a(writer), b(writer);
  }
  EXPECT_EQ(failures.load(), 0);
  auto stored = ConfigMaps().Get("counter");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ((*stored)->GetString("/data/n"), std::to_string(2 * kPerWriter));
}

TEST_F(ControllerUtilIntegrationTest, UpdateStatusWritesObservedGeneration) {
  const GroupVersionResource deployments_gvr{"apps", "v1", "deployments"};
  auto deployments = client_->Resource(deployments_gvr, "default");
  ObjectBuilder seed("apps/v1", "Deployment");
  seed.SetName("web").SetNamespace("default");
  auto created = CreateOrUpdate(deployments, seed, [](ObjectBuilder& b) {
    boost::json::object spec{{"replicas", 2},
                             {"selector", boost::json::object{{"matchLabels", boost::json::object{{"app", "web"}}}}},
                             {"template", boost::json::object{
                                              {"metadata", boost::json::object{{"labels", boost::json::object{{"app", "web"}}}}},
                                              {"spec", boost::json::object{{"containers", boost::json::array{boost::json::object{
                                                                                              {"name", "c"}, {"image", "nginx"}}}}}}}}};
    b.Json()["spec"] = std::move(spec);
    return Ok();
  });
  ASSERT_TRUE(created.ok()) << created.error().message;
  auto updated = UpdateStatus(deployments, {"default", "web"}, [](ObjectBuilder& b) {
    if (auto ok = b.Set("/status/replicas", 2); !ok.ok()) return ok;  // no counter may exceed replicas
    return b.Set("/status/readyReplicas", 2);
  });
  ASSERT_TRUE(updated.ok()) << updated.error().message;
  auto stored = deployments.Get("web");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ((*stored)->GetInt("/status/readyReplicas"), 2);
  EXPECT_EQ((*stored)->GetInt("/status/observedGeneration"), (*stored)->Generation());
}

TEST_F(ControllerUtilIntegrationTest, EventsAreDeduplicatedAndAggregatedOnTheServer) {
  FakeClock clock;
  auto broadcaster = EventBroadcaster::Create(NewApiEventSink(*client_), {.clock = &clock, .host = "node-a"});
  auto recorder = broadcaster->NewRecorder("demo-controller");
  auto created = CreateOrUpdate(ConfigMaps(), Seed("subject"), [](ObjectBuilder&) { return Ok(); });
  ASSERT_TRUE(created.ok());
  const Object& subject = *created->object;

  // A repeated event: one Event with count 3.
  for (int i = 0; i < 3; ++i) {
    recorder->Event(subject, EventType::kNormal, "Synced", "all good");
    clock.Advance(1s);
  }
  // Eleven similar events with differing messages: 9 individual ones, then one combined event
  // (created by the 10th, patched by the 11th).
  for (int i = 1; i <= 11; ++i) {
    recorder->Eventf(subject, EventType::kWarning, "Failed", "attempt {}", i);
    clock.Advance(1s);
  }
  broadcaster->Flush();
  const auto stats = broadcaster->Stats();
  EXPECT_EQ(stats.failed, 0u);

  auto list = client_->Resource(kEvents, "default").List();
  ASSERT_TRUE(list.ok()) << list.error().message;
  int synced = 0, individual = 0, combined = 0;
  for (const auto& e : list->items) {
    EXPECT_EQ(e->GetString("/involvedObject/name"), "subject");
    EXPECT_EQ(e->GetString("/source/component"), "demo-controller");
    EXPECT_THAT(std::string(e->Name()), ::testing::StartsWith("subject."));
    const auto reason = e->GetString("/reason").value_or("");
    const auto message = e->GetString("/message").value_or("");
    if (reason == "Synced") {
      ++synced;
      EXPECT_EQ(e->GetInt("/count"), 3);
      EXPECT_NE(e->GetString("/firstTimestamp"), e->GetString("/lastTimestamp"));
    } else if (message.starts_with("(combined from similar events): ")) {
      ++combined;
      EXPECT_EQ(message, "(combined from similar events): attempt 11");
      EXPECT_EQ(e->GetInt("/count"), 2);
    } else {
      ++individual;
      EXPECT_EQ(e->GetInt("/count"), 1);
    }
  }
  EXPECT_EQ(synced, 1);
  EXPECT_EQ(individual, 9);
  EXPECT_EQ(combined, 1);
  broadcaster->Shutdown();
}

}  // namespace
}  // namespace kube::controller
