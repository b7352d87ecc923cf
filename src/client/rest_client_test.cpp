#include <kube/client/fake_transport.hpp>
#include <kube/client/rate_limiter.hpp>
#include <kube/client/rest_client.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <kube/core/status.hpp>

namespace kube::client {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

// ---- URL building ----

struct PathCase {
  GroupVersionResource gvr;
  std::string ns, name, sub;
  std::string want;
};

TEST(ResourcePath, BuildsEveryShapeOfPath) {
  const PathCase cases[] = {
      {{"", "v1", "pods"}, "", "", "", "/api/v1/pods"},
      {{"", "v1", "pods"}, "default", "", "", "/api/v1/namespaces/default/pods"},
      {{"", "v1", "pods"}, "default", "web-0", "", "/api/v1/namespaces/default/pods/web-0"},
      {{"", "v1", "pods"}, "default", "web-0", "status", "/api/v1/namespaces/default/pods/web-0/status"},
      {{"", "v1", "namespaces"}, "", "kube-system", "", "/api/v1/namespaces/kube-system"},
      {{"", "v1", "namespaces"}, "", "ns1", "finalize", "/api/v1/namespaces/ns1/finalize"},
      {{"apps", "v1", "deployments"}, "", "", "", "/apis/apps/v1/deployments"},
      {{"apps", "v1", "deployments"}, "prod", "web", "scale", "/apis/apps/v1/namespaces/prod/deployments/web/scale"},
      {{"rbac.authorization.k8s.io", "v1", "clusterroles"}, "", "system:controller:job", "",
       "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:controller:job"},
      {{"example.com", "v1alpha1", "widgets"}, "a", "with space", "", "/apis/example.com/v1alpha1/namespaces/a/widgets/with%20space"},
      {{"example.com", "v1", "widgets"}, "", "q?#[]é", "", "/apis/example.com/v1/widgets/q%3F%23%5B%5D%C3%A9"},
  };
  for (const auto& c : cases) {
    auto p = ResourcePath(c.gvr, c.ns, c.name, c.sub);
    ASSERT_TRUE(p.ok()) << c.want << ": " << p.error().message;
    EXPECT_EQ(*p, c.want);
  }
}

TEST(ResourcePath, RejectsNamesThatAreNotPathSegments) {
  const GroupVersionResource cm{"", "v1", "configmaps"};
  for (const std::string bad : {".", "..", "a/b", "50%"}) {
    auto p = ResourcePath(cm, "default", bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_TRUE(IsBadRequest(p.error()));
    EXPECT_THAT(p.error().message, HasSubstr("invalid name"));
  }
  EXPECT_FALSE(ResourcePath(cm, "a/b").ok());
  EXPECT_FALSE(ResourcePath({"", "", "pods"}).ok());
  EXPECT_FALSE(ResourcePath({"", "v1", ""}).ok());
  EXPECT_FALSE(ResourcePath(cm, "default", "", "status").ok());
}

// ---- Rate limiter ----

TEST(TokenBucketRateLimiter, AllowsBurstThenRefillsAtQps) {
  FakeClock clock;
  TokenBucketRateLimiter limiter(5, 10, clock);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(limiter.TryAccept()) << i;
  EXPECT_FALSE(limiter.TryAccept());
  EXPECT_EQ(limiter.Delay(), 200ms);
  clock.Advance(199ms);
  EXPECT_FALSE(limiter.TryAccept());
  clock.Advance(1ms);
  EXPECT_TRUE(limiter.TryAccept());
  clock.Advance(1h);  // refills to burst, never beyond
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(limiter.TryAccept());
  EXPECT_FALSE(limiter.TryAccept());
}

TEST(TokenBucketRateLimiter, WaitSleepsOnTheClockInArrivalOrder) {
  FakeClock clock;
  TokenBucketRateLimiter limiter(2, 1, clock);
  ASSERT_TRUE(limiter.Wait().ok());  // the burst token
  std::atomic<int> done{0};
  std::jthread first([&] {
    EXPECT_TRUE(limiter.Wait().ok());
    done.fetch_add(1);
  });
  ASSERT_TRUE(clock.BlockUntilWaiters(1));
  std::jthread second([&] {
    EXPECT_TRUE(limiter.Wait().ok());
    done.fetch_add(1);
  });
  ASSERT_TRUE(clock.BlockUntilWaiters(2));
  clock.Advance(499ms);
  EXPECT_EQ(done.load(), 0);
  clock.Advance(1ms);  // 500 ms: the first reservation matures
  first.join();
  EXPECT_EQ(done.load(), 1);
  clock.Advance(500ms);
  second.join();
  EXPECT_EQ(done.load(), 2);
}

TEST(TokenBucketRateLimiter, CancelledWaitReturnsItsReservation) {
  FakeClock clock;
  TokenBucketRateLimiter limiter(1, 1, clock);
  ASSERT_TRUE(limiter.TryAccept());
  std::stop_source stop;
  Result<void> result = Ok();
  std::jthread waiter([&] { result = limiter.Wait(stop.get_token()); });
  ASSERT_TRUE(clock.BlockUntilWaiters(1));
  stop.request_stop();
  waiter.join();
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(IsCanceled(result.error()));
  EXPECT_EQ(limiter.Delay(), 1s);  // not 2 s: the cancelled reservation was given back
}

// ---- RestClient ----

class RestClientTest : public ::testing::Test {
 protected:
  std::shared_ptr<RestClient> Client(Config config = {}) {
    if (config.host.empty()) config.host = "https://api.example:6443";
    auto c = RestClient::Create(config, {.clock = &clock_, .transport = transport_,
                                         .authenticator = StaticTokenAuthenticator("secret")});
    EXPECT_TRUE(c.ok()) << c.error().message;
    return c.ok() ? *c : nullptr;
  }
  static std::string StatusBody(int code, std::string_view reason, std::string_view message) {
    return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":")" +
           std::string(message) + R"(","reason":")" + std::string(reason) + R"(","code":)" + std::to_string(code) + "}";
  }
  FakeClock clock_;
  std::shared_ptr<FakeTransport> transport_ = std::make_shared<FakeTransport>();
};

TEST_F(RestClientTest, SendsStandardHeadersAndPrefixesTheServerPath) {
  Config c;
  c.host = "https://rancher.example/k8s/clusters/c-1/";
  c.impersonate_user = "bob";
  c.impersonate_groups = {"a", "b"};
  auto rest = Client(c);
  transport_->EnqueueJson(200, "{}");
  ASSERT_TRUE(rest->Do({.method = "POST", .path = "/api/v1/namespaces/x/configmaps", .query = "fieldManager=m",
                        .body = "{}"})
                  .ok());
  const HttpRequest r = transport_->Requests().at(0);
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.target, "/k8s/clusters/c-1/api/v1/namespaces/x/configmaps?fieldManager=m");
  EXPECT_EQ(FindHeader(r.headers, "user-agent").value_or(""), DefaultUserAgent());
  EXPECT_EQ(FindHeader(r.headers, "Accept").value_or(""), "application/json");
  EXPECT_EQ(FindHeader(r.headers, "Content-Type").value_or(""), "application/json");
  EXPECT_EQ(FindHeader(r.headers, "Authorization").value_or(""), "Bearer secret");
  EXPECT_EQ(FindHeader(r.headers, "Impersonate-User").value_or(""), "bob");
  int groups = 0;
  for (const auto& [k, v] : r.headers) groups += k == "Impersonate-Group";
  EXPECT_EQ(groups, 2);
}

TEST_F(RestClientTest, DecodesStatusBodiesIntoClassifiedErrors) {
  auto rest = Client();
  transport_->EnqueueJson(404, StatusBody(404, "NotFound", "configmaps \\\"cfg\\\" not found"));
  auto nf = rest->Do({.path = "/api/v1/namespaces/d/configmaps/cfg", .resource = {"", "configmaps"}, .name = "cfg"});
  ASSERT_FALSE(nf.ok());
  EXPECT_TRUE(IsNotFound(nf.error()));
  EXPECT_EQ(nf.error().code, 404);
  EXPECT_EQ(nf.error().message, "configmaps \"cfg\" not found");

  transport_->EnqueueJson(409, StatusBody(409, "Conflict", "the object has been modified"));
  auto conflict = rest->Do({.method = "PUT", .path = "/x", .body = "{}"});
  ASSERT_FALSE(conflict.ok());
  EXPECT_TRUE(IsConflict(conflict.error()));

  transport_->EnqueueJson(410, StatusBody(410, "Expired", "too old resource version: 5 (10)"));
  auto gone = rest->Do({.path = "/x"});
  ASSERT_FALSE(gone.ok());
  EXPECT_TRUE(IsExpired(gone.error()));

  // Not a Status: client-go's generic server response, by code (409 on POST = AlreadyExists).
  transport_->Enqueue(HttpResponse{409, {{"Content-Type", "text/plain"}}, "exists"});
  auto exists = rest->Do({.method = "POST", .path = "/x", .body = "{}", .resource = {"", "configmaps"}, .name = "a"});
  ASSERT_FALSE(exists.ok());
  EXPECT_TRUE(IsAlreadyExists(exists.error()));

  transport_->Enqueue(HttpResponse{500, {{"Content-Type", "text/plain"}}, "boom"});
  auto internal = rest->Do({.path = "/x"});
  ASSERT_FALSE(internal.ok());
  EXPECT_TRUE(IsInternalError(internal.error()));
  EXPECT_THAT(internal.error().message, HasSubstr("boom"));

  transport_->Enqueue(HttpResponse{403, {{"Content-Type", "application/json"}},
                                   StatusBody(403, "Forbidden", "pods is forbidden: no")});
  auto forbidden = rest->Do({.path = "/x"});
  ASSERT_FALSE(forbidden.ok());
  EXPECT_TRUE(IsForbidden(forbidden.error()));
}

TEST_F(RestClientTest, TransportErrorsNameMethodAndUrl) {
  auto rest = Client();
  transport_->Enqueue(MakeTransportError(transport_cause::kConnectFailed, "dial tcp 10.0.0.1:6443: connection refused"));
  auto r = rest->Do({.method = "POST", .path = "/api/v1/pods", .body = "{}"});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsTransport(r.error()));
  EXPECT_EQ(r.error().message, "Post \"https://api.example:6443/api/v1/pods\": dial tcp 10.0.0.1:6443: connection refused");
}

TEST_F(RestClientTest, RetriesTooManyRequestsAfterRetryAfterOnTheClock) {
  auto rest = Client();
  transport_->Enqueue(HttpResponse{429, {{"Content-Type", "application/json"}, {"Retry-After", "2"}},
                                   StatusBody(429, "TooManyRequests", "slow down")});
  transport_->EnqueueJson(200, R"({"ok":true})");
  Result<HttpResponse> result = MakeError(0, "", "unset");
  std::jthread caller([&] { result = rest->Do({.path = "/api/v1/pods"}); });
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  EXPECT_EQ(transport_->RequestCount(), 1u);
  clock_.Advance(1999ms);
  EXPECT_EQ(transport_->RequestCount(), 1u);
  clock_.Advance(1ms);
  caller.join();
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->body, R"({"ok":true})");
  EXPECT_EQ(rest->Stats().retries, 1u);
}

TEST_F(RestClientTest, RetryAfterIsBoundedByMaxRetries) {
  Config c;
  c.max_retries = 2;
  auto rest = Client(c);
  transport_->SetHandler([](const HttpRequest&) -> Result<HttpResponse> {
    return HttpResponse{503, {{"Content-Type", "text/plain"}, {"Retry-After", "0"}}, "busy"};
  });
  auto r = rest->Do({.path = "/x"});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsServiceUnavailable(r.error()));
  EXPECT_EQ(transport_->RequestCount(), 3u);  // the first attempt and two retries
  ASSERT_TRUE(r.error().details.has_value());
  EXPECT_EQ(SuggestsRetryAfter(r.error()).value_or(-1), -1);  // Retry-After 0 is "no hint"
}

TEST_F(RestClientTest, ErrorsWithoutRetryAfterAreNotRetried) {
  auto rest = Client();
  transport_->Enqueue(HttpResponse{500, {{"Content-Type", "text/plain"}}, "x"});
  ASSERT_FALSE(rest->Do({.path = "/x"}).ok());
  transport_->Enqueue(HttpResponse{429, {{"Content-Type", "text/plain"}, {"Retry-After", "soon"}}, "x"});
  auto r = rest->Do({.path = "/x"});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsTooManyRequests(r.error()));
  EXPECT_EQ(transport_->RequestCount(), 2u);
}

TEST_F(RestClientTest, RetryAfterWaitIsCancelledByTheStopToken) {
  auto rest = Client();
  transport_->Enqueue(HttpResponse{429, {{"Retry-After", "60"}}, ""});
  std::stop_source stop;
  Result<HttpResponse> result = MakeError(0, "", "unset");
  std::jthread caller([&] { result = rest->Do({.path = "/x"}, stop.get_token()); });
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  stop.request_stop();
  caller.join();
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(IsCanceled(result.error()));
}

TEST_F(RestClientTest, GetsAreRetriedAfterAConnectionResetButWritesAreNot) {
  auto rest = Client();
  transport_->Enqueue(MakeTransportError(transport_cause::kConnectionReset, "connection reset by peer"));
  transport_->EnqueueJson(200, "{}");
  Result<HttpResponse> got = MakeError(0, "", "unset");
  std::jthread caller([&] { got = rest->Do({.path = "/x"}); });
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  clock_.Advance(1s);
  caller.join();
  ASSERT_TRUE(got.ok()) << got.error().message;

  transport_->Enqueue(MakeTransportError(transport_cause::kConnectionReset, "connection reset by peer"));
  auto post = rest->Do({.method = "POST", .path = "/x", .body = "{}"});
  ASSERT_FALSE(post.ok());
  EXPECT_TRUE(IsConnectionReset(post.error()));
}

// Records what a BodyConsumer is handed.
class RecordingConsumer final : public BodyConsumer {
 public:
  Result<void> Begin(const HttpResponse& head) override {
    ++begun;
    status = head.status;
    body.clear();
    return Ok();
  }
  Result<void> Append(std::string_view bytes) override {
    pieces.emplace_back(bytes);
    body.append(bytes);
    if (fail_after && pieces.size() >= *fail_after) return BadRequest("consumer refuses");
    return Ok();
  }
  int begun = 0;
  int status = 0;
  std::string body;
  std::vector<std::string> pieces;
  std::optional<std::size_t> fail_after;
};

TEST_F(RestClientTest, AConsumerIsHandedTheBodyAsItArrives) {
  auto rest = Client();
  auto script = transport_->EnqueueStream(200, {{"Content-Type", "application/json"}});
  script->Push(R"({"items":[)");
  script->Push(R"(1,2]})");
  script->Close();
  RecordingConsumer body;
  auto got = rest->Do({.path = "/api/v1/pods"}, body);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(got->status, 200);
  EXPECT_EQ(FindHeader(got->headers, "Content-Type").value_or(""), "application/json");
  EXPECT_TRUE(got->body.empty());
  EXPECT_EQ(body.begun, 1);
  EXPECT_EQ(body.pieces, (std::vector<std::string>{R"({"items":[)", R"(1,2]})"}));
  // The request was a finite body, so its timeout covers the body.
  EXPECT_TRUE(transport_->Requests().back().finite_body);
}

TEST_F(RestClientTest, AGetResetWhileItsBodyArrivesIsRetriedAndTheConsumerStartsOver) {
  auto rest = Client();
  auto broken = transport_->EnqueueStream(200);
  broken->Push("partial");
  broken->Fail(MakeTransportError(transport_cause::kConnectionReset, "connection reset by peer"));
  auto whole = transport_->EnqueueStream(200);
  whole->Push("whole");
  whole->Close();
  RecordingConsumer body;
  Result<HttpResponse> got = MakeError(0, "", "unset");
  std::jthread caller([&] { got = rest->Do({.path = "/x"}, body); });
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));  // the retry's 1 s wait
  clock_.Advance(1s);
  caller.join();
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(body.begun, 2);
  EXPECT_EQ(body.body, "whole");
  EXPECT_EQ(rest->Stats().retries, 1u);
}

TEST_F(RestClientTest, AConsumerErrorEndsTheRequestAndErrorStatusesNeverReachIt) {
  auto rest = Client();
  auto script = transport_->EnqueueStream(200);
  script->Push("a");
  script->Push("b");
  script->Close();
  RecordingConsumer refusing;
  refusing.fail_after = 1;
  auto refused = rest->Do({.path = "/x"}, refusing);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, "consumer refuses");

  transport_->EnqueueJson(404, StatusBody(404, "NotFound", "pod a not found"));
  RecordingConsumer body;
  auto missing = rest->Do({.path = "/api/v1/namespaces/n/pods/a"}, body);
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(IsNotFound(missing.error()));
  EXPECT_EQ(missing.error().message, "pod a not found");
  EXPECT_EQ(body.begun, 0);
}

TEST_F(RestClientTest, ThrottlesWithTheConfiguredQpsAndBurst) {
  Config c;
  c.qps = 1;
  c.burst = 2;
  auto rest = Client(c);
  transport_->SetHandler([](const HttpRequest&) -> Result<HttpResponse> { return HttpResponse{200, {}, "{}"}; });
  ASSERT_TRUE(rest->Do({.path = "/a"}).ok());
  ASSERT_TRUE(rest->Do({.path = "/b"}).ok());
  std::atomic<bool> third{false};
  std::jthread caller([&] {
    EXPECT_TRUE(rest->Do({.path = "/c"}).ok());
    third.store(true);
  });
  ASSERT_TRUE(clock_.BlockUntilWaiters(1));
  EXPECT_FALSE(third.load());
  EXPECT_EQ(transport_->RequestCount(), 2u);
  clock_.Advance(1s);
  caller.join();
  EXPECT_TRUE(third.load());
}

TEST_F(RestClientTest, NegativeQpsDisablesThrottling) {
  Config c;
  c.qps = -1;
  auto rest = Client(c);
  transport_->SetHandler([](const HttpRequest&) -> Result<HttpResponse> { return HttpResponse{200, {}, "{}"}; });
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(rest->Do({.path = "/a"}).ok());
}

TEST_F(RestClientTest, RejectsHostsThatAreNotHttpUrls) {
  Config c;
  c.host = "ftp://x";
  EXPECT_FALSE(RestClient::Create(c, {.transport = transport_}).ok());
  c.host = "no-scheme";
  EXPECT_FALSE(RestClient::Create(c, {.transport = transport_}).ok());
}

}  // namespace
}  // namespace kube::client
