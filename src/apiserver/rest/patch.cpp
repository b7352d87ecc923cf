// PATCH (apiserver-semantics.md §3.3): JSON Patch, JSON Merge Patch and (built-in kinds only)
// strategic merge patch applied to the current object (as served), then run as an update.
// Custom resources answer 415 to strategic merge patch, as kube's CR handler does.

#include <algorithm>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/json_patch.hpp>
#include <kube/core/merge_patch.hpp>
#include <kube/core/status.hpp>
#include <kube/core/strategic_merge.hpp>

#include "apiserver/rest/go_json.hpp"
#include "apiserver/rest/apply.hpp"
#include "apiserver/rest/builtin_schema.hpp"
#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/go_zero.hpp"
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

// `value` with the member order kube's patcher gives a merge-patched document when it prints it:
// json-patch re-encodes the objects a merge patch reached (and everything the patch brought)
// with sorted keys, and keeps the untouched subtrees of the current object as they were.
json::value PatchedOrder(const json::value& value, const json::value* patch) {
  if (value.is_array()) {  // a merge patch replaces arrays whole: every item is the patch's
    json::array out;
    for (const auto& item : value.get_array()) out.push_back(PatchedOrder(item, nullptr));
    return out;
  }
  if (!value.is_object()) return value;
  if (patch != nullptr && !patch->is_object()) patch = nullptr;  // a value the patch replaced: all its own
  const json::object& obj = value.get_object();
  std::vector<std::string_view> keys;
  keys.reserve(obj.size());
  for (const auto& member : obj) keys.push_back(member.key());
  std::sort(keys.begin(), keys.end());
  json::object out;
  out.reserve(obj.size());
  for (auto key : keys) {
    const json::value& child = obj.at(key);
    if (patch == nullptr) {
      out[key] = PatchedOrder(child, nullptr);
    } else if (const auto* from_patch = patch->get_object().if_contains(key)) {
      out[key] = from_patch->is_object() ? PatchedOrder(child, from_patch) : PatchedOrder(child, nullptr);
    } else {
      out[key] = child;  // untouched: the current object's encoding
    }
  }
  return out;
}

// The containers a JSON Patch operates in, as a tree of path segments: json-patch re-encodes
// them (objects with sorted keys) and keeps everything else, the values the operations bring
// included, as it was.
json::object JsonPatchContainers(const json::value& patch) {
  json::object tree;
  if (!patch.is_array()) return tree;
  for (const auto& op : patch.get_array()) {
    if (!op.is_object()) continue;
    for (std::string_view member : {"path", "from"}) {
      const auto* pointer = op.get_object().if_contains(member);
      if (pointer == nullptr || !pointer->is_string()) continue;
      const std::string_view text = pointer->get_string();
      json::object* node = &tree;
      std::size_t start = 1;
      while (start <= text.size()) {
        const std::size_t end = std::min(text.find('/', start), text.size());
        if (end == text.size()) break;  // the last segment names the operand, not a container
        std::string segment(text.substr(start, end - start));
        for (std::size_t i = 0; (i = segment.find('~', i)) != std::string::npos; ++i) {
          if (i + 1 < segment.size()) segment.replace(i, 2, segment[i + 1] == '1' ? "/" : "~");
        }
        json::value& child = (*node)[segment];
        if (!child.is_object()) child = json::object();
        node = &child.get_object();
        start = end + 1;
      }
    }
  }
  return tree;
}

// `value` as json-patch prints a JSON-patched document: the containers in `tree` re-encoded.
json::value JsonPatchedOrder(const json::value& value, const json::object& tree) {
  if (value.is_array()) {
    json::array out = value.get_array();
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (const auto* sub = tree.if_contains(std::to_string(i)); sub != nullptr) {
        out[i] = JsonPatchedOrder(out[i], sub->get_object());
      }
    }
    return out;
  }
  if (!value.is_object()) return value;
  const json::object& obj = value.get_object();
  std::vector<std::string_view> keys;
  for (const auto& member : obj) keys.push_back(member.key());
  std::sort(keys.begin(), keys.end());
  json::object out;
  for (auto key : keys) {
    const auto* sub = tree.if_contains(key);
    out[key] = sub != nullptr ? JsonPatchedOrder(obj.at(key), sub->get_object()) : obj.at(key);
  }
  return out;
}

// The Go type of a value in an unstructured object, as the unstructured converter names it.
std::string_view UnstructuredGoType(const json::value& v) {
  switch (v.kind()) {
    case json::kind::bool_: return "bool";
    case json::kind::int64:
    case json::kind::uint64: return "int64";
    case json::kind::double_: return "float64";
    case json::kind::string: return "string";
    case json::kind::array: return "[]interface {}";
    case json::kind::object: return "map[string]interface {}";
    case json::kind::null: break;
  }
  return "interface {}";
}

// kube's patcher decodes the patched document into the Go type. A value of the wrong JSON type is
// a 422 on the field `patch`: for JSON and merge patches the bad value is the patched document
// and the detail encoding/json's; a strategic merge patch goes through the unstructured
// converter, which prints the patch as Go's %v and words the mismatch itself.
Result<void> CheckPatchedDecodes(const ResourceInfo& info, PatchType type, const json::value& patched,
                                 const json::value& patch) {
  if (!info.builtin || !patched.is_object()) return Ok();
  const TypeSchemaPtr schema = OpenApiSchema(info.group, info.version, info.kind);
  if (schema == nullptr) return Ok();
  if (!FindGoUnmarshalFailure(*schema, patched)) return Ok();
  // Go decodes the document the patch library printed, in its order: the current object in kube's
  // encoding (ObjectMeta order) with the patch's changes.
  json::object ordered = patched.get_object();
  NormalizeMemberOrder(ordered);
  json::value doc(std::move(ordered));
  if (type == PatchType::kMerge) doc = PatchedOrder(doc, &patch);
  if (type == PatchType::kJson) doc = JsonPatchedOrder(doc, JsonPatchContainers(patch));
  const std::string text = json::serialize(doc);
  json::object& typed = doc.get_object();
  if (typed.if_contains("kind") == nullptr) typed["kind"] = info.kind;
  if (typed.if_contains("apiVersion") == nullptr) typed["apiVersion"] = info.ApiVersion();
  auto failure = FindGoUnmarshalFailure(*schema, doc);
  if (!failure) return Ok();
  if (type == PatchType::kStrategicMerge) {
    const std::string detail =
        "cannot convert " + std::string(UnstructuredGoType(failure->value)) + " to " + failure->go_type;
    return NewInvalid({"", ""}, "", {InvalidGo("patch", GoString(GoFmtValue(patch)), detail)});
  }
  return NewInvalid({"", ""}, "", {InvalidGo("patch", GoString(text), failure->message)});
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
        KUBE_RETURN_IF_ERROR(CheckPatchedDecodes(*r.info, *type, *patched, *patch));
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
