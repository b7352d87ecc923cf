// Helper of sqlite_crash_test: opens a sqlite storage and writes from several threads until it
// is killed, printing one line per acknowledged write to stdout:
//   <revision> <create|update> <key>
// Usage: sqlite_crash_writer <db-path> <threads> <run-id>   (keys: /crash/<run-id>/<thread>/<i>)

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <kube/apiserver/storage.hpp>

namespace {

// One write(2) per line: lines from different threads never interleave, and a line is in the
// pipe as soon as the write was acknowledged (no stdio buffering to lose at SIGKILL).
void Emit(const std::string& line) {
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(STDOUT_FILENO, line.data() + done, line.size() - done);
    if (n <= 0) std::_Exit(3);
    done += static_cast<std::size_t>(n);
  }
}

[[noreturn]] void Fail(const char* what, const kube::Error& error) {
  std::fprintf(stderr, "%s: %s\n", what, error.ToString().c_str());
  std::_Exit(4);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <db-path> <threads> <run-id>\n", argv[0]);
    return 2;
  }
  auto storage = kube::apiserver::NewSqliteStorage(
      argv[1], {.compaction_interval = kube::Clock::Duration::zero()});
  if (!storage.ok()) {
    std::fprintf(stderr, "open: %s\n", storage.error().ToString().c_str());
    return 1;
  }
  kube::apiserver::Storage& s = **storage;
  const int threads = std::atoi(argv[2]);
  const std::string run = argv[3];
  std::vector<std::thread> writers;
  for (int t = 0; t < threads; ++t) {
    writers.emplace_back([&s, &run, t] {
      for (long i = 0;; ++i) {
        const std::string key = fmt::format("/crash/{}/{}/{}", run, t, i);
        auto value = [&](std::string_view what) {
          return [key, what](kube::apiserver::Revision rev) -> kube::Result<std::string> {
            return fmt::format("{} {} {}", what, key, rev);
          };
        };
        auto created = s.Create(key, value("create"));
        if (!created.ok()) Fail("create", created.error());
        Emit(fmt::format("{} create {}\n", *created, key));
        if (i % 2 == 0) {
          auto updated = s.Update(key, *created, value("update"));
          if (!updated.ok()) Fail("update", updated.error());
          Emit(fmt::format("{} update {}\n", *updated, key));
        }
      }
    });
  }
  for (auto& w : writers) w.join();
  return 0;
}
