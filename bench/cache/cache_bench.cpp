// Informer-machinery benchmarks with the shapes of ../shared/bench/README.md, so that the figures
// compare with client-go's reference table:
//  - DeltaFIFO Add 100k then Pop all into an Indexer with a namespace index (KnownObjects).
//  - DeltaFIFO Replace(100k) then Pop all.
//  - SharedIndexInformer over a fake ListerWatcher serving 100k pre-built BenchObjects: time to
//    HasSynced; then 200k MODIFIED events to one handler, twice: (a) each event decoded from JSON
//    in the timed loop, (b) event objects decoded before the clock (client-go's "pre-built"
//    shape); events/s; live heap per cached object (mallinfo2) and peak RSS.
// Run: build/release/bench/cache/cache_bench [n] [all|fifo|fifo-add|fifo-replace|informer|json|prebuilt|sync]
// (custom main; prints one line per measurement)
#include <sys/resource.h>
#include <time.h>

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

// CPU seconds used by the whole process (every thread). On this shared, overloaded 2-vCPU
// machine the wall-clock rates mostly measure our share of the scheduler; the CPU time per item
// is the load-independent figure, so every measurement prints both. Waits below block (no
// spinning), so the CPU time is the work of the path being measured.
double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::vector<ObjectPtr> BuildObjects(int n) {
  std::vector<ObjectPtr> out;
  out.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out.push_back(*kube::Object::Parse(kube::bench::BenchObjectJson(i)));
  return out;
}

// Minor page faults of the process so far: on this VM a first touch of a 4 KiB page costs about
// 14 us, so new memory can dominate a cold run (printed per item next to the CPU time).
long MinorFaults() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

long PeakRssKb() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

void FifoAddPop(const std::vector<ObjectPtr>& objs) {
  Indexer indexer;
  DeltaFifo fifo({.key_func = {}, .known_objects = &indexer, .emit_replaced = true});
  const long f0 = MinorFaults();
  const double c0 = CpuSeconds();
  const auto t0 = Clock::now();
  for (const auto& o : objs) (void)fifo.Add(o);
  const auto t1 = Clock::now();
  const double c1 = CpuSeconds();
  const long f1 = MinorFaults();
  while (fifo.Len() > 0) {
    (void)fifo.Pop([&](const Deltas& d, bool) {
      indexer.Add(d.back().object);
      return ProcessResult{};
    });
  }
  const auto t2 = Clock::now();
  const double c2 = CpuSeconds();
  const long f2 = MinorFaults();
  const double n = static_cast<double>(objs.size());
  std::printf("deltafifo_add            %.2f M/s  (cpu %.3f us/item; %.3f page faults/item)\n", n / Seconds(t0, t1) / 1e6,
              (c1 - c0) / n * 1e6, static_cast<double>(f1 - f0) / n);
  std::printf("deltafifo_pop_to_indexer %.2f M/s  (cpu %.3f us/item; %.3f page faults/item)\n", n / Seconds(t1, t2) / 1e6,
              (c2 - c1) / n * 1e6, static_cast<double>(f2 - f1) / n);
  std::printf("deltafifo_add_plus_pop   %.2f M/s  (cpu %.3f us/item = %.2f M/s of CPU)\n", n / Seconds(t0, t2) / 1e6,
              (c2 - c0) / n * 1e6, n / (c2 - c0) / 1e6);
}

void FifoReplacePop(const std::vector<ObjectPtr>& objs) {
  Indexer indexer;
  DeltaFifo fifo({.key_func = {}, .known_objects = &indexer, .emit_replaced = true});
  const long f0 = MinorFaults();
  const double c0 = CpuSeconds();
  const auto t0 = Clock::now();
  (void)fifo.Replace(objs, "100000");
  const auto t1 = Clock::now();
  const double c1 = CpuSeconds();
  const long f1 = MinorFaults();
  while (fifo.Len() > 0) {
    (void)fifo.Pop([&](const Deltas& d, bool) {
      indexer.Add(d.back().object);
      return ProcessResult{};
    });
  }
  const auto t2 = Clock::now();
  const double c2 = CpuSeconds();
  const double n = static_cast<double>(objs.size());
  std::printf("deltafifo_replace_ms     %.1f  (cpu %.1f ms; %.3f page faults/item)\n", Seconds(t0, t1) * 1e3,
              (c1 - c0) * 1e3, static_cast<double>(f1 - f0) / n);
  std::printf("deltafifo_replace_plus_pop %.2f M/s  (cpu %.3f us/item = %.2f M/s of CPU)\n", n / Seconds(t0, t2) / 1e6,
              (c2 - c0) / n * 1e6, n / (c2 - c0) / 1e6);
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

void Informer(int n_objects, int n_events, bool mode_events_json, bool mode_events_prebuilt) {
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
  // The handler counts notifications and wakes the bench thread when `target` is reached.
  kube::Mutex mu;
  kube::CondVar cv;
  int64_t seen = 0;  // touched only by the handler thread, so unguarded
  std::atomic<int64_t> target{-1};
  std::atomic<bool> reached{false};
  const auto count = [&] {
    if (++seen == target.load(std::memory_order_acquire)) {
      kube::MutexLock lock(mu);
      reached.store(true);
      cv.SignalAll();
    }
  };
  const auto wait_reached = [&] {
    kube::MutexLock lock(mu);
    while (!reached.load()) cv.Wait(mu);
    reached.store(false);
  };
  auto handler = std::make_shared<ResourceEventHandlerFuncs>();
  handler->add = [&](const ObjectPtr&, bool) { count(); };
  handler->update = [&](const ObjectPtr&, const ObjectPtr&) { count(); };
  auto reg = *informer.AddEventHandler(handler);
  bool synced = false;
  reg->OnSynced([&] {
    kube::MutexLock lock(mu);
    synced = true;
    cv.SignalAll();
  });
  const long f0 = MinorFaults();
  const double c0 = CpuSeconds();
  const auto t0 = Clock::now();
  std::jthread run([&](std::stop_token st) { informer.Run(st); });
  // client-go's figure is the informer's HasSynced (store populated, notifications queued), polled
  // every millisecond as the Go peer does; the handler's own sync (every initial add delivered)
  // comes after it.
  while (!informer.HasSynced()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const auto t_store = Clock::now();
  {
    kube::MutexLock lock(mu);
    while (!synced) cv.Wait(mu);
  }
  const auto t1 = Clock::now();
  const double c1 = CpuSeconds();
  std::printf("informer_sync_%dk_ms      %.1f  (informer HasSynced, polled every 1 ms as client-go's figure)\n",
              n_objects / 1000, Seconds(t0, t_store) * 1e3);
  std::printf("handler_sync_%dk_ms       %.1f  (every initial add delivered to the handler; cpu %.1f ms; %.3f page faults/object)\n",
              n_objects / 1000, Seconds(t0, t1) * 1e3, (c1 - c0) * 1e3,
              static_cast<double>(MinorFaults() - f0) / n_objects);
  const std::size_t heap_synced = kube::bench::HeapInUse();
  const long peak_rss_synced_kb = PeakRssKb();  // before the bench builds its event buffers

  auto stream = lw->WaitForStream();
  const double n = static_cast<double>(n_objects);
  // Event i modifies object i % n_objects at resourceVersion n_objects + 1 + i.
  const auto event_json = [&](int i) { return kube::bench::BenchObjectJson(i % n_objects, n_objects + 1 + i); };
  int64_t delivered = n_objects;  // the initial adds
  // Returns {k events/s wall, CPU us per event (all threads)}.
  const auto push_and_wait = [&](auto&& make_object) {
    delivered += n_events;
    target.store(delivered, std::memory_order_release);
    const double cpu0 = CpuSeconds();
    const auto start = Clock::now();
    for (int i = 0; i < n_events; ++i) {
      kube::WatchEvent ev;
      ev.type = kube::WatchEventType::kModified;
      ev.object = make_object(i);
      stream->Push(std::move(ev));
    }
    wait_reached();
    const double wall = Seconds(start, Clock::now());
    return std::pair<double, double>{static_cast<double>(n_events) / wall / 1e3,
                                     (CpuSeconds() - cpu0) / static_cast<double>(n_events) * 1e6};
  };
  if (mode_events_json) {
    // (a) The JSON text is generated before the clock starts; each event is decoded from it
    // inside the timed loop, as a watch decoder would (no client-go figure includes decoding).
    std::vector<std::string> texts;
    texts.reserve(static_cast<std::size_t>(n_events));
    for (int i = 0; i < n_events; ++i) texts.push_back(event_json(i));
    const auto [kps, cpu_us] = push_and_wait([&](int i) {
      auto obj = *kube::Object::Parse(texts[static_cast<std::size_t>(i)]);
      texts[static_cast<std::size_t>(i)] = std::string();
      return obj;
    });
    std::printf("informer_events_json_per_s   %.0f k  (cpu %.2f us/event = %.0f k/s of CPU; each event decoded from JSON in the timed loop)\n",
                kps, cpu_us, 1e3 / cpu_us);
  }
  if (mode_events_prebuilt) {
    // (b) Every event object is decoded before the clock starts (client-go's "pre-built" shape,
    // 234 k/s): the figure is the informer pipeline alone. Our Object is an immutable parse of
    // its JSON with no copy constructor, so "built fresh without decoding" (client-go's 147 k/s
    // shape: a typed struct allocated per event) has no exact equivalent; this is its upper bound.
    std::vector<ObjectPtr> prebuilt;
    prebuilt.reserve(static_cast<std::size_t>(n_events));
    for (int i = 0; i < n_events; ++i) prebuilt.push_back(*kube::Object::Parse(event_json(n_events + i)));
    const auto [kps, cpu_us] = push_and_wait([&](int i) { return std::move(prebuilt[static_cast<std::size_t>(i)]); });
    std::printf("informer_events_prebuilt_per_s %.0f k  (cpu %.2f us/event = %.0f k/s of CPU; objects decoded before the clock)\n",
                kps, cpu_us, 1e3 / cpu_us);
  }
  const std::size_t heap_cached = kube::bench::HeapInUse();
  std::printf("json_bytes_per_object    %.0f B\n", static_cast<double>(json_bytes) / n);
  std::printf("heap_per_object_parsed   %.0f B\n", static_cast<double>(heap_objs - heap0) / n);
  std::printf("heap_per_cached_object   %.0f B after sync, %.0f B after the events (informer total / objects)\n",
              static_cast<double>(heap_synced - heap0) / n, static_cast<double>(heap_cached - heap0) / n);
  std::printf("peak_rss_per_object      %.0f B through the sync (whole process, incl. the FIFO runs); %.0f B at the "
              "end (also counts the bench's 200k pre-decoded event objects and texts)\n",
              static_cast<double>(peak_rss_synced_kb) * 1024.0 / n, static_cast<double>(PeakRssKb()) * 1024.0 / n);
  run.request_stop();
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 100000;
  // Which parts to run (for profiling one path at a time): all (default), fifo, fifo-add,
  // fifo-replace (one of the two FIFO runs, on a heap the other has not warmed), informer, json,
  // prebuilt (the last two: informer sync plus that one event shape), sync (the informer sync
  // alone).
  const std::string mode = argc > 2 ? argv[2] : "all";
  const bool fifo = mode == "all" || mode == "fifo" || mode == "fifo-add" || mode == "fifo-replace";
  if (n <= 0 || (!fifo && mode != "informer" && mode != "json" && mode != "prebuilt" && mode != "sync")) {
    std::fprintf(stderr, "usage: cache_bench [n > 0] [all|fifo|fifo-add|fifo-replace|informer|json|prebuilt|sync]\n");
    return 2;
  }
  if (fifo) {
    auto objs = BuildObjects(n);
    if (mode != "fifo-replace") FifoAddPop(objs);
    if (mode != "fifo-add") FifoReplacePop(objs);
  }
  if (mode == "all" || !fifo) {
    Informer(n, 2 * n, mode == "all" || mode == "informer" || mode == "json",
             mode == "all" || mode == "informer" || mode == "prebuilt");
  }
  return 0;
}
