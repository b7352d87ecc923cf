#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <boost/json/value.hpp>

#include <kube/base/mutex.hpp>

/// A small blocking HTTP/1.1 client for the integration tests of the embedded API server (plain
/// HTTP on loopback). One connection per request keeps the tests independent of keep-alive.
namespace kube::apiserver::testing {

/// A complete response.
struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  ///< lower-case names
  std::string body;

  /// The body parsed as JSON (null when it does not parse).
  boost::json::value Json() const;
  /// The header `name` (lower-case), or "".
  std::string Header(const std::string& name) const;
};

/// Extra request headers.
using Headers = std::vector<std::pair<std::string, std::string>>;

/// Sends requests to 127.0.0.1:<port>. **Thread-safety:** each call is independent.
class HttpClient {
 public:
  explicit HttpClient(uint16_t port) : port_(port) {}

  /// Sends one request and reads the whole response (a 30 s safety timeout applies).
  HttpResponse Request(std::string_view method, std::string_view target, std::string_view body = {},
                       const Headers& headers = {}) const;
  HttpResponse Get(std::string_view target, const Headers& headers = {}) const {
    return Request("GET", target, {}, headers);
  }
  HttpResponse Post(std::string_view target, std::string_view body, const Headers& headers = {}) const {
    return Request("POST", target, body, WithJson(headers));
  }
  HttpResponse Put(std::string_view target, std::string_view body, const Headers& headers = {}) const {
    return Request("PUT", target, body, WithJson(headers));
  }
  HttpResponse Patch(std::string_view target, std::string_view body, std::string_view content_type) const {
    return Request("PATCH", target, body, {{"Content-Type", std::string(content_type)}});
  }
  HttpResponse Delete(std::string_view target, std::string_view body = {}) const {
    return Request("DELETE", target, body, WithJson({}));
  }

 private:
  static Headers WithJson(Headers h) {
    h.emplace_back("Content-Type", "application/json");
    return h;
  }
  uint16_t port_;
};

/// A streaming response (a watch) read on a background thread and split into lines.
/// **Thread-safety:** used by the test thread; the reader thread is internal.
class StreamReader {
 public:
  /// Sends `GET target` and starts reading; with `paused` the body is not read until `Resume()`
  /// (a client that falls behind).
  StreamReader(uint16_t port, std::string target, Headers headers = {}, bool paused = false);
  /// Closes the connection and joins the reader.
  ~StreamReader();
  StreamReader(const StreamReader&) = delete;
  StreamReader& operator=(const StreamReader&) = delete;

  /// The response status, waiting for the headers (0 if they did not arrive in time).
  int Status(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// The next complete line (without '\n'), or nullopt when the stream ended or `timeout` passed.
  std::optional<std::string> NextLine(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// The next line parsed as JSON (null on end/timeout).
  boost::json::value NextEvent(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// True once the server ended the response and every line has been consumed.
  bool Ended(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// Starts reading the body of a paused reader.
  void Resume();
  /// Closes the connection now.
  void Close();

 private:
  struct State;
  std::shared_ptr<State> state_;
  std::jthread reader_;
};

}  // namespace kube::apiserver::testing
