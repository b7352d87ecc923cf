#include <kube/base/backoff.hpp>

#include <random>

#include <kube/base/random.hpp>

namespace kube {

double UniformRandom01() {
  thread_local std::mt19937_64 gen{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(gen);
}

Clock::Duration Jitter(Clock::Duration d, double max_factor, const RandomSource& rand) {
  if (max_factor <= 0.0) max_factor = 1.0;
  const double r = rand ? rand() : UniformRandom01();
  return d + std::chrono::duration_cast<Clock::Duration>(
                 std::chrono::duration<double, Clock::Duration::period>(r * max_factor *
                                                                        static_cast<double>(d.count())));
}

namespace {
Clock::Duration Multiply(Clock::Duration d, double factor) {
  const double v = static_cast<double>(d.count()) * factor;
  if (v >= static_cast<double>(Clock::Duration::max().count())) return Clock::Duration::max();
  return Clock::Duration(static_cast<Clock::Duration::rep>(v));
}
}  // namespace

Clock::Duration Backoff::Step() {
  if (steps < 1) {
    return jitter > 0 ? Jitter(duration, jitter, rand) : duration;
  }
  --steps;
  Clock::Duration current = duration;
  if (factor != 0) {
    duration = Multiply(duration, factor);
    if (cap > Clock::Duration::zero() && duration > cap) {
      duration = cap;
      steps = 0;
    }
  }
  if (jitter > 0) current = Jitter(current, jitter, rand);
  return current;
}

ExponentialBackoffManager::ExponentialBackoffManager(BackoffManagerOptions options, Clock& clock)
    : options_(std::move(options)), clock_(clock) {
  Reset();
}

void ExponentialBackoffManager::Reset() {
  backoff_ = Backoff{.duration = options_.initial,
                     .factor = options_.factor,
                     .jitter = options_.jitter,
                     .steps = INT_MAX,
                     .cap = options_.max,
                     .rand = options_.rand};
  started_ = false;
}

Clock::Duration ExponentialBackoffManager::Next() {
  const auto now = clock_.Now();
  if (started_ && now - last_start_ > options_.reset_after) Reset();
  started_ = true;
  last_start_ = now;
  return backoff_.Step();
}

}  // namespace kube
