// POST serviceaccounts/NAME/token (kube's TokenREST) and the service-account issuer's discovery
// documents. Nothing is stored: the TokenRequest is decoded, checked, answered with a signed
// token and forgotten.

#include "apiserver/rest/token_request.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/options.hpp>
#include <kube/core/status.hpp>
#include <kube/core/time.hpp>

#include "apiserver/rest/builtin_schema.hpp"
#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/json_util.hpp"
#include "apiserver/rest/ops.hpp"
#include "apiserver/rest/output.hpp"
#include "apiserver/rest/schema_validation.hpp"
#include "apiserver/rest/write_util.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

constexpr std::string_view kGroup = "authentication.k8s.io";
constexpr std::string_view kApiVersion = "authentication.k8s.io/v1";
constexpr std::string_view kKind = "TokenRequest";
constexpr int64_t kDefaultExpirationSeconds = 3600;
constexpr int64_t kMinExpirationSeconds = 10 * 60;
constexpr int64_t kMaxExpirationSeconds = int64_t{1} << 32;
/// The expiration the kubelet asks for to opt into kube's extended (warn-only) bound tokens.
constexpr int64_t kWarnOnlyBoundTokenExpirationSeconds = 60 * 60 + 7;
/// What such a token's `exp` becomes (kube's ExpirationExtensionSeconds: a year).
constexpr int64_t kExtendedExpirationSeconds = 24 * 365 * 60 * 60;

// The TokenRequest type as the REST helpers (decoding, unknown fields, field manager) see it: a
// built-in kind of authentication.k8s.io/v1 that is never stored.
const ResourcePtr& TokenRequestInfo() {
  static const ResourcePtr info = [] {
    ResourceInfo i;
    i.group = std::string(kGroup);
    i.version = "v1";
    i.resource = "tokenrequests";
    i.singular = "tokenrequest";
    i.kind = std::string(kKind);
    i.list_kind = i.kind + "List";
    i.builtin = true;
    i.schema = OpenApiSchema(i.group, i.version, i.kind);
    return std::make_shared<const ResourceInfo>(std::move(i));
  }();
  return info;
}

// Go's schema.GroupVersionKind.String() of schema.FromAPIVersionAndKind: an apiVersion that does
// not parse leaves group and version empty.
struct BoundGvk {
  std::string group;
  std::string version;
  std::string kind;
  std::string String() const { return group + "/" + version + ", Kind=" + kind; }
};

BoundGvk ParseBoundGvk(std::string_view api_version, std::string_view kind) {
  BoundGvk out{.group = {}, .version = {}, .kind = std::string(kind)};
  const auto slash = api_version.find('/');
  if (slash == std::string_view::npos) {
    out.version = std::string(api_version);
  } else if (api_version.find('/', slash + 1) == std::string_view::npos) {
    out.group = std::string(api_version.substr(0, slash));
    out.version = std::string(api_version.substr(slash + 1));
  }
  return out;
}

// What kube's field manager compares the request with: a new, empty TokenRequest, whose Go
// zero value encodes these members as null or "" (non-omitempty fields).
constexpr std::pair<std::string_view, std::string_view> kAlwaysEncoded[] = {
    {"spec", "audiences"}, {"spec", "boundObjectRef"}, {"status", "token"}, {"status", "expirationTimestamp"}};

// Null and empty strings are the zero values the empty live object has too: nobody owns them.
void DropZeroMembers(json::object& obj) {
  for (auto it = obj.begin(); it != obj.end();) {
    json::value& v = it->value();
    if (v.is_null() || (v.is_string() && v.get_string().empty())) {
      it = obj.erase(it);
      continue;
    }
    if (v.is_object()) DropZeroMembers(v.get_object());
    ++it;
  }
}

// The Update entry of the request's manager for the decoded request, with subresource "token".
json::value ManagedFieldsOf(const json::object& obj, const WriteManager& who) {
  json::object view = obj;
  for (std::string_view member : {"spec", "status"}) {
    if (auto* o = ObjectAt(view, member)) DropZeroMembers(*o);
  }
  EnsureObject(view, "metadata").erase("managedFields");
  const TypeSchemaPtr schema = TokenRequestInfo()->schema;
  TrackUpdate(nullptr, view, who, schema.get(), TrackOptions{.implicit = {"spec", "status"}, .ignored = {}});
  auto* fields = EnsureObject(view, "metadata").if_contains("managedFields");
  if (fields == nullptr || !fields->is_array()) return json::value();
  // structured-merge-diff owns a struct node itself only when the live object lacks the member
  // (its compare hook sees no value); a member the zero object has as null only has its fields.
  for (auto& entry : fields->get_array()) {
    auto* v1 = entry.is_object() ? entry.get_object().if_contains("fieldsV1") : nullptr;
    if (v1 == nullptr || !v1->is_object()) continue;
    for (const auto& [parent, member] : kAlwaysEncoded) {
      auto* p = ObjectAt(v1->get_object(), "f:" + std::string(parent));
      auto* node = p != nullptr ? ObjectAt(*p, "f:" + std::string(member)) : nullptr;
      if (node != nullptr && node->size() > 1) node->erase(".");
    }
  }
  return *fields;
}

// A stored object of the core group (`pods`, `secrets`, `nodes`), as TokenREST's getters read it.
Result<json::object> GetCoreObject(const Env& env, std::string_view resource, std::string_view ns,
                                   std::string_view name) {
  // The registry store's Get refuses an empty name before looking.
  if (name.empty()) return NewBadRequest("Name parameter required.");
  const ResourcePtr info = env.registry.Find("", "v1", resource);
  if (info == nullptr) return NewNotFound({"", std::string(resource)}, name);
  auto kv = env.storage.Get(info->StorageKey(info->namespaced ? ns : "", name));
  if (!kv.ok()) return MapStorageError(kv.error(), {"", std::string(resource)}, name);
  return ParseStored(*kv->value);
}

int64_t IntAt(const json::object& obj, std::string_view key, int64_t fallback) {
  const auto* v = obj.if_contains(key);
  if (v == nullptr) return fallback;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<int64_t>(std::min<uint64_t>(v->get_uint64(), std::numeric_limits<int64_t>::max()));
  return fallback;
}

std::vector<std::string> StringsAt(const json::object& obj, std::string_view key) {
  std::vector<std::string> out;
  if (const auto* v = obj.if_contains(key); v != nullptr && v->is_array()) {
    for (const auto& e : v->get_array()) out.emplace_back(e.is_string() ? std::string(e.get_string()) : "");
  }
  return out;
}

std::string_view UidOf(const json::object& obj) { return StringAt(MetadataOf(obj), "uid"); }

// The objects a token is bound to, looked up as TokenREST does (pods, secrets, nodes).
struct Bindings {
  std::optional<TokenObjectRef> pod;
  std::optional<TokenObjectRef> secret;
  std::optional<TokenObjectRef> node;
};

Result<Bindings> ResolveBoundObject(const Env& env, const Request& r, const json::object& ref) {
  const BoundGvk gvk = ParseBoundGvk(StringAt(ref, "apiVersion"), StringAt(ref, "kind"));
  const std::string name(StringAt(ref, "name"));
  const std::string& ns = r.Namespace();
  Bindings out;
  std::string uid;
  if (gvk.group.empty() && gvk.kind == "Pod") {
    auto pod = GetCoreObject(env, "pods", ns, name);
    if (!pod.ok()) return std::move(pod).error();
    const auto* spec = ObjectAt(*pod, "spec");
    std::string_view pod_sa = spec != nullptr ? StringAt(*spec, "serviceAccountName") : "";
    if (pod_sa.empty() && spec != nullptr) pod_sa = StringAt(*spec, "serviceAccount");  // the deprecated alias
    if (pod_sa != r.path.name) {
      return NewBadRequest("cannot bind token for serviceaccount " + QuoteJson(r.path.name) +
                           " to pod running with different serviceaccount name.");
    }
    uid = UidOf(*pod);
    out.pod = TokenObjectRef{name, uid};
    // ServiceAccountTokenPodNodeInfo: the pod's node is named in the token, with its uid when the
    // node exists.
    if (const std::string node_name(spec != nullptr ? StringAt(*spec, "nodeName") : ""); !node_name.empty()) {
      auto node = GetCoreObject(env, "nodes", "", node_name);
      if (node.ok()) {
        out.node = TokenObjectRef{node_name, std::string(UidOf(*node))};
      } else if (IsNotFound(node.error())) {
        out.node = TokenObjectRef{node_name, ""};
      } else {
        return NewInternalError(node.error().message);
      }
    }
  } else if (gvk.group.empty() && gvk.kind == "Node") {
    auto node = GetCoreObject(env, "nodes", "", name);
    if (!node.ok()) return std::move(node).error();
    uid = UidOf(*node);
    out.node = TokenObjectRef{name, uid};
  } else if (gvk.group.empty() && gvk.kind == "Secret") {
    auto secret = GetCoreObject(env, "secrets", ns, name);
    if (!secret.ok()) return std::move(secret).error();
    uid = UidOf(*secret);
    out.secret = TokenObjectRef{name, uid};
  } else {
    return NewBadRequest("cannot bind token to object of type " + gvk.String());
  }
  if (const auto want = StringAt(ref, "uid"); !want.empty() && want != uid) {
    return NewConflict({gvk.group, gvk.kind}, name,
                       "the UID in the bound object reference (" + std::string(want) +
                           ") does not match the UID in record. The object might have been deleted and then recreated");
  }
  return out;
}

// The spec as kube serializes the v1 TokenRequestSpec (audiences and boundObjectRef always).
json::object SpecJson(const std::vector<std::string>& audiences, int64_t expiration, const json::object* ref) {
  json::array auds;
  for (const auto& a : audiences) auds.emplace_back(a);
  json::value bound = nullptr;
  if (ref != nullptr) {
    json::object b;
    for (std::string_view member : {"kind", "apiVersion", "name", "uid"}) {
      if (const auto v = StringAt(*ref, member); !v.empty()) b[member] = v;
    }
    bound = std::move(b);
  }
  return json::object{{"audiences", std::move(auds)}, {"expirationSeconds", expiration}, {"boundObjectRef", std::move(bound)}};
}

// go-restful's Route.matchesAccept: a range (parameters dropped) equal to `produces` or `*/*`.
bool AcceptsMediaType(std::string_view accept, std::string_view produces) {
  if (accept.empty()) return true;
  while (true) {
    const auto comma = accept.find(',');
    std::string_view range = accept.substr(0, comma);
    range = range.substr(0, range.find(';'));
    while (!range.empty() && (range.front() == ' ' || range.front() == '\t')) range.remove_prefix(1);
    while (!range.empty() && (range.back() == ' ' || range.back() == '\t')) range.remove_suffix(1);
    if (range == "*/*" || range == produces) return true;
    if (comma == std::string_view::npos) return false;
    accept.remove_prefix(comma + 1);
  }
}

SimpleResponse StatusResponse(const Error& e) { return {e.code, "application/json", StatusJson(e), {}}; }

Error RouteMiss(int code, std::string_view reason_text, std::string message) {
  Error e = MakeError(code, reason_text, std::move(message));
  e.details = StatusDetails{};
  return e;
}

}  // namespace

std::vector<FieldError> ValidateTokenRequestSpec(const json::object& spec) {
  std::vector<FieldError> errs;
  const int64_t exp = IntAt(spec, "expirationSeconds", 0);
  if (exp < kMinExpirationSeconds) {
    errs.push_back(FieldError::Invalid("spec.expirationSeconds", std::to_string(exp),
                                       "may not specify a duration less than 10 minutes"));
  }
  if (exp > kMaxExpirationSeconds) {
    errs.push_back(FieldError::Invalid("spec.expirationSeconds", std::to_string(exp),
                                       "may not specify a duration larger than 2^32 seconds"));
  }
  return errs;
}

namespace {

// The body as the create handler hands it to TokenREST: decoded and defaulted, unknown fields
// reported (`warnings`) and dropped, system metadata wiped, the request's namespace set.
Result<json::object> DecodeTokenRequest(const Request& tr, const CreateOptions& opts, std::vector<std::string>& warnings) {
  std::vector<std::string> duplicates;
  auto decoded = DecodeBody(tr, tr.http.body, kApiVersion, kKind, &duplicates);
  if (!decoded.ok()) return decoded;
  json::object& req = *decoded;
  KUBE_RETURN_IF_ERROR(CheckUnknownFields(*tr.info, req, opts.field_validation, &warnings, duplicates));
  PruneBuiltinFields(*tr.info, req);
  auto& spec = EnsureObject(req, "spec");
  if (const auto* exp = spec.if_contains("expirationSeconds"); exp == nullptr || exp->is_null()) {
    spec["expirationSeconds"] = kDefaultExpirationSeconds;  // SetDefaults_TokenRequestSpec
  }
  auto& meta = EnsureObject(req, "metadata");
  for (std::string_view member : {"creationTimestamp", "uid", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"}) {
    meta.erase(member);  // WipeObjectMetaSystemFields
  }
  if (const auto ns = StringAt(meta, "namespace"); !ns.empty() && ns != tr.Namespace()) {
    return NewBadRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
  meta["namespace"] = tr.Namespace();
  return decoded;
}

// kube's token.Claims for the service account `r` names, with TokenREST's expiration rule: a
// pod-bound token that asks for the kubelet's 3607 s with the API audiences only is valid for a
// year and stale (warnafter) after the time asked for (--service-account-extend-token-expiration,
// on by default).
ServiceAccountTokenClaims ClaimsFor(const Request& r, std::string_view sa_uid, const std::vector<std::string>& audiences,
                                    int64_t expiration, const Bindings& bound, std::chrono::sys_seconds issued,
                                    const std::vector<std::string>& api_audiences) {
  const bool kube_audiences = std::all_of(audiences.begin(), audiences.end(), [&](const std::string& a) {
    return std::find(api_audiences.begin(), api_audiences.end(), a) != api_audiences.end();
  });
  int64_t lifetime = expiration;
  std::optional<std::chrono::sys_seconds> warn_after;
  if (bound.pod && expiration == kWarnOnlyBoundTokenExpirationSeconds && kube_audiences) {
    warn_after = issued + std::chrono::seconds(expiration);
    lifetime = kExtendedExpirationSeconds;
  }
  return ServiceAccountTokenClaims{.issuer = {},
                                   .subject = ServiceAccountUsername(r.Namespace(), r.path.name),
                                   .audiences = audiences,
                                   .issued_at = issued,
                                   .not_before = issued,
                                   .expiry = issued + std::chrono::seconds(lifetime),
                                   .id = NewUid(),
                                   .ns = r.Namespace(),
                                   .service_account = {r.path.name, std::string(sa_uid)},
                                   .pod = bound.pod,
                                   .secret = bound.secret,
                                   .node = bound.node,
                                   .warn_after = warn_after};
}

}  // namespace

void HandleServiceAccountToken(const Env& env, Request& r) {
  // The create handler's order: output negotiation, options, body, managed fields, namespace
  // admission, then TokenREST.Create.
  auto format = Negotiate(r, /*is_list=*/false);
  if (!format.ok()) return RespondError(r.w, format.error());
  if (format->kind == OutputKind::kTable) {
    return RespondError(r.w, NewNotAcceptable({"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"}));
  }
  auto opts = CreateOptions::FromQuery(r.http.query);
  if (!opts.ok()) return RespondError(r.w, opts.error());
  // A dry run is validated and otherwise ignored: kube issues the token all the same.
  auto dry_run = ValidateWriteOptions(opts->dry_run, opts->field_validation, "CreateOptions");
  if (!dry_run.ok()) return RespondError(r.w, dry_run.error());
  Request tr{r.http, r.w, r.path, TokenRequestInfo(), Subresource::kToken};
  auto who = RequestManager(env, tr, Subresource::kToken);
  if (!who.ok()) return RespondError(r.w, who.error());
  std::vector<std::string> warnings;
  auto decoded = DecodeTokenRequest(tr, *opts, warnings);
  if (!decoded.ok()) return RespondError(r.w, decoded.error());
  json::object& req = *decoded;
  json::value managed = ManagedFieldsOf(req, *who);
  if (auto admitted = AdmitNamespace(env, r, /*creating=*/true, r.path.name); !admitted.ok()) {
    return RespondError(r.w, admitted.error());
  }

  // TokenREST.Create.
  const GroupKind gk{std::string(kGroup), std::string(kKind)};
  auto& meta = EnsureObject(req, "metadata");
  auto& spec = EnsureObject(req, "spec");
  if (const auto name = StringAt(meta, "name"); !name.empty() && name != r.path.name) {
    return RespondError(r.w, NewInvalid(gk, r.path.name,
                                        {FieldError::Invalid("metadata.name", QuoteJson(name),
                                                             "must match the service account name if specified")}));
  }
  auto sa = GetCoreObject(env, "serviceaccounts", r.Namespace(), r.path.name);
  if (!sa.ok()) return RespondError(r.w, sa.error());
  const ServiceAccountTokenIssuer& issuer = *env.options.token_issuer;
  std::vector<std::string> audiences = StringsAt(spec, "audiences");
  if (audiences.empty()) audiences = issuer.api_audiences();
  meta["name"] = r.path.name;
  const Clock::WallTime now = TruncateToSecond(env.clock.WallNow());
  meta["creationTimestamp"] = FormatTime(now);
  if (auto errs = ValidateTokenRequestSpec(spec); !errs.empty()) return RespondError(r.w, NewInvalid(gk, "", errs));
  const json::object* ref = ObjectAt(spec, "boundObjectRef");
  Bindings bound;
  if (ref != nullptr) {
    auto resolved = ResolveBoundObject(env, r, *ref);
    if (!resolved.ok()) return RespondError(r.w, resolved.error());
    bound = std::move(*resolved);
  }
  const int64_t expiration = IntAt(spec, "expirationSeconds", kDefaultExpirationSeconds);
  const std::chrono::sys_seconds issued(std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()));
  auto token = issuer.Sign(ClaimsFor(r, UidOf(*sa), audiences, expiration, bound, issued, issuer.api_audiences()));
  if (!token.ok()) return RespondError(r.w, NewInternalError("failed to generate token: " + token.error().message));

  if (!managed.is_null()) meta["managedFields"] = std::move(managed);
  json::object out{{"kind", kKind},
                   {"apiVersion", kApiVersion},
                   {"metadata", meta},
                   {"spec", SpecJson(audiences, expiration, ref)},
                   {"status", json::object{{"token", *token},
                                           {"expirationTimestamp", FormatTime(now + std::chrono::seconds(expiration))}}}};
  NormalizeMemberOrder(out);
  RespondObject(env, tr, *format, 201, json::serialize(out), WarningHeaders(warnings));
}

std::optional<SimpleResponse> ServeServiceAccountIssuerDiscovery(const HttpRequest& req,
                                                                 const ServiceAccountTokenIssuer& issuer,
                                                                 std::string_view jwks_uri) {
  if (!issuer.issuer().starts_with("https://")) return std::nullopt;
  constexpr std::string_view kConfigPath = "/.well-known/openid-configuration";
  constexpr std::string_view kJwksPath = "/openid/v1/jwks";
  std::string_view path = req.path;
  const bool config = path.starts_with(kConfigPath);
  const std::string_view route = config ? kConfigPath : kJwksPath;
  if (!path.starts_with(route) || (path.size() > route.size() && path[route.size()] != '/')) return std::nullopt;
  path.remove_prefix(route.size());
  if (path.size() > 1) {
    return StatusResponse(RouteMiss(404, reason::kNotFound, "the server could not find the requested resource"));
  }
  if (req.method != "GET") {
    return StatusResponse(
        RouteMiss(405, reason::kMethodNotAllowed, "the server does not allow this method on the requested resource"));
  }
  const std::string_view media = config ? "application/json" : "application/jwk-set+json";
  if (!AcceptsMediaType(req.Header("accept").value_or(""), media)) {
    return StatusResponse(RouteMiss(406, reason::kNotAcceptable,
                                    "406: Not Acceptable\n\nAvailable representations: " + std::string(media)));
  }
  std::string body;
  if (config) {
    body = issuer.OpenIdConfigurationJson(jwks_uri);
  } else {
    auto jwks = issuer.JwksJson();
    if (!jwks.ok()) return StatusResponse(NewInternalError(jwks.error().message));
    body = std::move(*jwks);
  }
  return SimpleResponse{200, std::string(media), std::move(body), {{"Cache-Control", "public, max-age=3600"}}};
}

}  // namespace kube::apiserver::rest
