#include <kube/base/log.hpp>

#include <gtest/gtest.h>

namespace kube::log {
namespace {

TEST(Log, FormatsKeyValuePairsAndQuotesWhenNeeded) {
  EXPECT_EQ(Format("reconciled", {{"key", "ns/name"}, {"attempt", 3}, {"ok", true}}),
            "reconciled key=ns/name attempt=3 ok=true");
  EXPECT_EQ(Format("m", {{"msg", "has space"}, {"empty", ""}, {"q", "a\"b"}}),
            "m msg=\"has space\" empty=\"\" q=\"a\\\"b\"");
}

TEST(Log, LoggerContextPrecedesCallFields) {
  Logger logger = Logger("controller").With("key", "default/web");
  EXPECT_EQ(Format("done", {{"took", 1.5}}, logger.context()),
            "done logger=controller key=default/web took=1.5");
}

TEST(Log, ParsesLevelsAndFiltersByLevel) {
  Level level{};
  EXPECT_TRUE(ParseLevel("debug", level));
  EXPECT_EQ(level, Level::kDebug);
  EXPECT_FALSE(ParseLevel("verbose", level));
  SetLevel(Level::kWarn);
  EXPECT_FALSE(Enabled(Level::kInfo));
  EXPECT_TRUE(Enabled(Level::kError));
  SetLevel(Level::kInfo);
  EXPECT_TRUE(Enabled(Level::kInfo));
  Info("log test line", {{"k", "v"}});
}

}  // namespace
}  // namespace kube::log
