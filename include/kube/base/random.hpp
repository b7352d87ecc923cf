#pragma once

#include <functional>

namespace kube {

/// A source of uniformly distributed doubles in [0, 1). Components that jitter take one so that
/// tests can make jitter deterministic; an empty function means `UniformRandom01`.
using RandomSource = std::function<double()>;

/// A thread-local Mersenne Twister seeded from std::random_device; returns a double in [0, 1).
/// **Thread-safety:** safe from any thread (each thread has its own generator).
double UniformRandom01();

}  // namespace kube
