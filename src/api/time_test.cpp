#include <kube/api/time.hpp>

#include <chrono>

#include <gtest/gtest.h>

namespace kube::api {
namespace {

TEST(ApiTime, NowIsTruncatedToWhatSurvivesTheRoundTrip) {
  const Time t = Time::Now();
  EXPECT_EQ(t.time, std::chrono::floor<std::chrono::seconds>(t.time));
  const MicroTime m = MicroTime::Now();
  EXPECT_EQ(m.time, std::chrono::floor<std::chrono::microseconds>(m.time));
  EXPECT_GT(m.time, WallTime{});
}

TEST(ApiTime, OrdersByInstant) {
  const Time a{WallTime{} + std::chrono::seconds(1)};
  const Time b{WallTime{} + std::chrono::seconds(2)};
  EXPECT_LT(a, b);
  EXPECT_EQ(a, (Time{WallTime{} + std::chrono::seconds(1)}));
}

}  // namespace
}  // namespace kube::api
