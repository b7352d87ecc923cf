#include <kube/apiserver/discovery.hpp>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "apiserver/discovery/test_registry.hpp"

namespace kube::apiserver {
namespace {

namespace bj = boost::json;

HttpRequest Get(std::string path, std::string query = "") {
  HttpRequest req;
  req.method = "GET";
  req.path = std::move(path);
  req.query = std::move(query);
  req.headers.emplace_back("accept", "application/json");
  return req;
}

bj::value MustGetJson(const Registry& registry, const std::string& path, const std::string& query = "") {
  auto resp = ServeDiscovery(Get(path, query), registry);
  EXPECT_TRUE(resp.has_value()) << path;
  if (!resp) return nullptr;
  EXPECT_EQ(resp->status, 200) << path;
  // The index goes out as kube-apiserver sends it: no Content-Type of its own, which Go sniffs
  // as text; the group-version documents are JSON.
  EXPECT_EQ(resp->content_type, path == "/openapi/v3" ? "text/plain; charset=utf-8" : "application/json") << path;
  return bj::parse(resp->body);
}

// A port of cli-runtime's `supportsQueryParamV3` (pkg/resource/query_param_verifier_v3.go): the
// first PATCH operation whose x-kubernetes-group-version-kind is `gvk` decides whether the
// query parameter is supported.
bool KubectlSeesQueryParam(const bj::value& doc, const GroupVersionKind& gvk, std::string_view param) {
  for (const auto& path : doc.at("paths").as_object()) {
    const bj::object& item = path.value().as_object();
    const bj::value* op = item.if_contains("patch");
    if (op == nullptr) continue;
    const bj::value* ext = op->as_object().if_contains("x-kubernetes-group-version-kind");
    if (ext == nullptr || !ext->is_object()) continue;
    if (ext->at("group").as_string() != gvk.group || ext->at("version").as_string() != gvk.version ||
        ext->at("kind").as_string() != gvk.kind) {
      continue;
    }
    for (const auto& p : op->at("parameters").as_array()) {
      if (p.at("name").as_string() == param && p.at("in") == "query") return true;
    }
    return false;
  }
  return false;
}

class OpenApiTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::AddBuiltins(registry_); }
  Registry registry_;
};

TEST_F(OpenApiTest, IndexListsEveryGroupVersionWithAHashedUrl) {
  const bj::value index = MustGetJson(registry_, "/openapi/v3");
  const bj::object& paths = index.at("paths").as_object();
  std::vector<std::string> keys;
  for (const auto& kv : paths) keys.emplace_back(kv.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"api/v1", "apis/apps/v1", "apis/coordination.k8s.io/v1",
                                            "apis/events.k8s.io/v1"}));
  const std::string url(paths.at("apis/apps/v1").at("serverRelativeURL").as_string());
  ASSERT_TRUE(url.starts_with("/openapi/v3/apis/apps/v1?hash=")) << url;
  // The hash is the document's ETag: it changes whenever the document does.
  auto doc = ServeDiscovery(Get("/openapi/v3/apis/apps/v1", url.substr(url.find('?') + 1)), registry_);
  ASSERT_TRUE(doc.has_value());
  for (const auto& [k, v] : doc->headers) {
    if (k == "ETag") {
      EXPECT_EQ(v, "\"" + url.substr(url.find('=') + 1) + "\"");
    }
  }
}

TEST_F(OpenApiTest, KubectlFindsFieldValidationForEveryServedKind) {
  for (const ResourcePtr& r : registry_.All()) {
    const std::string path =
        r->group.empty() ? "/openapi/v3/api/" + r->version : "/openapi/v3/apis/" + r->group + "/" + r->version;
    const bj::value doc = MustGetJson(registry_, path);
    for (std::string_view param : {"fieldValidation", "fieldManager", "dryRun"}) {
      EXPECT_TRUE(KubectlSeesQueryParam(doc, r->Gvk(), param)) << r->resource << " " << param;
    }
  }
}

TEST_F(OpenApiTest, CoreDocumentHasNamespacedAndClusterPatchPaths) {
  const bj::value doc = MustGetJson(registry_, "/openapi/v3/api/v1");
  EXPECT_EQ(doc.at("openapi"), "3.0.0");
  EXPECT_EQ(doc.at("info").at("version"), "v1.32.0");
  const bj::object& paths = doc.at("paths").as_object();

  const bj::value& cm = paths.at("/api/v1/namespaces/{namespace}/configmaps/{name}");
  EXPECT_EQ(cm.at("patch").at("operationId"), "patchCoreV1NamespacedConfigMap");
  EXPECT_EQ(cm.at("patch").at("x-kubernetes-action"), "patch");
  EXPECT_EQ(cm.at("patch").at("x-kubernetes-group-version-kind"),
            bj::parse(R"({"group":"","version":"v1","kind":"ConfigMap"})"));
  EXPECT_EQ(cm.at("patch").at("parameters").at(2).at("name"), "fieldValidation");
  EXPECT_EQ(cm.at("patch").at("parameters").at(2).at("in"), "query");
  EXPECT_EQ(cm.at("patch").at("parameters").at(2).at("schema").at("type"), "string");
  // No requestBody: kubectl apply then builds its patch from compiled-in types.
  EXPECT_FALSE(cm.at("patch").as_object().contains("requestBody"));
  EXPECT_EQ(cm.at("parameters").at(0).at("name"), "name");
  EXPECT_EQ(cm.at("parameters").at(1).at("name"), "namespace");

  const bj::value& ns = paths.at("/api/v1/namespaces/{name}");
  EXPECT_EQ(ns.at("patch").at("operationId"), "patchCoreV1Namespace");
  EXPECT_EQ(ns.at("parameters").as_array().size(), 2u);  // name, pretty: no namespace
  EXPECT_EQ(paths.at("/api/v1/namespaces/{name}/status").at("patch").at("operationId"),
            "patchCoreV1NamespaceStatus");
  EXPECT_FALSE(paths.contains("/api/v1/namespaces/{namespace}/configmaps/{name}/status"));
  EXPECT_EQ(doc.at("components"), bj::parse(R"({"schemas":{}})"));
}

TEST_F(OpenApiTest, ScaleSubresourceCarriesTheAutoscalingScaleKind) {
  const bj::value doc = MustGetJson(registry_, "/openapi/v3/apis/apps/v1");
  const bj::value& scale =
      doc.at("paths").at("/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale").at("patch");
  EXPECT_EQ(scale.at("operationId"), "patchAppsV1NamespacedDeploymentScale");
  EXPECT_EQ(scale.at("x-kubernetes-group-version-kind"),
            bj::parse(R"({"group":"autoscaling","version":"v1","kind":"Scale"})"));
  EXPECT_EQ(scale.at("tags").at(0), "apps_v1");
  const bj::value leases = MustGetJson(registry_, "/openapi/v3/apis/coordination.k8s.io/v1");
  EXPECT_EQ(leases.at("paths")
                .at("/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}")
                .at("patch")
                .at("operationId"),
            "patchCoordinationV1NamespacedLease");
}

TEST_F(OpenApiTest, CustomResourcesGetDocumentsAndIndexEntries) {
  registry_.Add(testing::WidgetResource());
  const bj::value index = MustGetJson(registry_, "/openapi/v3");
  EXPECT_TRUE(index.at("paths").as_object().contains("apis/example.com/v1"));
  const bj::value doc = MustGetJson(registry_, "/openapi/v3/apis/example.com/v1");
  EXPECT_EQ(doc.at("paths")
                .at("/apis/example.com/v1/namespaces/{namespace}/widgets/{name}")
                .at("patch")
                .at("operationId"),
            "patchExampleComV1NamespacedWidget");
  EXPECT_TRUE(KubectlSeesQueryParam(doc, {"example.com", "v1", "Widget"}, "fieldValidation"));
  EXPECT_FALSE(KubectlSeesQueryParam(doc, {"example.com", "v1", "Gadget"}, "fieldValidation"));
}

TEST_F(OpenApiTest, V2IsNotServed) {
  auto resp = ServeDiscovery(Get("/openapi/v2"), registry_);
  ASSERT_TRUE(resp.has_value());
  EXPECT_EQ(resp->status, 404);
}

}  // namespace
}  // namespace kube::apiserver
