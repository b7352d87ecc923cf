// kube::client against the embedded API server over TLS, configured from the kubeconfig the
// server writes: every verb of the dynamic client, pagination with an expired continue token,
// watches, discovery and the RESTMapper, authentication and TLS failures.
#include <kube/apiserver/apiserver.hpp>
#include <kube/client/config.hpp>
#include <kube/client/discovery.hpp>
#include <kube/client/dynamic_client.hpp>
#include <kube/client/http_transport.hpp>
#include <kube/client/rest_mapper.hpp>
#include <kube/client/retry.hpp>
#include <kube/api/core/v1.hpp>
#include <kube/client/typed_api.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kube::client {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
const GroupVersionResource kDeployments{"apps", "v1", "deployments"};

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/kubecpp-client-it-XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~TempDir() { (void)std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class ClientIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    apiserver::ApiServerOptions o;
    o.data_dir = dir_.path();
    o.storage = apiserver::ApiServerOptions::StorageKind::kMemory;
    o.tls = true;
    o.authenticate = true;
    o.storage_options.compaction_interval = 0s;
    o.storage_options.compaction_min_revisions = 0;
    o.storage_options.compaction_min_age = 0s;
    auto server = apiserver::ApiServer::Start(o);
    ASSERT_TRUE(server.ok()) << server.error().message;
    server_ = std::move(server).value();
    ASSERT_FALSE(server_->kubeconfig_path().empty());
    auto loaded = LoadConfig({.kubeconfig_path = server_->kubeconfig_path()});
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    loaded_ = *loaded;
    loaded_.config.qps = -1;  // the tests measure behaviour, not throttling
    auto client = DynamicClient::Create(loaded_.config);
    ASSERT_TRUE(client.ok()) << client.error().message;
    client_ = std::make_unique<DynamicClient>(std::move(client).value());
  }
  void TearDown() override {
    client_.reset();
    if (server_) server_->Stop();
  }

  ObjectPtr ConfigMap(std::string_view name, std::string_view ns = "default",
                      std::vector<std::pair<std::string, std::string>> labels = {}) {
    ObjectBuilder b("v1", "ConfigMap");
    b.SetName(name).SetNamespace(ns);
    for (const auto& [k, v] : labels) b.SetLabel(k, v);
    EXPECT_TRUE(b.Set("/data/k", "v").ok());
    return b.Build().value();
  }

  TempDir dir_;
  std::unique_ptr<apiserver::ApiServer> server_;
  LoadedConfig loaded_;
  std::unique_ptr<DynamicClient> client_;
};

TEST_F(ClientIntegrationTest, LoadsTheGeneratedKubeconfigAndTalksTls) {
  EXPECT_EQ(loaded_.config.host.rfind("https://", 0), 0u);
  EXPECT_FALSE(loaded_.config.ca_pem.empty());
  EXPECT_EQ(loaded_.ns, "default");
  DiscoveryClient discovery(client_->rest());
  auto version = discovery.GetServerVersion();
  ASSERT_TRUE(version.ok()) << version.error().message;
  EXPECT_EQ(version->major, "1");
  auto ns = TypedApi<api::core::v1::Namespace>(*client_).Get("default");
  ASSERT_TRUE(ns.ok()) << ns.error().message;
  EXPECT_EQ(ns->status.phase, std::optional<std::string>("Active"));
}

TEST_F(ClientIntegrationTest, CreateGetUpdatePatchApplyDelete) {
  Api api = client_->Resource(kConfigMaps, "default");
  auto created = api.Create(*ConfigMap("cfg"));
  ASSERT_TRUE(created.ok()) << created.error().message;
  EXPECT_FALSE((*created)->Uid().empty());
  auto dup = api.Create(*ConfigMap("cfg"));
  ASSERT_FALSE(dup.ok());
  EXPECT_TRUE(IsAlreadyExists(dup.error())) << dup.error().ToString();

  auto got = api.Get("cfg");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)->ResourceVersion(), (*created)->ResourceVersion());

  ObjectBuilder edit(**got);
  edit.SetLabel("edited", "yes");
  auto updated = api.Update(*edit.Build().value());
  ASSERT_TRUE(updated.ok()) << updated.error().message;
  EXPECT_NE((*updated)->ResourceVersion(), (*got)->ResourceVersion());
  // The same edit on the stale copy conflicts.
  auto stale = api.Update(*edit.Build().value());
  ASSERT_FALSE(stale.ok());
  EXPECT_TRUE(IsConflict(stale.error())) << stale.error().ToString();

  auto merged = api.Patch("cfg", PatchType::kMerge, R"({"data":{"m":"merge"}})");
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_EQ((*merged)->GetString("/data/m"), "merge");
  auto json = api.Patch("cfg", PatchType::kJson, R"([{"op":"add","path":"/data/j","value":"json"}])");
  ASSERT_TRUE(json.ok()) << json.error().message;
  EXPECT_EQ((*json)->GetString("/data/j"), "json");
  auto failed_test = api.Patch("cfg", PatchType::kJson, R"([{"op":"test","path":"/data/j","value":"nope"}])");
  ASSERT_FALSE(failed_test.ok());
  EXPECT_TRUE(IsInvalid(failed_test.error())) << failed_test.error().ToString();
  // Strategic merge and server-side apply: the embedded server answers 415 until "API server II"
  // (docs/apiserver-rest.md); the client must send the right content type and classify the answer.
  auto smp = api.Patch("cfg", PatchType::kStrategicMerge, R"({"data":{"s":"strategic"}})");
  if (smp.ok()) {
    EXPECT_EQ((*smp)->GetString("/data/s"), "strategic");
  } else {
    EXPECT_TRUE(IsUnsupportedMediaType(smp.error())) << smp.error().ToString();
  }
  ObjectBuilder intent("v1", "ConfigMap");
  intent.SetName("cfg").SetNamespace("default");
  ASSERT_TRUE(intent.Set("/data/applied", "yes").ok());
  auto applied = api.Apply(*intent.Build().value(), {.field_manager = "kubecpp-test"});
  if (applied.ok()) {
    EXPECT_EQ((*applied)->GetString("/data/applied"), "yes");
  } else {
    EXPECT_TRUE(IsUnsupportedMediaType(applied.error())) << applied.error().ToString();
  }

  auto not_found = api.Patch("missing", PatchType::kMerge, "{}");
  ASSERT_FALSE(not_found.ok());
  EXPECT_TRUE(IsNotFound(not_found.error()));

  // Preconditions: a wrong uid is a Conflict and nothing is deleted.
  DeleteOptions wrong_uid;
  wrong_uid.preconditions = Preconditions{.uid = "not-the-uid"};
  auto refused = api.Delete("cfg", wrong_uid);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(IsConflict(refused.error())) << refused.error().ToString();
  DeleteOptions right_uid;
  right_uid.preconditions = Preconditions{.uid = std::string((*created)->Uid())};
  auto deleted = api.Delete("cfg", right_uid);
  ASSERT_TRUE(deleted.ok()) << deleted.error().message;
  auto gone = api.Get("cfg");
  ASSERT_FALSE(gone.ok());
  EXPECT_TRUE(IsNotFound(gone.error()));
  EXPECT_EQ(gone.error().message, "configmaps \"cfg\" not found");
}

TEST_F(ClientIntegrationTest, UpdateStatusAndScaleSubresourcesOfADeployment) {
  Api api = client_->Resource(kDeployments, "default");
  auto dep = Object::Parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
    "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
    "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}})").value();
  auto created = api.Create(*dep);
  ASSERT_TRUE(created.ok()) << created.error().message;
  ObjectBuilder status(**created);
  ASSERT_TRUE(status.Set("/status/replicas", 1).ok());  // no counter may exceed replicas
  ASSERT_TRUE(status.Set("/status/readyReplicas", 1).ok());
  auto updated = api.UpdateStatus(*status.Build().value());
  ASSERT_TRUE(updated.ok()) << updated.error().message;
  EXPECT_EQ((*updated)->GetInt("/status/readyReplicas"), std::optional<std::int64_t>(1));
  auto scaled = api.Patch("web", PatchType::kMerge, R"({"spec":{"replicas":3}})", {}, "scale");
  ASSERT_TRUE(scaled.ok()) << scaled.error().message;
  EXPECT_EQ((*scaled)->Kind(), "Scale");
  EXPECT_EQ(api.Get("web").value()->GetInt("/spec/replicas"), std::optional<std::int64_t>(3));
}

TEST_F(ClientIntegrationTest, PaginatesAndFallsBackToAFullListWhenTheTokenExpires) {
  Api api = client_->Resource(kConfigMaps, "default");
  for (int i = 0; i < 25; ++i) ASSERT_TRUE(api.Create(*ConfigMap("cm-" + std::to_string(100 + i))).ok());
  auto all = api.ListAll({}, 10);
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(all->items.size(), 25u);
  EXPECT_EQ(all->items.front()->Name(), "cm-100");

  ListPager pager = api.Pager({}, 10);
  auto first = pager.Next();
  ASSERT_TRUE(first.ok() && first->has_value());
  EXPECT_EQ((*first)->list.items.size(), 10u);
  EXPECT_FALSE((*first)->list.continue_token.empty());
  // New writes, then compaction past the snapshot: the continue token has expired.
  ASSERT_TRUE(api.Create(*ConfigMap("cm-late")).ok());
  server_->storage().Compact(server_->storage().CurrentRevision());
  auto second = pager.Next();
  ASSERT_TRUE(second.ok()) << second.error().message;
  ASSERT_TRUE(second->has_value());
  EXPECT_TRUE((*second)->restarted);
  EXPECT_EQ((*second)->list.items.size(), 26u);
}

TEST_F(ClientIntegrationTest, WatchDeliversChangesFromTheListResourceVersion) {
  Api api = client_->Resource(kConfigMaps, "default");
  auto list = api.List();
  ASSERT_TRUE(list.ok());
  auto watch = api.Watch({.resource_version = list->resource_version, .allow_watch_bookmarks = true});
  ASSERT_TRUE(watch.ok()) << watch.error().message;
  std::vector<std::string> seen;
  std::jthread writer([&] {
    auto cm = api.Create(*ConfigMap("watched")).value();
    ASSERT_TRUE(api.Patch("watched", PatchType::kMerge, R"({"data":{"x":"y"}})").ok());
    ASSERT_TRUE(api.Delete("watched").ok());
  });
  while (seen.size() < 3) {
    auto ev = (*watch)->Next();
    ASSERT_TRUE(ev.ok()) << ev.error().message;
    ASSERT_TRUE(ev->has_value());
    if ((**ev).type == WatchEventType::kBookmark) continue;
    seen.push_back(std::string(WatchEventTypeName((**ev).type)) + " " + std::string((**ev).object->Name()));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"ADDED watched", "MODIFIED watched", "DELETED watched"}));
  // Stop from another thread ends a watch that waits for events.
  std::jthread stopper([&] {
    std::this_thread::sleep_for(100ms);
    (*watch)->Stop();
  });
  auto end = (*watch)->Next();
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());
}

TEST_F(ClientIntegrationTest, WatchFromACompactedResourceVersionIsExpired) {
  Api api = client_->Resource(kConfigMaps, "default");
  ASSERT_TRUE(api.Create(*ConfigMap("a")).ok());
  const std::string old_rv = std::string(api.Get("a").value()->ResourceVersion());
  ASSERT_TRUE(api.Create(*ConfigMap("b")).ok());
  ASSERT_TRUE(api.Create(*ConfigMap("c")).ok());
  server_->storage().Compact(server_->storage().CurrentRevision());
  auto watch = api.Watch({.resource_version = old_rv});
  if (!watch.ok()) {
    EXPECT_TRUE(IsExpired(watch.error())) << watch.error().ToString();
    return;
  }
  auto ev = (*watch)->Next();  // or as an ERROR event in a 200 stream
  ASSERT_FALSE(ev.ok());
  EXPECT_TRUE(IsExpired(ev.error())) << ev.error().ToString();
}

TEST_F(ClientIntegrationTest, DeleteCollectionHonoursTheLabelSelector) {
  Api api = client_->Resource(kConfigMaps, "default");
  ASSERT_TRUE(api.Create(*ConfigMap("keep", "default", {{"tier", "keep"}})).ok());
  ASSERT_TRUE(api.Create(*ConfigMap("drop-1", "default", {{"tier", "drop"}})).ok());
  ASSERT_TRUE(api.Create(*ConfigMap("drop-2", "default", {{"tier", "drop"}})).ok());
  ASSERT_TRUE(api.DeleteCollection({}, {.label_selector = "tier=drop"}).ok());
  auto left = api.List({.label_selector = "tier"});
  ASSERT_TRUE(left.ok());
  ASSERT_EQ(left->items.size(), 1u);
  EXPECT_EQ(left->items[0]->Name(), "keep");
}

TEST_F(ClientIntegrationTest, RetryOnConflictConvergesUnderConcurrentWriters) {
  Api api = client_->Resource(kConfigMaps, "default");
  ASSERT_TRUE(api.Create(*ConfigMap("counter")).ok());
  std::atomic<int> failures{0};
  std::vector<std::jthread> writers;
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&] {
      for (int i = 0; i < 5; ++i) {
        auto r = RetryOnConflict(Backoff{.duration = 1ms, .factor = 1.0, .jitter = 1.0, .steps = 50}, [&]() -> Result<void> {
          auto cur = api.Get("counter");
          if (!cur) return std::move(cur).error();
          const int n = std::stoi((*cur)->GetString("/data/n").value_or("0"));
          ObjectBuilder b(**cur);
          KUBE_RETURN_IF_ERROR(b.Set("/data/n", boost::json::value(std::to_string(n + 1))));
          auto updated = api.Update(*b.Build().value());
          if (!updated) return std::move(updated).error();
          return Ok();
        });
        if (!r.ok()) failures.fetch_add(1);
      }
    });
  }
  writers.clear();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(api.Get("counter").value()->GetString("/data/n"), "20");
}

TEST_F(ClientIntegrationTest, DiscoveryAndRestMapperSeeTheBuiltins) {
  auto discovery = std::make_shared<DiscoveryClient>(client_->rest());
  auto result = discovery->ServerGroupsAndResources();
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE((*result)->failed.empty());
  RestMapper mapper(discovery);
  auto dep = mapper.Mapping({"apps", "Deployment"});
  ASSERT_TRUE(dep.ok()) << dep.error().message;
  EXPECT_EQ(dep->resource, kDeployments);
  EXPECT_TRUE(dep->namespaced);
  EXPECT_EQ(mapper.ResourceFor({"", "", "cm"}).value(), kConfigMaps);
  EXPECT_EQ(mapper.ResourceFor({"", "", "lease"}).value(), (GroupVersionResource{"coordination.k8s.io", "v1", "leases"}));
  EXPECT_FALSE(mapper.IsNamespaced({"", "v1", "Namespace"}).value());
  auto none = mapper.Mapping({"example.com", "Nothing"});
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(IsNoMatch(none.error()));
}

TEST_F(ClientIntegrationTest, WrongTokenIsUnauthorized) {
  Config bad = loaded_.config;
  bad.bearer_token = "not-the-token";
  bad.bearer_token_file.clear();
  auto client = DynamicClient::Create(bad).value();
  auto r = client.Resource(kConfigMaps, "default").List();
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsUnauthorized(r.error())) << r.error().ToString();
}

TEST_F(ClientIntegrationTest, WrongCaOrHostNameNeverConnects) {
  Config wrong_name = loaded_.config;
  wrong_name.tls_server_name = "not-the-server.example";
  auto r = DynamicClient::Create(wrong_name).value().Resource(kConfigMaps, "default").List();
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsTlsError(r.error())) << r.error().ToString();
  Config system_roots = loaded_.config;
  system_roots.ca_pem.clear();
  auto s = DynamicClient::Create(system_roots).value().Resource(kConfigMaps, "default").List();
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(IsTlsError(s.error())) << s.error().ToString();
}

}  // namespace
}  // namespace kube::client
