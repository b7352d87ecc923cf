#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <kube/base/clock.hpp>
#include <kube/base/error.hpp>
#include <kube/base/result.hpp>

/// The HTTP seam of the REST client: plain request/response values and a two-method `Transport`
/// interface. The production implementation (Boost.Beast + OpenSSL, keep-alive pool) is created
/// by `NewHttpTransport` in `http_transport.hpp`; tests use `FakeTransport` (`fake_transport.hpp`).
/// No Boost.Asio/Beast/OpenSSL type appears in this header.
namespace kube::client {

/// One HTTP header field (name as sent; lookups are case-insensitive).
using Header = std::pair<std::string, std::string>;
/// Header fields in order.
using Headers = std::vector<Header>;

/// The value of the first header named `name` (ASCII case-insensitive), or nullopt.
std::optional<std::string_view> FindHeader(const Headers& headers, std::string_view name);

/// One HTTP/1.1 request to the transport's server.
struct HttpRequest {
  std::string method = "GET";  ///< "GET", "POST", "PUT", "PATCH", "DELETE"
  /// Origin-form target, already escaped: path plus optional query, e.g.
  /// `/api/v1/namespaces/default/pods?limit=500`.
  std::string target;
  Headers headers;  ///< Host, Content-Length and Connection are set by the transport
  std::string body;
  /// Deadline for the whole exchange: connect, send, and receive the full response (for
  /// `Transport::Open`: until the response headers have arrived). Zero = no deadline.
  Clock::Duration timeout = Clock::Duration::zero();
  /// For `Transport::Open`: the body is one response read to its end (a streamed list), not an
  /// open-ended stream (a watch): `timeout` then bounds the whole body, and a transport's size
  /// limit on response bodies applies, as for `Do`.
  bool finite_body = false;
};

/// A complete HTTP response.
struct HttpResponse {
  int status = 0;
  Headers headers;
  std::string body;
};

/// StatusCause reasons that the transport puts on its own errors (code 0, see `IsTransport`), so
/// that callers classify without reading messages.
namespace transport_cause {
/// The connection was reset or closed before a complete response (or mid-stream).
inline constexpr std::string_view kConnectionReset = "ConnectionReset";
/// The server could not be reached (DNS failure, connection refused, unreachable).
inline constexpr std::string_view kConnectFailed = "ConnectFailed";
/// A client-side deadline (connect, TLS handshake or request timeout) passed.
inline constexpr std::string_view kClientTimeout = "ClientTimeout";
/// TLS failed: certificate verification, host name mismatch, handshake error.
inline constexpr std::string_view kTls = "TLSError";
/// The server sent something that is not HTTP/1.1, or exceeded a size limit.
inline constexpr std::string_view kProtocol = "ProtocolError";
}  // namespace transport_cause

/// A transport error (code 0) whose details carry one cause `cause` (a `transport_cause::` value).
Error MakeTransportError(std::string_view cause, std::string message);
/// True for a transport error with cause kConnectionReset.
bool IsConnectionReset(const Error& e);
/// True for a transport error with cause kClientTimeout.
bool IsClientTimeout(const Error& e);
/// True for a transport error with cause kTls.
bool IsTlsError(const Error& e);

/// A response whose body is read incrementally, for watches.
/// **Thread-safety:** `Read` is called by one thread at a time; `Cancel` may be called from any
/// thread at any time while the stream is alive. **Ownership:** the stream owns its connection;
/// destroying it closes the connection.
class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  /// The HTTP status code.
  virtual int status() const = 0;
  /// The response headers.
  virtual const Headers& headers() const = 0;
  /// The next bytes of the body, in arrival order. An empty view means the body ended cleanly
  /// (final chunk or Content-Length reached). The view is valid until the next call.
  /// **Blocks?** Until bytes arrive, the body ends, an error occurs or `Cancel` is called.
  /// **Errors:** a transport error (kConnectionReset for a reset or a truncated body,
  /// kProtocol for a malformed chunk); `CanceledError` once `Cancel` has been called.
  virtual Result<std::string_view> Read() = 0;
  /// Ends a blocked or future `Read` promptly with a Canceled error and closes the connection.
  /// Idempotent; safe from any thread.
  virtual void Cancel() = 0;
};

/// Sends HTTP requests to one server (the cluster's API endpoint).
/// **Thread-safety:** implementations are safe to call from many threads at once.
class Transport {
 public:
  virtual ~Transport() = default;
  /// Sends `request` and reads the full response (any status code is a successful Result).
  /// **Blocks?** Yes, up to `request.timeout` when set.
  /// **Errors:** transport errors (code 0) only; HTTP error statuses are not errors here.
  virtual Result<HttpResponse> Do(const HttpRequest& request) = 0;
  /// Sends `request` and returns once the response headers have arrived; the body is read
  /// through the stream. **Errors:** as `Do`.
  virtual Result<std::unique_ptr<ResponseStream>> Open(const HttpRequest& request) = 0;
};

}  // namespace kube::client
