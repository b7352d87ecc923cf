#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <kube/base/clock.hpp>

namespace kube::workqueue::internal {

/// One timer: `slot` is ready at `ready`; `seq` orders timers with equal ready times (FIFO) and
/// lets the owner recognise stale entries.
struct TimerEntry {
  Clock::TimePoint ready{};
  std::uint64_t seq = 0;
  std::uint32_t slot = 0;
};

/// The delaying queue's timer set: a hashed timing wheel of `kBuckets` ticks of about 1 ms
/// (2^20 ns), a small min-heap for the timers of ticks that have come, and a min-heap for timers
/// beyond the wheel's horizon (about 1.07 s ahead).
///
/// Why not one binary heap: with 100k waiting items a heap push is cheap, but every pop walks
/// about 17 levels of a multi-megabyte array, mostly cache misses, and the delivery thread pays
/// that for every item. Here a push is an append to its tick's bucket; a tick's bucket moves into
/// the due heap in one go when the clock reaches it, so pops work on a heap of one tick's
/// timers (cache-resident). Timers are handed out in exact (ready, seq) order; none is handed
/// out before its time, because a tick is loaded only once `Advance(now)` reaches it and the
/// caller still compares each timer's `ready` with `now`.
///
/// Usage (the delivery thread): `Push` new timers; `Advance(now)`; pop `Due()` while its `ready
/// <= now`; sleep until `NextBound()`. **Thread-safety:** none (one owner thread).
class TimerWheel final {
 public:
  static constexpr std::size_t kBuckets = 1024;
  static constexpr int kTickShift = 20;  // tick = 2^20 ns = 1.048576 ms

  /// Adds a timer (any ready time, including TimePoint::min() and max()).
  void Push(const TimerEntry& e) {
    ++size_;
    const std::uint64_t t = TickOf(e.ready);
    if (t < next_tick_) {
      PushHeap(due_, e);
    } else if (t - next_tick_ < kBuckets) {
      const std::size_t b = t % kBuckets;
      buckets_[b].push_back(e);
      occupied_[b / 64] |= std::uint64_t{1} << (b % 64);
      ++in_wheel_;
    } else {
      PushHeap(far_, e);
    }
  }

  /// Moves every timer of the ticks up to and including `now`'s into the due heap. Cheap when
  /// nothing changed; never moves a timer of a later tick.
  void Advance(Clock::TimePoint now) {
    const std::uint64_t now_tick = TickOf(now);
    if (now_tick < next_tick_) return;
    const std::uint64_t end = now_tick + 1;  // the new next_tick_
    if (in_wheel_ > 0) {
      // Ticks [next_tick_, end) that are in the wheel: all of it when end is a full turn ahead.
      const std::uint64_t span = std::min<std::uint64_t>(end - next_tick_, kBuckets);
      for (std::uint64_t k = 0; k < span && in_wheel_ > 0;) {
        const std::size_t b = (next_tick_ + k) % kBuckets;
        const std::size_t skip = FreeRun(b, static_cast<std::size_t>(span - k));
        if (skip > 0) {
          k += skip;
          continue;
        }
        LoadBucket(b);
        ++k;
      }
    }
    next_tick_ = end;
    // The wheel's horizon moved: far timers now within it (or already due) come in.
    while (!far_.empty() && TickOf(far_.front().ready) < next_tick_ + kBuckets) {
      const TimerEntry e = far_.front();
      PopHeap(far_);
      --size_;
      Push(e);
    }
  }

  /// The earliest timer of the loaded ticks, or nullptr when none is loaded. Its `ready` may
  /// still be later than the `now` given to `Advance` (same tick): the caller compares.
  const TimerEntry* Due() const { return due_.empty() ? nullptr : &due_.front(); }

  /// Removes `*Due()`.
  void PopDue() {
    PopHeap(due_);
    --size_;
  }

  /// A time no later than the earliest timer (exact when a tick is loaded or only far timers
  /// remain; otherwise the start of the first occupied tick): the caller wakes then, advances,
  /// and looks again. TimePoint::max() when empty.
  Clock::TimePoint NextBound() const {
    if (!due_.empty()) return due_.front().ready;
    if (in_wheel_ > 0) {
      const std::size_t from = next_tick_ % kBuckets;
      const std::size_t skip = FreeRun(from, kBuckets);
      return TimeOfTick(next_tick_ + skip);
    }
    return far_.empty() ? Clock::TimePoint::max() : far_.front().ready;
  }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

 private:
  struct Later {
    bool operator()(const TimerEntry& a, const TimerEntry& b) const noexcept {
      return a.ready != b.ready ? a.ready > b.ready : a.seq > b.seq;
    }
  };

  // Ticks as unsigned numbers in the order of time points: the sign bit flipped, so that
  // TimePoint::min() is tick 0 and nothing overflows.
  static constexpr std::uint64_t kSignBit = std::uint64_t{1} << 63;
  static std::uint64_t TickOf(Clock::TimePoint t) noexcept {
    const auto u = static_cast<std::uint64_t>(t.time_since_epoch().count()) ^ kSignBit;
    return u >> kTickShift;
  }
  static Clock::TimePoint TimeOfTick(std::uint64_t tick) noexcept {
    const std::uint64_t u = (tick << kTickShift) ^ kSignBit;
    return Clock::TimePoint(Clock::Duration(static_cast<Clock::Duration::rep>(u)));
  }

  // How many buckets from `b` on (circularly, at most `limit`) are empty.
  std::size_t FreeRun(std::size_t b, std::size_t limit) const noexcept {
    std::size_t run = 0;
    while (run < limit) {
      const std::size_t i = (b + run) % kBuckets;
      const std::uint64_t word = occupied_[i / 64] >> (i % 64);
      if (word != 0) return std::min(limit, run + static_cast<std::size_t>(std::countr_zero(word)));
      run += 64 - i % 64;
    }
    return limit;
  }

  void LoadBucket(std::size_t b) {
    std::vector<TimerEntry>& bucket = buckets_[b];
    for (const TimerEntry& e : bucket) PushHeap(due_, e);
    in_wheel_ -= bucket.size();
    bucket.clear();  // keeps its capacity
    occupied_[b / 64] &= ~(std::uint64_t{1} << (b % 64));
  }

  static void PushHeap(std::vector<TimerEntry>& h, const TimerEntry& e) {
    h.push_back(e);
    std::push_heap(h.begin(), h.end(), Later{});
  }
  static void PopHeap(std::vector<TimerEntry>& h) {
    std::pop_heap(h.begin(), h.end(), Later{});
    h.pop_back();
  }

  // Invariants: due_ holds the timers of ticks < next_tick_; bucket t % kBuckets holds those of
  // ticks t in [next_tick_, next_tick_ + kBuckets); far_ holds those of later ticks.
  std::uint64_t next_tick_ = 0;
  std::vector<TimerEntry> due_;  // min-heap by (ready, seq)
  std::vector<TimerEntry> far_;  // min-heap by (ready, seq)
  std::array<std::vector<TimerEntry>, kBuckets> buckets_{};
  std::array<std::uint64_t, kBuckets / 64> occupied_{};  // bit b: bucket b is not empty
  std::size_t in_wheel_ = 0;
  std::size_t size_ = 0;
};

}  // namespace kube::workqueue::internal
