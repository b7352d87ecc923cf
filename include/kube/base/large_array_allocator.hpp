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

/// Memory for the arrays of a few containers that can grow large together (an Indexer's store
/// and index tables, a DeltaFIFO's queue blocks and key set). While at most `heap_bytes` are in
/// use from the heap, requests go to the heap, so that a small cache costs no huge page. Beyond
/// that, memory comes from 2 MiB mappings advised for transparent huge pages (as
/// LargeArrayAllocator's): a block of up to 256 KiB is carved from a shared slab, a bigger one
/// gets a mapping of its own. Containers grown to hundreds of thousands of elements then touch
/// one huge page per 2 MiB instead of 512 small ones (a first touch costs microseconds on a VM).
/// A freed slab block is kept for a later request of the same size (hash tables grow through the
/// same sizes one after another); a slab none of whose blocks is in use is given back. Blocks
/// of 1 MiB or more are mapped on their own whatever the heap use (as LargeArrayAllocator does).
/// Under AddressSanitizer, freed slab blocks are poisoned, so a use after free inside a slab is
/// reported as for heap memory.
/// **Thread-safety:** none; the containers' own lock must guard it. **Lifetime:** must outlive
/// every block it handed out (declare it before the containers). **Memory:** a freed block of a
/// size no longer requested stays mapped while its slab holds a block in use.
class HugePageBlockPool {
 public:
  /// The heap serves requests while at most `heap_bytes` of them are in use.
  explicit HugePageBlockPool(std::size_t heap_bytes);
  ~HugePageBlockPool();
  HugePageBlockPool(const HugePageBlockPool&) = delete;
  HugePageBlockPool& operator=(const HugePageBlockPool&) = delete;

  /// `bytes` of storage aligned for any standard type. **Errors:** std::bad_alloc.
  void* Allocate(std::size_t bytes);
  /// Gives back what Allocate(bytes) returned. Never allocates.
  void Deallocate(void* p, std::size_t bytes) noexcept;
  /// Bytes currently mapped by this pool (slabs and blocks mapped on their own; also counted in
  /// LargeArrayBytesMapped()).
  std::size_t MappedBytes() const noexcept;
  /// Bytes currently handed out from the heap.
  std::size_t HeapBytes() const noexcept { return heap_in_use_; }

 private:
  static constexpr std::size_t kSlabBytes = std::size_t{2} << 20;
  static constexpr std::size_t kMaxCarved = std::size_t{256} << 10;  // larger: a mapping of its own
  static constexpr std::size_t kGrain = 64;                          // carved sizes are multiples
  struct FreeBlock {
    FreeBlock* next;
  };
  struct FreeList {
    std::size_t size;  // a Carved() size
    FreeBlock* head;
  };
  // The size carved for a request of `bytes`.
  static std::size_t Carved(std::size_t bytes) noexcept;
  FreeList* FindFreeList(std::size_t size) noexcept;
  struct Slab {
    std::size_t base;    // 2 MiB-aligned
    std::size_t in_use;  // blocks handed out from it
  };
  static std::size_t SlabBase(const void* p) noexcept;
  Slab* FindSlab(const void* p) noexcept;
  // Unmaps a slab none of whose blocks is in use, after unlinking its free blocks.
  void ReleaseSlab(Slab* slab) noexcept;

  std::size_t heap_limit_;
  std::size_t heap_in_use_ = 0;  // bytes handed out from the heap
  std::vector<Slab> slabs_;  // oldest first; the last one is being carved (few: a linear search)
  std::vector<std::size_t> own_;    // blocks (> kMaxCarved, < 1 MiB) mapped on their own
  std::size_t carved_ = 0;          // bytes carved from the last slab
  // Freed slab blocks by (rounded) size, linked through the blocks themselves. A size's entry is
  // made when its first block is carved, so that Deallocate only looks it up.
  std::vector<FreeList> free_;
};

/// A standard allocator drawing from a HugePageBlockPool; with no pool it behaves as
/// LargeArrayAllocator. Copies (and rebound copies, as containers make) share the pool.
template <class T>
class BlockPoolAllocator {
 public:
  using value_type = T;

  explicit BlockPoolAllocator(HugePageBlockPool* pool) noexcept : pool_(pool) {}
  template <class U>
  BlockPoolAllocator(const BlockPoolAllocator<U>& other) noexcept : pool_(other.pool()) {}  // NOLINT: rebinding

  /// Room for `n` objects. **Errors:** std::bad_alloc (also for a size that overflows).
  T* allocate(std::size_t n) {
    if (pool_ == nullptr) return LargeArrayAllocator<T>{}.allocate(n);
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(pool_->Allocate(n * sizeof(T)));
  }
  /// Frees what allocate(n) returned.
  void deallocate(T* p, std::size_t n) noexcept {
    if (pool_ == nullptr) {
      LargeArrayAllocator<T>{}.deallocate(p, n);
      return;
    }
    pool_->Deallocate(p, n * sizeof(T));
  }
  HugePageBlockPool* pool() const noexcept { return pool_; }

  friend bool operator==(const BlockPoolAllocator& a, const BlockPoolAllocator& b) noexcept {
    return a.pool_ == b.pool_;
  }

 private:
  HugePageBlockPool* pool_;
};

}  // namespace kube
