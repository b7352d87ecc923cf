// SQLite engine specifics: durability across reopen, the revision floor, group commit, commit
// failures, and bad database files. The shared contract is in storage_conformance_test.cpp.

#include <sqlite3.h>

#include <algorithm>
#include <fstream>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <kube/apiserver/storage.hpp>
#include <kube/base/clock.hpp>
#include <kube/base/error.hpp>

#include "apiserver/storage/sqlite_storage.hpp"
#include "apiserver/storage/storage_test_util.hpp"

namespace kube::apiserver {
namespace {

using namespace std::chrono_literals;
using testing::At;
using testing::Keys;
using testing::Str;
using testing::Val;

// Runs SQL on a database file with a plain connection (the storage must be closed: it holds
// the file locked).
void RawExec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err != nullptr ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

int64_t RawCount(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  int64_t n = -1;
  if (sqlite3_step(stmt) == SQLITE_ROW) n = sqlite3_column_int64(stmt, 0);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return n;
}

class SqliteStorageTest : public ::testing::Test {
 protected:
  StorageOptions Options() {
    return StorageOptions{.compaction_min_revisions = 0,
                          .compaction_min_age = Clock::Duration::zero(),
                          .compaction_interval = Clock::Duration::zero(),
                          .clock = &clock_};
  }
  internal::SqliteStorage& Open() {
    storage_.reset();
    auto s = internal::SqliteStorage::Open(path_, Options());
    EXPECT_TRUE(s.ok()) << s.error().ToString();
    storage_ = std::move(s).value();
    return *storage_;
  }
  void Close() { storage_.reset(); }
  internal::SqliteStorage& s() { return *storage_; }
  Storage& api() { return *storage_; }  // the interface, with its default arguments
  Revision MustCreate(std::string_view key, std::string text) {
    auto r = s().Create(key, Val(std::move(text)));
    EXPECT_TRUE(r.ok()) << r.error().ToString();
    return r.ok() ? *r : 0;
  }
  std::string GetValue(std::string_view key, Revision rev = 0) {
    auto r = api().Get(key, rev);
    return r.ok() ? Str(r->value) : "<" + std::string(ReasonFor(r.error())) + ">";
  }

  FakeClock clock_;
  testing::TempDir dir_;
  std::string path_ = dir_.File("kube.db");
  std::unique_ptr<internal::SqliteStorage> storage_;
};

TEST_F(SqliteStorageTest, ReopenPreservesDataAndHistoryAndRevisionsContinue) {
  Open();
  const Revision a1 = MustCreate("/a", "a1");
  const Revision b1 = MustCreate("/b", "b1");
  auto a2 = s().Update("/a", a1, Val("a2"));
  ASSERT_TRUE(a2.ok());
  auto bd = s().Delete("/b", 0, Val("b-last"));
  ASSERT_TRUE(bd.ok());
  Close();

  Open();
  EXPECT_EQ(s().CurrentRevision(), *bd);
  EXPECT_EQ(GetValue("/a"), At("a2", *a2));
  EXPECT_EQ(GetValue("/a", a1), At("a1", a1));
  EXPECT_EQ(GetValue("/b", b1), At("b1", b1));
  EXPECT_EQ(GetValue("/b"), "<NotFound>");
  auto kv = api().Get("/a");
  ASSERT_TRUE(kv.ok());
  EXPECT_EQ(kv->create_revision, a1);
  EXPECT_EQ(kv->mod_revision, *a2);
  // History survives for watch replay, with previous values and the tombstone.
  auto w = s().Watch("/", a1);
  ASSERT_TRUE(w.ok());
  auto events = (*w)->Next(clock_.Now(), {});
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, StorageEvent::Type::kCreated);
  EXPECT_EQ(events[1].type, StorageEvent::Type::kUpdated);
  EXPECT_EQ(Str(events[1].prev_value), At("a1", a1));
  EXPECT_EQ(events[2].type, StorageEvent::Type::kDeleted);
  EXPECT_EQ(Str(events[2].value), At("b-last", *bd));
  EXPECT_EQ(Str(events[2].prev_value), At("b1", b1));
  // The next write continues after the last one, and CAS still works.
  EXPECT_EQ(MustCreate("/c", "c"), *bd + 1);
  EXPECT_TRUE(IsConflict(s().Update("/a", a1, Val("x")).error()));
}

TEST_F(SqliteStorageTest, ValuesRoundTripByteExact) {
  Open();
  const std::string binary("\0\x01\xff{\"json\":true}\n\0", 17);
  auto r = s().Create("/bin", [&](Revision) -> Result<std::string> { return binary; });
  ASSERT_TRUE(r.ok());
  auto empty = s().Create("/empty", [](Revision) -> Result<std::string> { return std::string(); });
  ASSERT_TRUE(empty.ok());
  Close();
  Open();
  EXPECT_EQ(GetValue("/bin"), binary);
  EXPECT_EQ(GetValue("/empty"), "");
}

TEST_F(SqliteStorageTest, CompactionDeletesRowsAndSurvivesReopen) {
  Open();
  MustCreate("/a", "a1");
  ASSERT_TRUE(s().Update("/a", 0, Val("a2")).ok());
  ASSERT_TRUE(s().Update("/a", 0, Val("a3")).ok());
  MustCreate("/b", "b1");
  ASSERT_TRUE(s().Delete("/b", 0, Val("t")).ok());
  const Revision keep = MustCreate("/c", "c1");  // 6
  EXPECT_EQ(s().Compact(keep), keep);
  Close();
  // /a@3 and /c@6 remain: superseded versions and the tombstone were deleted.
  EXPECT_EQ(RawCount(path_, "SELECT count(*) FROM kube_log"), 2);
  EXPECT_EQ(RawCount(path_, "SELECT value FROM kube_meta WHERE name = 'compact_revision'"), keep);
  Open();
  EXPECT_EQ(s().CompactedRevision(), keep);
  EXPECT_EQ(s().CurrentRevision(), keep);
  EXPECT_TRUE(IsExpired(api().Get("/a", keep - 1).error()));
  EXPECT_EQ(GetValue("/a"), At("a3", 3));
  EXPECT_EQ(Keys(s().List({.prefix = "/"})->items), (std::vector<std::string>{"/a", "/c"}));
  EXPECT_TRUE(IsExpired(s().Watch("/", keep - 1).error()));
  EXPECT_TRUE(s().Watch("/", keep).ok());
}

TEST_F(SqliteStorageTest, ACompactedTrailingTombstoneDoesNotMakeRevisionsGoBack) {
  Open();
  MustCreate("/a", "a");
  auto d = s().Delete("/a", 0, Val("t"));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(s().Compact(*d), *d);
  Close();
  EXPECT_EQ(RawCount(path_, "SELECT count(*) FROM kube_log"), 0);
  Open();
  EXPECT_EQ(s().CurrentRevision(), *d);
  EXPECT_EQ(MustCreate("/a", "again"), *d + 1);
}

TEST_F(SqliteStorageTest, RowsLeftByAnInterruptedCompactionAreDroppedOnOpen) {
  Open();
  MustCreate("/a", "a1");
  ASSERT_TRUE(s().Update("/a", 0, Val("a2")).ok());
  Close();
  // As if a crash hit after the compaction point was recorded but before the rows were deleted.
  RawExec(path_, "UPDATE kube_meta SET value = 2 WHERE name = 'compact_revision'");
  Open();
  EXPECT_EQ(s().CompactedRevision(), 2);
  EXPECT_EQ(GetValue("/a"), At("a2", 2));
  EXPECT_EQ(s().IndexStats().versions, 1u);
  Close();
  EXPECT_EQ(RawCount(path_, "SELECT count(*) FROM kube_log"), 1);
}

TEST_F(SqliteStorageTest, GroupCommitBatchesQueuedWritesIntoOneTransaction) {
  Open();
  MustCreate("/warmup", "w");
  const auto before = s().GetCommitStats();
  EXPECT_EQ(before.transactions, 1);
  EXPECT_EQ(before.writes, 1);
  s().PauseCommitsForTest();
  constexpr int kWriters = 8;
  std::vector<std::thread> writers;
  std::vector<Revision> revisions(kWriters);
  for (int i = 0; i < kWriters; ++i) {
    writers.emplace_back([&, i] {
      auto r = s().Create(fmt::format("/g/{}", i), Val("v"));
      ASSERT_TRUE(r.ok()) << r.error().ToString();
      revisions[i] = *r;
    });
  }
  ASSERT_TRUE(s().WaitForQueuedForTest(kWriters, 30s));
  // Queued writes are neither visible nor acknowledged...
  EXPECT_EQ(s().CurrentRevision(), 1);
  EXPECT_TRUE(IsNotFound(api().Get("/g/0").error()));
  // ...but later writers already check their preconditions against them.
  auto dup = s().Create("/g/0", Val("dup"));
  ASSERT_FALSE(dup.ok());
  EXPECT_TRUE(IsAlreadyExists(dup.error()));
  s().ResumeCommitsForTest();
  for (auto& t : writers) t.join();
  const auto after = s().GetCommitStats();
  EXPECT_EQ(after.writes - before.writes, kWriters);
  EXPECT_EQ(after.transactions - before.transactions, 1);  // one transaction, one fsync
  EXPECT_EQ(s().CurrentRevision(), 1 + kWriters);
  std::sort(revisions.begin(), revisions.end());
  for (int i = 0; i < kWriters; ++i) EXPECT_EQ(revisions[i], 2 + i);
}

TEST_F(SqliteStorageTest, ConcurrentWritersShareTransactions) {
  Open();
  constexpr int kWriters = 16;
  constexpr int kPerWriter = 25;
  std::vector<std::thread> writers;
  for (int t = 0; t < kWriters; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < kPerWriter; ++i) {
        auto r = s().Create(fmt::format("/c/{}/{}", t, i), Val("v"));
        ASSERT_TRUE(r.ok()) << r.error().ToString();
      }
    });
  }
  for (auto& t : writers) t.join();
  const auto stats = s().GetCommitStats();
  EXPECT_EQ(stats.writes, kWriters * kPerWriter);
  EXPECT_LE(stats.transactions, stats.writes);
  EXPECT_EQ(stats.failed_transactions, 0);
  Close();
  EXPECT_EQ(RawCount(path_, "SELECT count(*) FROM kube_log"), kWriters * kPerWriter);
  Open();
  EXPECT_EQ(s().List({.prefix = "/c/"})->items.size(),
            static_cast<std::size_t>(kWriters * kPerWriter));
}

TEST_F(SqliteStorageTest, AFailedCommitIsAnInternalErrorAndNothingBecomesVisible) {
  Open();
  const Revision base = MustCreate("/ok0", "v");
  Close();
  // A real SQLite failure inside the transaction: a trigger aborts inserts of one key.
  RawExec(path_,
          "CREATE TRIGGER fail_insert BEFORE INSERT ON kube_log WHEN NEW.name = '/fail' "
          "BEGIN SELECT RAISE(ABORT, 'injected failure'); END;");
  Open();
  auto w = s().Watch("/", 0);
  ASSERT_TRUE(w.ok());
  s().PauseCommitsForTest();
  Result<Revision> r1 = Revision{0}, r2 = Revision{0}, r3 = Revision{0};
  std::thread t1([&] { r1 = s().Create("/ok1", Val("v")); });
  ASSERT_TRUE(s().WaitForQueuedForTest(1, 30s));
  std::thread t2([&] { r2 = s().Create("/fail", Val("v")); });
  ASSERT_TRUE(s().WaitForQueuedForTest(2, 30s));
  // Planned against the pending /ok1: must fail with it.
  std::thread t3([&] { r3 = s().Update("/ok1", 0, Val("v2")); });
  ASSERT_TRUE(s().WaitForQueuedForTest(3, 30s));
  s().ResumeCommitsForTest();
  t1.join();
  t2.join();
  t3.join();
  for (auto* r : {&r1, &r2, &r3}) {
    ASSERT_FALSE(r->ok());
    EXPECT_TRUE(IsInternalError(r->error())) << r->error().ToString();
    EXPECT_EQ(r->error().code, 500);
  }
  EXPECT_NE(r2.error().message.find("injected failure"), std::string::npos)
      << r2.error().message;
  EXPECT_EQ(s().GetCommitStats().failed_transactions, 1);
  EXPECT_EQ(s().CurrentRevision(), base);
  EXPECT_TRUE(IsNotFound(api().Get("/ok1").error()));
  EXPECT_TRUE((*w)->Next(clock_.Now(), {}).empty());
  // The storage keeps working; failed revisions are not reused.
  const Revision next = MustCreate("/ok1", "again");
  EXPECT_GT(next, base + 3);
  auto events = (*w)->Next(clock_.Now(), {});
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].revision, next);
  Close();
  Open();
  EXPECT_EQ(GetValue("/ok1"), At("again", next));
  EXPECT_EQ(s().CurrentRevision(), next);
}

TEST_F(SqliteStorageTest, AFileThatIsNotADatabaseIsAnInternalError) {
  {
    std::ofstream out(path_, std::ios::binary);
    for (int i = 0; i < 512; ++i) out << "this is not a sqlite database\n";
  }
  auto s = NewSqliteStorage(path_, Options());
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(IsInternalError(s.error()));
  EXPECT_EQ(s.error().code, 500);
  EXPECT_NE(s.error().message.find("not a database"), std::string::npos) << s.error().message;
}

TEST_F(SqliteStorageTest, AForeignSqliteDatabaseIsRejectedAndLeftUntouched) {
  RawExec(path_, "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); "
                 "INSERT INTO users VALUES (1, 'x');");
  auto s = NewSqliteStorage(path_, Options());
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(IsInternalError(s.error()));
  EXPECT_NE(s.error().message.find("not a kubecpp database"), std::string::npos)
      << s.error().message;
  EXPECT_EQ(RawCount(path_, "SELECT count(*) FROM users"), 1);
  EXPECT_EQ(RawCount(path_, "SELECT count(*) FROM sqlite_master WHERE name = 'kube_log'"), 0);
}

TEST_F(SqliteStorageTest, ATruncatedDatabaseIsAnInternalError) {
  Open();
  testing::ParallelFor(200, [&](int i) { MustCreate(fmt::format("/k/{}", i), std::string(500, 'x')); });
  Close();
  ASSERT_FALSE(std::filesystem::exists(path_ + "-wal") &&
               std::filesystem::file_size(path_ + "-wal") > 0);
  std::filesystem::resize_file(path_, 8192);  // keeps the schema page, loses the data pages
  auto s = NewSqliteStorage(path_, Options());
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(IsInternalError(s.error())) << s.error().ToString();
}

TEST_F(SqliteStorageTest, AnUnopenablePathIsAnInternalError) {
  auto s = NewSqliteStorage(dir_.File("missing-dir/kube.db"), Options());
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(IsInternalError(s.error()));
}

}  // namespace
}  // namespace kube::apiserver
