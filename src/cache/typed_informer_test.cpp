#include <kube/cache/typed_informer.hpp>

#include <gtest/gtest.h>

namespace kube::cache {
namespace {

TEST(TypedListerNotFound, ReadsAsClientGosListerError) {
  const Error apps = TypedListerNotFound("apps", "Deployment", "web");
  EXPECT_TRUE(IsNotFound(apps));
  EXPECT_EQ(apps.message, "deployment.apps \"web\" not found");
  ASSERT_TRUE(apps.details.has_value());
  EXPECT_EQ(apps.details->name, "web");
  EXPECT_EQ(apps.details->group, "apps");
  EXPECT_EQ(apps.details->kind, "deployment");
  const Error core = TypedListerNotFound("", "ConfigMap", "settings");
  EXPECT_EQ(core.message, "configmap \"settings\" not found");
}

}  // namespace
}  // namespace kube::cache
