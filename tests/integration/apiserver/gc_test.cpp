// Deletion with propagation, the garbage collector, the namespace controller and event expiry
// (apiserver-semantics.md §3.5, §5.2) against the in-process server. The controllers run on their
// own threads, so outcomes are awaited by polling (bounded) rather than assumed at once.

#include <chrono>
#include <functional>
#include <thread>

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <kube/base/clock.hpp>
#include <kube/core/time.hpp>

#include "fixture.hpp"

namespace kube::apiserver::testing {
namespace {

namespace json = boost::json;

constexpr std::string_view kCm = "/api/v1/namespaces/default/configmaps/";

// Polls `pred` until it holds or 10 s pass (integration test against a real server thread).
bool Eventually(const std::function<bool()>& pred) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return pred();
}

class GcTest : public ApiServerTest {
 protected:
  // Creates ConfigMap `name` in `ns` owned by the given owners ({name, uid, block}).
  struct Owner {
    std::string kind = "ConfigMap";
    std::string api_version = "v1";
    std::string name;
    std::string uid;
    bool block = false;
    bool controller = false;
  };
  json::object CreateOwned(std::string_view ns, std::string_view name, const std::vector<Owner>& owners,
                           std::string_view finalizers = "[]") {
    json::array refs;
    for (const auto& o : owners) {
      json::object ref{{"apiVersion", o.api_version}, {"kind", o.kind}, {"name", o.name}, {"uid", o.uid}};
      if (o.controller) ref["controller"] = true;
      if (o.block) ref["blockOwnerDeletion"] = true;
      refs.emplace_back(std::move(ref));
    }
    json::object meta{{"name", name}, {"ownerReferences", std::move(refs)}, {"finalizers", json::parse(finalizers)}};
    json::object body{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", std::move(meta)}};
    auto res = client().Post("/api/v1/namespaces/" + std::string(ns) + "/configmaps", json::serialize(body));
    EXPECT_EQ(res.status, 201) << res.body;
    return res.Json().is_object() ? res.Json().as_object() : json::object();
  }
  std::string Uid(const json::object& obj) { return Str(obj, {"metadata", "uid"}); }
  int Status(std::string_view path) { return client().Get(path).status; }
  bool Gone(std::string_view path) {
    return Eventually([&] { return Status(path) == 404; });
  }
  std::string Cm(std::string_view name) { return std::string(kCm) + std::string(name); }
};

TEST_F(GcTest, BackgroundDeletionCollectsDependentsTransitively) {
  auto owner = CreateConfigMap("default", "owner");
  auto child = CreateOwned("default", "child", {{.name = "owner", .uid = Uid(owner), .controller = true}});
  CreateOwned("default", "grandchild", {{.name = "child", .uid = Uid(child)}});
  CreateConfigMap("default", "bystander");
  auto res = client().Delete(Cm("owner"));
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(Str(res.Json(), {"status"}), "Success") << "background: the owner goes at once";
  EXPECT_TRUE(Gone(Cm("child")));
  EXPECT_TRUE(Gone(Cm("grandchild")));
  EXPECT_EQ(Status(Cm("bystander")), 200);
}

TEST_F(GcTest, DependentsOfAbsentOrReplacedOwnersAreCollected) {
  // An owner uid that never existed.
  CreateOwned("default", "orphaned", {{.name = "ghost", .uid = "00000000-0000-4000-8000-000000000000"}});
  EXPECT_TRUE(Gone(Cm("orphaned")));
  // The owner's name exists but with another uid (deleted and recreated): absent, by uid.
  auto first = CreateConfigMap("default", "reborn");
  const std::string old_uid = Uid(first);
  ASSERT_EQ(client().Delete(Cm("reborn")).status, 200);
  CreateConfigMap("default", "reborn");
  CreateOwned("default", "stale-ref", {{.name = "reborn", .uid = old_uid}});
  EXPECT_TRUE(Gone(Cm("stale-ref")));
  EXPECT_EQ(Status(Cm("reborn")), 200);
}

TEST_F(GcTest, CrossNamespaceOwnerReferencesCountAsAbsent) {
  CreateNamespace("other");
  auto owner = CreateConfigMap("other", "owner");
  CreateOwned("default", "cross", {{.name = "owner", .uid = Uid(owner)}});
  EXPECT_TRUE(Gone(Cm("cross")));
  EXPECT_EQ(Status("/api/v1/namespaces/other/configmaps/owner"), 200);
}

TEST_F(GcTest, ClusterScopedOwnersOfNamespacedDependents) {
  auto ns = client().Post("/api/v1/namespaces", R"({"metadata":{"name":"owner-ns"}})");
  ASSERT_EQ(ns.status, 201);
  auto node = client().Post("/api/v1/nodes", R"({"metadata":{"name":"n1"}})");
  ASSERT_EQ(node.status, 201) << node.body;
  CreateOwned("default", "on-node", {{.kind = "Node", .name = "n1", .uid = Uid(node.Json().as_object())}});
  ASSERT_EQ(client().Delete("/api/v1/nodes/n1").status, 200);
  EXPECT_TRUE(Gone(Cm("on-node")));
}

TEST_F(GcTest, DanglingReferencesAreRemovedWhileALiveOwnerRemains) {
  auto a = CreateConfigMap("default", "a");
  auto b = CreateConfigMap("default", "b");
  CreateOwned("default", "shared", {{.name = "a", .uid = Uid(a)}, {.name = "b", .uid = Uid(b)}});
  ASSERT_EQ(client().Delete(Cm("a")).status, 200);
  ASSERT_TRUE(Eventually([&] {
    auto res = client().Get(Cm("shared"));
    return res.status == 200 && res.Json().as_object().at("metadata").as_object().at("ownerReferences").as_array().size() == 1;
  }));
  auto shared = client().Get(Cm("shared")).Json();
  EXPECT_EQ(Str(shared.at("metadata").at("ownerReferences").at(0), {"name"}), "b");
  // The last owner going takes it along.
  ASSERT_EQ(client().Delete(Cm("b")).status, 200);
  EXPECT_TRUE(Gone(Cm("shared")));
}

TEST_F(GcTest, ForegroundDeletionWaitsForBlockingDependents) {
  auto owner = CreateConfigMap("default", "fg-owner");
  CreateOwned("default", "fg-blocker", {{.name = "fg-owner", .uid = Uid(owner), .block = true}},
              R"(["example.com/hold"])");
  CreateOwned("default", "fg-plain", {{.name = "fg-owner", .uid = Uid(owner)}});
  auto res = client().Delete(Cm("fg-owner"), R"({"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Foreground"})");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_NE(Str(res.Json(), {"metadata", "deletionTimestamp"}), "");
  EXPECT_EQ(Str(res.Json(), {"metadata", "finalizers"}), R"(["foregroundDeletion"])");
  EXPECT_EQ(Str(res.Json(), {"metadata", "deletionGracePeriodSeconds"}), "0");
  // The dependents are deleted first; the held one stays (deleting) and blocks the owner.
  EXPECT_TRUE(Gone(Cm("fg-plain")));
  ASSERT_TRUE(Eventually([&] { return Str(client().Get(Cm("fg-blocker")).Json(), {"metadata", "deletionTimestamp"}) != ""; }));
  EXPECT_EQ(Status(Cm("fg-owner")), 200) << "blocked by a blockOwnerDeletion dependent";
  // Releasing the dependent lets it go, and then the owner.
  auto release = client().Patch(Cm("fg-blocker"), R"({"metadata":{"finalizers":null}})", "application/merge-patch+json");
  ASSERT_EQ(release.status, 200) << release.body;
  EXPECT_TRUE(Gone(Cm("fg-blocker")));
  EXPECT_TRUE(Gone(Cm("fg-owner")));
}

TEST_F(GcTest, ForegroundOwnerGoesWhenNoDependentBlocks) {
  auto owner = CreateConfigMap("default", "quick");
  CreateOwned("default", "quick-dep", {{.name = "quick", .uid = Uid(owner)}}, R"(["example.com/hold"])");
  auto res = client().Delete(Cm("quick"), R"({"propagationPolicy":"Foreground"})");
  ASSERT_EQ(res.status, 200);
  // The dependent does not block (no blockOwnerDeletion): the owner goes while it is held. As in
  // kube, a non-blocking dependent is deleted by the collector too, but not necessarily before
  // the owner is gone.
  EXPECT_TRUE(Gone(Cm("quick")));
  ASSERT_TRUE(Eventually([&] { return Str(client().Get(Cm("quick-dep")).Json(), {"metadata", "deletionTimestamp"}) != ""; }));
  EXPECT_EQ(Status(Cm("quick-dep")), 200) << "held by its finalizer";
}

TEST_F(GcTest, OrphanDeletionKeepsDependentsAndDropsTheirReference) {
  auto owner = CreateConfigMap("default", "parent");
  auto other = CreateConfigMap("default", "other-parent");
  CreateOwned("default", "kept", {{.name = "parent", .uid = Uid(owner)}, {.name = "other-parent", .uid = Uid(other)}});
  CreateOwned("default", "kept-alone", {{.name = "parent", .uid = Uid(owner)}});
  auto res = client().Delete(Cm("parent") + "?propagationPolicy=Orphan");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(Str(res.Json(), {"metadata", "finalizers"}), R"(["orphan"])");
  EXPECT_TRUE(Gone(Cm("parent")));
  auto kept = client().Get(Cm("kept"));
  ASSERT_EQ(kept.status, 200);
  EXPECT_EQ(Str(kept.Json(), {"metadata", "ownerReferences"}),
            json::serialize(json::array{json::object{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "other-parent"}, {"uid", Uid(other)}}}));
  auto alone = client().Get(Cm("kept-alone"));
  ASSERT_EQ(alone.status, 200);
  EXPECT_EQ(Str(alone.Json(), {"metadata", "ownerReferences"}), "") << "the last reference goes, and the field with it";
}

TEST_F(GcTest, OrphanDependentsFalseAnswers202WhileTheObjectStays) {
  // orphanDependents=false means "do not orphan" (no GC finalizer): an object that stays because of
  // its own finalizer is answered with 202 Accepted, as kube does for explicit cascading.
  auto res = client().Post("/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"legacy","finalizers":["example.com/hold"]}})");
  ASSERT_EQ(res.status, 201);
  auto deleted = client().Delete(Cm("legacy"), R"({"orphanDependents":false})");
  EXPECT_EQ(deleted.status, 202) << deleted.body;
  EXPECT_EQ(Str(deleted.Json(), {"metadata", "finalizers"}), R"(["example.com/hold"])");
  EXPECT_NE(Str(deleted.Json(), {"metadata", "deletionTimestamp"}), "");
  auto orphan = client().Delete(Cm("legacy"), R"({"orphanDependents":true})");
  EXPECT_EQ(orphan.status, 200);
  EXPECT_EQ(Str(orphan.Json(), {"metadata", "finalizers"}), R"(["example.com/hold","orphan"])");
  auto both = client().Delete(Cm("legacy"), R"({"orphanDependents":true,"propagationPolicy":"Orphan"})");
  EXPECT_EQ(both.status, 422);
  EXPECT_EQ(Str(both.Json(), {"message"}),
            "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Invalid value: \"Orphan\": orphanDependents and deletionPropagation cannot be both set");
}

TEST_F(GcTest, SecondDeleteReturnsTheObjectAndMayChangeThePolicy) {
  auto owner = CreateConfigMap("default", "twice");
  CreateOwned("default", "twice-dep", {{.name = "twice", .uid = Uid(owner), .block = true}}, R"(["example.com/hold"])");
  auto first = client().Delete(Cm("twice"), R"({"propagationPolicy":"Foreground"})");
  ASSERT_EQ(first.status, 200);
  auto again = client().Delete(Cm("twice"));
  ASSERT_EQ(again.status, 200);
  EXPECT_EQ(Str(again.Json(), {"metadata", "deletionTimestamp"}), Str(first.Json(), {"metadata", "deletionTimestamp"}));
  EXPECT_EQ(Str(again.Json(), {"metadata", "finalizers"}), R"(["foregroundDeletion"])");
  // Switching to background drops the GC finalizer: nothing holds the owner any more.
  auto background = client().Delete(Cm("twice"), R"({"propagationPolicy":"Background"})");
  ASSERT_EQ(background.status, 200) << background.body;
  EXPECT_EQ(Status(Cm("twice")), 404);
}

TEST_F(GcTest, GenerationIsBumpedWhenDeletionStarts) {
  auto dep = client().Post("/apis/apps/v1/namespaces/default/deployments", R"({"metadata":{"name":"web","finalizers":["example.com/hold"]},
      "spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}})");
  ASSERT_EQ(dep.status, 201) << dep.body;
  EXPECT_EQ(Str(dep.Json(), {"metadata", "generation"}), "1");
  auto res = client().Delete("/apis/apps/v1/namespaces/default/deployments/web");
  ASSERT_EQ(res.status, 200);
  EXPECT_EQ(Str(res.Json(), {"metadata", "generation"}), "2");
}

TEST_F(GcTest, DryRunDeleteChangesNothing) {
  auto owner = CreateConfigMap("default", "dry");
  CreateOwned("default", "dry-dep", {{.name = "dry", .uid = Uid(owner)}});
  auto res = client().Delete(Cm("dry") + "?dryRun=All");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(Status(Cm("dry")), 200);
  auto fg = client().Delete(Cm("dry"), R"({"dryRun":["All"],"propagationPolicy":"Foreground"})");
  ASSERT_EQ(fg.status, 200);
  EXPECT_EQ(Str(fg.Json(), {"metadata", "finalizers"}), R"(["foregroundDeletion"])");
  auto live = client().Get(Cm("dry"));
  EXPECT_EQ(Str(live.Json(), {"metadata", "finalizers"}), "");
  EXPECT_EQ(Str(live.Json(), {"metadata", "deletionTimestamp"}), "");
  EXPECT_EQ(Status(Cm("dry-dep")), 200);
}

TEST_F(GcTest, DeleteCollectionPropagates) {
  auto a = CreateConfigMap("default", "col-a", R"({"set":"x"})");
  CreateOwned("default", "col-a-dep", {{.name = "col-a", .uid = Uid(a)}});
  auto res = client().Delete("/api/v1/namespaces/default/configmaps?labelSelector=set%3Dx&propagationPolicy=Orphan");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_TRUE(Gone(Cm("col-a")));
  ASSERT_TRUE(Eventually([&] { return Str(client().Get(Cm("col-a-dep")).Json(), {"metadata", "ownerReferences"}).empty(); }));
  EXPECT_EQ(Status(Cm("col-a-dep")), 200);
}

TEST_F(GcTest, NamespaceDeletionCompletesAndReportsWhatRemains) {
  CreateNamespace("doomed");
  CreateConfigMap("doomed", "plain");
  ASSERT_EQ(client().Post("/api/v1/namespaces/doomed/configmaps",
                          R"({"metadata":{"name":"held","finalizers":["example.com/hold"]}})").status, 201);
  ASSERT_EQ(client().Delete("/api/v1/namespaces/doomed").status, 200);
  EXPECT_TRUE(Gone("/api/v1/namespaces/doomed/configmaps/plain"));
  // The held object keeps the namespace Terminating, and its conditions say why.
  ASSERT_TRUE(Eventually([&] {
    auto ns = client().Get("/api/v1/namespaces/doomed").Json();
    return Str(ns, {"status", "conditions"}).find("SomeFinalizersRemain") != std::string::npos;
  }));
  auto ns = client().Get("/api/v1/namespaces/doomed").Json();
  EXPECT_EQ(Str(ns, {"status", "phase"}), "Terminating");
  bool content = false, finalizers = false;
  for (const auto& c : ns.at("status").at("conditions").as_array()) {
    if (Str(c, {"type"}) == "NamespaceContentRemaining") {
      content = true;
      EXPECT_EQ(Str(c, {"status"}), "True");
      EXPECT_EQ(Str(c, {"message"}), "Some resources are remaining: configmaps has 1 resource instances");
    }
    if (Str(c, {"type"}) == "NamespaceFinalizersRemaining") {
      finalizers = true;
      EXPECT_EQ(Str(c, {"message"}),
                "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances");
    }
  }
  EXPECT_TRUE(content);
  EXPECT_TRUE(finalizers);
  // Releasing the last object finishes the namespace without anyone calling /finalize.
  ASSERT_EQ(client().Patch("/api/v1/namespaces/doomed/configmaps/held", R"({"metadata":{"finalizers":null}})",
                           "application/merge-patch+json").status, 200);
  EXPECT_TRUE(Gone("/api/v1/namespaces/doomed"));
}

TEST_F(GcTest, NamespaceWithAMetadataFinalizerWaitsForIt) {
  ASSERT_EQ(client().Post("/api/v1/namespaces", R"({"metadata":{"name":"meta-held","finalizers":["example.com/ns"]}})").status, 201);
  ASSERT_EQ(client().Delete("/api/v1/namespaces/meta-held").status, 200);
  ASSERT_TRUE(Eventually([&] { return Str(client().Get("/api/v1/namespaces/meta-held").Json(), {"spec", "finalizers"}).empty(); }))
      << "the controller removes `kubernetes` once the namespace is empty";
  EXPECT_EQ(Status("/api/v1/namespaces/meta-held"), 200);
  ASSERT_EQ(client().Patch("/api/v1/namespaces/meta-held", R"({"metadata":{"finalizers":null}})",
                           "application/merge-patch+json").status, 200);
  EXPECT_TRUE(Gone("/api/v1/namespaces/meta-held"));
}

// Event expiry on a FakeClock: the controller's deadlines follow the server's clock.
class EventTtlTest : public ApiServerTest {
 protected:
  ApiServerOptions Options() override {
    ApiServerOptions o = ApiServerTest::Options();
    o.clock = &clock_;
    o.controllers.event_ttl = std::chrono::hours(1);
    return o;
  }
  void CreateEvent(std::string_view name) {
    auto res = client().Post("/api/v1/namespaces/default/events",
                             R"({"metadata":{"name":")" + std::string(name) +
                                 R"("},"involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"reason":"R","message":"m","type":"Normal","count":1})");
    ASSERT_EQ(res.status, 201) << res.body;
  }
  int EventStatus(std::string_view name) {
    return client().Get("/api/v1/namespaces/default/events/" + std::string(name)).status;
  }
  FakeClock clock_;
};

TEST_F(EventTtlTest, EventsExpireAnHourAfterTheirLastWrite) {
  CreateEvent("early");
  clock_.Advance(std::chrono::minutes(30));
  CreateEvent("late");
  clock_.Advance(std::chrono::minutes(20));
  // Written again at t=50 min (as a recorder does: count and lastTimestamp): lives until t=110 min.
  ASSERT_EQ(client().Patch("/api/v1/namespaces/default/events/late",
                           R"({"count":2,"lastTimestamp":")" + FormatTime(clock_.WallNow()) + R"("})",
                           "application/merge-patch+json").status, 200);
  clock_.Advance(std::chrono::minutes(11));  // t=61: "early" expires
  EXPECT_TRUE(Eventually([&] { return EventStatus("early") == 404; }));
  EXPECT_EQ(EventStatus("late"), 200) << "expiry runs in deadline order, so 'late' was already judged";
  clock_.Advance(std::chrono::minutes(50));  // t=111
  EXPECT_TRUE(Eventually([&] { return EventStatus("late") == 404; }));
}

// Pod GC: a gracefully deleted pod waits for its node's kubelet; on a node that does not exist
// (or no longer does) it is deleted at once.
TEST_F(GcTest, PodGcCollectsTerminatingPodsWhoseNodeIsGone) {
  auto node = client().Post("/api/v1/nodes", R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"gc-node"}})");
  ASSERT_EQ(node.status, 201) << node.body;
  auto pod = [&](std::string_view name, std::string_view node_name) {
    const std::string body = std::string(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")") + std::string(name) +
                             R"("},"spec":{"nodeName":")" + std::string(node_name) +
                             R"(","containers":[{"name":"c","image":"i"}]}})";
    auto res = client().Post("/api/v1/namespaces/default/pods", body);
    ASSERT_EQ(res.status, 201) << res.body;
  };
  pod("on-live-node", "gc-node");
  pod("on-missing-node", "no-such-node");
  for (std::string_view name : {"on-live-node", "on-missing-node"}) {
    auto res = client().Delete("/api/v1/namespaces/default/pods/" + std::string(name));
    ASSERT_EQ(res.status, 200) << res.body;
    EXPECT_EQ(Str(res.Json(), {"metadata", "deletionGracePeriodSeconds"}), "30") << name;
  }
  EXPECT_TRUE(Gone("/api/v1/namespaces/default/pods/on-missing-node"));
  // The pod on a live node waits for its kubelet (checked after the other one went).
  EXPECT_EQ(Status("/api/v1/namespaces/default/pods/on-live-node"), 200);
  ASSERT_EQ(client().Delete("/api/v1/nodes/gc-node").status, 200);
  EXPECT_TRUE(Gone("/api/v1/namespaces/default/pods/on-live-node"));
}

}  // namespace
}  // namespace kube::apiserver::testing
