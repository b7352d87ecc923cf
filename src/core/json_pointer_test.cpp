#include <kube/core/json_pointer.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace kube {
namespace {

namespace json = boost::json;

json::value J(std::string_view text) { return json::parse(text); }

JsonPointer P(std::string_view text) {
  auto p = JsonPointer::Parse(text);
  EXPECT_TRUE(p.ok()) << text;
  return p.ok() ? *p : JsonPointer();
}

// The document of RFC 6901 section 5.
const json::value& Rfc6901Doc() {
  static const json::value doc = J(R"({
    "foo": ["bar", "baz"],
    "": 0,
    "a/b": 1,
    "c%d": 2,
    "e^f": 3,
    "g|h": 4,
    "i\\j": 5,
    "k\"l": 6,
    " ": 7,
    "m~n": 8
  })");
  return doc;
}

TEST(JsonPointer, ResolvesEveryExampleOfRfc6901Section5) {
  const auto& doc = Rfc6901Doc();
  const std::pair<std::string_view, json::value> cases[] = {
      {"", doc},         {"/foo", J(R"(["bar","baz"])")},
      {"/foo/0", "bar"}, {"/", 0},
      {"/a~1b", 1},      {"/c%d", 2},
      {"/e^f", 3},       {"/g|h", 4},
      {"/i\\j", 5},      {"/k\"l", 6},
      {"/ ", 7},         {"/m~0n", 8},
  };
  for (const auto& [text, expected] : cases) {
    const auto* found = Find(doc, P(text));
    ASSERT_NE(found, nullptr) << text;
    EXPECT_EQ(*found, expected) << text;
  }
}

TEST(JsonPointer, EmptyPointerHasNoTokensAndNamesTheWholeDocument) {
  const auto p = P("");
  EXPECT_TRUE(p.Tokens().empty());
  EXPECT_EQ(p.String(), "");
  EXPECT_EQ(p, JsonPointer());
  const auto doc = J("[1]");
  EXPECT_EQ(Find(doc, p), &doc);
}

TEST(JsonPointer, SlashAloneNamesTheEmptyMemberAndTrailingSlashAddsAnEmptyToken) {
  EXPECT_EQ(P("/").Tokens(), (std::vector<std::string>{""}));
  EXPECT_EQ(P("/foo/").Tokens(), (std::vector<std::string>{"foo", ""}));
  EXPECT_EQ(P("//").Tokens(), (std::vector<std::string>{"", ""}));
}

TEST(JsonPointer, UnescapesTildeOneBeforeTildeZeroSoThatTilde01IsTildeOne) {
  EXPECT_EQ(P("/~01").Tokens(), (std::vector<std::string>{"~1"}));
  EXPECT_EQ(P("/~10").Tokens(), (std::vector<std::string>{"/0"}));
  EXPECT_EQ(P("/a~1b~0c").Tokens(), (std::vector<std::string>{"a/b~c"}));
}

TEST(JsonPointer, ParseRejectsMissingLeadingSlash) {
  for (std::string_view text : {"a", "foo/bar", "#/foo", " /a"}) {
    auto p = JsonPointer::Parse(text);
    ASSERT_FALSE(p.ok()) << text;
    EXPECT_TRUE(IsBadRequest(p.error()));
    EXPECT_EQ(p.error().code, 400);
    EXPECT_NE(p.error().message.find("must be empty or start with \"/\""), std::string::npos);
  }
}

TEST(JsonPointer, ParseRejectsTildeNotFollowedByZeroOrOneAndNamesTheOffset) {
  auto p = JsonPointer::Parse("/a~2b");
  ASSERT_FALSE(p.ok());
  EXPECT_TRUE(IsBadRequest(p.error()));
  EXPECT_EQ(p.error().message,
            "invalid JSON pointer \"/a~2b\": \"~\" at offset 2 must be followed by \"0\" or \"1\"");
  EXPECT_FALSE(JsonPointer::Parse("/a~").ok());
  EXPECT_FALSE(JsonPointer::Parse("/~/").ok());
  EXPECT_FALSE(JsonPointer::Parse("/~~0").ok());
}

TEST(JsonPointer, StringReescapesTokensSoThatParseRoundTrips) {
  const auto p = JsonPointer::FromTokens({"a/b", "m~n", "", "~1"});
  EXPECT_EQ(p.String(), "/a~1b/m~0n//~01");
  EXPECT_EQ(P(p.String()), p);
  for (std::string_view text : {"", "/", "/foo/0", "/a~1b", "/m~0n", "/~01/~10", "/ /x"}) {
    EXPECT_EQ(P(text).String(), text);
  }
}

TEST(JsonPointer, EscapeTokenEscapesTildeAndSlashOnly) {
  EXPECT_EQ(EscapeJsonPointerToken("plain"), "plain");
  EXPECT_EQ(EscapeJsonPointerToken("a/b"), "a~1b");
  EXPECT_EQ(EscapeJsonPointerToken("~1"), "~01");
  EXPECT_EQ(EscapeJsonPointerToken("app.kubernetes.io/name"), "app.kubernetes.io~1name");
  EXPECT_EQ(EscapeJsonPointerToken(""), "");
}

TEST(JsonPointer, ArrayIndexAcceptsOnlyDecimalWithoutLeadingZeros) {
  EXPECT_EQ(ParseJsonPointerArrayIndex("0"), 0u);
  EXPECT_EQ(ParseJsonPointerArrayIndex("7"), 7u);
  EXPECT_EQ(ParseJsonPointerArrayIndex("1234"), 1234u);
  EXPECT_EQ(ParseJsonPointerArrayIndex(std::to_string(std::numeric_limits<std::size_t>::max())),
            std::numeric_limits<std::size_t>::max());
  for (std::string_view bad : {"", "-", "00", "01", "1e0", "+1", "-1", " 1", "1 ", "0x1", "1.0",
                               "99999999999999999999999999"}) {
    EXPECT_EQ(ParseJsonPointerArrayIndex(bad), std::nullopt) << bad;
  }
}

TEST(JsonPointer, FindReturnsNullForMissingMembersBadIndicesDashAndScalars) {
  const auto doc = J(R"({"a":[10,20],"s":"str","n":null})");
  EXPECT_EQ(Find(doc, P("/missing")), nullptr);
  EXPECT_EQ(Find(doc, P("/a/2")), nullptr);    // out of range
  EXPECT_EQ(Find(doc, P("/a/-")), nullptr);    // "-" never resolves
  EXPECT_EQ(Find(doc, P("/a/01")), nullptr);   // leading zero
  EXPECT_EQ(Find(doc, P("/a/1e0")), nullptr);  // not decimal
  EXPECT_EQ(Find(doc, P("/s/0")), nullptr);    // into a string
  EXPECT_EQ(Find(doc, P("/n/x")), nullptr);    // into null
  ASSERT_NE(Find(doc, P("/n")), nullptr);      // a null member exists
  EXPECT_TRUE(Find(doc, P("/n"))->is_null());
  EXPECT_EQ(*Find(doc, P("/a/1")), 20);
}

TEST(JsonPointer, NumericTokenIsAMemberNameOnObjects) {
  const auto doc = J(R"({"0":"zero","01":"leading"})");
  EXPECT_EQ(*Find(doc, P("/0")), "zero");
  EXPECT_EQ(*Find(doc, P("/01")), "leading");
}

TEST(JsonPointer, MutableFindAllowsEditingInPlace) {
  auto doc = J(R"({"spec":{"replicas":1}})");
  json::value* replicas = Find(doc, P("/spec/replicas"));
  ASSERT_NE(replicas, nullptr);
  *replicas = 3;
  EXPECT_EQ(doc, J(R"({"spec":{"replicas":3}})"));
}

TEST(JsonPointer, IsPrefixOfComparesWholeTokens) {
  EXPECT_TRUE(P("").IsPrefixOf(P("/a")));
  EXPECT_TRUE(P("/a").IsPrefixOf(P("/a")));
  EXPECT_TRUE(P("/a").IsPrefixOf(P("/a/b")));
  EXPECT_FALSE(P("/a").IsPrefixOf(P("/ab")));
  EXPECT_FALSE(P("/a/b").IsPrefixOf(P("/a")));
  EXPECT_FALSE(P("/a~1b").IsPrefixOf(P("/a/b")));
}

TEST(JsonEqual, NumbersCompareByValueAcrossRepresentations) {
  EXPECT_TRUE(JsonEqual(json::value(1), json::value(1.0)));
  EXPECT_TRUE(JsonEqual(json::value(std::uint64_t{1}), json::value(std::int64_t{1})));
  EXPECT_TRUE(JsonEqual(json::value(std::uint64_t{1}), json::value(1.0)));
  EXPECT_TRUE(JsonEqual(json::value(0), json::value(-0.0)));
  EXPECT_TRUE(JsonEqual(J("1e2"), J("100")));
  EXPECT_FALSE(JsonEqual(json::value(1), json::value(1.5)));
  EXPECT_FALSE(JsonEqual(json::value(-1), json::value(std::numeric_limits<std::uint64_t>::max())));
  // 2^63 only fits in uint64 and is exact as a double.
  EXPECT_TRUE(JsonEqual(json::value(std::uint64_t{1} << 63), json::value(9223372036854775808.0)));
  EXPECT_FALSE(JsonEqual(json::value(std::numeric_limits<std::int64_t>::max()),
                         json::value(9223372036854775808.0)));
  // No rounding through double: 2^53 + 1 differs from the double 2^53.
  EXPECT_FALSE(
      JsonEqual(json::value(std::int64_t{9007199254740993}), json::value(9007199254740992.0)));
  EXPECT_FALSE(JsonEqual(json::value(1e300), json::value(std::int64_t{1})));
  EXPECT_FALSE(JsonEqual(json::value(std::nan("")), json::value(std::nan(""))));
}

TEST(JsonEqual, DifferentTypesAreNeverEqual) {
  EXPECT_FALSE(JsonEqual(J("10"), J(R"("10")")));
  EXPECT_FALSE(JsonEqual(J("null"), J("false")));
  EXPECT_FALSE(JsonEqual(J("0"), J("false")));
  EXPECT_FALSE(JsonEqual(J("[]"), J("{}")));
  EXPECT_TRUE(JsonEqual(J("null"), J("null")));
}

TEST(JsonEqual, ObjectsIgnoreMemberOrderButArraysDoNot) {
  EXPECT_TRUE(
      JsonEqual(J(R"({"a":1,"b":[1,{"x":2,"y":3}]})"), J(R"({"b":[1,{"y":3,"x":2.0}],"a":1})")));
  EXPECT_FALSE(JsonEqual(J("[1,2]"), J("[2,1]")));
  EXPECT_FALSE(JsonEqual(J(R"({"a":1})"), J(R"({"a":1,"b":2})")));
  EXPECT_FALSE(JsonEqual(J(R"({"a":1,"c":2})"), J(R"({"a":1,"b":2})")));
  EXPECT_FALSE(JsonEqual(J("[1]"), J("[1,1]")));
}

}  // namespace
}  // namespace kube
