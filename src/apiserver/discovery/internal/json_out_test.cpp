#include "apiserver/discovery/internal/json_out.hpp"

#include <gtest/gtest.h>

namespace kube::apiserver::internal {
namespace {

std::string Quoted(std::string_view s) {
  std::string out;
  AppendJsonString(out, s);
  return out;
}

std::string Float(double d) {
  std::string out;
  AppendGoFloat(out, d);
  return out;
}

TEST(AppendJsonString, EscapesAsGoEncodingJson) {
  EXPECT_EQ(Quoted("plain"), R"("plain")");
  EXPECT_EQ(Quoted("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(Quoted("\n\r\t\b\f"), R"("\n\r\t\b\f")");
  EXPECT_EQ(Quoted(std::string_view("\x01\x1f", 2)), R"("\u0001\u001f")");
  EXPECT_EQ(Quoted("<a&b>"), R"("\u003ca\u0026b\u003e")");
  EXPECT_EQ(Quoted("\xe2\x80\xa8|\xe2\x80\xa9|\xc3\xa9"), "\"\\u2028|\\u2029|\xc3\xa9\"");
}

TEST(AppendGoFloat, FormatsAsGoEncodingJson) {
  EXPECT_EQ(Float(64.0), "64");
  EXPECT_EQ(Float(0.5), "0.5");
  EXPECT_EQ(Float(-1.25), "-1.25");
  EXPECT_EQ(Float(0), "0");
  EXPECT_EQ(Float(1e21), "1e+21");
  EXPECT_EQ(Float(1e20), "100000000000000000000");
  EXPECT_EQ(Float(1e-7), "1e-7");
  EXPECT_EQ(Float(0.000001), "0.000001");
}

TEST(HexDigest, StableSixteenHexDigits) {
  EXPECT_EQ(HexDigest(""), "CBF29CE484222325");
  EXPECT_EQ(HexDigest("a").size(), 16u);
  EXPECT_NE(HexDigest("a"), HexDigest("b"));
}

}  // namespace
}  // namespace kube::apiserver::internal
