// PATCH (apiserver-semantics.md §3.3): JSON Patch, JSON Merge Patch and (built-in kinds only)
// strategic merge patch applied to the current object (as served), then run as an update.
// Custom resources answer 415 to strategic merge patch, as kube's CR handler does.

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/json_patch.hpp>
#include <kube/core/merge_patch.hpp>
#include <kube/core/status.hpp>
#include <kube/core/strategic_merge.hpp>

#include "apiserver/rest/go_json.hpp"
#include "apiserver/rest/apply.hpp"
#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/json_util.hpp"
#include "apiserver/rest/ops.hpp"
#include "apiserver/rest/output.hpp"
#include "apiserver/rest/scale.hpp"
#include "apiserver/rest/schema_validation.hpp"
#include "apiserver/rest/strategy.hpp"
#include "apiserver/rest/write_util.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

// The patch types served now, in kube's order (the 415 message lists them).
// Custom resources: no strategic merge patch.
const std::vector<std::string>& AcceptedPatchTypes() {
  static const std::vector<std::string> k = {std::string(ContentType(PatchType::kJson)),
                                             std::string(ContentType(PatchType::kMerge)),
                                             std::string(ContentType(PatchType::kApply))};
  return k;
}

// Applies the decoded patch to `target`; `schema` (nullable) carries the merge keys and strategies
// strategic merge patch needs. JSON Patch failures are kube's generic 422 ("the server rejected
// our request...").
Result<json::value> ApplyPatch(PatchType type, const json::value& target, const json::value& patch,
                               const TypeSchema* schema) {
  if (type == PatchType::kMerge) return ApplyMergePatch(target, patch);
  if (type == PatchType::kStrategicMerge) return ApplyStrategicMergePatch(target, patch, schema);
  auto patched = ApplyJsonPatch(target, patch, {.replace_missing_member_adds = true});
  if (!patched.ok() && patched.error().code == 422) {
    // kube-apiserver keeps none of the patch library's words: a bare Invalid with empty details.
    Error e = MakeError(422, reason::kInvalid, "the server rejected our request due to an error in our request");
    e.details = StatusDetails{};
    return e;
  }
  return patched;
}

// Custom resources do not take strategic merge patch (built-in kinds, the CRD objects among
// them, do).
bool IsCustomResource(const ResourceInfo& info) { return !info.builtin; }

}  // namespace

void HandlePatch(const Env& env, Request& r) {
  auto opts = PatchOptions::FromQuery(r.http.query);
  if (!opts.ok()) return RespondError(r.w, opts.error());
  auto type = PatchTypeFromContentType(r.http.Header("content-type").value_or(""));
  if (!type) {
    if (IsCustomResource(*r.info)) return RespondError(r.w, NewUnsupportedMediaType(AcceptedPatchTypes()));
    // A built-in's PATCH route consumes only the patch types: go-restful's bare 415.
    Error e = MakeError(415, reason::kUnsupportedMediaType, "415: Unsupported Media Type");
    e.details = StatusDetails{};
    return RespondError(r.w, e);
  }
  if (*type == PatchType::kApply) return HandleApply(env, r, *opts);  // apply.cpp
  // Custom resources have no patch metadata: kube's CR handler does not accept strategic merge
  // patch at all, and lists exactly json-patch, merge-patch and apply-patch.
  if (*type == PatchType::kStrategicMerge && IsCustomResource(*r.info)) {
    return RespondError(r.w, NewUnsupportedMediaType(AcceptedPatchTypes()));
  }
  auto dry_run = ValidateWriteOptions(opts->dry_run, opts->field_validation, "PatchOptions");
  if (!dry_run.ok()) return RespondError(r.w, dry_run.error());
  if (opts->force.has_value()) {
    return RespondError(r.w, NewInvalid({"meta.k8s.io", "PatchOptions"}, "",
                                        {FieldError::Forbidden("force", "may not be specified for non-apply patch")}));
  }
  auto format = Negotiate(r, /*is_list=*/false);
  if (!format.ok()) return RespondError(r.w, format.error());
  auto patch = ParseJson(r.http.body);
  if (!patch.ok()) {
    // Go's scanner words it; a strategic merge patch's decode error comes without the prefix.
    std::string go = GoJsonSyntaxError(r.http.body);
    if (go.empty()) go = patch.error().message;
    return RespondError(r.w, NewBadRequest(*type == PatchType::kStrategicMerge ? go : "error decoding patch: " + go));
  }
  if ((*type == PatchType::kStrategicMerge || *type == PatchType::kMerge) && !patch->is_object()) {
    const std::string message =
        "json: cannot unmarshal " + std::string(JsonTypeName(*patch)) + " into Go value of type map[string]interface {}";
    return RespondError(r.w, NewBadRequest(*type == PatchType::kMerge ? "error decoding patch: " + message : message));
  }
  if (*type == PatchType::kJson && !patch->is_array()) {
    return RespondError(r.w, NewBadRequest("error decoding patch: json: cannot unmarshal " +
                                           std::string(JsonTypeName(*patch)) +
                                           " into Go value of type []handlers.jsonPatchOp"));
  }
  if (auto admitted = AdmitNamespace(env, r, false, r.path.name); !admitted.ok()) {
    return RespondError(r.w, admitted.error());
  }

  if (r.sub == Subresource::kScale) {
    auto result = UpdateScale(
        env, r,
        [&](const json::object& current) -> Result<json::object> {
          auto patched = ApplyPatch(*type, current, *patch, nullptr);
          if (!patched.ok()) return std::move(patched).error();
          if (!patched->is_object()) return NewBadRequest("the patched Scale is not a JSON object");
          return std::move(patched->get_object());
        },
        *dry_run);
    if (!result.ok()) return RespondError(r.w, result.error());
    return r.w.Respond(200, "application/json", json::serialize(*result));
  }

  std::vector<std::string> warnings;
  auto result = GuaranteedUpdate(
      env, r, r.sub,
      [&](const json::object& current, Revision current_rv) -> Result<json::object> {
        warnings.clear();
        json::object view = current;
        StoredToView(*r.info, view);
        auto patched = ApplyPatch(*type, view, *patch, r.info->schema.get());
        if (!patched.ok()) return std::move(patched).error();
        auto obj = DecodeObject(r, std::move(*patched), r.info->ApiVersion(), r.info->kind);
        if (!obj.ok()) return obj;
        KUBE_RETURN_IF_ERROR(CheckUnknownFieldsOfPatch(*r.info, *obj, opts->field_validation, &warnings));
        KUBE_RETURN_IF_ERROR(CheckNameAndNamespace(r, *obj));
        KUBE_RETURN_IF_ERROR(CheckUpdateResourceVersion(r, *obj, current_rv));
        return obj;
      },
      [&]() -> Result<json::object> { return NewNotFound(r.Gr(), r.path.name); }, *dry_run);
  if (!result.ok()) return RespondError(r.w, result.error());
  RespondObject(env, r, *format, 200, ServedJson(*r.info, result->stored), WarningHeaders(warnings));
}

}  // namespace kube::apiserver::rest
