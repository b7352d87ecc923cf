#include <kube/api/int_or_string.hpp>

#include <gtest/gtest.h>

namespace kube::api {
namespace {

TEST(IntOrString, ConvertsImplicitlyFromIntAndString) {
  IntOrString i = 3;
  IntOrString s = "25%";
  EXPECT_FALSE(i.is_string());
  EXPECT_EQ(i.int_value(), 3);
  EXPECT_EQ(i.ToString(), "3");
  EXPECT_TRUE(s.is_string());
  EXPECT_EQ(s.string_value(), "25%");
  EXPECT_NE(IntOrString(1), IntOrString("1"));
  EXPECT_EQ(IntOrString(), IntOrString(0));
}

TEST(IntOrString, ScaledValueOfAnIntegerIsTheInteger) {
  auto v = GetScaledValueFromIntOrPercent(IntOrString(7), 100, true);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 7);
}

TEST(IntOrString, ScaledValueOfAPercentageRoundsAsAsked) {
  // maxSurge 25% of 10 replicas: 2.5 -> 3 rounded up, 2 rounded down (the deployment controller).
  auto up = GetScaledValueFromIntOrPercent(IntOrString("25%"), 10, true);
  auto down = GetScaledValueFromIntOrPercent(IntOrString("25%"), 10, false);
  ASSERT_TRUE(up.ok());
  ASSERT_TRUE(down.ok());
  EXPECT_EQ(*up, 3);
  EXPECT_EQ(*down, 2);
  auto zero = GetScaledValueFromIntOrPercent(IntOrString("0%"), 10, true);
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(*zero, 0);
  auto all = GetScaledValueFromIntOrPercent(IntOrString("100%"), 3, false);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, 3);
}

TEST(IntOrString, ScaledValueRejectsStringsThatAreNotPercentages) {
  auto plain = GetScaledValueFromIntOrPercent(IntOrString("5"), 10, true);
  ASSERT_FALSE(plain.ok());
  EXPECT_EQ(plain.error().message, "invalid value for IntOrString: invalid type: string is not a percentage");
  auto junk = GetScaledValueFromIntOrPercent(IntOrString("x%"), 10, true);
  ASSERT_FALSE(junk.ok());
  EXPECT_EQ(junk.error().message,
            "invalid value for IntOrString: invalid value \"x%\": strconv.Atoi: parsing \"x\": invalid syntax");
}

}  // namespace
}  // namespace kube::api
