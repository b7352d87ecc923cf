#include "client/testing/scripted_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

namespace kube::client::testing {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string Reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

class Conn final : public ServerConn {
 public:
  Conn(int fd, SSL* ssl) : fd_(fd), ssl_(ssl) {}
  ~Conn() override {
    if (ssl_ != nullptr) SSL_free(ssl_);
  }

  std::optional<ReceivedRequest> ReadRequest() override {
    std::size_t header_end;
    while ((header_end = buf_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill()) return std::nullopt;
    }
    ReceivedRequest req;
    std::string_view head(buf_.data(), header_end);
    const auto line_end = head.find("\r\n");
    std::string_view request_line = head.substr(0, line_end);
    const auto sp1 = request_line.find(' ');
    const auto sp2 = request_line.find(' ', sp1 + 1);
    req.method = std::string(request_line.substr(0, sp1));
    req.target = std::string(request_line.substr(sp1 + 1, sp2 - sp1 - 1));
    std::string_view rest = line_end == std::string_view::npos ? std::string_view() : head.substr(line_end + 2);
    while (!rest.empty()) {
      const auto eol = rest.find("\r\n");
      std::string_view line = rest.substr(0, eol);
      const auto colon = line.find(':');
      if (colon != std::string_view::npos) {
        req.headers.emplace_back(Lower(std::string(line.substr(0, colon))), std::string(Trim(line.substr(colon + 1))));
      }
      if (eol == std::string_view::npos) break;
      rest.remove_prefix(eol + 2);
    }
    buf_.erase(0, header_end + 4);
    const std::string length = req.Header("content-length");
    const std::size_t n = length.empty() ? 0 : std::stoul(length);
    while (buf_.size() < n) {
      if (!Fill()) return std::nullopt;
    }
    req.body = buf_.substr(0, n);
    buf_.erase(0, n);
    return req;
  }

  bool Write(std::string_view bytes) override {
    while (!bytes.empty()) {
      int n;
      if (ssl_ != nullptr) {
        n = SSL_write(ssl_, bytes.data(), static_cast<int>(bytes.size()));
      } else {
        n = static_cast<int>(::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL));
      }
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  void Close() override {
    if (closed_) return;
    closed_ = true;
    if (ssl_ != nullptr) SSL_shutdown(ssl_);
    ::shutdown(fd_, SHUT_RDWR);
  }

  void Reset() override {
    if (closed_) return;
    closed_ = true;
    linger l{1, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    ::shutdown(fd_, SHUT_RD);
    ::close(dup(fd_));  // the fd itself is closed by the server thread; a dup closes with RST too
    ::shutdown(fd_, SHUT_RDWR);
  }

  std::string PeerSubject() override {
    if (ssl_ == nullptr) return "";
    X509* cert = SSL_get_peer_certificate(ssl_);
    if (cert == nullptr) return "";
    char buf[256];
    X509_NAME_oneline(X509_get_subject_name(cert), buf, sizeof buf);
    X509_free(cert);
    return buf;
  }

 private:
  bool Fill() {
    char tmp[16384];
    int n;
    if (ssl_ != nullptr) {
      n = SSL_read(ssl_, tmp, sizeof tmp);
    } else {
      n = static_cast<int>(::recv(fd_, tmp, sizeof tmp, 0));
    }
    if (n <= 0) return false;
    buf_.append(tmp, static_cast<std::size_t>(n));
    return true;
  }

  int fd_;
  SSL* ssl_;
  std::string buf_;
  bool closed_ = false;
};

int RunCommand(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()); }

}  // namespace

std::string ReceivedRequest::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (k == name) return v;
  }
  return "";
}

std::string HttpResponse(int status, std::string_view body, std::string_view content_type,
                         const std::vector<std::pair<std::string, std::string>>& headers) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + Reason(status) + "\r\n";
  if (!content_type.empty()) out += "Content-Type: " + std::string(content_type) + "\r\n";
  for (const auto& [k, v] : headers) out += k + ": " + v + "\r\n";
  out += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out += body;
  return out;
}

std::string ChunkedHead(int status, std::string_view content_type) {
  return "HTTP/1.1 " + std::to_string(status) + " " + Reason(status) + "\r\nContent-Type: " +
         std::string(content_type) + "\r\nTransfer-Encoding: chunked\r\n\r\n";
}

std::string Chunk(std::string_view data) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return std::string(size) + std::string(data) + "\r\n";
}

std::string LastChunk() { return "0\r\n\r\n"; }

ScriptedServer::ScriptedServer(ScriptedServerOptions options, Script script)
    : options_(std::move(options)), script_(std::move(script)) {
  if (options_.tls) {
    // OpenSSL writes to the raw socket (handshake alerts, SSL_write) without MSG_NOSIGNAL: a
    // client that already hung up would kill the test process with SIGPIPE. Test-only code, so
    // ignoring the signal process-wide is acceptable here (the library itself writes through
    // Asio, which passes MSG_NOSIGNAL).
    static const bool ignored = [] {
      std::signal(SIGPIPE, SIG_IGN);
      return true;
    }();
    (void)ignored;
    SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
    SSL_CTX_use_certificate_chain_file(ctx, options_.cert_file.c_str());
    SSL_CTX_use_PrivateKey_file(ctx, options_.key_file.c_str(), SSL_FILETYPE_PEM);
    if (!options_.client_ca_file.empty()) {
      SSL_CTX_load_verify_locations(ctx, options_.client_ca_file.c_str(), nullptr);
      SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
    }
    ssl_ctx_ = ctx;
  }
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::listen(listen_fd_, 64);
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

ScriptedServer::~ScriptedServer() {
  stopping_.store(true);
  ::shutdown(listen_fd_, SHUT_RDWR);
  acceptor_.join();
  ::close(listen_fd_);
  std::vector<std::thread> threads;
  {
    MutexLock lock(mu_);
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
    threads.swap(threads_);
  }
  for (auto& t : threads) t.join();
  if (ssl_ctx_ != nullptr) SSL_CTX_free(static_cast<SSL_CTX*>(ssl_ctx_));
}

std::string ScriptedServer::url() const {
  return std::string(options_.tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_);
}

void ScriptedServer::AcceptLoop() {
  for (;;) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (stopping_.load()) return;
      if (errno == EINTR) continue;
      return;
    }
    if (stopping_.load()) {
      ::close(fd);
      return;
    }
    accepted_.fetch_add(1);
    MutexLock lock(mu_);
    open_fds_.push_back(fd);
    threads_.emplace_back([this, fd] {
      SSL* ssl = nullptr;
      if (ssl_ctx_ != nullptr) {
        ssl = SSL_new(static_cast<SSL_CTX*>(ssl_ctx_));
        SSL_set_fd(ssl, fd);
        if (SSL_accept(ssl) != 1) {
          handshake_failures_.fetch_add(1);
          ERR_clear_error();
          SSL_free(ssl);
          ::shutdown(fd, SHUT_RDWR);
          ssl = nullptr;
          // fall through to close below
          MutexLock l(mu_);
          std::erase(open_fds_, fd);
          ::close(fd);
          return;
        }
      }
      {
        Conn conn(fd, ssl);
        script_(conn);
        conn.Close();
      }
      MutexLock l(mu_);
      std::erase(open_fds_, fd);
      ::close(fd);
    });
  }
}

std::unique_ptr<TestPki> TestPki::Create() {
  char tmpl[] = "/tmp/kubecpp-pki-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) return nullptr;
  auto pki = std::make_unique<TestPki>();
  pki->dir = tmpl;
  const std::string d = pki->dir + "/";
  const auto ca = [&](const std::string& name, const std::string& cn) {
    return RunCommand("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=" + cn + " -keyout " + d + name +
                      ".key -out " + d + name + ".crt");
  };
  const auto leaf = [&](const std::string& name, const std::string& cn, const std::string& ext) {
    if (RunCommand("openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=" + cn + " -keyout " + d + name + ".key -out " +
                   d + name + ".csr") != 0) {
      return 1;
    }
    std::ofstream(d + name + ".ext") << ext << "\n";
    return RunCommand("openssl x509 -req -in " + d + name + ".csr -CA " + d + "ca.crt -CAkey " + d +
                      "ca.key -CAcreateserial -days 2 -out " + d + name + ".crt -extfile " + d + name + ".ext");
  };
  if (ca("ca", "kubecpp-test-ca") != 0 || ca("other", "kubecpp-other-ca") != 0 ||
      leaf("server", "localhost", "subjectAltName=DNS:localhost,IP:127.0.0.1") != 0 ||
      leaf("named", "kube.test", "subjectAltName=DNS:kube.test") != 0 ||
      leaf("client", "kube-client", "extendedKeyUsage=clientAuth") != 0 ||
      leaf("client2", "kube-client-2", "extendedKeyUsage=clientAuth") != 0) {
    std::fprintf(stderr, "TestPki: the openssl CLI failed\n");
    return nullptr;
  }
  pki->ca_cert = d + "ca.crt";
  pki->ca_key = d + "ca.key";
  pki->other_ca_cert = d + "other.crt";
  pki->server_cert = d + "server.crt";
  pki->server_key = d + "server.key";
  pki->named_cert = d + "named.crt";
  pki->named_key = d + "named.key";
  pki->client_cert = d + "client.crt";
  pki->client_key = d + "client.key";
  pki->client2_cert = d + "client2.crt";
  pki->client2_key = d + "client2.key";
  return pki;
}

TestPki::~TestPki() {
  if (!dir.empty()) RunCommand("rm -rf " + dir);
}

std::string TestPki::Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace kube::client::testing
