#include "apiserver/rest/pod_validation.hpp"

#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/json_pointer.hpp>

#include "apiserver/rest/json_util.hpp"
#include "apiserver/rest/names.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

constexpr std::string_view kPortRange = "must be between 1 and 65535, inclusive";

const json::object& Empty() {
  static const json::object kEmpty;
  return kEmpty;
}
const json::object& Obj(const json::object& o, std::string_view key) {
  const auto* p = ObjectAt(o, key);
  return p != nullptr ? *p : Empty();
}
const json::array* Arr(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_array() ? &v->get_array() : nullptr;
}
std::optional<int64_t> Int(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || !v->is_int64()) return std::nullopt;
  return v->get_int64();
}
std::string Idx(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

void AddMessages(std::vector<FieldError>& errs, const std::string& path, std::string_view value,
                 const std::vector<std::string>& messages) {
  for (const auto& m : messages) errs.push_back(FieldError::Invalid(path, QuoteJson(value), m));
}

void NotSupported(std::vector<FieldError>& errs, const std::string& path, std::string_view value,
                  const std::vector<std::string>& valid) {
  for (const auto& v : valid) {
    if (v == value) return;
  }
  errs.push_back(FieldError::NotSupported(path, QuoteJson(value), valid));
}

// A resource.Quantity's value (decimal and binary SI suffixes, exponents); nullopt if malformed.
std::optional<long double> QuantityValue(std::string_view q) {
  std::size_t i = 0;
  bool negative = false;
  if (i < q.size() && (q[i] == '+' || q[i] == '-')) negative = q[i++] == '-';
  const std::size_t start = i;
  while (i < q.size() && ((q[i] >= '0' && q[i] <= '9') || q[i] == '.')) ++i;
  if (i == start) return std::nullopt;
  long double v = std::strtold(std::string(q.substr(start, i - start)).c_str(), nullptr);
  const std::string_view suffix = q.substr(i);
  static const std::map<std::string_view, long double, std::less<>> kSuffixes = {
      {"", 1},      {"n", 1e-9L}, {"u", 1e-6L}, {"m", 1e-3L}, {"k", 1e3L}, {"M", 1e6L},
      {"G", 1e9L},  {"T", 1e12L}, {"P", 1e15L}, {"E", 1e18L}, {"Ki", 1024.0L},
      {"Mi", 1048576.0L}, {"Gi", 1073741824.0L}, {"Ti", 1099511627776.0L}, {"Pi", 1125899906842624.0L},
      {"Ei", 1152921504606846976.0L}};
  if (auto it = kSuffixes.find(suffix); it != kSuffixes.end()) {
    v *= it->second;
  } else if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    v *= std::pow(10.0L, std::strtold(std::string(suffix.substr(1)).c_str(), nullptr));
  } else {
    return std::nullopt;
  }
  return negative ? -v : v;
}

std::string QuantityText(const json::value& v) {
  if (v.is_string()) return std::string(v.get_string());
  return SerializeJson(v);
}

// ValidateResourceRequirements: quantities are not negative, a request is at most its limit.
void ValidateResources(const json::object& resources, const std::string& path, std::vector<FieldError>& errs) {
  const json::object& limits = Obj(resources, "limits");
  const json::object& requests = Obj(resources, "requests");
  auto non_negative = [&](const json::object& list, const std::string& list_path) {
    for (const auto& kv : list) {
      const std::string text = QuantityText(kv.value());
      auto value = QuantityValue(text);
      if (value && *value < 0) {
        errs.push_back(FieldError::Invalid(list_path + "[" + std::string(kv.key()) + "]", QuoteJson(text),
                                           "must be greater than or equal to 0"));
      }
    }
  };
  non_negative(limits, path + ".limits");
  non_negative(requests, path + ".requests");
  for (const auto& kv : requests) {
    const auto* limit = limits.if_contains(kv.key());
    if (limit == nullptr) continue;
    const std::string req_text = QuantityText(kv.value());
    const std::string limit_text = QuantityText(*limit);
    auto req = QuantityValue(req_text);
    auto lim = QuantityValue(limit_text);
    if (req && lim && *req > *lim) {
      errs.push_back(FieldError::Invalid(path + ".requests", QuoteJson(req_text),
                                         "must be less than or equal to " + std::string(kv.key()) + " limit of " +
                                             limit_text));
    }
  }
}

// IsValidPortName: an IANA service name.
std::vector<std::string> PortNameMessages(std::string_view name) {
  std::vector<std::string> out;
  if (name.size() > 15) out.emplace_back("must be no more than 15 characters");
  bool letter = false;
  bool bad_char = false;
  for (char c : name) {
    if ((c >= 'a' && c <= 'z')) letter = true;
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) bad_char = true;
  }
  if (bad_char) out.emplace_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (name.find("--") != std::string_view::npos) out.emplace_back("must not contain consecutive hyphens");
  if (!letter) out.emplace_back("must contain at least one letter (a-z)");
  if (!name.empty() && (name.front() == '-' || name.back() == '-')) out.emplace_back("must not begin or end with a hyphen");
  return out;
}

// A probe handler's or a Service's target port: a number in range or a port name.
void ValidatePortNumOrName(const json::value& port, const std::string& path, std::vector<FieldError>& errs) {
  if (port.is_int64()) {
    const int64_t p = port.get_int64();
    if (p < 1 || p > 65535) errs.push_back(FieldError::Invalid(path, std::to_string(p), std::string(kPortRange)));
  } else if (port.is_string()) {
    AddMessages(errs, path, port.get_string(), PortNameMessages(port.get_string()));
  }
}

void ValidateProbe(const json::object& probe, const std::string& path, std::vector<FieldError>& errs) {
  int handlers = 0;
  for (std::string_view h : {"exec", "httpGet", "tcpSocket", "grpc"}) handlers += probe.contains(h) ? 1 : 0;
  if (handlers == 0) {
    errs.push_back(FieldError::Required(path, "must specify a handler type"));
    return;
  }
  if (const auto* tcp = ObjectAt(probe, "tcpSocket")) {
    if (const auto* port = tcp->if_contains("port")) ValidatePortNumOrName(*port, path + ".tcpSocket.port", errs);
  }
  if (const auto* http = ObjectAt(probe, "httpGet")) {
    if (const auto* port = http->if_contains("port")) ValidatePortNumOrName(*port, path + ".httpGet.port", errs);
  }
}

bool IsEnvVarName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (c == '=' || c < 32 || c > 126) return false;
  }
  return true;
}

void ValidateContainer(const json::object& c, const std::string& path, const std::set<std::string>& volumes,
                       std::set<std::string>& names, bool regular, std::vector<FieldError>& errs) {
  const std::string name(StringAt(c, "name"));
  if (name.empty()) {
    errs.push_back(FieldError::Required(path + ".name"));
  } else {
    AddMessages(errs, path + ".name", name, IsDns1123Label(name));
  }
  if (!name.empty() && !names.insert(name).second) errs.push_back(FieldError::Duplicate(path + ".name", QuoteJson(name)));
  if (StringAt(c, "image").empty()) errs.push_back(FieldError::Required(path + ".image"));
  if (const auto* ports = Arr(c, "ports")) {
    std::set<std::string> port_names;
    for (std::size_t j = 0; j < ports->size(); ++j) {
      if (!(*ports)[j].is_object()) continue;
      const auto& p = (*ports)[j].get_object();
      const std::string ppath = Idx(path + ".ports", j);
      const std::string pname(StringAt(p, "name"));
      if (!pname.empty()) {
        AddMessages(errs, ppath + ".name", pname, PortNameMessages(pname));
        if (!port_names.insert(pname).second) errs.push_back(FieldError::Duplicate(ppath + ".name", QuoteJson(pname)));
      }
      const int64_t cport = Int(p, "containerPort").value_or(0);
      if (cport == 0) {
        errs.push_back(FieldError::Required(ppath + ".containerPort"));
      } else if (cport < 1 || cport > 65535) {
        errs.push_back(FieldError::Invalid(ppath + ".containerPort", std::to_string(cport), std::string(kPortRange)));
      }
      const int64_t hport = Int(p, "hostPort").value_or(0);
      if (hport != 0 && (hport < 1 || hport > 65535)) {
        errs.push_back(FieldError::Invalid(ppath + ".hostPort", std::to_string(hport), std::string(kPortRange)));
      }
      const std::string protocol(StringAt(p, "protocol"));
      if (protocol.empty()) {
        errs.push_back(FieldError::Required(ppath + ".protocol"));
      } else {
        NotSupported(errs, ppath + ".protocol", protocol, {"SCTP", "TCP", "UDP"});
      }
    }
  }
  if (const auto* env = Arr(c, "env")) {
    for (std::size_t j = 0; j < env->size(); ++j) {
      if (!(*env)[j].is_object()) continue;
      const std::string ename(StringAt((*env)[j].get_object(), "name"));
      const std::string epath = Idx(path + ".env", j) + ".name";
      if (ename.empty()) {
        errs.push_back(FieldError::Required(epath));
      } else if (!IsEnvVarName(ename)) {
        errs.push_back(FieldError::Invalid(
            epath, QuoteJson(ename), "a valid environment variable name must consist only of printable ASCII characters other than '='"));
      }
    }
  }
  if (const auto* mounts = Arr(c, "volumeMounts")) {
    std::set<std::string> paths;
    for (std::size_t j = 0; j < mounts->size(); ++j) {
      if (!(*mounts)[j].is_object()) continue;
      const auto& m = (*mounts)[j].get_object();
      const std::string mpath = Idx(path + ".volumeMounts", j);
      const std::string mname(StringAt(m, "name"));
      if (mname.empty()) {
        errs.push_back(FieldError::Required(mpath + ".name"));
      } else if (volumes.count(mname) == 0) {
        errs.push_back(FieldError::NotFound(mpath + ".name", QuoteJson(mname)));
      }
      const std::string mount_path(StringAt(m, "mountPath"));
      if (mount_path.empty()) {
        errs.push_back(FieldError::Required(mpath + ".mountPath"));
      } else if (!paths.insert(mount_path).second) {
        errs.push_back(FieldError::Invalid(mpath + ".mountPath", QuoteJson(mount_path), "must be unique"));
      }
    }
  }
  if (const auto policy = StringAt(c, "imagePullPolicy"); !policy.empty()) {
    NotSupported(errs, path + ".imagePullPolicy", policy, {"Always", "IfNotPresent", "Never"});
  }
  ValidateResources(Obj(c, "resources"), path + ".resources", errs);
  if (const auto* sc = ObjectAt(c, "securityContext")) {
    if (auto uid = Int(*sc, "runAsUser"); uid && (*uid < 0 || *uid > 2147483647)) {
      errs.push_back(FieldError::Invalid(path + ".securityContext.runAsUser", std::to_string(*uid),
                                         "must be between 0 and 2147483647, inclusive"));
    }
  }
  if (regular) {
    for (std::string_view probe : {"livenessProbe", "readinessProbe", "startupProbe"}) {
      if (const auto* p = ObjectAt(c, probe)) ValidateProbe(*p, path + "." + std::string(probe), errs);
    }
  }
}

// The volume sources of kube 1.32's VolumeSource, in the order validateVolumeSource counts them.
constexpr std::string_view kVolumeSources[] = {
    "emptyDir", "hostPath", "gitRepo", "gcePersistentDisk", "awsElasticBlockStore", "secret", "nfs", "iscsi",
    "glusterfs", "flexVolume", "persistentVolumeClaim", "rbd", "cinder", "cephfs", "flocker", "downwardAPI", "fc",
    "azureFile", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "portworxVolume", "projected",
    "scaleIO", "configMap", "storageos", "csi", "ephemeral", "image"};

std::set<std::string> ValidateVolumes(const json::object& spec, const std::string& path, std::vector<FieldError>& errs) {
  std::set<std::string> names;
  const auto* volumes = Arr(spec, "volumes");
  if (volumes == nullptr) return names;
  for (std::size_t i = 0; i < volumes->size(); ++i) {
    if (!(*volumes)[i].is_object()) continue;
    const auto& v = (*volumes)[i].get_object();
    const std::string vpath = Idx(path, i);
    const std::string name(StringAt(v, "name"));
    if (name.empty()) {
      errs.push_back(FieldError::Required(vpath + ".name"));
    } else {
      AddMessages(errs, vpath + ".name", name, IsDns1123Label(name));
      if (!names.insert(name).second) errs.push_back(FieldError::Duplicate(vpath + ".name", QuoteJson(name)));
    }
    int sources = 0;
    for (std::string_view source : kVolumeSources) {
      if (!v.contains(source)) continue;
      if (++sources > 1) {
        errs.push_back(FieldError::Forbidden(vpath + "." + std::string(source), "may not specify more than 1 volume type"));
      }
    }
    if (sources == 0) errs.push_back(FieldError::Required(vpath, "must specify a volume type"));
    for (std::string_view source : {"configMap", "secret"}) {
      if (const auto* s = ObjectAt(v, source)) {
        if (auto mode = Int(*s, "defaultMode"); mode && (*mode < 0 || *mode > 0777)) {
          errs.push_back(FieldError::Invalid(vpath + "." + std::string(source) + ".defaultMode", std::to_string(*mode),
                                             "must be a number between 0 and 0777 (octal), both inclusive"));
        }
      }
    }
  }
  return names;
}

}  // namespace

void ValidatePodSpec(const json::object& spec, const std::string& path, std::vector<FieldError>& errs) {
  const std::set<std::string> volumes = ValidateVolumes(spec, path + ".volumes", errs);
  std::set<std::string> names;
  const auto* containers = Arr(spec, "containers");
  if (containers == nullptr || containers->empty()) {
    errs.push_back(FieldError::Required(path + ".containers"));
  } else {
    for (std::size_t i = 0; i < containers->size(); ++i) {
      if ((*containers)[i].is_object()) {
        ValidateContainer((*containers)[i].get_object(), Idx(path + ".containers", i), volumes, names, true, errs);
      }
    }
  }
  if (const auto* init = Arr(spec, "initContainers")) {
    for (std::size_t i = 0; i < init->size(); ++i) {
      if ((*init)[i].is_object()) {
        ValidateContainer((*init)[i].get_object(), Idx(path + ".initContainers", i), volumes, names, false, errs);
      }
    }
  }
  // validatePodHostNetworkDeps: with the host's network a host port is the container port.
  if (const auto* host = spec.if_contains("hostNetwork"); host != nullptr && host->is_bool() && host->get_bool() &&
                                                          containers != nullptr) {
    for (std::size_t i = 0; i < containers->size(); ++i) {
      const auto* ports = (*containers)[i].is_object() ? Arr((*containers)[i].get_object(), "ports") : nullptr;
      if (ports == nullptr) continue;
      for (std::size_t j = 0; j < ports->size(); ++j) {
        if (!(*ports)[j].is_object()) continue;
        const auto& p = (*ports)[j].get_object();
        const int64_t hport = Int(p, "hostPort").value_or(0);
        if (hport != 0 && hport != Int(p, "containerPort").value_or(0)) {
          errs.push_back(FieldError::Invalid(Idx(Idx(path + ".containers", i) + ".ports", j) + ".hostPort",
                                             std::to_string(hport), "must match `containerPort` when `hostNetwork` is true"));
        }
      }
    }
  }
  NotSupported(errs, path + ".restartPolicy", StringAt(spec, "restartPolicy"), {"Always", "OnFailure", "Never"});
  NotSupported(errs, path + ".dnsPolicy", StringAt(spec, "dnsPolicy"),
               {"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"});
  for (const auto& kv : Obj(spec, "nodeSelector")) {
    const std::string_view key(kv.key().data(), kv.key().size());
    AddMessages(errs, path + ".nodeSelector", key, IsQualifiedName(key));
    if (kv.value().is_string()) AddMessages(errs, path + ".nodeSelector", kv.value().get_string(), IsValidLabelValue(kv.value().get_string()));
  }
  if (const auto* sc = ObjectAt(spec, "securityContext")) {
    if (auto uid = Int(*sc, "runAsUser"); uid && (*uid < 0 || *uid > 2147483647)) {
      errs.push_back(FieldError::Invalid(path + ".securityContext.runAsUser", std::to_string(*uid),
                                         "must be between 0 and 2147483647, inclusive"));
    }
  }
  if (const auto sa = StringAt(spec, "serviceAccountName"); !sa.empty()) {
    AddMessages(errs, path + ".serviceAccountName", sa, IsDns1123Subdomain(sa));
  }
  if (auto deadline = Int(spec, "activeDeadlineSeconds"); deadline && (*deadline < 1 || *deadline > 2147483647)) {
    errs.push_back(FieldError::Invalid(path + ".activeDeadlineSeconds", std::to_string(*deadline),
                                       "must be between 1 and 2147483647, inclusive"));
  }
  if (const auto hostname = StringAt(spec, "hostname"); !hostname.empty()) {
    AddMessages(errs, path + ".hostname", hostname, IsDns1123Label(hostname));
  }
  if (const auto* tolerations = Arr(spec, "tolerations")) {
    for (std::size_t i = 0; i < tolerations->size(); ++i) {
      if (!(*tolerations)[i].is_object()) continue;
      const auto op = StringAt((*tolerations)[i].get_object(), "operator");
      if (!op.empty()) NotSupported(errs, Idx(path + ".tolerations", i) + ".operator", op, {"Equal", "Exists"});
    }
  }
}

void ValidateServiceSpec(const json::object& obj, const json::object* old, std::vector<FieldError>& errs) {
  const json::object& spec = Obj(obj, "spec");
  const std::string type(StringAt(spec, "type"));
  NotSupported(errs, "spec.type", type, {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"});
  const bool external_name = type == "ExternalName";
  const auto* ports = Arr(spec, "ports");
  if (external_name) {
    const auto name = StringAt(spec, "externalName");
    if (name.empty()) {
      errs.push_back(FieldError::Required("spec.externalName"));
    } else {
      AddMessages(errs, "spec.externalName", name, IsDns1123Subdomain(name));
    }
  } else if ((ports == nullptr || ports->empty()) && StringAt(spec, "clusterIP") != "None") {
    errs.push_back(FieldError::Required("spec.ports"));  // a headless service may have none
  }
  if (ports != nullptr) {
    std::set<std::string> names;
    std::set<std::pair<int64_t, std::string>> seen;
    const bool require_names = ports->size() > 1;
    for (std::size_t i = 0; i < ports->size(); ++i) {
      if (!(*ports)[i].is_object()) continue;
      const auto& p = (*ports)[i].get_object();
      const std::string ppath = Idx("spec.ports", i);
      const std::string name(StringAt(p, "name"));
      if (name.empty()) {
        if (require_names) errs.push_back(FieldError::Required(ppath + ".name"));
      } else {
        AddMessages(errs, ppath + ".name", name, IsDns1123Label(name));
        if (!names.insert(name).second) errs.push_back(FieldError::Duplicate(ppath + ".name", QuoteJson(name)));
      }
      const int64_t port = Int(p, "port").value_or(0);
      if (port < 1 || port > 65535) errs.push_back(FieldError::Invalid(ppath + ".port", std::to_string(port), std::string(kPortRange)));
      const std::string protocol(StringAt(p, "protocol"));
      NotSupported(errs, ppath + ".protocol", protocol, {"SCTP", "TCP", "UDP"});
      if (const auto* target = p.if_contains("targetPort")) ValidatePortNumOrName(*target, ppath + ".targetPort", errs);
      const int64_t node_port = Int(p, "nodePort").value_or(0);
      if (node_port != 0) {
        if (type == "ClusterIP" || type.empty()) {
          errs.push_back(FieldError::Forbidden(ppath + ".nodePort", "may not be used when `type` is 'ClusterIP'"));
        } else if (node_port < 30000 || node_port > 32767) {
          errs.push_back(FieldError::Invalid(ppath + ".nodePort", std::to_string(node_port),
                                             "provided port is not in the valid range. The range of valid ports is 30000-32767"));
        }
      }
      if (!seen.insert({port, protocol}).second) {
        FieldError dup = FieldError::Duplicate(ppath, "");
        dup.bad_value_go = "core.ServicePort{Name:\"\", Protocol:" + QuoteJson(protocol) +
                           ", AppProtocol:(*string)(nil), Port:" + std::to_string(port) +
                           ", TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, NodePort:0}";
        errs.push_back(std::move(dup));
      }
    }
  }
  for (const auto& kv : Obj(spec, "selector")) {
    if (kv.value().is_string()) AddMessages(errs, "spec.selector", kv.value().get_string(), IsValidLabelValue(kv.value().get_string()));
  }
  if (const auto affinity = StringAt(spec, "sessionAffinity"); !affinity.empty()) {
    NotSupported(errs, "spec.sessionAffinity", affinity, {"ClientIP", "None"});
  }
  const auto policy = StringAt(spec, "ipFamilyPolicy");
  if (!policy.empty()) NotSupported(errs, "spec.ipFamilyPolicy", policy, {"PreferDualStack", "RequireDualStack", "SingleStack"});
  const bool external = type == "NodePort" || type == "LoadBalancer";
  if (const auto etp = StringAt(spec, "externalTrafficPolicy"); !etp.empty() && !external) {
    errs.push_back(FieldError::Invalid("spec.externalTrafficPolicy", QuoteJson(etp),
                                       "may only be set for externally-accessible services"));
  }
  if (spec.contains("loadBalancerSourceRanges") && type != "LoadBalancer") {
    errs.push_back(FieldError::Forbidden("spec.LoadBalancerSourceRanges", "may only be used when `type` is 'LoadBalancer'"));
  }
  // Cluster IPs: a valid address, and fixed once set.
  if (const auto* ips = Arr(spec, "clusterIPs")) {
    for (std::size_t i = 0; i < ips->size(); ++i) {
      const std::string ip = (*ips)[i].is_string() ? std::string((*ips)[i].get_string()) : "";
      if (ip.empty() || ip == "None") continue;
      unsigned a = 0, b = 0, c = 0, d = 0;
      char tail = 0;
      const bool v4 = std::sscanf(ip.c_str(), "%u.%u.%u.%u%c", &a, &b, &c, &d, &tail) == 4 && a < 256 && b < 256 &&
                      c < 256 && d < 256;
      if (!v4 && ip.find(':') == std::string::npos) {
        errs.push_back(FieldError::Invalid(Idx("spec.clusterIPs", i), QuoteJson(ip),
                                           "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
      }
    }
  }
  if (old == nullptr) {
    // The allocator's range (kubeadm's default service CIDR).
    if (const auto* ips = Arr(spec, "clusterIPs"); ips != nullptr && !ips->empty() && (*ips)[0].is_string()) {
      const std::string ip((*ips)[0].get_string());
      unsigned a = 0, b = 0, c = 0, d = 0;
      char tail = 0;
      if (std::sscanf(ip.c_str(), "%u.%u.%u.%u%c", &a, &b, &c, &d, &tail) == 4 && !(a == 10 && (b & 0xF0U) == 96)) {
        FieldError e = FieldError::Invalid("spec.clusterIPs", "",
                                           "failed to allocate IP " + ip + ": the provided IP (" + ip +
                                               ") is not in the valid range. The range of valid IPs is 10.96.0.0/12");
        e.bad_value_go = "[]string{" + QuoteJson(ip) + "}";
        errs.push_back(std::move(e));
      }
    }
  }
  if (old != nullptr) {
    const json::object& old_spec = Obj(*old, "spec");
    const auto* was = Arr(old_spec, "clusterIPs");
    const auto* now = Arr(spec, "clusterIPs");
    if (was != nullptr && !was->empty() && now != nullptr && !now->empty() && !JsonEqual((*was)[0], (*now)[0])) {
      FieldError e = FieldError::Invalid("spec.clusterIPs[0]", "", "may not change once set");
      std::string go = "[]string{";
      for (std::size_t i = 0; i < now->size(); ++i) {
        if (i != 0) go += ", ";
        go += (*now)[i].is_string() ? QuoteJson((*now)[i].get_string()) : SerializeJson((*now)[i]);
      }
      e.bad_value_go = go + "}";
      errs.push_back(std::move(e));
    }
  }
}

}  // namespace kube::apiserver::rest
