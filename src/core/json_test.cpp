#include <kube/core/json.hpp>

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace kube {
namespace {

TEST(Json, ParseGivesDomAndPreciseErrors) {
  auto v = ParseJson(R"({"a":[1,"x",null]})");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->as_object().at("a").as_array().size(), 3u);
  auto bad = ParseJson("{\"a\":\n  [1,}");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(IsBadRequest(bad.error()));
  EXPECT_EQ(bad.error().message,
            "invalid JSON: unexpected character '}', expected a value at line 2, column 6 (offset 11)");
}

TEST(Json, AcceptsNestingBeyondBoostDefaultDepth) {
  // Boost.JSON's default max_depth is 32; CRD schemas nest deeper.
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "{\"a\":";
  deep += "1";
  for (int i = 0; i < 100; ++i) deep += "}";
  EXPECT_TRUE(ParseJson(deep).ok());
}

TEST(Json, QuoteAndTypeNames) {
  EXPECT_EQ(QuoteJson("a\"b"), "\"a\\\"b\"");
  EXPECT_EQ(JsonTypeName(boost::json::value(1.5)), "number");
  EXPECT_EQ(JsonTypeName(boost::json::value(nullptr)), "null");
  EXPECT_EQ(JsonTypeName(boost::json::array()), "array");
  EXPECT_EQ(SerializeJson(boost::json::parse(R"({ "a" : 1 })")), R"({"a":1})");
}

}  // namespace
}  // namespace kube
