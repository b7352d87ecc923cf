// autoscaling/v1 <-> autoscaling/v2 HorizontalPodAutoscalers, as kube converts them through the
// internal type, and the v2 defaults. What v1 cannot express travels in round-trip annotations
// (hpa_metrics.hpp encodes and decodes their contents).

#include <algorithm>
#include <boost/json.hpp>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "apiserver/rest/builtin_schema.hpp"
#include "apiserver/rest/go_zero.hpp"
#include "apiserver/rest/hpa.hpp"
#include "apiserver/rest/hpa_metrics.hpp"
#include "apiserver/rest/json_util.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

const json::object kNone;

const json::object& Sub(const json::object& o, std::string_view key) {
  const auto* v = ObjectAt(o, key);
  return v != nullptr ? *v : kNone;
}

bool Present(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && !v->is_null();
}

void CopyIfPresent(json::object& to, const json::object& from, std::string_view key, std::string_view as = {}) {
  if (const auto* v = from.if_contains(key); v != nullptr && !v->is_null()) to[as.empty() ? key : as] = *v;
}

bool IsCpuUtilizationMetric(const json::object& m) {
  if (StringAt(m, "type") != "Resource") return false;
  const auto* res = ObjectAt(m, "resource");
  return res != nullptr && StringAt(*res, "name") == "cpu" && Present(Sub(*res, "target"), "averageUtilization");
}

constexpr std::string_view kRoundTripAnnotations[] = {kHpaMetricsAnnotation, kHpaBehaviorAnnotation,
                                                      kHpaCurrentMetricsAnnotation, kHpaConditionsAnnotation};

void DropRoundTripAnnotations(json::object& meta) {
  auto* annotations = ObjectAt(meta, "annotations");
  if (annotations == nullptr) return;
  json::object kept;
  for (auto& kv : *annotations) {
    const std::string_view key(kv.key().data(), kv.key().size());
    if (std::find(std::begin(kRoundTripAnnotations), std::end(kRoundTripAnnotations), key) ==
        std::end(kRoundTripAnnotations)) {
      kept[key] = std::move(kv.value());
    }
  }
  if (kept.empty()) {
    meta.erase("annotations");
  } else {
    *annotations = std::move(kept);
  }
}

json::object CpuUtilizationMetric(const json::value& utilization) {
  return json::object{
      {"type", "Resource"},
      {"resource",
       json::object{{"name", "cpu"},
                    {"target", json::object{{"type", "Utilization"}, {"averageUtilization", utilization}}}}}};
}

// Copies the members of `from` that are neither in `known` (the v1 type's) nor in `v2_only` (a
// v2 member of that name would take them for its own).
void CopyUnknown(json::object& to, const json::object& from, std::initializer_list<std::string_view> known,
                 std::initializer_list<std::string_view> v2_only) {
  for (const auto& kv : from) {
    const std::string_view key(kv.key().data(), kv.key().size());
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    if (std::find(v2_only.begin(), v2_only.end(), key) != v2_only.end()) continue;
    to[key] = kv.value();
  }
}

void SortAnnotations(json::object& meta) {
  auto* annotations = ObjectAt(meta, "annotations");
  if (annotations == nullptr) return;
  std::vector<std::pair<std::string, json::value>> sorted;
  for (auto& kv : *annotations) sorted.emplace_back(std::string(kv.key()), std::move(kv.value()));
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  json::object out;
  for (auto& [k, v] : sorted) out[k] = std::move(v);
  *annotations = std::move(out);
}

// The default scaling rules kube completes a given behavior with.
json::object DefaultRules(bool scale_up) {
  json::object rules;
  if (scale_up) rules["stabilizationWindowSeconds"] = 0;
  rules["selectPolicy"] = "Max";
  if (scale_up) {
    rules["policies"] = json::array{json::object{{"type", "Pods"}, {"value", 4}, {"periodSeconds", 15}},
                                    json::object{{"type", "Percent"}, {"value", 100}, {"periodSeconds", 15}}};
  } else {
    rules["policies"] = json::array{json::object{{"type", "Percent"}, {"value", 100}, {"periodSeconds", 15}}};
  }
  return rules;
}

// GenerateHPAScale{Up,Down}Rules: the defaults, overridden by what `given` sets.
json::object CompleteRules(const json::value* given, bool scale_up) {
  json::object rules = DefaultRules(scale_up);
  if (given == nullptr || !given->is_object()) return rules;
  const json::object& g = given->get_object();
  json::object out;
  // Member order of the v2 type: stabilizationWindowSeconds, selectPolicy, policies.
  const auto* window = g.if_contains("stabilizationWindowSeconds");
  if (window != nullptr && !window->is_null()) {
    out["stabilizationWindowSeconds"] = *window;
  } else if (const auto* d = rules.if_contains("stabilizationWindowSeconds")) {
    out["stabilizationWindowSeconds"] = *d;
  }
  const auto* select = g.if_contains("selectPolicy");
  out["selectPolicy"] = select != nullptr && !select->is_null() ? *select : rules.at("selectPolicy");
  const auto* policies = g.if_contains("policies");
  out["policies"] = policies != nullptr && !policies->is_null() ? *policies : rules.at("policies");
  return out;
}
}  // namespace

bool IsHorizontalPodAutoscaler(const ResourceInfo& info) {
  return info.builtin && info.group == "autoscaling" && info.resource == "horizontalpodautoscalers";
}

bool IsHpaV1View(const ResourceInfo& info) { return IsHorizontalPodAutoscaler(info) && info.version == "v1"; }

void HpaV2ToV1(json::object& obj) {
  json::object out;
  out["kind"] = "HorizontalPodAutoscaler";
  out["apiVersion"] = "autoscaling/v1";
  json::object meta = Sub(obj, "metadata");
  DropRoundTripAnnotations(meta);

  const json::object& spec = Sub(obj, "spec");
  const json::object& status = Sub(obj, "status");
  json::object spec_v1;
  if (const auto* ref = ObjectAt(spec, "scaleTargetRef")) spec_v1["scaleTargetRef"] = CrossVersionReference(*ref);
  CopyIfPresent(spec_v1, spec, "minReplicas");
  CopyIfPresent(spec_v1, spec, "maxReplicas");
  json::array other_metrics;
  bool cpu_seen = false;
  if (const auto* metrics = spec.if_contains("metrics"); metrics != nullptr && metrics->is_array()) {
    for (const auto& m : metrics->get_array()) {
      const json::object& metric = m.is_object() ? m.get_object() : kNone;
      const auto* res = ObjectAt(metric, "resource");
      if (!cpu_seen && StringAt(metric, "type") == "Resource" && res != nullptr && StringAt(*res, "name") == "cpu") {
        cpu_seen = true;  // only the first cpu Resource metric gives the target
        CopyIfPresent(spec_v1, Sub(*res, "target"), "averageUtilization", "targetCPUUtilizationPercentage");
      }
      if (!IsCpuUtilizationMetric(metric)) other_metrics.push_back(MetricSpecToV1(metric));
    }
  }

  json::object status_v1;
  CopyIfPresent(status_v1, status, "observedGeneration");
  CopyIfPresent(status_v1, status, "lastScaleTime");
  CopyIfPresent(status_v1, status, "currentReplicas");
  CopyIfPresent(status_v1, status, "desiredReplicas");
  json::array current_metrics;
  if (const auto* current = status.if_contains("currentMetrics"); current != nullptr && current->is_array()) {
    for (const auto& m : current->get_array()) {
      const json::object& metric = m.is_object() ? m.get_object() : kNone;
      const auto* res = ObjectAt(metric, "resource");
      if (StringAt(metric, "type") == "Resource" && res != nullptr && StringAt(*res, "name") == "cpu") {
        // Every cpu Resource status is looked at: the last utilization wins.
        CopyIfPresent(status_v1, Sub(*res, "current"), "averageUtilization", "currentCPUUtilizationPercentage");
      }
      current_metrics.push_back(MetricStatusToV1(metric));
    }
  }
  json::array conditions;
  if (const auto* list = status.if_contains("conditions"); list != nullptr && list->is_array()) {
    for (const auto& c : list->get_array()) conditions.push_back(ConditionToV1(c.is_object() ? c.get_object() : kNone));
  }

  if (!other_metrics.empty() || !current_metrics.empty() || !conditions.empty() || Present(spec, "behavior")) {
    auto& annotations = EnsureObject(meta, "annotations");
    if (!other_metrics.empty()) annotations[kHpaMetricsAnnotation] = GoJson(other_metrics);
    if (!current_metrics.empty()) annotations[kHpaCurrentMetricsAnnotation] = GoJson(current_metrics);
    if (!conditions.empty()) annotations[kHpaConditionsAnnotation] = GoJson(conditions);
    if (const auto* behavior = ObjectAt(spec, "behavior")) {
      annotations[kHpaBehaviorAnnotation] = GoJson(BehaviorToInternal(*behavior));
    }
    SortAnnotations(meta);  // Go writes a map with its keys sorted
  }
  out["metadata"] = std::move(meta);
  out["spec"] = std::move(spec_v1);
  out["status"] = std::move(status_v1);
  json::value v(std::move(out));
  if (const TypeSchemaPtr schema = OpenApiSchema("autoscaling", "v1", "HorizontalPodAutoscaler"))
    FillGoZero(*schema, v);
  obj = std::move(v.get_object());
}

void HpaV1ToV2(json::object& obj) {
  json::object out;
  out["kind"] = "HorizontalPodAutoscaler";
  out["apiVersion"] = "autoscaling/v2";
  json::object meta = Sub(obj, "metadata");
  const json::object annotations = Sub(meta, "annotations");
  auto annotation = [&](std::string_view key) -> const json::string* {
    const auto* v = annotations.if_contains(key);
    return v != nullptr && v->is_string() ? &v->get_string() : nullptr;
  };

  const json::object& spec = Sub(obj, "spec");
  const json::object& status = Sub(obj, "status");
  json::object spec_v2;
  // Members neither version has go through as they are, for the unknown-field checks (and are
  // pruned with the stored form's).
  CopyUnknown(spec_v2, spec, {"scaleTargetRef", "minReplicas", "maxReplicas", "targetCPUUtilizationPercentage"},
              {"metrics", "behavior"});
  CopyIfPresent(spec_v2, spec, "scaleTargetRef");
  CopyIfPresent(spec_v2, spec, "minReplicas");
  CopyIfPresent(spec_v2, spec, "maxReplicas");
  json::array metrics;
  if (const auto* metric_specs = annotation(kHpaMetricsAnnotation)) {
    if (auto decoded = MetricSpecsFromV1({metric_specs->data(), metric_specs->size()})) {
      metrics = std::move(*decoded);
    }
  }
  if (const auto* cpu = spec.if_contains("targetCPUUtilizationPercentage"); cpu != nullptr && !cpu->is_null()) {
    metrics.push_back(CpuUtilizationMetric(*cpu));
  }
  // autoscaling/v1's implicit target, now explicit.
  if (metrics.empty()) metrics.push_back(CpuUtilizationMetric(80));
  spec_v2["metrics"] = std::move(metrics);
  if (const auto* behavior_text = annotation(kHpaBehaviorAnnotation)) {
    if (auto behavior = BehaviorFromInternal({behavior_text->data(), behavior_text->size()})) {
      spec_v2["behavior"] = std::move(*behavior);
    }
  }

  json::object status_v2;
  CopyUnknown(
      status_v2, status,
      {"observedGeneration", "lastScaleTime", "currentReplicas", "desiredReplicas", "currentCPUUtilizationPercentage"},
      {"currentMetrics", "conditions"});
  CopyIfPresent(status_v2, status, "observedGeneration");
  CopyIfPresent(status_v2, status, "lastScaleTime");
  CopyIfPresent(status_v2, status, "currentReplicas");
  CopyIfPresent(status_v2, status, "desiredReplicas");
  std::optional<json::array> current_metrics;
  if (const auto* cpu = status.if_contains("currentCPUUtilizationPercentage"); cpu != nullptr && !cpu->is_null()) {
    current_metrics = json::array{json::object{
        {"type", "Resource"},
        {"resource", json::object{{"name", "cpu"}, {"current", json::object{{"averageUtilization", *cpu}}}}}}};
  }
  if (const auto* text = annotation(kHpaCurrentMetricsAnnotation)) {
    // These carry more than the v1 status: they replace it.
    if (auto decoded = MetricStatusesFromV1({text->data(), text->size()})) current_metrics = std::move(*decoded);
  }
  if (current_metrics) status_v2["currentMetrics"] = std::move(*current_metrics);
  if (const auto* text = annotation(kHpaConditionsAnnotation)) {
    auto decoded = ConditionsFromV1({text->data(), text->size()});
    if (decoded && !decoded->empty()) status_v2["conditions"] = std::move(*decoded);
  }

  DropRoundTripAnnotations(meta);
  out["metadata"] = std::move(meta);
  out["spec"] = std::move(spec_v2);
  out["status"] = std::move(status_v2);
  CopyUnknown(out, obj, {"kind", "apiVersion", "metadata", "spec", "status"}, {});
  obj = std::move(out);
}

std::vector<std::string> HpaV1UnknownFieldsLost(const json::object& obj) {
  static constexpr std::pair<std::string_view, std::string_view> kV2Names[] = {
      {"spec", "metrics"}, {"spec", "behavior"}, {"status", "currentMetrics"}, {"status", "conditions"}};
  std::vector<std::string> out;
  for (std::string_view holder : {"spec", "status"}) {
    const auto* o = ObjectAt(obj, holder);
    if (o == nullptr) continue;
    for (const auto& kv : *o) {
      const std::string_view key(kv.key().data(), kv.key().size());
      for (const auto& [h, member] : kV2Names) {
        if (h == holder && member == key) out.push_back(std::string(holder) + "." + std::string(key));
      }
    }
  }
  return out;
}

std::optional<json::object> HpaAsVersion(const json::object& stored, std::string_view api_version) {
  if (api_version == "autoscaling/v2") return stored;
  if (api_version != "autoscaling/v1") return std::nullopt;
  json::object view = stored;
  HpaV2ToV1(view);
  return view;
}

void DefaultHorizontalPodAutoscaler(json::object& obj, bool behavior) {
  auto& spec = EnsureObject(obj, "spec");
  SetDefault(spec, "minReplicas", 1);
  const auto* metrics = spec.if_contains("metrics");
  if (metrics == nullptr || !metrics->is_array() || metrics->get_array().empty()) {
    spec["metrics"] = json::array{CpuUtilizationMetric(80)};
  }
  if (!behavior) return;
  if (auto* rules = ObjectAt(spec, "behavior")) {
    json::object completed;
    completed["scaleUp"] = CompleteRules(rules->if_contains("scaleUp"), /*scale_up=*/true);
    completed["scaleDown"] = CompleteRules(rules->if_contains("scaleDown"), /*scale_up=*/false);
    *rules = std::move(completed);
  }
}

}  // namespace kube::apiserver::rest
