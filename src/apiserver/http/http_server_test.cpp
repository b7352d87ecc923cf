#include <kube/apiserver/http_server.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <map>
#include <sstream>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <gtest/gtest.h>

#include <kube/base/mutex.hpp>
#include <kube/core/status.hpp>

namespace kube::apiserver {
namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;
using boost::system::error_code;
using namespace std::chrono_literals;

/// Generous real-time bound: only a broken server makes a test wait this long.
constexpr auto kGenerous = 30s;

/// Shuts a socket down once a generous real-time bound passes, so that a test against a
/// misbehaving server fails instead of hanging. It is a safety net, never synchronisation.
class Watchdog final {
 public:
  explicit Watchdog(int fd)
      : thread_([this, fd] {
          const auto deadline = std::chrono::steady_clock::now() + kGenerous;
          MutexLock lock(mu_);
          while (!done_) {
            if (cv_.WaitUntil(mu_, deadline)) {
              ::shutdown(fd, SHUT_RDWR);
              return;
            }
          }
        }) {}
  ~Watchdog() {
    {
      MutexLock lock(mu_);
      done_ = true;
    }
    cv_.SignalAll();
  }

 private:
  Mutex mu_;
  CondVar cv_;
  bool done_ KUBE_GUARDED_BY(mu_) = false;
  std::jthread thread_;  // last: joined before the fields it uses are destroyed
};

/// A plain-TCP HTTP/1.1 client over Beast for the tests. Operations throw on I/O errors.
class Client final {
 public:
  explicit Client(uint16_t port) : socket_(ioc_) {
    socket_.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
    watchdog_.emplace(socket_.native_handle());
  }

  void SendRaw(std::string_view raw) { net::write(socket_, net::buffer(raw.data(), raw.size())); }

  void Send(http::request<http::string_body> req) {
    req.prepare_payload();
    http::write(socket_, req);
  }

  http::response<http::string_body> Read() {
    http::response<http::string_body> res;
    http::read(socket_, buffer_, res);
    return res;
  }

  http::response<http::string_body> Get(std::string target, std::string token = "") {
    Send(Request(http::verb::get, std::move(target), "", std::move(token)));
    return Read();
  }

  /// True when the server has closed the connection (EOF or reset) and sent nothing more.
  bool PeerClosed() {
    if (buffer_.size() > 0) return false;
    char c = 0;
    error_code ec;
    const std::size_t n = socket_.read_some(net::buffer(&c, 1), ec);
    return n == 0 && (ec == net::error::eof || ec == net::error::connection_reset);
  }

  /// Reads whatever arrives until the server closes the connection; returns it.
  std::string ReadUntilClosed() {
    std::string out(static_cast<const char*>(buffer_.data().data()), buffer_.size());
    buffer_.consume(buffer_.size());
    char buf[4096];
    for (;;) {
      error_code ec;
      const std::size_t n = socket_.read_some(net::buffer(buf), ec);
      out.append(buf, n);
      if (ec) return out;
    }
  }

  static http::request<http::string_body> Request(http::verb verb, std::string target,
                                                  std::string body = "", std::string token = "") {
    http::request<http::string_body> req(verb, target, 11);
    req.set(http::field::host, "localhost");
    if (!token.empty()) req.set(http::field::authorization, "Bearer " + token);
    req.body() = std::move(body);
    return req;
  }

  tcp::socket& socket() { return socket_; }
  beast::flat_buffer& buffer() { return buffer_; }

 private:
  net::io_context ioc_;
  tcp::socket socket_;
  beast::flat_buffer buffer_;
  std::optional<Watchdog> watchdog_;
};

/// Parses the "key=value" lines of the echo handler.
std::map<std::string, std::string> ParseEcho(const std::string& body) {
  std::map<std::string, std::string> out;
  std::istringstream in(body);
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

/// Answers with what it received, as "key=value" lines.
void Echo(const HttpRequest& req, ResponseWriter& w) {
  std::string body = "method=" + req.method + "\ntarget=" + req.target + "\npath=" + req.path +
                     "\nquery=" + req.query + "\nuser=" + req.user + "\nremote=" + req.remote +
                     "\nbody=" + req.body +
                     "\nx-test=" + std::string(req.Header("x-test").value_or("")) +
                     "\nbody_size=" + std::to_string(req.body.size()) + "\n";
  w.Respond(200, "text/plain", body, {{"X-Echo", "1"}, {"Content-Length", "999"}});
}

std::unique_ptr<HttpServer> StartServer(HttpHandler handler, HttpServerOptions options = {}) {
  auto server = NewHttpServer(std::move(options), std::move(handler));
  auto started = server->Start();
  EXPECT_TRUE(started.ok()) << (started.ok() ? "" : started.error().ToString());
  return server;
}

/// Checks that `res` is a Failure Status with `code` and `reason`, served as JSON.
void ExpectStatus(const http::response<http::string_body>& res, int code, std::string_view reason) {
  EXPECT_EQ(res.result_int(), static_cast<unsigned>(code));
  EXPECT_EQ(res[http::field::content_type], "application/json");
  auto status = ParseStatus(res.body());
  ASSERT_TRUE(status.ok()) << res.body();
  EXPECT_EQ(status->status, "Failure");
  EXPECT_EQ(status->error.code, code);
  EXPECT_EQ(status->error.reason, reason);
}

/// A one-shot event a handler can wait on (bounded by kGenerous) and a test can fire.
class Event final {
 public:
  void Fire() {
    MutexLock lock(mu_);
    fired_ = true;
    cv_.SignalAll();
  }
  bool Wait() {
    const auto deadline = std::chrono::steady_clock::now() + kGenerous;
    MutexLock lock(mu_);
    while (!fired_) {
      if (cv_.WaitUntil(mu_, deadline)) return fired_;
    }
    return true;
  }

 private:
  Mutex mu_;
  CondVar cv_;
  bool fired_ KUBE_GUARDED_BY(mu_) = false;
};

/// Reads a chunked response chunk by chunk.
class ChunkReader final {
 public:
  explicit ChunkReader(Client& client) : client_(client) {
    parser_.body_limit(boost::none);
    on_chunk_ = [this](std::uint64_t remain, beast::string_view body, error_code&) {
      current_.append(body.data(), body.size());
      if (remain == body.size()) {
        chunks_.push_back(current_);
        current_.clear();
      }
      return body.size();
    };
    parser_.on_chunk_body(on_chunk_);  // kept by reference
  }
  http::response_parser<http::string_body>& parser() { return parser_; }
  void ReadHeader() { http::read_header(client_.socket(), client_.buffer(), parser_); }
  /// Blocks until `n` chunks in total have arrived; returns them.
  const std::vector<std::string>& WaitChunks(std::size_t n) {
    while (chunks_.size() < n && !parser_.is_done()) {
      http::read_some(client_.socket(), client_.buffer(), parser_);
    }
    return chunks_;
  }
  /// Reads to the end of the message; returns the error (none for a complete message).
  error_code ReadToEnd() {
    error_code ec;
    while (!parser_.is_done() && !ec) {
      http::read_some(client_.socket(), client_.buffer(), parser_, ec);
    }
    return ec;
  }
  const std::vector<std::string>& chunks() const { return chunks_; }

 private:
  Client& client_;
  std::function<std::size_t(std::uint64_t, beast::string_view, error_code&)> on_chunk_;
  http::response_parser<http::string_body> parser_;
  std::vector<std::string> chunks_;
  std::string current_;
};

// ---------------------------------------------------------------------------------------------

TEST(HttpServer, KeepAliveServesTwoRequestsOnOneConnection) {
  auto server = StartServer(Echo);
  Client client(server->port());
  auto first = client.Get("/a?x=1");
  EXPECT_EQ(first.result_int(), 200U);
  EXPECT_TRUE(first.keep_alive());
  EXPECT_EQ(first[http::field::content_type], "text/plain");
  EXPECT_EQ(first["X-Echo"], "1");
  const std::string date(first[http::field::date]);
  EXPECT_EQ(date.size(), 29U) << date;
  EXPECT_TRUE(date.ends_with(" GMT")) << date;

  auto post = Client::Request(http::verb::post, "/b", "hello");
  post.set("X-Test", "yes");
  client.Send(post);
  auto second = client.Read();
  EXPECT_EQ(second.result_int(), 200U);
  const auto a = ParseEcho(first.body());
  const auto b = ParseEcho(second.body());
  EXPECT_EQ(a.at("method"), "GET");
  EXPECT_EQ(a.at("path"), "/a");
  EXPECT_EQ(a.at("query"), "x=1");
  EXPECT_EQ(a.at("user"), "");
  EXPECT_EQ(b.at("method"), "POST");
  EXPECT_EQ(b.at("body"), "hello");
  EXPECT_EQ(b.at("x-test"), "yes");
  EXPECT_EQ(a.at("remote"), b.at("remote"));  // one connection
  EXPECT_TRUE(a.at("remote").starts_with("127.0.0.1:"));
}

TEST(HttpServer, PipelinedRequestsAreAnsweredInOrder) {
  auto server = StartServer(Echo);
  Client client(server->port());
  client.SendRaw(
      "GET /one HTTP/1.1\r\nHost: x\r\n\r\n"
      "POST /two HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
      "GET /three HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(ParseEcho(client.Read().body()).at("path"), "/one");
  auto two = ParseEcho(client.Read().body());
  EXPECT_EQ(two.at("path"), "/two");
  EXPECT_EQ(two.at("body"), "abc");
  EXPECT_EQ(ParseEcho(client.Read().body()).at("path"), "/three");
}

TEST(HttpServer, ConnectionCloseIsHonoured) {
  auto server = StartServer(Echo);
  Client client(server->port());
  auto req = Client::Request(http::verb::get, "/x");
  req.set(http::field::connection, "close");
  client.Send(req);
  auto res = client.Read();
  EXPECT_EQ(res.result_int(), 200U);
  EXPECT_FALSE(res.keep_alive());
  EXPECT_TRUE(client.PeerClosed());
}

TEST(HttpServer, StreamSendsHeadersAtOnceAndFlushesEachWriteAsOneChunk) {
  Event header_read;
  Event first_read;
  auto server = StartServer([&](const HttpRequest&, ResponseWriter& w) {
    w.BeginStream(200, "application/json", {{"X-Stream", "1"}});
    EXPECT_TRUE(w.Started());
    header_read.Wait();  // the client got the headers before any chunk was written
    EXPECT_TRUE(w.Write("{\"n\":1}\n"));
    first_read.Wait();  // the client got chunk 1 before chunk 2 exists
    EXPECT_TRUE(w.Write("{\"n\":2}\n"));
    EXPECT_TRUE(w.Write(""));  // sends nothing (an empty chunk would end the stream)
    EXPECT_TRUE(w.Write("{\"n\":3}\n"));
  });
  Client client(server->port());
  client.Send(Client::Request(http::verb::get, "/watch"));
  ChunkReader reader(client);
  reader.ReadHeader();
  EXPECT_EQ(reader.parser().get().result_int(), 200U);
  EXPECT_TRUE(reader.parser().get().chunked());
  EXPECT_EQ(reader.parser().get()["X-Stream"], "1");
  EXPECT_EQ(reader.parser().get()[http::field::content_type], "application/json");
  header_read.Fire();
  EXPECT_EQ(reader.WaitChunks(1), std::vector<std::string>({"{\"n\":1}\n"}));
  first_read.Fire();
  EXPECT_FALSE(reader.ReadToEnd());
  EXPECT_EQ(reader.chunks(),
            std::vector<std::string>({"{\"n\":1}\n", "{\"n\":2}\n", "{\"n\":3}\n"}));
  // The connection stays usable after the stream's last chunk.
  client.Send(Client::Request(http::verb::get, "/again"));
  ChunkReader again(client);
  header_read.Fire();
  EXPECT_FALSE(again.ReadToEnd());
  EXPECT_EQ(again.chunks().size(), 3U);
}

TEST(HttpServer, Http10StreamIsDelimitedByClosingTheConnection) {
  auto server = StartServer([](const HttpRequest&, ResponseWriter& w) {
    w.BeginStream(200, "text/plain");
    w.Write("a");
    w.Write("b");
  });
  Client client(server->port());
  client.SendRaw("GET /s HTTP/1.0\r\n\r\n");
  auto res = client.Read();  // a body without length ends at EOF
  EXPECT_FALSE(res.chunked());
  EXPECT_EQ(res.body(), "ab");
  EXPECT_TRUE(client.PeerClosed());
}

TEST(HttpServer, ContentLengthAboveLimitGets413BeforeTheBodyIsSent) {
  std::atomic<int> calls{0};
  auto server = StartServer(
      [&](const HttpRequest& r, ResponseWriter& w) {
        ++calls;
        Echo(r, w);
      },
      {.max_body_bytes = 1024});
  Client client(server->port());
  // No body follows: the answer cannot depend on reading it.
  client.SendRaw("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1025\r\n\r\n");
  auto res = client.Read();
  ExpectStatus(res, 413, "RequestEntityTooLarge");
  EXPECT_EQ(ParseStatus(res.body())->error.message, "Request entity too large: limit is 1024");
  EXPECT_FALSE(res.keep_alive());
  EXPECT_TRUE(client.PeerClosed());
  EXPECT_EQ(calls.load(), 0);
}

TEST(HttpServer, ChunkedBodyAboveLimitGets413) {
  std::atomic<int> calls{0};
  auto server = StartServer(
      [&](const HttpRequest& r, ResponseWriter& w) {
        ++calls;
        Echo(r, w);
      },
      {.max_body_bytes = 1024});
  Client client(server->port());
  const std::string chunk = "200\r\n" + std::string(512, 'x') + "\r\n";
  client.SendRaw("POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk +
                 chunk + chunk + "0\r\n\r\n");
  auto res = client.Read();
  ExpectStatus(res, 413, "RequestEntityTooLarge");
  EXPECT_TRUE(client.PeerClosed());
  EXPECT_EQ(calls.load(), 0);
}

TEST(HttpServer, BodiesAtTheLimitAreAccepted) {
  auto server = StartServer(Echo, {.max_body_bytes = 1024});
  Client client(server->port());
  client.Send(Client::Request(http::verb::post, "/x", std::string(1024, 'y')));
  EXPECT_EQ(ParseEcho(client.Read().body()).at("body_size"), "1024");
  const std::string chunk = "200\r\n" + std::string(512, 'x') + "\r\n";
  client.SendRaw("POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk +
                 chunk + "0\r\n\r\n");
  EXPECT_EQ(ParseEcho(client.Read().body()).at("body_size"), "1024");
}

TEST(HttpServer, HeaderSectionAboveLimitGets431) {
  auto server = StartServer(Echo, {.max_header_bytes = 1024});
  Client client(server->port());
  client.SendRaw("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(2000, 'a') + "\r\n\r\n");
  auto res = client.Read();
  EXPECT_EQ(res.result_int(), 431U);
  EXPECT_EQ(res[http::field::content_type], "application/json");
  auto status = ParseStatus(res.body());
  ASSERT_TRUE(status.ok()) << res.body();
  EXPECT_EQ(status->error.code, 431);
  EXPECT_TRUE(client.PeerClosed());
}

TEST(HttpServer, GarbageGets400StatusAndTheConnectionCloses) {
  auto server = StartServer(Echo);
  for (const std::string& garbage :
       {std::string("THIS IS NOT HTTP\r\n\r\n"),
        std::string("\x16\x03\x01\x02\x00\x01\r\n\r\n", 10),
        std::string("GET / HTTP/1.1\r\nBad Header\r\n\r\n"),
        std::string("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n")}) {
    Client client(server->port());
    client.SendRaw(garbage);
    auto res = client.Read();
    ExpectStatus(res, 400, "BadRequest");
    EXPECT_TRUE(client.PeerClosed());
  }
}

TEST(HttpServer, MalformedChunkedBodyGets400) {
  auto server = StartServer(Echo);
  Client client(server->port());
  client.SendRaw("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n");
  ExpectStatus(client.Read(), 400, "BadRequest");
  EXPECT_TRUE(client.PeerClosed());
}

TEST(HttpServer, PathIsPercentDecodedAndQueryKeptRaw) {
  auto server = StartServer(Echo);
  Client client(server->port());
  auto echo =
      ParseEcho(client.Get("/api/v1/namespaces/a%20b/configmaps/x%2Fy?q=a%20b&r=%2F").body());
  EXPECT_EQ(echo.at("path"), "/api/v1/namespaces/a b/configmaps/x/y");
  EXPECT_EQ(echo.at("query"), "q=a%20b&r=%2F");
  EXPECT_EQ(echo.at("target"), "/api/v1/namespaces/a%20b/configmaps/x%2Fy?q=a%20b&r=%2F");
}

TEST(HttpServer, InvalidPercentEncodingOrNulGets400AndKeepsTheConnection) {
  auto server = StartServer(Echo);
  Client client(server->port());
  ExpectStatus(client.Get("/a%zz"), 400, "BadRequest");
  ExpectStatus(client.Get("/a%00b"), 400, "BadRequest");
  ExpectStatus(client.Get("/a%4"), 400, "BadRequest");
  EXPECT_EQ(client.Get("/ok").result_int(), 200U);
}

TEST(HttpServer, BearerTokenIsRequiredExceptOnAnonymousPaths) {
  std::atomic<int> calls{0};
  auto server = StartServer(
      [&](const HttpRequest& r, ResponseWriter& w) {
        ++calls;
        Echo(r, w);
      },
      {.bearer_token = "s3cret"});
  Client client(server->port());

  auto missing = client.Get("/api");
  ExpectStatus(missing, 401, "Unauthorized");
  EXPECT_EQ(missing.body(),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"Unauthorized","reason":"Unauthorized","code":401})");
  ExpectStatus(client.Get("/api", "wrong"), 401, "Unauthorized");
  ExpectStatus(client.Get("/api", "s3cre"), 401, "Unauthorized");
  ExpectStatus(client.Get("/api", "s3cret0"), 401, "Unauthorized");
  EXPECT_EQ(calls.load(), 0);

  auto ok = client.Get("/api", "s3cret");
  EXPECT_EQ(ok.result_int(), 200U);
  EXPECT_EQ(ParseEcho(ok.body()).at("user"), "admin");
  auto lower = Client::Request(http::verb::get, "/api");
  lower.set(http::field::authorization, "bearer s3cret");
  client.Send(lower);
  EXPECT_EQ(client.Read().result_int(), 200U);

  auto healthz = client.Get("/healthz");
  EXPECT_EQ(healthz.result_int(), 200U);
  EXPECT_EQ(ParseEcho(healthz.body()).at("user"), "system:anonymous");
  EXPECT_EQ(client.Get("/readyz/ping").result_int(), 200U);
  ExpectStatus(client.Get("/healthz", "wrong"), 401, "Unauthorized");
  EXPECT_EQ(calls.load(), 4);
}

TEST(HttpServer, UnauthorizedRequestWithUnreadBodyClosesTheConnection) {
  auto server = StartServer(Echo, {.bearer_token = "s3cret"});
  Client client(server->port());
  client.SendRaw("POST /api HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
  auto res = client.Read();
  ExpectStatus(res, 401, "Unauthorized");
  EXPECT_FALSE(res.keep_alive());
  EXPECT_TRUE(client.PeerClosed());
}

TEST(HttpServer, HandlerExceptionGets500StatusAndKeepsTheConnection) {
  auto server = StartServer([](const HttpRequest& r, ResponseWriter& w) {
    if (r.path == "/throw") throw std::runtime_error("boom");
    if (r.path == "/silent") return;
    Echo(r, w);
  });
  Client client(server->port());
  auto res = client.Get("/throw");
  ExpectStatus(res, 500, "InternalError");
  EXPECT_EQ(ParseStatus(res.body())->error.message, "Internal error occurred: boom");
  ExpectStatus(client.Get("/silent"), 500, "InternalError");
  EXPECT_EQ(client.Get("/fine").result_int(), 200U);
}

TEST(HttpServer, HandlerExceptionDuringStreamCutsTheStreamShort) {
  auto server = StartServer([](const HttpRequest&, ResponseWriter& w) {
    w.BeginStream(200, "application/json");
    w.Write("partial");
    throw std::runtime_error("mid-stream");
  });
  Client client(server->port());
  client.Send(Client::Request(http::verb::get, "/watch"));
  ChunkReader reader(client);
  reader.ReadHeader();
  const error_code ec = reader.ReadToEnd();
  EXPECT_TRUE(ec) << "the stream must not end cleanly";
  EXPECT_FALSE(reader.parser().is_done());
}

TEST(HttpServer, ExpectContinueGetsInterimResponseBeforeTheBody) {
  auto server = StartServer(Echo);
  Client client(server->port());
  client.SendRaw("PUT /x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n");
  http::response_parser<http::empty_body> interim;
  http::read_header(client.socket(), client.buffer(), interim);
  EXPECT_EQ(interim.get().result_int(), 100U);
  client.SendRaw("hello");
  EXPECT_EQ(ParseEcho(client.Read().body()).at("body"), "hello");
}

TEST(HttpServer, StopEndsAnActiveStreamAndReturns) {
  std::promise<bool> stop_seen;
  auto server = StartServer([&](const HttpRequest&, ResponseWriter& w) {
    w.BeginStream(200, "application/json");
    w.Write("started");
    std::promise<void> stopped;
    std::stop_callback on_stop(w.StopToken(), [&] { stopped.set_value(); });
    stop_seen.set_value(stopped.get_future().wait_for(kGenerous) == std::future_status::ready);
  });
  Client client(server->port());
  client.Send(Client::Request(http::verb::get, "/watch"));
  ChunkReader reader(client);
  reader.ReadHeader();
  reader.WaitChunks(1);  // the handler is streaming

  const auto start = std::chrono::steady_clock::now();
  server->Stop(20s);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 20s) << "Stop waited for the grace period";
  auto seen = stop_seen.get_future();
  ASSERT_EQ(seen.wait_for(kGenerous), std::future_status::ready);
  EXPECT_TRUE(seen.get());
  EXPECT_FALSE(reader.ReadToEnd()) << "the stream ends with its last chunk";
  EXPECT_TRUE(client.PeerClosed());
}

TEST(HttpServer, StopClosesIdleKeepAliveConnectionsAtOnce) {
  auto server = StartServer(Echo);
  Client client(server->port());
  EXPECT_EQ(client.Get("/x").result_int(), 200U);
  const auto start = std::chrono::steady_clock::now();
  server->Stop(20s);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 20s);
  EXPECT_TRUE(client.PeerClosed());
  // The listening socket is closed too.
  net::io_context ioc;
  tcp::socket late(ioc);
  error_code ec;
  late.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), server->port()), ec);
  EXPECT_EQ(ec, net::error::connection_refused);
  server->Stop();  // idempotent
}

TEST(HttpServer, StopWithAHandlerIgnoringTheTokenForcesTheSocketClosedAfterGrace) {
  Event release;
  std::promise<bool> write_result;
  auto server = StartServer([&](const HttpRequest&, ResponseWriter& w) {
    w.BeginStream(200, "text/plain");
    w.Write("x");
    release.Wait();  // ignores the stop token
    write_result.set_value(w.Write("y"));
  });
  Client client(server->port());
  client.Send(Client::Request(http::verb::get, "/w"));
  ChunkReader reader(client);
  reader.ReadHeader();
  reader.WaitChunks(1);
  std::jthread stopper([&] { server->Stop(10ms); });
  // The grace period passes, the socket is forced closed: the client sees the end.
  EXPECT_TRUE(reader.ReadToEnd());
  release.Fire();
  auto result = write_result.get_future();
  ASSERT_EQ(result.wait_for(kGenerous), std::future_status::ready);
  EXPECT_FALSE(result.get());
}

TEST(HttpServer, ClientDisconnectFiresTheStopTokenAndWriteReturnsFalse) {
  std::promise<std::pair<bool, bool>> result;  // (stop token fired, Write after it)
  auto server = StartServer([&](const HttpRequest&, ResponseWriter& w) {
    w.BeginStream(200, "application/json");
    w.Write("hello");
    std::promise<void> stopped;
    std::stop_callback on_stop(w.StopToken(), [&] { stopped.set_value(); });
    // A watch with no events: only hang-up detection can end it.
    const bool fired = stopped.get_future().wait_for(kGenerous) == std::future_status::ready;
    result.set_value({fired, w.Write("after")});
  });
  {
    Client client(server->port());
    client.Send(Client::Request(http::verb::get, "/watch"));
    ChunkReader reader(client);
    reader.ReadHeader();
    reader.WaitChunks(1);
  }  // closes the socket
  auto f = result.get_future();
  ASSERT_EQ(f.wait_for(kGenerous), std::future_status::ready);
  const auto [fired, wrote] = f.get();
  EXPECT_TRUE(fired);
  EXPECT_FALSE(wrote);
}

TEST(HttpServer, WritesToAClientThatStoppedReadingFailAfterTheWriteTimeout) {
  std::promise<bool> gave_up;
  auto server = StartServer(
      [&](const HttpRequest&, ResponseWriter& w) {
        w.BeginStream(200, "text/plain");
        const std::string block(64 * 1024, 'z');
        const auto limit = std::chrono::steady_clock::now() + kGenerous;
        bool ok = true;
        while (ok && std::chrono::steady_clock::now() < limit) ok = w.Write(block);
        gave_up.set_value(!ok);
      },
      {.write_timeout = 1s});
  Client client(server->port());
  client.Send(Client::Request(http::verb::get, "/flood"));  // and never read the answer
  auto f = gave_up.get_future();
  ASSERT_EQ(f.wait_for(kGenerous), std::future_status::ready);
  EXPECT_TRUE(f.get());
}

TEST(HttpServer, IdleTimeoutClosesAnIdleKeepAliveConnection) {
  auto server = StartServer(Echo, {.idle_timeout = 1s});
  Client client(server->port());
  EXPECT_EQ(client.Get("/x").result_int(), 200U);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(client.PeerClosed());
  EXPECT_GE(std::chrono::steady_clock::now() - start, 900ms);
  Client silent(server->port());  // never sends a byte
  EXPECT_TRUE(silent.PeerClosed());
}

TEST(HttpServer, ReadTimeoutClosesAStalledRequest) {
  auto server = StartServer(Echo, {.read_timeout = 1s});
  Client client(server->port());
  client.SendRaw("GET / HTTP/1.1\r\nHost:");
  EXPECT_TRUE(client.PeerClosed());
}

TEST(HttpServer, ConnectionsBeyondTheLimitAreClosed) {
  auto server = StartServer(Echo, {.max_connections = 1});
  Client first(server->port());
  EXPECT_EQ(first.Get("/x").result_int(), 200U);  // accepted and registered
  Client second(server->port());
  EXPECT_TRUE(second.PeerClosed());
  EXPECT_EQ(first.Get("/y").result_int(), 200U);
}

TEST(HttpServer, StartFailsOnABadAddressOrAPortInUse) {
  auto bad = NewHttpServer({.address = "not-an-ip"}, Echo);
  auto r = bad->Start();
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsInternalError(r.error()));

  auto first = StartServer(Echo);
  auto second = NewHttpServer({.port = first->port()}, Echo);
  auto r2 = second->Start();
  ASSERT_FALSE(r2.ok());
  EXPECT_TRUE(IsInternalError(r2.error()));
}

TEST(HttpServer, ServesIpv6AndReportsTheBracketedRemote) {
  auto server = NewHttpServer({.address = "::1"}, Echo);
  if (!server->Start().ok()) GTEST_SKIP() << "no IPv6 loopback here";
  net::io_context ioc;
  tcp::socket socket(ioc);
  socket.connect(tcp::endpoint(net::ip::make_address("::1"), server->port()));
  auto req = Client::Request(http::verb::get, "/v6");
  req.prepare_payload();
  http::write(socket, req);
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(socket, buffer, res);
  EXPECT_TRUE(ParseEcho(res.body()).at("remote").starts_with("[::1]:")) << res.body();
}

TEST(HttpServer, StopBeforeStartIsANoOp) {
  auto server = NewHttpServer({}, Echo);
  server->Stop();
  server->Stop();
  EXPECT_EQ(server->port(), 0);
}

// ---------------------------------------------------------------------------------------------
// TLS

class HttpServerTls : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kube-http-tls-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    auto pki = EnsurePki(dir_.string());
    ASSERT_TRUE(pki.ok()) << pki.error().ToString();
    pki_ = *pki;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<HttpServer> StartTls(HttpHandler handler) {
    return StartServer(std::move(handler),
                       {.tls = TlsOptions{.cert_file = pki_.cert_file, .key_file = pki_.key_file},
                        .bearer_token = "tok"});
  }

  /// A client context that trusts only the generated CA.
  ssl::context ClientContext() {
    ssl::context ctx(ssl::context::tls_client);
    ctx.set_verify_mode(ssl::verify_peer);
    ctx.load_verify_file(pki_.ca_file);
    return ctx;
  }

  std::filesystem::path dir_;
  GeneratedPki pki_;
};

struct TlsClient {
  TlsClient(ssl::context& ctx, uint16_t port, const std::string& host)
      : stream(ioc, ctx) {
    stream.next_layer().connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
    watchdog.emplace(stream.next_layer().native_handle());
    stream.set_verify_callback(ssl::host_name_verification(host));
    SSL_set_tlsext_host_name(stream.native_handle(), host.c_str());
  }
  net::io_context ioc;
  ssl::stream<tcp::socket> stream;
  beast::flat_buffer buffer;
  std::optional<Watchdog> watchdog;
};

TEST_F(HttpServerTls, RequestOverTlsVerifiesAgainstTheGeneratedCa) {
  auto server = StartTls(Echo);
  auto ctx = ClientContext();
  TlsClient client(ctx, server->port(), "localhost");
  client.stream.handshake(ssl::stream_base::client);
  EXPECT_GE(SSL_version(client.stream.native_handle()), TLS1_2_VERSION);

  auto req = Client::Request(http::verb::get, "/api", "", "tok");
  req.prepare_payload();
  http::write(client.stream, req);
  http::response<http::string_body> res;
  http::read(client.stream, client.buffer, res);
  EXPECT_EQ(res.result_int(), 200U);
  EXPECT_EQ(ParseEcho(res.body()).at("user"), "admin");

  // Keep-alive works over TLS too, and so does the 401.
  auto anon = Client::Request(http::verb::get, "/api");
  anon.prepare_payload();
  http::write(client.stream, anon);
  http::response<http::string_body> denied;
  http::read(client.stream, client.buffer, denied);
  ExpectStatus(denied, 401, "Unauthorized");
}

TEST_F(HttpServerTls, StreamOverTlsDeliversEachChunk) {
  auto server = StartTls([](const HttpRequest&, ResponseWriter& w) {
    w.BeginStream(200, "application/json");
    w.Write("one\n");
    w.Write(std::string(40000, 'x'));  // spans several TLS records
    w.Write("three\n");
  });
  auto ctx = ClientContext();
  TlsClient client(ctx, server->port(), "localhost");
  client.stream.handshake(ssl::stream_base::client);
  auto req = Client::Request(http::verb::get, "/watch", "", "tok");
  req.prepare_payload();
  http::write(client.stream, req);
  http::response<http::string_body> res;
  http::read(client.stream, client.buffer, res);
  EXPECT_TRUE(res.chunked());
  EXPECT_EQ(res.body(), "one\n" + std::string(40000, 'x') + "three\n");
}

TEST_F(HttpServerTls, ClientThatSendsAWholeOversizedBodyBeforeReadingGets413) {
  auto server = StartServer(Echo, {.tls = TlsOptions{.cert_file = pki_.cert_file, .key_file = pki_.key_file},
                                   .bearer_token = "tok",
                                   .max_body_bytes = 1024});
  auto ctx = ClientContext();
  TlsClient client(ctx, server->port(), "localhost");
  client.stream.handshake(ssl::stream_base::client);
  // 2 MiB: more than the socket buffers hold, so the write completes only if the server reads on.
  auto req = Client::Request(http::verb::post, "/x", std::string(2U << 20U, 'x'), "tok");
  req.prepare_payload();
  error_code ec;
  http::write(client.stream, req, ec);
  ASSERT_FALSE(ec) << ec.message();
  http::response<http::string_body> res;
  http::read(client.stream, client.buffer, res, ec);
  ASSERT_FALSE(ec) << ec.message();
  ExpectStatus(res, 413, "RequestEntityTooLarge");
  EXPECT_FALSE(res.keep_alive());
}

TEST_F(HttpServerTls, HandshakeFailsForAWrongHostName) {
  auto server = StartTls(Echo);
  auto ctx = ClientContext();
  TlsClient client(ctx, server->port(), "example.com");
  error_code ec;
  client.stream.handshake(ssl::stream_base::client, ec);
  EXPECT_TRUE(ec);
}

TEST_F(HttpServerTls, HandshakeFailsForAClientThatDoesNotTrustTheCa) {
  auto server = StartTls(Echo);
  ssl::context ctx(ssl::context::tls_client);
  ctx.set_verify_mode(ssl::verify_peer);  // no CA loaded
  TlsClient client(ctx, server->port(), "localhost");
  error_code ec;
  client.stream.handshake(ssl::stream_base::client, ec);
  EXPECT_TRUE(ec);
}

TEST_F(HttpServerTls, Tls11IsRefused) {
  auto server = StartTls(Echo);
  auto ctx = ClientContext();
  SSL_CTX_set_security_level(ctx.native_handle(), 0);  // let the client offer TLS 1.1
  SSL_CTX_set_min_proto_version(ctx.native_handle(), TLS1_1_VERSION);
  SSL_CTX_set_max_proto_version(ctx.native_handle(), TLS1_1_VERSION);
  TlsClient client(ctx, server->port(), "localhost");
  error_code ec;
  client.stream.handshake(ssl::stream_base::client, ec);
  EXPECT_TRUE(ec);
}

TEST_F(HttpServerTls, PlainHttpClientOnTheTlsPortIsDisconnected) {
  auto server = StartTls(Echo);
  Client client(server->port());
  client.SendRaw("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_FALSE(client.ReadUntilClosed().starts_with("HTTP/"));
}

}  // namespace
}  // namespace kube::apiserver
