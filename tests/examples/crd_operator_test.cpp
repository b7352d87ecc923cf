// examples/crd-operator: the Website operator.
// Built twice (see tests/examples/CMakeLists.txt):
// - crd_operator_test (integration): the typed Website's defaults and the Ready rule as plain
//   functions, the CRD declared in C++, and the reconciler run by Managers against the
//   in-process API server on port 0: children with controller ownerReferences, status and the
//   Ready condition, spec changes and observedGeneration, the scale subresource down to zero,
//   garbage collection of the children, no write when nothing changed, and two leader-elected
//   operators (only the leader reconciles; stopping it hands over). The Deployment's status is
//   set by the test, standing in for a deployment controller and kubelet.
// - crd_operator_e2e_test (KUBE_CRD_OPERATOR_E2E, e2e): kubectl applies every manifest in
//   examples/crd-operator/deploy/ to the embedded server (TLS + token), the operator binary runs
//   against it, and `kubectl get websites` shows the printer columns.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <functional>
#include <future>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <kube/kube.hpp>

#ifdef KUBE_CRD_OPERATOR_E2E
#include "../e2e/e2e_util.hpp"
#else
#include <boost/json.hpp>

#include <kube/api/apps/v1.hpp>
#include <kube/api/custom_resource.hpp>
#include <kube/apiserver/apiserver.hpp>

#include "crd_install.hpp"
#include "website.hpp"
#include "../support/in_process_server.hpp"
#endif
#include "../support/eventually.hpp"

namespace kube::examples::website {
namespace {

using namespace std::chrono_literals;

using kube::test_support::Eventually;

#ifndef KUBE_CRD_OPERATOR_E2E

const GroupVersionResource kEvents{"", "v1", "events"};

TEST(WebsiteSpec, AbsentFieldsTakeTheDefaultsAndWrongTypesDoNotDecode) {
  auto w = api::FromJson<Website>(R"({"spec":{"content":"c"}})");
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->spec.Image(), "nginx:1.27");
  EXPECT_EQ(w->spec.Replicas(), 1);
  EXPECT_EQ(w->spec.content, "c");
  w = api::FromJson<Website>(R"({"spec":{"image":"httpd:2","replicas":0}})");
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->spec.Image(), "httpd:2");
  EXPECT_EQ(w->spec.Replicas(), 0);
  // An explicit zero is written back (scaled to zero), not omitted and defaulted to 1 again.
  EXPECT_EQ(api::ToJson(w->spec), R"({"image":"httpd:2","replicas":0})");
  for (const char* bad : {R"({"spec":{"replicas":"2"}})", R"({"spec":{"image":3}})", R"({"spec":{"content":[]}})"}) {
    auto r = api::FromJson<Website>(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(IsBadRequest(r.error())) << bad;
    EXPECT_EQ(r.error().message.rfind("spec.", 0), 0u) << r.error().message;  // names the field
  }
}

TEST(WebsiteCrd, DeclaresTheSchemaDefaultsSubresourcesAndPrinterColumns) {
  const boost::json::object crd = api::CrdOf<Website>();
  EXPECT_EQ(crd.at("metadata").at("name").as_string(), kWebsiteCrdName);
  EXPECT_EQ(crd.at("spec").at("scope"), "Namespaced");
  EXPECT_EQ(crd.at("spec").at("names").at("shortNames"), boost::json::parse(R"(["ws"])"));
  const auto& version = crd.at("spec").at("versions").at(0);
  EXPECT_EQ(version.at("subresources"),
            boost::json::parse(R"({"status":{},"scale":{"specReplicasPath":".spec.replicas",)"
                               R"("statusReplicasPath":".status.readyReplicas"}})"));
  std::vector<std::string> columns;
  for (const auto& c : version.at("additionalPrinterColumns").as_array()) {
    columns.push_back(std::string(c.at("name").as_string()) + " " + std::string(c.at("jsonPath").as_string()));
  }
  EXPECT_EQ(columns, (std::vector<std::string>{"Replicas .spec.replicas", "Ready .status.readyReplicas",
                                               "Image .spec.image", "Age .metadata.creationTimestamp"}));
  const auto& props = version.at("schema").at("openAPIV3Schema").at("properties");
  const auto& spec = props.at("spec").at("properties");
  EXPECT_EQ(spec.at("image").at("default"), "nginx:1.27");
  EXPECT_EQ(spec.at("replicas").at("type"), "integer");
  EXPECT_EQ(spec.at("replicas").at("minimum"), 0);
  EXPECT_EQ(spec.at("replicas").at("default"), 1);
  EXPECT_EQ(spec.at("content").at("type"), "string");
  const auto& status = props.at("status").at("properties");
  for (const char* field : {"observedGeneration", "readyReplicas", "url", "conditions"}) {
    EXPECT_TRUE(status.as_object().contains(field)) << field;
  }
}

TEST(ReadyFromDeployment, ReadyOnlyWhenTheCurrentGenerationIsObservedAndAllReplicasAreAvailable) {
  auto dep = [](int64_t generation, int64_t observed, int32_t available, int32_t ready) {
    api::apps::v1::Deployment d;
    d.metadata.generation = generation;
    d.status.observedGeneration = observed;
    d.status.availableReplicas = available;
    d.status.readyReplicas = ready;
    return d;
  };
  ReadyState s = ReadyFromDeployment(dep(2, 1, 3, 3), 3);
  EXPECT_FALSE(s.ready);
  EXPECT_EQ(s.reason, "RolloutPending");
  s = ReadyFromDeployment(dep(2, 2, 1, 2), 3);
  EXPECT_FALSE(s.ready);
  EXPECT_EQ(s.reason, "Progressing");
  EXPECT_EQ(s.message, "1/3 replicas available");
  EXPECT_EQ(s.ready_replicas, 2);
  s = ReadyFromDeployment(dep(2, 2, 3, 3), 3);
  EXPECT_TRUE(s.ready);
  EXPECT_EQ(s.reason, "Available");
  // Scaled to zero: nothing to wait for.
  api::apps::v1::Deployment zero;
  zero.metadata.generation = 1;
  zero.status.observedGeneration = 1;
  s = ReadyFromDeployment(zero, 0);
  EXPECT_TRUE(s.ready);
  // A Deployment the controller has not seen yet (no status at all).
  api::apps::v1::Deployment unseen;
  unseen.metadata.generation = 1;
  s = ReadyFromDeployment(unseen, 0);
  EXPECT_FALSE(s.ready);
  EXPECT_EQ(s.reason, "RolloutPending");
}

// One operator process, as main.cpp sets it up: a Manager (optionally leader-elected, with
// read-your-writes), its event recorder and the Website controller, run on a thread until Stop.
class Operator {
 public:
  Operator(std::shared_ptr<client::RestClient> rest, controller::LeaderElectionOptions election = {}) {
    auto mgr = controller::Manager::Create(
        {.rest = rest, .leader_election = std::move(election), .client = {.read_your_writes = true}});
    EXPECT_TRUE(mgr.ok()) << mgr.error().message;
    if (!mgr.ok()) return;
    mgr_ = std::move(mgr).value();
    broadcaster_ = controller::EventBroadcaster::Create(controller::NewApiEventSink(client::DynamicClient(rest)));
    recorder_ = broadcaster_->NewRecorder("website-operator");
    auto ctrl = SetupWebsiteController(*mgr_, *recorder_);
    EXPECT_TRUE(ctrl.ok()) << ctrl.error().message;
    if (ctrl.ok()) ctrl_ = *ctrl;
  }
  ~Operator() {
    (void)Stop();
    if (broadcaster_) broadcaster_->Shutdown();
  }
  void Start() {
    run_ = std::async(std::launch::async, [this] { return mgr_->Start(stop_.get_token()); });
  }
  Result<void> Stop() {
    if (!run_.valid()) return Ok();
    stop_.request_stop();
    return run_.get();
  }
  bool ok() const { return ctrl_ != nullptr; }
  controller::Manager& mgr() { return *mgr_; }
  controller::Controller& ctrl() { return *ctrl_; }
  void FlushEvents() { broadcaster_->Flush(); }

 private:
  std::unique_ptr<controller::Manager> mgr_;
  std::unique_ptr<controller::EventBroadcaster> broadcaster_;
  std::unique_ptr<controller::EventRecorder> recorder_;
  std::shared_ptr<controller::Controller> ctrl_;
  std::stop_source stop_;
  std::future<Result<void>> run_;
};

class CrdOperatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto started = test_support::StartInProcessServer([](auto& o) { o.rest.bookmark_interval = 300ms; });
    ASSERT_TRUE(started.ok()) << started.error().message;
    server_ = std::move(started->server);
    rest_ = started->rest;
    auto crd = InstallWebsiteCrd(rest_, {}, {.poll_interval = 20ms});
    ASSERT_TRUE(crd.ok()) << crd.error().message;
    ASSERT_TRUE(IsEstablished(*crd));
  }
  void TearDown() override {
    operators_.clear();
    if (server_) server_->Stop();
  }

  Operator& NewOperator(controller::LeaderElectionOptions election = {}) {
    operators_.push_back(std::make_unique<Operator>(rest_, std::move(election)));
    EXPECT_TRUE(operators_.back()->ok());
    return *operators_.back();
  }

  client::Api Websites() const { return client::Api(rest_, client::ResourceOf<Website>(), "default"); }
  client::Api ConfigMaps() const {
    return client::Api(rest_, client::ResourceOf<api::core::v1::ConfigMap>(), "default");
  }
  client::Api Deployments() const {
    return client::Api(rest_, client::ResourceOf<api::apps::v1::Deployment>(), "default");
  }

  ObjectPtr CreateWebsite(const std::string& name, int replicas, const std::string& content) {
    auto obj = Object::Parse(R"({"apiVersion":"example.kubecpp.io/v1","kind":"Website","metadata":{"name":")" + name +
                             R"(","namespace":"default"},"spec":{"replicas":)" + std::to_string(replicas) +
                             R"(,"content":")" + content + R"("}})");
    EXPECT_TRUE(obj.ok());
    auto created = Websites().Create(**obj);
    EXPECT_TRUE(created.ok()) << created.error().message;
    return created.ok() ? *created : nullptr;
  }
  static ObjectPtr GetOrNull(const client::Api& api, const std::string& name) {
    auto got = api.Get(name);
    return got.ok() ? *got : nullptr;
  }
  static bool IsGone(const client::Api& api, const std::string& name) {
    auto got = api.Get(name);
    return !got.ok() && IsNotFound(got.error());
  }
  // What a deployment controller + kubelet would report once `available` pods are up.
  void SetDeploymentStatus(const std::string& name, int available) {
    auto r = RetryOnConflict(DefaultRetry(), [&]() -> Result<void> {
      auto dep = Deployments().Get(name);
      if (!dep) return std::move(dep).error();
      ObjectBuilder b(**dep);
      KUBE_RETURN_IF_ERROR(b.Set("/status", boost::json::object{{"observedGeneration", (*dep)->Generation()},
                                                                 {"replicas", available},
                                                                 {"updatedReplicas", available},
                                                                 {"readyReplicas", available},
                                                                 {"availableReplicas", available}}));
      auto built = b.Build();
      if (!built) return std::move(built).error();
      auto updated = Deployments().UpdateStatus(**built);
      if (!updated) return std::move(updated).error();
      return Ok();
    });
    ASSERT_TRUE(r.ok()) << r.error().message;
  }
  // The Ready condition's fields, "" when absent.
  static std::string Cond(const Object& website, const std::string& field) {
    const auto conditions = website.Get("/status/conditions");
    if (!conditions || !conditions->is_array()) return "";
    for (const auto& c : conditions->as_array()) {
      const auto& o = c.as_object();
      if (o.contains("type") && o.at("type") == "Ready" && o.contains(field)) {
        return o.at(field).is_string() ? std::string(o.at(field).as_string()) : boost::json::serialize(o.at(field));
      }
    }
    return "";
  }
  // "<reason> <message>" of the Events about Website `name`.
  std::vector<std::string> EventsOf(const std::string& name) {
    std::vector<std::string> out;
    auto list = client::Api(rest_, kEvents, "default").List();
    EXPECT_TRUE(list.ok());
    if (!list.ok()) return out;
    for (const auto& e : list->items) {
      if (e->GetString("/involvedObject/name") == name && e->GetString("/involvedObject/kind") == "Website") {
        out.push_back(e->GetString("/reason").value_or("") + " " + e->GetString("/message").value_or(""));
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  static void ExpectControlledBy(const Object& child, const Object& website) {
    const auto ref = child.ControllerRef();
    ASSERT_TRUE(ref.has_value()) << child.Json();
    EXPECT_EQ(ref->api_version, "example.kubecpp.io/v1");
    EXPECT_EQ(ref->kind, "Website");
    EXPECT_EQ(ref->name, website.Name());
    EXPECT_EQ(ref->uid, website.Uid());
    EXPECT_EQ(ref->block_owner_deletion, std::optional<bool>(true));
  }

  std::unique_ptr<apiserver::ApiServer> server_;
  std::shared_ptr<client::RestClient> rest_;
  std::vector<std::unique_ptr<Operator>> operators_;
};

TEST_F(CrdOperatorTest, InstallCrdIsIdempotentAndServesTheSchemaDefaults) {
  auto again = InstallWebsiteCrd(rest_, {}, {.poll_interval = 20ms});
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_TRUE(IsEstablished(*again));
  auto created = CreateWebsite("defaults", 1, "x");
  ASSERT_NE(created, nullptr);
  EXPECT_EQ(created->GetString("/spec/image"), "nginx:1.27");  // the CRD's schema default
  auto bad = Object::Parse(
      R"({"apiVersion":"example.kubecpp.io/v1","kind":"Website","metadata":{"name":"neg"},"spec":{"replicas":-1}})");
  ASSERT_TRUE(bad.ok());
  auto rejected = Websites().Create(**bad);
  ASSERT_FALSE(rejected.ok());
  EXPECT_TRUE(IsInvalid(rejected.error())) << rejected.error().message;  // minimum: 0
}

TEST_F(CrdOperatorTest, ReconcileCreatesOwnedChildrenAndReportsReadyOnceTheDeploymentIsAvailable) {
  Operator& op = NewOperator();
  op.Start();
  ObjectPtr website = CreateWebsite("site", 2, "<h1>hi</h1>");
  ASSERT_NE(website, nullptr);

  ObjectPtr cm, dep;
  ASSERT_TRUE(Eventually([&] {
    cm = GetOrNull(ConfigMaps(), "site-content");
    dep = GetOrNull(Deployments(), "site");
    return cm != nullptr && dep != nullptr;
  }));
  EXPECT_EQ(cm->GetString("/data/index.html"), "<h1>hi</h1>");
  ExpectControlledBy(*cm, *website);
  ExpectControlledBy(*dep, *website);
  EXPECT_EQ(dep->GetInt("/spec/replicas"), 2);
  EXPECT_EQ(dep->GetString("/spec/template/spec/containers/0/image"), "nginx:1.27");
  EXPECT_EQ(dep->GetString("/spec/template/spec/volumes/0/configMap/name"), "site-content");
  EXPECT_EQ(dep->GetString("/spec/selector/matchLabels/app.kubernetes.io~1instance"), "site");

  // Not available yet: Ready=False, observedGeneration set.
  ObjectPtr ws;
  ASSERT_TRUE(Eventually([&] {
    ws = GetOrNull(Websites(), "site");
    return ws != nullptr && ws->GetInt("/status/observedGeneration") == 1 && !Cond(*ws, "status").empty();
  }));
  EXPECT_EQ(Cond(*ws, "status"), "False");
  EXPECT_EQ(Cond(*ws, "reason"), "RolloutPending");
  EXPECT_EQ(Cond(*ws, "observedGeneration"), "1");
  EXPECT_EQ(ws->GetInt("/status/readyReplicas"), 0);
  EXPECT_EQ(ws->GetString("/status/url"), "http://site.default.svc.cluster.local/");
  const std::string first_transition = Cond(*ws, "lastTransitionTime");

  SetDeploymentStatus("site", 1);
  ASSERT_TRUE(Eventually([&] {
    ws = GetOrNull(Websites(), "site");
    return ws != nullptr && Cond(*ws, "reason") == "Progressing";
  }));
  EXPECT_EQ(Cond(*ws, "message"), "1/2 replicas available");
  EXPECT_EQ(Cond(*ws, "lastTransitionTime"), first_transition);  // still False: no transition

  SetDeploymentStatus("site", 2);
  ASSERT_TRUE(Eventually([&] {
    ws = GetOrNull(Websites(), "site");
    return ws != nullptr && Cond(*ws, "status") == "True";
  }));
  EXPECT_EQ(Cond(*ws, "reason"), "Available");
  EXPECT_EQ(ws->GetInt("/status/readyReplicas"), 2);

  op.FlushEvents();
  EXPECT_EQ(EventsOf("site"), (std::vector<std::string>{"Created Created ConfigMap site-content",
                                                        "Created Created Deployment site"}));
}

TEST_F(CrdOperatorTest, ReconcileWithNothingToChangeWritesNothing) {
  Operator& op = NewOperator();
  op.Start();
  ASSERT_NE(CreateWebsite("calm", 1, "x"), nullptr);
  ASSERT_TRUE(Eventually([&] {
    ObjectPtr ws = GetOrNull(Websites(), "calm");
    return ws != nullptr && !Cond(*ws, "status").empty();
  }));
  SetDeploymentStatus("calm", 1);
  ASSERT_TRUE(Eventually([&] {
    ObjectPtr ws = GetOrNull(Websites(), "calm");
    return ws != nullptr && Cond(*ws, "status") == "True";
  }));
  // An unrelated change to the Deployment reconciles the Website (Owns), and so does a request
  // added by hand once the controller is idle: both must find everything as the operator wants
  // it, so nothing is written (a write would wake the controller again: a reconcile loop).
  const auto start = op.ctrl().Stats().reconciles;
  auto touched = Deployments().Patch("calm", PatchType::kMerge, R"({"metadata":{"labels":{"touched":"yes"}}})");
  ASSERT_TRUE(touched.ok()) << touched.error().message;
  const std::string cm_rv(GetOrNull(ConfigMaps(), "calm-content")->ResourceVersion());
  const std::string ws_rv(GetOrNull(Websites(), "calm")->ResourceVersion());
  ASSERT_TRUE(Eventually([&] {  // the Deployment change was reconciled and nothing else is pending
    const auto stats = op.ctrl().Stats();
    return stats.reconciles > start && stats.active_workers == 0 && op.ctrl().GetQueue().Len() == 0;
  }));
  const auto before = op.ctrl().Stats().reconciles;
  op.ctrl().GetQueue().Add(controller::Request{{"default", "calm"}});
  ASSERT_TRUE(Eventually([&] { return op.ctrl().Stats().reconciles > before; }));
  EXPECT_EQ(GetOrNull(Deployments(), "calm")->ResourceVersion(), (*touched)->ResourceVersion());
  EXPECT_EQ(GetOrNull(ConfigMaps(), "calm-content")->ResourceVersion(), cm_rv);
  EXPECT_EQ(GetOrNull(Websites(), "calm")->ResourceVersion(), ws_rv);
}

TEST_F(CrdOperatorTest, SpecChangeUpdatesChildrenAndBumpsObservedGeneration) {
  Operator& op = NewOperator();
  op.Start();
  ASSERT_NE(CreateWebsite("blog", 1, "v1"), nullptr);
  ASSERT_TRUE(Eventually([&] {
    ObjectPtr ws = GetOrNull(Websites(), "blog");
    return ws != nullptr && ws->GetInt("/status/observedGeneration") == 1;
  }));
  SetDeploymentStatus("blog", 1);
  ASSERT_TRUE(Eventually([&] { return Cond(*GetOrNull(Websites(), "blog"), "status") == "True"; }));
  const auto old_hash =
      GetOrNull(Deployments(), "blog")->GetString("/spec/template/metadata/annotations/example.kubecpp.io~1content-hash");

  auto patched = Websites().Patch("blog", PatchType::kMerge,
                                  R"({"spec":{"replicas":3,"image":"nginx:1.28","content":"v2"}})");
  ASSERT_TRUE(patched.ok()) << patched.error().message;
  EXPECT_EQ((*patched)->Generation(), 2);
  ObjectPtr ws;
  ASSERT_TRUE(Eventually([&] {
    ws = GetOrNull(Websites(), "blog");
    return ws != nullptr && ws->GetInt("/status/observedGeneration") == 2;
  }));
  EXPECT_EQ(Cond(*ws, "observedGeneration"), "2");
  EXPECT_EQ(Cond(*ws, "status"), "False");  // the Deployment changed: not yet rolled out
  ObjectPtr dep = GetOrNull(Deployments(), "blog");
  ASSERT_NE(dep, nullptr);
  EXPECT_EQ(dep->GetInt("/spec/replicas"), 3);
  EXPECT_EQ(dep->GetString("/spec/template/spec/containers/0/image"), "nginx:1.28");
  EXPECT_NE(dep->GetString("/spec/template/metadata/annotations/example.kubecpp.io~1content-hash"), old_hash);
  EXPECT_EQ(GetOrNull(ConfigMaps(), "blog-content")->GetString("/data/index.html"), "v2");

  SetDeploymentStatus("blog", 3);
  ASSERT_TRUE(Eventually([&] { return Cond(*GetOrNull(Websites(), "blog"), "status") == "True"; }));
  op.FlushEvents();
  const auto events = EventsOf("blog");
  EXPECT_EQ(std::count(events.begin(), events.end(), "Updated Updated ConfigMap blog-content"), 1) << events.size();
  EXPECT_EQ(std::count(events.begin(), events.end(), "Updated Updated Deployment blog"), 1) << events.size();
}

TEST_F(CrdOperatorTest, ScaleSubresourceScalesTheDeploymentDownToZero) {
  Operator& op = NewOperator();
  op.Start();
  ASSERT_NE(CreateWebsite("scaled", 2, "x"), nullptr);
  ASSERT_TRUE(Eventually([&] {
    ObjectPtr dep = GetOrNull(Deployments(), "scaled");
    return dep != nullptr && dep->GetInt("/spec/replicas") == 2;
  }));
  // kubectl scale website scaled --replicas=0: the scale subresource writes .spec.replicas.
  auto scaled = Websites().Patch("scaled", PatchType::kMerge, R"({"spec":{"replicas":0}})", {}, "scale");
  ASSERT_TRUE(scaled.ok()) << scaled.error().message;
  ASSERT_TRUE(Eventually([&] {
    ObjectPtr dep = GetOrNull(Deployments(), "scaled");
    return dep != nullptr && dep->GetInt("/spec/replicas") == 0;
  }));
  SetDeploymentStatus("scaled", 0);
  ObjectPtr ws;
  ASSERT_TRUE(Eventually([&] {
    ws = GetOrNull(Websites(), "scaled");
    return ws != nullptr && Cond(*ws, "status") == "True";
  }));
  EXPECT_EQ(ws->GetInt("/spec/replicas"), 0);  // the status write kept the explicit zero
  EXPECT_EQ(ws->GetInt("/status/readyReplicas"), 0);
  EXPECT_EQ(Cond(*ws, "message"), "0/0 replicas available");
  auto scale = Websites().GetSubresource("scaled", "scale");
  ASSERT_TRUE(scale.ok()) << scale.error().message;
  EXPECT_EQ((*scale)->GetInt("/status/replicas"), 0);
}

TEST_F(CrdOperatorTest, DeletingTheWebsiteRemovesItsChildrenThroughGarbageCollection) {
  Operator& op = NewOperator();
  op.Start();
  ASSERT_NE(CreateWebsite("gone", 1, "bye"), nullptr);
  ASSERT_TRUE(Eventually([&] {
    return GetOrNull(ConfigMaps(), "gone-content") != nullptr && GetOrNull(Deployments(), "gone") != nullptr;
  }));
  ASSERT_TRUE(Websites().Delete("gone").ok());
  ASSERT_TRUE(Eventually([&] {
    return IsGone(Websites(), "gone") && IsGone(ConfigMaps(), "gone-content") && IsGone(Deployments(), "gone");
  }));
}

TEST_F(CrdOperatorTest, OnlyTheLeaderReconcilesAndStoppingItHandsOver) {
  auto election = [](std::string identity) {
    return controller::LeaderElectionOptions{.enabled = true,
                                             .id = "website-operator",
                                             .ns = "default",
                                             .identity = std::move(identity),
                                             .lease_duration = 4s,
                                             .renew_deadline = 3s,
                                             .retry_period = 100ms};
  };
  Operator& a = NewOperator(election("operator-a"));
  Operator& b = NewOperator(election("operator-b"));
  a.Start();
  ASSERT_TRUE(Eventually([&] { return a.mgr().IsLeader(); }));
  b.Start();
  ASSERT_NE(CreateWebsite("one", 1, "1"), nullptr);
  ASSERT_TRUE(Eventually([&] { return GetOrNull(Deployments(), "one") != nullptr; }));
  // The count moves when the reconcile returns, just after its writes.
  EXPECT_TRUE(Eventually([&] { return a.ctrl().Stats().reconciles > 0; }));
  EXPECT_FALSE(b.mgr().IsLeader());
  EXPECT_EQ(b.ctrl().Stats().reconciles, 0);  // the follower's controller never ran
  auto lease = client::Api(rest_, {"coordination.k8s.io", "v1", "leases"}, "default").Get("website-operator");
  ASSERT_TRUE(lease.ok()) << lease.error().message;
  EXPECT_EQ((*lease)->GetString("/spec/holderIdentity"), "operator-a");

  // The leader stops (releasing the lease); the other takes over and reconciles new Websites.
  ASSERT_TRUE(a.Stop().ok());
  const auto a_reconciles = a.ctrl().Stats().reconciles;
  ASSERT_TRUE(Eventually([&] { return b.mgr().IsLeader(); }));
  ASSERT_NE(CreateWebsite("two", 1, "2"), nullptr);
  ASSERT_TRUE(Eventually([&] { return GetOrNull(Deployments(), "two") != nullptr; }));
  EXPECT_TRUE(Eventually([&] { return b.ctrl().Stats().reconciles > 0; }));
  EXPECT_EQ(a.ctrl().Stats().reconciles, a_reconciles);
  lease = client::Api(rest_, {"coordination.k8s.io", "v1", "leases"}, "default").Get("website-operator");
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ((*lease)->GetString("/spec/holderIdentity"), "operator-b");
  ASSERT_TRUE(b.Stop().ok());
}

#else  // KUBE_CRD_OPERATOR_E2E

using apiserver::e2e::CommandResult;
using apiserver::e2e::Lines;
using apiserver::e2e::LineStream;
using apiserver::e2e::Row;
using apiserver::e2e::TestServer;

std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class WebsiteKubectlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!apiserver::e2e::HaveKubectl()) GTEST_SKIP() << "kubectl not installed";
    server_ = std::make_unique<TestServer>("website-operator-e2e");
    ASSERT_EQ(server_->error(), "");
  }
  void TearDown() override {
    op_.reset();
    server_.reset();
  }
  std::string Ok(const std::string& args) {
    const CommandResult r = server_->Kubectl(args);
    EXPECT_EQ(r.exit_code, 0) << "kubectl " << args << "\n" << r.output;
    return r.output;
  }

  std::unique_ptr<TestServer> server_;
  std::unique_ptr<LineStream> op_;
};

TEST_F(WebsiteKubectlTest, DeployManifestsApplyAndGetWebsitesShowsThePrinterColumns) {
  const std::filesystem::path deploy = KUBECPP_WEBSITE_DEPLOY_DIR;
  // The order a user applies them in; every manifest in deploy/ must be listed here.
  const std::vector<std::string> order = {"namespace.yaml", "crd.yaml",        "serviceaccount.yaml",
                                          "rbac.yaml",      "deployment.yaml", "website.yaml"};
  std::set<std::string> present;
  for (const auto& entry : std::filesystem::directory_iterator(deploy)) present.insert(entry.path().filename());
  EXPECT_EQ(present, std::set<std::string>(order.begin(), order.end()));

  for (const auto& file : order) {
    const std::string out = Ok("apply -f " + (deploy / file).string());
    EXPECT_NE(out.find("created"), std::string::npos) << file << ": " << out;
    if (file == "crd.yaml") {
      Ok("wait --for=condition=established --timeout=60s crd/websites.example.kubecpp.io");
    }
  }
  // Everything the manifests declare is stored.
  EXPECT_EQ(Ok("get clusterrole website-operator -o jsonpath={.rules[0].resources[0]}"), "websites");
  EXPECT_EQ(Ok("get clusterrolebinding website-operator -o jsonpath={.subjects[0].name}"), "website-operator");
  EXPECT_EQ(Ok("-n website-operator-system get rolebinding website-operator-leader-election -o "
               "jsonpath={.roleRef.name}"),
            "website-operator-leader-election");
  EXPECT_EQ(Ok("-n website-operator-system get serviceaccount website-operator -o name"),
            "serviceaccount/website-operator\n");
  EXPECT_EQ(Ok("-n website-operator-system get deployment website-operator -o jsonpath={.spec.replicas}"), "2");
  EXPECT_NE(Ok("-n website-operator-system get deployment website-operator -o "
               "jsonpath={.spec.template.spec.containers[0].args}")
                .find("--leader-elect"),
            std::string::npos);

  // The operator binary against the same server (its log goes to a file: nobody reads a pipe) (what README.md describes for a real cluster);
  // --install-crd re-applies the built-in CRD over kubectl's (server-side apply, forced).
  const std::filesystem::path log = server_->dir() / "operator.log";
  op_ = std::make_unique<LineStream>(std::string(KUBECPP_WEBSITE_OPERATOR_BIN) +
                                     " --kubeconfig " + server_->server().kubeconfig_path() +
                                     " --install-crd --leader-election-namespace website-operator-system"
                                     " --identity e2e-operator --metrics-bind-address 127.0.0.1:0 > " +
                                     log.string() + " 2>&1");
  ASSERT_TRUE(Eventually([&] { return server_->Kubectl("get deployment hello").exit_code == 0; }, 60s))
      << Slurp(log);
  EXPECT_EQ(Ok("get configmap hello-content -o jsonpath={.metadata.ownerReferences[0].kind}"), "Website");
  EXPECT_EQ(Ok("-n website-operator-system get lease website-operator -o jsonpath={.spec.holderIdentity}"),
            "e2e-operator");
  // Stand in for the deployment controller and kubelet: two pods available.
  Ok(R"(patch deployment hello --subresource=status --type=merge -p '{"status":{"observedGeneration":1,"replicas":2,"updatedReplicas":2,"readyReplicas":2,"availableReplicas":2}}')");
  Ok("wait --for=condition=Ready --timeout=60s website/hello");
  EXPECT_NE(Slurp(log).find("website CRD established"), std::string::npos) << Slurp(log);

  const auto lines = Lines(Ok("get websites"));
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[0], (apiserver::e2e::Fields{"NAME", "REPLICAS", "READY", "IMAGE", "AGE"}));
  const auto* hello = Row(lines, "hello");
  ASSERT_NE(hello, nullptr);
  ASSERT_EQ(hello->size(), 5u);
  EXPECT_EQ((*hello)[1], "2");
  EXPECT_EQ((*hello)[2], "2");
  EXPECT_EQ((*hello)[3], "nginx:1.27");
  // The short name and the scale subresource.
  EXPECT_NE(Ok("get ws").find("hello"), std::string::npos);
  Ok("scale website hello --replicas=3");
  ASSERT_TRUE(Eventually([&] {
    return server_->Kubectl("get deployment hello -o jsonpath={.spec.replicas}").output == "3";
  }));
  op_->Stop();
}

#endif  // KUBE_CRD_OPERATOR_E2E

}  // namespace
}  // namespace kube::examples::website
