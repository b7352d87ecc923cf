#include "apiserver/rest/go_json.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kube::apiserver::rest {
namespace {
namespace json = boost::json;

TEST(GoJson, SyntaxErrorsInGosWords) {
  EXPECT_EQ(GoJsonSyntaxError(R"({"a":[1,{"b":null}],"c":"\u00e9"})"), "");
  EXPECT_EQ(GoJsonSyntaxError(""), "unexpected end of JSON input");
  EXPECT_EQ(GoJsonSyntaxError(R"({"apiVersion": "v1", "kind": )"), "unexpected end of JSON input");
  EXPECT_EQ(GoJsonSyntaxError("not json"), "invalid character 'o' in literal null (expecting 'u')");
  EXPECT_EQ(GoJsonSyntaxError("x"), "invalid character 'x' looking for beginning of value");
  EXPECT_EQ(GoJsonSyntaxError("{a:1}"), "invalid character 'a' looking for beginning of object key string");
  EXPECT_EQ(GoJsonSyntaxError(R"({"a" 1})"), "invalid character '1' after object key");
  EXPECT_EQ(GoJsonSyntaxError(R"({"a":1 "b":2})"), "invalid character '\"' after object key:value pair");
  EXPECT_EQ(GoJsonSyntaxError("[1 2]"), "invalid character '2' after array element");
  EXPECT_EQ(GoJsonSyntaxError(R"({"a":1}})"), "invalid character '}' after top-level value");
  EXPECT_EQ(GoJsonSyntaxError("01"), "invalid character '1' after top-level value");
  EXPECT_EQ(GoJsonSyntaxError("1.x"), "invalid character 'x' after decimal point in numeric literal");
  EXPECT_EQ(GoJsonSyntaxError("1e"), "unexpected end of JSON input");
  EXPECT_EQ(GoJsonSyntaxError("\"a\tb\""), "invalid character '\\t' in string literal");
  EXPECT_EQ(GoJsonSyntaxError(R"("\q")"), "invalid character 'q' in string escape code");
  EXPECT_EQ(GoJsonSyntaxError("\x81"), "invalid character '\\u0081' looking for beginning of value");
}

TEST(GoJson, SummaryAndTypeMetaErrorsAsApimachineryWritesThem) {
  EXPECT_EQ(SummarizeData(""), "<empty>");
  EXPECT_EQ(SummarizeData("[]"), "5b5d");
  EXPECT_EQ(SummarizeData(R"({"a":1})"), R"({"a":1})");
  EXPECT_EQ(SummarizeData(std::string(40, '{')), std::string(30, '{') + " ...");
  EXPECT_EQ(GoTypeMetaError(""), "couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)");
  EXPECT_EQ(GoTypeMetaError("[]"),
            "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { "
            "APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" } (5b5d)");
  EXPECT_EQ(GoTypeMetaError("null"), "");
}

TEST(GoJson, FmtValuePrintsDecodedJsonAsGosPercentV) {
  const auto v = [](std::string_view text) { return GoFmtValue(json::parse(text)); };
  EXPECT_EQ(v(R"({"data":{"b":[1,"x",null],"a":true}})"), "map[data:map[a:true b:[1 x <nil>]]]");
  EXPECT_EQ(v("1"), "1");
  EXPECT_EQ(v("1.5"), "1.5");
  EXPECT_EQ(v("100000"), "100000");
  EXPECT_EQ(v("1000000"), "1e+06");
  EXPECT_EQ(v("1234567"), "1.234567e+06");
  EXPECT_EQ(v("0.0001"), "0.0001");
  EXPECT_EQ(v("0.00001"), "1e-05");
  EXPECT_EQ(v("-2.5e300"), "-2.5e+300");
  EXPECT_EQ(v("[]"), "[]");
  EXPECT_EQ(v("{}"), "map[]");
}

TEST(GoDuplicates, NoneIsTheCommonCaseAndIsFoundByCountingKeys) {
  const std::string text = R"({"a":{"b":"x:y","c":[{"d":1},{"d":2}]},"e":"\"k\":"})";
  EXPECT_FALSE(FindGoDuplicates(text, boost::json::parse(text)).has_value());
}

TEST(GoDuplicates, RepeatedMembersMergeObjectsAndOtherwiseTheLastWins) {
  const std::string text =
      R"({"metadata":{"name":"d","name":"e"},"data":{"a":"1"},"data":{"b":"2"},"spec":{"c":[{"n":1,"n":2}]}})";
  const auto found = FindGoDuplicates(text, boost::json::parse(text));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->paths, (std::vector<std::string>{"metadata.name", "data", "spec.c[0].n"}));
  EXPECT_EQ(found->value, boost::json::parse(R"({"metadata":{"name":"e"},"data":{"a":"1","b":"2"},"spec":{"c":[{"n":2}]}})"));
}

}  // namespace
}  // namespace kube::apiserver::rest
