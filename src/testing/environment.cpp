#include <kube/testing/environment.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

#include <boost/json.hpp>
#include <fmt/format.h>

#include <kube/apiserver/apiserver.hpp>
#include <kube/base/error.hpp>
#include <kube/base/log.hpp>

#include "testing/internal/control_plane.hpp"
#include "testing/internal/crd_manifests.hpp"

namespace kube::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using SteadyClock = std::chrono::steady_clock;

constexpr auto kPollInterval = std::chrono::milliseconds(50);
/// How long AddUser waits for a new binding to take effect in kube-apiserver's authorizer.
constexpr auto kRbacPropagationTimeout = std::chrono::seconds(10);
constexpr std::string_view kCrdCollection = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
constexpr std::string_view kRbacApiVersion = "rbac.authorization.k8s.io/v1";
constexpr std::string_view kRbacGroup = "rbac.authorization.k8s.io";

std::string GetEnv(std::string_view name) {
  const char* v = std::getenv(std::string(name).c_str());
  return v != nullptr ? std::string(v) : std::string();
}

bool UseReal(ControlPlane choice) {
  switch (choice) {
    case ControlPlane::kEmbedded:
      return false;
    case ControlPlane::kReal:
      return true;
    case ControlPlane::kFromEnvironment: {
      const std::string v = GetEnv(kRealEnvVar);
      return v == "1" || v == "true";
    }
  }
  return false;
}

/// The binaries' directory and where it came from (for error messages).
std::pair<std::string, std::string> AssetsDirectory(const TestEnvironmentOptions& options) {
  if (!options.binary_assets_directory.empty()) {
    return {options.binary_assets_directory, "TestEnvironmentOptions::binary_assets_directory"};
  }
  if (std::string env = GetEnv(kAssetsEnvVar); !env.empty()) return {env, std::string(kAssetsEnvVar)};
  return {std::string(kDefaultAssetsDirectory), "the default directory (KUBEBUILDER_ASSETS is not set)"};
}

Result<fs::path> MakeTempDir() {
  std::error_code ec;
  fs::path base = fs::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string tmpl = (base / "kubecpp-testenv-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    return InternalError(fmt::format("mkdtemp {}: {}", tmpl, std::strerror(errno)));
  }
  return fs::path(tmpl);
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// `err` with its message prefixed (code, reason and details kept, so that it classifies as
/// the server's error).
Error Prefixed(Error err, const std::string& prefix) {
  err.message = prefix + ": " + err.message;
  return err;
}

json::array StringArray(const std::vector<std::string>& v) {
  json::array out;
  for (const std::string& s : v) out.emplace_back(s);
  return out;
}

/// Why `crd` (a GET response) is not Established yet, or "" when it is.
std::string NotEstablishedReason(const json::value& crd) {
  const json::value* conditions = crd.is_object() ? crd.get_object().if_contains("status") : nullptr;
  if (conditions != nullptr && conditions->is_object()) conditions = conditions->get_object().if_contains("conditions");
  if (conditions == nullptr || !conditions->is_array()) return "no status conditions yet";
  for (const json::value& c : conditions->get_array()) {
    if (!c.is_object()) continue;
    const json::object& o = c.get_object();
    const json::value* type = o.if_contains("type");
    if (type == nullptr || !type->is_string() || type->get_string() != "Established") continue;
    const json::value* status = o.if_contains("status");
    if (status != nullptr && status->is_string() && status->get_string() == "True") return "";
    const json::value* message = o.if_contains("message");
    return fmt::format("Established is not True ({})",
                       message != nullptr && message->is_string() ? std::string(message->get_string()) : "no message");
  }
  return "no Established condition yet";
}

/// Whether the legacy discovery document of a group-version (a GET response body) lists `plural`.
bool DiscoveryLists(std::string_view body, std::string_view plural) {
  boost::system::error_code ec;
  const json::value doc = json::parse(body, ec);
  if (ec || !doc.is_object()) return false;
  const json::value* resources = doc.get_object().if_contains("resources");
  if (resources == nullptr || !resources->is_array()) return false;
  for (const json::value& r : resources->get_array()) {
    const json::value* name = r.is_object() ? r.get_object().if_contains("name") : nullptr;
    if (name != nullptr && name->is_string() && name->get_string() == plural) return true;
  }
  return false;
}

/// Why `crd` cannot be used yet, or "" when it is Established and discovered.
std::string CrdPending(client::RestClient& rest, const internal::CrdManifest& crd) {
  auto got = rest.Do({.method = "GET", .path = std::string(kCrdCollection) + "/" + crd.name});
  if (!got.ok()) return "GET: " + got.error().message;
  boost::system::error_code ec;
  const json::value obj = json::parse(got->body, ec);
  if (ec) return "GET: the response is not JSON";
  if (std::string why = NotEstablishedReason(obj); !why.empty()) return why;
  for (const std::string& version : crd.served_versions) {
    const std::string gv = crd.group + "/" + version;
    auto doc = rest.Do({.method = "GET", .path = "/apis/" + gv});
    if (!doc.ok()) return fmt::format("discovery of {}: {}", gv, doc.error().message);
    if (!DiscoveryLists(doc->body, crd.plural)) return fmt::format("{} not yet in the discovery of {}", crd.plural, gv);
  }
  return "";
}

/// Creates `crd`, or replaces the one of that name (as envtest's CreateCRDs does).
Result<void> CreateOrUpdateCrd(client::RestClient& rest, const internal::CrdManifest& crd) {
  const std::string where = fmt::format("install CRD {} (from {})", crd.name, crd.source);
  const GroupResource gr{"apiextensions.k8s.io", "customresourcedefinitions"};
  auto created = rest.Do({.method = "POST",
                          .path = std::string(kCrdCollection),
                          .body = json::serialize(crd.object),
                          .resource = gr,
                          .name = crd.name});
  if (created.ok()) return Ok();
  if (!IsAlreadyExists(created.error())) return Prefixed(std::move(created).error(), where);
  const std::string path = std::string(kCrdCollection) + "/" + crd.name;
  auto existing = rest.Do({.method = "GET", .path = path, .resource = gr, .name = crd.name});
  if (!existing.ok()) return Prefixed(std::move(existing).error(), where);
  boost::system::error_code ec;
  json::value live = json::parse(existing->body, ec);
  const json::value* rv = ec ? nullptr : live.find_pointer("/metadata/resourceVersion", ec);
  if (ec || rv == nullptr || !rv->is_string()) return InternalError(where + ": the existing CRD has no resourceVersion");
  json::object updated = crd.object;
  updated["metadata"].as_object()["resourceVersion"] = *rv;
  auto put = rest.Do({.method = "PUT", .path = path, .body = json::serialize(updated), .resource = gr, .name = crd.name});
  if (!put.ok()) return Prefixed(std::move(put).error(), where);
  return Ok();
}

json::object RuleJson(const PolicyRule& rule) {
  json::object o{{"verbs", StringArray(rule.verbs)}, {"apiGroups", StringArray(rule.api_groups)},
                 {"resources", StringArray(rule.resources)}};
  if (!rule.resource_names.empty()) o["resourceNames"] = StringArray(rule.resource_names);
  return o;
}

Result<void> CreateObject(client::RestClient& rest, const std::string& path, const json::object& body) {
  auto r = rest.Do({.method = "POST", .path = path, .body = json::serialize(body)});
  if (!r.ok()) return Prefixed(std::move(r).error(), fmt::format("create {}", path));
  return Ok();
}

/// Waits until kube-apiserver's authorizer lets `user` do what the first rule allows (its
/// RBAC informers see a new binding a moment after it is stored).
Result<void> WaitForRule(client::RestClient& rest, const User& user, const UserPermissions& perms) {
  const PolicyRule& rule = perms.rules.front();
  if (rule.verbs.empty() || rule.resources.empty()) return Ok();
  json::object attributes{{"verb", rule.verbs.front()},
                          {"group", rule.api_groups.empty() ? std::string() : rule.api_groups.front()},
                          {"resource", rule.resources.front()}};
  if (!perms.ns.empty()) attributes["namespace"] = perms.ns;
  if (!rule.resource_names.empty()) attributes["name"] = rule.resource_names.front();
  const json::object review{
      {"apiVersion", "authorization.k8s.io/v1"},
      {"kind", "SubjectAccessReview"},
      {"spec", {{"user", user.name}, {"groups", StringArray(user.groups)}, {"resourceAttributes", attributes}}}};
  const auto deadline = SteadyClock::now() + kRbacPropagationTimeout;
  std::string last;
  while (SteadyClock::now() < deadline) {
    auto r = rest.Do({.method = "POST",
                      .path = "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                      .body = json::serialize(review)});
    if (!r.ok()) return Prefixed(std::move(r).error(), "SubjectAccessReview");
    boost::system::error_code ec;
    const json::value answer = json::parse(r->body, ec);
    const json::value* allowed = ec ? nullptr : answer.find_pointer("/status/allowed", ec);
    if (allowed != nullptr && allowed->is_bool() && allowed->get_bool()) return Ok();
    last = r->body;
    std::this_thread::sleep_for(kPollInterval);
  }
  return MakeError(504, reason::kTimeout,
                   fmt::format("the role bound to user {} did not take effect within {} s: {}", user.name,
                               std::chrono::duration_cast<std::chrono::seconds>(kRbacPropagationTimeout).count(),
                               last));
}

}  // namespace

struct TestEnvironment::Impl {
  TestEnvironmentOptions options;
  fs::path dir;
  std::unique_ptr<apiserver::ApiServer> embedded;
  std::unique_ptr<internal::RealControlPlane> plane;
  client::Config config;
  std::shared_ptr<client::RestClient> rest;
  std::string kubeconfig;

  Result<void> StartEmbedded();
  Result<void> StartReal();

  void Stop() {
    if (embedded != nullptr) embedded->Stop();
    embedded.reset();
    if (plane != nullptr) plane->Stop();
    plane.reset();
    if (!dir.empty()) {
      std::error_code ec;
      fs::remove_all(dir, ec);
      if (ec) log::Warn("could not remove the test environment's dir", {{"dir", dir.string()}, {"error", ec.message()}});
      dir.clear();
    }
  }
};

Result<void> TestEnvironment::Impl::StartEmbedded() {
  apiserver::ApiServerOptions o;
  o.data_dir = dir.string();
  o.storage = apiserver::ApiServerOptions::StorageKind::kMemory;
  o.tls = true;
  o.authenticate = true;
  if (options.configure_embedded) options.configure_embedded(o);
  auto server = apiserver::ApiServer::Start(o);
  if (!server.ok()) return Prefixed(std::move(server).error(), "start the embedded API server");
  embedded = std::move(server).value();
  config.host = embedded->url();
  if (o.tls) config.ca_pem = ReadFile(fs::path(o.data_dir) / "pki" / "ca.crt");
  config.bearer_token = embedded->token();
  config.qps = -1;
  config.timeout = std::chrono::seconds(30);
  kubeconfig = embedded->kubeconfig_path();
  return Ok();
}

Result<void> TestEnvironment::Impl::StartReal() {
  const auto [assets, origin] = AssetsDirectory(options);
  auto started = internal::RealControlPlane::Start({.assets = assets,
                                                    .dir = dir,
                                                    .start_timeout = options.start_timeout,
                                                    .stop_timeout = options.stop_timeout,
                                                    .extra_apiserver_flags = options.kube_apiserver_flags});
  if (!started.ok()) {
    Error err = std::move(started).error();
    if (IsBadRequest(err)) err.message += fmt::format(" (the directory is {}; set {} to a directory with etcd and "
                                                      "kube-apiserver, as for controller-runtime's envtest)",
                                                      origin, kAssetsEnvVar);
    return err;
  }
  plane = std::move(started).value();
  config = plane->config();
  kubeconfig = (dir / "kubeconfig").string();
  return apiserver::WriteKubeconfig(kubeconfig, config.host, plane->ca_file().string(), config.bearer_token);
}

Result<std::unique_ptr<TestEnvironment>> TestEnvironment::Start(TestEnvironmentOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  auto dir = MakeTempDir();
  if (!dir.ok()) return std::move(dir).error();
  impl->dir = std::move(dir).value();
  const bool real = UseReal(impl->options.control_plane);
  // From here on a failure stops what started and removes the dir (Impl::Stop via ~TestEnvironment).
  auto env = std::make_unique<TestEnvironment>(PrivateTag{}, std::move(impl));
  Impl& i = *env->impl_;
  KUBE_RETURN_IF_ERROR(real ? i.StartReal() : i.StartEmbedded());
  auto rest = client::RestClient::Create(i.config);
  if (!rest.ok()) return std::move(rest).error();
  i.rest = std::move(rest).value();
  log::Info("test environment started", {{"mode", real ? "real" : "embedded"}, {"url", i.config.host},
                                          {"dir", i.dir.string()}});
  if (!i.options.crd_paths.empty() || !i.options.crds.empty()) {
    auto installed = env->InstallCrds({.paths = i.options.crd_paths,
                                       .crds = i.options.crds,
                                       .error_if_path_missing = i.options.error_if_crd_path_missing,
                                       .timeout = i.options.crd_install_timeout});
    if (!installed.ok()) return std::move(installed).error();
  }
  return env;
}

TestEnvironment::TestEnvironment(PrivateTag, std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

TestEnvironment::~TestEnvironment() { Stop(); }

const client::Config& TestEnvironment::config() const { return impl_->config; }
const std::shared_ptr<client::RestClient>& TestEnvironment::rest() const { return impl_->rest; }
Result<std::shared_ptr<client::RestClient>> TestEnvironment::NewRestClient(client::RestClientOptions options) const {
  return client::RestClient::Create(impl_->config, std::move(options));
}
const std::string& TestEnvironment::url() const { return impl_->config.host; }
bool TestEnvironment::is_real() const { return impl_->plane != nullptr; }
const std::string& TestEnvironment::kubeconfig_path() const { return impl_->kubeconfig; }
const std::filesystem::path& TestEnvironment::dir() const { return impl_->dir; }
apiserver::ApiServer* TestEnvironment::embedded_server() const { return impl_->embedded.get(); }
std::vector<int> TestEnvironment::process_ids() const {
  return impl_->plane != nullptr ? impl_->plane->pids() : std::vector<int>{};
}

void TestEnvironment::Stop() { impl_->Stop(); }

Result<std::vector<std::string>> TestEnvironment::InstallCrds(const CrdInstallOptions& options) {
  auto read = internal::ReadCrdPaths(options.paths, options.error_if_path_missing);
  if (!read.ok()) return std::move(read).error();
  std::vector<internal::CrdManifest> crds = std::move(read).value();
  for (std::size_t i = 0; i < options.crds.size(); ++i) {
    auto crd = internal::ParseCrdText(options.crds[i], fmt::format("crds[{}]", i));
    if (!crd.ok()) return std::move(crd).error();
    crds.push_back(std::move(crd).value());
  }
  client::RestClient& rest = *impl_->rest;
  std::vector<std::string> names;
  for (const internal::CrdManifest& crd : crds) {
    KUBE_RETURN_IF_ERROR(CreateOrUpdateCrd(rest, crd));
    names.push_back(crd.name);
  }

  std::vector<const internal::CrdManifest*> pending;
  for (const internal::CrdManifest& crd : crds) pending.push_back(&crd);
  const auto deadline = SteadyClock::now() + options.timeout;
  std::string why;
  while (true) {
    std::vector<const internal::CrdManifest*> still;
    why.clear();
    for (const internal::CrdManifest* crd : pending) {
      if (std::string reason = CrdPending(rest, *crd); !reason.empty()) {
        still.push_back(crd);
        why += fmt::format("{}{} (from {}): {}", why.empty() ? "" : "; ", crd->name, crd->source, reason);
      }
    }
    pending = std::move(still);
    if (pending.empty()) return names;
    if (SteadyClock::now() >= deadline) break;
    std::this_thread::sleep_for(kPollInterval);
  }
  return MakeError(504, reason::kTimeout,
                   fmt::format("{} of {} CRDs not ready after {} ms: {}", pending.size(), crds.size(),
                               options.timeout.count(), why));
}

Result<client::Config> TestEnvironment::AddUser(const User& user, const UserPermissions& permissions) {
  if (impl_->plane == nullptr) {
    return MakeError(501, kReasonNotImplemented,
                     fmt::format("AddUser(\"{}\"): the embedded API server does not authenticate separate identities "
                                 "yet (it accepts only its own bearer token and enforces no RBAC); run the test with "
                                 "ControlPlane::kReal or {}=1",
                                 user.name, kRealEnvVar));
  }
  if (user.name.empty()) return BadRequest("AddUser: the user name is empty");
  client::RestClient& rest = *impl_->rest;
  if (!permissions.rules.empty()) {
    const std::string role = "kubecpp-testenv:" + user.name;
    const bool cluster = permissions.ns.empty();
    json::object meta{{"name", role}};
    if (!cluster) meta["namespace"] = permissions.ns;
    json::array rules;
    for (const PolicyRule& r : permissions.rules) rules.emplace_back(RuleJson(r));
    const std::string base = cluster ? std::string("/apis/rbac.authorization.k8s.io/v1/")
                                     : "/apis/rbac.authorization.k8s.io/v1/namespaces/" + permissions.ns + "/";
    KUBE_RETURN_IF_ERROR(CreateObject(rest, base + (cluster ? "clusterroles" : "roles"),
                                      {{"apiVersion", kRbacApiVersion},
                                       {"kind", cluster ? "ClusterRole" : "Role"},
                                       {"metadata", meta},
                                       {"rules", std::move(rules)}}));
    KUBE_RETURN_IF_ERROR(CreateObject(
        rest, base + (cluster ? "clusterrolebindings" : "rolebindings"),
        {{"apiVersion", kRbacApiVersion},
         {"kind", cluster ? "ClusterRoleBinding" : "RoleBinding"},
         {"metadata", meta},
         {"roleRef", {{"apiGroup", kRbacGroup}, {"kind", cluster ? "ClusterRole" : "Role"}, {"name", role}}},
         {"subjects", json::array{json::object{{"kind", "User"}, {"apiGroup", kRbacGroup}, {"name", user.name}}}}}));
    KUBE_RETURN_IF_ERROR(WaitForRule(rest, user, permissions));
  }
  auto cert = apiserver::IssueCertificate({.common_name = user.name,
                                           .organizations = user.groups,
                                           .usage = apiserver::CertificateSpec::Usage::kClient,
                                           .validity_days = 7},
                                          &impl_->plane->client_ca());
  if (!cert.ok()) return Prefixed(std::move(cert).error(), "AddUser: client certificate");
  client::Config out;
  out.host = impl_->config.host;
  out.ca_pem = impl_->config.ca_pem;
  out.client_cert_pem = std::move(cert->cert_pem);
  out.client_key_pem = std::move(cert->key_pem);
  out.qps = -1;
  out.timeout = impl_->config.timeout;
  return out;
}

}  // namespace kube::testing
