// ApiServer: storage + registry + REST + discovery + HTTP(S), and the objects a fresh cluster has.

#include <kube/apiserver/apiserver.hpp>

#include <filesystem>
#include <system_error>
#include <vector>

#include <boost/json.hpp>

#include <kube/apiserver/discovery.hpp>
#include <kube/base/mutex.hpp>
#include <kube/core/status.hpp>
#include <kube/core/time.hpp>

#include "apiserver/http/file_util.hpp"
#include "apiserver/controllers/controllers.hpp"
#include "apiserver/controllers/crd_controller.hpp"
#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/service_account_token.hpp"
#include "apiserver/rest/token_request.hpp"
#include "apiserver/rest/write_util.hpp"

namespace kube::apiserver {
namespace json = boost::json;
namespace {

// Creates `obj` at `key` unless something is there already.
Result<void> CreateIfMissing(Storage& storage, const std::string& key, json::object obj) {
  auto existing = storage.Get(key);
  if (existing.ok()) return Ok();
  if (!IsNotFound(existing.error())) return std::move(existing).error();
  rest::NormalizeMemberOrder(obj);
  const rest::StampedJson stamped(std::move(obj));
  auto rev = storage.Create(key, [&](Revision rv) -> Result<std::string> { return stamped.At(rv); });
  if (!rev.ok() && !IsAlreadyExists(rev.error())) return std::move(rev).error();
  return Ok();
}

json::object SystemMetadata(std::string_view name, std::string_view ns, Clock& clock) {
  json::object meta{{"name", name}, {"uid", rest::NewUid()}, {"creationTimestamp", FormatTime(clock.WallNow())}};
  if (!ns.empty()) meta["namespace"] = ns;
  return meta;
}

// The issuer's jwks_uri (kube: https://<external address>/openid/v1/jwks), known once the server
// is bound.
class JwksUri final {
 public:
  void Set(std::string uri) {
    MutexLock lock(mu_);
    uri_ = std::move(uri);
  }
  std::string Get() const {
    MutexLock lock(mu_);
    return uri_;
  }

 private:
  mutable Mutex mu_;
  std::string uri_ KUBE_GUARDED_BY(mu_);
};

std::string UrlHost(const std::string& address) {
  if (address.empty() || address == "0.0.0.0") return "127.0.0.1";
  if (address == "::") return "[::1]";
  if (address.find(':') != std::string::npos) return "[" + address + "]";
  return address;
}

}  // namespace

Result<void> EnsureSystemObjects(Storage& storage, Registry& registry, Clock& clock) {
  const ResourcePtr namespaces = registry.Find("", "v1", "namespaces");
  if (namespaces != nullptr) {
    for (std::string_view name : {"default", "kube-system", "kube-public"}) {
      json::object meta = SystemMetadata(name, "", clock);
      meta["labels"] = json::object{{"kubernetes.io/metadata.name", name}};
      json::object ns{{"kind", "Namespace"},
                      {"apiVersion", "v1"},
                      {"metadata", std::move(meta)},
                      {"spec", json::object{{"finalizers", json::array{"kubernetes"}}}},
                      {"status", json::object{{"phase", "Active"}}}};
      KUBE_RETURN_IF_ERROR(CreateIfMissing(storage, namespaces->StorageKey("", name), std::move(ns)));
    }
  }
  const ResourcePtr services = registry.Find("", "v1", "services");
  if (services != nullptr) {
    json::object meta = SystemMetadata("kubernetes", "default", clock);
    meta["labels"] = json::object{{"component", "apiserver"}, {"provider", "kubernetes"}};
    json::object port{{"name", "https"}, {"protocol", "TCP"}, {"port", 443}, {"targetPort", 6443}};
    json::object spec{{"ports", json::array{std::move(port)}},
                      {"clusterIP", "10.96.0.1"},
                      {"clusterIPs", json::array{"10.96.0.1"}},
                      {"type", "ClusterIP"},
                      {"sessionAffinity", "None"},
                      {"ipFamilies", json::array{"IPv4"}},
                      {"ipFamilyPolicy", "SingleStack"},
                      {"internalTrafficPolicy", "Cluster"}};
    json::object svc{{"kind", "Service"},
                     {"apiVersion", "v1"},
                     {"metadata", std::move(meta)},
                     {"spec", std::move(spec)},
                     {"status", json::object{{"loadBalancer", json::object()}}}};
    KUBE_RETURN_IF_ERROR(CreateIfMissing(storage, services->StorageKey("default", "kubernetes"), std::move(svc)));
  }
  return Ok();
}

struct ApiServer::Impl {
  ApiServerOptions options;
  Clock* clock = nullptr;
  std::unique_ptr<Storage> storage;
  std::unique_ptr<Registry> registry;
  std::string token;
  std::string kubeconfig;
  std::string url;
  uint16_t port = 0;
  std::unique_ptr<rest::Env> env;  // what the in-process controllers work with
  std::vector<std::unique_ptr<controllers::Controller>> controllers;
  std::unique_ptr<HttpServer> server;  // last: stopped and destroyed before what it serves

  void StopControllers() {
    for (auto& c : controllers) c->Stop();
  }
};

ApiServer::ApiServer(PrivateTag, std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ApiServer::~ApiServer() {
  Stop();
  impl_->server.reset();
  impl_->controllers.clear();
}

Result<std::unique_ptr<ApiServer>> ApiServer::Start(ApiServerOptions options) {
  using StorageKind = ApiServerOptions::StorageKind;
  if (options.data_dir.empty() &&
      (options.storage == StorageKind::kSqlite || options.tls || options.authenticate)) {
    return NewBadRequest("a data dir is required for sqlite storage, TLS and authentication");
  }
  auto impl = std::make_unique<Impl>();
  impl->clock = options.clock != nullptr ? options.clock : &RealClock::Instance();
  if (!options.data_dir.empty()) {
    // The data dir holds Secrets and the server's keys: only its owner may look inside.
    auto made = internal::MakeDirs(options.data_dir, 0700);
    if (!made.ok()) return InternalError("create data dir " + options.data_dir + ": " + made.error().message);
  }
  StorageOptions storage_options = options.storage_options;
  if (storage_options.clock == nullptr) storage_options.clock = impl->clock;
  if (options.storage == StorageKind::kMemory) {
    impl->storage = NewMemoryStorage(storage_options);
  } else {
    auto sqlite = NewSqliteStorage(options.data_dir + "/kubecpp.db", storage_options);
    if (!sqlite.ok()) return std::move(sqlite).error();
    impl->storage = std::move(*sqlite);
  }
  impl->registry = std::make_unique<Registry>();
  RegisterBuiltins(*impl->registry);
  {  // CRDs: status + registration inside every CRD write, cleanup thread (CRD helper)
    auto crd = std::make_unique<controllers::CrdController>(*impl->registry, *impl->clock);
    impl->storage = crd->WrapStorage(std::move(impl->storage));
    KUBE_RETURN_IF_ERROR(crd->RegisterStored());
    impl->controllers.push_back(std::move(crd));
  }
  KUBE_RETURN_IF_ERROR(EnsureSystemObjects(*impl->storage, *impl->registry, *impl->clock));

  RestOptions rest = options.rest;
  if (rest.clock == nullptr) rest.clock = storage_options.clock;
  if (rest.token_issuer == nullptr) {
    auto issuer = std::make_shared<const rest::ServiceAccountTokenIssuer>(rest::TokenIssuerOptions{
        .issuer = options.service_accounts.issuer,
        .api_audiences = options.service_accounts.api_audiences,
        .private_key_pem = {},
        .key_file = options.data_dir.empty() ? std::string() : options.data_dir + "/pki/sa.key",
        .clock = impl->clock});
    // A key file that does not load stops the start; a key in memory is made on first use.
    if (!options.data_dir.empty()) KUBE_RETURN_IF_ERROR(issuer->EnsureKey());
    rest.token_issuer = std::move(issuer);
  }
  HttpHandler rest_handler = NewRestHandler(*impl->storage, *impl->registry, rest);
  Registry* registry = impl->registry.get();
  auto jwks_uri = std::make_shared<JwksUri>();
  HttpHandler handler = [registry, rest_handler, issuer = rest.token_issuer, jwks_uri](const HttpRequest& req,
                                                                                      ResponseWriter& w) {
    if (auto discovery = ServeDiscovery(req, *registry)) {
      w.Respond(discovery->status, discovery->content_type, discovery->body, discovery->headers);
      return;
    }
    if (auto oidc = rest::ServeServiceAccountIssuerDiscovery(req, *issuer, jwks_uri->Get())) {
      w.Respond(oidc->status, oidc->content_type, oidc->body, oidc->headers);
      return;
    }
    rest_handler(req, w);
  };

  HttpServerOptions http;
  http.address = options.address;
  http.port = options.port;
  std::string ca_file;
  if (options.tls) {
    auto pki = EnsurePki(options.data_dir);
    if (!pki.ok()) return std::move(pki).error();
    http.tls = TlsOptions{.cert_file = pki->cert_file, .key_file = pki->key_file};
    ca_file = pki->ca_file;
  }
  if (options.authenticate) {
    auto token = EnsureToken(options.data_dir);
    if (!token.ok()) return std::move(token).error();
    impl->token = *token;
    http.bearer_token = *token;
  }
  impl->env = std::make_unique<rest::Env>(rest::Env{*impl->storage, *impl->registry, rest, *rest.clock});
  const ControllerOptions& ctl = options.controllers;
  if (ctl.garbage_collector) impl->controllers.push_back(controllers::NewGarbageCollector(*impl->env));
  if (ctl.namespace_controller) {
    impl->controllers.push_back(controllers::NewNamespaceController(*impl->env, ctl.namespace_resync));
  }
  if (ctl.event_ttl > Clock::Duration::zero()) {
    impl->controllers.push_back(controllers::NewEventTtlController(*impl->env, ctl.event_ttl));
  }
  if (ctl.pod_gc) impl->controllers.push_back(controllers::NewPodGc(*impl->env));
  for (auto& c : impl->controllers) c->Start();

  impl->server = NewHttpServer(http, std::move(handler));
  KUBE_RETURN_IF_ERROR(impl->server->Start());
  impl->port = impl->server->port();
  impl->url = std::string(options.tls ? "https://" : "http://") + UrlHost(options.address) + ":" +
              std::to_string(impl->port);
  jwks_uri->Set(impl->url + "/openid/v1/jwks");
  if (!options.data_dir.empty()) {
    impl->kubeconfig = options.data_dir + "/kubeconfig";
    if (auto written = WriteKubeconfig(impl->kubeconfig, impl->url, ca_file, impl->token); !written.ok()) {
      impl->server->Stop();
      return std::move(written).error();
    }
  }
  impl->options = std::move(options);
  return std::make_unique<ApiServer>(PrivateTag{}, std::move(impl));
}

uint16_t ApiServer::port() const { return impl_->port; }
std::string ApiServer::url() const { return impl_->url; }
std::string ApiServer::kubeconfig_path() const { return impl_->kubeconfig; }
std::string ApiServer::token() const { return impl_->token; }
Storage& ApiServer::storage() { return *impl_->storage; }
Registry& ApiServer::registry() { return *impl_->registry; }

void ApiServer::Stop() {
  if (impl_ == nullptr) return;
  if (impl_->server != nullptr) impl_->server->Stop();
  impl_->StopControllers();
}

}  // namespace kube::apiserver
