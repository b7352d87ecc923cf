#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <kube/apiserver/resource.hpp>

/// Renderers of the discovery and OpenAPI documents (apiserver-semantics.md §1.3-§1.6). Each is a
/// pure function of a snapshot of the registry (`Registry::All()` order: core group first, then
/// groups in registration order; resources sorted by name).
namespace kube::apiserver::internal {

using Snapshot = std::vector<ResourcePtr>;

/// One API group and its versions in preference order (the first is the preferred version).
struct GroupVersions {
  std::string group;  ///< "" for the core group
  std::vector<std::string> versions;
};

/// The groups of `snapshot` in order (core first when present), versions sorted by kube-aware
/// priority (v2 > v1 > v1beta2 > v1beta1 > v1alpha1 > non-kube strings in alphabetical order).
std::vector<GroupVersions> Groups(const Snapshot& snapshot);

/// apimachinery `version.CompareKubeAwareVersionStrings`: > 0 when `a` has higher priority.
int CompareKubeAwareVersions(std::string_view a, std::string_view b);

/// An apidiscovery.k8s.io APIGroupDiscoveryList of the core group (`core` = true, for `/api`) or
/// of every other group (for `/apis`). `api_version` is "apidiscovery.k8s.io/v2" or ".../v2beta1".
std::string RenderAggregated(const Snapshot& snapshot, bool core, std::string_view api_version);

/// Legacy `/api`: APIVersions with `serverAddressByClientCIDRs` naming `server_address`.
std::string RenderApiVersions(const Snapshot& snapshot, std::string_view server_address);
/// Legacy `/apis`: APIGroupList of every non-core group.
std::string RenderApiGroupList(const Snapshot& snapshot);
/// Legacy `/apis/<group>`: APIGroup, or nullopt when the group is not served.
std::optional<std::string> RenderApiGroup(const Snapshot& snapshot, std::string_view group);
/// Legacy `/api/v1` or `/apis/<g>/<v>`: APIResourceList, or nullopt when not served.
std::optional<std::string> RenderApiResourceList(const Snapshot& snapshot, std::string_view group,
                                                 std::string_view version);

/// `discovery.StorageVersionHash`: base64 of the first 8 bytes of sha256("<g>/<v>/<kind>").
std::string StorageVersionHash(std::string_view group, std::string_view version,
                               std::string_view kind);

/// The OpenAPI v3 index: `{"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=H"},
/// ...}}`, one entry per served group-version; `hash_of(group, version)` gives H.
std::string RenderOpenApiIndex(
    const Snapshot& snapshot,
    const std::function<std::string(const std::string&, const std::string&)>& hash_of);
/// The OpenAPI 3.0 document of one group-version, or nullopt when not served.
std::optional<std::string> RenderOpenApiGroupVersion(const Snapshot& snapshot,
                                                     std::string_view group,
                                                     std::string_view version);

/// The `/version` body (§1.6).
std::string RenderVersion();

}  // namespace kube::apiserver::internal
