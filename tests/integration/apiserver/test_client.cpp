#include "test_client.hpp"

#include <sys/socket.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/json.hpp>

namespace kube::apiserver::testing {
namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;

namespace {

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

http::request<http::string_body> MakeRequest(std::string_view method, std::string_view target,
                                             std::string_view body, const Headers& headers) {
  http::request<http::string_body> req;
  req.method_string(method);
  req.target(target);
  req.version(11);
  req.set(http::field::host, "127.0.0.1");
  req.set(http::field::connection, "close");
  for (const auto& [k, v] : headers) req.set(k, v);
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    req.body() = std::string(body);
    req.prepare_payload();
  }
  return req;
}

void SetTimeouts(tcp::socket& s, int seconds) {
  struct timeval tv{seconds, 0};
  ::setsockopt(s.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(s.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

}  // namespace

boost::json::value HttpResponse::Json() const {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(body, ec);
  if (ec) return nullptr;
  return v;
}

std::string HttpResponse::Header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

HttpResponse HttpClient::Request(std::string_view method, std::string_view target, std::string_view body,
                                 const Headers& headers) const {
  net::io_context io;
  tcp::socket socket(io);
  boost::system::error_code ec;
  socket.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port_), ec);
  HttpResponse out;
  if (ec) return out;
  SetTimeouts(socket, 30);
  auto req = MakeRequest(method, target, body, headers);
  http::write(socket, req, ec);
  if (ec) return out;
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(1ull << 32);
  http::read(socket, buffer, parser, ec);
  if (ec) return out;
  auto res = parser.release();
  out.status = static_cast<int>(res.result_int());
  for (const auto& f : res) out.headers[Lower(std::string(f.name_string()))] = std::string(f.value());
  out.body = std::move(res.body());
  socket.shutdown(tcp::socket::shutdown_both, ec);
  return out;
}

struct StreamReader::State {
  Mutex mu;
  CondVar cv;
  int status KUBE_GUARDED_BY(mu) = 0;
  bool headers_done KUBE_GUARDED_BY(mu) = false;
  bool ended KUBE_GUARDED_BY(mu) = false;
  bool paused KUBE_GUARDED_BY(mu) = false;
  std::string partial KUBE_GUARDED_BY(mu);
  std::deque<std::string> lines KUBE_GUARDED_BY(mu);
  net::io_context io;
  tcp::socket socket{io};
  int native = -1;  // the socket's descriptor, set before the reader starts
};

StreamReader::StreamReader(uint16_t port, std::string target, Headers headers, bool paused)
    : state_(std::make_shared<State>()) {
  {
    MutexLock lock(state_->mu);
    state_->paused = paused;
  }
  boost::system::error_code ec;
  state_->socket.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port), ec);
  if (!ec) {
    auto req = MakeRequest("GET", target, {}, headers);
    http::write(state_->socket, req, ec);
  }
  if (!ec) {
    state_->native = state_->socket.native_handle();
    SetTimeouts(state_->socket, 120);
  }
  if (ec) {
    MutexLock lock(state_->mu);
    state_->ended = true;
    state_->headers_done = true;
    return;
  }
  reader_ = std::jthread([state = state_] {
    beast::flat_buffer buffer;
    http::response_parser<http::buffer_body> parser;
    parser.body_limit(boost::none);
    boost::system::error_code err;
    http::read_header(state->socket, buffer, parser, err);
    {
      MutexLock lock(state->mu);
      state->status = err ? 0 : static_cast<int>(parser.get().result_int());
      state->headers_done = true;
      state->cv.SignalAll();
    }
    {
      MutexLock lock(state->mu);
      while (state->paused) state->cv.Wait(state->mu);
    }
    char chunk[8192];
    while (!err && !parser.is_done()) {
      parser.get().body().data = chunk;
      parser.get().body().size = sizeof chunk;
      http::read_some(state->socket, buffer, parser, err);
      if (err == http::error::need_buffer) err = {};
      const std::size_t n = sizeof chunk - parser.get().body().size;
      if (n == 0) continue;
      MutexLock lock(state->mu);
      state->partial.append(chunk, n);
      std::size_t pos;
      while ((pos = state->partial.find('\n')) != std::string::npos) {
        state->lines.push_back(state->partial.substr(0, pos));
        state->partial.erase(0, pos + 1);
      }
      state->cv.SignalAll();
    }
    MutexLock lock(state->mu);
    if (!state->partial.empty()) state->lines.push_back(std::move(state->partial));
    state->ended = true;
    state->cv.SignalAll();
  });
}

StreamReader::~StreamReader() {
  Close();
  Resume();
  if (reader_.joinable()) reader_.join();
}

void StreamReader::Resume() {
  MutexLock lock(state_->mu);
  state_->paused = false;
  state_->cv.SignalAll();
}

void StreamReader::Close() {
  // The raw syscall: the reader thread is inside a blocking read on the same socket object.
  ::shutdown(state_->native, SHUT_RDWR);
}

int StreamReader::Status(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  MutexLock lock(state_->mu);
  while (!state_->headers_done) {
    if (state_->cv.WaitUntil(state_->mu, deadline)) break;
  }
  return state_->status;
}

std::optional<std::string> StreamReader::NextLine(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  MutexLock lock(state_->mu);
  while (state_->lines.empty() && !state_->ended) {
    if (state_->cv.WaitUntil(state_->mu, deadline)) break;
  }
  if (state_->lines.empty()) return std::nullopt;
  std::string line = std::move(state_->lines.front());
  state_->lines.pop_front();
  return line;
}

boost::json::value StreamReader::NextEvent(std::chrono::milliseconds timeout) {
  auto line = NextLine(timeout);
  if (!line) return nullptr;
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(*line, ec);
  if (ec) return boost::json::string("unparseable line: " + *line);
  return v;
}

bool StreamReader::Ended(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  MutexLock lock(state_->mu);
  while (!state_->ended) {
    if (state_->cv.WaitUntil(state_->mu, deadline)) break;
  }
  return state_->ended && state_->lines.empty();
}

}  // namespace kube::apiserver::testing
