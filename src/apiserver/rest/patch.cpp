// PATCH (apiserver-semantics.md §3.3): JSON Patch and JSON Merge Patch applied to the current
// object (as served), then run as an update. Strategic merge is served only for the patches where
// it coincides with JSON Merge Patch (no lists, no `$` directives: maps merge, null deletes,
// scalars replace); any other strategic merge patch and apply are not served yet (415).

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/json_patch.hpp>
#include <kube/core/merge_patch.hpp>
#include <kube/core/status.hpp>

#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/json_util.hpp"
#include "apiserver/rest/ops.hpp"
#include "apiserver/rest/output.hpp"
#include "apiserver/rest/scale.hpp"
#include "apiserver/rest/write_util.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

// The patch types served now, in kube's order (the 415 message lists them).
const std::vector<std::string>& AcceptedPatchTypes() {
  static const std::vector<std::string> k = {std::string(ContentType(PatchType::kJson)),
                                             std::string(ContentType(PatchType::kMerge))};
  return k;
}

// Applies the decoded patch to `target`. JSON Patch failures are kube's generic 422 ("the server
// rejected our request...") with the patch error as its cause.
Result<json::value> ApplyPatch(PatchType type, const json::value& target, const json::value& patch) {
  if (type == PatchType::kMerge) return ApplyMergePatch(target, patch);
  auto patched = ApplyJsonPatch(target, patch);
  if (!patched.ok() && patched.error().code == 422) {
    return ErrorFromResponse(422, patched.error().message, {});
  }
  return patched;
}

// True when a strategic merge patch means exactly what the same document means as a JSON Merge
// Patch: it holds no arrays (whose merge depends on the field's patchStrategy/patchMergeKey) and
// no `$`-prefixed directive keys ($patch, $retainKeys, $setElementOrder/..., $deleteFromPrimitiveList/...).
bool StrategicMergeIsMergePatch(const json::value& patch) {
  if (patch.is_array()) return false;
  if (!patch.is_object()) return true;
  for (const auto& [key, value] : patch.get_object()) {
    if (!key.empty() && key.front() == '$') return false;
    if (!StrategicMergeIsMergePatch(value)) return false;
  }
  return true;
}

}  // namespace

void HandlePatch(const Env& env, Request& r) {
  auto opts = PatchOptions::FromQuery(r.http.query);
  if (!opts.ok()) return RespondError(r.w, opts.error());
  auto type = PatchTypeFromContentType(r.http.Header("content-type").value_or(""));
  if (!type || *type == PatchType::kApply) {
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
  if (!patch.ok()) return RespondError(r.w, NewBadRequest("error decoding patch: " + patch.error().message));
  if (*type == PatchType::kStrategicMerge) {
    if (!patch->is_object()) {
      return RespondError(r.w, NewBadRequest("json: cannot unmarshal " + std::string(JsonTypeName(*patch)) +
                                             " into Go value of type map[string]interface {}"));
    }
    // Lists and directives need the schema's merge keys, which come with API server II.
    if (!StrategicMergeIsMergePatch(*patch)) {
      return RespondError(r.w, NewUnsupportedMediaType(AcceptedPatchTypes()));
    }
    type = PatchType::kMerge;
  }
  if (*type == PatchType::kJson && !patch->is_array()) {
    return RespondError(r.w, NewBadRequest("json: cannot unmarshal " + std::string(JsonTypeName(*patch)) +
                                           " into Go value of type jsonpatch.Patch"));
  }
  if (auto admitted = AdmitNamespace(env, r, false, r.path.name); !admitted.ok()) {
    return RespondError(r.w, admitted.error());
  }

  if (r.sub == Subresource::kScale) {
    auto result = UpdateScale(
        env, r,
        [&](const json::object& current) -> Result<json::object> {
          auto patched = ApplyPatch(*type, current, *patch);
          if (!patched.ok()) return std::move(patched).error();
          if (!patched->is_object()) return NewBadRequest("the patched Scale is not a JSON object");
          return std::move(patched->get_object());
        },
        *dry_run);
    if (!result.ok()) return RespondError(r.w, result.error());
    return r.w.Respond(200, "application/json", json::serialize(*result));
  }

  auto result = GuaranteedUpdate(
      env, r, r.sub,
      [&](const json::object& current, Revision current_rv) -> Result<json::object> {
        json::object view = current;
        StoredToView(*r.info, view);
        auto patched = ApplyPatch(*type, view, *patch);
        if (!patched.ok()) return std::move(patched).error();
        auto obj = DecodeObject(r, std::move(*patched), r.info->ApiVersion(), r.info->kind);
        if (!obj.ok()) return obj;
        KUBE_RETURN_IF_ERROR(CheckNameAndNamespace(r, *obj));
        KUBE_RETURN_IF_ERROR(CheckUpdateResourceVersion(r, *obj, current_rv));
        return obj;
      },
      [&]() -> Result<json::object> { return NewNotFound(r.Gr(), r.path.name); }, *dry_run);
  if (!result.ok()) return RespondError(r.w, result.error());
  RespondObject(env, r, *format, 200, ServedJson(*r.info, result->stored));
}

}  // namespace kube::apiserver::rest
