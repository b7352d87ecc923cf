// Controller-runtime benchmarks (issue 7) against the embedded API server (memory storage, plain
// HTTP, in process):
//  1. no-op reconcile throughput: n ConfigMaps exist; a manager starts a controller For(configmaps)
//     whose reconciler only counts; reported: time from Start to the n-th reconcile (includes the
//     initial LIST, decode and sync), then steady state: every key enqueued again by one producer,
//     reconciles/s until all n are done; for 1 and 4 workers.
//  2. event-to-reconcile latency under steady update load: with the controller running, one writer
//     PATCHes distinct ConfigMaps at a fixed rate; latency = start of the reconcile of that key minus
//     the moment the PATCH was sent; p50/p99 over all patches.
// Run: build/release/bench/controller/controller_bench [n=10000] [patches_per_s=500] [seconds=5]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include <kube/apiserver/apiserver.hpp>
#include <kube/client/dynamic_client.hpp>
#include <kube/kube.hpp>

namespace {

using namespace kube;
using namespace kube::controller;
using SteadyClock = std::chrono::steady_clock;

const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};

double Seconds(SteadyClock::time_point a, SteadyClock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

std::string Name(int i) { return fmt::format("cm-{:06d}", i); }

// Runs fn(i) for i in [0, n) on `threads` threads.
template <typename Fn>
void Parallel(int n, int threads, Fn fn) {
  std::atomic<int> next{0};
  std::vector<std::jthread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (int i = next.fetch_add(1); i < n; i = next.fetch_add(1)) fn(i);
    });
  }
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5)];
}

struct Throughput {
  double to_last_s = 0;         // Start -> n-th reconcile (includes LIST, decode and sync)
  double steady_per_s = 0;      // all n keys enqueued again by hand: reconciles/s
};

Throughput RunThroughput(const std::shared_ptr<client::RestClient>& rest, int n, int workers) {
  auto mgr = Manager::Create({.rest = rest});
  if (!mgr.ok()) {
    std::fprintf(stderr, "manager: %s\n", mgr.error().message.c_str());
    std::exit(1);
  }
  std::atomic<int> count{0};
  std::promise<void> all_done;
  std::promise<void> again_done;
  SteadyClock::time_point last{};
  SteadyClock::time_point again_last{};
  auto ctrl = ControllerManagedBy(**mgr)
                  .For(kConfigMaps)
                  .Named(fmt::format("noop-{}", workers))
                  .WithOptions({.max_concurrent_reconciles = workers})
                  .Complete([&](ReconcileContext&, const Request&) -> Result<ReconcileResult> {
                    const int c = count.fetch_add(1) + 1;
                    if (c == n) {
                      last = SteadyClock::now();
                      all_done.set_value();
                    } else if (c == 2 * n) {
                      again_last = SteadyClock::now();
                      again_done.set_value();
                    }
                    return ReconcileResult::Done();
                  });
  if (!ctrl.ok()) {
    std::fprintf(stderr, "controller: %s\n", ctrl.error().message.c_str());
    std::exit(1);
  }
  std::stop_source stop;
  const auto t0 = SteadyClock::now();
  auto run = std::async(std::launch::async, [&] { return (*mgr)->Start(stop.get_token()); });
  all_done.get_future().wait();
  // Steady state: the cache is synced and idle; one producer enqueues every key again.
  while ((*ctrl)->Stats().reconciles < n) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  Queue& queue = (*ctrl)->GetQueue();
  const auto t1 = SteadyClock::now();
  for (int i = 0; i < n; ++i) queue.Add(Request{ObjectKey{"default", Name(i)}});
  again_done.get_future().wait();
  stop.request_stop();
  (void)run.get();
  return {.to_last_s = Seconds(t0, last), .steady_per_s = n / std::max(1e-9, Seconds(t1, again_last))};
}

struct Latency {
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
  int patches = 0;
};

Latency RunLatency(const std::shared_ptr<client::RestClient>& rest, int n, int per_s,
                   int seconds) {
  auto mgr = Manager::Create({.rest = rest});
  if (!mgr.ok()) std::exit(1);
  std::mutex mu;
  std::unordered_map<std::string, SteadyClock::time_point> sent;      // guarded by mu
  std::unordered_map<std::string, SteadyClock::time_point> reconciled;  // guarded by mu
  std::atomic<bool> measuring{false};
  auto ctrl = ControllerManagedBy(**mgr)
                  .For(kConfigMaps)
                  .Named("latency")
                  .WithOptions({.max_concurrent_reconciles = 4})
                  .Complete([&](ReconcileContext&, const Request& r) -> Result<ReconcileResult> {
                    if (measuring.load()) {
                      const auto now = SteadyClock::now();
                      std::lock_guard lock(mu);
                      reconciled.try_emplace(r.key.name, now);
                    }
                    return ReconcileResult::Done();
                  });
  if (!ctrl.ok()) std::exit(1);
  std::stop_source stop;
  auto run = std::async(std::launch::async, [&] { return (*mgr)->Start(stop.get_token()); });
  // Wait until the initial reconciles are over (every object reconciled once).
  while ((*ctrl)->Stats().reconciles < n) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  measuring = true;
  client::Api api(rest, kConfigMaps, "default");
  const int total = std::min(n, per_s * seconds);
  const auto period = std::chrono::nanoseconds(1'000'000'000LL / per_s);
  auto next = SteadyClock::now();
  for (int i = 0; i < total; ++i) {
    std::this_thread::sleep_until(next);
    next += period;
    const std::string name = Name(i);
    {
      std::lock_guard lock(mu);
      sent[name] = SteadyClock::now();
    }
    auto r = api.Patch(name, PatchType::kMerge, fmt::format(R"({{"data":{{"rev":"{}"}}}})", i));
    if (!r.ok()) {
      std::fprintf(stderr, "patch: %s\n", r.error().message.c_str());
      std::exit(1);
    }
  }
  // Let the last events arrive.
  for (int waited = 0; waited < 2000; ++waited) {
    {
      std::lock_guard lock(mu);
      if (static_cast<int>(reconciled.size()) >= total) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  stop.request_stop();
  (void)run.get();
  std::vector<double> ms;
  for (const auto& [name, t] : sent) {
    auto it = reconciled.find(name);
    if (it != reconciled.end()) ms.push_back(std::chrono::duration<double, std::milli>(it->second - t).count());
  }
  return {.p50_ms = Percentile(ms, 0.5),
          .p99_ms = Percentile(ms, 0.99),
          .max_ms = ms.empty() ? 0 : *std::max_element(ms.begin(), ms.end()),
          .patches = static_cast<int>(ms.size())};
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 10000;
  const int per_s = argc > 2 ? std::atoi(argv[2]) : 500;
  const int seconds = argc > 3 ? std::atoi(argv[3]) : 5;
  kube::log::SetLevel(kube::log::Level::kWarn);

  apiserver::ApiServerOptions so;
  so.storage = apiserver::ApiServerOptions::StorageKind::kMemory;
  so.tls = false;
  so.authenticate = false;
  auto server = apiserver::ApiServer::Start(so);
  if (!server.ok()) {
    std::fprintf(stderr, "server: %s\n", server.error().message.c_str());
    return 1;
  }
  auto rest = client::RestClient::Create(
      {.host = "http://127.0.0.1:" + std::to_string((*server)->port()), .qps = -1});
  if (!rest.ok()) return 1;
  client::Api api(*rest, kConfigMaps, "default");
  Parallel(n, 4, [&](int i) {
    auto obj = Object::Parse(fmt::format(
        R"({{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{}","namespace":"default"}},"data":{{"k":"v"}}}})",
        Name(i)));
    auto r = api.Create(**obj);
    if (!r.ok()) {
      std::fprintf(stderr, "create: %s\n", r.error().message.c_str());
      std::exit(1);
    }
  });
  for (int workers : {1, 4}) {
    const Throughput t = RunThroughput(*rest, n, workers);
    std::printf("noop_reconcile objects=%d workers=%d start_to_all_reconciled_ms=%.0f "
                "steady_reconciles_per_s=%.0f\n",
                n, workers, t.to_last_s * 1e3, t.steady_per_s);
  }
  const Latency l = RunLatency(*rest, n, per_s, seconds);
  std::printf("event_to_reconcile patches_per_s=%d patches=%d p50_ms=%.2f p99_ms=%.2f max_ms=%.2f\n",
              per_s, l.patches, l.p50_ms, l.p99_ms, l.max_ms);
  (*server)->Stop();
  return 0;
}
