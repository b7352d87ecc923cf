#pragma once

/// \file
/// The manager's small HTTP/1.1 endpoint: `/healthz`, `/readyz` (named checks, as
/// controller-runtime's healthz package) and `/metrics` (Prometheus text 0.0.4).
///
/// - `GET /healthz` (or `/readyz`): 200 `ok` when every check passes; otherwise 500 with one line
///   `[-]<name> failed: reason withheld` per failing check and `<healthz|readyz> check failed`.
/// - `?verbose` lists every check: `[+]<name> ok` / `[-]<name> failed: <error message>`, then
///   `<healthz|readyz> check passed` (200) or `... check failed` (500).
/// - `?exclude=<name>` (repeatable) skips a check; `/healthz/<name>` runs only that check
///   (404 for an unknown name).
/// - `GET /metrics`: `MetricsRegistry::Render()` with Content-Type `text/plain; version=0.0.4`.
/// - HEAD is answered like GET without a body; other methods get 405, other paths 404, and
///   requests that are not HTTP/1.x 400. Connections are keep-alive.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <kube/base/result.hpp>
#include <kube/controller/metrics.hpp>

namespace kube::controller {

/// One named health or readiness check: Ok = healthy, an error = unhealthy (its message is shown
/// with `?verbose`). Runs on the server's thread; it should answer quickly (a slow check delays
/// other probe requests). An exception it throws counts as a failure.
using HealthCheck = std::function<Result<void>()>;

/// A check that always passes (controller-runtime's `healthz.Ping`).
HealthCheck PingCheck();

/// Options of `ProbeServer::Start`.
struct ProbeServerOptions {
  /// "host:port" to listen on; port 0 picks an ephemeral port (read it back with `port()`).
  /// An empty host means all IPv4 interfaces ("0.0.0.0").
  std::string bind_address = "127.0.0.1:0";
  /// Served on `/metrics`; nullptr = `/metrics` answers 404. Must outlive the server.
  const MetricsRegistry* registry = nullptr;
  /// Requests larger than this (headers + body) are answered 413 and the connection closed.
  std::size_t max_request_bytes = 64 * 1024;
};

/// The probe/metrics server: one thread running Boost.Asio, plain HTTP.
/// **Thread-safety:** all members may be called concurrently; checks may be added while serving.
/// **Ownership:** owns its thread; the destructor stops it (as `Stop`).
class ProbeServer final {
 public:
  /// Binds, listens and starts serving. **Errors:** 400 BadRequest for a malformed
  /// `bind_address`; a transport error (code 0) when the address cannot be bound.
  static Result<std::unique_ptr<ProbeServer>> Start(ProbeServerOptions options);
  ~ProbeServer();
  ProbeServer(const ProbeServer&) = delete;
  ProbeServer& operator=(const ProbeServer&) = delete;

  /// Adds (or replaces) a `/healthz` check named `name` (non-empty, no '/').
  /// **Errors:** 400 BadRequest for an invalid name.
  Result<void> AddHealthzCheck(std::string name, HealthCheck check);
  /// Adds (or replaces) a `/readyz` check; as AddHealthzCheck.
  Result<void> AddReadyzCheck(std::string name, HealthCheck check);

  /// The bound port (the ephemeral one when 0 was asked for).
  std::uint16_t port() const;
  /// "host:port" actually bound.
  std::string address() const;

  /// Stops accepting, closes open connections and joins the thread. Idempotent; after it the
  /// server answers nothing. **Blocks?** Until a running check returns.
  void Stop();

  struct Impl;
  explicit ProbeServer(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace kube::controller
