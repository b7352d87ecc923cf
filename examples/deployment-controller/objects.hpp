#pragma once
/// \file
/// Resources and small object readers shared by the three controllers of the example.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <kube/base/clock.hpp>
#include <kube/base/result.hpp>
#include <kube/controller/client.hpp>

#include <kube/core/gvk.hpp>
#include <kube/core/object.hpp>

namespace deployctl {

inline const kube::GroupVersionResource kDeployments{"apps", "v1", "deployments"};
inline const kube::GroupVersionResource kReplicaSets{"apps", "v1", "replicasets"};
inline const kube::GroupVersionResource kPods{"", "v1", "pods"};
inline const kube::GroupVersionResource kNodes{"", "v1", "nodes"};

/// The int32 at `pointer` of `obj`, or `fallback` when absent or not an integer.
std::int32_t Int32At(const kube::Object& obj, std::string_view pointer, std::int32_t fallback = 0);

/// The JSON value at `pointer`, or null.
boost::json::value ValueAt(const kube::Object& obj, std::string_view pointer);

/// True when the pod's `Ready` condition is `True`.
bool IsPodReady(const kube::Object& pod);

/// When a pod counts as available (kube's `IsPodAvailable`): its Ready condition's
/// lastTransitionTime + `min_ready_seconds`. nullopt when it is not Ready, or when
/// `min_ready_seconds` > 0 and the time is missing or unparseable. With `min_ready_seconds` = 0
/// a Ready pod is available at once (the epoch is returned).
std::optional<kube::Clock::WallTime> PodAvailableAt(const kube::Object& pod, std::int64_t min_ready_seconds);

/// True for a pod that counts towards a ReplicaSet: not being deleted, not Succeeded/Failed.
bool IsPodActive(const kube::Object& pod);

/// True when `obj`'s controller ownerReference points at the object with uid `owner_uid`.
bool IsControlledBy(const kube::Object& obj, std::string_view owner_uid);

/// kube's `ActivePods` order, the order in which a shrinking ReplicaSet deletes pods: unbound
/// before bound, Pending before Unknown before Running, not ready before ready, newer before
/// older (then by name, for a deterministic order).
bool DeletesBefore(const kube::Object& a, const kube::Object& b);

/// Writes `status` as the status of `read` (PUT `/status` with `read`'s resourceVersion). On a
/// 409 — usually a cache one event behind — it reads the object from the API server and tries
/// once more on that version, as kube's controllers do (`statusUpdateRetries`); a second
/// conflict, or an object re-created meanwhile (another uid), is returned as the error.
kube::Result<kube::ObjectPtr> WriteStatus(kube::controller::Client& client, const kube::GroupVersionResource& gvr,
                                          const kube::Object& read, const boost::json::object& status);

}  // namespace deployctl
