#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <kube/base/clock.hpp>
#include <kube/base/result.hpp>
#include <kube/client/kubeconfig.hpp>

/// The REST client configuration (client-go `rest.Config`) and how to obtain it: from kubeconfig
/// files with client-go's precedence and kubectl's merge rules, or from in-cluster service
/// account files.
namespace kube::client {

/// The kubecpp version string, e.g. "0.1.0".
std::string_view Version();
/// The default User-Agent: `kubecpp/<version> (linux/amd64)`.
std::string DefaultUserAgent();

/// client-go's default client-side rate limit (`rest.Config` QPS and Burst).
inline constexpr double kDefaultQps = 5.0;
inline constexpr int kDefaultBurst = 10;

/// Everything a RestClient needs to reach and authenticate to one API server.
/// PEM material is held as data: loaders read the files named in a kubeconfig up front, so that
/// a bad file is reported with the kubeconfig entry that named it.
struct Config {
  /// Server URL, "https://host:port" optionally followed by a path prefix that is prepended to
  /// every API path (e.g. "https://rancher/k8s/clusters/c-1").
  std::string host{};

  // --- TLS ---
  std::string ca_pem{};           ///< trusted roots; empty = system roots
  std::string client_cert_pem{};  ///< client certificate chain; empty = none
  std::string client_key_pem{};   ///< its key
  std::string tls_server_name{};  ///< verify the server certificate against this name
  bool insecure_skip_tls_verify = false;

  // --- authentication (at most one of token / basic; exec used when neither is set) ---
  std::string bearer_token{};       ///< static bearer token
  /// A file holding the bearer token, re-read every `token_file_refresh` (and after a 401);
  /// when readable it takes precedence over `bearer_token`, as in client-go.
  std::string bearer_token_file{};
  std::string username{};  ///< basic auth
  std::string password{};
  std::optional<ExecConfig> exec{};  ///< exec credential plugin
  /// Cluster info passed to an exec plugin with provideClusterInfo (the kubeconfig cluster entry).
  std::optional<KubeconfigCluster> exec_cluster{};
  /// Where the credentials were configured, e.g. `user "alice" (in /home/a/.kube/config)`;
  /// credential errors at request time (a failing exec plugin) name it, so that a bad entry can
  /// be found. Empty = not from a kubeconfig.
  std::string auth_source{};

  // --- impersonation (kubeconfig `as`, `as-uid`, `as-groups`, `as-user-extra`) ---
  std::string impersonate_user{};
  std::string impersonate_uid{};
  std::vector<std::string> impersonate_groups{};
  std::map<std::string, std::vector<std::string>> impersonate_extra{};

  // --- transport and client behaviour ---
  std::string proxy_url{};  ///< http://host:port proxy (CONNECT); empty = direct
  /// Client-side rate limit (client-go defaults: 5 QPS, burst 10). 0 means the default;
  /// a negative qps disables client-side throttling.
  double qps = kDefaultQps;
  int burst = kDefaultBurst;
  /// Deadline for each non-watch request (connect to last byte); zero = none (client-go's default).
  Clock::Duration timeout = Clock::Duration::zero();
  /// How many times a response with `Retry-After` (429 or 5xx), or a GET that hit a connection
  /// reset, is retried (client-go: 10).
  int max_retries = 10;
  /// User-Agent header; empty = DefaultUserAgent().
  std::string user_agent{};
  /// LISTs and WATCHes of the built-in kinds (the group-versions of <kube/core/protobuf.hpp>'s
  /// table) ask for protobuf first (`Accept: application/vnd.kubernetes.protobuf,
  /// application/json`), as client-go's typed clientset does: kube-apiserver encodes it faster
  /// and sends it smaller, and the client transcodes it to the JSON the server would have sent.
  /// A server that answers JSON (custom resources, the embedded server) is read as JSON. A list
  /// with a field this build does not know is asked for again as JSON; a watch event with one
  /// ends the watch with a 415 (the informer re-watches); JSON is used from then on.
  /// false = always JSON.
  bool protobuf = true;
  /// How often `bearer_token_file` is re-read (client-go: 1 minute).
  Clock::Duration token_file_refresh = std::chrono::minutes(1);
  /// The longest an exec plugin may run before it is killed (client-go has no limit; a hung
  /// plugin would otherwise block every request).
  std::chrono::milliseconds exec_timeout = std::chrono::minutes(2);
};

/// Overrides applied on top of a kubeconfig (kubectl's --context, --cluster, --user, --namespace).
struct ConfigOverrides {
  std::string context{};  ///< use this context instead of current-context
  std::string cluster{};  ///< use this cluster instead of the context's
  std::string user{};     ///< use this user instead of the context's
  std::string ns{};       ///< use this namespace instead of the context's
};

/// Where in-cluster configuration comes from (injectable for tests).
struct InClusterOptions {
  /// The service account directory holding `token`, `ca.crt` and `namespace`.
  std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
};

/// Environment lookup; empty function = `std::getenv`.
using GetEnvFunc = std::function<std::optional<std::string>(std::string_view name)>;

/// A Config plus the namespace it selects and where it came from.
struct LoadedConfig {
  Config config{};
  /// The namespace: the override, else the context's, else (in-cluster) the service account's,
  /// else "default".
  std::string ns = "default";
  /// "kubeconfig <paths>" or "in-cluster", for logs.
  std::string source{};
  /// The context used ("" in-cluster).
  std::string context{};
};

/// Options of `LoadConfig`.
struct LoadOptions {
  /// Explicit kubeconfig path (--kubeconfig); when set it is the only file read and must exist.
  std::string kubeconfig_path{};
  ConfigOverrides overrides{};
  InClusterOptions in_cluster{};
  GetEnvFunc getenv{};  ///< empty = std::getenv
};

/// Loads the configuration with client-go / controller-runtime precedence:
/// 1. `options.kubeconfig_path` when set;
/// 2. else the files in `KUBECONFIG` (':'-separated, merged with `MergeKubeconfigs`; missing
///    files are skipped);
/// 3. else in-cluster config when `KUBERNETES_SERVICE_HOST` and `_PORT` are set;
/// 4. else `$HOME/.kube/config`.
/// **Errors:** 400 BadRequest naming the file, entry and field for any bad kubeconfig (see
/// `ConfigFromKubeconfig`); 404 NotFound for a missing explicit file; 400 "no configuration has
/// been provided" when nothing applies.
Result<LoadedConfig> LoadConfig(const LoadOptions& options = {});

/// Builds a Config from a (merged) kubeconfig, as client-go's `DirectClientConfig.ClientConfig`:
/// picks the context (override, else current-context), its cluster and user (or their
/// overrides), validates them as client-go's `ConfirmUsable`, decodes and reads the certificate
/// material and checks that it parses as PEM, and reads `tokenFile` once.
/// **Errors:** 400 BadRequest `invalid configuration: ...` naming the file (the entry's
/// location), the entry and the field, e.g. `context "dev" (in /k/config): cluster "x" not
/// found`, `user "alice" (in /k/config): client-certificate "/k/c.pem": No such file or
/// directory`, `cluster "prod" (in /k/config): certificate-authority-data: not valid PEM`,
/// `more than one authentication method found for "alice"; found [token basicAuth]`.
Result<LoadedConfig> ConfigFromKubeconfig(const Kubeconfig& kubeconfig,
                                          const ConfigOverrides& overrides = {});

/// In-cluster configuration (client-go `rest.InClusterConfig`): host from
/// `KUBERNETES_SERVICE_HOST`/`KUBERNETES_SERVICE_PORT` (IPv6 hosts bracketed), CA from
/// `<dir>/ca.crt`, bearer token re-read from `<dir>/token`, namespace from `POD_NAMESPACE`, else
/// `<dir>/namespace`, else "default".
/// **Errors:** 400 BadRequest `unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST
/// and KUBERNETES_SERVICE_PORT must be defined`; 400 naming the file when the token or CA
/// cannot be read or the CA is not PEM.
Result<LoadedConfig> InClusterConfig(const InClusterOptions& options = {}, const GetEnvFunc& getenv = {});

}  // namespace kube::client
