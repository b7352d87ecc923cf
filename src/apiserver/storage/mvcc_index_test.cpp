// Unit tests of the MVCC index shared by both engines (no locking, no engine).

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "apiserver/storage/mvcc_index.hpp"
#include "apiserver/storage/storage_test_util.hpp"

namespace kube::apiserver::internal {
namespace {

using testing::Str;
using testing::Val;

class MvccIndexTest : public ::testing::Test {
 protected:
  Revision Write(WriteOp op, const std::string& key, Revision expected = 0) {
    const Revision rev = index_.current() + 1;
    auto m = PlanWrite(op, key, expected, index_.Latest(key), rev, Val(key));
    EXPECT_TRUE(m.ok()) << m.error().ToString();
    if (!m.ok()) return 0;
    index_.Apply(*m, now_);
    return rev;
  }

  MvccIndex index_;
  Clock::TimePoint now_{};
};

TEST_F(MvccIndexTest, PlanWriteChecksPreconditionsBeforeCallingTheValueFn) {
  int calls = 0;
  ValueFn counting = [&](Revision) -> Result<std::string> {
    ++calls;
    return std::string("v");
  };
  Version live{.revision = 4, .create_revision = 2, .value = nullptr, .deleted = false};
  Version tombstone{.revision = 5, .create_revision = 2, .value = nullptr, .deleted = true};
  EXPECT_TRUE(IsAlreadyExists(PlanWrite(WriteOp::kCreate, "/k", 0, &live, 9, counting).error()));
  EXPECT_TRUE(IsNotFound(PlanWrite(WriteOp::kUpdate, "/k", 0, &tombstone, 9, counting).error()));
  EXPECT_TRUE(IsNotFound(PlanWrite(WriteOp::kDelete, "/k", 0, nullptr, 9, counting).error()));
  EXPECT_TRUE(IsConflict(PlanWrite(WriteOp::kUpdate, "/k", 3, &live, 9, counting).error()));
  EXPECT_EQ(calls, 0);
  auto created = PlanWrite(WriteOp::kCreate, "/k", 0, &tombstone, 9, counting);
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(created->create_revision, 9);
  EXPECT_EQ(created->prev_revision, 5);  // chained to the tombstone, as kine does
  EXPECT_EQ(created->event.prev_value, nullptr);
  auto updated = PlanWrite(WriteOp::kUpdate, "/k", 4, &live, 9, counting);
  ASSERT_TRUE(updated.ok());
  EXPECT_EQ(updated->create_revision, 2);
  EXPECT_EQ(updated->prev_revision, 4);
  EXPECT_EQ(calls, 2);
}

TEST_F(MvccIndexTest, CompactReturnsTheRevisionsOfEveryDroppedVersion) {
  Write(WriteOp::kCreate, "/a");   // 1
  Write(WriteOp::kUpdate, "/a");   // 2
  Write(WriteOp::kCreate, "/b");   // 3
  Write(WriteOp::kDelete, "/b");   // 4
  Write(WriteOp::kUpdate, "/a");   // 5
  Write(WriteOp::kCreate, "/b");   // 6
  EXPECT_EQ(index_.Compact(4), (std::vector<Revision>{1, 3, 4}));
  EXPECT_EQ(index_.compacted(), 4);
  EXPECT_EQ(index_.version_count(), 3u);  // /a@2, /a@5, /b@6
  EXPECT_EQ(index_.log_size(), 2u);
  EXPECT_EQ(Str(index_.Get("/a", 4)->value), "/a@2");
  EXPECT_FALSE(index_.Get("/b", 4).has_value());
  EXPECT_EQ(index_.Compact(6), (std::vector<Revision>{2}));
  EXPECT_EQ(index_.version_count(), 2u);
}

TEST_F(MvccIndexTest, ScanIsBoundedAndResumable) {
  for (const char* k : {"/p/a", "/p/b", "/p/c", "/p/d", "/q/a"}) Write(WriteOp::kCreate, k);
  Write(WriteOp::kDelete, "/p/b");
  std::vector<KeyValue> out;
  auto first = index_.Scan("/p/", "", false, index_.current(), 2, &out);
  EXPECT_EQ(first.live, 1);
  EXPECT_EQ(first.last_key, "/p/b");
  EXPECT_FALSE(first.end);
  auto second = index_.Scan("/p/", first.last_key, true, index_.current(), 2, &out);
  EXPECT_EQ(second.live, 2);
  EXPECT_EQ(second.last_key, "/p/d");
  EXPECT_TRUE(second.end || index_.Scan("/p/", "/p/d", true, index_.current(), 2, nullptr).end);
  EXPECT_EQ(testing::Keys(out), (std::vector<std::string>{"/p/a", "/p/c", "/p/d"}));
  // At revision 2 (before the delete and before /p/c existed).
  EXPECT_EQ(index_.Scan("/p/", "", false, 2, 100, nullptr).live, 2);
}

TEST_F(MvccIndexTest, LatestCommittedAtOrBeforeFollowsCommitTimes) {
  now_ = Clock::TimePoint(std::chrono::seconds(100));
  Write(WriteOp::kCreate, "/a");  // 1 @100s
  Write(WriteOp::kCreate, "/b");  // 2 @100s
  now_ = Clock::TimePoint(std::chrono::seconds(200));
  Write(WriteOp::kCreate, "/c");  // 3 @200s
  EXPECT_EQ(index_.LatestCommittedAtOrBefore(Clock::TimePoint(std::chrono::seconds(50))), 0);
  EXPECT_EQ(index_.LatestCommittedAtOrBefore(Clock::TimePoint(std::chrono::seconds(150))), 2);
  EXPECT_EQ(index_.LatestCommittedAtOrBefore(Clock::TimePoint(std::chrono::seconds(200))), 3);
}

}  // namespace
}  // namespace kube::apiserver::internal
