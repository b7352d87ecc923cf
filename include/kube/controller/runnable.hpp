#pragma once
/// \file
/// What a Manager runs: controllers, and any other long-running component of an operator.

#include <functional>
#include <memory>
#include <stop_token>
#include <utility>

#include <kube/base/result.hpp>

namespace kube::controller {

/// A component the Manager starts after its caches are set up and stops on shutdown.
/// **Blocks?** `Start` blocks until `stop` is requested (or the component fails) and returns
/// once the component has finished its in-flight work. **Errors:** a failed start; the Manager
/// then shuts everything down and `Manager::Start` returns the error.
class Runnable {
 public:
  virtual ~Runnable() = default;
  /// Runs until `stop`. Called at most once.
  virtual Result<void> Start(std::stop_token stop) = 0;
};

/// A Runnable from a function.
class RunnableFunc final : public Runnable {
 public:
  explicit RunnableFunc(std::function<Result<void>(std::stop_token)> fn) : fn_(std::move(fn)) {}
  /// Calls the function.
  Result<void> Start(std::stop_token stop) override { return fn_(std::move(stop)); }

 private:
  std::function<Result<void>(std::stop_token)> fn_;
};

}  // namespace kube::controller
