#include <kube/workqueue/internal/index_table.hpp>

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

}  // namespace
}  // namespace kube::workqueue::internal
