#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <kube/base/clock.hpp>
#include <kube/base/result.hpp>
#include <kube/client/config.hpp>
#include <kube/client/http_transport.hpp>

/// Request authentication: what goes into the `Authorization` header (and, for exec plugins, the
/// TLS client certificate), and what happens after a 401.
namespace kube::client {

/// Supplies credentials for requests.
/// **Thread-safety:** implementations are safe to call from many request threads at once.
class Authenticator {
 public:
  virtual ~Authenticator() = default;
  /// The `Authorization` header value for the next request ("Bearer ...", "Basic ..."), or ""
  /// for none. **Blocks?** May run an exec plugin or read a token file.
  /// **Errors:** a failed exec plugin or unreadable token file (code 0, message prefixed
  /// `getting credentials: `).
  virtual Result<std::string> Authorization() = 0;
  /// Called after the server answered 401 to a request sent with `used` (the header value
  /// `Authorization()` returned). Returns true when fresher credentials are now available, in
  /// which case the request is retried once. **Errors:** as Authorization().
  virtual Result<bool> Refresh(std::string_view used) = 0;
  /// The client certificate to present on new TLS connections, when credentials come with one
  /// (exec plugins). Default: none.
  virtual Result<std::optional<ClientCertificate>> ClientCert() { return std::optional<ClientCertificate>{}; }
};

/// The authenticator `config` asks for: bearer token file (re-read every
/// `config.token_file_refresh` on `clock`, and after a 401; the static token is the fallback when
/// the file cannot be read), static bearer token, basic auth, or exec plugin (credentials cached
/// until their `expirationTimestamp` by `clock`'s wall time, re-run after a 401); nullptr when the
/// config has no credentials. `clock` must outlive the authenticator. Exec plugin errors name
/// `config.auth_source` when set (`getting credentials: user "u" (in /k/config): exec: ...`).
/// **Errors:** 400 BadRequest when the config sets basic auth together with a token.
Result<std::shared_ptr<Authenticator>> NewAuthenticator(const Config& config,
                                                        Clock& clock = RealClock::Instance());

/// An authenticator that always sends `Authorization: Bearer <token>` and never refreshes.
std::shared_ptr<Authenticator> StaticTokenAuthenticator(std::string token);

}  // namespace kube::client
