#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <kube/base/result.hpp>

/// The kubeconfig file format (clientcmd/api/v1) and kubectl's rules for reading and merging it.
/// Field names in comments are the YAML keys.
namespace kube::client {

/// One `env` entry of an exec plugin.
struct ExecEnvVar {
  std::string name;
  std::string value;
  bool operator==(const ExecEnvVar&) const = default;
};

/// `users[].user.exec`: a credential plugin (client.authentication.k8s.io).
struct ExecConfig {
  std::string command{};                ///< command; resolved against the file's directory if it contains a '/'
  std::vector<std::string> args{};      ///< args
  std::vector<ExecEnvVar> env{};        ///< env
  std::string api_version{};            ///< apiVersion, e.g. "client.authentication.k8s.io/v1"
  std::string install_hint{};           ///< installHint: shown when the command is not found
  bool provide_cluster_info = false;    ///< provideClusterInfo: pass the cluster in KUBERNETES_EXEC_INFO
  /// interactiveMode: "Never", "IfAvailable" or "Always"; defaulted to "IfAvailable" for
  /// v1beta1 (as client-go does), required for v1.
  std::string interactive_mode{};
  bool operator==(const ExecConfig&) const = default;
};

/// `clusters[].cluster`.
struct KubeconfigCluster {
  std::string server{};                      ///< server
  std::string tls_server_name{};             ///< tls-server-name
  bool insecure_skip_tls_verify = false;     ///< insecure-skip-tls-verify
  std::string certificate_authority{};       ///< certificate-authority (a path)
  std::string certificate_authority_data{};  ///< certificate-authority-data (decoded bytes)
  std::string proxy_url{};                   ///< proxy-url
  bool disable_compression = false;          ///< disable-compression
  /// extensions["client.authentication.k8s.io/exec"] as JSON text (passed to exec plugins with
  /// provideClusterInfo), or empty.
  std::string exec_extension_json{};
  std::string location{};                    ///< the file this entry came from
  bool operator==(const KubeconfigCluster&) const = default;
};

/// `users[].user` (an AuthInfo).
struct KubeconfigUser {
  std::string client_certificate{};       ///< client-certificate (a path)
  std::string client_certificate_data{};  ///< client-certificate-data (decoded bytes)
  std::string client_key{};               ///< client-key (a path)
  std::string client_key_data{};          ///< client-key-data (decoded bytes)
  std::string token{};                    ///< token
  std::string token_file{};               ///< tokenFile (a path)
  std::string impersonate{};              ///< as
  std::string impersonate_uid{};          ///< as-uid
  std::vector<std::string> impersonate_groups{};  ///< as-groups
  std::map<std::string, std::vector<std::string>> impersonate_extra{};  ///< as-user-extra
  std::string username{};                 ///< username
  std::string password{};                 ///< password
  std::optional<ExecConfig> exec{};       ///< exec
  bool has_auth_provider = false;         ///< auth-provider is present (unsupported; see docs)
  std::string auth_provider_name{};       ///< auth-provider.name
  std::string location{};                 ///< the file this entry came from
  bool operator==(const KubeconfigUser&) const = default;
};

/// `contexts[].context`.
struct KubeconfigContext {
  std::string cluster{};    ///< cluster
  std::string user{};       ///< user
  std::string ns{};         ///< namespace
  std::string location{};   ///< the file this entry came from
  bool operator==(const KubeconfigContext&) const = default;
};

/// A parsed (or merged) kubeconfig.
struct Kubeconfig {
  std::map<std::string, KubeconfigCluster> clusters{};
  std::map<std::string, KubeconfigUser> users{};
  std::map<std::string, KubeconfigContext> contexts{};
  std::string current_context{};  ///< current-context
  bool operator==(const Kubeconfig&) const = default;
  /// True when nothing is set (client-go `IsConfigEmpty`).
  bool Empty() const;
};

/// Parses kubeconfig YAML (or JSON). `filename` is used in error messages, recorded as each
/// entry's `location`, and its directory resolves relative paths (certificate-authority,
/// client-certificate, client-key, tokenFile, and an exec command containing '/'); pass "" to
/// leave paths as written. Unknown keys are ignored; an empty document is an empty config.
/// Within one file the first entry of a given name wins.
/// **Errors:** 400 BadRequest naming the file, the entry and the field, e.g.
/// `error loading config file "/home/u/.kube/config": users[0] "alice": client-key-data: illegal
/// base64 data at input byte 4`, for YAML syntax errors (with line and column), a wrong type
/// (`insecure-skip-tls-verify: expected a boolean`), a list entry without a name, or bad base64.
Result<Kubeconfig> ParseKubeconfig(std::string_view yaml, std::string_view filename = "");

/// Reads and parses one file. **Errors:** 404 NotFound when the file does not exist (so that
/// callers can skip missing files as kubectl does), 400 for unreadable files and as ParseKubeconfig.
Result<Kubeconfig> LoadKubeconfigFile(const std::string& path);

/// kubectl's merge of a KUBECONFIG list: the first file to set a map key (a cluster, user or
/// context name) wins, and that entry is taken whole (fields from later files' entries of the
/// same name are discarded); the first file to set `current-context` wins.
Kubeconfig MergeKubeconfigs(const std::vector<Kubeconfig>& configs);

/// Splits a KUBECONFIG value on ':' , drops empty entries and duplicates (first kept), as
/// client-go's loading rules do.
std::vector<std::string> SplitKubeconfigPaths(std::string_view value);

}  // namespace kube::client
