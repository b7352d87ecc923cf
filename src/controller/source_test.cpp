#include <kube/controller/source.hpp>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include <kube/cache/lister_watcher.hpp>

#include "test_util.hpp"

namespace kube::controller {
namespace {

using namespace std::chrono_literals;
using testing::Drain;
using testing::Obj;
using Keys = std::set<std::string>;

ObjectPtr Cm(std::string_view name, std::string_view labels = "{}", std::string_view rv = "1") {
  return Obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + std::string(name) +
             R"(","namespace":"n","resourceVersion":")" + std::string(rv) + R"(","labels":)" +
             std::string(labels) + "}}");
}

bool Eventually(const std::function<bool()>& cond) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!cond()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

TEST(EventDispatcher, AppliesEveryPredicateBeforeTheHandler) {
  auto q = std::make_shared<Queue>();
  auto sel = LabelSelector::Parse("keep=yes");
  ASSERT_TRUE(sel.ok());
  EventDispatcher d(EnqueueRequestForObject(), {LabelSelectorPredicate(*sel), GenerationChanged()}, q);
  d.OnCreate({.object = Cm("a", R"({"keep":"yes"})")});
  d.OnCreate({.object = Cm("b", R"({"keep":"no"})")});
  // Same generation: GenerationChanged drops the update although the labels match.
  d.OnUpdate({.old_object = Cm("c", R"({"keep":"yes"})"), .new_object = Cm("c", R"({"keep":"yes"})", "2")});
  EXPECT_EQ(Drain(*q), Keys{"n/a"});
}

TEST(ChannelSource, BuffersPushesBeforeStartAndDeliversLaterOnesAtOnce) {
  auto q = std::make_shared<Queue>();
  Channel ch;
  EXPECT_TRUE(ch.HasSynced());
  ch.Push(Cm("early"));
  ch.Push(nullptr);  // ignored
  EXPECT_EQ(q->Len(), 0u);
  ASSERT_TRUE(ch.Start(std::make_shared<const EventDispatcher>(EnqueueRequestForObject(),
                                                               std::vector<Predicate>{}, q))
                  .ok());
  EXPECT_EQ(Drain(*q), Keys{"n/early"});
  ch.Push(Cm("late"));
  EXPECT_EQ(Drain(*q), Keys{"n/late"});
  ch.Stop();
  ch.Push(Cm("after-stop"));
  EXPECT_EQ(q->Len(), 0u);
  EXPECT_FALSE(ch.Start(std::make_shared<const EventDispatcher>(EnqueueRequestForObject(),
                                                                std::vector<Predicate>{}, q))
                   .ok());
}

TEST(KindSource, DeliversInformerEventsAndSyncsAfterTheInitialList) {
  FakeClock clock;
  auto lw = std::make_shared<cache::FakeListerWatcher>();
  lw->AddListResult(cache::MakeObjectList({Cm("a"), Cm("b")}, "2"));
  cache::InformerOptions opts;
  opts.clock = &clock;
  opts.reflector.use_watch_list = false;
  cache::SharedIndexInformer informer(lw, opts);
  auto q = std::make_shared<Queue>();
  auto src = Kind(informer);
  EXPECT_FALSE(src->HasSynced());
  ASSERT_TRUE(src->Start(std::make_shared<const EventDispatcher>(EnqueueRequestForObject(),
                                                                 std::vector<Predicate>{}, q))
                  .ok());
  std::jthread run([&](std::stop_token st) { informer.Run(st); });
  ASSERT_TRUE(Eventually([&] { return src->HasSynced(); }));
  EXPECT_EQ(Drain(*q), (Keys{"n/a", "n/b"}));
  auto stream = lw->WaitForWatch(1);
  ASSERT_NE(stream, nullptr);
  stream->Push(WatchEventType::kModified, Cm("a", "{}", "3")->Json());
  ASSERT_TRUE(Eventually([&] { return q->Len() == 1; }));
  EXPECT_EQ(Drain(*q), Keys{"n/a"});
  src->Stop();
  stream->Push(WatchEventType::kAdded, Cm("c", "{}", "4")->Json());
  ASSERT_TRUE(Eventually([&] { return informer.GetIndexer().GetByKey("n/c") != nullptr; }));
  // Stopped: the handler was removed, so the informer no longer feeds this queue.
  EXPECT_FALSE(src->HasSynced());
  run.request_stop();
  run.join();
  EXPECT_EQ(q->Len(), 0u);
}

}  // namespace
}  // namespace kube::controller
