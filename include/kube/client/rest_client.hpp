#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>

#include <kube/base/clock.hpp>
#include <kube/base/result.hpp>
#include <kube/client/auth.hpp>
#include <kube/client/config.hpp>
#include <kube/client/metrics.hpp>
#include <kube/client/rate_limiter.hpp>
#include <kube/client/transport.hpp>
#include <kube/core/gvk.hpp>

namespace kube::client {

class WatchStream;

/// The REST path of a resource, collection, object or subresource, as client-go builds it:
/// `/api/v1[/namespaces/<ns>]/<resource>[/<name>[/<subresource>]]` for the core group and
/// `/apis/<group>/<version>/...` for named groups. `ns` empty = cluster scope (or all
/// namespaces). The namespace and name are percent-escaped as Go escapes a URL path (so
/// `system:node:a` stays readable, a space becomes `%20`).
/// **Errors:** 400 BadRequest for an empty resource or version, a subresource without a name,
/// or a name/namespace that is not a valid path segment (client-go `IsValidPathSegmentName`:
/// ".", "..", or containing '/' or '%').
Result<std::string> ResourcePath(const GroupVersionResource& gvr, std::string_view ns = {},
                                 std::string_view name = {}, std::string_view subresource = {});

/// `s` escaped as Go's `url.PathEscape`-for-paths does (RFC 3986 unreserved characters and
/// `!$&'()*+,;=:@/` kept, everything else as %XX).
std::string EscapePath(std::string_view s);

/// One API request.
struct Request {
  std::string method = "GET";
  /// The API path (from `ResourcePath`, or e.g. "/version"); the server URL's own path prefix
  /// is prepended by the client.
  std::string path{};
  std::string query{};         ///< without '?', already encoded (e.g. ListOptions::ToQuery())
  std::string body{};
  std::string content_type{};  ///< of `body`; "application/json" when a body is set and this is empty
  std::string accept = "application/json";
  /// What the request is about, for error messages and Status details.
  GroupResource resource{};
  std::string name{};
  /// Overrides the config's timeout for this request; zero = use the config's. For a watch it
  /// bounds only the wait for the response headers, never the stream.
  Clock::Duration timeout = Clock::Duration::zero();
};

/// Counters of one client, for tests and metrics.
struct RestClientStats {
  std::uint64_t requests = 0;        ///< attempts sent to the transport (retries included)
  std::uint64_t retries = 0;         ///< Retry-After / connection-reset retries
  std::uint64_t auth_refreshes = 0;  ///< retries after a 401 with refreshed credentials
};

/// Takes a 2xx response body piece by piece as it arrives (`RestClient::Do` with a consumer):
/// a large list is then parsed while the server is still sending it.
/// **Thread-safety:** called on the requesting thread only.
class BodyConsumer {
 public:
  virtual ~BodyConsumer() = default;
  /// A 2xx response begins (`head` has its status and headers, no body). Called once per
  /// attempt: after a retried attempt it is called again, and the consumer drops what the
  /// earlier attempt gave it. An error ends the request with that error.
  virtual Result<void> Begin(const HttpResponse& head) = 0;
  /// The next bytes of the body, in order. An error ends the request with that error.
  virtual Result<void> Append(std::string_view bytes) = 0;
};

/// Options of `RestClient::Create`.
struct RestClientOptions {
  Clock* clock = nullptr;                        ///< time for throttling and retries; nullptr = RealClock
  std::shared_ptr<Transport> transport{};        ///< nullptr = NewHttpTransport from the Config
  std::shared_ptr<Authenticator> authenticator{};  ///< nullptr = NewAuthenticator from the Config
  /// Receives one sample per HTTP attempt (see RequestMetrics); nullptr = none.
  std::shared_ptr<RequestMetrics> metrics{};
};

/// Sends API requests: throttles them (token bucket), adds User-Agent, Accept, credentials and
/// impersonation headers, retries 429/5xx responses that carry `Retry-After` and GETs that hit a
/// connection reset (up to `Config::max_retries`, sleeping on the Clock), retries once after a 401
/// when the authenticator obtained fresher credentials, and turns every non-2xx response into a
/// classified `Error` with `ErrorFromResponse` (exactly as client-go's generic response handling).
/// **Thread-safety:** all members may be called concurrently. **Ownership:** shared; `Api`,
/// `DynamicClient` and `DiscoveryClient` hold it through `std::shared_ptr`.
class RestClient final {
 public:
  /// Builds a client for `config`. **Errors:** as NewHttpTransport / NewAuthenticator, and 400
  /// BadRequest for a host that is not an http(s) URL.
  static Result<std::shared_ptr<RestClient>> Create(const Config& config, RestClientOptions options = {});

  /// Sends `request` and returns the 2xx response.
  /// **Blocks?** Yes: throttling, the exchange, and Retry-After sleeps.
  /// **Errors:** the classified error of a non-2xx response; transport errors (code 0, prefixed
  /// with the method and URL); Canceled when `stop` is requested while waiting.
  Result<HttpResponse> Do(const Request& request, std::stop_token stop = {});

  /// As Do, with a 2xx body handed to `body` as it arrives rather than collected: the returned
  /// response has the status and headers, and an empty body. The request's timeout (or the
  /// config's) bounds the whole exchange, body included. A GET whose connection is reset while
  /// the body arrives is retried as Do retries it (`body.Begin` starts the attempt over).
  /// **Errors:** as Do, and the first error `body` returns.
  Result<HttpResponse> Do(const Request& request, BodyConsumer& body, std::stop_token stop = {});

  /// Opens a watch (a streaming GET) and returns once the response headers are in.
  /// **Errors:** as Do (a non-2xx answer is read and classified, e.g. 410 Expired).
  Result<std::unique_ptr<WatchStream>> Watch(const Request& request, std::stop_token stop = {});

  /// The configuration the client was built from.
  const Config& config() const { return config_; }
  /// The clock used for throttling and retries.
  Clock& clock() const { return clock_; }
  /// A snapshot of the counters.
  RestClientStats Stats() const;
  /// Whether a protobuf body with fields this build does not know was seen: then lists and
  /// watches ask for JSON only (`Config::protobuf`).
  bool protobuf_refused() const { return protobuf_refused_->load(std::memory_order_relaxed); }
  /// Records that: every later list and watch asks for JSON.
  void RefuseProtobuf() { protobuf_refused_->store(true, std::memory_order_relaxed); }

  struct PrivateTag {};
  RestClient(PrivateTag, Config config, std::string base_path, Clock& clock,
             std::shared_ptr<Transport> transport, std::shared_ptr<Authenticator> authenticator);

 private:
  struct Outcome;
  Result<HttpRequest> Build(const Request& request, std::string& used_auth);
  // `streaming`: open the response as a stream (a watch); with `consumer`, also read its 2xx
  // body into the consumer.
  Result<Outcome> Execute(const Request& request, std::stop_token stop, bool streaming, BodyConsumer* consumer);

  const Config config_;
  // Shared with the watch streams, which may outlive the client.
  const std::shared_ptr<std::atomic<bool>> protobuf_refused_ = std::make_shared<std::atomic<bool>>(false);
  const std::string base_path_;  // the server URL's path prefix, without trailing '/'
  Clock& clock_;
  std::shared_ptr<Transport> transport_;
  std::shared_ptr<Authenticator> authenticator_;  // may be null
  std::unique_ptr<TokenBucketRateLimiter> limiter_;  // null when throttling is disabled
  // Set by Create before the client is shared, then read-only.
  std::shared_ptr<RequestMetrics> metrics_;  // may be null
  std::string metrics_host_;                 // the server's authority, the samples' host
  std::atomic<std::uint64_t> requests_{0};
  std::atomic<std::uint64_t> retries_{0};
  std::atomic<std::uint64_t> auth_refreshes_{0};
};

}  // namespace kube::client
