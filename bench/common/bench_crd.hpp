#pragma once

// Serving BenchObjects from a (usually embedded) API server through their CRD. Header-only, so
// that only the benchmarks that talk to a server depend on the client.

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include <fmt/format.h>

#include <kube/client/dynamic_client.hpp>

#include "common/bench_objects.hpp"

namespace kube::bench {

/// The BenchObjects resource (bench.example.com/v1 benchobjects).
inline const GroupVersionResource kBenchObjectsResource{"bench.example.com", "v1", "benchobjects"};

/// Creates the 100 namespaces BenchObjects live in (namespace-00 .. namespace-99), installs the
/// BenchObject CRD, and creates BenchObject 0 once the resource is served (retrying until the CRD
/// is Established, for at most about 5 s). Returns an error message, or nullopt.
inline std::optional<std::string> SetUpBenchObjects(const std::shared_ptr<client::RestClient>& rest) {
  client::Api namespaces(rest, {"", "v1", "namespaces"});
  for (int i = 0; i < 100; ++i) {
    (void)namespaces.Create(
        *Object::Parse(fmt::format(R"({{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"namespace-{:02d}"}}}})", i))
             .value());
  }
  client::Api crds(rest, {"apiextensions.k8s.io", "v1", "customresourcedefinitions"});
  if (auto r = crds.Create(*Object::Parse(BenchObjectCrdJson()).value()); !r.ok()) {
    return "CRD: " + r.error().ToString();
  }
  for (int attempt = 0;; ++attempt) {
    auto r = client::Api(rest, kBenchObjectsResource, "namespace-00")
                 .Create(*Object::Parse(BenchObjectCreateBody(0)).value());
    if (r.ok()) return std::nullopt;
    if (attempt > 500) return "create: " + r.error().ToString();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace kube::bench
