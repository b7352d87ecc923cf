// Strategic merge patch (kube/core/strategic_merge.hpp): a kubectl-style Deployment patch, and
// merging lists whose size an untrusted patch controls (merge by key, primitive set union), which
// must stay near-linear.
#include <string>

#include <benchmark/benchmark.h>
#include <boost/json.hpp>

#include <kube/core/strategic_merge.hpp>
#include <kube/core/type_schema.hpp>

namespace {

namespace json = boost::json;

const kube::TypeSchema* Schema() {
  static const kube::TypeSchemaPtr schema = [] {
    auto s = kube::ParseTypeSchema(R"({"type":"object","properties":{
      "metadata":{"type":"object","properties":{
        "finalizers":{"type":"array","items":{"type":"string"},"x-kubernetes-patch-strategy":"merge"}}},
      "spec":{"type":"object","properties":{"template":{"type":"object","properties":{"spec":{"type":"object","properties":{
        "containers":{"type":"array","x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"name",
          "items":{"type":"object","properties":{
            "env":{"type":"array","x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"name","items":{"type":"object"}}}}}}}}}}}}})");
    return *s;
  }();
  return schema.get();
}

json::array Containers(int n, const std::string& image) {
  json::array out;
  for (int i = 0; i < n; ++i) {
    out.push_back(json::object{{"name", "c" + std::to_string(i)},
                               {"image", image},
                               {"env", json::array{json::object{{"name", "A"}, {"value", "1"}}}}});
  }
  return out;
}

json::value Deployment(int containers) {
  return json::object{{"metadata", json::object{{"name", "web"}, {"finalizers", json::array{"a", "b"}}}},
                      {"spec", json::object{{"template", json::object{{"spec", json::object{
                                                                       {"containers", Containers(containers, "img:1")}}}}}}}};
}

// kubectl apply changing one image: $setElementOrder plus one element.
void BM_KubectlApplyDeployment(benchmark::State& state) {
  const json::value live = Deployment(3);
  const json::value patch = json::parse(R"({"spec":{"template":{"spec":{
      "$setElementOrder/containers":[{"name":"c0"},{"name":"c1"},{"name":"c2"}],
      "containers":[{"name":"c1","image":"img:2"}]}}}})");
  for (auto _ : state) benchmark::DoNotOptimize(kube::ApplyStrategicMergePatch(live, patch, Schema()));
}
BENCHMARK(BM_KubectlApplyDeployment);

// N live containers, a patch touching all N (merge by key) with a new image.
void BM_MergeByKey(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const json::value live = Deployment(n);
  json::value patch = json::object{
      {"spec", json::object{{"template", json::object{{"spec", json::object{{"containers", Containers(n, "img:2")}}}}}}}};
  for (auto _ : state) benchmark::DoNotOptimize(kube::ApplyStrategicMergePatch(live, patch, Schema()));
  state.SetComplexityN(n);
}
BENCHMARK(BM_MergeByKey)->RangeMultiplier(10)->Range(10, 10000)->Complexity();

// N live finalizers, N new ones (primitive set union).
void BM_PrimitiveUnion(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  json::array live_f;
  json::array patch_f;
  for (int i = 0; i < n; ++i) {
    live_f.push_back(json::string("live/" + std::to_string(i)));
    patch_f.push_back(json::string("new/" + std::to_string(i)));
  }
  const json::value live = json::object{{"metadata", json::object{{"finalizers", live_f}}}};
  const json::value patch = json::object{{"metadata", json::object{{"finalizers", patch_f}}}};
  for (auto _ : state) benchmark::DoNotOptimize(kube::ApplyStrategicMergePatch(live, patch, Schema()));
  state.SetComplexityN(n);
}
BENCHMARK(BM_PrimitiveUnion)->RangeMultiplier(10)->Range(10, 100000)->Complexity();

}  // namespace

BENCHMARK_MAIN();
