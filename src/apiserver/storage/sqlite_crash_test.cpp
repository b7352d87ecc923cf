// Crash safety of the sqlite engine: a writer process is killed with SIGKILL mid-stream; every
// write it saw acknowledged must be in the database, and revisions must keep increasing.

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <kube/apiserver/storage.hpp>

#include "apiserver/storage/storage_test_util.hpp"

extern char** environ;

namespace kube::apiserver {
namespace {

struct Ack {
  Revision revision = 0;
  std::string op;
  std::string key;
};

// Reads the writer's stdout until at least `min_acks` complete lines arrived; returns the text.
std::string ReadUntil(int fd, std::size_t min_acks) {
  std::string out;
  char buf[4096];
  std::size_t lines = 0;
  while (lines < min_acks) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;  // the writer died early: the checks below report it
    out.append(buf, static_cast<std::size_t>(n));
    lines = static_cast<std::size_t>(std::count(out.begin(), out.end(), '\n'));
  }
  return out;
}

std::vector<Ack> ParseAcks(const std::string& text) {
  std::vector<Ack> acks;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // a torn last line (no '\n'): not a complete acknowledgement
    std::istringstream fields(line);
    Ack ack;
    fields >> ack.revision >> ack.op >> ack.key;
    acks.push_back(ack);
  }
  return acks;
}

TEST(SqliteCrash, EveryAcknowledgedWriteSurvivesSigkillAndRevisionsKeepIncreasing) {
  testing::TempDir dir;
  const std::string path = dir.File("kube.db");
  for (int round = 0; round < 3; ++round) {  // each round restarts on the previous DB
    int pipe_fds[2];
    ASSERT_EQ(::pipe(pipe_fds), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
    std::string program = KUBE_CRASH_WRITER;
    std::string db = path;
    std::string threads = "8";
    std::string run = std::to_string(round);
    char* argv[] = {program.data(), db.data(), threads.data(), run.data(), nullptr};
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipe_fds[1]);

    std::string text = ReadUntil(pipe_fds[0], 300 + 100 * static_cast<std::size_t>(round));
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "writer exited early with status " << status;
    EXPECT_EQ(WTERMSIG(status), SIGKILL);
    // Lines written before the kill are still in the pipe.
    char buf[4096];
    for (ssize_t n; (n = ::read(pipe_fds[0], buf, sizeof buf)) > 0;) {
      text.append(buf, static_cast<std::size_t>(n));
    }
    ::close(pipe_fds[0]);
    const std::vector<Ack> acks = ParseAcks(text);
    ASSERT_GE(acks.size(), 300u);

    auto opened = NewSqliteStorage(path, {.compaction_interval = Clock::Duration::zero()});
    ASSERT_TRUE(opened.ok()) << opened.error().ToString();
    Storage& s = **opened;
    Revision max_acked = 0;
    for (const Ack& ack : acks) {
      auto kv = s.Get(ack.key, ack.revision);
      ASSERT_TRUE(kv.ok()) << ack.key << "@" << ack.revision << ": " << kv.error().ToString();
      EXPECT_EQ(kv->mod_revision, ack.revision) << ack.key;
      EXPECT_EQ(*kv->value, fmt::format("{} {} {}", ack.op, ack.key, ack.revision));
      max_acked = std::max(max_acked, ack.revision);
    }
    EXPECT_GE(s.CurrentRevision(), max_acked);
    auto next = s.Create(fmt::format("/after-crash/{}", round),
                         [](Revision) -> Result<std::string> { return std::string("x"); });
    ASSERT_TRUE(next.ok()) << next.error().ToString();
    EXPECT_GT(*next, max_acked);
    EXPECT_EQ(*next, s.CurrentRevision());
  }
}

}  // namespace
}  // namespace kube::apiserver
