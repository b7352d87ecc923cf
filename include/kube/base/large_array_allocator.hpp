#pragma once

#include <cstddef>
#include <limits>
#include <memory>
#include <new>

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

}  // namespace kube
