#include <kube/base/large_array_allocator.hpp>

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

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

namespace {
// Under AddressSanitizer, freed pool blocks are poisoned (ASan sees a slab as one mapping, so it
// would not catch a use after free inside it otherwise); no-ops elsewhere.
void Poison([[maybe_unused]] const void* p, [[maybe_unused]] std::size_t n) noexcept {
#if defined(__SANITIZE_ADDRESS__)
  ASAN_POISON_MEMORY_REGION(p, n);
#endif
}
void Unpoison([[maybe_unused]] const void* p, [[maybe_unused]] std::size_t n) noexcept {
#if defined(__SANITIZE_ADDRESS__)
  ASAN_UNPOISON_MEMORY_REGION(p, n);
#endif
}
}  // namespace

HugePageBlockPool::HugePageBlockPool(std::size_t heap_bytes) : heap_limit_(heap_bytes) {}

HugePageBlockPool::~HugePageBlockPool() {
  for (const Slab& slab : slabs_) {
    Unpoison(reinterpret_cast<void*>(slab.base), kSlabBytes);
    internal::UnmapLargeArray(reinterpret_cast<void*>(slab.base), kSlabBytes);
  }
  for (std::size_t base : own_) internal::UnmapLargeArray(reinterpret_cast<void*>(base), kSlabBytes);
}

std::size_t HugePageBlockPool::MappedBytes() const noexcept { return (slabs_.size() + own_.size()) * kSlabBytes; }

std::size_t HugePageBlockPool::SlabBase(const void* p) noexcept {
  return reinterpret_cast<std::uintptr_t>(p) & ~(std::uintptr_t{kSlabBytes} - 1);
}

std::size_t HugePageBlockPool::Carved(std::size_t bytes) noexcept {
  return (std::max<std::size_t>(bytes, 1) + kGrain - 1) / kGrain * kGrain;
}

HugePageBlockPool::FreeList* HugePageBlockPool::FindFreeList(std::size_t size) noexcept {
  auto it = std::find_if(free_.begin(), free_.end(), [size](const FreeList& l) { return l.size == size; });
  return it == free_.end() ? nullptr : &*it;
}

HugePageBlockPool::Slab* HugePageBlockPool::FindSlab(const void* p) noexcept {
  const std::size_t base = SlabBase(p);
  auto it = std::find_if(slabs_.begin(), slabs_.end(), [base](const Slab& s) { return s.base == base; });
  return it == slabs_.end() ? nullptr : &*it;
}

void HugePageBlockPool::ReleaseSlab(Slab* slab) noexcept {
  const std::size_t base = slab->base;
  Unpoison(reinterpret_cast<void*>(base), kSlabBytes);
  for (FreeList& list : free_) {
    FreeBlock** link = &list.head;
    while (*link != nullptr) {
      FreeBlock* block = *link;
      Unpoison(block, sizeof(FreeBlock));
      if (SlabBase(block) == base) {
        *link = block->next;
      } else {
        link = &block->next;
      }
    }
    // The blocks that stay free are poisoned again once their links are all rewritten.
    for (FreeBlock* block = list.head; block != nullptr;) {
      FreeBlock* next = block->next;
      Poison(block, sizeof(FreeBlock));
      block = next;
    }
  }
  internal::UnmapLargeArray(reinterpret_cast<void*>(base), kSlabBytes);
  // The last slab is the one being carved: the next block starts a new one.
  if (slab == &slabs_.back()) carved_ = kSlabBytes;
  slabs_.erase(slabs_.begin() + (slab - slabs_.data()));
}

void* HugePageBlockPool::Allocate(std::size_t bytes) {
  if (bytes >= internal::kLargeArrayBytes) return internal::MapLargeArray(bytes);
  if (heap_in_use_ + bytes <= heap_limit_) {
    void* p = ::operator new(bytes);
    heap_in_use_ += bytes;
    return p;
  }
  if (bytes > kMaxCarved) {
    own_.reserve(own_.size() + 1);
    void* p = internal::MapLargeArray(kSlabBytes);
    own_.push_back(reinterpret_cast<std::uintptr_t>(p));
    return p;
  }
  const std::size_t size = Carved(bytes);
  FreeList* list = FindFreeList(size);
  if (list == nullptr) list = &free_.emplace_back(FreeList{size, nullptr});
  void* p = list->head;
  Slab* slab = nullptr;
  if (p != nullptr) {
    Unpoison(p, size);
    list->head = list->head->next;
    slab = FindSlab(p);
  } else {
    if (slabs_.empty() || kSlabBytes - carved_ < size) {
      // The last slab's remainder (less than kMaxCarved) is left unused.
      slabs_.reserve(slabs_.size() + 1);
      slabs_.push_back(Slab{reinterpret_cast<std::uintptr_t>(internal::MapLargeArray(kSlabBytes)), 0});
      carved_ = 0;
    }
    slab = &slabs_.back();
    p = reinterpret_cast<void*>(slab->base + carved_);
    carved_ += size;
  }
  ++slab->in_use;
  return p;
}

void HugePageBlockPool::Deallocate(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  if (bytes >= internal::kLargeArrayBytes) {
    internal::UnmapLargeArray(p, bytes);
    return;
  }
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  if (bytes > kMaxCarved) {
    auto own = std::find(own_.begin(), own_.end(), addr);
    if (own != own_.end()) {
      own_.erase(own);
      internal::UnmapLargeArray(p, kSlabBytes);
      return;
    }
  } else if (Slab* slab = FindSlab(p)) {
    // The list exists: the block was carved for this size.
    FreeList* list = FindFreeList(Carved(bytes));
    auto* block = static_cast<FreeBlock*>(p);
    block->next = list->head;
    list->head = block;
    Poison(block, list->size);
    if (--slab->in_use == 0) ReleaseSlab(slab);
    return;
  }
  heap_in_use_ -= bytes;
  ::operator delete(p);
}

}  // namespace kube
