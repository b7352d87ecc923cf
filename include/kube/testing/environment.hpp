#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <kube/base/result.hpp>
#include <kube/client/config.hpp>
#include <kube/client/rest_client.hpp>

namespace kube::apiserver {
class ApiServer;
struct ApiServerOptions;
}  // namespace kube::apiserver

/// controller-runtime's envtest for C++: an API server for a test, with CRDs installed and
/// users to act as. See docs/testing.md.
namespace kube::testing {

/// Which API server `TestEnvironment::Start` runs.
enum class ControlPlane {
  /// The real one when the environment variable `KUBECPP_TEST_REAL` is `1` or `true`, else the
  /// embedded one: a test suite written for the embedded server can be run against the real
  /// binaries without edits (envtest's USE_EXISTING_CLUSTER plays the same part).
  kFromEnvironment,
  /// The embedded kubecpp server, in this process, whatever the environment says.
  kEmbedded,
  /// etcd + kube-apiserver, whatever the environment says.
  kReal,
};

/// The environment variable that forces `ControlPlane::kFromEnvironment` to the real server.
inline constexpr std::string_view kRealEnvVar = "KUBECPP_TEST_REAL";
/// The environment variable naming the directory with `etcd` and `kube-apiserver` (envtest's).
inline constexpr std::string_view kAssetsEnvVar = "KUBEBUILDER_ASSETS";
/// Where the binaries are looked for when neither the option nor KUBEBUILDER_ASSETS names a
/// directory (envtest's default).
inline constexpr std::string_view kDefaultAssetsDirectory = "/usr/local/kubebuilder/bin";
/// The reason of `AddUser`'s error on the embedded server (with code 501).
inline constexpr std::string_view kReasonNotImplemented = "NotImplemented";

/// What `InstallCrds` installs (envtest's CRDInstallOptions).
struct CrdInstallOptions {
  /// Files, or directories whose `*.yaml`, `*.yml` and `*.json` files are read (not recursively,
  /// in name order). A file may hold several YAML documents separated by `---` lines; documents
  /// that are not an apiextensions.k8s.io/v1 CustomResourceDefinition are skipped, as are empty
  /// ones. A path that does not exist is skipped unless `error_if_path_missing`.
  std::vector<std::string> paths{};
  /// CustomResourceDefinitions as JSON (or YAML) text, e.g. `kube::api::CrdJson<MyResource>()`.
  /// Each must be an apiextensions.k8s.io/v1 CustomResourceDefinition.
  std::vector<std::string> crds{};
  /// A missing entry of `paths` is an error (envtest's ErrorIfCRDPathMissing).
  bool error_if_path_missing = false;
  /// How long to wait, for all the CRDs together, until each is Established and its resources
  /// appear in discovery (envtest's WaitForCRDs).
  std::chrono::milliseconds timeout = std::chrono::seconds(30);
};

/// The options of `TestEnvironment::Start`. Defaults: the embedded server unless
/// KUBECPP_TEST_REAL says otherwise, no CRDs.
struct TestEnvironmentOptions {
  ControlPlane control_plane = ControlPlane::kFromEnvironment;
  /// The directory with `etcd` and `kube-apiserver` for the real server; empty = the
  /// KUBEBUILDER_ASSETS environment variable, else `kDefaultAssetsDirectory`.
  std::string binary_assets_directory{};
  /// CRDs installed (and waited for) before Start returns: as `CrdInstallOptions::paths`.
  std::vector<std::string> crd_paths{};
  /// As `CrdInstallOptions::crds`.
  std::vector<std::string> crds{};
  /// As `CrdInstallOptions::error_if_path_missing`.
  bool error_if_crd_path_missing = false;
  /// As `CrdInstallOptions::timeout`.
  std::chrono::milliseconds crd_install_timeout = std::chrono::seconds(30);
  /// How long the real kube-apiserver may take to answer `GET /readyz` with `ok` (envtest's
  /// ControlPlaneStartTimeout).
  std::chrono::milliseconds start_timeout = std::chrono::seconds(60);
  /// How long each real process is given to exit after SIGTERM before it (and its process
  /// group) gets SIGKILL (envtest's ControlPlaneStopTimeout).
  std::chrono::milliseconds stop_timeout = std::chrono::seconds(15);
  /// Extra kube-apiserver flags (`--name=value`), after the defaults, so that they override them.
  std::vector<std::string> kube_apiserver_flags{};
  /// Adjusts the embedded server's options (bookmark interval, compaction, controllers) before
  /// it starts. Changing `tls`, `authenticate`, `data_dir` or `storage` is allowed; `config()`
  /// follows the server that results.
  std::function<void(apiserver::ApiServerOptions&)> configure_embedded{};
};

/// A user to act as (envtest's `envtest.User`).
struct User {
  std::string name{};                 ///< the user name (a client certificate's CN)
  std::vector<std::string> groups{};  ///< its groups (the certificate's O entries)
};

/// One RBAC rule (rbac.authorization.k8s.io/v1 PolicyRule).
struct PolicyRule {
  std::vector<std::string> verbs{};           ///< e.g. {"get", "list"}
  std::vector<std::string> api_groups{};      ///< "" is the core group
  std::vector<std::string> resources{};       ///< e.g. {"configmaps"}
  std::vector<std::string> resource_names{};  ///< empty = all
};

/// What `AddUser` grants besides the groups' own permissions.
struct UserPermissions {
  /// Rules of a role bound to the user; empty = no role, no binding.
  std::vector<PolicyRule> rules{};
  /// "" = a ClusterRole and ClusterRoleBinding named `kubecpp-testenv:<user>`; else a Role and
  /// RoleBinding of that name in this (existing) namespace.
  std::string ns{};
};

/// An API server for tests, as controller-runtime's envtest gives one.
///
/// **The embedded mode** (the default) runs kubecpp's own server in this process: memory
/// storage, `https://127.0.0.1:<ephemeral port>`, a certificate from its own CA and a bearer
/// token, as a real cluster has (so that `config()` exercises TLS and authentication).
/// It starts in milliseconds and needs no binaries. It authenticates only that one token and
/// enforces no RBAC: `AddUser` is not available there.
///
/// **The real mode** runs etcd and kube-apiserver from `binary_assets_directory` (else
/// KUBEBUILDER_ASSETS) as child processes, each instance in its own temp dir (PKI, token file,
/// etcd data, logs) on free loopback ports, with RBAC authorization. The PKI (a serving CA and
/// certificate for 127.0.0.1/localhost, a client CA for `AddUser`, the service-account key pair)
/// is made with OpenSSL's library API. Ports are found by binding port 0 (all three at once, so
/// they differ) and released just before the processes start; if etcd or kube-apiserver then
/// exits because its port was taken meanwhile, both are restarted on fresh ports (3 attempts).
/// The children get PR_SET_PDEATHSIG, so they die with the test process even when no
/// destructor runs.
///
/// **Thread-safety:** the accessors, `InstallCrds` and `AddUser` may be called concurrently;
/// `Stop` and destruction by the owner only, once nothing else uses the environment.
/// **Lifetime:** the destructor calls `Stop`. Configs and clients obtained from it keep working
/// as objects but talk to nothing once it has stopped.
/// Tokens and keys are never logged nor put into error messages.
class TestEnvironment final {
 public:
  /// Starts the server chosen by `options.control_plane`, waits until it is ready, then installs
  /// the CRDs of the options and waits for them.
  /// **Blocks?** Yes: up to `start_timeout` (real mode) plus `crd_install_timeout`.
  /// **Errors:** 400 BadRequest for missing binaries (naming the directory and where it came
  /// from); 500 InternalError when the temp dir, PKI or a process cannot be made, or a process
  /// exits during startup (with the tail of the logs); 504 Timeout when /readyz does not answer
  /// `ok` in time (with the tail of the logs); the errors of `InstallCrds`. Whatever was
  /// started is stopped and the temp dir removed before the error is returned.
  static Result<std::unique_ptr<TestEnvironment>> Start(TestEnvironmentOptions options = {});

  struct Impl;
  /// Construction goes through Start (the tag is only constructible there).
  class PrivateTag {
    friend class TestEnvironment;
    PrivateTag() = default;
  };
  TestEnvironment(PrivateTag, std::unique_ptr<Impl> impl);
  ~TestEnvironment();
  TestEnvironment(const TestEnvironment&) = delete;
  TestEnvironment& operator=(const TestEnvironment&) = delete;

  /// The superuser's configuration: the server URL, its CA, and the bearer token of a
  /// `system:masters` user (real) or the embedded server's token; no client-side throttling,
  /// a 30 s request timeout. Valid as long as the environment.
  const client::Config& config() const;
  /// A REST client for `config()`, shared (built once at Start).
  const std::shared_ptr<client::RestClient>& rest() const;
  /// A new REST client for `config()`. **Errors:** as `client::RestClient::Create`.
  Result<std::shared_ptr<client::RestClient>> NewRestClient(client::RestClientOptions options = {}) const;
  /// The server URL, "https://127.0.0.1:<port>" (http:// when `configure_embedded` turned TLS off).
  const std::string& url() const;
  /// Whether this is etcd + kube-apiserver rather than the embedded server.
  bool is_real() const;
  /// A kubeconfig file for the superuser (for kubectl: `kubectl --kubeconfig <path> get crd`),
  /// inside `dir()`; "" when the embedded server was configured without a data dir.
  const std::string& kubeconfig_path() const;
  /// The temp dir of this instance (the embedded server's data dir unless `configure_embedded`
  /// chose another; the real server's PKI, etcd data and logs), removed by Stop.
  const std::filesystem::path& dir() const;
  /// The embedded server (its storage and registry), or nullptr in real mode.
  apiserver::ApiServer* embedded_server() const;
  /// The process ids of kube-apiserver and etcd while they run (real mode; empty otherwise).
  std::vector<int> process_ids() const;

  /// Installs CRDs as `Start` does (envtest's InstallCRDs + WaitForCRDs): creates each (or
  /// updates it when it exists), then waits until every one is Established and each served
  /// version lists its resource in discovery. Returns the names of the CRDs installed, in order.
  /// **Blocks?** Up to `options.timeout`.
  /// **Errors:** 404 NotFound for a missing path when `error_if_path_missing`; 400 BadRequest
  /// naming the file (or `crds[i]`) and the 1-based document index for a document that does not
  /// parse, is not an object, or is a CRD of another apiVersion or without name, group, plural
  /// or served version; the server's error (its code and reason, the message prefixed with the
  /// CRD and where it came from) when it refuses a CRD; 504 Timeout naming the CRDs not yet
  /// established or discovered.
  Result<std::vector<std::string>> InstallCrds(const CrdInstallOptions& options);

  /// A configuration authenticating as `user` (envtest's AddUser): on the real server, a client
  /// certificate (CN = name, O = groups) signed by the client CA kube-apiserver trusts; with
  /// `permissions.rules`, a (Cluster)Role with those rules bound to the user is created first.
  /// A user in `system:masters` is a superuser; any other user can do only what RBAC grants.
  /// **Errors:** 501 with reason `kReasonNotImplemented` on the embedded server (it
  /// authenticates only its own token and enforces no RBAC, so it cannot tell users apart);
  /// 400 BadRequest for an empty name; the server's error when the role or binding cannot be
  /// created (409 AlreadyExists when that user was given rules before).
  Result<client::Config> AddUser(const User& user, const UserPermissions& permissions = {});

  /// Stops the server (real: kube-apiserver, then etcd; SIGTERM, then SIGKILL after
  /// `stop_timeout`) and removes the temp dir. Idempotent.
  /// **Blocks?** Until the processes are reaped (at most about twice `stop_timeout`).
  void Stop();

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace kube::testing
