#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <kube/base/result.hpp>

namespace kube::apiserver {

/// One HTTP request, fully read (the body is bounded by `HttpServerOptions::max_body_bytes`).
/// **Ownership:** borrowed by the handler for the duration of the call.
struct HttpRequest {
  std::string method{};   ///< "GET", "POST", ...
  std::string target{};   ///< path and query as sent
  std::string path{};     ///< percent-decoded path, without the query
  std::string query{};    ///< raw query string (without '?'), still percent-encoded
  /// Headers with lower-cased names, in arrival order.
  std::vector<std::pair<std::string, std::string>> headers{};
  std::string body{};
  std::string remote{};   ///< "ip:port" of the peer ("[ip]:port" for IPv6)
  /// The authenticated user: "" when authentication is off, "admin" for the bearer token,
  /// "system:anonymous" for a request without credentials on an anonymous path.
  std::string user{};

  /// The first header named `name` (lower-case), or nullopt.
  std::optional<std::string_view> Header(std::string_view name) const;
};

/// How a handler answers. Either `Respond` once, or `BeginStream` then any number of `Write`
/// calls (each is sent as one HTTP/1.1 chunk and flushed), then return from the handler; the
/// final zero-length chunk is sent after the handler returns. Calling Respond or BeginStream a
/// second time, or Write without BeginStream, is a programming error (asserted; ignored in
/// release builds). The server sets `Date`, `Content-Length` / `Transfer-Encoding` and
/// `Connection` itself: handler headers with those names are dropped.
/// **Thread-safety:** used by one thread at a time: the handler's, or another thread the handler
/// hands it to while it waits (with a mutex between them, as the REST layer's watch delivery
/// thread does); `StopToken` may be called from any thread.
/// **Ownership/lifetime:** owned by the server; valid until the handler returns.
/// **Blocks?** Respond, BeginStream and Write block until the bytes are handed to the kernel;
/// a peer that takes nothing for `HttpServerOptions::write_timeout` is disconnected.
class ResponseWriter {
 public:
  virtual ~ResponseWriter() = default;
  /// Sends a complete response with a Content-Length. An empty `content_type` sends no
  /// Content-Type header. Write failures are not reported (the connection is closed).
  virtual void Respond(int status, std::string_view content_type, std::string_view body,
                       const std::vector<std::pair<std::string, std::string>>& headers = {}) = 0;
  /// Sends the status line and headers at once (Transfer-Encoding: chunked; for an HTTP/1.0
  /// client the body is delimited by closing the connection instead).
  virtual void BeginStream(int status, std::string_view content_type,
                           const std::vector<std::pair<std::string, std::string>>& headers = {}) = 0;
  /// Sends one chunk and flushes it (no buffering across calls; an empty `data` sends nothing).
  /// Returns false when the client has gone away or a write failed: stop writing and return.
  virtual bool Write(std::string_view data) = 0;
  /// Requested when the server shuts down (Stop), when the peer hangs up during a stream (the
  /// server watches the socket while a stream is open, so a watch with no events still notices)
  /// and when the connection closes; long streams (watches) end promptly when it fires.
  /// Stop callbacks registered on it run on a server thread (Stop's caller or the monitor):
  /// keep them short and non-blocking.
  virtual std::stop_token StopToken() const = 0;
  /// True once Respond or BeginStream has been called.
  virtual bool Started() const = 0;
  /// During a stream: how many bytes of data a `Write` can hand to the kernel right now without
  /// blocking, estimated conservatively from the socket's free send-buffer space (so that one
  /// thread can serve many streams without a slow client stalling it). 0 when unknown, when
  /// nothing fits, or outside a stream; the default implementation returns 0.
  virtual std::size_t WritableWithoutBlocking() const { return 0; }
};

/// The application: called once per request on a server thread, concurrently for different
/// connections (it must be thread-safe). It may block (a watch streams until its stop token
/// fires or Write returns false) but must return promptly once the stop token fires: Stop()
/// joins every connection thread. Exceptions are caught: before the response started they are
/// answered with a 500 InternalError Status; during a stream the connection is cut without the
/// final chunk, so the client sees the stream fail. A handler that returns without answering
/// gets a 500 Status as well.
using HttpHandler = std::function<void(const HttpRequest&, ResponseWriter&)>;

/// TLS material (PEM files), loaded by `HttpServer::Start`.
struct TlsOptions {
  std::string cert_file{};  ///< serving certificate chain
  std::string key_file{};   ///< its private key
};

/// Options of the HTTP server; defaults as the embedded API server uses them.
struct HttpServerOptions {
  std::string address = "127.0.0.1";  ///< an IP literal ("0.0.0.0", "::1", ...), not a host name
  uint16_t port = 0;  ///< 0 = an ephemeral port (read it back with `port()`)
  std::optional<TlsOptions> tls{};  ///< nullopt = plain HTTP (loopback tests); TLS 1.2+ otherwise
  /// When set, every request must carry `Authorization: Bearer <token>`; otherwise 401 with an
  /// Unauthorized Status. Requests without credentials to a path in `anonymous_paths` (or below
  /// one: "/healthz" covers "/healthz/ping") skip the check; a wrong token is refused everywhere,
  /// as kube-apiserver does.
  std::optional<std::string> bearer_token{};
  std::vector<std::string> anonymous_paths = {"/healthz", "/livez", "/readyz", "/version"};
  /// Larger bodies: 413 RequestEntityTooLarge Status (a Content-Length above it is refused
  /// before any of the body is read; a chunked body as soon as it crosses it).
  std::size_t max_body_bytes = 3 * 1024 * 1024;
  /// A request line + header section larger than this: 431 Status.
  std::size_t max_header_bytes = 1024 * 1024;
  /// A keep-alive connection on which no new request starts for this long is closed.
  std::chrono::seconds idle_timeout{120};
  /// Reading one request (header + body, from its first byte), and a TLS handshake, must finish
  /// within this; otherwise the connection is closed without an answer.
  std::chrono::seconds read_timeout{60};
  /// A write must make progress within this: each piece of a response (at most 256 KiB, or one
  /// TLS record) must be taken by the peer in time, or the connection is closed (a client that
  /// stopped reading a watch is dropped; a slow client reading a large list is not).
  std::chrono::seconds write_timeout{60};
  /// Connections beyond this many are closed as soon as they are accepted.
  std::size_t max_connections = 4096;
};

/// A small HTTP/1.1 (+TLS) server on Boost.Beast: keep-alive, chunked streaming, body and header
/// limits with 413/431 Status answers, 400 Status for malformed requests, idle, read and write
/// timeouts, bearer-token authentication. One thread per connection (watch streams block their
/// thread), plus an acceptor thread and a monitor thread (timeouts, hang-up detection); every
/// thread is a std::jthread owned by the server. Every error body is a Kubernetes Status JSON.
/// See docs/apiserver-http.md.
/// **Thread-safety:** Start/Stop from one owner thread (never from a handler); `port()` from
/// any thread; the handler runs on connection threads.
/// **Ownership/lifetime:** destroying the server calls `Stop()` with the default grace.
class HttpServer {
 public:
  virtual ~HttpServer() = default;
  /// Binds and starts accepting. **Errors:** 500 InternalError when the address is invalid,
  /// binding fails, TLS setup fails (unreadable or mismatched cert/key), or Start was already
  /// called successfully.
  virtual Result<void> Start() = 0;
  /// The bound port (after Start; 0 before).
  virtual uint16_t port() const = 0;
  /// Stops accepting, requests stop on every connection's token, closes idle connections and
  /// waits (up to `grace`) for in-flight requests to finish, then closes the rest and joins
  /// every thread. Idempotent; a no-op before Start. **Blocks?** Up to `grace`, then until the
  /// remaining handlers return (they must honour their stop token).
  virtual void Stop(std::chrono::milliseconds grace = std::chrono::seconds(5)) = 0;
};

/// Creates a server; nothing is bound until Start(). `handler` must be callable.
std::unique_ptr<HttpServer> NewHttpServer(HttpServerOptions options, HttpHandler handler);

/// Files of a self-signed PKI generated into a data dir (absolute when `dir` is).
struct GeneratedPki {
  std::string ca_file{};    ///< CA certificate (PEM)
  /// serving certificate signed by the CA (SANs: localhost, 127.0.0.1, ::1)
  std::string cert_file{};
  std::string key_file{};   ///< serving key
};

/// Creates (on first call) or reuses `<dir>/pki/{ca.crt,ca.key,server.crt,server.key}`: an EC
/// P-256 CA (10 years) and a serving certificate it signs (10 years; SANs DNS:localhost,
/// IP:127.0.0.1, IP:::1; extended key usage serverAuth). Keys are written with mode 0600,
/// certificates 0644, the directory 0700, each file atomically. On later calls the files are
/// loaded and checked: a serving pair that is missing, does not match, is not signed by the CA
/// or expires within 30 days is reissued with the same CA.
/// **Errors:** 500 InternalError on I/O or OpenSSL failure, and when `ca.crt` exists but it or
/// `ca.key` does not load, they do not match, or the CA has expired (it is never replaced
/// silently, since kubeconfigs embed it: delete `<dir>/pki` to start over).
/// **Thread-safety:** concurrent calls on the same `dir` (even from two processes) may race.
Result<GeneratedPki> EnsurePki(const std::string& dir);

/// A certificate and its private key, PEM-encoded (the key as PKCS#8).
struct CertificateAndKey {
  std::string cert_pem{};
  std::string key_pem{};
};

/// What `IssueCertificate` writes into a certificate.
struct CertificateSpec {
  /// What the certificate is for: a CA (`CA:TRUE`, keyCertSign), a TLS server (serverAuth) or a
  /// TLS client (clientAuth; Kubernetes reads CN as the user name and each O as a group).
  enum class Usage { kCa, kServer, kClient };
  std::string common_name{};
  /// The subject's O entries, in order (EnsurePki's certificates have one, "kubecpp").
  std::vector<std::string> organizations{};
  Usage usage = Usage::kServer;
  /// subjectAltName in OpenSSL's syntax, e.g. "DNS:localhost,IP:127.0.0.1"; "" = none.
  std::string subject_alt_names{};
  int validity_days = 3650;
};

/// Issues a v3 certificate for a new EC P-256 key (random positive serial, valid from an hour
/// ago, SHA-256 signature), signed by `issuer` (its certificate and key), or self-signed when
/// `issuer` is null. The same code makes `EnsurePki`'s CA and serving certificate.
/// **Errors:** 500 InternalError naming the OpenSSL failure (also for an issuer whose PEM does
/// not load). **Thread-safety:** safe to call concurrently.
Result<CertificateAndKey> IssueCertificate(const CertificateSpec& spec, const CertificateAndKey* issuer = nullptr);

/// A new EC P-256 key pair, PEM-encoded: the private key (PKCS#8) and the public key
/// (SubjectPublicKeyInfo), e.g. for kube-apiserver's service-account signing key files.
struct KeyPairPem {
  std::string private_key_pem{};
  std::string public_key_pem{};
};
/// Generates a `KeyPairPem`. **Errors:** 500 InternalError naming the OpenSSL failure.
/// **Thread-safety:** safe to call concurrently.
Result<KeyPairPem> GenerateKeyPair();

/// Reads `<dir>/token` (surrounding whitespace trimmed), or creates it with 32 random bytes
/// hex-encoded (mode 0600; `dir` created with 0700 as needed).
/// **Errors:** 500 InternalError on I/O failure.
Result<std::string> EnsureToken(const std::string& dir);

/// Writes a kubeconfig (cluster "kubecpp", user "admin", context "kubecpp", current-context
/// "kubecpp") for `server_url`, with the CA embedded as certificate-authority-data when
/// `ca_file` is non-empty (plain http: pass "") and the bearer token (omitted when empty), to
/// `path` atomically with mode 0600; missing directories are created (0700).
/// **Errors:** 500 InternalError when `ca_file` cannot be read or the file cannot be written.
Result<void> WriteKubeconfig(const std::string& path, const std::string& server_url,
                             const std::string& ca_file, const std::string& token);

}  // namespace kube::apiserver
