#include "testing/internal/control_plane.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/rand.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include <kube/base/error.hpp>
#include <kube/client/rest_client.hpp>

namespace kube::testing::internal {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kStartAttempts = 3;
constexpr auto kPollInterval = std::chrono::milliseconds(100);

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result<void> WriteFile(const fs::path& path, const std::string& content, mode_t mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return InternalError(fmt::format("create {}: {}", path.string(), std::strerror(errno)));
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return InternalError(fmt::format("write {}: {}", path.string(), std::strerror(err)));
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return Ok();
}

/// 32 random bytes, hex-encoded.
Result<std::string> NewToken() {
  std::array<unsigned char, 32> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) return InternalError("RAND_bytes failed");
  std::string out;
  for (unsigned char b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

/// Three distinct free loopback ports (etcd client, etcd peer, kube-apiserver): bound together,
/// so that they differ, and released as this returns, just before the processes start.
Result<std::array<int, 3>> FreePorts() {
  std::array<int, 3> ports{};
  std::array<int, 3> fds{-1, -1, -1};
  std::string failure;
  for (std::size_t i = 0; i < fds.size() && failure.empty(); ++i) {
    fds[i] = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (fds[i] < 0 || ::bind(fds[i], reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        ::getsockname(fds[i], reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      failure = std::strerror(errno);
    } else {
      ports[i] = ntohs(addr.sin_port);
    }
  }
  for (int fd : fds) {
    if (fd >= 0) ::close(fd);
  }
  if (!failure.empty()) return InternalError("find a free loopback port: " + failure);
  return ports;
}

}  // namespace

// --- ChildProcess ---

Result<ChildProcess> ChildProcess::Spawn(const std::vector<std::string>& argv, const fs::path& log) {
  // Everything the child needs is prepared here: between fork and exec only async-signal-safe
  // calls are allowed (the test process has other threads).
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) return InternalError(fmt::format("open {}: {}", log.string(), std::strerror(errno)));
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before prctl
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    ::close_range(3, ~0U, 0);  // no descriptor of the test process leaks into the server
    ::execv(args[0], args.data());
    static constexpr char kMsg[] = "kubecpp TestEnvironment: exec failed\n";
    [[maybe_unused]] const ssize_t ignored = ::write(STDERR_FILENO, kMsg, sizeof(kMsg) - 1);
    ::_exit(127);
  }
  const int fork_errno = errno;
  ::close(log_fd);
  if (null_fd >= 0) ::close(null_fd);
  if (pid < 0) return InternalError(fmt::format("fork {}: {}", argv[0], std::strerror(fork_errno)));
  ::setpgid(pid, pid);  // also here, so that the group exists before Stop might signal it
  ChildProcess child;
  child.pid_ = pid;
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), status_(other.status_), exited_(other.exited_) {}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    Stop(std::chrono::seconds(0));
    pid_ = std::exchange(other.pid_, -1);
    status_ = other.status_;
    exited_ = other.exited_;
  }
  return *this;
}

ChildProcess::~ChildProcess() { Stop(std::chrono::seconds(0)); }

bool ChildProcess::Running() {
  if (pid_ <= 0) return false;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == 0) return true;
  // Reaped (or not our child any more): either way it no longer runs.
  status_ = status;
  exited_ = r == pid_;
  pid_ = -1;
  return false;
}

std::string ChildProcess::ExitDescription() const {
  if (!exited_) return "not started";
  if (WIFEXITED(status_)) return fmt::format("exit status {}", WEXITSTATUS(status_));
  if (WIFSIGNALED(status_)) return fmt::format("killed by signal {}", WTERMSIG(status_));
  return fmt::format("wait status {}", status_);
}

void ChildProcess::Stop(std::chrono::milliseconds grace) {
  if (!Running()) return;
  const pid_t pid = pid_;
  ::kill(pid, SIGTERM);
  const auto deadline = Clock::now() + grace;
  while (Running()) {
    if (Clock::now() >= deadline) {
      ::kill(-pid, SIGKILL);  // its whole process group
      int status = 0;
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      status_ = status;
      exited_ = true;
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(-pid, SIGKILL);  // whatever the process left behind in its group
}

// --- RealControlPlane ---

Result<std::unique_ptr<RealControlPlane>> RealControlPlane::Start(RealControlPlaneOptions options) {
  for (const char* name : {"etcd", "kube-apiserver"}) {
    if (::access((options.assets / name).c_str(), X_OK) != 0) {
      return BadRequest(fmt::format("{} has no executable {}", options.assets.string(), name));
    }
  }
  std::unique_ptr<RealControlPlane> plane(new RealControlPlane(std::move(options)));
  KUBE_RETURN_IF_ERROR(plane->WritePki());
  for (int attempt = 1;; ++attempt) {
    bool port_taken = false;
    auto launched = plane->Launch(port_taken);
    if (launched.ok()) return plane;
    plane->Stop();
    if (!port_taken || attempt == kStartAttempts) return std::move(launched).error();
  }
}

RealControlPlane::~RealControlPlane() { Stop(); }

Result<void> RealControlPlane::WritePki() {
  using apiserver::CertificateSpec;
  const fs::path pki = options_.dir / "pki";
  std::error_code ec;
  fs::create_directories(pki, ec);
  if (ec) return InternalError(fmt::format("create {}: {}", pki.string(), ec.message()));
  auto ca = apiserver::IssueCertificate({.common_name = "kubecpp-testenv-ca", .usage = CertificateSpec::Usage::kCa});
  if (!ca.ok()) return std::move(ca).error();
  auto serving = apiserver::IssueCertificate({.common_name = "kube-apiserver",
                                              .usage = CertificateSpec::Usage::kServer,
                                              .subject_alt_names = "IP:127.0.0.1,DNS:localhost"},
                                             &*ca);
  if (!serving.ok()) return std::move(serving).error();
  auto client_ca =
      apiserver::IssueCertificate({.common_name = "kubecpp-testenv-client-ca", .usage = CertificateSpec::Usage::kCa});
  if (!client_ca.ok()) return std::move(client_ca).error();
  auto sa = apiserver::GenerateKeyPair();
  if (!sa.ok()) return std::move(sa).error();
  auto token = NewToken();
  if (!token.ok()) return std::move(token).error();

  KUBE_RETURN_IF_ERROR(WriteFile(pki / "ca.crt", ca->cert_pem, 0644));
  KUBE_RETURN_IF_ERROR(WriteFile(pki / "serving.crt", serving->cert_pem, 0644));
  KUBE_RETURN_IF_ERROR(WriteFile(pki / "serving.key", serving->key_pem, 0600));
  KUBE_RETURN_IF_ERROR(WriteFile(pki / "client-ca.crt", client_ca->cert_pem, 0644));
  KUBE_RETURN_IF_ERROR(WriteFile(pki / "sa.key", sa->private_key_pem, 0600));
  KUBE_RETURN_IF_ERROR(WriteFile(pki / "sa.pub", sa->public_key_pem, 0644));
  KUBE_RETURN_IF_ERROR(WriteFile(pki / "tokens.csv", *token + ",kubecpp-testenv-admin,1000,\"system:masters\"\n", 0600));

  client_ca_ = std::move(client_ca).value();
  config_.ca_pem = ca->cert_pem;
  config_.bearer_token = std::move(token).value();
  config_.qps = -1;
  config_.timeout = std::chrono::seconds(30);
  return Ok();
}

Result<void> RealControlPlane::Launch(bool& port_taken) {
  port_taken = false;
  auto ports = FreePorts();
  if (!ports.ok()) return std::move(ports).error();
  const std::string etcd_client = fmt::format("http://127.0.0.1:{}", (*ports)[0]);
  const std::string etcd_peer = fmt::format("http://127.0.0.1:{}", (*ports)[1]);
  const fs::path& dir = options_.dir;
  const std::string p = (dir / "pki").string() + "/";
  std::error_code ec;
  fs::remove_all(dir / "etcd", ec);  // a failed attempt's data

  auto etcd = ChildProcess::Spawn(
      {(options_.assets / "etcd").string(), "--name", "test", "--data-dir", (dir / "etcd").string(),
       "--listen-client-urls", etcd_client, "--advertise-client-urls", etcd_client, "--listen-peer-urls", etcd_peer,
       "--initial-advertise-peer-urls", etcd_peer, "--initial-cluster", "test=" + etcd_peer,
       "--initial-cluster-state", "new"},
      dir / "etcd.log");
  if (!etcd.ok()) return std::move(etcd).error();
  etcd_ = std::move(etcd).value();

  std::vector<std::string> argv = {(options_.assets / "kube-apiserver").string(),
                                   "--bind-address=127.0.0.1",
                                   "--advertise-address=127.0.0.1",
                                   fmt::format("--secure-port={}", (*ports)[2]),
                                   "--etcd-servers=" + etcd_client,
                                   "--tls-cert-file=" + p + "serving.crt",
                                   "--tls-private-key-file=" + p + "serving.key",
                                   "--client-ca-file=" + p + "client-ca.crt",
                                   "--cert-dir=" + (dir / "certs").string(),
                                   "--service-account-key-file=" + p + "sa.pub",
                                   "--service-account-signing-key-file=" + p + "sa.key",
                                   "--service-account-issuer=https://kubernetes.default.svc",
                                   "--token-auth-file=" + p + "tokens.csv",
                                   "--authorization-mode=RBAC",
                                   "--service-cluster-ip-range=10.0.0.0/24",
                                   "--disable-admission-plugins=ServiceAccount",
                                   "--allow-privileged=true"};
  argv.insert(argv.end(), options_.extra_apiserver_flags.begin(), options_.extra_apiserver_flags.end());
  auto apiserver = ChildProcess::Spawn(argv, dir / "kube-apiserver.log");
  if (!apiserver.ok()) return std::move(apiserver).error();
  apiserver_ = std::move(apiserver).value();
  config_.host = fmt::format("https://127.0.0.1:{}", (*ports)[2]);

  client::Config probe = config_;
  probe.timeout = std::chrono::seconds(2);
  probe.max_retries = 0;
  auto rest = client::RestClient::Create(probe);
  if (!rest.ok()) return std::move(rest).error();
  const auto deadline = Clock::now() + options_.start_timeout;
  std::string last = "no answer yet";
  while (Clock::now() < deadline) {
    for (auto [child, name] : {std::pair{&etcd_, "etcd"}, std::pair{&apiserver_, "kube-apiserver"}}) {
      if (child->Running()) continue;
      const std::string tail = LogTail();
      port_taken = tail.find("address already in use") != std::string::npos;
      return InternalError(fmt::format("{} exited during startup ({})\n{}", name, child->ExitDescription(), tail));
    }
    auto r = (*rest)->Do(client::Request{.method = "GET", .path = "/readyz"});
    if (r.ok() && r->body == "ok") return Ok();
    last = r.ok() ? fmt::format("{} {}", r->status, r->body) : r.error().message;
    std::this_thread::sleep_for(kPollInterval);
  }
  return MakeError(504, reason::kTimeout,
                   fmt::format("kube-apiserver at {} not ready after {} ms: {}\n{}", config_.host,
                               options_.start_timeout.count(), last, LogTail()));
}

std::vector<int> RealControlPlane::pids() const {
  std::vector<int> out;
  if (apiserver_.pid() > 0) out.push_back(apiserver_.pid());
  if (etcd_.pid() > 0) out.push_back(etcd_.pid());
  return out;
}

std::string RealControlPlane::LogTail(std::size_t bytes) const {
  std::string out;
  for (const char* name : {"etcd", "kube-apiserver"}) {
    std::string log = ReadFile(options_.dir / (std::string(name) + ".log"));
    if (log.size() > bytes) log = "..." + log.substr(log.size() - bytes);
    out += fmt::format("--- {}.log (last {} bytes)\n{}\n", name, bytes, log);
  }
  return out;
}

void RealControlPlane::Stop() {
  apiserver_.Stop(options_.stop_timeout);
  etcd_.Stop(options_.stop_timeout);
}

}  // namespace kube::testing::internal
