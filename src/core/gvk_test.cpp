#include <kube/core/gvk.hpp>

#include <unordered_set>

#include <gtest/gtest.h>

namespace kube {
namespace {

TEST(GroupVersion, ParsesCoreAndNamedGroups) {
  auto core = GroupVersion::Parse("v1");
  ASSERT_TRUE(core.ok());
  EXPECT_EQ(core->group, "");
  EXPECT_EQ(core->version, "v1");
  EXPECT_EQ(core->String(), "v1");
  auto apps = GroupVersion::Parse("apps/v1");
  ASSERT_TRUE(apps.ok());
  EXPECT_EQ(apps->group, "apps");
  EXPECT_EQ(apps->String(), "apps/v1");
  for (const char* bad : {"", "a/b/c", "/v1", "apps/"}) {
    auto r = GroupVersion::Parse(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(IsBadRequest(r.error()));
  }
}

TEST(GroupVersionKind, FormatsLikeClientGo) {
  auto gvk = GroupVersionKind::FromApiVersionKind("apps/v1", "Deployment");
  ASSERT_TRUE(gvk.ok());
  EXPECT_EQ(gvk->String(), "apps/v1, Kind=Deployment");
  EXPECT_EQ(gvk->ToGroupKind().String(), "Deployment.apps");
  EXPECT_EQ(gvk->ApiVersion(), "apps/v1");
  EXPECT_FALSE(GroupVersionKind::FromApiVersionKind("v1", "").ok());
  EXPECT_EQ((GroupKind{"", "Pod"}).String(), "Pod");
  GroupVersionResource gvr{"apps", "v1", "deployments"};
  EXPECT_EQ(gvr.String(), "apps/v1, Resource=deployments");
  EXPECT_EQ(gvr.ToGroupResource().String(), "deployments.apps");
  EXPECT_EQ((GroupResource{"", "pods"}).String(), "pods");
}

TEST(ObjectKey, FollowsMetaNamespaceKeyFunc) {
  EXPECT_EQ((ObjectKey{"default", "web"}).String(), "default/web");
  EXPECT_EQ((ObjectKey{"", "node-1"}).String(), "node-1");
  auto k = ObjectKey::Parse("ns/name");
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(*k, (ObjectKey{"ns", "name"}));
  auto c = ObjectKey::Parse("cluster-scoped");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->ns, "");
  for (const char* bad : {"a/b/c", "", "ns/"}) {
    auto r = ObjectKey::Parse(bad);
    ASSERT_FALSE(r.ok()) << bad;
  }
  EXPECT_EQ(ObjectKey::Parse("a/b/c").error().message, "unexpected key format: \"a/b/c\"");
  std::unordered_set<ObjectKey> set{{"a", "b"}, {"a", "b"}, {"", "a/b"}};
  EXPECT_EQ(set.size(), 2u);
}

}  // namespace
}  // namespace kube
