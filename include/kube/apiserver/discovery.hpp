#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <kube/apiserver/http_server.hpp>
#include <kube/apiserver/resource.hpp>

/// The discovery side of the embedded API server: everything a client reads to learn what the
/// server serves (apiserver-semantics.md §1). Pure functions over a `Registry`; no storage, no
/// sockets. See docs/apiserver-discovery.md for the exact shapes and the decisions taken.
namespace kube::apiserver {

/// A complete, non-streaming HTTP answer.
struct SimpleResponse {
  int status = 200;          ///< HTTP status: 200, 304, 404, 406
  std::string content_type;  ///< e.g. "application/json"
  std::string body;          ///< empty for 304
  /// Extra headers (ETag, Vary, Cache-Control), in order.
  std::vector<std::pair<std::string, std::string>> headers;
};

/// The Content-Type of an aggregated discovery answer in apidiscovery.k8s.io/v2 (kube-apiserver
/// spells the parameters in exactly this order).
inline constexpr std::string_view kAggregatedDiscoveryV2ContentType =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
/// The same for apidiscovery.k8s.io/v2beta1 (what kubectl 1.26-1.29 ask for).
inline constexpr std::string_view kAggregatedDiscoveryV2Beta1ContentType =
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";

/// The `gitVersion` that `/version` reports.
inline constexpr std::string_view kServerGitVersion = "v1.32.0";

/// Answers the discovery, OpenAPI, version and health endpoints for `GET` requests:
///
/// | path | answer |
/// |---|---|
/// | `/api`, `/apis` | aggregated `APIGroupDiscoveryList` (apidiscovery.k8s.io/v2 or v2beta1) when the Accept header asks for it, with its own Content-Type, `ETag`, `Vary: Accept` and 304 on a matching `If-None-Match`; otherwise legacy `APIVersions` / `APIGroupList` |
/// | `/api/v1`, `/apis/<g>/<v>` | legacy `APIResourceList` (with `<res>/status` and `<res>/scale` entries) |
/// | `/apis/<g>` | legacy `APIGroup` |
/// | `/openapi/v3`, `/openapi/v3/api/v1`, `/openapi/v3/apis/<g>/<v>` | OpenAPI v3 index and per-group-version documents with a `patch` operation per resource carrying `x-kubernetes-group-version-kind` and the `fieldValidation`/`fieldManager`/`dryRun`/`force` query parameters |
/// | `/openapi/v2` | 404 (kubectl only needs v3; see the doc) |
/// | `/version` | version.Info for v1.32.0 |
/// | `/healthz`, `/livez`, `/readyz` (and `/<x>/ping`) | `200 ok` text/plain |
///
/// An unknown group or group-version under those paths gets Go's `404 page not found` text, as
/// kube-apiserver does. A trailing slash is ignored. Any other path, and any method other than
/// GET, returns nullopt: the REST layer answers it.
/// **Errors:** a 406 NotAcceptable Status body when the Accept header lists nothing this endpoint
/// can produce (e.g. only protobuf).
/// **Thread-safety:** safe to call concurrently. Rendered documents are memoized in a process-wide
/// cache keyed by the registry and its `Generation()`, and validated against the registry's
/// current resources (so a new Registry at a reused address is never served stale documents);
/// a CRD added to `registry` shows up on the next call.
/// **Ownership:** `req` and `registry` are borrowed for the duration of the call.
std::optional<SimpleResponse> ServeDiscovery(const HttpRequest& req, const Registry& registry);

}  // namespace kube::apiserver
