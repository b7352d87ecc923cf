#include <kube/core/label_selector.hpp>

#include <map>
#include <ostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kube {
namespace {

using ::testing::HasSubstr;
using Labels = std::map<std::string, std::string>;

LabelSelector MustParse(std::string_view s) {
  auto r = LabelSelector::Parse(s);
  EXPECT_TRUE(r.ok()) << s << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : LabelSelector::Nothing();
}

Requirement MustCreate(std::string key, SelectorOperator op, std::vector<std::string> values) {
  auto r = Requirement::Create(std::move(key), op, std::move(values));
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : Requirement{};
}

std::string ParseError(std::string_view s) {
  auto r = LabelSelector::Parse(s);
  EXPECT_FALSE(r.ok()) << "'" << s << "' parsed to '" << (r.ok() ? r->String() : "") << "'";
  if (r.ok()) return "";
  EXPECT_TRUE(IsBadRequest(r.error()));
  EXPECT_EQ(r.error().code, 400);
  return r.error().message;
}

// ---- grammar: valid inputs ----------------------------------------------------------------------

struct ValidCase {
  std::string input;
  std::string canonical;  // String() of the parsed selector
};

void PrintTo(const ValidCase& c, std::ostream* os) { *os << "'" << c.input << "'"; }

class LabelSelectorValidParse : public ::testing::TestWithParam<ValidCase> {};

TEST_P(LabelSelectorValidParse, ParsesToCanonicalStringThatRoundTrips) {
  const ValidCase& c = GetParam();
  auto parsed = LabelSelector::Parse(c.input);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->String(), c.canonical);
  auto reparsed = LabelSelector::Parse(parsed->String());
  ASSERT_TRUE(reparsed.ok()) << reparsed.error().message;
  EXPECT_EQ(*reparsed, *parsed);
  EXPECT_EQ(reparsed->String(), c.canonical);
}

const std::string k63(63, 'a');
const std::string k253Prefix = std::string(63, 'p') + "." + std::string(63, 'q') + "." +
                               std::string(63, 'r') + "." + std::string(61, 's');  // 253 chars

INSTANTIATE_TEST_SUITE_P(
    Grammar, LabelSelectorValidParse,
    ::testing::Values(
        // apimachinery TestSelectorParse good strings (String() drops the spaces).
        ValidCase{"x=a,y=b,z=c", "x=a,y=b,z=c"}, ValidCase{"", ""},
        ValidCase{"x!=a,y=b", "x!=a,y=b"}, ValidCase{"x=", "x="}, ValidCase{"x= ", "x="},
        ValidCase{"x=,z= ", "x=,z="}, ValidCase{"x= ,z= ", "x=,z="}, ValidCase{"!x", "!x"},
        ValidCase{"x>1", "x>1"}, ValidCase{"x>1,z<5", "x>1,z<5"},
        // apimachinery TestSetSelectorParser valid strings.
        ValidCase{"\rx", "x"},
        ValidCase{"this-is-a-dns.domain.com/key-with-dash",
                  "this-is-a-dns.domain.com/key-with-dash"},
        ValidCase{"this-is-another-dns.domain.com/key-with-dash in (so,what)",
                  "this-is-another-dns.domain.com/key-with-dash in (so,what)"},
        ValidCase{"0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
                  "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)"},
        ValidCase{"foo  in\t (abc)", "foo in (abc)"}, ValidCase{"x notin\n (abc)", "x notin (abc)"},
        ValidCase{"x  notin\t\t(abc,def)", "x notin (abc,def)"},
        ValidCase{"x in (abc,def)", "x in (abc,def)"}, ValidCase{"x in (abc,)", "x in (,abc)"},
        ValidCase{"x in ()", "x in ()"},
        ValidCase{"x notin (abc,,def),bar,z in (),w", "bar,w,x notin (,abc,def),z in ()"},
        ValidCase{"x,y in (a)", "x,y in (a)"}, ValidCase{"x=a", "x=a"}, ValidCase{"x<7", "x<7"},
        ValidCase{"x=a,y!=b", "x=a,y!=b"},
        ValidCase{"x=a,y!=b,z in (h,i,j)", "x=a,y!=b,z in (h,i,j)"},
        ValidCase{"x notin ( )", "x notin ()"}, ValidCase{"x notin (, a)", "x notin (,a)"},
        ValidCase{"a ", "a"}, ValidCase{"a in (x,y,notin, z,in)", "a in (in,notin,x,y,z)"},
        // The documented example.
        ValidCase{"x in (foo,,baz),y,z notin ()", "x in (,baz,foo),y,z notin ()"},
        // Keywords are identifiers outside operator position.
        ValidCase{"notin=in", "notin=in"}, ValidCase{"in in (in)", "in in (in)"},
        ValidCase{"notin notin (notin)", "notin notin (notin)"}, ValidCase{"in", "in"},
        ValidCase{"!notin", "!notin"}, ValidCase{"x=in", "x=in"},
        // Operators and their spelling are preserved.
        ValidCase{"x==a", "x==a"}, ValidCase{"x!=", "x!="}, ValidCase{"x in(a)", "x in (a)"},
        ValidCase{"x in (a),y notin (b)", "x in (a),y notin (b)"}, ValidCase{"!x,y", "!x,y"},
        // Sorting: requirements stably by key, set values sorted and de-duplicated.
        ValidCase{"x=a,a=x", "a=x,x=a"}, ValidCase{"x in (b,a,b)", "x in (a,b)"},
        ValidCase{"x=a,x!=b", "x=a,x!=b"}, ValidCase{"x!=b,x=a", "x!=b,x=a"},
        ValidCase{"z,!y,x=1", "x=1,!y,z"},
        // Empty values in sets.
        ValidCase{"x in (,)", "x in ()"},
        ValidCase{"x in (a,,,b)", "x in (,a,b)"},
        // Key and value charset and limits.
        ValidCase{"A=B", "A=B"}, ValidCase{"x=a_b.c-d", "x=a_b.c-d"},
        ValidCase{"k8s.io/a=b", "k8s.io/a=b"}, ValidCase{"a/b=c", "a/b=c"},
        ValidCase{"1234 in (bar)", "1234 in (bar)"}, ValidCase{k63 + "=" + k63, k63 + "=" + k63},
        ValidCase{k253Prefix + "/" + k63, k253Prefix + "/" + k63},
        // Gt/Lt take any int64 that is also a label value.
        ValidCase{"x>007", "x>007"}, ValidCase{"x<9223372036854775807", "x<9223372036854775807"},
        ValidCase{"x=1,x>0", "x=1,x>0"},
        // Whitespace is only a delimiter.
        ValidCase{"\t x \n", "x"}, ValidCase{" x = a , y ", "x=a,y"},
        ValidCase{"x\tin\t(\ta\t,\tb\t)", "x in (a,b)"}));

// ---- grammar: invalid inputs --------------------------------------------------------------------

struct InvalidCase {
  std::string input;
  std::string message_part;  // a substring the error message must contain
};

void PrintTo(const InvalidCase& c, std::ostream* os) { *os << "'" << c.input << "'"; }

class LabelSelectorInvalidParse : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(LabelSelectorInvalidParse, IsRejectedWithBadRequestNamingTheProblem) {
  const InvalidCase& c = GetParam();
  EXPECT_THAT(ParseError(c.input), HasSubstr(c.message_part));
}

INSTANTIATE_TEST_SUITE_P(
    Grammar, LabelSelectorInvalidParse,
    ::testing::Values(
        // apimachinery TestSelectorParse bad strings.
        InvalidCase{"x=a||y=b", "values[0][x]: Invalid value: \"a||y\""},
        InvalidCase{"x==a==b", "found '==', expected: ',' or 'end of string'"},
        InvalidCase{"!x=a", "found '=', expected: ',' or 'end of string'"},
        InvalidCase{"x<a", "for 'Gt', 'Lt' operators, the value must be an integer"},
        // apimachinery TestSetSelectorParser invalid strings.
        InvalidCase{"x,,y", "found ',', expected: identifier after ','"},
        InvalidCase{",x,y", "found ',', expected: !, identifier, or 'end of string'"},
        InvalidCase{"x nott in (y)",
                    "unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, "
                    "gt, lt"},
        InvalidCase{"a in (xyz),", "found '', expected: identifier after ','"},
        InvalidCase{"a in (xyz)b notin ()", "found 'b', expected: ',' or 'end of string'"},
        InvalidCase{"a in (xyz abc)", "found 'abc', expected: ',' or ')'"},
        InvalidCase{"a notin(", "found '', expected: ',', ')' or identifier"},
        InvalidCase{"a (", "found '(', expected: in, notin, =, ==, !=, gt, lt"},
        InvalidCase{"(", "found '(', expected: !, identifier, or 'end of string'"},
        // Set syntax.
        InvalidCase{"x in", "found '', expected: '('"},
        InvalidCase{"x notin", "found '', expected: '('"},
        InvalidCase{"x in a", "found 'a', expected: '('"},
        InvalidCase{"x in (a", "found '', expected: ',' or ')'"},
        InvalidCase{"x in (a,(", "found '(', expected: ',', or identifier"},
        InvalidCase{"x in (a,", "found '', expected: ',', or identifier"},
        InvalidCase{"x in (=)", "found '=', expected: ',', ')' or identifier"},
        InvalidCase{"x in ((a))", "found '(', expected: ',', ')' or identifier"},
        InvalidCase{"x in (a))", "found ')', expected: ',' or 'end of string'"},
        InvalidCase{"x in (a b)", "found 'b', expected: ',' or ')'"},
        // As in apimachinery, a doubled comma cannot be the last thing before ")".
        InvalidCase{"x in (,,)", "found ')', expected: ',', or identifier"},
        InvalidCase{"x in (a,,)", "found ')', expected: ',', or identifier"},
        // Exact-match syntax.
        InvalidCase{"x=(", "found '(', expected: identifier"},
        InvalidCase{"x=>1", "found '>', expected: identifier"},
        InvalidCase{"x=a b", "found 'b', expected: ',' or 'end of string'"},
        InvalidCase{"x gt 1", "found 'gt', expected: in, notin, =, ==, !=, gt, lt"},
        InvalidCase{"x)", "found ')', expected: in, notin, =, ==, !=, gt, lt"},
        // Requirement starts.
        InvalidCase{"!", "unable to parse requirement: found '', expected: identifier"},
        InvalidCase{"!!x", "found '!', expected: identifier"},
        InvalidCase{"!=x", "found '!=', expected: !, identifier, or 'end of string'"},
        InvalidCase{"=a", "found '=', expected: !, identifier, or 'end of string'"},
        InvalidCase{"x=a,=", "found '=', expected: identifier after ','"},
        InvalidCase{"x in (a),,", "found ',', expected: identifier after ','"},
        InvalidCase{",", "found ',', expected: !, identifier, or 'end of string'"},
        // Gt/Lt values.
        InvalidCase{"x>", "values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the value "
                          "must be an integer"},
        InvalidCase{"x>1.5", "the value must be an integer"},
        InvalidCase{"x<9223372036854775808", "the value must be an integer"},
        InvalidCase{"x>-1", "values[0][x]: Invalid value: \"-1\": a valid label must be"},
        InvalidCase{"x in (1),x>a", "values[0]: Invalid value: \"a\""},
        // Keys.
        InvalidCase{"Foo@bar", "key: Invalid value: \"Foo@bar\": name part must consist of "
                               "alphanumeric characters"},
        InvalidCase{"-x", "name part must consist of alphanumeric characters"},
        InvalidCase{"x-=a", "key: Invalid value: \"x-\""},
        InvalidCase{"/x", "prefix part must be non-empty"},
        InvalidCase{"a/", "name part must be non-empty"},
        InvalidCase{"a/b/c", "a qualified name must consist of alphanumeric characters"},
        InvalidCase{"Example.com/x", "prefix part a lowercase RFC 1123 subdomain must consist"},
        InvalidCase{"a..b/x", "prefix part a lowercase RFC 1123 subdomain"},
        InvalidCase{std::string(64, 'k'), "name part must be no more than 63 characters"},
        InvalidCase{std::string(254, 'p') + "/x", "prefix part must be no more than 253 characters"},
        InvalidCase{std::string("x\0y", 3), "key: Invalid value: \"x\\x00y\""},
        // Values.
        InvalidCase{"x=" + std::string(64, 'v'), "must be no more than 63 characters"},
        InvalidCase{"x=-a", "values[0][x]: Invalid value: \"-a\""},
        InvalidCase{"x=a.", "a valid label must be an empty string or consist of"},
        InvalidCase{"x in (a,b_)", "values[1][x]: Invalid value: \"b_\""},
        InvalidCase{"x=\xc3\xa9", "Invalid value: \"\\xc3\\xa9\""},
        InvalidCase{"x=a/b", "values[0][x]: Invalid value: \"a/b\""}));

// ---- error positions ----------------------------------------------------------------------------

TEST(LabelSelector, SyntaxErrorNamesTheTokenAsApimachineryDoes) {
  EXPECT_EQ(ParseError("x=a b"), "found 'b', expected: ',' or 'end of string'");
  EXPECT_EQ(ParseError("a=b,c in d"), "unable to parse requirement: found 'd', expected: '('");
  EXPECT_EQ(ParseError("a in (x"), "unable to parse requirement: found '', expected: ',' or ')'");
}

TEST(LabelSelector, KeyErrorCarriesTheFullApimachineryMessage) {
  EXPECT_EQ(ParseError("a@b"),
            "unable to parse requirement: key: Invalid value: \"a@b\": name part must consist of "
            "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
            "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
}

TEST(LabelSelector, ValueErrorCarriesTheFullApimachineryMessage) {
  EXPECT_EQ(ParseError("k=a@b"),
            "unable to parse requirement: values[0][k]: Invalid value: \"a@b\": a valid label must "
            "be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
            "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
            "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
}

TEST(LabelSelector, ErrorMessagesEscapeNonPrintableBytesAndStayBounded) {
  const std::string message = ParseError("x=\x01\xff" + std::string(1000, 'v'));
  EXPECT_THAT(message, HasSubstr("\\x01\\xff"));
  EXPECT_LT(message.size(), 1000u);
  for (const char c : message) EXPECT_TRUE(c >= 0x20 && c < 0x7f);
}

TEST(LabelSelector, EmptyNameAndOverlongNameReportEveryViolation) {
  const std::string message = ParseError("a/" + std::string(64, '-'));
  EXPECT_THAT(message, HasSubstr("name part must be no more than 63 characters; name part must "
                                 "consist of"));
}

// ---- parse results ------------------------------------------------------------------------------

TEST(LabelSelector, ParseBuildsRequirementsWithOperatorsAndSortedValues) {
  const LabelSelector s = MustParse("x notin (abc,,def),bar,z in (),w");
  const std::vector<Requirement> want = {
      {.key = "bar", .op = SelectorOperator::kExists, .values = {}},
      {.key = "w", .op = SelectorOperator::kExists, .values = {}},
      {.key = "x", .op = SelectorOperator::kNotIn, .values = {"", "abc", "def"}},
      {.key = "z", .op = SelectorOperator::kIn, .values = {""}},
  };
  EXPECT_EQ(s.Requirements(), want);
}

TEST(LabelSelector, ParsesEveryOperator) {
  const std::vector<std::pair<std::string, SelectorOperator>> cases = {
      {"k=v", SelectorOperator::kEquals},       {"k==v", SelectorOperator::kDoubleEquals},
      {"k!=v", SelectorOperator::kNotEquals},   {"k in (v)", SelectorOperator::kIn},
      {"k notin (v)", SelectorOperator::kNotIn}, {"k", SelectorOperator::kExists},
      {"!k", SelectorOperator::kDoesNotExist},  {"k>1", SelectorOperator::kGreaterThan},
      {"k<1", SelectorOperator::kLessThan},
  };
  for (const auto& [input, op] : cases) {
    const LabelSelector s = MustParse(input);
    ASSERT_EQ(s.Requirements().size(), 1u) << input;
    EXPECT_EQ(s.Requirements()[0].op, op) << input;
    EXPECT_EQ(s.Requirements()[0].key, "k") << input;
  }
}

TEST(LabelSelector, ParseIsDeterministicRegardlessOfTermOrder) {
  EXPECT_EQ(MustParse("x=a,a=x"), MustParse("a=x,x=a"));
  EXPECT_EQ(MustParse("x=a,a=x").String(), MustParse("a=x,x=a").String());
}

TEST(LabelSelector, EmptyStringParsesToEverything) {
  EXPECT_EQ(MustParse(""), LabelSelector::Everything());
  EXPECT_EQ(MustParse(" \t\r\n"), LabelSelector::Everything());
  EXPECT_TRUE(MustParse("").Empty());
}

TEST(LabelSelector, EmptySetAndEmptyElementsAreTheEmptyValue) {
  EXPECT_EQ(MustParse("z notin ()").Requirements()[0].values, std::vector<std::string>{""});
  EXPECT_EQ(MustParse("x in (abc,)").Requirements()[0].values,
            (std::vector<std::string>{"", "abc"}));
  EXPECT_EQ(MustParse("x=").Requirements()[0].values, std::vector<std::string>{""});
}

// ---- matching -----------------------------------------------------------------------------------

bool Match(std::string_view selector, const Labels& labels) {
  return MustParse(selector).Matches(labels);
}

TEST(LabelSelector, MatchesApimachinerySelectorMatchesCases) {
  EXPECT_TRUE(Match("", {{"x", "y"}}));
  EXPECT_TRUE(Match("x=y", {{"x", "y"}}));
  EXPECT_TRUE(Match("x=y,z=w", {{"x", "y"}, {"z", "w"}}));
  EXPECT_TRUE(Match("x!=y,z!=w", {{"x", "z"}, {"z", "a"}}));
  EXPECT_TRUE(Match("notin=in", {{"notin", "in"}}));
  EXPECT_TRUE(Match("x", {{"x", "z"}}));
  EXPECT_TRUE(Match("!x", {{"y", "z"}}));
  EXPECT_TRUE(Match("x>1", {{"x", "2"}}));
  EXPECT_TRUE(Match("x<1", {{"x", "0"}}));
  EXPECT_FALSE(Match("x=z", {}));
  EXPECT_FALSE(Match("x=y", {{"x", "z"}}));
  EXPECT_FALSE(Match("x=y,z=w", {{"x", "w"}, {"z", "w"}}));
  EXPECT_FALSE(Match("x!=y,z!=w", {{"x", "z"}, {"z", "w"}}));
  EXPECT_FALSE(Match("x", {{"y", "z"}}));
  EXPECT_FALSE(Match("!x", {{"x", "z"}}));
  EXPECT_FALSE(Match("x>1", {{"x", "0"}}));
  EXPECT_FALSE(Match("x<1", {{"x", "2"}}));

  const Labels set = {{"foo", "bar"}, {"baz", "blah"}};
  EXPECT_TRUE(Match("foo=bar", set));
  EXPECT_TRUE(Match("baz=blah", set));
  EXPECT_TRUE(Match("foo=bar,baz=blah", set));
  EXPECT_FALSE(Match("foo=blah", set));
  EXPECT_FALSE(Match("baz=bar", set));
  EXPECT_FALSE(Match("foo=bar,foobar=bar,baz=blah", set));
}

TEST(LabelSelector, NotInMatchesObjectsWithoutTheKey) {
  EXPECT_TRUE(Match("env notin (prod)", {}));
  EXPECT_TRUE(Match("env notin (prod)", {{"env", "dev"}}));
  EXPECT_FALSE(Match("env notin (prod)", {{"env", "prod"}}));
  EXPECT_TRUE(Match("x notin (),y", {{"y", ""}}));
  EXPECT_FALSE(Match("x notin (),y", {{"x", ""}, {"y", ""}}));
}

TEST(LabelSelector, NotEqualsMatchesObjectsWithoutTheKey) {
  EXPECT_TRUE(Match("env!=prod", {}));
  EXPECT_FALSE(Match("env!=prod", {{"env", "prod"}}));
  EXPECT_TRUE(Match("env!=", {}));
  EXPECT_FALSE(Match("env!=", {{"env", ""}}));
}

TEST(LabelSelector, InAndEqualsNeedTheKeyPresent) {
  EXPECT_FALSE(Match("x in ()", {{"y", "baz"}}));
  EXPECT_TRUE(Match("x in ()", {{"x", ""}}));
  EXPECT_FALSE(Match("x=", {}));
  EXPECT_TRUE(Match("x=", {{"x", ""}}));
  EXPECT_TRUE(Match("x in (a,b)", {{"x", "b"}}));
  EXPECT_FALSE(Match("x in (a,b)", {{"x", "c"}}));
  EXPECT_TRUE(Match("x==a", {{"x", "a"}}));
}

TEST(LabelSelector, ExistsMatchesAnEmptyValueAndDoesNotExistRejectsIt) {
  EXPECT_TRUE(Match("x", {{"x", ""}}));
  EXPECT_FALSE(Match("!x", {{"x", ""}}));
  EXPECT_TRUE(Match("!x,y", {{"y", ""}}));
}

TEST(LabelSelector, GreaterAndLessThanCompareAsInt64) {
  EXPECT_TRUE(Match("x>9", {{"x", "10"}}));  // numeric, not lexical
  EXPECT_FALSE(Match("x<9", {{"x", "10"}}));
  EXPECT_FALSE(Match("x>1", {{"x", "1"}}));
  EXPECT_FALSE(Match("x<1", {{"x", "1"}}));
  EXPECT_TRUE(Match("x<0", {{"x", "-3"}}));
  EXPECT_TRUE(Match("x>4", {{"x", "+5"}}));
  EXPECT_TRUE(Match("x>007", {{"x", "8"}}));
  EXPECT_TRUE(Match("x<9223372036854775807", {{"x", "-9223372036854775808"}}));
}

TEST(LabelSelector, GreaterThanNeverMatchesNonIntegerOrMissingLabel) {
  EXPECT_FALSE(Match("z>1", {{"z", "v2"}}));
  EXPECT_FALSE(Match("z>1", {{"z", ""}}));
  EXPECT_FALSE(Match("z>1", {{"z", "1.5"}}));
  EXPECT_FALSE(Match("z>1", {{"z", " 2"}}));
  EXPECT_FALSE(Match("z>1", {{"z", "+-2"}}));
  EXPECT_FALSE(Match("z>1", {{"z", "9223372036854775808"}}));  // overflows int64
  EXPECT_FALSE(Match("z>1", {}));
  EXPECT_FALSE(Match("z<1", {}));
}

TEST(LabelSelector, AllRequirementsAreAnded) {
  const LabelSelector s = MustParse("x in (foo),y notin (alpha)");
  EXPECT_TRUE(s.Matches(Labels{{"x", "foo"}, {"y", "baz"}}));
  EXPECT_FALSE(MustParse("x in (foo),y in (alpha)").Matches(Labels{{"x", "foo"}, {"y", "baz"}}));
  EXPECT_FALSE(MustParse("x notin (),y").Matches(Labels{{"y", ""}, {"x", ""}}));
  EXPECT_FALSE(MustParse("x notin (),!y").Matches(Labels{{"y", ""}}));
}

TEST(Requirement, MatchesTakesTheValueOrNulloptForAnAbsentKey) {
  const Requirement in = MustCreate("x", SelectorOperator::kIn, {"a", "b"});
  EXPECT_TRUE(in.Matches("a"));
  EXPECT_FALSE(in.Matches("c"));
  EXPECT_FALSE(in.Matches(std::nullopt));
  const Requirement not_in = MustCreate("x", SelectorOperator::kNotIn, {"a"});
  EXPECT_TRUE(not_in.Matches(std::nullopt));
  EXPECT_FALSE(not_in.Matches("a"));
  EXPECT_TRUE(MustCreate("x", SelectorOperator::kExists, {}).Matches(""));
  EXPECT_TRUE(MustCreate("x", SelectorOperator::kDoesNotExist, {}).Matches(std::nullopt));
}

// A label source that is not a map, as an Object's metadata would be.
struct VectorLabels {
  std::vector<std::pair<std::string, std::string>> items;
  std::optional<std::string_view> Get(std::string_view key) const {
    for (const auto& [k, v] : items) {
      if (k == key) return std::string_view(v);
    }
    return std::nullopt;
  }
};
static_assert(LabelGetter<VectorLabels>);
static_assert(!LabelGetter<Labels>);

TEST(LabelSelector, MatchesAnyLabelGetter) {
  const LabelSelector s = MustParse("app=web,tier notin (db),!canary");
  EXPECT_TRUE(s.Matches(VectorLabels{{{"app", "web"}, {"tier", "front"}}}));
  EXPECT_FALSE(s.Matches(VectorLabels{{{"app", "web"}, {"canary", ""}}}));
  EXPECT_FALSE(s.Matches(VectorLabels{{{"app", "web"}, {"tier", "db"}}}));
  EXPECT_TRUE(LabelSelector::Everything().Matches(VectorLabels{}));
  EXPECT_FALSE(LabelSelector::Nothing().Matches(VectorLabels{}));
}

// ---- Everything / Nothing -----------------------------------------------------------------------

TEST(LabelSelector, EverythingMatchesAllAndIsEmpty) {
  EXPECT_TRUE(LabelSelector::Everything().Matches(Labels{{"x", "y"}}));
  EXPECT_TRUE(LabelSelector::Everything().Matches(Labels{}));
  EXPECT_TRUE(LabelSelector::Everything().Empty());
  EXPECT_EQ(LabelSelector::Everything().String(), "");
  EXPECT_EQ(LabelSelector(), LabelSelector::Everything());
}

TEST(LabelSelector, NothingMatchesNoneAndIsNotEmpty) {
  const LabelSelector nothing = LabelSelector::Nothing();
  EXPECT_FALSE(nothing.Matches(Labels{}));
  EXPECT_FALSE(nothing.Matches(Labels{{"x", "y"}}));
  EXPECT_FALSE(nothing.Empty());
  EXPECT_TRUE(nothing.IsNothing());
  EXPECT_TRUE(nothing.Requirements().empty());
  EXPECT_NE(nothing, LabelSelector::Everything());
}

TEST(LabelSelector, NothingStringNeverParsesToEverythingAndSelectsNothing) {
  const std::string text = LabelSelector::Nothing().String();
  EXPECT_FALSE(text.empty());
  const LabelSelector reparsed = MustParse(text);
  EXPECT_FALSE(reparsed.Empty());
  EXPECT_FALSE(reparsed.Matches(Labels{}));
  EXPECT_FALSE(reparsed.Matches(Labels{{"kubecpp.io/nothing", ""}}));
}

TEST(LabelSelector, AddToNothingKeepsItNothing) {
  LabelSelector s = LabelSelector::Nothing();
  ASSERT_TRUE(s.Add(MustCreate("a", SelectorOperator::kExists, {})).ok());
  EXPECT_TRUE(s.IsNothing());
  EXPECT_FALSE(s.Matches(Labels{{"a", "b"}}));
}

// ---- Requirement construction and String --------------------------------------------------------

TEST(Requirement, CreateFollowsApimachineryConstructorRules) {
  struct Case {
    std::string key;
    SelectorOperator op;
    std::vector<std::string> values;
    bool ok;
  };
  const std::vector<Case> cases = {
      {"x", SelectorOperator::kIn, {}, false},
      {"x", SelectorOperator::kNotIn, {}, false},
      {"x", SelectorOperator::kIn, {"foo"}, true},
      {"x", SelectorOperator::kNotIn, {"foo"}, true},
      {"x", SelectorOperator::kExists, {}, true},
      {"x", SelectorOperator::kDoesNotExist, {}, true},
      {"1foo", SelectorOperator::kIn, {"bar"}, true},
      {"1234", SelectorOperator::kIn, {"bar"}, true},
      {"y", SelectorOperator::kGreaterThan, {"1"}, true},
      {"z", SelectorOperator::kLessThan, {"6"}, true},
      {"foo", SelectorOperator::kGreaterThan, {"bar"}, false},
      {"barz", SelectorOperator::kLessThan, {"blah"}, false},
      {std::string(254, 'a'), SelectorOperator::kExists, {}, false},
      {"x", SelectorOperator::kEquals, {}, false},
      {"x", SelectorOperator::kEquals, {"a", "b"}, false},
      {"x", SelectorOperator::kDoubleEquals, {"a"}, true},
      {"x", SelectorOperator::kNotEquals, {""}, true},
      {"x", SelectorOperator::kExists, {"a"}, false},
      {"x", SelectorOperator::kDoesNotExist, {""}, false},
      {"x", SelectorOperator::kGreaterThan, {"1", "2"}, false},
      {"x", SelectorOperator::kIn, {"a b"}, false},
      {"", SelectorOperator::kExists, {}, false},
  };
  for (const Case& c : cases) {
    auto r = Requirement::Create(c.key, c.op, c.values);
    EXPECT_EQ(r.ok(), c.ok) << c.key << " " << SelectorOperatorName(c.op) << " "
                            << (r.ok() ? "" : r.error().message);
    if (!r.ok()) {
      EXPECT_TRUE(IsBadRequest(r.error()));
    }
  }
}

TEST(Requirement, CreateReportsEveryViolationLikeAnAggregate) {
  auto r = Requirement::Create("Bad@", SelectorOperator::kIn, {});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("[key: Invalid value: \"Bad@\""));
  EXPECT_THAT(r.error().message,
              HasSubstr(", values: Invalid value: []: for 'in', 'notin' operators, values set "
                        "can't be empty]"));
}

TEST(Requirement, CreateErrorMessagesMirrorNewRequirement) {
  auto exact = Requirement::Create("x", SelectorOperator::kEquals, {"a", "b"});
  ASSERT_FALSE(exact.ok());
  EXPECT_EQ(exact.error().message,
            "values: Invalid value: [\"a\",\"b\"]: exact-match compatibility requires one single "
            "value");
  auto exists = Requirement::Create("x", SelectorOperator::kExists, {"a"});
  ASSERT_FALSE(exists.ok());
  EXPECT_EQ(exists.error().message,
            "values: Invalid value: [\"a\"]: values set must be empty for exists and does not "
            "exist");
  auto gt = Requirement::Create("x", SelectorOperator::kGreaterThan, {});
  ASSERT_FALSE(gt.ok());
  EXPECT_EQ(gt.error().message,
            "values: Invalid value: []: for 'Gt', 'Lt' operators, exactly one value is required");
}

TEST(Requirement, CreateSortsAndDeduplicatesSetValues) {
  EXPECT_EQ(MustCreate("x", SelectorOperator::kIn, {"b", "a", "b"}).values,
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(MustCreate("x", SelectorOperator::kNotIn, {"", "z", ""}).values,
            (std::vector<std::string>{"", "z"}));
}

TEST(Requirement, StringMatchesApimachineryToString) {
  const auto join = [](std::vector<Requirement> reqs) {
    LabelSelector s;
    for (auto& r : reqs) EXPECT_TRUE(s.Add(std::move(r)).ok());
    return s.String();
  };
  EXPECT_EQ(join({MustCreate("x", SelectorOperator::kIn, {"abc", "def"}),
                  MustCreate("y", SelectorOperator::kNotIn, {"jkl"}),
                  MustCreate("z", SelectorOperator::kExists, {})}),
            "x in (abc,def),y notin (jkl),z");
  EXPECT_EQ(join({MustCreate("x", SelectorOperator::kNotIn, {"abc", "def"}),
                  MustCreate("y", SelectorOperator::kNotEquals, {"jkl"}),
                  MustCreate("z", SelectorOperator::kDoesNotExist, {})}),
            "x notin (abc,def),y!=jkl,!z");
  EXPECT_EQ(join({MustCreate("x", SelectorOperator::kNotIn, {"abc"}),
                  MustCreate("y", SelectorOperator::kIn, {"jkl", "mno"}),
                  MustCreate("z", SelectorOperator::kNotIn, {""})}),
            "x notin (abc),y in (jkl,mno),z notin ()");
  EXPECT_EQ(join({MustCreate("x", SelectorOperator::kEquals, {"abc"}),
                  MustCreate("y", SelectorOperator::kDoubleEquals, {"jkl"}),
                  MustCreate("z", SelectorOperator::kNotEquals, {"a"}),
                  MustCreate("z", SelectorOperator::kExists, {})}),
            "x=abc,y==jkl,z!=a,z");
  EXPECT_EQ(join({MustCreate("x", SelectorOperator::kGreaterThan, {"2"}),
                  MustCreate("y", SelectorOperator::kLessThan, {"8"}),
                  MustCreate("z", SelectorOperator::kExists, {})}),
            "x>2,y<8,z");
}

TEST(Requirement, StringSortsValuesOfAnUnnormalizedAggregate) {
  const Requirement r{.key = "x", .op = SelectorOperator::kIn, .values = {"b", "a"}};
  EXPECT_EQ(r.String(), "x in (a,b)");
  EXPECT_EQ(r.values, (std::vector<std::string>{"b", "a"}));  // String() does not mutate
}

TEST(SelectorOperator, NamesAreApimachineryOperatorStrings) {
  EXPECT_EQ(SelectorOperatorName(SelectorOperator::kIn), "in");
  EXPECT_EQ(SelectorOperatorName(SelectorOperator::kNotIn), "notin");
  EXPECT_EQ(SelectorOperatorName(SelectorOperator::kExists), "exists");
  EXPECT_EQ(SelectorOperatorName(SelectorOperator::kDoesNotExist), "!");
  EXPECT_EQ(SelectorOperatorName(SelectorOperator::kGreaterThan), "gt");
  EXPECT_EQ(SelectorOperatorName(SelectorOperator::kLessThan), "lt");
  EXPECT_EQ(SelectorOperatorName(SelectorOperator::kDoubleEquals), "==");
}

// ---- Add ----------------------------------------------------------------------------------------

TEST(LabelSelector, AddKeepsRequirementsStablySortedByKey) {
  LabelSelector s;
  ASSERT_TRUE(s.Add(MustCreate("key", SelectorOperator::kIn, {"value"})).ok());
  ASSERT_TRUE(s.Add(MustCreate("a", SelectorOperator::kExists, {})).ok());
  ASSERT_TRUE(s.Add(MustCreate("key", SelectorOperator::kNotEquals, {"other"})).ok());
  ASSERT_TRUE(s.Add(MustCreate("key2", SelectorOperator::kEquals, {"value2"})).ok());
  EXPECT_EQ(s.String(), "a,key in (value),key!=other,key2=value2");
  EXPECT_EQ(MustParse(s.String()), s);
}

TEST(LabelSelector, AddRejectsAnInvalidRequirementAndLeavesSelectorUnchanged) {
  LabelSelector s = MustParse("a=b");
  auto r = s.Add(Requirement{.key = "x", .op = SelectorOperator::kIn, .values = {}});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsBadRequest(r.error()));
  EXPECT_THAT(r.error().message, HasSubstr("values set can't be empty"));
  EXPECT_EQ(s, MustParse("a=b"));
}

TEST(LabelSelector, AddNormalizesSetValues) {
  LabelSelector s;
  ASSERT_TRUE(s.Add({.key = "x", .op = SelectorOperator::kNotIn, .values = {"b", "a", "a"}}).ok());
  EXPECT_EQ(s.Requirements()[0].values, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(s, MustParse("x notin (a,b)"));
}

// ---- RequiresExactMatch -------------------------------------------------------------------------

TEST(LabelSelector, RequiresExactMatchReportsSingleValuedEqualsAndIn) {
  EXPECT_EQ(MustParse("key in (value)").RequiresExactMatch("key"), "value");
  EXPECT_EQ(MustParse("key in (value,value2)").RequiresExactMatch("key"), std::nullopt);
  EXPECT_EQ(MustParse("key in (value,value1),key2 in (value2)").RequiresExactMatch("key2"),
            "value2");
  EXPECT_EQ(MustParse("key=value").RequiresExactMatch("key"), "value");
  EXPECT_EQ(MustParse("key==value").RequiresExactMatch("key"), "value");
  EXPECT_EQ(MustParse("key!=value").RequiresExactMatch("key"), std::nullopt);
  EXPECT_EQ(MustParse("key in (value),key2 in (value2)").RequiresExactMatch("key"), "value");
  EXPECT_EQ(MustParse("other=value").RequiresExactMatch("key"), std::nullopt);
  EXPECT_EQ(MustParse("key=").RequiresExactMatch("key"), "");
}

TEST(LabelSelector, RequiresExactMatchLooksOnlyAtTheFirstRequirementOnTheKey) {
  EXPECT_EQ(MustParse("key,key=v").RequiresExactMatch("key"), std::nullopt);
  EXPECT_EQ(MustParse("key=v,key").RequiresExactMatch("key"), "v");
}

// ---- FromSet ------------------------------------------------------------------------------------

TEST(LabelSelector, FromSetMatchesExactlyTheSet) {
  const Labels set = {{"foo", "bar"}, {"baz", "blah"}};
  EXPECT_TRUE(LabelSelector::FromSet({}).Matches(set));
  EXPECT_TRUE(LabelSelector::FromSet({}).Empty());
  EXPECT_TRUE(LabelSelector::FromSet({{"foo", "bar"}}).Matches(set));
  EXPECT_TRUE(LabelSelector::FromSet({{"baz", "blah"}}).Matches(set));
  EXPECT_TRUE(LabelSelector::FromSet(set).Matches(set));
  EXPECT_FALSE(LabelSelector::FromSet({{"foo", "blah"}}).Matches(set));
  EXPECT_FALSE(LabelSelector::FromSet({{"foo", "bar"}, {"x", ""}}).Matches(set));
}

TEST(LabelSelector, FromSetStringIsSortedEqualsTerms) {
  const LabelSelector s = LabelSelector::FromSet({{"b", "2"}, {"a", "1"}});
  EXPECT_EQ(s.String(), "a=1,b=2");
  EXPECT_EQ(MustParse(s.String()), s);
}

TEST(LabelSelector, FromSetDoesNotValidateButValidatedFromSetDoes) {
  const Labels bad = {{"Key", std::string(64, 'x')}};
  EXPECT_EQ(LabelSelector::FromSet(bad).Requirements().size(), 1u);
  auto v = LabelSelector::ValidatedFromSet(bad);
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(v.error().message, HasSubstr("values[0][Key]: Invalid value"));
  auto good = LabelSelector::ValidatedFromSet({{"key", "val"}});
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, LabelSelector::FromSet({{"key", "val"}}));
}

// ---- FromLabelSelectorJson ----------------------------------------------------------------------

Result<LabelSelector> FromJson(std::string_view text) {
  return LabelSelector::FromLabelSelectorJson(boost::json::parse(text));
}

std::string JsonError(std::string_view text) {
  auto r = FromJson(text);
  EXPECT_FALSE(r.ok()) << text << " converted to '" << (r.ok() ? r->String() : "") << "'";
  if (r.ok()) return "";
  EXPECT_TRUE(IsBadRequest(r.error()));
  return r.error().message;
}

TEST(LabelSelectorJson, NullIsNothing) {
  auto r = FromJson("null");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->IsNothing());
}

TEST(LabelSelectorJson, EmptyObjectIsEverything) {
  for (const char* text : {"{}", R"({"matchLabels":{}})", R"({"matchExpressions":[]})",
                           R"({"matchLabels":null,"matchExpressions":null})"}) {
    auto r = FromJson(text);
    ASSERT_TRUE(r.ok()) << text;
    EXPECT_EQ(*r, LabelSelector::Everything()) << text;
  }
}

TEST(LabelSelectorJson, MatchLabelsBecomeEqualsRequirements) {
  auto r = FromJson(R"({"matchLabels":{"tier":"web","app":"nginx","empty":""}})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->String(), "app=nginx,empty=,tier=web");
  EXPECT_EQ(*r, MustParse("app=nginx,empty=,tier=web"));
}

TEST(LabelSelectorJson, MatchExpressionsMapEveryOperator) {
  auto r = FromJson(R"({"matchExpressions":[
      {"key":"d","operator":"DoesNotExist"},
      {"key":"c","operator":"Exists","values":[]},
      {"key":"b","operator":"NotIn","values":["y","x","x"]},
      {"key":"a","operator":"In","values":["p"]}]})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->String(), "a in (p),b notin (x,y),c,!d");
  EXPECT_EQ(*r, MustParse(r->String()));
}

TEST(LabelSelectorJson, MatchLabelsAndExpressionsAreAndedAndSortedByKey) {
  auto r = FromJson(R"({"matchLabels":{"app":"web"},
      "matchExpressions":[{"key":"app","operator":"NotIn","values":["db"]},
                          {"key":"aaa","operator":"Exists"}]})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->String(), "aaa,app=web,app notin (db)");
  EXPECT_TRUE(r->Matches(Labels{{"app", "web"}, {"aaa", ""}}));
  EXPECT_FALSE(r->Matches(Labels{{"app", "web"}}));
}

TEST(LabelSelectorJson, UnknownMembersAndNullMembersAreIgnored) {
  auto r = FromJson(R"({"matchLabels":{"a":"b"},"extra":1,
      "matchExpressions":[{"key":"c","operator":"Exists","values":null,"other":true}]})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->String(), "a=b,c");
}

TEST(LabelSelectorJson, InAndNotInNeedValues) {
  EXPECT_THAT(JsonError(R"({"matchExpressions":[{"key":"a","operator":"In"}]})"),
              HasSubstr("matchExpressions[0]: values: Invalid value: []: for 'in', 'notin' "
                        "operators, values set can't be empty"));
  EXPECT_THAT(JsonError(R"({"matchExpressions":[{"key":"a","operator":"NotIn","values":[]}]})"),
              HasSubstr("values set can't be empty"));
}

TEST(LabelSelectorJson, ExistsAndDoesNotExistMustHaveNoValues) {
  EXPECT_THAT(
      JsonError(R"({"matchExpressions":[{"key":"a","operator":"Exists","values":["x"]}]})"),
      HasSubstr("values set must be empty for exists and does not exist"));
  EXPECT_THAT(JsonError(R"({"matchExpressions":[{"key":"a","operator":"In","values":["x"]},
      {"key":"a","operator":"DoesNotExist","values":["x"]}]})"),
              HasSubstr("matchExpressions[1]: values"));
}

TEST(LabelSelectorJson, UnknownOperatorIsRejectedWithApimachineryMessage) {
  EXPECT_EQ(JsonError(R"({"matchExpressions":[{"key":"a","operator":"Foo","values":["x"]}]})"),
            "\"Foo\" is not a valid label selector operator");
  EXPECT_EQ(JsonError(R"({"matchExpressions":[{"key":"a","operator":"in","values":["x"]}]})"),
            "\"in\" is not a valid label selector operator");
  EXPECT_EQ(JsonError(R"({"matchExpressions":[{"key":"a"}]})"),
            "\"\" is not a valid label selector operator");
}

TEST(LabelSelectorJson, WrongJsonTypesNameTheMember) {
  EXPECT_EQ(JsonError(R"({"matchLabels":{"app":1}})"), "matchLabels.app: expected string");
  EXPECT_EQ(JsonError(R"({"matchLabels":[]})"), "matchLabels: expected object");
  EXPECT_EQ(JsonError(R"({"matchExpressions":{}})"), "matchExpressions: expected array");
  EXPECT_EQ(JsonError(R"({"matchExpressions":[{"key":"a","operator":"Exists"},"x"]})"),
            "matchExpressions[1]: expected object");
  EXPECT_EQ(JsonError(R"({"matchExpressions":[{"key":7,"operator":"Exists"}]})"),
            "matchExpressions[0].key: expected string");
  EXPECT_EQ(JsonError(R"({"matchExpressions":[{"key":"a","operator":false}]})"),
            "matchExpressions[0].operator: expected string");
  EXPECT_EQ(JsonError(R"({"matchExpressions":[{"key":"a","operator":"In","values":"x"}]})"),
            "matchExpressions[0].values: expected array");
  EXPECT_EQ(JsonError(R"({"matchExpressions":[{"key":"a","operator":"In","values":["x",2]}]})"),
            "matchExpressions[0].values[1]: expected string");
  EXPECT_EQ(JsonError("[]"), "labelSelector: expected object or null");
  EXPECT_EQ(JsonError("\"app=web\""), "labelSelector: expected object or null");
}

TEST(LabelSelectorJson, InvalidKeysAndValuesAreRejected) {
  EXPECT_THAT(JsonError(R"({"matchLabels":{"bad key":"v"}})"),
              HasSubstr("matchLabels: key: Invalid value: \"bad key\""));
  EXPECT_THAT(JsonError(R"({"matchLabels":{"k":"bad value"}})"),
              HasSubstr("matchLabels: values[0][k]: Invalid value: \"bad value\""));
  EXPECT_THAT(JsonError(R"({"matchExpressions":[{"operator":"Exists"}]})"),
              HasSubstr("matchExpressions[0]: key: Invalid value: \"\": name part must be "
                        "non-empty"));
}

TEST(LabelSelectorJson, NullLabelValueIsTheEmptyString) {
  auto r = FromJson(R"({"matchLabels":{"a":null}})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->String(), "a=");
}

}  // namespace
}  // namespace kube
