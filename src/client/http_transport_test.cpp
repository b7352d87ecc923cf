// Transport tests against a scripted local HTTP/TLS server (real sockets, real time with generous
// bounds; no test sleeps to order events).
#include <kube/client/dynamic_client.hpp>
#include <kube/client/http_transport.hpp>
#include <kube/client/watch.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/testing/scripted_server.hpp"

namespace kube::client {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;
using testing::Chunk;
using testing::ChunkedHead;
using testing::LastChunk;
using testing::ScriptedServer;
using testing::ServerConn;
using testing::TestPki;

const TestPki& Pki() {
  static std::unique_ptr<TestPki> pki = TestPki::Create();
  return *pki;
}

std::shared_ptr<HttpTransport> Transport(const std::string& url, HttpTransportOptions o = {}) {
  o.server = url;
  auto t = NewHttpTransport(std::move(o));
  EXPECT_TRUE(t.ok()) << t.error().message;
  return t.ok() ? *t : nullptr;
}

HttpRequest Get(std::string target, Clock::Duration timeout = Clock::Duration::zero()) {
  HttpRequest r;
  r.target = std::move(target);
  r.timeout = timeout;
  return r;
}

std::string Event(std::string_view name, std::string_view rv) {
  return R"({"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":")" + std::string(name) +
         R"(","resourceVersion":")" + std::string(rv) + R"("}}})" + "\n";
}

/// Serves `body` with status 200 to every request on the connection.
ScriptedServer::Script Echo() {
  return [](ServerConn& c) {
    while (auto req = c.ReadRequest()) {
      const std::string body = req->method + " " + req->target + " ua=" + req->Header("user-agent") + " body=" + req->body;
      if (!c.Write(testing::HttpResponse(200, body, "text/plain"))) return;
    }
  };
}

TEST(HttpTransport, SendsRequestsAndReadsResponses) {
  ScriptedServer server({}, Echo());
  auto t = Transport(server.url());
  HttpRequest r = Get("/api/v1/pods?limit=1");
  r.method = "POST";
  r.body = "{\"a\":1}";
  r.headers.emplace_back("User-Agent", "kubecpp/test");
  auto resp = t->Do(r);
  ASSERT_TRUE(resp.ok()) << resp.error().message;
  EXPECT_EQ(resp->status, 200);
  EXPECT_EQ(resp->body, "POST /api/v1/pods?limit=1 ua=kubecpp/test body={\"a\":1}");
  EXPECT_EQ(FindHeader(resp->headers, "content-type").value_or(""), "text/plain");
}

TEST(HttpTransport, ReusesKeepAliveConnections) {
  ScriptedServer server({}, Echo());
  auto t = Transport(server.url());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(t->Do(Get("/x")).ok());
  EXPECT_EQ(server.connections(), 1);
  EXPECT_EQ(t->Stats().connections_opened, 1u);
  EXPECT_EQ(t->Stats().idle, 1u);
  EXPECT_EQ(t->Stats().in_use, 0u);
}

TEST(HttpTransport, RetriesOnAFreshConnectionWhenTheIdleOneWasClosed) {
  std::atomic<int> served{0};
  ScriptedServer server({}, [&](ServerConn& c) {
    // One response per connection, then close without saying so (Connection: close is absent).
    if (auto req = c.ReadRequest()) {
      c.Write(testing::HttpResponse(200, "n=" + std::to_string(served.fetch_add(1)), "text/plain"));
    }
  });
  auto t = Transport(server.url());
  ASSERT_TRUE(t->Do(Get("/a")).ok());
  // The server has closed the idle connection; the next request notices and redials.
  auto again = t->Do(Get("/b"));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->body, "n=1");
  EXPECT_EQ(server.connections(), 2);
}

TEST(HttpTransport, ReadsChunkedBodies) {
  ScriptedServer server({}, [](ServerConn& c) {
    if (!c.ReadRequest()) return;
    c.Write(ChunkedHead(200) + Chunk("{\"items\":") + Chunk("[1,2") + Chunk(",3]}") + LastChunk());
  });
  auto resp = Transport(server.url())->Do(Get("/x"));
  ASSERT_TRUE(resp.ok()) << resp.error().message;
  EXPECT_EQ(resp->body, "{\"items\":[1,2,3]}");
}

TEST(HttpTransport, TruncatedBodyIsAConnectionReset) {
  ScriptedServer server({}, [](ServerConn& c) {
    if (!c.ReadRequest()) return;
    c.Write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"partial\":");
  });
  auto resp = Transport(server.url())->Do(Get("/x"));
  ASSERT_FALSE(resp.ok());
  EXPECT_TRUE(IsTransport(resp.error()));
  EXPECT_TRUE(IsConnectionReset(resp.error())) << resp.error().message;
}

TEST(HttpTransport, ResetBeforeAnswerIsAConnectionReset) {
  ScriptedServer server({}, [](ServerConn& c) {
    if (c.ReadRequest()) c.Reset();
  });
  auto resp = Transport(server.url())->Do(Get("/x"));
  ASSERT_FALSE(resp.ok());
  EXPECT_TRUE(IsConnectionReset(resp.error())) << resp.error().message;
}

TEST(HttpTransport, GarbageResponseIsAProtocolError) {
  ScriptedServer server({}, [](ServerConn& c) {
    if (c.ReadRequest()) c.Write("SSH-2.0-OpenSSH_9.2\r\n\r\n");
  });
  auto resp = Transport(server.url())->Do(Get("/x"));
  ASSERT_FALSE(resp.ok());
  ASSERT_TRUE(resp.error().details.has_value());
  EXPECT_EQ(resp.error().details->causes.at(0).reason, transport_cause::kProtocol) << resp.error().message;
}

TEST(HttpTransport, OversizedBodyIsRejected) {
  ScriptedServer server({}, [](ServerConn& c) {
    if (c.ReadRequest()) c.Write(testing::HttpResponse(200, std::string(4096, 'x'), "text/plain"));
  });
  auto resp = Transport(server.url(), {.max_response_bytes = 1024})->Do(Get("/x"));
  ASSERT_FALSE(resp.ok());
  EXPECT_THAT(resp.error().message, HasSubstr("too large"));
}

TEST(HttpTransport, SlowServerHitsTheRequestTimeout) {
  std::promise<void> release;
  auto released = release.get_future().share();
  ScriptedServer server({}, [released](ServerConn& c) {
    if (!c.ReadRequest()) return;
    released.wait_for(30s);  // never answers until the test is over
  });
  auto t = Transport(server.url());
  const auto start = std::chrono::steady_clock::now();
  auto resp = t->Do(Get("/x", 300ms));
  const auto took = std::chrono::steady_clock::now() - start;
  release.set_value();
  ASSERT_FALSE(resp.ok());
  EXPECT_TRUE(IsClientTimeout(resp.error())) << resp.error().message;
  EXPECT_GE(took, 250ms);
  EXPECT_LT(took, 10s);
}

TEST(HttpTransport, ConnectionRefusedIsAConnectFailure) {
  std::string url;
  {
    ScriptedServer server({}, Echo());
    url = server.url();
  }  // closed: nothing listens on the port any more
  auto resp = Transport(url)->Do(Get("/x"));
  ASSERT_FALSE(resp.ok());
  EXPECT_EQ(resp.error().details->causes.at(0).reason, transport_cause::kConnectFailed) << resp.error().message;
}

TEST(HttpTransport, PerHostLimitMakesRequestsWaitForAConnection) {
  std::promise<void> first_arrived;
  std::promise<void> release;
  auto released = release.get_future().share();
  std::atomic<int> count{0};
  ScriptedServer server({}, [&, released](ServerConn& c) {
    while (auto req = c.ReadRequest()) {
      if (count.fetch_add(1) == 0) {
        first_arrived.set_value();
        released.wait_for(30s);
      }
      if (!c.Write(testing::HttpResponse(200, "ok", "text/plain"))) return;
    }
  });
  auto t = Transport(server.url(), {.max_conns_per_host = 1});
  std::future<Result<HttpResponse>> a = std::async(std::launch::async, [&] { return t->Do(Get("/a")); });
  first_arrived.get_future().wait();
  // The only connection is busy: a second request with a short timeout cannot get one.
  auto b = t->Do(Get("/b", 200ms));
  ASSERT_FALSE(b.ok());
  EXPECT_TRUE(IsClientTimeout(b.error()));
  EXPECT_THAT(b.error().message, HasSubstr("max_conns_per_host=1"));
  release.set_value();
  ASSERT_TRUE(a.get().ok());
  ASSERT_TRUE(t->Do(Get("/c")).ok());
  EXPECT_EQ(server.connections(), 1);
}

TEST(HttpTransport, StreamsChunksAsTheyArrive) {
  std::promise<void> go;
  auto gate = go.get_future().share();
  const std::string e1 = Event("a", "1");
  const std::string e2 = Event("b", "2");
  ScriptedServer server({}, [&, gate](ServerConn& c) {
    if (!c.ReadRequest()) return;
    c.Write(ChunkedHead(200));
    // Event 1 split across two chunks, then event 2 in the same chunk as the end of event 1.
    c.Write(Chunk(e1.substr(0, 15)));
    gate.wait_for(30s);
    c.Write(Chunk(e1.substr(15) + e2));
    c.Write(LastChunk());
  });
  auto t = Transport(server.url());
  auto stream = t->Open(Get("/api/v1/configmaps?watch=true"));
  ASSERT_TRUE(stream.ok()) << stream.error().message;
  EXPECT_EQ((*stream)->status(), 200);
  WatchStream watch(std::move(stream).value());
  std::future<Result<std::optional<WatchEvent>>> first = std::async(std::launch::async, [&] { return watch.Next(); });
  // The first event cannot complete until the rest of it is sent.
  EXPECT_EQ(first.wait_for(100ms), std::future_status::timeout);
  go.set_value();
  auto ev1 = first.get();
  ASSERT_TRUE(ev1.ok() && ev1->has_value()) << (ev1.ok() ? "" : ev1.error().message);
  EXPECT_EQ((**ev1).object->Name(), "a");
  auto ev2 = watch.Next();
  ASSERT_TRUE(ev2.ok() && ev2->has_value());
  EXPECT_EQ((**ev2).object->Name(), "b");
  auto end = watch.Next();
  ASSERT_TRUE(end.ok()) << end.error().message;
  EXPECT_FALSE(end->has_value());
}

TEST(HttpTransport, ResetMidWatchIsAConnectionResetError) {
  ScriptedServer server({}, [](ServerConn& c) {
    if (!c.ReadRequest()) return;
    c.Write(ChunkedHead(200) + Chunk(Event("a", "1")) + Chunk("{\"type\":\"ADD"));
    c.Reset();
  });
  auto stream = Transport(server.url())->Open(Get("/w"));
  ASSERT_TRUE(stream.ok());
  WatchStream watch(std::move(stream).value());
  ASSERT_TRUE(watch.Next().ok());
  auto err = watch.Next();
  ASSERT_FALSE(err.ok());
  EXPECT_TRUE(IsConnectionReset(err.error())) << err.error().message;
}

TEST(HttpTransport, StopFromAnotherThreadEndsABlockedWatchPromptly) {
  std::promise<void> done;
  auto finished = done.get_future().share();
  ScriptedServer server({}, [finished](ServerConn& c) {
    if (!c.ReadRequest()) return;
    c.Write(ChunkedHead(200));
    finished.wait_for(30s);  // a quiet watch
  });
  auto t = Transport(server.url());
  auto stream = t->Open(Get("/w"));
  ASSERT_TRUE(stream.ok());
  WatchStream watch(std::move(stream).value());
  std::future<Result<std::optional<WatchEvent>>> next = std::async(std::launch::async, [&] { return watch.Next(); });
  EXPECT_EQ(next.wait_for(50ms), std::future_status::timeout);  // blocked
  const auto start = std::chrono::steady_clock::now();
  watch.Stop();
  ASSERT_EQ(next.wait_for(10s), std::future_status::ready);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  auto r = next.get();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->has_value());
  done.set_value();
  EXPECT_EQ(t->Stats().in_use, 1u);  // released when the WatchStream is destroyed
}

TEST(HttpTransport, StreamErrorStatusCarriesTheBody) {
  ScriptedServer server({}, [](ServerConn& c) {
    if (c.ReadRequest()) {
      c.Write(testing::HttpResponse(410, R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410})"));
    }
  });
  Config config;
  config.host = server.url();
  auto client = DynamicClient::Create(config).value();
  auto watch = client.Resource({"", "v1", "configmaps"}).Watch({.resource_version = "1"});
  ASSERT_FALSE(watch.ok());
  EXPECT_TRUE(IsExpired(watch.error()));
}

// A finite body (a streamed list) read through Open.
HttpRequest FiniteGet(std::string target, Clock::Duration timeout = Clock::Duration::zero()) {
  HttpRequest r = Get(std::move(target), timeout);
  r.finite_body = true;
  return r;
}

std::string ReadAll(ResponseStream& s, Result<void>& status) {
  std::string out;
  for (;;) {
    auto chunk = s.Read();
    if (!chunk) {
      status = std::move(chunk).error();
      return out;
    }
    if (chunk->empty()) return out;
    out.append(*chunk);
  }
}

TEST(HttpTransport, AFiniteBodyReadToItsEndLeavesTheConnectionForTheNextRequest) {
  ScriptedServer server({}, Echo());
  auto t = Transport(server.url());
  for (int i = 0; i < 3; ++i) {
    auto stream = t->Open(FiniteGet("/api/v1/pods"));
    ASSERT_TRUE(stream.ok()) << stream.error().message;
    Result<void> status = Ok();
    EXPECT_EQ(ReadAll(**stream, status), "GET /api/v1/pods ua= body=");
    ASSERT_TRUE(status.ok()) << status.error().message;
  }
  ASSERT_TRUE(t->Do(Get("/x")).ok());
  EXPECT_EQ(server.connections(), 1);
  EXPECT_EQ(t->Stats().connections_opened, 1u);
}

TEST(HttpTransport, AStreamLeftMidwayIsNotReused) {
  ScriptedServer server({}, [](ServerConn& c) {
    while (c.ReadRequest()) {
      if (!c.Write(ChunkedHead(200) + Chunk(Event("a", "1")))) return;
    }
  });
  auto t = Transport(server.url());
  {
    auto stream = t->Open(Get("/w"));
    ASSERT_TRUE(stream.ok());
    ASSERT_TRUE((*stream)->Read().ok());
  }  // abandoned before the last chunk
  auto again = t->Open(Get("/w"));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(t->Stats().connections_opened, 2u);
}

TEST(HttpTransport, TheRequestTimeoutBoundsAFiniteBody) {
  std::promise<void> release;
  auto released = release.get_future().share();
  ScriptedServer server({}, [released](ServerConn& c) {
    if (!c.ReadRequest()) return;
    c.Write(ChunkedHead(200) + Chunk(R"({"items":[)"));
    released.wait_for(30s);  // the rest never comes while the test runs
  });
  auto t = Transport(server.url());
  auto stream = t->Open(FiniteGet("/api/v1/pods", 300ms));
  ASSERT_TRUE(stream.ok()) << stream.error().message;
  Result<void> status = Ok();
  const std::string got = ReadAll(**stream, status);
  release.set_value();
  EXPECT_EQ(got, R"({"items":[)");
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(IsClientTimeout(status.error())) << status.error().message;
}

TEST(HttpTransport, AFiniteBodyOverTheSizeLimitIsRejected) {
  ScriptedServer server({}, [](ServerConn& c) {
    if (!c.ReadRequest()) return;
    c.Write(ChunkedHead(200) + Chunk(std::string(600, 'x')) + Chunk(std::string(600, 'y')) + LastChunk());
  });
  auto t = Transport(server.url(), {.max_response_bytes = 1024});
  auto stream = t->Open(FiniteGet("/x"));
  ASSERT_TRUE(stream.ok()) << stream.error().message;
  Result<void> status = Ok();
  (void)ReadAll(**stream, status);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.error().message, HasSubstr("too large"));
}

// ---- TLS ----

ScriptedServer TlsServer(const std::string& cert, const std::string& key, const std::string& client_ca = "") {
  return ScriptedServer({.tls = true, .cert_file = cert, .key_file = key, .client_ca_file = client_ca}, Echo());
}

TEST(HttpTransportTls, VerifiesTheServerAgainstTheConfiguredCa) {
  ScriptedServer server = TlsServer(Pki().server_cert, Pki().server_key);
  auto t = Transport(server.url(), {.tls = {.ca_pem = TestPki::Read(Pki().ca_cert)}});
  auto resp = t->Do(Get("/ok"));
  ASSERT_TRUE(resp.ok()) << resp.error().message;
  EXPECT_THAT(resp->body, HasSubstr("GET /ok"));
  // "localhost" is also in the certificate.
  auto by_name = Transport("https://localhost:" + std::to_string(server.port()),
                           {.tls = {.ca_pem = TestPki::Read(Pki().ca_cert)}});
  ASSERT_TRUE(by_name->Do(Get("/ok")).ok());
}

TEST(HttpTransportTls, ReusesKeepAliveTlsConnections) {
  // TLS 1.3 session tickets arrive after the handshake; they must not make the idle connection
  // look unusable.
  ScriptedServer server = TlsServer(Pki().server_cert, Pki().server_key);
  auto t = Transport(server.url(), {.tls = {.ca_pem = TestPki::Read(Pki().ca_cert)}});
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(t->Do(Get("/x")).ok());
  EXPECT_EQ(server.connections(), 1);
  EXPECT_EQ(t->Stats().connections_opened, 1u);
}

TEST(HttpTransportTls, WrongCaFailsAndNeverConnects) {
  ScriptedServer server = TlsServer(Pki().server_cert, Pki().server_key);
  auto t = Transport(server.url(), {.tls = {.ca_pem = TestPki::Read(Pki().other_ca_cert)}});
  auto resp = t->Do(Get("/x"));
  ASSERT_FALSE(resp.ok());
  EXPECT_TRUE(IsTlsError(resp.error()));
  EXPECT_THAT(resp.error().message, HasSubstr("failed to verify certificate"));
  // No CA at all means the system roots, which do not know the test CA either.
  auto system = Transport(server.url())->Do(Get("/x"));
  ASSERT_FALSE(system.ok());
  EXPECT_TRUE(IsTlsError(system.error()));
}

TEST(HttpTransportTls, HostNameMustMatchAndTlsServerNameOverridesIt) {
  // The certificate is only valid for kube.test, not for 127.0.0.1.
  ScriptedServer server = TlsServer(Pki().named_cert, Pki().named_key);
  const std::string ca = TestPki::Read(Pki().ca_cert);
  auto mismatch = Transport(server.url(), {.tls = {.ca_pem = ca}})->Do(Get("/x"));
  ASSERT_FALSE(mismatch.ok());
  EXPECT_TRUE(IsTlsError(mismatch.error()));
  EXPECT_THAT(mismatch.error().message, HasSubstr("not valid for \"127.0.0.1\""));
  auto named = Transport(server.url(), {.tls = {.ca_pem = ca, .server_name = "kube.test"}})->Do(Get("/x"));
  ASSERT_TRUE(named.ok()) << named.error().message;
  auto wrong_name = Transport(server.url(), {.tls = {.ca_pem = ca, .server_name = "other.test"}})->Do(Get("/x"));
  ASSERT_FALSE(wrong_name.ok());
  EXPECT_TRUE(IsTlsError(wrong_name.error()));
}

TEST(HttpTransportTls, InsecureSkipVerifyConnectsToAnyCertificate) {
  ScriptedServer server = TlsServer(Pki().named_cert, Pki().named_key);
  auto resp = Transport(server.url(), {.tls = {.insecure_skip_verify = true}})->Do(Get("/x"));
  ASSERT_TRUE(resp.ok()) << resp.error().message;
}

TEST(HttpTransportTls, PresentsTheClientCertificate) {
  ScriptedServer server({.tls = true, .cert_file = Pki().server_cert, .key_file = Pki().server_key,
                         .client_ca_file = Pki().ca_cert},
                        [](ServerConn& c) {
                          while (auto req = c.ReadRequest()) {
                            if (!c.Write(testing::HttpResponse(200, c.PeerSubject(), "text/plain"))) return;
                          }
                        });
  const std::string ca = TestPki::Read(Pki().ca_cert);
  auto with_cert = Transport(server.url(), {.tls = {.ca_pem = ca,
                                                    .client_cert_pem = TestPki::Read(Pki().client_cert),
                                                    .client_key_pem = TestPki::Read(Pki().client_key)}});
  auto resp = with_cert->Do(Get("/x"));
  ASSERT_TRUE(resp.ok()) << resp.error().message;
  EXPECT_THAT(resp->body, HasSubstr("CN=kube-client"));
  auto without = Transport(server.url(), {.tls = {.ca_pem = ca}})->Do(Get("/x"));
  ASSERT_FALSE(without.ok());
}

TEST(HttpTransportTls, RotatedClientCertificateFromTheCallbackIsUsedForNewConnections) {
  ScriptedServer server({.tls = true, .cert_file = Pki().server_cert, .key_file = Pki().server_key,
                         .client_ca_file = Pki().ca_cert},
                        [](ServerConn& c) {
                          while (auto req = c.ReadRequest()) {
                            if (!c.Write(testing::HttpResponse(200, c.PeerSubject(), "text/plain"))) return;
                          }
                        });
  std::atomic<int> which{1};
  HttpTransportOptions o;
  o.tls.ca_pem = TestPki::Read(Pki().ca_cert);
  o.client_certificate = [&]() -> Result<std::optional<ClientCertificate>> {
    if (which.load() == 1) {
      return std::optional<ClientCertificate>(
          ClientCertificate{TestPki::Read(Pki().client_cert), TestPki::Read(Pki().client_key)});
    }
    return std::optional<ClientCertificate>(
        ClientCertificate{TestPki::Read(Pki().client2_cert), TestPki::Read(Pki().client2_key)});
  };
  auto t = Transport(server.url(), o);
  auto a = t->Do(Get("/a"));
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_THAT(a->body, HasSubstr("CN=kube-client"));
  which.store(2);
  t->CloseIdleConnections();
  auto b = t->Do(Get("/b"));
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_THAT(b->body, HasSubstr("CN=kube-client-2"));
}

TEST(HttpTransportTls, RejectsUnusableCaMaterialUpFront) {
  auto t = NewHttpTransport({.server = "https://127.0.0.1:1", .tls = {.ca_pem = "not pem"}});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message, "tls.ca_pem: no certificate found");
  auto bad_url = NewHttpTransport({.server = "ftp://x"});
  ASSERT_FALSE(bad_url.ok());
  EXPECT_THAT(bad_url.error().message, HasSubstr("server: unsupported scheme"));
  auto bad_proxy = NewHttpTransport({.server = "https://x", .proxy_url = "socks5://p:1"});
  ASSERT_FALSE(bad_proxy.ok());
}

TEST(HttpTransport, TunnelsThroughAnHttpConnectProxy) {
  ScriptedServer target({}, Echo());
  std::atomic<int> connects{0};
  const std::uint16_t target_port = target.port();
  // A minimal CONNECT proxy: answers 200, then forwards one request to the target by hand.
  ScriptedServer proxy({}, [&](ServerConn& c) {
    auto connect = c.ReadRequest();
    if (!connect || connect->method != "CONNECT") return;
    EXPECT_EQ(connect->target, "127.0.0.1:" + std::to_string(target_port));
    EXPECT_EQ(connect->Header("proxy-authorization"), "Basic dXNlcjpwYXNz");
    connects.fetch_add(1);
    c.Write("HTTP/1.1 200 Connection established\r\n\r\n");
    while (auto req = c.ReadRequest()) {
      if (!c.Write(testing::HttpResponse(200, "via proxy " + req->target, "text/plain"))) return;
    }
  });
  auto t = Transport(target.url(), {.proxy_url = "http://user:pass@127.0.0.1:" + std::to_string(proxy.port())});
  auto resp = t->Do(Get("/through"));
  ASSERT_TRUE(resp.ok()) << resp.error().message;
  EXPECT_EQ(resp->body, "via proxy /through");
  EXPECT_EQ(connects.load(), 1);
}

}  // namespace
}  // namespace kube::client
