#include "common/bench_objects.hpp"

#include <malloc.h>
#include <openssl/sha.h>

#include <boost/json.hpp>
#include <fmt/format.h>
#include <kube/base/large_array_allocator.hpp>

namespace kube::bench {

namespace {
std::string Sha256Hex(const std::string& s) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(s.data()), s.size(), digest);
  std::string hex;
  hex.reserve(64);
  for (unsigned char b : digest) hex += fmt::format("{:02x}", b);
  return hex;
}
}  // namespace

std::string BenchObjectJson(int64_t i, int64_t rv) {
  if (rv < 0) rv = i + 1;
  std::string out;
  out.reserve(1400);
  out += fmt::format(
      R"({{"apiVersion":"bench.example.com/v1","kind":"BenchObject","metadata":{{"name":"bench-object-{:06d}",)"
      R"("namespace":"namespace-{:02d}","labels":{{"app.kubernetes.io/name":"bench-app-{:02d}",)"
      R"("app.kubernetes.io/instance":"instance-{:06d}","app.kubernetes.io/component":"component-{}",)"
      R"("app.kubernetes.io/part-of":"bench-suite","tier":"{}"}},"annotations":{{)"
      R"("bench.example.com/description":"benchmark object number {:06d} used for informer memory and throughput measurement",)"
      R"("bench.example.com/owner":"team-{:02d}@example.com","bench.example.com/checksum":"{}"}},)"
      R"("uid":"{:08x}-0000-4000-8000-{:012x}","resourceVersion":"{}"}},"spec":{{)",
      i, i % 100, i % 50, i, i % 5, i % 2 == 0 ? "backend" : "frontend", i, i % 20,
      Sha256Hex(std::to_string(i)), i, i, rv);
  for (int k = 0; k < 10; ++k) out += fmt::format(R"("stringField{:02d}":"v{:02d}-{:012d}",)", k, k, i);
  for (int k = 0; k < 10; ++k) out += fmt::format(R"("intField{:02d}":{},)", k, i * (k + 1) + k);
  for (int k = 0; k < 10; ++k) {
    out += fmt::format(R"("boolField{:02d}":{}{})", k, (i + k) % 2 == 0 ? "true" : "false", k < 9 ? "," : "");
  }
  out += "}}";
  return out;
}

std::string BenchObjectListJson(int64_t n) {
  std::string out = fmt::format(
      R"({{"apiVersion":"bench.example.com/v1","kind":"BenchObjectList","metadata":{{"resourceVersion":"{}"}},"items":[)", n);
  for (int64_t i = 0; i < n; ++i) {
    if (i) out.push_back(',');
    out += BenchObjectJson(i);
  }
  out += "]}";
  return out;
}

std::string BenchEventJson(int64_t i, int64_t rv) {
  return R"({"type":"MODIFIED","object":)" + BenchObjectJson(i, rv) + "}";
}

std::size_t HeapInUse() {
  const struct mallinfo2 mi = mallinfo2();
  // Chunks malloc mapped on their own (hblkhd) and the arrays LargeArrayAllocator mapped are
  // memory in use too.
  return mi.uordblks + mi.hblkhd + kube::LargeArrayBytesMapped();
}

std::string_view BenchObjectCrdJson() {
  return R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",)"
         R"("metadata":{"name":"benchobjects.bench.example.com"},)"
         R"("spec":{"group":"bench.example.com","scope":"Namespaced",)"
         R"("names":{"plural":"benchobjects","singular":"benchobject","kind":"BenchObject","listKind":"BenchObjectList"},)"
         R"("versions":[{"name":"v1","served":true,"storage":true,)"
         R"("schema":{"openAPIV3Schema":{"type":"object","properties":{)"
         R"("spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}]}})";
}

std::string BenchObjectCreateBody(int64_t i) {
  auto v = boost::json::parse(BenchObjectJson(i));
  auto& meta = v.as_object()["metadata"].as_object();
  meta.erase("uid");
  meta.erase("resourceVersion");
  return boost::json::serialize(v);
}

}  // namespace kube::bench
