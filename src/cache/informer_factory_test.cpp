#include <kube/cache/informer_factory.hpp>

#include <gtest/gtest.h>

#include "cache/test_objects.hpp"

namespace kube::cache {
namespace {

using namespace std::chrono_literals;
using testing::Obj;

TEST(SharedInformerFactory, OneInformerPerResourceAndScopeStartedAndSynced) {
  FakeClock clock;
  Mutex mu;
  std::vector<std::pair<std::string, std::string>> created;  // resource, namespace
  auto factory_fn = [&](const GroupVersionResource& gvr, const InformerScope& scope) {
    MutexLock lock(mu);
    created.emplace_back(gvr.resource, scope.ns);
    auto lw = std::make_shared<FakeListerWatcher>();
    lw->AddListResult(MakeObjectList({Obj(scope.ns.empty() ? "x" : scope.ns, gvr.resource + "-1", "1")}, "1"));
    return lw;
  };
  InformerFactoryOptions opts;
  opts.clock = &clock;
  opts.reflector.use_watch_list = false;
  SharedInformerFactory factory(factory_fn, opts);
  GroupVersionResource pods{"", "v1", "pods"};
  GroupVersionResource cms{"", "v1", "configmaps"};
  auto& a = factory.ForResource(pods);
  auto& b = factory.ForResource(pods);
  EXPECT_EQ(&a, &b);
  auto& scoped = factory.ForResource(pods, InformerScope{.ns = "team-a"});
  EXPECT_NE(&a, &scoped);
  factory.Start();
  // An informer created after Start is started too.
  auto& late = factory.ForResource(cms);
  // WaitForCacheSync polls every 100 ms on the factory's (fake) clock: advance it while it waits.
  std::atomic<bool> waiting{true};
  std::jthread ticker([&] {
    while (waiting) {
      if (clock.BlockUntilWaiters(1, 20ms)) clock.Advance(100ms);
    }
  });
  auto synced = factory.WaitForCacheSync({}, 1h);
  waiting = false;
  ticker.join();
  ASSERT_EQ(synced.size(), 2u);  // pods (both scopes together) and configmaps
  for (const auto& [gvr, ok] : synced) EXPECT_TRUE(ok) << gvr.String();
  (void)late;
  {
    MutexLock lock(mu);
    EXPECT_EQ(created.size(), 3u);
  }
  factory.Shutdown();
  EXPECT_TRUE(a.IsStopped());
  EXPECT_TRUE(late.IsStopped());
}

}  // namespace
}  // namespace kube::cache
