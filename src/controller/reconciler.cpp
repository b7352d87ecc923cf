#include <kube/controller/reconciler.hpp>

#include <algorithm>

namespace kube::controller {

Error TerminalError(Error error) {
  if (IsTerminal(error)) return error;
  if (!error.details) error.details.emplace();
  error.details->causes.push_back(
      StatusCause{.reason = std::string(kTerminalCause), .message = "terminal error: not retried", .field = ""});
  return error;
}

bool IsTerminal(const Error& error) {
  if (!error.details) return false;
  const auto& causes = error.details->causes;
  return std::any_of(causes.begin(), causes.end(),
                     [](const StatusCause& c) { return c.reason == kTerminalCause; });
}

}  // namespace kube::controller
