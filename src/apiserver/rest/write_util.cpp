#include "apiserver/rest/write_util.hpp"

#include <algorithm>
#include <cctype>
#include <random>

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/json_pointer.hpp>
#include <kube/core/object.hpp>
#include <kube/core/protobuf.hpp>
#include <kube/core/status.hpp>
#include <kube/core/time.hpp>

#include "apiserver/rest/apply.hpp"
#include "apiserver/rest/builtin_schema.hpp"
#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/crd.hpp"
#include "apiserver/rest/go_zero.hpp"
#include "apiserver/rest/go_json.hpp"
#include "apiserver/rest/hpa.hpp"
#include "apiserver/rest/json_util.hpp"
#include "apiserver/rest/schema_validation.hpp"
#include "apiserver/rest/url.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

constexpr int kMaxUpdateAttempts = 64;
constexpr int kGenerateNameAttempts = 8;

std::mt19937_64& Rng() {
  thread_local std::mt19937_64 rng{std::random_device{}() ^ (uint64_t{std::random_device{}()} << 32)};
  return rng;
}

// The Go package of a group's internal types, for decode error messages.
std::string InternalPackage(const ResourceInfo& info) {
  if (info.group.empty() || info.group == "events.k8s.io") return "core";
  return info.group.substr(0, info.group.find('.'));
}

std::string DataVersion(std::string_view api_version) {
  const auto slash = api_version.rfind('/');
  return std::string(slash == std::string_view::npos ? api_version : api_version.substr(slash + 1));
}

// True when `a` and `b` are equal except for metadata.resourceVersion.
bool EqualIgnoringResourceVersion(const json::object& a, const json::object& b) {
  if (a.size() != b.size()) return false;
  for (const auto& kv : a) {
    const auto* other = b.if_contains(kv.key());
    if (other == nullptr) return false;
    if (kv.key() != "metadata" || !kv.value().is_object() || !other->is_object()) {
      if (!JsonEqual(kv.value(), *other)) return false;
      continue;
    }
    const auto& ma = kv.value().get_object();
    const auto& mb = other->get_object();
    std::size_t na = 0;
    for (const auto& m : ma) {
      if (m.key() == "resourceVersion") continue;
      ++na;
      const auto* o = mb.if_contains(m.key());
      if (o == nullptr || !JsonEqual(m.value(), *o)) return false;
    }
    const std::size_t nb = mb.size() - (mb.contains("resourceVersion") ? 1 : 0);
    if (na != nb) return false;
  }
  return true;
}

std::vector<std::string> StringList(const json::object& meta, std::string_view key) {
  std::vector<std::string> out;
  const auto* v = meta.if_contains(key);
  if (v == nullptr || !v->is_array()) return out;
  for (const auto& e : v->get_array()) {
    if (e.is_string()) out.emplace_back(e.get_string());
  }
  return out;
}

// BeforeUpdate: system metadata the client cannot change.
void CopySystemMetadata(json::object& obj, const json::object& old) {
  auto& meta = EnsureObject(obj, "metadata");
  const auto& old_meta = MetadataOf(old);
  if (StringAt(meta, "uid").empty()) CopyMember(meta, old_meta, "uid");
  if (old_meta.contains("creationTimestamp")) CopyMember(meta, old_meta, "creationTimestamp");
  CopyMember(meta, old_meta, "deletionTimestamp");
  CopyMember(meta, old_meta, "deletionGracePeriodSeconds");
}

}  // namespace

bool ShouldDeleteDuringUpdate(const ResourceInfo& info, const json::object& obj, const json::object& old) {
  const auto& old_meta = MetadataOf(old);
  if (!old_meta.contains("deletionTimestamp")) return false;
  if (!StringList(MetadataOf(obj), "finalizers").empty()) return false;
  if (const auto* grace = old_meta.if_contains("deletionGracePeriodSeconds");
      grace != nullptr && !(grace->is_int64() && grace->get_int64() == 0)) {
    return false;
  }
  if (KindOf(info) == BuiltinKind::kNamespace) {
    const auto* spec = ObjectAt(obj, "spec");
    const auto* finalizers = spec != nullptr ? spec->if_contains("finalizers") : nullptr;
    if (finalizers != nullptr && finalizers->is_array() && !finalizers->get_array().empty()) return false;
  }
  return true;
}


namespace {

// Only the writes kube's handlers run the field manager for (not DELETE's internal updates).
bool TracksManagedFields(const Request& r) {
  // namespaces/finalize has no field manager in kube.
  if (r.sub == Subresource::kFinalize) return false;
  return r.http.method == "POST" || r.http.method == "PUT" || r.http.method == "PATCH";
}

std::string_view SubresourceName(Subresource sub) {
  switch (sub) {
    case Subresource::kStatus:
      return "status";
    case Subresource::kScale:
      return "scale";
    case Subresource::kFinalize:
      return "finalize";
    case Subresource::kBinding:
      return "binding";
    case Subresource::kEviction:
      return "eviction";
    case Subresource::kToken:
      return "token";
    case Subresource::kApproval:
      return "approval";
    case Subresource::kNone:
      break;
  }
  return "";
}

// The schema the field manager compares with: the resource's, or for the kinds served without
// one (RBAC) their field schema, which knows their atomic structs (roleRef, subjects).
TypeSchemaPtr ManagedFieldsSchema(const ResourceInfo& info) {
  if (info.schema != nullptr) return info.schema;
  return BuiltinFieldSchema(info);
}

// kube's field manager compares each manager's own version of the objects: the managers that
// wrote through another served version of a HorizontalPodAutoscaler lose the fields this write
// changes as that version sees them.
void ReleaseOtherVersions(const ResourceInfo& info, const json::object* live, json::object& obj,
                          std::string_view api_version, const TrackOptions& options) {
  if (live == nullptr || !IsHorizontalPodAutoscaler(info)) return;
  auto entries = DecodeManagedFields(obj);
  if (!entries.ok()) return;
  bool released = false;
  for (auto& entry : *entries) {
    if (entry.api_version == api_version) continue;
    auto before = HpaAsVersion(*live, entry.api_version);
    auto after = HpaAsVersion(obj, entry.api_version);
    if (!before || !after) continue;
    const std::string version = entry.api_version.substr(entry.api_version.find('/') + 1);
    const TypeSchemaPtr schema = OpenApiSchema(info.group, version, info.kind);
    const json::value old_value(std::move(*before));
    const json::value new_value(std::move(*after));
    auto cmp = CompareObjects(&old_value, &new_value, schema.get(), options.implicit);
    if (!cmp.ok()) continue;
    const std::size_t owned = entry.fields.Size();
    entry.fields.Remove(cmp->removed);
    entry.fields.Remove(cmp->modified);
    entry.fields.Remove(cmp->added);
    released = released || entry.fields.Size() != owned;
  }
  if (released) EncodeManagedFields(obj, std::move(*entries));
}

// TrackUpdate on the form the client wrote: events.k8s.io Events are stored in their core/v1
// form, and kube's field manager sees (and names) the events.k8s.io fields.
void TrackWrite(const ResourceInfo& info, const json::object* live, json::object& obj, const WriteManager& who,
                const TrackOptions& options) {
  if (!NeedsViewConversion(info)) {
    TrackUpdate(live, obj, who, ManagedFieldsSchema(info).get(), options);
    ReleaseOtherVersions(info, live, obj, who.api_version, options);
    return;
  }
  json::object view = obj;
  StoredToView(info, view);
  std::optional<json::object> live_view;
  if (live != nullptr) {
    live_view = *live;
    StoredToView(info, *live_view);
  }
  TrackUpdate(live_view ? &*live_view : nullptr, view, who, ManagedFieldsSchema(info).get(), options);
  auto& meta = EnsureObject(obj, "metadata");
  if (const auto* fields = MetadataOf(view).if_contains("managedFields")) {
    meta["managedFields"] = *fields;
  } else {
    meta.erase("managedFields");
  }
  ReleaseOtherVersions(info, live, obj, who.api_version, options);
}

// The zero value of a built-in Go type has its non-pointer structs (spec, status) already.
TrackOptions TrackOptionsFor(const ResourceInfo& info) {
  TrackOptions options;
  if (info.builtin && !IsCrdResource(info) && info.group != "rbac.authorization.k8s.io") {
    options.implicit = {"spec", "status"};
  }
  return options;
}

// kube's CR handler refuses a POST of a custom resource while its CRD is terminating.
Result<void> CheckCrdNotTerminating(const Env& env, const Request& r) {
  const ResourceInfo& info = *r.info;
  if (r.http.method != "POST" || info.builtin) {
    return Ok();
  }
  const ResourcePtr crds = env.registry.Find(kCrdGroup, "v1", kCrdResource);
  if (crds == nullptr) return Ok();
  auto kv = env.storage.Get(crds->StorageKey("", info.resource + "." + info.group));
  if (!kv.ok()) return Ok();  // not a CRD-backed resource (or gone: the route answers for that)
  auto crd = ParseStored(*kv->value);
  if (!crd.ok() || !CrdIsTerminating(*crd)) return Ok();
  return NewCrdTerminatingCreate(r.Gr());
}

}  // namespace

Result<WriteManager> RequestManager(const Env& env, const Request& r, Subresource sub) {
  WriteManager who;
  auto param = QueryParam(r.http.query, "fieldManager");
  if (param.has_value() && !param->empty()) {
    if (auto errs = ValidateFieldManager(*param); !errs.empty()) {
      const char* kind = r.http.method == "POST" ? "CreateOptions"
                         : r.http.method == "PUT" ? "UpdateOptions"
                                                  : "PatchOptions";
      return NewInvalid({"meta.k8s.io", kind}, "", errs);
    }
    who.manager = std::move(*param);
  } else {
    who.manager = ManagerFromUserAgent(r.http.Header("user-agent").value_or(""));
  }
  who.api_version = r.info->ApiVersion();
  who.subresource = std::string(SubresourceName(sub));
  // kube's scale handler rebuilds the parent's entries for /scale writes without their time.
  if (sub != Subresource::kScale) who.time = FormatTime(env.clock.WallNow());
  return who;
}

std::string NewUid() {
  auto& rng = Rng();
  const uint64_t hi = (rng() & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;
  const uint64_t lo = (rng() & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(36);
  auto put = [&](uint64_t v, int nibbles) {
    for (int i = nibbles - 1; i >= 0; --i) s.push_back(kHex[(v >> (i * 4)) & 15]);
  };
  put(hi >> 32, 8);
  s.push_back('-');
  put((hi >> 16) & 0xffff, 4);
  s.push_back('-');
  put(hi & 0xffff, 4);
  s.push_back('-');
  put(lo >> 48, 4);
  s.push_back('-');
  put(lo & 0xffffffffffffULL, 12);
  return s;
}

std::string GenerateName(std::string_view base) {
  constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string name(base.substr(0, 58));
  std::uniform_int_distribution<std::size_t> dist(0, kAlphabet.size() - 1);
  for (int i = 0; i < 5; ++i) name.push_back(kAlphabet[dist(Rng())]);
  return name;
}

namespace {
// Lower-case hex of `bytes`, as Go's hex.EncodeToString.
std::string HexEncode(std::string_view bytes) {
  constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    out.push_back(kHex[static_cast<unsigned char>(c) >> 4]);
    out.push_back(kHex[static_cast<unsigned char>(c) & 15]);
  }
  return out;
}
}  // namespace

Result<json::object> DecodeBody(const Request& r, std::string_view body,
                                std::string_view expected_api_version, std::string_view expected_kind,
                                std::vector<std::string>* decode_problems) {
  std::string media(r.http.Header("content-type").value_or(""));
  media = media.substr(0, media.find(';'));
  while (!media.empty() && (media.back() == ' ' || media.back() == '\t')) media.pop_back();
  while (!media.empty() && (media.front() == ' ' || media.front() == '\t')) media.erase(0, 1);
  for (auto& c : media) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // The built-in kinds the protobuf transcoder knows also accept protobuf; custom resources do not.
  const bool takes_protobuf = protobuf::KnowsKind(expected_api_version, expected_kind);
  if (media == protobuf::kMediaType && takes_protobuf) {
    // kubectl's generator commands and protobuf-configured client-go send built-ins this way.
    // As kube-apiserver: a kind its scheme does not know is a 400; fields its generated
    // unmarshallers do not know are skipped; a body that does not decode is a 400 naming the
    // first 30 bytes in hex (apiserver's summarizeData).
    auto type = protobuf::PeekType(body);
    if (type.ok() && !protobuf::KnowsKind(type->api_version, type->kind)) {
      const std::string_view version = type->api_version.substr(type->api_version.find('/') + 1);
      return NewBadRequest(std::string(type->kind) + " in version \"" + std::string(version) +
                           "\" cannot be handled as a " + std::string(expected_kind) + ": no kind \"" +
                           std::string(type->kind) + "\" is registered for version \"" +
                           std::string(type->api_version) + "\" in scheme \"pkg/runtime/scheme.go:100\"");
    }
    auto text = protobuf::ToJson(body, protobuf::UnknownFields::kDrop);
    if (!text.ok()) {
      if (text.error().code == 415) return std::move(text).error();
      constexpr std::size_t kSummary = 30;
      std::string summary = body.empty() ? "<empty>" : HexEncode(body.substr(0, kSummary));
      if (body.size() > kSummary) summary += " ...";
      return NewBadRequest("the object provided is unrecognized (must be of type " + std::string(expected_kind) +
                           "): " + text.error().message + " (" + summary + ")");
    }
    auto decoded = ParseJson(*text);
    if (!decoded.ok()) return std::move(decoded).error();
    return DecodeObject(r, std::move(*decoded), expected_api_version, expected_kind);
  }
  if (media == "application/yaml") {
    // kubectl --raw and client libraries may send YAML; kube converts it to JSON (YAML 1.1
    // scalars: `y` is true) and decodes that. A body that is not YAML is a 400 with its summary.
    std::vector<std::string> repeated;
    auto parsed = ParseYaml(body, &repeated);
    if (!parsed.ok()) {
      constexpr std::size_t kSummary = 30;
      std::string summary = body.empty() ? "<empty>" : HexEncode(body.substr(0, kSummary));
      if (body.size() > kSummary) summary += " ...";
      std::string message = parsed.error().message;
      if (message.starts_with("error decoding YAML: ")) message.erase(0, 21);
      return NewBadRequest("the object provided is unrecognized (must be of type " + std::string(expected_kind) +
                           "): " + message + " (" + summary + ")");
    }
    if (!repeated.empty() && decode_problems != nullptr) {
      std::string problem = "yaml: unmarshal errors:";
      for (const auto& line : repeated) problem += "\n  " + line;
      decode_problems->push_back(std::move(problem));
    }
    return DecodeObject(r, std::move(*parsed), expected_api_version, expected_kind);
  }
  if (!media.empty() && media != "application/json" && media != "*/*") {
    if (!takes_protobuf) return NewUnsupportedMediaType({"application/json", "application/yaml"});
    return NewUnsupportedMediaType({"application/json", "application/yaml", std::string(protobuf::kMediaType)});
  }
  auto parsed = ParseJson(body);
  if (!parsed.ok() || !parsed->is_object()) {
    // Go's words for it, as kube's decoder reads the type information first.
    std::string detail = GoTypeMetaError(body);
    if (detail.empty()) detail = parsed.ok() ? "expected a JSON object" : parsed.error().message;
    return NewBadRequest("the object provided is unrecognized (must be of type " + std::string(expected_kind) + "): " +
                         detail);
  }
  if (auto repeated = FindGoDuplicates(body, *parsed)) {
    if (decode_problems != nullptr) {
      for (const auto& path : repeated->paths) decode_problems->push_back("duplicate field " + QuoteJson(path));
    }
    *parsed = std::move(repeated->value);
  }
  if (decode_problems != nullptr && IsHpaV1View(*r.info)) {
    // Unknown fields the conversion to the stored form cannot carry to CheckUnknownFields.
    for (const auto& path : HpaV1UnknownFieldsLost(parsed->get_object())) {
      decode_problems->push_back("unknown field " + QuoteJson(path));
    }
  }
  return DecodeObject(r, std::move(*parsed), expected_api_version, expected_kind);
}

Result<json::object> DecodeObject(const Request& r, json::value value,
                                  std::string_view expected_api_version, std::string_view expected_kind) {
  const ResourceInfo& info = *r.info;
  if (!value.is_object()) {
    return NewBadRequest("the object provided is unrecognized (must be of type " +
                         std::string(expected_kind) + "): expected a JSON object, found " +
                         std::string(JsonTypeName(value)));
  }
  json::object obj = std::move(value.get_object());
  const auto kind = StringAt(obj, "kind");
  const auto api_version = StringAt(obj, "apiVersion");
  if (!kind.empty() && kind != expected_kind) {
    const std::string version = api_version.empty() ? info.version : DataVersion(api_version);
    return NewBadRequest(std::string(kind) + " in version " + QuoteJson(version) +
                         " cannot be handled as a " + std::string(expected_kind) + ": converting (" +
                         version + "." + std::string(kind) + ") to (" + InternalPackage(info) + "." +
                         std::string(expected_kind) + "): unknown conversion");
  }
  if (!api_version.empty() && api_version != expected_api_version) {
    // The version named is the data's (`ConfigMap in version "v7"` for foo/v7).
    return NewBadRequest(std::string(expected_kind) + " in version " + QuoteJson(DataVersion(api_version)) +
                         " cannot be handled as a " + std::string(expected_kind) + ": no kind " +
                         QuoteJson(kind.empty() ? expected_kind : kind) + " is registered for version " +
                         QuoteJson(api_version) + " in scheme \"pkg/runtime/scheme.go:100\"");
  }
  // Defaults from the URL, as kube's decoder does for a body without type information.
  obj["kind"] = expected_kind;
  obj["apiVersion"] = expected_api_version;
  // Decoding into the Go type: the first value of a JSON type the type cannot take.
  if (const TypeSchemaPtr schema = info.builtin ? OpenApiSchema(info.group, info.version, info.kind) : nullptr) {
    if (auto error = GoUnmarshalError(*schema, obj)) {
      return NewBadRequest(std::string(expected_kind) + " in version " + QuoteJson(info.version) +
                           " cannot be handled as a " + std::string(expected_kind) + ": " + *error);
    }
  }
  // Metadata types are checked by the Object parser (labels must be a string map, ...).
  if (auto checked = Object::FromJson(obj); !checked.ok()) {
    return NewBadRequest(std::string(expected_kind) + " in version " + QuoteJson(info.version) +
                         " cannot be handled as a " + std::string(expected_kind) + ": " +
                         checked.error().message);
  }
  ViewToStored(info, obj);
  KUBE_RETURN_IF_ERROR(DecodeAndDefault(info, obj));
  return obj;
}

Result<void> AdmitNamespace(const Env& env, const Request& r, bool creating, std::string_view name) {
  if (!r.info->namespaced) return Ok();
  const std::string& ns = r.Namespace();
  const ResourcePtr namespaces = env.registry.Find("", "v1", "namespaces");
  const std::string key =
      namespaces != nullptr ? namespaces->StorageKey("", ns) : "/registry/core/namespaces/" + ns;
  auto kv = env.storage.Get(key);
  if (!kv.ok()) {
    if (IsNotFound(kv.error())) return NewNotFound({"", "namespaces"}, ns);
    return std::move(kv).error();
  }
  if (!creating) return Ok();
  auto obj = ParseStored(*kv->value);
  if (!obj.ok()) return std::move(obj).error();
  const auto* status = ObjectAt(*obj, "status");
  if (status != nullptr && StringAt(*status, "phase") == "Terminating") {
    Error e = NewForbidden(r.Gr(), name,
                           "unable to create new content in namespace " + ns + " because it is being terminated");
    if (e.details) {
      e.details->causes.push_back(
          {"NamespaceTerminating", "namespace " + ns + " is being terminated", "metadata.namespace"});
    }
    return e;
  }
  return Ok();
}

Result<bool> ValidateWriteOptions(const std::vector<std::string>& dry_run,
                                  std::string_view field_validation, std::string_view options_kind) {
  std::vector<FieldError> errs;
  // ValidateDryRun: one error naming the whole list.
  if (std::any_of(dry_run.begin(), dry_run.end(), [](const std::string& v) { return v != kDryRunAll; })) {
    json::array values;
    for (const auto& v : dry_run) values.emplace_back(v);
    errs.push_back(FieldError::NotSupported("dryRun", json::serialize(values), {"All"}));
  }
  if (field_validation != "" && field_validation != "Ignore" && field_validation != "Warn" &&
      field_validation != "Strict") {
    errs.push_back(FieldError::NotSupported("fieldValidation", QuoteJson(field_validation),
                                            {"", "Ignore", "Strict", "Warn"}));
  }
  if (!errs.empty()) return NewInvalid({"meta.k8s.io", std::string(options_kind)}, "", errs);
  return !dry_run.empty();
}

Result<WriteResult> CreateObject(const Env& env, const Request& r, json::object obj, bool dry_run,
                                 bool via_events_v1, bool track_managed_fields) {
  const ResourceInfo& info = *r.info;
  KUBE_RETURN_IF_ERROR(CheckCrdNotTerminating(env, r));
  {
    auto& meta = EnsureObject(obj, "metadata");
    meta.erase("deletionTimestamp");
    meta.erase("deletionGracePeriodSeconds");
  }
  // kube's field manager sees the decoded, defaulted object: before the strategy's
  // PrepareForCreate, the allocators (cluster IPs, node ports) and mutating admission, whose
  // fields nobody manages. A custom resource's structural defaults and pruning are decode steps
  // in kube, and part of PrepareForCreate here: they come first.
  const bool custom = !info.builtin || IsCrdResource(info) || info.group == "rbac.authorization.k8s.io";
  if (custom) {
    PrepareForCreate(info, obj, r.http.user);
  } else {
    PruneBuiltinFields(info, obj);  // Go structs have no other members
  }
  if (track_managed_fields && TracksManagedFields(r)) {
    auto who = RequestManager(env, r, Subresource::kNone);
    if (!who.ok()) return std::move(who).error();
    TrackOptions options = TrackOptionsFor(info);
    if (info.has_status) options.ignored.emplace_back("status");
    for (auto& field : ResetFields(info, Subresource::kNone)) options.ignored.push_back(std::move(field));
    TrackWrite(info, nullptr, obj, *who, options);
  }
  {
    // kube fills in the system fields before the strategy runs (a Job's selector holds its uid).
    auto& meta = EnsureObject(obj, "metadata");
    meta["uid"] = NewUid();
    meta["creationTimestamp"] = FormatTime(env.clock.WallNow());
  }
  if (!custom) PrepareForCreate(info, obj, r.http.user);
  const std::string generate_base(StringAt(MetadataOf(obj), "generateName"));
  const bool generate = StringAt(MetadataOf(obj), "name").empty() && !generate_base.empty();
  std::string name;
  for (int attempt = 0; attempt < kGenerateNameAttempts; ++attempt) {
    auto& meta = EnsureObject(obj, "metadata");
    if (generate) meta["name"] = GenerateName(generate_base);
    name = std::string(StringAt(meta, "name"));
    if (auto errs = ValidateCreate(info, obj, via_events_v1); !errs.empty()) {
      return NewInvalid(GroupKindOf(info), name, errs);
    }
    PrepareForStorage(info, obj);
    if (!StringAt(meta, "resourceVersion").empty()) {
      // kube's storage rejects it with a plain (non-Status) error, which becomes a 500.
      return MakeError(500, "", "resourceVersion should not be set on objects to be created");
    }
    NormalizeMemberOrder(obj);
    const std::string key = info.StorageKey(StringAt(MetadataOf(obj), "namespace"), name);
    if (dry_run) {
      auto existing = env.storage.Get(key);
      if (existing.ok()) {
        if (generate) continue;
        return NewAlreadyExists(r.Gr(), name);
      }
      if (!IsNotFound(existing.error())) return std::move(existing).error();
      json::object copy = obj;
      EnsureObject(copy, "metadata").erase("resourceVersion");
      return WriteResult{json::serialize(copy), 0, true, false};
    }
    const StampedJson stamped(obj);
    auto rev = env.storage.Create(key, [&](Revision rv) -> Result<std::string> { return stamped.At(rv); });
    if (rev.ok()) return WriteResult{stamped.At(*rev), *rev, true, false};
    if (IsAlreadyExists(rev.error()) && generate) continue;
    return MapStorageError(rev.error(), r.Gr(), name);
  }
  return NewGenerateNameConflict(r.Gr(), name, 1);
}

Result<void> CheckUpdateResourceVersion(const Request& r, const json::object& obj, Revision current_rv) {
  const auto rv = StringAt(MetadataOf(obj), "resourceVersion");
  if (rv.empty()) {
    if (r.info->allow_unconditional_update) return Ok();
    return NewInvalid(GroupKind{r.info->group, r.info->resource}, r.path.name,
                      {FieldError::Invalid("metadata.resourceVersion", "0x0", "must be specified for an update")});
  }
  const auto parsed = ParseRevision(rv);
  if (!parsed) {
    return NewBadRequest("metadata.resourceVersion: Invalid value: " + QuoteJson(rv) +
                         ": strconv.ParseUint: parsing " + QuoteJson(rv) + ": invalid syntax");
  }
  if (*parsed != current_rv) return NewConflict(r.Gr(), r.path.name, kOptimisticLockErrorMsg);
  return Ok();
}

Result<void> CheckNameAndNamespace(const Request& r, const json::object& obj) {
  const auto& meta = MetadataOf(obj);
  const auto name = StringAt(meta, "name");
  if (name != r.path.name) {
    return NewBadRequest("the name of the object (" + std::string(name) +
                         ") does not match the name on the URL (" + r.path.name + ")");
  }
  const auto ns = StringAt(meta, "namespace");
  if (r.info->namespaced && !ns.empty() && ns != r.Namespace()) {
    return NewBadRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
  return Ok();
}

Result<WriteResult> DeleteStored(const Env& env, const GroupResource& gr, std::string_view name,
                                 const KeyValue& kv, bool dry_run) {
  if (dry_run) return WriteResult{*kv.value, kv.mod_revision, false, true};
  auto obj = ParseStored(*kv.value);
  if (!obj.ok()) return std::move(obj).error();
  const StampedJson tombstone(std::move(*obj));
  auto rev = env.storage.Delete(kv.key, kv.mod_revision,
                                [&](Revision rv) -> Result<std::string> { return tombstone.At(rv); });
  if (!rev.ok()) return MapStorageError(rev.error(), gr, name);
  return WriteResult{*kv.value, *rev, false, true};
}

std::string KubeStorageKey(const ResourceInfo& info, std::string_view ns, std::string_view name) {
  // kube-apiserver's etcd keys: built-in resources under their plural (services under
  // services/specs), custom resources under their group.
  std::string key = "/registry/";
  if (!info.builtin || IsCrdResource(info)) key += info.group + "/";
  key += info.resource == "services" ? std::string("services/specs") : info.resource;
  key += "/";
  if (info.namespaced) key += std::string(ns) + "/";
  return key + std::string(name);
}

Result<WriteResult> GuaranteedUpdate(const Env& env, const Request& r, Subresource sub,
                                     const UpdateFn& fn, const CreateFn& on_missing, bool dry_run,
                                     bool track_managed_fields) {
  const ResourceInfo& info = *r.info;
  const std::string key = r.Key();
  std::optional<WriteManager> who;
  if (track_managed_fields && TracksManagedFields(r)) {
    auto resolved = RequestManager(env, r, sub);
    if (!resolved.ok()) return std::move(resolved).error();
    who = std::move(*resolved);
  }
  for (int attempt = 0; attempt < kMaxUpdateAttempts; ++attempt) {
    auto kv = env.storage.Get(key);
    if (!kv.ok()) {
      if (!IsNotFound(kv.error())) return std::move(kv).error();
      auto obj = on_missing();
      if (!obj.ok()) return std::move(obj).error();
      auto created = CreateObject(env, r, std::move(*obj), dry_run, false, track_managed_fields);
      if (!created.ok() && IsAlreadyExists(created.error())) continue;  // lost a race: update it
      return created;
    }
    auto current = ParseStored(*kv->value);
    if (!current.ok()) return std::move(current).error();
    auto desired = fn(*current, kv->mod_revision);
    if (!desired.ok()) return std::move(desired).error();
    json::object obj = std::move(*desired);
    // A PUT names the uid it expects: kube's storage precondition, a Conflict.
    if (r.http.method == "PUT" && sub == Subresource::kNone) {
      const auto uid = StringAt(MetadataOf(obj), "uid");
      const auto current_uid = StringAt(MetadataOf(*current), "uid");
      if (!uid.empty() && uid != current_uid) {
        return NewConflict(r.Gr(), r.path.name,
                           "StorageError: invalid object, Code: 4, Key: " + KubeStorageKey(info, r.path.ns, r.path.name) +
                               ", ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: " +
                               std::string(uid) + ", UID in object meta: " + std::string(current_uid));
      }
    }
    // managedFields are the field manager's business, not the strategy's (a CR's /status keeps
    // its old metadata otherwise).
    json::value managed_fields;
    if (const auto* mf = MetadataOf(obj).if_contains("managedFields")) managed_fields = *mf;
    PrepareForUpdate(info, sub, obj, *current, FormatTime(env.clock.WallNow()));
    if (managed_fields.is_null()) {
      CopyMember(EnsureObject(obj, "metadata"), MetadataOf(*current), "managedFields");
    } else {
      EnsureObject(obj, "metadata")["managedFields"] = std::move(managed_fields);
    }
    CopySystemMetadata(obj, *current);
    if (who.has_value()) {
      TrackOptions options = TrackOptionsFor(info);
      for (auto& field : ResetFields(info, sub)) options.ignored.push_back(std::move(field));
      TrackWrite(info, &*current, obj, *who, options);
    }
    std::vector<FieldError> errs = ValidateUpdate(info, obj, *current, sub);
    const auto& old_meta = MetadataOf(*current);
    const bool deleting = old_meta.contains("deletionTimestamp");
    const std::vector<std::string> finalizers = StringList(MetadataOf(obj), "finalizers");
    if (deleting) {
      const std::vector<std::string> old_finalizers = StringList(old_meta, "finalizers");
      std::vector<std::string> added;
      for (const auto& f : finalizers) {
        if (std::find(old_finalizers.begin(), old_finalizers.end(), f) == old_finalizers.end()) added.push_back(f);
      }
      if (!added.empty()) {
        std::string list;
        for (const auto& f : added) list += (list.empty() ? "" : ", ") + QuoteJson(f);
        errs.push_back(FieldError::Forbidden(
            "metadata.finalizers",
            "no new finalizers can be added if the object is being deleted, found new finalizers []string{" + list + "}"));
      }
    }
    if (!errs.empty()) return NewInvalid(GroupKindOf(info), r.path.name, errs);
    PrepareForStorage(info, obj);
    NormalizeMemberOrder(obj);
    if (EqualIgnoringResourceVersion(obj, *current)) {
      return WriteResult{*kv->value, kv->mod_revision, false, false};
    }
    if (ShouldDeleteDuringUpdate(info, obj, *current)) {
      // The last finalizer is gone: the object goes away (kube's deleteWithoutFinalizers).
      auto deleted = DeleteStored(env, r.Gr(), r.path.name, *kv, dry_run);
      if (!deleted.ok() && (IsConflict(deleted.error()) || IsNotFound(deleted.error()))) continue;
      // The answer is the object as this update left it (its finalizers emptied).
      if (deleted.ok()) deleted->stored = StampedJson(std::move(obj)).At(deleted->revision);
      return deleted;
    }
    if (dry_run) return WriteResult{json::serialize(obj), kv->mod_revision, false, false};
    const StampedJson stamped(std::move(obj));
    auto rev = env.storage.Update(key, kv->mod_revision,
                                  [&](Revision rv) -> Result<std::string> { return stamped.At(rv); });
    if (rev.ok()) return WriteResult{stamped.At(*rev), *rev, false, false};
    if (IsConflict(rev.error()) || IsNotFound(rev.error())) continue;  // re-read and re-apply
    return MapStorageError(rev.error(), r.Gr(), r.path.name);
  }
  return NewConflict(r.Gr(), r.path.name, kOptimisticLockErrorMsg);
}

}  // namespace kube::apiserver::rest
