// Per-kind validation (kube's strategy Validate/ValidateUpdate), limited to the rules clients
// commonly trip over; messages are kube's.

#include <map>

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/json_pointer.hpp>
#include <kube/core/label_selector.hpp>

#include "apiserver/rest/crd.hpp"
#include "apiserver/rest/json_util.hpp"
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

void ValidateReplicas(const json::object& spec, std::vector<FieldError>& errs) {
  if (const auto* r = spec.if_contains("replicas"); r != nullptr && r->is_int64() && r->get_int64() < 0) {
    errs.push_back(FieldError::Invalid("spec.replicas", std::to_string(r->get_int64()),
                                       "must be greater than or equal to 0"));
  }
}

void ValidateContainers(const json::object& spec, const std::string& path, std::vector<FieldError>& errs) {
  const auto* containers = spec.if_contains("containers");
  if (containers == nullptr || !containers->is_array() || containers->get_array().empty()) {
    errs.push_back(FieldError::Required(path + ".containers"));
    return;
  }
  std::size_t i = 0;
  for (const auto& c : containers->get_array()) {
    const std::string cpath = path + ".containers[" + std::to_string(i++) + "]";
    if (!c.is_object()) continue;
    const auto name = StringAt(c.get_object(), "name");
    if (name.empty()) {
      errs.push_back(FieldError::Required(cpath + ".name"));
    } else {
      for (auto& msg : IsDns1123Label(name)) errs.push_back(FieldError::Invalid(cpath + ".name", QuoteJson(name), msg));
    }
    if (StringAt(c.get_object(), "image").empty()) errs.push_back(FieldError::Required(cpath + ".image"));
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
        errs.push_back(FieldError::Invalid("spec.template.metadata.labels",
                                           tlabels != nullptr ? SerializeJson(*tlabels) : "null",
                                           "`selector` does not match template `labels`"));
      }
    }
  }
  const auto* tmpl = ObjectAt(*spec, "template");
  const auto* tspec = tmpl != nullptr ? ObjectAt(*tmpl, "spec") : nullptr;
  ValidateContainers(tspec != nullptr ? *tspec : json::object(), "spec.template.spec", errs);
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

void ValidateKind(const ResourceInfo& info, const json::object& obj, bool via_events_v1,
                  std::vector<FieldError>& errs) {
  switch (KindOf(info)) {
    case BuiltinKind::kConfigMap:
      ValidateDataKeys(obj, errs, true);
      break;
    case BuiltinKind::kSecret:
      ValidateDataKeys(obj, errs, false);
      break;
    case BuiltinKind::kPod: {
      const auto* spec = ObjectAt(obj, "spec");
      ValidateContainers(spec != nullptr ? *spec : json::object(), "spec", errs);
      break;
    }
    case BuiltinKind::kDeployment:
    case BuiltinKind::kReplicaSet:
      ValidateWorkload(obj, errs);
      break;
    case BuiltinKind::kLease:
      ValidateLease(obj, errs);
      break;
    case BuiltinKind::kEvent:
    case BuiltinKind::kEventV1:
      ValidateLegacyEvent(obj, via_events_v1, errs);
      break;
    case BuiltinKind::kGeneric:
      ValidateGenericKind(info, obj, errs);  // CRDs and custom resources (schema_validation.hpp)
      break;
    case BuiltinKind::kNamespace:
    case BuiltinKind::kService:
    case BuiltinKind::kServiceAccount:
    case BuiltinKind::kNode:
      break;
  }
}

}  // namespace

std::vector<FieldError> ValidateCreate(const ResourceInfo& info, const json::object& obj,
                                       bool via_events_v1) {
  std::vector<FieldError> errs = ValidateObjectMeta(MetadataOf(obj), NameRuleFor(info));
  ValidateKind(info, obj, via_events_v1, errs);
  if (via_events_v1) ValidateEventsV1Create(obj, errs);
  return errs;
}

std::vector<FieldError> ValidateUpdate(const ResourceInfo& info, const json::object& obj,
                                       const json::object& old) {
  std::vector<FieldError> errs = ValidateObjectMeta(MetadataOf(obj), NameRuleFor(info));
  const auto uid = StringAt(MetadataOf(obj), "uid");
  const auto old_uid = StringAt(MetadataOf(old), "uid");
  if (uid != old_uid) errs.push_back(FieldError::Invalid("metadata.uid", QuoteJson(uid), "field is immutable"));
  ValidateKind(info, obj, false, errs);
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
      errs.push_back(FieldError::Invalid("spec.selector", SerializeJson(*sel), "field is immutable"));
    }
  }
  return errs;
}

}  // namespace kube::apiserver::rest
