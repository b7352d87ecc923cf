// kube::cache against the embedded API server through the client ListerWatcher: initial sync
// (LIST and streaming list), add/update/delete reaching handlers, watches resumed after the server
// closes them, relist after 410 Expired (compaction) with DeletedFinalStateUnknown, and
// metadata-only informers (PartialObjectMetadata).
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include <kube/cache/informer_factory.hpp>

#include "cache_test_util.hpp"

namespace kube::cache::it {
namespace {

using namespace std::chrono_literals;

class InformerIntegrationTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    auto started = server_.Start();
    ASSERT_TRUE(started.ok()) << started.error().ToString();
    rest_ = server_.NewRest();
    ASSERT_NE(rest_, nullptr);
  }
  void TearDown() override {
    if (lw_) lw_->Close();
    if (run_.joinable()) {
      run_.request_stop();
      run_.join();
    }
    informer_.reset();
  }

  client::Api Api(std::string ns = {}) const { return client::Api(rest_, kConfigMaps, std::move(ns)); }

  /// Starts an informer over the client ListerWatcher (wrapped for chaos) with a recording handler.
  void StartInformer(InformerScope scope = {}, Clock::Duration min_watch_timeout = 5min) {
    lw_ = std::make_shared<ChaosListerWatcher>(NewClientListerWatcher(Api(), scope));
    InformerOptions o;
    o.name = "it";
    o.reflector.use_watch_list = GetParam();
    o.reflector.min_watch_timeout = min_watch_timeout;
    o.reflector.backoff.initial = 10ms;
    o.reflector.backoff.max = 100ms;
    o.reflector.watch_error_handler = [this](const Error& e) {
      if (IsExpired(e)) expired_.fetch_add(1);
    };
    informer_ = std::make_unique<SharedIndexInformer>(lw_, o);
    handler_ = std::make_shared<RecordingHandler>();
    auto reg = informer_->AddEventHandler(handler_);
    ASSERT_TRUE(reg.ok());
    reg_ = *reg;
    run_ = std::jthread([this](std::stop_token st) { informer_->Run(st); });
    ASSERT_TRUE(WaitFor([&] { return reg_->HasSynced(); })) << "informer did not sync";
  }

  /// Waits until the cache and the handler's view equal the server's list; returns whether so.
  ::testing::AssertionResult Converges() {
    StateMap server;
    const bool ok = WaitFor([&] {
      auto s = ServerState(Api());
      if (!s.ok()) return false;
      server = *s;
      return CacheState(*informer_) == server && handler_->State() == server;
    });
    if (ok) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "server has " << server.size() << " objects, cache "
                                         << CacheState(*informer_).size() << ", handler "
                                         << handler_->State().size();
  }

  void ExpectNoViolations() {
    for (const auto& v : handler_->Violations()) ADD_FAILURE() << v;
  }

  TestServer server_{/*sqlite=*/false};
  std::shared_ptr<client::RestClient> rest_;
  std::shared_ptr<ChaosListerWatcher> lw_;
  std::unique_ptr<SharedIndexInformer> informer_;
  std::shared_ptr<RecordingHandler> handler_;
  std::shared_ptr<HandlerRegistration> reg_;
  std::atomic<int> expired_{0};
  std::jthread run_;
};

TEST_P(InformerIntegrationTest, InitialSyncThenAddUpdateDeleteReachHandlers) {
  for (int i = 0; i < 7; ++i) {
    ASSERT_TRUE(Api("default").Create(*ConfigMap("default", "pre-" + std::to_string(i), "0")).ok());
  }
  ASSERT_TRUE(Api("kube-system").Create(*ConfigMap("kube-system", "sys", "0")).ok());
  StartInformer();
  // The initial list: everything, as initial-list adds, at the server's resourceVersions.
  auto server = ServerState(Api());
  ASSERT_TRUE(server.ok());
  EXPECT_EQ(server->size(), 8u);
  EXPECT_EQ(CacheState(*informer_), *server);
  EXPECT_TRUE(WaitFor([&] { return handler_->State() == *server; }));
  EXPECT_EQ(handler_->InitialAdds(), 8);
  EXPECT_FALSE(informer_->LastSyncResourceVersion().empty());

  auto created = Api("default").Create(*ConfigMap("default", "new", "1"));
  ASSERT_TRUE(created.ok());
  auto patched = Api("default").Patch("pre-0", PatchType::kMerge, R"({"data":{"v":"2"}})");
  ASSERT_TRUE(patched.ok());
  ASSERT_TRUE(Api("default").Delete("pre-1").ok());
  ASSERT_TRUE(Converges());
  EXPECT_EQ(handler_->Adds(), 9);
  EXPECT_EQ(handler_->InitialAdds(), 8);  // the watch add is not from the initial list
  EXPECT_EQ(handler_->Updates(), 1);
  EXPECT_EQ(handler_->Deletes(), 1);
  EXPECT_EQ(handler_->Tombstones(), 0);
  auto cached = informer_->GetLister().Get("default", "pre-0");
  ASSERT_TRUE(cached.ok());
  EXPECT_EQ((*cached)->GetString("/data/v"), "2");
  EXPECT_EQ((*cached)->ResourceVersion(), (*patched)->ResourceVersion());
  EXPECT_FALSE(informer_->GetLister().Get("default", "pre-1").ok());
  EXPECT_EQ(informer_->GetLister().List("kube-system").size(), 1u);
  ExpectNoViolations();
  // Watching, not polling: one initial list at most.
  EXPECT_LE(lw_->Lists(), 1);
}

TEST_P(InformerIntegrationTest, WatchResumesAfterTheServerClosesIt) {
  ASSERT_TRUE(Api("default").Create(*ConfigMap("default", "a", "0")).ok());
  // timeoutSeconds in [1, 2): the server ends each watch after a second or so.
  StartInformer({}, 1s);
  const int64_t lists = lw_->Lists();
  ASSERT_TRUE(WaitFor([&] { return lw_->Watches() >= 3; }, 30s)) << lw_->Watches();
  ASSERT_TRUE(Api("default").Create(*ConfigMap("default", "b", "0")).ok());
  ASSERT_TRUE(Api("default").Patch("a", PatchType::kMerge, R"({"data":{"v":"1"}})").ok());
  ASSERT_TRUE(Converges());
  // Each close was followed by a watch from the last resourceVersion, not by a relist.
  EXPECT_EQ(lw_->Lists(), lists);
  EXPECT_EQ(expired_.load(), 0);
  EXPECT_EQ(handler_->Adds(), 2);
  EXPECT_EQ(handler_->Updates(), 1);
  ExpectNoViolations();
}

TEST_P(InformerIntegrationTest, BrokenConnectionResumesWithoutRelist) {
  StartInformer();
  // An event first: a watch that breaks with no events within a second counts as a failure
  // (client-go's "very short watch") and relists.
  ASSERT_TRUE(Api("default").Create(*ConfigMap("default", "before", "0")).ok());
  ASSERT_TRUE(Converges());
  const int64_t lists = lw_->Lists();
  const int64_t watches = lw_->Watches();
  lw_->Disconnect();
  ASSERT_TRUE(WaitFor([&] { return lw_->Watches() > watches; }));
  ASSERT_TRUE(Api("default").Create(*ConfigMap("default", "after", "0")).ok());
  ASSERT_TRUE(Converges());
  EXPECT_EQ(lw_->Lists(), lists);
  EXPECT_EQ(handler_->Adds(), 2);
  ExpectNoViolations();
}

TEST_P(InformerIntegrationTest, ExpiredAfterCompactionRelistsWithTombstones) {
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(Api("default").Create(*ConfigMap("default", "c-" + std::to_string(i), "0")).ok());
  }
  StartInformer();
  ASSERT_TRUE(Converges());
  // Hold the reflector back, break its watch, change things and compact past its RV.
  lw_->Hold();
  lw_->Disconnect();
  ASSERT_TRUE(Api("default").Delete("c-0").ok());
  ASSERT_TRUE(Api("default").Delete("c-1").ok());
  ASSERT_TRUE(Api("default").Patch("c-2", PatchType::kMerge, R"({"data":{"v":"1"}})").ok());
  ASSERT_TRUE(Api("default").Create(*ConfigMap("default", "c-9", "0")).ok());
  const auto rev = server_.storage().CurrentRevision();
  EXPECT_EQ(server_.storage().Compact(rev), rev);
  const int64_t lists = lw_->Lists();
  lw_->Release();
  ASSERT_TRUE(Converges());
  EXPECT_GE(expired_.load(), 1);
  if (!GetParam()) {
    EXPECT_GT(lw_->Lists(), lists);  // the relist (a streaming list re-watches instead)
  }
  // The deletes were missed by the watch: the relist reports them as DeletedFinalStateUnknown.
  EXPECT_EQ(handler_->Tombstones(), 2);
  EXPECT_EQ(handler_->Deletes(), 2);
  EXPECT_EQ(handler_->Updates(), 1);
  EXPECT_EQ(handler_->Adds(), 5);
  ExpectNoViolations();
  // And the informer keeps watching afterwards.
  ASSERT_TRUE(Api("default").Delete("c-3").ok());
  ASSERT_TRUE(Converges());
  EXPECT_EQ(handler_->Tombstones(), 2);
  EXPECT_EQ(handler_->Deletes(), 3);
}

TEST_P(InformerIntegrationTest, MetadataOnlyInformerCachesPartialObjectMetadata) {
  ASSERT_TRUE(Api("default").Create(*ConfigMap("default", "m-0", "payload", "x")).ok());
  ASSERT_TRUE(Api("default").Create(*ConfigMap("default", "m-1", "payload", "y")).ok());
  StartInformer(InformerScope{.ns = "", .label_selector = "", .field_selector = "", .metadata_only = true});
  ASSERT_TRUE(Converges());
  auto check = [&](std::string_view name, std::string_view label) {
    auto obj = informer_->GetLister().Get("default", name);
    ASSERT_TRUE(obj.ok()) << name;
    EXPECT_EQ((*obj)->Kind(), "PartialObjectMetadata");
    EXPECT_EQ((*obj)->ApiVersion(), "meta.k8s.io/v1");
    EXPECT_EQ((*obj)->Labels().Get("app").value_or(""), label);
    EXPECT_FALSE((*obj)->Uid().empty());
    EXPECT_FALSE((*obj)->GetRaw("/data").has_value()) << (*obj)->Json();
  };
  check("m-0", "x");
  // Watch events are metadata-only too.
  ASSERT_TRUE(Api("default").Patch("m-1", PatchType::kMerge, R"({"metadata":{"labels":{"app":"z"}}})").ok());
  ASSERT_TRUE(Api("default").Create(*ConfigMap("default", "m-2", "payload", "w")).ok());
  ASSERT_TRUE(Converges());
  check("m-1", "z");
  check("m-2", "w");
  EXPECT_EQ(handler_->Updates(), 1);
  ExpectNoViolations();
}

TEST_P(InformerIntegrationTest, FactoryWithScopesOverTheClient) {
  ASSERT_TRUE(Api("default").Create(*ConfigMap("default", "f-0", "0", "web")).ok());
  ASSERT_TRUE(Api("default").Create(*ConfigMap("default", "f-1", "0", "db")).ok());
  ASSERT_TRUE(Api("kube-public").Create(*ConfigMap("kube-public", "f-2", "0", "web")).ok());
  InformerFactoryOptions fo;
  fo.reflector.use_watch_list = GetParam();
  SharedInformerFactory factory(NewClientListerWatcherFactory(rest_), fo);
  auto& all = factory.ForResource(kConfigMaps);
  auto& web = factory.ForResource(kConfigMaps, InformerScope{.ns = "", .label_selector = "app=web",
                                                             .field_selector = "", .metadata_only = false});
  auto& pub = factory.ForResource(kConfigMaps, InformerScope{.ns = "kube-public", .label_selector = "",
                                                             .field_selector = "", .metadata_only = false});
  auto& meta = factory.ForResource(kConfigMaps, InformerScope{.ns = "", .label_selector = "",
                                                              .field_selector = "", .metadata_only = true});
  EXPECT_EQ(&all, &factory.ForResource(kConfigMaps));
  factory.Start();
  auto synced = factory.WaitForCacheSync({}, 30s);
  ASSERT_TRUE(synced[kConfigMaps]);
  EXPECT_EQ(all.GetIndexer().Size(), 3u);
  EXPECT_EQ(web.GetIndexer().Size(), 2u);
  EXPECT_EQ(pub.GetIndexer().Size(), 1u);
  EXPECT_EQ(meta.GetIndexer().Size(), 3u);
  // An informer created after Start is started at once.
  auto& field = factory.ForResource(kConfigMaps, InformerScope{.ns = "", .label_selector = "",
                                                               .field_selector = "metadata.name=f-1",
                                                               .metadata_only = false});
  ASSERT_TRUE(WaitFor([&] { return field.HasSynced(); }));
  EXPECT_EQ(field.GetIndexer().Size(), 1u);
  ASSERT_TRUE(Api("kube-public").Create(*ConfigMap("kube-public", "f-3", "0", "web")).ok());
  EXPECT_TRUE(WaitFor([&] { return web.GetIndexer().Size() == 3u && pub.GetIndexer().Size() == 2u &&
                                   all.GetIndexer().Size() == 4u && meta.GetIndexer().Size() == 4u; }));
  EXPECT_EQ(field.GetIndexer().Size(), 1u);
  factory.Shutdown();
  EXPECT_TRUE(all.IsStopped());
}

INSTANTIATE_TEST_SUITE_P(ListModes, InformerIntegrationTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "WatchList" : "List"; });

}  // namespace
}  // namespace kube::cache::it
