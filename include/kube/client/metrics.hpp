#pragma once

/// \file
/// The metrics hook of the REST client (client-go's `tools/metrics` RequestLatency and
/// RequestResult in one interface). A RestClient created with `RestClientOptions::metrics`
/// reports every HTTP attempt through it; the Prometheus rendering lives with the controller
/// runtime (`rest_client_requests_total`, `rest_client_request_duration_seconds`).

#include <string_view>

#include <kube/base/clock.hpp>

namespace kube::client {

/// The `code` of an attempt that got no HTTP response (client-go's convention).
inline constexpr std::string_view kRequestErrorCode = "<error>";

/// One HTTP attempt of a RestClient, as reported to RequestMetrics.
struct RequestSample {
  std::string_view verb;  ///< the HTTP method: "GET", "POST", "PUT", "PATCH", "DELETE"
  std::string_view host;  ///< the server's authority, "host:port" (e.g. "127.0.0.1:6443")
  /// The HTTP status code as text ("200", "409"), or kRequestErrorCode for a transport error.
  std::string_view code;
  /// From sending the request to the complete response (for a watch: to its headers),
  /// measured on the client's Clock.
  Clock::Duration latency{};
};

/// Receives one sample per HTTP attempt of a RestClient: retries (Retry-After, connection
/// resets, the retry after a 401) are separate attempts, as in client-go. Not called for
/// requests that never reached the transport (throttling canceled, credentials unavailable).
/// **Thread-safety:** called concurrently from every thread that uses the client; must not
/// block. **Lifetime:** shared with the client (`std::shared_ptr` in RestClientOptions).
class RequestMetrics {
 public:
  virtual ~RequestMetrics() = default;
  /// Records one attempt. The views are valid only during the call.
  virtual void Observe(const RequestSample& sample) = 0;
};

}  // namespace kube::client
