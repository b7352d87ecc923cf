// kube's internal HorizontalPodAutoscaler validation (pkg/apis/autoscaling/validation) on the
// stored autoscaling/v2 form, whose members are the internal type's.

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <cstdint>
#include <kube/core/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/rest/go_json.hpp"
#include "apiserver/rest/hpa.hpp"
#include "apiserver/rest/json_util.hpp"
#include "apiserver/rest/names.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

constexpr int64_t kMaxPeriodSeconds = 1800;
constexpr int64_t kMaxStabilizationWindowSeconds = 3600;

const json::object kNone;

const json::object& Sub(const json::object& o, std::string_view key) {
  const auto* v = ObjectAt(o, key);
  return v != nullptr ? *v : kNone;
}

const json::value* Set(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && !v->is_null() ? v : nullptr;
}

std::optional<int64_t> Int(const json::object& o, std::string_view key) {
  const auto* v = Set(o, key);
  if (v == nullptr) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->get_uint64());
  return std::nullopt;
}

// What resource.ParseQuantity makes of `text` on its int64 path: the sign, and the Quantity as
// fmt's %#v prints it in kube's messages.
struct GoQuantity {
  int sign = 0;
  std::string printed;
};

GoQuantity ParseGoQuantity(std::string_view str) {
  GoQuantity q;
  auto render = [](int64_t value, int32_t scale, std::string_view s, std::string_view format) {
    return "resource.Quantity{i:resource.int64Amount{value:" + std::to_string(value) +
           ", scale:" + std::to_string(scale) + "}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:" + GoString(s) +
           ", Format:\"" + std::string(format) + "\"}";
  };
  if (str == "0") {
    q.printed = render(0, 0, str, "DecimalSI");
    return q;
  }
  std::size_t pos = 0;
  bool positive = true;
  if (pos < str.size() && (str[pos] == '-' || str[pos] == '+')) {
    positive = str[pos] == '+';
    ++pos;
  }
  while (pos < str.size() && str[pos] == '0') ++pos;
  std::size_t start = pos;
  while (pos < str.size() && std::isdigit(static_cast<unsigned char>(str[pos]))) ++pos;
  std::string num(str.substr(start, pos - start));
  if (num.empty()) num = "0";
  std::string denom;
  if (pos < str.size() && str[pos] == '.') {
    start = ++pos;
    while (pos < str.size() && std::isdigit(static_cast<unsigned char>(str[pos]))) ++pos;
    denom = std::string(str.substr(start, pos - start));
  }
  const std::string_view suffix = str.substr(pos);
  int32_t exponent = 0;
  std::string_view format = "DecimalSI";
  static constexpr std::pair<std::string_view, int32_t> kDecimal[] = {
      {"", 0}, {"n", -9}, {"u", -6}, {"m", -3}, {"k", 3}, {"M", 6}, {"G", 9}, {"T", 12}, {"P", 15}, {"E", 18}};
  static constexpr std::pair<std::string_view, int32_t> kBinary[] = {{"Ki", 10}, {"Mi", 20}, {"Gi", 30},
                                                                     {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  bool known = false;
  for (const auto& [s, e] : kDecimal) {
    if (suffix == s) {
      exponent = e;
      known = true;
    }
  }
  for (const auto& [s, e] : kBinary) {
    if (suffix == s) {
      exponent = e;
      format = "BinarySI";
      known = true;
    }
  }
  if (!known && suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    format = "DecimalExponent";
    exponent = static_cast<int32_t>(std::strtol(std::string(suffix.substr(1)).c_str(), nullptr, 10));
  }
  const std::string shifted = num + denom;
  const bool zero = shifted.find_first_not_of('0') == std::string::npos;
  q.sign = zero ? 0 : (positive ? 1 : -1);
  int64_t value = 0;
  for (char c : shifted.substr(0, 18)) value = value * 10 + (c - '0');
  int32_t scale = 0;
  std::string kept;  // the text Go keeps when it is canonical
  if (format == "BinarySI") {
    const bool fits = denom.empty() && exponent < 63 && value <= (INT64_MAX >> exponent);
    if (fits) value <<= exponent;
    if (fits && exponent % 10 == 0 && ((value >> exponent) & 0x07) != 0) kept = std::string(str);
  } else {
    scale = exponent - static_cast<int32_t>(denom.size());
    if (scale % 3 == 0 && !(shifted.size() >= 3 && shifted.ends_with("000")) && !shifted.empty() && shifted[0] != '0') {
      kept = std::string(str);
    }
  }
  q.printed = render(positive ? value : -value, scale, kept, format);
  return q;
}

// A Quantity member: its sign and printed form; nullopt when absent.
std::optional<GoQuantity> QuantityAt(const json::object& o, std::string_view key) {
  const auto* v = Set(o, key);
  if (v == nullptr) return std::nullopt;
  const std::string text = v->is_string() ? std::string(v->get_string()) : SerializeJson(*v);
  return ParseGoQuantity(text);
}

std::string Quoted(std::string_view s) { return QuoteJson(s); }

void ValidateReference(const json::object& ref, const std::string& path, std::vector<FieldError>& errs) {
  for (std::string_view member : {"kind", "name"}) {
    const auto value = StringAt(ref, member);
    const std::string field = path + "." + std::string(member);
    if (value.empty()) {
      errs.push_back(FieldError::Required(field));
      continue;
    }
    for (auto& msg : IsValidPathSegmentName(value)) errs.push_back(FieldError::Invalid(field, Quoted(value), msg));
  }
}

void ValidateMetricIdentifier(const json::object& id, const std::string& path, std::vector<FieldError>& errs) {
  const auto name = StringAt(id, "name");
  if (name.empty()) {
    errs.push_back(FieldError::Required(path + ".name", "must specify a metric name"));
    return;
  }
  for (auto& msg : IsValidPathSegmentName(name)) errs.push_back(FieldError::Invalid(path + ".name", Quoted(name), msg));
}

void ValidateMetricTarget(const json::object& target, const std::string& path, std::vector<FieldError>& errs) {
  const auto type = StringAt(target, "type");
  if (type.empty()) errs.push_back(FieldError::Required(path + ".type", "must specify a metric target type"));
  if (type != "Utilization" && type != "Value" && type != "AverageValue") {
    errs.push_back(
        FieldError::Invalid(path + ".type", Quoted(type), "must be either Utilization, Value, or AverageValue"));
  }
  for (std::string_view member : {"value", "averageValue"}) {
    if (auto q = QuantityAt(target, member); q && q->sign != 1) {
      errs.push_back(InvalidGo(path + "." + std::string(member), q->printed, "must be positive"));
    }
  }
  if (auto utilization = Int(target, "averageUtilization"); utilization && *utilization < 1) {
    errs.push_back(
        FieldError::Invalid(path + ".averageUtilization", std::to_string(*utilization), "must be greater than 0"));
  }
}

// corevalidation.ValidateContainerResourceName for the names a container can request. A
// core.ResourceName prints as itself (it is a fmt.Stringer), unquoted.
void ValidateContainerResourceName(std::string_view name, const std::string& path, std::vector<FieldError>& errs) {
  const std::string printed(name);
  for (auto& msg : IsQualifiedName(name)) errs.push_back(InvalidGo(path, printed, msg));
  const bool standard_resource =
      name == "cpu" || name == "memory" || name == "ephemeral-storage" || name == "storage" || name == "pods" ||
      name == "services" || name == "replicationcontrollers" || name == "resourcequotas" || name == "secrets" ||
      name == "configmaps" || name == "persistentvolumeclaims" || name.starts_with("hugepages-") ||
      name.starts_with("requests.") || name.starts_with("limits.");
  if (name.find('/') == std::string_view::npos) {
    if (!standard_resource)
      errs.push_back(InvalidGo(path, printed, "must be a standard resource type or fully qualified"));
    const bool container_resource =
        name == "cpu" || name == "memory" || name == "ephemeral-storage" || name.starts_with("hugepages-");
    if (!container_resource) errs.push_back(InvalidGo(path, printed, "must be a standard resource for containers"));
  }
}

void ValidateResourceTarget(const json::object& target, const std::string& path, std::vector<FieldError>& errs) {
  ValidateMetricTarget(target, path, errs);
  const bool utilization = Set(target, "averageUtilization") != nullptr;
  const bool average = Set(target, "averageValue") != nullptr;
  if (!utilization && !average) {
    errs.push_back(FieldError::Required(path + ".averageUtilization",
                                        "must set either a target raw value or a target utilization"));
  }
  if (utilization && average) {
    errs.push_back(
        FieldError::Forbidden(path + ".averageValue", "may not set both a target raw value and a target utilization"));
  }
}

void ValidateMetricSource(std::string_view member, const json::object& src, const std::string& path,
                          std::vector<FieldError>& errs) {
  const json::object& target = Sub(src, "target");
  if (member == "object") {
    ValidateReference(Sub(src, "describedObject"), path + ".describedObject", errs);
    ValidateMetricIdentifier(Sub(src, "metric"), path + ".metric", errs);
    ValidateMetricTarget(target, path + ".target", errs);
    if (Set(target, "value") == nullptr && Set(target, "averageValue") == nullptr) {
      errs.push_back(
          FieldError::Required(path + ".target.averageValue", "must set either a target value or averageValue"));
    }
  } else if (member == "external") {
    ValidateMetricIdentifier(Sub(src, "metric"), path + ".metric", errs);
    ValidateMetricTarget(target, path + ".target", errs);
    const bool value = Set(target, "value") != nullptr;
    const bool average = Set(target, "averageValue") != nullptr;
    if (!value && !average) {
      errs.push_back(FieldError::Required(path + ".target.averageValue",
                                          "must set either a target value for metric or a per-pod target"));
    }
    if (value && average) {
      errs.push_back(FieldError::Forbidden(path + ".target.value",
                                           "may not set both a target value for metric and a per-pod target"));
    }
  } else if (member == "pods") {
    ValidateMetricIdentifier(Sub(src, "metric"), path + ".metric", errs);
    ValidateMetricTarget(target, path + ".target", errs);
    if (Set(target, "averageValue") == nullptr) {
      errs.push_back(
          FieldError::Required(path + ".target.averageValue", "must specify a positive target averageValue"));
    }
  } else if (member == "resource") {
    if (StringAt(src, "name").empty())
      errs.push_back(FieldError::Required(path + ".name", "must specify a resource name"));
    ValidateResourceTarget(target, path + ".target", errs);
  } else {  // containerResource
    const auto name = StringAt(src, "name");
    if (name.empty()) {
      errs.push_back(FieldError::Required(path + ".name", "must specify a resource name"));
    } else {
      ValidateContainerResourceName(name, path + ".name", errs);
    }
    const auto container = StringAt(src, "container");
    if (container.empty()) {
      errs.push_back(FieldError::Required(path + ".container", "must specify a container"));
    } else {
      for (auto& msg : IsDns1123Label(container)) {
        errs.push_back(FieldError::Invalid(path + ".container", Quoted(container), msg));
      }
    }
    ValidateResourceTarget(target, path + ".target", errs);
  }
}

const std::vector<std::string>& MetricSourceTypes() {
  static const std::vector<std::string> k = {"ContainerResource", "External", "Object", "Pods", "Resource"};
  return k;
}

void ValidateMetricSpec(const json::object& m, const std::string& path, std::vector<FieldError>& errs) {
  const std::string type(StringAt(m, "type"));
  const auto& types = MetricSourceTypes();
  const bool known = std::find(types.begin(), types.end(), type) != types.end();
  if (type.empty()) errs.push_back(FieldError::Required(path + ".type", "must specify a metric source type"));
  if (!known) errs.push_back(FieldError::NotSupported(path + ".type", Quoted(type), types));
  // The sources present, in kube's order; only the first is validated.
  std::vector<std::string> present;
  for (std::string_view member : {"object", "external", "pods", "resource", "containerResource"}) {
    const auto* src = ObjectAt(m, member);
    if (src == nullptr) continue;
    present.emplace_back(member);
    if (present.size() == 1) ValidateMetricSource(member, *src, path + "." + std::string(member), errs);
  }
  std::string expected;
  if (type == "Object") expected = "object";
  if (type == "Pods") expected = "pods";
  if (type == "Resource") expected = "resource";
  if (type == "External") expected = "external";
  if (type == "ContainerResource") expected = "containerResource";
  if (expected.empty()) {
    errs.push_back(FieldError::NotSupported(path + ".type", Quoted(type), types));
  } else if (ObjectAt(m, expected) == nullptr) {
    errs.push_back(
        FieldError::Required(path + "." + expected, "must populate information for the given metric source"));
  }
  if (present.size() != 1) {
    std::sort(present.begin(), present.end());
    for (const auto& p : present) {
      if (p != expected)
        errs.push_back(FieldError::Forbidden(path + "." + p, "must populate the given metric source only"));
    }
  }
}

void ValidateScalingRules(const json::object& rules, const std::string& path, std::vector<FieldError>& errs) {
  if (auto window = Int(rules, "stabilizationWindowSeconds")) {
    if (*window < 0) {
      errs.push_back(FieldError::Invalid(path + ".stabilizationWindowSeconds", std::to_string(*window),
                                         "must be greater than or equal to zero"));
    }
    if (*window > kMaxStabilizationWindowSeconds) {
      errs.push_back(
          FieldError::Invalid(path + ".stabilizationWindowSeconds", std::to_string(*window),
                              "must be less than or equal to " + std::to_string(kMaxStabilizationWindowSeconds)));
    }
  }
  if (const auto* select = Set(rules, "selectPolicy")) {
    const std::string_view policy = select->is_string() ? std::string_view(select->get_string()) : std::string_view();
    if (policy != "Max" && policy != "Min" && policy != "Disabled") {
      errs.push_back(FieldError::NotSupported(path + ".selectPolicy", Quoted(policy), {"Disabled", "Max", "Min"}));
    }
  }
  const auto* policies = rules.if_contains("policies");
  const bool none = policies == nullptr || !policies->is_array() || policies->get_array().empty();
  if (none) errs.push_back(FieldError::Required(path + ".policies", "must specify at least one Policy"));
  if (none) return;
  const auto& list = policies->get_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json::object& policy = list[i].is_object() ? list[i].get_object() : kNone;
    const std::string at = path + ".policies[" + std::to_string(i) + "]";
    const auto type = StringAt(policy, "type");
    if (type != "Pods" && type != "Percent") {
      errs.push_back(FieldError::NotSupported(at + ".type", Quoted(type), {"Percent", "Pods"}));
    }
    const int64_t value = Int(policy, "value").value_or(0);
    if (value <= 0)
      errs.push_back(FieldError::Invalid(at + ".value", std::to_string(value), "must be greater than zero"));
    const int64_t period = Int(policy, "periodSeconds").value_or(0);
    if (period <= 0) {
      errs.push_back(FieldError::Invalid(at + ".periodSeconds", std::to_string(period), "must be greater than zero"));
    }
    if (period > kMaxPeriodSeconds) {
      errs.push_back(FieldError::Invalid(at + ".periodSeconds", std::to_string(period),
                                         "must be less than or equal to " + std::to_string(kMaxPeriodSeconds)));
    }
  }
}

}  // namespace

void ValidateHorizontalPodAutoscaler(const json::object& obj, const json::object* old, std::vector<FieldError>& errs) {
  const json::object& spec = Sub(obj, "spec");
  // HPAScaleToZero is off in 1.32: 0 stays allowed only for objects that already have it.
  const std::optional<int64_t> old_min = old != nullptr ? Int(Sub(*old, "spec"), "minReplicas") : std::nullopt;
  const int64_t lower_bound = old_min && *old_min == 0 ? 0 : 1;
  const std::optional<int64_t> min = Int(spec, "minReplicas");
  const int64_t max = Int(spec, "maxReplicas").value_or(0);
  if (min && *min < lower_bound) {
    errs.push_back(FieldError::Invalid("spec.minReplicas", std::to_string(*min),
                                       "must be greater than or equal to " + std::to_string(lower_bound)));
  }
  if (max < 1) errs.push_back(FieldError::Invalid("spec.maxReplicas", std::to_string(max), "must be greater than 0"));
  if (min && max < *min) {
    errs.push_back(
        FieldError::Invalid("spec.maxReplicas", std::to_string(max), "must be greater than or equal to `minReplicas`"));
  }
  ValidateReference(Sub(spec, "scaleTargetRef"), "spec.scaleTargetRef", errs);
  bool object_or_external = false;
  if (const auto* metrics = spec.if_contains("metrics"); metrics != nullptr && metrics->is_array()) {
    const auto& list = metrics->get_array();
    for (std::size_t i = 0; i < list.size(); ++i) {
      const json::object& m = list[i].is_object() ? list[i].get_object() : kNone;
      ValidateMetricSpec(m, "spec.metrics[" + std::to_string(i) + "]", errs);
      const auto type = StringAt(m, "type");
      object_or_external = object_or_external || type == "Object" || type == "External";
    }
  }
  if (min && *min == 0 && !object_or_external) {
    errs.push_back(FieldError::Forbidden(
        "spec.metrics", "must specify at least one Object or External metric to support scaling to zero replicas"));
  }
  if (const auto* behavior = ObjectAt(spec, "behavior")) {
    for (std::string_view rules : {"scaleUp", "scaleDown"}) {
      if (const auto* r = ObjectAt(*behavior, rules))
        ValidateScalingRules(*r, "spec.behavior." + std::string(rules), errs);
    }
  }
  if (old != nullptr) {
    // The /status strategy's checks (the main resource keeps the stored status).
    const json::object& status = Sub(obj, "status");
    for (std::string_view member : {"currentReplicas", "desiredReplicas"}) {
      if (auto n = Int(status, member); n && *n < 0) {
        errs.push_back(FieldError::Invalid("status." + std::string(member), std::to_string(*n),
                                           "must be greater than or equal to 0"));
      }
    }
  }
}

}  // namespace kube::apiserver::rest
