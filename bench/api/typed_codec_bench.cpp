// Typed JSON decode and encode of the testdata/ fixtures with the generated API types: the
// kubecpp side of `cgdecode` (../shared/peers/bin), which does the same with client-go's
// scheme codecs. Counters: bytes per second of the fixture's JSON, as cgdecode's mb_per_s.
#include <fstream>
#include <sstream>
#include <string>

#include <benchmark/benchmark.h>

#include <kube/api/apps/v1.hpp>
#include <kube/api/codec.hpp>
#include <kube/api/core/v1.hpp>

namespace {

std::string Fixture(const char* name) {
  std::ifstream in(std::string(KUBE_TESTDATA_DIR) + "/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

template <class T>
void Decode(benchmark::State& state, const char* fixture) {
  const std::string json = Fixture(fixture);
  for (auto _ : state) {
    auto v = kube::api::FromJson<T>(json);
    if (!v.ok()) {
      state.SkipWithError(v.error().message.c_str());
      break;
    }
    benchmark::DoNotOptimize(v);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * json.size()));
  state.counters["bytes"] = static_cast<double>(json.size());
}

template <class T>
void Encode(benchmark::State& state, const char* fixture) {
  auto v = kube::api::FromJson<T>(Fixture(fixture));
  if (!v.ok()) {
    state.SkipWithError(v.error().message.c_str());
    return;
  }
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string out = kube::api::ToJson(*v);
    bytes = out.size();
    benchmark::DoNotOptimize(out);
  }
  // As cgdecode: the throughput is counted in bytes of the encoded output.
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["bytes"] = static_cast<double>(bytes);
}

namespace corev1 = kube::api::core::v1;
namespace appsv1 = kube::api::apps::v1;

void BM_TypedDecode_Pod4k(benchmark::State& s) { Decode<corev1::Pod>(s, "pod_4k.json"); }
void BM_TypedDecode_Pod15k(benchmark::State& s) { Decode<corev1::Pod>(s, "pod_15k.json"); }
void BM_TypedDecode_Deployment(benchmark::State& s) { Decode<appsv1::Deployment>(s, "deployment_15k.json"); }
void BM_TypedEncode_Pod4k(benchmark::State& s) { Encode<corev1::Pod>(s, "pod_4k.json"); }
void BM_TypedEncode_Pod15k(benchmark::State& s) { Encode<corev1::Pod>(s, "pod_15k.json"); }
void BM_TypedEncode_Deployment(benchmark::State& s) { Encode<appsv1::Deployment>(s, "deployment_15k.json"); }

BENCHMARK(BM_TypedDecode_Pod4k);
BENCHMARK(BM_TypedDecode_Pod15k);
BENCHMARK(BM_TypedDecode_Deployment);
BENCHMARK(BM_TypedEncode_Pod4k);
BENCHMARK(BM_TypedEncode_Pod15k);
BENCHMARK(BM_TypedEncode_Deployment);

}  // namespace

BENCHMARK_MAIN();
