#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <kube/base/mutex.hpp>
#include <kube/base/result.hpp>
#include <kube/core/gvk.hpp>
#include <kube/core/object.hpp>
#include <kube/core/type_schema.hpp>

namespace kube::apiserver {

/// One column of `kubectl get` Table output (metav1.TableColumnDefinition).
struct TableColumn {
  std::string name;         ///< "NAME", "READY", ...
  std::string type;         ///< "string", "integer", "number", "boolean", "date"
  std::string format;       ///< "name" for the NAME column, "" otherwise
  std::string description;
  int32_t priority = 0;     ///< 0 = shown by default; >0 only with -o wide
  /// For custom resources: a simple JSON path (".spec.replicas") evaluated against the object.
  /// Built-in columns leave it empty and are computed by the table converter.
  std::string json_path;
};

/// Everything the server knows about one served resource (one group/version/resource).
/// A subresource besides `/status` and `/scale` (which have their own flags), as discovery lists
/// it: `pods/binding`, `pods/eviction`, `namespaces/finalize`, ...
struct SubresourceInfo {
  std::string name;     ///< "binding"
  std::string group;    ///< of the kind it takes; "" with `version` "" = the resource's group-version
  std::string version;  ///< "" = the resource's version
  std::string kind;     ///< "Binding"
  std::vector<std::string> verbs;  ///< {"create"}
};

/// Immutable once registered; shared through `std::shared_ptr<const ResourceInfo>`.
struct ResourceInfo {
  std::string group;      ///< "" for the core group
  std::string version;    ///< "v1"
  std::string resource;   ///< plural: "configmaps"
  std::string singular;   ///< "configmap"
  std::string kind;       ///< "ConfigMap"
  std::string list_kind;  ///< "ConfigMapList"
  bool namespaced = true;
  /// A kind kube-apiserver serves from its Go types (RegisterBuiltins sets it): decoded into
  /// the type (unknown members dropped), defaulted and validated by kind-specific rules. False
  /// for custom resources, whose CRD schema prunes, defaults and validates them.
  bool builtin = false;
  std::vector<std::string> short_names;  ///< "cm"
  std::vector<std::string> categories;   ///< "all"
  /// Verbs advertised by discovery: get, list, watch, create, update, patch, delete, deletecollection.
  std::vector<std::string> verbs = {"create", "delete", "deletecollection", "get", "list",
                                    "patch",  "update", "watch"};

  // --- strategy (apiserver-semantics.md §3) ---
  /// `/status` subresource: the main endpoint ignores status changes, `/status` ignores the rest.
  bool has_status = false;
  /// `/scale` subresource (autoscaling/v1 Scale) reading/writing `scale_spec_path`.
  bool has_scale = false;
  std::string scale_spec_replicas_path = "/spec/replicas";
  std::string scale_status_replicas_path = "/status/replicas";
  std::string scale_label_selector_path;  ///< e.g. "/status/selector" (string form); may be empty
  /// Further subresources, for discovery; the REST layer serves those it knows by name.
  std::vector<SubresourceInfo> subresources;
  /// PUT without metadata.resourceVersion is allowed (true for most built-ins; false for CRs).
  bool allow_unconditional_update = true;
  /// PUT of a missing object creates it (Leases, and most built-ins whose strategy allows it).
  bool allow_create_on_update = false;
  /// metadata.generation starts at 1 and is bumped when anything but metadata/status changes
  /// (for resources with a status subresource); resources without it keep generation unset...
  /// see §3.2 for the exact rule per kind.
  bool tracks_generation = false;
  /// Field selectors supported besides metadata.name and metadata.namespace, with the JSON
  /// pointer of each (e.g. {"spec.nodeName", "/spec/nodeName"}).
  std::vector<std::pair<std::string, std::string>> field_selectors;

  /// Table columns for `kubectl get`; empty = the default NAME + AGE (+ CREATED AT semantics).
  std::vector<TableColumn> table_columns;

  /// The object type's schema (merge keys/strategies for strategic merge patch, list and map
  /// types for server-side apply, validation and pruning for custom resources); nullptr = unknown
  /// (no strategic merge metadata, every list atomic, nothing pruned).
  TypeSchemaPtr schema;

  /// When set, objects live under this storage prefix instead of the computed one; used when two
  /// API views share objects (core/v1 and events.k8s.io/v1 Events).
  std::string storage_prefix_override;

  /// The storage key prefix of this resource's objects: "/registry/<group or core>/<resource>/",
  /// or `storage_prefix_override`.
  std::string StoragePrefix() const;
  /// The storage key of one object: prefix + "<ns>/<name>" or prefix + "<name>".
  std::string StorageKey(std::string_view ns, std::string_view name) const;
  GroupVersionResource Gvr() const { return {group, version, resource}; }
  GroupVersionKind Gvk() const { return {group, version, kind}; }
  GroupResource Gr() const { return {group, resource}; }
  /// "v1" or "apps/v1".
  std::string ApiVersion() const { return group.empty() ? version : group + "/" + version; }
};

using ResourcePtr = std::shared_ptr<const ResourceInfo>;

/// The set of served resources. CRDs add and remove entries at runtime; every change bumps
/// `Generation()` so discovery and OpenAPI documents can be cached and invalidated.
/// **Thread-safety:** all members may be called concurrently.
class Registry final {
 public:
  /// Adds or replaces the resource with the same group/version/resource.
  void Add(ResourceInfo info);
  /// Removes a resource; returns whether it existed.
  bool Remove(std::string_view group, std::string_view version, std::string_view resource);
  /// The resource, or nullptr.
  ResourcePtr Find(std::string_view group, std::string_view version, std::string_view resource) const;
  /// The resource serving `kind` in group/version, or nullptr.
  ResourcePtr FindByKind(std::string_view group, std::string_view version, std::string_view kind) const;
  /// Every resource, ordered by group (core first, then registration order of groups), version,
  /// then resource name.
  std::vector<ResourcePtr> All() const;
  /// Bumped on every Add/Remove.
  uint64_t Generation() const;

 private:
  mutable Mutex mu_;
  std::vector<ResourcePtr> resources_ KUBE_GUARDED_BY(mu_);
  std::vector<std::string> group_order_ KUBE_GUARDED_BY(mu_);  // first-registration order
  uint64_t generation_ KUBE_GUARDED_BY(mu_) = 0;
};

}  // namespace kube::apiserver
