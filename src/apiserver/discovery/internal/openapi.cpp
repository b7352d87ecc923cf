#include <cctype>

#include <kube/apiserver/discovery.hpp>

#include "apiserver/discovery/internal/discovery_docs.hpp"
#include "apiserver/discovery/internal/json_out.hpp"

// The OpenAPI v3 documents kubectl reads before `create`/`apply`/`replace`/`edit` with the
// default --validate=strict (apiserver-semantics.md §1.5). kubectl confirms server-side field
// validation when some `patch` operation tagged with the object's GVK lists a `fieldValidation`
// query parameter; that is all these documents must carry.
//
// The patch operations deliberately have no `requestBody`: kubectl's client-side apply then
// finds no strategic-merge-patch content type for the GVK in v3 and builds its patch from its
// compiled-in types (strategic merge for built-ins, JSON merge patch for custom resources),
// instead of trying to build one from schemas these documents do not contain.
namespace kube::apiserver::internal {
namespace {

constexpr std::string_view kDryRunDescription =
    "When present, indicates that modifications should not be persisted. An invalid or "
    "unrecognized dryRun directive will result in an error response and no further processing "
    "of the request. Valid values are: - All: all dry run stages will be processed";
constexpr std::string_view kFieldManagerDescription =
    "fieldManager is a name associated with the actor or entity that is making these changes. "
    "The value must be less than or 128 characters long, and only contain printable characters, "
    "as defined by https://golang.org/pkg/unicode/#IsPrint. This field is required for apply "
    "requests (application/apply-patch) but optional for non-apply patch types (JsonPatch, "
    "MergePatch, StrategicMergePatch).";
constexpr std::string_view kFieldValidationDescription =
    "fieldValidation instructs the server on how to handle objects in the request "
    "(POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: This "
    "will ignore any unknown fields that are silently dropped from the object, and will ignore "
    "all but the last duplicate field that the decoder encounters. This is the default behavior "
    "prior to v1.23. - Warn: This will send a warning via the standard warning response header "
    "for each unknown field that is dropped from the object, and for each duplicate field that "
    "is encountered. The request will still succeed if there are no other errors, and will only "
    "persist the last of any duplicate fields. This is the default in v1.23+ - Strict: This will "
    "fail the request with a BadRequest error if any unknown fields would be dropped from the "
    "object, or if any duplicate fields are present. The error returned from the server will "
    "contain all unknown and duplicate fields encountered.";
constexpr std::string_view kForceDescription =
    "Force is going to \"force\" Apply requests. It means user will re-acquire conflicting "
    "fields owned by other people. Force flag must be unset for non-apply patch requests.";
constexpr std::string_view kPrettyDescription =
    "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent "
    "indicates a browser or command-line HTTP tool (curl and wget).";
constexpr std::string_view kNamespaceDescription =
    "object name and auth scope, such as for teams and projects";

// "Core", "Apps", "Coordination" (".k8s.io" dropped), "ExampleCom" for CRD groups: the prefix
// kube's OpenAPI builder gives operation ids.
std::string OperationGroup(std::string_view group) {
  if (group.empty()) return "Core";
  if (group.ends_with(".k8s.io")) group.remove_suffix(7);
  std::string out;
  bool upper = true;
  for (const char c : group) {
    if (c == '.' || c == '-') {
      upper = true;
      continue;
    }
    out.push_back(upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c);
    upper = false;
  }
  return out;
}

std::string Capitalize(std::string_view s) {
  std::string out(s);
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

void AppendQueryParam(std::string& out, std::string_view name, std::string_view description,
                      std::string_view type) {
  out += "{\"name\":";
  AppendJsonString(out, name);
  out += ",\"in\":\"query\",\"description\":";
  AppendJsonString(out, description);
  out += ",\"schema\":{\"type\":";
  AppendJsonString(out, type);
  out += ",\"uniqueItems\":true}}";
}

// One path item holding a PATCH operation for `kind` (its GVK in `gvk_*`), plus the path-level
// parameters name, namespace (namespaced only) and pretty.
void AppendPatchPath(std::string& out, const std::string& path, const std::string& operation_id,
                     std::string_view tag, std::string_view gvk_group, std::string_view gvk_version,
                     std::string_view gvk_kind, std::string_view described_kind, bool namespaced) {
  AppendKey(out, path);
  out += "{\"patch\":{\"tags\":[";
  AppendJsonString(out, tag);
  out += "],\"description\":";
  AppendJsonString(out, "partially update the specified " + std::string(described_kind));
  out += ",\"operationId\":";
  AppendJsonString(out, operation_id);
  out += ",\"parameters\":[";
  AppendQueryParam(out, "dryRun", kDryRunDescription, "string");
  out.push_back(',');
  AppendQueryParam(out, "fieldManager", kFieldManagerDescription, "string");
  out.push_back(',');
  AppendQueryParam(out, "fieldValidation", kFieldValidationDescription, "string");
  out.push_back(',');
  AppendQueryParam(out, "force", kForceDescription, "boolean");
  out += "],\"responses\":{\"200\":{\"description\":\"OK\"},\"201\":{\"description\":\"Created\"},"
         "\"401\":{\"description\":\"Unauthorized\"}},\"x-kubernetes-action\":\"patch\","
         "\"x-kubernetes-group-version-kind\":{\"group\":";
  AppendJsonString(out, gvk_group);
  out += ",\"version\":";
  AppendJsonString(out, gvk_version);
  out += ",\"kind\":";
  AppendJsonString(out, gvk_kind);
  out += "}},\"parameters\":[{\"name\":\"name\",\"in\":\"path\",\"description\":";
  AppendJsonString(out, "name of the " + std::string(described_kind));
  out += ",\"required\":true,\"schema\":{\"type\":\"string\",\"uniqueItems\":true}}";
  if (namespaced) {
    out += ",{\"name\":\"namespace\",\"in\":\"path\",\"description\":";
    AppendJsonString(out, kNamespaceDescription);
    out += ",\"required\":true,\"schema\":{\"type\":\"string\",\"uniqueItems\":true}}";
  }
  out.push_back(',');
  AppendQueryParam(out, "pretty", kPrettyDescription, "string");
  out += "]}";
}

std::string GvPath(std::string_view group, std::string_view version) {
  return group.empty() ? "api/" + std::string(version)
                       : "apis/" + std::string(group) + "/" + std::string(version);
}

}  // namespace

std::string RenderOpenApiIndex(
    const Snapshot& snapshot,
    const std::function<std::string(const std::string&, const std::string&)>& hash_of) {
  std::string out = "{\"paths\":{";
  bool first = true;
  for (const GroupVersions& g : Groups(snapshot)) {
    for (const std::string& v : g.versions) {
      if (!first) out.push_back(',');
      first = false;
      const std::string key = GvPath(g.group, v);
      AppendKey(out, key);
      out += "{\"serverRelativeURL\":";
      AppendJsonString(out, "/openapi/v3/" + key + "?hash=" + hash_of(g.group, v));
      out.push_back('}');
    }
  }
  out += "}}";
  return out;
}

std::optional<std::string> RenderOpenApiGroupVersion(const Snapshot& snapshot,
                                                     std::string_view group,
                                                     std::string_view version) {
  std::string out = "{\"openapi\":\"3.0.0\",\"info\":{\"title\":\"Kubernetes\",\"version\":";
  AppendJsonString(out, kServerGitVersion);
  out += "},\"paths\":{";
  const std::string prefix = "/" + GvPath(group, version);
  std::string tag = OperationGroup(group) + "_" + std::string(version);  // "core_v1", "apps_v1"
  tag[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(tag[0])));
  const std::string op_prefix = OperationGroup(group) + Capitalize(version);
  bool any = false;
  for (const auto& r : snapshot) {
    if (r->group != group || r->version != version) continue;
    const std::string item = r->namespaced
                                 ? prefix + "/namespaces/{namespace}/" + r->resource + "/{name}"
                                 : prefix + "/" + r->resource + "/{name}";
    const std::string op = "patch" + op_prefix + (r->namespaced ? "Namespaced" : "") + r->kind;
    if (any) out.push_back(',');
    any = true;
    AppendPatchPath(out, item, op, tag, r->group, r->version, r->kind, r->kind, r->namespaced);
    if (r->has_status) {
      out.push_back(',');
      AppendPatchPath(out, item + "/status", op + "Status", tag, r->group, r->version, r->kind,
                      r->kind, r->namespaced);
    }
    if (r->has_scale) {
      out.push_back(',');
      AppendPatchPath(out, item + "/scale", op + "Scale", tag, "autoscaling", "v1", "Scale",
                      "Scale", r->namespaced);
    }
  }
  if (!any) return std::nullopt;
  out += "},\"components\":{\"schemas\":{}}}";
  return out;
}

}  // namespace kube::apiserver::internal
