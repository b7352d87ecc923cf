#include <kube/client/rest_client.hpp>

#include <charconv>
#include <string>
#include <utility>

#include <kube/base/log.hpp>
#include <kube/client/http_transport.hpp>
#include <kube/client/watch.hpp>
#include <kube/core/status.hpp>

#include "client/internal/util.hpp"

namespace kube::client {
namespace {

constexpr std::size_t kMaxErrorBodyBytes = std::size_t{1} << 20;

bool KeptInPath(unsigned char c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '-': case '.': case '_': case '~':                       // unreserved
    case '!': case '$': case '&': case '\'': case '(': case ')':  // sub-delims
    case '*': case '+': case ',': case ';': case '=':
    case ':': case '@': case '/':
      return true;
    default:
      return false;
  }
}

/// client-go's `IsValidPathSegmentName`.
std::optional<std::string> InvalidSegment(std::string_view s) {
  if (s == "." || s == "..") return "may not be '" + std::string(s) + "'";
  if (s.find('/') != std::string_view::npos) return std::string("may not contain '/'");
  if (s.find('%') != std::string_view::npos) return std::string("may not contain '%'");
  return std::nullopt;
}

/// "Get", "Post", ... as Go prints methods in url.Error.
std::string GoMethod(std::string_view m) {
  std::string out = internal::ToLower(m);
  if (!out.empty()) out[0] = static_cast<char>(out[0] - 'a' + 'A');
  return out;
}

std::optional<int> RetryAfterSeconds(const Headers& headers) {
  const auto v = FindHeader(headers, "Retry-After");
  if (!v) return std::nullopt;
  const std::string_view s = internal::TrimSpace(*v);
  int n = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || p != s.data() + s.size() || n < 0) return std::nullopt;
  return n;
}

struct ParsedHost {
  std::string server;     // scheme://authority
  std::string base_path;  // "" or "/prefix"
};

Result<ParsedHost> ParseHost(const std::string& host) {
  const auto scheme_end = host.find("://");
  if (scheme_end == std::string::npos) return BadRequest("host " + internal::Quote(host) + ": missing scheme");
  const std::string scheme = internal::ToLower(host.substr(0, scheme_end));
  if (scheme != "https" && scheme != "http") {
    return BadRequest("host " + internal::Quote(host) + ": unsupported scheme " + internal::Quote(scheme));
  }
  const std::string rest = host.substr(scheme_end + 3);
  const auto slash = rest.find('/');
  ParsedHost out;
  out.server = scheme + "://" + rest.substr(0, slash);
  if (slash != std::string::npos) out.base_path = rest.substr(slash);
  while (!out.base_path.empty() && out.base_path.back() == '/') out.base_path.pop_back();
  if (rest.substr(0, slash).empty()) return BadRequest("host " + internal::Quote(host) + ": missing host");
  return out;
}

}  // namespace

std::string EscapePath(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (KeptInPath(c)) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

Result<std::string> ResourcePath(const GroupVersionResource& gvr, std::string_view ns, std::string_view name,
                                 std::string_view subresource) {
  if (gvr.version.empty()) return BadRequest("resource path: version is required");
  if (gvr.resource.empty()) return BadRequest("resource path: resource is required");
  if (!subresource.empty() && name.empty()) return BadRequest("resource path: a subresource needs a name");
  for (const auto& [what, value] : {std::pair<std::string_view, std::string_view>{"resource", gvr.resource},
                                    {"namespace", ns},
                                    {"name", name},
                                    {"subresource", subresource}}) {
    if (value.empty()) continue;
    if (auto why = InvalidSegment(value)) {
      return BadRequest("invalid " + std::string(what) + " " + internal::Quote(value) + ": " + *why);
    }
  }
  std::string path;
  if (gvr.group.empty()) {
    path = "/api/" + gvr.version;
  } else {
    path = "/apis/" + gvr.group + "/" + gvr.version;
  }
  if (!ns.empty()) path += "/namespaces/" + EscapePath(ns);
  path += "/" + EscapePath(gvr.resource);
  if (!name.empty()) path += "/" + EscapePath(name);
  if (!subresource.empty()) path += "/" + EscapePath(subresource);
  return path;
}

struct RestClient::Outcome {
  HttpResponse response;                    // status and headers always; body for Do
  std::unique_ptr<ResponseStream> stream;   // Watch: the open 2xx stream
};

RestClient::RestClient(PrivateTag, Config config, std::string base_path, Clock& clock,
                       std::shared_ptr<Transport> transport, std::shared_ptr<Authenticator> authenticator)
    : config_(std::move(config)),
      base_path_(std::move(base_path)),
      clock_(clock),
      transport_(std::move(transport)),
      authenticator_(std::move(authenticator)) {
  const double qps = config_.qps == 0.0 ? 5.0 : config_.qps;
  const int burst = config_.burst <= 0 ? 10 : config_.burst;
  if (qps > 0) limiter_ = std::make_unique<TokenBucketRateLimiter>(qps, burst, clock_);
}

Result<std::shared_ptr<RestClient>> RestClient::Create(const Config& config, RestClientOptions options) {
  auto host = ParseHost(config.host);
  if (!host) return std::move(host).error();
  Clock& clock = options.clock != nullptr ? *options.clock : RealClock::Instance();
  std::shared_ptr<Authenticator> auth = options.authenticator;
  if (!auth) {
    auto made = NewAuthenticator(config, clock);
    if (!made) return std::move(made).error();
    auth = std::move(made).value();
  }
  std::shared_ptr<Transport> transport = options.transport;
  if (!transport) {
    HttpTransportOptions t;
    t.server = host->server;
    t.tls.ca_pem = config.ca_pem;
    t.tls.client_cert_pem = config.client_cert_pem;
    t.tls.client_key_pem = config.client_key_pem;
    t.tls.server_name = config.tls_server_name;
    t.tls.insecure_skip_verify = config.insecure_skip_tls_verify;
    t.proxy_url = config.proxy_url;
    if (config.exec && auth) {
      t.client_certificate = [auth]() { return auth->ClientCert(); };
    }
    auto made = NewHttpTransport(std::move(t));
    if (!made) return std::move(made).error();
    transport = std::move(made).value();
  }
  auto client = std::make_shared<RestClient>(PrivateTag{}, config, host->base_path, clock, std::move(transport),
                                             std::move(auth));
  client->metrics_ = std::move(options.metrics);
  client->metrics_host_ = host->server.substr(host->server.find("://") + 3);
  return client;
}

RestClientStats RestClient::Stats() const {
  return {requests_.load(), retries_.load(), auth_refreshes_.load()};
}

Result<HttpRequest> RestClient::Build(const Request& request, std::string& used_auth) {
  HttpRequest http;
  http.method = request.method;
  http.target = base_path_ + request.path;
  if (!request.query.empty()) http.target += "?" + request.query;
  http.body = request.body;
  http.timeout = request.timeout != Clock::Duration::zero() ? request.timeout : config_.timeout;
  http.headers.emplace_back("User-Agent", config_.user_agent.empty() ? DefaultUserAgent() : config_.user_agent);
  http.headers.emplace_back("Accept", request.accept.empty() ? std::string("application/json") : request.accept);
  if (!request.body.empty() || request.method == "POST" || request.method == "PUT" || request.method == "PATCH") {
    http.headers.emplace_back("Content-Type",
                              request.content_type.empty() ? std::string("application/json") : request.content_type);
  }
  if (authenticator_) {
    auto header = authenticator_->Authorization();
    if (!header) return std::move(header).error();
    used_auth = std::move(header).value();
    if (!used_auth.empty()) http.headers.emplace_back("Authorization", used_auth);
  }
  if (!config_.impersonate_user.empty()) {
    http.headers.emplace_back("Impersonate-User", config_.impersonate_user);
    if (!config_.impersonate_uid.empty()) http.headers.emplace_back("Impersonate-Uid", config_.impersonate_uid);
    for (const auto& g : config_.impersonate_groups) http.headers.emplace_back("Impersonate-Group", g);
    for (const auto& [k, values] : config_.impersonate_extra) {
      for (const auto& v : values) http.headers.emplace_back("Impersonate-Extra-" + EscapePath(k), v);
    }
  }
  return http;
}

Result<RestClient::Outcome> RestClient::Execute(const Request& request, std::stop_token stop, bool streaming,
                                                BodyConsumer* consumer) {
  int retries = 0;
  bool auth_retried = false;
  for (;;) {
    if (limiter_) KUBE_RETURN_IF_ERROR(limiter_->Wait(stop));
    std::string used_auth;
    auto http = Build(request, used_auth);
    if (!http) return std::move(http).error();
    requests_.fetch_add(1);

    Outcome out;
    Result<void> sent = Ok();
    const Clock::TimePoint attempt_start = clock_.Now();
    if (streaming) {
      http->finite_body = consumer != nullptr;
      auto opened = transport_->Open(*http);
      if (!opened) {
        sent = std::move(opened).error();
      } else {
        out.stream = std::move(opened).value();
        out.response.status = out.stream->status();
        out.response.headers = out.stream->headers();
        if (out.response.status < 200 || out.response.status >= 300) {
          // An error answer to a watch: read its (small) body for the Status, then drop the stream.
          for (;;) {
            auto chunk = out.stream->Read();
            if (!chunk || chunk->empty() || out.response.body.size() > kMaxErrorBodyBytes) break;
            out.response.body.append(*chunk);
          }
          out.stream.reset();
        } else if (consumer != nullptr) {
          KUBE_RETURN_IF_ERROR(consumer->Begin(out.response));
          for (;;) {
            auto chunk = out.stream->Read();
            if (!chunk) {
              sent = std::move(chunk).error();
              break;
            }
            if (chunk->empty()) break;
            KUBE_RETURN_IF_ERROR(consumer->Append(*chunk));
          }
          out.stream.reset();
        }
      }
    } else {
      auto done = transport_->Do(*http);
      if (!done) {
        sent = std::move(done).error();
      } else {
        out.response = std::move(done).value();
      }
    }

    if (metrics_) {
      const std::string code = sent.ok() ? std::to_string(out.response.status) : std::string(kRequestErrorCode);
      metrics_->Observe(RequestSample{.verb = http->method,
                                      .host = metrics_host_,
                                      .code = code,
                                      .latency = clock_.Now() - attempt_start});
    }
    if (!sent.ok()) {
      Error err = std::move(sent).error();
      if (request.method == "GET" && IsConnectionReset(err) && retries < config_.max_retries) {
        // client-go treats a reset GET like a Retry-After: 1 answer.
        ++retries;
        retries_.fetch_add(1);
        log::Debug("retrying GET after a connection reset", {{"path", request.path}, {"attempt", retries}});
        if (!clock_.SleepFor(std::chrono::seconds(1), stop)) return CanceledError("retry wait: stop requested");
        continue;
      }
      std::string url = config_.host;
      while (!url.empty() && url.back() == '/') url.pop_back();
      url += request.path;
      if (!request.query.empty()) url += "?" + request.query;
      std::string prefix = GoMethod(request.method) + " " + internal::Quote(url) + ": ";
      err.message = prefix + err.message;
      return err;
    }

    const int status = out.response.status;
    if (status == 401 && authenticator_ && !auth_retried) {
      auto refreshed = authenticator_->Refresh(used_auth);
      if (!refreshed) {
        log::Warn("refreshing credentials after 401 failed", {{"error", refreshed.error().message}});
      } else if (*refreshed) {
        auth_retried = true;
        auth_refreshes_.fetch_add(1);
        continue;
      }
    }
    const auto retry_after = RetryAfterSeconds(out.response.headers);
    if ((status == 429 || status >= 500) && retry_after && retries < config_.max_retries) {
      ++retries;
      retries_.fetch_add(1);
      log::Debug("retrying after Retry-After",
                 {{"path", request.path}, {"status", status}, {"seconds", *retry_after}, {"attempt", retries}});
      if (!clock_.SleepFor(std::chrono::seconds(*retry_after), stop)) {
        return CanceledError("Retry-After wait: stop requested");
      }
      continue;
    }
    if (status >= 200 && status < 300) return out;

    ResponseInfo info;
    info.verb = request.method;
    info.resource = request.resource;
    info.name = request.name;
    const auto content_type = FindHeader(out.response.headers, "Content-Type");
    info.content_type = content_type.value_or(std::string_view());
    info.retry_after_seconds = retry_after.value_or(0);
    return ErrorFromResponse(status, out.response.body, info);
  }
}

Result<HttpResponse> RestClient::Do(const Request& request, std::stop_token stop) {
  auto out = Execute(request, std::move(stop), false, nullptr);
  if (!out) return std::move(out).error();
  return std::move(out->response);
}

Result<HttpResponse> RestClient::Do(const Request& request, BodyConsumer& body, std::stop_token stop) {
  auto out = Execute(request, std::move(stop), true, &body);
  if (!out) return std::move(out).error();
  return std::move(out->response);
}

Result<std::unique_ptr<WatchStream>> RestClient::Watch(const Request& request, std::stop_token stop) {
  auto out = Execute(request, std::move(stop), true, nullptr);
  if (!out) return std::move(out).error();
  return std::make_unique<WatchStream>(std::move(out->stream),
                                       [refused = protobuf_refused_] { refused->store(true, std::memory_order_relaxed); });
}

}  // namespace kube::client
