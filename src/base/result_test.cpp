#include <kube/base/result.hpp>

#include <memory>
#include <string>

#include <gtest/gtest.h>

namespace kube {
namespace {

Result<int> Half(int v) {
  if (v % 2 != 0) return BadRequest("odd");
  return v / 2;
}

Result<void> Check(int v) {
  KUBE_RETURN_IF_ERROR(Half(v));
  return Ok();
}

TEST(Result, HoldsValueOrError) {
  auto ok = Half(4);
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(static_cast<bool>(ok));
  EXPECT_EQ(*ok, 2);
  auto bad = Half(3);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, 400);
  EXPECT_EQ(bad.error().message, "odd");
  EXPECT_EQ(bad.value_or(-1), -1);
}

TEST(Result, MoveOnlyValuesAreSupported) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(7);
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 7);
}

TEST(Result, StringFromLiteralIsAValue) {
  Result<std::string> r = "hello";
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->size(), 5u);
}

TEST(Result, VoidResultPropagatesErrorsThroughMacro) {
  EXPECT_TRUE(Check(2).ok());
  auto r = Check(5);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsBadRequest(r.error()));
}

}  // namespace
}  // namespace kube
