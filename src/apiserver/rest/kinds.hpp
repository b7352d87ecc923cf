#pragma once

#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include <kube/apiserver/resource.hpp>
#include <kube/core/status.hpp>

/// The rules of the built-in kinds served without a `BuiltinKind` of their own (StatefulSet,
/// DaemonSet, Job, CronJob, ReplicationController, PodTemplate, PersistentVolume(Claim),
/// Endpoints, EndpointSlice, Ingress, IngressClass, NetworkPolicy, PodDisruptionBudget,
/// HorizontalPodAutoscaler, PriorityClass, ResourceQuota, LimitRange, the webhook
/// configurations, RuntimeClass, ControllerRevision and storage.k8s.io's kinds): kube 1.32's
/// defaults (`SetDefaults_*`), what their strategies' PrepareForCreate sets and their
/// validation, with kube's messages. Kinds these functions do not know are left alone.
/// Internal to src/apiserver/rest. **Thread-safety:** pure functions.
namespace kube::apiserver::rest {

/// Decode-time defaults of `obj`, a `info` object (kube's defaulting functions), including the
/// pod templates the kind holds.
void DefaultOtherKind(const ResourceInfo& info, boost::json::object& obj);

/// What the strategy's PrepareForCreate sets besides the status reset and generation (which the
/// generic strategy does): a Job's generated selector and labels, a DaemonSet's template
/// generation annotation, the protection finalizers of PersistentVolumes and their claims (the
/// StorageObjectInUseProtection admission plugin), the initial phase transition time of a
/// PersistentVolume. `obj` has its uid and creationTimestamp.
void PrepareOtherKindCreate(const ResourceInfo& info, boost::json::object& obj);

/// The status a created `info` object starts with, when it is not Go's zero value of the
/// status type (PersistentVolume and PersistentVolumeClaim: phase Pending); else nullptr.
const boost::json::object* InitialStatusOf(const ResourceInfo& info);

/// kube's validation of `obj` (on create `old` is nullptr; on update the stored object), the
/// object metadata excepted.
void ValidateOtherKind(const ResourceInfo& info, const boost::json::object& obj, const boost::json::object* old,
                       std::vector<FieldError>& errs);

}  // namespace kube::apiserver::rest
