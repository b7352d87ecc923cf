#include <kube/base/error.hpp>

#include <gtest/gtest.h>

namespace kube {
namespace {

TEST(Error, ClassifiesByReason) {
  EXPECT_TRUE(IsNotFound(MakeError(404, reason::kNotFound, "x")));
  EXPECT_TRUE(IsAlreadyExists(MakeError(409, reason::kAlreadyExists, "x")));
  EXPECT_FALSE(IsConflict(MakeError(409, reason::kAlreadyExists, "x")));
  EXPECT_TRUE(IsConflict(MakeError(409, reason::kConflict, "x")));
  EXPECT_TRUE(IsInvalid(MakeError(422, reason::kInvalid, "x")));
  EXPECT_TRUE(IsGone(MakeError(410, reason::kExpired, "x")));
  EXPECT_TRUE(IsExpired(MakeError(410, reason::kGone, "x")));
  EXPECT_TRUE(IsForbidden(MakeError(403, reason::kForbidden, "x")));
  EXPECT_TRUE(IsUnauthorized(MakeError(401, reason::kUnauthorized, "x")));
  EXPECT_TRUE(IsTooManyRequests(MakeError(429, reason::kTooManyRequests, "x")));
  EXPECT_TRUE(IsTimeout(MakeError(504, reason::kTimeout, "x")));
  EXPECT_TRUE(IsServerTimeout(MakeError(500, reason::kServerTimeout, "x")));
  EXPECT_TRUE(IsMethodNotAllowed(MakeError(405, reason::kMethodNotAllowed, "x")));
  EXPECT_TRUE(IsUnsupportedMediaType(MakeError(415, reason::kUnsupportedMediaType, "x")));
  EXPECT_TRUE(IsInternalError(MakeError(500, reason::kInternalError, "x")));
  EXPECT_TRUE(IsBadRequest(BadRequest("x")));
}

TEST(Error, ReasonTakesPrecedenceOverCode) {
  // A 404 with an explicit, different reason is not NotFound (client-go matches the reason first).
  EXPECT_FALSE(IsNotFound(MakeError(404, reason::kForbidden, "x")));
}

TEST(Error, FallsBackToCodeWhenReasonIsEmpty) {
  EXPECT_TRUE(IsNotFound(MakeError(404, "", "x")));
  EXPECT_TRUE(IsConflict(MakeError(409, "", "x")));
  EXPECT_TRUE(IsGone(MakeError(410, "", "x")));
  EXPECT_TRUE(IsTooManyRequests(MakeError(429, "", "x")));
  EXPECT_TRUE(IsInvalid(MakeError(422, "", "x")));
  EXPECT_TRUE(IsServiceUnavailable(MakeError(503, "", "x")));
  EXPECT_EQ(ReasonFor(MakeError(418, "", "x")), reason::kUnknown);
}

TEST(Error, TooLargeResourceVersionNeedsTheCause) {
  Error e = MakeError(504, reason::kTimeout, "Timeout: Too large resource version: 10, current: 5");
  EXPECT_FALSE(IsTooLargeResourceVersion(e));
  e.details = StatusDetails{};
  e.details->causes.push_back({std::string(cause::kResourceVersionTooLarge), "Too large resource version", ""});
  e.details->retry_after_seconds = 1;
  EXPECT_TRUE(IsTooLargeResourceVersion(e));
  EXPECT_EQ(SuggestsRetryAfter(e), 1);
}

TEST(Error, TransportAndCanceledAreDistinct) {
  const Error t = TransportError("connection refused");
  EXPECT_TRUE(IsTransport(t));
  EXPECT_FALSE(IsCanceled(t));
  const Error c = CanceledError();
  EXPECT_TRUE(IsCanceled(c));
  EXPECT_FALSE(IsTransport(c));
  EXPECT_EQ(t.ToString(), "connection refused");
  EXPECT_EQ(BadRequest("bad").ToString(), "bad (BadRequest, 400)");
}

}  // namespace
}  // namespace kube
