#include <kube/base/large_array_allocator.hpp>

#include <sys/mman.h>

#include <atomic>
#include <cstdint>

namespace kube::internal {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
std::size_t RoundUp(std::size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }
std::atomic<std::size_t> g_mapped{0};
}  // namespace

void* MapLargeArray(std::size_t bytes) {
  if (bytes > std::numeric_limits<std::size_t>::max() - 2 * kHugePage) throw std::bad_alloc();
  const std::size_t size = RoundUp(bytes);
  // Over-map by one huge page, then trim both ends to a 2 MiB-aligned range: only aligned 2 MiB
  // ranges can be backed by huge pages.
  const std::size_t mapped = size + kHugePage;
  void* raw = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto begin = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (begin + kHugePage - 1) & ~(std::uintptr_t{kHugePage} - 1);
  const std::size_t head = aligned - begin;
  const std::size_t tail = mapped - head - size;
  if (head > 0) munmap(raw, head);
  if (tail > 0) munmap(reinterpret_cast<void*>(aligned + size), tail);
  auto* p = reinterpret_cast<void*>(aligned);
  // Only a hint: without transparent huge pages the mapping works with small pages.
  (void)madvise(p, size, MADV_HUGEPAGE);
  g_mapped.fetch_add(size, std::memory_order_relaxed);
  return p;
}

void UnmapLargeArray(void* p, std::size_t bytes) noexcept {
  const std::size_t size = RoundUp(bytes);
  munmap(p, size);
  g_mapped.fetch_sub(size, std::memory_order_relaxed);
}

}  // namespace kube::internal

namespace kube {
std::size_t LargeArrayBytesMapped() noexcept { return internal::g_mapped.load(std::memory_order_relaxed); }
}  // namespace kube
