#include <kube/client/config.hpp>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "client/internal/pem.hpp"
#include "client/internal/util.hpp"

namespace kube::client {
namespace {

using internal::Quote;

constexpr std::string_view kVersion = "0.1.0";

std::optional<std::string> DefaultGetEnv(std::string_view name) {
  const char* v = std::getenv(std::string(name).c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

std::optional<std::string> Env(const GetEnvFunc& getenv, std::string_view name) {
  return getenv ? getenv(name) : DefaultGetEnv(name);
}

/// "cluster \"prod\" (in /k/config)"
std::string EntryName(std::string_view kind, std::string_view name, std::string_view location) {
  std::string s = std::string(kind) + " " + Quote(name);
  if (!location.empty()) s += " (in " + std::string(location) + ")";
  return s;
}

/// client-go's `IsDNS1123Label`.
bool IsDns1123Label(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && !(c == '-' && i != 0 && i + 1 != s.size())) return false;
  }
  return true;
}

/// Reads a PEM file or takes PEM data (data wins, as client-go's `dataFromSliceOrFile`), and
/// checks it; errors are appended to `errs` naming the entry and field.
std::string LoadPem(std::string_view entry, std::string_view file_field, const std::string& file,
                    std::string_view data_field, const std::string& data, bool is_key,
                    std::vector<std::string>& errs) {
  std::string pem;
  std::string field;
  if (!data.empty()) {
    pem = data;
    field = std::string(data_field);
  } else if (!file.empty()) {
    auto read = internal::ReadFile(file);
    if (!read) {
      errs.push_back(std::string(entry) + ": " + std::string(file_field) + " " + Quote(file) + ": " +
                     read.error().message);
      return {};
    }
    pem = std::move(read).value();
    field = std::string(file_field) + " " + Quote(file);
  } else {
    return {};
  }
  Result<void> ok = Ok();
  if (is_key) {
    ok = internal::CheckPrivateKeyPem(pem);
  } else if (auto n = internal::CheckCertificatesPem(pem); !n) {
    ok = std::move(n).error();
  }
  if (!ok) {
    errs.push_back(std::string(entry) + ": " + field + ": " + ok.error().message);
    return {};
  }
  return pem;
}

/// client-go's `DefaultServerURL` scheme defaulting, then a syntax check.
Result<std::string> NormalizeServer(std::string server, bool tls_hint) {
  if (server.find("://") == std::string::npos) server = (tls_hint ? "https://" : "http://") + server;
  const auto scheme_end = server.find("://");
  const std::string scheme = internal::ToLower(server.substr(0, scheme_end));
  if (scheme != "https" && scheme != "http") {
    return BadRequest("unsupported scheme " + Quote(scheme) + " (want https or http)");
  }
  const std::string rest = server.substr(scheme_end + 3);
  if (rest.empty() || rest.front() == '/') return BadRequest("no host in " + Quote(server));
  return scheme + "://" + rest;
}

Result<void> CheckProxyUrl(std::string_view proxy) {
  if (proxy.empty()) return Ok();
  const auto scheme_end = proxy.find("://");
  if (scheme_end == std::string_view::npos) return BadRequest("no scheme in " + Quote(proxy));
  const std::string scheme = internal::ToLower(proxy.substr(0, scheme_end));
  if (scheme != "http") {
    return BadRequest("scheme " + Quote(scheme) + " is not supported (kubecpp speaks http:// proxies only)");
  }
  if (proxy.size() == scheme_end + 3) return BadRequest("no host in " + Quote(proxy));
  return Ok();
}

void ValidateExec(std::string_view entry, const ExecConfig& exec, std::vector<std::string>& errs) {
  if (exec.command.empty()) errs.push_back(std::string(entry) + ": exec.command: required");
  if (exec.api_version.empty()) {
    errs.push_back(std::string(entry) + ": exec.apiVersion: required");
  } else if (exec.api_version != "client.authentication.k8s.io/v1" &&
             exec.api_version != "client.authentication.k8s.io/v1beta1") {
    errs.push_back(std::string(entry) + ": exec.apiVersion: unsupported " + Quote(exec.api_version) +
                   " (want client.authentication.k8s.io/v1 or v1beta1)");
  }
  for (std::size_t i = 0; i < exec.env.size(); ++i) {
    if (exec.env[i].name.empty()) {
      errs.push_back(std::string(entry) + ": exec.env[" + std::to_string(i) + "].name: required");
    }
  }
  if (exec.interactive_mode.empty()) {
    errs.push_back(std::string(entry) + ": exec.interactiveMode: required");
  } else if (exec.interactive_mode != "Never" && exec.interactive_mode != "IfAvailable" &&
             exec.interactive_mode != "Always") {
    errs.push_back(std::string(entry) + ": exec.interactiveMode: invalid " + Quote(exec.interactive_mode) +
                   " (want Never, IfAvailable or Always)");
  } else if (exec.interactive_mode == "Always") {
    // kubecpp programs never hand their terminal to a plugin.
    errs.push_back(std::string(entry) +
                   ": exec.interactiveMode: \"Always\" needs a terminal, which kubecpp never provides");
  }
}

Error Invalid(const std::vector<std::string>& errs) {
  return BadRequest("invalid configuration: " + internal::JoinErrors(errs));
}

}  // namespace

std::string_view Version() { return kVersion; }

std::string DefaultUserAgent() { return "kubecpp/" + std::string(kVersion) + " (linux/amd64)"; }

Result<LoadedConfig> ConfigFromKubeconfig(const Kubeconfig& kc, const ConfigOverrides& overrides) {
  if (kc.Empty()) {
    return BadRequest("invalid configuration: no configuration has been provided");
  }
  std::vector<std::string> errs;
  LoadedConfig out;
  Config& cfg = out.config;

  // --- context ---
  const std::string context_name = overrides.context.empty() ? kc.current_context : overrides.context;
  KubeconfigContext context;
  if (context_name.empty()) {
    if (overrides.cluster.empty()) {
      return BadRequest("invalid configuration: no context chosen (current-context is not set)");
    }
  } else {
    auto it = kc.contexts.find(context_name);
    if (it == kc.contexts.end()) {
      return BadRequest("invalid configuration: context was not found for specified context: " + context_name);
    }
    context = it->second;
  }
  out.context = context_name;
  const std::string ctx_entry = EntryName("context", context_name, context.location);
  const std::string cluster_name = overrides.cluster.empty() ? context.cluster : overrides.cluster;
  const std::string user_name = overrides.user.empty() ? context.user : overrides.user;

  // --- namespace ---
  out.ns = !overrides.ns.empty() ? overrides.ns : (!context.ns.empty() ? context.ns : "default");
  if (!IsDns1123Label(out.ns)) {
    errs.push_back(ctx_entry + ": namespace " + Quote(out.ns) + " does not conform to the kubernetes DNS_LABEL rules");
  }

  // --- cluster ---
  const KubeconfigCluster* cluster = nullptr;
  if (cluster_name.empty()) {
    errs.push_back(ctx_entry + ": cluster was not specified");
  } else if (auto it = kc.clusters.find(cluster_name); it == kc.clusters.end()) {
    errs.push_back(ctx_entry + ": cluster " + Quote(cluster_name) + " was not found");
  } else {
    cluster = &it->second;
  }
  if (cluster != nullptr) {
    const std::string entry = EntryName("cluster", cluster_name, cluster->location);
    if (!cluster->certificate_authority.empty() && !cluster->certificate_authority_data.empty()) {
      errs.push_back(entry + ": certificate-authority-data and certificate-authority are both specified "
                             "(certificate-authority-data would override)");
    }
    if (cluster->insecure_skip_tls_verify &&
        (!cluster->certificate_authority.empty() || !cluster->certificate_authority_data.empty())) {
      errs.push_back(entry + ": insecure-skip-tls-verify: specifying a root certificates file with the insecure flag is not allowed");
    }
    cfg.ca_pem = LoadPem(entry, "certificate-authority", cluster->certificate_authority,
                         "certificate-authority-data", cluster->certificate_authority_data, false, errs);
    cfg.tls_server_name = cluster->tls_server_name;
    cfg.insecure_skip_tls_verify = cluster->insecure_skip_tls_verify;
    if (auto p = CheckProxyUrl(cluster->proxy_url); !p) {
      errs.push_back(entry + ": proxy-url: " + p.error().message);
    }
    cfg.proxy_url = cluster->proxy_url;
    if (cluster->server.empty()) {
      errs.push_back(entry + ": server: no server found");
    } else {
      const bool tls_hint = !cluster->certificate_authority.empty() ||
                            !cluster->certificate_authority_data.empty() || cluster->insecure_skip_tls_verify;
      auto host = NormalizeServer(cluster->server, tls_hint);
      if (!host) {
        errs.push_back(entry + ": server: " + host.error().message);
      } else {
        cfg.host = std::move(host).value();
      }
    }
  }

  // --- user ---
  if (user_name.empty()) {
    errs.push_back(ctx_entry + ": user was not specified");
  } else if (auto it = kc.users.find(user_name); it == kc.users.end()) {
    errs.push_back(ctx_entry + ": user " + Quote(user_name) + " was not found");
  } else {
    const KubeconfigUser& u = it->second;
    const std::string entry = EntryName("user", user_name, u.location);
    std::vector<std::string> methods;
    if (!u.token.empty()) methods.push_back("token");
    if (!u.username.empty() || !u.password.empty()) methods.push_back("basicAuth");
    if (methods.size() > 1) {
      errs.push_back(entry + ": more than one authentication method found; found [token basicAuth], only one is allowed");
    }
    if (u.has_auth_provider) {
      errs.push_back(entry + ": auth-provider " + Quote(u.auth_provider_name) +
                     " is not supported; use an exec credential plugin");
    }
    const bool has_cert = !u.client_certificate.empty() || !u.client_certificate_data.empty();
    const bool has_key = !u.client_key.empty() || !u.client_key_data.empty();
    if (has_cert) {
      if (!u.client_certificate.empty() && !u.client_certificate_data.empty()) {
        errs.push_back(entry + ": client-certificate-data and client-certificate are both specified "
                               "(client-certificate-data would override)");
      }
      if (!u.client_key.empty() && !u.client_key_data.empty()) {
        errs.push_back(entry + ": client-key-data and client-key are both specified (client-key-data would override)");
      }
      if (!has_key) {
        errs.push_back(entry + ": client-key-data or client-key must be specified to use the clientCert authentication method");
      }
    } else if (has_key) {
      errs.push_back(entry + ": client-certificate-data or client-certificate must be specified with a client key");
    }
    const std::size_t before = errs.size();
    cfg.client_cert_pem = LoadPem(entry, "client-certificate", u.client_certificate,
                                  "client-certificate-data", u.client_certificate_data, false, errs);
    cfg.client_key_pem = LoadPem(entry, "client-key", u.client_key, "client-key-data", u.client_key_data, true, errs);
    if (errs.size() == before && !cfg.client_cert_pem.empty() && !cfg.client_key_pem.empty()) {
      if (auto pair = internal::CheckKeyPair(cfg.client_cert_pem, cfg.client_key_pem); !pair) {
        errs.push_back(entry + ": client-certificate/client-key: " + pair.error().message);
      }
    }
    cfg.bearer_token = u.token;
    cfg.bearer_token_file = u.token_file;
    if (!u.token_file.empty() && u.token.empty()) {
      // client-go reads the file once up front and fails when it cannot.
      auto token = internal::ReadFile(u.token_file);
      if (!token) {
        errs.push_back(entry + ": tokenFile " + Quote(u.token_file) + ": " + token.error().message);
      } else {
        cfg.bearer_token = std::string(internal::TrimSpace(*token));
      }
    }
    cfg.username = u.username;
    cfg.password = u.password;
    if (u.exec) {
      ValidateExec(entry, *u.exec, errs);
      cfg.exec = u.exec;
      cfg.auth_source = entry;
      if (cluster != nullptr) cfg.exec_cluster = *cluster;
    }
    if ((!u.impersonate_uid.empty() || !u.impersonate_groups.empty() || !u.impersonate_extra.empty()) &&
        u.impersonate.empty()) {
      errs.push_back(entry + ": requesting uid, groups or user-extra without impersonating a user (as)");
    }
    cfg.impersonate_user = u.impersonate;
    cfg.impersonate_uid = u.impersonate_uid;
    cfg.impersonate_groups = u.impersonate_groups;
    cfg.impersonate_extra = u.impersonate_extra;
  }

  if (!errs.empty()) return Invalid(errs);
  return out;
}

Result<LoadedConfig> InClusterConfig(const InClusterOptions& options, const GetEnvFunc& getenv) {
  const auto host = Env(getenv, "KUBERNETES_SERVICE_HOST");
  const auto port = Env(getenv, "KUBERNETES_SERVICE_PORT");
  if (!host || !port || host->empty() || port->empty()) {
    return BadRequest(
        "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined");
  }
  std::string dir = options.service_account_dir;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  LoadedConfig out;
  out.source = "in-cluster";
  Config& cfg = out.config;
  const bool ipv6 = host->find(':') != std::string::npos;
  cfg.host = "https://" + (ipv6 ? "[" + *host + "]" : *host) + ":" + *port;

  const std::string token_path = dir + "/token";
  auto token = internal::ReadFile(token_path);
  if (!token) return BadRequest("unable to load in-cluster configuration: " + token.error().message);
  cfg.bearer_token = std::string(internal::TrimSpace(*token));
  cfg.bearer_token_file = token_path;

  const std::string ca_path = dir + "/ca.crt";
  auto ca = internal::ReadFile(ca_path);
  if (!ca) return BadRequest("unable to load in-cluster configuration: " + ca.error().message);
  if (auto n = internal::CheckCertificatesPem(*ca); !n) {
    return BadRequest("unable to load in-cluster configuration: " + ca_path + ": " + n.error().message);
  }
  cfg.ca_pem = std::move(ca).value();

  if (auto ns = Env(getenv, "POD_NAMESPACE"); ns && !ns->empty()) {
    out.ns = *ns;
  } else if (auto file = internal::ReadFile(dir + "/namespace"); file && !internal::TrimSpace(*file).empty()) {
    out.ns = std::string(internal::TrimSpace(*file));
  } else {
    out.ns = "default";
  }
  return out;
}

Result<LoadedConfig> LoadConfig(const LoadOptions& options) {
  const auto from_files = [&](const std::vector<std::string>& paths, bool explicit_path) -> Result<LoadedConfig> {
    std::vector<Kubeconfig> loaded;
    std::vector<std::string> used;
    std::vector<std::string> missing;
    for (const std::string& path : paths) {
      auto kc = LoadKubeconfigFile(path);
      if (!kc) {
        if (IsNotFound(kc.error()) && !explicit_path) {
          missing.push_back(path);
          continue;
        }
        if (IsNotFound(kc.error())) {
          return MakeError(404, reason::kNotFound, "stat " + path + ": no such file or directory");
        }
        return std::move(kc).error();
      }
      loaded.push_back(std::move(kc).value());
      used.push_back(path);
    }
    const Kubeconfig merged = MergeKubeconfigs(loaded);
    if (merged.Empty() && options.overrides.cluster.empty()) {
      std::string msg = "invalid configuration: no configuration has been provided";
      if (!missing.empty()) msg += " (not found: " + internal::JoinErrors(missing) + ")";
      return BadRequest(std::move(msg));
    }
    auto out = ConfigFromKubeconfig(merged, options.overrides);
    if (!out) return std::move(out).error();
    out->source = "kubeconfig";
    for (const std::string& p : used) out->source += " " + p;
    return out;
  };

  if (!options.kubeconfig_path.empty()) return from_files({options.kubeconfig_path}, true);
  if (auto env = Env(options.getenv, "KUBECONFIG"); env && !env->empty()) {
    return from_files(SplitKubeconfigPaths(*env), false);
  }
  const auto host = Env(options.getenv, "KUBERNETES_SERVICE_HOST");
  const auto port = Env(options.getenv, "KUBERNETES_SERVICE_PORT");
  if (host && port && !host->empty() && !port->empty()) {
    auto out = InClusterConfig(options.in_cluster, options.getenv);
    if (!out) return out;
    if (!options.overrides.ns.empty()) out->ns = options.overrides.ns;
    return out;
  }
  const auto home = Env(options.getenv, "HOME");
  if (!home || home->empty()) {
    return BadRequest("invalid configuration: no configuration has been provided (no KUBECONFIG, not in a cluster, no HOME)");
  }
  return from_files({*home + "/.kube/config"}, false);
}

}  // namespace kube::client
