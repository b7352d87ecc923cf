// Object model benchmarks: parse throughput (MB/s) and retained heap per cached object for the
// ~4 KB and ~15 KB Pod fixtures and the shared BenchObject shape (1,376 bytes of JSON).
// Retained heap is measured with glibc's mallinfo2 over 10,000 live objects (not estimated).
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <kube/core/object.hpp>
#include <kube/core/watch_event.hpp>

#include "common/bench_objects.hpp"

namespace {

std::string ReadFixture(const std::string& name) {
  std::ifstream in(std::string(KUBE_TESTDATA_DIR) + "/" + name, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const std::string& Input(int which) {
  static const std::string pod4 = ReadFixture("pod_4k.json");
  static const std::string pod15 = ReadFixture("pod_15k.json");
  static const std::string bench = kube::bench::BenchObjectJson(12345);
  switch (which) {
    case 0: return bench;
    case 1: return pod4;
    default: return pod15;
  }
}

const char* Name(int which) {
  static const char* names[] = {"BenchObject", "Pod4k", "Pod15k"};
  return names[which];
}

void BM_ObjectParse(benchmark::State& state) {
  const std::string& json = Input(static_cast<int>(state.range(0)));
  state.SetLabel(Name(static_cast<int>(state.range(0))));
  for (auto _ : state) {
    auto obj = kube::Object::Parse(json);
    benchmark::DoNotOptimize(obj);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * json.size()));
  state.counters["json_bytes"] = static_cast<double>(json.size());
}
BENCHMARK(BM_ObjectParse)->DenseRange(0, 2);

// Retained heap: parse 10,000 distinct objects, keep them alive, divide the heap growth.
void BM_ObjectRetainedBytes(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  state.SetLabel(Name(which));
  constexpr int kCount = 10000;
  std::vector<std::string> inputs;
  inputs.reserve(kCount);
  for (int i = 0; i < kCount; ++i) {
    if (which == 0) {
      inputs.push_back(kube::bench::BenchObjectJson(i));
    } else {
      inputs.push_back(Input(which));
    }
  }
  double per_object = 0, json_bytes = 0;
  for (auto _ : state) {
    std::vector<kube::ObjectPtr> live;
    live.reserve(kCount);
    const std::size_t before = kube::bench::HeapInUse();
    for (const auto& s : inputs) live.push_back(*kube::Object::Parse(s));
    const std::size_t after = kube::bench::HeapInUse();
    per_object = static_cast<double>(after - before) / kCount;
    json_bytes = static_cast<double>(live[0]->Json().size());
    benchmark::DoNotOptimize(live);
  }
  state.counters["retained_bytes_per_object"] = per_object;
  state.counters["json_bytes"] = json_bytes;
  state.counters["ratio"] = per_object / json_bytes;
}
BENCHMARK(BM_ObjectRetainedBytes)->DenseRange(0, 2)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_StripManagedFields(benchmark::State& state) {
  auto obj = *kube::Object::Parse(Input(2));
  for (auto _ : state) {
    auto stripped = kube::StripManagedFields(obj);
    benchmark::DoNotOptimize(stripped);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * obj->Json().size()));
}
BENCHMARK(BM_StripManagedFields);

void BM_WatchEventDecode(benchmark::State& state) {
  const std::string line = kube::bench::BenchEventJson(777, 100000);
  for (auto _ : state) {
    auto ev = kube::DecodeWatchEvent(line);
    benchmark::DoNotOptimize(ev);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * line.size()));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WatchEventDecode);

void BM_ListParse10k(benchmark::State& state) {
  const std::string list = kube::bench::BenchObjectListJson(10000);
  for (auto _ : state) {
    auto parsed = kube::ObjectList::Parse(list);
    benchmark::DoNotOptimize(parsed);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * list.size()));
  state.SetItemsProcessed(state.iterations() * 10000);
}
BENCHMARK(BM_ListParse10k)->Unit(benchmark::kMillisecond);

void BM_GetSpecField(benchmark::State& state) {
  auto obj = *kube::Object::Parse(Input(1));
  for (auto _ : state) {
    auto v = obj->GetString("/status/phase");
    benchmark::DoNotOptimize(v);
  }
}
BENCHMARK(BM_GetSpecField);

}  // namespace

BENCHMARK_MAIN();
