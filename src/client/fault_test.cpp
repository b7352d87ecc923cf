// Fault handling of the whole client stack (DynamicClient -> RestClient -> HttpTransport ->
// WatchStream) against a scripted local HTTP server over real sockets: chunk boundaries, resets,
// ERROR events, Retry-After, credential rotation, truncated and garbage answers, stalls, and
// throttling. Retry and refresh waits run on a FakeClock; real time only bounds "does not hang".
#include <kube/client/auth.hpp>
#include <kube/client/dynamic_client.hpp>
#include <kube/client/http_transport.hpp>
#include <kube/client/rest_client.hpp>
#include <kube/client/watch.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <kube/base/clock.hpp>
#include <kube/base/mutex.hpp>

#include "client/testing/scripted_server.hpp"
#include "client/testing/test_util.hpp"

namespace kube::client {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;
using testing::Chunk;
using testing::ChunkedHead;
using testing::LastChunk;
using testing::ScriptedServer;
using testing::ServerConn;
using testing::TempDir;

const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};

std::string CmEvent(std::string_view type, std::string_view name, std::string_view rv) {
  return R"({"type":")" + std::string(type) +
         R"(","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":")" + std::string(name) +
         R"(","namespace":"ns","resourceVersion":")" + std::string(rv) + R"("},"data":{"k":"v"}}})" + "\n";
}

std::string Cm(std::string_view name) {
  return R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":")" + std::string(name) +
         R"(","namespace":"ns","resourceVersion":"5"}})";
}

std::string StatusBody(int code, std::string_view reason, std::string_view message) {
  return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":")" +
         std::string(message) + R"(","reason":")" + std::string(reason) + R"(","code":)" + std::to_string(code) + "}";
}

/// A config for `server` without client-side throttling (tests that throttle set qps).
Config ConfigFor(const ScriptedServer& server) {
  Config c;
  c.host = server.url();
  c.qps = -1;
  return c;
}

/// Runs `fn` on another thread and returns its future, so that a test can bound how long it
/// waits ("does not hang") without sleeping.
template <class F>
auto Async(F fn) {
  return std::async(std::launch::async, std::move(fn));
}

/// Drains a watch; returns the names of the events and the terminal result (ok = clean end).
struct Drained {
  std::vector<std::string> names;
  Result<void> end = Ok();
};
Drained Drain(WatchStream& watch) {
  Drained d;
  for (;;) {
    auto ev = watch.Next();
    if (!ev.ok()) {
      d.end = std::move(ev).error();
      return d;
    }
    if (!ev->has_value()) return d;
    d.names.emplace_back((**ev).object->Name());
  }
}

// ---- watch streams ----

TEST(ClientFaults, WatchEventLinesSplitAtEveryPositionAcrossChunksAreReassembled) {
  constexpr int kEvents = 40;
  std::vector<std::string> lines;
  for (int i = 0; i < kEvents; ++i) lines.push_back(CmEvent("MODIFIED", "cm-" + std::to_string(i), std::to_string(i)));
  ScriptedServer server({}, [&lines](ServerConn& c) {
    if (!c.ReadRequest()) return;
    std::string out = ChunkedHead(200);
    // Event i is cut at a position that sweeps from the first to the last byte of the line; the
    // tail of each event shares its chunk with the head of the next.
    std::string carry;
    for (std::size_t i = 0; i + 2 < lines.size(); ++i) {
      const std::size_t cut = 1 + i * (lines[i].size() - 2) / (lines.size() - 3);
      out += Chunk(carry + lines[i].substr(0, cut));
      carry = lines[i].substr(cut);
    }
    out += Chunk(carry);
    // The next event one byte per chunk, and the last two events in one chunk.
    const std::string& bytewise = lines[lines.size() - 2];
    for (char ch : bytewise) out += Chunk(std::string(1, ch));
    out += Chunk(lines.back());
    c.Write(out + LastChunk());
  });
  auto client = DynamicClient::Create(ConfigFor(server)).value();
  auto watch = client.Resource(kConfigMaps, "ns").Watch({.resource_version = "0"});
  ASSERT_TRUE(watch.ok()) << watch.error().message;
  auto drained = Drain(**watch);
  ASSERT_TRUE(drained.end.ok()) << drained.end.error().message;
  ASSERT_EQ(drained.names.size(), static_cast<std::size_t>(kEvents));
  for (int i = 0; i < kEvents; ++i) EXPECT_EQ(drained.names[i], "cm-" + std::to_string(i));
}

TEST(ClientFaults, ConnectionResetMidWatchIsAClassifiedErrorAfterTheCompleteEvents) {
  ScriptedServer server({}, [](ServerConn& c) {
    if (!c.ReadRequest()) return;
    const std::string second = CmEvent("ADDED", "b", "2");
    c.Write(ChunkedHead(200) + Chunk(CmEvent("ADDED", "a", "1") + second.substr(0, second.size() / 2)));
    c.Reset();
  });
  auto client = DynamicClient::Create(ConfigFor(server)).value();
  auto watch = client.Resource(kConfigMaps, "ns").Watch({});
  ASSERT_TRUE(watch.ok()) << watch.error().message;
  auto drained = Drain(**watch);
  EXPECT_EQ(drained.names, std::vector<std::string>{"a"});
  ASSERT_FALSE(drained.end.ok());
  EXPECT_TRUE(IsConnectionReset(drained.end.error())) << drained.end.error().message;
  EXPECT_TRUE((*watch)->Done());
  auto after = (*watch)->Next();  // ended for good
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(after->has_value());
}

TEST(ClientFaults, ExpiredErrorEventMidWatchSurfacesAsAnExpiredError) {
  ScriptedServer server({}, [](ServerConn& c) {
    if (!c.ReadRequest()) return;
    c.Write(ChunkedHead(200) + Chunk(CmEvent("ADDED", "a", "7")));
    const std::string error_event =
        R"({"type":"ERROR","object":)" + StatusBody(410, "Expired", "too old resource version: 3 (7)") + "}\n";
    // Split across two chunks, followed by an event that must not be delivered.
    c.Write(Chunk(error_event.substr(0, 25)) + Chunk(error_event.substr(25) + CmEvent("ADDED", "b", "8")) +
            LastChunk());
  });
  auto client = DynamicClient::Create(ConfigFor(server)).value();
  auto watch = client.Resource(kConfigMaps, "ns").Watch({.resource_version = "3"});
  ASSERT_TRUE(watch.ok()) << watch.error().message;
  auto drained = Drain(**watch);
  EXPECT_EQ(drained.names, std::vector<std::string>{"a"});
  ASSERT_FALSE(drained.end.ok());
  EXPECT_TRUE(IsExpired(drained.end.error()));
  EXPECT_EQ(drained.end.error().code, 410);
  EXPECT_EQ(drained.end.error().message, "too old resource version: 3 (7)");
}

TEST(ClientFaults, WatchWhoseHeadersNeverArriveHitsTheRequestTimeout) {
  std::promise<void> release;
  auto released = release.get_future().share();
  ScriptedServer server({}, [released](ServerConn& c) {
    if (c.ReadRequest()) released.wait_for(60s);
  });
  Config config = ConfigFor(server);
  config.timeout = 200ms;
  auto client = DynamicClient::Create(config).value();
  auto pending = Async([&] { return client.Resource(kConfigMaps, "ns").Watch({}); });
  ASSERT_EQ(pending.wait_for(30s), std::future_status::ready) << "watch open hung past its timeout";
  auto watch = pending.get();
  release.set_value();
  ASSERT_FALSE(watch.ok());
  EXPECT_TRUE(IsClientTimeout(watch.error())) << watch.error().message;
}

// ---- Retry-After ----

/// Answers `status` with `Retry-After: <seconds>` to the first `failures` requests (all
/// connections together), then 200 with a ConfigMap. Counts requests.
ScriptedServer::Script RetryAfterThen(int status, int seconds, int failures, std::atomic<int>& requests) {
  return [=, &requests](ServerConn& c) {
    while (c.ReadRequest()) {
      const int n = requests.fetch_add(1);
      const std::string reply =
          n < failures ? testing::HttpResponse(status, StatusBody(status, status == 429 ? "TooManyRequests" : "ServiceUnavailable", "busy"),
                                               "application/json", {{"Retry-After", std::to_string(seconds)}})
                       : testing::HttpResponse(200, Cm("a"));
      if (!c.Write(reply)) return;
    }
  };
}

/// Calls Get on another thread and advances `clock` by `step` each time the call parks on it,
/// `sleeps` times. Returns the result.
Result<ObjectPtr> GetAdvancingThroughSleeps(const Api& api, FakeClock& clock, int sleeps, Clock::Duration step) {
  auto pending = Async([&] { return api.Get("a"); });
  for (int i = 0; i < sleeps; ++i) {
    EXPECT_TRUE(clock.BlockUntilWaiters(1)) << "sleep " << i << " never started";
    EXPECT_EQ(pending.wait_for(0s), std::future_status::timeout);  // parked on the clock, not done
    clock.Advance(step);
  }
  EXPECT_EQ(pending.wait_for(30s), std::future_status::ready);
  return pending.get();
}

TEST(ClientFaults, TooManyRequestsIsRetriedAfterRetryAfterUpToMaxRetriesThenReturned) {
  std::atomic<int> requests{0};
  ScriptedServer server({}, RetryAfterThen(429, 1, 1000, requests));
  FakeClock clock;
  Config config = ConfigFor(server);
  config.max_retries = 3;
  auto client = DynamicClient::Create(config, {.clock = &clock}).value();
  auto got = GetAdvancingThroughSleeps(client.Resource(kConfigMaps, "ns"), clock, 3, 1s);
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(IsTooManyRequests(got.error())) << got.error().message;
  EXPECT_EQ(got.error().message, "busy");  // the last answer's Status
  EXPECT_EQ(requests.load(), 4);  // the first attempt and three retries
  EXPECT_EQ(clock.Waiters(), 0u);
}

TEST(ClientFaults, ServiceUnavailableWithRetryAfterIsRetriedUntilItSucceeds) {
  std::atomic<int> requests{0};
  ScriptedServer server({}, RetryAfterThen(503, 2, 2, requests));
  FakeClock clock;
  auto client = DynamicClient::Create(ConfigFor(server), {.clock = &clock}).value();
  auto got = GetAdvancingThroughSleeps(client.Resource(kConfigMaps, "ns"), clock, 2, 2s);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ((*got)->Name(), "a");
  EXPECT_EQ(requests.load(), 3);
  EXPECT_EQ(client.rest()->Stats().retries, 2u);
}

TEST(ClientFaults, ServiceUnavailableRetriesAreBoundedToo) {
  std::atomic<int> requests{0};
  ScriptedServer server({}, RetryAfterThen(503, 1, 1000, requests));
  FakeClock clock;
  Config config = ConfigFor(server);
  config.max_retries = 2;
  auto client = DynamicClient::Create(config, {.clock = &clock}).value();
  auto got = GetAdvancingThroughSleeps(client.Resource(kConfigMaps, "ns"), clock, 2, 1s);
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(IsServiceUnavailable(got.error())) << got.error().message;
  EXPECT_EQ(requests.load(), 3);
}

// ---- credentials ----

/// Serves 200 to requests whose Authorization is accepted by `accept`, 401 otherwise, and
/// records every Authorization header in order.
class AuthServer {
 public:
  explicit AuthServer(std::function<bool(const std::string&)> accept)
      : accept_(std::move(accept)), server_({}, [this](ServerConn& c) {
          while (auto req = c.ReadRequest()) {
            const std::string auth = req->Header("authorization");
            {
              MutexLock lock(mu_);
              seen_.push_back(auth);
            }
            const bool ok = accept_(auth);
            if (!c.Write(ok ? testing::HttpResponse(200, Cm("a"))
                            : testing::HttpResponse(401, StatusBody(401, "Unauthorized", "Unauthorized")))) {
              return;
            }
          }
        }) {}
  std::vector<std::string> Seen() const {
    MutexLock lock(mu_);
    return seen_;
  }
  const ScriptedServer& server() const { return server_; }

 private:
  std::function<bool(const std::string&)> accept_;
  mutable Mutex mu_;
  std::vector<std::string> seen_ KUBE_GUARDED_BY(mu_);
  ScriptedServer server_;  // last: its threads use the members above
};

TEST(ClientFaults, ExecCredentialsAreRerunOn401AndWhenTheyExpire) {
  TempDir dir;
  const std::string d = dir.path();
  // Prints token tok-<run> expiring 10 minutes after the FakeClock's start (2026-01-01T00:00:00Z).
  const std::string plugin = dir.Write(
      "plugin.sh",
      "#!/bin/sh\nn=$(cat '" + d + "/count' 2>/dev/null || echo 0)\nn=$((n+1))\necho $n > '" + d +
          "/count'\necho '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\","
          "\"status\":{\"token\":\"tok-'$n'\",\"expirationTimestamp\":\"2026-01-01T00:10:00Z\"}}'\n",
      true);
  AuthServer auth([](const std::string& h) { return h != "Bearer tok-1"; });  // tok-1 was revoked
  FakeClock clock;
  Config config = ConfigFor(auth.server());
  config.exec = ExecConfig{.command = plugin, .api_version = "client.authentication.k8s.io/v1",
                           .interactive_mode = "Never"};
  auto client = DynamicClient::Create(config, {.clock = &clock}).value();
  const Api api = client.Resource(kConfigMaps, "ns");

  auto first = api.Get("a");  // tok-1 -> 401 -> plugin re-run -> tok-2
  ASSERT_TRUE(first.ok()) << first.error().message;
  auto second = api.Get("a");  // tok-2 still cached
  ASSERT_TRUE(second.ok()) << second.error().message;
  clock.Advance(10min);  // tok-2 has expired: the next request runs the plugin first
  auto third = api.Get("a");
  ASSERT_TRUE(third.ok()) << third.error().message;
  EXPECT_EQ(auth.Seen(), (std::vector<std::string>{"Bearer tok-1", "Bearer tok-2", "Bearer tok-2", "Bearer tok-3"}));
  EXPECT_EQ(client.rest()->Stats().auth_refreshes, 1u);
}

TEST(ClientFaults, A401WithCredentialsThatDoNotChangeIsReturnedWithoutLooping) {
  AuthServer auth([](const std::string&) { return false; });
  TempDir dir;
  const std::string plugin = dir.Write(
      "plugin.sh",
      "#!/bin/sh\necho '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\","
      "\"status\":{\"token\":\"same\"}}'\n",
      true);
  Config config = ConfigFor(auth.server());
  config.exec = ExecConfig{.command = plugin, .api_version = "client.authentication.k8s.io/v1",
                           .interactive_mode = "Never"};
  FakeClock clock;
  auto client = DynamicClient::Create(config, {.clock = &clock}).value();
  auto pending = Async([&] { return client.Resource(kConfigMaps, "ns").Get("a"); });
  ASSERT_EQ(pending.wait_for(30s), std::future_status::ready);
  auto got = pending.get();
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(IsUnauthorized(got.error()));
  EXPECT_EQ(auth.Seen().size(), 2u);  // the request and one retry with re-run credentials
}

/// The one Authorization header value the server accepts; changed by the test.
class Accepted {
 public:
  explicit Accepted(std::string header) : header_(std::move(header)) {}
  void Set(std::string header) KUBE_EXCLUDES(mu_) {
    MutexLock lock(mu_);
    header_ = std::move(header);
  }
  bool Is(const std::string& header) const KUBE_EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return header == header_;
  }

 private:
  mutable Mutex mu_;
  std::string header_ KUBE_GUARDED_BY(mu_);
};

TEST(ClientFaults, RotatedTokenFileIsPickedUpPeriodicallyAndAfterA401) {
  TempDir dir;
  const std::string token_file = dir.Write("token", "one\n");
  Accepted accepted("Bearer one");
  AuthServer auth([&](const std::string& h) { return accepted.Is(h); });
  const auto accept = [&](std::string h) { accepted.Set(std::move(h)); };
  FakeClock clock;
  Config config = ConfigFor(auth.server());
  config.bearer_token_file = token_file;
  auto client = DynamicClient::Create(config, {.clock = &clock}).value();
  const Api api = client.Resource(kConfigMaps, "ns");

  ASSERT_TRUE(api.Get("a").ok());
  dir.Write("token", "two\n");      // rotated on disk; the cached token is still valid
  ASSERT_TRUE(api.Get("a").ok());
  clock.Advance(config.token_file_refresh);  // the refresh period has passed: re-read
  accept("Bearer two");
  ASSERT_TRUE(api.Get("a").ok());
  dir.Write("token", "three\n");  // rotated and the old token revoked at once: a 401 re-reads
  accept("Bearer three");
  auto got = api.Get("a");
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(auth.Seen(), (std::vector<std::string>{"Bearer one", "Bearer one", "Bearer two", "Bearer two",
                                                   "Bearer three"}));
  EXPECT_EQ(client.rest()->Stats().auth_refreshes, 1u);
}

// ---- truncated, garbage and slow answers ----

TEST(ClientFaults, TruncatedBodyOfAGetIsRetriedThenReportedAsAConnectionReset) {
  std::atomic<int> requests{0};
  ScriptedServer server({}, [&requests](ServerConn& c) {
    if (!c.ReadRequest()) return;
    requests.fetch_add(1);
    c.Write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"kind\":\"Conf");
    c.Close();
  });
  FakeClock clock;
  Config config = ConfigFor(server);
  config.max_retries = 2;
  auto client = DynamicClient::Create(config, {.clock = &clock}).value();
  auto got = GetAdvancingThroughSleeps(client.Resource(kConfigMaps, "ns"), clock, 2, 1s);
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(IsConnectionReset(got.error())) << got.error().message;
  EXPECT_THAT(got.error().message, HasSubstr("Get \"" + server.url() + "/api/v1/namespaces/ns/configmaps/a\": "));
  EXPECT_EQ(requests.load(), 3);

  // A write is never retried after a reset: it may have been applied.
  requests = 0;
  auto pending = Async([&] {
    auto cm = Object::Parse(Cm("b")).value();
    return client.Resource(kConfigMaps, "ns").Create(*cm);
  });
  ASSERT_EQ(pending.wait_for(30s), std::future_status::ready);
  auto created = pending.get();
  ASSERT_FALSE(created.ok());
  EXPECT_TRUE(IsConnectionReset(created.error()));
  EXPECT_EQ(requests.load(), 1);
}

TEST(ClientFaults, GarbageAnswersAreClassifiedErrors) {
  enum class Mode { kNotHttp, kBadChunk, kHtml200, kHtml500, kBinary200 };
  std::atomic<Mode> mode{Mode::kNotHttp};
  ScriptedServer server({}, [&mode](ServerConn& c) {
    if (!c.ReadRequest()) return;
    switch (mode.load()) {
      case Mode::kNotHttp:
        c.Write("\x16\x03\x01 garbage that is not HTTP\r\n\r\n");
        break;
      case Mode::kBadChunk:
        c.Write(ChunkedHead(200) + "zz\r\n{}\r\n0\r\n\r\n");
        break;
      case Mode::kHtml200:
        c.Write(testing::HttpResponse(200, "<html><body>Sign in</body></html>", "text/html"));
        break;
      case Mode::kHtml500:
        c.Write(testing::HttpResponse(500, "<html>Internal proxy error</html>", "text/html"));
        break;
      case Mode::kBinary200:
        c.Write(testing::HttpResponse(200, std::string("\x00\xff\x13\x37", 4), "application/json"));
        break;
    }
    c.Close();
  });
  auto client = DynamicClient::Create(ConfigFor(server)).value();
  const Api api = client.Resource(kConfigMaps, "ns");
  const auto get = [&](Mode m) {
    mode = m;
    auto pending = Async([&] { return api.Get("a"); });
    EXPECT_EQ(pending.wait_for(30s), std::future_status::ready);
    return pending.get();
  };
  const auto cause = [](const Error& e) {
    return e.details && !e.details->causes.empty() ? e.details->causes[0].reason : std::string();
  };

  auto not_http = get(Mode::kNotHttp);
  ASSERT_FALSE(not_http.ok());
  EXPECT_TRUE(IsTransport(not_http.error()));
  EXPECT_EQ(cause(not_http.error()), transport_cause::kProtocol) << not_http.error().message;

  auto bad_chunk = get(Mode::kBadChunk);
  ASSERT_FALSE(bad_chunk.ok());
  EXPECT_EQ(cause(bad_chunk.error()), transport_cause::kProtocol) << bad_chunk.error().message;

  auto html = get(Mode::kHtml200);
  ASSERT_FALSE(html.ok());
  EXPECT_TRUE(IsInternalError(html.error())) << html.error().message;

  auto html500 = get(Mode::kHtml500);
  ASSERT_FALSE(html500.ok());
  EXPECT_TRUE(IsInternalError(html500.error())) << html500.error().message;
  EXPECT_THAT(html500.error().message, HasSubstr("Internal proxy error"));

  auto binary = get(Mode::kBinary200);
  ASSERT_FALSE(binary.ok());
  EXPECT_TRUE(IsInternalError(binary.error())) << binary.error().message;
}

TEST(ClientFaults, GarbageLineInAWatchIsABadRequestAndEndsTheWatch) {
  ScriptedServer server({}, [](ServerConn& c) {
    if (!c.ReadRequest()) return;
    c.Write(ChunkedHead(200) + Chunk(CmEvent("ADDED", "a", "1") + "<html>oops</html>\n" + CmEvent("ADDED", "b", "2")) +
            LastChunk());
  });
  auto client = DynamicClient::Create(ConfigFor(server)).value();
  auto watch = client.Resource(kConfigMaps, "ns").Watch({});
  ASSERT_TRUE(watch.ok()) << watch.error().message;
  auto drained = Drain(**watch);
  EXPECT_EQ(drained.names, std::vector<std::string>{"a"});
  ASSERT_FALSE(drained.end.ok());
  EXPECT_TRUE(IsBadRequest(drained.end.error())) << drained.end.error().message;
}

TEST(ClientFaults, SlowServerHitsTheConfiguredRequestTimeoutAndIsNotRetried) {
  std::promise<void> release;
  auto released = release.get_future().share();
  std::atomic<int> requests{0};
  ScriptedServer server({}, [&requests, released](ServerConn& c) {
    if (!c.ReadRequest()) return;
    requests.fetch_add(1);
    // Headers and part of the body, then nothing: the deadline covers the whole exchange.
    c.Write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"kind\"");
    released.wait_for(60s);
  });
  Config config = ConfigFor(server);
  config.timeout = 200ms;
  FakeClock clock;  // a retry would park on it and never finish: the future would not be ready
  auto client = DynamicClient::Create(config, {.clock = &clock}).value();
  auto pending = Async([&] { return client.Resource(kConfigMaps, "ns").Get("a"); });
  ASSERT_EQ(pending.wait_for(30s), std::future_status::ready) << "request hung past its timeout";
  auto got = pending.get();
  release.set_value();
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(IsClientTimeout(got.error())) << got.error().message;
  EXPECT_EQ(requests.load(), 1);
}

// ---- client-side throttling ----

TEST(ClientFaults, QpsAndBurstThrottleRequestsOnTheInjectedClock) {
  std::atomic<int> requests{0};
  ScriptedServer server({}, RetryAfterThen(200, 0, 0, requests));
  FakeClock clock;
  Config config = ConfigFor(server);
  config.qps = 2;
  config.burst = 3;
  auto client = DynamicClient::Create(config, {.clock = &clock}).value();
  const Api api = client.Resource(kConfigMaps, "ns");
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(api.Get("a").ok());  // the burst, without waiting
  EXPECT_EQ(clock.Waiters(), 0u);
  auto fourth = Async([&] { return api.Get("a"); });
  ASSERT_TRUE(clock.BlockUntilWaiters(1));  // no token left: waits 1/qps = 500 ms
  EXPECT_EQ(requests.load(), 3);
  clock.Advance(499ms);
  EXPECT_EQ(fourth.wait_for(0s), std::future_status::timeout);
  clock.Advance(1ms);
  ASSERT_EQ(fourth.wait_for(30s), std::future_status::ready);
  ASSERT_TRUE(fourth.get().ok());
  EXPECT_EQ(requests.load(), 4);
}

}  // namespace
}  // namespace kube::client
