#pragma once
/// \file
/// The reconciler contract of the controller runtime (controller-runtime `reconcile`): a
/// `Request` names an object, a `Reconciler` drives that object's world towards its spec and
/// answers with a `ReconcileResult` or an error.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <utility>

#include <kube/base/clock.hpp>
#include <kube/base/error.hpp>
#include <kube/base/log.hpp>
#include <kube/base/result.hpp>
#include <kube/core/gvk.hpp>

namespace kube::controller {

/// What to reconcile: the key (namespace, name) of an object. A request carries no event and
/// no object state: reconcilers are level-triggered and read the current state themselves.
struct Request {
  ObjectKey key;
  /// "namespace/name" or "name".
  std::string String() const { return key.String(); }
  bool operator==(const Request&) const = default;
  auto operator<=>(const Request&) const = default;
};

/// The hash of a Request (the work queue's item hash).
struct RequestHash {
  std::size_t operator()(const Request& r) const noexcept { return std::hash<ObjectKey>{}(r.key); }
};

/// The answer of a successful reconcile. The default value means "done": nothing to do until the
/// next event. `RequeueAfter(d)` asks for another reconcile of the same key after `d` (a timer,
/// not a failure: the key's failure history is forgotten).
struct ReconcileResult {
  /// Zero = done; positive = reconcile again after this long.
  Clock::Duration requeue_after = Clock::Duration::zero();

  /// Done: wait for the next event.
  static ReconcileResult Done() { return {}; }
  /// Reconcile again after `d` (`d <= 0` is the same as Done).
  static ReconcileResult RequeueAfter(Clock::Duration d) { return {.requeue_after = d}; }
  /// True when no requeue was asked for.
  bool IsDone() const { return requeue_after <= Clock::Duration::zero(); }
  bool operator==(const ReconcileResult&) const = default;
};

/// What a reconcile gets besides the request. Built by the controller for each call; valid only
/// during that call.
/// **Thread-safety:** owned by the worker running the reconcile; do not share it.
struct ReconcileContext {
  /// Requested when the reconcile should give up early: the controller's `reconcile_timeout`
  /// elapsed, or the controller is shutting down. Pass it to blocking calls
  /// (`Api::WithStop(ctx.stop)`, `Clock::SleepFor(d, ctx.stop)`). A reconcile that ignores it
  /// still runs to completion; the controller waits for it.
  std::stop_token stop{};
  /// A logger carrying `controller`, `namespace`, `name` and `reconcileID` on every line.
  log::Logger log{};
  /// The name of the controller running this reconcile.
  std::string controller{};
  /// A per-call id (unique within the process), for correlating log lines.
  std::uint64_t reconcile_id = 0;
};

/// Reconciles one object. Called by the controller's workers: several requests concurrently
/// when `max_concurrent_reconciles > 1`, but never the same key twice at once.
/// **Errors:** an ordinary error makes the controller retry the key with rate-limited backoff;
/// a `TerminalError` is recorded and not retried. Exceptions thrown out of Reconcile are caught
/// (with `recover_exceptions`, the default) and count as ordinary errors.
/// **Thread-safety:** implementations must be safe to call concurrently for different keys.
class Reconciler {
 public:
  virtual ~Reconciler() = default;
  /// Makes the world match the object named by `request` (which may no longer exist: a
  /// NotFound on Get usually means "deleted, nothing to do").
  virtual Result<ReconcileResult> Reconcile(ReconcileContext& ctx, const Request& request) = 0;
};

/// The signature of a reconcile function.
using ReconcileFunc = std::function<Result<ReconcileResult>(ReconcileContext&, const Request&)>;

/// A Reconciler from a function (must not be empty).
/// **Thread-safety:** as the function.
class ReconcilerFunc final : public Reconciler {
 public:
  explicit ReconcilerFunc(ReconcileFunc fn) : fn_(std::move(fn)) {}
  /// Calls the function.
  Result<ReconcileResult> Reconcile(ReconcileContext& ctx, const Request& request) override {
    return fn_(ctx, request);
  }

 private:
  ReconcileFunc fn_;
};

/// `std::make_shared<ReconcilerFunc>(fn)`.
inline std::shared_ptr<Reconciler> MakeReconciler(ReconcileFunc fn) {
  return std::make_shared<ReconcilerFunc>(std::move(fn));
}

/// The StatusCause reason that marks an error terminal (kept in `details.causes`, so that the
/// error's code, reason and message stay classifiable with `IsNotFound` etc.).
inline constexpr std::string_view kTerminalCause = "kubecpp.io/TerminalError";

/// Marks `error` terminal: the controller records it (log, metrics) and does not retry the key
/// until a new event arrives (controller-runtime `reconcile.TerminalError`). Use it for errors
/// that retrying cannot fix (an invalid spec). Idempotent.
Error TerminalError(Error error);

/// True when `error` was marked by `TerminalError`.
bool IsTerminal(const Error& error);

}  // namespace kube::controller

template <>
struct std::hash<kube::controller::Request> {
  std::size_t operator()(const kube::controller::Request& r) const noexcept {
    return kube::controller::RequestHash{}(r);
  }
};
