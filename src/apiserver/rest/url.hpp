#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kube::apiserver::rest {

/// What a REST path names, as kube-apiserver's RequestInfoFactory splits it:
/// `/api/v1[/watch][/namespaces/<ns>]/<resource>[/<name>[/<subresource>]]` and
/// `/apis/<group>/<version>/...` likewise. `/api/v1/namespaces/<name>[/status|/finalize]` names the
/// namespace object itself (namespace = name, as kube records it).
struct RequestPath {
  std::string group;        ///< "" for /api
  std::string version;      ///< "v1"
  std::string ns;           ///< the namespace segment, "" when absent
  bool has_namespace = false;  ///< a `namespaces/<ns>/` segment preceded the resource
  std::string resource;     ///< plural, e.g. "configmaps"
  std::string name;         ///< "" for a collection
  std::string subresource;  ///< "status", "scale", "finalize" or ""
  bool legacy_watch = false;  ///< the deprecated `/watch/` form

  /// True when the path names a collection (no object name).
  bool IsCollection() const { return name.empty(); }
  bool operator==(const RequestPath&) const = default;
};

/// Splits a percent-decoded request path. Returns nullopt for anything that is not a resource path
/// (discovery documents such as `/api/v1`, empty segments, too many segments, unknown prefixes);
/// the caller answers those with 404 or hands them to discovery. Resource existence is not checked.
/// **Thread-safety:** pure.
std::optional<RequestPath> ParseRequestPath(std::string_view path);

/// The first value of query parameter `name` in a raw query string (no '?'), percent-decoded
/// ('+' as space, as Go's url.ParseQuery); nullopt when absent. A malformed escape is kept
/// verbatim.
std::optional<std::string> QueryParam(std::string_view query, std::string_view name);

}  // namespace kube::apiserver::rest
