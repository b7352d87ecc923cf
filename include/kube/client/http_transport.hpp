#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <kube/base/result.hpp>
#include <kube/client/transport.hpp>

/// The production `Transport`: HTTP/1.1 over TCP or TLS (Boost.Beast + OpenSSL), with a
/// keep-alive connection pool. The implementation lives in one .cpp so that Asio/Beast/OpenSSL
/// stay out of every public header.
namespace kube::client {

/// Server certificate verification and client certificate, all PEM text.
struct TlsOptions {
  /// Trusted roots (one or more PEM certificates). Empty = the system's default roots.
  std::string ca_pem{};
  /// Client certificate chain presented to the server; empty = none.
  std::string client_cert_pem{};
  /// Private key of `client_cert_pem`.
  std::string client_key_pem{};
  /// The name the server certificate must match, also sent as SNI (`tls-server-name`).
  /// Empty = the host of the server URL (an IP address is matched against IP SANs).
  std::string server_name{};
  /// Skip server certificate verification entirely (`insecure-skip-tls-verify`). Dangerous.
  bool insecure_skip_verify = false;
};

/// A client certificate and its key (PEM), as returned by an exec credential plugin.
struct ClientCertificate {
  std::string cert_pem;
  std::string key_pem;
  bool operator==(const ClientCertificate&) const = default;
};

/// Options of `NewHttpTransport`. Defaults follow Go's `http.Transport` as client-go configures it.
struct HttpTransportOptions {
  /// "https://host[:port]" or "http://host[:port]"; a path in the URL is ignored here (the
  /// RestClient prepends it to every request). Port defaults to 443 / 80.
  std::string server{};
  TlsOptions tls{};
  /// When set, called before every new TLS connection; a returned certificate replaces
  /// `tls.client_cert_pem`/`client_key_pem` (exec plugins rotate client certificates this way;
  /// a changed certificate closes idle connections). **Thread-safety:** may be called from any
  /// request thread.
  std::function<Result<std::optional<ClientCertificate>>()> client_certificate{};
  /// `http://[user:password@]host:port` of an HTTP proxy, reached with CONNECT. Empty = direct.
  std::string proxy_url{};
  /// TCP connect timeout (Go's dialer: 30 s).
  std::chrono::milliseconds connect_timeout = std::chrono::seconds(30);
  /// TLS handshake timeout (Go: 10 s).
  std::chrono::milliseconds tls_handshake_timeout = std::chrono::seconds(10);
  /// TCP keep-alive probe interval on every connection (Go's dialer: 30 s); 0 = off.
  std::chrono::seconds tcp_keepalive = std::chrono::seconds(30);
  /// Idle connections kept per host (client-go: 25).
  std::size_t max_idle_per_host = 25;
  /// Maximum connections per host, idle plus in use (including open watches); a request that
  /// would exceed it waits for a connection to be released. 0 = unlimited (Go's default).
  std::size_t max_conns_per_host = 0;
  /// An idle connection older than this is closed instead of reused (Go: 90 s).
  std::chrono::milliseconds idle_timeout = std::chrono::seconds(90);
  /// Largest response body `Do` (and `Open` of a finite body) accepts; larger bodies fail with
  /// a kProtocol transport error.
  std::size_t max_response_bytes = std::size_t{1} << 30;
};

/// Counters of one HTTP transport, for tests and metrics.
struct HttpTransportStats {
  std::size_t connections_opened = 0;  ///< TCP connections established so far
  std::size_t idle = 0;                ///< idle pooled connections now
  std::size_t in_use = 0;              ///< connections lent to requests or streams now
};

/// The production transport, with its statistics.
class HttpTransport : public Transport {
 public:
  /// A snapshot of the counters. **Thread-safety:** safe from any thread.
  virtual HttpTransportStats Stats() const = 0;
  /// Closes every idle pooled connection. **Thread-safety:** safe from any thread.
  virtual void CloseIdleConnections() = 0;
};

/// Creates the Beast/OpenSSL transport for `options.server`.
/// **Errors:** 400 BadRequest naming the option for a malformed `server` or `proxy_url`, an
/// unsupported scheme, or PEM material that does not parse (`tls.ca_pem: no certificate found`).
Result<std::shared_ptr<HttpTransport>> NewHttpTransport(HttpTransportOptions options);

}  // namespace kube::client
