#pragma once

#include <string>
#include <string_view>

#include <kube/base/clock.hpp>
#include <kube/base/result.hpp>

/// Timestamps on the wire: metav1.Time (RFC 3339, whole seconds), metav1.MicroTime (RFC 3339
/// with exactly six fractional digits) and the RFC 1123 form of HTTP Date headers.
/// All functions are pure, UTC-only and independent of the TZ environment and locale.
/// Times before 1970 are handled (sub-second parts are floored, so 1969-12-31T23:59:59.5Z
/// formats as 23:59:59). The representable range is that of `Clock::WallTime`
/// (system_clock; with libstdc++'s nanosecond ticks, 1677-09-21 to 2262-04-11).
namespace kube {

/// metav1.Time: `2026-01-01T00:00:00Z` (UTC; the sub-second part is dropped).
std::string FormatTime(Clock::WallTime t);

/// metav1.MicroTime: `2026-01-01T00:00:00.123456Z` (UTC; always six digits; truncated to the
/// microsecond).
std::string FormatMicroTime(Clock::WallTime t);

/// An HTTP Date header (RFC 1123 with "GMT", Go's http.TimeFormat):
/// `Mon, 02 Jan 2006 15:04:05 GMT`.
std::string FormatRfc1123(Clock::WallTime t);

/// Parses an RFC 3339 timestamp as Go's `time.Parse(time.RFC3339, s)` accepts it:
/// `YYYY-MM-DDTHH:MM:SS[.F]Z` or with a `+hh:mm`/`-hh:mm` offset, where `.F` is 1 to 9 digits.
/// The `T` and `Z` must be upper case, fields must have exactly the digits shown, and leap
/// seconds (second 60) are rejected, as Go does. Both metav1.Time and MicroTime parse with this.
/// **Errors:** 400 BadRequest naming the input, the byte offset and what was expected, e.g.
/// `parsing time "2026-01-01 00:00:00Z": at offset 10: expected 'T'`; or the field that is out of
/// range (`day out of range`); or `out of range` when the instant is not representable.
Result<Clock::WallTime> ParseTime(std::string_view s);

/// `t` with the sub-second part removed (floored), i.e. what survives a metav1.Time round trip.
Clock::WallTime TruncateToSecond(Clock::WallTime t);

/// `t` floored to the microsecond, i.e. what survives a metav1.MicroTime round trip.
Clock::WallTime TruncateToMicrosecond(Clock::WallTime t);

}  // namespace kube
