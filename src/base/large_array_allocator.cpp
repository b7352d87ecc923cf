#include <kube/base/large_array_allocator.hpp>

#include <sys/mman.h>

#include <algorithm>
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

HugePageBlockPool::HugePageBlockPool(std::size_t block_bytes, std::size_t heap_blocks)
    : block_bytes_(std::clamp<std::size_t>(block_bytes, 1, kSlabBytes / 2)), heap_limit_(heap_blocks) {}

HugePageBlockPool::~HugePageBlockPool() { ReleaseSlabs(); }

bool HugePageBlockPool::FromSlab(const void* p) const noexcept {
  const auto base = reinterpret_cast<std::uintptr_t>(p) & ~(std::uintptr_t{kSlabBytes} - 1);
  return std::find(slabs_.begin(), slabs_.end(), reinterpret_cast<void*>(base)) != slabs_.end();
}

void HugePageBlockPool::ReleaseSlabs() noexcept {
  for (void* slab : slabs_) internal::UnmapLargeArray(slab, kSlabBytes);
  slabs_.clear();
  free_.clear();
  carved_ = 0;
}

void* HugePageBlockPool::Allocate(std::size_t bytes) {
  if (bytes != block_bytes_) return ::operator new(bytes);
  if (heap_in_use_ < heap_limit_) {
    void* p = ::operator new(bytes);
    ++heap_in_use_;
    return p;
  }
  void* p = nullptr;
  if (!free_.empty()) {
    p = free_.back();
    free_.pop_back();
  } else {
    const std::size_t per_slab = kSlabBytes / block_bytes_;
    if (slabs_.empty() || carved_ == per_slab) {
      // Deallocate must not allocate: room for every block the slabs can hold.
      free_.reserve((slabs_.size() + 1) * per_slab);
      slabs_.reserve(slabs_.size() + 1);
      slabs_.push_back(internal::MapLargeArray(kSlabBytes));
      carved_ = 0;
    }
    p = static_cast<char*>(slabs_.back()) + carved_ * block_bytes_;
    ++carved_;
  }
  ++slab_in_use_;
  return p;
}

void HugePageBlockPool::Deallocate(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  if (bytes != block_bytes_ || !FromSlab(p)) {
    if (bytes == block_bytes_) --heap_in_use_;
    ::operator delete(p);
    return;
  }
  free_.push_back(p);  // capacity reserved when the slab was mapped
  if (--slab_in_use_ == 0) ReleaseSlabs();
}

}  // namespace kube
