#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kube::bench {

/// The BenchObject of ../shared/bench/README.md (byte-identical to gen_bench_objects.py):
/// object `i` as compact JSON, with resourceVersion `rv` (default i + 1).
std::string BenchObjectJson(int64_t i, int64_t rv = -1);

/// `n` BenchObjects as one BenchObjectList document (list resourceVersion = n).
std::string BenchObjectListJson(int64_t n);

/// A MODIFIED watch event line (no newline) for object `i` at resourceVersion `rv`.
std::string BenchEventJson(int64_t i, int64_t rv);

/// The CustomResourceDefinition that serves BenchObjects (bench.example.com/v1, namespaced,
/// plural `benchobjects`; `spec` keeps unknown fields), as JSON.
std::string_view BenchObjectCrdJson();

/// BenchObject `i` as a create body: `BenchObjectJson(i)` without uid and resourceVersion (the
/// server sets them; a create carrying a resourceVersion is rejected).
std::string BenchObjectCreateBody(int64_t i);

/// Heap bytes currently allocated by this process: glibc mallinfo2 in-use bytes, including
/// chunks malloc mapped on their own, plus the arrays of kube::LargeArrayAllocator.
std::size_t HeapInUse();

}  // namespace kube::bench
