#include <kube/core/time.hpp>

#include <chrono>
#include <cstdint>

#include <fmt/format.h>

namespace kube {
namespace {

namespace chr = std::chrono;

// The civil (proleptic Gregorian) calendar fields of a UTC instant, floored to the second.
struct Civil {
  int year;
  unsigned month;
  unsigned day;
  unsigned weekday;  // 0 = Sunday
  int hour;
  int minute;
  int second;
};

// std::chrono's calendar types implement days-from-civil / civil-from-days exactly and without
// any time zone or TZ-environment dependence.
Civil ToCivil(Clock::WallTime t) {
  const auto secs = chr::floor<chr::seconds>(t);
  const auto day = chr::floor<chr::days>(secs);
  const chr::year_month_day ymd{day};
  const chr::weekday wd{day};
  auto tod = secs - day;
  const auto h = chr::duration_cast<chr::hours>(tod);
  tod -= h;
  const auto m = chr::duration_cast<chr::minutes>(tod);
  tod -= m;
  return Civil{static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
               static_cast<unsigned>(ymd.day()), wd.c_encoding(), static_cast<int>(h.count()),
               static_cast<int>(m.count()), static_cast<int>(tod.count())};
}

std::string FormatDateTime(const Civil& c) {
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", c.year, c.month, c.day, c.hour,
                     c.minute, c.second);
}

// Parses RFC 3339 left to right, remembering where it is for error messages.
class Rfc3339Parser {
 public:
  explicit Rfc3339Parser(std::string_view s) : s_(s) {}

  Result<Clock::WallTime> Parse() {
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    if (auto r = Digits(4, "a 4-digit year", year); !r.ok()) return std::move(r).error();
    if (auto r = Literal('-'); !r.ok()) return std::move(r).error();
    if (auto r = Digits(2, "a 2-digit month", month); !r.ok()) return std::move(r).error();
    if (auto r = Literal('-'); !r.ok()) return std::move(r).error();
    if (auto r = Digits(2, "a 2-digit day", day); !r.ok()) return std::move(r).error();
    if (auto r = Literal('T'); !r.ok()) return std::move(r).error();
    if (auto r = Digits(2, "a 2-digit hour", hour); !r.ok()) return std::move(r).error();
    if (auto r = Literal(':'); !r.ok()) return std::move(r).error();
    if (auto r = Digits(2, "a 2-digit minute", minute); !r.ok()) return std::move(r).error();
    if (auto r = Literal(':'); !r.ok()) return std::move(r).error();
    if (auto r = Digits(2, "a 2-digit second", second); !r.ok()) return std::move(r).error();

    std::int64_t nanos = 0;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      const std::size_t start = pos_;
      while (pos_ < s_.size() && IsDigit(s_[pos_])) {
        if (pos_ - start == 9) return Fail("at most 9 fractional-second digits");
        nanos = nanos * 10 + (s_[pos_] - '0');
        ++pos_;
      }
      if (pos_ == start) return Fail("a fractional-second digit");
      for (std::size_t k = pos_ - start; k < 9; ++k) nanos *= 10;
    }

    std::int64_t offset_seconds = 0;
    if (pos_ >= s_.size()) return Fail("'Z' or a '+hh:mm'/'-hh:mm' offset");
    if (s_[pos_] == 'Z') {
      ++pos_;
    } else if (s_[pos_] == '+' || s_[pos_] == '-') {
      const int sign = s_[pos_] == '-' ? -1 : 1;
      ++pos_;
      int oh = 0, om = 0;
      const std::size_t oh_pos = pos_;
      if (auto r = Digits(2, "a 2-digit offset hour", oh); !r.ok()) return std::move(r).error();
      if (auto r = Literal(':'); !r.ok()) return std::move(r).error();
      const std::size_t om_pos = pos_;
      if (auto r = Digits(2, "a 2-digit offset minute", om); !r.ok()) return std::move(r).error();
      if (oh > 23) return Range(oh_pos, "time zone offset hour");
      if (om > 59) return Range(om_pos, "time zone offset minute");
      offset_seconds = sign * (oh * 3600 + om * 60);
    } else {
      return Fail("'Z' or a '+hh:mm'/'-hh:mm' offset");
    }
    if (pos_ != s_.size()) return Fail("end of input");

    if (month < 1 || month > 12) return Range(5, "month");
    const chr::year_month_day ymd{chr::year{year}, chr::month{static_cast<unsigned>(month)},
                                  chr::day{static_cast<unsigned>(day)}};
    if (day < 1 || !ymd.ok()) return Range(8, "day");
    if (hour > 23) return Range(11, "hour");
    if (minute > 59) return Range(14, "minute");
    if (second > 59) return Range(17, "second");

    // Whole seconds since the epoch fit easily in int64 for 4-digit years; check the range of
    // WallTime before converting to its (possibly nanosecond) ticks.
    const std::int64_t days = chr::sys_days{ymd}.time_since_epoch().count();
    const std::int64_t secs = days * 86400 + hour * 3600 + minute * 60 + second - offset_seconds;
    using WallDuration = Clock::WallTime::duration;
    const auto min_secs = chr::duration_cast<chr::seconds>(WallDuration::min()).count() + 1;
    const auto max_secs = chr::duration_cast<chr::seconds>(WallDuration::max()).count() - 1;
    if (secs < min_secs || secs > max_secs) {
      return BadRequest(fmt::format("parsing time \"{}\": out of range", s_));
    }
    return Clock::WallTime(chr::duration_cast<WallDuration>(chr::seconds(secs)) +
                           chr::duration_cast<WallDuration>(chr::nanoseconds(nanos)));
  }

 private:
  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }

  Error FailAt(std::size_t pos, std::string_view expected) const {
    return BadRequest(fmt::format("parsing time \"{}\": at offset {}: expected {}", s_, pos,
                                  expected));
  }
  Error Fail(std::string_view expected) const { return FailAt(pos_, expected); }
  Error Range(std::size_t pos, std::string_view what) const {
    return BadRequest(fmt::format("parsing time \"{}\": at offset {}: {} out of range", s_, pos,
                                  what));
  }

  Result<void> Digits(int n, std::string_view what, int& out) {
    out = 0;
    for (int i = 0; i < n; ++i) {
      if (pos_ >= s_.size() || !IsDigit(s_[pos_])) return Fail(what);
      out = out * 10 + (s_[pos_] - '0');
      ++pos_;
    }
    return Ok();
  }

  Result<void> Literal(char c) {
    if (pos_ >= s_.size() || s_[pos_] != c) return Fail(fmt::format("'{}'", c));
    ++pos_;
    return Ok();
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace

std::string FormatTime(Clock::WallTime t) { return FormatDateTime(ToCivil(t)) + "Z"; }

std::string FormatMicroTime(Clock::WallTime t) {
  const auto secs = chr::floor<chr::seconds>(t);
  const auto micros = chr::floor<chr::microseconds>(t - secs).count();
  return fmt::format("{}.{:06}Z", FormatDateTime(ToCivil(t)), micros);
}

std::string FormatRfc1123(Clock::WallTime t) {
  static constexpr std::string_view kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const Civil c = ToCivil(t);
  return fmt::format("{}, {:02} {} {:04} {:02}:{:02}:{:02} GMT", kDays[c.weekday], c.day,
                     kMonths[c.month - 1], c.year, c.hour, c.minute, c.second);
}

Result<Clock::WallTime> ParseTime(std::string_view s) { return Rfc3339Parser(s).Parse(); }

Clock::WallTime TruncateToSecond(Clock::WallTime t) {
  return Clock::WallTime(
      chr::duration_cast<Clock::WallTime::duration>(chr::floor<chr::seconds>(t).time_since_epoch()));
}

Clock::WallTime TruncateToMicrosecond(Clock::WallTime t) {
  return Clock::WallTime(chr::duration_cast<Clock::WallTime::duration>(
      chr::floor<chr::microseconds>(t).time_since_epoch()));
}

}  // namespace kube
