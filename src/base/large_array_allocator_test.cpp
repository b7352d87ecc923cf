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

TEST(HugePageBlockPool, HeapFirstThenSlabBlocksReusedAndGivenBackWhenNoneIsInUse) {
  constexpr std::size_t kBlock = 20480;
  HugePageBlockPool pool(kBlock, 2);
  void* h1 = pool.Allocate(kBlock);
  void* h2 = pool.Allocate(kBlock);
  EXPECT_EQ(pool.MappedBytes(), 0u);  // within the heap allowance
  void* other = pool.Allocate(100);   // another size: always the heap
  EXPECT_EQ(pool.MappedBytes(), 0u);

  std::vector<void*> slab;
  const std::size_t per_slab = (std::size_t{2} << 20) / kBlock;
  for (std::size_t i = 0; i < per_slab + 1; ++i) slab.push_back(pool.Allocate(kBlock));
  EXPECT_EQ(pool.MappedBytes(), std::size_t{4} << 20);  // one slab full, a second one started
  const auto first = reinterpret_cast<std::uintptr_t>(slab[0]);
  EXPECT_EQ(first % (std::size_t{2} << 20), 0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(slab[1]) - first, kBlock);
  for (void* p : slab) std::fill_n(static_cast<char*>(p), kBlock, 'x');  // every block usable

  // A freed slab block is handed out again; heap blocks go back to the heap.
  pool.Deallocate(slab[5], kBlock);
  EXPECT_EQ(pool.Allocate(kBlock), slab[5]);
  pool.Deallocate(h1, kBlock);
  pool.Deallocate(other, 100);
  // With a heap block free again, the next block comes from the heap, not a slab.
  void* h3 = pool.Allocate(kBlock);
  EXPECT_FALSE(reinterpret_cast<std::uintptr_t>(h3) >= first &&
               reinterpret_cast<std::uintptr_t>(h3) < first + (std::size_t{2} << 20));

  for (void* p : slab) pool.Deallocate(p, kBlock);
  EXPECT_EQ(pool.MappedBytes(), 0u);  // the last slab block freed: every mapping given back
  pool.Deallocate(h2, kBlock);
  pool.Deallocate(h3, kBlock);
}

TEST(HugePageBlockPool, BacksADequeThroughGrowthAndDraining) {
  using Options = boost::container::deque_options_t<boost::container::block_size<256U>>;
  HugePageBlockPool pool(256 * sizeof(std::uint64_t), 4);
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
