#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <kube/base/mutex.hpp>

/// A scripted HTTP/1.1 server for transport tests (test-only): plain TCP or TLS (OpenSSL),
/// bound to 127.0.0.1 port 0, one thread per connection running the test's script, which reads
/// requests and writes raw bytes, so that tests can produce chunk boundaries, resets, truncated
/// bodies, stalls and garbage exactly.
namespace kube::client::testing {

/// A request as the server received it.
struct ReceivedRequest {
  std::string method;
  std::string target;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;
  /// The first header named `name` (lower-case), or "".
  std::string Header(std::string_view name) const;
};

/// One accepted connection, driven by the script.
class ServerConn {
 public:
  virtual ~ServerConn() = default;
  /// Reads one request (headers and a Content-Length or chunked body); nullopt at EOF/error.
  virtual std::optional<ReceivedRequest> ReadRequest() = 0;
  /// Writes bytes; false when the peer has gone.
  virtual bool Write(std::string_view bytes) = 0;
  /// Closes cleanly (TLS close_notify, then FIN).
  virtual void Close() = 0;
  /// Closes with a TCP reset (SO_LINGER 0).
  virtual void Reset() = 0;
  /// The subject of the client certificate ("" when none).
  virtual std::string PeerSubject() = 0;
};

/// `HTTP/1.1 <status> X\r\n` + headers + Content-Length + body.
std::string HttpResponse(int status, std::string_view body, std::string_view content_type = "application/json",
                         const std::vector<std::pair<std::string, std::string>>& headers = {});
/// The head of a chunked response (status line and headers, ending with the blank line).
std::string ChunkedHead(int status, std::string_view content_type = "application/json");
/// One chunk in chunked transfer coding.
std::string Chunk(std::string_view data);
/// The last chunk (`0\r\n\r\n`).
std::string LastChunk();

/// Options of ScriptedServer.
struct ScriptedServerOptions {
  bool tls = false;
  std::string cert_file{};       ///< server certificate chain (PEM)
  std::string key_file{};        ///< its key
  std::string client_ca_file{};  ///< when set, require a client certificate signed by this CA
};

/// The server. The destructor stops accepting, shuts down open connections and joins threads.
class ScriptedServer final {
 public:
  using Script = std::function<void(ServerConn&)>;
  ScriptedServer(ScriptedServerOptions options, Script script);
  ~ScriptedServer();
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  std::uint16_t port() const { return port_; }
  /// "http://127.0.0.1:<port>" or "https://127.0.0.1:<port>".
  std::string url() const;
  /// Connections accepted so far.
  int connections() const { return accepted_.load(); }
  /// TLS handshakes that failed on the server side.
  int handshake_failures() const { return handshake_failures_.load(); }

 private:
  void AcceptLoop();

  ScriptedServerOptions options_;
  Script script_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  void* ssl_ctx_ = nullptr;  // SSL_CTX*
  std::atomic<bool> stopping_{false};
  std::atomic<int> accepted_{0};
  std::atomic<int> handshake_failures_{0};
  Mutex mu_;
  std::vector<int> open_fds_ KUBE_GUARDED_BY(mu_);
  std::vector<std::thread> threads_ KUBE_GUARDED_BY(mu_);
  std::thread acceptor_;
};

/// Certificates made with the `openssl` CLI in a temporary directory (removed by the destructor).
struct TestPki {
  std::string dir;
  std::string ca_cert, ca_key;          ///< the trusted CA
  std::string other_ca_cert;            ///< an unrelated CA (wrong-CA tests)
  std::string server_cert, server_key;  ///< SANs: DNS:localhost, IP:127.0.0.1
  std::string named_cert, named_key;    ///< SAN: DNS:kube.test only (tls-server-name tests)
  std::string client_cert, client_key; ///< CN=kube-client, signed by the CA
  std::string client2_cert, client2_key; ///< CN=kube-client-2, signed by the CA

  /// Creates everything; returns nullopt (and logs why) if the openssl CLI fails.
  static std::unique_ptr<TestPki> Create();
  ~TestPki();
  /// Reads a file written by Create.
  static std::string Read(const std::string& path);
};

}  // namespace kube::client::testing
