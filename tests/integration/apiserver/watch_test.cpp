// WATCH over real HTTP: start revisions, initial state, DELETED state, bookmarks, timeouts, the
// 410 ERROR event, selector transitions, watch-list, Table events, and stream termination.

#include <chrono>
#include <memory>
#include <vector>

#include "fixture.hpp"

namespace kube::apiserver::testing {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

constexpr std::string_view kCm = "/api/v1/namespaces/default/configmaps";

class WatchTest : public ApiServerTest {
 protected:
  std::unique_ptr<StreamReader> Watch(const std::string& query, Headers headers = {}) {
    auto w = std::make_unique<StreamReader>(port(), std::string(kCm) + "?watch=1&" + query, std::move(headers));
    EXPECT_EQ(w->Status(), 200);
    return w;
  }
  static std::string Type(const json::value& e) { return Str(e, {"type"}); }
  static std::string Name(const json::value& e) { return Str(e, {"object", "metadata", "name"}); }
};

TEST_F(WatchTest, FromAResourceVersionDeliversOnlyLaterChanges) {
  CreateConfigMap("default", "before");
  const std::string rv = std::to_string(storage().CurrentRevision());
  auto w = Watch("resourceVersion=" + rv);
  auto created = CreateConfigMap("default", "a", "{}", R"({"k":"1"})");
  ASSERT_EQ(client().Patch(std::string(kCm) + "/a", R"({"data":{"k":"2"}})", "application/merge-patch+json").status, 200);
  auto e1 = w->NextEvent();
  EXPECT_EQ(Type(e1), "ADDED");
  EXPECT_EQ(Name(e1), "a");
  EXPECT_EQ(Rv(e1.as_object().at("object")), Rv(created));
  auto e2 = w->NextEvent();
  EXPECT_EQ(Type(e2), "MODIFIED");
  EXPECT_EQ(Str(e2, {"object", "data", "k"}), "2");
  EXPECT_EQ(Str(e2, {"object", "kind"}), "ConfigMap");
}

TEST_F(WatchTest, WithoutAResourceVersionTheCurrentStateComesFirst) {
  CreateConfigMap("default", "a");
  CreateConfigMap("default", "b");
  auto w = Watch("");
  EXPECT_EQ(Name(w->NextEvent()), "a");
  auto b = w->NextEvent();
  EXPECT_EQ(Type(b), "ADDED");
  EXPECT_EQ(Name(b), "b");
  CreateConfigMap("default", "c");
  auto c = w->NextEvent();
  EXPECT_EQ(Type(c), "ADDED");
  EXPECT_EQ(Name(c), "c");
  auto zero = Watch("resourceVersion=0");
  EXPECT_EQ(Name(zero->NextEvent()), "a");
}

TEST_F(WatchTest, DeletedCarriesTheLastStateAtTheDeleteRevision) {
  CreateConfigMap("default", "a", R"({"x":"y"})", R"({"k":"v"})");
  auto w = Watch("resourceVersion=" + std::to_string(storage().CurrentRevision()));
  ASSERT_EQ(client().Delete(std::string(kCm) + "/a").status, 200);
  auto e = w->NextEvent();
  EXPECT_EQ(Type(e), "DELETED");
  EXPECT_EQ(Str(e, {"object", "data", "k"}), "v");
  EXPECT_EQ(Rv(e.as_object().at("object")), std::to_string(storage().CurrentRevision()));
}

TEST_F(WatchTest, NoOpUpdatesEmitNoEvent) {
  auto created = CreateConfigMap("default", "a", "{}", R"({"k":"v"})");
  auto w = Watch("resourceVersion=" + Rv(created));
  ASSERT_EQ(client().Put(std::string(kCm) + "/a", json::serialize(created)).status, 200);
  CreateConfigMap("default", "marker");
  EXPECT_EQ(Name(w->NextEvent()), "marker") << "the no-op PUT produced no event before it";
}

TEST_F(WatchTest, BookmarksCarryProgressWhenAllowed) {
  auto created = CreateConfigMap("default", "a");
  auto w = Watch("allowWatchBookmarks=true&resourceVersion=" + Rv(created));
  // A change in another collection advances the revision without an event on this watch.
  CreateNamespace("elsewhere");
  const std::string current = std::to_string(storage().CurrentRevision());
  for (int i = 0; i < 20; ++i) {
    auto e = w->NextEvent(5s);
    ASSERT_FALSE(e.is_null()) << "no bookmark arrived";
    ASSERT_EQ(Type(e), "BOOKMARK") << json::serialize(e);
    EXPECT_EQ(Str(e, {"object", "kind"}), "ConfigMap");
    EXPECT_EQ(Str(e, {"object", "apiVersion"}), "v1");
    if (Rv(e.as_object().at("object")) == current) return;
  }
  FAIL() << "bookmarks never reached revision " << current;
}

TEST_F(WatchTest, NoBookmarksUnlessAsked) {
  auto w = Watch("resourceVersion=" + std::to_string(storage().CurrentRevision()) + "&timeoutSeconds=1");
  EXPECT_FALSE(w->NextLine(3s).has_value());
  EXPECT_TRUE(w->Ended());
}

TEST_F(WatchTest, TimeoutSecondsEndsTheStreamCleanly) {
  const auto start = std::chrono::steady_clock::now();
  auto w = Watch("timeoutSeconds=1&resourceVersion=" + std::to_string(storage().CurrentRevision()));
  EXPECT_TRUE(w->Ended(10s));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST_F(WatchTest, ACompactedResourceVersionGivesOneErrorEvent) {
  CreateConfigMap("default", "a");
  const Revision old = storage().CurrentRevision();
  CreateConfigMap("default", "b");
  CreateConfigMap("default", "c");
  const Revision compacted = storage().Compact(storage().CurrentRevision());
  auto w = Watch("resourceVersion=" + std::to_string(old));
  auto line = w->NextLine();
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(*line, R"({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: )" +
                       std::to_string(old) + " (" + std::to_string(compacted) + R"J()","reason":"Expired","code":410}})J");
  EXPECT_TRUE(w->Ended());
}

TEST_F(WatchTest, SelectorTransitionsBecomeAddedAndDeleted) {
  CreateConfigMap("default", "a");
  auto w = Watch("labelSelector=watched%3Dyes&resourceVersion=" + std::to_string(storage().CurrentRevision()));
  const std::string path = std::string(kCm) + "/a";
  auto in = client().Patch(path, R"({"metadata":{"labels":{"watched":"yes"}}})", "application/merge-patch+json");
  ASSERT_EQ(in.status, 200);
  ASSERT_EQ(client().Patch(path, R"({"data":{"k":"v"}})", "application/merge-patch+json").status, 200);
  auto out = client().Patch(path, R"({"metadata":{"labels":{"watched":"no"}}})", "application/merge-patch+json");
  ASSERT_EQ(out.status, 200);
  CreateConfigMap("default", "unwatched");
  auto added = w->NextEvent();
  EXPECT_EQ(Type(added), "ADDED");
  EXPECT_EQ(Rv(added.as_object().at("object")), Rv(in.Json()));
  EXPECT_EQ(Type(w->NextEvent()), "MODIFIED");
  auto deleted = w->NextEvent();
  EXPECT_EQ(Type(deleted), "DELETED");
  EXPECT_EQ(Str(deleted, {"object", "metadata", "labels", "watched"}), "yes") << "the old state";
  EXPECT_EQ(Rv(deleted.as_object().at("object")), Rv(out.Json())) << "at the event's revision";
  EXPECT_FALSE(w->NextLine(500ms).has_value()) << "objects outside the selector are not sent";
}

TEST_F(WatchTest, FieldSelectorOnNameFollowsOneObject) {
  auto w = Watch("fieldSelector=metadata.name%3Db");
  CreateConfigMap("default", "a");
  CreateConfigMap("default", "b");
  EXPECT_EQ(Name(w->NextEvent()), "b");
}

TEST_F(WatchTest, SendInitialEventsEndsWithTheAnnotatedBookmark) {
  CreateConfigMap("default", "a");
  CreateConfigMap("default", "b");
  const std::string snapshot = std::to_string(storage().CurrentRevision());
  auto w = Watch("sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true");
  EXPECT_EQ(Name(w->NextEvent()), "a");
  EXPECT_EQ(Name(w->NextEvent()), "b");
  auto end = w->NextEvent();
  EXPECT_EQ(Type(end), "BOOKMARK");
  EXPECT_EQ(Str(end, {"object", "metadata", "annotations", "k8s.io/initial-events-end"}), "true");
  EXPECT_EQ(Rv(end.as_object().at("object")), snapshot);
  CreateConfigMap("default", "c");
  for (int i = 0; i < 10; ++i) {
    auto e = w->NextEvent();
    if (Type(e) == "BOOKMARK") continue;
    EXPECT_EQ(Type(e), "ADDED");
    EXPECT_EQ(Name(e), "c");
    return;
  }
  FAIL() << "no live event after the initial events";
}

TEST_F(WatchTest, InvalidWatchOptionsAre422) {
  auto res = client().Get(std::string(kCm) + "?watch=1&sendInitialEvents=true");
  EXPECT_EQ(res.status, 422);
  EXPECT_EQ(Str(res.Json(), {"message"}),
            "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan");
  auto bad_selector = client().Get(std::string(kCm) + "?watch=1&labelSelector=a%20in");
  EXPECT_EQ(bad_selector.status, 400);
}

TEST_F(WatchTest, TableEventsCarryColumnsOnlyOnce) {
  CreateConfigMap("default", "a");
  CreateConfigMap("default", "b");
  auto w = Watch("", {{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}});
  auto first = w->NextEvent();
  EXPECT_EQ(Str(first, {"object", "kind"}), "Table");
  EXPECT_FALSE(first.as_object().at("object").as_object().at("columnDefinitions").as_array().empty());
  auto second = w->NextEvent();
  EXPECT_EQ(Str(second, {"object", "kind"}), "Table");
  const auto& cols = second.as_object().at("object").as_object().at("columnDefinitions");
  EXPECT_TRUE(cols.is_null() || cols.as_array().empty());
}

TEST_F(WatchTest, MetadataOnlyEvents) {
  CreateConfigMap("default", "a", R"({"x":"y"})", R"({"k":"v"})");
  auto w = Watch("", {{"Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"}});
  auto e = w->NextEvent();
  EXPECT_EQ(Str(e, {"object", "kind"}), "PartialObjectMetadata");
  EXPECT_EQ(Str(e, {"object", "metadata", "labels", "x"}), "y");
  EXPECT_EQ(Str(e, {"object", "data"}), "");
}

TEST_F(WatchTest, EventsV1WatchServesTheConvertedView) {
  StreamReader w(port(), "/apis/events.k8s.io/v1/namespaces/default/events?watch=1");
  ASSERT_EQ(w.Status(), 200);
  auto res = client().Post("/api/v1/namespaces/default/events",
                           R"({"metadata":{"name":"e1"},"involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"message":"m"})");
  ASSERT_EQ(res.status, 201) << res.body;
  auto e = w.NextEvent();
  EXPECT_EQ(Type(e), "ADDED");
  EXPECT_EQ(Str(e, {"object", "apiVersion"}), "events.k8s.io/v1");
  EXPECT_EQ(Str(e, {"object", "note"}), "m");
  EXPECT_EQ(Str(e, {"object", "regarding", "name"}), "p");
}

TEST_F(WatchTest, LegacyWatchPath) {
  CreateConfigMap("default", "a");
  StreamReader w(port(), "/api/v1/watch/namespaces/default/configmaps/a");
  ASSERT_EQ(w.Status(), 200);
  EXPECT_EQ(Name(w.NextEvent()), "a");
}

TEST_F(WatchTest, StoppingTheServerEndsOpenWatchesPromptly) {
  auto w = Watch("");
  const auto start = std::chrono::steady_clock::now();
  server_->Stop();
  EXPECT_TRUE(w->Ended(10s));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 8s);
}

TEST_F(WatchTest, AClientThatStopsReadingDoesNotDelayTheOtherWatches) {
  // One delivery thread writes the live events of every watch (RestOptions::
  // watch_delivery_period). A client that stops reading must not stall it: its stream goes back
  // to its own thread, which blocks in its write, while the other watches keep getting events.
  const std::string rv = std::to_string(storage().CurrentRevision());
  auto stalled = std::make_unique<StreamReader>(port(), std::string(kCm) + "?watch=1&resourceVersion=" + rv,
                                                Headers{}, /*paused=*/true);
  ASSERT_EQ(stalled->Status(), 200);
  auto live = Watch("resourceVersion=" + rv);
  // 30 x 512 KiB: far more than the stalled stream's socket buffers hold (loopback receive
  // buffers grow to a few MiB).
  const std::string data = R"({"k":")" + std::string(512 * 1024, 'x') + "\"}";
  constexpr int kObjects = 30;
  for (int i = 0; i < kObjects; ++i) {
    CreateConfigMap("default", "cm-" + std::to_string(i), "{}", data);
    auto e = live->NextEvent(10s);
    ASSERT_FALSE(e.is_null()) << "the live watch got no event " << i << " while the other one is stalled";
    EXPECT_EQ(Name(e), "cm-" + std::to_string(i));
  }
  // The stalled client reads again: it gets everything, in order.
  stalled->Resume();
  for (int i = 0; i < kObjects; ++i) {
    auto e = stalled->NextEvent(10s);
    ASSERT_FALSE(e.is_null()) << "event " << i;
    EXPECT_EQ(Name(e), "cm-" + std::to_string(i));
  }
}

TEST_F(WatchTest, ManyWatchesGetEveryEventInOrder) {
  const std::string rv = std::to_string(storage().CurrentRevision());
  std::vector<std::unique_ptr<StreamReader>> watches;
  for (int i = 0; i < 20; ++i) watches.push_back(Watch("resourceVersion=" + rv));
  constexpr int kObjects = 100;
  for (int i = 0; i < kObjects; ++i) CreateConfigMap("default", "cm-" + std::to_string(i));
  for (std::size_t w = 0; w < watches.size(); ++w) {
    for (int i = 0; i < kObjects; ++i) {
      auto e = watches[w]->NextEvent(10s);
      ASSERT_FALSE(e.is_null()) << "watch " << w << " event " << i;
      ASSERT_EQ(Name(e), "cm-" + std::to_string(i)) << "watch " << w;
    }
  }
}

class SlowWatcherTest : public ApiServerTest {
 protected:
  ApiServerOptions Options() override {
    ApiServerOptions o = ApiServerTest::Options();
    o.storage_options.watcher_buffer = 4;
    return o;
  }
};

TEST_F(SlowWatcherTest, AWatcherThatFallsBehindIsClosedSoItCanRewatch) {
  // Big objects fill the socket buffers, so the server's writer blocks and its storage watcher
  // overflows; the stream must then end instead of hanging or growing without bound.
  const std::string data = R"({"k":")" + std::string(512 * 1024, 'x') + "\"}";
  auto w = std::make_unique<StreamReader>(
      port(), std::string(kCm) + "?watch=1&resourceVersion=" + std::to_string(storage().CurrentRevision()),
      Headers{}, /*paused=*/true);
  ASSERT_EQ(w->Status(), 200);
  for (int i = 0; i < 60; ++i) CreateConfigMap("default", "cm-" + std::to_string(i), "{}", data);
  w->Resume();
  int events = 0;
  while (w->NextLine(10s)) ++events;
  EXPECT_TRUE(w->Ended(1s));
  EXPECT_GT(events, 0);
  EXPECT_LT(events, 60) << "the watcher overflowed, so not every event was delivered";
}

}  // namespace
}  // namespace kube::apiserver::testing
