#include <kube/testing/fake_client.hpp>

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <kube/api/apps/v1.hpp>
#include <kube/api/core/v1.hpp>
#include <kube/base/clock.hpp>
#include <kube/controller/controllerutil.hpp>
#include <kube/controller/finalizer.hpp>
#include <kube/controller/typed.hpp>
#include <kube/core/status.hpp>
#include <kube/core/type_schema.hpp>

namespace kube::testing {
namespace {

using ::testing::HasSubstr;
using controller::ClientInterface;
using controller::ListFilter;
namespace appsv1 = ::kube::api::apps::v1;
namespace corev1 = ::kube::api::core::v1;

const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
const GroupVersionResource kDeployments{"apps", "v1", "deployments"};
const GroupVersionResource kWidgets{"example.com", "v1", "widgets"};
const GroupVersionKind kWidgetKind{"example.com", "v1", "Widget"};

ObjectPtr Obj(std::string_view json) {
  auto o = Object::Parse(json);
  EXPECT_TRUE(o.ok()) << (o.ok() ? "" : o.error().message);
  return o.ok() ? *o : nullptr;
}

ObjectPtr ConfigMap(std::string_view name, std::string_view extra = R"("data":{"k":"v"})") {
  return Obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + std::string(name) +
             R"(","namespace":"default"},)" + std::string(extra) + "}");
}

ObjectPtr Widget(std::string_view name, std::string_view body) {
  return Obj(R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":")" + std::string(name) +
             R"(","namespace":"default"},)" + std::string(body) + "}");
}

// An edited copy of `o`.
ObjectPtr Edit(const ObjectPtr& o, const std::function<void(ObjectBuilder&)>& edit) {
  ObjectBuilder b(*o);
  edit(b);
  auto built = b.Build();
  EXPECT_TRUE(built.ok());
  return built.ok() ? *built : nullptr;
}

std::unique_ptr<FakeClient> Build(FakeClientBuilder builder) {
  auto c = builder.Build();
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  return c.ok() ? std::move(*c) : nullptr;
}

appsv1::Deployment NewDeployment(const std::string& name, int32_t replicas) {
  appsv1::Deployment d;
  d.metadata.name = name;
  d.metadata.namespace_ = "default";
  d.metadata.uid = "uid-" + name;
  d.spec.replicas = replicas;
  d.spec.selector.matchLabels = {{"app", name}};
  d.spec.template_.metadata.labels = {{"app", name}};
  d.spec.template_.spec.containers.push_back(corev1::Container{.image = "nginx:1.27", .name = "web"});
  return d;
}

// ---- Create, Get, resourceVersion ----

TEST(FakeClient, CreateSetsResourceVersionUidAndCreationTimestampFromASharedCounter) {
  FakeClock clock;
  auto c = Build(std::move(FakeClientBuilder().WithClock(clock)));
  auto a = c->Create(*ConfigMap("a"));
  ASSERT_TRUE(a.ok()) << a.error().message;
  auto b = c->Create(*ConfigMap("b"));
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ((*a)->ResourceVersion(), "1");
  EXPECT_EQ((*b)->ResourceVersion(), "2");
  EXPECT_EQ((*a)->Uid().size(), 36u);
  EXPECT_NE((*a)->Uid(), (*b)->Uid());
  EXPECT_EQ((*a)->CreationTimestamp(), "2026-01-01T00:00:00Z");
  auto got = c->Get(kConfigMaps, {"default", "a"});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)->Json(), (*a)->Json());
  auto by_kind = c->Get(GroupVersionKind{"", "v1", "ConfigMap"}, {"default", "b"});
  ASSERT_TRUE(by_kind.ok());
  EXPECT_EQ((*by_kind)->Name(), "b");
}

TEST(FakeClient, CreateRefusesAResourceVersionAndAMissingNameAndReportsAlreadyExistsAsKube) {
  auto c = Build(FakeClientBuilder());
  auto with_rv = c->Create(*Edit(ConfigMap("a"), [](ObjectBuilder& b) { b.SetResourceVersion("5"); }));
  ASSERT_FALSE(with_rv.ok());
  EXPECT_TRUE(IsBadRequest(with_rv.error()));
  EXPECT_EQ(with_rv.error().message, "resourceVersion can not be set for Create requests");

  auto nameless = c->Create(*Obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"default"}})"));
  ASSERT_FALSE(nameless.ok());
  EXPECT_TRUE(IsInvalid(nameless.error()));
  EXPECT_THAT(nameless.error().message, HasSubstr("metadata.name: Required value: name is required"));

  ASSERT_TRUE(c->Create(*ConfigMap("a")).ok());
  auto again = c->Create(*ConfigMap("a"));
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(IsAlreadyExists(again.error()));
  EXPECT_EQ(again.error().message, "configmaps \"a\" already exists");
  ASSERT_TRUE(again.error().details.has_value());
  EXPECT_EQ(again.error().details->name, "a");
  EXPECT_EQ(again.error().details->kind, "configmaps");
}

TEST(FakeClient, GetOfAMissingObjectIsNotFoundWithKubesMessageAndDetails) {
  auto c = Build(FakeClientBuilder());
  auto missing = c->Get(kDeployments, {"default", "nope"});
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(IsNotFound(missing.error()));
  EXPECT_EQ(missing.error().message, "deployments.apps \"nope\" not found");
  ASSERT_TRUE(missing.error().details.has_value());
  EXPECT_EQ(missing.error().details->group, "apps");
  EXPECT_EQ(missing.error().details->kind, "deployments");
}

TEST(FakeClient, GenerateNameGetsAFiveCharacterSuffixAndCreationIgnoresDeletionTimestamp) {
  auto c = Build(FakeClientBuilder());
  auto obj = Obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"job-","namespace":"default",
      "deletionTimestamp":"2020-01-01T00:00:00Z"}})");
  auto a = c->Create(*obj);
  ASSERT_TRUE(a.ok()) << a.error().message;
  auto b = c->Create(*obj);
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_THAT(std::string((*a)->Name()), ::testing::MatchesRegex("job-[bcdfghjklmnpqrstvwxz2456789]{5}"));
  EXPECT_NE((*a)->Name(), (*b)->Name());
  EXPECT_FALSE((*a)->IsBeingDeleted());
  auto listed = c->List(kConfigMaps);
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), 2u);
}

TEST(FakeClient, InitialObjectsKeepTheirResourceVersionAndLaterWritesCountAboveIt) {
  auto c = Build(std::move(FakeClientBuilder().WithObjects(
      Edit(ConfigMap("given"), [](ObjectBuilder& b) { b.SetResourceVersion("41"); }), ConfigMap("plain"))));
  auto given = c->Get(kConfigMaps, {"default", "given"});
  ASSERT_TRUE(given.ok());
  EXPECT_EQ((*given)->ResourceVersion(), "41");
  auto plain = c->Get(kConfigMaps, {"default", "plain"});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ((*plain)->ResourceVersion(), "42");
  auto created = c->Create(*ConfigMap("new"));
  ASSERT_TRUE(created.ok());
  EXPECT_EQ((*created)->ResourceVersion(), "43");
}

TEST(FakeClient, BuildReportsInvalidInitialObjectsAndDuplicateIndexes) {
  auto deleting = FakeClientBuilder()
                      .WithObjects(Edit(ConfigMap("x"), [](ObjectBuilder& b) {
                        (void)b.Set("/metadata/deletionTimestamp", "2026-01-01T00:00:00Z");
                      }))
                      .Build();
  ASSERT_FALSE(deleting.ok());
  EXPECT_THAT(deleting.error().message, HasSubstr("with metadata.deletionTimestamp but no finalizers"));

  auto twice = FakeClientBuilder().WithObjects(ConfigMap("x"), ConfigMap("x")).Build();
  ASSERT_FALSE(twice.ok());
  EXPECT_TRUE(IsAlreadyExists(twice.error()));

  auto none = [](const Object&) { return std::vector<std::string>{}; };
  auto dup = FakeClientBuilder().WithIndex(kConfigMaps, "f", none).WithIndex(kConfigMaps, "f", none).Build();
  ASSERT_FALSE(dup.ok());
  EXPECT_THAT(dup.error().message, HasSubstr("indexer conflict"));
}

// ---- Update ----

TEST(FakeClient, UpdateWithAStaleResourceVersionIsAConflictWithKubesMessage) {
  auto c = Build(FakeClientBuilder());
  auto created = c->Create(*ConfigMap("x"));
  ASSERT_TRUE(created.ok());
  auto first = c->Update(*Edit(*created, [](ObjectBuilder& b) { b.SetLabel("a", "1"); }));
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ((*first)->ResourceVersion(), "2");
  auto stale = c->Update(*Edit(*created, [](ObjectBuilder& b) { b.SetLabel("a", "2"); }));
  ASSERT_FALSE(stale.ok());
  EXPECT_TRUE(IsConflict(stale.error()));
  EXPECT_EQ(stale.error().message,
            "Operation cannot be fulfilled on configmaps \"x\": the object has been modified; please apply your "
            "changes to the latest version and try again");
  auto missing = c->Update(*ConfigMap("missing"));
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(IsNotFound(missing.error()));
}

TEST(FakeClient, UpdateWithoutResourceVersionIsUnconditionalForBuiltinsAndAConflictForCustomKinds) {
  auto c = Build(std::move(FakeClientBuilder().WithObjects(ConfigMap("x"), Widget("w", R"("spec":{"size":1})"))));
  auto cm = c->Update(*ConfigMap("x", R"("data":{"k":"new"})"));
  ASSERT_TRUE(cm.ok()) << cm.error().message;
  EXPECT_EQ((*cm)->GetString("/data/k"), "new");
  auto widget = c->Update(*Widget("w", R"("spec":{"size":2})"));
  ASSERT_FALSE(widget.ok());
  EXPECT_TRUE(IsConflict(widget.error()));
}

TEST(FakeClient, UpdateKeepsServerOwnedMetadataAndRefusesToChangeTheDeletionTimestamp) {
  auto c = Build(FakeClientBuilder());
  auto created = c->Create(*ConfigMap("x"));
  ASSERT_TRUE(created.ok());
  auto updated = c->Update(*Edit(*created, [](ObjectBuilder& b) { b.SetUid("forged"); }));
  ASSERT_TRUE(updated.ok());
  EXPECT_EQ((*updated)->Uid(), (*created)->Uid());
  EXPECT_EQ((*updated)->CreationTimestamp(), (*created)->CreationTimestamp());
  auto deleting = c->Update(*Edit(*updated, [](ObjectBuilder& b) {
    (void)b.Set("/metadata/deletionTimestamp", "2026-01-01T00:00:00Z");
  }));
  ASSERT_FALSE(deleting.ok());
  EXPECT_TRUE(IsInvalid(deleting.error()));
}

TEST(FakeClient, DryRunWritesNothing) {
  auto c = Build(FakeClientBuilder());
  auto dry = c->Create(*ConfigMap("x"), {.dry_run = {"All"}});
  ASSERT_TRUE(dry.ok());
  EXPECT_TRUE(IsNotFound(c->Get(kConfigMaps, {"default", "x"}).error()));
  auto real = c->Create(*ConfigMap("x"));
  ASSERT_TRUE(real.ok());
  EXPECT_EQ((*real)->ResourceVersion(), "1");
}

// ---- Status subresource and generation ----

TEST(FakeClient, StatusSubresourceSplitsUpdateFromUpdateStatusAndGenerationFollowsTheSpec) {
  auto c = Build(std::move(FakeClientBuilder().WithStatusSubresource(kWidgetKind)));
  auto created = c->Create(*Widget("w", R"("spec":{"size":1},"status":{"ready":false})"));
  ASSERT_TRUE(created.ok()) << created.error().message;
  EXPECT_EQ((*created)->Generation(), 1);
  EXPECT_EQ((*created)->GetBool("/status/ready"), false);  // Create keeps status, as controller-runtime v0.19

  // Update: status changes are ignored; a spec change bumps the generation.
  auto updated = c->Update(*Edit(*created, [](ObjectBuilder& b) {
    (void)b.Set("/spec/size", 2);
    (void)b.Set("/status/ready", true);
  }));
  ASSERT_TRUE(updated.ok()) << updated.error().message;
  EXPECT_EQ((*updated)->GetInt("/spec/size"), 2);
  EXPECT_EQ((*updated)->GetBool("/status/ready"), false);
  EXPECT_EQ((*updated)->Generation(), 2);

  // UpdateStatus: only status changes; the generation stays.
  auto status = c->UpdateStatus(*Edit(*updated, [](ObjectBuilder& b) {
    (void)b.Set("/spec/size", 9);
    (void)b.Set("/status/ready", true);
  }));
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ((*status)->GetInt("/spec/size"), 2);
  EXPECT_EQ((*status)->GetBool("/status/ready"), true);
  EXPECT_EQ((*status)->Generation(), 2);
  // A metadata-only change does not bump the generation either.
  auto labelled = c->Update(*Edit(*status, [](ObjectBuilder& b) { b.SetLabel("l", "1"); }));
  ASSERT_TRUE(labelled.ok());
  EXPECT_EQ((*labelled)->Generation(), 2);
  // A stale UpdateStatus is a conflict too.
  auto stale = c->UpdateStatus(**updated);
  ASSERT_FALSE(stale.ok());
  EXPECT_TRUE(IsConflict(stale.error()));

  // Status patches change only status; object patches leave it alone.
  auto sp = c->Patch(**labelled, PatchType::kMerge, R"({"spec":{"size":5},"status":{"ready":false}})", {}, "status");
  ASSERT_TRUE(sp.ok()) << sp.error().message;
  EXPECT_EQ((*sp)->GetInt("/spec/size"), 2);
  EXPECT_EQ((*sp)->GetBool("/status/ready"), false);
  auto op = c->Patch(**sp, PatchType::kMerge, R"({"spec":{"size":5},"status":{"ready":true}})");
  ASSERT_TRUE(op.ok()) << op.error().message;
  EXPECT_EQ((*op)->GetInt("/spec/size"), 5);
  EXPECT_EQ((*op)->GetBool("/status/ready"), false);
  EXPECT_EQ((*op)->Generation(), 3);
}

TEST(FakeClient, KindsWithoutStatusSubresourceAnswerNotFoundToStatusWritesAndUpdateEverything) {
  auto c = Build(std::move(FakeClientBuilder().WithObjects(Widget("w", R"("spec":{"size":1})"))));
  auto w = c->Get(kWidgets, {"default", "w"});
  ASSERT_TRUE(w.ok());
  auto status = c->UpdateStatus(*Edit(*w, [](ObjectBuilder& b) { (void)b.Set("/status/ready", true); }));
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(IsNotFound(status.error()));
  auto patch = c->Patch(**w, PatchType::kMerge, R"({"status":{"ready":true}})", {}, "status");
  ASSERT_FALSE(patch.ok());
  EXPECT_TRUE(IsNotFound(patch.error()));
  auto updated = c->Update(*Edit(*w, [](ObjectBuilder& b) { (void)b.Set("/status/ready", true); }));
  ASSERT_TRUE(updated.ok()) << updated.error().message;
  EXPECT_EQ((*updated)->GetBool("/status/ready"), true);
  EXPECT_EQ((*updated)->Generation(), 0);  // no status subresource: no generation bookkeeping
}

TEST(FakeClient, BuiltinKindsLikeDeploymentHaveAStatusSubresourceWithoutRegistration) {
  auto c = Build(std::move(FakeClientBuilder().WithObjects(NewDeployment("web", 1))));
  auto d = c->Get<appsv1::Deployment>({"default", "web"});
  ASSERT_TRUE(d.ok()) << d.error().message;
  d->status.replicas = 3;
  auto updated = c->Update(*d);
  ASSERT_TRUE(updated.ok()) << updated.error().message;
  EXPECT_FALSE(updated->status.replicas.has_value());
  updated->status.replicas = 3;
  auto status = c->UpdateStatus(*updated);
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(status->status.replicas, 3);
}

// ---- Delete and finalizers ----

TEST(FakeClient, DeleteOfAnObjectWithFinalizersSetsTheDeletionTimestampAndRemovingTheLastOneDeletesIt) {
  FakeClock clock;
  auto c = Build(std::move(FakeClientBuilder().WithClock(clock)));
  auto created = c->Create(*Edit(ConfigMap("x"), [](ObjectBuilder& b) {
    b.AddFinalizer("example.com/a");
    b.AddFinalizer("example.com/b");
  }));
  ASSERT_TRUE(created.ok());
  auto deleting = c->Delete(**created);
  ASSERT_TRUE(deleting.ok()) << deleting.error().message;
  EXPECT_EQ((*deleting)->DeletionTimestamp(), "2026-01-01T00:00:00Z");
  auto stored = c->Get(kConfigMaps, {"default", "x"});
  ASSERT_TRUE(stored.ok());
  EXPECT_TRUE((*stored)->IsBeingDeleted());
  EXPECT_NE((*stored)->ResourceVersion(), (*created)->ResourceVersion());

  // Removing one finalizer by Update keeps it; removing the last by Patch deletes it.
  auto one = c->Update(*Edit(*stored, [](ObjectBuilder& b) { b.RemoveFinalizer("example.com/a"); }));
  ASSERT_TRUE(one.ok()) << one.error().message;
  ASSERT_TRUE(c->Get(kConfigMaps, {"default", "x"}).ok());
  auto last = c->Patch(**one, PatchType::kMerge, R"({"metadata":{"finalizers":null}})");
  ASSERT_TRUE(last.ok()) << last.error().message;
  auto gone = c->Get(kConfigMaps, {"default", "x"});
  ASSERT_FALSE(gone.ok());
  EXPECT_TRUE(IsNotFound(gone.error()));
}

TEST(FakeClient, DeleteWithoutFinalizersRemovesAndAnswersAStatusAndAMissingObjectIsNotFound) {
  auto c = Build(std::move(FakeClientBuilder().WithObjects(ConfigMap("x"))));
  auto x = c->Get(kConfigMaps, {"default", "x"});
  ASSERT_TRUE(x.ok());
  auto deleted = c->Delete(**x);
  ASSERT_TRUE(deleted.ok()) << deleted.error().message;
  EXPECT_EQ((*deleted)->Kind(), "Status");
  EXPECT_EQ((*deleted)->GetString("/details/name"), "x");
  auto again = c->Delete(**x);
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(IsNotFound(again.error()));
}

TEST(FakeClient, DeletePreconditionsOnUidAndResourceVersionAreHonoured) {
  auto c = Build(FakeClientBuilder());
  auto created = c->Create(*ConfigMap("x"));
  ASSERT_TRUE(created.ok());
  auto wrong_uid = c->Delete(**created, {.preconditions = Preconditions{.uid = "other"}});
  ASSERT_FALSE(wrong_uid.ok());
  EXPECT_TRUE(IsConflict(wrong_uid.error()));
  EXPECT_THAT(wrong_uid.error().message, HasSubstr("Precondition failed: UID in precondition: other"));
  auto wrong_rv = c->Delete(**created, {.preconditions = Preconditions{.resource_version = "99"}});
  ASSERT_FALSE(wrong_rv.ok());
  EXPECT_TRUE(IsConflict(wrong_rv.error()));
  EXPECT_THAT(wrong_rv.error().message, HasSubstr("the ResourceVersion in the precondition (99)"));
  auto ok = c->Delete(**created, {.preconditions = Preconditions{.uid = std::string((*created)->Uid()),
                                                                 .resource_version = "1"}});
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_TRUE(IsNotFound(c->Get(kConfigMaps, {"default", "x"}).error()));
}

// ---- List and field indexes ----

TEST(FakeClient, ListFiltersByNamespaceAndLabelsAndSortsByNamespaceAndName) {
  auto other = Obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"other",
      "labels":{"app":"x"}}})");
  auto c = Build(std::move(FakeClientBuilder().WithObjects(
      Edit(ConfigMap("c"), [](ObjectBuilder& b) { b.SetLabel("app", "x"); }), ConfigMap("b"), other,
      Edit(ConfigMap("a"), [](ObjectBuilder& b) { b.SetLabel("app", "x"); }))));
  auto all = c->List(kConfigMaps);
  ASSERT_TRUE(all.ok());
  std::vector<std::string> keys;
  for (const auto& o : *all) keys.push_back(o->Key());
  EXPECT_EQ(keys, (std::vector<std::string>{"default/a", "default/b", "default/c", "other/a"}));
  auto sel = LabelSelector::Parse("app=x");
  ASSERT_TRUE(sel.ok());
  auto labelled = c->List(kConfigMaps, {.ns = "default", .selector = *sel});
  ASSERT_TRUE(labelled.ok());
  ASSERT_EQ(labelled->size(), 2u);
  EXPECT_EQ((*labelled)[0]->Name(), "a");
  EXPECT_EQ((*labelled)[1]->Name(), "c");
  auto none = c->List(kWidgets);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(FakeClient, ListByAFieldIndexUsesTheRegisteredExtractorAndAnUnregisteredFieldIsAnError) {
  auto pod = [](std::string name, std::string node) {
    corev1::Pod p;
    p.metadata.name = std::move(name);
    p.metadata.namespace_ = "default";
    p.spec.nodeName = std::move(node);
    return p;
  };
  auto c = Build(std::move(FakeClientBuilder()
                               .WithObjects(pod("p1", "n1"), pod("p2", "n2"), pod("p3", "n1"))
                               .WithIndex<corev1::Pod>("spec.nodeName", [](const corev1::Pod& p) {
                                 return std::vector<std::string>{p.spec.nodeName.value_or("")};
                               })));
  auto on_n1 = c->List<corev1::Pod>({.field = controller::FieldMatch{"spec.nodeName", "n1"}});
  ASSERT_TRUE(on_n1.ok()) << on_n1.error().message;
  ASSERT_EQ(on_n1->size(), 2u);
  EXPECT_EQ((*on_n1)[0]->metadata.name, "p1");
  EXPECT_EQ((*on_n1)[1]->metadata.name, "p3");
  auto in_other_ns = c->List<corev1::Pod>({.ns = "other", .field = controller::FieldMatch{"spec.nodeName", "n1"}});
  ASSERT_TRUE(in_other_ns.ok());
  EXPECT_TRUE(in_other_ns->empty());
  auto unknown = c->List<corev1::Pod>({.field = controller::FieldMatch{"spec.schedulerName", "x"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(IsBadRequest(unknown.error()));
  EXPECT_THAT(unknown.error().message,
              HasSubstr("specifies selector on field spec.schedulerName, but no index with name spec.schedulerName "
                        "has been registered"));
}

// ---- Patch ----

TEST(FakeClient, MergeAndJsonPatchesApplyAndAStaleResourceVersionInThePatchIsAConflict) {
  auto c = Build(std::move(FakeClientBuilder().WithObjects(ConfigMap("x", R"("data":{"a":"1","b":"2"})"))));
  auto x = c->Get(kConfigMaps, {"default", "x"});
  ASSERT_TRUE(x.ok());
  auto merged = c->Patch(**x, PatchType::kMerge, R"({"data":{"a":null,"c":"3"}})");
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_EQ((*merged)->Get("/data"), ParseJson(R"({"b":"2","c":"3"})").value());
  EXPECT_NE((*merged)->ResourceVersion(), (*x)->ResourceVersion());
  auto jp = c->Patch(**x, PatchType::kJson, R"([{"op":"replace","path":"/data/b","value":"20"}])");
  ASSERT_TRUE(jp.ok()) << jp.error().message;
  EXPECT_EQ((*jp)->GetString("/data/b"), "20");
  auto failed = c->Patch(**x, PatchType::kJson, R"([{"op":"test","path":"/data/b","value":"nope"}])");
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, 422);
  auto stale = c->Patch(**x, PatchType::kMerge,
                        R"({"metadata":{"resourceVersion":")" + std::string((*x)->ResourceVersion()) +
                            R"("},"data":{"d":"4"}})");
  ASSERT_FALSE(stale.ok());
  EXPECT_TRUE(IsConflict(stale.error()));
  auto missing = c->Patch(*ConfigMap("missing"), PatchType::kMerge, "{}");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(IsNotFound(missing.error()));
}

TEST(FakeClient, StrategicMergePatchMergesListsByTheRegisteredSchemaAndApplyIsNotSupported) {
  auto schema = ParseTypeSchema(R"({"type":"object","properties":{"spec":{"type":"object","properties":{
      "containers":{"type":"array","x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"name",
                    "items":{"type":"object"}}}}}})");
  ASSERT_TRUE(schema.ok()) << schema.error().message;
  const std::string body = R"("spec":{"containers":[{"name":"a","image":"1"},{"name":"b","image":"1"}],"tags":["x"]})";
  auto c = Build(std::move(FakeClientBuilder().WithPatchSchema(kWidgetKind, *schema).WithObjects(Widget("w", body))));
  auto w = c->Get(kWidgets, {"default", "w"});
  ASSERT_TRUE(w.ok());
  auto p = c->Patch(**w, PatchType::kStrategicMerge, R"({"spec":{"containers":[{"name":"b","image":"2"}],"tags":["y"]}})");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ((*p)->Get("/spec/containers"),
            ParseJson(R"([{"name":"a","image":"1"},{"name":"b","image":"2"}])").value());
  EXPECT_EQ((*p)->Get("/spec/tags"), ParseJson(R"(["y"])").value());  // no strategy: replaced

  // Without a schema, lists are replaced.
  auto plain = Build(std::move(FakeClientBuilder().WithObjects(Widget("w", body))));
  auto q = plain->Patch(**w, PatchType::kStrategicMerge, R"({"spec":{"containers":[{"name":"b","image":"2"}]}})");
  ASSERT_TRUE(q.ok()) << q.error().message;
  EXPECT_EQ((*q)->Get("/spec/containers"), ParseJson(R"([{"name":"b","image":"2"}])").value());

  auto apply = c->Patch(**w, PatchType::kApply, "{}");
  ASSERT_FALSE(apply.ok());
  EXPECT_TRUE(IsMethodNotAllowed(apply.error()));
  EXPECT_THAT(apply.error().message, HasSubstr("apply patches are not supported in the fake client"));
}

TEST(FakeClient, TypedMergeFromPatchWithOptimisticLockConflictsWhenTheObjectChanged) {
  auto c = Build(std::move(FakeClientBuilder().WithObjects(NewDeployment("web", 1))));
  auto d = c->Get<appsv1::Deployment>({"default", "web"});
  ASSERT_TRUE(d.ok());
  appsv1::Deployment scaled = *d;
  scaled.spec.replicas = 3;
  auto patched = c->Patch(scaled, controller::MergeFrom(*d, {.optimistic_lock = true}));
  ASSERT_TRUE(patched.ok()) << patched.error().message;
  EXPECT_EQ(patched->spec.replicas, 3);
  EXPECT_EQ(patched->metadata.generation, d->metadata.generation + 1);
  scaled.spec.replicas = 4;
  auto stale = c->Patch(scaled, controller::MergeFrom(*d, {.optimistic_lock = true}));
  ASSERT_FALSE(stale.ok());
  EXPECT_TRUE(IsConflict(stale.error()));
}

// ---- Kinds ----

TEST(FakeClient, UnregisteredKindsGetTheGuessedResourceAndRegisteredOnesTheirOwn) {
  EXPECT_EQ(GuessResource({"", "v1", "ConfigMap"}).resource, "configmaps");
  EXPECT_EQ(GuessResource({"networking.k8s.io", "v1", "Ingress"}).resource, "ingresses");
  EXPECT_EQ(GuessResource({"example.com", "v1", "Policy"}).resource, "policies");
  EXPECT_EQ(GuessResource({"", "v1", "Endpoints"}).resource, "endpoints");

  auto c = Build(std::move(FakeClientBuilder().WithKind(
      {.gvk = {"example.com", "v1", "Mouse"}, .resource = "mice", .namespaced = false})));
  auto mouse = c->Create(*Obj(R"({"apiVersion":"example.com/v1","kind":"Mouse","metadata":{"name":"m","namespace":"x"}})"));
  ASSERT_TRUE(mouse.ok()) << mouse.error().message;
  EXPECT_EQ((*mouse)->Namespace(), "");  // cluster-scoped
  EXPECT_TRUE(c->Get(GroupVersionResource{"example.com", "v1", "mice"}, {"", "m"}).ok());
  EXPECT_EQ(c->ResourceFor({"example.com", "v1", "Mouse"})->resource, "mice");
  EXPECT_EQ(c->ResourceFor({"example.com", "v1", "Widget"})->resource, "widgets");

  // A namespaced typed kind needs a namespace, as the Manager's client does.
  corev1::ConfigMap no_ns;
  no_ns.metadata.name = "x";
  auto typed = Build(std::move(FakeClientBuilder().WithKind<corev1::ConfigMap>()));
  auto refused = typed->Create(no_ns);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(IsBadRequest(refused.error()));
}

TEST(FakeClient, TypedAndDynamicObjectsShareTheTracker) {
  corev1::ConfigMap typed;
  typed.metadata.name = "typed";
  typed.metadata.namespace_ = "default";
  typed.data["k"] = "t";
  auto c = Build(std::move(FakeClientBuilder().WithObjects(typed, ConfigMap("dynamic"))));
  auto listed = c->List<corev1::ConfigMap>({.ns = "default"});
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0]->metadata.name, "dynamic");
  EXPECT_EQ((*listed)[1]->data.at("k"), "t");
  auto got = c->Get<corev1::ConfigMap>({"default", "dynamic"});
  ASSERT_TRUE(got.ok());
  got->data["k"] = "edited";
  auto updated = c->Update(*got);
  ASSERT_TRUE(updated.ok()) << updated.error().message;
  auto dyn = c->Get(kConfigMaps, {"default", "dynamic"});
  ASSERT_TRUE(dyn.ok());
  EXPECT_EQ((*dyn)->GetString("/data/k"), "edited");
  ASSERT_TRUE(c->Delete(*updated).ok());
  EXPECT_TRUE(IsNotFound(c->Get(kConfigMaps, {"default", "dynamic"}).error()));
}

// ---- Interceptors ----

TEST(FakeClient, InterceptorsInjectAnErrorOnTheNthCallAndPassThroughOtherwise) {
  int creates = 0;
  int gets = 0;
  FakeInterceptors in;
  in.create = [&](ClientInterface& next, const Object& o, const CreateOptions& opts) -> Result<ObjectPtr> {
    if (++creates == 2) return MakeError(500, reason::kInternalError, "injected");
    return next.Create(o, opts);
  };
  in.get = [&](ClientInterface& next, const GroupVersionResource& gvr, const ObjectKey& key) {
    ++gets;
    return next.Get(gvr, key);
  };
  in.sub_resource_update = [](ClientInterface&, const Object& o, const UpdateOptions&, std::string_view sub)
      -> Result<ObjectPtr> { return MakeError(409, reason::kConflict, "status of " + std::string(o.Name()) + "/" + std::string(sub)); };
  auto c = Build(std::move(FakeClientBuilder().WithInterceptors(std::move(in))));
  ASSERT_TRUE(c->Create(*ConfigMap("a")).ok());
  auto second = c->Create(*ConfigMap("b"));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().message, "injected");
  ASSERT_TRUE(c->Create(*ConfigMap("c")).ok());
  EXPECT_EQ(creates, 3);
  EXPECT_TRUE(c->Get(kConfigMaps, {"default", "a"}).ok());
  EXPECT_TRUE(IsNotFound(c->Get(kConfigMaps, {"default", "b"}).error()));
  EXPECT_EQ(gets, 2);
  auto status = c->UpdateStatus(*ConfigMap("a"));
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message, "status of a/status");
  // The tracker underneath is not intercepted.
  EXPECT_TRUE(c->Tracker().Create(*ConfigMap("b")).ok());
  EXPECT_EQ(creates, 3);
}

TEST(FakeClient, ConcurrentWritersGetDistinctResourceVersions) {
  auto c = Build(FakeClientBuilder());
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        if (!c->Create(*ConfigMap("cm-" + std::to_string(t) + "-" + std::to_string(i))).ok()) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  auto all = c->List(kConfigMaps);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 200u);
  std::set<std::string_view> versions;
  for (const auto& o : *all) versions.insert(o->ResourceVersion());
  EXPECT_EQ(versions.size(), 200u);
}

// ---- The helpers and a reconciler against the fake ----

// The reconciler under test: every Deployment gets a ConfigMap "<name>-config" it controls,
// holding its replica count.
std::shared_ptr<controller::Reconciler> ConfigReconciler(ClientInterface& c, std::vector<controller::OperationResult>& ops) {
  return controller::AsReconciler<appsv1::Deployment>(
      c, [&c, &ops](controller::ReconcileContext& ctx, appsv1::Deployment& d) -> Result<controller::ReconcileResult> {
        corev1::ConfigMap cm;
        cm.metadata.name = d.metadata.name + "-config";
        cm.metadata.namespace_ = d.metadata.namespace_;
        auto op = controller::CreateOrUpdate<corev1::ConfigMap>(
            c, cm,
            [&](corev1::ConfigMap& o) -> Result<void> {
              o.data["replicas"] = std::to_string(d.spec.replicas.value_or(1));
              return controller::SetControllerReference(d, o);
            },
            ctx.stop);
        if (!op.ok()) return op.error();
        ops.push_back(*op);
        return controller::ReconcileResult::Done();
      });
}

TEST(FakeClient, ATypedReconcilerRunsAgainstTheFakeAndItsWritesCanBeAsserted) {
  int creates = 0;
  FakeInterceptors count;
  count.create = [&](ClientInterface& next, const Object& o, const CreateOptions& opts) {
    ++creates;
    return next.Create(o, opts);
  };
  auto c = Build(std::move(FakeClientBuilder().WithObjects(NewDeployment("web", 3)).WithInterceptors(count)));
  std::vector<controller::OperationResult> ops;
  auto reconciler = ConfigReconciler(*c, ops);
  controller::ReconcileContext ctx;
  ASSERT_TRUE(reconciler->Reconcile(ctx, {{"default", "web"}}).ok());
  auto cm = c->Get<corev1::ConfigMap>({"default", "web-config"});
  ASSERT_TRUE(cm.ok()) << cm.error().message;
  EXPECT_EQ(cm->data.at("replicas"), "3");
  const auto* owner = controller::GetControllerOf(*cm);
  ASSERT_NE(owner, nullptr);
  EXPECT_EQ(owner->name, "web");
  EXPECT_EQ(owner->uid, "uid-web");

  // Unchanged on the next pass; updated after a scale; a deleted Deployment is done.
  ASSERT_TRUE(reconciler->Reconcile(ctx, {{"default", "web"}}).ok());
  auto d = c->Get<appsv1::Deployment>({"default", "web"});
  ASSERT_TRUE(d.ok());
  d->spec.replicas = 5;
  ASSERT_TRUE(c->Update(*d).ok());
  ASSERT_TRUE(reconciler->Reconcile(ctx, {{"default", "web"}}).ok());
  EXPECT_EQ(c->Get<corev1::ConfigMap>({"default", "web-config"})->data.at("replicas"), "5");
  ASSERT_TRUE(reconciler->Reconcile(ctx, {{"default", "gone"}}).ok());
  EXPECT_EQ(ops, (std::vector<controller::OperationResult>{controller::OperationResult::kCreated,
                                                           controller::OperationResult::kUnchanged,
                                                           controller::OperationResult::kUpdated}));
  EXPECT_EQ(creates, 1);

  // A conflict on the write is the reconcile's error (the controller retries it).
  FakeInterceptors conflict;
  conflict.update = [](ClientInterface&, const Object& o, const UpdateOptions&) -> Result<ObjectPtr> {
    return NewConflict({"", "configmaps"}, o.Name(), kOptimisticLockErrorMsg);
  };
  auto failing = Build(std::move(FakeClientBuilder()
                                     .WithObjects(NewDeployment("web", 2), ConfigMap("web-config"))
                                     .WithInterceptors(conflict)));
  auto r = ConfigReconciler(*failing, ops)->Reconcile(ctx, {{"default", "web"}});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsConflict(r.error()));
}

TEST(FakeClient, DynamicControllerutilHelpersAndFinalizersWorkThroughTheInterface) {
  auto c = Build(std::move(FakeClientBuilder().WithStatusSubresource(kWidgetKind)));
  ObjectBuilder seed("example.com/v1", "Widget");
  seed.SetNamespace("default").SetName("w");
  auto mutate = [](ObjectBuilder& b) { return b.Set("/spec/size", 1); };
  auto created = controller::CreateOrUpdate(*c, seed, mutate);
  ASSERT_TRUE(created.ok()) << created.error().message;
  EXPECT_EQ(created->operation, controller::OperationResult::kCreated);
  auto unchanged = controller::CreateOrUpdate(*c, seed, mutate);
  ASSERT_TRUE(unchanged.ok());
  EXPECT_EQ(unchanged->operation, controller::OperationResult::kUnchanged);

  auto patched = controller::CreateOrPatch(*c, seed, [](ObjectBuilder& b) -> Result<void> {
    KUBE_RETURN_IF_ERROR(b.Set("/spec/size", 2));
    return b.Set("/status/phase", "Ready");
  });
  ASSERT_TRUE(patched.ok()) << patched.error().message;
  EXPECT_EQ(patched->operation, controller::OperationResult::kUpdatedStatus);
  EXPECT_EQ(patched->object->GetString("/status/phase"), "Ready");
  EXPECT_EQ(patched->object->GetInt("/spec/size"), 2);

  auto status = controller::UpdateStatus(*c, kWidgets, {"default", "w"}, [](ObjectBuilder& b) {
    return b.Set("/status/phase", "Done");
  });
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ((*status)->GetString("/status/phase"), "Done");
  EXPECT_EQ((*status)->GetInt("/status/observedGeneration"), 2);

  controller::FinalizerRegistry finalizers;
  int cleanups = 0;
  ASSERT_TRUE(finalizers.Register("example.com/cleanup", [&](const Object&) -> Result<void> {
    ++cleanups;
    return Ok();
  }).ok());
  auto live = c->Get(kWidgets, {"default", "w"});
  ASSERT_TRUE(live.ok());
  auto added = finalizers.FinalizeAndUpdate(*c, **live);
  ASSERT_TRUE(added.ok()) << added.error().message;
  EXPECT_EQ(added->added, std::vector<std::string>{"example.com/cleanup"});
  auto guarded = c->Get(kWidgets, {"default", "w"});
  ASSERT_TRUE(guarded.ok());
  ASSERT_TRUE(c->Delete(**guarded).ok());
  auto deleting = c->Get(kWidgets, {"default", "w"});
  ASSERT_TRUE(deleting.ok());
  auto removed = finalizers.FinalizeAndUpdate(*c, **deleting);
  ASSERT_TRUE(removed.ok()) << removed.error().message;
  EXPECT_EQ(cleanups, 1);
  EXPECT_TRUE(IsNotFound(c->Get(kWidgets, {"default", "w"}).error()));
}

}  // namespace
}  // namespace kube::testing
