#include <kube/workqueue/internal/index_table.hpp>
#include <kube/workqueue/internal/index_ring.hpp>

#include <kube/base/large_array_allocator.hpp>

#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>

namespace kube::workqueue::internal {
namespace {

// Checks IndexTable against std::unordered_map under random insert/erase churn with a hash
// function chosen by the test (few distinct hashes force long probe runs, collisions and
// wrap-around at the end of the bucket array).
void Churn(std::uint32_t distinct_hashes, int ops, unsigned seed) {
  IndexTable table;
  std::unordered_map<std::uint32_t, std::uint32_t> reference;  // slot -> hash
  std::mt19937 rng(seed);
  std::uint32_t next_slot = 0;
  std::vector<std::uint32_t> live;
  auto hash_of = [&](std::uint32_t slot) { return (slot * 2654435761u) % distinct_hashes; };
  for (int op = 0; op < ops; ++op) {
    if (live.empty() || rng() % 3 != 0) {
      const std::uint32_t slot = next_slot++;
      table.Insert(hash_of(slot), slot);
      reference[slot] = hash_of(slot);
      live.push_back(slot);
    } else {
      const std::size_t k = rng() % live.size();
      const std::uint32_t slot = live[k];
      live[k] = live.back();
      live.pop_back();
      table.Erase(hash_of(slot), slot);
      reference.erase(slot);
    }
    if (op % 97 == 0) {
      ASSERT_EQ(table.size(), reference.size());
      for (const auto& [slot, hash] : reference) {
        const std::uint32_t s = slot;
        ASSERT_EQ(table.Find(hash, [&](std::uint32_t c) { return c == s; }), slot);
      }
      // A slot that was erased is not found.
      if (next_slot > 0) {
        const std::uint32_t probe = rng() % next_slot;
        if (!reference.contains(probe)) {
          ASSERT_EQ(table.Find(hash_of(probe), [&](std::uint32_t c) { return c == probe; }),
                    IndexTable::kNone);
        }
      }
    }
  }
}

TEST(IndexTable, MatchesAReferenceMapUnderChurnWithWellSpreadHashes) {
  Churn(0xFFFFFFFFu, 20'000, 1);
}

TEST(IndexTable, MatchesAReferenceMapWhenManyItemsShareAHash) {
  Churn(7, 5'000, 2);
}

TEST(IndexTable, MatchesAReferenceMapWithModeratelyCollidingHashes) {
  Churn(1024, 20'000, 3);
}

TEST(IndexTable, FindOnAnEmptyTableFindsNothing) {
  IndexTable table;
  EXPECT_EQ(table.Find(42, [](std::uint32_t) { return true; }), IndexTable::kNone);
}

TEST(IndexTable, EraseAndReinsertCycleNeverGrowsTheTable) {
  IndexTable table;
  for (std::uint32_t s = 0; s < 1000; ++s) table.Insert(s * 40503u, s);
  for (std::uint32_t s = 1000; s < 1'000'000; ++s) {
    table.Erase((s - 1000) * 40503u, s - 1000);
    table.Insert(s * 40503u, s);
  }
  EXPECT_EQ(table.size(), 1000u);
  for (std::uint32_t s = 999'000; s < 1'000'000; ++s) {
    ASSERT_EQ(table.Find(s * 40503u, [&](std::uint32_t c) { return c == s; }), s);
  }
}

TEST(IndexTable, GrowsPastOneMebibyteIntoAMappedArrayAndKeepsEveryEntry) {
  // 300k entries: the bucket array doubles through 512k buckets (4 MiB), so it crosses the
  // 1 MiB line from which LargeArrayAllocator maps it on its own, and is rehashed each time.
  IndexTable table;
  constexpr std::uint32_t kEntries = 300'000;
  auto hash_of = [](std::uint32_t s) { return s * 2654435761u; };
  const std::size_t mapped_before = LargeArrayBytesMapped();
  for (std::uint32_t s = 0; s < kEntries; ++s) table.Insert(hash_of(s), s);
  EXPECT_GT(LargeArrayBytesMapped(), mapped_before);
  for (std::uint32_t s = 0; s < kEntries; s += 2) table.Erase(hash_of(s), s);
  ASSERT_EQ(table.size(), kEntries / 2);
  for (std::uint32_t s = 0; s < kEntries; ++s) {
    const std::uint32_t want = s % 2 == 0 ? IndexTable::kNone : s;
    ASSERT_EQ(table.Find(hash_of(s), [&](std::uint32_t c) { return c == s; }), want) << s;
  }
}

TEST(IndexRing, GrowsPastOneMebibyteAndKeepsFifoOrderAcrossTheWrap) {
  IndexRing ring;
  constexpr std::uint32_t kEntries = 400'000;  // 512k entries (2 MiB) after the last doubling
  std::uint32_t next_out = 0;
  // Start with the head away from 0, so that each doubling copies a wrapped ring.
  for (std::uint32_t v = 0; v < 50; ++v) ring.push_back(v);
  for (; next_out < 40; ++next_out) ASSERT_EQ(ring.pop_front(), next_out);
  const std::size_t mapped_before = LargeArrayBytesMapped();
  for (std::uint32_t v = 50; v < kEntries; ++v) ring.push_back(v);
  EXPECT_GT(LargeArrayBytesMapped(), mapped_before);
  ASSERT_EQ(ring.size(), kEntries - 40);
  for (; next_out < kEntries; ++next_out) ASSERT_EQ(ring.pop_front(), next_out);
  EXPECT_TRUE(ring.empty());
}

}  // namespace
}  // namespace kube::workqueue::internal
