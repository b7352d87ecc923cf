#include <kube/controller/event_recorder.hpp>
#include <kube/controller/typed.hpp>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <kube/core/json.hpp>
#include <kube/core/merge_patch.hpp>

namespace kube::controller {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// An in-memory Event store standing in for the API server.
class FakeSink final : public EventSink {
 public:
  struct Shared {
    Mutex mu;
    CondVar cv;
    std::map<std::string, ObjectPtr> events KUBE_GUARDED_BY(mu);  // "ns/name"
    std::vector<std::string> calls KUBE_GUARDED_BY(mu);             // "create ns/name", "patch ns/name"
    int fail_next KUBE_GUARDED_BY(mu) = 0;                          // 503s to return first
    bool block KUBE_GUARDED_BY(mu) = false;                         // hold writes until cleared
    int blocked KUBE_GUARDED_BY(mu) = 0;                            // writers waiting in `block`
  };
  explicit FakeSink(std::shared_ptr<Shared> s) : s_(std::move(s)) {}

  Result<ObjectPtr> Create(const Object& event) override {
    const std::string key = std::string(event.Namespace()) + "/" + std::string(event.Name());
    MutexLock lock(s_->mu);
    if (auto e = Gate("create " + key)) return *e;
    if (s_->events.contains(key)) return MakeError(409, reason::kAlreadyExists, key);
    auto copy = Object::Parse(event.Json());
    if (!copy.ok()) return std::move(copy).error();
    s_->events[key] = *copy;
    return *copy;
  }
  Result<ObjectPtr> Patch(std::string_view ns, std::string_view name, std::string_view patch) override {
    const std::string key = std::string(ns) + "/" + std::string(name);
    MutexLock lock(s_->mu);
    if (auto e = Gate("patch " + key)) return *e;
    auto it = s_->events.find(key);
    if (it == s_->events.end()) return MakeError(404, reason::kNotFound, key);
    auto merged = ApplyMergePatch(it->second->Json(), patch);
    if (!merged.ok()) return std::move(merged).error();
    auto obj = Object::Parse(*merged);
    if (!obj.ok()) return std::move(obj).error();
    it->second = *obj;
    return it->second;
  }

 private:
  std::optional<Error> Gate(std::string call) KUBE_REQUIRES(s_->mu) {
    ++s_->blocked;
    s_->cv.SignalAll();
    while (s_->block) s_->cv.Wait(s_->mu);
    --s_->blocked;
    s_->calls.push_back(std::move(call));
    if (s_->fail_next > 0) {
      --s_->fail_next;
      return MakeError(503, reason::kServiceUnavailable, "try later");
    }
    return std::nullopt;
  }
  std::shared_ptr<Shared> s_;
};

ObjectPtr MakeObject(std::string_view name, std::string_view ns = "default", std::string_view kind = "ConfigMap") {
  ObjectBuilder b("v1", kind);
  b.SetName(name).SetUid(std::string(name) + "-uid").SetResourceVersion("7");
  if (!ns.empty()) b.SetNamespace(ns);
  return b.Build().value();
}

class EventRecorderTest : public ::testing::Test {
 protected:
  void Start(EventBroadcasterOptions o = {}) {
    o.clock = &clock_;
    o.host = "node-1";
    broadcaster_ = EventBroadcaster::Create(std::make_unique<FakeSink>(shared_), o);
    recorder_ = broadcaster_->NewRecorder("test-controller");
  }
  std::vector<ObjectPtr> Events() {
    MutexLock lock(shared_->mu);
    std::vector<ObjectPtr> out;
    for (const auto& [k, v] : shared_->events) out.push_back(v);
    return out;
  }
  std::vector<std::string> Calls() {
    MutexLock lock(shared_->mu);
    return shared_->calls;
  }

  FakeClock clock_;
  std::shared_ptr<FakeSink::Shared> shared_ = std::make_shared<FakeSink::Shared>();
  std::unique_ptr<EventBroadcaster> broadcaster_;
  std::unique_ptr<EventRecorder> recorder_;
};

// A typed resource of the test's own (meta/v1 only): what RecordEvent needs of a generated kind.
struct Widget {
  static constexpr std::string_view kGroup = "example.com";
  static constexpr std::string_view kVersion = "v1";
  static constexpr std::string_view kKind = "Widget";
  static constexpr std::string_view kResource = "widgets";
  static constexpr bool kNamespaced = true;
  using List = std::vector<Widget>;
  kube::api::meta::v1::ObjectMeta metadata;
};

TEST_F(EventRecorderTest, TypedEventsReferToTheTypedObject) {
  Start();
  Widget w;
  w.metadata.name = "w1";
  w.metadata.namespace_ = "team-a";
  w.metadata.uid = "uid-1";
  w.metadata.resourceVersion = "42";
  w.metadata.labels["ignored"] = "x";
  RecordEventf(*recorder_, w, EventType::kNormal, "Synced", "synced {} replicas", 3);
  Widget cluster_scoped;
  cluster_scoped.metadata.name = "c";
  RecordEvent(*recorder_, cluster_scoped, EventType::kWarning, "Odd", "no namespace");
  broadcaster_->Flush();
  auto events = Events();
  ASSERT_EQ(events.size(), 2u);
  const Object* synced = events[0]->GetString("/reason") == "Synced" ? events[0].get() : events[1].get();
  const Object* odd = synced == events[0].get() ? events[1].get() : events[0].get();
  EXPECT_EQ(synced->Namespace(), "team-a");
  EXPECT_EQ(synced->GetString("/message"), "synced 3 replicas");
  EXPECT_EQ(synced->GetString("/involvedObject/apiVersion"), "example.com/v1");
  EXPECT_EQ(synced->GetString("/involvedObject/kind"), "Widget");
  EXPECT_EQ(synced->GetString("/involvedObject/namespace"), "team-a");
  EXPECT_EQ(synced->GetString("/involvedObject/name"), "w1");
  EXPECT_EQ(synced->GetString("/involvedObject/uid"), "uid-1");
  EXPECT_EQ(synced->GetString("/involvedObject/resourceVersion"), "42");
  EXPECT_EQ(odd->GetString("/type"), "Warning");
  EXPECT_EQ(odd->GetString("/involvedObject/name"), "c");
  EXPECT_EQ(odd->GetString("/involvedObject/namespace"), std::nullopt);
}

TEST_F(EventRecorderTest, FirstEventIsCreatedWithClientGoShape) {
  Start();
  auto obj = MakeObject("web");
  recorder_->Eventf(*obj, EventType::kWarning, "SyncFailed", "replica {} of {} missing", 2, 3);
  broadcaster_->Flush();
  auto events = Events();
  ASSERT_EQ(events.size(), 1u);
  const Object& e = *events[0];
  EXPECT_EQ(e.Namespace(), "default");
  const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(clock_.WallNow().time_since_epoch()).count();
  EXPECT_EQ(e.Name(), fmt::format("web.{:x}", nanos));
  EXPECT_EQ(e.GetString("/type"), "Warning");
  EXPECT_EQ(e.GetString("/reason"), "SyncFailed");
  EXPECT_EQ(e.GetString("/message"), "replica 2 of 3 missing");
  EXPECT_EQ(e.GetInt("/count"), 1);
  EXPECT_EQ(e.GetString("/involvedObject/kind"), "ConfigMap");
  EXPECT_EQ(e.GetString("/involvedObject/name"), "web");
  EXPECT_EQ(e.GetString("/involvedObject/uid"), "web-uid");
  EXPECT_EQ(e.GetString("/involvedObject/resourceVersion"), "7");
  EXPECT_EQ(e.GetString("/source/component"), "test-controller");
  EXPECT_EQ(e.GetString("/source/host"), "node-1");
  EXPECT_EQ(e.GetString("/firstTimestamp"), "2026-01-01T00:00:00Z");
  EXPECT_EQ(e.GetString("/lastTimestamp"), "2026-01-01T00:00:00Z");
  EXPECT_EQ(broadcaster_->Stats().created, 1u);
}

TEST_F(EventRecorderTest, RepeatsPatchCountAndLastTimestampOfTheSameEvent) {
  Start();
  auto obj = MakeObject("web");
  recorder_->Event(*obj, EventType::kNormal, "Scaled", "scaled to 3");
  broadcaster_->Flush();
  clock_.Advance(30s);
  recorder_->Event(*obj, EventType::kNormal, "Scaled", "scaled to 3");
  clock_.Advance(30s);
  recorder_->Event(*obj, EventType::kNormal, "Scaled", "scaled to 3");
  broadcaster_->Flush();
  auto events = Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]->GetInt("/count"), 3);
  EXPECT_EQ(events[0]->GetString("/firstTimestamp"), "2026-01-01T00:00:00Z");
  EXPECT_EQ(events[0]->GetString("/lastTimestamp"), "2026-01-01T00:01:00Z");
  const auto calls = Calls();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_THAT(calls[0], StartsWith("create "));
  EXPECT_THAT(calls[1], StartsWith("patch "));
  EXPECT_THAT(calls[2], StartsWith("patch "));
  EXPECT_EQ(broadcaster_->Stats().patched, 2u);
}

TEST_F(EventRecorderTest, ClusterScopedObjectsGetEventsInDefault) {
  Start();
  auto node = MakeObject("n1", "", "Node");
  recorder_->Event(*node, EventType::kNormal, "Ready", "ready");
  broadcaster_->Flush();
  auto events = Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]->Namespace(), "default");
  EXPECT_FALSE(events[0]->Get("/involvedObject/namespace").has_value());
}

TEST_F(EventRecorderTest, TenSimilarMessagesAreCombined) {
  Start();
  auto obj = MakeObject("web");
  for (int i = 1; i <= 11; ++i) {
    recorder_->Eventf(*obj, EventType::kWarning, "Failed", "attempt {}", i);
    clock_.Advance(1s);
  }
  broadcaster_->Flush();
  auto events = Events();
  ASSERT_EQ(events.size(), 10u);  // 9 individual + 1 combined
  int combined = 0;
  for (const auto& e : events) {
    const auto msg = e->GetString("/message").value_or("");
    if (msg.starts_with("(combined from similar events): ")) {
      ++combined;
      EXPECT_EQ(msg, "(combined from similar events): attempt 11");
      EXPECT_EQ(e->GetInt("/count"), 2);  // attempt 10 created it, attempt 11 patched it
    } else {
      EXPECT_EQ(e->GetInt("/count"), 1);
    }
  }
  EXPECT_EQ(combined, 1);
  EXPECT_EQ(broadcaster_->Stats().aggregated, 2u);
}

TEST_F(EventRecorderTest, AggregationWindowRestartsAfterTenMinutes) {
  Start();
  auto obj = MakeObject("web");
  for (int i = 1; i <= 9; ++i) recorder_->Eventf(*obj, EventType::kWarning, "Failed", "attempt {}", i);
  clock_.Advance(11min);
  recorder_->Event(*obj, EventType::kWarning, "Failed", "attempt 10");
  broadcaster_->Flush();
  for (const auto& e : Events()) {
    EXPECT_THAT(e->GetString("/message").value_or(""), Not(HasSubstr("combined")));
  }
  EXPECT_EQ(broadcaster_->Stats().aggregated, 0u);
}

TEST_F(EventRecorderTest, DifferentReasonsAreNotCombined) {
  Start();
  auto obj = MakeObject("web");
  for (int i = 1; i <= 12; ++i) recorder_->Eventf(*obj, EventType::kNormal, "Reason" + std::to_string(i), "m{}", i);
  broadcaster_->Flush();
  EXPECT_EQ(Events().size(), 12u);
  EXPECT_EQ(broadcaster_->Stats().aggregated, 0u);
}

TEST_F(EventRecorderTest, SpamFilterAllowsBurstOf25ThenOnePerFiveMinutes) {
  Start();
  auto obj = MakeObject("web");
  auto other = MakeObject("db");
  for (int i = 0; i < 30; ++i) recorder_->Eventf(*obj, EventType::kNormal, "R" + std::to_string(i), "m");
  recorder_->Event(*other, EventType::kNormal, "R", "m");  // another object has its own bucket
  broadcaster_->Flush();
  EXPECT_EQ(Events().size(), 26u);
  EXPECT_EQ(broadcaster_->Stats().filtered, 5u);
  clock_.Advance(4min);
  recorder_->Event(*obj, EventType::kNormal, "Later", "m");
  broadcaster_->Flush();
  EXPECT_EQ(broadcaster_->Stats().filtered, 6u);
  clock_.Advance(1min);  // 5 minutes since the bucket ran dry: one token
  recorder_->Event(*obj, EventType::kNormal, "Later2", "m");
  recorder_->Event(*obj, EventType::kNormal, "Later3", "m");
  broadcaster_->Flush();
  EXPECT_EQ(Events().size(), 27u);
  EXPECT_EQ(broadcaster_->Stats().filtered, 7u);
}

TEST_F(EventRecorderTest, PatchOfAVanishedEventCreatesItAgainWithTheCount) {
  Start();
  auto obj = MakeObject("web");
  recorder_->Event(*obj, EventType::kNormal, "Scaled", "x");
  broadcaster_->Flush();
  {
    MutexLock lock(shared_->mu);
    shared_->events.clear();
  }
  recorder_->Event(*obj, EventType::kNormal, "Scaled", "x");
  broadcaster_->Flush();
  auto events = Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]->GetInt("/count"), 2);
  const auto calls = Calls();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_THAT(calls[1], StartsWith("patch "));
  EXPECT_THAT(calls[2], StartsWith("create "));
}

TEST_F(EventRecorderTest, LruEvictionForgetsTheOldestEvent) {
  Start({.cache_size = 2});
  auto a = MakeObject("a"), b = MakeObject("b"), c = MakeObject("c");
  recorder_->Event(*a, EventType::kNormal, "R", "m");
  recorder_->Event(*b, EventType::kNormal, "R", "m");
  recorder_->Event(*c, EventType::kNormal, "R", "m");  // evicts a
  clock_.Advance(1s);                                  // a new name for a's second event
  recorder_->Event(*a, EventType::kNormal, "R", "m");
  recorder_->Event(*c, EventType::kNormal, "R", "m");  // still cached: a patch
  broadcaster_->Flush();
  const auto calls = Calls();
  ASSERT_EQ(calls.size(), 5u);
  EXPECT_THAT(calls[3], StartsWith("create default/a."));
  EXPECT_THAT(calls[4], StartsWith("patch default/c."));
  EXPECT_EQ(Events().size(), 4u);
}

TEST_F(EventRecorderTest, FullQueueDropsAndCountsWithoutBlockingTheCaller) {
  {
    MutexLock lock(shared_->mu);
    shared_->block = true;
  }
  Start({.queue_capacity = 2});
  auto obj = MakeObject("web");
  recorder_->Event(*obj, EventType::kNormal, "R0", "m");
  {
    // Wait until the writer holds event 0 inside the sink, so the queue is empty again.
    MutexLock lock(shared_->mu);
    while (shared_->blocked == 0) shared_->cv.Wait(shared_->mu);
  }
  for (int i = 1; i <= 5; ++i) recorder_->Eventf(*obj, EventType::kNormal, "R" + std::to_string(i), "m");
  auto stats = broadcaster_->Stats();
  EXPECT_EQ(stats.recorded, 3u);
  EXPECT_EQ(stats.dropped, 3u);
  {
    MutexLock lock(shared_->mu);
    shared_->block = false;
    shared_->cv.SignalAll();
  }
  broadcaster_->Flush();
  EXPECT_EQ(Events().size(), 3u);
}

TEST_F(EventRecorderTest, TransientErrorsAreRetriedOnTheClock) {
  {
    MutexLock lock(shared_->mu);
    shared_->fail_next = 2;
  }
  Start({.max_attempts = 3, .retry_interval = 10s});
  auto obj = MakeObject("web");
  recorder_->Event(*obj, EventType::kNormal, "R", "m");
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(clock_.BlockUntilWaiters(1));
    clock_.Advance(10s);
  }
  broadcaster_->Flush();
  EXPECT_EQ(Events().size(), 1u);
  EXPECT_EQ(Calls().size(), 3u);
  EXPECT_EQ(broadcaster_->Stats().failed, 0u);
}

TEST_F(EventRecorderTest, PermanentErrorsAreNotRetried) {
  Start();
  auto obj = MakeObject("web");
  recorder_->Event(*obj, EventType::kNormal, "R", "m");
  broadcaster_->Flush();
  {
    // Same name again (the clock did not move) after losing the dedup cache: AlreadyExists.
    MutexLock lock(shared_->mu);
    shared_->calls.clear();
  }
  auto second = EventBroadcaster::Create(std::make_unique<FakeSink>(shared_), {.clock = &clock_});
  auto rec = second->NewRecorder("test-controller");
  rec->Event(*obj, EventType::kNormal, "R", "m");
  second->Flush();
  EXPECT_EQ(Calls().size(), 1u);
  EXPECT_EQ(second->Stats().failed, 1u);
}

TEST_F(EventRecorderTest, ShutdownDropsLaterEvents) {
  Start();
  auto obj = MakeObject("web");
  recorder_->Event(*obj, EventType::kNormal, "R", "m");
  broadcaster_->Shutdown();
  EXPECT_EQ(Events().size(), 1u);  // queued events are written before the thread ends
  recorder_->Event(*obj, EventType::kNormal, "R2", "m");
  EXPECT_EQ(broadcaster_->Stats().dropped, 1u);
  broadcaster_->Shutdown();
}

TEST(FakeEventRecorder, KeepsControllerRuntimeFormat) {
  FakeEventRecorder r;
  auto obj = MakeObject("web");
  r.Eventf(*obj, EventType::kWarning, "Failed", "code {}", 7);
  r.Event(*obj, EventType::kNormal, "Ok", "fine");
  EXPECT_THAT(r.Events(), ::testing::ElementsAre("Warning Failed code 7", "Normal Ok fine"));
  r.Clear();
  EXPECT_TRUE(r.Events().empty());
}

}  // namespace
}  // namespace kube::controller
