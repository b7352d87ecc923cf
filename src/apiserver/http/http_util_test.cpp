#include "apiserver/http/http_util.hpp"

#include <gtest/gtest.h>

#include <kube/apiserver/http_server.hpp>
#include <kube/base/error.hpp>

namespace kube::apiserver::internal {
namespace {

using namespace std::chrono_literals;

TEST(SplitRequestTarget, SplitsOriginFormAtFirstQuestionMark) {
  auto t = SplitRequestTarget("/api/v1/pods?watch=1&labelSelector=a%3Db?c");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->path, "/api/v1/pods");
  EXPECT_EQ(t->query, "watch=1&labelSelector=a%3Db?c");
  auto no_query = SplitRequestTarget("/healthz");
  ASSERT_TRUE(no_query.ok());
  EXPECT_EQ(no_query->path, "/healthz");
  EXPECT_EQ(no_query->query, "");
}

TEST(SplitRequestTarget, DropsSchemeAndAuthorityOfAbsoluteForm) {
  auto t = SplitRequestTarget("http://localhost:8080/api?x=1");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->path, "/api");
  EXPECT_EQ(t->query, "x=1");
  auto bare = SplitRequestTarget("https://localhost");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->path, "/");
}

TEST(SplitRequestTarget, RejectsRelativeTargetsWithBadRequest) {
  auto t = SplitRequestTarget("api/v1");
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(IsBadRequest(t.error()));
  EXPECT_FALSE(SplitRequestTarget("").ok());
}

TEST(PercentDecodePath, DecodesEscapesAndKeepsPlus) {
  auto p = PercentDecodePath("/api/v1/namespaces/a%20b/configmaps/x%2Fy+z%7e");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, "/api/v1/namespaces/a b/configmaps/x/y+z~");
}

TEST(PercentDecodePath, RejectsInvalidEscapesAndNul) {
  for (const char* bad : {"/a%", "/a%4", "/a%zz", "/a%g0", "/a%00b"}) {
    auto p = PercentDecodePath(bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_TRUE(IsBadRequest(p.error())) << bad;
  }
}

TEST(ConstantTimeEquals, ComparesContentAndLength) {
  EXPECT_TRUE(ConstantTimeEquals("secret", "secret"));
  EXPECT_FALSE(ConstantTimeEquals("secreT", "secret"));
  EXPECT_FALSE(ConstantTimeEquals("secret1", "secret"));
  EXPECT_FALSE(ConstantTimeEquals("secre", "secret"));
  EXPECT_FALSE(ConstantTimeEquals("", "secret"));
  EXPECT_TRUE(ConstantTimeEquals("", ""));
}

TEST(BearerToken, AcceptsCaseInsensitiveSchemeAndRejectsOthers) {
  EXPECT_EQ(BearerToken("Bearer abc"), "abc");
  EXPECT_EQ(BearerToken("bearer abc"), "abc");
  EXPECT_EQ(BearerToken("BEARER abc extra"), "abc");
  EXPECT_EQ(BearerToken("Basic dXNlcjpwYXNz"), std::nullopt);
  EXPECT_EQ(BearerToken("Bearer "), std::nullopt);
  EXPECT_EQ(BearerToken("Bearer"), std::nullopt);
  EXPECT_EQ(BearerToken(""), std::nullopt);
}

TEST(IsAnonymousPath, MatchesExactPathsAndSubpathsOnly) {
  const std::vector<std::string> anon = {"/healthz", "/version"};
  EXPECT_TRUE(IsAnonymousPath("/healthz", anon));
  EXPECT_TRUE(IsAnonymousPath("/healthz/ping", anon));
  EXPECT_TRUE(IsAnonymousPath("/version", anon));
  EXPECT_FALSE(IsAnonymousPath("/healthzz", anon));
  EXPECT_FALSE(IsAnonymousPath("/api", anon));
  EXPECT_FALSE(IsAnonymousPath("/", anon));
}

TEST(HttpDate, FormatsImfFixdate) {
  // 1994-11-06T08:49:37Z, the example of RFC 9110.
  const auto t = std::chrono::system_clock::time_point(784111777s);
  EXPECT_EQ(HttpDate(t), "Sun, 06 Nov 1994 08:49:37 GMT");
}

TEST(HttpRequest, HeaderReturnsFirstMatch) {
  HttpRequest req;
  req.headers = {{"accept", "a"}, {"x-y", "1"}, {"x-y", "2"}};
  EXPECT_EQ(req.Header("x-y"), "1");
  EXPECT_EQ(req.Header("missing"), std::nullopt);
}

}  // namespace
}  // namespace kube::apiserver::internal
