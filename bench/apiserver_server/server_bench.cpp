// HTTP-level benchmarks of the embedded API server (plain HTTP on loopback):
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
//   watcher (all streams are read by one epoll thread); p50/p99 over every (watcher, event)
//   pair. `writes_per_s` is the rate the writer achieved (below the rate asked = the machine
//   could not keep up).
// - BM_WatchFanoutWatchers/<watchers>: the same measurement with 1, 10, 100 or 1,000 watchers at
//   a fixed 100 writes/s for 3 s (the scaling curve of issue 10). Same counters.
// - BM_HttpWriteThroughput/<storage>/<clients>: storage 0 = memory, 1 = sqlite (in
//   $KUBE_BENCH_DIR, default the current directory); <clients> threads, each with its own
//   keep-alive connection, POST BenchObject-sized ConfigMaps for 2 s, then PUT (unconditional)
//   updates of the ones they created for 2 s. Counters: creates_per_s, updates_per_s and
//   p99_ms (request latency over both phases).
//
// Run: apiserver_server_bench --benchmark_repetitions=3 (figures in docs/performance.md).

#include <arpa/inet.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <kube/apiserver/apiserver.hpp>
#include <kube/base/mutex.hpp>

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
  // KUBE_BENCH_WATCH_COALESCE_US overrides StorageOptions::watch_coalesce (0 = off), for A/B runs.
  if (const char* coalesce = std::getenv("KUBE_BENCH_WATCH_COALESCE_US")) {
    o.storage_options.watch_coalesce = std::chrono::microseconds(std::atoll(coalesce));
  }
  // KUBE_BENCH_WATCH_DELIVERY_US overrides RestOptions::watch_delivery_period (0 = no delivery
  // thread: each watch writes from its own thread).
  if (const char* period = std::getenv("KUBE_BENCH_WATCH_DELIVERY_US")) {
    o.rest.watch_delivery_period = std::chrono::microseconds(std::atoll(period));
  }
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

constexpr int kWatchers = 100;  // BM_WatchFanout
constexpr int kSeconds = 5;     // BM_WatchFanout: writes run this long at the argument's rate
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

// Raises the soft limit on open descriptors to the hard limit (1,000 watchers need ~2,000: both
// ends of every connection live in this process).
void RaiseFdLimit() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return;
  if (lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    (void)::setrlimit(RLIMIT_NOFILE, &lim);
  }
}

// Starts a memory server with kObjects ConfigMaps in namespace "bench"; their storage keys.
std::vector<std::string> SeedFanoutObjects(ApiServer& server) {
  auto info = server.registry().Find("", "v1", "configmaps");
  if (!info) Die("no configmaps");
  std::vector<std::string> keys;
  for (int i = 0; i < kObjects; ++i) {
    keys.push_back(info->StorageKey("bench", fmt::format("bench-object-{:06d}", i)));
    auto r = server.storage().Create(keys.back(), [&](Revision rev) -> kube::Result<std::string> {
      return ConfigMapJson(i, rev, "bench");
    });
    if (!r.ok()) Die(r.error().ToString());
  }
  return keys;
}

struct FanoutStats {
  double p50_us = 0, p99_us = 0, max_us = 0, delivered = 0, achieved_rate = 0;
};

// One fan-out measurement: `watchers` streams, `writes_per_second` updates for `seconds`.
FanoutStats RunFanout(ApiServer& server, const std::vector<std::string>& keys, int watchers,
                      int writes_per_second, int seconds) {
  const int writes = writes_per_second * seconds;
  FanoutRun run(writes);
  run.base = server.storage().CurrentRevision();
  std::atomic<int> ready{0};
  std::vector<double> all;
  all.reserve(static_cast<std::size_t>(watchers) * static_cast<std::size_t>(writes));
  std::vector<int> fds;
  for (int w = 0; w < watchers; ++w) {
    fds.push_back(Connect(server.port()));
    SendGet(fds.back(), fmt::format("/api/v1/namespaces/bench/configmaps?watch=1&resourceVersion={}", run.base));
  }
  std::thread reader(WatchAll, std::cref(fds), std::ref(run), writes, std::ref(all), std::ref(ready));
  // The watch response headers are flushed at once: wait until every watcher has them.
  while (ready.load() < watchers) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const auto start = SteadyClock::now();
  for (int n = 0; n < writes; ++n) {
    std::this_thread::sleep_until(start + std::chrono::microseconds(1000000LL * n / writes_per_second));
    const int i = n % kObjects;
    auto r = server.storage().Update(keys[static_cast<std::size_t>(i)], 0, [&](Revision rev) -> kube::Result<std::string> {
      run.commit_ns[static_cast<std::size_t>(rev - run.base)].store(NowNs(), std::memory_order_release);
      return ConfigMapJson(i, rev, "bench");
    });
    if (!r.ok()) Die(r.error().ToString());
  }
  FanoutStats out;
  out.achieved_rate = writes / std::chrono::duration<double>(SteadyClock::now() - start).count();
  reader.join();
  out.delivered = static_cast<double>(all.size());
  out.p50_us = Percentile(all, 0.50);
  out.p99_us = Percentile(all, 0.99);
  out.max_us = all.empty() ? 0 : *std::max_element(all.begin(), all.end());
  return out;
}

void ReportFanout(benchmark::State& state, const FanoutStats& s) {
  state.counters["p50_ms"] = s.p50_us / 1e3;
  state.counters["p99_ms"] = s.p99_us / 1e3;
  state.counters["max_ms"] = s.max_us / 1e3;
  state.counters["events_delivered"] = s.delivered;
  state.counters["writes_per_s"] = s.achieved_rate;
}

void BM_WatchFanout(benchmark::State& state) {
  auto server = StartServer();
  const auto keys = SeedFanoutObjects(*server);
  FanoutStats stats;
  for (auto _ : state) stats = RunFanout(*server, keys, kWatchers, static_cast<int>(state.range(0)), kSeconds);
  ReportFanout(state, stats);
}
BENCHMARK(BM_WatchFanout)->Arg(100)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_WatchFanoutWatchers(benchmark::State& state) {
  constexpr int kRate = 100;
  constexpr int kScalingSeconds = 3;
  RaiseFdLimit();
  auto server = StartServer();
  const auto keys = SeedFanoutObjects(*server);
  FanoutStats stats;
  for (auto _ : state) stats = RunFanout(*server, keys, static_cast<int>(state.range(0)), kRate, kScalingSeconds);
  ReportFanout(state, stats);
}
BENCHMARK(BM_WatchFanoutWatchers)
    ->Arg(1)
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// ---------------------------------------------------------------------------------------------
// HTTP write throughput

constexpr auto kCreatePhase = std::chrono::seconds(2);
constexpr auto kUpdatePhase = std::chrono::seconds(2);

std::filesystem::path BenchDir() {
  const char* dir = std::getenv("KUBE_BENCH_DIR");
  return std::filesystem::path(dir != nullptr ? dir : ".") / "apiserver_server_bench.tmp";
}

// A ConfigMap request body: the BenchObject's metadata (without the server-set fields) and ~1.4 KB
// of JSON in total; `gen` varies the data between updates.
std::string ConfigMapBody(const std::string& name, int64_t i, int64_t gen) {
  std::string out = fmt::format(
      R"({{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"name":"{}","namespace":"default",)"
      R"("labels":{{"app.kubernetes.io/name":"bench-app-{:02d}","app.kubernetes.io/instance":"instance-{:06d}",)"
      R"("app.kubernetes.io/component":"component-{}","app.kubernetes.io/part-of":"bench-suite","tier":"{}"}},)"
      R"("annotations":{{"bench.example.com/description":"benchmark object number {:06d} used for informer memory and throughput measurement",)"
      R"("bench.example.com/owner":"team-{:02d}@example.com","bench.example.com/checksum":"{:064x}"}}}},"data":{{)",
      name, i % 50, i, i % 5, i % 2 == 0 ? "backend" : "frontend", i, i % 20, i);
  for (int k = 0; k < 10; ++k) out += fmt::format(R"("stringField{:02d}":"v{:02d}-{:012d}",)", k, k, i + gen);
  for (int k = 0; k < 10; ++k) out += fmt::format(R"("intField{:02d}":"{}",)", k, i * (k + 1) + k + gen);
  for (int k = 0; k < 10; ++k) {
    out += fmt::format(R"("boolField{:02d}":"{}"{})", k, (i + k + gen) % 2 == 0 ? "true" : "false", k < 9 ? "," : "");
  }
  out += "}}";
  return out;
}

// A keep-alive HTTP/1.1 connection that sends one request at a time and reads whole responses
// (Content-Length delimited, as the server answers single objects).
class KeepAliveClient {
 public:
  explicit KeepAliveClient(uint16_t port) : fd_(Connect(port)) {}
  ~KeepAliveClient() { ::close(fd_); }
  KeepAliveClient(const KeepAliveClient&) = delete;
  KeepAliveClient& operator=(const KeepAliveClient&) = delete;

  // The response's status code.
  int Roundtrip(std::string_view method, const std::string& target, const std::string& body) {
    std::string req = fmt::format(
        "{} {} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
        "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        method, target, body.size());
    req += body;
    for (std::size_t off = 0; off < req.size();) {
      const ssize_t n = ::send(fd_, req.data() + off, req.size() - off, MSG_NOSIGNAL);
      if (n <= 0) Die("send failed");
      off += static_cast<std::size_t>(n);
    }
    std::size_t head_end;
    while ((head_end = buf_.find("\r\n\r\n")) == std::string::npos) Fill();
    const int status = std::atoi(buf_.c_str() + buf_.find(' ') + 1);
    std::string head = buf_.substr(0, head_end);
    std::transform(head.begin(), head.end(), head.begin(), [](unsigned char c) { return std::tolower(c); });
    const std::size_t cl = head.find("content-length:");
    if (cl == std::string::npos) Die("response without Content-Length");
    const std::size_t total = head_end + 4 + std::strtoull(head.c_str() + cl + 15, nullptr, 10);
    while (buf_.size() < total) Fill();
    buf_.erase(0, total);
    return status;
  }

 private:
  void Fill() {
    char tmp[16 * 1024];
    const ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
    if (n <= 0) Die("connection closed");
    buf_.append(tmp, static_cast<std::size_t>(n));
  }

  const int fd_;
  std::string buf_;
};

void BM_HttpWriteThroughput(benchmark::State& state) {
  const bool sqlite = state.range(0) == 1;
  const int clients = static_cast<int>(state.range(1));
  ApiServerOptions o;
  o.storage = sqlite ? ApiServerOptions::StorageKind::kSqlite : ApiServerOptions::StorageKind::kMemory;
  o.tls = false;
  o.authenticate = false;
  o.storage_options.compaction_interval = kube::Clock::Duration::zero();
  const std::filesystem::path dir = BenchDir();
  if (sqlite) {
    std::filesystem::remove_all(dir);
    o.data_dir = dir.string();
  }
  double creates_per_s = 0, updates_per_s = 0, p99_us = 0;
  {
    auto started = ApiServer::Start(o);
    if (!started.ok()) Die(started.error().message);
    auto server = std::move(started).value();
    for (auto _ : state) {
      kube::Mutex mu;
      std::vector<double> latencies_us;  // appended under mu, read after the join
      std::atomic<int64_t> creates{0}, updates{0};
      std::atomic<int> at_barrier{0};
      auto client = [&](int c) {
        KeepAliveClient conn(server->port());
        std::vector<double> mine;
        std::vector<std::string> names;
        auto timed = [&](std::string_view method, const std::string& target, const std::string& body, int want) {
          const auto t0 = SteadyClock::now();
          const int status = conn.Roundtrip(method, target, body);
          if (status != want) Die(fmt::format("{} {}: HTTP {}", method, target, status));
          mine.push_back(std::chrono::duration<double, std::micro>(SteadyClock::now() - t0).count());
        };
        // Creates, then (once every client is done creating) updates.
        const auto create_end = SteadyClock::now() + kCreatePhase;
        while (SteadyClock::now() < create_end) {
          names.push_back(fmt::format("tput-{}-{:06d}", c, names.size()));
          timed("POST", "/api/v1/namespaces/default/configmaps",
                ConfigMapBody(names.back(), static_cast<int64_t>(names.size()), 0), 201);
        }
        creates.fetch_add(static_cast<int64_t>(names.size()));
        at_barrier.fetch_add(1);
        while (at_barrier.load() < clients) std::this_thread::sleep_for(std::chrono::microseconds(200));
        const auto update_end = SteadyClock::now() + kUpdatePhase;
        int64_t n = 0;
        for (; !names.empty() && SteadyClock::now() < update_end; ++n) {
          const std::size_t k = static_cast<std::size_t>(n) % names.size();
          timed("PUT", "/api/v1/namespaces/default/configmaps/" + names[k],
                ConfigMapBody(names[k], static_cast<int64_t>(k), n + 1), 200);
        }
        updates.fetch_add(n);
        kube::MutexLock lock(mu);
        latencies_us.insert(latencies_us.end(), mine.begin(), mine.end());
      };
      std::vector<std::thread> threads;
      for (int c = 0; c < clients; ++c) threads.emplace_back(client, c);
      for (auto& t : threads) t.join();
      creates_per_s = static_cast<double>(creates.load()) / std::chrono::duration<double>(kCreatePhase).count();
      updates_per_s = static_cast<double>(updates.load()) / std::chrono::duration<double>(kUpdatePhase).count();
      p99_us = Percentile(latencies_us, 0.99);
    }
  }
  if (sqlite) std::filesystem::remove_all(dir);
  state.counters["creates_per_s"] = creates_per_s;
  state.counters["updates_per_s"] = updates_per_s;
  state.counters["p99_ms"] = p99_us / 1e3;
}
BENCHMARK(BM_HttpWriteThroughput)
    ->ArgsProduct({{0, 1}, {1, 2, 4, 8, 16, 32}})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
