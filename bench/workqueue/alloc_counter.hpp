#pragma once

#include <cstdint>

namespace kube::bench {

/// Number of heap allocations (global operator new calls) made by the process so far.
/// The benchmark binary replaces global operator new to count them.
std::uint64_t Allocations();

}  // namespace kube::bench
