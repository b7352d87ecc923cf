#include <kube/core/field_selector.hpp>

#include <map>
#include <ostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kube {
namespace {

using ::testing::HasSubstr;
using Fields = std::map<std::string, std::string>;
using Op = FieldRequirement::Op;

FieldSelector MustParse(std::string_view s) {
  auto r = FieldSelector::Parse(s);
  EXPECT_TRUE(r.ok()) << s << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : FieldSelector();
}

std::string ParseError(std::string_view s) {
  auto r = FieldSelector::Parse(s);
  EXPECT_FALSE(r.ok()) << "'" << s << "' parsed to '" << (r.ok() ? r->String() : "") << "'";
  if (r.ok()) return "";
  EXPECT_TRUE(IsBadRequest(r.error()));
  EXPECT_EQ(r.error().code, 400);
  return r.error().message;
}

// ---- grammar: valid inputs ----------------------------------------------------------------------

struct ValidCase {
  std::string input;
  std::string canonical;
};

void PrintTo(const ValidCase& c, std::ostream* os) { *os << "'" << c.input << "'"; }

class FieldSelectorValidParse : public ::testing::TestWithParam<ValidCase> {};

TEST_P(FieldSelectorValidParse, ParsesToCanonicalStringThatRoundTrips) {
  const ValidCase& c = GetParam();
  auto parsed = FieldSelector::Parse(c.input);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->String(), c.canonical);
  auto reparsed = FieldSelector::Parse(parsed->String());
  ASSERT_TRUE(reparsed.ok()) << reparsed.error().message;
  EXPECT_EQ(*reparsed, *parsed);
}

INSTANTIATE_TEST_SUITE_P(
    Grammar, FieldSelectorValidParse,
    ::testing::Values(
        ValidCase{"", ""}, ValidCase{"a=b", "a=b"}, ValidCase{"a==b", "a=b"},
        ValidCase{"a!=b", "a!=b"}, ValidCase{"a=b,c=d", "a=b,c=d"},
        ValidCase{"c=d,a=b", "a=b,c=d"}, ValidCase{"a=", "a="}, ValidCase{"a!=", "a!="},
        ValidCase{"a==", "a="}, ValidCase{"=a", "=a"}, ValidCase{"!=a", "!=a"},
        // A term with neither field nor value is dropped, like apimachinery's transform does.
        ValidCase{"=", ""}, ValidCase{"==", ""}, ValidCase{"!=", ""}, ValidCase{"=,a=b", "a=b"},
        // Empty terms are skipped.
        ValidCase{",", ""}, ValidCase{",,a=b,", "a=b"}, ValidCase{"a=b,,c=d", "a=b,c=d"},
        // Escapes in values.
        ValidCase{"a=b\\,c", "a=b\\,c"}, ValidCase{"a=b\\=c", "a=b\\=c"},
        ValidCase{"a=b\\\\c", "a=b\\\\c"}, ValidCase{"a=\\\\", "a=\\\\"},
        ValidCase{"x=a\\,b,y=c", "x=a\\,b,y=c"}, ValidCase{"a==\\=", "a=\\="},
        // Fields are verbatim: no trimming, no unescaping.
        ValidCase{"a b=c d", "a b=c d"}, ValidCase{"a!b=c", "a!b=c"},
        ValidCase{"a\\,b=c", "a\\,b=c"}, ValidCase{"a\\=b", "a\\=b"},
        ValidCase{"a!!=b", "a!!=b"},
        // Real-world selectors.
        ValidCase{"metadata.name=foo,metadata.namespace=bar",
                  "metadata.name=foo,metadata.namespace=bar"},
        ValidCase{"status.phase!=Running,spec.nodeName=node-1",
                  "spec.nodeName=node-1,status.phase!=Running"},
        ValidCase{"involvedObject.kind=Pod,involvedObject.name=a\\,b,reason=Failed",
                  "involvedObject.kind=Pod,involvedObject.name=a\\,b,reason=Failed"},
        // Ordering is by canonical term text ('!' < '=' < letters), duplicates are kept.
        ValidCase{"a=x,a!=y", "a!=y,a=x"}, ValidCase{"a=y,a=x", "a=x,a=y"},
        ValidCase{"a=x,a=x", "a=x,a=x"}, ValidCase{"a==x,a=b", "a=b,a=x"},
        // Values are not validated.
        ValidCase{"a=\xc3\xa9 (x)", "a=\xc3\xa9 (x)"}, ValidCase{"a= b ", "a= b "}));

// ---- grammar: invalid inputs --------------------------------------------------------------------

struct InvalidCase {
  std::string input;
  std::string message;  // the exact error message
};

void PrintTo(const InvalidCase& c, std::ostream* os) { *os << "'" << c.input << "'"; }

class FieldSelectorInvalidParse : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(FieldSelectorInvalidParse, IsRejectedWithApimachineryMessage) {
  EXPECT_EQ(ParseError(GetParam().input), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Grammar, FieldSelectorInvalidParse,
    ::testing::Values(
        InvalidCase{"a", "invalid selector: 'a'; can't understand 'a'"},
        InvalidCase{"a=b,c", "invalid selector: 'a=b,c'; can't understand 'c'"},
        InvalidCase{"a<b", "invalid selector: 'a<b'; can't understand 'a<b'"},
        InvalidCase{"!a", "invalid selector: '!a'; can't understand '!a'"},
        InvalidCase{"a\\,b", "invalid selector: 'a\\,b'; can't understand 'a\\,b'"},
        InvalidCase{"a=b=c",
                    "invalid field selector: unescaped character in value: 61"},
        InvalidCase{"a===b",
                    "invalid field selector: unescaped character in value: 61"},
        InvalidCase{"a!==b",
                    "invalid field selector: unescaped character in value: 61"},
        InvalidCase{"a=\\x",
                    "invalid field selector: invalid escape sequence: \\x"},
        InvalidCase{"a=b\\",
                    "invalid field selector: invalid escape sequence: \\"},
        InvalidCase{"a=\\ ", "invalid field selector: invalid escape sequence: \\ "},
        InvalidCase{"a=\\\xc3\xa9",
                    "invalid field selector: invalid escape sequence: \\\\xc3\\xa9"},
        InvalidCase{"x=1,a=b\\q",
                    "invalid field selector: invalid escape sequence: \\q"}));

TEST(FieldSelector, TrailingEscapedCommaKeepsTheCommaInTheTerm) {
  // "a=b\," is one term whose value ends in an escaped comma; "\,x" continues it.
  EXPECT_EQ(MustParse("a=b\\,x").Requirements()[0].value, "b,x");
}

TEST(FieldSelector, ErrorMessagesEscapeNonPrintableBytesAndStayBounded) {
  const std::string message = ParseError("\x01\xff" + std::string(1000, 'f'));
  EXPECT_THAT(message, HasSubstr("\\x01\\xff"));
  EXPECT_LT(message.size(), 1000u);
  for (const char c : message) EXPECT_TRUE(c >= 0x20 && c < 0x7f);
}

// ---- parse results ------------------------------------------------------------------------------

TEST(FieldSelector, ParseSplitsAtTheFirstOperator) {
  const FieldSelector s = MustParse("a!=b,c==d\\=e,f=");
  const std::vector<FieldRequirement> want = {
      {.field = "a", .op = Op::kNotEquals, .value = "b"},
      {.field = "c", .op = Op::kEquals, .value = "d=e"},
      {.field = "f", .op = Op::kEquals, .value = ""},
  };
  EXPECT_EQ(s.Requirements(), want);
}

TEST(FieldSelector, DoubleEqualsIsEquals) {
  EXPECT_EQ(MustParse("a==b"), MustParse("a=b"));
}

TEST(FieldSelector, EmptyFieldWithValueIsKept) {
  const FieldSelector s = MustParse("=a");
  ASSERT_EQ(s.Requirements().size(), 1u);
  EXPECT_EQ(s.Requirements()[0].field, "");
  EXPECT_EQ(s.Requirements()[0].value, "a");
}

TEST(FieldSelector, EmptyStringParsesToEverything) {
  EXPECT_EQ(MustParse(""), FieldSelector::Everything());
  EXPECT_TRUE(MustParse("").Empty());
  EXPECT_FALSE(MustParse("a=b").Empty());
}

// ---- matching -----------------------------------------------------------------------------------

bool Match(std::string_view selector, const Fields& fields) {
  return MustParse(selector).Matches(fields);
}

TEST(FieldSelector, EqualsAndNotEqualsCompareTheValue) {
  EXPECT_TRUE(Match("metadata.name=foo", {{"metadata.name", "foo"}}));
  EXPECT_FALSE(Match("metadata.name=foo", {{"metadata.name", "bar"}}));
  EXPECT_TRUE(Match("metadata.name!=foo", {{"metadata.name", "bar"}}));
  EXPECT_FALSE(Match("metadata.name!=foo", {{"metadata.name", "foo"}}));
  EXPECT_TRUE(Match("a=b\\,c", {{"a", "b,c"}}));
}

TEST(FieldSelector, AbsentFieldReadsAsEmptyString) {
  EXPECT_FALSE(Match("spec.nodeName=node-1", {}));
  EXPECT_TRUE(Match("spec.nodeName!=node-1", {}));
  EXPECT_TRUE(Match("spec.nodeName=", {}));
  EXPECT_FALSE(Match("spec.nodeName!=", {}));
}

TEST(FieldSelector, AllTermsAreAnded) {
  const Fields pod = {{"metadata.name", "a"}, {"status.phase", "Running"}};
  EXPECT_TRUE(Match("metadata.name=a,status.phase=Running", pod));
  EXPECT_FALSE(Match("metadata.name=a,status.phase=Pending", pod));
  EXPECT_FALSE(Match("a=x,a=y", {{"a", "x"}}));
}

TEST(FieldSelector, EverythingMatchesAll) {
  EXPECT_TRUE(FieldSelector::Everything().Matches(Fields{}));
  EXPECT_TRUE(FieldSelector::Everything().Matches(Fields{{"a", "b"}}));
  EXPECT_TRUE(FieldSelector::Everything().Empty());
  EXPECT_EQ(FieldSelector::Everything().String(), "");
}

struct PodFields {
  std::string name;
  std::optional<std::string> node;
  std::optional<std::string_view> Get(std::string_view field) const {
    if (field == "metadata.name") return std::string_view(name);
    if (field == "spec.nodeName" && node) return std::string_view(*node);
    return std::nullopt;
  }
};
static_assert(FieldGetter<PodFields>);
static_assert(!FieldGetter<Fields>);

TEST(FieldSelector, MatchesAnyFieldGetter) {
  EXPECT_TRUE(MustParse("metadata.name=web,spec.nodeName=").Matches(PodFields{"web", {}}));
  EXPECT_FALSE(MustParse("spec.nodeName=n1").Matches(PodFields{"web", {}}));
  EXPECT_TRUE(MustParse("spec.nodeName=n1").Matches(PodFields{"web", "n1"}));
}

TEST(FieldRequirement, MatchesTreatsNulloptAsEmpty) {
  const FieldRequirement eq{.field = "f", .op = Op::kEquals, .value = ""};
  EXPECT_TRUE(eq.Matches(std::nullopt));
  EXPECT_TRUE(eq.Matches(""));
  EXPECT_FALSE(eq.Matches("x"));
  const FieldRequirement ne{.field = "f", .op = Op::kNotEquals, .value = "x"};
  EXPECT_TRUE(ne.Matches(std::nullopt));
  EXPECT_FALSE(ne.Matches("x"));
}

TEST(FieldRequirement, StringEscapesTheValueButNotTheField) {
  EXPECT_EQ((FieldRequirement{.field = "a,b", .op = Op::kNotEquals, .value = "c=d,e\\"}).String(),
            "a,b!=c\\=d\\,e\\\\");
}

// ---- RequiresExactMatch -------------------------------------------------------------------------

TEST(FieldSelector, RequiresExactMatchReturnsTheValueOfAnEqualsTerm) {
  EXPECT_EQ(MustParse("metadata.name=foo").RequiresExactMatch("metadata.name"), "foo");
  EXPECT_EQ(MustParse("metadata.name==foo").RequiresExactMatch("metadata.name"), "foo");
  EXPECT_EQ(MustParse("a=b,metadata.name=foo").RequiresExactMatch("metadata.name"), "foo");
  EXPECT_EQ(MustParse("metadata.name=a\\,b").RequiresExactMatch("metadata.name"), "a,b");
  EXPECT_EQ(MustParse("metadata.name=").RequiresExactMatch("metadata.name"), "");
}

TEST(FieldSelector, RequiresExactMatchIgnoresNotEqualsAndOtherFields) {
  EXPECT_EQ(MustParse("metadata.name!=foo").RequiresExactMatch("metadata.name"), std::nullopt);
  EXPECT_EQ(MustParse("metadata.namespace=foo").RequiresExactMatch("metadata.name"), std::nullopt);
  EXPECT_EQ(MustParse("").RequiresExactMatch("metadata.name"), std::nullopt);
  EXPECT_EQ(MustParse("a!=x,a=y").RequiresExactMatch("a"), "y");
}

TEST(FieldSelector, RequiresExactMatchReturnsTheFirstEqualsTermInCanonicalOrder) {
  EXPECT_EQ(MustParse("a=y,a=x").RequiresExactMatch("a"), "x");
}

// ---- construction helpers -----------------------------------------------------------------------

TEST(FieldSelector, FromSetBuildsSortedEqualsTerms) {
  const FieldSelector s = FieldSelector::FromSet({{"metadata.namespace", "ns"}, {"metadata.name", "a"}});
  EXPECT_EQ(s.String(), "metadata.name=a,metadata.namespace=ns");
  EXPECT_EQ(MustParse(s.String()), s);
  EXPECT_TRUE(s.Matches(Fields{{"metadata.name", "a"}, {"metadata.namespace", "ns"}}));
  EXPECT_TRUE(FieldSelector::FromSet({}).Empty());
}

TEST(FieldSelector, FromSetEscapesValuesInString) {
  const FieldSelector s = FieldSelector::FromSet({{"a", "x,y=z"}});
  EXPECT_EQ(s.String(), "a=x\\,y\\=z");
  EXPECT_EQ(MustParse(s.String()), s);
}

TEST(FieldSelector, OneTermEqualIsASingleEqualsTerm) {
  const FieldSelector s = FieldSelector::OneTermEqual("metadata.name", "web");
  EXPECT_EQ(s.String(), "metadata.name=web");
  EXPECT_EQ(s.RequiresExactMatch("metadata.name"), "web");
  EXPECT_EQ(s, MustParse("metadata.name=web"));
}

// ---- escaping -----------------------------------------------------------------------------------

TEST(FieldValueEscaping, EscapesBackslashCommaAndEquals) {
  EXPECT_EQ(EscapeFieldValue(""), "");
  EXPECT_EQ(EscapeFieldValue("plain"), "plain");
  EXPECT_EQ(EscapeFieldValue("a,b"), "a\\,b");
  EXPECT_EQ(EscapeFieldValue("a=b"), "a\\=b");
  EXPECT_EQ(EscapeFieldValue("a\\b"), "a\\\\b");
  EXPECT_EQ(EscapeFieldValue("\\,="), "\\\\\\,\\=");
}

TEST(FieldValueEscaping, UnescapeReversesEscape) {
  const std::vector<std::string> values = {
      "",  "plain", "a,b", "a=b", "a\\b", "\\", ",", "=", "\\\\,,==", "x\\,y", "\xc3\xa9=\xff",
      std::string("nul\0byte", 8), "!=", "trailing\\"};
  for (const std::string& s : values) {
    const std::string escaped = EscapeFieldValue(s);
    auto back = UnescapeFieldValue(escaped);
    ASSERT_TRUE(back.ok()) << escaped << ": " << back.error().message;
    EXPECT_EQ(*back, s);
    // And a parsed selector round-trips the value.
    const FieldSelector sel = MustParse("f=" + escaped);
    ASSERT_EQ(sel.Requirements().size(), 1u);
    EXPECT_EQ(sel.Requirements()[0].value, s);
  }
}

TEST(FieldValueEscaping, UnescapeRejectsInvalidSequences) {
  struct Case {
    std::string input;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"\\x", "invalid field selector: invalid escape sequence: \\x"},
      {"ab\\", "invalid field selector: invalid escape sequence: \\"},
      {"\\", "invalid field selector: invalid escape sequence: \\"},
      {"\\n", "invalid field selector: invalid escape sequence: \\n"},
      {"a,b", "invalid field selector: unescaped character in value: 44"},
      {"a=b", "invalid field selector: unescaped character in value: 61"},
      {"\\\\\\", "invalid field selector: invalid escape sequence: \\"},
  };
  for (const Case& c : cases) {
    auto r = UnescapeFieldValue(c.input);
    ASSERT_FALSE(r.ok()) << c.input;
    EXPECT_TRUE(IsBadRequest(r.error()));
    EXPECT_EQ(r.error().message, c.message) << c.input;
  }
}

TEST(FieldValueEscaping, UnescapeLeavesPlainTextAlone) {
  EXPECT_EQ(UnescapeFieldValue("plain text!").value_or("?"), "plain text!");
  EXPECT_EQ(UnescapeFieldValue("").value_or("?"), "");
  EXPECT_EQ(UnescapeFieldValue("\\\\\\,\\=").value_or("?"), "\\,=");
}

}  // namespace
}  // namespace kube
