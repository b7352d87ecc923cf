#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include <kube/base/large_array_allocator.hpp>

namespace kube::workqueue::internal {

/// An open-addressing hash index from 32-bit item hashes to 32-bit slot numbers: linear probing
/// with backward-shift deletion. Each bucket holds the slot number and the item's hash, so
/// probing, growing and deleting never touch the items; a caller-supplied predicate confirms a
/// candidate slot.
///
/// Why not boost::unordered_flat_set: Boost 1.81's "anti-drift" rule rehashes a flat table *at the
/// same size* after enough insert/erase churn (about every 13k operations at 1,000 entries), which
/// is a steady-state allocation and, with a million tracked keys, a multi-millisecond stall under
/// the queue's lock. Backward-shift deletion leaves no tombstones, so churn never rehashes: the
/// table only grows (doubling) when it holds more entries than ever before.
/// **Thread-safety:** none (guarded by the owner).
class IndexTable final {
 public:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

  std::size_t size() const noexcept { return size_; }

  /// The slot of an entry with hash `hash` for which `is_item(slot)` holds, or kNone.
  template <class IsItem>
  std::uint32_t Find(std::uint32_t hash, IsItem&& is_item) const {
    if (size_ == 0) return kNone;
    for (std::size_t i = Home(hash);; i = (i + 1) & mask_) {
      const Bucket& b = buckets_[i];
      if (b.slot == kNone) return kNone;
      if (b.hash == hash && is_item(b.slot)) return b.slot;
    }
  }

  /// Hints the CPU to fetch the bucket where a probe for `hash` starts.
  void Prefetch(std::uint32_t hash) const noexcept {
    if (!buckets_.empty()) __builtin_prefetch(&buckets_[Home(hash)]);
  }

  /// Adds (hash, slot); `slot` must not be present.
  void Insert(std::uint32_t hash, std::uint32_t slot) {
    assert(slot != kNone);
    if ((size_ + 1) * 4 > buckets_.size() * 3) Grow();  // load factor <= 3/4
    Place(hash, slot);
    ++size_;
  }

  /// Removes the entry of `slot` (whose hash is `hash`); it must be present.
  void Erase(std::uint32_t hash, std::uint32_t slot) {
    std::size_t i = Home(hash);
    while (buckets_[i].slot != slot) i = (i + 1) & mask_;
    // Backward shift: pull later entries of the probe run into the hole when their home
    // position allows it, so that no tombstone is needed.
    for (std::size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
      if (buckets_[j].slot == kNone) break;
      const std::size_t home = Home(buckets_[j].hash);
      // Entry j may move to i unless its home lies cyclically in (i, j].
      const bool home_in_between = i <= j ? (i < home && home <= j) : (i < home || home <= j);
      if (!home_in_between) {
        buckets_[i] = buckets_[j];
        i = j;
      }
    }
    buckets_[i] = Bucket{};
    --size_;
  }

 private:
  struct Bucket {
    std::uint32_t slot = kNone;  // kNone: empty
    std::uint32_t hash = 0;
  };

  // Fibonacci hashing: multiplies by 2^64 / phi and keeps the top bits, so poorly mixed hashes
  // (std::hash of an integer is the integer) still spread over the table.
  std::size_t Home(std::uint32_t hash) const noexcept {
    return static_cast<std::size_t>((std::uint64_t{hash} * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  void Place(std::uint32_t hash, std::uint32_t slot) {
    std::size_t i = Home(hash);
    while (buckets_[i].slot != kNone) i = (i + 1) & mask_;
    buckets_[i] = Bucket{slot, hash};
  }

  void Grow() {
    Buckets old = std::move(buckets_);
    const std::size_t capacity = old.empty() ? 16 : old.size() * 2;
    buckets_.assign(capacity, Bucket{});
    mask_ = capacity - 1;
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
    for (const Bucket& b : old) {
      if (b.slot != kNone) Place(b.hash, b.slot);
    }
  }

  // Size 0 or a power of two. From 1 MiB (128k buckets) on, mapped on its own with huge pages
  // advised (LargeArrayAllocator): a queue grown to 100k items touches one 2 MiB page for its
  // index instead of 512 small ones.
  using Buckets = std::vector<Bucket, LargeArrayAllocator<Bucket>>;
  Buckets buckets_;
  std::size_t mask_ = 0;
  int shift_ = 64;  // 64 - log2(capacity)
  std::size_t size_ = 0;
};

}  // namespace kube::workqueue::internal
