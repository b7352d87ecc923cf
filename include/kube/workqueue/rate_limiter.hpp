#pragma once

/// \file
/// Rate limiters for RateLimitingQueue (client-go `workqueue.RateLimiter`): each decides how long
/// an item waits before its next retry.

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstddef>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include <kube/base/clock.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/result.hpp>
#include <kube/base/thread_annotations.hpp>
#include <kube/workqueue/internal/slot_table.hpp>
#include <kube/workqueue/internal/spin_lock.hpp>

namespace kube::workqueue {

/// Decides the retry delay of an item. **Thread-safety:** implementations are safe to call
/// concurrently. **Blocks?** No (short internal locks only).
template <class T>
class RateLimiter {
 public:
  virtual ~RateLimiter() = default;
  /// How long `item` should wait before it is processed again. Records one more failure of the
  /// item (the next call may answer longer).
  virtual Clock::Duration When(const T& item) = 0;
  /// Forgets the failures of `item` (call it when the item succeeded).
  virtual void Forget(const T& item) = 0;
  /// How many times `item` has been rate limited since it was last forgotten.
  virtual int NumRequeues(const T& item) const = 0;
};

/// `base * 2^failures`, capped at `max` (and on overflow); 0 when `base` is not positive.
Clock::Duration ExponentialDelay(Clock::Duration base, Clock::Duration max, int failures);

namespace internal {

/// A per-item failure counter (the shared state of the per-item limiters), sharded by the
/// item's hash: 16 tables, each under its own `SpinLock` on its own cache line, so that workers
/// recording failures of different items rarely contend. `Forget` and `Get` of an item while
/// no item of its shard has failures take no lock at all (the common case of a controller whose
/// reconciles succeed); each shard counts its items on its own line, so no counter is shared by
/// every call. The item is hashed once per call, outside the lock, and the tables
/// recycle their slots: a forgotten item's slot keeps its storage (a string key's capacity)
/// for the next item that fails, so a warmed counter does not allocate.
/// **Thread-safety:** safe; one short lock per call at most. **Memory:** each shard keeps
/// the peak number of items it has tracked at once (in chunks of 64 slots).
template <class T, class Hash, class KeyEqual>
class FailureCounter final {
 public:
  /// Returns the count before this failure and records one more (saturating).
  int Next(const T& item) {
    const std::size_t hash = hash_(item);
    Shard& s = ShardOf(hash);
    SpinLockGuard lock(s.mu);
    std::uint32_t i = s.failures.Find(item, hash);
    if (i == Table::kNone) {
      i = s.failures.Insert(item, hash);  // the payload starts at 0
      s.tracked.store(s.failures.size(), std::memory_order_release);
    }
    int& count = s.failures[i].data;
    const int before = count;
    if (count < INT_MAX) ++count;
    return before;
  }
  /// Drops the item's count.
  void Forget(const T& item) {
    const std::size_t hash = hash_(item);
    Shard& s = ShardOf(hash);
    // An item whose failure was recorded before this call (happens-before) is counted in its
    // shard's `tracked`; concurrent calls may be ordered either way.
    if (s.tracked.load(std::memory_order_acquire) == 0) return;
    SpinLockGuard lock(s.mu);
    const std::uint32_t i = s.failures.Find(item, hash);
    if (i == Table::kNone) return;
    s.failures.Erase(i);
    s.tracked.store(s.failures.size(), std::memory_order_release);
  }
  /// The item's count (0 if unknown).
  int Get(const T& item) const {
    const std::size_t hash = hash_(item);
    Shard& s = ShardOf(hash);
    if (s.tracked.load(std::memory_order_acquire) == 0) return 0;  // (see Forget)
    SpinLockGuard lock(s.mu);
    const std::uint32_t i = s.failures.Find(item, hash);
    return i == Table::kNone ? 0 : s.failures[i].data;
  }

 private:
  static constexpr std::size_t kShards = 16;
  using Table = SlotTable<T, int, KeyEqual, /*ChunkShift=*/6>;
  struct alignas(64) Shard {
    SpinLock mu;
    Table failures KUBE_GUARDED_BY(mu);
    std::atomic<std::size_t> tracked{0};  // failures.size(), stored under mu, read without it
  };

  Shard& ShardOf(std::size_t hash) const {
    // Top bits of a multiplicative mix (the table's index uses the hash's low 32 bits).
    return shards_[(hash * 0x9E3779B97F4A7C15ull) >> 60];
  }

  [[no_unique_address]] const Hash hash_{};
  mutable std::array<Shard, kShards> shards_;  // const members lock a shard
};

}  // namespace internal

/// Options of ItemExponentialFailureRateLimiter.
struct ItemExponentialFailureOptions {
  /// The delay after the first failure. Default 5 ms (client-go's controller default).
  Clock::Duration base_delay = std::chrono::milliseconds(5);
  /// The largest delay. Default 1000 s.
  Clock::Duration max_delay = std::chrono::seconds(1000);
};

/// Per-item exponential backoff: the n-th failure (from 0) of an item waits
/// `base_delay * 2^n`, capped at `max_delay`. `Forget` resets the item.
/// **Thread-safety:** safe.
template <class T, class Hash = std::hash<T>, class KeyEqual = std::equal_to<T>>
class ItemExponentialFailureRateLimiter final : public RateLimiter<T> {
 public:
  explicit ItemExponentialFailureRateLimiter(ItemExponentialFailureOptions options = {})
      : options_(options) {}
  /// `base_delay * 2^(failures so far)`, capped; records the failure.
  Clock::Duration When(const T& item) override {
    return ExponentialDelay(options_.base_delay, options_.max_delay, failures_.Next(item));
  }
  /// Resets the item's failure count.
  void Forget(const T& item) override { failures_.Forget(item); }
  /// The item's failure count.
  int NumRequeues(const T& item) const override { return failures_.Get(item); }

 private:
  const ItemExponentialFailureOptions options_;
  internal::FailureCounter<T, Hash, KeyEqual> failures_;
};

/// Options of ItemFastSlowRateLimiter.
struct ItemFastSlowOptions {
  Clock::Duration fast_delay = std::chrono::milliseconds(5);  ///< the first attempts' delay
  Clock::Duration slow_delay = std::chrono::seconds(10);      ///< every later attempt's delay
  int max_fast_attempts = 5;  ///< how many attempts get `fast_delay`
};

/// `fast_delay` for the first `max_fast_attempts` failures of an item, then `slow_delay`.
/// **Thread-safety:** safe.
template <class T, class Hash = std::hash<T>, class KeyEqual = std::equal_to<T>>
class ItemFastSlowRateLimiter final : public RateLimiter<T> {
 public:
  explicit ItemFastSlowRateLimiter(ItemFastSlowOptions options = {}) : options_(options) {}
  /// `fast_delay` or `slow_delay` by the item's attempt count; records the failure.
  Clock::Duration When(const T& item) override {
    const int attempt = failures_.Next(item) + 1;
    return attempt <= options_.max_fast_attempts ? options_.fast_delay : options_.slow_delay;
  }
  /// Resets the item's attempt count.
  void Forget(const T& item) override { failures_.Forget(item); }
  /// The item's attempt count.
  int NumRequeues(const T& item) const override { return failures_.Get(item); }

 private:
  const ItemFastSlowOptions options_;
  internal::FailureCounter<T, Hash, KeyEqual> failures_;
};

/// Options of the token bucket.
struct BucketOptions {
  /// Tokens added per second (the sustained rate). Default 10 (client-go's controller default).
  /// Not positive: the bucket never refills.
  double qps = 10;
  /// Bucket size: how many items pass at once after a quiet period. Default 100. Values below
  /// 1 are treated as 1 (client-go would then delay every item forever).
  int burst = 100;
  /// **Opt-in improvement** (0 = off, client-go behaviour): the longest delay the bucket hands
  /// out. An item that would wait longer waits exactly `max_delay` and takes no token, so the
  /// bucket's debt never exceeds `max_delay * qps` and a storm of failures cannot push retries
  /// tens of minutes out (10k failures at 10 qps otherwise wait up to ~16 min). The price: the
  /// overall rate may exceed `qps` when more than `burst + max_delay * qps` items fail together.
  Clock::Duration max_delay = Clock::Duration::zero();
};

/// A token bucket shared by all items (golang.org/x/time/rate `Reserve().Delay()`): each call
/// takes a token, and returns how long until that token exists. Runs on the injected clock.
/// **Thread-safety:** safe. **Ownership:** `clock` must outlive it.
class TokenBucket final {
 public:
  /// A full bucket (`burst` tokens) at `clock.Now()`.
  explicit TokenBucket(BucketOptions options = {}, Clock& clock = RealClock::Instance());
  /// Reserves one token; returns the wait until it is available (0 when one is there now).
  Clock::Duration Reserve() KUBE_EXCLUDES(mu_);

 private:
  const BucketOptions options_;
  Clock& clock_;
  Mutex mu_;
  double tokens_ KUBE_GUARDED_BY(mu_);  // may be negative: tokens already promised
  Clock::TimePoint last_ KUBE_GUARDED_BY(mu_);
};

/// The overall token bucket as a RateLimiter: `When` ignores the item; `NumRequeues` is 0 and
/// `Forget` does nothing (client-go's BucketRateLimiter). **Thread-safety:** safe.
template <class T>
class BucketRateLimiter final : public RateLimiter<T> {
 public:
  /// `clock` must outlive the limiter.
  explicit BucketRateLimiter(BucketOptions options = {}, Clock& clock = RealClock::Instance())
      : bucket_(options, clock) {}
  /// Takes a token; the wait until it exists.
  Clock::Duration When(const T&) override { return bucket_.Reserve(); }
  /// Does nothing (tokens are not returned).
  void Forget(const T&) override {}
  /// Always 0: the bucket does not track items.
  int NumRequeues(const T&) const override { return 0; }

 private:
  TokenBucket bucket_;
};

/// The largest delay of several limiters. Every `When` consults every limiter (so each records
/// the failure); `Forget` forwards to all; `NumRequeues` is the largest.
/// **Thread-safety:** safe if the parts are.
template <class T>
class MaxOfRateLimiter final : public RateLimiter<T> {
 public:
  /// Takes ownership of `limiters` (null entries are not allowed).
  explicit MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter<T>>> limiters)
      : limiters_(std::move(limiters)) {}
  /// The longest of the limiters' delays (every limiter records the failure).
  Clock::Duration When(const T& item) override {
    Clock::Duration longest = Clock::Duration::zero();
    for (auto& l : limiters_) longest = std::max(longest, l->When(item));
    return longest;
  }
  /// Forgets the item in every limiter.
  void Forget(const T& item) override {
    for (auto& l : limiters_) l->Forget(item);
  }
  /// The largest of the limiters' counts.
  int NumRequeues(const T& item) const override {
    int most = 0;
    for (const auto& l : limiters_) most = std::max(most, l->NumRequeues(item));
    return most;
  }

 private:
  const std::vector<std::unique_ptr<RateLimiter<T>>> limiters_;
};

/// The delays of StepRateLimiter's default table: 5, 10, 20, 40, 80, 160, 320, 640 ms, 1, 2, 4,
/// 8 s (the last repeats).
std::vector<Clock::Duration> DefaultStepDelays();

/// A fixed table of delays: the n-th failure (from 0) of an item waits `steps[n]`, and every
/// failure past the table waits the last entry. It never reads past its table.
/// **Thread-safety:** safe.
template <class T, class Hash = std::hash<T>, class KeyEqual = std::equal_to<T>>
class StepRateLimiter final : public RateLimiter<T> {
 public:
  /// Builds a limiter over `steps`. **Errors:** BadRequest when `steps` is empty or holds a
  /// negative delay.
  static Result<std::unique_ptr<StepRateLimiter>> Create(
      std::vector<Clock::Duration> steps = DefaultStepDelays()) {
    if (steps.empty()) return BadRequest("StepRateLimiter: the table of delays is empty");
    for (auto d : steps) {
      if (d < Clock::Duration::zero()) {
        return BadRequest("StepRateLimiter: the table of delays holds a negative delay");
      }
    }
    return std::make_unique<StepRateLimiter>(Key{}, std::move(steps));
  }

  /// Use `Create`; the key keeps this constructor private to it.
  struct Key {
   private:
    friend class StepRateLimiter;
    Key() = default;
  };
  StepRateLimiter(Key, std::vector<Clock::Duration> steps) : steps_(std::move(steps)) {}

  /// `steps[min(failures so far, size - 1)]`; records the failure.
  Clock::Duration When(const T& item) override {
    const std::size_t n = static_cast<std::size_t>(failures_.Next(item));
    return steps_[std::min(n, steps_.size() - 1)];
  }
  /// Resets the item's failure count.
  void Forget(const T& item) override { failures_.Forget(item); }
  /// The item's failure count.
  int NumRequeues(const T& item) const override { return failures_.Get(item); }

 private:
  const std::vector<Clock::Duration> steps_;  // never empty
  internal::FailureCounter<T, Hash, KeyEqual> failures_;
};

/// client-go's `DefaultControllerRateLimiter`: MaxOf(ItemExponentialFailure(5 ms, 1000 s),
/// Bucket(10 qps, burst 100)). `clock` drives the bucket and must outlive the limiter.
template <class T, class Hash = std::hash<T>, class KeyEqual = std::equal_to<T>>
std::unique_ptr<RateLimiter<T>> DefaultControllerRateLimiter(
    Clock& clock = RealClock::Instance(), BucketOptions bucket = {}) {
  std::vector<std::unique_ptr<RateLimiter<T>>> parts;
  parts.push_back(std::make_unique<ItemExponentialFailureRateLimiter<T, Hash, KeyEqual>>(
      ItemExponentialFailureOptions{.base_delay = std::chrono::milliseconds(5),
                                    .max_delay = std::chrono::seconds(1000)}));
  parts.push_back(std::make_unique<BucketRateLimiter<T>>(bucket, clock));
  return std::make_unique<MaxOfRateLimiter<T>>(std::move(parts));
}

/// client-go's `DefaultItemBasedRateLimiter`: ItemExponentialFailure(1 ms, 1000 s).
template <class T, class Hash = std::hash<T>, class KeyEqual = std::equal_to<T>>
std::unique_ptr<RateLimiter<T>> DefaultItemBasedRateLimiter() {
  return std::make_unique<ItemExponentialFailureRateLimiter<T, Hash, KeyEqual>>(
      ItemExponentialFailureOptions{.base_delay = std::chrono::milliseconds(1),
                                    .max_delay = std::chrono::seconds(1000)});
}

}  // namespace kube::workqueue
