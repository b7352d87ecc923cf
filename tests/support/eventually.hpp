#pragma once

// Waiting for a condition in integration tests that run a real server and real threads.

#include <chrono>
#include <functional>
#include <thread>

namespace kube::test_support {

/// Polls `cond` every 2 ms until it holds (true) or `limit` passes (false). For integration tests
/// only: unit tests use a FakeClock instead.
inline bool Eventually(const std::function<bool()>& cond, std::chrono::seconds limit = std::chrono::seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!cond()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

}  // namespace kube::test_support
