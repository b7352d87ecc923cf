// The contents of the annotations autoscaling/v1 HorizontalPodAutoscalers carry what v1 cannot
// express in: the v1 metric, metric status and condition types written as Go's encoding/json
// writes them (members in struct order, HTML characters escaped) and read back as it reads them
// (members matched case-insensitively, a value of the wrong type failing the whole annotation),
// and the behavior as the internal Go type without JSON tags.

#include "apiserver/rest/hpa_metrics.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "apiserver/rest/go_json.hpp"
#include "apiserver/rest/json_util.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

// ---- Go's encoding/json output: members in the order given, HTML characters escaped ----

void AppendGo(std::string& out, const json::value& v) {
  switch (v.kind()) {
    case json::kind::object: {
      out.push_back('{');
      bool first = true;
      for (const auto& kv : v.get_object()) {
        if (!first) out.push_back(',');
        first = false;
        AppendGoJsonString(out, {kv.key().data(), kv.key().size()});
        out.push_back(':');
        AppendGo(out, kv.value());
      }
      out.push_back('}');
      return;
    }
    case json::kind::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& item : v.get_array()) {
        if (!first) out.push_back(',');
        first = false;
        AppendGo(out, item);
      }
      out.push_back(']');
      return;
    }
    case json::kind::string:
      AppendGoJsonString(out, {v.get_string().data(), v.get_string().size()});
      return;
    default:
      out += json::serialize(v);
      return;
  }
}

// ---- writing the v1 types from the stored (v2) form ----

const json::object kNone;

const json::object& Obj(const json::object* o) { return o != nullptr ? *o : kNone; }
const json::object& Sub(const json::object& o, std::string_view key) { return Obj(ObjectAt(o, key)); }

void CopyIfPresent(json::object& to, const json::object& from, std::string_view key, std::string_view as = {}) {
  if (const auto* v = from.if_contains(key); v != nullptr && !v->is_null()) to[as.empty() ? key : as] = *v;
}

// A Quantity as Go encodes it: always a string (a body may have given a number).
json::value QuantityText(const json::value& v) {
  if (v.is_number()) return json::value(json::string(json::serialize(v)));
  return v;
}

// A Quantity member as Go encodes it: its text, or "0" for the zero value.
json::value QuantityOrZero(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return json::value("0");
  return QuantityText(*v);
}

// A *Quantity member, copied when set.
void CopyQuantity(json::object& to, const json::object& from, std::string_view key, std::string_view as = {}) {
  if (const auto* v = from.if_contains(key); v != nullptr && !v->is_null())
    to[as.empty() ? key : as] = QuantityText(*v);
}

// A CrossVersionObjectReference in Go's member order (kind, name, apiVersion omitempty).
json::object Reference(const json::object& ref) {
  json::object out;
  out["kind"] = json::string(StringAt(ref, "kind"));
  out["name"] = json::string(StringAt(ref, "name"));
  if (!StringAt(ref, "apiVersion").empty()) out["apiVersion"] = ref.at("apiVersion");
  return out;
}

// A metav1.LabelSelector in Go's member order (matchLabels sorted, as Go sorts map keys).
json::value Selector(const json::value& v) {
  if (!v.is_object()) return v;
  const json::object& sel = v.get_object();
  json::object out;
  if (const auto* labels = ObjectAt(sel, "matchLabels"); labels != nullptr && !labels->empty()) {
    std::vector<std::pair<std::string_view, const json::value*>> sorted;
    for (const auto& kv : *labels) sorted.emplace_back(std::string_view(kv.key().data(), kv.key().size()), &kv.value());
    std::sort(sorted.begin(), sorted.end());
    json::object ordered;
    for (const auto& [k, val] : sorted) ordered[k] = *val;
    out["matchLabels"] = std::move(ordered);
  }
  if (const auto* exprs = sel.if_contains("matchExpressions");
      exprs != nullptr && exprs->is_array() && !exprs->get_array().empty()) {
    json::array list;
    for (const auto& e : exprs->get_array()) {
      const json::object& expr = e.is_object() ? e.get_object() : kNone;
      json::object item;
      item["key"] = json::string(StringAt(expr, "key"));
      item["operator"] = json::string(StringAt(expr, "operator"));
      if (const auto* values = expr.if_contains("values");
          values != nullptr && values->is_array() && !values->get_array().empty()) {
        item["values"] = *values;
      }
      list.push_back(std::move(item));
    }
    out["matchExpressions"] = std::move(list);
  }
  return out;
}

void CopySelector(json::object& to, const json::object& from, std::string_view key, std::string_view as) {
  if (const auto* v = from.if_contains(key); v != nullptr && !v->is_null()) to[as] = Selector(*v);
}

}  // namespace

// Convert_autoscaling_MetricSpec_To_v1_MetricSpec.
json::object MetricSpecToV1(const json::object& m) {
  json::object out;
  out["type"] = json::string(StringAt(m, "type"));
  if (const auto* src = ObjectAt(m, "object")) {
    const json::object& target = Sub(*src, "target");
    const json::object& metric = Sub(*src, "metric");
    json::object o;
    o["target"] = Reference(Sub(*src, "describedObject"));
    o["metricName"] = json::string(StringAt(metric, "name"));
    o["targetValue"] = QuantityOrZero(target, "value");
    CopySelector(o, metric, "selector", "selector");
    CopyQuantity(o, target, "averageValue");
    out["object"] = std::move(o);
  }
  if (const auto* src = ObjectAt(m, "pods")) {
    const json::object& metric = Sub(*src, "metric");
    json::object o;
    o["metricName"] = json::string(StringAt(metric, "name"));
    o["targetAverageValue"] = QuantityOrZero(Sub(*src, "target"), "averageValue");
    CopySelector(o, metric, "selector", "selector");
    out["pods"] = std::move(o);
  }
  for (std::string_view member : {"resource", "containerResource"}) {
    const auto* src = ObjectAt(m, member);
    if (src == nullptr) continue;
    const json::object& target = Sub(*src, "target");
    json::object o;
    o["name"] = json::string(StringAt(*src, "name"));
    CopyIfPresent(o, target, "averageUtilization", "targetAverageUtilization");
    CopyQuantity(o, target, "averageValue", "targetAverageValue");
    if (member == "containerResource") o["container"] = json::string(StringAt(*src, "container"));
    out[member] = std::move(o);
  }
  if (const auto* src = ObjectAt(m, "external")) {
    const json::object& target = Sub(*src, "target");
    const json::object& metric = Sub(*src, "metric");
    json::object o;
    o["metricName"] = json::string(StringAt(metric, "name"));
    CopySelector(o, metric, "selector", "metricSelector");
    CopyQuantity(o, target, "value", "targetValue");
    CopyQuantity(o, target, "averageValue", "targetAverageValue");
    out["external"] = std::move(o);
  }
  return out;
}

json::object MetricStatusToV1(const json::object& m) {
  json::object out;
  out["type"] = json::string(StringAt(m, "type"));
  if (const auto* src = ObjectAt(m, "object")) {
    const json::object& current = Sub(*src, "current");
    const json::object& metric = Sub(*src, "metric");
    json::object o;
    o["target"] = Reference(Sub(*src, "describedObject"));
    o["metricName"] = json::string(StringAt(metric, "name"));
    o["currentValue"] = QuantityOrZero(current, "value");
    CopySelector(o, metric, "selector", "selector");
    CopyQuantity(o, current, "averageValue");
    out["object"] = std::move(o);
  }
  if (const auto* src = ObjectAt(m, "pods")) {
    const json::object& metric = Sub(*src, "metric");
    json::object o;
    o["metricName"] = json::string(StringAt(metric, "name"));
    o["currentAverageValue"] = QuantityOrZero(Sub(*src, "current"), "averageValue");
    CopySelector(o, metric, "selector", "selector");
    out["pods"] = std::move(o);
  }
  for (std::string_view member : {"resource", "containerResource"}) {
    const auto* src = ObjectAt(m, member);
    if (src == nullptr) continue;
    const json::object& current = Sub(*src, "current");
    json::object o;
    o["name"] = json::string(StringAt(*src, "name"));
    CopyIfPresent(o, current, "averageUtilization", "currentAverageUtilization");
    o["currentAverageValue"] = QuantityOrZero(current, "averageValue");
    if (member == "containerResource") o["container"] = json::string(StringAt(*src, "container"));
    out[member] = std::move(o);
  }
  if (const auto* src = ObjectAt(m, "external")) {
    const json::object& current = Sub(*src, "current");
    const json::object& metric = Sub(*src, "metric");
    json::object o;
    o["metricName"] = json::string(StringAt(metric, "name"));
    CopySelector(o, metric, "selector", "metricSelector");
    o["currentValue"] = QuantityOrZero(current, "value");
    CopyQuantity(o, current, "averageValue", "currentAverageValue");
    out["external"] = std::move(o);
  }
  return out;
}

json::object ConditionToV1(const json::object& c) {
  json::object out;
  out["type"] = json::string(StringAt(c, "type"));
  out["status"] = json::string(StringAt(c, "status"));
  // metav1.Time is a struct: omitempty keeps it, and its zero value encodes as null.
  const auto* t = c.if_contains("lastTransitionTime");
  out["lastTransitionTime"] = t != nullptr ? *t : json::value(nullptr);
  if (!StringAt(c, "reason").empty()) out["reason"] = c.at("reason");
  if (!StringAt(c, "message").empty()) out["message"] = c.at("message");
  return out;
}

namespace {

// The internal HPAScalingRules as Go encodes a struct without JSON tags.
json::value RulesToInternal(const json::value* v) {
  if (v == nullptr || !v->is_object()) return nullptr;
  const json::object& rules = v->get_object();
  json::object out;
  const auto* window = rules.if_contains("stabilizationWindowSeconds");
  out["StabilizationWindowSeconds"] = window != nullptr ? *window : json::value(nullptr);
  const auto* select = rules.if_contains("selectPolicy");
  out["SelectPolicy"] = select != nullptr ? *select : json::value(nullptr);
  const auto* policies = rules.if_contains("policies");
  if (policies != nullptr && policies->is_array()) {
    json::array list;
    for (const auto& p : policies->get_array()) {
      const json::object& policy = p.is_object() ? p.get_object() : kNone;
      json::object item;
      item["Type"] = json::string(StringAt(policy, "type"));
      const auto* value = policy.if_contains("value");
      item["Value"] = value != nullptr && !value->is_null() ? *value : json::value(0);
      const auto* period = policy.if_contains("periodSeconds");
      item["PeriodSeconds"] = period != nullptr && !period->is_null() ? *period : json::value(0);
      list.push_back(std::move(item));
    }
    out["Policies"] = std::move(list);
  } else {
    out["Policies"] = nullptr;
  }
  return out;
}

// ---- reading autoscaling/v1 JSON as Go's encoding/json decodes it into the v1 types ----

// The member Go decodes into `field`: the last one whose name matches it case-insensitively.
const json::value* Field(const json::object& o, std::string_view field) {
  const json::value* found = nullptr;
  for (const auto& kv : o) {
    const std::string_view key(kv.key().data(), kv.key().size());
    if (key.size() == field.size() && std::equal(key.begin(), key.end(), field.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        })) {
      found = &kv.value();
    }
  }
  return found;
}

// Decodes the annotation JSON; `ok` turns false at the first value Go would refuse.
class GoReader {
 public:
  bool ok = true;

  // A string field ("" when absent or null).
  std::string String(const json::object& o, std::string_view field) {
    const auto* v = Field(o, field);
    if (v == nullptr || v->is_null()) return "";
    if (!v->is_string()) return Fail<std::string>();
    return std::string(v->get_string());
  }
  // An int32 field; nullopt when absent or null.
  std::optional<int64_t> Int32(const json::object& o, std::string_view field) {
    const auto* v = Field(o, field);
    if (v == nullptr || v->is_null()) return std::nullopt;
    int64_t n = 0;
    if (v->is_int64()) {
      n = v->get_int64();
    } else if (v->is_uint64()) {
      return Fail<std::optional<int64_t>>();
    } else {
      return Fail<std::optional<int64_t>>();
    }
    if (n < INT32_MIN || n > INT32_MAX) return Fail<std::optional<int64_t>>();
    return n;
  }
  // A Quantity field: its text; nullopt when absent or null (the pointer's nil).
  std::optional<json::value> Quantity(const json::object& o, std::string_view field) {
    const auto* v = Field(o, field);
    if (v == nullptr || v->is_null()) return std::nullopt;
    std::string text;
    if (v->is_string()) {
      text = std::string(v->get_string());
    } else if (v->is_number()) {
      text = json::serialize(*v);
    } else {
      return Fail<std::optional<json::value>>();
    }
    const auto first = text.find_first_not_of(" \t\r\n");
    const auto last = text.find_last_not_of(" \t\r\n");
    text = first == std::string::npos ? "" : text.substr(first, last - first + 1);
    if (!ValidQuantity(text)) return Fail<std::optional<json::value>>();
    return json::value(json::string(text));
  }
  // A pointer-to-struct field: the object, nullptr when absent or null.
  const json::object* Struct(const json::object& o, std::string_view field) {
    const auto* v = Field(o, field);
    if (v == nullptr || v->is_null()) return nullptr;
    if (!v->is_object()) return Fail<const json::object*>();
    return &v->get_object();
  }
  // A slice field: its items (empty when absent or null).
  const json::array* Slice(const json::object& o, std::string_view field) {
    const auto* v = Field(o, field);
    if (v == nullptr || v->is_null()) return nullptr;
    if (!v->is_array()) return Fail<const json::array*>();
    return &v->get_array();
  }
  // A *metav1.LabelSelector field, as v2 stores it; nullopt when absent or null.
  std::optional<json::value> Selector(const json::object& o, std::string_view field) {
    const json::object* sel = Struct(o, field);
    if (sel == nullptr) return std::nullopt;
    json::object out;
    if (const auto* labels = Field(*sel, "matchLabels"); labels != nullptr && !labels->is_null()) {
      if (!labels->is_object()) return Fail<std::optional<json::value>>();
      json::object copy;
      for (const auto& kv : labels->get_object()) {
        if (!kv.value().is_string() && !kv.value().is_null()) return Fail<std::optional<json::value>>();
        copy[kv.key()] = kv.value().is_null() ? json::value("") : kv.value();
      }
      if (!copy.empty()) out["matchLabels"] = std::move(copy);
    }
    if (const json::array* exprs = Slice(*sel, "matchExpressions"); exprs != nullptr && !exprs->empty()) {
      json::array list;
      for (const auto& e : *exprs) {
        if (!e.is_object()) return Fail<std::optional<json::value>>();
        json::object item;
        item["key"] = json::string(String(e.get_object(), "key"));
        item["operator"] = json::string(String(e.get_object(), "operator"));
        if (const json::array* values = Slice(e.get_object(), "values"); values != nullptr && !values->empty()) {
          for (const auto& s : *values) {
            if (!s.is_string()) return Fail<std::optional<json::value>>();
          }
          item["values"] = *values;
        }
        list.push_back(std::move(item));
      }
      out["matchExpressions"] = std::move(list);
    }
    return json::value(std::move(out));
  }
  // A metav1.Time field (RFC 3339 text or null).
  json::value Time(const json::object& o, std::string_view field) {
    const auto* v = Field(o, field);
    if (v == nullptr || v->is_null()) return nullptr;
    if (!v->is_string()) return Fail<json::value>();
    return *v;
  }

 private:
  template <class T>
  T Fail() {
    ok = false;
    return T{};
  }
  // Go's resource.ParseQuantity accepts the text (sign, digits with at most one '.', one suffix).
  static bool ValidQuantity(std::string_view s) {
    std::size_t i = 0;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    const std::size_t digits_start = i;
    bool dot = false;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || (s[i] == '.' && !dot))) {
      dot = dot || s[i] == '.';
      ++i;
    }
    if (i == digits_start) return false;
    const std::string_view suffix = s.substr(i);
    static constexpr std::string_view kSuffixes[] = {"",  "n", "u",  "m",  "k",  "M",  "G",  "T",
                                                     "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    if (std::find(std::begin(kSuffixes), std::end(kSuffixes), suffix) != std::end(kSuffixes)) return true;
    if (suffix[0] != 'e' && suffix[0] != 'E') return false;
    std::size_t j = 1;
    if (j < suffix.size() && (suffix[j] == '+' || suffix[j] == '-')) ++j;
    if (j == suffix.size()) return false;
    for (; j < suffix.size(); ++j) {
      if (!std::isdigit(static_cast<unsigned char>(suffix[j]))) return false;
    }
    return true;
  }
};

json::object TargetOf(std::string_view type, std::optional<json::value> value, std::optional<json::value> average,
                      std::optional<int64_t> utilization) {
  json::object t;
  t["type"] = json::string(type);
  if (value) t["value"] = std::move(*value);
  if (average) t["averageValue"] = std::move(*average);
  if (utilization) t["averageUtilization"] = *utilization;
  return t;
}

json::object MetricId(std::string name, std::optional<json::value> selector) {
  json::object id;
  id["name"] = json::string(name);
  if (selector) id["selector"] = std::move(*selector);
  return id;
}

json::object ReferenceFrom(GoReader& r, const json::object* ref) {
  json::object out;
  out["kind"] = json::string(r.String(Obj(ref), "kind"));
  out["name"] = json::string(r.String(Obj(ref), "name"));
  const std::string api_version = r.String(Obj(ref), "apiVersion");
  if (!api_version.empty()) out["apiVersion"] = json::string(api_version);
  return out;
}

// autoscaling/v1 MetricSpec -> internal, as v2 stores it.
json::object MetricSpecFromV1(GoReader& r, const json::object& m) {
  json::object out;
  out["type"] = json::string(r.String(m, "type"));
  if (const json::object* src = r.Struct(m, "object")) {
    const auto average = r.Quantity(*src, "averageValue");
    auto value = r.Quantity(*src, "targetValue");
    json::object o;
    o["describedObject"] = ReferenceFrom(r, r.Struct(*src, "target"));
    o["target"] = TargetOf(average ? "AverageValue" : "Value", value ? std::move(value) : json::value("0"), average,
                           std::nullopt);
    o["metric"] = MetricId(r.String(*src, "metricName"), r.Selector(*src, "selector"));
    out["object"] = std::move(o);
  }
  if (const json::object* src = r.Struct(m, "pods")) {
    auto average = r.Quantity(*src, "targetAverageValue");
    json::object o;
    o["metric"] = MetricId(r.String(*src, "metricName"), r.Selector(*src, "selector"));
    o["target"] = TargetOf("AverageValue", std::nullopt, average ? std::move(average) : json::value("0"), std::nullopt);
    out["pods"] = std::move(o);
  }
  for (std::string_view member : {"resource", "containerResource"}) {
    const json::object* src = r.Struct(m, member);
    if (src == nullptr) continue;
    const auto utilization = r.Int32(*src, "targetAverageUtilization");
    json::object o;
    o["name"] = json::string(r.String(*src, "name"));
    o["target"] = TargetOf(utilization ? "Utilization" : "AverageValue", std::nullopt,
                           r.Quantity(*src, "targetAverageValue"), utilization);
    if (member == "containerResource") o["container"] = json::string(r.String(*src, "container"));
    out[member] = std::move(o);
  }
  if (const json::object* src = r.Struct(m, "external")) {
    auto value = r.Quantity(*src, "targetValue");
    const bool has_value = value.has_value();
    json::object o;
    o["metric"] = MetricId(r.String(*src, "metricName"), r.Selector(*src, "metricSelector"));
    o["target"] = TargetOf(has_value ? "Value" : "AverageValue", std::move(value),
                           r.Quantity(*src, "targetAverageValue"), std::nullopt);
    out["external"] = std::move(o);
  }
  return out;
}

json::object ValueStatus(std::optional<json::value> value, std::optional<json::value> average,
                         std::optional<int64_t> utilization) {
  json::object s;
  if (value) s["value"] = std::move(*value);
  if (average) s["averageValue"] = std::move(*average);
  if (utilization) s["averageUtilization"] = *utilization;
  return s;
}

// autoscaling/v1 MetricStatus -> internal, as v2 stores it.
json::object MetricStatusFromV1(GoReader& r, const json::object& m) {
  json::object out;
  out["type"] = json::string(r.String(m, "type"));
  if (const json::object* src = r.Struct(m, "object")) {
    auto value = r.Quantity(*src, "currentValue");
    json::object o;
    o["metric"] = MetricId(r.String(*src, "metricName"), r.Selector(*src, "selector"));
    o["current"] =
        ValueStatus(value ? std::move(value) : json::value("0"), r.Quantity(*src, "averageValue"), std::nullopt);
    o["describedObject"] = ReferenceFrom(r, r.Struct(*src, "target"));
    out["object"] = std::move(o);
  }
  if (const json::object* src = r.Struct(m, "pods")) {
    auto average = r.Quantity(*src, "currentAverageValue");
    json::object o;
    o["metric"] = MetricId(r.String(*src, "metricName"), r.Selector(*src, "selector"));
    o["current"] = ValueStatus(std::nullopt, average ? std::move(average) : json::value("0"), std::nullopt);
    out["pods"] = std::move(o);
  }
  for (std::string_view member : {"resource", "containerResource"}) {
    const json::object* src = r.Struct(m, member);
    if (src == nullptr) continue;
    const auto utilization = r.Int32(*src, "currentAverageUtilization");
    auto average = r.Quantity(*src, "currentAverageValue");
    json::object o;
    o["name"] = json::string(r.String(*src, "name"));
    o["current"] = ValueStatus(std::nullopt, average ? std::move(average) : json::value("0"), utilization);
    if (member == "containerResource") o["container"] = json::string(r.String(*src, "container"));
    out[member] = std::move(o);
  }
  if (const json::object* src = r.Struct(m, "external")) {
    auto value = r.Quantity(*src, "currentValue");
    json::object o;
    o["metric"] = MetricId(r.String(*src, "metricName"), r.Selector(*src, "metricSelector"));
    o["current"] =
        ValueStatus(value ? std::move(value) : json::value("0"), r.Quantity(*src, "currentAverageValue"), std::nullopt);
    out["external"] = std::move(o);
  }
  return out;
}

// An annotation's JSON list decoded item by item; nullopt when Go's decoder refuses it.
template <class Fn>
std::optional<json::array> DecodeList(std::string_view text, Fn&& item) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) return std::nullopt;
  if (v.is_null()) return json::array();
  if (!v.is_array()) return std::nullopt;
  GoReader r;
  json::array out;
  for (const auto& e : v.get_array()) {
    if (e.is_null()) {
      out.push_back(item(r, kNone));
      continue;
    }
    if (!e.is_object()) return std::nullopt;
    out.push_back(item(r, e.get_object()));
  }
  if (!r.ok) return std::nullopt;
  return out;
}

// The internal HPAScalingRules of the behavior annotation, as v2 stores them.
json::value RulesFromInternal(GoReader& r, const json::object* rules) {
  if (rules == nullptr) return nullptr;
  json::object out;
  if (const auto window = r.Int32(*rules, "StabilizationWindowSeconds")) out["stabilizationWindowSeconds"] = *window;
  if (const auto* select = Field(*rules, "SelectPolicy"); select != nullptr && !select->is_null()) {
    if (!select->is_string()) r.ok = false;
    out["selectPolicy"] = *select;
  }
  if (const json::array* policies = r.Slice(*rules, "Policies")) {
    json::array list;
    for (const auto& p : *policies) {
      const json::object& policy = p.is_object() ? p.get_object() : kNone;
      if (!p.is_object() && !p.is_null()) r.ok = false;
      json::object item;
      item["type"] = json::string(r.String(policy, "Type"));
      item["value"] = r.Int32(policy, "Value").value_or(0);
      item["periodSeconds"] = r.Int32(policy, "PeriodSeconds").value_or(0);
      list.push_back(std::move(item));
    }
    out["policies"] = std::move(list);
  }
  return out;
}

std::optional<json::object> DecodeBehavior(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !(v.is_object() || v.is_null())) return std::nullopt;
  if (v.is_null()) return std::nullopt;  // the zero behavior: no field
  GoReader r;
  const json::object* up = r.Struct(v.get_object(), "ScaleUp");
  const json::object* down = r.Struct(v.get_object(), "ScaleDown");
  json::object out;
  if (up != nullptr) out["scaleUp"] = RulesFromInternal(r, up);
  if (down != nullptr) out["scaleDown"] = RulesFromInternal(r, down);
  if (!r.ok || out.empty()) return std::nullopt;
  return out;
}

}  // namespace

std::string GoJson(const json::value& v) {
  std::string out;
  AppendGo(out, v);
  return out;
}

json::object CrossVersionReference(const json::object& ref) { return Reference(ref); }

json::object BehaviorToInternal(const json::object& behavior) {
  json::object internal;
  internal["ScaleUp"] = RulesToInternal(behavior.if_contains("scaleUp"));
  internal["ScaleDown"] = RulesToInternal(behavior.if_contains("scaleDown"));
  return internal;
}

std::optional<json::array> MetricSpecsFromV1(std::string_view text) { return DecodeList(text, MetricSpecFromV1); }

std::optional<json::array> MetricStatusesFromV1(std::string_view text) { return DecodeList(text, MetricStatusFromV1); }

std::optional<json::array> ConditionsFromV1(std::string_view text) {
  return DecodeList(text, [](GoReader& r, const json::object& c) {
    json::object condition;
    condition["type"] = json::string(r.String(c, "type"));
    condition["status"] = json::string(r.String(c, "status"));
    condition["lastTransitionTime"] = r.Time(c, "lastTransitionTime");
    if (auto reason = r.String(c, "reason"); !reason.empty()) condition["reason"] = json::string(reason);
    if (auto message = r.String(c, "message"); !message.empty()) condition["message"] = json::string(message);
    return condition;
  });
}

std::optional<json::object> BehaviorFromInternal(std::string_view text) { return DecodeBehavior(text); }

}  // namespace kube::apiserver::rest
