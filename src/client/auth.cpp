#include <kube/client/auth.hpp>

#include <string>
#include <utility>

#include <kube/base/log.hpp>
#include <kube/base/mutex.hpp>

#include "client/internal/exec_plugin.hpp"
#include "client/internal/util.hpp"

namespace kube::client {
namespace {

class StaticAuthenticator final : public Authenticator {
 public:
  explicit StaticAuthenticator(std::string header) : header_(std::move(header)) {}
  Result<std::string> Authorization() override { return header_; }
  Result<bool> Refresh(std::string_view) override { return false; }

 private:
  const std::string header_;
};

/// A bearer token read from a file and re-read every `period` (client-go's cachingTokenSource
/// over a file) and right after a 401. When the file cannot be read the last good token, or
/// the static fallback, is used.
class TokenFileAuthenticator final : public Authenticator {
 public:
  TokenFileAuthenticator(std::string path, std::string fallback, Clock::Duration period, Clock& clock)
      : path_(std::move(path)), period_(period), clock_(clock), token_(std::move(fallback)) {}

  Result<std::string> Authorization() override KUBE_EXCLUDES(mu_) {
    MutexLock lock(mu_);
    const auto now = clock_.Now();
    if (!read_once_ || now - last_read_ >= period_) ReadLocked(now);
    if (token_.empty()) return TransportError("getting credentials: no token in " + path_);
    return "Bearer " + token_;
  }

  Result<bool> Refresh(std::string_view used) override KUBE_EXCLUDES(mu_) {
    MutexLock lock(mu_);
    ReadLocked(clock_.Now());
    return !token_.empty() && "Bearer " + token_ != used;
  }

 private:
  void ReadLocked(Clock::TimePoint now) KUBE_REQUIRES(mu_) {
    read_once_ = true;
    last_read_ = now;
    auto data = internal::ReadFile(path_);
    if (!data) {
      log::Warn("cannot re-read token file; keeping the previous token",
                {{"file", path_}, {"error", data.error().message}});
      return;
    }
    const std::string_view token = internal::TrimSpace(*data);
    if (token.empty()) {
      log::Warn("token file is empty; keeping the previous token", {{"file", path_}});
      return;
    }
    token_ = std::string(token);
  }

  const std::string path_;
  const Clock::Duration period_;
  Clock& clock_;
  Mutex mu_;
  std::string token_ KUBE_GUARDED_BY(mu_);
  Clock::TimePoint last_read_ KUBE_GUARDED_BY(mu_){};
  bool read_once_ KUBE_GUARDED_BY(mu_) = false;
};

/// An exec credential plugin (client-go `exec.Authenticator`): credentials are cached until
/// their expirationTimestamp (by the clock's wall time); a 401 to a request made with the
/// current credentials re-runs the plugin. The mutex also serializes plugin runs, so
/// concurrent requests wait for one run instead of starting many.
class ExecAuthenticator final : public Authenticator {
 public:
  ExecAuthenticator(ExecConfig exec, std::optional<KubeconfigCluster> cluster, std::string source,
                    std::chrono::milliseconds timeout, Clock& clock)
      : exec_(std::move(exec)),
        cluster_(std::move(cluster)),
        source_(std::move(source)),
        timeout_(timeout),
        clock_(clock) {}

  Result<std::string> Authorization() override KUBE_EXCLUDES(mu_) {
    MutexLock lock(mu_);
    KUBE_RETURN_IF_ERROR(EnsureFreshLocked());
    return HeaderLocked();
  }

  Result<bool> Refresh(std::string_view used) override KUBE_EXCLUDES(mu_) {
    MutexLock lock(mu_);
    // Someone else rotated the credentials since the failed request was sent: use those.
    if (creds_ && HeaderLocked() != used) return true;
    KUBE_RETURN_IF_ERROR(RunLocked());
    return true;
  }

  Result<std::optional<ClientCertificate>> ClientCert() override KUBE_EXCLUDES(mu_) {
    MutexLock lock(mu_);
    KUBE_RETURN_IF_ERROR(EnsureFreshLocked());
    return creds_->cert;
  }

 private:
  Result<void> EnsureFreshLocked() KUBE_REQUIRES(mu_) {
    if (creds_ && !(creds_->expiration && clock_.WallNow() >= *creds_->expiration)) return Ok();
    return RunLocked();
  }

  Result<void> RunLocked() KUBE_REQUIRES(mu_) {
    auto creds = internal::RunExecPlugin(exec_, cluster_, timeout_);
    if (!creds) return NameSource(std::move(creds).error());
    creds_ = std::move(creds).value();
    return Ok();
  }

  // "getting credentials: <why>" becomes "getting credentials: user "u" (in <file>): exec: <why>",
  // naming the kubeconfig file, the entry and the field.
  Error NameSource(Error err) const {
    if (source_.empty()) return err;
    constexpr std::string_view kPrefix = "getting credentials: ";
    std::string_view why = err.message;
    if (why.substr(0, kPrefix.size()) == kPrefix) why.remove_prefix(kPrefix.size());
    if (why.substr(0, 6) == "exec: ") why.remove_prefix(6);
    err.message = std::string(kPrefix) + source_ + ": exec: " + std::string(why);
    return err;
  }

  std::string HeaderLocked() const KUBE_REQUIRES(mu_) {
    return creds_->token.empty() ? std::string() : "Bearer " + creds_->token;
  }

  const ExecConfig exec_;
  const std::optional<KubeconfigCluster> cluster_;
  const std::string source_;  // Config::auth_source
  const std::chrono::milliseconds timeout_;
  Clock& clock_;
  Mutex mu_;
  std::optional<internal::ExecCredential> creds_ KUBE_GUARDED_BY(mu_);
};

}  // namespace

std::shared_ptr<Authenticator> StaticTokenAuthenticator(std::string token) {
  return std::make_shared<StaticAuthenticator>("Bearer " + token);
}

Result<std::shared_ptr<Authenticator>> NewAuthenticator(const Config& config, Clock& clock) {
  const bool has_token = !config.bearer_token.empty() || !config.bearer_token_file.empty();
  const bool has_basic = !config.username.empty() || !config.password.empty();
  if (has_token && has_basic) {
    return BadRequest("username/password or bearer token may be set, but not both");
  }
  if (!config.bearer_token_file.empty()) {
    return std::shared_ptr<Authenticator>(std::make_shared<TokenFileAuthenticator>(
        config.bearer_token_file, config.bearer_token, config.token_file_refresh, clock));
  }
  if (!config.bearer_token.empty()) return StaticTokenAuthenticator(config.bearer_token);
  if (has_basic) {
    return std::shared_ptr<Authenticator>(std::make_shared<StaticAuthenticator>(
        "Basic " + internal::Base64Encode(config.username + ":" + config.password)));
  }
  if (config.exec) {
    return std::shared_ptr<Authenticator>(
        std::make_shared<ExecAuthenticator>(*config.exec, config.exec_cluster, config.auth_source,
                                            config.exec_timeout, clock));
  }
  return std::shared_ptr<Authenticator>();
}

}  // namespace kube::client
