#include <kube/controller/probe_server.hpp>

#include <charconv>
#include <chrono>
#include <exception>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <kube/base/mutex.hpp>

namespace kube::controller {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr auto kIdleTimeout = std::chrono::seconds(60);

bool ValidCheckName(std::string_view name) {
  return !name.empty() && name.find('/') == std::string_view::npos;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decoding of a query component ('+' is a space); nullopt for a malformed escape.
std::optional<std::string> QueryUnescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      if (i + 2 >= s.size()) return std::nullopt;
      const int hi = HexValue(s[i + 1]);
      const int lo = HexValue(s[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (s[i] == '+') {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

struct Checks {
  std::map<std::string, HealthCheck> healthz;
  std::map<std::string, HealthCheck> readyz;
};

Result<void> RunCheck(const HealthCheck& check) {
  try {
    return check();
  } catch (const std::exception& e) {
    return InternalError(std::string("check threw: ") + e.what());
  } catch (...) {
    return InternalError("check threw a non-standard exception");
  }
}

}  // namespace

HealthCheck PingCheck() {
  return [] { return Ok(); };
}

struct ProbeServer::Impl {
  explicit Impl(ProbeServerOptions o) : options(std::move(o)), acceptor(ioc) {}

  ProbeServerOptions options;
  asio::io_context ioc;
  tcp::acceptor acceptor;
  tcp::endpoint bound;
  std::jthread thread;  // runs ioc; joined in Stop
  Mutex mu;
  Checks checks KUBE_GUARDED_BY(mu);
  bool stopped KUBE_GUARDED_BY(mu) = false;

  struct Response {
    http::status status = http::status::ok;
    std::string body;
    std::string content_type = "text/plain; charset=utf-8";
    bool close = false;
  };

  void Accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
      if (!ec) std::make_shared<Session>(this, std::move(socket))->Read();
      Accept();
    });
  }

  Response Handle(const http::request<http::string_body>& req) {
    Response res;
    const std::string_view target(req.target().data(), req.target().size());
    const auto qpos = target.find('?');
    const std::string_view path = target.substr(0, qpos);
    std::string_view query = qpos == std::string_view::npos ? std::string_view{} : target.substr(qpos + 1);
    if (req.method() != http::verb::get && req.method() != http::verb::head) {
      res.status = http::status::method_not_allowed;
      res.body = "method not allowed\n";
      return res;
    }
    if (path == "/metrics") {
      if (options.registry == nullptr) {
        res.status = http::status::not_found;
        res.body = "404 page not found\n";
        return res;
      }
      res.body = options.registry->Render();
      res.content_type = std::string(kPrometheusTextContentType);
      return res;
    }
    std::string_view endpoint;
    std::string_view rest;
    for (std::string_view e : {std::string_view("/healthz"), std::string_view("/readyz")}) {
      if (path == e || (path.starts_with(e) && path.size() > e.size() && path[e.size()] == '/')) {
        endpoint = e.substr(1);
        rest = path.size() > e.size() ? path.substr(e.size() + 1) : std::string_view{};
      }
    }
    if (endpoint.empty()) {
      res.status = http::status::not_found;
      res.body = "404 page not found\n";
      return res;
    }
    bool verbose = false;
    std::set<std::string> excluded;
    while (!query.empty()) {
      const auto amp = query.find('&');
      const std::string_view param = query.substr(0, amp);
      query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
      const auto eq = param.find('=');
      const std::string_view key = param.substr(0, eq);
      const std::string_view raw_value = eq == std::string_view::npos ? std::string_view{} : param.substr(eq + 1);
      auto value = QueryUnescape(raw_value);
      if (!value) {
        res.status = http::status::bad_request;
        res.body = "malformed query\n";
        return res;
      }
      if (key == "verbose") verbose = true;
      if (key == "exclude") excluded.insert(*value);
    }
    std::vector<std::pair<std::string, HealthCheck>> list;
    {
      MutexLock lock(mu);
      const auto& m = endpoint == "healthz" ? checks.healthz : checks.readyz;
      for (const auto& [name, check] : m) list.emplace_back(name, check);
    }
    if (!rest.empty()) {  // one check: /healthz/<name>
      for (const auto& [name, check] : list) {
        if (name != rest) continue;
        auto r = RunCheck(check);
        if (r.ok()) {
          res.body = "ok";
        } else {
          res.status = http::status::internal_server_error;
          res.body = "internal server error: " + r.error().message + "\n";
        }
        return res;
      }
      res.status = http::status::not_found;
      res.body = "404 page not found\n";
      return res;
    }
    std::string verbose_out;
    std::string failed_out;
    bool failed = false;
    for (const auto& [name, check] : list) {
      if (excluded.erase(name) > 0) {
        verbose_out += "[+]" + name + " excluded: ok\n";
        continue;
      }
      auto r = RunCheck(check);
      if (r.ok()) {
        verbose_out += "[+]" + name + " ok\n";
      } else {
        failed = true;
        verbose_out += "[-]" + name + " failed: " + r.error().message + "\n";
        failed_out += "[-]" + name + " failed: reason withheld\n";
      }
    }
    for (const auto& name : excluded) {
      verbose_out += "warn: some health checks cannot be excluded: no matches for \"" + name + "\"\n";
    }
    if (failed) {
      res.status = http::status::internal_server_error;
      res.body = (verbose ? verbose_out : failed_out) + std::string(endpoint) + " check failed\n";
    } else if (verbose) {
      res.body = verbose_out + std::string(endpoint) + " check passed\n";
    } else {
      res.body = "ok";
    }
    return res;
  }

  class Session : public std::enable_shared_from_this<Session> {
   public:
    Session(Impl* impl, tcp::socket socket) : impl_(impl), stream_(std::move(socket)) {}

    void Read() {
      parser_.emplace();
      parser_->header_limit(static_cast<std::uint32_t>(impl_->options.max_request_bytes));
      parser_->body_limit(impl_->options.max_request_bytes);
      stream_.expires_after(kIdleTimeout);
      http::async_read(stream_, buffer_, *parser_,
                       [self = shared_from_this()](beast::error_code ec, std::size_t) { self->OnRead(ec); });
    }

   private:
    void OnRead(beast::error_code ec) {
      if (ec == http::error::end_of_stream || ec == asio::error::operation_aborted ||
          ec == beast::error::timeout || ec == asio::error::eof || ec == asio::error::connection_reset) {
        Close();
        return;
      }
      if (ec == http::error::header_limit || ec == http::error::body_limit ||
          ec == http::error::buffer_overflow) {
        Send(Response{http::status::payload_too_large, "request too large\n", "text/plain; charset=utf-8", true},
             11, false);
        return;
      }
      if (ec) {
        Send(Response{http::status::bad_request, "bad request\n", "text/plain; charset=utf-8", true}, 11, false);
        return;
      }
      const auto& req = parser_->get();
      Response r = req.version() == 11 || req.version() == 10
                       ? impl_->Handle(req)
                       : Response{http::status::bad_request, "unsupported HTTP version\n",
                                  "text/plain; charset=utf-8", true};
      r.close = r.close || !req.keep_alive();
      Send(std::move(r), req.version() == 10 ? 10 : 11, req.method() == http::verb::head);
    }

    void Send(Response r, unsigned version, bool head) {
      res_ = std::make_unique<http::response<http::string_body>>(r.status, version);
      res_->set(http::field::content_type, r.content_type);
      res_->set("X-Content-Type-Options", "nosniff");
      if (r.status == http::status::method_not_allowed) res_->set(http::field::allow, "GET, HEAD");
      res_->keep_alive(!r.close);
      const std::size_t length = r.body.size();
      if (!head) res_->body() = std::move(r.body);
      res_->content_length(length);
      const bool close = r.close;
      stream_.expires_after(kIdleTimeout);
      if (head) {
        // A HEAD response carries the GET's Content-Length but no body: write only the header.
        serializer_ = std::make_unique<http::response_serializer<http::string_body>>(*res_);
        http::async_write_header(stream_, *serializer_,
                                 [self = shared_from_this(), close](beast::error_code ec, std::size_t) {
                                   self->OnWrite(ec, close);
                                 });
        return;
      }
      http::async_write(stream_, *res_, [self = shared_from_this(), close](beast::error_code ec, std::size_t) {
        self->OnWrite(ec, close);
      });
    }

    void OnWrite(beast::error_code ec, bool close) {
      serializer_.reset();
      res_.reset();
      if (ec || close) {
        Close();
        return;
      }
      Read();
    }

    void Close() {
      beast::error_code ignored;
      stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
      stream_.socket().close(ignored);
    }

    Impl* impl_;
    beast::tcp_stream stream_;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::string_body>> parser_;
    std::unique_ptr<http::response<http::string_body>> res_;
    std::unique_ptr<http::response_serializer<http::string_body>> serializer_;
  };
};

ProbeServer::ProbeServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ProbeServer::~ProbeServer() { Stop(); }

Result<std::unique_ptr<ProbeServer>> ProbeServer::Start(ProbeServerOptions options) {
  const std::string addr = options.bind_address;
  const auto colon = addr.rfind(':');
  if (colon == std::string::npos) return BadRequest("probe server: bind address \"" + addr + "\" is not host:port");
  std::string host = addr.substr(0, colon);
  const std::string port_text = addr.substr(colon + 1);
  unsigned port = 0;
  const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() || port > 65535) {
    return BadRequest("probe server: invalid port in bind address \"" + addr + "\"");
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";
  if (host == "localhost") host = "127.0.0.1";
  beast::error_code error;
  const auto ip = asio::ip::make_address(host, error);
  if (error) return BadRequest("probe server: invalid host in bind address \"" + addr + "\": " + error.message());

  auto impl = std::make_unique<Impl>(std::move(options));
  const tcp::endpoint endpoint(ip, static_cast<unsigned short>(port));
  impl->acceptor.open(endpoint.protocol(), error);
  if (!error) impl->acceptor.set_option(asio::socket_base::reuse_address(true), error);
  if (!error) impl->acceptor.bind(endpoint, error);
  if (!error) impl->acceptor.listen(asio::socket_base::max_listen_connections, error);
  if (!error) impl->bound = impl->acceptor.local_endpoint(error);
  if (error) return TransportError("probe server: cannot listen on " + addr + ": " + error.message());
  impl->Accept();
  Impl* raw = impl.get();
  impl->thread = std::jthread([raw] { raw->ioc.run(); });
  return std::make_unique<ProbeServer>(std::move(impl));
}

Result<void> ProbeServer::AddHealthzCheck(std::string name, HealthCheck check) {
  if (!ValidCheckName(name)) return BadRequest("invalid health check name \"" + name + "\"");
  MutexLock lock(impl_->mu);
  impl_->checks.healthz[std::move(name)] = std::move(check);
  return Ok();
}

Result<void> ProbeServer::AddReadyzCheck(std::string name, HealthCheck check) {
  if (!ValidCheckName(name)) return BadRequest("invalid readiness check name \"" + name + "\"");
  MutexLock lock(impl_->mu);
  impl_->checks.readyz[std::move(name)] = std::move(check);
  return Ok();
}

std::uint16_t ProbeServer::port() const { return impl_->bound.port(); }

std::string ProbeServer::address() const {
  const auto a = impl_->bound.address();
  return (a.is_v6() ? "[" + a.to_string() + "]" : a.to_string()) + ":" + std::to_string(impl_->bound.port());
}

void ProbeServer::Stop() {
  {
    MutexLock lock(impl_->mu);
    if (impl_->stopped) return;
    impl_->stopped = true;
  }
  asio::post(impl_->ioc, [impl = impl_.get()] {
    beast::error_code ignored;
    impl->acceptor.close(ignored);
    impl->ioc.stop();
  });
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace kube::controller
