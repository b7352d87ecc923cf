#include "core/internal/json_scanner.hpp"

#include <gtest/gtest.h>

namespace kube::core::internal {
namespace {

TEST(JsonScanner, AcceptsEveryRfc8259ValueKind) {
  for (const char* ok : {"{}", "[]", "0", "-0", "1.5e-3", "-12E+2", "true", "false", "null", "\"\"",
                         "\"\\u00e9\\n\\/\"", " [1, {\"a\": [null]}] ", "\"\xe2\x82\xac\xf0\x9f\x98\x80\"",
                         "1e400"}) {
    EXPECT_TRUE(ValidateJson(ok).ok()) << ok;
  }
}

TEST(JsonScanner, RejectsInvalidGrammar) {
  for (const char* bad : {"", " ", "{", "}", "[1,]", "{\"a\"}", "{\"a\":}", "{1:2}", "01", "1.", ".5",
                          "1e", "+1", "-", "tru", "nul", "\"abc", "\"\\x\"", "[1 2]", "{\"a\":1 \"b\":2}",
                          "'a'", "NaN", "Infinity", "[1]]", "{}{}", "\"\xed\xa0\x80\"", "\"\xf5\x80\x80\x80\""}) {
    EXPECT_FALSE(ValidateJson(bad).ok()) << bad;
  }
}

TEST(JsonScanner, SkipValueReturnsTheRawSpan) {
  JsonCursor cur(R"(  {"a":[1,2,{"b":"}"}]}  )");
  auto v = cur.SkipValue();
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, R"({"a":[1,2,{"b":"}"}]})");
  EXPECT_TRUE(cur.ExpectEnd().ok());
}

TEST(JsonScanner, UnescapesSurrogatePairsAndLoneSurrogates) {
  std::string out;
  AppendUnescaped(RawString{"a\\ud83d\\ude00b", true}, out);
  EXPECT_EQ(out, "a\xf0\x9f\x98\x80" "b");
  out.clear();
  AppendUnescaped(RawString{"\\\"\\\\\\/\\b\\f\\n\\r\\t", true}, out);
  EXPECT_EQ(out, "\"\\/\b\f\n\r\t");
}

TEST(JsonScanner, RejectsUnpairedSurrogateEscapes) {
  // Go would decode these to U+FFFD; Boost.JSON rejects them, so kubecpp rejects them up front
  // rather than accept text it cannot later turn into a DOM.
  for (const char* bad : {"\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\ud800x\""}) {
    auto r = ValidateJson(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("surrogate"), std::string::npos) << r.error().message;
  }
  EXPECT_TRUE(ValidateJson("\"\\ud83d\\ude00\"").ok());
}

TEST(JsonScanner, QuotesControlCharacters) {
  std::string out;
  AppendQuoted("a\"b\\c\n\x01", out);
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\n\\u0001\"");
}

TEST(JsonScanner, CompactRemovesWhitespaceOutsideStringsOnly) {
  EXPECT_EQ(CompactJson("{ \"a b\" : [ 1 ,\n\t\"c \\\" d\" ] }"), "{\"a b\":[1,\"c \\\" d\"]}");
}

TEST(JsonScanner, Int64RejectsFractionsAndOverflow) {
  for (const char* bad : {"1.0", "1e3", "9223372036854775808"}) {
    JsonCursor cur(bad);
    EXPECT_FALSE(cur.Int64("f").ok()) << bad;
  }
  JsonCursor cur("-9223372036854775808");
  auto v = cur.Int64("f");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, INT64_MIN);
}

}  // namespace
}  // namespace kube::core::internal
