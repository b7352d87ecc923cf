// kube::client benchmarks (issue 5): watch decode throughput on one stream of ~10 KB Pod
// MODIFIED events (decoder alone, through WatchStream from memory, and over a loopback socket
// through the production HTTP transport), and the decode of a 100k-item BenchObject list
// through Api::List.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>

#include <kube/client/dynamic_client.hpp>
#include <kube/client/fake_transport.hpp>
#include <kube/client/http_transport.hpp>
#include <kube/client/watch.hpp>
#include <kube/core/object.hpp>

#include "client/testing/scripted_server.hpp"
#include "common/bench_objects.hpp"

namespace {

using kube::client::FakeTransport;
using kube::client::WatchDecoder;
using kube::client::WatchStream;

/// The 4.7 KB Pod fixture padded with an annotation to `target` bytes of compact JSON.
std::string PodOfSize(std::size_t target, int i) {
  std::ifstream in(std::string(KUBE_TESTDATA_DIR) + "/pod_4k.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto pod = kube::Object::Parse(text).value();
  kube::ObjectBuilder b(*pod);
  b.SetName("pod-" + std::to_string(i));
  b.SetResourceVersion(std::to_string(1000 + i));
  const std::size_t base = b.Build().value()->Json().size();
  const std::size_t pad = target > base + 40 ? target - base - 40 : 0;
  b.SetAnnotation("bench.kubecpp.io/padding", std::string(pad, 'x'));
  return std::string(b.Build().value()->Json());
}

/// `n` MODIFIED events of ~10 KB Pods, newline-terminated, as one stream body.
const std::string& PodStream(int n) {
  static std::string body = [n] {
    std::string s;
    for (int i = 0; i < n; ++i) s += R"({"type":"MODIFIED","object":)" + PodOfSize(10 * 1024, i) + "}\n";
    return s;
  }();
  return body;
}

constexpr int kEvents = 2000;

void BM_WatchDecode10KPod(benchmark::State& state) {
  const std::string& body = PodStream(kEvents);
  const std::size_t chunk = 64 * 1024;  // what the transport reads at a time
  for (auto _ : state) {
    WatchDecoder decoder;
    int events = 0;
    for (std::size_t off = 0; off < body.size(); off += chunk) {
      decoder.Feed(std::string_view(body).substr(off, chunk));
      while (auto ev = decoder.Next()) {
        if (!ev->ok()) state.SkipWithError("decode failed");
        ++events;
      }
    }
    benchmark::DoNotOptimize(events);
  }
  state.SetItemsProcessed(state.iterations() * kEvents);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * body.size()));
  state.counters["event_bytes"] = static_cast<double>(body.size()) / kEvents;
}
BENCHMARK(BM_WatchDecode10KPod)->Unit(benchmark::kMillisecond);

/// The same stream through WatchStream over a (fake) response stream delivering 64 KB chunks
/// from another thread: decoder plus the stream hand-off.
void BM_WatchStream10KPod(benchmark::State& state) {
  const std::string& body = PodStream(kEvents);
  for (auto _ : state) {
    FakeTransport transport;
    auto script = transport.EnqueueStream(200);
    auto stream = transport.Open({}).value();
    WatchStream watch(std::move(stream));
    std::thread producer([&] {
      for (std::size_t off = 0; off < body.size(); off += 64 * 1024) script->Push(body.substr(off, 64 * 1024));
      script->Close();
    });
    int events = 0;
    for (;;) {
      auto ev = watch.Next();
      if (!ev.ok() || !ev->has_value()) break;
      ++events;
    }
    producer.join();
    if (events != kEvents) state.SkipWithError("lost events");
  }
  state.SetItemsProcessed(state.iterations() * kEvents);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * body.size()));
}
BENCHMARK(BM_WatchStream10KPod)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

/// The same stream over a loopback TCP socket: a local HTTP server writes it as a chunked
/// response (64 KB chunks) and the client reads it through the production HttpTransport (Beast
/// chunked parsing) and WatchStream, as a real watch would.
void BM_WatchHttp10KPod(benchmark::State& state) {
  const std::string& body = PodStream(kEvents);
  std::string response = kube::client::testing::ChunkedHead(200);
  for (std::size_t off = 0; off < body.size(); off += 64 * 1024) {
    response += kube::client::testing::Chunk(std::string_view(body).substr(off, 64 * 1024));
  }
  response += kube::client::testing::LastChunk();
  kube::client::testing::ScriptedServer server({}, [&response](kube::client::testing::ServerConn& c) {
    while (c.ReadRequest()) {
      if (!c.Write(response)) return;
    }
  });
  auto transport = kube::client::NewHttpTransport({.server = server.url()}).value();
  for (auto _ : state) {
    kube::client::HttpRequest request;
    request.target = "/api/v1/pods?watch=true";
    auto stream = transport->Open(request);
    if (!stream.ok()) {
      state.SkipWithError("open failed");
      break;
    }
    WatchStream watch(std::move(stream).value());
    int events = 0;
    for (;;) {
      auto ev = watch.Next();
      if (!ev.ok() || !ev->has_value()) break;
      ++events;
    }
    if (events != kEvents) state.SkipWithError("lost events");
  }
  state.SetItemsProcessed(state.iterations() * kEvents);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * body.size()));
}
BENCHMARK(BM_WatchHttp10KPod)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

long PeakRssKb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

void BM_ListDecode100k(benchmark::State& state) {
  const std::string body = kube::bench::BenchObjectListJson(100000);
  auto transport = std::make_shared<FakeTransport>();
  kube::client::Config config;
  config.host = "https://bench";
  config.qps = -1;
  auto rest = kube::client::RestClient::Create(config, {.transport = transport}).value();
  kube::client::Api api(rest, {"bench.kubecpp.io", "v1", "benchobjects"}, "default");
  const long rss_before = PeakRssKb();
  for (auto _ : state) {
    transport->EnqueueJson(200, body);
    auto list = api.List();
    if (!list.ok() || list->items.size() != 100000) state.SkipWithError("list failed");
    benchmark::DoNotOptimize(list);
  }
  state.counters["list_MB"] = static_cast<double>(body.size()) / 1e6;
  state.counters["peak_rss_MB"] = static_cast<double>(PeakRssKb()) / 1024.0;
  state.counters["peak_rss_growth_MB"] = static_cast<double>(PeakRssKb() - rss_before) / 1024.0;
  state.SetItemsProcessed(state.iterations() * 100000);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * body.size()));
}
BENCHMARK(BM_ListDecode100k)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
