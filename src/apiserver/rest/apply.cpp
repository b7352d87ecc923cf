// Server-side apply (apiserver-semantics.md §3.4): PATCH application/apply-patch+yaml. The merge
// and the field ownership bookkeeping are in managed_fields.cpp.

#include "apiserver/rest/apply.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>
#include <yaml-cpp/yaml.h>

#include <kube/apiserver/yaml.hpp>
#include <kube/core/json.hpp>
#include <kube/core/status.hpp>
#include <kube/core/time.hpp>

#include "apiserver/rest/builtin_schema.hpp"
#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/go_json.hpp"
#include "apiserver/rest/json_util.hpp"
#include "apiserver/rest/managed_fields.hpp"
#include "apiserver/rest/output.hpp"
#include "apiserver/rest/schema_validation.hpp"
#include "apiserver/rest/write_util.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

constexpr int kMaxYamlDepth = 1000;

// A plain (unquoted) YAML 1.1 scalar as go-yaml v2 resolves it.
// YAML 1.1 plain-scalar integers: [-+]?(0|[1-9][0-9_]*).
bool IsYamlInt(std::string_view s) {
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (i == s.size()) return false;
  if (s[i] == '0') return i + 1 == s.size();
  if (s[i] < '1' || s[i] > '9') return false;
  for (++i; i < s.size(); ++i) {
    if (!(std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '_')) return false;
  }
  return true;
}

// YAML 1.1 plain-scalar floats: [-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?
bool IsYamlFloat(std::string_view s) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (i < s.size() && s[i] == '.') {
    const std::size_t start = ++i;
    while (i < s.size() && digit(s[i])) ++i;
    if (i == start) return false;
  } else {
    if (i == s.size() || !digit(s[i])) return false;
    while (i < s.size() && (digit(s[i]) || s[i] == '_')) ++i;
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && (digit(s[i]) || s[i] == '_')) ++i;
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    const std::size_t start = i;
    while (i < s.size() && digit(s[i])) ++i;
    if (i == start) return false;
  }
  return i == s.size();
}

json::value ResolvePlainScalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  static const char* const kTrue[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"};
  static const char* const kFalse[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"};
  for (const char* t : kTrue) {
    if (s == t) return true;
  }
  for (const char* f : kFalse) {
    if (s == f) return false;
  }
  if (IsYamlInt(s)) {
    std::string digits;
    for (char c : s) {
      if (c != '_' && c != '+') digits.push_back(c);
    }
    int64_t v = 0;
    const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec == std::errc() && p == digits.data() + digits.size()) return v;
    return std::strtod(digits.c_str(), nullptr);
  }
  if (IsYamlFloat(s)) {
    std::string digits;
    for (char c : s) {
      if (c != '_') digits.push_back(c);
    }
    const double d = std::strtod(digits.c_str(), nullptr);
    if (std::isfinite(d)) return d;
  }
  return json::string(s);
}

// `strict` (nullable) collects what go-yaml's strict decoder reports: each repeated key of a map
// as `line N: key "k" already set in map` (the later value wins, as in the lenient decoder).
Result<json::value> NodeToJson(const YAML::Node& node, int depth, std::vector<std::string>* strict) {
  if (depth > kMaxYamlDepth) return NewBadRequest("error decoding YAML: exceeded max depth");
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return json::value(nullptr);
    case YAML::NodeType::Scalar:
      // yaml-cpp tags quoted and explicitly tagged-as-string scalars "!" / "tag:yaml.org,2002:str".
      if (node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str") return json::value(json::string(node.Scalar()));
      return ResolvePlainScalar(node.Scalar());
    case YAML::NodeType::Sequence: {
      json::array out;
      for (const auto& item : node) {
        auto v = NodeToJson(item, depth + 1, strict);
        if (!v.ok()) return v;
        out.push_back(std::move(*v));
      }
      return json::value(std::move(out));
    }
    case YAML::NodeType::Map: {
      json::object out;
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) return NewBadRequest("error decoding YAML: map keys must be strings");
        auto v = NodeToJson(kv.second, depth + 1, strict);
        if (!v.ok()) return v;
        if (strict != nullptr && out.contains(kv.first.Scalar())) {
          strict->push_back("line " + std::to_string(kv.first.Mark().line + 1) + ": key " +
                            GoString(kv.first.Scalar()) + " already set in map");
        }
        out[kv.first.Scalar()] = std::move(*v);
      }
      return json::value(std::move(out));
    }
  }
  return json::value(nullptr);
}

std::string GvkString(std::string_view api_version, std::string_view kind) {
  const auto slash = api_version.find('/');
  const std::string_view group = slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
  const std::string_view version = slash == std::string_view::npos ? api_version : api_version.substr(slash + 1);
  return std::string(group) + "/" + std::string(version) + ", Kind=" + std::string(kind);
}

// The reset fields of the kind's strategy that the applied object keeps (the strategy puts the
// old values back): kube's field manager gives the applier none of them.
void ReleaseResetFields(const ResourceInfo& info, Subresource sub, std::string_view manager,
                        std::string_view subresource, json::object& obj) {
  const std::vector<std::string> reset = ResetFields(info, sub);
  if (reset.empty()) return;
  auto entries = DecodeManagedFields(obj);
  if (!entries.ok()) return;
  for (auto& entry : *entries) {
    if (entry.manager != manager || entry.operation != "Apply" || entry.subresource != subresource) continue;
    FieldSet owned_reset;
    entry.fields.Iterate([&](const FieldPath& p) {
      for (const auto& dotted : reset) {
        std::size_t i = 0;
        bool below = true;
        for (std::size_t start = 0; below;) {
          const auto dot = dotted.find('.', start);
          const std::string_view name = std::string_view(dotted).substr(start, dot == std::string::npos ? dotted.npos : dot - start);
          below = i < p.size() && p[i].kind == PathElement::Kind::kField && p[i].name == name;
          ++i;
          if (dot == std::string::npos) break;
          start = dot + 1;
        }
        if (below) owned_reset.Insert(p);
      }
    });
    entry.fields.Remove(owned_reset);
  }
  EncodeManagedFields(obj, std::move(*entries));
}

// kube's reset fields: what a write through the main resource or /status may not set.
void DropResetFields(const ResourceInfo& info, Subresource sub, json::object& config) {
  if (sub != Subresource::kStatus && !(sub == Subresource::kNone && info.has_status)) return;
  // Rebuilt rather than erased: json::object::erase moves the last member into the hole.
  json::object kept;
  for (auto& kv : config) {
    const std::string_view key(kv.key().data(), kv.key().size());
    const bool keep = sub == Subresource::kStatus
                          ? (key == "apiVersion" || key == "kind" || key == "metadata" || key == "status")
                          : key != "status";
    if (keep) kept[key] = std::move(kv.value());
  }
  config = std::move(kept);
}


// --- the client-side apply bridge (kube's fieldmanager lastAppliedManager / lastAppliedUpdater) ---

constexpr std::string_view kLastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration";
// kube only bridges for kubectl's own server-side apply manager.
constexpr std::string_view kKubectlManager = "kubectl";
// apimachinery's TotalAnnotationSizeLimitB.
constexpr std::size_t kTotalAnnotationSizeLimit = 256 * 1024;

// A float64 as Go's encoding/json writes it: shortest form, 'f' format in [1e-6, 1e21), else
// 'e' format with a two-digit minimum exponent trimmed ("1e-07" -> "1e-7").
void AppendGoFloat(std::string& out, double d) {
  char buf[64];
  const double a = std::fabs(d);
  const auto fmt = (a != 0 && (a < 1e-6 || a >= 1e21)) ? std::chars_format::scientific : std::chars_format::fixed;
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d, fmt);
  std::string text(buf, ec == std::errc() ? end : buf);
  if (fmt == std::chars_format::scientific) {
    const auto e = text.find('e');
    if (e != std::string::npos && e + 3 < text.size() && text[e + 2] == '0') text.erase(e + 2, 1);
  }
  out += text;
}

// `v` as Go's json.Marshal writes a map[string]interface{}: object keys sorted, compact.
void AppendGoJson(std::string& out, const json::value& v) {
  switch (v.kind()) {
    case json::kind::null:
      out += "null";
      return;
    case json::kind::bool_:
      out += v.get_bool() ? "true" : "false";
      return;
    case json::kind::int64:
      out += std::to_string(v.get_int64());
      return;
    case json::kind::uint64:
      out += std::to_string(v.get_uint64());
      return;
    case json::kind::double_:
      AppendGoFloat(out, v.get_double());
      return;
    case json::kind::string:
      AppendGoJsonString(out, std::string_view(v.get_string().data(), v.get_string().size()));
      return;
    case json::kind::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& e : v.get_array()) {
        if (!first) out.push_back(',');
        first = false;
        AppendGoJson(out, e);
      }
      out.push_back(']');
      return;
    }
    case json::kind::object: {
      std::vector<const json::key_value_pair*> members;
      for (const auto& kv : v.get_object()) members.push_back(&kv);
      std::sort(members.begin(), members.end(), [](const auto* a, const auto* b) { return a->key() < b->key(); });
      out.push_back('{');
      bool first = true;
      for (const auto* kv : members) {
        if (!first) out.push_back(',');
        first = false;
        AppendGoJsonString(out, std::string_view(kv->key().data(), kv->key().size()));
        out.push_back(':');
        AppendGoJson(out, kv->value());
      }
      out.push_back('}');
      return;
    }
  }
}

const json::string* LastApplied(const json::object& obj) {
  const auto* annotations = ObjectAt(MetadataOf(obj), "annotations");
  const auto* v = annotations != nullptr ? annotations->if_contains(kLastAppliedAnnotation) : nullptr;
  if (v == nullptr || !v->is_string() || v->get_string().empty()) return nullptr;
  return &v->get_string();
}

}  // namespace

std::string BuildLastApplied(const json::object& config) {
  json::object copy = config;
  if (auto* meta = ObjectAt(copy, "metadata")) {
    // Only the key goes: a map left empty stays (Go's delete on the map, then SetAnnotations).
    if (auto* annotations = ObjectAt(*meta, "annotations")) annotations->erase(kLastAppliedAnnotation);
  }
  std::string out;
  AppendGoJson(out, json::value(std::move(copy)));
  out.push_back('\n');  // json.Encoder's newline, as kubectl's client-side annotation has too
  return out;
}

void SyncLastApplied(json::object& obj, const json::object& config, std::string_view manager) {
  if (manager != kKubectlManager || LastApplied(obj) == nullptr) return;
  auto& annotations = EnsureObject(EnsureObject(obj, "metadata"), "annotations");
  annotations[kLastAppliedAnnotation] = BuildLastApplied(config);
  std::size_t total = 0;
  for (const auto& kv : annotations) {
    total += kv.key().size() + (kv.value().is_string() ? kv.value().get_string().size() : 0);
  }
  if (total > kTotalAnnotationSizeLimit) annotations.erase(kLastAppliedAnnotation);
}

Result<std::set<std::string>> AllowedConflictsFromLastApplied(const json::object& live, const TypeSchema* schema) {
  const json::string* text = LastApplied(live);
  if (text == nullptr) return NewBadRequest("no last applied annotation");
  auto parsed = ParseJson(std::string_view(text->data(), text->size()));
  if (!parsed.ok() || !parsed->is_object()) return NewBadRequest("couldn't parse the last applied annotation");
  auto last_fields = LeafFieldSet(*parsed, schema);
  if (!last_fields.ok()) return std::move(last_fields).error();
  const json::value live_value(live);
  auto cmp = CompareObjects(&*parsed, &live_value, schema);
  if (!cmp.ok()) return std::move(cmp).error();
  // Fields whose last-applied value is not the live one are not the client-side applier's.
  const FieldSet allowed = last_fields->Difference(cmp->modified).Difference(cmp->added).Difference(cmp->removed);
  std::set<std::string> out;
  allowed.Iterate([&](const FieldPath& p) { out.insert(PathString(p)); });
  return out;
}

namespace {

// kube's conflictsDifference: the 409 of `err` without the conflicts in `allowed` (nullopt when
// none remain), message rebuilt as kube prints a Conflicts value.
std::optional<Error> RemainingConflicts(const Error& err, const std::set<std::string>& allowed) {
  if (!err.details) return err;
  std::vector<StatusCause> kept;
  for (const auto& c : err.details->causes) {
    if (c.reason != "FieldManagerConflict" || !allowed.contains(c.field)) kept.push_back(c);
  }
  if (kept.empty()) return std::nullopt;
  if (kept.size() == err.details->causes.size()) return err;
  std::string message;
  if (kept.size() == 1) {
    message = "Apply failed with 1 conflict: " + kept[0].message + ": " + kept[0].field;
  } else {
    message = "Apply failed with " + std::to_string(kept.size()) + " conflicts: ";
    std::string previous;
    for (std::size_t i = 0; i < kept.size(); ++i) {
      // Causes read "conflict with <manager>"; the grouped form says "conflicts with".
      if (i == 0 || kept[i].message != previous) {
        message += (i == 0 ? "" : "\n") + std::string("conflicts") + kept[i].message.substr(std::string_view("conflict").size()) + ":";
        previous = kept[i].message;
      }
      message += "\n- " + kept[i].field;
    }
  }
  return NewApplyConflict(std::move(kept), std::move(message));
}

// ApplyConfiguration with kube's lastAppliedManager: a conflicting apply by kubectl's
// server-side manager on an object last applied client-side is forced when every conflict is a
// field the last-applied annotation still describes (its value unchanged in the live object).
Result<ApplyOutcome> ApplyBridged(const json::object* live, const json::object& config, const WriteManager& who,
                                  bool force, const TypeSchema* schema) {
  auto applied = ApplyConfiguration(live, config, who, force, schema);
  if (applied.ok() || force || live == nullptr || who.manager != kKubectlManager || applied.error().code != 409) {
    return applied;
  }
  auto allowed = AllowedConflictsFromLastApplied(*live, schema);
  if (!allowed.ok()) return applied;
  if (auto remaining = RemainingConflicts(applied.error(), *allowed)) return *remaining;
  return ApplyConfiguration(live, config, who, /*force=*/true, schema);
}
}  // namespace

Result<json::value> ParseYaml(std::string_view text, std::vector<std::string>* strict_errors) {
  try {
    const YAML::Node node = YAML::Load(std::string(text));
    return NodeToJson(node, 0, strict_errors);
  } catch (const YAML::Exception& e) {
    return NewBadRequest(std::string("error decoding YAML: ") + e.what());
  }
}

void HandleApply(const Env& env, Request& r, const PatchOptions& opts) {
  std::vector<FieldError> errs;
  if (opts.field_manager.empty()) errs.push_back(FieldError::Required("fieldManager", "is required for apply patch"));
  for (auto& e : ValidateFieldManager(opts.field_manager)) errs.push_back(std::move(e));
  if (!errs.empty()) return RespondError(r.w, NewInvalid({"meta.k8s.io", "PatchOptions"}, "", errs));
  auto dry_run = ValidateWriteOptions(opts.dry_run, opts.field_validation, "PatchOptions");
  if (!dry_run.ok()) return RespondError(r.w, dry_run.error());
  if (r.sub == Subresource::kScale || r.sub == Subresource::kFinalize) {
    return RespondError(r.w, NewUnsupportedMediaType({std::string(ContentType(PatchType::kJson)),
                                                      std::string(ContentType(PatchType::kMerge))}));
  }
  auto format = Negotiate(r, /*is_list=*/false);
  if (!format.ok()) return RespondError(r.w, format.error());
  auto parsed = ParseYaml(r.http.body);
  if (!parsed.ok()) return RespondError(r.w, parsed.error());
  if (!parsed->is_object()) {
    return RespondError(r.w, NewBadRequest("error decoding YAML: error unmarshaling JSON: while decoding JSON: json: "
                                           "cannot unmarshal " +
                                           std::string(parsed->is_array() ? std::string_view("array") : JsonTypeName(*parsed)) +
                                           " into Go value of type map[string]interface {}"));
  }
  json::object config = std::move(parsed->get_object());
  const auto api_version = StringAt(config, "apiVersion");
  const auto kind = StringAt(config, "kind");
  if (api_version != r.info->ApiVersion() || kind != r.info->kind) {
    return RespondError(r.w, NewBadRequest("invalid object type: " + GvkString(api_version, kind)));
  }
  if (const auto* mf = MetadataOf(config).if_contains("managedFields"); mf != nullptr && !mf->is_null()) {
    return RespondError(r.w, NewBadRequest("metadata.managedFields must be nil"));
  }
  // kube converts the configuration to its typed form first (built-in types; a custom resource's
  // structural schema), which fails (500, no reason: a plain error in kube 1.32) on a member the
  // type does not declare.
  // (A converted view's configuration is in the served form.)
  const TypeSchemaPtr builtin_fields = NeedsViewConversion(*r.info)
                                           ? OpenApiSchema(r.info->group, r.info->version, r.info->kind)
                                           : BuiltinFieldSchema(*r.info);
  if (const TypeSchema* fields = builtin_fields != nullptr ? builtin_fields.get() : r.info->schema.get()) {
    if (auto undeclared = UndeclaredApplyFields(*fields, config, /*keep_root_meta=*/builtin_fields == nullptr);
        !undeclared.empty()) {
      std::string detail;
      if (undeclared.size() == 1) {
        detail = undeclared.front();
      } else {
        detail = "errors:";
        for (const auto& u : undeclared) detail += "\n  " + u;
      }
      const auto& meta = MetadataOf(config);
      return RespondError(r.w, MakeError(500, "", "failed to create typed patch object (" +
                                                      std::string(StringAt(meta, "namespace")) + "/" +
                                                      std::string(StringAt(meta, "name")) + "; " +
                                                      GvkString(api_version, kind) + "): " + detail));
    }
  }
  const json::object original_config = config;  // what kube's lastAppliedUpdater encodes
  DropResetFields(*r.info, r.sub, config);
  if (auto admitted = AdmitNamespace(env, r, false, r.path.name); !admitted.ok()) {
    return RespondError(r.w, admitted.error());
  }
  const bool force = opts.force.value_or(false);
  const TypeSchema* schema = r.info->schema.get();
  std::string sub_name;
  if (r.sub == Subresource::kStatus) sub_name = "status";
  if (r.sub == Subresource::kApproval) sub_name = "approval";
  auto who_for = [&]() {
    return WriteManager{opts.field_manager, r.info->ApiVersion(), sub_name, FormatTime(env.clock.WallNow())};
  };

  auto result = GuaranteedUpdate(
      env, r, r.sub,
      [&](const json::object& current, Revision current_rv) -> Result<json::object> {
        json::object view = current;
        StoredToView(*r.info, view);
        auto applied = ApplyBridged(&view, config, who_for(), force, schema);
        if (!applied.ok()) return std::move(applied).error();
        ReleaseResetFields(*r.info, r.sub, opts.field_manager, sub_name, applied->object);
        SyncLastApplied(applied->object, original_config, opts.field_manager);
        auto obj = DecodeObject(r, json::value(std::move(applied->object)), r.info->ApiVersion(), r.info->kind);
        if (!obj.ok()) return obj;
        KUBE_RETURN_IF_ERROR(CheckNameAndNamespace(r, *obj));
        KUBE_RETURN_IF_ERROR(CheckUpdateResourceVersion(r, *obj, current_rv));
        return obj;
      },
      [&]() -> Result<json::object> {
        if (r.sub != Subresource::kNone) return NewNotFound(r.Gr(), r.path.name);
        KUBE_RETURN_IF_ERROR(AdmitNamespace(env, r, /*creating=*/true, r.path.name));
        auto applied = ApplyConfiguration(nullptr, config, who_for(), force, schema);
        if (!applied.ok()) return std::move(applied).error();
        ReleaseResetFields(*r.info, r.sub, opts.field_manager, sub_name, applied->object);
        SyncLastApplied(applied->object, original_config, opts.field_manager);
        auto& meta = EnsureObject(applied->object, "metadata");
        if (StringAt(meta, "name").empty()) meta["name"] = r.path.name;
        if (r.info->namespaced) {
          if (StringAt(meta, "namespace").empty()) meta["namespace"] = r.Namespace();
        } else {
          meta.erase("namespace");
        }
        auto obj = DecodeObject(r, json::value(std::move(applied->object)), r.info->ApiVersion(), r.info->kind);
        if (!obj.ok()) return obj;
        KUBE_RETURN_IF_ERROR(CheckNameAndNamespace(r, *obj));
        return obj;
      },
      *dry_run, /*track_managed_fields=*/false);
  if (!result.ok()) return RespondError(r.w, result.error());
  RespondObject(env, r, *format, result->created ? 201 : 200, ServedJson(*r.info, result->stored));
}

}  // namespace kube::apiserver::rest

namespace kube::apiserver {
Result<boost::json::value> ParseYaml(std::string_view text) { return rest::ParseYaml(text); }
}  // namespace kube::apiserver
