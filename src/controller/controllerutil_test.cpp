#include <kube/controller/controllerutil.hpp>

#include <map>
#include <memory>
#include <string>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <kube/client/fake_transport.hpp>
#include <kube/core/json.hpp>
#include <kube/core/merge_patch.hpp>

namespace kube::controller {
namespace {

using ::testing::HasSubstr;

const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
const GroupVersionResource kDeployments{"apps", "v1", "deployments"};

std::string StatusJson(int code, std::string_view reason, std::string_view message) {
  return SerializeJson(boost::json::object{{"kind", "Status"},
                                           {"apiVersion", "v1"},
                                           {"status", "Failure"},
                                           {"reason", reason},
                                           {"message", message},
                                           {"code", code}});
}

// A tiny in-memory API behind FakeTransport: GET / POST / PUT (with resourceVersion
// preconditions) / merge PATCH, and the status subresource (PUT and PATCH change only status).
class FakeApi {
 public:
  explicit FakeApi(client::FakeTransport& t) {
    t.SetHandler([this](const client::HttpRequest& r) { return Handle(r); });
  }
  std::map<std::string, boost::json::object> objects;  // path -> object (handler thread = test thread)
  int writes = 0;
  int conflicts_to_inject = 0;

 private:
  static client::HttpResponse Json(int status, std::string body) {
    return {status, {{"Content-Type", "application/json"}}, std::move(body)};
  }
  client::HttpResponse Store(const std::string& path, boost::json::object obj, int status) {
    obj["metadata"].as_object()["resourceVersion"] = std::to_string(++rv_);
    objects[path] = obj;
    ++writes;
    return Json(status, SerializeJson(obj));
  }
  Result<client::HttpResponse> Handle(const client::HttpRequest& r) {
    std::string path = r.target.substr(0, r.target.find('?'));
    bool status_sub = false;
    if (path.ends_with("/status")) {
      status_sub = true;
      path.resize(path.size() - 7);
    }
    auto it = objects.find(path);
    if (r.method == "GET") {
      if (it == objects.end()) return Json(404, StatusJson(404, "NotFound", path + " not found"));
      return Json(200, SerializeJson(it->second));
    }
    if (r.method == "POST") {
      auto obj = ParseJson(r.body).value().as_object();
      const std::string name(obj["metadata"].as_object()["name"].as_string());
      const std::string p = path + "/" + name;
      if (objects.contains(p)) return Json(409, StatusJson(409, "AlreadyExists", "exists"));
      obj["metadata"].as_object()["uid"] = "uid-" + name;
      obj["metadata"].as_object()["generation"] = 1;
      return Store(p, std::move(obj), 201);
    }
    if (it == objects.end()) return Json(404, StatusJson(404, "NotFound", path + " not found"));
    if (r.method == "PUT") {
      auto obj = ParseJson(r.body).value().as_object();
      const auto& sent_rv = obj["metadata"].as_object()["resourceVersion"];
      if (conflicts_to_inject > 0 || sent_rv != it->second["metadata"].as_object()["resourceVersion"]) {
        if (conflicts_to_inject > 0) --conflicts_to_inject;
        return Json(409, StatusJson(409, "Conflict", "the object has been modified"));
      }
      boost::json::object next = it->second;
      if (status_sub) {
        next["status"] = obj["status"];
      } else {
        obj.erase("status");
        if (auto* s = next.if_contains("status")) obj["status"] = *s;
        next = std::move(obj);
      }
      return Store(path, std::move(next), 200);
    }
    if (r.method == "PATCH") {
      auto patch = ParseJson(r.body).value();
      auto merged = ApplyMergePatch(it->second, patch).as_object();
      boost::json::object next = it->second;
      if (status_sub) {
        if (auto* s = merged.if_contains("status")) next["status"] = *s;
      } else {
        merged.erase("status");
        if (auto* s = next.if_contains("status")) merged["status"] = *s;
        next = std::move(merged);
      }
      return Store(path, std::move(next), 200);
    }
    return Json(405, StatusJson(405, "MethodNotAllowed", r.method));
  }
  int rv_ = 0;
};

class ControllerUtilTest : public ::testing::Test {
 protected:
  ControllerUtilTest() {
    client::Config c;
    c.host = "https://k";
    c.qps = -1;
    client_ = std::make_unique<client::DynamicClient>(
        client::RestClient::Create(c, {.clock = &clock_, .transport = transport_}).value());
  }
  client::Api ConfigMaps(std::string ns = "default") { return client_->Resource(kConfigMaps, std::move(ns)); }
  static ObjectBuilder Seed(std::string_view name, std::string_view ns = "default") {
    ObjectBuilder b("v1", "ConfigMap");
    b.SetName(name).SetNamespace(ns);
    return b;
  }

  FakeClock clock_;
  std::shared_ptr<client::FakeTransport> transport_ = std::make_shared<client::FakeTransport>();
  FakeApi api_{*transport_};
  std::unique_ptr<client::DynamicClient> client_;
};

MutateFn SetData(std::string value) {
  return [value](ObjectBuilder& b) { return b.Set("/data/key", boost::json::value(value)); };
}

TEST_F(ControllerUtilTest, CreateOrUpdateCreatesThenIsUnchangedThenUpdates) {
  auto first = CreateOrUpdate(ConfigMaps(), Seed("cfg"), SetData("a"));
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->operation, OperationResult::kCreated);
  EXPECT_EQ(first->object->GetString("/data/key"), "a");
  EXPECT_EQ(api_.writes, 1);

  transport_->ClearRequests();
  auto second = CreateOrUpdate(ConfigMaps(), Seed("cfg"), SetData("a"));
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->operation, OperationResult::kUnchanged);
  EXPECT_EQ(api_.writes, 1);
  ASSERT_EQ(transport_->RequestCount(), 1u);  // one GET, no write
  EXPECT_EQ(transport_->Requests()[0].method, "GET");

  auto third = CreateOrUpdate(ConfigMaps(), Seed("cfg"), SetData("b"));
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->operation, OperationResult::kUpdated);
  EXPECT_EQ(third->object->GetString("/data/key"), "b");
  EXPECT_EQ(transport_->Requests().back().method, "PUT");
  EXPECT_EQ(ToString(third->operation), "updated");
}

TEST_F(ControllerUtilTest, CreateOrUpdateRejectsMutatingTheKeyAndPropagatesMutateErrors) {
  auto renamed = CreateOrUpdate(ConfigMaps(), Seed("cfg"), [](ObjectBuilder& b) {
    b.SetName("other");
    return Ok();
  });
  ASSERT_FALSE(renamed.ok());
  EXPECT_THAT(renamed.error().message, HasSubstr("cannot mutate object name"));
  auto failed = CreateOrUpdate(ConfigMaps(), Seed("cfg"), [](ObjectBuilder&) -> Result<void> {
    return InternalError("nope");
  });
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message, "nope");
  EXPECT_EQ(api_.writes, 0);
  auto unnamed = CreateOrUpdate(ConfigMaps(), ObjectBuilder("v1", "ConfigMap"), SetData("a"));
  EXPECT_TRUE(IsBadRequest(unnamed.error()));
  auto wrong_ns = CreateOrUpdate(ConfigMaps("a"), Seed("cfg", "b"), SetData("a"));
  EXPECT_TRUE(IsBadRequest(wrong_ns.error()));
}

TEST_F(ControllerUtilTest, CreateOrUpdateSurfacesConflicts) {
  ASSERT_TRUE(CreateOrUpdate(ConfigMaps(), Seed("cfg"), SetData("a")).ok());
  api_.conflicts_to_inject = 1;
  auto r = CreateOrUpdate(ConfigMaps(), Seed("cfg"), SetData("b"));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsConflict(r.error()));
}

TEST_F(ControllerUtilTest, CreateOrPatchSendsOnlyTheDifference) {
  ASSERT_TRUE(CreateOrPatch(ConfigMaps(), Seed("cfg"), [](ObjectBuilder& b) {
                b.SetLabel("keep", "1");
                return b.Set("/data", boost::json::object{{"a", "1"}, {"b", "2"}});
              }).ok());
  transport_->ClearRequests();
  auto r = CreateOrPatch(ConfigMaps(), Seed("cfg"), [](ObjectBuilder& b) {
    b.Remove("/data/a");
    return b.Set("/data/c", boost::json::value("3"));
  });
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->operation, OperationResult::kUpdated);
  const auto reqs = transport_->Requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[1].method, "PATCH");
  EXPECT_EQ(client::FindHeader(reqs[1].headers, "Content-Type"), "application/merge-patch+json");
  EXPECT_EQ(ParseJson(reqs[1].body).value(), ParseJson(R"({"data":{"a":null,"c":"3"}})").value());
  EXPECT_EQ(r->object->GetString("/data/b"), "2");
  EXPECT_FALSE(r->object->Get("/data/a").has_value());

  transport_->ClearRequests();
  auto same = CreateOrPatch(ConfigMaps(), Seed("cfg"), [](ObjectBuilder& b) {
    b.Remove("/data/a");
    return b.Set("/data/c", boost::json::value("3"));
  });
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->operation, OperationResult::kUnchanged);
  EXPECT_EQ(transport_->RequestCount(), 1u);
}

TEST_F(ControllerUtilTest, CreateOrPatchPatchesStatusThroughTheSubresource) {
  auto deployments = client_->Resource(kDeployments, "default");
  ObjectBuilder seed("apps/v1", "Deployment");
  seed.SetName("web").SetNamespace("default");
  ASSERT_TRUE(CreateOrPatch(deployments, seed, [](ObjectBuilder& b) { return b.Set("/spec/replicas", 1); }).ok());
  transport_->ClearRequests();
  auto status_only = CreateOrPatch(deployments, seed, [](ObjectBuilder& b) { return b.Set("/status/replicas", 1); });
  ASSERT_TRUE(status_only.ok());
  EXPECT_EQ(status_only->operation, OperationResult::kUpdatedStatusOnly);
  EXPECT_EQ(transport_->Requests().back().target, "/apis/apps/v1/namespaces/default/deployments/web/status");
  EXPECT_EQ(status_only->object->GetInt("/status/replicas"), 1);
  auto both = CreateOrPatch(deployments, seed, [](ObjectBuilder& b) {
    if (auto r = b.Set("/spec/replicas", 2); !r.ok()) return r;
    return b.Set("/status/replicas", 2);
  });
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(both->operation, OperationResult::kUpdatedStatus);
  EXPECT_EQ(both->object->GetInt("/spec/replicas"), 2);
  EXPECT_EQ(both->object->GetInt("/status/replicas"), 2);
}

ObjectPtr Owner(std::string_view name, std::string_view ns = "default", std::string_view api_version = "apps/v1",
                std::string_view kind = "Deployment") {
  ObjectBuilder b(api_version, kind);
  b.SetName(name).SetUid(std::string(name) + "-uid");
  if (!ns.empty()) b.SetNamespace(ns);
  return b.Build().value();
}

TEST(OwnerReferences, SetControllerReferenceAddsOneControllerRef) {
  auto owner = Owner("web");
  ObjectBuilder obj("v1", "ConfigMap");
  obj.SetName("cfg").SetNamespace("default");
  ASSERT_TRUE(SetControllerReference(*owner, obj).ok());
  ASSERT_TRUE(SetControllerReference(*owner, obj).ok());  // idempotent
  auto built = obj.Build().value();
  ASSERT_EQ(built->OwnerReferenceCount(), 1u);
  auto ref = built->ControllerRef();
  ASSERT_TRUE(ref.has_value());
  EXPECT_EQ(ref->api_version, "apps/v1");
  EXPECT_EQ(ref->kind, "Deployment");
  EXPECT_EQ(ref->name, "web");
  EXPECT_EQ(ref->uid, "web-uid");
  EXPECT_EQ(ref->block_owner_deletion, true);
  EXPECT_TRUE(HasControllerReference(*owner, *built));
  EXPECT_TRUE(HasOwnerReference(*owner, *built));
}

TEST(OwnerReferences, SecondControllerIsAlreadyOwned) {
  auto a = Owner("a"), b = Owner("b");
  ObjectBuilder obj("v1", "ConfigMap");
  obj.SetName("cfg").SetNamespace("default");
  ASSERT_TRUE(SetControllerReference(*a, obj).ok());
  auto r = SetControllerReference(*b, obj);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsAlreadyOwned(r.error()));
  EXPECT_TRUE(IsConflict(r.error()));
  EXPECT_FALSE(IsAlreadyOwned(MakeError(409, reason::kConflict, "other")));
  // A plain owner reference to b is fine.
  ASSERT_TRUE(SetOwnerReference(*b, obj).ok());
  auto built = obj.Build().value();
  EXPECT_EQ(built->OwnerReferenceCount(), 2u);
  EXPECT_TRUE(HasControllerReference(*a, *built));
  EXPECT_FALSE(HasControllerReference(*b, *built));
}

TEST(OwnerReferences, SetOwnerReferenceKeepsTheControllerFlagAndRemoveWorks) {
  auto a = Owner("a");
  ObjectBuilder obj("v1", "ConfigMap");
  obj.SetName("cfg").SetNamespace("default");
  ASSERT_TRUE(SetControllerReference(*a, obj).ok());
  ASSERT_TRUE(SetOwnerReference(*a, obj).ok());
  EXPECT_TRUE(HasControllerReference(*a, *obj.Build().value()));
  EXPECT_TRUE(RemoveOwnerReference(*a, obj));
  EXPECT_FALSE(RemoveOwnerReference(*a, obj));
  EXPECT_EQ(obj.Build().value()->OwnerReferenceCount(), 0u);
}

TEST(OwnerReferences, OwnerValidation) {
  ObjectBuilder cluster_scoped("v1", "Namespace");
  cluster_scoped.SetName("ns1");
  EXPECT_TRUE(IsBadRequest(SetControllerReference(*Owner("web"), cluster_scoped).error()));
  ObjectBuilder other_ns("v1", "ConfigMap");
  other_ns.SetName("cfg").SetNamespace("other");
  auto cross = SetControllerReference(*Owner("web"), other_ns);
  ASSERT_FALSE(cross.ok());
  EXPECT_THAT(cross.error().message, HasSubstr("cross-namespace"));
  // A cluster-scoped owner may own a namespaced object.
  EXPECT_TRUE(SetControllerReference(*Owner("n1", "", "v1", "Node"), other_ns).ok());
  ObjectBuilder no_uid("apps/v1", "Deployment");
  no_uid.SetName("x").SetNamespace("default");
  EXPECT_TRUE(IsBadRequest(SetOwnerReference(*no_uid.Build().value(), other_ns).error()));
}

TEST(Finalizers, AddRemoveContains) {
  ObjectBuilder obj("v1", "ConfigMap");
  obj.SetName("cfg");
  EXPECT_TRUE(AddFinalizer(obj, "example.com/f"));
  EXPECT_FALSE(AddFinalizer(obj, "example.com/f"));
  auto built = obj.Build().value();
  EXPECT_TRUE(ContainsFinalizer(*built, "example.com/f"));
  EXPECT_FALSE(ContainsFinalizer(*built, "example.com/g"));
  EXPECT_TRUE(RemoveFinalizer(obj, "example.com/f"));
  EXPECT_FALSE(RemoveFinalizer(obj, "example.com/f"));
  EXPECT_FALSE(ContainsFinalizer(*obj.Build().value(), "example.com/f"));
}

TEST_F(ControllerUtilTest, UpdateStatusSetsObservedGenerationAndRetriesConflicts) {
  auto deployments = client_->Resource(kDeployments, "default");
  ObjectBuilder seed("apps/v1", "Deployment");
  seed.SetName("web").SetNamespace("default");
  ASSERT_TRUE(CreateOrUpdate(deployments, seed, [](ObjectBuilder& b) { return b.Set("/spec/replicas", 3); }).ok());
  api_.conflicts_to_inject = 2;
  int calls = 0;
  UpdateStatusOptions options;
  options.clock = &clock_;
  options.backoff.duration = std::chrono::milliseconds(0);
  auto r = UpdateStatus(deployments, {"default", "web"},
                        [&](ObjectBuilder& b) {
                          ++calls;
                          return b.Set("/status/readyReplicas", 3);
                        },
                        options);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(calls, 3);  // re-read and re-mutated after each conflict
  EXPECT_EQ((*r)->GetInt("/status/observedGeneration"), 1);
  EXPECT_EQ((*r)->GetInt("/status/readyReplicas"), 3);
  EXPECT_EQ((*r)->GetInt("/spec/replicas"), 3);

  transport_->ClearRequests();
  auto again = UpdateStatus(deployments, {"default", "web"},
                            [](ObjectBuilder& b) { return b.Set("/status/readyReplicas", 3); }, options);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(transport_->RequestCount(), 1u);  // nothing changed: no write
}

TEST_F(ControllerUtilTest, UpdateStatusReportsTheGenerationTheCallerActedOn) {
  auto deployments = client_->Resource(kDeployments, "default");
  ObjectBuilder seed("apps/v1", "Deployment");
  seed.SetName("web").SetNamespace("default");
  auto created = CreateOrUpdate(deployments, seed, [](ObjectBuilder& b) { return b.Set("/spec/replicas", 1); });
  ASSERT_TRUE(created.ok());
  const std::int64_t acted_on = created->object->Generation();
  // The spec changes after the caller read it: the fresh copy the helper GETs is newer. (This
  // fake server stores what it is given, so the test bumps the generation as the server would.)
  ObjectBuilder newer(*created->object);
  ASSERT_TRUE(newer.Set("/spec/replicas", 5).ok());
  ASSERT_TRUE(newer.Set("/metadata/generation", acted_on + 1).ok());
  auto updated = deployments.Update(**newer.Build());
  ASSERT_TRUE(updated.ok());
  ASSERT_GT((*updated)->Generation(), acted_on);
  UpdateStatusOptions options;
  options.clock = &clock_;
  options.observed_generation = acted_on;
  auto r = UpdateStatus(deployments, {"default", "web"},
                        [](ObjectBuilder& b) { return b.Set("/status/readyReplicas", 1); }, options);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)->GetInt("/status/observedGeneration"), acted_on);  // not the newer generation
  // Without it, the fetched generation.
  auto fetched = UpdateStatus(deployments, {"default", "web"},
                              [](ObjectBuilder& b) { return b.Set("/status/readyReplicas", 2); },
                              UpdateStatusOptions{.clock = &clock_});
  ASSERT_TRUE(fetched.ok());
  EXPECT_EQ((*fetched)->GetInt("/status/observedGeneration"), (*updated)->Generation());
}

TEST_F(ControllerUtilTest, UpdateStatusGivesUpWhenConflictsPersist) {
  auto deployments = client_->Resource(kDeployments, "default");
  ObjectBuilder seed("apps/v1", "Deployment");
  seed.SetName("web").SetNamespace("default");
  ASSERT_TRUE(CreateOrUpdate(deployments, seed, [](ObjectBuilder&) { return Ok(); }).ok());
  api_.conflicts_to_inject = 100;
  UpdateStatusOptions options;
  options.clock = &clock_;
  options.backoff.duration = std::chrono::milliseconds(0);
  auto r = UpdateStatus(deployments, {"default", "web"},
                        [](ObjectBuilder& b) { return b.Set("/status/x", 1); }, options);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsConflict(r.error()));
  EXPECT_EQ(api_.conflicts_to_inject, 95);  // DefaultRetry: 5 attempts
}

}  // namespace
}  // namespace kube::controller
