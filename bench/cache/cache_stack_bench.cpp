// Full-stack informer benchmark (issue 6): the embedded API server (memory storage, plain HTTP)
// serves n BenchObjects (../shared/bench/README.md) through their CustomResourceDefinition
// (bench.example.com/v1 benchobjects); an informer over the client ListerWatcher syncs them
// (time to HasSynced; peak RSS during the sync relative to the steady state afterwards), then
// 20k PATCHes from 2 writer threads are timed until the last MODIFIED reaches the handler.
// Run: build/release/bench/cache/cache_stack_bench [n=100000] [list|watchlist]
#include <malloc.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <kube/apiserver/apiserver.hpp>
#include <kube/cache/client_lister_watcher.hpp>
#include <kube/cache/shared_informer.hpp>
#include <kube/client/dynamic_client.hpp>

#include "common/bench_crd.hpp"
#include "common/bench_objects.hpp"

namespace {

using SteadyClock = std::chrono::steady_clock;
using namespace kube;
using namespace kube::cache;

double Seconds(SteadyClock::time_point a, SteadyClock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// A field of /proc/self/status in kB ("VmRSS", "VmHWM").
long StatusKb(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::atol(line.c_str() + field.size() + 1);
  }
  return -1;
}

// Resets VmHWM to the current RSS (Linux >= 4.0).
void ResetPeakRss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
}

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

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 100000;
  const bool watch_list = argc > 2 && std::string(argv[2]) == "watchlist";
  apiserver::ApiServerOptions so;
  so.storage = apiserver::ApiServerOptions::StorageKind::kMemory;
  so.tls = false;
  so.authenticate = false;
  so.storage_options.compaction_interval = std::chrono::seconds(0);
  auto server = apiserver::ApiServer::Start(so);
  if (!server.ok()) {
    std::fprintf(stderr, "server: %s\n", server.error().ToString().c_str());
    return 1;
  }
  client::Config config;
  config.host = (*server)->url();
  config.qps = -1;
  auto rest = client::RestClient::Create(config).value();
  const GroupVersionResource objects = bench::kBenchObjectsResource;
  if (auto failed = bench::SetUpBenchObjects(rest)) {
    std::fprintf(stderr, "%s\n", failed->c_str());
    return 1;
  }
  std::atomic<int> failures{0};
  const std::size_t json_bytes = bench::BenchObjectJson(0).size();
  const auto p0 = SteadyClock::now();
  Parallel(n - 1, 4, [&](int j) {
    const int i = j + 1;
    client::Api api(rest, objects, fmt::format("namespace-{:02d}", i % 100));
    if (!api.Create(*Object::Parse(bench::BenchObjectCreateBody(i)).value()).ok()) failures.fetch_add(1);
  });
  const auto p1 = SteadyClock::now();
  std::printf("populate                 %d BenchObjects through their CRD (%zu B JSON each) in %.1f s, %d failures\n", n,
              json_bytes, Seconds(p0, p1), failures.load());

  malloc_trim(0);
  const long base_kb = StatusKb("VmRSS");
  ResetPeakRss();
  InformerOptions io;
  io.name = "stack";
  io.transform = StripManagedFields;
  io.reflector.use_watch_list = watch_list;
  SharedIndexInformer informer(NewClientListerWatcher(client::Api(rest, objects)), io);
  std::atomic<int64_t> updates{0};
  auto handler = std::make_shared<ResourceEventHandlerFuncs>();
  handler->update = [&](const ObjectPtr&, const ObjectPtr&) { updates.fetch_add(1, std::memory_order_relaxed); };
  auto reg = *informer.AddEventHandler(handler);
  const auto t0 = SteadyClock::now();
  std::jthread run([&](std::stop_token st) { informer.Run(st); });
  while (!reg->HasSynced()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const auto t1 = SteadyClock::now();
  const long peak_kb = StatusKb("VmHWM");
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const long steady_kb = StatusKb("VmRSS");
  std::printf("mode                     %s\n", watch_list ? "streaming list (sendInitialEvents)" : "LIST (pages of 500)");
  std::printf("informer_sync_ms         %.0f (%zu objects cached)\n", Seconds(t0, t1) * 1e3,
              informer.GetIndexer().Size());
  std::printf("rss_kb                   base %ld, peak during sync %ld, steady after sync %ld\n", base_kb, peak_kb,
              steady_kb);
  std::printf("peak_over_steady         %.2fx (process), %.2fx (informer's increment over the base)\n",
              static_cast<double>(peak_kb) / static_cast<double>(steady_kb),
              static_cast<double>(peak_kb - base_kb) / static_cast<double>(steady_kb - base_kb));

  const int n_events = std::min(n, 20000);
  const auto e0 = SteadyClock::now();
  Parallel(n_events, 2, [&](int i) {
    client::Api api(rest, objects, fmt::format("namespace-{:02d}", i % 100));
    (void)api.Patch(fmt::format("bench-object-{:06d}", i), PatchType::kMerge,
                    R"({"spec":{"stringField00":"patched"}})");
  });
  const auto e1 = SteadyClock::now();
  while (updates.load() < n_events) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const auto e2 = SteadyClock::now();
  std::printf("end_to_end_events_per_s  %.0f (%d PATCHes from 2 threads: writes took %.2f s, last event +%.0f ms)\n",
              n_events / Seconds(e0, e2), n_events, Seconds(e0, e1), Seconds(e1, e2) * 1e3);
  run.request_stop();
  run.join();
  (*server)->Stop();
  return 0;
}
