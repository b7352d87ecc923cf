// Workqueue benchmarks in the shapes of the client-go reference figures
// (../shared/bench/README.md). Run, for example:
//   build/release/bench/workqueue/workqueue_bench --benchmark_repetitions=3
//       --benchmark_report_aggregates_only=true     (one command line)
// Multi-threaded cases run one whole workload per iteration and report it with manual time;
// their rates are counters (median across repetitions is what docs/workqueue.md reports).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <latch>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>

#include <benchmark/benchmark.h>

#include <kube/workqueue/delaying_queue.hpp>
#include <kube/workqueue/queue.hpp>
#include <kube/workqueue/rate_limiter.hpp>
#include <kube/workqueue/rate_limiting_queue.hpp>

#include "alloc_counter.hpp"

namespace kube::workqueue {
namespace {

using Steady = std::chrono::steady_clock;

// CPU time of the whole process (all threads), in seconds: on a shared machine it is steadier
// than wall time, so the benchmarks report it per item next to the rates.
double ProcessCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

double SecondsSince(Steady::time_point t0) {
  return std::chrono::duration<double>(Steady::now() - t0).count();
}

enum class KeyShape { kObjectKey, kShort };

// kObjectKey: "namespace-NN/bench-object-NNNNNN", the key of a BenchObject (32 chars, so a
// std::string copy allocates). kShort: "k-NNNNNNN" (fits the small-string buffer).
std::string MakeKey(KeyShape shape, std::size_t i) {
  char buf[64];
  if (shape == KeyShape::kObjectKey) {
    std::snprintf(buf, sizeof buf, "namespace-%02zu/bench-object-%06zu", i % 100, i);
  } else {
    std::snprintf(buf, sizeof buf, "k-%07zu", i);
  }
  return buf;
}

// The first n keys of a shape (generated once, outside the timed regions).
std::span<const std::string> Keys(KeyShape shape, std::size_t n) {
  static std::vector<std::string> cache[2];
  auto& keys = cache[static_cast<int>(shape)];
  while (keys.size() < n) keys.push_back(MakeKey(shape, keys.size()));
  return std::span<const std::string>(keys).first(n);
}

// The index encoded in the last 6 digits of an object key.
std::size_t IndexOf(const std::string& key) {
  std::size_t i = 0;
  for (std::size_t p = key.size() - 6; p < key.size(); ++p) i = i * 10 + (key[p] - '0');
  return i;
}

void SetRate(benchmark::State& state, const char* name, double count, double seconds) {
  state.counters[name] = benchmark::Counter(count / seconds);
}

// (a) 1 producer Adds 1,000,000 distinct keys, 2 workers Get/Done. client-go: 2.54-2.83 M/s.
// (b) with adds_per_key = 4: each key Added 4x in a row. client-go: 8.0 M Add calls/s and
//     2.01 M items processed/s.
// (With `producers` > 1, each producer thread adds its own slice of the keys.)
void RunProducerWorkers(benchmark::State& state, KeyShape shape, int adds_per_key,
                        int producers = 1, int workers = 2) {
  constexpr std::size_t kItems = 1'000'000;
  const auto keys = Keys(shape, kItems);
  const auto add_all = [&](Queue<std::string>& q, std::span<const std::string> slice) {
    for (const auto& key : slice) {
      for (int r = 0; r < adds_per_key; ++r) q.Add(key);
    }
  };
  double seconds = 0;
  double cpu = 0;
  std::size_t processed = 0;
  for (auto _ : state) {
    Queue<std::string> q;
    std::atomic<std::size_t> done{0};
    const double cpu0 = ProcessCpuSeconds();
    const auto t0 = Steady::now();
    {
      std::vector<std::jthread> worker_threads;
      for (int w = 0; w < workers; ++w) {
        worker_threads.emplace_back([&] {
          std::size_t n = 0;
          while (auto key = q.Get()) {
            q.Done(std::move(*key));
            ++n;
          }
          done += n;
        });
      }
      if (producers == 1) {
        add_all(q, keys);
      } else {
        std::vector<std::jthread> producer_threads;
        const std::size_t per = kItems / static_cast<std::size_t>(producers);
        for (int p = 0; p < producers; ++p) {
          producer_threads.emplace_back(
              [&, p] { add_all(q, keys.subspan(static_cast<std::size_t>(p) * per, per)); });
        }
      }
      q.ShutDown();  // workers drain what is queued, then see shutdown
    }
    const double s = SecondsSince(t0);
    cpu += ProcessCpuSeconds() - cpu0;
    state.SetIterationTime(s);
    seconds += s;
    processed += done.load();
  }
  SetRate(state, "items_per_s", static_cast<double>(processed), seconds);
  state.counters["cpu_ns_per_item"] = cpu * 1e9 / static_cast<double>(processed);
  if (adds_per_key > 1) {
    SetRate(state, "add_calls_per_s",
            static_cast<double>(state.iterations() * kItems * adds_per_key), seconds);
  }
}

void BM_Queue_1MDistinctKeys_2Workers(benchmark::State& state) {
  RunProducerWorkers(state, static_cast<KeyShape>(state.range(0)), 1);
}
BENCHMARK(BM_Queue_1MDistinctKeys_2Workers)
    ->ArgName("short_keys")->Arg(0)->Arg(1)
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_Queue_1MKeys_Added4x_2Workers(benchmark::State& state) {
  RunProducerWorkers(state, KeyShape::kObjectKey, 4);
}
BENCHMARK(BM_Queue_1MKeys_Added4x_2Workers)
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

// Not a client-go shape: more threads than the machine has cores (here 2 vCPUs), to check that
// the queue's spinning locks (internal::SpinLock) do not collapse when lock holders are
// preempted. 1M distinct object keys split among the producers.
void BM_Queue_1MDistinctKeys_Oversubscribed(benchmark::State& state) {
  RunProducerWorkers(state, KeyShape::kObjectKey, 1, static_cast<int>(state.range(0)),
                     static_cast<int>(state.range(1)));
}
BENCHMARK(BM_Queue_1MDistinctKeys_Oversubscribed)
    ->ArgNames({"producers", "workers"})->Args({4, 16})->Args({8, 64})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

// (c) single thread Add/Get/Done with 1,000 items queued: ns per item and heap allocations per
// item once warmed. Target: <= 150 ns and 0 allocations.
void BM_Queue_SingleThread_AddGetDone(benchmark::State& state) {
  const auto shape = static_cast<KeyShape>(state.range(0));
  constexpr std::size_t kKeys = 2048;  // twice the depth: an added key is never still queued
  constexpr std::size_t kDepth = 1000;
  const auto keys = Keys(shape, kKeys);
  Queue<std::string> q;
  std::size_t next = 0;
  for (; next < kDepth; ++next) q.Add(keys[next]);
  auto step = [&] {
    q.Add(keys[next++ % kKeys]);
    auto item = q.Get();
    benchmark::DoNotOptimize(item);
    q.Done(std::move(*item));
  };
  for (int i = 0; i < 200'000; ++i) step();  // warm: every slot and buffer at its size
  const std::uint64_t allocs0 = bench::Allocations();
  for (auto _ : state) step();
  state.counters["allocs_per_item"] =
      static_cast<double>(bench::Allocations() - allocs0) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_Queue_SingleThread_AddGetDone)->ArgName("short_keys")->Arg(0)->Arg(1);

// (d) RateLimitingQueue(DefaultControllerRateLimiter): 100k Add, 2 workers Get+Forget+Done.
// client-go: 1.71-2.0 M items/s.
void BM_RateLimitingQueue_100kAdd_2Workers(benchmark::State& state) {
  constexpr std::size_t kItems = 100'000;
  const auto keys = Keys(KeyShape::kObjectKey, kItems);
  double seconds = 0;
  double cpu = 0;
  std::size_t processed = 0;
  for (auto _ : state) {
    RateLimitingQueue<std::string> q;
    std::atomic<std::size_t> done{0};
    const double cpu0 = ProcessCpuSeconds();
    const auto t0 = Steady::now();
    {
      std::vector<std::jthread> workers;
      for (int w = 0; w < 2; ++w) {
        workers.emplace_back([&] {
          std::size_t n = 0;
          while (auto key = q.Get()) {
            q.Forget(*key);
            q.Done(std::move(*key));
            ++n;
          }
          done += n;
        });
      }
      for (const auto& key : keys) q.Add(key);
      q.ShutDown();
    }
    const double s = SecondsSince(t0);
    cpu += ProcessCpuSeconds() - cpu0;
    state.SetIterationTime(s);
    seconds += s;
    processed += done.load();
  }
  SetRate(state, "items_per_s", static_cast<double>(processed), seconds);
  state.counters["cpu_ns_per_item"] = cpu * 1e9 / static_cast<double>(processed);
}
BENCHMARK(BM_RateLimitingQueue_100kAdd_2Workers)
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

// (e) AddRateLimited with ItemExponentialFailure(1 ns, 1 ms), 10k items, 2 workers; with
// retries = 3 each item is re-AddRateLimited 3x before Forget. client-go: 1.0-1.14 M items/s;
// 0.95-1.04 M deliveries/s with retries.
void BM_AddRateLimited_10kItems(benchmark::State& state) {
  const int retries = static_cast<int>(state.range(0));
  constexpr std::size_t kItems = 10'000;
  const auto keys = Keys(KeyShape::kObjectKey, kItems);
  double seconds = 0;
  double cpu = 0;
  std::size_t deliveries = 0;
  for (auto _ : state) {
    RateLimitingQueue<std::string> q(
        std::make_unique<ItemExponentialFailureRateLimiter<std::string>>(
            ItemExponentialFailureOptions{.base_delay = std::chrono::nanoseconds(1),
                                          .max_delay = std::chrono::milliseconds(1)}));
    std::latch finished(kItems);
    std::atomic<std::size_t> delivered{0};
    const double cpu0 = ProcessCpuSeconds();
    const auto t0 = Steady::now();
    {
      std::vector<std::jthread> workers;
      for (int w = 0; w < 2; ++w) {
        workers.emplace_back([&] {
          std::size_t n = 0;
          while (auto key = q.Get()) {
            ++n;
            if (q.NumRequeues(*key) <= retries) {
              q.AddRateLimited(*key);  // a failure: retry later
              q.Done(*key);
            } else {
              q.Forget(*key);
              q.Done(*key);
              finished.count_down();
            }
          }
          delivered += n;
        });
      }
      for (const auto& key : keys) q.AddRateLimited(key);
      finished.wait();
      q.ShutDown();
    }
    const double s = SecondsSince(t0);
    cpu += ProcessCpuSeconds() - cpu0;
    state.SetIterationTime(s);
    seconds += s;
    deliveries += delivered.load();
  }
  SetRate(state, "items_per_s", static_cast<double>(state.iterations() * kItems), seconds);
  SetRate(state, "deliveries_per_s", static_cast<double>(deliveries), seconds);
  state.counters["cpu_ns_per_delivery"] = cpu * 1e9 / static_cast<double>(deliveries);
}
BENCHMARK(BM_AddRateLimited_10kItems)
    ->ArgName("retries")->Arg(0)->Arg(3)
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

double PercentileMs(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[i] * 1e3;
}

// (f) DelayingQueue on the real clock: 100k AddAfter with delays uniform in 0..100 ms, 2 workers
// record when each item arrives. client-go: 0.51 M AddAfter calls/s; lateness p50 49 ms, p99
// 64 ms; for items due after the burst p50 0.8 ms, p99 6.5 ms. Target: p99 <= 13 ms.
void BM_DelayingQueue_100kAddAfter_Lateness(benchmark::State& state) {
  constexpr std::size_t kItems = 100'000;
  const auto keys = Keys(KeyShape::kObjectKey, kItems);
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<std::int64_t> uniform(0, 100'000'000);  // ns
  std::vector<Clock::Duration> delays(kItems);
  for (auto& d : delays) d = std::chrono::nanoseconds(uniform(rng));

  std::vector<double> calls_per_s, p50, p99, after_p50, after_p99, after_count;
  for (auto _ : state) {
    std::vector<Steady::time_point> ready(kItems);
    std::vector<double> lateness(kItems);  // seconds
    DelayingQueue<std::string> q;
    std::latch finished(kItems);
    const auto t0 = Steady::now();
    Steady::time_point burst_end;
    {
      std::vector<std::jthread> workers;
      for (int w = 0; w < 2; ++w) {
        workers.emplace_back([&] {
          while (auto key = q.Get()) {
            const auto now = Steady::now();
            const std::size_t i = IndexOf(*key);
            lateness[i] = std::chrono::duration<double>(now - ready[i]).count();
            q.Done(*key);
            finished.count_down();
          }
        });
      }
      for (std::size_t i = 0; i < kItems; ++i) {
        ready[i] = Steady::now() + delays[i];
        q.AddAfter(keys[i], delays[i]);
      }
      burst_end = Steady::now();
      finished.wait();
      q.ShutDown();
    }
    state.SetIterationTime(SecondsSince(t0));
    std::vector<double> after;
    for (std::size_t i = 0; i < kItems; ++i) {
      if (ready[i] > burst_end) after.push_back(lateness[i]);
    }
    calls_per_s.push_back(static_cast<double>(kItems) /
                          std::chrono::duration<double>(burst_end - t0).count());
    p50.push_back(PercentileMs(lateness, 0.50));
    p99.push_back(PercentileMs(lateness, 0.99));
    after_p50.push_back(PercentileMs(after, 0.50));
    after_p99.push_back(PercentileMs(after, 0.99));
    after_count.push_back(static_cast<double>(after.size()));
  }
  auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0 : s / static_cast<double>(v.size());
  };
  state.counters["addafter_calls_per_s"] = mean(calls_per_s);
  state.counters["late_p50_ms"] = mean(p50);
  state.counters["late_p99_ms"] = mean(p99);
  state.counters["after_burst_p50_ms"] = mean(after_p50);
  state.counters["after_burst_p99_ms"] = mean(after_p99);
  state.counters["after_burst_items"] = mean(after_count);
}
BENCHMARK(BM_DelayingQueue_100kAddAfter_Lateness)
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace kube::workqueue

BENCHMARK_MAIN();
