#include <kube/base/backoff.hpp>

#include <gtest/gtest.h>

namespace kube {
namespace {

using namespace std::chrono_literals;

TEST(Backoff, GrowsByFactorAndStopsAtCap) {
  Backoff b{.duration = 100ms, .factor = 2.0, .jitter = 0, .steps = 10, .cap = 500ms, .rand = {}};
  EXPECT_EQ(b.Step(), 100ms);
  EXPECT_EQ(b.Step(), 200ms);
  EXPECT_EQ(b.Step(), 400ms);
  // 800 ms exceeds the cap: the duration is capped and the steps end.
  EXPECT_EQ(b.Step(), 500ms);
  EXPECT_EQ(b.steps, 0);
  EXPECT_EQ(b.Step(), 500ms);
}

TEST(Backoff, ExhaustedStepsKeepReturningLastDuration) {
  Backoff b{.duration = 10ms, .factor = 5.0, .jitter = 0, .steps = 2, .cap = {}, .rand = {}};
  EXPECT_EQ(b.Step(), 10ms);
  EXPECT_EQ(b.Step(), 50ms);
  EXPECT_EQ(b.Step(), 250ms);
  EXPECT_EQ(b.Step(), 250ms);
}

TEST(Backoff, JitterAddsUpToFactorTimesDuration) {
  Backoff b{.duration = 100ms, .factor = 1.0, .jitter = 0.5, .steps = 3, .cap = {},
            .rand = [] { return 0.5; }};
  EXPECT_EQ(b.Step(), 125ms);
  EXPECT_EQ(Jitter(100ms, 0, [] { return 0.25; }), 125ms);  // max_factor <= 0 means 1.0
}

TEST(Backoff, HugeFactorDoesNotOverflow) {
  Backoff b{.duration = 1h, .factor = 1e30, .jitter = 0, .steps = 5, .cap = {}, .rand = {}};
  EXPECT_EQ(b.Step(), 1h);
  EXPECT_EQ(b.Step(), Clock::Duration::max());
}

TEST(ExponentialBackoffManager, ReflectorDefaultsDoubleUpToThirtySeconds) {
  FakeClock clock;
  ExponentialBackoffManager m(BackoffManagerOptions{.rand = [] { return 0.0; }}, clock);
  EXPECT_EQ(m.Next(), 800ms);
  EXPECT_EQ(m.Next(), 1600ms);
  EXPECT_EQ(m.Next(), 3200ms);
  EXPECT_EQ(m.Next(), 6400ms);
  EXPECT_EQ(m.Next(), 12800ms);
  EXPECT_EQ(m.Next(), 25600ms);
  EXPECT_EQ(m.Next(), 30s);
  EXPECT_EQ(m.Next(), 30s);
}

TEST(ExponentialBackoffManager, ResetsAfterTwoMinutesOfHealth) {
  FakeClock clock;
  ExponentialBackoffManager m(BackoffManagerOptions{.rand = [] { return 0.0; }}, clock);
  EXPECT_EQ(m.Next(), 800ms);
  EXPECT_EQ(m.Next(), 1600ms);
  clock.Advance(2min);  // exactly reset_after: not yet more than it
  EXPECT_EQ(m.Next(), 3200ms);
  clock.Advance(2min + 1ms);
  EXPECT_EQ(m.Next(), 800ms);
}

TEST(ExponentialBackoffManager, JitterIsApplied) {
  FakeClock clock;
  ExponentialBackoffManager m(BackoffManagerOptions{.rand = [] { return 0.5; }}, clock);
  EXPECT_EQ(m.Next(), 1200ms);  // 800 ms + 0.5 * 1.0 * 800 ms
}

}  // namespace
}  // namespace kube
