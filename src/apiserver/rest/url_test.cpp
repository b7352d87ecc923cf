#include "apiserver/rest/url.hpp"

#include <gtest/gtest.h>

namespace kube::apiserver::rest {
namespace {

TEST(ParseRequestPath, CoreNamespacedCollection) {
  auto p = ParseRequestPath("/api/v1/namespaces/ns1/configmaps");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->group, "");
  EXPECT_EQ(p->version, "v1");
  EXPECT_EQ(p->ns, "ns1");
  EXPECT_TRUE(p->has_namespace);
  EXPECT_EQ(p->resource, "configmaps");
  EXPECT_TRUE(p->IsCollection());
  EXPECT_FALSE(p->legacy_watch);
}

TEST(ParseRequestPath, GroupedObjectWithSubresource) {
  auto p = ParseRequestPath("/apis/apps/v1/namespaces/default/deployments/web/scale");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->group, "apps");
  EXPECT_EQ(p->version, "v1");
  EXPECT_EQ(p->ns, "default");
  EXPECT_EQ(p->resource, "deployments");
  EXPECT_EQ(p->name, "web");
  EXPECT_EQ(p->subresource, "scale");
}

TEST(ParseRequestPath, AllNamespacesAndClusterScopedCollections) {
  auto all = ParseRequestPath("/api/v1/pods");
  ASSERT_TRUE(all);
  EXPECT_FALSE(all->has_namespace);
  EXPECT_EQ(all->resource, "pods");
  auto nodes = ParseRequestPath("/api/v1/nodes/n1/status");
  ASSERT_TRUE(nodes);
  EXPECT_EQ(nodes->resource, "nodes");
  EXPECT_EQ(nodes->name, "n1");
  EXPECT_EQ(nodes->subresource, "status");
}

TEST(ParseRequestPath, NamespaceObjectAndItsSubresourcesAreNotANamespacePrefix) {
  auto list = ParseRequestPath("/api/v1/namespaces");
  ASSERT_TRUE(list);
  EXPECT_EQ(list->resource, "namespaces");
  EXPECT_TRUE(list->IsCollection());
  auto obj = ParseRequestPath("/api/v1/namespaces/ns1");
  ASSERT_TRUE(obj);
  EXPECT_EQ(obj->resource, "namespaces");
  EXPECT_EQ(obj->name, "ns1");
  EXPECT_FALSE(obj->has_namespace);
  auto status = ParseRequestPath("/api/v1/namespaces/ns1/status");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->resource, "namespaces");
  EXPECT_EQ(status->name, "ns1");
  EXPECT_EQ(status->subresource, "status");
  auto finalize = ParseRequestPath("/api/v1/namespaces/ns1/finalize");
  ASSERT_TRUE(finalize);
  EXPECT_EQ(finalize->subresource, "finalize");
}

TEST(ParseRequestPath, LegacyWatchPrefix) {
  auto p = ParseRequestPath("/api/v1/watch/namespaces/ns1/configmaps/cm1");
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->legacy_watch);
  EXPECT_EQ(p->ns, "ns1");
  EXPECT_EQ(p->resource, "configmaps");
  EXPECT_EQ(p->name, "cm1");
}

TEST(ParseRequestPath, RejectsDiscoveryPathsAndMalformedPaths) {
  EXPECT_FALSE(ParseRequestPath("/api"));
  EXPECT_FALSE(ParseRequestPath("/api/v1"));
  EXPECT_FALSE(ParseRequestPath("/apis/apps"));
  EXPECT_FALSE(ParseRequestPath("/apis/apps/v1"));
  EXPECT_FALSE(ParseRequestPath("/api/v1/"));
  EXPECT_FALSE(ParseRequestPath("/api/v1//configmaps"));
  EXPECT_FALSE(ParseRequestPath("/api/v1/configmaps/"));
  EXPECT_FALSE(ParseRequestPath("/healthz"));
  EXPECT_FALSE(ParseRequestPath("api/v1/pods"));
  EXPECT_FALSE(ParseRequestPath(""));
  EXPECT_FALSE(ParseRequestPath("/api/v1/namespaces/ns/configmaps/a/status/extra"));
}

TEST(QueryParam, DecodesFirstValue) {
  EXPECT_EQ(QueryParam("a=1&includeObject=Object&includeObject=None", "includeObject"), "Object");
  EXPECT_EQ(QueryParam("?x=a%2Cb+c", "x"), "a,b c");
  EXPECT_EQ(QueryParam("flag", "flag"), "");
  EXPECT_FALSE(QueryParam("a=1", "b"));
  EXPECT_EQ(QueryParam("x=%zz", "x"), "%zz");
}

}  // namespace
}  // namespace kube::apiserver::rest
