// Routing of REST requests: path -> resource, scope and subresource checks, verb dispatch.

#include <algorithm>
#include <memory>

#include <kube/apiserver/apiserver.hpp>
#include <kube/core/field_selector.hpp>
#include <kube/core/status.hpp>

#include "apiserver/rest/context.hpp"
#include "apiserver/rest/csr.hpp"
#include "apiserver/rest/ops.hpp"
#include "apiserver/rest/service_account_token.hpp"
#include "apiserver/rest/watch_pump.hpp"

namespace kube::apiserver {
namespace rest {
namespace {

bool HasVerb(const ResourceInfo& info, std::string_view verb) {
  return std::find(info.verbs.begin(), info.verbs.end(), verb) != info.verbs.end();
}

std::optional<Subresource> ParseSubresource(const ResourceInfo& info, std::string_view sub) {
  if (sub.empty()) return Subresource::kNone;
  if (sub == "status" && info.has_status) return Subresource::kStatus;
  if (sub == "scale" && info.has_scale) return Subresource::kScale;
  if (sub == "finalize" && KindOf(info) == BuiltinKind::kNamespace) return Subresource::kFinalize;
  if (sub == "binding" && KindOf(info) == BuiltinKind::kPod) return Subresource::kBinding;
  if (sub == "eviction" && KindOf(info) == BuiltinKind::kPod) return Subresource::kEviction;
  if (sub == "token" && KindOf(info) == BuiltinKind::kServiceAccount) return Subresource::kToken;
  if (sub == "approval" && IsCertificateSigningRequest(info)) return Subresource::kApproval;
  return std::nullopt;
}

// The options with a token issuer: the caller's, or one with a key made on first use.
RestOptions WithTokenIssuer(RestOptions options) {
  if (options.token_issuer == nullptr) {
    options.token_issuer = std::make_shared<const ServiceAccountTokenIssuer>(TokenIssuerOptions{});
  }
  return options;
}

class Handler final {
 public:
  Handler(Storage& storage, Registry& registry, RestOptions options)
      : pump_(options.watch_delivery_period.count() > 0
                  ? std::make_unique<WatchPump>(options.watch_delivery_period)
                  : nullptr),
        env_{storage, registry, WithTokenIssuer(options),
             options.clock != nullptr ? *options.clock : RealClock::Instance(), pump_.get()} {}

  void Serve(const HttpRequest& req, ResponseWriter& w) const {
    auto path = ParseRequestPath(req.path);
    if (!path) return RespondNotFoundPage(w);
    ResourcePtr info = env_.registry.Find(path->group, path->version, path->resource);
    if (info == nullptr) {
      // A served group answers for its unknown versions and resources with a Status (go-restful's
      // route miss inside the group's web service); anything else is not a route at all.
      return ServesGroup(path->group) ? RespondError(w, NewNoResource()) : RespondNotFoundPage(w);
    }
    if (!info->namespaced && path->has_namespace) return RespondNotFoundPage(w);
    if (info->namespaced && !path->has_namespace && !path->name.empty()) return RespondNotFoundPage(w);
    auto sub = ParseSubresource(*info, path->subresource);
    if (!sub) return RespondError(w, NewNoResource());
    if (path->legacy_watch && (req.method != "GET" || *sub != Subresource::kNone)) {
      return RespondNotFoundPage(w);
    }
    Request r{req, w, std::move(*path), std::move(info), *sub};
    Dispatch(r);
  }

 private:
  // A served group answers for unknown versions and resources with a Status.
  bool ServesGroup(std::string_view group) const {
    for (const auto& info : env_.registry.All()) {
      if (info->group == group) return true;
    }
    return false;
  }

  // What go-restful answers for a route miss: a Status with empty details.
  static Error NewNoResource() {
    Error e = MakeError(404, reason::kNotFound, "the server could not find the requested resource");
    e.details = StatusDetails{};
    return e;
  }
  // A method the resource has no route for (a verb it does not serve, a write to a collection
  // that takes none): go-restful's 405.
  static void NotAllowed(Request& r, std::string_view /*action*/) {
    Error e = MakeError(405, reason::kMethodNotAllowed, "the server does not allow this method on the requested resource");
    e.details = StatusDetails{};
    RespondError(r.w, e);
  }

  void Dispatch(Request& r) const {
    const ResourceInfo& info = *r.info;
    const std::string& method = r.http.method;
    const bool collection = r.path.IsCollection();
    // A namespaced collection without a namespace is the all-namespaces view: list and watch only.
    const bool all_namespaces = info.namespaced && !r.path.has_namespace;
    // Subresources that take a POST of another kind, and the legacy `bindings` collection.
    if (r.sub == Subresource::kBinding || r.sub == Subresource::kEviction) {
      if (method != "POST") return NotAllowed(r, method);
      return r.sub == Subresource::kBinding ? HandlePodBinding(env_, r) : HandlePodEviction(env_, r);
    }
    if (r.sub == Subresource::kToken) {
      if (method != "POST") return NotAllowed(r, method);
      return HandleServiceAccountToken(env_, r);
    }
    if (info.group.empty() && info.resource == "bindings") {
      if (method != "POST" || !collection || all_namespaces) return NotAllowed(r, method);
      return HandlePodBinding(env_, r);
    }
    if (method == "GET") {
      if (!collection && !r.path.legacy_watch) {
        if (!HasVerb(info, "get")) return NotAllowed(r, "get");
        return HandleGet(env_, r);
      }
      auto opts = ListOptions::FromQuery(r.http.query);
      if (!opts.ok()) return RespondError(r.w, opts.error());
      if (r.path.legacy_watch) {
        opts->watch = true;
        if (!collection) {
          // `/watch/.../<name>` watches one object: a metadata.name field selector.
          auto fields = FieldSelector::Parse(opts->field_selector);
          if (!fields.ok()) return RespondError(r.w, NewBadRequest(fields.error().message));
          if (auto named = fields->RequiresExactMatch("metadata.name"); named && *named != r.path.name) {
            return RespondError(r.w, NewBadRequest("fieldSelector metadata.name doesn't match requested name"));
          }
          const std::string term = "metadata.name=" + EscapeFieldValue(r.path.name);
          opts->field_selector = opts->field_selector.empty() ? term : opts->field_selector + "," + term;
          r.path.name.clear();
        }
      }
      if (opts->watch) {
        if (!HasVerb(info, "watch")) return NotAllowed(r, "watch");
        return HandleWatch(env_, r, *opts);
      }
      if (!HasVerb(info, "list")) return NotAllowed(r, "list");
      return HandleList(env_, r, *opts);
    }
    if (method == "POST") {
      if (!collection || all_namespaces || !HasVerb(info, "create")) return NotAllowed(r, "create");
      return HandleCreate(env_, r);
    }
    if (method == "PUT") {
      if (collection || !HasVerb(info, "update")) return NotAllowed(r, "update");
      return HandleUpdate(env_, r);
    }
    if (method == "PATCH") {
      if (collection || r.sub == Subresource::kFinalize || !HasVerb(info, "patch")) {
        return NotAllowed(r, "patch");
      }
      return HandlePatch(env_, r);
    }
    if (method == "DELETE") {
      if (r.sub != Subresource::kNone) return NotAllowed(r, "delete");
      if (collection) {
        if (all_namespaces || !HasVerb(info, "deletecollection")) return NotAllowed(r, "deletecollection");
        return HandleDeleteCollection(env_, r);
      }
      if (!HasVerb(info, "delete")) return NotAllowed(r, "delete");
      return HandleDelete(env_, r);
    }
    NotAllowed(r, method);
  }

  std::unique_ptr<WatchPump> pump_;  // before env_, which points to it
  Env env_;
};

}  // namespace
}  // namespace rest

HttpHandler NewRestHandler(Storage& storage, Registry& registry, RestOptions options) {
  auto handler = std::make_shared<const rest::Handler>(storage, registry, options);
  return [handler](const HttpRequest& req, ResponseWriter& w) { handler->Serve(req, w); };
}

}  // namespace kube::apiserver
