#include "client/internal/exec_plugin.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/time.hpp>

#include "client/internal/pem.hpp"
#include "client/internal/util.hpp"

extern char** environ;

namespace kube::client::internal {
namespace {

constexpr std::size_t kMaxStdout = std::size_t{16} << 20;
constexpr std::size_t kMaxStderrKept = 4096;

Error ExecError(std::string message) { return TransportError("getting credentials: " + std::move(message)); }

struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Close(); }
  void Close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

}  // namespace

std::string ExecInfoJson(const ExecConfig& exec, const std::optional<KubeconfigCluster>& cluster) {
  boost::json::object spec;
  spec["interactive"] = false;
  if (exec.provide_cluster_info && cluster) {
    boost::json::object c;
    c["server"] = cluster->server;
    if (!cluster->tls_server_name.empty()) c["tls-server-name"] = cluster->tls_server_name;
    if (cluster->insecure_skip_tls_verify) c["insecure-skip-tls-verify"] = true;
    if (!cluster->certificate_authority_data.empty()) {
      c["certificate-authority-data"] = Base64Encode(cluster->certificate_authority_data);
    }
    if (!cluster->proxy_url.empty()) c["proxy-url"] = cluster->proxy_url;
    if (cluster->disable_compression) c["disable-compression"] = true;
    if (!cluster->exec_extension_json.empty()) {
      boost::system::error_code ec;
      auto v = boost::json::parse(cluster->exec_extension_json, ec);
      if (!ec) c["config"] = std::move(v);
    }
    spec["cluster"] = std::move(c);
  }
  boost::json::object root;
  root["kind"] = "ExecCredential";
  root["apiVersion"] = exec.api_version;
  root["spec"] = std::move(spec);
  return boost::json::serialize(root);
}

Result<ExecCredential> ParseExecCredential(std::string_view stdout_text, std::string_view api_version) {
  auto parsed = ParseJson(TrimSpace(stdout_text));
  if (!parsed) return ExecError("decoding stdout: " + parsed.error().message);
  if (!parsed->is_object()) return ExecError("decoding stdout: expected a JSON object");
  const auto& root = parsed->get_object();
  const auto str = [&](const boost::json::object& o, std::string_view key) -> std::string {
    const auto* v = o.if_contains(key);
    return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
  };
  const std::string kind = str(root, "kind");
  const std::string version = str(root, "apiVersion");
  if (kind != "ExecCredential") {
    return ExecError("decoding stdout: expected kind \"ExecCredential\", got " + Quote(kind));
  }
  if (version != api_version) {
    return ExecError("exec plugin is configured to use API version " + std::string(api_version) +
                     ", plugin returned version " + (version.empty() ? std::string("\"\"") : version));
  }
  const auto* status_v = root.if_contains("status");
  if (status_v == nullptr || status_v->is_null()) return ExecError("exec plugin didn't return a status field");
  if (!status_v->is_object()) return ExecError("decoding stdout: status: expected an object");
  const auto& status = status_v->get_object();
  ExecCredential out;
  out.token = str(status, "token");
  const std::string cert = str(status, "clientCertificateData");
  const std::string key = str(status, "clientKeyData");
  if (out.token.empty() && cert.empty() && key.empty()) {
    return ExecError("exec plugin didn't return a token or cert/key pair");
  }
  if (cert.empty() != key.empty()) return ExecError("exec plugin returned only certificate or key, not both");
  if (!cert.empty()) {
    if (auto ok = CheckKeyPair(cert, key); !ok) {
      return ExecError("failed parsing client key/certificate: " + ok.error().message);
    }
    out.cert = ClientCertificate{cert, key};
  }
  if (const auto* exp = status.if_contains("expirationTimestamp"); exp != nullptr && !exp->is_null()) {
    if (!exp->is_string()) return ExecError("decoding stdout: status.expirationTimestamp: expected a string");
    auto t = ParseTime(exp->get_string());
    if (!t) return ExecError("decoding stdout: status.expirationTimestamp: " + t.error().message);
    out.expiration = *t;
  }
  return out;
}

Result<ExecCredential> RunExecPlugin(const ExecConfig& exec, const std::optional<KubeconfigCluster>& cluster,
                                     std::chrono::milliseconds timeout) {
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return ExecError(std::string("exec: pipe: ") + std::strerror(errno));
  Fd out_r(out_pipe[0]), out_w(out_pipe[1]);
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return ExecError(std::string("exec: pipe: ") + std::strerror(errno));
  Fd err_r(err_pipe[0]), err_w(err_pipe[1]);

  // Environment: ours, then the configured variables (overriding), then KUBERNETES_EXEC_INFO.
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view kv(*e);
    const auto eq = kv.find('=');
    const std::string_view name = kv.substr(0, eq);
    bool overridden = name == "KUBERNETES_EXEC_INFO";
    for (const auto& v : exec.env) overridden = overridden || v.name == name;
    if (!overridden) env.emplace_back(kv);
  }
  for (const auto& v : exec.env) env.push_back(v.name + "=" + v.value);
  env.push_back("KUBERNETES_EXEC_INFO=" + ExecInfoJson(exec, cluster));
  std::vector<char*> envp;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_s;
  argv_s.push_back(exec.command);
  for (const auto& a : exec.args) argv_s.push_back(a);
  std::vector<char*> argv;
  for (auto& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_w.fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_w.fd, 2);
  pid_t pid = -1;
  const bool has_slash = exec.command.find('/') != std::string::npos;
  const int rc = has_slash ? ::posix_spawn(&pid, exec.command.c_str(), &actions, nullptr, argv.data(), envp.data())
                           : ::posix_spawnp(&pid, exec.command.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  out_w.Close();
  err_w.Close();
  if (rc != 0) {
    if (rc == ENOENT) {
      std::string msg = "exec: executable " + exec.command + " not found";
      if (!exec.install_hint.empty()) {
        msg += "\n\nIt looks like you are trying to use a client-go credential plugin that is not installed.\n\n" +
               exec.install_hint;
      }
      return ExecError(std::move(msg));
    }
    return ExecError("exec: " + exec.command + ": " + std::strerror(rc));
  }

  std::string out;
  std::string err;
  bool out_open = true;
  bool err_open = true;
  bool timed_out = false;
  bool too_big = false;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (out_open || err_open) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd fds[2];
    int n = 0;
    if (out_open) fds[n++] = {out_r.fd, POLLIN, 0};
    if (err_open) fds[n++] = {err_r.fd, POLLIN, 0};
    const int ready = ::poll(fds, static_cast<nfds_t>(n), static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < n; ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      char buf[8192];
      const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      const bool is_out = fds[i].fd == out_r.fd;
      if (got <= 0) {
        if (got < 0 && errno == EINTR) continue;
        (is_out ? out_open : err_open) = false;
        continue;
      }
      if (is_out) {
        out.append(buf, static_cast<std::size_t>(got));
        if (out.size() > kMaxStdout) too_big = true;
      } else {
        err.append(buf, static_cast<std::size_t>(got));
        if (err.size() > 2 * kMaxStderrKept) err.erase(0, err.size() - kMaxStderrKept);
      }
    }
    if (too_big) break;
  }
  if (timed_out || too_big) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    return ExecError("exec: executable " + exec.command + " did not finish within " +
                     std::to_string(timeout.count()) + "ms and was killed");
  }
  if (too_big) return ExecError("exec: executable " + exec.command + " wrote more than 16 MiB to stdout");
  std::string err_tail(TrimSpace(err));
  if (err_tail.size() > kMaxStderrKept) err_tail = "..." + err_tail.substr(err_tail.size() - kMaxStderrKept);
  if (WIFSIGNALED(status)) {
    return ExecError("exec: executable " + exec.command + " was terminated by signal " +
                     std::to_string(WTERMSIG(status)) + (err_tail.empty() ? "" : ": " + err_tail));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    return ExecError("exec: executable " + exec.command + " failed with exit code " +
                     std::to_string(WEXITSTATUS(status)) + (err_tail.empty() ? "" : ": " + err_tail));
  }
  return ParseExecCredential(out, exec.api_version);
}

}  // namespace kube::client::internal
