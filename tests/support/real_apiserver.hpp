#pragma once

// The real kube-apiserver and etcd for tests, started from the envtest binaries that
// KUBEBUILDER_ASSETS names (a directory with `kube-apiserver` and `etcd`, as controller-runtime's
// envtest expects). Each instance has its own temp dir (PKI, token file, etcd data, logs), free
// loopback ports, TLS with a CA made by openssl, and a bearer token of a `system:masters` user.
// Both processes are stopped (kube-apiserver first, then etcd) and the dir removed on
// destruction; if the test process dies without running destructors, the children die with it
// (PR_SET_PDEATHSIG).

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <kube/client/config.hpp>
#include <kube/client/rest_client.hpp>

namespace kube::test_support {

/// The directory KUBEBUILDER_ASSETS names, or nullopt when it is unset or empty.
inline std::optional<std::string> KubebuilderAssets() {
  const char* dir = std::getenv("KUBEBUILDER_ASSETS");
  if (dir == nullptr || *dir == '\0') return std::nullopt;
  return std::string(dir);
}

/// etcd + kube-apiserver in a private temp dir. Check `error()` after construction.
class RealApiServer {
 public:
  /// Starts both processes from `assets` and waits (up to `ready_timeout`) for /readyz.
  explicit RealApiServer(const std::string& assets,
                         std::chrono::seconds ready_timeout = std::chrono::seconds(60)) {
    Start(assets, ready_timeout);
  }
  ~RealApiServer() { Stop(); }
  RealApiServer(const RealApiServer&) = delete;
  RealApiServer& operator=(const RealApiServer&) = delete;

  /// Empty when the server is ready; else what failed (with the tail of the logs).
  const std::string& error() const { return error_; }
  /// The client configuration: https://127.0.0.1:<port>, the CA, the superuser token, no
  /// client-side throttling, a 30 s request timeout.
  const client::Config& config() const { return config_; }
  /// The temp dir (pki/, etcd/, *.log).
  const std::filesystem::path& dir() const { return dir_; }

  /// The last `bytes` of kube-apiserver's and etcd's logs.
  std::string LogTail(std::size_t bytes = 3000) const {
    std::string out;
    for (const char* name : {"etcd", "kube-apiserver"}) {
      std::ifstream in(dir_ / (std::string(name) + ".log"), std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      std::string log = ss.str();
      if (log.size() > bytes) log = "..." + log.substr(log.size() - bytes);
      out += "--- " + std::string(name) + ".log\n" + log + "\n";
    }
    return out;
  }

  /// Stops kube-apiserver, then etcd (SIGTERM, SIGKILL after 15 s), and removes the dir.
  /// Idempotent.
  void Stop() {
    StopProcess(apiserver_pid_);
    StopProcess(etcd_pid_);
    if (!dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
      dir_.clear();
    }
  }

 private:
  void Start(const std::string& assets, std::chrono::seconds ready_timeout) {
    const std::filesystem::path bin(assets);
    for (const char* name : {"etcd", "kube-apiserver"}) {
      if (::access((bin / name).c_str(), X_OK) != 0) {
        error_ = "KUBEBUILDER_ASSETS=" + assets + " has no executable " + name;
        return;
      }
    }
    char tmpl[] = "/tmp/kubecpp-real-kas-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) {
      error_ = "mkdtemp failed";
      return;
    }
    dir_ = tmpl;
    const std::filesystem::path pki = dir_ / "pki";
    std::filesystem::create_directories(pki);

    // A CA, a serving certificate it signs (127.0.0.1 and localhost), the service-account keys.
    WriteFile(pki / "san.cnf",
              "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
              "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n");
    const std::string cd = "cd '" + pki.string() + "' && ";
    for (const std::string& cmd : {
             std::string("openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 1 "
                         "-subj /CN=kubecpp-test-ca"),
             std::string("openssl req -newkey rsa:2048 -nodes -keyout serving.key -out serving.csr "
                         "-subj /CN=127.0.0.1"),
             std::string("openssl x509 -req -in serving.csr -CA ca.crt -CAkey ca.key -CAcreateserial "
                         "-out serving.crt -days 1 -extfile san.cnf"),
             std::string("openssl genrsa -out sa.key 2048"),
             std::string("openssl rsa -in sa.key -pubout -out sa.pub"),
         }) {
      const std::string full = cd + cmd + " >>openssl.log 2>&1";
      if (std::system(full.c_str()) != 0) {
        error_ = "failed: " + cmd + "\n" + ReadFile(pki / "openssl.log");
        return;
      }
    }
    std::random_device rd;
    std::string token;
    for (int i = 0; i < 4; ++i) {
      char buf[9];
      std::snprintf(buf, sizeof(buf), "%08x", static_cast<unsigned>(rd()));
      token += buf;
    }
    WriteFile(pki / "tokens.csv", token + ",kubecpp-test-admin,1000,\"system:masters\"\n");

    const auto ports = FreePorts();
    if (ports[0] == 0) {
      error_ = "no free loopback ports";
      return;
    }
    const std::string etcd_client = "http://127.0.0.1:" + std::to_string(ports[0]);
    const std::string etcd_peer = "http://127.0.0.1:" + std::to_string(ports[1]);
    const std::string p = pki.string() + "/";
    etcd_pid_ = Spawn("etcd", {(bin / "etcd").string(), "--name", "test", "--data-dir", (dir_ / "etcd").string(),
                               "--listen-client-urls", etcd_client, "--advertise-client-urls", etcd_client,
                               "--listen-peer-urls", etcd_peer, "--initial-advertise-peer-urls", etcd_peer,
                               "--initial-cluster", "test=" + etcd_peer, "--initial-cluster-state", "new"});
    apiserver_pid_ = Spawn(
        "kube-apiserver",
        {(bin / "kube-apiserver").string(), "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
         "--secure-port=" + std::to_string(ports[2]), "--etcd-servers=" + etcd_client,
         "--tls-cert-file=" + p + "serving.crt", "--tls-private-key-file=" + p + "serving.key",
         "--cert-dir=" + (dir_ / "certs").string(), "--service-account-key-file=" + p + "sa.pub",
         "--service-account-signing-key-file=" + p + "sa.key",
         "--service-account-issuer=https://kubernetes.default.svc", "--token-auth-file=" + p + "tokens.csv",
         "--authorization-mode=RBAC", "--service-cluster-ip-range=10.0.0.0/24",
         "--disable-admission-plugins=ServiceAccount", "--allow-privileged=true"});
    if (etcd_pid_ <= 0 || apiserver_pid_ <= 0) {
      error_ = "fork failed";
      return;
    }

    config_.host = "https://127.0.0.1:" + std::to_string(ports[2]);
    config_.ca_pem = ReadFile(pki / "ca.crt");
    config_.bearer_token = token;
    config_.qps = -1;
    config_.timeout = std::chrono::seconds(30);
    WaitReady(ready_timeout);
  }

  void WaitReady(std::chrono::seconds timeout) {
    client::Config probe = config_;
    probe.timeout = std::chrono::seconds(2);
    probe.max_retries = 0;
    auto rest = client::RestClient::Create(probe);
    if (!rest.ok()) {
      error_ = "client config: " + rest.error().message;
      return;
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string last;
    while (std::chrono::steady_clock::now() < deadline) {
      for (auto [pid, name] : {std::pair{&etcd_pid_, "etcd"}, std::pair{&apiserver_pid_, "kube-apiserver"}}) {
        int status = 0;
        if (::waitpid(*pid, &status, WNOHANG) == *pid) {
          *pid = -1;
          error_ = std::string(name) + " exited (status " + std::to_string(status) + ")\n" + LogTail();
          return;
        }
      }
      auto r = (*rest)->Do(client::Request{.method = "GET", .path = "/readyz"});
      if (r.ok() && r->status == 200 && r->body == "ok") return;
      last = r.ok() ? std::to_string(r->status) + " " + r->body : r.error().message;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    error_ = "kube-apiserver not ready after " + std::to_string(timeout.count()) + " s: " + last + "\n" + LogTail();
  }

  // Three distinct free loopback ports (etcd client, etcd peer, kube-apiserver): all bound at
  // once so that they differ, then released for the servers to take.
  static std::array<int, 3> FreePorts() {
    std::array<int, 3> ports{};
    std::array<int, 3> fds{-1, -1, -1};
    for (std::size_t i = 0; i < fds.size(); ++i) {
      fds[i] = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      addr.sin_port = 0;
      socklen_t len = sizeof(addr);
      if (fds[i] < 0 || ::bind(fds[i], reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
          ::getsockname(fds[i], reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
        ports = {};
        break;
      }
      ports[i] = ntohs(addr.sin_port);
    }
    for (int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
    return ports;
  }

  // Starts `argv` in its own process group, stdin /dev/null, stdout and stderr to <dir>/<name>.log.
  pid_t Spawn(const std::string& name, const std::vector<std::string>& argv) {
    const std::string log = (dir_ / (name + ".log")).string();
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::setpgid(0, 0);
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      const int in = ::open("/dev/null", O_RDONLY);
      const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (in >= 0) ::dup2(in, 0);
      if (out >= 0) {
        ::dup2(out, 1);
        ::dup2(out, 2);
      }
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    if (pid > 0) ::setpgid(pid, pid);
    return pid;
  }

  static void StopProcess(pid_t& pid) {
    if (pid <= 0) return;
    ::kill(pid, SIGTERM);
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (::waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(-pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    pid = -1;
  }

  static void WriteFile(const std::filesystem::path& path, const std::string& content) {
    std::ofstream(path, std::ios::binary) << content;
  }
  static std::string ReadFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  std::filesystem::path dir_;
  std::string error_;
  client::Config config_;
  pid_t etcd_pid_ = -1;
  pid_t apiserver_pid_ = -1;
};

}  // namespace kube::test_support
