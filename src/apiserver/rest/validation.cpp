// Per-kind validation (kube's strategy Validate/ValidateUpdate), limited to the rules clients
// commonly trip over; messages are kube's.

#include <map>
#include <optional>
#include <tuple>

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/json_pointer.hpp>
#include <kube/core/label_selector.hpp>

#include "apiserver/rest/crd.hpp"
#include "apiserver/rest/csr.hpp"
#include "apiserver/rest/go_json.hpp"
#include "apiserver/rest/json_util.hpp"
#include "apiserver/rest/kinds.hpp"
#include "apiserver/rest/pod_validation.hpp"
#include "apiserver/rest/schema_validation.hpp"
#include "apiserver/rest/strategy.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

constexpr std::size_t kMaxSecretSize = 1024 * 1024;

void ValidateDataKeys(const json::object& obj, std::vector<FieldError>& errs, bool config_map) {
  std::size_t total = 0;
  const auto* data = ObjectAt(obj, "data");
  const auto* binary = config_map ? ObjectAt(obj, "binaryData") : nullptr;
  if (data != nullptr) {
    for (const auto& kv : *data) {
      const std::string_view key(kv.key().data(), kv.key().size());
      const std::string path = "data[" + std::string(key) + "]";
      for (auto& msg : IsConfigMapKey(key)) errs.push_back(FieldError::Invalid(path, QuoteJson(key), msg));
      if (binary != nullptr && binary->contains(key)) {
        errs.push_back(FieldError::Invalid(path, QuoteJson(key), "duplicate of key present in binaryData"));
      }
      if (kv.value().is_string()) total += kv.value().get_string().size();
    }
  }
  if (binary != nullptr) {
    for (const auto& kv : *binary) {
      const std::string_view key(kv.key().data(), kv.key().size());
      const std::string path = "binaryData[" + std::string(key) + "]";
      for (auto& msg : IsConfigMapKey(key)) errs.push_back(FieldError::Invalid(path, QuoteJson(key), msg));
      if (kv.value().is_string()) total += kv.value().get_string().size() * 3 / 4;
    }
  }
  if (total > kMaxSecretSize) {
    errs.push_back(FieldError::TooLong("", "may not be more than " + std::to_string(kMaxSecretSize) + " bytes"));
  }
}

// ValidateSecret's per-type required keys.
void ValidateSecretType(const json::object& obj, std::vector<FieldError>& errs) {
  const auto type = StringAt(obj, "type");
  const auto* data = ObjectAt(obj, "data");
  auto has = [&](std::string_view key) { return data != nullptr && data->contains(key); };
  auto required = [&](std::string_view key) {
    if (!has(key)) errs.push_back(FieldError::Required("data[" + std::string(key) + "]"));
  };
  if (type == "kubernetes.io/service-account-token") {
    const auto* ann = ObjectAt(MetadataOf(obj), "annotations");
    if (ann == nullptr || StringAt(*ann, "kubernetes.io/service-account.name").empty()) {
      errs.push_back(FieldError::Required("metadata.annotations[kubernetes.io/service-account.name]"));
    }
  } else if (type == "kubernetes.io/dockercfg") {
    required(".dockercfg");
  } else if (type == "kubernetes.io/dockerconfigjson") {
    required(".dockerconfigjson");
  } else if (type == "kubernetes.io/basic-auth") {
    if (!has("username") && !has("password")) {
      required("username");
      required("password");
    }
  } else if (type == "kubernetes.io/ssh-auth") {
    const auto* key = data != nullptr ? data->if_contains("ssh-privatekey") : nullptr;
    if (key == nullptr || !key->is_string() || key->get_string().empty()) {
      errs.push_back(FieldError::Required("data[ssh-privatekey]"));
    }
  } else if (type == "kubernetes.io/tls") {
    required("tls.crt");
    required("tls.key");
  }
}

// intstr.IntOrString as Go's %#v prints it.
std::string GoIntOrString(const json::value& v) {
  if (v.is_string()) return "intstr.IntOrString{Type:1, IntVal:0, StrVal:" + QuoteJson(v.get_string()) + "}";
  return "intstr.IntOrString{Type:0, IntVal:" + (v.is_int64() ? std::to_string(v.get_int64()) : std::string("0")) +
         ", StrVal:\"\"}";
}

// ValidateDeploymentSpec's strategy and counters (after the selector and template).
void ValidateDeploymentFields(const json::object& spec, std::vector<FieldError>& errs) {
  const json::object empty;
  const auto* strategy_p = ObjectAt(spec, "strategy");
  const json::object& strategy = strategy_p != nullptr ? *strategy_p : empty;
  const auto type = StringAt(strategy, "type");
  const auto* rolling = ObjectAt(strategy, "rollingUpdate");
  if (type == "Recreate") {
    if (rolling != nullptr) {
      errs.push_back(FieldError::Forbidden("spec.strategy.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'"));
    }
  } else if (type == "RollingUpdate") {
    if (rolling == nullptr) {
      errs.push_back(FieldError::Required("spec.strategy.rollingUpdate", "this should be defaulted and never be nil"));
    } else {
      auto value = [](const json::value* v, bool& percent) -> std::optional<int64_t> {
        percent = false;
        if (v == nullptr) return int64_t{0};
        if (v->is_int64()) return v->get_int64();
        if (!v->is_string()) return std::nullopt;
        const std::string_view s(v->get_string().data(), v->get_string().size());
        if (s.empty() || s.back() != '%') return std::nullopt;
        percent = true;
        try {
          return std::stoll(std::string(s.substr(0, s.size() - 1)));
        } catch (...) {
          return std::nullopt;
        }
      };
      const json::value* unavailable = rolling->if_contains("maxUnavailable");
      const json::value* surge = rolling->if_contains("maxSurge");
      bool pu = false;
      bool ps = false;
      const auto u = value(unavailable, pu);
      const auto s = value(surge, ps);
      for (auto [v, path, parsed] : {std::tuple{unavailable, "spec.strategy.rollingUpdate.maxUnavailable", u},
                                     std::tuple{surge, "spec.strategy.rollingUpdate.maxSurge", s}}) {
        if (v == nullptr) continue;
        if (!parsed) {
          errs.push_back(InvalidGo(path, GoIntOrString(*v),
                                   "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or "
                                   "'93%', regex used for validation is '[0-9]+%')"));
        } else if (*parsed < 0) {
          errs.push_back(InvalidGo(path, GoIntOrString(*v), "must be greater than or equal to 0"));
        }
      }
      if (u && s && *u == 0 && *s == 0 && unavailable != nullptr) {
        errs.push_back(InvalidGo("spec.strategy.rollingUpdate.maxUnavailable", GoIntOrString(*unavailable),
                                 "may not be 0 when `maxSurge` is 0"));
      }
      if (u && pu && *u > 100) {
        errs.push_back(InvalidGo("spec.strategy.rollingUpdate.maxUnavailable", GoIntOrString(*unavailable),
                                 "must not be greater than 100%"));
      }
    }
  } else {
    FieldError e = FieldError::NotSupported("spec.strategy", "", {"Recreate", "RollingUpdate"});
    e.bad_value_go = "apps.DeploymentStrategy{Type:" + QuoteJson(type) +
                     ", RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}";
    if (rolling == nullptr) errs.push_back(std::move(e));
  }
  auto non_negative = [&](std::string_view member) {
    if (const auto* v = spec.if_contains(member); v != nullptr && v->is_int64() && v->get_int64() < 0) {
      errs.push_back(FieldError::Invalid("spec." + std::string(member), std::to_string(v->get_int64()),
                                         "must be greater than or equal to 0"));
    }
  };
  non_negative("minReadySeconds");
  non_negative("revisionHistoryLimit");
  if (const auto* p = spec.if_contains("progressDeadlineSeconds"); p != nullptr && p->is_int64()) {
    non_negative("progressDeadlineSeconds");
    const auto* m = spec.if_contains("minReadySeconds");
    const int64_t min_ready = m != nullptr && m->is_int64() ? m->get_int64() : 0;
    if (p->get_int64() <= min_ready) {
      errs.push_back(FieldError::Invalid("spec.progressDeadlineSeconds", std::to_string(p->get_int64()),
                                         "must be greater than minReadySeconds"));
    }
  }
}

// ValidatePolicyRule for Roles and ClusterRoles; ValidateRoleBinding's roleRef and subjects.
void ValidateRbac(const ResourceInfo& info, const json::object& obj, std::vector<FieldError>& errs) {
  const bool namespaced = info.namespaced;
  if (info.kind == "Role" || info.kind == "ClusterRole") {
    const auto* rules = obj.if_contains("rules");
    if (rules == nullptr || !rules->is_array()) return;
    std::size_t i = 0;
    for (const auto& rule : rules->get_array()) {
      const std::string path = "rules[" + std::to_string(i++) + "]";
      if (!rule.is_object()) continue;
      const auto& r = rule.get_object();
      auto size = [&](std::string_view key) {
        const auto* v = r.if_contains(key);
        return v != nullptr && v->is_array() ? v->get_array().size() : 0;
      };
      if (size("verbs") == 0) errs.push_back(FieldError::Required(path + ".verbs", "verbs must contain at least one value"));
      if (size("nonResourceURLs") > 0) {
        const std::string urls = GoStringSlice(r.if_contains("nonResourceURLs"));
        if (namespaced) errs.push_back(InvalidGo(path + ".nonResourceURLs", urls, "namespaced rules cannot apply to non-resource URLs"));
        if (size("apiGroups") > 0 || size("resources") > 0 || size("resourceNames") > 0) {
          errs.push_back(InvalidGo(path + ".nonResourceURLs", urls,
                                   "rules cannot apply to both regular resources and non-resource URLs"));
        }
        continue;
      }
      if (size("apiGroups") == 0) {
        errs.push_back(FieldError::Required(path + ".apiGroups", "resource rules must supply at least one api group"));
      }
      if (size("resources") == 0) {
        errs.push_back(FieldError::Required(path + ".resources", "resource rules must supply at least one resource"));
      }
    }
    return;
  }
  const json::object empty;
  const auto* ref_p = ObjectAt(obj, "roleRef");
  const json::object& ref = ref_p != nullptr ? *ref_p : empty;
  if (const auto group = StringAt(ref, "apiGroup"); group != "rbac.authorization.k8s.io") {
    errs.push_back(FieldError::NotSupported("roleRef.apiGroup", QuoteJson(group), {"rbac.authorization.k8s.io"}));
  }
  const auto kind = StringAt(ref, "kind");
  if (namespaced) {
    if (kind != "Role" && kind != "ClusterRole") {
      errs.push_back(FieldError::NotSupported("roleRef.kind", QuoteJson(kind), {"Role", "ClusterRole"}));
    }
  } else if (kind != "ClusterRole") {
    errs.push_back(FieldError::NotSupported("roleRef.kind", QuoteJson(kind), {"ClusterRole"}));
  }
  const auto name = StringAt(ref, "name");
  if (name.empty()) {
    errs.push_back(FieldError::Required("roleRef.name"));
  } else {
    for (auto& msg : IsValidPathSegmentName(name)) errs.push_back(FieldError::Invalid("roleRef.name", QuoteJson(name), msg));
  }
  const auto* subjects = obj.if_contains("subjects");
  if (subjects == nullptr || !subjects->is_array()) return;
  std::size_t i = 0;
  for (const auto& subject : subjects->get_array()) {
    const std::string path = "subjects[" + std::to_string(i++) + "]";
    if (!subject.is_object()) continue;
    const auto& sub = subject.get_object();
    const auto sname = StringAt(sub, "name");
    const auto skind = StringAt(sub, "kind");
    const auto group = StringAt(sub, "apiGroup");
    if (sname.empty()) errs.push_back(FieldError::Required(path + ".name"));
    if (skind == "ServiceAccount") {
      if (!sname.empty()) {
        for (auto& msg : IsDns1123Subdomain(sname)) errs.push_back(FieldError::Invalid(path + ".name", QuoteJson(sname), msg));
      }
      if (!group.empty()) errs.push_back(FieldError::NotSupported(path + ".apiGroup", QuoteJson(group), {""}));
      if (!namespaced && StringAt(sub, "namespace").empty()) errs.push_back(FieldError::Required(path + ".namespace"));
    } else if (skind == "User" || skind == "Group") {
      if (group != "rbac.authorization.k8s.io") {
        errs.push_back(FieldError::NotSupported(path + ".apiGroup", QuoteJson(group), {"rbac.authorization.k8s.io"}));
      }
    } else {
      errs.push_back(FieldError::NotSupported(path + ".kind", QuoteJson(skind), {"ServiceAccount", "User", "Group"}));
    }
  }
}

void ValidateReplicas(const json::object& spec, std::vector<FieldError>& errs) {
  if (const auto* r = spec.if_contains("replicas"); r != nullptr && r->is_int64() && r->get_int64() < 0) {
    errs.push_back(FieldError::Invalid("spec.replicas", std::to_string(r->get_int64()),
                                       "must be greater than or equal to 0"));
  }
}

// apps/v1 Deployment and ReplicaSet: a selector that is required, valid, non-empty and matches the
// template labels.
void ValidateWorkload(const json::object& obj, std::vector<FieldError>& errs) {
  const auto* spec = ObjectAt(obj, "spec");
  if (spec == nullptr) {
    errs.push_back(FieldError::Required("spec.selector"));
    return;
  }
  ValidateReplicas(*spec, errs);
  const auto* selector = spec->if_contains("selector");
  if (selector == nullptr || selector->is_null()) {
    errs.push_back(FieldError::Required("spec.selector"));
    // A missing selector selects nothing: the template's labels do not match it either.
    const auto* tmpl = ObjectAt(*spec, "template");
    const auto* tmeta = tmpl != nullptr ? ObjectAt(*tmpl, "metadata") : nullptr;
    errs.push_back(InvalidGo("spec.template.metadata.labels", GoStringMap(tmeta != nullptr ? ObjectAt(*tmeta, "labels") : nullptr),
                             "`selector` does not match template `labels`"));
  } else {
    auto sel = LabelSelector::FromLabelSelectorJson(*selector);
    if (!sel.ok()) {
      errs.push_back(FieldError::Invalid("spec.selector", SerializeJson(*selector), sel.error().message));
    } else if (sel->Empty()) {
      errs.push_back(FieldError::Invalid("spec.selector", SerializeJson(*selector),
                                         "empty selector is invalid for deployment"));
    } else {
      std::map<std::string, std::string> labels;
      const auto* tmpl = ObjectAt(*spec, "template");
      const auto* tmeta = tmpl != nullptr ? ObjectAt(*tmpl, "metadata") : nullptr;
      const auto* tlabels = tmeta != nullptr ? ObjectAt(*tmeta, "labels") : nullptr;
      if (tlabels != nullptr) {
        for (const auto& kv : *tlabels) {
          if (kv.value().is_string()) labels[std::string(kv.key())] = std::string(kv.value().get_string());
        }
      }
      if (!sel->Matches(labels)) {
        errs.push_back(InvalidGo("spec.template.metadata.labels", GoStringMap(tlabels),
                                 "`selector` does not match template `labels`"));
      }
    }
  }
  const auto* tmpl = ObjectAt(*spec, "template");
  const auto* tspec = tmpl != nullptr ? ObjectAt(*tmpl, "spec") : nullptr;
  const json::object empty;
  ValidatePodSpec(tspec != nullptr ? *tspec : empty, "spec.template.spec", errs);
  // ValidatePodTemplateSpecForReplicaSet / ForDeployment: the pods restart.
  if (const auto policy = StringAt(tspec != nullptr ? *tspec : empty, "restartPolicy"); policy != "Always") {
    errs.push_back(FieldError::NotSupported("spec.template.spec.restartPolicy", QuoteJson(policy), {"Always"}));
  }
}

// core/v1 legacy event rules (legacyValidateEvent): the event lives in its object's namespace.
void ValidateLegacyEvent(const json::object& obj, bool via_events_v1, std::vector<FieldError>& errs) {
  const auto ns = StringAt(MetadataOf(obj), "namespace");
  const auto* involved = ObjectAt(obj, "involvedObject");
  const auto involved_ns = involved != nullptr ? StringAt(*involved, "namespace") : std::string_view();
  const bool has_event_time = obj.contains("eventTime") && !obj.at("eventTime").is_null();
  const std::string reporting = via_events_v1 ? "reportingController" : "reportingComponent";
  if (!has_event_time) {
    if (involved_ns.empty()) {
      if (!ns.empty() && ns != "default") {
        errs.push_back(FieldError::Invalid("involvedObject.namespace", "\"\"", "does not match event.namespace"));
      }
    } else if (ns != involved_ns) {
      errs.push_back(FieldError::Invalid("involvedObject.namespace", QuoteJson(involved_ns),
                                         "does not match event.namespace"));
    }
    return;
  }
  if (involved_ns.empty() && ns != "default" && ns != "kube-system") {
    errs.push_back(FieldError::Invalid("involvedObject.namespace", "\"\"", "does not match event.namespace"));
  }
  const auto controller = StringAt(obj, "reportingComponent");
  if (controller.empty()) {
    errs.push_back(FieldError::Required(reporting, ""));
  } else {
    for (auto& msg : IsQualifiedName(controller)) {
      errs.push_back(FieldError::Invalid(reporting, QuoteJson(controller), msg));
    }
  }
  const auto instance = StringAt(obj, "reportingInstance");
  if (instance.empty()) errs.push_back(FieldError::Required("reportingInstance", ""));
  if (instance.size() > 128) {
    errs.push_back(FieldError::Invalid("reportingInstance", "\"\"", "can have at most 128 characters"));
  }
  const auto action = StringAt(obj, "action");
  if (action.empty()) errs.push_back(FieldError::Required("action", ""));
  if (action.size() > 128) errs.push_back(FieldError::Invalid("action", "\"\"", "can have at most 128 characters"));
  const auto reason = StringAt(obj, "reason");
  if (reason.empty()) errs.push_back(FieldError::Required("reason", ""));
  if (reason.size() > 128) errs.push_back(FieldError::Invalid("reason", "\"\"", "can have at most 128 characters"));
  const std::string note = via_events_v1 ? "note" : "message";
  if (StringAt(obj, "message").size() > 1024) {
    errs.push_back(FieldError::Invalid(note, "\"\"", "can have at most 1024 characters"));
  }
}

// ValidateEventCreate for events.k8s.io/v1 (strict rules on top of the legacy ones).
void ValidateEventsV1Create(const json::object& obj, std::vector<FieldError>& errs) {
  if (const auto* series = ObjectAt(obj, "series")) {
    const auto* count = series->if_contains("count");
    if (count == nullptr || !count->is_int64() || count->get_int64() < 2) {
      errs.push_back(FieldError::Invalid("series.count", "\"\"", "should be at least 2"));
    }
    const auto* last = series->if_contains("lastObservedTime");
    if (last == nullptr || last->is_null()) errs.push_back(FieldError::Required("series.lastObservedTime", ""));
  }
  if (!obj.contains("eventTime") || obj.at("eventTime").is_null()) {
    errs.push_back(FieldError::Required("eventTime", ""));
  }
  const auto type = StringAt(obj, "type");
  if (type != "Normal" && type != "Warning") {
    errs.push_back(FieldError::Invalid("type", "\"\"", "has invalid value: " + std::string(type)));
  }
  auto set = [&](std::string_view key) {
    const auto* v = obj.if_contains(key);
    return v != nullptr && !v->is_null();
  };
  if (set("firstTimestamp")) errs.push_back(FieldError::Invalid("deprecatedFirstTimestamp", "\"\"", "needs to be unset"));
  if (set("lastTimestamp")) errs.push_back(FieldError::Invalid("deprecatedLastTimestamp", "\"\"", "needs to be unset"));
  if (const auto* c = obj.if_contains("count"); c != nullptr && c->is_int64() && c->get_int64() != 0) {
    errs.push_back(FieldError::Invalid("deprecatedCount", "\"\"", "needs to be unset"));
  }
  if (const auto* src = ObjectAt(obj, "source");
      src != nullptr && (!StringAt(*src, "component").empty() || !StringAt(*src, "host").empty())) {
    errs.push_back(FieldError::Invalid("deprecatedSource", "\"\"", "needs to be unset"));
  }
}

void ValidateLease(const json::object& obj, std::vector<FieldError>& errs) {
  const auto* spec = ObjectAt(obj, "spec");
  if (spec == nullptr) return;
  if (const auto* d = spec->if_contains("leaseDurationSeconds"); d != nullptr && d->is_int64() && d->get_int64() <= 0) {
    errs.push_back(FieldError::Invalid("spec.leaseDurationSeconds", std::to_string(d->get_int64()),
                                       "must be greater than 0"));
  }
  if (const auto* t = spec->if_contains("leaseTransitions"); t != nullptr && t->is_int64() && t->get_int64() < 0) {
    errs.push_back(FieldError::Invalid("spec.leaseTransitions", std::to_string(t->get_int64()),
                                       "must be greater than or equal to 0"));
  }
}

// ValidateDeploymentStatus / ValidateReplicaSetStatus: counters not negative, none above replicas.
void ValidateWorkloadStatus(BuiltinKind kind, const json::object& obj, std::vector<FieldError>& errs) {
  const auto* status = ObjectAt(obj, "status");
  if (status == nullptr) return;
  auto get = [&](std::string_view k) {
    const auto* v = status->if_contains(k);
    return v != nullptr && v->is_int64() ? v->get_int64() : 0;
  };
  const bool deployment = kind == BuiltinKind::kDeployment;
  const std::vector<std::string_view> counters =
      deployment ? std::vector<std::string_view>{"observedGeneration", "replicas", "updatedReplicas", "readyReplicas",
                                                 "availableReplicas", "unavailableReplicas"}
                 : std::vector<std::string_view>{"replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas",
                                                 "observedGeneration"};
  for (auto c : counters) {
    if (get(c) < 0) {
      errs.push_back(FieldError::Invalid("status." + std::string(c), std::to_string(get(c)), "must be greater than or equal to 0"));
    }
  }
  const int64_t replicas = get("replicas");
  for (std::string_view c : {deployment ? "updatedReplicas" : "fullyLabeledReplicas", "readyReplicas", "availableReplicas"}) {
    if (get(c) > replicas) {
      errs.push_back(FieldError::Invalid("status." + std::string(c), std::to_string(get(c)), "cannot be greater than status.replicas"));
    }
  }
  if (get("availableReplicas") > get("readyReplicas")) {
    errs.push_back(FieldError::Invalid("status.availableReplicas", std::to_string(get("availableReplicas")),
                                       "cannot be greater than readyReplicas"));
  }
}

// ConfigMaps and Secrets marked `immutable: true` keep their data and the mark.
void ValidateImmutableData(const json::object& obj, const json::object& old, std::vector<FieldError>& errs) {
  const auto* was = old.if_contains("immutable");
  if (was == nullptr || !was->is_bool() || !was->get_bool()) return;
  constexpr std::string_view kImmutable = "field is immutable when `immutable` is set";
  const json::value* now = obj.if_contains("immutable");
  if (now == nullptr || !JsonEqual(*now, *was)) errs.push_back(FieldError::Forbidden("immutable", std::string(kImmutable)));
  for (std::string_view member : {"data", "binaryData", "stringData"}) {
    const json::value* a = obj.if_contains(member);
    const json::value* b = old.if_contains(member);
    const bool same = (a == nullptr || (a->is_object() && a->get_object().empty())) &&
                              (b == nullptr || (b->is_object() && b->get_object().empty()))
                          ? true
                          : (a != nullptr && b != nullptr && JsonEqual(*a, *b));
    if (!same) errs.push_back(FieldError::Forbidden(std::string(member), std::string(kImmutable)));
  }
}

// The Go field name of a PodSpec member, for the diff in the message: nodeName -> NodeName.
std::string GoFieldName(std::string_view json_name) {
  std::string out(json_name);
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 'a' + 'A');
  return out;
}

// ValidatePodUpdate's rule for the spec: only container images, activeDeadlineSeconds, added
// tolerations and terminationGracePeriodSeconds (to 1 from a negative value) may change.
void ValidatePodSpecUpdate(const json::object& obj, const json::object& old, std::vector<FieldError>& errs) {
  static const json::object kEmpty;
  const json::object* spec_p = ObjectAt(obj, "spec");
  const json::object* old_p = ObjectAt(old, "spec");
  const json::object& spec = spec_p != nullptr ? *spec_p : kEmpty;
  const json::object& old_spec = old_p != nullptr ? *old_p : kEmpty;
  json::object munged = spec;
  for (std::string_view list : {"containers", "initContainers"}) {
    const json::value* now = spec.if_contains(list);
    const json::value* was = old_spec.if_contains(list);
    const std::size_t n = now != nullptr && now->is_array() ? now->get_array().size() : 0;
    const std::size_t m = was != nullptr && was->is_array() ? was->get_array().size() : 0;
    if (n != m) {
      errs.push_back(FieldError::Forbidden("spec." + std::string(list), "pod updates may not add or remove containers"));
      return;
    }
    if (n == 0) continue;
    auto& items = munged[list].as_array();
    for (std::size_t i = 0; i < n; ++i) {
      const auto& old_item = was->get_array()[i];
      if (!items[i].is_object() || !old_item.is_object()) continue;
      if (const auto* image = old_item.get_object().if_contains("image")) {
        items[i].as_object()["image"] = *image;
      } else {
        items[i].as_object().erase("image");
      }
    }
  }
  auto revert = [&](std::string_view member) {
    if (const auto* v = old_spec.if_contains(member)) {
      munged[member] = *v;
    } else {
      munged.erase(member);
    }
  };
  revert("activeDeadlineSeconds");
  // Tolerations may only be added to.
  if (const auto* old_tol = old_spec.if_contains("tolerations"); old_tol == nullptr || old_tol->is_array()) {
    const json::value* tol = spec.if_contains("tolerations");
    bool superset = true;
    if (old_tol != nullptr) {
      for (const auto& t : old_tol->get_array()) {
        bool found = false;
        if (tol != nullptr && tol->is_array()) {
          for (const auto& u : tol->get_array()) found = found || JsonEqual(t, u);
        }
        superset = superset && found;
      }
    }
    if (superset) revert("tolerations");
  }
  if (const auto* was = old_spec.if_contains("terminationGracePeriodSeconds");
      was != nullptr && was->is_int64() && was->get_int64() < 0) {
    const auto* now = spec.if_contains("terminationGracePeriodSeconds");
    if (now != nullptr && now->is_int64() && now->get_int64() == 1) revert("terminationGracePeriodSeconds");
  }
  if (JsonEqual(json::value(munged), json::value(old_spec))) return;
  // kube prints go-cmp's diff of the internal PodSpec; this is the same idea, member by member.
  std::string diff = "\n  core.PodSpec{\n";
  std::map<std::string, std::pair<const json::value*, const json::value*>> members;
  for (const auto& kv : old_spec) members[std::string(kv.key())].first = &kv.value();
  for (const auto& kv : munged) members[std::string(kv.key())].second = &kv.value();
  for (const auto& [name, values] : members) {
    if (values.first != nullptr && values.second != nullptr && JsonEqual(*values.first, *values.second)) continue;
    if (values.first != nullptr) diff += "- \t" + GoFieldName(name) + ": " + SerializeJson(*values.first) + ",\n";
    if (values.second != nullptr) diff += "+ \t" + GoFieldName(name) + ": " + SerializeJson(*values.second) + ",\n";
  }
  diff += "  }\n";
  errs.push_back(FieldError::Forbidden(
      "spec",
      "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,"
      "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),"
      "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)" +
          diff));
}

// `old` is the stored object on an update, nullptr on a create.
void ValidateKind(const ResourceInfo& info, const json::object& obj, const json::object* old, bool via_events_v1,
                  std::vector<FieldError>& errs) {
  switch (KindOf(info)) {
    case BuiltinKind::kConfigMap:
      ValidateDataKeys(obj, errs, true);
      break;
    case BuiltinKind::kSecret:
      ValidateDataKeys(obj, errs, false);
      ValidateSecretType(obj, errs);
      break;
    case BuiltinKind::kPod: {
      const auto* spec = ObjectAt(obj, "spec");
      const json::object empty;
      ValidatePodSpec(spec != nullptr ? *spec : empty, "spec", errs);
      // ValidatePodCreate: ephemeral containers come only through their subresource.
      if (old == nullptr && spec != nullptr && spec->contains("ephemeralContainers")) {
        errs.push_back(FieldError::Forbidden("spec.ephemeralContainers", "cannot be set on create"));
      }
      break;
    }
    case BuiltinKind::kService:
      ValidateServiceSpec(obj, old, errs);
      break;
    case BuiltinKind::kDeployment:
    case BuiltinKind::kReplicaSet:
      ValidateWorkload(obj, errs);
      if (KindOf(info) == BuiltinKind::kDeployment) {
        const json::object empty;
        const auto* spec = ObjectAt(obj, "spec");
        ValidateDeploymentFields(spec != nullptr ? *spec : empty, errs);
      }
      break;
    case BuiltinKind::kLease:
      ValidateLease(obj, errs);
      break;
    case BuiltinKind::kEvent:
    case BuiltinKind::kEventV1:
      ValidateLegacyEvent(obj, via_events_v1, errs);
      break;
    case BuiltinKind::kGeneric:
      if (info.group == "rbac.authorization.k8s.io") ValidateRbac(info, obj, errs);
      ValidateOtherKind(info, obj, old, errs);
      ValidateGenericKind(info, obj, errs);  // CRDs and custom resources (schema_validation.hpp)
      break;
    case BuiltinKind::kNamespace:
    case BuiltinKind::kServiceAccount:
    case BuiltinKind::kNode:
      break;
  }
}

}  // namespace

std::vector<FieldError> ValidateCreate(const ResourceInfo& info, const json::object& obj,
                                       bool via_events_v1) {
  std::vector<FieldError> errs = ValidateObjectMeta(MetadataOf(obj), NameRuleFor(info));
  if (info.builtin && !IsCrdResource(info)) {
    for (auto& e : ValidateKubeFinalizerNames(MetadataOf(obj))) errs.push_back(std::move(e));
  }
  ValidateKind(info, obj, nullptr, via_events_v1, errs);
  if (via_events_v1) ValidateEventsV1Create(obj, errs);
  if (IsCertificateSigningRequest(info)) ValidateCertificateSigningRequest(obj, nullptr, Subresource::kNone, errs);
  return errs;
}

std::vector<FieldError> ValidateUpdate(const ResourceInfo& info, const json::object& obj,
                                       const json::object& old, Subresource sub) {
  std::vector<FieldError> errs = ValidateObjectMeta(MetadataOf(obj), NameRuleFor(info));
  if (info.builtin && !IsCrdResource(info)) {
    for (auto& e : ValidateKubeFinalizerNames(MetadataOf(obj))) errs.push_back(std::move(e));
  }
  const auto uid = StringAt(MetadataOf(obj), "uid");
  const auto old_uid = StringAt(MetadataOf(old), "uid");
  if (uid != old_uid) errs.push_back(FieldError::Invalid("metadata.uid", QuoteJson(uid), "field is immutable"));
  ValidateKind(info, obj, &old, false, errs);
  if (IsCertificateSigningRequest(info)) ValidateCertificateSigningRequest(obj, &old, sub, errs);
  // The ReplicaSet strategy validates the new spec twice (ValidateReplicaSet, then
  // ValidateReplicaSetUpdate); the message drops repeats, the causes keep them.
  if (KindOf(info) == BuiltinKind::kReplicaSet) ValidateKind(info, obj, &old, false, errs);
  if (IsCrdResource(info)) {
    for (auto& e : ValidateCrdUpdate(obj, old)) errs.push_back(std::move(e));
  }
  const BuiltinKind kind = KindOf(info);
  if (kind == BuiltinKind::kDeployment || kind == BuiltinKind::kReplicaSet) {
    const auto* spec = ObjectAt(obj, "spec");
    const auto* old_spec = ObjectAt(old, "spec");
    const json::value* sel = spec != nullptr ? spec->if_contains("selector") : nullptr;
    const json::value* old_sel = old_spec != nullptr ? old_spec->if_contains("selector") : nullptr;
    if (sel != nullptr && old_sel != nullptr && !JsonEqual(*sel, *old_sel)) {
      errs.push_back(InvalidGo("spec.selector", GoLabelSelector(*sel), "field is immutable"));
    }
  }
  if (kind == BuiltinKind::kDeployment || kind == BuiltinKind::kReplicaSet) ValidateWorkloadStatus(kind, obj, errs);
  if (kind == BuiltinKind::kConfigMap || kind == BuiltinKind::kSecret) ValidateImmutableData(obj, old, errs);
  if (kind == BuiltinKind::kSecret && StringAt(obj, "type") != StringAt(old, "type")) {
    errs.push_back(FieldError::Invalid("type", QuoteJson(StringAt(obj, "type")), "field is immutable"));
  }
  if (kind == BuiltinKind::kPod) ValidatePodSpecUpdate(obj, old, errs);
  if (kind == BuiltinKind::kEventV1) {
    // ValidateEventUpdate for events.k8s.io requests: everything but the series (and metadata)
    // is immutable; the paths are the stored core/v1 names.
    for (std::string_view member : {"involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp",
                                    "count", "type", "eventTime", "action", "related", "reportingComponent",
                                    "reportingInstance"}) {
      const json::value* now = obj.if_contains(member);
      const json::value* was = old.if_contains(member);
      const bool same = (now == nullptr || now->is_null()) ? (was == nullptr || was->is_null())
                                                           : (was != nullptr && JsonEqual(*now, *was));
      if (same) continue;
      const std::string value = now == nullptr ? "null" : now->is_string() ? QuoteJson(now->get_string()) : SerializeJson(*now);
      const std::string path = member == "reportingComponent" ? "reportingController" : std::string(member);
      errs.push_back(FieldError::Invalid(path, value, "field is immutable"));
    }
  }
  if (info.group == "rbac.authorization.k8s.io" && (info.kind == "RoleBinding" || info.kind == "ClusterRoleBinding")) {
    const json::value* ref = obj.if_contains("roleRef");
    const json::value* old_ref = old.if_contains("roleRef");
    if (ref != nullptr && old_ref != nullptr && !JsonEqual(*ref, *old_ref) && ref->is_object()) {
      const auto& r = ref->get_object();
      errs.push_back(InvalidGo("roleRef",
                               "rbac.RoleRef{APIGroup:" + GoString(StringAt(r, "apiGroup")) + ", Kind:" +
                                   GoString(StringAt(r, "kind")) + ", Name:" + GoString(StringAt(r, "name")) + "}",
                               "cannot change roleRef"));
    }
  }
  return errs;
}

}  // namespace kube::apiserver::rest
