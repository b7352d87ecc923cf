#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <kube/base/mutex.hpp>
#include <kube/client/transport.hpp>

namespace kube::client {

/// A scripted body for `FakeTransport::Open`: the test pushes chunks (from any thread) and the
/// client reads them exactly as they were pushed, which is how chunk boundaries are tested.
/// **Thread-safety:** all members may be called concurrently.
class FakeStreamScript final {
 public:
  /// Appends one chunk of body bytes (an empty chunk is ignored).
  void Push(std::string chunk);
  /// Ends the body cleanly after the pushed chunks.
  void Close();
  /// Ends the body with `error` after the pushed chunks (a reset, a truncated chunk).
  void Fail(Error error);
  /// True once the reader has cancelled the stream.
  bool Canceled() const;
  /// Blocks (real time, on a condition variable) until the reader has consumed every pushed
  /// chunk or `real_timeout` passes; returns whether it did.
  bool WaitDrained(std::chrono::milliseconds real_timeout = std::chrono::seconds(10)) const;
  /// Blocks (real time, on a condition variable) until a reader is blocked waiting for bytes, or
  /// `real_timeout` passes; returns whether one is. Lets tests stop a watch that is really blocked.
  bool WaitForBlockedReader(std::chrono::milliseconds real_timeout = std::chrono::seconds(10)) const;

 private:
  friend class FakeResponseStream;
  mutable Mutex mu_;
  mutable CondVar cv_;
  std::deque<std::string> chunks_ KUBE_GUARDED_BY(mu_);
  bool closed_ KUBE_GUARDED_BY(mu_) = false;
  std::optional<Error> error_ KUBE_GUARDED_BY(mu_);
  bool canceled_ KUBE_GUARDED_BY(mu_) = false;
  int blocked_readers_ KUBE_GUARDED_BY(mu_) = 0;
};

/// A `Transport` for unit tests: records every request and answers from a FIFO of scripted
/// responses, falling back to a handler function, falling back to 404.
/// **Thread-safety:** all members may be called concurrently.
class FakeTransport final : public Transport {
 public:
  /// Computes a response from the request (used when no scripted response is queued).
  using Handler = std::function<Result<HttpResponse>(const HttpRequest&)>;

  /// Sets the fallback handler.
  void SetHandler(Handler handler);
  /// Queues the answer to the next `Do` or `Open` (FIFO). A queued error is returned as is.
  void Enqueue(Result<HttpResponse> response);
  /// Queues `status`, a JSON body and `Content-Type: application/json`.
  void EnqueueJson(int status, std::string body, Headers extra_headers = {});
  /// Queues a streaming answer for the next `Open` (or `Do`, which reads it to the end): the
  /// status and headers are returned at once, the body comes from the returned script.
  std::shared_ptr<FakeStreamScript> EnqueueStream(int status, Headers headers = {});

  /// Every request received so far, in order.
  std::vector<HttpRequest> Requests() const;
  /// The number of requests received so far.
  std::size_t RequestCount() const;
  /// Forgets recorded requests.
  void ClearRequests();

  Result<HttpResponse> Do(const HttpRequest& request) override;
  Result<std::unique_ptr<ResponseStream>> Open(const HttpRequest& request) override;

 private:
  struct Scripted {
    std::optional<Result<HttpResponse>> response;  // set for Enqueue
    int status = 0;                                 // for a stream
    Headers headers;
    std::shared_ptr<FakeStreamScript> script;
  };
  std::optional<Scripted> Next(const HttpRequest& request) KUBE_EXCLUDES(mu_);

  mutable Mutex mu_;
  std::deque<Scripted> queue_ KUBE_GUARDED_BY(mu_);
  Handler handler_ KUBE_GUARDED_BY(mu_);
  std::vector<HttpRequest> requests_ KUBE_GUARDED_BY(mu_);
};

}  // namespace kube::client
