#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include <kube/apiserver/resource.hpp>
#include <kube/base/result.hpp>
#include <kube/core/status.hpp>

/// CustomResourceDefinitions (apiextensions.k8s.io/v1, apiserver-semantics.md §6): the CRD
/// resource itself, its strategy (defaulting, validation, the status the naming and establishing
/// controllers maintain) and the conversion of a CRD into the ResourceInfo of each served version.
/// **Thread-safety:** pure functions.
namespace kube::apiserver::rest {

/// The group, resource and finalizer of CRDs.
inline constexpr std::string_view kCrdGroup = "apiextensions.k8s.io";
inline constexpr std::string_view kCrdResource = "customresourcedefinitions";
/// The finalizer kube adds on create; removed once every custom resource is gone.
inline constexpr std::string_view kCrdCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io";

/// The served `customresourcedefinitions` resource: cluster-scoped, short names crd/crds,
/// category api-extensions, `/status`, generation tracked, no unconditional update.
ResourceInfo CrdResourceInfo();

/// Adds `CrdResourceInfo()` to `registry` (called from `RegisterBuiltins`).
void RegisterCustomResourceDefinitions(Registry& registry);

/// True for the `customresourcedefinitions` resource.
bool IsCrdResource(const ResourceInfo& info);

/// True when the CRD is being deleted: its `Terminating` condition is True, or it has a
/// deletionTimestamp (the condition follows from the controller's next pass).
bool CrdIsTerminating(const boost::json::object& crd);

/// kube's CR handler answer to a POST of a custom resource whose CRD is terminating: 405
/// MethodNotAllowed `create not allowed while custom resource definition is terminating`, details
/// {group, kind: <plural>}.
Error NewCrdTerminatingCreate(const GroupResource& gr);

/// The defaulted `spec.names` of a CRD and its group (empty strings when absent).
struct CrdNames {
  std::string group;
  std::string plural;
  std::string singular;
  std::string kind;
  std::string list_kind;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
};

/// `spec.group` and the `spec.names` of `crd` with kube's defaults applied (singular =
/// lower(kind), listKind = kind + "List").
CrdNames NamesOf(const boost::json::object& crd);

/// kube's CRD defaulting: names.singular, names.listKind, spec.conversion {strategy: None},
/// and the finalizer `customresourcecleanup.apiextensions.k8s.io` when `creating`.
void DefaultCrd(boost::json::object& crd, bool creating);

/// kube's CRD validation with its 422 field errors: the name must be `<plural>.<group>`, the
/// group a domain with a dot, names present and DNS-1035 (plural, singular, short names,
/// categories), kind set and distinct from listKind, scope Cluster|Namespaced, versions non-empty
/// with unique DNS-1035 names, exactly one storage version, at least one served, a schema of type
/// object for each version, well-formed scale paths, printer columns and selectable fields.
/// With `old` (an update) `spec.group` must not change; the server's per-kind validation hook has
/// no old object and passes nullptr.
std::vector<FieldError> ValidateCrd(const boost::json::object& crd, const boost::json::object* old);

/// The update-only rules of a CRD (kube's ValidateCustomResourceDefinitionSpecUpdate):
/// `spec.group` and `spec.names.plural` never change; once `old` is Established, neither do
/// `spec.scope` and `spec.names.kind` (`field is immutable`).
std::vector<FieldError> ValidateCrdUpdate(const boost::json::object& crd, const boost::json::object& old);

/// Converts a CRD JSONPath of the simple form `.spec.replicas` into a JSON pointer
/// (`/spec/replicas`); "" for anything else (indices, filters).
std::string SimpleJsonPathToPointer(std::string_view json_path);

/// The ResourceInfo of every served version of `crd` (group, names, scope, status and scale
/// subresources, printer columns, selectable fields, parsed schema; no unconditional update;
/// generation tracked). Versions whose schema does not parse get a null schema.
std::vector<ResourceInfo> CrdServedResources(const boost::json::object& crd);

/// The name of a names conflict found by the naming controller, or an empty reason.
struct NamesConflict {
  std::string reason;   ///< "PluralConflict", "SingularConflict", "ShortNamesConflict", "KindConflict", "ListKindConflict"
  std::string message;  ///< `"<name>" is already in use`
};

/// kube's naming controller check of `names` against the other resources served in its group
/// (`others`: every resource of the group not served by this CRD).
NamesConflict FindNamesConflict(const CrdNames& names, const std::vector<ResourcePtr>& others);

/// Writes the status the naming and establishing controllers maintain: `acceptedNames` (the
/// names, or the previous accepted names on a conflict), `storedVersions` (previous ones plus the
/// storage version), conditions NamesAccepted (True NoConflicts / False <conflict>) and
/// Established (True InitialNamesAccepted once the names were accepted; False NotAccepted
/// before). Other conditions (Terminating) are kept; lastTransitionTime changes only with the
/// status. `now` is an RFC 3339 time.
void UpdateCrdStatus(boost::json::object& crd, const NamesConflict& conflict, std::string_view now);

/// Sets (or replaces) condition `type` of `crd`'s status, keeping lastTransitionTime when the
/// status does not change.
void SetCrdCondition(boost::json::object& crd, std::string_view type, std::string_view status,
                     std::string_view reason, std::string_view message, std::string_view now);

/// True when condition `type` of `crd` has status "True".
bool CrdConditionTrue(const boost::json::object& crd, std::string_view type);

}  // namespace kube::apiserver::rest
