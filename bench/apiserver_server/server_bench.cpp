// HTTP-level benchmarks of the embedded API server (memory storage, plain HTTP on loopback):
//
// - BM_List100k: `GET /api/v1/configmaps` over 100,000 BenchObject-sized ConfigMaps (~1.4 KB of
//   JSON each). Reports the response size and the peak transient heap of the process while the
//   request is served (glibc in-use bytes sampled every 100 us, minus the level before it), as a
//   ratio to the response size. The client reads into a fixed buffer, so the heap growth is the
//   server's.
// - BM_WatchFanout/<rate>: 100 watch streams on one namespace, one writer updating 100 ConfigMaps
//   at <rate> writes/s (1,000 is the issue's target; 100 as a light-load reference) for 5 s
//   through the storage. Latency is from the commit (the value function runs inside
//   the commit and stamps the time per revision) to the arrival of the event's line at each
//   watcher (all 100 streams are read by one epoll thread); p50/p99 over every (watcher, event)
//   pair. `writes_per_s` is the rate the writer achieved (below 1,000 = the machine could not
//   keep up).
//
// Run: apiserver_server_bench --benchmark_repetitions=3 (figures in docs/performance.md).

#include <arpa/inet.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <kube/apiserver/apiserver.hpp>

#include "common/bench_objects.hpp"

namespace {

using kube::apiserver::ApiServer;
using kube::apiserver::ApiServerOptions;
using kube::apiserver::Revision;
using SteadyClock = std::chrono::steady_clock;

[[noreturn]] void Die(const std::string& what) {
  fmt::print(stderr, "{}\n", what);
  std::abort();
}

std::unique_ptr<ApiServer> StartServer() {
  ApiServerOptions o;
  o.storage = ApiServerOptions::StorageKind::kMemory;
  o.tls = false;
  o.authenticate = false;
  o.storage_options.compaction_interval = kube::Clock::Duration::zero();
  auto server = ApiServer::Start(o);
  if (!server.ok()) Die(server.error().message);
  return std::move(server).value();
}

// A ConfigMap with the BenchObject's metadata and ~1.4 KB of JSON in total, stamped with `rv`.
std::string ConfigMapJson(int64_t i, Revision rv, const std::string& ns) {
  std::string out = fmt::format(
      R"({{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"name":"bench-object-{:06d}","namespace":"{}",)"
      R"("uid":"{:08x}-0000-4000-8000-{:012x}","resourceVersion":"{}","creationTimestamp":"2025-01-01T00:00:00Z",)"
      R"("labels":{{"app.kubernetes.io/name":"bench-app-{:02d}","app.kubernetes.io/instance":"instance-{:06d}",)"
      R"("app.kubernetes.io/component":"component-{}","app.kubernetes.io/part-of":"bench-suite","tier":"{}"}},)"
      R"("annotations":{{"bench.example.com/description":"benchmark object number {:06d} used for informer memory and throughput measurement",)"
      R"("bench.example.com/owner":"team-{:02d}@example.com","bench.example.com/checksum":"{:064x}"}}}},"data":{{)",
      i, ns, i, i, rv, i % 50, i, i % 5, i % 2 == 0 ? "backend" : "frontend", i, i % 20, i);
  for (int k = 0; k < 10; ++k) out += fmt::format(R"("stringField{:02d}":"v{:02d}-{:012d}",)", k, k, i);
  for (int k = 0; k < 10; ++k) out += fmt::format(R"("intField{:02d}":"{}",)", k, i * (k + 1) + k);
  for (int k = 0; k < 10; ++k) {
    out += fmt::format(R"("boolField{:02d}":"{}"{})", k, (i + k) % 2 == 0 ? "true" : "false", k < 9 ? "," : "");
  }
  out += "}}";
  return out;
}

int Connect(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) Die("connect failed");
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

void SendGet(int fd, const std::string& target) {
  const std::string req = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\nConnection: close\r\n\r\n";
  if (::send(fd, req.data(), req.size(), 0) != static_cast<ssize_t>(req.size())) Die("send failed");
}

// ---------------------------------------------------------------------------------------------
// LIST

constexpr int64_t kListObjects = 100000;

void BM_List100k(benchmark::State& state) {
  auto server = StartServer();
  auto info = server->registry().Find("", "v1", "configmaps");
  if (!info) Die("no configmaps");
  for (int64_t i = 0; i < kListObjects; ++i) {
    const std::string ns = fmt::format("namespace-{:02d}", i % 100);
    auto r = server->storage().Create(info->StorageKey(ns, fmt::format("bench-object-{:06d}", i)),
                                      [&](Revision rev) -> kube::Result<std::string> { return ConfigMapJson(i, rev, ns); });
    if (!r.ok()) Die(r.error().ToString());
  }
  double peak_ratio_sum = 0, peak_mb_max = 0, bytes = 0;
  for (auto _ : state) {
    const std::size_t baseline = kube::bench::HeapInUse();
    std::atomic<bool> done{false};
    std::size_t peak = baseline;
    std::thread sampler([&] {
      while (!done.load(std::memory_order_relaxed)) {
        peak = std::max(peak, kube::bench::HeapInUse());
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
    });
    const int fd = Connect(server->port());
    SendGet(fd, "/api/v1/configmaps");
    std::vector<char> buf(64 * 1024);
    std::size_t total = 0;
    for (ssize_t n; (n = ::recv(fd, buf.data(), buf.size(), 0)) > 0;) total += static_cast<std::size_t>(n);
    ::close(fd);
    done = true;
    sampler.join();
    bytes = static_cast<double>(total);
    const double transient = static_cast<double>(peak - baseline);
    peak_ratio_sum += transient / bytes;
    peak_mb_max = std::max(peak_mb_max, transient / 1e6);
  }
  state.counters["response_MB"] = bytes / 1e6;
  state.counters["peak_heap_MB"] = peak_mb_max;
  state.counters["peak_over_response"] = peak_ratio_sum / static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(bytes) * state.iterations());
  state.SetItemsProcessed(kListObjects * state.iterations());
}
BENCHMARK(BM_List100k)->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();

// ---------------------------------------------------------------------------------------------
// Watch fan-out

constexpr int kWatchers = 100;
constexpr int kSeconds = 5;  // writes run for this long at the rate of the benchmark's argument
constexpr int kObjects = 100;

struct FanoutRun {
  explicit FanoutRun(int writes) : commit_ns(static_cast<std::size_t>(writes) + kObjects + 16) {}
  Revision base = 0;
  std::vector<std::atomic<int64_t>> commit_ns;
};

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(SteadyClock::now().time_since_epoch()).count();
}

// Reads every watch stream on one epoll thread (so the client side costs one core at most),
// recording (arrival - commit) per event until each stream has `want` events or ends.
void WatchAll(const std::vector<int>& fds, FanoutRun& run, int want, std::vector<double>& latencies_us,
              std::atomic<int>& ready) {
  struct Stream {
    std::string pending;
    int seen = 0;
    bool got_headers = false;
    bool open = true;
  };
  std::vector<Stream> streams(fds.size());
  const int ep = ::epoll_create1(0);
  for (std::size_t i = 0; i < fds.size(); ++i) {
    ::fcntl(fds[i], F_SETFL, ::fcntl(fds[i], F_GETFL) | O_NONBLOCK);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    ::epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev);
  }
  std::size_t open_streams = fds.size();
  std::vector<char> buf(256 * 1024);
  std::vector<epoll_event> events(fds.size());
  constexpr std::string_view kRv = R"("resourceVersion":")";
  while (open_streams > 0) {
    const int n_ready = ::epoll_wait(ep, events.data(), static_cast<int>(events.size()), 1000);
    for (int e = 0; e < n_ready; ++e) {
      const std::size_t i = events[static_cast<std::size_t>(e)].data.u64;
      Stream& s = streams[i];
      if (!s.open) continue;
      for (;;) {
        const ssize_t n = ::recv(fds[i], buf.data(), buf.size(), 0);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (n <= 0) {
          s.open = false;
          --open_streams;
          ::epoll_ctl(ep, EPOLL_CTL_DEL, fds[i], nullptr);
          break;
        }
        const int64_t now = NowNs();
        if (!s.got_headers) {
          s.got_headers = true;
          ready.fetch_add(1);
        }
        s.pending.append(buf.data(), static_cast<std::size_t>(n));
        const std::size_t last_nl = s.pending.rfind('\n');
        if (last_nl == std::string::npos) continue;
        for (std::size_t pos = 0; (pos = s.pending.find(kRv, pos)) != std::string::npos && pos < last_nl;) {
          pos += kRv.size();
          const Revision idx = std::strtoll(s.pending.c_str() + pos, nullptr, 10) - run.base;
          if (idx >= 0 && idx < static_cast<Revision>(run.commit_ns.size())) {
            const int64_t t = run.commit_ns[static_cast<std::size_t>(idx)].load(std::memory_order_acquire);
            if (t > 0) {
              latencies_us.push_back(static_cast<double>(now - t) / 1e3);
              ++s.seen;
            }
          }
        }
        s.pending.erase(0, last_nl + 1);
        if (s.seen >= want) {
          s.open = false;
          --open_streams;
          ::epoll_ctl(ep, EPOLL_CTL_DEL, fds[i], nullptr);
          break;
        }
      }
    }
  }
  ::close(ep);
  for (int fd : fds) ::close(fd);
}

double Percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const std::size_t k = std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

void BM_WatchFanout(benchmark::State& state) {
  const int writes_per_second = static_cast<int>(state.range(0));
  const int writes = writes_per_second * kSeconds;
  auto server = StartServer();
  auto info = server->registry().Find("", "v1", "configmaps");
  if (!info) Die("no configmaps");
  std::vector<std::string> keys;
  for (int i = 0; i < kObjects; ++i) {
    keys.push_back(info->StorageKey("bench", fmt::format("bench-object-{:06d}", i)));
    auto r = server->storage().Create(keys.back(), [&](Revision rev) -> kube::Result<std::string> {
      return ConfigMapJson(i, rev, "bench");
    });
    if (!r.ok()) Die(r.error().ToString());
  }
  double p50 = 0, p99 = 0, max_us = 0, delivered = 0, achieved_rate = 0;
  for (auto _ : state) {
    FanoutRun run(writes);
    run.base = server->storage().CurrentRevision();
    std::atomic<int> ready{0};
    std::vector<double> all;
    all.reserve(static_cast<std::size_t>(kWatchers) * static_cast<std::size_t>(writes));
    std::vector<int> fds;
    for (int w = 0; w < kWatchers; ++w) {
      fds.push_back(Connect(server->port()));
      SendGet(fds.back(), fmt::format("/api/v1/namespaces/bench/configmaps?watch=1&resourceVersion={}", run.base));
    }
    std::thread reader(WatchAll, std::cref(fds), std::ref(run), writes, std::ref(all), std::ref(ready));
    // The watch response headers are flushed at once: wait until every watcher has them.
    while (ready.load() < kWatchers) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const auto start = SteadyClock::now();
    for (int n = 0; n < writes; ++n) {
      std::this_thread::sleep_until(start + std::chrono::microseconds(1000000LL * n / writes_per_second));
      const int i = n % kObjects;
      auto r = server->storage().Update(keys[static_cast<std::size_t>(i)], 0, [&](Revision rev) -> kube::Result<std::string> {
        run.commit_ns[static_cast<std::size_t>(rev - run.base)].store(NowNs(), std::memory_order_release);
        return ConfigMapJson(i, rev, "bench");
      });
      if (!r.ok()) Die(r.error().ToString());
    }
    achieved_rate = writes / std::chrono::duration<double>(SteadyClock::now() - start).count();
    reader.join();
    delivered = static_cast<double>(all.size());
    p50 = Percentile(all, 0.50);
    p99 = Percentile(all, 0.99);
    max_us = *std::max_element(all.begin(), all.end());
  }
  state.counters["p50_ms"] = p50 / 1e3;
  state.counters["p99_ms"] = p99 / 1e3;
  state.counters["max_ms"] = max_us / 1e3;
  state.counters["events_delivered"] = delivered;
  state.counters["writes_per_s"] = achieved_rate;
}
BENCHMARK(BM_WatchFanout)->Arg(100)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
