#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <kube/base/clock.hpp>
#include <kube/base/result.hpp>
#include <kube/client/http_transport.hpp>
#include <kube/client/kubeconfig.hpp>

/// Running a client.authentication.k8s.io credential plugin.
namespace kube::client::internal {

/// What a plugin returned (`ExecCredential.status`).
struct ExecCredential {
  std::string token;                          ///< status.token ("" when it returned a certificate only)
  std::optional<ClientCertificate> cert;      ///< status.clientCertificateData + clientKeyData
  std::optional<Clock::WallTime> expiration;  ///< status.expirationTimestamp; nullopt = never expires
};

/// The KUBERNETES_EXEC_INFO document: `{"kind":"ExecCredential","apiVersion":<v>,"spec":
/// {"interactive":false[,"cluster":{...}]}}`; the cluster is included with provideClusterInfo.
std::string ExecInfoJson(const ExecConfig& exec, const std::optional<KubeconfigCluster>& cluster);

/// Parses a plugin's stdout as client-go does. **Errors:** code 0, e.g. `decoding stdout: ...`,
/// `exec plugin is configured to use API version X, plugin returned version Y`, `exec plugin
/// didn't return a status field`, `exec plugin didn't return a token or cert/key pair`, `exec
/// plugin returned only certificate or key, not both`, `failed parsing client key/certificate: ...`.
Result<ExecCredential> ParseExecCredential(std::string_view stdout_text, std::string_view api_version);

/// Runs the plugin (stdin /dev/null, the process environment plus `exec.env` plus
/// KUBERNETES_EXEC_INFO) and parses its output. The plugin is killed after `timeout`.
/// **Blocks?** Until the plugin exits or the timeout. **Errors:** code 0 with messages naming the
/// command: not found (with the installHint), exit code and stderr, timeout, or ParseExecCredential's.
Result<ExecCredential> RunExecPlugin(const ExecConfig& exec, const std::optional<KubeconfigCluster>& cluster,
                                     std::chrono::milliseconds timeout);

}  // namespace kube::client::internal
