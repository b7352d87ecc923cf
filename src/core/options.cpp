#include <kube/core/options.hpp>

#include <algorithm>
#include <charconv>
#include <limits>
#include <utility>

#include <boost/json.hpp>
#include <boost/url.hpp>
#include <fmt/format.h>

#include <kube/core/gvk.hpp>
#include <kube/core/json.hpp>
#include <kube/core/status.hpp>

namespace kube {
namespace {

namespace json = boost::json;
namespace urls = boost::urls;

// ---------------------------------------------------------------------------------------------
// Query strings

// Go's url.QueryEscape.
std::string QueryEscape(std::string_view s) {
  urls::encoding_opts opt;
  opt.space_as_plus = true;
  return urls::encode(s, urls::unreserved_chars, opt);
}

// Collects parameters, then writes them as Go's url.Values.Encode does (sorted by key; the
// values of one key keep their order).
class QueryBuilder {
 public:
  void Add(std::string_view key, std::string_view value) {
    params_.emplace_back(std::string(key), std::string(value));
  }
  void AddIfNotEmpty(std::string_view key, std::string_view value) {
    if (!value.empty()) Add(key, value);
  }
  void AddInt(std::string_view key, std::int64_t value) { Add(key, std::to_string(value)); }
  void AddBool(std::string_view key, bool value) { Add(key, value ? "true" : "false"); }
  void AddAll(std::string_view key, const std::vector<std::string>& values) {
    for (const auto& v : values) Add(key, v);
  }

  std::string Encode() {
    std::stable_sort(params_.begin(), params_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string out;
    for (const auto& [k, v] : params_) {
      if (!out.empty()) out += '&';
      out += QueryEscape(k);
      out += '=';
      out += QueryEscape(v);
    }
    return out;
  }

 private:
  std::vector<std::pair<std::string, std::string>> params_;
};

// A decoded query string, in order of appearance.
class QueryParams {
 public:
  static Result<QueryParams> Parse(std::string_view query) {
    if (!query.empty() && query.front() == '?') query.remove_prefix(1);
    QueryParams out;
    while (!query.empty()) {
      const auto amp = query.find('&');
      const auto piece = query.substr(0, amp);
      query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
      if (piece.empty()) continue;
      const auto eq = piece.find('=');
      const auto raw_key = piece.substr(0, eq);
      const auto raw_value = eq == std::string_view::npos ? std::string_view() : piece.substr(eq + 1);
      auto key = Unescape(raw_key);
      if (!key) {
        return BadRequest(fmt::format("invalid URL escape in query parameter name \"{}\"", raw_key));
      }
      auto value = Unescape(raw_value);
      if (!value) {
        return BadRequest(fmt::format("invalid URL escape in the value of query parameter \"{}\"",
                                      *key));
      }
      out.params_.emplace_back(std::move(*key), std::move(*value));
    }
    return out;
  }

  /// The first value of `key`, or nullptr when absent.
  const std::string* First(std::string_view key) const {
    for (const auto& [k, v] : params_) {
      if (k == key) return &v;
    }
    return nullptr;
  }

  /// Every value of `key`, in order.
  std::vector<std::string> All(std::string_view key) const {
    std::vector<std::string> out;
    for (const auto& [k, v] : params_) {
      if (k == key) out.push_back(v);
    }
    return out;
  }

  /// `key` as a string; absent = "".
  std::string String(std::string_view key) const {
    const auto* v = First(key);
    return v == nullptr ? std::string() : *v;
  }

  /// `key` as kube decodes a bool: absent = nullopt; "0"/"false" (any case) = false; else true.
  std::optional<bool> Bool(std::string_view key) const {
    const auto* v = First(key);
    if (v == nullptr) return std::nullopt;
    std::string lower = *v;
    for (auto& c : lower) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return !(lower == "0" || lower == "false");
  }

  /// `key` as Go's strconv.ParseInt(v, 10, 64); absent = nullopt.
  Result<std::optional<std::int64_t>> Int(std::string_view key) const {
    const auto* v = First(key);
    if (v == nullptr) return std::optional<std::int64_t>();
    std::string_view digits = *v;
    if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
    std::int64_t n = 0;
    const auto* end = digits.data() + digits.size();
    const auto [ptr, ec] = std::from_chars(digits.data(), end, n, 10);
    // from_chars would accept a second sign after a stripped '+'; reject "+-1" explicitly.
    const bool bad_sign = digits.size() != v->size() && !digits.empty() && digits.front() == '-';
    if (digits.empty() || ec == std::errc::invalid_argument || ptr != end || bad_sign) {
      return BadRequest(fmt::format("strconv.ParseInt: parsing {}: invalid syntax", QuoteJson(*v)));
    }
    if (ec == std::errc::result_out_of_range) {
      return BadRequest(fmt::format("strconv.ParseInt: parsing {}: value out of range", QuoteJson(*v)));
    }
    return std::optional<std::int64_t>(n);
  }

 private:
  // Go's url.QueryUnescape: '+' is a space; a '%' must be followed by two hex digits.
  static std::optional<std::string> Unescape(std::string_view s) {
    auto pct = urls::make_pct_string_view(s);
    if (!pct) return std::nullopt;
    urls::encoding_opts opt;
    opt.space_as_plus = true;
    urls::decode_view decoded(*pct, opt);
    return std::string(decoded.begin(), decoded.end());
  }

  std::vector<std::pair<std::string, std::string>> params_;
};

// ---------------------------------------------------------------------------------------------
// DeleteOptions helpers

const GroupKind& DeleteOptionsKind() {
  static const GroupKind kKind{"meta.k8s.io", "DeleteOptions"};
  return kKind;
}

std::string JsonQuote(std::string_view s) {
  return json::serialize(json::value(json::string_view(s.data(), s.size())));
}

// The 422 kube answers for a propagationPolicy it does not know.
Error UnsupportedPropagationPolicy(std::string_view value) {
  return NewInvalid(DeleteOptionsKind(), "",
                    {FieldError::NotSupported("propagationPolicy", JsonQuote(value),
                                              {"Foreground", "Background", "Orphan", "nil"})});
}

std::string_view JsonKindName(json::kind k) {
  switch (k) {
    case json::kind::null: return "null";
    case json::kind::bool_: return "boolean";
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_: return "number";
    case json::kind::string: return "string";
    case json::kind::array: return "array";
    case json::kind::object: return "object";
  }
  return "value";
}

Error WrongType(std::string_view path, std::string_view want, const json::value& got) {
  return BadRequest(fmt::format("DeleteOptions.{}: expected {}, got {}", path, want,
                                JsonKindName(got.kind())));
}

std::string_view Sv(const json::string& s) { return {s.data(), s.size()}; }
json::string_view Js(std::string_view s) { return {s.data(), s.size()}; }

Result<std::optional<std::string>> OptionalString(const json::object& o, std::string_view key,
                                                  std::string_view path) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::optional<std::string>();
  if (!v->is_string()) return WrongType(path, "a string", *v);
  return std::optional<std::string>(std::string(Sv(v->get_string())));
}

std::string_view TrimSpace(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n";
  const auto b = s.find_first_not_of(kSpace);
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(kSpace);
  return s.substr(b, e - b + 1);
}

// The shared body of CreateOptions / UpdateOptions.
template <class T>
std::string WriteOptionsQuery(const T& o) {
  QueryBuilder q;
  q.AddAll("dryRun", o.dry_run);
  q.AddIfNotEmpty("fieldManager", o.field_manager);
  q.AddIfNotEmpty("fieldValidation", o.field_validation);
  return q.Encode();
}

template <class T>
Result<T> ReadOptionsQuery(std::string_view query) {
  auto params = QueryParams::Parse(query);
  if (!params.ok()) return std::move(params).error();
  T o;
  o.dry_run = params->All("dryRun");
  o.field_manager = params->String("fieldManager");
  o.field_validation = params->String("fieldValidation");
  return o;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// ListOptions / GetOptions

std::string ListOptions::ToQuery() const {
  QueryBuilder q;
  q.AddIfNotEmpty("labelSelector", label_selector);
  q.AddIfNotEmpty("fieldSelector", field_selector);
  q.AddIfNotEmpty("resourceVersion", resource_version);
  q.AddIfNotEmpty("resourceVersionMatch", resource_version_match);
  if (limit != 0) q.AddInt("limit", limit);
  q.AddIfNotEmpty("continue", continue_token);
  if (timeout_seconds) q.AddInt("timeoutSeconds", *timeout_seconds);
  if (watch) q.AddBool("watch", true);
  if (allow_watch_bookmarks) q.AddBool("allowWatchBookmarks", true);
  if (send_initial_events) q.AddBool("sendInitialEvents", *send_initial_events);
  return q.Encode();
}

Result<ListOptions> ListOptions::FromQuery(std::string_view query) {
  auto params = QueryParams::Parse(query);
  if (!params.ok()) return std::move(params).error();
  const auto& p = *params;
  ListOptions o;
  o.label_selector = p.String("labelSelector");
  o.field_selector = p.String("fieldSelector");
  o.resource_version = p.String("resourceVersion");
  o.resource_version_match = p.String("resourceVersionMatch");
  auto limit = p.Int("limit");
  if (!limit.ok()) return std::move(limit).error();
  o.limit = limit->value_or(0);
  o.continue_token = p.String("continue");
  auto timeout = p.Int("timeoutSeconds");
  if (!timeout.ok()) return std::move(timeout).error();
  o.timeout_seconds = *timeout;
  o.watch = p.Bool("watch").value_or(false);
  o.allow_watch_bookmarks = p.Bool("allowWatchBookmarks").value_or(false);
  o.send_initial_events = p.Bool("sendInitialEvents");
  return o;
}

std::string GetOptions::ToQuery() const {
  QueryBuilder q;
  q.AddIfNotEmpty("resourceVersion", resource_version);
  return q.Encode();
}

Result<GetOptions> GetOptions::FromQuery(std::string_view query) {
  auto params = QueryParams::Parse(query);
  if (!params.ok()) return std::move(params).error();
  return GetOptions{params->String("resourceVersion")};
}

// ---------------------------------------------------------------------------------------------
// PropagationPolicy / DeleteOptions

std::string_view ToString(PropagationPolicy p) {
  switch (p) {
    case PropagationPolicy::kOrphan: return "Orphan";
    case PropagationPolicy::kBackground: return "Background";
    case PropagationPolicy::kForeground: return "Foreground";
  }
  return "";
}

std::optional<PropagationPolicy> ParsePropagationPolicy(std::string_view s) {
  if (s == "Orphan") return PropagationPolicy::kOrphan;
  if (s == "Background") return PropagationPolicy::kBackground;
  if (s == "Foreground") return PropagationPolicy::kForeground;
  return std::nullopt;
}

std::string DeleteOptions::ToQuery() const {
  QueryBuilder q;
  if (grace_period_seconds) q.AddInt("gracePeriodSeconds", *grace_period_seconds);
  if (propagation_policy) q.Add("propagationPolicy", ToString(*propagation_policy));
  q.AddAll("dryRun", dry_run);
  if (orphan_dependents) q.AddBool("orphanDependents", *orphan_dependents);
  return q.Encode();
}

Result<DeleteOptions> DeleteOptions::FromQuery(std::string_view query) {
  auto params = QueryParams::Parse(query);
  if (!params.ok()) return std::move(params).error();
  const auto& p = *params;
  DeleteOptions o;
  auto grace = p.Int("gracePeriodSeconds");
  if (!grace.ok()) return std::move(grace).error();
  o.grace_period_seconds = *grace;
  if (const auto* policy = p.First("propagationPolicy")) {
    o.propagation_policy = ParsePropagationPolicy(*policy);
    if (!o.propagation_policy) return UnsupportedPropagationPolicy(*policy);
  }
  o.dry_run = p.All("dryRun");
  o.orphan_dependents = p.Bool("orphanDependents");
  return o;
}

std::string DeleteOptions::ToJson() const {
  json::object o;
  o["kind"] = "DeleteOptions";
  o["apiVersion"] = "v1";
  if (grace_period_seconds) o["gracePeriodSeconds"] = *grace_period_seconds;
  if (preconditions) {
    json::object pre;
    if (preconditions->uid) pre["uid"] = Js(*preconditions->uid);
    if (preconditions->resource_version) pre["resourceVersion"] = Js(*preconditions->resource_version);
    o["preconditions"] = std::move(pre);
  }
  if (orphan_dependents) o["orphanDependents"] = *orphan_dependents;
  if (propagation_policy) {
    o["propagationPolicy"] = Js(ToString(*propagation_policy));
  }
  if (!dry_run.empty()) {
    json::array a;
    for (const auto& d : dry_run) a.emplace_back(Js(d));
    o["dryRun"] = std::move(a);
  }
  return json::serialize(o);
}

Result<DeleteOptions> DeleteOptions::FromJson(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(json::string_view(text.data(), text.size()), ec);
  if (ec) return BadRequest(fmt::format("DeleteOptions: invalid JSON: {}", ec.message()));
  if (!v.is_object()) {
    return BadRequest(
        fmt::format("DeleteOptions: expected a JSON object, got {}", JsonKindName(v.kind())));
  }
  const auto& obj = v.get_object();
  auto kind = OptionalString(obj, "kind", "kind");
  if (!kind.ok()) return std::move(kind).error();
  if (*kind && !(*kind)->empty() && **kind != "DeleteOptions") {
    return BadRequest(fmt::format("DeleteOptions: expected kind \"DeleteOptions\", got \"{}\"", **kind));
  }

  DeleteOptions o;
  if (const auto* g = obj.if_contains("gracePeriodSeconds"); g != nullptr && !g->is_null()) {
    if (!g->is_int64()) return WrongType("gracePeriodSeconds", "an integer", *g);
    o.grace_period_seconds = g->get_int64();
  }
  if (const auto* pre = obj.if_contains("preconditions"); pre != nullptr && !pre->is_null()) {
    if (!pre->is_object()) return WrongType("preconditions", "an object", *pre);
    auto uid = OptionalString(pre->get_object(), "uid", "preconditions.uid");
    if (!uid.ok()) return std::move(uid).error();
    auto rv = OptionalString(pre->get_object(), "resourceVersion", "preconditions.resourceVersion");
    if (!rv.ok()) return std::move(rv).error();
    o.preconditions = Preconditions{std::move(*uid), std::move(*rv)};
  }
  if (const auto* od = obj.if_contains("orphanDependents"); od != nullptr && !od->is_null()) {
    if (!od->is_bool()) return WrongType("orphanDependents", "a boolean", *od);
    o.orphan_dependents = od->get_bool();
  }
  auto policy = OptionalString(obj, "propagationPolicy", "propagationPolicy");
  if (!policy.ok()) return std::move(policy).error();
  if (*policy) {
    o.propagation_policy = ParsePropagationPolicy(**policy);
    if (!o.propagation_policy) return UnsupportedPropagationPolicy(**policy);
  }
  if (const auto* dr = obj.if_contains("dryRun"); dr != nullptr && !dr->is_null()) {
    if (!dr->is_array()) return WrongType("dryRun", "an array of strings", *dr);
    for (const auto& e : dr->get_array()) {
      if (!e.is_string()) return WrongType("dryRun[]", "a string", e);
      o.dry_run.emplace_back(Sv(e.get_string()));
    }
  }
  return o;
}

Result<DeleteOptions> DeleteOptions::FromRequest(std::string_view query, std::string_view body) {
  auto decoded = TrimSpace(body).empty() ? FromQuery(query) : FromJson(body);
  if (!decoded.ok()) return decoded;
  KUBE_RETURN_IF_ERROR(decoded->Validate());
  return decoded;
}

Result<void> DeleteOptions::Validate() const {
  std::vector<FieldError> errs;
  if (orphan_dependents && propagation_policy) {
    errs.push_back(FieldError::Invalid("propagationPolicy", JsonQuote(ToString(*propagation_policy)),
                                       "orphanDependents and deletionPropagation cannot be both set"));
  }
  const bool all_dry_run_valid = std::all_of(dry_run.begin(), dry_run.end(),
                                             [](const std::string& d) { return d == kDryRunAll; });
  if (!all_dry_run_valid) {
    json::array a;
    for (const auto& d : dry_run) a.emplace_back(Js(d));
    errs.push_back(FieldError::NotSupported("dryRun", json::serialize(a), {std::string(kDryRunAll)}));
  }
  if (!errs.empty()) return NewInvalid(DeleteOptionsKind(), "", errs);
  return Ok();
}

// ---------------------------------------------------------------------------------------------
// CreateOptions / UpdateOptions / PatchOptions

std::string CreateOptions::ToQuery() const { return WriteOptionsQuery(*this); }
Result<CreateOptions> CreateOptions::FromQuery(std::string_view query) {
  return ReadOptionsQuery<CreateOptions>(query);
}

std::string UpdateOptions::ToQuery() const { return WriteOptionsQuery(*this); }
Result<UpdateOptions> UpdateOptions::FromQuery(std::string_view query) {
  return ReadOptionsQuery<UpdateOptions>(query);
}

std::string PatchOptions::ToQuery() const {
  QueryBuilder q;
  q.AddAll("dryRun", dry_run);
  q.AddIfNotEmpty("fieldManager", field_manager);
  q.AddIfNotEmpty("fieldValidation", field_validation);
  if (force) q.AddBool("force", *force);
  return q.Encode();
}

Result<PatchOptions> PatchOptions::FromQuery(std::string_view query) {
  auto params = QueryParams::Parse(query);
  if (!params.ok()) return std::move(params).error();
  PatchOptions o;
  o.dry_run = params->All("dryRun");
  o.field_manager = params->String("fieldManager");
  o.field_validation = params->String("fieldValidation");
  o.force = params->Bool("force");
  return o;
}

// ---------------------------------------------------------------------------------------------
// PatchType

std::string_view ContentType(PatchType t) {
  switch (t) {
    case PatchType::kJson: return "application/json-patch+json";
    case PatchType::kMerge: return "application/merge-patch+json";
    case PatchType::kStrategicMerge: return "application/strategic-merge-patch+json";
    case PatchType::kApply: return "application/apply-patch+yaml";
  }
  return "";
}

std::optional<PatchType> PatchTypeFromContentType(std::string_view content_type) {
  std::string media(TrimSpace(content_type.substr(0, content_type.find(';'))));
  for (auto& c : media) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  for (auto t : {PatchType::kJson, PatchType::kMerge, PatchType::kStrategicMerge,
                 PatchType::kApply}) {
    if (media == ContentType(t)) return t;
  }
  return std::nullopt;
}

}  // namespace kube
