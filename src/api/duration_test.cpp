#include <kube/api/duration.hpp>

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include <kube/base/error.hpp>

namespace kube::api {
namespace {

using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;

constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kMinInt64 = std::numeric_limits<int64_t>::min();

TEST(DurationParse, GoParseDurationTable) {
  struct Case {
    std::string_view in;
    nanoseconds want;
  };
  // Go's time_test.go parseDurationTests
  const Case cases[] = {
      // simple
      {"0", nanoseconds(0)},
      {"5s", seconds(5)},
      {"30s", seconds(30)},
      {"1478s", seconds(1478)},
      // sign
      {"-5s", seconds(-5)},
      {"+5s", seconds(5)},
      {"-0", nanoseconds(0)},
      {"+0", nanoseconds(0)},
      // decimal
      {"5.0s", seconds(5)},
      {"5.6s", seconds(5) + milliseconds(600)},
      {"5.s", seconds(5)},
      {".5s", milliseconds(500)},
      {"1.0s", seconds(1)},
      {"1.00s", seconds(1)},
      {"1.004s", seconds(1) + milliseconds(4)},
      {"1.0040s", seconds(1) + milliseconds(4)},
      {"100.00100s", seconds(100) + milliseconds(1)},
      // different units
      {"10ns", nanoseconds(10)},
      {"11us", microseconds(11)},
      {"12\u00b5s", microseconds(12)},  // micro sign
      {"12\u03bcs", microseconds(12)},  // Greek mu
      {"13ms", milliseconds(13)},
      {"14s", seconds(14)},
      {"15m", minutes(15)},
      {"16h", hours(16)},
      // composite durations
      {"3h30m", hours(3) + minutes(30)},
      {"10.5s4m", minutes(4) + seconds(10) + milliseconds(500)},
      {"-2m3.4s", -(minutes(2) + seconds(3) + milliseconds(400))},
      {"1h2m3s4ms5us6ns",
       hours(1) + minutes(2) + seconds(3) + milliseconds(4) + microseconds(5) + nanoseconds(6)},
      {"39h9m14.425s", hours(39) + minutes(9) + seconds(14) + milliseconds(425)},
      // large value
      {"52763797000ns", nanoseconds(52763797000)},
      // more than 9 digits after the decimal point (golang.org/issue/6617)
      {"0.3333333333333333333h", minutes(20)},
      // 1<<53+1 cannot be stored precisely in a float64
      {"9007199254740993ns", nanoseconds((int64_t{1} << 53) + 1)},
      // the extremes of int64 nanoseconds
      {"9223372036854775807ns", nanoseconds(kMaxInt64)},
      {"9223372036854775.807us", nanoseconds(kMaxInt64)},
      {"9223372036s854ms775us807ns", nanoseconds(kMaxInt64)},
      {"-9223372036854775808ns", nanoseconds(kMinInt64)},
      {"-9223372036854775.808us", nanoseconds(kMinInt64)},
      {"-9223372036s854ms775us808ns", nanoseconds(kMinInt64)},
      // largest negative round trip value (golang.org/issue/48629)
      {"-2562047h47m16.854775808s", nanoseconds(kMinInt64)},
      // huge string (issue 15011)
      {"0.100000000000000000000h", minutes(6)},
      // the first overflow check in leadingFraction
      {"0.830103483285477580700h", minutes(49) + seconds(48) + nanoseconds(372539827)},
  };
  for (const auto& c : cases) {
    auto r = Duration::Parse(c.in);
    ASSERT_TRUE(r.ok()) << c.in << ": " << r.error().message;
    EXPECT_EQ(r->value(), c.want) << c.in;
  }
}

TEST(DurationParse, GoErrorTableWithFullMessages) {
  struct Case {
    std::string_view in;
    std::string_view message;
  };
  // Go's parseDurationErrorTests, with the whole message rather than the quoted part.
  const Case cases[] = {
      {"", R"(time: invalid duration "")"},
      {"3", R"(time: missing unit in duration "3")"},
      {"-", R"(time: invalid duration "-")"},
      {"s", R"(time: invalid duration "s")"},
      {".", R"(time: invalid duration ".")"},
      {"-.", R"(time: invalid duration "-.")"},
      {".s", R"(time: invalid duration ".s")"},
      {"+.s", R"(time: invalid duration "+.s")"},
      {"1d", R"(time: unknown unit "d" in duration "1d")"},
      {"\x85\x85", R"(time: invalid duration "\x85\x85")"},
      {"\xff" "ff", R"(time: invalid duration "\xffff")"},
      {"hello \xff" "ff world", R"(time: invalid duration "hello \xffff world")"},
      {"\uFFFD", R"(time: invalid duration "\xef\xbf\xbd")"},
      {"\uFFFD hello \uFFFD world",
       R"(time: invalid duration "\xef\xbf\xbd hello \xef\xbf\xbd world")"},
      // overflow
      {"9223372036854775810ns", R"(time: invalid duration "9223372036854775810ns")"},
      {"9223372036854775808ns", R"(time: invalid duration "9223372036854775808ns")"},
      {"-9223372036854775809ns", R"(time: invalid duration "-9223372036854775809ns")"},
      {"9223372036854776us", R"(time: invalid duration "9223372036854776us")"},
      {"3000000h", R"(time: invalid duration "3000000h")"},
      {"9223372036854775.808us", R"(time: invalid duration "9223372036854775.808us")"},
      {"9223372036854ms775us808ns", R"(time: invalid duration "9223372036854ms775us808ns")"},
      // more of the same rules
      {"1.5", R"(time: missing unit in duration "1.5")"},
      {"1h-2m", R"(time: unknown unit "h-" in duration "1h-2m")"},  // a unit runs to a digit or '.'
      {"1h.s", R"(time: invalid duration "1h.s")"},
      {"5s 3m", R"(time: unknown unit "s " in duration "5s 3m")"},
      {"1\u00b5", R"(time: unknown unit "\xc2\xb5" in duration "1\xc2\xb5")"},
      {"1S", R"(time: unknown unit "S" in duration "1S")"},
      {"\"1s\"", R"(time: invalid duration "\"1s\"")"},
      {"1\\s", R"(time: unknown unit "\\s" in duration "1\\s")"},
      {"\t1s", R"(time: invalid duration "\x091s")"},
  };
  for (const auto& c : cases) {
    auto r = Duration::Parse(c.in);
    ASSERT_FALSE(r.ok()) << c.in << " parsed as " << r->String();
    EXPECT_EQ(r.error().message, c.message);
    EXPECT_EQ(r.error().code, 400);
    EXPECT_TRUE(IsBadRequest(r.error()));
  }
}

TEST(DurationParse, MirrorsGoUint64WrapOfHugeSums) {
  // Go's accumulator is a uint64 checked against 2^63 after each term, so two terms of exactly
  // 2^63 wrap to 0 instead of failing; kept for fidelity with Go controllers.
  auto r = Duration::Parse("9223372036854775808ns9223372036854775808ns");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->value(), nanoseconds(0));
}

TEST(DurationString, GoDurationTable) {
  struct Case {
    std::string_view str;
    nanoseconds d;
  };
  // Go's time_test.go durationTests
  const Case cases[] = {
      {"0s", nanoseconds(0)},
      {"1ns", nanoseconds(1)},
      {"1.1\u00b5s", nanoseconds(1100)},
      {"2.2ms", microseconds(2200)},
      {"3.3s", milliseconds(3300)},
      {"4m5s", minutes(4) + seconds(5)},
      {"4m5.001s", minutes(4) + milliseconds(5001)},
      {"5h6m7.001s", hours(5) + minutes(6) + milliseconds(7001)},
      {"8m0.000000001s", minutes(8) + nanoseconds(1)},
      {"2562047h47m16.854775807s", nanoseconds(kMaxInt64)},
      {"-2562047h47m16.854775808s", nanoseconds(kMinInt64)},
  };
  for (const auto& c : cases) EXPECT_EQ(Duration(c.d).String(), c.str);
}

TEST(DurationString, KeepsInnerZeroUnitsAndPicksASubSecondUnit) {
  EXPECT_EQ(Duration(hours(1)).String(), "1h0m0s");
  EXPECT_EQ(Duration(hours(1) + seconds(1)).String(), "1h0m1s");
  EXPECT_EQ(Duration(milliseconds(1500)).String(), "1.5s");
  EXPECT_EQ(Duration(milliseconds(500)).String(), "500ms");
  EXPECT_EQ(Duration(seconds(-90)).String(), "-1m30s");
  EXPECT_EQ(Duration(nanoseconds(1001)).String(), "1.001\u00b5s");
  EXPECT_EQ(Duration(nanoseconds(-1)).String(), "-1ns");
  EXPECT_EQ(Duration(nanoseconds(999999999)).String(), "999.999999ms");
  EXPECT_EQ(Duration(seconds(1)).String(), "1s");
  EXPECT_EQ(Duration(hours(100000)).String(), "100000h0m0s");
  EXPECT_EQ(Duration().String(), "0s");
}

TEST(DurationString, RoundTripsThroughParse) {
  // Go's TestParseDurationRoundTrip
  for (const int64_t ns : {kMaxInt64, kMinInt64, int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{1001},
                           int64_t{3600000000001}, int64_t{-86400000000000}}) {
    const Duration d{nanoseconds(ns)};
    auto r = Duration::Parse(d.String());
    ASSERT_TRUE(r.ok()) << d.String();
    EXPECT_EQ(*r, d) << d.String();
  }
}

TEST(DurationCompare, EqualityAndOrderingFollowTheSpan) {
  EXPECT_EQ(Duration(), Duration(nanoseconds(0)));
  EXPECT_EQ(Duration(minutes(1)), Duration(seconds(60)));
  EXPECT_NE(Duration(minutes(1)), Duration(seconds(61)));
  EXPECT_LT(Duration(seconds(-1)), Duration());
  EXPECT_GT(Duration(hours(1)), Duration(minutes(59)));
  EXPECT_EQ(Duration(seconds(1)) <=> Duration(milliseconds(1000)), std::strong_ordering::equal);
  EXPECT_EQ(Duration(milliseconds(1500)).value(), milliseconds(1500));
}

}  // namespace
}  // namespace kube::api
