#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <kube/base/mutex.hpp>
#include <kube/base/result.hpp>
#include <kube/client/rest_client.hpp>

/// API discovery (client-go `discovery.DiscoveryClient`): which groups, versions and resources
/// the server serves, from aggregated discovery (apidiscovery.k8s.io/v2, v2beta1) when the server
/// offers it for both `/api` and `/apis`, else from the legacy endpoints.
namespace kube::client {

/// The Accept header client-go sends to `/api` and `/apis`.
inline constexpr std::string_view kAggregatedDiscoveryAccept =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
    "application/json";

/// metav1.APIResource, normalised: `group`/`version` are always set (to the list's group-version
/// unless the resource names its own, as `deployments/scale` does with autoscaling/v1).
struct ApiResource {
  std::string name;           ///< plural, or "<resource>/<subresource>"
  std::string singular_name;  ///< "" for subresources in legacy discovery
  bool namespaced = false;
  std::string group;
  std::string version;
  std::string kind;
  std::vector<std::string> verbs;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  /// True for "<resource>/<subresource>" entries.
  bool IsSubresource() const { return name.find('/') != std::string::npos; }
  bool operator==(const ApiResource&) const = default;
};

/// metav1.APIResourceList: the resources of one group-version.
struct ApiResourceList {
  std::string group_version;  ///< "v1", "apps/v1"
  std::vector<ApiResource> resources;
  bool operator==(const ApiResourceList&) const = default;
};

/// metav1.APIGroup: versions in the server's preference order.
struct ApiGroup {
  std::string name;                   ///< "" for the core group
  std::vector<std::string> versions;  ///< e.g. {"v1", "v1beta1"}
  std::string preferred_version;      ///< e.g. "v1"
  bool operator==(const ApiGroup&) const = default;
};

/// Everything discovery found.
struct DiscoveryResult {
  std::vector<ApiGroup> groups;               ///< core group first, then /apis order
  std::vector<ApiResourceList> resources;     ///< one per served group-version
  /// Group-versions that could not be discovered (legacy fetch failed, or aggregated
  /// `freshness: Stale`), with the reason: client-go's ErrGroupDiscoveryFailed.
  std::vector<std::pair<std::string, std::string>> failed;
  bool aggregated = false;  ///< whether aggregated discovery was used
};

/// `/version` (k8s.io/apimachinery/pkg/version.Info).
struct ServerVersion {
  std::string major, minor, git_version, git_commit, platform;
};

/// Parses an aggregated discovery document (APIGroupDiscoveryList, v2 or v2beta1) into groups
/// and resource lists as client-go converts it: resources without `responseKind` are dropped,
/// `freshness: Stale` versions are reported as failed, subresources become
/// "<resource>/<subresource>" entries carrying the parent's singular name and scope, and the
/// first listed version is the preferred one. **Errors:** BadRequest for malformed JSON or shape.
Result<DiscoveryResult> ParseAggregatedDiscovery(std::string_view json);

/// True when `content_type` names aggregated discovery (`application/json` with parameters
/// g=apidiscovery.k8s.io, v=v2 or v2beta1, as=APIGroupDiscoveryList, in any order).
bool IsAggregatedDiscoveryContentType(std::string_view content_type);

/// Queries and caches discovery.
/// **Thread-safety:** all members may be called concurrently.
class DiscoveryClient final {
 public:
  /// `rest` is shared.
  explicit DiscoveryClient(std::shared_ptr<RestClient> rest);

  /// `GET /version`.
  Result<ServerVersion> GetServerVersion() const;
  /// Groups and resources, cached after the first success until `Invalidate`.
  /// Negotiation exactly as client-go (apiserver-semantics §1.2): `/api` and `/apis` with
  /// `kAggregatedDiscoveryAccept`; the decoding follows each response's Content-Type; the
  /// aggregated answers are used only if both are aggregated, else every group-version is
  /// fetched from `/api/<v>` and `/apis/<g>/<v>`; a 404 on `/api` is tolerated.
  /// **Errors:** transport and server errors of `/api` (other than 404) and `/apis`; a failing
  /// group-version is reported in `failed`, not as an error.
  Result<std::shared_ptr<const DiscoveryResult>> ServerGroupsAndResources() KUBE_EXCLUDES(mu_);
  /// Drops the cache; the next call re-discovers.
  void Invalidate() KUBE_EXCLUDES(mu_);

 private:
  Result<std::shared_ptr<const DiscoveryResult>> Fetch() const;

  std::shared_ptr<RestClient> rest_;
  mutable Mutex mu_;
  std::shared_ptr<const DiscoveryResult> cache_ KUBE_GUARDED_BY(mu_);
};

}  // namespace kube::client
