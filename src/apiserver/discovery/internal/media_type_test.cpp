#include "apiserver/discovery/internal/media_type.hpp"

#include <gtest/gtest.h>

namespace kube::apiserver::internal {
namespace {

TEST(ParseAccept, KubectlDiscoveryHeader) {
  const auto ranges = ParseAccept(
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
      "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json");
  ASSERT_EQ(ranges.size(), 3u);
  EXPECT_EQ(ranges[0].type, "application");
  EXPECT_EQ(ranges[0].subtype, "json");
  EXPECT_EQ(ranges[0].Param("v"), "v2");
  EXPECT_EQ(ranges[0].Param("as"), "APIGroupDiscoveryList");
  EXPECT_EQ(ranges[1].Param("v"), "v2beta1");
  EXPECT_FALSE(ranges[2].HasConversion());
  EXPECT_TRUE(ranges[2].AcceptsJson());
}

TEST(ParseAccept, SortsByQThenSpecificityStably) {
  const auto ranges = ParseAccept("*/*;q=0.8, text/*, application/json;q=0.9, text/html, application/yaml");
  ASSERT_EQ(ranges.size(), 5u);
  EXPECT_EQ(ranges[0].subtype, "html");  // q=1, concrete before text/*
  EXPECT_EQ(ranges[1].subtype, "yaml");
  EXPECT_EQ(ranges[2].subtype, "*");
  EXPECT_EQ(ranges[3].subtype, "json");
  EXPECT_EQ(ranges[4].type, "*");
}

TEST(ParseAccept, DropsQZeroAndGarbageAndUnquotesValues) {
  const auto ranges = ParseAccept(R"(application/json;q=0, nonsense, a/b/c, *, application/json;as="Table";x)");
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].Param("as"), "Table");  // concrete type before the "*" range
  EXPECT_FALSE(ranges[0].Param("x").has_value());
  EXPECT_EQ(ranges[1].type, "*");
  EXPECT_TRUE(ranges[1].AcceptsJson());
}

TEST(ParseAccept, EmptyHeader) { EXPECT_TRUE(ParseAccept("").empty()); }

}  // namespace
}  // namespace kube::apiserver::internal
