#include <kube/workqueue/internal/timer_wheel.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

namespace kube::workqueue::internal {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::seconds;

Clock::TimePoint At(Clock::Duration d) { return Clock::TimePoint(d); }

// Pops every timer the wheel hands out at `now` (ready <= now), in order.
std::vector<std::uint64_t> PopDue(TimerWheel& w, Clock::TimePoint now) {
  std::vector<std::uint64_t> out;
  w.Advance(now);
  while (const TimerEntry* e = w.Due()) {
    if (e->ready > now) break;
    out.push_back(e->seq);
    w.PopDue();
  }
  return out;
}

TEST(TimerWheel, HandsOutInReadyOrderAndNeverEarly) {
  TimerWheel w;
  const Clock::TimePoint t0 = At(seconds(100));
  w.Advance(t0);
  w.Push({t0 + milliseconds(5), 1, 0});
  w.Push({t0 + microseconds(10), 2, 0});
  w.Push({t0 + seconds(30), 3, 0});  // beyond the wheel's horizon
  w.Push({t0 + milliseconds(5), 4, 0});  // same time as seq 1: after it (FIFO)
  EXPECT_EQ(w.size(), 4u);
  EXPECT_TRUE(PopDue(w, t0 + microseconds(9)).empty());
  EXPECT_EQ(PopDue(w, t0 + microseconds(10)), (std::vector<std::uint64_t>{2}));
  EXPECT_TRUE(PopDue(w, t0 + milliseconds(5) - std::chrono::nanoseconds(1)).empty());
  EXPECT_EQ(PopDue(w, t0 + milliseconds(5)), (std::vector<std::uint64_t>{1, 4}));
  EXPECT_TRUE(PopDue(w, t0 + seconds(29)).empty());
  EXPECT_EQ(PopDue(w, t0 + seconds(31)), (std::vector<std::uint64_t>{3}));
  EXPECT_TRUE(w.empty());
  EXPECT_EQ(w.NextBound(), Clock::TimePoint::max());
}

TEST(TimerWheel, NextBoundIsNeverLaterThanTheEarliestTimer) {
  TimerWheel w;
  const Clock::TimePoint t0 = At(seconds(5));
  w.Advance(t0);
  w.Push({t0 + milliseconds(3) + microseconds(7), 1, 0});
  const Clock::TimePoint bound = w.NextBound();
  EXPECT_LE(bound, t0 + milliseconds(3) + microseconds(7));
  EXPECT_GT(bound, t0 + milliseconds(1));  // the start of the timer's tick, not earlier
  w.Advance(bound);  // waking at the bound loads the tick: now the bound is exact
  EXPECT_EQ(w.NextBound(), t0 + milliseconds(3) + microseconds(7));
  // Only far timers: exact.
  TimerWheel far;
  far.Advance(t0);
  far.Push({t0 + seconds(3600), 9, 0});
  EXPECT_EQ(far.NextBound(), t0 + seconds(3600));
}

TEST(TimerWheel, ExtremeTimesDoNotOverflow) {
  TimerWheel w;
  w.Advance(At(seconds(1)));
  w.Push({Clock::TimePoint::max(), 1, 0});
  w.Push({Clock::TimePoint::min(), 2, 0});  // long past: due at once
  w.Push({At(seconds(0)), 3, 0});
  EXPECT_EQ(PopDue(w, At(seconds(1))), (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(w.NextBound(), Clock::TimePoint::max());  // the max timer is still there...
  EXPECT_EQ(w.size(), 1u);
  EXPECT_TRUE(PopDue(w, Clock::TimePoint::max() - seconds(1)).empty());  // ...and never early
  EXPECT_EQ(PopDue(w, Clock::TimePoint::max()), (std::vector<std::uint64_t>{1}));
}

TEST(TimerWheel, AFullTurnOrMoreAtOnceLoadsEverythingDue) {
  TimerWheel w;
  const Clock::TimePoint t0 = At(seconds(10));
  w.Advance(t0);
  for (std::uint64_t i = 0; i < 3000; ++i) w.Push({t0 + milliseconds(i), i, 0});  // 3 turns
  const auto out = PopDue(w, t0 + milliseconds(2500));
  ASSERT_EQ(out.size(), 2501u);
  for (std::uint64_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], i);
  EXPECT_EQ(w.size(), 499u);
}

// Against a reference ordered set: random pushes (past, near, far, extreme) and random clock
// steps (small, tick-sized, multi-turn). At every step the wheel must hand out exactly the
// timers with ready <= now, in (ready, seq) order, and NextBound must not be later than the
// earliest remaining timer.
TEST(TimerWheel, MatchesAnOrderedSetUnderRandomUse) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    TimerWheel w;
    std::set<std::tuple<Clock::TimePoint, std::uint64_t>> ref;
    Clock::TimePoint now = At(seconds(1000) + microseconds(rng() % 1'000'000));
    w.Advance(now);
    std::uint64_t seq = 1;
    for (int step = 0; step < 3000; ++step) {
      const int pushes = static_cast<int>(rng() % 8);
      for (int p = 0; p < pushes; ++p) {
        Clock::Duration d{};
        switch (rng() % 6) {
          case 0: d = -microseconds(rng() % 5000); break;                 // already due
          case 1: d = microseconds(rng() % 2000); break;                  // this tick or next
          case 2: d = microseconds(rng() % 1'100'000); break;             // within the wheel
          case 3: d = milliseconds(rng() % 10'000); break;                // beyond it
          case 4: d = Clock::Duration(0); break;
          default: d = microseconds(rng() % 100'000); break;
        }
        const Clock::TimePoint ready = (rng() % 500 == 0) ? Clock::TimePoint::max() : now + d;
        w.Push({ready, seq, 0});
        ref.emplace(ready, seq);
        ++seq;
      }
      switch (rng() % 4) {
        case 0: now += microseconds(rng() % 300); break;
        case 1: now += microseconds(rng() % 3000); break;
        case 2: now += milliseconds(rng() % 200); break;
        default: now += milliseconds(rng() % 3000); break;  // can skip whole turns
      }
      std::vector<std::uint64_t> expected;
      while (!ref.empty() && std::get<0>(*ref.begin()) <= now) {
        expected.push_back(std::get<1>(*ref.begin()));
        ref.erase(ref.begin());
      }
      ASSERT_EQ(PopDue(w, now), expected) << "seed " << seed << " step " << step;
      ASSERT_EQ(w.size(), ref.size());
      if (!ref.empty()) {
        ASSERT_LE(w.NextBound(), std::get<0>(*ref.begin()));
        ASSERT_GT(w.NextBound(), now);
      } else {
        ASSERT_EQ(w.NextBound(), Clock::TimePoint::max());
      }
    }
  }
}

}  // namespace
}  // namespace kube::workqueue::internal
