// Decoding-time behaviour of the built-ins: type checks that kube's JSON decoder would fail,
// conversion between the served and stored forms (events.k8s.io/v1 <-> core/v1, autoscaling/v1 <->
// autoscaling/v2), Secret stringData,
// and the v1 defaulting functions.

#include <array>
#include <string>
#include <utility>

#include <boost/json.hpp>

#include <kube/core/status.hpp>

#include "apiserver/rest/builtin_schema.hpp"
#include "apiserver/rest/csr.hpp"
#include "apiserver/rest/go_zero.hpp"
#include "apiserver/rest/hpa.hpp"
#include "apiserver/rest/json_util.hpp"
#include "apiserver/rest/kinds.hpp"
#include "apiserver/rest/strategy.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

constexpr std::string_view kStdAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string Base64StdEncode(std::string_view data) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= data.size(); i += 3) {
    const uint32_t n = (static_cast<uint8_t>(data[i]) << 16) |
                       (static_cast<uint8_t>(data[i + 1]) << 8) | static_cast<uint8_t>(data[i + 2]);
    for (int s : {18, 12, 6, 0}) out.push_back(kStdAlphabet[(n >> s) & 63]);
  }
  const std::size_t rest = data.size() - i;
  if (rest > 0) {
    uint32_t n = static_cast<uint8_t>(data[i]) << 16;
    if (rest == 2) n |= static_cast<uint8_t>(data[i + 1]) << 8;
    out.push_back(kStdAlphabet[(n >> 18) & 63]);
    out.push_back(kStdAlphabet[(n >> 12) & 63]);
    out.push_back(rest == 2 ? kStdAlphabet[(n >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

// Go's base64.StdEncoding.DecodeString validity (CR/LF ignored). Returns the offset of the first
// illegal byte, or -1 when valid.
long Base64StdInvalidAt(std::string_view s) {
  std::size_t n = 0;  // significant characters seen
  std::size_t pad = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\r' || c == '\n') continue;
    if (c == '=') {
      if (n % 4 < 2) return static_cast<long>(i);
      ++pad;
      ++n;
      continue;
    }
    if (pad > 0 || kStdAlphabet.find(c) == std::string_view::npos) return static_cast<long>(i);
    ++n;
  }
  if (n % 4 != 0) return static_cast<long>(s.size());
  return -1;
}

Error CannotHandle(const ResourceInfo& info, const std::string& detail) {
  return NewBadRequest(info.kind + " in version \"" + info.version + "\" cannot be handled as a " +
                       info.kind + ": " + detail);
}

std::string GoJsonType(const json::value& v) {
  if (v.is_string()) return "string";
  if (v.is_bool()) return "bool";
  if (v.is_number()) return "number";
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  return "null";
}

// A map member whose values must be strings (and base64 when `base64`).
Result<void> CheckStringMap(const ResourceInfo& info, const json::object& obj, std::string_view member,
                            bool base64) {
  const auto* v = obj.if_contains(member);
  if (v == nullptr || v->is_null()) return Ok();
  const std::string go_field = info.kind + "." + std::string(member);
  if (!v->is_object()) {
    return CannotHandle(info, "json: cannot unmarshal " + GoJsonType(*v) + " into Go struct field " +
                                  go_field + " of type map[string]" + (base64 ? "[]uint8" : "string"));
  }
  for (const auto& kv : v->get_object()) {
    if (kv.value().is_null()) continue;
    if (!kv.value().is_string()) {
      return CannotHandle(info, "json: cannot unmarshal " + GoJsonType(kv.value()) +
                                    " into Go struct field " + go_field + " of type " +
                                    (base64 ? "[]uint8" : "string"));
    }
    if (base64) {
      const auto& s = kv.value().get_string();
      if (long at = Base64StdInvalidAt({s.data(), s.size()}); at >= 0) {
        return CannotHandle(info, "illegal base64 data at input byte " + std::to_string(at));
      }
    }
  }
  return Ok();
}

void DefaultContainers(json::object& spec, std::string_view key) {
  const auto* host = spec.if_contains("hostNetwork");
  const bool host_network = host != nullptr && host->is_bool() && host->get_bool();
  auto* arr = spec.if_contains(key);
  if (arr == nullptr || !arr->is_array()) return;
  for (auto& c : arr->get_array()) {
    if (!c.is_object()) continue;
    auto& container = c.get_object();
    SetDefault(container, "terminationMessagePath", "/dev/termination-log");
    SetDefault(container, "terminationMessagePolicy", "File");
    SetDefault(container, "resources", json::object());
    // SetDefaults_ResourceList of a container: a limit without a request is also the request.
    if (auto* resources = ObjectAt(container, "resources")) {
      if (const auto* limits = ObjectAt(*resources, "limits"); limits != nullptr && !limits->empty()) {
        const json::object limits_copy = *limits;
        auto& requests = EnsureObject(*resources, "requests");
        for (const auto& kv : limits_copy) {
          if (!requests.contains(kv.key())) requests[kv.key()] = kv.value();
        }
      }
    }
    if (!container.contains("imagePullPolicy")) {
      const auto image = StringAt(container, "image");
      const auto slash = image.rfind('/');
      const auto tail = image.substr(slash == std::string_view::npos ? 0 : slash + 1);
      const auto colon = tail.find(':');
      const bool latest = image.find('@') == std::string_view::npos &&
                          (colon == std::string_view::npos || tail.substr(colon + 1) == "latest");
      container["imagePullPolicy"] = latest ? "Always" : "IfNotPresent";
    }
    if (auto* ports = container.if_contains("ports"); ports != nullptr && ports->is_array()) {
      for (auto& p : ports->get_array()) {
        if (!p.is_object()) continue;
        SetDefault(p.get_object(), "protocol", "TCP");
        // SetDefaults_Pod: on the host's network a container port is also the host port.
        if (host_network) {
          const auto* hp = p.get_object().if_contains("hostPort");
          const auto* cp = p.get_object().if_contains("containerPort");
          if ((hp == nullptr || (hp->is_int64() && hp->get_int64() == 0)) && cp != nullptr) {
            p.get_object()["hostPort"] = *cp;
          }
        }
      }
    }
    for (std::string_view probe : {"livenessProbe", "readinessProbe", "startupProbe"}) {
      auto* pr = ObjectAt(container, probe);
      if (pr == nullptr) continue;
      SetDefault(*pr, "timeoutSeconds", 1);
      SetDefault(*pr, "periodSeconds", 10);
      SetDefault(*pr, "successThreshold", 1);
      SetDefault(*pr, "failureThreshold", 3);
      if (auto* http = ObjectAt(*pr, "httpGet")) SetDefault(*http, "scheme", "HTTP");
    }
    if (auto* env = container.if_contains("env"); env != nullptr && env->is_array()) {
      for (auto& e : env->get_array()) {
        auto* from = e.is_object() ? ObjectAt(e.get_object(), "valueFrom") : nullptr;
        if (from == nullptr) continue;
        if (auto* field = ObjectAt(*from, "fieldRef")) SetDefault(*field, "apiVersion", "v1");
        if (auto* res = ObjectAt(*from, "resourceFieldRef")) SetDefault(*res, "divisor", "0");
      }
    }
  }
}

// The volume sources of kube 1.32's VolumeSource.
constexpr std::string_view kVolumeSources[] = {
    "emptyDir", "hostPath", "gitRepo", "gcePersistentDisk", "awsElasticBlockStore", "secret", "nfs", "iscsi",
    "glusterfs", "flexVolume", "persistentVolumeClaim", "rbd", "cinder", "cephfs", "flocker", "downwardAPI", "fc",
    "azureFile", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "portworxVolume", "projected",
    "scaleIO", "configMap", "storageos", "csi", "ephemeral", "image"};

// SetDefaults_Volume and the volume sources' defaults (mode 0644, hostPath type "").
void DefaultVolumes(json::object& spec) {
  auto* volumes = spec.if_contains("volumes");
  if (volumes == nullptr || !volumes->is_array()) return;
  for (auto& v : volumes->get_array()) {
    if (!v.is_object()) continue;
    auto& volume = v.get_object();
    bool any = false;
    for (auto source : kVolumeSources) any = any || volume.contains(source);
    if (!any) volume["emptyDir"] = json::object();
    for (std::string_view source : {"configMap", "secret", "downwardAPI", "projected"}) {
      if (auto* s = ObjectAt(volume, source)) SetDefault(*s, "defaultMode", 420);
    }
    if (auto* host = ObjectAt(volume, "hostPath")) SetDefault(*host, "type", "");
    if (auto* downward = ObjectAt(volume, "downwardAPI")) {
      if (auto* items = downward->if_contains("items"); items != nullptr && items->is_array()) {
        for (auto& item : items->get_array()) {
          auto* field = item.is_object() ? ObjectAt(item.get_object(), "fieldRef") : nullptr;
          if (field != nullptr) SetDefault(*field, "apiVersion", "v1");
        }
      }
    }
  }
}

void DefaultPodSpec(json::object& spec) {
  DefaultVolumes(spec);
  DefaultContainers(spec, "containers");
  DefaultContainers(spec, "initContainers");
  SetDefault(spec, "restartPolicy", "Always");
  SetDefault(spec, "terminationGracePeriodSeconds", 30);
  SetDefault(spec, "dnsPolicy", "ClusterFirst");
  SetDefault(spec, "securityContext", json::object());
  SetDefault(spec, "schedulerName", "default-scheduler");
}

void DefaultPodTemplate(json::object& obj) {
  auto* spec = ObjectAt(obj, "spec");
  if (spec == nullptr) return;
  auto* tmpl = ObjectAt(*spec, "template");
  if (tmpl == nullptr) return;
  DefaultPodTemplateSpec(*tmpl);
}

// Renames members of `obj` per `names` (from -> to), keeping member order.
void RenameMembers(json::object& obj, const std::vector<std::pair<std::string_view, std::string_view>>& names) {
  json::object out;
  out.reserve(obj.size());
  for (auto& kv : obj) {
    std::string_view key(kv.key().data(), kv.key().size());
    for (const auto& [from, to] : names) {
      if (key == from) {
        key = to;
        break;
      }
    }
    out[key] = std::move(kv.value());
  }
  obj = std::move(out);
}

const std::vector<std::pair<std::string_view, std::string_view>>& CoreToEventsV1() {
  static const std::vector<std::pair<std::string_view, std::string_view>> k = {
      {"involvedObject", "regarding"},
      {"message", "note"},
      {"source", "deprecatedSource"},
      {"firstTimestamp", "deprecatedFirstTimestamp"},
      {"lastTimestamp", "deprecatedLastTimestamp"},
      {"count", "deprecatedCount"},
      {"reportingComponent", "reportingController"}};
  return k;
}

const std::vector<std::pair<std::string_view, std::string_view>>& EventsV1ToCore() {
  static const std::vector<std::pair<std::string_view, std::string_view>> k = [] {
    std::vector<std::pair<std::string_view, std::string_view>> v;
    for (const auto& [a, b] : CoreToEventsV1()) v.emplace_back(b, a);
    return v;
  }();
  return k;
}

}  // namespace

void DefaultPodTemplateSpec(json::object& tmpl) {
  // ObjectMeta's creationTimestamp is a non-pointer Time: Go writes null in a template.
  SetDefault(EnsureObject(tmpl, "metadata"), "creationTimestamp", nullptr);
  DefaultPodSpec(EnsureObject(tmpl, "spec"));
}

bool NeedsViewConversion(const ResourceInfo& info) {
  return KindOf(info) == BuiltinKind::kEventV1 || IsHpaV1View(info);
}

void StoredToView(const ResourceInfo& info, json::object& obj) {
  if (!NeedsViewConversion(info)) return;
  if (IsHpaV1View(info)) return HpaV2ToV1(obj);
  RenameMembers(obj, CoreToEventsV1());
  obj["apiVersion"] = info.ApiVersion();
  // events.k8s.io/v1 omits these when empty (core/v1 always writes them).
  for (std::string_view member : {"reportingController", "reportingInstance"}) {
    if (const auto* v = obj.if_contains(member); v != nullptr && v->is_string() && v->get_string().empty()) obj.erase(member);
  }
}

void ViewToStored(const ResourceInfo& info, json::object& obj) {
  if (!NeedsViewConversion(info)) return;
  if (IsHpaV1View(info)) return HpaV1ToV2(obj);
  RenameMembers(obj, EventsV1ToCore());
  obj["apiVersion"] = "v1";
}

Result<void> DecodeAndDefault(const ResourceInfo& info, json::object& obj) {
  // Decoding into the Go type and encoding it again adds the always-encoded members.
  if (const TypeSchemaPtr schema = info.builtin ? BuiltinFieldSchema(info) : nullptr) {
    json::value v(std::move(obj));
    FillGoZero(*schema, v);
    NormalizeGoEmpty(*schema, v, /*stored=*/false);
    obj = std::move(v.as_object());
  }
  switch (KindOf(info)) {
    case BuiltinKind::kConfigMap:
      KUBE_RETURN_IF_ERROR(CheckStringMap(info, obj, "data", false));
      KUBE_RETURN_IF_ERROR(CheckStringMap(info, obj, "binaryData", true));
      break;
    case BuiltinKind::kSecret: {
      KUBE_RETURN_IF_ERROR(CheckStringMap(info, obj, "data", true));
      KUBE_RETURN_IF_ERROR(CheckStringMap(info, obj, "stringData", false));
      if (const auto* sd = ObjectAt(obj, "stringData")) {
        json::object string_data = *sd;
        obj.erase("stringData");
        auto& data = EnsureObject(obj, "data");
        for (const auto& kv : string_data) {
          if (!kv.value().is_string()) continue;
          const auto& s = kv.value().get_string();
          data[kv.key()] = Base64StdEncode({s.data(), s.size()});
        }
      } else if (obj.contains("stringData")) {
        obj.erase("stringData");
      }
      if (StringAt(obj, "type").empty()) obj["type"] = "Opaque";
      break;
    }
    case BuiltinKind::kNamespace: {
      const std::string name(StringAt(MetadataOf(obj), "name"));  // a copy: labels may move it
      if (!name.empty()) {
        EnsureObject(EnsureObject(obj, "metadata"), "labels")["kubernetes.io/metadata.name"] = name;
      }
      auto& status = EnsureObject(obj, "status");
      if (StringAt(status, "phase").empty()) status["phase"] = "Active";
      break;
    }
    case BuiltinKind::kPod: {
      auto& spec = EnsureObject(obj, "spec");
      DefaultPodSpec(spec);
      SetDefault(spec, "enableServiceLinks", true);
      // The v1 conversion's podIP/hostIP as the first of podIPs/hostIPs.
      if (auto* status = ObjectAt(obj, "status")) {
        for (auto [single, plural] : {std::pair{"podIP", "podIPs"}, std::pair{"hostIP", "hostIPs"}}) {
          const auto ip = StringAt(*status, single);
          const auto* list = status->if_contains(plural);
          if (!ip.empty() && (list == nullptr || (list->is_array() && list->get_array().empty()))) {
            (*status)[plural] = json::array{json::object{{"ip", ip}}};
          }
        }
      }
      break;
    }
    case BuiltinKind::kService: {
      auto& spec = EnsureObject(obj, "spec");
      SetDefault(spec, "type", "ClusterIP");
      SetDefault(spec, "sessionAffinity", "None");
      const auto type = StringAt(spec, "type");
      if (type != "ExternalName") SetDefault(spec, "internalTrafficPolicy", "Cluster");
      if (type == "NodePort" || type == "LoadBalancer") SetDefault(spec, "externalTrafficPolicy", "Cluster");
      if (type == "LoadBalancer") SetDefault(spec, "allocateLoadBalancerNodePorts", true);
      if (auto* ports = spec.if_contains("ports"); ports != nullptr && ports->is_array()) {
        for (auto& p : ports->get_array()) {
          if (!p.is_object()) continue;
          auto& port = p.get_object();
          SetDefault(port, "protocol", "TCP");
          // An absent or zero targetPort is the port.
          const auto* target = port.if_contains("targetPort");
          if (const auto* num = port.if_contains("port");
              num != nullptr && num->is_int64() &&
              (target == nullptr || (target->is_int64() && target->get_int64() == 0))) {
            port["targetPort"] = *num;
          }
        }
      }
      break;
    }
    case BuiltinKind::kDeployment: {
      auto& spec = EnsureObject(obj, "spec");
      SetDefault(spec, "replicas", 1);
      auto& strategy = EnsureObject(spec, "strategy");
      SetDefault(strategy, "type", "RollingUpdate");
      if (StringAt(strategy, "type") == "RollingUpdate") {
        auto& rolling = EnsureObject(strategy, "rollingUpdate");
        SetDefault(rolling, "maxUnavailable", "25%");
        SetDefault(rolling, "maxSurge", "25%");
      }
      SetDefault(spec, "revisionHistoryLimit", 10);
      SetDefault(spec, "progressDeadlineSeconds", 600);
      DefaultPodTemplate(obj);
      break;
    }
    case BuiltinKind::kReplicaSet:
      SetDefault(EnsureObject(obj, "spec"), "replicas", 1);
      DefaultPodTemplate(obj);
      break;
    case BuiltinKind::kEvent:
    case BuiltinKind::kEventV1:
      // core/v1 Event's members Go always encodes (the events.k8s.io view renames them).
      for (std::string_view t : {"eventTime", "firstTimestamp", "lastTimestamp"}) SetDefault(obj, t, nullptr);
      SetDefault(obj, "reportingComponent", "");
      SetDefault(obj, "reportingInstance", "");
      SetDefault(obj, "source", json::object());
      break;
    case BuiltinKind::kGeneric:
      if (IsCertificateSigningRequest(info)) {
        // []byte members: base64, which Go's decoder checks.
        for (auto [holder, member] : {std::pair{"spec", "request"}, std::pair{"status", "certificate"}}) {
          const auto* o = ObjectAt(obj, holder);
          const auto* v = o != nullptr ? o->if_contains(member) : nullptr;
          if (v == nullptr || !v->is_string()) continue;
          const auto& text = v->get_string();
          if (long at = Base64StdInvalidAt({text.data(), text.size()}); at >= 0) {
            return CannotHandle(info, "illegal base64 data at input byte " + std::to_string(at));
          }
        }
      }
      DefaultOtherKind(info, obj);
      break;
    case BuiltinKind::kServiceAccount:
    case BuiltinKind::kNode:
    case BuiltinKind::kLease:
      break;
  }
  return Ok();
}

}  // namespace kube::apiserver::rest
