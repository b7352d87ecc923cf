#pragma once

#include <cstddef>
#include <limits>
#include <memory>
#include <new>
#include <vector>

namespace kube {

namespace internal {
/// Size from which LargeArrayAllocator maps an array on its own: 1 MiB.
inline constexpr std::size_t kLargeArrayBytes = std::size_t{1} << 20;
/// Maps `bytes` (>= kLargeArrayBytes) of zeroed memory aligned to 2 MiB, with transparent huge
/// pages requested. **Errors:** throws std::bad_alloc when the mapping fails.
void* MapLargeArray(std::size_t bytes);
/// Unmaps what MapLargeArray(bytes) returned.
void UnmapLargeArray(void* p, std::size_t bytes) noexcept;
}  // namespace internal

/// Bytes currently mapped by LargeArrayAllocator in this process (rounded to 2 MiB per array).
/// Memory accounting that reads malloc's statistics must add this: these arrays bypass malloc.
std::size_t LargeArrayBytesMapped() noexcept;

/// A standard allocator for the big arrays of large caches (the hash tables of an Indexer or a
/// DeltaFIFO holding 100k objects). An array of at least 1 MiB is mapped on its own, aligned to
/// 2 MiB and advised for transparent huge pages (`madvise(MADV_HUGEPAGE)`; effective when
/// /sys/kernel/mm/transparent_hugepage/enabled is `always` or `madvise`), so that filling it
/// touches one huge page per 2 MiB instead of 512 small ones, and random lookups miss the TLB
/// less. Smaller arrays come from `std::allocator`. Stateless: all instances are equal.
/// **Thread-safety:** as std::allocator. **Memory:** a mapped array is rounded up to 2 MiB.
template <class T>
class LargeArrayAllocator {
 public:
  using value_type = T;

  LargeArrayAllocator() noexcept = default;
  template <class U>
  LargeArrayAllocator(const LargeArrayAllocator<U>& /*other*/) noexcept {}  // NOLINT: rebinding

  /// Room for `n` objects. **Errors:** std::bad_alloc (also for a size that overflows).
  T* allocate(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_alloc();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < internal::kLargeArrayBytes) return std::allocator<T>{}.allocate(n);
    return static_cast<T*>(internal::MapLargeArray(bytes));
  }
  /// Frees what allocate(n) returned.
  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < internal::kLargeArrayBytes) {
      std::allocator<T>{}.deallocate(p, n);
      return;
    }
    internal::UnmapLargeArray(p, bytes);
  }

  friend bool operator==(const LargeArrayAllocator&, const LargeArrayAllocator&) noexcept { return true; }
};

/// Equal-sized blocks for one container that allocates a block at a time (a deque's blocks): the
/// first `heap_blocks` blocks in use come from the heap; beyond that, blocks are carved from
/// 2 MiB mappings advised for transparent huge pages (as LargeArrayAllocator's), so that a
/// container grown to hundreds of thousands of elements touches one huge page per 2 MiB instead
/// of 512 small ones. Freed slab blocks are reused; when none is in use any more, every mapping
/// is given back. Requests of any other size go to the heap.
/// **Thread-safety:** none; the container's own lock must guard it. **Lifetime:** must outlive
/// every block it handed out (declare it before the container).
class HugePageBlockPool {
 public:
  /// Blocks of `block_bytes` (at most 1 MiB); the heap serves up to `heap_blocks` of them.
  HugePageBlockPool(std::size_t block_bytes, std::size_t heap_blocks);
  ~HugePageBlockPool();
  HugePageBlockPool(const HugePageBlockPool&) = delete;
  HugePageBlockPool& operator=(const HugePageBlockPool&) = delete;

  /// `bytes` of storage. **Errors:** std::bad_alloc.
  void* Allocate(std::size_t bytes);
  /// Gives back what Allocate(bytes) returned.
  void Deallocate(void* p, std::size_t bytes) noexcept;
  /// Bytes currently mapped for slabs (also counted in LargeArrayBytesMapped()).
  std::size_t MappedBytes() const noexcept { return slabs_.size() * kSlabBytes; }

 private:
  static constexpr std::size_t kSlabBytes = std::size_t{2} << 20;
  bool FromSlab(const void* p) const noexcept;
  void ReleaseSlabs() noexcept;

  std::size_t block_bytes_;
  std::size_t heap_limit_;
  std::size_t heap_in_use_ = 0;  // blocks handed out from the heap
  std::size_t slab_in_use_ = 0;  // blocks handed out from slabs
  std::vector<void*> slabs_;     // 2 MiB-aligned mappings
  std::vector<void*> free_;      // freed slab blocks
  std::size_t carved_ = 0;       // blocks carved from the newest slab
};

/// A standard allocator drawing from a HugePageBlockPool (for boost::container::deque, whose
/// blocks are all one size and whose map of block pointers is a rebound copy).
template <class T>
class BlockPoolAllocator {
 public:
  using value_type = T;

  explicit BlockPoolAllocator(HugePageBlockPool* pool) noexcept : pool_(pool) {}
  template <class U>
  BlockPoolAllocator(const BlockPoolAllocator<U>& other) noexcept : pool_(other.pool()) {}  // NOLINT: rebinding

  /// Room for `n` objects. **Errors:** std::bad_alloc (also for a size that overflows).
  T* allocate(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(pool_->Allocate(n * sizeof(T)));
  }
  /// Frees what allocate(n) returned.
  void deallocate(T* p, std::size_t n) noexcept { pool_->Deallocate(p, n * sizeof(T)); }
  HugePageBlockPool* pool() const noexcept { return pool_; }

  friend bool operator==(const BlockPoolAllocator& a, const BlockPoolAllocator& b) noexcept {
    return a.pool_ == b.pool_;
  }

 private:
  HugePageBlockPool* pool_;
};

}  // namespace kube
