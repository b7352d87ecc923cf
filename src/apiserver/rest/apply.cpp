// Server-side apply (apiserver-semantics.md §3.4): PATCH application/apply-patch+yaml. The merge
// and the field ownership bookkeeping are in managed_fields.cpp.

#include "apiserver/rest/apply.hpp"

#include <charconv>
#include <cmath>
#include <regex>

#include <boost/json.hpp>
#include <yaml-cpp/yaml.h>

#include <kube/core/json.hpp>
#include <kube/core/status.hpp>
#include <kube/core/time.hpp>

#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/json_util.hpp"
#include "apiserver/rest/managed_fields.hpp"
#include "apiserver/rest/output.hpp"
#include "apiserver/rest/write_util.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

constexpr int kMaxYamlDepth = 1000;

// A plain (unquoted) YAML 1.1 scalar as go-yaml v2 resolves it.
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
  static const std::regex kInt("[-+]?(0|[1-9][0-9_]*)");
  static const std::regex kFloat(R"([-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?)");
  if (std::regex_match(s, kInt)) {
    std::string digits;
    for (char c : s) {
      if (c != '_' && c != '+') digits.push_back(c);
    }
    int64_t v = 0;
    const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec == std::errc() && p == digits.data() + digits.size()) return v;
    return std::strtod(digits.c_str(), nullptr);
  }
  if (std::regex_match(s, kFloat)) {
    std::string digits;
    for (char c : s) {
      if (c != '_') digits.push_back(c);
    }
    const double d = std::strtod(digits.c_str(), nullptr);
    if (std::isfinite(d)) return d;
  }
  return json::string(s);
}

Result<json::value> NodeToJson(const YAML::Node& node, int depth) {
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
        auto v = NodeToJson(item, depth + 1);
        if (!v.ok()) return v;
        out.push_back(std::move(*v));
      }
      return json::value(std::move(out));
    }
    case YAML::NodeType::Map: {
      json::object out;
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) return NewBadRequest("error decoding YAML: map keys must be strings");
        auto v = NodeToJson(kv.second, depth + 1);
        if (!v.ok()) return v;
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

}  // namespace

Result<json::value> ParseYaml(std::string_view text) {
  try {
    const YAML::Node node = YAML::Load(std::string(text));
    return NodeToJson(node, 0);
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
  DropResetFields(*r.info, r.sub, config);
  if (auto admitted = AdmitNamespace(env, r, false, r.path.name); !admitted.ok()) {
    return RespondError(r.w, admitted.error());
  }
  const bool force = opts.force.value_or(false);
  const TypeSchema* schema = r.info->schema.get();
  std::string sub_name;
  if (r.sub == Subresource::kStatus) sub_name = "status";
  auto who_for = [&]() {
    return WriteManager{opts.field_manager, r.info->ApiVersion(), sub_name, FormatTime(env.clock.WallNow())};
  };

  auto result = GuaranteedUpdate(
      env, r, r.sub,
      [&](const json::object& current, Revision current_rv) -> Result<json::object> {
        json::object view = current;
        StoredToView(*r.info, view);
        auto applied = ApplyConfiguration(&view, config, who_for(), force, schema);
        if (!applied.ok()) return std::move(applied).error();
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
