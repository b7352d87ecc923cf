#include <kube/client/kubeconfig.hpp>

#include <set>
#include <string>
#include <utility>

#include <boost/json.hpp>
#include <yaml-cpp/yaml.h>

#include "client/internal/util.hpp"

namespace kube::client {
namespace {

using internal::Quote;

/// Collects the context of an error: the file, then the entry ("users[0] "alice"").
class Where {
 public:
  explicit Where(std::string_view filename) : filename_(filename) {}
  Error Fail(std::string_view entry, std::string_view field, std::string_view what) const {
    std::string msg;
    if (!filename_.empty()) msg = "error loading config file " + Quote(filename_) + ": ";
    if (!entry.empty()) msg += std::string(entry) + ": ";
    if (!field.empty()) msg += std::string(field) + ": ";
    msg += what;
    return BadRequest(std::move(msg));
  }

 private:
  std::string filename_;
};

bool IsQuoted(const YAML::Node& n) { return n.Tag() == "!"; }

/// A string field: any scalar is accepted as its text (lenient, unlike Go's strict JSON
/// unmarshalling, so an unquoted numeric token still works); a map or list is an error.
Result<std::string> GetString(const YAML::Node& parent, const char* key, const Where& where,
                              std::string_view entry) {
  const YAML::Node n = parent[key];
  if (!n.IsDefined() || n.IsNull()) return std::string();
  if (!n.IsScalar()) return where.Fail(entry, key, "expected a string");
  return n.Scalar();
}

Result<bool> GetBool(const YAML::Node& parent, const char* key, const Where& where,
                     std::string_view entry) {
  const YAML::Node n = parent[key];
  if (!n.IsDefined() || n.IsNull()) return false;
  if (!n.IsScalar() || IsQuoted(n)) return where.Fail(entry, key, "expected a boolean");
  const std::string s = internal::ToLower(n.Scalar());
  if (s == "true" || s == "yes" || s == "on" || s == "y") return true;
  if (s == "false" || s == "no" || s == "off" || s == "n") return false;
  return where.Fail(entry, key, "expected a boolean, got " + Quote(n.Scalar()));
}

Result<std::vector<std::string>> GetStringList(const YAML::Node& parent, const char* key,
                                               const Where& where, std::string_view entry) {
  std::vector<std::string> out;
  const YAML::Node n = parent[key];
  if (!n.IsDefined() || n.IsNull()) return out;
  if (!n.IsSequence()) return where.Fail(entry, key, "expected a list of strings");
  for (std::size_t i = 0; i < n.size(); ++i) {
    if (!n[i].IsScalar()) {
      return where.Fail(entry, std::string(key) + "[" + std::to_string(i) + "]", "expected a string");
    }
    out.push_back(n[i].Scalar());
  }
  return out;
}

Result<std::string> GetBase64(const YAML::Node& parent, const char* key, const Where& where,
                              std::string_view entry) {
  auto text = GetString(parent, key, where, entry);
  if (!text) return std::move(text).error();
  if (text->empty()) return std::string();
  auto decoded = internal::Base64Decode(*text);
  if (!decoded) return where.Fail(entry, key, decoded.error().message);
  return std::move(decoded).value();
}

/// YAML to JSON for extension payloads: unquoted scalars that look like JSON literals keep
/// their type; everything else becomes a string.
boost::json::value YamlToJson(const YAML::Node& n, int depth = 0) {
  if (depth > 100 || !n.IsDefined() || n.IsNull()) return nullptr;
  if (n.IsMap()) {
    boost::json::object obj;
    for (const auto& kv : n) {
      obj[kv.first.IsScalar() ? kv.first.Scalar() : std::string("?")] = YamlToJson(kv.second, depth + 1);
    }
    return obj;
  }
  if (n.IsSequence()) {
    boost::json::array arr;
    for (const auto& item : n) arr.push_back(YamlToJson(item, depth + 1));
    return arr;
  }
  const std::string& s = n.Scalar();
  if (!IsQuoted(n)) {
    if (s == "true") return true;
    if (s == "false") return false;
    boost::system::error_code ec;
    auto v = boost::json::parse(s, ec);
    if (!ec && v.is_number()) return v;
  }
  return boost::json::value(s);
}

/// Iterates a list of `{name: ..., <payload_key>: {...}}` entries.
template <class Fn>
Result<void> ForEachNamed(const YAML::Node& root, const char* list_key, const char* payload_key,
                          const Where& where, Fn&& fn) {
  const YAML::Node list = root[list_key];
  if (!list.IsDefined() || list.IsNull()) return Ok();
  if (!list.IsSequence()) return where.Fail("", list_key, "expected a list");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node item = list[i];
    std::string entry = std::string(list_key) + "[" + std::to_string(i) + "]";
    if (!item.IsMap()) return where.Fail(entry, "", "expected a mapping");
    auto name = GetString(item, "name", where, entry);
    if (!name) return std::move(name).error();
    if (name->empty()) return where.Fail(entry, "name", "required");
    entry += " " + Quote(*name);
    const YAML::Node payload = item[payload_key];
    if (payload.IsDefined() && !payload.IsNull() && !payload.IsMap()) {
      return where.Fail(entry, payload_key, "expected a mapping");
    }
    KUBE_RETURN_IF_ERROR(fn(*name, payload.IsDefined() && !payload.IsNull() ? payload : YAML::Node(YAML::NodeType::Map), entry));
  }
  return Ok();
}

#define KUBE_ASSIGN(lhs, expr)              \
  do {                                      \
    auto kube_v_ = (expr);                  \
    if (!kube_v_) return std::move(kube_v_).error(); \
    lhs = std::move(kube_v_).value();       \
  } while (0)

Result<KubeconfigCluster> ParseCluster(const YAML::Node& c, const Where& where, const std::string& entry) {
  KubeconfigCluster out;
  KUBE_ASSIGN(out.server, GetString(c, "server", where, entry));
  KUBE_ASSIGN(out.tls_server_name, GetString(c, "tls-server-name", where, entry));
  KUBE_ASSIGN(out.insecure_skip_tls_verify, GetBool(c, "insecure-skip-tls-verify", where, entry));
  KUBE_ASSIGN(out.certificate_authority, GetString(c, "certificate-authority", where, entry));
  KUBE_ASSIGN(out.certificate_authority_data, GetBase64(c, "certificate-authority-data", where, entry));
  KUBE_ASSIGN(out.proxy_url, GetString(c, "proxy-url", where, entry));
  KUBE_ASSIGN(out.disable_compression, GetBool(c, "disable-compression", where, entry));
  const YAML::Node ext = c["extensions"];
  if (ext.IsDefined() && ext.IsSequence()) {
    for (const auto& e : ext) {
      if (e.IsMap() && e["name"].IsScalar() && e["name"].Scalar() == "client.authentication.k8s.io/exec") {
        out.exec_extension_json = boost::json::serialize(YamlToJson(e["extension"]));
      }
    }
  }
  return out;
}

Result<ExecConfig> ParseExec(const YAML::Node& e, const Where& where, const std::string& entry) {
  ExecConfig out;
  const std::string ctx = entry + ": exec";
  KUBE_ASSIGN(out.command, GetString(e, "command", where, ctx));
  KUBE_ASSIGN(out.args, GetStringList(e, "args", where, ctx));
  KUBE_ASSIGN(out.api_version, GetString(e, "apiVersion", where, ctx));
  KUBE_ASSIGN(out.install_hint, GetString(e, "installHint", where, ctx));
  KUBE_ASSIGN(out.provide_cluster_info, GetBool(e, "provideClusterInfo", where, ctx));
  KUBE_ASSIGN(out.interactive_mode, GetString(e, "interactiveMode", where, ctx));
  const YAML::Node env = e["env"];
  if (env.IsDefined() && !env.IsNull()) {
    if (!env.IsSequence()) return where.Fail(ctx, "env", "expected a list");
    for (std::size_t i = 0; i < env.size(); ++i) {
      const std::string env_ctx = ctx + ": env[" + std::to_string(i) + "]";
      if (!env[i].IsMap()) return where.Fail(env_ctx, "", "expected a mapping");
      ExecEnvVar var;
      KUBE_ASSIGN(var.name, GetString(env[i], "name", where, env_ctx));
      KUBE_ASSIGN(var.value, GetString(env[i], "value", where, env_ctx));
      out.env.push_back(std::move(var));
    }
  }
  // client-go's defaulting: v1beta1 plugins predate interactiveMode and get IfAvailable; v1
  // must set it (validated when the user is selected).
  if (out.interactive_mode.empty() && out.api_version == "client.authentication.k8s.io/v1beta1") {
    out.interactive_mode = "IfAvailable";
  }
  return out;
}

Result<KubeconfigUser> ParseUser(const YAML::Node& u, const Where& where, const std::string& entry) {
  KubeconfigUser out;
  KUBE_ASSIGN(out.client_certificate, GetString(u, "client-certificate", where, entry));
  KUBE_ASSIGN(out.client_certificate_data, GetBase64(u, "client-certificate-data", where, entry));
  KUBE_ASSIGN(out.client_key, GetString(u, "client-key", where, entry));
  KUBE_ASSIGN(out.client_key_data, GetBase64(u, "client-key-data", where, entry));
  KUBE_ASSIGN(out.token, GetString(u, "token", where, entry));
  KUBE_ASSIGN(out.token_file, GetString(u, "tokenFile", where, entry));
  KUBE_ASSIGN(out.impersonate, GetString(u, "as", where, entry));
  KUBE_ASSIGN(out.impersonate_uid, GetString(u, "as-uid", where, entry));
  KUBE_ASSIGN(out.impersonate_groups, GetStringList(u, "as-groups", where, entry));
  KUBE_ASSIGN(out.username, GetString(u, "username", where, entry));
  KUBE_ASSIGN(out.password, GetString(u, "password", where, entry));
  const YAML::Node extra = u["as-user-extra"];
  if (extra.IsDefined() && !extra.IsNull()) {
    if (!extra.IsMap()) return where.Fail(entry, "as-user-extra", "expected a mapping");
    for (const auto& kv : extra) {
      if (!kv.first.IsScalar()) return where.Fail(entry, "as-user-extra", "expected string keys");
      std::vector<std::string> values;
      if (kv.second.IsSequence()) {
        for (const auto& v : kv.second) {
          if (!v.IsScalar()) return where.Fail(entry, "as-user-extra." + kv.first.Scalar(), "expected strings");
          values.push_back(v.Scalar());
        }
      } else if (!kv.second.IsNull()) {
        return where.Fail(entry, "as-user-extra." + kv.first.Scalar(), "expected a list of strings");
      }
      out.impersonate_extra[kv.first.Scalar()] = std::move(values);
    }
  }
  const YAML::Node exec = u["exec"];
  if (exec.IsDefined() && !exec.IsNull()) {
    if (!exec.IsMap()) return where.Fail(entry, "exec", "expected a mapping");
    auto parsed = ParseExec(exec, where, entry);
    if (!parsed) return std::move(parsed).error();
    out.exec = std::move(parsed).value();
  }
  const YAML::Node provider = u["auth-provider"];
  if (provider.IsDefined() && !provider.IsNull()) {
    out.has_auth_provider = true;
    if (provider.IsMap() && provider["name"].IsScalar()) out.auth_provider_name = provider["name"].Scalar();
  }
  return out;
}

Result<KubeconfigContext> ParseContext(const YAML::Node& c, const Where& where, const std::string& entry) {
  KubeconfigContext out;
  KUBE_ASSIGN(out.cluster, GetString(c, "cluster", where, entry));
  KUBE_ASSIGN(out.user, GetString(c, "user", where, entry));
  KUBE_ASSIGN(out.ns, GetString(c, "namespace", where, entry));
  return out;
}

void ResolvePaths(Kubeconfig& config, const std::string& dir) {
  for (auto& [name, c] : config.clusters) {
    c.certificate_authority = internal::ResolvePath(c.certificate_authority, dir);
  }
  for (auto& [name, u] : config.users) {
    u.client_certificate = internal::ResolvePath(u.client_certificate, dir);
    u.client_key = internal::ResolvePath(u.client_key, dir);
    u.token_file = internal::ResolvePath(u.token_file, dir);
    // A bare command name is looked up on PATH; one with a directory part is relative to the file.
    if (u.exec && u.exec->command.find('/') != std::string::npos) {
      u.exec->command = internal::ResolvePath(u.exec->command, dir);
    }
  }
}

}  // namespace

bool Kubeconfig::Empty() const {
  return clusters.empty() && users.empty() && contexts.empty() && current_context.empty();
}

Result<Kubeconfig> ParseKubeconfig(std::string_view yaml, std::string_view filename) {
  const Where where(filename);
  Kubeconfig out;
  if (internal::TrimSpace(yaml).empty()) return out;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return where.Fail("", "", "yaml: line " + std::to_string(e.mark.line + 1) + ", column " +
                                  std::to_string(e.mark.column + 1) + ": " + e.msg);
  } catch (const std::exception& e) {
    return where.Fail("", "", std::string("yaml: ") + e.what());
  }
  try {
    if (root.IsNull()) return out;
    if (!root.IsMap()) return where.Fail("", "", "expected a mapping at the top level");
    if (const YAML::Node kind = root["kind"]; kind.IsDefined() && kind.IsScalar() &&
                                                  !kind.Scalar().empty() && kind.Scalar() != "Config") {
      return where.Fail("", "kind", "expected \"Config\", got " + Quote(kind.Scalar()));
    }
    KUBE_ASSIGN(out.current_context, GetString(root, "current-context", where, ""));
    const std::string location(filename);
    KUBE_RETURN_IF_ERROR(ForEachNamed(
        root, "clusters", "cluster", where,
        [&](const std::string& name, const YAML::Node& payload, const std::string& entry) -> Result<void> {
          auto c = ParseCluster(payload, where, entry);
          if (!c) return std::move(c).error();
          c->location = location;
          out.clusters.emplace(name, std::move(c).value());  // first entry of a name wins
          return Ok();
        }));
    KUBE_RETURN_IF_ERROR(ForEachNamed(
        root, "users", "user", where,
        [&](const std::string& name, const YAML::Node& payload, const std::string& entry) -> Result<void> {
          auto u = ParseUser(payload, where, entry);
          if (!u) return std::move(u).error();
          u->location = location;
          out.users.emplace(name, std::move(u).value());
          return Ok();
        }));
    KUBE_RETURN_IF_ERROR(ForEachNamed(
        root, "contexts", "context", where,
        [&](const std::string& name, const YAML::Node& payload, const std::string& entry) -> Result<void> {
          auto c = ParseContext(payload, where, entry);
          if (!c) return std::move(c).error();
          c->location = location;
          out.contexts.emplace(name, std::move(c).value());
          return Ok();
        }));
  } catch (const YAML::Exception& e) {
    return where.Fail("", "", "yaml: " + e.msg);
  } catch (const std::exception& e) {
    return where.Fail("", "", std::string("yaml: ") + e.what());
  }
  if (!filename.empty()) ResolvePaths(out, internal::DirName(filename));
  return out;
}

Result<Kubeconfig> LoadKubeconfigFile(const std::string& path) {
  auto data = internal::ReadFile(path);
  if (!data) {
    if (IsNotFound(data.error())) return std::move(data).error();
    return BadRequest("error loading config file " + Quote(path) + ": " + data.error().message);
  }
  return ParseKubeconfig(*data, path);
}

Kubeconfig MergeKubeconfigs(const std::vector<Kubeconfig>& configs) {
  Kubeconfig out;
  for (const Kubeconfig& c : configs) {
    // emplace never overwrites: the first file to define a name wins, whole.
    for (const auto& [k, v] : c.clusters) out.clusters.emplace(k, v);
    for (const auto& [k, v] : c.users) out.users.emplace(k, v);
    for (const auto& [k, v] : c.contexts) out.contexts.emplace(k, v);
    if (out.current_context.empty()) out.current_context = c.current_context;
  }
  return out;
}

std::vector<std::string> SplitKubeconfigPaths(std::string_view value) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::size_t start = 0;
  while (start <= value.size()) {
    const std::size_t colon = value.find(':', start);
    const std::size_t end = colon == std::string_view::npos ? value.size() : colon;
    std::string part(value.substr(start, end - start));
    if (!part.empty() && seen.insert(part).second) out.push_back(std::move(part));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  return out;
}

}  // namespace kube::client
