#pragma once

#include <compare>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include <kube/base/result.hpp>

namespace kube {

/// An API group and version, e.g. {"apps","v1"}; the core group is "" ("v1").
struct GroupVersion {
  std::string group;
  std::string version;

  /// Parses an apiVersion: "v1" -> {"", "v1"}, "apps/v1" -> {"apps", "v1"}.
  /// **Errors:** BadRequest for "", "a/b/c", "/v1" or "apps/".
  static Result<GroupVersion> Parse(std::string_view api_version);
  /// The apiVersion form: "v1" or "apps/v1".
  std::string String() const;
  bool operator==(const GroupVersion&) const = default;
  auto operator<=>(const GroupVersion&) const = default;
};

/// A group and kind, e.g. {"apps","Deployment"}.
struct GroupKind {
  std::string group;
  std::string kind;
  /// "Deployment.apps", or "Pod" for the core group (the form used in Invalid messages).
  std::string String() const;
  bool operator==(const GroupKind&) const = default;
  auto operator<=>(const GroupKind&) const = default;
};

/// A group and plural resource, e.g. {"apps","deployments"}.
struct GroupResource {
  std::string group;
  std::string resource;
  /// "deployments.apps", or "pods" for the core group (the form used in NotFound messages).
  std::string String() const;
  bool operator==(const GroupResource&) const = default;
  auto operator<=>(const GroupResource&) const = default;
};

/// A group, version and kind.
struct GroupVersionKind {
  std::string group;
  std::string version;
  std::string kind;

  /// From an object's apiVersion and kind. **Errors:** as GroupVersion::Parse; BadRequest for an
  /// empty kind.
  static Result<GroupVersionKind> FromApiVersionKind(std::string_view api_version,
                                                     std::string_view kind);
  GroupVersion ToGroupVersion() const { return {group, version}; }
  GroupKind ToGroupKind() const { return {group, kind}; }
  /// "v1" or "apps/v1".
  std::string ApiVersion() const { return ToGroupVersion().String(); }
  /// "apps/v1, Kind=Deployment" (client-go's format).
  std::string String() const;
  bool operator==(const GroupVersionKind&) const = default;
  auto operator<=>(const GroupVersionKind&) const = default;
};

/// A group, version and plural resource: what a REST path names.
struct GroupVersionResource {
  std::string group;
  std::string version;
  std::string resource;

  GroupVersion ToGroupVersion() const { return {group, version}; }
  GroupResource ToGroupResource() const { return {group, resource}; }
  /// "apps/v1, Resource=deployments" (client-go's format).
  std::string String() const;
  bool operator==(const GroupVersionResource&) const = default;
  auto operator<=>(const GroupVersionResource&) const = default;
};

/// The identity of an object within a resource: namespace (empty for cluster-scoped) and name.
/// Its string form is client-go's MetaNamespaceKeyFunc key: "namespace/name", or "name".
struct ObjectKey {
  std::string ns;
  std::string name;

  /// "namespace/name", or "name" when `ns` is empty.
  std::string String() const;
  /// Parses a key (client-go SplitMetaNamespaceKey): "name" or "namespace/name".
  /// **Errors:** BadRequest `unexpected key format: "a/b/c"` for more than one '/', or an empty name.
  static Result<ObjectKey> Parse(std::string_view key);
  bool operator==(const ObjectKey&) const = default;
  auto operator<=>(const ObjectKey&) const = default;
};

}  // namespace kube

template <>
struct std::hash<kube::ObjectKey> {
  std::size_t operator()(const kube::ObjectKey& k) const noexcept {
    return std::hash<std::string>{}(k.ns) * 31 + std::hash<std::string>{}(k.name);
  }
};
