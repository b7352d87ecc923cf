// The HTTP/1.1 (+TLS) server behind kube::apiserver: Boost.Beast, synchronous I/O, one thread per
// connection, plus an acceptor thread and a monitor thread (timeouts and hang-up detection).
// All Beast/Asio code of the transport lives in this one translation unit.

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/sockios.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cerrno>
#include <climits>
#include <cstring>
#include <functional>
#include <thread>
#include <unordered_map>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/buffers_prefix.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/chunk_encode.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/span_body.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <fmt/format.h>

#include <kube/apiserver/http_server.hpp>
#include <kube/base/log.hpp>
#include <kube/base/mutex.hpp>
#include <kube/core/status.hpp>

#include "apiserver/http/http_util.hpp"

namespace kube::apiserver {
namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;
using boost::system::error_code;
using SteadyClock = std::chrono::steady_clock;
using SteadyTime = SteadyClock::time_point;
using Headers = std::vector<std::pair<std::string, std::string>>;

constexpr SteadyTime kNever = SteadyTime::max();
/// How long a connection we close waits for the peer's FIN (or TLS close_notify): closing a
/// socket with unread request bytes sends a reset, which can destroy our last response (a 413)
/// before the client has read it.
constexpr std::chrono::seconds kLingerTimeout{1};
/// At most this many request bytes are read and discarded while lingering.
constexpr std::size_t kLingerMaxBytes = 4U << 20U;
constexpr std::size_t kReadChunk = 16U * 1024U;
/// The largest TLS record payload; writes are flattened into records of this size.
constexpr std::size_t kTlsRecord = 16U * 1024U;
/// A plain-TCP write hands at most this much to one sendmsg, so that the write deadline is
/// re-armed as the peer makes progress (see ConnStream::write_some).
constexpr std::size_t kWriteSlice = 256U * 1024U;
/// SO_SNDBUF asked for a streamed response (the kernel doubles it, within net.core.wmem_max).
constexpr int kStreamSendBuffer = 256 * 1024;
/// Send-buffer bytes WritableWithoutBlocking keeps in reserve.
constexpr long kStreamWriteMargin = 8 * 1024;

std::string Str(beast::string_view s) { return std::string(s.data(), s.size()); }

/// Where a connection is in its life: decides what Stop() may interrupt at once.
enum class Phase {
  kHandshake,  ///< TLS handshake
  kIdle,       ///< waiting for the first byte of the next request (keep-alive)
  kReading,    ///< reading a request's header and body
  kHandling,   ///< the handler runs and writes the response
  kClosing,    ///< lingering close after the last response
};

/// Phases in which Stop() shuts the socket at once: no response is owed to anyone.
bool Interruptible(Phase p) {
  switch (p) {
    case Phase::kHandshake:
    case Phase::kIdle:
    case Phase::kReading:
      return true;
    case Phase::kHandling:
    case Phase::kClosing:
      return false;
  }
  return false;
}

/// What a connection shares with the monitor thread and with Stop(). The connection thread owns
/// and closes the socket; the other threads may only shut it down (which fails a blocked read or
/// write at once), under `mu`, and only while `!fd_closed` (afterwards the descriptor number may
/// already belong to another socket).
struct ConnState {
  ConnState(std::uint64_t conn_id, int socket_fd) : id(conn_id), fd(socket_fd) {}

  const std::uint64_t id;
  const int fd;
  /// Requested by Stop(), by the monitor when the peer hangs up during a stream, and when the
  /// connection ends. It is the handler's `ResponseWriter::StopToken`.
  std::stop_source stop;

  Mutex mu;
  Phase phase KUBE_GUARDED_BY(mu) = Phase::kHandshake;
  /// The monitor aborts the connection when this passes (kNever = no deadline armed).
  SteadyTime deadline KUBE_GUARDED_BY(mu) = kNever;
  bool timed_out KUBE_GUARDED_BY(mu) = false;
  /// A streamed response is open: the monitor polls the socket for a hang-up.
  bool streaming KUBE_GUARDED_BY(mu) = false;
  bool peer_gone KUBE_GUARDED_BY(mu) = false;
  bool fd_closed KUBE_GUARDED_BY(mu) = false;

  /// Shuts the socket down in both directions unless it is already closed.
  void Abort() KUBE_REQUIRES(mu) {
    if (!fd_closed) ::shutdown(fd, SHUT_RDWR);
  }
};

/// The byte stream of one connection, plain TCP or TLS, chosen at run time so that the HTTP code
/// is instantiated once. Meets Beast's SyncReadStream and SyncWriteStream.
/// **Thread-safety:** used only by the connection thread.
class ConnStream final {
 public:
  /// `before_write` runs before every write_some: it re-arms the write deadline, so that a large
  /// response needs steady progress rather than finishing within one timeout.
  ConnStream(tcp::socket socket, ssl::context* tls, std::function<void()> before_write)
      : before_write_(std::move(before_write)) {
    if (tls != nullptr) {
      tls_.emplace(std::move(socket), *tls);
    } else {
      plain_.emplace(std::move(socket));
    }
  }

  tcp::socket& socket() { return tls_ ? tls_->next_layer() : *plain_; }
  bool tls() const { return tls_.has_value(); }

  error_code Handshake() {
    error_code ec;
    tls_->handshake(ssl::stream_base::server, ec);
    return ec;
  }

  /// Sends close_notify and waits for the peer's (the caller bounds the wait with a deadline).
  void TlsShutdown() {
    error_code ec;
    tls_->shutdown(ec);
  }

  template <class MutableBuffers>
  std::size_t read_some(const MutableBuffers& buffers, error_code& ec) {
    return tls_ ? tls_->read_some(buffers, ec) : plain_->read_some(buffers, ec);
  }
  template <class MutableBuffers>
  std::size_t read_some(const MutableBuffers& buffers) {
    error_code ec;
    const std::size_t n = read_some(buffers, ec);
    if (ec) throw boost::system::system_error(ec);
    return n;
  }

  template <class ConstBuffers>
  std::size_t write_some(const ConstBuffers& buffers, error_code& ec) {
    before_write_();
    // one gathering sendmsg (blocking sockets send everything they are given)
    if (!tls_) return plain_->write_some(beast::buffers_prefix(kWriteSlice, buffers), ec);
    // Asio's TLS stream encrypts only the first buffer of a sequence per call; flattening the
    // pieces of an HTTP message (chunk size line, data, CRLF) makes one record of them.
    const std::size_t n = net::buffer_copy(net::buffer(scratch_), buffers);
    return tls_->write_some(net::buffer(scratch_.data(), n), ec);
  }
  template <class ConstBuffers>
  std::size_t write_some(const ConstBuffers& buffers) {
    error_code ec;
    const std::size_t n = write_some(buffers, ec);
    if (ec) throw boost::system::system_error(ec);
    return n;
  }

 private:
  const std::function<void()> before_write_;
  std::optional<tcp::socket> plain_;
  std::optional<ssl::stream<tcp::socket>> tls_;
  std::array<char, kTlsRecord> scratch_{};
};

/// ALPN: choose "http/1.1" when the client offers it (Go offers "h2" first; we do not speak it).
int SelectAlpn(SSL* /*ssl*/, const unsigned char** out, unsigned char* out_len,
               const unsigned char* in, unsigned int in_len, void* /*arg*/) {
  static constexpr std::string_view kHttp11 = "http/1.1";
  for (unsigned int i = 0; i < in_len;) {
    const unsigned int len = in[i];
    if (i + 1 + len > in_len) break;
    if (std::string_view(reinterpret_cast<const char*>(in + i + 1), len) == kHttp11) {
      *out = in + i + 1;
      *out_len = static_cast<unsigned char>(len);
      return SSL_TLSEXT_ERR_OK;
    }
    i += 1 + len;
  }
  return SSL_TLSEXT_ERR_NOACK;
}

Result<std::unique_ptr<ssl::context>> MakeTlsContext(const TlsOptions& tls) {
  std::unique_ptr<ssl::context> ctx;
  try {
    ctx = std::make_unique<ssl::context>(ssl::context::tls_server);
  } catch (const std::exception& e) {
    return InternalError(fmt::format("create TLS context: {}", e.what()));
  }
  SSL_CTX* native = ctx->native_handle();
  if (SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION) != 1) {
    return InternalError("TLS context: cannot require TLS 1.2");
  }
  error_code ec;
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                       ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                       ssl::context::no_tlsv1_1 | ssl::context::single_dh_use,
                   ec);
  if (!ec) ctx->use_certificate_chain_file(tls.cert_file, ec);
  if (ec) {
    return InternalError(fmt::format("load TLS certificate {}: {}", tls.cert_file, ec.message()));
  }
  ctx->use_private_key_file(tls.key_file, ssl::context::pem, ec);
  if (ec || SSL_CTX_check_private_key(native) != 1) {
    return InternalError(fmt::format("load TLS key {}: {}", tls.key_file,
                                     ec ? ec.message() : "does not match the certificate"));
  }
  SSL_CTX_set_alpn_select_cb(native, SelectAlpn, nullptr);
  return ctx;
}

/// Sets the headers every response carries, then the handler's (framing headers excluded: the
/// server frames the message).
void SetHeaders(http::fields& h, std::string_view content_type, const Headers& extra) {
  h.set(http::field::date, internal::HttpDate(std::chrono::system_clock::now()));
  if (!content_type.empty()) h.set(http::field::content_type, content_type);
  for (const auto& [name, value] : extra) {
    if (beast::iequals(name, "content-length") || beast::iequals(name, "transfer-encoding") ||
        beast::iequals(name, "connection") || beast::iequals(name, "date")) {
      continue;
    }
    const bool injects = name.find_first_of("\r\n:") != std::string::npos ||
                         value.find_first_of("\r\n") != std::string::npos;
    assert(!injects && "response header with CR/LF");
    if (injects || name.empty()) continue;
    h.insert(name, value);
  }
}

/// A malformed request (400), as opposed to the peer going away or a limit being hit.
bool IsMalformed(const error_code& ec) {
  if (ec.category() != http::make_error_code(http::error::bad_method).category()) return false;
  switch (static_cast<http::error>(ec.value())) {
    case http::error::bad_line_ending:
    case http::error::bad_method:
    case http::error::bad_target:
    case http::error::bad_version:
    case http::error::bad_status:
    case http::error::bad_reason:
    case http::error::bad_field:
    case http::error::bad_value:
    case http::error::bad_content_length:
    case http::error::bad_transfer_encoding:
    case http::error::bad_chunk:
    case http::error::bad_chunk_extension:
    case http::error::bad_obs_fold:
    case http::error::multiple_content_length:
    case http::error::unexpected_body:
      return true;
    default:
      return false;
  }
}

class HttpServerImpl;

/// One accepted connection, served on its own thread: reads requests, calls the handler, writes
/// responses, until keep-alive ends.
/// **Thread-safety:** used only by its connection thread; shares `state_` with the server.
class Connection final {
 public:
  Connection(HttpServerImpl& server, std::shared_ptr<ConnState> state, tcp::socket socket,
             ssl::context* tls, std::string remote);
  ~Connection() { CloseSocket(); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  /// Serves requests until the connection ends, then closes it.
  void Run();

 private:
  class Writer;
  enum class Outcome { kKeepAlive, kCloseGracefully, kAbort };

  Outcome ServeOne();
  Outcome ReadFailed(const error_code& ec);
  Outcome SendError(const Error& e, unsigned version, bool keep_alive);
  /// Moves to phase `p`; false (phase unchanged) when stop was requested and `p` is one in
  /// which no response is owed.
  bool EnterPhase(Phase p);
  void SetDeadline(SteadyClock::duration timeout);
  void ClearDeadline();
  template <class Buffers>
  bool WriteAll(const Buffers& buffers);
  template <class Message>
  bool WriteMessage(Message& message);
  bool WriteHeader(http::response_serializer<http::empty_body>& serializer);
  void CloseGracefully();
  void CloseSocket();

  HttpServerImpl& server_;
  const HttpServerOptions& options_;
  const std::shared_ptr<ConnState> state_;
  ConnStream stream_;
  const std::string remote_;
  beast::flat_buffer buffer_;  // bytes read past the current request (pipelining) stay here
};

class HttpServerImpl final : public HttpServer {
 public:
  HttpServerImpl(HttpServerOptions options, HttpHandler handler)
      : options_(std::move(options)), handler_(std::move(handler)) {}
  ~HttpServerImpl() override { Stop(std::chrono::seconds(5)); }

  Result<void> Start() override;
  uint16_t port() const override { return port_.load(); }
  void Stop(std::chrono::milliseconds grace) override;

  const HttpServerOptions& options() const { return options_; }
  const HttpHandler& handler() const { return handler_; }

  /// Arms `c`'s watchdog deadline, waking the monitor if it sleeps past it.
  void SetDeadline(ConnState& c, SteadyTime deadline);
  /// Wakes the monitor thread so that it rescans connections and reaps exited threads.
  void WakeMonitor();

 private:
  enum class State { kNew, kRunning, kStopping, kStopped };

  void AcceptLoop();
  void MonitorLoop();
  void RunConnection(const std::shared_ptr<ConnState>& state, tcp::socket socket,
                     std::string remote);
  std::vector<std::shared_ptr<ConnState>> Connections();

  const HttpServerOptions options_;
  const HttpHandler handler_;
  /// Never run: sockets need an execution context, but every operation here is synchronous.
  net::io_context ioc_;
  std::unique_ptr<ssl::context> ssl_ctx_;  // set by Start when TLS is on
  std::optional<tcp::acceptor> acceptor_;  // Start and Stop only (the accept thread uses the fd)
  int listen_fd_ = -1;                     // set by Start before the threads exist
  int wake_fd_ = -1;                       // eventfd; closed by Stop after every thread is joined
  std::atomic<uint16_t> port_{0};
  /// When the monitor will next wake by itself (steady-clock ticks); a deadline set earlier
  /// than this must wake it. Set to "never" while it scans, so no new deadline is missed.
  std::atomic<SteadyTime::rep> next_wake_{kNever.time_since_epoch().count()};

  Mutex mu_;
  State state_ KUBE_GUARDED_BY(mu_) = State::kNew;
  std::uint64_t next_id_ KUBE_GUARDED_BY(mu_) = 1;
  /// Live connections and their threads: a key is in conns_ iff it is in threads_.
  std::unordered_map<std::uint64_t, std::shared_ptr<ConnState>> conns_ KUBE_GUARDED_BY(mu_);
  std::unordered_map<std::uint64_t, std::jthread> threads_ KUBE_GUARDED_BY(mu_);
  /// Threads whose connection has ended, to be joined by the monitor (or Stop).
  std::vector<std::jthread> finished_ KUBE_GUARDED_BY(mu_);
  bool monitor_stop_ KUBE_GUARDED_BY(mu_) = false;
  /// Signalled when a connection leaves conns_ and when the state changes.
  CondVar cv_;

  std::jthread accept_thread_;
  std::jthread monitor_thread_;
};

// ---------------------------------------------------------------------------------------------
// Connection

/// The ResponseWriter of one request.
class Connection::Writer final : public ResponseWriter {
 public:
  Writer(Connection& conn, unsigned version, bool keep_alive)
      : conn_(conn), version_(version), keep_alive_(keep_alive) {}

  void Respond(int status, std::string_view content_type, std::string_view body,
               const Headers& headers) override {
    assert(state_ == State::kNone && "Respond after the response started");
    if (state_ != State::kNone) return;
    http::response<http::span_body<const char>> res;
    res.version(version_);
    res.result(static_cast<unsigned>(status));
    SetHeaders(res.base(), content_type, headers);
    res.keep_alive(DecideKeepAlive());
    res.body() = beast::span<const char>(body.data(), body.size());
    res.prepare_payload();
    state_ = State::kResponded;
    ok_ = conn_.WriteMessage(res);
  }

  void BeginStream(int status, std::string_view content_type, const Headers& headers) override {
    assert(state_ == State::kNone && "BeginStream after the response started");
    if (state_ != State::kNone) return;
    http::response<http::empty_body> res;
    res.version(version_);
    res.result(static_cast<unsigned>(status));
    SetHeaders(res.base(), content_type, headers);
    // HTTP/1.0 has no chunked encoding: the stream is delimited by closing the connection.
    chunked_ = version_ >= 11;
    if (chunked_) {
      res.chunked(true);
    } else {
      keep_alive_ = false;
    }
    res.keep_alive(DecideKeepAlive());
    state_ = State::kStreaming;
    {
      MutexLock lock(conn_.state_->mu);
      conn_.state_->streaming = true;
    }
    conn_.server_.WakeMonitor();  // start watching for a hang-up
    // A fixed send buffer for streams (autotuning grows it only after writes have blocked),
    // so that WritableWithoutBlocking lets a delivery thread write a few events at once.
    int sndbuf = 0;
    socklen_t len = sizeof sndbuf;
    if (::getsockopt(conn_.state_->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len) == 0 &&
        sndbuf / 2 < kStreamSendBuffer) {
      sndbuf = kStreamSendBuffer;
      (void)::setsockopt(conn_.state_->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    }
    http::response_serializer<http::empty_body> serializer(res);
    ok_ = conn_.WriteHeader(serializer);
  }

  bool Write(std::string_view data) override {
    assert(state_ == State::kStreaming && "Write without BeginStream");
    if (state_ != State::kStreaming || !ok_) return false;
    {
      MutexLock lock(conn_.state_->mu);
      if (conn_.state_->peer_gone) ok_ = false;
    }
    if (!ok_) return false;
    if (data.empty()) return true;  // an empty chunk would end the stream
    const net::const_buffer buffer(data.data(), data.size());
    ok_ = chunked_ ? conn_.WriteAll(http::make_chunk(buffer)) : conn_.WriteAll(buffer);
    return ok_;
  }

  std::stop_token StopToken() const override { return conn_.state_->stop.get_token(); }
  bool Started() const override { return state_ != State::kNone; }

  std::size_t WritableWithoutBlocking() const override {
    if (state_ != State::kStreaming || !ok_) return 0;
    const int fd = conn_.state_->fd;  // open while the handler runs
    int sndbuf = 0;
    socklen_t len = sizeof sndbuf;
    int unsent = 0;  // bytes written and not yet acknowledged by the peer
    if (::getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len) != 0 ||
        ::ioctl(fd, SIOCOUTQ, &unsent) != 0) {
      return 0;
    }
    // The kernel reports twice the payload space (the other half covers its bookkeeping); keep
    // a margin for chunk framing, TLS records and the per-packet overhead of small writes.
    const long room = static_cast<long>(sndbuf) / 2 - unsent - kStreamWriteMargin;
    if (room <= 0) return 0;
    const auto bytes = static_cast<std::size_t>(room);
    return conn_.stream_.tls() ? bytes - bytes / 16 : bytes;
  }

  /// Completes the response once the handler has returned (`failure`: why it failed, if it
  /// did) and says what the connection does next.
  Outcome Finish(const std::optional<std::string>& failure) {
    switch (state_) {
      case State::kNone:
        Respond(500, "application/json",
                StatusJson(NewInternalError(failure.value_or("the handler wrote no response"))),
                {});
        break;
      case State::kResponded:
        break;
      case State::kStreaming: {
        {
          MutexLock lock(conn_.state_->mu);
          conn_.state_->streaming = false;
        }
        conn_.server_.WakeMonitor();  // stop watching this descriptor
        // A stream cut short without its last chunk tells the client it failed.
        if (failure) return Outcome::kAbort;
        if (ok_ && chunked_) ok_ = conn_.WriteAll(http::make_chunk_last());
        break;
      }
    }
    if (!ok_) return Outcome::kAbort;
    return keep_alive_ ? Outcome::kKeepAlive : Outcome::kCloseGracefully;
  }

 private:
  enum class State { kNone, kResponded, kStreaming };

  /// Keep the connection only if the client wants it and the server is not stopping.
  bool DecideKeepAlive() {
    keep_alive_ = keep_alive_ && !conn_.state_->stop.stop_requested();
    return keep_alive_;
  }

  Connection& conn_;
  const unsigned version_;
  bool keep_alive_;
  bool chunked_ = false;
  bool ok_ = true;  // false once a write failed: the connection is unusable
  State state_ = State::kNone;
};

Connection::Connection(HttpServerImpl& server, std::shared_ptr<ConnState> state,
                       tcp::socket socket, ssl::context* tls, std::string remote)
    : server_(server),
      options_(server.options()),
      state_(std::move(state)),
      stream_(std::move(socket), tls,
              [this] { SetDeadline(options_.write_timeout); }),
      remote_(std::move(remote)) {}

void Connection::Run() {
  Outcome outcome = Outcome::kKeepAlive;
  if (stream_.tls()) {
    SetDeadline(options_.read_timeout);
    if (!EnterPhase(Phase::kHandshake)) {
      outcome = Outcome::kAbort;
    } else if (const error_code ec = stream_.Handshake()) {
      log::Debug("TLS handshake failed", {{"remote", remote_}, {"error", ec.message()}});
      outcome = Outcome::kAbort;
    }
  }
  while (outcome == Outcome::kKeepAlive) outcome = ServeOne();
  if (outcome == Outcome::kCloseGracefully) CloseGracefully();
  CloseSocket();
  state_->stop.request_stop();
}

Connection::Outcome Connection::ServeOne() {
  if (!EnterPhase(Phase::kIdle)) return Outcome::kAbort;
  error_code ec;
  // An idle connection does not keep the memory of a large header it once read.
  if (buffer_.size() == 0 && buffer_.capacity() > 4 * kReadChunk) buffer_.shrink_to_fit();
  if (buffer_.size() == 0) {
    // The idle timeout runs until the first byte of the next request.
    SetDeadline(options_.idle_timeout);
    const std::size_t n = stream_.read_some(buffer_.prepare(kReadChunk), ec);
    if (ec) return Outcome::kAbort;  // the peer closed, the idle timeout fired, or Stop()
    buffer_.commit(n);
  }
  if (!EnterPhase(Phase::kReading)) return Outcome::kAbort;
  SetDeadline(options_.read_timeout);

  http::request_parser<http::string_body> parser;
  parser.header_limit(static_cast<std::uint32_t>(
      std::min<std::size_t>(options_.max_header_bytes, std::numeric_limits<std::uint32_t>::max())));
  parser.body_limit(boost::none);  // checked after authentication, below
  http::read_header(stream_, buffer_, parser, ec);
  if (ec) return ReadFailed(ec);

  auto& msg = parser.get();
  const unsigned version = msg.version();
  const bool body_pending = !parser.is_done();
  // A refused request whose body we did not read ends the connection.
  const bool keep_after_refusal = parser.keep_alive() && !body_pending;

  HttpRequest req;
  req.method = Str(msg.method_string());
  req.target = Str(msg.target());
  auto split = internal::SplitRequestTarget(req.target);
  if (!split.ok()) return SendError(split.error(), version, keep_after_refusal);
  auto path = internal::PercentDecodePath(split->path);
  if (!path.ok()) return SendError(path.error(), version, keep_after_refusal);
  req.path = std::move(path).value();
  req.query = std::string(split->query);
  for (const auto& field : msg) {
    req.headers.emplace_back(internal::LowerAscii(std::string_view(field.name_string())),
                             Str(field.value()));
  }
  req.remote = remote_;

  if (options_.bearer_token) {
    const auto authorization = req.Header("authorization");
    const auto token = authorization ? internal::BearerToken(*authorization) : std::nullopt;
    if (token && internal::ConstantTimeEquals(*token, *options_.bearer_token)) {
      req.user = "admin";
    } else if (!token && internal::IsAnonymousPath(req.path, options_.anonymous_paths)) {
      req.user = "system:anonymous";
    } else {
      // As kube-apiserver: a wrong token is refused even on an anonymous path.
      return SendError(NewUnauthorized("Unauthorized"), version, keep_after_refusal);
    }
  }

  if (body_pending) {
    if (const auto length = parser.content_length(); length && *length > options_.max_body_bytes) {
      return SendError(
          NewRequestEntityTooLarge(fmt::format("limit is {}", options_.max_body_bytes)), version,
          false);
    }
    const auto expect = req.Header("expect");
    if (expect && beast::iequals(*expect, "100-continue")) {
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      if (!WriteAll(net::buffer(kContinue.data(), kContinue.size()))) return Outcome::kAbort;
      SetDeadline(options_.read_timeout);
    }
    parser.body_limit(options_.max_body_bytes);
    http::read(stream_, buffer_, parser, ec);
    if (ec) return ReadFailed(ec);
  }
  ClearDeadline();
  req.body = std::move(msg.body());
  const bool keep_alive = parser.keep_alive();

  EnterPhase(Phase::kHandling);  // never refused: a complete request is always answered
  Writer writer(*this, version, keep_alive);
  std::optional<std::string> failure;
  try {
    server_.handler()(req, writer);
  } catch (const std::exception& e) {
    failure = e.what();
  } catch (...) {
    failure = "unknown exception";
  }
  if (failure) {
    log::Error("HTTP handler failed",
               {{"method", req.method}, {"path", req.path}, {"error", *failure}});
  }
  return writer.Finish(failure);
}

Connection::Outcome Connection::ReadFailed(const error_code& ec) {
  if (ec == http::error::header_limit) {
    return SendError(MakeError(431, reason::kUnknown,
                               fmt::format("Request Header Fields Too Large: the header section "
                                           "exceeds {} bytes",
                                           options_.max_header_bytes)),
                     11, false);
  }
  if (ec == http::error::body_limit) {
    return SendError(NewRequestEntityTooLarge(fmt::format("limit is {}", options_.max_body_bytes)),
                     11, false);
  }
  if (IsMalformed(ec)) {
    return SendError(NewBadRequest(fmt::format("malformed HTTP request: {}", ec.message())), 11,
                     false);
  }
  bool timed_out = false;
  {
    MutexLock lock(state_->mu);
    timed_out = state_->timed_out;
  }
  log::Debug("connection closed while reading a request",
             {{"remote", remote_}, {"error", ec.message()}, {"timed_out", timed_out}});
  return Outcome::kAbort;
}

Connection::Outcome Connection::SendError(const Error& e, unsigned version, bool keep_alive) {
  Writer writer(*this, version, keep_alive);
  writer.Respond(e.code, "application/json", StatusJson(e), {});
  return writer.Finish(std::nullopt);
}

bool Connection::EnterPhase(Phase p) {
  MutexLock lock(state_->mu);
  if (Interruptible(p) && state_->stop.stop_requested()) return false;
  state_->phase = p;
  return true;
}

void Connection::SetDeadline(SteadyClock::duration timeout) {
  server_.SetDeadline(*state_, SteadyClock::now() + timeout);
}

void Connection::ClearDeadline() {
  MutexLock lock(state_->mu);
  state_->deadline = kNever;
}

// Each write_some re-arms the write deadline (ConnStream); it is cleared once the write is done.
template <class Buffers>
bool Connection::WriteAll(const Buffers& buffers) {
  error_code ec;
  net::write(stream_, buffers, ec);
  ClearDeadline();
  return !ec;
}

template <class Message>
bool Connection::WriteMessage(Message& message) {
  error_code ec;
  http::write(stream_, message, ec);
  ClearDeadline();
  return !ec;
}

bool Connection::WriteHeader(http::response_serializer<http::empty_body>& serializer) {
  error_code ec;
  http::write_header(stream_, serializer, ec);
  ClearDeadline();
  return !ec;
}

void Connection::CloseGracefully() {
  EnterPhase(Phase::kClosing);
  SetDeadline(kLingerTimeout);
  if (stream_.tls()) {
    // A client that sends its whole body before reading (a refused oversized request) must get
    // to the end of it, or closing with unread records resets the connection over our answer:
    // read and drop what it still sends, until it closes or the linger deadline, then say
    // close_notify.
    error_code ec;
    std::array<char, 16384> discard{};
    for (std::size_t n = 0; !ec && n < kLingerMaxBytes;) n += stream_.read_some(net::buffer(discard), ec);
    stream_.TlsShutdown();
  } else {
    error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    std::array<char, 4096> discard{};
    for (std::size_t n = 0; !ec && n < kLingerMaxBytes;) {
      n += stream_.socket().read_some(net::buffer(discard), ec);
    }
  }
  ClearDeadline();
}

void Connection::CloseSocket() {
  {
    MutexLock lock(state_->mu);
    if (state_->fd_closed) return;
    state_->fd_closed = true;
    state_->deadline = kNever;
  }
  error_code ec;
  stream_.socket().close(ec);
}

// ---------------------------------------------------------------------------------------------
// HttpServerImpl

Result<void> HttpServerImpl::Start() {
  {
    MutexLock lock(mu_);
    if (state_ != State::kNew) return InternalError("HTTP server: Start called twice");
  }
  error_code ec;
  const auto address = net::ip::make_address(options_.address, ec);
  if (ec) {
    return InternalError(
        fmt::format("invalid listen address \"{}\": {}", options_.address, ec.message()));
  }
  if (options_.tls) {
    auto ctx = MakeTlsContext(*options_.tls);
    if (!ctx.ok()) return std::move(ctx).error();
    ssl_ctx_ = std::move(ctx).value();
  }
  const tcp::endpoint endpoint(address, options_.port);
  acceptor_.emplace(ioc_);
  acceptor_->open(endpoint.protocol(), ec);
  if (!ec && ::fcntl(acceptor_->native_handle(), F_SETFD, FD_CLOEXEC) != 0) {
    ec.assign(errno, boost::system::system_category());
  }
  if (!ec) acceptor_->set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_->bind(endpoint, ec);
  if (!ec) acceptor_->listen(net::socket_base::max_listen_connections, ec);
  if (!ec) wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (!ec && wake_fd_ < 0) ec.assign(errno, boost::system::system_category());
  if (ec) {
    acceptor_.reset();
    return InternalError(fmt::format("listen on {}:{}: {}", options_.address, options_.port,
                                     ec.message()));
  }
  listen_fd_ = acceptor_->native_handle();
  port_.store(acceptor_->local_endpoint().port());
  {
    MutexLock lock(mu_);
    state_ = State::kRunning;
  }
  monitor_thread_ = std::jthread([this] { MonitorLoop(); });
  accept_thread_ = std::jthread([this] { AcceptLoop(); });
  log::Info("HTTP server listening", {{"address", options_.address},
                                      {"port", port_.load()},
                                      {"tls", options_.tls.has_value()}});
  return Ok();
}

void HttpServerImpl::Stop(std::chrono::milliseconds grace) {
  {
    MutexLock lock(mu_);
    if (state_ == State::kNew) state_ = State::kStopped;
    if (state_ != State::kRunning) return;
    state_ = State::kStopping;
    cv_.SignalAll();
  }
  // Linux wakes a thread blocked in accept() on a listening socket that is shut down.
  ::shutdown(listen_fd_, SHUT_RDWR);
  accept_thread_ = {};  // joins
  error_code ec;
  acceptor_->close(ec);

  // No new connection can appear now. Tell every handler to finish, and close connections that
  // owe nobody a response.
  for (const auto& c : Connections()) {
    c->stop.request_stop();  // runs handlers' stop callbacks: no lock held
    MutexLock lock(c->mu);
    if (Interruptible(c->phase)) c->Abort();
  }
  const SteadyTime deadline = SteadyClock::now() + grace;
  std::size_t left = 0;
  {
    MutexLock lock(mu_);
    bool timed_out = false;
    while (!conns_.empty() && !timed_out) timed_out = cv_.WaitUntil(mu_, deadline);
    left = conns_.size();
  }
  if (left > 0) {
    log::Warn("HTTP server: grace period over, closing connections", {{"open", left}});
    for (const auto& c : Connections()) {
      MutexLock lock(c->mu);
      c->Abort();
    }
    MutexLock lock(mu_);
    while (!conns_.empty()) cv_.Wait(mu_);
  }
  {
    MutexLock lock(mu_);
    monitor_stop_ = true;
  }
  WakeMonitor();
  monitor_thread_ = {};  // joins
  std::vector<std::jthread> finished;
  {
    MutexLock lock(mu_);
    finished.swap(finished_);
  }
  finished.clear();  // joins the last connection threads
  ::close(wake_fd_);
  wake_fd_ = -1;
  MutexLock lock(mu_);
  state_ = State::kStopped;
}

void HttpServerImpl::SetDeadline(ConnState& c, SteadyTime deadline) {
  {
    MutexLock lock(c.mu);
    c.deadline = deadline;
  }
  if (deadline.time_since_epoch().count() < next_wake_.load()) WakeMonitor();
}

void HttpServerImpl::WakeMonitor() {
  const std::uint64_t one = 1;
  // EAGAIN means the counter is already non-zero: the monitor will wake anyway.
  [[maybe_unused]] const ssize_t n = ::write(wake_fd_, &one, sizeof one);
}

std::vector<std::shared_ptr<ConnState>> HttpServerImpl::Connections() {
  MutexLock lock(mu_);
  std::vector<std::shared_ptr<ConnState>> out;
  out.reserve(conns_.size());
  for (const auto& [id, c] : conns_) out.push_back(c);
  return out;
}

void HttpServerImpl::AcceptLoop() {
  for (;;) {
    sockaddr_storage addr{};
    socklen_t addr_len = sizeof addr;
    const int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &addr_len,
                             SOCK_CLOEXEC);
    const int err = errno;
    {
      MutexLock lock(mu_);
      if (state_ != State::kRunning) {
        if (fd >= 0) ::close(fd);
        return;
      }
    }
    if (fd < 0) {
      if (err == EINTR || err == ECONNABORTED) continue;
      // Out of descriptors or memory: back off instead of spinning (Stop() cuts the wait).
      log::Warn("accept failed", {{"error", std::strerror(err)}});
      MutexLock lock(mu_);
      const SteadyTime until = SteadyClock::now() + std::chrono::milliseconds(100);
      while (state_ == State::kRunning && !cv_.WaitUntil(mu_, until)) {
      }
      continue;
    }
    error_code ec;
    tcp::socket socket(ioc_);
    socket.assign(addr.ss_family == AF_INET6 ? tcp::v6() : tcp::v4(), fd, ec);
    if (ec) {
      ::close(fd);
      continue;
    }
    socket.set_option(tcp::no_delay(true), ec);  // each Write goes out at once
    std::string remote = "unknown";
    if (const auto ep = socket.remote_endpoint(ec); !ec) {
      remote = ep.address().is_v6()
                   ? fmt::format("[{}]:{}", ep.address().to_string(), ep.port())
                   : fmt::format("{}:{}", ep.address().to_string(), ep.port());
    }
    MutexLock lock(mu_);
    if (state_ != State::kRunning) return;  // Stop() began meanwhile
    if (conns_.size() >= options_.max_connections) {
      log::Warn("too many connections; closing a new one",
                {{"remote", remote}, {"max", options_.max_connections}});
      continue;  // the socket closes as it goes out of scope
    }
    const std::uint64_t id = next_id_++;
    auto state = std::make_shared<ConnState>(id, fd);
    conns_.emplace(id, state);
    // Created under mu_, so the thread cannot finish (and look itself up) before it is listed.
    threads_.emplace(id, std::jthread([this, state, s = std::move(socket),
                                       r = std::move(remote)]() mutable {
                       RunConnection(state, std::move(s), std::move(r));
                     }));
  }
}

void HttpServerImpl::RunConnection(const std::shared_ptr<ConnState>& state, tcp::socket socket,
                                   std::string remote) {
  try {
    Connection conn(*this, state, std::move(socket), ssl_ctx_.get(), std::move(remote));
    conn.Run();
  } catch (const std::exception& e) {
    log::Error("HTTP connection failed", {{"error", e.what()}});
  }
  state->stop.request_stop();
  MutexLock lock(mu_);
  {
    MutexLock state_lock(state->mu);
    state->fd_closed = true;  // already closed by ~Connection, or lost with the exception
  }
  if (auto it = threads_.find(state->id); it != threads_.end()) {
    finished_.push_back(std::move(it->second));
    threads_.erase(it);
  }
  conns_.erase(state->id);
  cv_.SignalAll();
  WakeMonitor();  // reap this thread; wake_fd_ stays open until Stop has joined every thread
}

void HttpServerImpl::MonitorLoop() {
  std::vector<pollfd> fds;
  std::vector<std::shared_ptr<ConnState>> watched;
  for (;;) {
    // From here until poll() returns, any newly armed deadline wakes us (see SetDeadline).
    next_wake_.store(kNever.time_since_epoch().count());
    std::vector<std::jthread> exited;
    std::vector<std::shared_ptr<ConnState>> conns;
    {
      MutexLock lock(mu_);
      if (monitor_stop_) return;
      exited.swap(finished_);
      conns.reserve(conns_.size());
      for (const auto& [id, c] : conns_) conns.push_back(c);
    }
    exited.clear();  // joins threads that have left RunConnection

    const SteadyTime now = SteadyClock::now();
    SteadyTime next = kNever;
    fds.assign(1, pollfd{.fd = wake_fd_, .events = POLLIN, .revents = 0});
    watched.clear();
    for (const auto& c : conns) {
      MutexLock lock(c->mu);
      if (c->deadline <= now) {
        c->deadline = kNever;
        c->timed_out = true;
        c->Abort();
      } else {
        next = std::min(next, c->deadline);
      }
      // POLLRDHUP only: pipelined request bytes (POLLIN) must not make poll() spin.
      if (c->streaming && !c->peer_gone && !c->fd_closed) {
        fds.push_back(pollfd{.fd = c->fd, .events = POLLRDHUP, .revents = 0});
        watched.push_back(c);
      }
    }
    next_wake_.store(next.time_since_epoch().count());
    conns.clear();

    int timeout_ms = -1;
    if (next != kNever) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(next - SteadyClock::now());
      timeout_ms = static_cast<int>(std::clamp<std::int64_t>(left.count(), 0, INT_MAX));
    }
    const int n = ::poll(fds.data(), fds.size(), timeout_ms);
    if (n <= 0) continue;  // timeout (rescan) or EINTR
    if ((fds[0].revents & POLLIN) != 0) {
      std::uint64_t count = 0;
      [[maybe_unused]] const ssize_t r = ::read(wake_fd_, &count, sizeof count);
    }
    for (std::size_t i = 1; i < fds.size(); ++i) {
      if ((fds[i].revents & (POLLRDHUP | POLLHUP | POLLERR)) == 0) continue;
      const auto& c = watched[i - 1];
      bool gone = false;
      {
        MutexLock lock(c->mu);
        if (c->streaming && !c->peer_gone && !c->fd_closed) {
          c->peer_gone = true;
          gone = true;
        }
      }
      if (gone) c->stop.request_stop();  // runs the handler's stop callbacks: no lock held
    }
  }
}

}  // namespace

std::unique_ptr<HttpServer> NewHttpServer(HttpServerOptions options, HttpHandler handler) {
  return std::make_unique<HttpServerImpl>(std::move(options), std::move(handler));
}

}  // namespace kube::apiserver
