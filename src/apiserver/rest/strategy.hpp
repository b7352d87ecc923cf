#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include <kube/apiserver/resource.hpp>
#include <kube/base/result.hpp>
#include <kube/core/status.hpp>

#include "apiserver/rest/names.hpp"

/// Per-kind REST strategies (kube's `rest.RESTCreateStrategy` / `RESTUpdateStrategy` plus the
/// versioned defaulting and conversion that run when a body is decoded), for the built-ins of
/// `RegisterBuiltins` and a generic custom-resource rule set for anything else.
///
/// Every function works on a JSON DOM of one object in the *stored* form (for events.k8s.io/v1,
/// the core/v1 form: see `ViewToStored`). **Thread-safety:** pure functions.
namespace kube::apiserver::rest {

/// The built-in kinds whose behaviour differs from the generic rules.
enum class BuiltinKind {
  kGeneric,  ///< custom resources and anything unknown
  kNamespace,
  kConfigMap,
  kSecret,
  kEvent,    ///< core/v1 events
  kEventV1,  ///< events.k8s.io/v1 view of the same objects
  kPod,
  kService,
  kServiceAccount,
  kNode,
  kDeployment,
  kReplicaSet,
  kLease,
};

/// Which endpoint a write came through.
enum class Subresource {
  kNone,
  kStatus,
  kScale,
  kFinalize,
  kBinding,   ///< pods/binding (POST only; not a strategy update)
  kEviction,  ///< pods/eviction (POST only; a delete)
  kToken,     ///< serviceaccounts/token (POST only; nothing is stored)
  kApproval,  ///< certificatesigningrequests/approval (the approval conditions)
};

/// The kind of `info` (by group and resource).
BuiltinKind KindOf(const ResourceInfo& info);
/// How `metadata.name` is validated.
NameRule NameRuleFor(const ResourceInfo& info);
/// True when an immediate DELETE answers with the deleted object (kube's ReturnDeletedObject:
/// pods, services, serviceaccounts, namespaces); otherwise a Success Status.
bool ReturnsDeletedObject(const ResourceInfo& info);
/// The string value of field label `field` of `obj` for field selectors (absent booleans read
/// "false" and absent integers "0", as kube's GetAttrs field sets do). `pointer` is the JSON
/// pointer the label maps to.
std::string FieldValueString(std::string_view field, const boost::json::value* value);

/// True when the served form differs from the stored one (events.k8s.io/v1, autoscaling/v1
/// HorizontalPodAutoscalers).
bool NeedsViewConversion(const ResourceInfo& info);
/// Converts a stored object into the form served by `info`, in place.
void StoredToView(const ResourceInfo& info, boost::json::object& obj);
/// Converts a request body in the form served by `info` into the stored form, in place.
void ViewToStored(const ResourceInfo& info, boost::json::object& obj);

/// What kube does when it decodes a body into the internal type: type checks that fail the decode
/// (400 `<Kind> in version "<v>" cannot be handled as a <Kind>: ...`), Secret `stringData` merged
/// into `data`, and the v1 defaulting functions (Secret type, Service type/ports, Pod and pod
/// template defaults, Deployment/ReplicaSet replicas and strategy, the Namespace name label).
/// Runs on every create, update and patch result. **Errors:** 400 BadRequest as described.
Result<void> DecodeAndDefault(const ResourceInfo& info, boost::json::object& obj);

/// The v1 defaults of a pod template: its spec's, and null for its metadata's creationTimestamp.
void DefaultPodTemplateSpec(boost::json::object& tmpl);

/// `PrepareForCreate`: resets `status` for kinds with a status subresource (pods get
/// phase Pending and a QoS class, namespaces phase Active), sets generation 1 where tracked,
/// namespace finalizers, service cluster IPs, the requester of a CertificateSigningRequest (the
/// request's authenticated `user`). System metadata (uid, timestamps) is the caller's.
void PrepareForCreate(const ResourceInfo& info, boost::json::object& obj, std::string_view user = {});

/// `PrepareForUpdate` for a write through `sub`: the main resource keeps the old `status`; `/status`
/// keeps everything but metadata and status from the old object (apps kinds also keep labels);
/// `/finalize` takes only `spec.finalizers`. Generation is taken from `old` and bumped per kind
/// (spec changes; Deployment also annotations; custom resources any non-metadata change).
/// CertificateSigningRequests keep their spec, `/approval` takes only the conditions, and
/// conditions get their timestamps from `now` (RFC 3339).
void PrepareForUpdate(const ResourceInfo& info, Subresource sub, boost::json::object& obj,
                      const boost::json::object& old, std::string_view now = {});

/// What reading the validated object back from storage adds, before it is stored: the defaults
/// kube's storage decoder applies (the behavior rules of a HorizontalPodAutoscaler written
/// through autoscaling/v1, validated without them).
void PrepareForStorage(const ResourceInfo& info, boost::json::object& obj);

/// The reset fields of a kind's strategy for writes through `sub` that the generic rules do not
/// cover (a reset `status` of the main resource): what kube's field manager never gives a
/// manager (top-level members, or dotted paths such as `status.conditions`).
std::vector<std::string> ResetFields(const ResourceInfo& info, Subresource sub);

/// `Validate` on create: object metadata with the kind's name rule plus per-kind checks.
/// `via_events_v1` selects the strict events.k8s.io/v1 rules for Events.
std::vector<FieldError> ValidateCreate(const ResourceInfo& info, const boost::json::object& obj,
                                       bool via_events_v1);
/// `ValidateUpdate`: metadata, immutable fields (uid, selectors of apps kinds) and per-kind checks
/// (CertificateSigningRequests: those of the strategy of `sub`).
std::vector<FieldError> ValidateUpdate(const ResourceInfo& info, const boost::json::object& obj,
                                       const boost::json::object& old, Subresource sub = Subresource::kNone);

/// The autoscaling/v1 Scale of a Deployment/ReplicaSet-like object.
/// **Errors:** 400 BadRequest when the selector cannot be converted.
Result<boost::json::object> ScaleFromObject(const ResourceInfo& info, const boost::json::object& obj);

/// The GroupKind kube names in a 422 for this resource (`Deployment.apps`).
GroupKind GroupKindOf(const ResourceInfo& info);

}  // namespace kube::apiserver::rest
