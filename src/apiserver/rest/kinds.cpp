#include "apiserver/rest/kinds.hpp"

#include <map>
#include <optional>
#include <string>

#include <kube/core/json.hpp>
#include <kube/core/json_pointer.hpp>
#include <kube/core/label_selector.hpp>

#include "apiserver/rest/go_json.hpp"
#include "apiserver/rest/hpa.hpp"
#include "apiserver/rest/json_util.hpp"
#include "apiserver/rest/names.hpp"
#include "apiserver/rest/pod_validation.hpp"
#include "apiserver/rest/strategy.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

bool Is(const ResourceInfo& info, std::string_view group, std::string_view resource) {
  return info.builtin && info.group == group && info.resource == resource;
}

const json::object kEmpty;

const json::object& ObjectOr(const json::object* o) { return o != nullptr ? *o : kEmpty; }

// Ports of Endpoints, EndpointSlices and NetworkPolicies default to TCP.
void DefaultProtocols(json::value* ports) {
  if (ports == nullptr || !ports->is_array()) return;
  for (auto& p : ports->get_array()) {
    if (p.is_object()) SetDefault(p.get_object(), "protocol", "TCP");
  }
}

// The pod template at `holder.template` (a workload's spec, a PodTemplate), when present.
void DefaultTemplateIn(json::object& holder) {
  if (auto* tmpl = ObjectAt(holder, "template")) DefaultPodTemplateSpec(*tmpl);
}

void DefaultWebhooks(json::object& obj, bool mutating) {
  auto* hooks = obj.if_contains("webhooks");
  if (hooks == nullptr || !hooks->is_array()) return;
  for (auto& h : hooks->get_array()) {
    if (!h.is_object()) continue;
    auto& hook = h.get_object();
    SetDefault(hook, "failurePolicy", "Fail");
    SetDefault(hook, "matchPolicy", "Equivalent");
    SetDefault(hook, "namespaceSelector", json::object());
    SetDefault(hook, "objectSelector", json::object());
    SetDefault(hook, "timeoutSeconds", 10);
    if (mutating) SetDefault(hook, "reinvocationPolicy", "Never");
    if (auto* rules = hook.if_contains("rules"); rules != nullptr && rules->is_array()) {
      for (auto& rule : rules->get_array()) {
        if (rule.is_object()) SetDefault(rule.get_object(), "scope", "*");
      }
    }
    if (auto* config = ObjectAt(hook, "clientConfig")) {
      if (auto* service = ObjectAt(*config, "service")) SetDefault(*service, "port", 443);
    }
  }
}

// SetDefaults_LimitRangeItem: a container's default limit from its max, its default request
// from the default limit, then from the min.
void DefaultLimitRange(json::object& obj) {
  auto* spec = ObjectAt(obj, "spec");
  auto* limits = spec != nullptr ? spec->if_contains("limits") : nullptr;
  if (limits == nullptr || !limits->is_array()) return;
  for (auto& l : limits->get_array()) {
    if (!l.is_object() || StringAt(l.get_object(), "type") != "Container") continue;
    auto& item = l.get_object();
    json::object def = ObjectOr(ObjectAt(item, "default"));
    json::object request = ObjectOr(ObjectAt(item, "defaultRequest"));
    for (const auto& kv : ObjectOr(ObjectAt(item, "max"))) {
      if (!def.contains(kv.key())) def[kv.key()] = kv.value();
    }
    for (const auto& kv : def) {
      if (!request.contains(kv.key())) request[kv.key()] = kv.value();
    }
    for (const auto& kv : ObjectOr(ObjectAt(item, "min"))) {
      if (!request.contains(kv.key())) request[kv.key()] = kv.value();
    }
    if (!def.empty()) item["default"] = std::move(def);
    if (!request.empty()) item["defaultRequest"] = std::move(request);
  }
}

void DefaultPvcSpec(json::object& pvc) { SetDefault(EnsureObject(pvc, "spec"), "volumeMode", "Filesystem"); }

// The labels of `obj`'s metadata, when it has none, are the template's (kube's defaulting of
// Jobs and ReplicationControllers).
void LabelsFromTemplate(json::object& obj, const json::object& spec) {
  const auto* tmpl = ObjectAt(spec, "template");
  const auto* tmeta = tmpl != nullptr ? ObjectAt(*tmpl, "metadata") : nullptr;
  const auto* tlabels = tmeta != nullptr ? ObjectAt(*tmeta, "labels") : nullptr;
  if (tlabels == nullptr) return;
  auto& meta = EnsureObject(obj, "metadata");
  const auto* labels = ObjectAt(meta, "labels");
  if (labels == nullptr || labels->empty()) meta["labels"] = *tlabels;
}

void DefaultJobSpec(json::object& obj) {
  auto& spec = EnsureObject(obj, "spec");
  const bool completions = spec.contains("completions") && !spec.at("completions").is_null();
  const bool parallelism = spec.contains("parallelism") && !spec.at("parallelism").is_null();
  if (!completions && !parallelism) spec["completions"] = 1;
  SetDefault(spec, "parallelism", 1);
  if (spec.contains("backoffLimitPerIndex") && !spec.at("backoffLimitPerIndex").is_null()) {
    SetDefault(spec, "backoffLimit", 2147483647);
  } else {
    SetDefault(spec, "backoffLimit", 6);
  }
  SetDefault(spec, "completionMode", "NonIndexed");
  SetDefault(spec, "suspend", false);
  const bool failure_policy = spec.contains("podFailurePolicy") && !spec.at("podFailurePolicy").is_null();
  SetDefault(spec, "podReplacementPolicy", failure_policy ? "Failed" : "TerminatingOrFailed");
  SetDefault(spec, "manualSelector", false);
  DefaultTemplateIn(spec);
  LabelsFromTemplate(obj, spec);
}

// A label selector from `sel`; nullopt for a missing or malformed one.
std::optional<LabelSelector> SelectorOf(const json::value* sel) {
  if (sel == nullptr || sel->is_null()) return std::nullopt;
  auto parsed = LabelSelector::FromLabelSelectorJson(*sel);
  if (!parsed.ok()) return std::nullopt;
  return std::move(*parsed);
}

std::map<std::string, std::string> StringMap(const json::object* m) {
  std::map<std::string, std::string> out;
  if (m == nullptr) return out;
  for (const auto& kv : *m) {
    if (kv.value().is_string()) out[std::string(kv.key())] = std::string(kv.value().get_string());
  }
  return out;
}

const json::object* TemplateLabels(const json::object& spec) {
  const auto* tmpl = ObjectAt(spec, "template");
  const auto* tmeta = tmpl != nullptr ? ObjectAt(*tmpl, "metadata") : nullptr;
  return tmeta != nullptr ? ObjectAt(*tmeta, "labels") : nullptr;
}

const json::object& TemplateSpec(const json::object& spec) {
  const auto* tmpl = ObjectAt(spec, "template");
  return ObjectOr(tmpl != nullptr ? ObjectAt(*tmpl, "spec") : nullptr);
}

// A selector (nil = matches nothing) against the template's labels.
void CheckTemplateLabels(const json::object& spec, const std::string& path, std::vector<FieldError>& errs) {
  const auto sel = SelectorOf(spec.if_contains("selector"));
  const json::object* labels = TemplateLabels(spec);
  if (!sel.has_value() || !sel->Matches(StringMap(labels))) {
    errs.push_back(InvalidGo(path + ".template.metadata.labels", GoStringMap(labels),
                             "`selector` does not match template `labels`"));
  }
}

void CheckNonEmptySelector(const json::object& spec, const std::string& path, std::string_view kind,
                           std::vector<FieldError>& errs) {
  const json::value* sel = spec.if_contains("selector");
  if (sel == nullptr || sel->is_null()) return;
  const auto parsed = SelectorOf(sel);
  if (parsed.has_value() && parsed->Empty()) {
    errs.push_back(InvalidGo(path + ".selector", GoLabelSelector(*sel),
                             "empty selector is invalid for " + std::string(kind)));
  }
}

void CheckRestartAlways(const json::object& spec, const std::string& path, std::vector<FieldError>& errs) {
  const auto policy = StringAt(TemplateSpec(spec), "restartPolicy");
  if (policy != "Always") {
    errs.push_back(FieldError::NotSupported(path + ".template.spec.restartPolicy", QuoteJson(policy), {"Always"}));
  }
}

void CheckJobTemplate(const json::object& job_spec, const std::string& path, std::vector<FieldError>& errs) {
  const json::object& tspec = TemplateSpec(job_spec);
  ValidatePodSpec(tspec, path + ".template.spec", errs);
  const auto policy = StringAt(tspec, "restartPolicy");
  if (policy != "OnFailure" && policy != "Never") {
    errs.push_back(FieldError::Required(path + ".template.spec.restartPolicy", R"(valid values: "OnFailure", "Never")"));
  }
}

void CheckDnsSubdomain(std::string_view value, const std::string& field, std::vector<FieldError>& errs) {
  for (auto& msg : ValidateName(NameRule::kDnsSubdomain, value, false)) {
    errs.push_back(FieldError::Invalid(field, QuoteJson(value), msg));
  }
}

bool Has(const json::object& obj, std::string_view key) {
  const auto* v = obj.if_contains(key);
  return v != nullptr && !v->is_null();
}

int64_t IntAt(const json::object& obj, std::string_view key, int64_t fallback) {
  const auto* v = obj.if_contains(key);
  return v != nullptr && v->is_int64() ? v->get_int64() : fallback;
}

std::size_t Size(const json::object& obj, std::string_view key) {
  const auto* v = obj.if_contains(key);
  if (v == nullptr) return 0;
  if (v->is_array()) return v->get_array().size();
  if (v->is_object()) return v->get_object().size();
  return 0;
}

}  // namespace

void DefaultOtherKind(const ResourceInfo& info, json::object& obj) {
  if (!info.builtin) return;
  if (Is(info, "", "endpoints")) {
    if (auto* subsets = obj.if_contains("subsets"); subsets != nullptr && subsets->is_array()) {
      for (auto& s : subsets->get_array()) {
        if (s.is_object()) DefaultProtocols(s.get_object().if_contains("ports"));
      }
    }
  } else if (Is(info, "", "limitranges")) {
    DefaultLimitRange(obj);
  } else if (Is(info, "", "persistentvolumeclaims")) {
    DefaultPvcSpec(obj);
  } else if (Is(info, "", "persistentvolumes")) {
    auto& spec = EnsureObject(obj, "spec");
    SetDefault(spec, "persistentVolumeReclaimPolicy", "Retain");
    SetDefault(spec, "volumeMode", "Filesystem");
    if (auto* host = ObjectAt(spec, "hostPath")) SetDefault(*host, "type", "");
  } else if (Is(info, "", "podtemplates")) {
    DefaultTemplateIn(obj);
  } else if (Is(info, "", "replicationcontrollers")) {
    auto& spec = EnsureObject(obj, "spec");
    SetDefault(spec, "replicas", 1);
    if (const json::object* labels = TemplateLabels(spec)) {
      const auto* sel = ObjectAt(spec, "selector");
      if (sel == nullptr || sel->empty()) spec["selector"] = *labels;
    }
    DefaultTemplateIn(spec);
    LabelsFromTemplate(obj, spec);
  } else if (Is(info, "admissionregistration.k8s.io", "mutatingwebhookconfigurations")) {
    DefaultWebhooks(obj, true);
  } else if (Is(info, "admissionregistration.k8s.io", "validatingwebhookconfigurations")) {
    DefaultWebhooks(obj, false);
  } else if (Is(info, "apps", "daemonsets")) {
    auto& spec = EnsureObject(obj, "spec");
    auto& strategy = EnsureObject(spec, "updateStrategy");
    SetDefault(strategy, "type", "RollingUpdate");
    if (StringAt(strategy, "type") == "RollingUpdate") {
      auto& rolling = EnsureObject(strategy, "rollingUpdate");
      SetDefault(rolling, "maxUnavailable", 1);
      SetDefault(rolling, "maxSurge", 0);
    }
    SetDefault(spec, "revisionHistoryLimit", 10);
    DefaultTemplateIn(spec);
    // The v1 form of the internal templateGeneration, which starts at 1 (PrepareForUpdate keeps
    // the stored value and counts template changes).
    SetDefault(EnsureObject(EnsureObject(obj, "metadata"), "annotations"), "deprecated.daemonset.template.generation", "1");
  } else if (Is(info, "apps", "statefulsets")) {
    auto& spec = EnsureObject(obj, "spec");
    SetDefault(spec, "podManagementPolicy", "OrderedReady");
    auto& strategy = EnsureObject(spec, "updateStrategy");
    SetDefault(strategy, "type", "RollingUpdate");
    if (StringAt(strategy, "type") == "RollingUpdate") SetDefault(EnsureObject(strategy, "rollingUpdate"), "partition", 0);
    SetDefault(spec, "replicas", 1);
    SetDefault(spec, "revisionHistoryLimit", 10);
    auto& retention = EnsureObject(spec, "persistentVolumeClaimRetentionPolicy");
    SetDefault(retention, "whenDeleted", "Retain");
    SetDefault(retention, "whenScaled", "Retain");
    if (auto* claims = spec.if_contains("volumeClaimTemplates"); claims != nullptr && claims->is_array()) {
      for (auto& c : claims->get_array()) {
        if (!c.is_object()) continue;
        DefaultPvcSpec(c.get_object());
        SetDefault(EnsureObject(c.get_object(), "status"), "phase", "Pending");
      }
    }
    DefaultTemplateIn(spec);
  } else if (Is(info, "autoscaling", "horizontalpodautoscalers")) {
    // A body decoded through autoscaling/v1 is validated before the behavior defaults.
    DefaultHorizontalPodAutoscaler(obj, /*behavior=*/!IsHpaV1View(info));
  } else if (Is(info, "batch", "cronjobs")) {
    auto& spec = EnsureObject(obj, "spec");
    SetDefault(spec, "concurrencyPolicy", "Allow");
    SetDefault(spec, "suspend", false);
    SetDefault(spec, "successfulJobsHistoryLimit", 3);
    SetDefault(spec, "failedJobsHistoryLimit", 1);
    DefaultTemplateIn(EnsureObject(EnsureObject(spec, "jobTemplate"), "spec"));
  } else if (Is(info, "batch", "jobs")) {
    DefaultJobSpec(obj);
  } else if (Is(info, "discovery.k8s.io", "endpointslices")) {
    if (auto* ports = obj.if_contains("ports"); ports != nullptr && ports->is_array()) {
      DefaultProtocols(ports);
      for (auto& p : ports->get_array()) {
        if (p.is_object()) SetDefault(p.get_object(), "name", "");
      }
    }
  } else if (Is(info, "networking.k8s.io", "networkpolicies")) {
    auto& spec = EnsureObject(obj, "spec");
    for (std::string_view rules : {"ingress", "egress"}) {
      auto* list = spec.if_contains(rules);
      if (list == nullptr || !list->is_array()) continue;
      for (auto& rule : list->get_array()) {
        if (rule.is_object()) DefaultProtocols(rule.get_object().if_contains("ports"));
      }
    }
    if (Size(spec, "policyTypes") == 0) {
      json::array types{"Ingress"};
      if (Size(spec, "egress") > 0) types.emplace_back("Egress");
      spec["policyTypes"] = std::move(types);
    }
  } else if (Is(info, "scheduling.k8s.io", "priorityclasses")) {
    SetDefault(obj, "preemptionPolicy", "PreemptLowerPriority");
  } else if (Is(info, "storage.k8s.io", "csidrivers")) {
    auto& spec = EnsureObject(obj, "spec");
    SetDefault(spec, "attachRequired", true);
    SetDefault(spec, "fsGroupPolicy", "ReadWriteOnceWithFSType");
    SetDefault(spec, "podInfoOnMount", false);
    SetDefault(spec, "requiresRepublish", false);
    SetDefault(spec, "seLinuxMount", false);
    SetDefault(spec, "storageCapacity", false);
    if (Size(spec, "volumeLifecycleModes") == 0) spec["volumeLifecycleModes"] = json::array{"Persistent"};
  } else if (Is(info, "storage.k8s.io", "storageclasses")) {
    SetDefault(obj, "reclaimPolicy", "Delete");
    SetDefault(obj, "volumeBindingMode", "Immediate");
  }
}

void PrepareOtherKindCreate(const ResourceInfo& info, json::object& obj) {
  if (!info.builtin) return;
  auto add_finalizer = [&](std::string_view finalizer) {
    auto& meta = EnsureObject(obj, "metadata");
    auto* list = meta.if_contains("finalizers");
    if (list == nullptr || !list->is_array()) {
      meta["finalizers"] = json::array{finalizer};
      return;
    }
    for (const auto& f : list->get_array()) {
      if (f.is_string() && f.get_string() == finalizer) return;
    }
    list->get_array().emplace_back(finalizer);
  };
  if (Is(info, "batch", "jobs")) {
    auto& spec = EnsureObject(obj, "spec");
    const auto* manual = spec.if_contains("manualSelector");
    if (manual == nullptr || !manual->is_bool() || !manual->get_bool()) {
      // generateSelector: the pods carry the Job's uid and name; the selector picks the uid. The
      // metadata's labels, when defaulted from the template, are the same map in kube.
      const std::string uid(StringAt(MetadataOf(obj), "uid"));
      const std::string name(StringAt(MetadataOf(obj), "name"));
      auto& tmeta = EnsureObject(EnsureObject(spec, "template"), "metadata");
      auto* meta_labels = ObjectAt(EnsureObject(obj, "metadata"), "labels");
      const bool shared = meta_labels != nullptr && ObjectAt(tmeta, "labels") != nullptr &&
                          *meta_labels == *ObjectAt(tmeta, "labels");
      auto& labels = EnsureObject(tmeta, "labels");
      for (auto [key, value] : {std::pair<std::string_view, const std::string&>{"batch.kubernetes.io/controller-uid", uid},
                                {"batch.kubernetes.io/job-name", name},
                                {"controller-uid", uid},
                                {"job-name", name}}) {
        SetDefault(labels, key, json::string(value));
      }
      if (shared) EnsureObject(obj, "metadata")["labels"] = labels;
      spec["selector"] = json::object{{"matchLabels", json::object{{"batch.kubernetes.io/controller-uid", uid}}}};
    }
  } else if (Is(info, "", "persistentvolumeclaims")) {
    add_finalizer("kubernetes.io/pvc-protection");
  } else if (Is(info, "", "persistentvolumes")) {
    add_finalizer("kubernetes.io/pv-protection");
    EnsureObject(obj, "status")["lastPhaseTransitionTime"] = json::string(StringAt(MetadataOf(obj), "creationTimestamp"));
  }
}

const json::object* InitialStatusOf(const ResourceInfo& info) {
  static const json::object pending{{"phase", "Pending"}};
  if (Is(info, "", "persistentvolumeclaims") || Is(info, "", "persistentvolumes")) return &pending;
  return nullptr;
}

void ValidateOtherKind(const ResourceInfo& info, const json::object& obj, const json::object* old,
                       std::vector<FieldError>& errs) {
  if (!info.builtin) return;
  const json::object& spec = ObjectOr(ObjectAt(obj, "spec"));
  if (Is(info, "apps", "controllerrevisions")) {
    if (old != nullptr && obj.contains("data") && old->contains("data") && !JsonEqual(obj.at("data"), old->at("data"))) {
      std::string raw = "runtime.RawExtension{Raw:[]uint8{";
      const std::string bytes = SerializeJson(obj.at("data"));
      for (std::size_t i = 0; i < bytes.size(); ++i) {
        static constexpr char kHex[] = "0123456789abcdef";
        const auto c = static_cast<unsigned char>(bytes[i]);
        raw += (i > 0 ? ", 0x" : "0x");
        raw += kHex[c >> 4];
        raw += kHex[c & 15];
      }
      errs.push_back(InvalidGo("data", raw + "}, Object:runtime.Object(nil)}", "field is immutable"));
    }
    if (!Has(obj, "data")) errs.push_back(FieldError::Required("data", "data is mandatory"));
    if (IntAt(obj, "revision", 0) < 0) {
      errs.push_back(FieldError::Invalid("revision", std::to_string(IntAt(obj, "revision", 0)),
                                         "must be greater than or equal to 0"));
    }
  } else if (Is(info, "batch", "cronjobs")) {
    if (StringAt(spec, "schedule").empty()) errs.push_back(FieldError::Required("spec.schedule"));
    const auto* job_template = ObjectAt(spec, "jobTemplate");
    CheckJobTemplate(ObjectOr(job_template != nullptr ? ObjectAt(*job_template, "spec") : nullptr),
                     "spec.jobTemplate.spec", errs);
  } else if (Is(info, "batch", "jobs")) {
    CheckJobTemplate(spec, "spec", errs);
  } else if (Is(info, "storage.k8s.io", "csistoragecapacities")) {
    CheckDnsSubdomain(StringAt(obj, "storageClassName"), "storageClassName", errs);
  } else if (Is(info, "apps", "daemonsets")) {
    CheckNonEmptySelector(spec, "spec", "daemonset", errs);
    CheckTemplateLabels(spec, "spec", errs);
    ValidatePodSpec(TemplateSpec(spec), "spec.template.spec", errs);
    CheckRestartAlways(spec, "spec", errs);
  } else if (Is(info, "apps", "statefulsets")) {
    if (!Has(spec, "selector")) errs.push_back(FieldError::Required("spec.selector"));
    CheckNonEmptySelector(spec, "spec", "statefulset", errs);
    CheckTemplateLabels(spec, "spec", errs);
    CheckRestartAlways(spec, "spec", errs);
  } else if (Is(info, "", "replicationcontrollers")) {
    if (Size(spec, "selector") == 0) errs.push_back(FieldError::Required("spec.selector"));
    if (!Has(spec, "template")) {
      errs.push_back(FieldError::Required("spec.template"));
    } else {
      const auto selector = StringMap(ObjectAt(spec, "selector"));
      const auto labels = StringMap(TemplateLabels(spec));
      bool matches = !selector.empty();
      for (const auto& [k, v] : selector) matches = matches && labels.contains(k) && labels.at(k) == v;
      if (!selector.empty() && !matches) {
        errs.push_back(InvalidGo("spec.template.metadata.labels", GoStringMap(TemplateLabels(spec)),
                                 "`selector` does not match template `labels`"));
      }
      ValidatePodSpec(TemplateSpec(spec), "spec.template.spec", errs);
      CheckRestartAlways(spec, "spec", errs);
    }
  } else if (Is(info, "", "podtemplates")) {
    const auto* tmpl = ObjectAt(obj, "template");
    ValidatePodSpec(ObjectOr(tmpl != nullptr ? ObjectAt(*tmpl, "spec") : nullptr), "template.spec", errs);
  } else if (Is(info, "discovery.k8s.io", "endpointslices")) {
    if (StringAt(obj, "addressType").empty()) errs.push_back(FieldError::Required("addressType"));
  } else if (Is(info, "autoscaling", "horizontalpodautoscalers")) {
    ValidateHorizontalPodAutoscaler(obj, old, errs);
  } else if (Is(info, "networking.k8s.io", "ingressclasses")) {
    if (StringAt(spec, "controller").empty()) errs.push_back(FieldError::Required("spec.controller"));
  } else if (Is(info, "networking.k8s.io", "ingresses")) {
    if (!Has(spec, "defaultBackend") && Size(spec, "rules") == 0) {
      errs.push_back(InvalidGo("spec", "[]networking.IngressRule(nil)", "either `defaultBackend` or `rules` must be specified"));
    }
  } else if (Is(info, "", "persistentvolumeclaims")) {
    if (Size(spec, "accessModes") == 0) {
      errs.push_back(FieldError::Required("spec.accessModes", "at least 1 access mode is required"));
    }
    const json::object& resources = ObjectOr(ObjectAt(spec, "resources"));
    if (!ObjectOr(ObjectAt(resources, "requests")).contains("storage")) {
      errs.push_back(FieldError::Required("spec.resources[storage]"));
    }
  } else if (Is(info, "", "persistentvolumes")) {
    if (Size(spec, "accessModes") == 0) errs.push_back(FieldError::Required("spec.accessModes"));
    if (Size(spec, "capacity") == 0) {
      errs.push_back(FieldError::Required("spec.capacity"));
      FieldError e = FieldError::NotSupported("spec.capacity", "", {"storage"});
      e.bad_value_go = "core.ResourceList(nil)";
      errs.push_back(std::move(e));
    }
    static constexpr std::string_view kSources[] = {
        "gcePersistentDisk", "awsElasticBlockStore", "hostPath", "glusterfs", "nfs", "rbd", "iscsi", "cinder",
        "cephfs", "fc", "flocker", "flexVolume", "azureFile", "vsphereVolume", "quobyte", "azureDisk",
        "photonPersistentDisk", "portworxVolume", "scaleIO", "local", "storageos", "csi"};
    bool source = false;
    for (auto s : kSources) source = source || Has(spec, s);
    if (!source) errs.push_back(FieldError::Required("spec", "must specify a volume type"));
  } else if (Is(info, "node.k8s.io", "runtimeclasses")) {
    for (auto& msg : ValidateName(NameRule::kDnsLabel, StringAt(obj, "handler"), false)) {
      errs.push_back(FieldError::Invalid("handler", QuoteJson(StringAt(obj, "handler")), msg));
    }
  } else if (Is(info, "storage.k8s.io", "storageclasses")) {
    if (StringAt(obj, "provisioner").empty()) errs.push_back(FieldError::Required("provisioner"));
  } else if (Is(info, "storage.k8s.io", "volumeattachments")) {
    const auto attacher = StringAt(spec, "attacher");
    if (attacher.empty()) errs.push_back(FieldError::Required("spec.attacher"));
    const json::object& source = ObjectOr(ObjectAt(spec, "source"));
    if (Has(source, "inlineVolumeSpec") == Has(source, "persistentVolumeName")) {
      errs.push_back(FieldError::Required("spec.source", "must specify exactly one of inlineVolumeSpec and persistentVolumeName"));
    }
    CheckDnsSubdomain(StringAt(spec, "nodeName"), "spec.nodeName", errs);
    // The attacher is also a CSI driver name (ValidateCSIDriverName), checked again.
    if (attacher.empty()) errs.push_back(FieldError::Required("spec.attacher"));
    CheckDnsSubdomain(attacher, "spec.attacher", errs);
  }
}

}  // namespace kube::apiserver::rest
