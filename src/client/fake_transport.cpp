#include <kube/client/fake_transport.hpp>

#include <utility>

namespace kube::client {

void FakeStreamScript::Push(std::string chunk) {
  if (chunk.empty()) return;
  MutexLock lock(mu_);
  chunks_.push_back(std::move(chunk));
  cv_.SignalAll();
}

void FakeStreamScript::Close() {
  MutexLock lock(mu_);
  closed_ = true;
  cv_.SignalAll();
}

void FakeStreamScript::Fail(Error error) {
  MutexLock lock(mu_);
  error_ = std::move(error);
  cv_.SignalAll();
}

bool FakeStreamScript::Canceled() const {
  MutexLock lock(mu_);
  return canceled_;
}

bool FakeStreamScript::WaitDrained(std::chrono::milliseconds real_timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + real_timeout;
  MutexLock lock(mu_);
  while (!chunks_.empty()) {
    if (cv_.WaitUntil(mu_, deadline)) return chunks_.empty();
  }
  return true;
}

bool FakeStreamScript::WaitForBlockedReader(std::chrono::milliseconds real_timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + real_timeout;
  MutexLock lock(mu_);
  while (blocked_readers_ == 0) {
    if (cv_.WaitUntil(mu_, deadline)) return blocked_readers_ > 0;
  }
  return true;
}

/// Reads a FakeStreamScript: one pushed chunk per Read, exactly as pushed.
class FakeResponseStream final : public ResponseStream {
 public:
  FakeResponseStream(int status, Headers headers, std::shared_ptr<FakeStreamScript> script)
      : status_(status), headers_(std::move(headers)), script_(std::move(script)) {}
  ~FakeResponseStream() override { Cancel(); }

  int status() const override { return status_; }
  const Headers& headers() const override { return headers_; }

  Result<std::string_view> Read() override {
    FakeStreamScript& s = *script_;
    MutexLock lock(s.mu_);
    for (;;) {
      if (s.canceled_) return CanceledError("stream canceled");
      if (!s.chunks_.empty()) {
        current_ = std::move(s.chunks_.front());
        s.chunks_.pop_front();
        s.cv_.SignalAll();
        return std::string_view(current_);
      }
      if (s.error_) return *s.error_;
      if (s.closed_) return std::string_view();
      ++s.blocked_readers_;
      s.cv_.SignalAll();
      s.cv_.Wait(s.mu_);
      --s.blocked_readers_;
    }
  }

  void Cancel() override {
    MutexLock lock(script_->mu_);
    script_->canceled_ = true;
    script_->cv_.SignalAll();
  }

 private:
  const int status_;
  const Headers headers_;
  std::shared_ptr<FakeStreamScript> script_;
  std::string current_;
};

void FakeTransport::SetHandler(Handler handler) {
  MutexLock lock(mu_);
  handler_ = std::move(handler);
}

void FakeTransport::Enqueue(Result<HttpResponse> response) {
  MutexLock lock(mu_);
  Scripted s;
  s.response = std::move(response);
  queue_.push_back(std::move(s));
}

void FakeTransport::EnqueueJson(int status, std::string body, Headers extra_headers) {
  HttpResponse r;
  r.status = status;
  r.headers = std::move(extra_headers);
  r.headers.emplace_back("Content-Type", "application/json");
  r.body = std::move(body);
  Enqueue(std::move(r));
}

std::shared_ptr<FakeStreamScript> FakeTransport::EnqueueStream(int status, Headers headers) {
  auto script = std::make_shared<FakeStreamScript>();
  MutexLock lock(mu_);
  Scripted s;
  s.status = status;
  s.headers = std::move(headers);
  s.script = script;
  queue_.push_back(std::move(s));
  return script;
}

std::vector<HttpRequest> FakeTransport::Requests() const {
  MutexLock lock(mu_);
  return requests_;
}

std::size_t FakeTransport::RequestCount() const {
  MutexLock lock(mu_);
  return requests_.size();
}

void FakeTransport::ClearRequests() {
  MutexLock lock(mu_);
  requests_.clear();
}

std::optional<FakeTransport::Scripted> FakeTransport::Next(const HttpRequest& request) {
  Handler handler;
  {
    MutexLock lock(mu_);
    requests_.push_back(request);
    if (!queue_.empty()) {
      Scripted s = std::move(queue_.front());
      queue_.pop_front();
      return s;
    }
    handler = handler_;
  }
  Scripted s;
  if (handler) {
    s.response = handler(request);  // called without the lock: handlers may use the transport
  } else {
    HttpResponse r;
    r.status = 404;
    r.headers.emplace_back("Content-Type", "text/plain");
    r.body = "404 page not found";
    s.response = std::move(r);
  }
  return s;
}

Result<HttpResponse> FakeTransport::Do(const HttpRequest& request) {
  auto s = Next(request);
  if (s->response) return std::move(*s->response);
  FakeResponseStream stream(s->status, s->headers, s->script);
  HttpResponse r;
  r.status = s->status;
  r.headers = s->headers;
  for (;;) {
    auto chunk = stream.Read();
    if (!chunk) return std::move(chunk).error();
    if (chunk->empty()) break;
    r.body.append(*chunk);
  }
  return r;
}

Result<std::unique_ptr<ResponseStream>> FakeTransport::Open(const HttpRequest& request) {
  auto s = Next(request);
  if (s->response) {
    if (!s->response->ok()) return s->response->error();
    HttpResponse& r = s->response->value();
    auto script = std::make_shared<FakeStreamScript>();
    script->Push(std::move(r.body));
    script->Close();
    return std::unique_ptr<ResponseStream>(
        std::make_unique<FakeResponseStream>(r.status, std::move(r.headers), std::move(script)));
  }
  return std::unique_ptr<ResponseStream>(
      std::make_unique<FakeResponseStream>(s->status, std::move(s->headers), std::move(s->script)));
}

}  // namespace kube::client
