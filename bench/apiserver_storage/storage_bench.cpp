// Storage engine write throughput: creates/s and updates/s for the memory and sqlite engines with
// 1 and 16 concurrent writers. Values are BenchObjects (~1.4 KB of JSON), built by the ValueFn
// with the write's revision, as the registry does. items_per_second is writes per second of wall
// time, summed over the writers.
//
// The sqlite database lives in $KUBE_BENCH_DIR (default: the current directory), so that fsync
// hits the disk being measured; it is deleted after each benchmark.
//
// Run: apiserver_storage_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <kube/apiserver/storage.hpp>

#include "common/bench_objects.hpp"

namespace {

using kube::Result;
using kube::apiserver::Revision;
using kube::apiserver::Storage;

enum class Engine { kMemory, kSqlite };
using enum Engine;

// Shared by the benchmark's threads: thread 0 sets it up before the timed loop and tears it
// down after (Google Benchmark runs a barrier at both ends of the loop).
std::unique_ptr<Storage> g_storage;
std::filesystem::path g_dir;

std::filesystem::path BenchDir() {
  const char* dir = std::getenv("KUBE_BENCH_DIR");
  return std::filesystem::path(dir != nullptr ? dir : ".") / "apiserver_storage_bench.tmp";
}

void SetUp(Engine engine) {
  const kube::apiserver::StorageOptions options{
      .compaction_interval = kube::Clock::Duration::zero()};
  if (engine == kMemory) {
    g_storage = kube::apiserver::NewMemoryStorage(options);
    return;
  }
  g_dir = BenchDir();
  std::filesystem::remove_all(g_dir);
  std::filesystem::create_directories(g_dir);
  auto s = kube::apiserver::NewSqliteStorage((g_dir / "kube.db").string(), options);
  if (!s.ok()) {
    fmt::print(stderr, "open: {}\n", s.error().ToString());
    std::abort();
  }
  g_storage = std::move(s).value();
}

void TearDown() {
  g_storage.reset();
  if (!g_dir.empty()) std::filesystem::remove_all(g_dir);
  g_dir.clear();
}

// The value the registry would write: the object JSON stamped with the write's revision.
kube::apiserver::ValueFn MakeValue(int64_t i) {
  return [i](Revision rev) -> Result<std::string> { return kube::bench::BenchObjectJson(i, rev); };
}

void BM_Create(benchmark::State& state, Engine engine) {
  if (state.thread_index() == 0) SetUp(engine);
  int64_t i = 0;
  for (auto _ : state) {
    const std::string key = fmt::format("/registry/bench/{}/{}", state.thread_index(), i);
    auto r = g_storage->Create(key, MakeValue(i));
    if (!r.ok()) state.SkipWithError(r.error().ToString().c_str());
    ++i;
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) TearDown();
}

void BM_Update(benchmark::State& state, Engine engine) {
  if (state.thread_index() == 0) {
    SetUp(engine);
    for (int t = 0; t < state.threads(); ++t) {
      auto r = g_storage->Create(fmt::format("/registry/bench/{}", t), MakeValue(t));
      if (!r.ok()) state.SkipWithError(r.error().ToString().c_str());
    }
  }
  const std::string key = fmt::format("/registry/bench/{}", state.thread_index());
  for (auto _ : state) {
    // Each writer updates its own object, so no write conflicts; expected = 0 (unconditional).
    auto r = g_storage->Update(key, 0, MakeValue(state.thread_index()));
    if (!r.ok()) state.SkipWithError(r.error().ToString().c_str());
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) TearDown();
}

}  // namespace

// Fixed iteration counts (per writer thread) keep memory bounded and runs short: the index keeps
// every version (compaction is off), and the memory engine would otherwise run millions of
// iterations; sqlite with one writer pays one fsync per write.
#define KUBE_STORAGE_BENCH(fn)                                                          \
  BENCHMARK_CAPTURE(fn, memory, kMemory)->Threads(1)->Iterations(160000)->UseRealTime(); \
  BENCHMARK_CAPTURE(fn, memory, kMemory)->Threads(16)->Iterations(10000)->UseRealTime(); \
  BENCHMARK_CAPTURE(fn, sqlite, kSqlite)->Threads(1)->Iterations(800)->UseRealTime();    \
  BENCHMARK_CAPTURE(fn, sqlite, kSqlite)->Threads(16)->Iterations(500)->UseRealTime()

KUBE_STORAGE_BENCH(BM_Create);
KUBE_STORAGE_BENCH(BM_Update);

BENCHMARK_MAIN();
