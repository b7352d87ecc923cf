// Cost of the field manager on one write: an Update entry (TrackUpdate) for a PUT that changes one
// container image, and applies (ApplyConfiguration) that change the image or change nothing, on a
// Deployment with 3 containers and 10 labels under the built-in Deployment schema.

#include <string>

#include <benchmark/benchmark.h>
#include <boost/json.hpp>

#include "apiserver/rest/builtin_schema.hpp"
#include "apiserver/rest/managed_fields.hpp"

namespace {
namespace json = boost::json;
using namespace kube::apiserver::rest;

json::object Deployment(const std::string& image) {
  json::object labels;
  for (int i = 0; i < 10; ++i) labels["label-" + std::to_string(i)] = "value-" + std::to_string(i);
  json::array containers;
  for (int i = 0; i < 3; ++i) {
    containers.push_back(json::object{
        {"name", "c" + std::to_string(i)},
        {"image", i == 0 ? image : "sidecar:" + std::to_string(i)},
        {"ports", json::array{json::object{{"containerPort", 8080 + i}, {"protocol", "TCP"}}}},
        {"env", json::array{json::object{{"name", "A"}, {"value", "1"}}, json::object{{"name", "B"}, {"value", "2"}}}},
        {"resources", json::object{{"limits", json::object{{"cpu", "100m"}, {"memory", "64Mi"}}}}}});
  }
  return json::object{
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata", json::object{{"name", "web"}, {"namespace", "default"}, {"labels", labels}}},
      {"spec", json::object{{"replicas", 3},
                            {"selector", json::object{{"matchLabels", json::object{{"app", "web"}}}}},
                            {"template", json::object{{"metadata", json::object{{"labels", labels}}},
                                                      {"spec", json::object{{"containers", containers}}}}}}}};
}

const kube::TypeSchema* Schema() {
  static const kube::TypeSchemaPtr schema = BuiltinSchema(BuiltinKind::kDeployment);
  return schema.get();
}

WriteManager Who(const char* manager) { return WriteManager{manager, "apps/v1", "", "2026-01-01T00:00:00Z"}; }

void BM_TrackUpdate(benchmark::State& state) {
  json::object live = Deployment("app:1");
  TrackUpdate(nullptr, live, Who("creator"), Schema());
  const json::object next_base = Deployment("app:2");
  for (auto _ : state) {
    json::object next = next_base;
    next["metadata"].as_object()["managedFields"] = live.at("metadata").at("managedFields");
    TrackUpdate(&live, next, Who("updater"), Schema());
    benchmark::DoNotOptimize(next);
  }
}
BENCHMARK(BM_TrackUpdate);

// A PUT that changes nothing (a controller re-writing what it read).
void BM_TrackUpdateNoOp(benchmark::State& state) {
  json::object live = Deployment("app:1");
  TrackUpdate(nullptr, live, Who("creator"), Schema());
  for (auto _ : state) {
    json::object next = live;
    TrackUpdate(&live, next, Who("updater"), Schema());
    benchmark::DoNotOptimize(next);
  }
}
BENCHMARK(BM_TrackUpdateNoOp);

// The copies BM_TrackUpdate makes per iteration, without TrackUpdate (subtract it).
void BM_TrackUpdateBaseline(benchmark::State& state) {
  json::object live = Deployment("app:1");
  TrackUpdate(nullptr, live, Who("creator"), Schema());
  const json::object next_base = Deployment("app:2");
  for (auto _ : state) {
    json::object next = next_base;
    next["metadata"].as_object()["managedFields"] = live.at("metadata").at("managedFields");
    benchmark::DoNotOptimize(next);
  }
}
BENCHMARK(BM_TrackUpdateBaseline);

void BM_ApplyChange(benchmark::State& state) {
  auto created = ApplyConfiguration(nullptr, Deployment("app:1"), Who("kubectl"), false, Schema());
  const json::object config = Deployment("app:2");
  for (auto _ : state) {
    auto out = ApplyConfiguration(&created->object, config, Who("kubectl"), false, Schema());
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_ApplyChange);

void BM_ApplyNoOp(benchmark::State& state) {
  const json::object config = Deployment("app:1");
  auto created = ApplyConfiguration(nullptr, config, Who("kubectl"), false, Schema());
  for (auto _ : state) {
    auto out = ApplyConfiguration(&created->object, config, Who("kubectl"), false, Schema());
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_ApplyNoOp);

}  // namespace

BENCHMARK_MAIN();
