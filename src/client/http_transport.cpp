// The Boost.Beast + OpenSSL transport. Each pooled connection owns a private io_context that is
// run by whichever thread is using the connection ("sync over async"): every operation gets a
// deadline through beast::tcp_stream, no extra threads are needed, and another thread can end a
// blocked watch by posting a close to that io_context.
#include <kube/client/http_transport.hpp>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <kube/base/mutex.hpp>

#include "client/internal/util.hpp"

namespace kube::client {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using Steady = std::chrono::steady_clock;
using ErrorCode = boost::system::error_code;

/// Room reserved in a connection's read buffer before reading a response body or a stream: Beast
/// reads at most the buffer's free capacity per syscall.
constexpr std::size_t kStreamBufferBytes = 64 * 1024;
constexpr std::uint32_t kHeaderLimit = 64 * 1024;

// ---------------------------------------------------------------------------------------------
// Addresses

struct Address {
  bool tls = false;
  std::string host;         // without brackets
  std::string port;
  std::string host_header;  // as sent in Host (brackets for IPv6; port only when given)
  std::string authority;    // host:port, always with the port (CONNECT target)
  std::string userinfo;     // proxy credentials "user:pass" (decoded), if any
};

Result<Address> ParseAddress(std::string_view url, std::string_view option, bool allow_userinfo) {
  const auto fail = [&](std::string why) {
    return BadRequest(std::string(option) + ": " + why + " in " + internal::Quote(url));
  };
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return fail("missing scheme");
  const std::string scheme = internal::ToLower(url.substr(0, scheme_end));
  Address a;
  if (scheme == "https") {
    a.tls = true;
  } else if (scheme != "http") {
    return fail("unsupported scheme " + internal::Quote(scheme));
  }
  std::string_view authority = url.substr(scheme_end + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    if (!allow_userinfo) return fail("unexpected user information");
    a.userinfo = std::string(authority.substr(0, at));
    authority.remove_prefix(at + 1);
  }
  if (authority.empty()) return fail("missing host");
  std::string_view host = authority;
  std::string_view port;
  if (authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return fail("unterminated IPv6 address");
    host = authority.substr(1, close - 1);
    std::string_view rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return fail("malformed port");
      port = rest.substr(1);
    }
  } else if (const auto colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) return fail("missing host");
  if (!port.empty()) {
    for (const char c : port) {
      if (c < '0' || c > '9') return fail("malformed port");
    }
    if (port.size() > 5 || std::stoul(std::string(port)) > 65535) return fail("port out of range");
  }
  a.host = std::string(host);
  a.port = port.empty() ? (a.tls ? "443" : "80") : std::string(port);
  const bool v6 = a.host.find(':') != std::string::npos;
  a.host_header = (v6 ? "[" + a.host + "]" : a.host);
  a.authority = a.host_header + ":" + a.port;
  if (!port.empty()) a.host_header += ":" + a.port;
  return a;
}

// ---------------------------------------------------------------------------------------------
// TLS contexts

std::string SslErrorString() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown error";
  const char* reason = ERR_reason_error_string(code);
  return reason != nullptr ? reason : "error " + std::to_string(code);
}

Result<std::shared_ptr<ssl::context>> MakeSslContext(const TlsOptions& tls, const std::string& cert_pem,
                                                     const std::string& key_pem) {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
  SSL_CTX* native = ctx->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  static const unsigned char kAlpn[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  SSL_CTX_set_alpn_protos(native, kAlpn, sizeof kAlpn);
  ErrorCode ec;
  if (tls.insecure_skip_verify) {
    ctx->set_verify_mode(ssl::verify_none, ec);
  } else {
    ctx->set_verify_mode(ssl::verify_peer, ec);
    if (!tls.ca_pem.empty()) {
      X509_STORE* store = SSL_CTX_get_cert_store(native);
      BIO* bio = BIO_new_mem_buf(tls.ca_pem.data(), static_cast<int>(tls.ca_pem.size()));
      int added = 0;
      ERR_clear_error();
      while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
        if (X509_STORE_add_cert(store, cert) == 1) ++added;
        X509_free(cert);
      }
      BIO_free(bio);
      ERR_clear_error();
      if (added == 0) return BadRequest("tls.ca_pem: no certificate found");
    } else {
      ctx->set_default_verify_paths(ec);
    }
  }
  if (!cert_pem.empty() || !key_pem.empty()) {
    ctx->use_certificate_chain(asio::buffer(cert_pem), ec);
    if (ec) return BadRequest("tls.client_cert_pem: " + ec.message());
    ctx->use_private_key(asio::buffer(key_pem), ssl::context::pem, ec);
    if (ec) return BadRequest("tls.client_key_pem: " + ec.message());
    if (SSL_CTX_check_private_key(native) != 1) {
      return BadRequest("tls.client_key_pem: private key does not match the certificate: " + SslErrorString());
    }
  }
  return ctx;
}

// ---------------------------------------------------------------------------------------------
// Errors

bool IsHttpCategory(const ErrorCode& ec) {
  return ec.category() == http::make_error_code(http::error::bad_version).category();
}

bool IsResetLike(const ErrorCode& ec) {
  return ec == http::error::end_of_stream || ec == http::error::partial_message || ec == asio::error::eof ||
         ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
         ec == asio::error::connection_aborted || ec == asio::error::not_connected ||
         ec == asio::error::bad_descriptor || ec == ssl::error::stream_truncated;
}

Error MapError(const ErrorCode& ec, std::string_view stage, std::string_view default_cause) {
  if (ec == beast::error::timeout || ec == asio::error::timed_out) {
    return MakeTransportError(transport_cause::kClientTimeout, std::string(stage) + ": i/o timeout");
  }
  if (ec == http::error::body_limit) {
    return MakeTransportError(transport_cause::kProtocol, std::string(stage) + ": response body too large");
  }
  if (IsResetLike(ec)) {
    return MakeTransportError(transport_cause::kConnectionReset,
                              std::string(stage) + ": connection closed by the server (" + ec.message() + ")");
  }
  if (IsHttpCategory(ec)) {
    return MakeTransportError(transport_cause::kProtocol,
                              std::string(stage) + ": malformed HTTP response: " + ec.message());
  }
  return MakeTransportError(default_cause, std::string(stage) + ": " + ec.message());
}

// ---------------------------------------------------------------------------------------------
// Connections

class Connection {
 public:
  Connection() { plain_.emplace(ioc_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  beast::tcp_stream& Lowest() { return secure_ ? beast::get_lowest_layer(*secure_) : *plain_; }

  /// Runs the io_context until the operations started before the call have completed.
  void Run() {
    ioc_.restart();
    ioc_.run();
  }

  void SetDeadline(Steady::time_point deadline) {
    if (deadline == Steady::time_point::max()) {
      Lowest().expires_never();
    } else {
      Lowest().expires_at(deadline);
    }
  }

  void Close() {
    ErrorCode ec;
    Lowest().socket().shutdown(tcp::socket::shutdown_both, ec);
    Lowest().socket().close(ec);
  }

  /// Applies `fn` to whichever stream carries HTTP (TLS or plain).
  template <class Fn>
  decltype(auto) WithStream(Fn&& fn) {
    if (secure_) return fn(*secure_);
    return fn(*plain_);
  }

  /// A pooled connection is only reused if the peer has not closed it and sent nothing unasked.
  bool LooksHealthy() {
    const int fd = Lowest().socket().native_handle();
    char b;
    const ssize_t r = ::recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    return r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }

  asio::io_context ioc_{1};
  std::shared_ptr<ssl::context> ctx_;  // outlives secure_ (declared before it)
  std::optional<beast::tcp_stream> plain_;
  std::optional<beast::ssl_stream<beast::tcp_stream>> secure_;
  beast::flat_buffer buffer_;
  Steady::time_point idle_since_{};
  std::uint64_t generation_ = 0;
  bool reused_ = false;
};

/// Starts `start(handler)` and runs the connection's io_context until it completes.
template <class Start>
ErrorCode RunOp(Connection& c, Start&& start) {
  ErrorCode result;
  bool done = false;
  start([&](ErrorCode ec, auto&&...) {
    result = ec;
    done = true;
  });
  c.Run();
  if (!done) return asio::error::operation_aborted;
  return result;
}

// ---------------------------------------------------------------------------------------------
// The pool (shared with open streams, which release their slot when they end)

struct Pool {
  explicit Pool(const HttpTransportOptions& o)
      : max_idle(o.max_idle_per_host), max_conns(o.max_conns_per_host), idle_timeout(o.idle_timeout) {}

  /// Takes an idle connection, or reserves a slot for a new one (returns null). Waits while
  /// the per-host limit is reached.
  Result<std::unique_ptr<Connection>> Acquire(Steady::time_point deadline) KUBE_EXCLUDES(mu) {
    std::vector<std::unique_ptr<Connection>> discard;  // closed after the lock is released
    MutexLock lock(mu);
    for (;;) {
      while (!idle.empty()) {
        std::unique_ptr<Connection> c = std::move(idle.back());
        idle.pop_back();
        const bool fresh = Steady::now() - c->idle_since_ < idle_timeout;
        if (!fresh || c->generation_ != generation || !c->LooksHealthy()) {
          discard.push_back(std::move(c));
          continue;
        }
        ++in_use;
        c->reused_ = true;
        return c;
      }
      if (max_conns == 0 || in_use < max_conns) {
        ++in_use;
        return std::unique_ptr<Connection>();
      }
      if (deadline == Steady::time_point::max()) {
        cv.Wait(mu);
      } else if (cv.WaitUntil(mu, deadline) && Steady::now() >= deadline) {
        return MakeTransportError(transport_cause::kClientTimeout,
                                  "timed out waiting for a free connection (max_conns_per_host=" +
                                      std::to_string(max_conns) + ")");
      }
    }
  }

  /// Returns a slot; `c` (may be null) goes back to the idle list when reusable.
  void Release(std::unique_ptr<Connection> c, bool reusable) KUBE_EXCLUDES(mu) {
    std::unique_ptr<Connection> discard;
    MutexLock lock(mu);
    --in_use;
    if (c && reusable && idle.size() < max_idle && c->generation_ == generation) {
      c->idle_since_ = Steady::now();
      idle.push_back(std::move(c));
    } else {
      discard = std::move(c);
    }
    cv.Signal();
  }

  void NoteOpened() KUBE_EXCLUDES(mu) {
    MutexLock lock(mu);
    ++opened;
  }

  /// Drops every idle connection (and, when `bump`, makes the current ones non-reusable).
  void Flush(bool bump) KUBE_EXCLUDES(mu) {
    std::vector<std::unique_ptr<Connection>> discard;
    MutexLock lock(mu);
    discard.swap(idle);
    if (bump) ++generation;
  }

  std::uint64_t Generation() KUBE_EXCLUDES(mu) {
    MutexLock lock(mu);
    return generation;
  }

  HttpTransportStats Stats() KUBE_EXCLUDES(mu) {
    MutexLock lock(mu);
    return {opened, idle.size(), in_use};
  }

  const std::size_t max_idle;
  const std::size_t max_conns;
  const Steady::duration idle_timeout;
  Mutex mu;
  CondVar cv;
  std::vector<std::unique_ptr<Connection>> idle KUBE_GUARDED_BY(mu);
  std::size_t in_use KUBE_GUARDED_BY(mu) = 0;
  std::size_t opened KUBE_GUARDED_BY(mu) = 0;
  std::uint64_t generation KUBE_GUARDED_BY(mu) = 0;  // bumped when the client certificate rotates
};

Headers ToHeaders(const http::fields& fields) {
  Headers out;
  for (const auto& f : fields) out.emplace_back(std::string(f.name_string()), std::string(f.value()));
  return out;
}

template <class Message>
void SetHeaders(Message& m, const Headers& headers) {
  for (const auto& [k, v] : headers) m.insert(k, v);
}

// ---------------------------------------------------------------------------------------------
// A streaming response (watch)

class StreamImpl final : public ResponseStream {
 public:
  StreamImpl(std::shared_ptr<Pool> pool, std::unique_ptr<Connection> conn,
             std::unique_ptr<http::response_parser<http::buffer_body>> parser)
      : pool_(std::move(pool)), conn_(std::move(conn)), parser_(std::move(parser)), buf_(kStreamBufferBytes) {
    status_ = static_cast<int>(parser_->get().result_int());
    headers_ = ToHeaders(parser_->get().base());
    // Beast sizes each socket read by the buffer's free capacity (at least 512 bytes): without
    // this a watch body arrives a few hundred bytes per syscall.
    conn_->buffer_.reserve(conn_->buffer_.size() + kStreamBufferBytes);
  }

  ~StreamImpl() override {
    // A body read to its end leaves the connection ready for the next request (a streamed
    // list); one abandoned midway (a stopped watch) does not.
    const bool reusable = !failed_ && !canceled_.load() && parser_->is_done() && parser_->keep_alive();
    parser_.reset();
    pool_->Release(std::move(conn_), reusable);
  }

  int status() const override { return status_; }
  const Headers& headers() const override { return headers_; }

  Result<std::string_view> Read() override {
    if (canceled_.load()) return CanceledError("stream canceled");
    if (failed_) return MakeTransportError(transport_cause::kConnectionReset, "stream already failed");
    for (;;) {
      if (parser_->is_done()) return std::string_view();
      auto& body = parser_->get().body();
      body.data = buf_.data();
      body.size = buf_.size();
      body.more = true;
      ErrorCode ec = conn_->WithStream([&](auto& stream) {
        return RunOp(*conn_, [&](auto handler) {
          http::async_read_some(stream, conn_->buffer_, *parser_, std::move(handler));
        });
      });
      if (ec == http::error::need_buffer) ec = {};
      const std::size_t n = buf_.size() - parser_->get().body().size;
      if (canceled_.load()) return CanceledError("stream canceled");
      if (ec) {
        failed_ = true;
        if (ec == asio::error::operation_aborted) return CanceledError("stream canceled");
        return MapError(ec, "reading the response body", transport_cause::kConnectionReset);
      }
      if (n > 0) return std::string_view(buf_.data(), n);
    }
  }

  void Cancel() override {
    if (canceled_.exchange(true)) return;
    // Runs on the thread that runs the connection's io_context (a blocked Read), or is
    // discarded unrun when the stream is destroyed first.
    Connection* c = conn_.get();
    asio::post(c->ioc_, [c] { c->Close(); });
  }

 private:
  std::shared_ptr<Pool> pool_;
  std::unique_ptr<Connection> conn_;
  std::unique_ptr<http::response_parser<http::buffer_body>> parser_;
  std::vector<char> buf_;
  int status_ = 0;
  Headers headers_;
  std::atomic<bool> canceled_{false};
  bool failed_ = false;
};

// ---------------------------------------------------------------------------------------------
// The transport

class BeastTransport final : public HttpTransport {
 public:
  BeastTransport(HttpTransportOptions options, Address server, std::optional<Address> proxy,
                 std::shared_ptr<ssl::context> ctx)
      : options_(std::move(options)),
        server_(std::move(server)),
        proxy_(std::move(proxy)),
        pool_(std::make_shared<Pool>(options_)),
        ctx_(std::move(ctx)) {}

  ~BeastTransport() override { pool_->Flush(false); }

  Result<HttpResponse> Do(const HttpRequest& request) override {
    const Steady::time_point deadline = Deadline(request);
    for (int attempt = 0;; ++attempt) {
      auto conn = Checkout(deadline);
      if (!conn) return std::move(conn).error();
      bool got_bytes = false;
      bool reusable = false;
      auto r = Exchange(**conn, request, deadline, got_bytes, reusable);
      const bool reused = (*conn)->reused_;
      if (!r) {
        pool_->Release(nullptr, false);
        // A kept-alive connection the server had already closed: the request was never
        // processed, so send it again on a fresh connection (as Go's transport does).
        if (attempt == 0 && reused && !got_bytes && IsConnectionReset(r.error())) continue;
        return std::move(r).error();
      }
      pool_->Release(std::move(conn).value(), reusable);
      return r;
    }
  }

  Result<std::unique_ptr<ResponseStream>> Open(const HttpRequest& request) override {
    const Steady::time_point deadline = Deadline(request);
    for (int attempt = 0;; ++attempt) {
      auto conn = Checkout(deadline);
      if (!conn) return std::move(conn).error();
      Connection& c = **conn;
      const bool reused = c.reused_;
      auto parser = std::make_unique<http::response_parser<http::buffer_body>>();
      parser->header_limit(kHeaderLimit);
      if (request.finite_body) {
        parser->body_limit(options_.max_response_bytes);
      } else {
        parser->body_limit(boost::none);
      }
      ErrorCode ec;
      try {
        ec = Write(c, request, deadline);
        if (!ec) {
          c.SetDeadline(deadline);
          ec = c.WithStream([&](auto& stream) {
            return RunOp(c, [&](auto handler) {
              http::async_read_header(stream, c.buffer_, *parser, std::move(handler));
            });
          });
        }
      } catch (const std::exception& e) {
        pool_->Release(nullptr, false);
        return MakeTransportError(transport_cause::kProtocol, std::string("request: ") + e.what());
      }
      if (ec) {
        const bool got_bytes = parser->got_some();
        pool_->Release(nullptr, false);
        Error err = MapError(ec, "reading the response", transport_cause::kConnectionReset);
        if (attempt == 0 && reused && !got_bytes && IsConnectionReset(err)) continue;
        return err;
      }
      // A watch has no deadline once it streams; a streamed list keeps the request's.
      if (!request.finite_body) c.Lowest().expires_never();
      return std::unique_ptr<ResponseStream>(
          std::make_unique<StreamImpl>(pool_, std::move(conn).value(), std::move(parser)));
    }
  }

  HttpTransportStats Stats() const override { return pool_->Stats(); }
  void CloseIdleConnections() override { pool_->Flush(false); }

 private:
  Steady::time_point Deadline(const HttpRequest& r) const {
    if (r.timeout <= Clock::Duration::zero()) return Steady::time_point::max();
    return Steady::now() + std::chrono::duration_cast<Steady::duration>(r.timeout);
  }

  /// An idle connection, or a freshly dialled one (the pool slot is held either way).
  Result<std::unique_ptr<Connection>> Checkout(Steady::time_point deadline) {
    auto slot = pool_->Acquire(deadline);
    if (!slot) return std::move(slot).error();
    if (*slot) return std::move(slot).value();
    auto dialled = Dial(deadline);
    if (!dialled) {
      pool_->Release(nullptr, false);
      return std::move(dialled).error();
    }
    pool_->NoteOpened();
    return dialled;
  }

  /// The TLS context for a new connection: the exec plugin's current certificate, if any.
  Result<std::pair<std::shared_ptr<ssl::context>, std::uint64_t>> CurrentContext() KUBE_EXCLUDES(tls_mu_) {
    if (!options_.client_certificate) return std::make_pair(ctx_, pool_->Generation());
    auto cert = options_.client_certificate();  // may run a plugin: called without locks
    if (!cert) return std::move(cert).error();
    bool rotated = false;
    std::shared_ptr<ssl::context> ctx;
    {
      MutexLock lock(tls_mu_);
      if (*cert != current_cert_) {
        auto made = *cert ? MakeSslContext(options_.tls, (*cert)->cert_pem, (*cert)->key_pem)
                          : MakeSslContext(options_.tls, options_.tls.client_cert_pem, options_.tls.client_key_pem);
        if (!made) return std::move(made).error();
        rotated = current_cert_.has_value() || cert->has_value();
        dynamic_ctx_ = std::move(made).value();
        current_cert_ = *cert;
      }
      ctx = dynamic_ctx_ ? dynamic_ctx_ : ctx_;
    }
    if (rotated) pool_->Flush(true);  // connections made with the old certificate are not reused
    return std::make_pair(ctx, pool_->Generation());
  }

  Result<std::unique_ptr<Connection>> Dial(Steady::time_point deadline) {
    auto conn = std::make_unique<Connection>();
    Connection& c = *conn;
    const Address& target = proxy_ ? *proxy_ : server_;
    const Steady::time_point connect_deadline =
        std::min(deadline, Steady::now() + std::chrono::duration_cast<Steady::duration>(options_.connect_timeout));
    const std::string what = proxy_ ? "proxy " + target.host_header : server_.host_header;

    // Resolve, bounded by the connect deadline.
    tcp::resolver resolver(c.ioc_);
    asio::steady_timer timer(c.ioc_);
    ErrorCode resolve_ec;
    tcp::resolver::results_type endpoints;
    bool resolve_timed_out = false;
    resolver.async_resolve(target.host, target.port,
                           [&](ErrorCode ec, tcp::resolver::results_type results) {
                             resolve_ec = ec;
                             endpoints = std::move(results);
                             timer.cancel();
                           });
    timer.expires_at(connect_deadline);
    timer.async_wait([&](ErrorCode ec) {
      if (!ec) {
        resolve_timed_out = true;
        resolver.cancel();
      }
    });
    c.Run();
    if (resolve_timed_out) {
      return MakeTransportError(transport_cause::kClientTimeout, "dial " + what + ": lookup timed out");
    }
    if (resolve_ec) {
      return MakeTransportError(transport_cause::kConnectFailed, "dial " + what + ": lookup " + target.host +
                                                                     ": " + resolve_ec.message());
    }

    c.SetDeadline(connect_deadline);
    ErrorCode ec = RunOp(c, [&](auto handler) {
      c.plain_->async_connect(endpoints, [h = std::move(handler)](ErrorCode e, const tcp::endpoint&) mutable { h(e); });
    });
    if (ec) {
      if (ec == beast::error::timeout) {
        return MakeTransportError(transport_cause::kClientTimeout, "dial tcp " + what + ": i/o timeout");
      }
      return MakeTransportError(transport_cause::kConnectFailed, "dial tcp " + what + ": " + ec.message());
    }
    ConfigureSocket(c);

    if (proxy_) {
      auto tunneled = ProxyConnect(c, connect_deadline);
      if (!tunneled) return std::move(tunneled).error();
    }
    if (server_.tls) {
      auto ctx = CurrentContext();
      if (!ctx) return std::move(ctx).error();
      auto shaken = Handshake(c, ctx->first, deadline);
      if (!shaken) return std::move(shaken).error();
      c.generation_ = ctx->second;
    } else {
      c.generation_ = pool_->Generation();
    }
    return conn;
  }

  void ConfigureSocket(Connection& c) {
    ErrorCode ignored;
    auto& sock = c.plain_->socket();
    sock.set_option(tcp::no_delay(true), ignored);
    if (options_.tcp_keepalive.count() > 0) {
      sock.set_option(asio::socket_base::keep_alive(true), ignored);
      const int secs = static_cast<int>(options_.tcp_keepalive.count());
      ::setsockopt(sock.native_handle(), IPPROTO_TCP, TCP_KEEPIDLE, &secs, sizeof secs);
      ::setsockopt(sock.native_handle(), IPPROTO_TCP, TCP_KEEPINTVL, &secs, sizeof secs);
    }
  }

  Result<void> ProxyConnect(Connection& c, Steady::time_point deadline) {
    const std::string& authority = server_.authority;
    http::request<http::empty_body> req{http::verb::connect, authority, 11};
    req.set(http::field::host, authority);
    if (!proxy_->userinfo.empty()) {
      req.set(http::field::proxy_authorization, "Basic " + internal::Base64Encode(proxy_->userinfo));
    }
    c.SetDeadline(deadline);
    ErrorCode ec = RunOp(c, [&](auto handler) { http::async_write(*c.plain_, req, std::move(handler)); });
    if (ec) return MapError(ec, "proxy CONNECT", transport_cause::kConnectFailed);
    http::response_parser<http::empty_body> parser;
    parser.skip(true);
    ec = RunOp(c, [&](auto handler) { http::async_read_header(*c.plain_, c.buffer_, parser, std::move(handler)); });
    if (ec) return MapError(ec, "proxy CONNECT", transport_cause::kConnectFailed);
    if (parser.get().result_int() != 200) {
      return MakeTransportError(transport_cause::kConnectFailed,
                                "proxy CONNECT " + authority + ": " + std::to_string(parser.get().result_int()) +
                                    " " + std::string(parser.get().reason()));
    }
    c.buffer_.consume(c.buffer_.size());
    return Ok();
  }

  Result<void> Handshake(Connection& c, std::shared_ptr<ssl::context> ctx, Steady::time_point deadline) {
    c.ctx_ = std::move(ctx);
    c.secure_.emplace(std::move(*c.plain_), *c.ctx_);
    c.plain_.reset();
    SSL* native = c.secure_->native_handle();
    const std::string& name = options_.tls.server_name.empty() ? server_.host : options_.tls.server_name;
    const bool ip = internal::IsIpLiteral(name);
    if (!ip) SSL_set_tlsext_host_name(native, name.c_str());
    if (!options_.tls.insecure_skip_verify) {
      X509_VERIFY_PARAM* param = SSL_get0_param(native);
      X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      const int ok = ip ? X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str())
                        : X509_VERIFY_PARAM_set1_host(param, name.c_str(), name.size());
      if (ok != 1) {
        return MakeTransportError(transport_cause::kTls, "tls: cannot verify against server name " +
                                                             internal::Quote(name));
      }
    }
    c.SetDeadline(std::min(deadline, Steady::now() + std::chrono::duration_cast<Steady::duration>(
                                                          options_.tls_handshake_timeout)));
    ErrorCode ec = RunOp(c, [&](auto handler) {
      c.secure_->async_handshake(ssl::stream_base::client, std::move(handler));
    });
    if (ec) {
      const long verify = SSL_get_verify_result(native);
      ERR_clear_error();
      if (ec == beast::error::timeout) {
        return MakeTransportError(transport_cause::kClientTimeout, "tls: handshake timeout with " + server_.host_header);
      }
      if (verify != X509_V_OK) {
        std::string why = X509_verify_cert_error_string(verify);
        if (verify == X509_V_ERR_HOSTNAME_MISMATCH || verify == X509_V_ERR_IP_ADDRESS_MISMATCH) {
          why = "certificate is not valid for " + internal::Quote(name) + " (" + why + ")";
        }
        return MakeTransportError(transport_cause::kTls, "tls: failed to verify certificate of " +
                                                             server_.host_header + ": " + why);
      }
      return MakeTransportError(transport_cause::kTls,
                                "tls: handshake with " + server_.host_header + " failed: " + ec.message());
    }
    return Ok();
  }

  ErrorCode Write(Connection& c, const HttpRequest& request, Steady::time_point deadline) {
    http::request<http::string_body> req;
    req.method_string(request.method);
    req.target(request.target);
    req.version(11);
    req.set(http::field::host, server_.host_header);
    SetHeaders(req, request.headers);
    req.body() = request.body;
    req.prepare_payload();
    c.SetDeadline(deadline);
    return c.WithStream([&](auto& stream) {
      return RunOp(c, [&](auto handler) { http::async_write(stream, req, std::move(handler)); });
    });
  }

  Result<HttpResponse> Exchange(Connection& c, const HttpRequest& request, Steady::time_point deadline,
                                bool& got_bytes, bool& reusable) {
    try {
      ErrorCode ec = Write(c, request, deadline);
      if (ec) return MapError(ec, "writing the request", transport_cause::kConnectionReset);
      http::response_parser<http::string_body> parser;
      parser.header_limit(kHeaderLimit);
      parser.body_limit(options_.max_response_bytes);
      // Beast sizes each socket read by the buffer's free capacity (at least 512 bytes), and the
      // parser keeps consuming what it read: without room reserved, a LIST page of several
      // hundred KB arrives in hundreds of small reads, each a reactor round trip.
      c.buffer_.reserve(c.buffer_.size() + kStreamBufferBytes);
      c.SetDeadline(deadline);
      ec = c.WithStream([&](auto& stream) {
        return RunOp(c, [&](auto handler) { http::async_read(stream, c.buffer_, parser, std::move(handler)); });
      });
      got_bytes = parser.got_some();
      if (ec) return MapError(ec, "reading the response", transport_cause::kConnectionReset);
      auto& msg = parser.get();
      HttpResponse out;
      out.status = static_cast<int>(msg.result_int());
      out.headers = ToHeaders(msg.base());
      out.body = std::move(msg.body());
      reusable = msg.keep_alive() && !parser.need_eof();
      c.Lowest().expires_never();
      return out;
    } catch (const std::exception& e) {
      return MakeTransportError(transport_cause::kProtocol, std::string("request: ") + e.what());
    }
  }

  const HttpTransportOptions options_;
  const Address server_;
  const std::optional<Address> proxy_;
  std::shared_ptr<Pool> pool_;
  const std::shared_ptr<ssl::context> ctx_;  // the static TLS context (null for http://)
  Mutex tls_mu_;
  std::optional<ClientCertificate> current_cert_ KUBE_GUARDED_BY(tls_mu_);
  std::shared_ptr<ssl::context> dynamic_ctx_ KUBE_GUARDED_BY(tls_mu_);
};

}  // namespace

Result<std::shared_ptr<HttpTransport>> NewHttpTransport(HttpTransportOptions options) {
  auto server = ParseAddress(options.server, "server", false);
  if (!server) return std::move(server).error();
  std::optional<Address> proxy;
  if (!options.proxy_url.empty()) {
    auto p = ParseAddress(options.proxy_url, "proxy_url", true);
    if (!p) return std::move(p).error();
    if (p->tls) return BadRequest("proxy_url: https:// proxies are not supported (use http://)");
    proxy = std::move(p).value();
  }
  std::shared_ptr<ssl::context> ctx;
  if (server->tls) {
    auto made = MakeSslContext(options.tls, options.tls.client_cert_pem, options.tls.client_key_pem);
    if (!made) return std::move(made).error();
    ctx = std::move(made).value();
  }
  return std::shared_ptr<HttpTransport>(
      std::make_shared<BeastTransport>(std::move(options), std::move(server).value(), std::move(proxy), std::move(ctx)));
}

}  // namespace kube::client
