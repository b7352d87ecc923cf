#include "apiserver/rest/continue_token.hpp"

#include <gtest/gtest.h>

#include <kube/base/error.hpp>

namespace kube::apiserver::rest {
namespace {

constexpr std::string_view kPrefix = "/registry/core/configmaps/";

TEST(ContinueToken, EncodesLikeKubeApiserver) {
  // base64url(`{"v":"meta.k8s.io/v1","rv":-1,"start":"foo"}`), the example of the semantics doc.
  EXPECT_EQ(EncodeContinue("/registry/core/configmaps/foo", kPrefix, -1),
            "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiZm9vIn0");
}

TEST(ContinueToken, RoundTripsKeysWithTheNulMarker) {
  const std::string key = std::string(kPrefix) + "ns/name" + '\0';
  auto token = EncodeContinue(key, kPrefix, 42);
  auto pos = DecodeContinue(token, kPrefix);
  ASSERT_TRUE(pos.ok()) << pos.error().message;
  EXPECT_EQ(pos->key, key);
  EXPECT_EQ(pos->revision, 42);
}

TEST(ContinueToken, ATokenIsRelativeToThePrefixItIsUsedWith) {
  auto token = EncodeContinue("/registry/core/configmaps/ns/b", kPrefix, 7);
  auto pos = DecodeContinue(token, "/registry/core/secrets/");
  ASSERT_TRUE(pos.ok());
  EXPECT_EQ(pos->key, "/registry/core/secrets/ns/b");
}

TEST(ContinueToken, RejectsGarbageWithKubesMessages) {
  auto bad64 = DecodeContinue("!!!", kPrefix);
  ASSERT_FALSE(bad64.ok());
  EXPECT_EQ(bad64.error().code, 400);
  EXPECT_EQ(bad64.error().reason, "BadRequest");
  EXPECT_EQ(bad64.error().message,
            "invalid continue token: continue key is not valid: illegal base64 data at input byte 0");

  auto not_json = DecodeContinue(Base64RawUrlEncode("nope"), kPrefix);
  ASSERT_FALSE(not_json.ok());
  EXPECT_EQ(not_json.error().message.rfind("invalid continue token: continue key is not valid: ", 0), 0u);

  auto version = DecodeContinue(Base64RawUrlEncode(R"({"v":"x","rv":1,"start":"a"})"), kPrefix);
  ASSERT_FALSE(version.ok());
  EXPECT_EQ(version.error().message,
            "invalid continue token: continue key is not valid: server does not recognize this "
            "encoded version x");

  auto zero_rv = DecodeContinue(Base64RawUrlEncode(R"({"v":"meta.k8s.io/v1","rv":0,"start":"a"})"), kPrefix);
  ASSERT_FALSE(zero_rv.ok());
  EXPECT_EQ(zero_rv.error().message,
            "invalid continue token: continue key is not valid: incorrect encoded start "
            "resourceVersion (version meta.k8s.io/v1)");

  auto empty = DecodeContinue(Base64RawUrlEncode(R"({"v":"meta.k8s.io/v1","rv":3,"start":""})"), kPrefix);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message,
            "invalid continue token: continue key is not valid: encoded start key empty (version "
            "meta.k8s.io/v1)");
}

TEST(ContinueToken, RejectsPathTraversalOutOfThePrefix) {
  for (const char* start : {"../secrets/x", "a/../../b", "a//b", "./a", "a/"}) {
    const std::string json = std::string(R"({"v":"meta.k8s.io/v1","rv":3,"start":")") + start + "\"}";
    auto pos = DecodeContinue(Base64RawUrlEncode(json), kPrefix);
    EXPECT_FALSE(pos.ok()) << start;
  }
}

TEST(CleanPath, MatchesGoPathClean) {
  EXPECT_EQ(CleanPath(""), ".");
  EXPECT_EQ(CleanPath("/"), "/");
  EXPECT_EQ(CleanPath("/a/b/"), "/a/b");
  EXPECT_EQ(CleanPath("/a//b/./c/.."), "/a/b");
  EXPECT_EQ(CleanPath("/../a"), "/a");
  EXPECT_EQ(CleanPath("a/../../b"), "../b");
  EXPECT_EQ(CleanPath("abc"), "abc");
}

TEST(Base64RawUrl, RoundTripsAllLengths) {
  std::string data;
  for (int i = 0; i < 20; ++i) {
    data.push_back(static_cast<char>(i * 37 + 250));
    std::string decoded;
    ASSERT_TRUE(Base64RawUrlDecode(Base64RawUrlEncode(data), decoded));
    EXPECT_EQ(decoded, data);
  }
  std::string out;
  EXPECT_FALSE(Base64RawUrlDecode("abcde", out));  // length 1 mod 4
  EXPECT_FALSE(Base64RawUrlDecode("ab==", out));   // padding is not raw
}

}  // namespace
}  // namespace kube::apiserver::rest
