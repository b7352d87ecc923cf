// Informer-machinery benchmarks with the shapes of ../shared/bench/README.md, so that the figures
// compare with client-go's reference table:
//  - DeltaFIFO Add 100k then Pop all into an Indexer with a namespace index (KnownObjects).
//  - DeltaFIFO Replace(100k) then Pop all.
//  - SharedIndexInformer over a fake ListerWatcher serving 100k pre-built BenchObjects: time to
//    HasSynced; then 200k MODIFIED events (objects built fresh from JSON per event, as a decoder
//    would) to one handler: events/s; live heap per cached object (mallinfo2) and peak RSS.
// Run: build/release/bench/cache/cache_bench [n]  (custom main; prints one line per measurement)
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <kube/base/mutex.hpp>
#include <kube/cache/delta_fifo.hpp>
#include <kube/cache/shared_informer.hpp>

#include "common/bench_objects.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using kube::ObjectPtr;
using namespace kube::cache;

double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

std::vector<ObjectPtr> BuildObjects(int n) {
  std::vector<ObjectPtr> out;
  out.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out.push_back(*kube::Object::Parse(kube::bench::BenchObjectJson(i)));
  return out;
}

long PeakRssKb() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

void FifoAddPop(const std::vector<ObjectPtr>& objs) {
  Indexer indexer;
  DeltaFifo fifo({.key_func = {}, .known_objects = &indexer, .emit_replaced = true});
  const auto t0 = Clock::now();
  for (const auto& o : objs) (void)fifo.Add(o);
  const auto t1 = Clock::now();
  while (fifo.Len() > 0) {
    (void)fifo.Pop([&](const Deltas& d, bool) {
      indexer.Add(d.back().object);
      return ProcessResult{};
    });
  }
  const auto t2 = Clock::now();
  const double n = static_cast<double>(objs.size());
  std::printf("deltafifo_add            %.2f M/s\n", n / Seconds(t0, t1) / 1e6);
  std::printf("deltafifo_pop_to_indexer %.2f M/s\n", n / Seconds(t1, t2) / 1e6);
  std::printf("deltafifo_add_plus_pop   %.2f M/s\n", n / Seconds(t0, t2) / 1e6);
}

void FifoReplacePop(const std::vector<ObjectPtr>& objs) {
  Indexer indexer;
  DeltaFifo fifo({.key_func = {}, .known_objects = &indexer, .emit_replaced = true});
  const auto t0 = Clock::now();
  (void)fifo.Replace(objs, "100000");
  const auto t1 = Clock::now();
  while (fifo.Len() > 0) {
    (void)fifo.Pop([&](const Deltas& d, bool) {
      indexer.Add(d.back().object);
      return ProcessResult{};
    });
  }
  const auto t2 = Clock::now();
  std::printf("deltafifo_replace_ms     %.1f\n", Seconds(t0, t1) * 1e3);
  std::printf("deltafifo_replace_plus_pop %.2f M/s\n", static_cast<double>(objs.size()) / Seconds(t0, t2) / 1e6);
}

// Serves one pre-built list exactly once (and then nothing: the reflector has what it needs) and
// hands out fake watch streams. Unlike FakeListerWatcher, which repeats its last list and so keeps
// every listed object alive, it lets the informer hold the only reference to what it caches, so
// that the heap measured afterwards is the informer's.
class OneShotListerWatcher final : public ListerWatcher {
 public:
  explicit OneShotListerWatcher(std::vector<ObjectPtr> items, std::string rv) {
    list_.items = std::move(items);
    list_.resource_version = std::move(rv);
  }
  kube::Result<kube::ObjectList> List(const kube::ListOptions&) override {
    kube::MutexLock lock(mu_);
    kube::ObjectList out;
    out.resource_version = list_.resource_version;
    out.items.swap(list_.items);
    return out;
  }
  kube::Result<std::unique_ptr<WatchStream>> Watch(const kube::ListOptions&) override {
    auto s = std::make_shared<FakeListerWatcher::Stream>();
    {
      kube::MutexLock lock(mu_);
      stream_ = s;
      cv_.SignalAll();
    }
    return std::unique_ptr<WatchStream>(std::make_unique<Handle>(s));
  }
  std::shared_ptr<FakeListerWatcher::Stream> WaitForStream() {
    kube::MutexLock lock(mu_);
    while (!stream_) cv_.Wait(mu_);
    return stream_;
  }

 private:
  class Handle final : public WatchStream {
   public:
    explicit Handle(std::shared_ptr<FakeListerWatcher::Stream> s) : s_(std::move(s)) {}
    kube::Result<std::optional<kube::WatchEvent>> Next() override { return s_->Next(); }
    void Stop() override { s_->Stop(); }

   private:
    std::shared_ptr<FakeListerWatcher::Stream> s_;
  };
  kube::Mutex mu_;
  kube::CondVar cv_;
  kube::ObjectList list_ KUBE_GUARDED_BY(mu_);
  std::shared_ptr<FakeListerWatcher::Stream> stream_ KUBE_GUARDED_BY(mu_);
};

void Informer(int n_objects, int n_events) {
  const std::size_t heap0 = kube::bench::HeapInUse();
  std::size_t json_bytes = 0;
  for (int i = 0; i < n_objects; ++i) json_bytes += kube::bench::BenchObjectJson(i).size();
  auto objs = BuildObjects(n_objects);
  const std::size_t heap_objs = kube::bench::HeapInUse();
  auto lw = std::make_shared<OneShotListerWatcher>(std::move(objs), std::to_string(n_objects));
  objs.clear();
  SharedIndexInformer informer(lw, InformerOptions{.name = "bench", .default_resync = {}, .indexers = {},
                                                   .transform = {}, .reflector = {.use_watch_list = false},
                                                   .clock = nullptr});
  std::atomic<int64_t> seen{0};
  auto handler = std::make_shared<ResourceEventHandlerFuncs>();
  handler->add = [&](const ObjectPtr&, bool) { seen.fetch_add(1, std::memory_order_relaxed); };
  handler->update = [&](const ObjectPtr&, const ObjectPtr&) { seen.fetch_add(1, std::memory_order_relaxed); };
  auto reg = *informer.AddEventHandler(handler);
  const auto t0 = Clock::now();
  std::jthread run([&](std::stop_token st) { informer.Run(st); });
  while (!reg->HasSynced()) std::this_thread::yield();
  const auto t1 = Clock::now();
  std::printf("informer_sync_%dk_ms      %.1f\n", n_objects / 1000, Seconds(t0, t1) * 1e3);
  const std::size_t heap_synced = kube::bench::HeapInUse();

  auto stream = lw->WaitForStream();
  // Events are built fresh from JSON per event, as a watch decoder would.
  const int64_t before = seen.load();
  const auto t2 = Clock::now();
  for (int i = 0; i < n_events; ++i) {
    kube::WatchEvent ev;
    ev.type = kube::WatchEventType::kModified;
    ev.object = *kube::Object::Parse(kube::bench::BenchObjectJson(i % n_objects, n_objects + 1 + i));
    stream->Push(std::move(ev));
  }
  while (seen.load() - before < n_events) std::this_thread::yield();
  const auto t3 = Clock::now();
  std::printf("informer_events_per_s    %.0f k (incl. JSON parse of each event)\n",
              n_events / Seconds(t2, t3) / 1e3);
  const std::size_t heap_cached = kube::bench::HeapInUse();
  const double n = static_cast<double>(n_objects);
  std::printf("json_bytes_per_object    %.0f B\n", static_cast<double>(json_bytes) / n);
  std::printf("heap_per_object_parsed   %.0f B\n", static_cast<double>(heap_objs - heap0) / n);
  std::printf("heap_per_cached_object   %.0f B after sync, %.0f B after the events (informer total / objects)\n",
              static_cast<double>(heap_synced - heap0) / n, static_cast<double>(heap_cached - heap0) / n);
  std::printf("peak_rss_per_object      %.0f B\n", static_cast<double>(PeakRssKb()) * 1024.0 / n);
  run.request_stop();
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 100000;
  {
    auto objs = BuildObjects(n);
    FifoAddPop(objs);
    FifoReplacePop(objs);
  }
  Informer(n, 2 * n);
  return 0;
}
