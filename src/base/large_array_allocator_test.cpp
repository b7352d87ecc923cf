#include <kube/base/large_array_allocator.hpp>

#include <cstdint>
#include <new>
#include <vector>

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

}  // namespace
}  // namespace kube
