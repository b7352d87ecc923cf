#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <kube/workqueue/internal/index_table.hpp>

namespace kube::workqueue::internal {

/// A set of items, each stored once in a numbered slot with a per-item `Payload`. Queues keep
/// 32-bit slot numbers in their FIFOs and heaps instead of copies of the item, so an item is
/// hashed once per operation and copied once per insertion.
///
/// Slots live in fixed-size chunks (stable addresses, no moves when the table grows) and freed
/// slots are reused LIFO with their item *cleared but not destroyed*: a `std::string` key keeps
/// its capacity, so a warmed table inserts without allocating. The index (IndexTable) maps the
/// items' 32-bit hashes to slot numbers, so growing it neither rehashes nor touches the items.
/// `Hash` is the owner's: the table only receives hash values (owners hash outside their lock).
/// `ChunkShift` sets the chunk size (2^ChunkShift slots): small for tables that are usually
/// nearly empty. **Thread-safety:** none; the owner guards it.
template <class T, class Payload, class KeyEqual, std::uint32_t ChunkShift = 9>
class SlotTable final {
 public:
  struct Slot {
    T item{};
    std::uint32_t hash = 0;  // low 32 bits of Hash()(item)
    Payload data{};
  };
  static constexpr std::uint32_t kNone = IndexTable::kNone;

  SlotTable() = default;
  SlotTable(const SlotTable&) = delete;
  SlotTable& operator=(const SlotTable&) = delete;

  /// The slot holding `item`, or kNone. `hash` is `Hash()(item)`; owners compute it outside
  /// their lock.
  std::uint32_t Find(const T& item, std::size_t hash) const {
    return index_.Find(static_cast<std::uint32_t>(hash),
                       [&](std::uint32_t i) { return eq_((*this)[i].item, item); });
  }

  /// Hints the CPU to fetch the index bucket `Find(_, hash)` will read first (no effect on
  /// the table). For batch owners: prefetching a few items ahead overlaps their cache misses.
  void Prefetch(std::size_t hash) const noexcept {
    index_.Prefetch(static_cast<std::uint32_t>(hash));
  }

  /// Stores `item` (which must not be present) in a fresh slot and returns its number.
  /// The slot's payload is value-initialized.
  template <class U>
  std::uint32_t Insert(U&& item, std::size_t hash) {
    const std::uint32_t i = AllocateSlot();
    Slot& s = (*this)[i];
    s.item = std::forward<U>(item);
    s.hash = static_cast<std::uint32_t>(hash);
    s.data = Payload{};
    index_.Insert(s.hash, i);
    return i;
  }

  /// Removes the item in slot `i` and frees the slot.
  void Erase(std::uint32_t i) {
    Slot& s = (*this)[i];
    index_.Erase(s.hash, i);
    if constexpr (requires(T& t) { t.clear(); }) {
      s.item.clear();  // keeps a string's capacity for the next item
    } else {
      s.item = T{};    // releases whatever the item holds (a shared_ptr, ...)
    }
    free_.push_back(i);
  }

  Slot& operator[](std::uint32_t i) noexcept { return chunks_[i >> kChunkShift][i & kChunkMask]; }
  const Slot& operator[](std::uint32_t i) const noexcept {
    return chunks_[i >> kChunkShift][i & kChunkMask];
  }

  /// Number of items stored.
  std::size_t size() const noexcept { return index_.size(); }
  bool empty() const noexcept { return index_.size() == 0; }

 private:
  static constexpr std::uint32_t kChunkShift = ChunkShift;
  static constexpr std::uint32_t kChunkSize = 1u << kChunkShift;
  static constexpr std::uint32_t kChunkMask = kChunkSize - 1;

  std::uint32_t AllocateSlot() {
    if (!free_.empty()) {
      const std::uint32_t i = free_.back();
      free_.pop_back();
      return i;
    }
    assert(allocated_ < kNone);
    if (allocated_ == chunks_.size() * kChunkSize) {
      chunks_.push_back(std::make_unique<Slot[]>(kChunkSize));
    }
    return allocated_++;
  }

  [[no_unique_address]] KeyEqual eq_;
  std::vector<std::unique_ptr<Slot[]>> chunks_;
  std::uint32_t allocated_ = 0;       // slots ever handed out; [0, allocated_) are valid numbers
  std::vector<std::uint32_t> free_;   // freed slot numbers, reused last-in first-out
  IndexTable index_;
};

}  // namespace kube::workqueue::internal
