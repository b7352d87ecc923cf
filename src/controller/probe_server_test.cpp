#include <kube/controller/probe_server.hpp>

#include <stdexcept>
#include <string>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kube::controller {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using ::testing::HasSubstr;

struct Reply {
  int status = 0;
  std::string body;
  std::string content_type;
  std::string content_length;
};

// One connection to the server; requests go over it in order (keep-alive).
class Conn {
 public:
  explicit Conn(std::uint16_t port) : socket_(ioc_) {
    socket_.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  }
  Reply Send(http::verb method, std::string target) {
    http::request<http::string_body> req(method, target, 11);
    req.set(http::field::host, "localhost");
    http::write(socket_, req);
    return Read(method == http::verb::head);
  }
  // Sends raw bytes and reads one response.
  Reply SendRaw(const std::string& bytes) {
    asio::write(socket_, asio::buffer(bytes));
    return Read(false);
  }
  bool ClosedByPeer() {
    char c = 0;
    boost::system::error_code ec;
    asio::read(socket_, asio::buffer(&c, 1), ec);
    return ec == asio::error::eof || ec == asio::error::connection_reset;
  }

 private:
  Reply Read(bool head) {
    http::response_parser<http::string_body> parser;
    parser.skip(head);
    http::read(socket_, buffer_, parser);
    const auto& res = parser.get();
    Reply r;
    r.status = static_cast<int>(res.result_int());
    r.body = res.body();
    r.content_type = std::string(res[http::field::content_type]);
    r.content_length = std::string(res[http::field::content_length]);
    return r;
  }
  asio::io_context ioc_;
  tcp::socket socket_;
  boost::beast::flat_buffer buffer_;
};

Reply Get(std::uint16_t port, std::string target) { return Conn(port).Send(http::verb::get, std::move(target)); }

class ProbeServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_.Counter("probe_test_total", "A test counter.").With({}).Inc(3);
    auto s = ProbeServer::Start({.bind_address = "127.0.0.1:0", .registry = &registry_});
    ASSERT_TRUE(s.ok()) << s.error().message;
    server_ = std::move(*s);
    ASSERT_NE(server_->port(), 0);
  }
  std::uint16_t port() const { return server_->port(); }

  MetricsRegistry registry_;
  std::unique_ptr<ProbeServer> server_;
};

TEST_F(ProbeServerTest, NoChecksMeansHealthyAndReady) {
  auto h = Get(port(), "/healthz");
  EXPECT_EQ(h.status, 200);
  EXPECT_EQ(h.body, "ok");
  EXPECT_EQ(Get(port(), "/readyz").status, 200);
  EXPECT_EQ(server_->address(), "127.0.0.1:" + std::to_string(port()));
}

TEST_F(ProbeServerTest, FailingCheckGives500WithNameAndWithheldReason) {
  ASSERT_TRUE(server_->AddReadyzCheck("ping", PingCheck()).ok());
  ASSERT_TRUE(server_->AddReadyzCheck("cache", [] { return Result<void>(InternalError("not synced")); }).ok());
  auto r = Get(port(), "/readyz");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, "[-]cache failed: reason withheld\nreadyz check failed\n");
  // healthz has its own (empty) set of checks.
  EXPECT_EQ(Get(port(), "/healthz").status, 200);
}

TEST_F(ProbeServerTest, VerboseListsEveryCheckWithItsError) {
  ASSERT_TRUE(server_->AddHealthzCheck("ping", PingCheck()).ok());
  auto ok = Get(port(), "/healthz?verbose");
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "[+]ping ok\nhealthz check passed\n");
  ASSERT_TRUE(server_->AddHealthzCheck("db", [] { return Result<void>(InternalError("connection lost")); }).ok());
  auto bad = Get(port(), "/healthz?verbose=1");
  EXPECT_EQ(bad.status, 500);
  EXPECT_EQ(bad.body, "[-]db failed: connection lost\n[+]ping ok\nhealthz check failed\n");
}

TEST_F(ProbeServerTest, ExcludeSkipsACheckAndWarnsAboutUnknownNames) {
  ASSERT_TRUE(server_->AddHealthzCheck("db", [] { return Result<void>(InternalError("down")); }).ok());
  auto r = Get(port(), "/healthz?exclude=db&exclude=nope&verbose");
  EXPECT_EQ(r.status, 200);
  EXPECT_THAT(r.body, HasSubstr("[+]db excluded: ok\n"));
  EXPECT_THAT(r.body, HasSubstr("no matches for \"nope\""));
}

TEST_F(ProbeServerTest, SingleCheckPath) {
  ASSERT_TRUE(server_->AddHealthzCheck("ping", PingCheck()).ok());
  ASSERT_TRUE(server_->AddHealthzCheck("db", [] { return Result<void>(InternalError("down")); }).ok());
  EXPECT_EQ(Get(port(), "/healthz/ping").status, 200);
  auto db = Get(port(), "/healthz/db");
  EXPECT_EQ(db.status, 500);
  EXPECT_THAT(db.body, HasSubstr("down"));
  EXPECT_EQ(Get(port(), "/healthz/missing").status, 404);
}

TEST_F(ProbeServerTest, ThrowingCheckCountsAsFailure) {
  ASSERT_TRUE(server_->AddHealthzCheck("boom", []() -> Result<void> { throw std::runtime_error("kaput"); }).ok());
  auto r = Get(port(), "/healthz?verbose");
  EXPECT_EQ(r.status, 500);
  EXPECT_THAT(r.body, HasSubstr("[-]boom failed: check threw: kaput"));
  EXPECT_EQ(Get(port(), "/healthz").status, 500);  // and the server still answers
}

TEST_F(ProbeServerTest, MetricsServesTheRegistryAsPrometheusText) {
  auto r = Get(port(), "/metrics");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(r.body, registry_.Render());
  EXPECT_THAT(r.body, HasSubstr("probe_test_total 3\n"));
}

TEST_F(ProbeServerTest, HeadHasLengthButNoBodyAndKeepAliveWorks) {
  Conn c(port());
  auto head = c.Send(http::verb::head, "/healthz");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.body, "");
  EXPECT_EQ(head.content_length, "2");
  auto get = c.Send(http::verb::get, "/healthz");  // same connection
  EXPECT_EQ(get.body, "ok");
}

TEST_F(ProbeServerTest, BadRequestsGet4xxAndTheServerKeepsServing) {
  EXPECT_EQ(Conn(port()).Send(http::verb::post, "/healthz").status, 405);
  EXPECT_EQ(Get(port(), "/nope").status, 404);
  EXPECT_EQ(Get(port(), "/healthzfoo").status, 404);
  EXPECT_EQ(Get(port(), "/healthz?exclude=%zz").status, 400);
  {
    Conn c(port());
    auto r = c.SendRaw("THIS IS NOT HTTP\r\n\r\n");
    EXPECT_EQ(r.status, 400);
    EXPECT_TRUE(c.ClosedByPeer());
  }
  {
    Conn c(port());
    auto r = c.SendRaw("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(70 * 1024, 'a') + "\r\n\r\n");
    EXPECT_EQ(r.status, 413);
  }
  EXPECT_EQ(Get(port(), "/healthz").status, 200);
}

TEST_F(ProbeServerTest, StopIsIdempotentAndClosesTheListener) {
  const auto p = port();
  server_->Stop();
  server_->Stop();
  asio::io_context ioc;
  tcp::socket s(ioc);
  boost::system::error_code ec;
  s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), p), ec);
  EXPECT_TRUE(ec);
}

TEST(ProbeServer, InvalidBindAddressesAndCheckNamesAreRejected) {
  EXPECT_TRUE(IsBadRequest(ProbeServer::Start({.bind_address = "nocolon"}).error()));
  EXPECT_TRUE(IsBadRequest(ProbeServer::Start({.bind_address = "127.0.0.1:99999"}).error()));
  EXPECT_TRUE(IsBadRequest(ProbeServer::Start({.bind_address = "not-an-ip:0"}).error()));
  auto s = ProbeServer::Start({.bind_address = ":0"});
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(IsBadRequest((*s)->AddHealthzCheck("", PingCheck()).error()));
  EXPECT_TRUE(IsBadRequest((*s)->AddHealthzCheck("a/b", PingCheck()).error()));
  // The port is taken: a second server on it fails with a transport error.
  auto again = ProbeServer::Start({.bind_address = "0.0.0.0:" + std::to_string((*s)->port())});
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(IsTransport(again.error()));
  EXPECT_EQ(Get((*s)->port(), "/metrics").status, 404);  // no registry
}

}  // namespace
}  // namespace kube::controller
