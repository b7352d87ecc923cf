#include <kube/core/time.hpp>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <string>

#include <gtest/gtest.h>

namespace kube {
namespace {

using std::chrono::days;
using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;
using std::chrono::sys_days;
using std::chrono::year;

// Builds a WallTime from a civil UTC date and an offset within the day.
Clock::WallTime At(int y, unsigned m, unsigned d, Clock::WallTime::duration tod = {}) {
  return Clock::WallTime(sys_days{year{y} / static_cast<int>(m) / static_cast<int>(d)}) + tod;
}

Clock::WallTime MustParse(std::string_view s) {
  auto r = ParseTime(s);
  EXPECT_TRUE(r.ok()) << s << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : Clock::WallTime{};
}

TEST(FormatTime, EpochAndTypicalInstants) {
  EXPECT_EQ(FormatTime(Clock::WallTime{}), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatTime(At(2026, 1, 1)), "2026-01-01T00:00:00Z");
  EXPECT_EQ(FormatTime(At(2024, 2, 29, hours(23) + minutes(59) + seconds(59))),
            "2024-02-29T23:59:59Z");
}

TEST(FormatTime, TruncatesSubSeconds) {
  EXPECT_EQ(FormatTime(At(2026, 1, 1, milliseconds(999))), "2026-01-01T00:00:00Z");
}

TEST(FormatTime, FloorsBeforeTheEpoch) {
  // Half a second before the epoch is still in second 23:59:59 of 1969-12-31.
  EXPECT_EQ(FormatTime(Clock::WallTime{} - milliseconds(500)), "1969-12-31T23:59:59Z");
  EXPECT_EQ(FormatTime(Clock::WallTime{} - seconds(1)), "1969-12-31T23:59:59Z");
  EXPECT_EQ(FormatTime(At(1900, 3, 1)), "1900-03-01T00:00:00Z");
  EXPECT_EQ(FormatTime(At(1900, 2, 28) + days(1)), "1900-03-01T00:00:00Z");  // 1900 not leap
}

TEST(FormatMicroTime, AlwaysSixDigits) {
  EXPECT_EQ(FormatMicroTime(At(2026, 1, 1, microseconds(123456))), "2026-01-01T00:00:00.123456Z");
  EXPECT_EQ(FormatMicroTime(At(2026, 1, 1)), "2026-01-01T00:00:00.000000Z");
  EXPECT_EQ(FormatMicroTime(At(2026, 1, 1, nanoseconds(1999))), "2026-01-01T00:00:00.000001Z");
  EXPECT_EQ(FormatMicroTime(Clock::WallTime{} - microseconds(1)), "1969-12-31T23:59:59.999999Z");
}

TEST(FormatRfc1123, HttpDateHeaderForm) {
  EXPECT_EQ(FormatRfc1123(At(2006, 1, 2, hours(15) + minutes(4) + seconds(5))),
            "Mon, 02 Jan 2006 15:04:05 GMT");
  EXPECT_EQ(FormatRfc1123(Clock::WallTime{}), "Thu, 01 Jan 1970 00:00:00 GMT");
  EXPECT_EQ(FormatRfc1123(At(1969, 12, 31)), "Wed, 31 Dec 1969 00:00:00 GMT");
  EXPECT_EQ(FormatRfc1123(At(2000, 2, 29)), "Tue, 29 Feb 2000 00:00:00 GMT");
}

TEST(ParseTime, UtcWholeSeconds) {
  EXPECT_EQ(MustParse("2026-01-01T00:00:00Z"), At(2026, 1, 1));
  EXPECT_EQ(MustParse("1970-01-01T00:00:00Z"), Clock::WallTime{});
}

TEST(ParseTime, FractionalSecondsOfAnyLengthUpToNine) {
  EXPECT_EQ(MustParse("2026-01-01T00:00:00.5Z"), At(2026, 1, 1, milliseconds(500)));
  EXPECT_EQ(MustParse("2026-01-01T00:00:00.123456Z"), At(2026, 1, 1, microseconds(123456)));
  EXPECT_EQ(MustParse("2026-01-01T00:00:00.123456789Z"), At(2026, 1, 1, nanoseconds(123456789)));
}

TEST(ParseTime, Offsets) {
  EXPECT_EQ(MustParse("2026-01-01T02:30:00+02:30"), At(2026, 1, 1));
  EXPECT_EQ(MustParse("2025-12-31T19:00:00-05:00"), At(2026, 1, 1));
  EXPECT_EQ(MustParse("2026-01-01T00:00:00-00:00"), At(2026, 1, 1));
  EXPECT_EQ(MustParse("2026-01-01T00:00:00.25+01:00"), At(2025, 12, 31, hours(23) + milliseconds(250)));
}

TEST(ParseTime, BeforeTheEpochAndLeapDays) {
  EXPECT_EQ(MustParse("1969-12-31T23:59:59Z"), Clock::WallTime{} - seconds(1));
  EXPECT_EQ(MustParse("1969-12-31T23:59:59.5Z"), Clock::WallTime{} - milliseconds(500));
  EXPECT_EQ(MustParse("1900-01-01T00:00:00Z"), At(1900, 1, 1));
  EXPECT_EQ(MustParse("2000-02-29T00:00:00Z"), At(2000, 2, 29));
  EXPECT_EQ(MustParse("2024-02-29T12:00:00Z"), At(2024, 2, 29, hours(12)));
}

TEST(ParseTime, RoundTripsFormatters) {
  for (auto t : {At(2026, 7, 4, hours(13) + minutes(5) + seconds(6)), At(1950, 6, 15),
                 Clock::WallTime{} - hours(1), At(2099, 12, 31, hours(23) + minutes(59))}) {
    EXPECT_EQ(MustParse(FormatTime(t)), TruncateToSecond(t));
  }
  const auto t = At(2026, 3, 1, microseconds(654321) + nanoseconds(999));
  EXPECT_EQ(MustParse(FormatMicroTime(t)), TruncateToMicrosecond(t));
  EXPECT_EQ(TruncateToMicrosecond(t), At(2026, 3, 1, microseconds(654321)));
}

TEST(ParseTime, RejectsMalformedInputNamingOffsetAndExpectation) {
  struct Case {
    std::string_view input;
    std::string_view message;
  };
  const Case cases[] = {
      {"", R"(parsing time "": at offset 0: expected a 4-digit year)"},
      {"26-01-01T00:00:00Z", R"(parsing time "26-01-01T00:00:00Z": at offset 2: expected a 4-digit year)"},
      {"2026/01/01T00:00:00Z", R"(parsing time "2026/01/01T00:00:00Z": at offset 4: expected '-')"},
      {"2026-01-01 00:00:00Z", R"(parsing time "2026-01-01 00:00:00Z": at offset 10: expected 'T')"},
      {"2026-01-01t00:00:00Z", R"(parsing time "2026-01-01t00:00:00Z": at offset 10: expected 'T')"},
      {"2026-01-01T0:00:00Z", R"(parsing time "2026-01-01T0:00:00Z": at offset 12: expected a 2-digit hour)"},
      {"2026-01-01T00:00:00", R"(parsing time "2026-01-01T00:00:00": at offset 19: expected 'Z' or a '+hh:mm'/'-hh:mm' offset)"},
      {"2026-01-01T00:00:00z", R"(parsing time "2026-01-01T00:00:00z": at offset 19: expected 'Z' or a '+hh:mm'/'-hh:mm' offset)"},
      {"2026-01-01T00:00:00.Z", R"(parsing time "2026-01-01T00:00:00.Z": at offset 20: expected a fractional-second digit)"},
      {"2026-01-01T00:00:00.1234567890Z", R"(parsing time "2026-01-01T00:00:00.1234567890Z": at offset 29: expected at most 9 fractional-second digits)"},
      {"2026-01-01T00:00:00+0100", R"(parsing time "2026-01-01T00:00:00+0100": at offset 22: expected ':')"},
      {"2026-01-01T00:00:00Z ", R"(parsing time "2026-01-01T00:00:00Z ": at offset 20: expected end of input)"},
      {"2026-13-01T00:00:00Z", R"(parsing time "2026-13-01T00:00:00Z": at offset 5: month out of range)"},
      {"2026-00-01T00:00:00Z", R"(parsing time "2026-00-01T00:00:00Z": at offset 5: month out of range)"},
      {"2025-02-29T00:00:00Z", R"(parsing time "2025-02-29T00:00:00Z": at offset 8: day out of range)"},
      {"1900-02-29T00:00:00Z", R"(parsing time "1900-02-29T00:00:00Z": at offset 8: day out of range)"},
      {"2026-04-31T00:00:00Z", R"(parsing time "2026-04-31T00:00:00Z": at offset 8: day out of range)"},
      {"2026-01-00T00:00:00Z", R"(parsing time "2026-01-00T00:00:00Z": at offset 8: day out of range)"},
      {"2026-01-01T24:00:00Z", R"(parsing time "2026-01-01T24:00:00Z": at offset 11: hour out of range)"},
      {"2026-01-01T00:60:00Z", R"(parsing time "2026-01-01T00:60:00Z": at offset 14: minute out of range)"},
      {"2026-01-01T00:00:60Z", R"(parsing time "2026-01-01T00:00:60Z": at offset 17: second out of range)"},
      {"2026-01-01T00:00:00+24:00", R"(parsing time "2026-01-01T00:00:00+24:00": at offset 20: time zone offset hour out of range)"},
      {"2026-01-01T00:00:00+01:60", R"(parsing time "2026-01-01T00:00:00+01:60": at offset 23: time zone offset minute out of range)"},
  };
  for (const auto& c : cases) {
    auto r = ParseTime(c.input);
    ASSERT_FALSE(r.ok()) << c.input;
    EXPECT_TRUE(IsBadRequest(r.error()));
    EXPECT_EQ(r.error().message, c.message);
  }
}

TEST(ParseTime, RejectsInstantsOutsideWallTimeRange) {
  auto r = ParseTime("0001-01-01T00:00:00Z");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, R"(parsing time "0001-01-01T00:00:00Z": out of range)");
  EXPECT_FALSE(ParseTime("9999-12-31T23:59:59Z").ok());
}

TEST(ParseTime, IndependentOfTzEnvironment) {
  // Nothing here consults TZ; this guards against a regression to mktime/localtime.
  const auto before = MustParse("2026-06-01T12:00:00Z");
  setenv("TZ", "America/New_York", 1);
  tzset();
  EXPECT_EQ(MustParse("2026-06-01T12:00:00Z"), before);
  EXPECT_EQ(FormatTime(before), "2026-06-01T12:00:00Z");
  unsetenv("TZ");
  tzset();
}

}  // namespace
}  // namespace kube
