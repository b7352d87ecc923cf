#include <kube/base/base64.hpp>

#include <gtest/gtest.h>

namespace kube {
namespace {

TEST(Base64, EncodesWithPaddingAndDecodesBack) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  const std::string bytes("\x00\xff\x10hunter2", 10);
  auto back = Base64Decode(Base64Encode(bytes));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, bytes);
}

TEST(Base64, IgnoresLineBreaksAsGoDoes) {
  auto v = Base64Decode("Zm9v\r\nYmFy\n");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, "foobar");
}

TEST(Base64, RejectsIllegalDataNamingTheByte) {
  for (const char* bad : {"Zm9", "Zm9v!", "Z===", "Zg==Zg=="}) {
    auto v = Base64Decode(bad);
    ASSERT_FALSE(v.ok()) << bad;
    EXPECT_EQ(v.error().message.rfind("illegal base64 data at input byte ", 0), 0u) << v.error().message;
  }
  EXPECT_EQ(Base64Decode("Zm9v!").error().message, "illegal base64 data at input byte 4");
}

}  // namespace
}  // namespace kube
