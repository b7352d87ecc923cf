// Side-by-side loader (issue 10). Starts the embedded API server in this process (memory storage,
// plain HTTP, port 0), registers the BenchObject CRD, creates N BenchObjects (../shared/bench
// shape) from several threads, writes a kubeconfig, then measures each client command in turn,
// `--runs` times, each run in a fresh client process:
//
//   1. the client is started (`/bin/sh -c "exec <cmd>"`) with KUBECONFIG, BENCH_N, BENCH_M set;
//   2. it syncs/lists the N objects and prints one JSON line with "phase":"synced";
//   3. the loader SIGSTOPs it, writes M merge-patches (each changes spec.stringField00, so each
//      yields one MODIFIED event), SIGCONTs it and times until the client prints its
//      "phase":"done" line (it has seen all M events): the backlog drain rate is the client's
//      event throughput, independent of how fast this process can write.
//
// Every client line is re-emitted on stdout, tagged with client/run/n/m, as one JSON line; the
// table is made by bench/peers/table.py. Usage:
//   peer_loader --n 10000 --updates 20000 --runs 3 --dir /tmp/x --client name=command ...
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <boost/json.hpp>
#include <fmt/format.h>

#include <kube/apiserver/apiserver.hpp>
#include <kube/client/dynamic_client.hpp>

#include "common/bench_crd.hpp"
#include "common/bench_objects.hpp"

namespace {

using SteadyClock = std::chrono::steady_clock;
using namespace kube;

double Ms(SteadyClock::time_point a, SteadyClock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

const GroupVersionResource kBenchObjects = bench::kBenchObjectsResource;

// Runs fn(i) for i in [0, n) on `threads` threads.
template <typename Fn>
void Parallel(int64_t n, int threads, Fn fn) {
  std::atomic<int64_t> next{0};
  std::vector<std::jthread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (int64_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) fn(i);
    });
  }
}

struct Child {
  pid_t pid = -1;
  FILE* out = nullptr;
};

Child Spawn(const std::string& command, const std::vector<std::pair<std::string, std::string>>& env) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    const std::string line = "exec " + command;
    execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  return {pid, fdopen(fds[0], "r")};
}

// Reads one line from the child (without the newline); false at EOF.
bool ReadLine(FILE* in, std::string& line) {
  line.clear();
  char buf[4096];
  while (std::fgets(buf, sizeof buf, in) != nullptr) {
    line += buf;
    if (!line.empty() && line.back() == '\n') {
      line.pop_back();
      return true;
    }
  }
  return !line.empty();
}

// Reads lines until one is a JSON object with "phase" == phase; returns it (null on EOF).
boost::json::value WaitPhase(FILE* in, std::string_view phase) {
  std::string line;
  while (ReadLine(in, line)) {
    boost::system::error_code ec;
    auto v = boost::json::parse(line, ec);
    if (!ec && v.is_object()) {
      const auto* p = v.as_object().if_contains("phase");
      if (p != nullptr && p->is_string() && p->as_string() == phase) return v;
    }
    std::fprintf(stderr, "  client: %s\n", line.c_str());
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = 10000;
  int64_t m = 20000;
  int runs = 3;
  int threads = 4;
  std::string dir = "/tmp/kubecpp-peer-bench";
  std::vector<std::pair<std::string, std::string>> clients;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--n" && has_value) {
      n = std::atoll(argv[++i]);
    } else if (a == "--updates" && has_value) {
      m = std::atoll(argv[++i]);
    } else if (a == "--runs" && has_value) {
      runs = std::atoi(argv[++i]);
    } else if (a == "--threads" && has_value) {
      threads = std::atoi(argv[++i]);
    } else if (a == "--dir" && has_value) {
      dir = argv[++i];
    } else if (a == "--client" && has_value) {
      const std::string spec = argv[++i];
      const auto eq = spec.find('=');
      if (eq == std::string::npos) {
        std::fprintf(stderr, "--client expects name=command\n");
        return 2;
      }
      clients.emplace_back(spec.substr(0, eq), spec.substr(eq + 1));
    } else {
      std::fprintf(stderr,
                   "usage: peer_loader [--n N] [--updates M] [--runs R] [--threads T] [--dir D] "
                   "--client name=command ...\n");
      return 2;
    }
  }
  signal(SIGPIPE, SIG_IGN);
  std::filesystem::create_directories(dir);

  apiserver::ApiServerOptions so;
  so.storage = apiserver::ApiServerOptions::StorageKind::kMemory;
  so.tls = false;
  so.authenticate = false;
  so.storage_options.compaction_interval = std::chrono::seconds(0);
  // The clients are stopped while M events queue for them: never close them as too slow.
  so.storage_options.watcher_buffer = static_cast<std::size_t>(m) * 2 + 1000;
  auto server = apiserver::ApiServer::Start(so);
  if (!server.ok()) {
    std::fprintf(stderr, "server: %s\n", server.error().ToString().c_str());
    return 1;
  }
  const std::string kubeconfig = dir + "/kubeconfig";
  {
    std::ofstream out(kubeconfig);
    out << "apiVersion: v1\nkind: Config\ncurrent-context: bench\n"
        << "clusters:\n- name: bench\n  cluster:\n    server: " << (*server)->url() << "\n"
        // client-node refuses http:// unless TLS verification is (vacuously) skipped.
        << "    insecure-skip-tls-verify: true\n"
        << "contexts:\n- name: bench\n  context:\n    cluster: bench\n    user: bench\n"
        << "users:\n- name: bench\n  user: {}\n";
  }
  client::Config config;
  config.host = (*server)->url();
  config.qps = -1;
  auto rest = client::RestClient::Create(config).value();

  if (auto failed = bench::SetUpBenchObjects(rest)) {
    std::fprintf(stderr, "%s\n", failed->c_str());
    return 1;
  }
  std::atomic<int64_t> failures{0};
  const auto p0 = SteadyClock::now();
  Parallel(n - 1, threads, [&](int64_t j) {
    const int64_t i = j + 1;
    client::Api api(rest, kBenchObjects, fmt::format("namespace-{:02d}", i % 100));
    if (!api.Create(*Object::Parse(bench::BenchObjectCreateBody(i)).value()).ok()) failures.fetch_add(1);
  });
  const auto p1 = SteadyClock::now();
  std::fprintf(stderr, "loaded %lld BenchObjects in %.1f s (%lld failures); kubeconfig %s\n",
               static_cast<long long>(n), Ms(p0, p1) / 1e3, static_cast<long long>(failures.load()),
               kubeconfig.c_str());
  if (failures.load() != 0) return 1;

  int64_t round = 0;
  int exit_code = 0;
  for (int run = 1; run <= runs; ++run) {
    for (const auto& [name, command] : clients) {
      ++round;
      Child child = Spawn(command, {{"KUBECONFIG", kubeconfig},
                                    {"BENCH_N", std::to_string(n)},
                                    {"BENCH_M", std::to_string(m)}});
      if (child.pid < 0 || child.out == nullptr) {
        std::fprintf(stderr, "spawn %s failed\n", name.c_str());
        return 1;
      }
      boost::json::object row{{"client", name}, {"run", run}, {"n", n}, {"m", m}};
      auto synced = WaitPhase(child.out, "synced");
      double write_ms = 0;
      double drain_ms = 0;
      boost::json::value done = nullptr;
      if (!synced.is_null()) {
        for (auto& [k, v] : synced.as_object()) row[k] = v;
        kill(child.pid, SIGSTOP);
        const auto w0 = SteadyClock::now();
        Parallel(m, threads, [&](int64_t j) {
          const int64_t i = j % n;
          client::Api api(rest, kBenchObjects, fmt::format("namespace-{:02d}", i % 100));
          auto r = api.Patch(fmt::format("bench-object-{:06d}", i), PatchType::kMerge,
                             fmt::format(R"({{"spec":{{"stringField00":"r{}-u{}"}}}})", round, j));
          if (!r.ok()) failures.fetch_add(1);
        });
        const auto w1 = SteadyClock::now();
        write_ms = Ms(w0, w1);
        kill(child.pid, SIGCONT);
        done = WaitPhase(child.out, "done");
        drain_ms = Ms(w1, SteadyClock::now());
      }
      std::fclose(child.out);
      int status = 0;
      waitpid(child.pid, &status, 0);
      if (synced.is_null() || done.is_null() || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        row["error"] = fmt::format("client failed (status {:#x})", status);
        exit_code = 1;
      } else {
        for (auto& [k, v] : done.as_object()) {
          if (k != "phase") row[k == "vmhwm_kb" ? "vmhwm_end_kb" : std::string(k)] = v;
        }
        row["write_ms"] = write_ms;
        row["drain_ms"] = drain_ms;
        row["events_per_s"] = static_cast<double>(m) / (drain_ms / 1e3);
      }
      row.erase("phase");
      if (failures.load() != 0) {
        row["error"] = fmt::format("{} patches failed", failures.load());
        exit_code = 1;
      }
      std::printf("%s\n", boost::json::serialize(row).c_str());
      std::fflush(stdout);
    }
  }
  (*server)->Stop();
  return exit_code;
}
