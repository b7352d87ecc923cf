#include <kube/client/discovery.hpp>
#include <kube/client/fake_transport.hpp>
#include <kube/client/rest_mapper.hpp>

#include <atomic>
#include <map>
#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kube::client {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

constexpr char kAggregatedType[] = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

constexpr char kAggregatedCore[] = R"({"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},
 "items":[{"metadata":{"name":""},"versions":[{"version":"v1","freshness":"Current","resources":[
  {"resource":"pods","responseKind":{"group":"","version":"v1","kind":"Pod"},"scope":"Namespaced","singularResource":"pod",
   "verbs":["get","list"],"shortNames":["po"],"categories":["all"],
   "subresources":[{"subresource":"status","responseKind":{"group":"","version":"v1","kind":"Pod"},"verbs":["get","patch"]}]},
  {"resource":"namespaces","responseKind":{"group":"","version":"v1","kind":"Namespace"},"scope":"Cluster","singularResource":"namespace","verbs":["get"],"shortNames":["ns"]},
  {"resource":"events","responseKind":{"group":"","version":"v1","kind":"Event"},"scope":"Namespaced","singularResource":"event","verbs":["get"],"shortNames":["ev"]},
  {"resource":"nokind","scope":"Namespaced","verbs":["get"]}]}]}]})";

constexpr char kAggregatedApis[] = R"({"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},
 "items":[{"metadata":{"name":"apps"},"versions":[{"version":"v1","freshness":"Current","resources":[
   {"resource":"deployments","responseKind":{"group":"apps","version":"v1","kind":"Deployment"},"scope":"Namespaced",
    "singularResource":"deployment","verbs":["create","get","list"],"shortNames":["deploy"],"categories":["all"],
    "subresources":[{"subresource":"scale","responseKind":{"group":"autoscaling","version":"v1","kind":"Scale"},"verbs":["get"]}]}]}]},
  {"metadata":{"name":"events.k8s.io"},"versions":[{"version":"v1","resources":[
   {"resource":"events","responseKind":{"group":"events.k8s.io","version":"v1","kind":"Event"},"scope":"Namespaced","singularResource":"event","verbs":["get"],"shortNames":["ev"]}]}]},
  {"metadata":{"name":"example.com"},"versions":[
   {"version":"v2","freshness":"Current","resources":[{"resource":"widgets","responseKind":{"group":"example.com","version":"v2","kind":"Widget"},"scope":"Cluster","singularResource":"widget","verbs":["get"]}]},
   {"version":"v1","freshness":"Stale","resources":[]}]}]})";

HttpResponse Json(std::string body, std::string content_type = "application/json") {
  return HttpResponse{200, {{"Content-Type", std::move(content_type)}}, std::move(body)};
}

class DiscoveryTest : public ::testing::Test {
 protected:
  DiscoveryTest() {
    Config c;
    c.host = "https://k";
    c.qps = -1;
    rest_ = RestClient::Create(c, {.transport = transport_}).value();
  }
  void Serve(std::map<std::string, HttpResponse> routes) {
    transport_->SetHandler([routes = std::move(routes)](const HttpRequest& r) -> Result<HttpResponse> {
      auto it = routes.find(r.target);
      if (it == routes.end()) return HttpResponse{404, {{"Content-Type", "text/plain"}}, "404 page not found"};
      return it->second;
    });
  }
  std::shared_ptr<FakeTransport> transport_ = std::make_shared<FakeTransport>();
  std::shared_ptr<RestClient> rest_;
};

TEST(AggregatedDiscovery, RecognisesTheContentTypeInAnyParameterOrder) {
  EXPECT_TRUE(IsAggregatedDiscoveryContentType(kAggregatedType));
  EXPECT_TRUE(IsAggregatedDiscoveryContentType("application/json; as=APIGroupDiscoveryList; v=v2beta1; g=apidiscovery.k8s.io"));
  EXPECT_FALSE(IsAggregatedDiscoveryContentType("application/json"));
  EXPECT_FALSE(IsAggregatedDiscoveryContentType("application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList"));
  EXPECT_FALSE(IsAggregatedDiscoveryContentType("application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"));
}

TEST(AggregatedDiscovery, ConvertsAsClientGoDoes) {
  auto r = ParseAggregatedDiscovery(kAggregatedApis);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->groups.size(), 3u);
  EXPECT_EQ(r->groups[2].name, "example.com");
  EXPECT_EQ(r->groups[2].preferred_version, "v2");
  EXPECT_EQ(r->groups[2].versions, (std::vector<std::string>{"v2", "v1"}));
  ASSERT_EQ(r->failed.size(), 1u);
  EXPECT_EQ(r->failed[0].first, "example.com/v1");
  const ApiResourceList& apps = r->resources[0];
  EXPECT_EQ(apps.group_version, "apps/v1");
  ASSERT_EQ(apps.resources.size(), 2u);
  EXPECT_EQ(apps.resources[0].name, "deployments");
  EXPECT_EQ(apps.resources[0].short_names, (std::vector<std::string>{"deploy"}));
  EXPECT_TRUE(apps.resources[0].namespaced);
  const ApiResource& scale = apps.resources[1];
  EXPECT_EQ(scale.name, "deployments/scale");
  EXPECT_EQ(scale.singular_name, "deployment");  // the parent's
  EXPECT_TRUE(scale.namespaced);
  EXPECT_EQ(scale.group, "autoscaling");
  EXPECT_EQ(scale.kind, "Scale");
  auto core = ParseAggregatedDiscovery(kAggregatedCore);
  ASSERT_TRUE(core.ok());
  for (const auto& res : core->resources[0].resources) EXPECT_NE(res.name, "nokind");  // no responseKind: dropped
}

TEST_F(DiscoveryTest, UsesAggregatedDiscoveryWhenBothRootsAnswerAggregated) {
  Serve({{"/api", Json(kAggregatedCore, kAggregatedType)}, {"/apis", Json(kAggregatedApis, kAggregatedType)}});
  DiscoveryClient discovery(rest_);
  auto r = discovery.ServerGroupsAndResources();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE((*r)->aggregated);
  EXPECT_EQ((*r)->groups.front().name, "");
  EXPECT_EQ((*r)->groups.size(), 4u);
  const auto reqs = transport_->Requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(FindHeader(reqs[0].headers, "Accept").value_or(""), kAggregatedDiscoveryAccept);
  // Cached until invalidated.
  ASSERT_TRUE(discovery.ServerGroupsAndResources().ok());
  EXPECT_EQ(transport_->RequestCount(), 2u);
  discovery.Invalidate();
  ASSERT_TRUE(discovery.ServerGroupsAndResources().ok());
  EXPECT_EQ(transport_->RequestCount(), 4u);
}

TEST_F(DiscoveryTest, FallsBackToLegacyWhenEitherRootIsPlainJson) {
  Serve({{"/api", Json(kAggregatedCore, kAggregatedType)},
         {"/apis", Json(R"({"kind":"APIGroupList","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},
                    {"name":"batch","versions":[{"groupVersion":"batch/v1","version":"v1"}]}]})")},
         {"/api/v1", Json(R"({"kind":"APIResourceList","groupVersion":"v1","resources":[
            {"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get"],"shortNames":["cm"]},
            {"name":"namespaces/status","singularName":"","namespaced":false,"kind":"Namespace","verbs":["get"]}]})")},
         {"/apis/apps/v1", Json(R"({"kind":"APIResourceList","groupVersion":"apps/v1","resources":[
            {"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["get"]},
            {"name":"deployments/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get"]}]})")}});
  DiscoveryClient discovery(rest_);
  auto r = discovery.ServerGroupsAndResources();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE((*r)->aggregated);
  ASSERT_EQ((*r)->resources.size(), 2u);
  EXPECT_EQ((*r)->resources[0].group_version, "v1");
  EXPECT_EQ((*r)->resources[0].resources[0].name, "configmaps");  // legacy, not the aggregated pods
  EXPECT_EQ((*r)->resources[1].resources[1].group, "autoscaling");
  EXPECT_EQ((*r)->resources[1].resources[0].group, "apps");  // defaulted from the list
  ASSERT_EQ((*r)->failed.size(), 1u);
  EXPECT_EQ((*r)->failed[0].first, "batch/v1");
  // Per-group-version requests use plain JSON.
  for (const auto& req : transport_->Requests()) {
    if (req.target == "/api/v1") {
      EXPECT_EQ(FindHeader(req.headers, "Accept").value_or(""), "application/json");
    }
  }
}

TEST_F(DiscoveryTest, ToleratesA404OnApi) {
  Serve({{"/apis", Json(kAggregatedApis, kAggregatedType)},
         {"/apis/apps/v1", Json(R"({"groupVersion":"apps/v1","resources":[]})")}});
  auto r = DiscoveryClient(rest_).ServerGroupsAndResources();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE((*r)->aggregated);
  EXPECT_EQ((*r)->groups.front().name, "apps");
}

TEST_F(DiscoveryTest, ServerErrorsOnTheRootsAreErrors) {
  transport_->SetHandler([](const HttpRequest&) -> Result<HttpResponse> {
    return HttpResponse{403, {{"Content-Type", "application/json"}},
                        R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403})"};
  });
  auto r = DiscoveryClient(rest_).ServerGroupsAndResources();
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsForbidden(r.error()));
}

TEST_F(DiscoveryTest, ReadsServerVersion) {
  Serve({{"/version", Json(R"({"major":"1","minor":"32","gitVersion":"v1.32.0","platform":"linux/amd64"})")}});
  auto v = DiscoveryClient(rest_).GetServerVersion();
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->git_version, "v1.32.0");
  EXPECT_EQ(v->minor, "32");
}

// ---- RESTMapper ----

std::shared_ptr<const DiscoveryResult> Fixture(bool with_widgets) {
  auto core = ParseAggregatedDiscovery(kAggregatedCore).value();
  auto apis = ParseAggregatedDiscovery(kAggregatedApis).value();
  auto out = std::make_shared<DiscoveryResult>(core);
  for (auto& g : apis.groups) {
    if (g.name == "example.com" && !with_widgets) continue;
    out->groups.push_back(g);
  }
  for (auto& l : apis.resources) {
    if (l.group_version.rfind("example.com", 0) == 0 && !with_widgets) continue;
    out->resources.push_back(l);
  }
  return out;
}

TEST(RestMapper, MapsKindsAndResourcesBothWays) {
  RestMapper mapper([](bool) -> Result<std::shared_ptr<const DiscoveryResult>> { return Fixture(true); });
  auto m = mapper.Mapping({"apps", "Deployment"});
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->resource, (GroupVersionResource{"apps", "v1", "deployments"}));
  EXPECT_EQ(m->kind, (GroupVersionKind{"apps", "v1", "Deployment"}));
  EXPECT_TRUE(m->namespaced);
  auto ns = mapper.Mapping({"", "Namespace"}, "v1");
  ASSERT_TRUE(ns.ok());
  EXPECT_FALSE(ns->namespaced);
  EXPECT_EQ(mapper.ResourceFor({"", "", "deploy"}).value(), (GroupVersionResource{"apps", "v1", "deployments"}));
  EXPECT_EQ(mapper.ResourceFor({"", "", "Deployment"}).value(), (GroupVersionResource{"apps", "v1", "deployments"}));
  EXPECT_EQ(mapper.ResourceFor({"", "", "po"}).value(), (GroupVersionResource{"", "v1", "pods"}));
  EXPECT_EQ(mapper.KindFor({"", "", "pod"}).value(), (GroupVersionKind{"", "v1", "Pod"}));
  EXPECT_EQ(mapper.KindFor({"example.com", "", "widget"}).value(), (GroupVersionKind{"example.com", "v2", "Widget"}));
  EXPECT_FALSE(mapper.IsNamespaced({"example.com", "v2", "Widget"}).value());
  // "events" exists in core and events.k8s.io: the core group wins, as in kubectl.
  EXPECT_EQ(mapper.ResourceFor({"", "", "ev"}).value(), (GroupVersionResource{"", "v1", "events"}));
  EXPECT_EQ(mapper.ResourceFor({"events.k8s.io", "", "events"}).value(),
            (GroupVersionResource{"events.k8s.io", "v1", "events"}));
  // Subresources are not mapped.
  EXPECT_FALSE(mapper.ResourceFor({"", "", "pods/status"}).ok());
}

TEST(RestMapper, MissReloadsDiscoveryAtMostOncePerInterval) {
  FakeClock clock;
  std::atomic<int> loads{0};
  std::atomic<bool> crd_registered{false};
  RestMapper mapper(
      [&](bool) -> Result<std::shared_ptr<const DiscoveryResult>> {
        loads.fetch_add(1);
        return Fixture(crd_registered.load());
      },
      {.min_refresh_interval = 1s}, clock);
  auto miss = mapper.Mapping({"example.com", "Widget"});
  ASSERT_FALSE(miss.ok());
  EXPECT_TRUE(IsNoMatch(miss.error()));
  EXPECT_FALSE(IsNotFound(miss.error()));
  EXPECT_EQ(miss.error().code, 404);
  EXPECT_EQ(miss.error().message, "no matches for kind \"Widget\" in group \"example.com\"");
  EXPECT_EQ(loads.load(), 1);  // the reload right after the first load is suppressed
  crd_registered.store(true);
  EXPECT_FALSE(mapper.Mapping({"example.com", "Widget"}).ok());
  EXPECT_EQ(loads.load(), 1);
  clock.Advance(1s);
  auto found = mapper.Mapping({"example.com", "Widget"});
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(loads.load(), 2);
  // Hits never reload.
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(mapper.Mapping({"apps", "Deployment"}).ok());
  EXPECT_EQ(loads.load(), 2);
}

TEST_F(DiscoveryTest, MapperOverDiscoveryClientInvalidatesItsCacheOnAMiss) {
  FakeClock clock;
  std::atomic<bool> with_widgets{false};
  transport_->SetHandler([&](const HttpRequest& r) -> Result<HttpResponse> {
    if (r.target == "/api") return Json(kAggregatedCore, kAggregatedType);
    if (with_widgets.load()) return Json(kAggregatedApis, kAggregatedType);
    return Json(R"({"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[]})", kAggregatedType);
  });
  auto discovery = std::make_shared<DiscoveryClient>(rest_);
  RestMapper mapper(discovery, {.min_refresh_interval = 0s}, clock);
  ASSERT_TRUE(mapper.Mapping({"", "Pod"}).ok());
  with_widgets.store(true);
  clock.Advance(1s);
  auto w = mapper.Mapping({"example.com", "Widget"});
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(transport_->RequestCount(), 4u);
}

}  // namespace
}  // namespace kube::client
