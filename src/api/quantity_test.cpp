#include <kube/api/quantity.hpp>

#include <bit>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include <kube/base/error.hpp>

namespace kube::api {
namespace {

using Format = Quantity::Format;
constexpr Format kDecimalSI = Format::kDecimalSI;
constexpr Format kBinarySI = Format::kBinarySI;
constexpr Format kDecimalExponent = Format::kDecimalExponent;
constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kMinInt64 = std::numeric_limits<int64_t>::min();

constexpr std::string_view kErrFormatWrong =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kErrNumeric = "unable to parse numeric part of quantity";
constexpr std::string_view kErrSuffix = "unable to parse quantity's suffix";

Quantity MustParse(std::string_view s) {
  auto r = Quantity::Parse(s);
  EXPECT_TRUE(r.ok()) << s << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : Quantity();
}

// Go's decQuantity / intQuantity: unscaled * 10^scale in a format.
Quantity Q(int64_t unscaled, int32_t scale, Format format = kDecimalSI) {
  return Quantity::FromScaled(unscaled, scale, format);
}

struct ParseCase {
  std::string_view in;
  int64_t unscaled;
  int32_t scale;
  Format format;
};

// apimachinery TestQuantityParse: the value (compared, not printed) and the format.
const std::vector<ParseCase>& GoParseCases() {
  static const std::vector<ParseCase> cases = {
      {"0", 0, 0, kDecimalSI},
      {"0n", 0, 0, kDecimalSI},
      {"0u", 0, 0, kDecimalSI},
      {"0m", 0, 0, kDecimalSI},
      {"0Ki", 0, 0, kBinarySI},
      {"0k", 0, 0, kDecimalSI},
      {"0Mi", 0, 0, kBinarySI},
      {"0M", 0, 0, kDecimalSI},
      {"0Gi", 0, 0, kBinarySI},
      {"0G", 0, 0, kDecimalSI},
      {"0Ti", 0, 0, kBinarySI},
      {"0T", 0, 0, kDecimalSI},
      {"1", 1, 0, kDecimalSI},
      // Binary suffixes
      {"1Ki", 1024, 0, kBinarySI},
      {"8Ki", 8 * 1024, 0, kBinarySI},
      {"7Mi", 7 * 1024 * 1024, 0, kBinarySI},
      {"6Gi", 6LL << 30, 0, kBinarySI},
      {"5Ti", 5LL << 40, 0, kBinarySI},
      {"4Pi", 4LL << 50, 0, kBinarySI},
      {"3Ei", 3LL << 60, 0, kBinarySI},
      {"10Ti", 10LL << 40, 0, kBinarySI},
      {"100Ti", 100LL << 40, 0, kBinarySI},
      // Decimal suffixes
      {"5n", 5, -9, kDecimalSI},
      {"4u", 4, -6, kDecimalSI},
      {"3m", 3, -3, kDecimalSI},
      {"9", 9, 0, kDecimalSI},
      {"8k", 8, 3, kDecimalSI},
      {"50k", 5, 4, kDecimalSI},
      {"7M", 7, 6, kDecimalSI},
      {"6G", 6, 9, kDecimalSI},
      {"5T", 5, 12, kDecimalSI},
      {"40T", 4, 13, kDecimalSI},
      {"300T", 3, 14, kDecimalSI},
      {"2P", 2, 15, kDecimalSI},
      {"1E", 1, 18, kDecimalSI},
      // Decimal exponents
      {"1E-3", 1, -3, kDecimalExponent},
      {"1e3", 1, 3, kDecimalExponent},
      {"1E6", 1, 6, kDecimalExponent},
      {"1e9", 1, 9, kDecimalExponent},
      {"1E12", 1, 12, kDecimalExponent},
      {"1e15", 1, 15, kDecimalExponent},
      {"1E18", 1, 18, kDecimalExponent},
      // Nonstandard but still parsable
      {"1e14", 1, 14, kDecimalExponent},
      {"1e13", 1, 13, kDecimalExponent},
      {"100.035k", 100035, 0, kDecimalSI},
      // Things that look like floating point
      {"0.001", 1, -3, kDecimalSI},
      {"0.0005k", 5, -1, kDecimalSI},
      {"0.005", 5, -3, kDecimalSI},
      {"0.05", 5, -2, kDecimalSI},
      {"0.5", 5, -1, kDecimalSI},
      {"0.00050k", 5, -1, kDecimalSI},
      {"0.00500", 5, -3, kDecimalSI},
      {"0.05000", 5, -2, kDecimalSI},
      {"0.50000", 5, -1, kDecimalSI},
      {"0.5e0", 5, -1, kDecimalExponent},
      {"0.5e-1", 5, -2, kDecimalExponent},
      {"0.5e-2", 5, -3, kDecimalExponent},
      {"10.035M", 10035, 3, kDecimalSI},
      {"1.2e3", 12, 2, kDecimalExponent},
      {"1.3E+6", 13, 5, kDecimalExponent},
      {"1.40e9", 14, 8, kDecimalExponent},
      {"1.53E12", 153, 10, kDecimalExponent},
      {"1.6e15", 16, 14, kDecimalExponent},
      {"1.7E18", 17, 17, kDecimalExponent},
      {"9.01", 901, -2, kDecimalSI},
      {"8.1k", 81, 2, kDecimalSI},
      {"7.123456M", 7123456, 0, kDecimalSI},
      {"6.987654321G", 6987654321, 0, kDecimalSI},
      {"5.444T", 5444, 9, kDecimalSI},
      {"40.1T", 401, 11, kDecimalSI},
      {"300.2T", 3002, 11, kDecimalSI},
      {"2.5P", 25, 14, kDecimalSI},
      {"1.01E", 101, 16, kDecimalSI},
      // Things that saturate/round
      {"3.001n", 4, -9, kDecimalSI},
      {"1.1E-9", 2, -9, kDecimalExponent},
      {"0.0000000001", 1, -9, kDecimalSI},
      {"0.0000000005", 1, -9, kDecimalSI},
      {"0.00000000050", 1, -9, kDecimalSI},
      {"0.5e-9", 1, -9, kDecimalExponent},
      {"0.9n", 1, -9, kDecimalSI},
      {"0.00000012345", 124, -9, kDecimalSI},
      {"0.00000012354", 124, -9, kDecimalSI},
      {"9Ei", kMaxInt64, 0, kBinarySI},
      {"9223372036854775807Ki", kMaxInt64, 0, kBinarySI},
      {"12E", 12, 18, kDecimalSI},
      // Fractional binary
      {"100.035Ki", 10243584, -2, kBinarySI},
      {"0.5Mi", 512 * 1024, 0, kBinarySI},
      {"0.05Gi", 536870912, -1, kBinarySI},
      {"0.025Ti", 274877906944, -1, kBinarySI},
      // Things written by trolls
      {"0.000000000001Ki", 2, -9, kDecimalSI},  // rounds up, changes format
      {".001", 1, -3, kDecimalSI},
      {".0001k", 100, -3, kDecimalSI},
      {"1.", 1, 0, kDecimalSI},
      {"1.G", 1, 9, kDecimalSI},
  };
  return cases;
}

TEST(QuantityParse, GoTableValuesAndFormats) {
  for (const auto& c : GoParseCases()) {
    const Quantity q = MustParse(c.in);
    EXPECT_EQ(q.Compare(Q(c.unscaled, c.scale)), 0) << c.in << " parsed as " << q.String();
    EXPECT_EQ(q.format(), c.format) << c.in;
  }
}

TEST(QuantityParse, GoTableNegatedKeepsFormatAndNegatesValue) {
  for (const auto& c : GoParseCases()) {
    const std::string in = "-" + std::string(c.in);
    const Quantity q = MustParse(in);
    Quantity want = Q(c.unscaled, c.scale);
    want.Neg();
    EXPECT_EQ(q.Compare(want), 0) << in << " parsed as " << q.String();
    EXPECT_EQ(q.format(), c.format) << in;
  }
}

TEST(QuantityParse, GoTableWithExplicitPlusIsUnchanged) {
  for (const auto& c : GoParseCases()) {
    const std::string in = "+" + std::string(c.in);
    const Quantity q = MustParse(in);
    EXPECT_EQ(q.Compare(Q(c.unscaled, c.scale)), 0) << in;
    EXPECT_EQ(q.format(), c.format) << in;
  }
}

TEST(QuantityParse, RejectsWithGoMessagesAsBadRequest) {
  struct Case {
    std::string_view in;
    std::string_view message;
  };
  const Case cases[] = {
      // apimachinery TestQuantityParse's invalid list
      {"", kErrFormatWrong},
      {"1.1.M", kErrFormatWrong},
      {"1+1.0M", kErrFormatWrong},
      {"0.1mi", kErrSuffix},
      {"0.1am", kErrFormatWrong},
      {"aoeu", kErrFormatWrong},
      {".5i", kErrSuffix},
      {"1i", kErrSuffix},
      {"-3.01i", kErrSuffix},
      {"-3.01e-", kErrSuffix},
      {" 1", kErrFormatWrong},  // no whitespace, leading or trailing
      {"1 ", kErrFormatWrong},
      // suffix letters that name no suffix
      {"1e", kErrSuffix},
      {"1K", kErrSuffix},
      {"1Ki5", kErrSuffix},
      {"1ee3", kErrSuffix},
      {"1e9223372036854775808", kErrSuffix},  // the exponent must fit an int64
      {"1e3.5", kErrFormatWrong},
      {"1e3e", kErrFormatWrong},
      // no digit where Go reads the number with inf.Dec
      {".e-10", kErrNumeric},
      {"e-10", kErrNumeric},
      {"-.Ei", kErrNumeric},
      {"+.Pi", kErrNumeric},
  };
  for (const auto& c : cases) {
    auto r = Quantity::Parse(c.in);
    ASSERT_FALSE(r.ok()) << '"' << c.in << "\" parsed as " << r->String();
    EXPECT_EQ(r.error().message, c.message) << c.in;
    EXPECT_EQ(r.error().code, 400) << c.in;
    EXPECT_TRUE(IsBadRequest(r.error())) << c.in;
  }
}

TEST(QuantityParse, DigitlessNumbersAreZeroWhereGoStaysOnItsInt64Path) {
  // Go's scanner accepts a missing number; only its inf.Dec path insists on a digit.
  for (const std::string_view in : {"-", "+", ".", "-.", "m", "Ki", ".Ti", "e5"}) {
    const Quantity q = MustParse(in);
    EXPECT_TRUE(q.IsZero()) << in;
    EXPECT_EQ(q.String(), "0") << in;
  }
  EXPECT_EQ(MustParse("Ki").format(), kBinarySI);
  EXPECT_EQ(MustParse("e5").format(), kDecimalExponent);
}

TEST(QuantityParse, RoundsFinerThanNanoAwayFromZero) {
  EXPECT_EQ(MustParse("0.1n").String(), "1n");
  EXPECT_EQ(MustParse("-0.1n").String(), "-1n");
  EXPECT_EQ(MustParse("1.0000000001").String(), "1000000001n");
  EXPECT_EQ(MustParse("1.0000000000").String(), "1");  // only zeros dropped: exact
  EXPECT_EQ(MustParse("1e-2000000000").String(), "1e-9");
  EXPECT_EQ(MustParse("1e-2000000000").format(), kDecimalExponent);
}

TEST(QuantityParse, TruncatesTheExponentTo32BitsAsGoDoes) {
  // Go's suffix parser converts the int64 exponent with int32(parsed).
  EXPECT_EQ(MustParse("1e4294967296").String(), "1");
  EXPECT_EQ(MustParse("1e4294967299").String(), "1e3");
}

TEST(QuantityParse, HugeExponentsStayCheap) {
  const Quantity big = MustParse("1e2000000000");
  EXPECT_EQ(big.String(), "100e1999999998");
  EXPECT_EQ(big.Compare(MustParse("9e1999999999")), 1);
  EXPECT_EQ(big.Value(), kMaxInt64);
  EXPECT_EQ(big.AsApproximateFloat64(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(MustParse("-1e2000000000").Value(), kMinInt64);
}

TEST(QuantityString, GoCanonicalFormsAndTheirAlternateSpellings) {
  struct Case {
    Quantity in;
    std::string_view expect;
    std::string_view alternate;  // another spelling that canonicalizes to `expect`
  };
  // apimachinery TestQuantityString
  const Case cases[] = {
      {Q(1024 * 1024 * 1024, 0, kBinarySI), "1Gi", "1024Mi"},
      {Q(300 * 1024 * 1024, 0, kBinarySI), "300Mi", "307200Ki"},
      {Q(6 * 1024, 0, kBinarySI), "6Ki", ""},
      {Q(1001LL << 30, 0, kBinarySI), "1001Gi", "1025024Mi"},
      {Q(1LL << 40, 0, kBinarySI), "1Ti", "1024Gi"},
      {Q(5, 0, kBinarySI), "5", "5000m"},
      {Q(500, -3, kBinarySI), "500m", "0.5"},
      {Q(1, 9, kDecimalSI), "1G", "1000M"},
      {Q(1000, 6, kDecimalSI), "1G", "0.001T"},
      {Q(1000000, 3, kDecimalSI), "1G", ""},
      {Q(1000000000, 0, kDecimalSI), "1G", ""},
      {Q(1, -3, kDecimalSI), "1m", "1000u"},
      {Q(80, -3, kDecimalSI), "80m", ""},
      {Q(1080, -3, kDecimalSI), "1080m", "1.08"},
      {Q(108, -2, kDecimalSI), "1080m", "1080000000n"},
      {Q(10800, -4, kDecimalSI), "1080m", ""},
      {Q(300, 6, kDecimalSI), "300M", ""},
      {Q(1, 12, kDecimalSI), "1T", ""},
      // DecimalSI has no suffix beyond E (10^18): larger values use an exponent.
      {Q(1, 18, kDecimalSI), "1E", ""},
      {Q(1, 21, kDecimalSI), "1e21", "1000E"},
      {Q(5, 21, kDecimalSI), "5e21", "5000E"},
      {Q(1, 24, kDecimalSI), "1e24", "1000000E"},
      {Q(1234567, 6, kDecimalSI), "1234567M", ""},
      {Q(1234567, -3, kBinarySI), "1234567m", ""},
      {Q(3, 3, kDecimalSI), "3k", ""},
      {Q(1025, 0, kBinarySI), "1025", ""},
      {Q(0, 0, kDecimalSI), "0", ""},
      {Q(0, 0, kBinarySI), "0", ""},
      {Q(1, 9, kDecimalExponent), "1e9", ".001e12"},
      {Q(1, -3, kDecimalExponent), "1e-3", "0.001e0"},
      {Q(1, -9, kDecimalExponent), "1e-9", "1000e-12"},
      {Q(80, -3, kDecimalExponent), "80e-3", ""},
      {Q(300, 6, kDecimalExponent), "300e6", ""},
      {Q(1, 12, kDecimalExponent), "1e12", ""},
      {Q(1, 3, kDecimalExponent), "1e3", ""},
      {Q(3, 3, kDecimalExponent), "3e3", ""},
      {Q(3, 3, kDecimalSI), "3k", ""},
      {Q(0, 0, kDecimalExponent), "0", "00"},
      {Q(1, -9, kDecimalSI), "1n", ""},
      {Q(80, -9, kDecimalSI), "80n", ""},
      {Q(1080, -9, kDecimalSI), "1080n", ""},
      {Q(108, -8, kDecimalSI), "1080n", ""},
      {Q(10800, -10, kDecimalSI), "1080n", ""},
      {Q(1, -6, kDecimalSI), "1u", ""},
      {Q(80, -6, kDecimalSI), "80u", ""},
      {Q(1080, -6, kDecimalSI), "1080u", ""},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(c.in.String(), c.expect);
    EXPECT_EQ(MustParse(c.expect).String(), c.expect) << "canonical form must round-trip";
    if (!c.alternate.empty()) {
      EXPECT_EQ(MustParse(c.alternate).String(), c.expect) << c.alternate;
    }
    if (!c.in.IsZero()) {
      Quantity negated = c.in;
      negated.Neg();
      EXPECT_EQ(negated.String(), "-" + std::string(c.expect));
    }
  }
}

TEST(QuantityString, GoParseEmitTable) {
  struct Case {
    std::string_view in;
    std::string_view expect;
  };
  // apimachinery TestQuantityParseEmit
  const Case cases[] = {
      {"1Ki", "1Ki"},         {"1Mi", "1Mi"},          {"1Gi", "1Gi"},
      {"1024Mi", "1Gi"},      {"1000M", "1G"},         {".001Ki", "1024m"},
      {".000001Ki", "1024u"}, {".000000001Ki", "1024n"}, {".000000000001Ki", "2n"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(MustParse(c.in).String(), c.expect) << c.in;
    EXPECT_EQ(MustParse("-" + std::string(c.in)).String(), "-" + std::string(c.expect)) << c.in;
  }
}

TEST(QuantityString, PicksTheLargestExactSuffixOfTheParsedKind) {
  struct Case {
    std::string_view in;
    std::string_view expect;
  };
  const Case cases[] = {
      {"0", "0"},
      {"0.1", "100m"},
      {"1000m", "1"},
      {"1e3", "1e3"},
      {"1000e0", "1e3"},
      {"100000k", "100M"},
      {"1.2345", "1234500u"},  // Go's doc example: precision is kept, not capped at milli
      {"1536Mi", "1536Mi"},
      {"1.5Gi", "1536Mi"},
      {"-1.5Gi", "-1536Mi"},
      {"1.5Ki", "1536"},  // whole, but not a multiple of 1024
      {"2048Ki", "2Mi"},
      {"1Ei", "1Ei"},
      {"0.5Ki", "512"},
      {"1023.5", "1023500m"},
      {"1.5e30", "1500e27"},
      {"150E", "150E"},
      {"1500E", "1500E"},
      {"10000T", "10P"},
      {"-0", "0"},
      {"-0.0Mi", "0"},
  };
  for (const auto& c : cases) EXPECT_EQ(MustParse(c.in).String(), c.expect) << c.in;
}

TEST(QuantityString, AlwaysCanonicalizesEvenWhereGoEchoesTheInput) {
  // Go's String() returns the parsed text when its int64 path judges it canonical, so Go prints
  // these as typed (apimachinery issue #138165). The value is the same either way.
  EXPECT_EQ(MustParse("+1").String(), "1");
  EXPECT_EQ(MustParse("01").String(), "1");
  EXPECT_EQ(MustParse("1.500").String(), "1500m");
  EXPECT_EQ(MustParse("1.001").String(), "1001m");
  EXPECT_EQ(MustParse("+1Ki").String(), "1Ki");
}

TEST(QuantityString, ValuesBeyondInt64AreExact) {
  // Go's doc: a decimal quantity is not capped at 2^63-1.
  EXPECT_EQ(MustParse("18446744073709551616").String(), "18446744073709551616");
  EXPECT_EQ(MustParse("-18446744073709551616").String(), "-18446744073709551616");
  EXPECT_EQ(MustParse("12345678901234567890123").String(), "12345678901234567890123");
  EXPECT_EQ(MustParse("123456789012345678901234567890k").String(),
            "123456789012345678901234567890k");
  EXPECT_EQ(MustParse("1234567890123456789.123456789").String(), "1234567890123456789123456789n");
  EXPECT_EQ(MustParse("99999999999999999999999999999999999999E").String(),
            "99999999999999999999999999999999999999E");
  // BinarySI is capped at parse time, silently.
  EXPECT_EQ(MustParse("8Ei").String(), "9223372036854775807");
  EXPECT_EQ(MustParse("-8Ei").String(), "-9223372036854775807");
  EXPECT_EQ(MustParse("1024Ei").String(), "9223372036854775807");
}

TEST(QuantityString, BinaryPastEiKeepsTheEiSuffix) {
  // Go drops the suffix past Ei, printing 2^70 as "1"; this keeps the value.
  Quantity q = Quantity::FromInt(int64_t{1} << 62, kBinarySI);
  for (int i = 0; i < 8; ++i) q.Add(q);  // 2^70
  EXPECT_EQ(q.String(), "1024Ei");
  q.Add(Quantity::FromInt(1024, kBinarySI));
  EXPECT_EQ(q.String(), "1152921504606846977Ki");
}

TEST(QuantityFrom, IntMatchesGoNewQuantity) {
  struct Case {
    int64_t value;
    Format format;
    std::string_view expect;
  };
  // apimachinery TestNewSet (its invalid format defaults to DecimalExponent)
  const Case cases[] = {
      {1, kDecimalSI, "1"},
      {1000, kDecimalSI, "1k"},
      {1234000, kDecimalSI, "1234k"},
      {1024, kBinarySI, "1Ki"},
      {1000000, kDecimalExponent, "1e6"},
      {1024 * 1024, kBinarySI, "1Mi"},
      {kMaxInt64, kDecimalSI, "9223372036854775807"},
      {kMinInt64, kDecimalSI, "-9223372036854775808"},
  };
  for (const auto& c : cases) {
    const Quantity q = Quantity::FromInt(c.value, c.format);
    EXPECT_EQ(q.String(), c.expect);
    EXPECT_EQ(q.format(), c.format);
    EXPECT_EQ(MustParse(q.String()).Value(), c.value);
  }
}

TEST(QuantityFrom, BinaryMostNegativeIsSpelledAsOnGosDecimalPath) {
  // Go's int64 path cannot factor |MinInt64| and prints "-9223372036854775808"; its inf.Dec
  // path, and this, print "-8Ei". Parsing "-8Ei" caps at -(2^63-1), as Go's parser does.
  EXPECT_EQ(Quantity::FromInt(kMinInt64, kBinarySI).String(), "-8Ei");
  EXPECT_EQ(MustParse("-8Ei").Value(), -kMaxInt64);
}

TEST(QuantityFrom, MilliMatchesGoNewMilliQuantity) {
  struct Case {
    int64_t value;
    Format format;
    std::string_view expect;
    bool exact;
  };
  // apimachinery TestMilliNewSet
  const Case cases[] = {
      {1, kDecimalSI, "1m", true},
      {1000, kDecimalSI, "1", true},
      {1234000, kDecimalSI, "1234", true},
      {1024, kBinarySI, "1024m", false},  // under 1024: printed as DecimalSI
      {1000000, kDecimalExponent, "1e3", true},
      {1024 * 1024, kBinarySI, "1048576m", false},
  };
  for (const auto& c : cases) {
    const Quantity q = Quantity::FromMilli(c.value, c.format);
    EXPECT_EQ(q.String(), c.expect);
    if (c.exact) {
      EXPECT_EQ(MustParse(q.String()).MilliValue(), c.value);
    }
  }
}

TEST(QuantityFrom, ScaledMatchesGoNewScaledQuantity) {
  struct Case {
    int64_t value;
    int32_t scale;
    std::string_view expect;
  };
  // apimachinery TestNewScaledSet
  const Case cases[] = {
      {1, -9, "1n"}, {1000, -9, "1u"}, {1, -6, "1u"}, {1000, -6, "1m"}, {1, -3, "1m"},
      {1000, -3, "1"}, {1, 0, "1"},    {0, -9, "0"},  {0, -6, "0"},     {0, -3, "0"},
      {0, 0, "0"},
  };
  for (const auto& c : cases) {
    const Quantity q = Quantity::FromScaled(c.value, c.scale, kDecimalSI);
    EXPECT_EQ(q.String(), c.expect);
    EXPECT_EQ(MustParse(q.String()).ScaledValue(c.scale), c.value) << c.expect;
  }
  EXPECT_EQ(Quantity::FromScaled(1, -12, kDecimalSI).String(), "1e-12");  // below n
}

TEST(QuantityValue, ScaledValueMatchesGoTable) {
  struct Case {
    int32_t from;
    int32_t to;
    int64_t expected;
  };
  // apimachinery TestScaledValue: NewScaledQuantity(1, from).ScaledValue(to)
  const Case cases[] = {
      {-9, -9, 1},        {-9, -6, 1},   {-9, -3, 1},    {-9, 0, 1},        {-6, -9, 1000},
      {-6, -6, 1},        {-6, -3, 1},   {-6, 0, 1},     {-3, -9, 1000000}, {-3, -6, 1000},
      {-3, -3, 1},        {-3, 0, 1},    {0, -9, 1000000000}, {0, -6, 1000000}, {0, -3, 1000},
      {0, 0, 1},          {2, -2, 10000},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(Q(1, c.from).ScaledValue(c.to), c.expected) << c.from << " -> " << c.to;
  }
}

TEST(QuantityValue, RoundsAwayFromZero) {
  EXPECT_EQ(MustParse("1.1").Value(), 2);
  EXPECT_EQ(MustParse("-1.1").Value(), -2);
  EXPECT_EQ(MustParse("100m").Value(), 1);
  EXPECT_EQ(MustParse("-100m").Value(), -1);
  EXPECT_EQ(MustParse("1500m").Value(), 2);
  EXPECT_EQ(MustParse("2").Value(), 2);
  EXPECT_EQ(MustParse("1.5").MilliValue(), 1500);
  EXPECT_EQ(MustParse("1n").MilliValue(), 1);
  EXPECT_EQ(MustParse("-1n").MilliValue(), -1);
  EXPECT_EQ(MustParse("1.0001").MilliValue(), 1001);
  EXPECT_EQ(MustParse("1Mi").Value(), 1048576);  // apimachinery TestQuantityValueSet
  EXPECT_EQ(MustParse("1.1Ki").Value(), 1127);
  // Go's inf.Dec path gives -1125 here (truncates, then adds 1); its int64 path and its doc
  // round away from zero, as this does on every path.
  EXPECT_EQ(MustParse("-1.1Ki").Value(), -1127);
  EXPECT_EQ(MustParse("0").Value(), 0);
  EXPECT_EQ(MustParse("1e-2000000000").Value(), 1);
}

TEST(QuantityValue, SaturatesAtTheInt64Bounds) {
  EXPECT_EQ(MustParse("9223372036854775807").Value(), kMaxInt64);
  EXPECT_EQ(MustParse("9223372036854775808").Value(), kMaxInt64);
  EXPECT_EQ(MustParse("-9223372036854775808").Value(), kMinInt64);
  EXPECT_EQ(MustParse("-9223372036854775809").Value(), kMinInt64);
  EXPECT_EQ(MustParse("1e30").Value(), kMaxInt64);
  EXPECT_EQ(MustParse("9223372036854775807").MilliValue(), kMaxInt64);
  EXPECT_EQ(MustParse("9223372036854775.807").MilliValue(), kMaxInt64);
  EXPECT_EQ(MustParse("9223372036854775.808").MilliValue(), kMaxInt64);
  EXPECT_EQ(MustParse("-9223372036854775.808").MilliValue(), kMinInt64);
  EXPECT_EQ(MustParse("9223372036854775806.5").Value(), kMaxInt64);
}

TEST(QuantityCompare, GoCmpTables) {
  struct StringCase {
    std::string_view x;
    std::string_view y;
    int expect;
  };
  // apimachinery TestQuantityCmp
  const StringCase strings[] = {
      {"0", "0", 0}, {"100m", "50m", 1}, {"50m", "100m", -1}, {"10000T", "100Gi", 1},
  };
  for (const auto& c : strings) {
    EXPECT_EQ(MustParse(c.x).Compare(MustParse(c.y)), c.expect) << c.x << " " << c.y;
  }

  struct Case {
    Quantity a;
    Quantity b;
    int cmp;
  };
  constexpr int64_t kE18 = 1000000000000000000;
  // apimachinery TestQuantityCmpInt64AndDec
  const Case cases[] = {
      {Q(901, -2), Q(901, -2), 0},
      {Q(90, -1), Q(901, -2), -1},
      {Q(901, -2), Q(900, -2), 1},
      {Q(0, 0), Q(0, 0), 0},
      {Q(0, 1), Q(0, -1), 0},
      {Q(0, -1), Q(0, 1), 0},
      {Q(800, -3), Q(1, 0), -1},
      {Q(800, -3), Q(79, -2), 1},
      {Q(kMaxInt64, 0), Q(1, -1), 1},
      {Q(kMaxInt64, 1), Q(1, 0), 1},
      {Q(kMaxInt64, 1), Q(1, 1), 1},
      {Q(kMaxInt64, 1), Q(0, 1), 1},
      {Q(kMaxInt64, -16), Q(1, 3), -1},
      {Q(kMinInt64, 0), Q(0, 0), -1},
      {Q(kMinInt64, -18), Q(-1, 0), -1},
      {Q(kMinInt64, -19), Q(-1, 0), 1},
      {Q(kE18, -17), Q(1, 1), 0},
      {Q(kE18, -17), Q(-10, 0), 1},
      {Q(-kE18, -17), Q(-10, 0), 0},
      {Q(kE18, -17), Q(1, 0), 1},
      {Q(kE18 + 1, -17), Q(1, 1), 1},
      {Q(kE18 - 1, -17), Q(1, 1), -1},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(c.a.Compare(c.b), c.cmp) << c.a.String() << " vs " << c.b.String();
    EXPECT_EQ(c.b.Compare(c.a), -c.cmp) << c.b.String() << " vs " << c.a.String();
  }
}

TEST(QuantityCompare, EqualityAndOrderingIgnoreFormat) {
  const Quantity one = MustParse("1");
  EXPECT_EQ(one, MustParse("1000m"));
  EXPECT_EQ(one, MustParse("1e0"));
  EXPECT_EQ(MustParse("1Ki"), MustParse("1024"));
  EXPECT_EQ(MustParse("0Ki"), Quantity());
  EXPECT_NE(one, MustParse("1001m"));
  EXPECT_LT(MustParse("999m"), one);
  EXPECT_GT(MustParse("1Gi"), MustParse("1G"));
  EXPECT_LT(MustParse("-1Gi"), MustParse("-1G"));
  EXPECT_EQ(MustParse("1k") <=> MustParse("1e3"), std::strong_ordering::equal);
  EXPECT_EQ(MustParse("1n") <=> Quantity(), std::strong_ordering::greater);
  EXPECT_EQ(MustParse("-1n") <=> Quantity(), std::strong_ordering::less);
  EXPECT_EQ(MustParse("18446744073709551616").Compare(MustParse("18446744073709551615")), 1);
}

TEST(QuantitySign, SignAndIsZero) {
  EXPECT_TRUE(Quantity().IsZero());
  EXPECT_EQ(Quantity().Sign(), 0);
  EXPECT_EQ(Quantity().format(), kDecimalSI);
  EXPECT_EQ(Quantity().String(), "0");
  EXPECT_TRUE(MustParse("-0").IsZero());
  EXPECT_EQ(MustParse("-0").Sign(), 0);
  EXPECT_EQ(MustParse("1n").Sign(), 1);
  EXPECT_EQ(MustParse("-1n").Sign(), -1);
  EXPECT_EQ(MustParse("-18446744073709551616").Sign(), -1);
  EXPECT_FALSE(MustParse("0.1n").IsZero());
}

TEST(QuantityArithmetic, AddMatchesGoTable) {
  struct Case {
    Quantity a;
    Quantity b;
    Quantity expected;
    Format format;
  };
  // apimachinery TestAdd
  const Case cases[] = {
      {Q(10, 0), Q(1, 1), Q(20, 0), kDecimalSI},
      {Q(10, 0), Q(1, 0, kBinarySI), Q(11, 0), kDecimalSI},
      {Q(10, 0, kBinarySI), Q(1, 0), Q(11, 0), kBinarySI},
      {Quantity(), Q(50, 0), Q(50, 0), kDecimalSI},
      {Q(50, 0), Quantity(), Q(50, 0), kDecimalSI},
      {Quantity(), Quantity(), Q(0, 0), kDecimalSI},
  };
  for (const auto& c : cases) {
    Quantity sum = c.a;
    sum.Add(c.b);
    EXPECT_EQ(sum, c.expected) << c.a.String() << " + " << c.b.String() << " = " << sum.String();
    EXPECT_EQ(sum.format(), c.format);
  }
}

TEST(QuantityArithmetic, SubMatchesGoTable) {
  struct Case {
    Quantity a;
    Quantity b;
    Quantity expected;
    Format format;
  };
  // apimachinery TestSub
  const Case cases[] = {
      {Q(10, 0), Q(1, 1), Q(0, 0), kDecimalSI},
      {Q(10, 0), Q(1, 0, kBinarySI), Q(9, 0), kDecimalSI},
      {Q(10, 0, kBinarySI), Q(1, 0), Q(9, 0), kBinarySI},
      {Quantity(), Q(50, 0), Q(-50, 0), kDecimalSI},
      {Q(50, 0), Quantity(), Q(50, 0), kDecimalSI},
      {Quantity(), Quantity(), Q(0, 0), kDecimalSI},
  };
  for (const auto& c : cases) {
    Quantity diff = c.a;
    diff.Sub(c.b);
    EXPECT_EQ(diff, c.expected) << c.a.String() << " - " << c.b.String() << " = " << diff.String();
    EXPECT_EQ(diff.format(), c.format);
  }
}

TEST(QuantityArithmetic, ZeroReceiverTakesTheOtherFormatSoSuffixesSurvive) {
  // apimachinery TestQuantityAddZeroPreservesSuffix / TestQuantitySubZeroPreservesSuffix
  for (const std::string_view in : {"100m", "1Gi"}) {
    const Quantity value = MustParse(in);
    Quantity v1 = value;
    v1.Add(Quantity());
    EXPECT_EQ(v1.String(), in);
    Quantity v2;
    v2.Add(value);
    EXPECT_EQ(v2.String(), in);
    Quantity v3 = value;
    v3.Sub(Quantity());
    EXPECT_EQ(v3.String(), in);
    Quantity v4;
    v4.Sub(value);
    EXPECT_EQ(v4.String(), "-" + std::string(in));
  }
  Quantity zero_binary = MustParse("0Ki");
  zero_binary.Add(MustParse("1k"));
  EXPECT_EQ(zero_binary.format(), kDecimalSI);
  Quantity binary = MustParse("1Ki");
  binary.Add(MustParse("1k"));
  EXPECT_EQ(binary.format(), kBinarySI);
  EXPECT_EQ(binary.String(), "2024");
}

TEST(QuantityArithmetic, MostNegativeInt64NegatesAndSubtractsExactly) {
  // apimachinery TestNegAndSubAtMostNegative and its neighbours.
  Quantity neg = Q(kMinInt64, 0);
  neg.Neg();
  EXPECT_EQ(neg.String(), "9223372036854775808");
  EXPECT_EQ(neg.Sign(), 1);

  Quantity sub;
  sub.Sub(Q(kMinInt64, 0));
  EXPECT_EQ(sub.String(), "9223372036854775808");

  Quantity one = Q(1, 0);
  one.Sub(Q(kMinInt64, 0));
  EXPECT_EQ(one.String(), "9223372036854775809");

  Quantity neighbor = Q(kMinInt64 + 1, 0);
  neighbor.Neg();
  EXPECT_EQ(neighbor.Value(), kMaxInt64);

  Quantity scaled = Q(kMinInt64, -3);
  scaled.Neg();
  EXPECT_EQ(scaled.String(), "9223372036854775808m");

  Quantity scaled_sub = Q(1, -3);
  scaled_sub.Sub(Q(kMinInt64, -3));
  EXPECT_EQ(scaled_sub.String(), "9223372036854775809m");

  Quantity zero_scaled_sub;
  zero_scaled_sub.Sub(Q(kMinInt64, -3));
  EXPECT_EQ(zero_scaled_sub.String(), "9223372036854775808m");

  Quantity cross = Q(1, 1);  // 10
  cross.Sub(Q(kMinInt64, 0));
  EXPECT_EQ(cross.String(), "9223372036854775818");

  Quantity inherits;  // TestZeroSubMostNegativeInheritsFormat
  inherits.Sub(Q(kMinInt64, 0, kBinarySI));
  EXPECT_EQ(inherits.format(), kBinarySI);
  EXPECT_EQ(inherits.String(), "8Ei");
  EXPECT_EQ(inherits, MustParse("9223372036854775808"));
}

TEST(QuantityArithmetic, NegMatchesGoTable) {
  // apimachinery TestQuantityNeg / TestNeg
  Quantity q = Q(901, -2);
  q.Neg();
  EXPECT_EQ(q.String(), "-9010m");
  EXPECT_NE(q, Q(901, -2));
  Quantity zero;
  zero.Neg();
  EXPECT_EQ(zero.String(), "0");
  Quantity binary = Q(10, 0, kBinarySI);
  binary.Neg();
  EXPECT_EQ(binary, Q(-10, 0));
  EXPECT_EQ(binary.format(), kBinarySI);
  binary.Neg();
  EXPECT_EQ(binary, Q(10, 0));
}

TEST(QuantityArithmetic, AddThenSubCancelsAtEveryScale) {
  // apimachinery TestAddSubRoundTrip / TestAddSubRoundTripAcrossScales, with a fixed seed.
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int64_t> dist(0, kMaxInt64);
  for (int32_t k = -10; k <= 10; ++k) {
    Quantity q;
    std::vector<int64_t> order;
    for (int i = 0; i < 100; ++i) {
      order.push_back(dist(rng));
      q.Add(Q(order.back(), k));
    }
    EXPECT_FALSE(q.IsZero());
    for (const int64_t j : order) q.Sub(Q(j, k));
    EXPECT_TRUE(q.IsZero()) << "scale " << k << ": " << q.String();
  }
  Quantity q;
  std::vector<int64_t> order;
  for (int i = 0; i < 100; ++i) {
    order.push_back(dist(rng));
    q.Add(Q(order.back(), static_cast<int32_t>(order.back() % 20 - 10)));
  }
  for (const int64_t j : order) q.Sub(Q(j, static_cast<int32_t>(j % 20 - 10)));
  EXPECT_TRUE(q.IsZero()) << q.String();
}

TEST(QuantityArithmetic, MixedSuffixesAddExactly) {
  Quantity q = MustParse("1.5Gi");
  q.Add(MustParse("512Mi"));
  EXPECT_EQ(q.String(), "2Gi");
  Quantity cpu = MustParse("100m");
  cpu.Add(MustParse("900m"));
  EXPECT_EQ(cpu.String(), "1");
  cpu.Sub(MustParse("1000m"));
  EXPECT_TRUE(cpu.IsZero());
  EXPECT_EQ(cpu.String(), "0");
  Quantity big = MustParse("18446744073709551616");
  big.Add(MustParse("-1n"));
  EXPECT_EQ(big.String(), "18446744073709551615999999999n");
  Quantity self = MustParse("1.5Ki");
  self.Sub(self);
  EXPECT_TRUE(self.IsZero());
  Quantity doubled = MustParse("-3m");
  doubled.Add(doubled);
  EXPECT_EQ(doubled.String(), "-6m");
}

TEST(QuantityFloat, MatchesGoAsApproximateFloat64Table) {
  struct Case {
    Quantity in;
    double out;
  };
  constexpr double k7Mi = 7 * 1024 * 1024;
  // apimachinery TestQuantityAsApproximateFloat64; Go multiplies by math.Pow10, which rounds
  // differently from dividing ("7Mi * Pow10(-1)" is not "7Mi / 10").
  std::vector<Case> cases;
  for (const Format f : {kDecimalSI, kBinarySI, kDecimalExponent}) {
    cases.push_back({Q(0, 0, f), 0.0});
    cases.push_back({Q(1, 0, f), 1});
    cases.push_back({Q(1024, 0, f), 1024});
    cases.push_back({Q(8 * 1024, 0, f), 8 * 1024});
    cases.push_back({Q(7 * 1024 * 1024, 0, f), k7Mi});
    cases.push_back({Q(7 * 1024 * 1024, 1, f), k7Mi * 10});
    cases.push_back({Q(7 * 1024 * 1024, 4, f), k7Mi * 10000});
    cases.push_back({Q(7 * 1024 * 1024, 8, f), k7Mi * 100000000});
    cases.push_back({Q(7 * 1024 * 1024, -1, f), k7Mi * (1.0 / 10.0)});
    cases.push_back({Q(7 * 1024 * 1024, -8, f), k7Mi / 100000000.0});
  }
  cases.push_back({Q(kMaxInt64, 0, kDecimalSI), static_cast<double>(kMaxInt64)});
  cases.push_back({Q(kMaxInt64, 0, kBinarySI), static_cast<double>(kMaxInt64)});
  cases.push_back({Q(12, 18, kDecimalSI), 1.2e19});
  cases.push_back({Q(12, 500, kDecimalSI), std::numeric_limits<double>::infinity()});
  cases.push_back({Q(-12, 500, kDecimalSI), -std::numeric_limits<double>::infinity()});
  for (const auto& c : cases) EXPECT_EQ(c.in.AsApproximateFloat64(), c.out) << c.in.String();
  EXPECT_NE(Q(7 * 1024 * 1024, -1).AsApproximateFloat64(), k7Mi / 10);
}

TEST(QuantityFloat, ZeroIsZeroWhateverItsWrittenExponent) {
  // Go computes 0 * Pow10(400) = NaN here; a zero is simply 0.
  EXPECT_EQ(MustParse("0e400").AsApproximateFloat64(), 0.0);
  EXPECT_EQ(Quantity().AsApproximateFloat64(), 0.0);
}

TEST(QuantityFloat, MatchesGoForParsedStrings) {
  // apimachinery TestStringQuantityAsApproximateFloat64
  EXPECT_EQ(MustParse("2Ki").AsApproximateFloat64(), 2048);
  EXPECT_EQ(MustParse("1.1Ki").AsApproximateFloat64(), 1126.4e+0);
  EXPECT_EQ(MustParse("1Mi").AsApproximateFloat64(), 1.048576e+06);
  EXPECT_EQ(MustParse("2Gi").AsApproximateFloat64(), 2.147483648e+09);
  EXPECT_EQ(MustParse("-100m").AsApproximateFloat64(), -0.1);
  EXPECT_EQ(MustParse("1e400").AsApproximateFloat64(), std::numeric_limits<double>::infinity());
  // 19+ digits take Go's inf.Dec path, which holds them at 9 fractional digits; the product
  // rounds differently from the unpadded one, and Go's is what is returned.
  EXPECT_EQ(MustParse("779585208349174048096115E40").AsApproximateFloat64(),
            std::bit_cast<double>(uint64_t{0x4d32f35ee3b39f72}));
  EXPECT_EQ(MustParse("1234567890123456789e290").AsApproximateFloat64(),
            std::numeric_limits<double>::infinity());  // Go's padded unscaled value overflows
  const std::string huge(400, '9');
  EXPECT_EQ(MustParse(huge).AsApproximateFloat64(), std::numeric_limits<double>::infinity());
}

TEST(QuantityCopy, IsAnIndependentValue) {
  const Quantity original = MustParse("5");
  Quantity copy = original;
  copy.Add(MustParse("1"));
  EXPECT_EQ(original.Value(), 5);
  EXPECT_EQ(copy.Value(), 6);
}

}  // namespace
}  // namespace kube::api
