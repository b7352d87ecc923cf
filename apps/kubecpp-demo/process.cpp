#include "process.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

namespace kube::demo {

std::unique_ptr<ChildProcess> ChildProcess::Start(std::string name, std::vector<std::string> argv,
                                                  std::string log_path) {
  std::unique_ptr<ChildProcess> child(new ChildProcess(std::move(name), std::move(log_path)));
  const int log_fd = ::open(child->log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    child->error_ = "cannot open " + child->log_path_ + ": " + std::strerror(errno);
    return child;
  }
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(log_fd);
  if (pid < 0) {
    child->error_ = std::string("fork: ") + std::strerror(errno);
    return child;
  }
  MutexLock lock(child->mu_);
  child->pid_ = pid;
  return child;
}

ChildProcess::~ChildProcess() { Stop(); }

bool ChildProcess::RunningLocked() {
  if (pid_ <= 0 || status_) return false;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    status_ = status;
    return false;
  }
  return r == 0;
}

bool ChildProcess::Running() {
  MutexLock lock(mu_);
  return RunningLocked();
}

std::optional<int> ChildProcess::Stop(std::chrono::milliseconds grace) {
  {
    MutexLock lock(mu_);
    if (!RunningLocked()) return std::nullopt;
    ::kill(pid_, SIGTERM);
  }
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (std::chrono::steady_clock::now() < deadline) {
    {
      MutexLock lock(mu_);
      if (!RunningLocked()) return status_;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  MutexLock lock(mu_);
  if (!RunningLocked()) return status_;
  ::kill(pid_, SIGKILL);
  int status = 0;
  if (::waitpid(pid_, &status, 0) == pid_) status_ = status;
  return status_;
}

int FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  int port = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

namespace {

bool WaitFd(int fd, short events, std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return false;
  pollfd p{fd, events, 0};
  return ::poll(&p, 1, static_cast<int>(left.count())) == 1;
}

}  // namespace

std::optional<std::string> HttpGet(int port, const std::string& path, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return std::nullopt;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  std::string response;
  bool ok = false;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 || errno == EINPROGRESS) {
    int err = 0;
    socklen_t len = sizeof(err);
    if (WaitFd(fd, POLLOUT, deadline) && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0) {
      const std::string request = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
      size_t sent = 0;
      while (sent < request.size() && WaitFd(fd, POLLOUT, deadline)) {
        const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) break;
        sent += static_cast<size_t>(n);
      }
      if (sent == request.size()) {
        char buf[16384];
        while (WaitFd(fd, POLLIN, deadline)) {
          const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
          if (n < 0 && errno == EAGAIN) continue;
          if (n <= 0) {
            ok = n == 0;
            break;
          }
          response.append(buf, static_cast<size_t>(n));
        }
      }
    }
  }
  ::close(fd);
  if (!ok || response.rfind("HTTP/1.", 0) != 0 || response.find(" 200") != response.find(' ')) return std::nullopt;
  const auto body = response.find("\r\n\r\n");
  if (body == std::string::npos) return std::nullopt;
  return response.substr(body + 4);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace kube::demo
