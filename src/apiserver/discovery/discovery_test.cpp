#include <kube/apiserver/discovery.hpp>

#include <atomic>
#include <optional>
#include <thread>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <kube/core/status.hpp>

#include "apiserver/discovery/internal/discovery_docs.hpp"
#include "apiserver/discovery/test_registry.hpp"

namespace kube::apiserver {
namespace {

namespace bj = boost::json;
using testing::AddBuiltins;
using testing::WidgetResource;

// The Accept header kubectl 1.32 (client-go discovery) sends to /api and /apis (§1.2).
constexpr std::string_view kKubectlDiscoveryAccept =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
// kubectl get's Table Accept header (§1.7).
constexpr std::string_view kKubectlTableAccept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,"
    "application/json";

HttpRequest Get(std::string path, std::string_view accept = "application/json",
                std::string query = "") {
  HttpRequest req;
  req.method = "GET";
  req.path = std::move(path);
  req.query = std::move(query);
  req.target = req.path + (req.query.empty() ? "" : "?" + req.query);
  if (!accept.empty()) req.headers.emplace_back("accept", std::string(accept));
  req.headers.emplace_back("host", "127.0.0.1:6443");
  return req;
}

std::optional<std::string_view> HeaderOf(const SimpleResponse& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return std::nullopt;
}

SimpleResponse MustServe(const HttpRequest& req, const Registry& registry) {
  auto resp = ServeDiscovery(req, registry);
  EXPECT_TRUE(resp.has_value()) << req.path;
  return resp.value_or(SimpleResponse{});
}

class DiscoveryTest : public ::testing::Test {
 protected:
  void SetUp() override { AddBuiltins(registry_); }
  Registry registry_;
};

// ---------------------------------------------------------------------------------------------
// Aggregated discovery (§1.2, §1.3)

TEST(Discovery, AggregatedApisForKubectlAcceptIsExactlyKubesShape) {
  Registry registry;
  ResourceInfo d;
  d.group = "apps";
  d.version = "v1";
  d.resource = "deployments";
  d.singular = "deployment";
  d.kind = "Deployment";
  d.list_kind = "DeploymentList";
  d.short_names = {"deploy"};
  d.categories = {"all"};
  d.has_status = true;
  d.has_scale = true;
  registry.Add(d);

  const SimpleResponse resp = MustServe(Get("/apis", kKubectlDiscoveryAccept), registry);
  EXPECT_EQ(resp.status, 200);
  EXPECT_EQ(resp.content_type, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
  EXPECT_EQ(
      resp.body,
      R"({"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},)"
      R"("items":[{"metadata":{"name":"apps","creationTimestamp":null},"versions":[{"version":"v1","resources":[)"
      R"({"resource":"deployments","responseKind":{"group":"apps","version":"v1","kind":"Deployment"},)"
      R"("scope":"Namespaced","singularResource":"deployment",)"
      R"("verbs":["create","delete","deletecollection","get","list","patch","update","watch"],)"
      R"("shortNames":["deploy"],"categories":["all"],"subresources":[)"
      R"({"subresource":"scale","responseKind":{"group":"autoscaling","version":"v1","kind":"Scale"},"verbs":["get","patch","update"]},)"
      R"({"subresource":"status","responseKind":{"group":"apps","version":"v1","kind":"Deployment"},"verbs":["get","patch","update"]}]}],)"
      R"("freshness":"Current"}]}]})");
  EXPECT_EQ(HeaderOf(resp, "Vary"), "Accept");
  EXPECT_EQ(HeaderOf(resp, "Cache-Control"), "public");
  ASSERT_TRUE(HeaderOf(resp, "ETag").has_value());
  EXPECT_TRUE(HeaderOf(resp, "ETag")->starts_with("\""));
}

TEST_F(DiscoveryTest, AggregatedApiHoldsOnlyTheCoreGroupWithAnEmptyName) {
  const SimpleResponse resp = MustServe(Get("/api", kKubectlDiscoveryAccept), registry_);
  ASSERT_EQ(resp.status, 200);
  EXPECT_EQ(resp.content_type, kAggregatedDiscoveryV2ContentType);
  const bj::value doc = bj::parse(resp.body);
  ASSERT_EQ(doc.at("items").as_array().size(), 1u);
  const bj::value& core = doc.at("items").at(0);
  EXPECT_EQ(core.at("metadata"), bj::parse(R"({"creationTimestamp":null})"));
  ASSERT_EQ(core.at("versions").as_array().size(), 1u);
  EXPECT_EQ(core.at("versions").at(0).at("version"), "v1");
  std::vector<std::string> names;
  for (const auto& r : core.at("versions").at(0).at("resources").as_array()) {
    names.emplace_back(r.at("resource").as_string());
    EXPECT_EQ(r.at("responseKind").at("group"), "");
    EXPECT_EQ(r.at("responseKind").at("version"), "v1");
  }
  EXPECT_EQ(names, (std::vector<std::string>{"configmaps", "events", "namespaces", "nodes", "pods",
                                             "secrets", "serviceaccounts", "services"}));
  const bj::value& ns = core.at("versions").at(0).at("resources").at(2);
  EXPECT_EQ(ns.at("scope"), "Cluster");
  EXPECT_EQ(ns.at("shortNames"), bj::array({"ns"}));
  EXPECT_EQ(ns.at("subresources").at(0).at("subresource"), "status");
  EXPECT_FALSE(ns.as_object().contains("categories"));
}

TEST_F(DiscoveryTest, AggregatedApisListsEveryNonCoreGroupInRegistrationOrder) {
  const SimpleResponse resp = MustServe(Get("/apis", kKubectlDiscoveryAccept), registry_);
  const bj::value doc = bj::parse(resp.body);
  std::vector<std::string> groups;
  for (const auto& item : doc.at("items").as_array()) {
    groups.emplace_back(item.at("metadata").at("name").as_string());
  }
  EXPECT_EQ(groups, (std::vector<std::string>{"apps", "coordination.k8s.io", "events.k8s.io"}));
}

TEST_F(DiscoveryTest, AggregatedV2Beta1WhenOnlyV2Beta1IsAccepted) {
  const SimpleResponse resp = MustServe(
      Get("/apis", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"), registry_);
  EXPECT_EQ(resp.content_type, kAggregatedDiscoveryV2Beta1ContentType);
  EXPECT_EQ(bj::parse(resp.body).at("apiVersion"), "apidiscovery.k8s.io/v2beta1");
}

TEST_F(DiscoveryTest, AcceptParametersMayComeInAnyOrder) {
  const SimpleResponse resp = MustServe(
      Get("/apis", "application/json; as=APIGroupDiscoveryList; v=v2; g=apidiscovery.k8s.io"), registry_);
  EXPECT_EQ(resp.content_type, kAggregatedDiscoveryV2ContentType);
}

TEST_F(DiscoveryTest, QValuesOrderTheAcceptedMediaRanges) {
  EXPECT_EQ(MustServe(Get("/apis", "application/json;q=0.9,application/json;g=apidiscovery.k8s.io;"
                                   "v=v2;as=APIGroupDiscoveryList"),
                      registry_)
                .content_type,
            kAggregatedDiscoveryV2ContentType);
  EXPECT_EQ(MustServe(Get("/apis", "application/json;g=apidiscovery.k8s.io;v=v2;"
                                   "as=APIGroupDiscoveryList;q=0.5,application/json"),
                      registry_)
                .content_type,
            "application/json");
}

TEST_F(DiscoveryTest, ProtobufOnlyAcceptIsNotAcceptable) {
  const SimpleResponse resp = MustServe(Get("/apis", "application/vnd.kubernetes.protobuf"), registry_);
  EXPECT_EQ(resp.status, 406);
  EXPECT_EQ(resp.content_type, "application/json");
  auto status = ParseStatus(resp.body);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->error.reason, "NotAcceptable");
  EXPECT_EQ(status->error.code, 406);
  EXPECT_TRUE(status->error.message.starts_with("only the following media types are accepted: application/json"));
}

TEST_F(DiscoveryTest, ETagAnswers304WhenTheClientHoldsTheDocument) {
  const SimpleResponse first = MustServe(Get("/apis", kKubectlDiscoveryAccept), registry_);
  const std::string etag(*HeaderOf(first, "ETag"));
  HttpRequest again = Get("/apis", kKubectlDiscoveryAccept);
  again.headers.emplace_back("if-none-match", etag);
  const SimpleResponse second = MustServe(again, registry_);
  EXPECT_EQ(second.status, 304);
  EXPECT_TRUE(second.body.empty());
  EXPECT_EQ(HeaderOf(second, "ETag"), etag);

  registry_.Add(WidgetResource());
  const SimpleResponse third = MustServe(again, registry_);
  EXPECT_EQ(third.status, 200);
  EXPECT_NE(HeaderOf(third, "ETag"), etag);
}

// ---------------------------------------------------------------------------------------------
// Legacy discovery (§1.4)

TEST_F(DiscoveryTest, LegacyApiVersionsForPlainJson) {
  const SimpleResponse resp = MustServe(Get("/api", "application/json"), registry_);
  EXPECT_EQ(resp.status, 200);
  EXPECT_EQ(resp.content_type, "application/json");
  EXPECT_EQ(resp.body,
            R"({"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":)"
            R"([{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1:6443"}]})");
  // No Accept header at all is plain JSON too.
  EXPECT_EQ(MustServe(Get("/api", ""), registry_).body, resp.body);
}

TEST_F(DiscoveryTest, LegacyApiGroupListForPlainJson) {
  const SimpleResponse resp = MustServe(Get("/apis", "application/json, */*"), registry_);
  EXPECT_EQ(resp.content_type, "application/json");
  EXPECT_EQ(
      resp.body,
      R"({"kind":"APIGroupList","apiVersion":"v1","groups":[)"
      R"({"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},)"
      R"({"name":"coordination.k8s.io","versions":[{"groupVersion":"coordination.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"coordination.k8s.io/v1","version":"v1"}},)"
      R"({"name":"events.k8s.io","versions":[{"groupVersion":"events.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"events.k8s.io/v1","version":"v1"}}]})");
}

TEST_F(DiscoveryTest, LegacyCoreResourceListHasSubresourcesSortedByNameAndStorageHashes) {
  const SimpleResponse resp = MustServe(Get("/api/v1"), registry_);
  EXPECT_EQ(resp.status, 200);
  const bj::value doc = bj::parse(resp.body);
  EXPECT_EQ(doc.at("kind"), "APIResourceList");
  EXPECT_FALSE(doc.as_object().contains("apiVersion"));  // kube leaves it out for the core group
  EXPECT_EQ(doc.at("groupVersion"), "v1");
  std::vector<std::string> names;
  for (const auto& r : doc.at("resources").as_array()) names.emplace_back(r.at("name").as_string());
  EXPECT_EQ(names, (std::vector<std::string>{"configmaps", "events", "namespaces", "namespaces/status",
                                             "nodes", "nodes/status", "pods", "pods/status", "secrets",
                                             "serviceaccounts", "services", "services/status"}));
  // Byte-exact entries, with kube-apiserver's real storage version hashes.
  EXPECT_NE(resp.body.find(
                R"({"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap",)"
                R"("verbs":["create","delete","deletecollection","get","list","patch","update","watch"],)"
                R"("shortNames":["cm"],"storageVersionHash":"qFsyl6wFWjQ="})"),
            std::string::npos)
      << resp.body;
  EXPECT_NE(resp.body.find(
                R"({"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace",)"
                R"("verbs":["create","delete","get","list","patch","update","watch"],"shortNames":["ns"],)"
                R"("storageVersionHash":"Q3oi5N2YM8M="},)"
                R"({"name":"namespaces/status","singularName":"","namespaced":false,"kind":"Namespace",)"
                R"("verbs":["get","patch","update"]})"),
            std::string::npos)
      << resp.body;
  EXPECT_NE(resp.body.find(R"("kind":"Pod",)"), std::string::npos);
  EXPECT_NE(resp.body.find(R"("categories":["all"],"storageVersionHash":"xPOwRZ+Yhw8="})"),
            std::string::npos);
}

TEST_F(DiscoveryTest, LegacyAppsResourceListHasScaleInAutoscaling) {
  const SimpleResponse resp = MustServe(Get("/apis/apps/v1"), registry_);
  EXPECT_EQ(resp.status, 200);
  EXPECT_TRUE(resp.body.starts_with(
      R"({"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resources":[)"
      R"({"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment",)"
      R"("verbs":["create","delete","deletecollection","get","list","patch","update","watch"],)"
      R"("shortNames":["deploy"],"categories":["all"],"storageVersionHash":"8aSe+NMegvE="},)"
      R"({"name":"deployments/scale","singularName":"","namespaced":true,"group":"autoscaling",)"
      R"("version":"v1","kind":"Scale","verbs":["get","patch","update"]},)"
      R"({"name":"deployments/status","singularName":"","namespaced":true,"kind":"Deployment",)"
      R"("verbs":["get","patch","update"]},)"))
      << resp.body;
}

TEST_F(DiscoveryTest, EventsK8sIoSharesCoreEventsStorageVersionHash) {
  const bj::value doc = bj::parse(MustServe(Get("/apis/events.k8s.io/v1"), registry_).body);
  EXPECT_EQ(doc.at("resources").at(0).at("storageVersionHash"), "r2yiGXH7wu8=");
  const bj::value leases = bj::parse(MustServe(Get("/apis/coordination.k8s.io/v1"), registry_).body);
  EXPECT_EQ(leases.at("resources").at(0).at("storageVersionHash"), "gqkMMb/YqFM=");
}

TEST_F(DiscoveryTest, LegacyApiGroup) {
  const SimpleResponse resp = MustServe(Get("/apis/apps"), registry_);
  EXPECT_EQ(resp.body,
            R"({"kind":"APIGroup","apiVersion":"v1","name":"apps","versions":[{"groupVersion":"apps/v1",)"
            R"("version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}})");
}

TEST_F(DiscoveryTest, ResourceListsIgnoreATableAcceptButRefuseATableOnlyAccept) {
  EXPECT_EQ(MustServe(Get("/api/v1", kKubectlTableAccept), registry_).status, 200);
  const SimpleResponse refused =
      MustServe(Get("/api/v1", "application/json;as=Table;v=v1;g=meta.k8s.io"), registry_);
  EXPECT_EQ(refused.status, 406);
}

// ---------------------------------------------------------------------------------------------
// Versions, CRDs and the cache

TEST_F(DiscoveryTest, PreferredVersionIsTheHighestKubeAwareVersion) {
  registry_.Add(WidgetResource("v1beta1"));
  registry_.Add(WidgetResource("v1"));
  registry_.Add(WidgetResource("v1alpha1"));
  const bj::value group = bj::parse(MustServe(Get("/apis/example.com"), registry_).body);
  EXPECT_EQ(group.at("preferredVersion").at("version"), "v1");
  EXPECT_EQ(group.at("versions").at(1).at("version"), "v1beta1");
  EXPECT_EQ(group.at("versions").at(2).at("version"), "v1alpha1");

  const bj::value agg = bj::parse(MustServe(Get("/apis", kKubectlDiscoveryAccept), registry_).body);
  const bj::value& widgets = agg.at("items").at(3);
  EXPECT_EQ(widgets.at("metadata").at("name"), "example.com");
  EXPECT_EQ(widgets.at("versions").at(0).at("version"), "v1");
  const bj::value& res = widgets.at("versions").at(0).at("resources").at(0);
  EXPECT_EQ(res.at("verbs"), bj::array({"delete", "deletecollection", "get", "list", "patch", "create",
                                        "update", "watch"}));
}

TEST(KubeAwareVersions, OrderGaBetaAlphaThenOtherStrings) {
  using internal::CompareKubeAwareVersions;
  EXPECT_GT(CompareKubeAwareVersions("v2", "v1"), 0);
  EXPECT_GT(CompareKubeAwareVersions("v1", "v2beta1"), 0);
  EXPECT_GT(CompareKubeAwareVersions("v1beta2", "v1beta1"), 0);
  EXPECT_GT(CompareKubeAwareVersions("v1beta1", "v2alpha1"), 0);
  EXPECT_GT(CompareKubeAwareVersions("v1alpha1", "foo"), 0);
  EXPECT_GT(CompareKubeAwareVersions("bar", "foo"), 0);
  EXPECT_LT(CompareKubeAwareVersions("v11alpha2", "v10beta1"), 0);
  EXPECT_EQ(CompareKubeAwareVersions("v1", "v1"), 0);
  EXPECT_LT(CompareKubeAwareVersions("v01", "v1"), 0);  // not a kube version
}

TEST_F(DiscoveryTest, AddedAndRemovedCrdsShowUpOnTheNextRequest) {
  auto groups = [&] {
    std::vector<std::string> out;
    const bj::value doc = bj::parse(MustServe(Get("/apis", kKubectlDiscoveryAccept), registry_).body);
    for (const auto& item : doc.at("items").as_array()) out.emplace_back(item.at("metadata").at("name").as_string());
    return out;
  };
  EXPECT_EQ(groups().size(), 3u);
  EXPECT_EQ(MustServe(Get("/apis/example.com/v1"), registry_).status, 404);
  registry_.Add(WidgetResource());
  EXPECT_EQ(groups().back(), "example.com");
  EXPECT_EQ(MustServe(Get("/apis/example.com/v1"), registry_).status, 200);
  ASSERT_TRUE(registry_.Remove("example.com", "v1", "widgets"));
  EXPECT_EQ(groups().size(), 3u);
  EXPECT_EQ(MustServe(Get("/apis/example.com/v1"), registry_).status, 404);
}

TEST(Discovery, ANewRegistryAtAReusedAddressIsNeverServedStaleDocuments) {
  std::optional<Registry> registry;
  registry.emplace();
  registry->Add(WidgetResource());
  EXPECT_NE(MustServe(Get("/apis"), *registry).body.find("example.com"), std::string::npos);
  registry.reset();
  registry.emplace();  // same storage, same generation count after one Add
  ResourceInfo other = WidgetResource();
  other.group = "other.io";
  registry->Add(other);
  const std::string body = MustServe(Get("/apis"), *registry).body;
  EXPECT_EQ(body.find("example.com"), std::string::npos) << body;
  EXPECT_NE(body.find("other.io"), std::string::npos);
}

TEST(Discovery, ConcurrentRequestsWhileResourcesChange) {
  Registry registry;
  AddBuiltins(registry);
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; i < 200; ++i) {
      registry.Add(WidgetResource());
      (void)registry.Remove("example.com", "v1", "widgets");
    }
    stop = true;
  });
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&] {
      while (!stop) {
        for (const char* path : {"/apis", "/api", "/apis/apps/v1", "/openapi/v3", "/openapi/v3/api/v1"}) {
          auto resp = ServeDiscovery(Get(path, kKubectlDiscoveryAccept), registry);
          ASSERT_TRUE(resp.has_value());
          ASSERT_EQ(resp->status, 200) << path;
          ASSERT_FALSE(resp->body.empty());
        }
      }
    });
  }
  writer.join();
  for (auto& t : readers) t.join();
}

// ---------------------------------------------------------------------------------------------
// Routing, /version, health

TEST_F(DiscoveryTest, UnknownGroupsAndVersionsAreGoNotFound) {
  for (const char* path : {"/apis/nope", "/apis/nope/v1", "/apis/apps/v2", "/api/v2", "/openapi/v3/apis/nope/v1",
                           "/openapi/v2", "/openapi/v3/apis/apps"}) {
    const SimpleResponse resp = MustServe(Get(path), registry_);
    EXPECT_EQ(resp.status, 404) << path;
    EXPECT_EQ(resp.content_type, "text/plain; charset=utf-8");
    EXPECT_EQ(resp.body, "404 page not found\n");
  }
}

TEST_F(DiscoveryTest, OtherPathsAndMethodsAreLeftToTheRestLayer) {
  for (const char* path : {"/", "/api/v1/pods", "/api/v1/namespaces/default/pods", "/apis/apps/v1/deployments",
                           "/metrics", "/openapi", "/openapi/v4", "/versions", "/healthz/etcd"}) {
    EXPECT_FALSE(ServeDiscovery(Get(path), registry_).has_value()) << path;
  }
  HttpRequest post = Get("/api");
  post.method = "POST";
  EXPECT_FALSE(ServeDiscovery(post, registry_).has_value());
}

TEST_F(DiscoveryTest, TrailingSlashesAreIgnored) {
  EXPECT_EQ(MustServe(Get("/apis/apps/v1/"), registry_).body, MustServe(Get("/apis/apps/v1"), registry_).body);
  EXPECT_EQ(MustServe(Get("/api/"), registry_).body, MustServe(Get("/api"), registry_).body);
}

TEST_F(DiscoveryTest, VersionIsKube132) {
  const SimpleResponse resp = MustServe(Get("/version"), registry_);
  EXPECT_EQ(resp.status, 200);
  EXPECT_EQ(resp.content_type, "application/json");
  EXPECT_EQ(resp.body,
            R"({"major":"1","minor":"32","gitVersion":"v1.32.0","gitCommit":"0000000000000000000000000000000000000000",)"
            R"("gitTreeState":"clean","buildDate":"2024-12-11T00:00:00Z","goVersion":"go1.23.3","compiler":"gc",)"
            R"("platform":"linux/amd64"})");
}

TEST_F(DiscoveryTest, HealthEndpointsAnswerOk) {
  for (const char* path : {"/healthz", "/livez", "/readyz", "/readyz/ping"}) {
    const SimpleResponse resp = MustServe(Get(path, ""), registry_);
    EXPECT_EQ(resp.status, 200) << path;
    EXPECT_EQ(resp.content_type, "text/plain; charset=utf-8");
    EXPECT_EQ(resp.body, "ok");
  }
  EXPECT_EQ(MustServe(Get("/readyz", "", "verbose"), registry_).body, "[+]ping ok\nreadyz check passed\n");
}

}  // namespace
}  // namespace kube::apiserver
