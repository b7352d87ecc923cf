#pragma once
/// \file
/// Small readers of the typed API objects shared by the three controllers of the example, and
/// the status write they all use.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <kube/api/apps/v1.hpp>
#include <kube/api/core/v1.hpp>
#include <kube/api/meta/v1.hpp>
#include <kube/api/object.hpp>
#include <kube/base/clock.hpp>
#include <kube/base/error.hpp>
#include <kube/base/result.hpp>
#include <kube/base/wait.hpp>
#include <kube/client/typed_api.hpp>
#include <kube/controller/client.hpp>
#include <kube/controller/event_recorder.hpp>
#include <kube/controller/typed.hpp>
#include <kube/core/label_selector.hpp>

namespace deployctl {

namespace appsv1 = kube::api::apps::v1;
namespace corev1 = kube::api::core::v1;
namespace metav1 = kube::api::meta::v1;

/// apimachinery's `LabelSelectorAsSelector`: the selector a `metav1.LabelSelector` stands for
/// (`{}` selects everything). **Errors:** BadRequest for an invalid operator, key or value.
kube::Result<kube::LabelSelector> SelectorOf(const metav1::LabelSelector& selector);

/// True when the pod's `Ready` condition is `True`.
bool IsPodReady(const corev1::Pod& pod);

/// When a pod counts as available (kube's `IsPodAvailable`): its Ready condition's
/// lastTransitionTime + `min_ready_seconds`. nullopt when it is not Ready, or when
/// `min_ready_seconds` > 0 and the time is missing. With `min_ready_seconds` = 0 a Ready pod is
/// available at once (the epoch is returned).
std::optional<kube::Clock::WallTime> PodAvailableAt(const corev1::Pod& pod, std::int64_t min_ready_seconds);

/// True for a pod that counts towards a ReplicaSet: not being deleted, not Succeeded/Failed.
bool IsPodActive(const corev1::Pod& pod);

/// kube's `ActivePods` order, the order in which a shrinking ReplicaSet deletes pods: unbound
/// before bound, Pending before Unknown before Running, not ready before ready, newer before
/// older (then by name, for a deterministic order).
bool DeletesBefore(const corev1::Pod& a, const corev1::Pod& b);

/// True when `object`'s controller ownerReference points at the object with uid `owner_uid`.
template <class T>
bool IsControlledBy(const T& object, std::string_view owner_uid) {
  const metav1::OwnerReference* ref = kube::controller::GetControllerOf(object);
  return ref != nullptr && ref->uid == owner_uid;
}

/// True once the object has a deletionTimestamp.
template <class T>
bool IsBeingDeleted(const T& object) {
  return object.metadata.deletionTimestamp.has_value();
}

/// `now` as the API stores it: whole seconds (so that a status compares equal after its round
/// trip through the server).
inline kube::api::Time ApiTime(kube::Clock::WallTime now) {
  return kube::api::Time{std::chrono::floor<std::chrono::seconds>(now)};
}

/// Writes `object.status` (PUT `/status` with `object`'s resourceVersion, usually the cached
/// one). On a 409 — usually a cache one event behind — it reads the object from the API server
/// and writes the same status onto that version once more, as kube's controllers do
/// (`statusUpdateRetries`); a second conflict, or an object re-created meanwhile (another uid),
/// is returned as the error. Returns what the server stored.
template <kube::client::TypedResource T>
kube::Result<T> WriteStatus(kube::controller::Client& client, const T& object) {
  std::optional<T> written;
  std::optional<kube::Error> first_conflict;
  auto done = kube::RetryOnConflict(
      kube::Backoff{.duration = kube::Clock::Duration::zero(), .steps = 2}, [&]() -> kube::Result<void> {
        T target = object;
        if (first_conflict) {
          kube::client::TypedApi<T> api(client.Api(kube::client::ResourceOf<T>(), object.metadata.namespace_));
          auto live = api.Get(object.metadata.name);
          if (!live.ok()) return std::move(live).error();
          if (live->metadata.uid != object.metadata.uid) return *first_conflict;
          target = std::move(*live);
          target.status = object.status;
        }
        auto w = client.UpdateStatus(target);
        if (!w.ok()) {
          if (kube::IsConflict(w.error()) && !first_conflict) first_conflict = w.error();
          return std::move(w).error();
        }
        written = std::move(*w);
        return kube::Ok();
      });
  if (!done.ok()) return std::move(done).error();
  return std::move(*written);
}

}  // namespace deployctl
