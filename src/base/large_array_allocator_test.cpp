#include <kube/base/large_array_allocator.hpp>

#include <algorithm>
#include <cstdint>
#include <new>
#include <vector>

#include <boost/container/deque.hpp>
#include <boost/container/options.hpp>
#include <boost/unordered/unordered_flat_set.hpp>
#include <gtest/gtest.h>

namespace kube {
namespace {

TEST(LargeArrayAllocator, SmallArraysComeFromTheHeapAndLargeOnesAreAlignedMappings) {
  LargeArrayAllocator<std::uint64_t> alloc;
  std::uint64_t* small = alloc.allocate(16);
  small[0] = 1;
  small[15] = 2;
  EXPECT_EQ(small[0] + small[15], 3u);
  alloc.deallocate(small, 16);

  // 1.5 MiB: mapped on its own, 2 MiB-aligned, zeroed and writable end to end.
  const std::size_t n = (std::size_t{3} << 19) / sizeof(std::uint64_t);
  const std::size_t mapped_before = LargeArrayBytesMapped();
  std::uint64_t* large = alloc.allocate(n);
  EXPECT_EQ(LargeArrayBytesMapped() - mapped_before, std::size_t{2} << 20);  // rounded up
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(large) % (std::size_t{2} << 20), 0u);
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += large[i];
  EXPECT_EQ(sum, 0u);
  for (std::size_t i = 0; i < n; ++i) large[i] = i;
  EXPECT_EQ(large[n - 1], n - 1);
  alloc.deallocate(large, n);
  EXPECT_EQ(LargeArrayBytesMapped(), mapped_before);
}

TEST(LargeArrayAllocator, AnOverflowingSizeIsBadAlloc) {
  LargeArrayAllocator<std::uint64_t> alloc;
  EXPECT_THROW((void)alloc.allocate(~std::size_t{0} / 4), std::bad_alloc);
  EXPECT_THROW((void)alloc.allocate(~std::size_t{0} / 16), std::bad_alloc);  // mapping fails
}

TEST(LargeArrayAllocator, BacksAHashSetThroughEveryGrowthStep) {
  // Grows from heap-allocated tables to mapped ones and back (clear + rehash to small).
  boost::unordered_flat_set<std::uint64_t, std::hash<std::uint64_t>, std::equal_to<>,
                            LargeArrayAllocator<std::uint64_t>>
      set;
  constexpr std::uint64_t kN = 300000;
  for (std::uint64_t i = 0; i < kN; ++i) set.insert(i * 7919);
  ASSERT_EQ(set.size(), kN);
  for (std::uint64_t i = 0; i < kN; i += 1013) EXPECT_TRUE(set.contains(i * 7919)) << i;
  EXPECT_FALSE(set.contains(1));
  set.clear();
  set.rehash(0);
  set.insert(42);
  EXPECT_TRUE(set.contains(42));
  EXPECT_EQ(set.size(), 1u);
}

constexpr std::size_t kSlab = std::size_t{2} << 20;

bool InRange(const void* p, const void* base, std::size_t bytes) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const auto b = reinterpret_cast<std::uintptr_t>(base);
  return a >= b && a < b + bytes;
}

TEST(HugePageBlockPool, HeapFirstThenSlabBlocksReusedAndGivenBackWhenNoneIsInUse) {
  constexpr std::size_t kBlock = 20480;
  HugePageBlockPool pool(2 * kBlock);
  void* h1 = pool.Allocate(kBlock);
  void* h2 = pool.Allocate(kBlock);
  EXPECT_EQ(pool.MappedBytes(), 0u);  // within the heap allowance
  EXPECT_EQ(pool.HeapBytes(), 2 * kBlock);

  std::vector<void*> slab;
  const std::size_t per_slab = kSlab / kBlock;
  for (std::size_t i = 0; i < per_slab + 1; ++i) slab.push_back(pool.Allocate(kBlock));
  EXPECT_EQ(pool.MappedBytes(), 2 * kSlab);  // one slab full, a second one started
  EXPECT_EQ(pool.HeapBytes(), 2 * kBlock);
  const auto first = reinterpret_cast<std::uintptr_t>(slab[0]);
  EXPECT_EQ(first % kSlab, 0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(slab[1]) - first, kBlock);
  for (void* p : slab) std::fill_n(static_cast<char*>(p), kBlock, 'x');  // every block usable

  // A freed slab block is handed out again; heap blocks go back to the heap.
  pool.Deallocate(slab[5], kBlock);
  EXPECT_EQ(pool.Allocate(kBlock), slab[5]);
  pool.Deallocate(h1, kBlock);
  EXPECT_EQ(pool.HeapBytes(), kBlock);
  // With heap allowance free again, the next block comes from the heap, not a slab.
  void* h3 = pool.Allocate(kBlock);
  EXPECT_FALSE(InRange(h3, slab[0], kSlab));
  EXPECT_EQ(pool.HeapBytes(), 2 * kBlock);

  for (void* p : slab) pool.Deallocate(p, kBlock);
  EXPECT_EQ(pool.MappedBytes(), 0u);  // the last slab block freed: every mapping given back
  pool.Deallocate(h2, kBlock);
  pool.Deallocate(h3, kBlock);
  EXPECT_EQ(pool.HeapBytes(), 0u);
}

TEST(HugePageBlockPool, BlocksOfManySizesShareSlabsAndAreReusedBySize) {
  HugePageBlockPool pool(0);  // no heap allowance: everything from huge-page memory
  void* a = pool.Allocate(1000);  // rounded up to 1024 (a multiple of 64)
  void* b = pool.Allocate(100);   // 128
  void* c = pool.Allocate(1000);
  EXPECT_EQ(pool.MappedBytes(), kSlab);  // one shared slab
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % kSlab, 0u);
  EXPECT_EQ(static_cast<char*>(b) - static_cast<char*>(a), 1024);
  EXPECT_EQ(static_cast<char*>(c) - static_cast<char*>(b), 128);
  for (std::size_t i = 0; i < 64; ++i) EXPECT_EQ(reinterpret_cast<std::uintptr_t>(pool.Allocate(64 * (i + 1))) % 64, 0u) << i;

  pool.Deallocate(a, 1000);
  EXPECT_NE(pool.Allocate(100), a);   // another size does not take it
  EXPECT_EQ(pool.Allocate(1000), a);  // the same (rounded) size does
  pool.Deallocate(c, 1000);
  EXPECT_EQ(pool.Allocate(990), c);  // 990 rounds to 1024 too

  // Requests that do not fit the slab's remainder start a new slab.
  std::vector<void*> big;
  for (int i = 0; i < 9; ++i) big.push_back(pool.Allocate(std::size_t{256} << 10));
  EXPECT_EQ(pool.MappedBytes(), 2 * kSlab);
  EXPECT_FALSE(InRange(big.back(), a, kSlab));
  static_cast<char*>(big.back())[(std::size_t{256} << 10) - 1] = 'x';
}

TEST(HugePageBlockPool, ASlabWithNoBlockInUseIsGivenBackAndItsFreeBlocksForgotten) {
  constexpr std::size_t kBlock = std::size_t{256} << 10;  // 8 per slab
  HugePageBlockPool pool(0);
  std::vector<void*> first;
  for (int i = 0; i < 8; ++i) first.push_back(pool.Allocate(kBlock));
  void* small = pool.Allocate(4096);  // starts the second slab
  void* second = pool.Allocate(kBlock);
  EXPECT_EQ(pool.MappedBytes(), 2 * kSlab);
  for (void* p : first) pool.Deallocate(p, kBlock);
  EXPECT_EQ(pool.MappedBytes(), kSlab);  // the first slab is empty: given back
  // Its blocks are not handed out again (they are unmapped): a new block is carved instead.
  void* next = pool.Allocate(kBlock);
  EXPECT_TRUE(InRange(next, small, kSlab));
  std::fill_n(static_cast<char*>(next), kBlock, 'x');
  pool.Deallocate(second, kBlock);
  EXPECT_EQ(pool.Allocate(kBlock), second);  // a free block of a live slab is reused
  pool.Deallocate(second, kBlock);
  pool.Deallocate(next, kBlock);
  pool.Deallocate(small, 4096);
  EXPECT_EQ(pool.MappedBytes(), 0u);  // the slab being carved is given back too
  void* again = pool.Allocate(kBlock);  // and a new one is started
  EXPECT_EQ(pool.MappedBytes(), kSlab);
  std::fill_n(static_cast<char*>(again), kBlock, 'y');
  pool.Deallocate(again, kBlock);
}

#if defined(__SANITIZE_ADDRESS__)
TEST(HugePageBlockPoolDeathTest, AUseAfterFreeOfASlabBlockIsReportedByAddressSanitizer) {
  HugePageBlockPool pool(0);
  void* keep = pool.Allocate(128);  // keeps the slab mapped
  auto* p = static_cast<volatile char*>(pool.Allocate(256));
  p[100] = 'a';
  pool.Deallocate(const_cast<char*>(p), 256);
  EXPECT_DEATH(p[100] = 'x', "use-after-poison");
  // Handed out again, the block is usable.
  auto* again = static_cast<volatile char*>(pool.Allocate(256));
  EXPECT_EQ(again, p);
  again[255] = 'y';
  pool.Deallocate(const_cast<char*>(again), 256);
  pool.Deallocate(keep, 128);
}
#endif

TEST(HugePageBlockPool, BlocksAbove256KiBGetAMappingOfTheirOwnAnd1MiBAlwaysDoes) {
  HugePageBlockPool pool(std::size_t{512} << 10);
  const std::size_t mapped_before = LargeArrayBytesMapped();
  void* heap = pool.Allocate(std::size_t{300} << 10);  // within the allowance: the heap
  EXPECT_EQ(pool.MappedBytes(), 0u);
  void* own = pool.Allocate(std::size_t{300} << 10);  // beyond it: a 2 MiB mapping of its own
  EXPECT_EQ(pool.MappedBytes(), kSlab);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(own) % kSlab, 0u);
  EXPECT_EQ(LargeArrayBytesMapped() - mapped_before, kSlab);
  static_cast<char*>(own)[(std::size_t{300} << 10) - 1] = 'x';
  pool.Deallocate(own, std::size_t{300} << 10);
  EXPECT_EQ(pool.MappedBytes(), 0u);  // given back at once
  EXPECT_EQ(LargeArrayBytesMapped(), mapped_before);

  // 1 MiB or more: mapped on its own even with heap allowance left (as LargeArrayAllocator).
  pool.Deallocate(heap, std::size_t{300} << 10);
  void* large = pool.Allocate(std::size_t{3} << 19);
  EXPECT_EQ(pool.HeapBytes(), 0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(large) % kSlab, 0u);
  EXPECT_EQ(LargeArrayBytesMapped() - mapped_before, kSlab);
  pool.Deallocate(large, std::size_t{3} << 19);
  EXPECT_EQ(LargeArrayBytesMapped(), mapped_before);

  // Blocks still out when the pool goes away are given back by its destructor.
  {
    HugePageBlockPool scoped(0);
    (void)scoped.Allocate(std::size_t{400} << 10);
    (void)scoped.Allocate(4096);
    EXPECT_EQ(LargeArrayBytesMapped() - mapped_before, 2 * kSlab);
  }
  EXPECT_EQ(LargeArrayBytesMapped(), mapped_before);
}

TEST(HugePageBlockPool, BacksHashSetsGrowingTogetherAndAllocatorWithoutPoolIsLargeArrayAllocator) {
  using Alloc = BlockPoolAllocator<std::uint64_t>;
  using Set = boost::unordered_flat_set<std::uint64_t, std::hash<std::uint64_t>, std::equal_to<>, Alloc>;
  HugePageBlockPool pool(std::size_t{64} << 10);
  {
    std::vector<Set> sets;
    for (int s = 0; s < 20; ++s) sets.emplace_back(0, std::hash<std::uint64_t>{}, std::equal_to<>{}, Alloc(&pool));
    constexpr std::uint64_t kN = 100000;
    for (std::uint64_t i = 0; i < kN; ++i) sets[i % 20].insert(i * 7919);  // all grow in lockstep
    EXPECT_GT(pool.MappedBytes(), 0u);
    for (std::uint64_t i = 0; i < kN; i += 997) EXPECT_TRUE(sets[i % 20].contains(i * 7919)) << i;
    EXPECT_FALSE(sets[3].contains(3));
  }
  EXPECT_EQ(pool.MappedBytes(), 0u);  // every set gone: every slab given back
  EXPECT_EQ(pool.HeapBytes(), 0u);

  Set plain(0, std::hash<std::uint64_t>{}, std::equal_to<>{}, Alloc(nullptr));
  const std::size_t mapped_before = LargeArrayBytesMapped();
  for (std::uint64_t i = 0; i < 200000; ++i) plain.insert(i);
  EXPECT_GT(LargeArrayBytesMapped(), mapped_before);  // its big table is a large-array mapping
  EXPECT_EQ(plain.size(), 200000u);
}

TEST(HugePageBlockPool, BacksADequeThroughGrowthAndDraining) {
  using Options = boost::container::deque_options_t<boost::container::block_size<256U>>;
  HugePageBlockPool pool(4 * 256 * sizeof(std::uint64_t));
  {
    boost::container::deque<std::uint64_t, BlockPoolAllocator<std::uint64_t>, Options> q{
        BlockPoolAllocator<std::uint64_t>(&pool)};
    constexpr std::uint64_t kN = 200000;
    for (std::uint64_t round = 0; round < 2; ++round) {
      for (std::uint64_t i = 0; i < kN; ++i) q.push_back(i);
      EXPECT_GT(pool.MappedBytes(), 0u);
      for (std::uint64_t i = 0; i < kN; ++i) {
        ASSERT_EQ(q.front(), i);
        q.pop_front();
      }
      q.shrink_to_fit();
      EXPECT_EQ(pool.MappedBytes(), 0u) << "round " << round;
    }
    q.push_front(7);
    EXPECT_EQ(q.front(), 7u);
  }
  EXPECT_EQ(pool.MappedBytes(), 0u);
}

}  // namespace
}  // namespace kube
