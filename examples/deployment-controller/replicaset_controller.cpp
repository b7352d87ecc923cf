#include "replicaset_controller.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <kube/api/equality.hpp>
#include <kube/base/error.hpp>
#include <kube/controller/typed.hpp>
#include <kube/core/label_selector.hpp>

#include "objects.hpp"

namespace deployctl {

using kube::controller::ReconcileResult;

namespace {

using PodPtr = std::shared_ptr<const corev1::Pod>;

// A pod built from the ReplicaSet's template, named by the server (`<rs>-<5 chars>`).
kube::Result<corev1::Pod> PodFromTemplate(const appsv1::ReplicaSet& rs) {
  corev1::Pod pod;
  pod.metadata.namespace_ = rs.metadata.namespace_;
  pod.metadata.generateName = rs.metadata.name + "-";
  pod.metadata.labels = rs.spec.template_.metadata.labels;
  pod.metadata.annotations = rs.spec.template_.metadata.annotations;
  pod.spec = rs.spec.template_.spec;
  KUBE_RETURN_IF_ERROR(kube::controller::SetControllerReference(rs, pod));
  return pod;
}

bool FullyLabeled(const corev1::Pod& pod, const std::map<std::string, std::string>& template_labels) {
  for (const auto& [k, v] : template_labels) {
    auto have = pod.metadata.labels.find(k);
    if (have == pod.metadata.labels.end() || have->second != v) return false;
  }
  return true;
}

}  // namespace

kube::Result<ReconcileResult> ReplicaSetReconciler::Reconcile(kube::controller::ReconcileContext& ctx,
                                                              const kube::controller::Request& request) {
  const std::string key = request.String();
  auto rs_or = client_.Get<appsv1::ReplicaSet>(request.key, ctx.stop);
  if (!rs_or) {
    if (!kube::IsNotFound(rs_or.error())) return rs_or.error();
    expectations_.Forget(key);
    return ReconcileResult::Done();
  }
  appsv1::ReplicaSet& rs = *rs_or;
  if (IsBeingDeleted(rs)) return ReconcileResult::Done();  // the garbage collector takes the pods
  auto selector = SelectorOf(rs.spec.selector);
  if (!selector) return kube::controller::TerminalError(selector.error());
  const std::string& ns = rs.metadata.namespace_;
  auto pods = options_.list_pods ? options_.list_pods(ns, *selector, ctx.stop)
                                 : client_.List<corev1::Pod>({.ns = ns, .selector = *selector}, ctx.stop);
  if (!pods) return pods.error();

  const std::string& uid = rs.metadata.uid;
  std::set<std::string> cached;
  std::vector<PodPtr> active;
  for (const auto& pod : *pods) {
    if (!IsControlledBy(*pod, uid)) continue;
    cached.insert(pod->metadata.name);
    if (IsPodActive(*pod)) active.push_back(pod);
  }

  const std::int32_t desired = rs.spec.replicas.value_or(1);
  const bool satisfied = expectations_.Satisfied(key, uid, cached);
  if (satisfied) {
    const auto have = static_cast<std::int32_t>(active.size());
    if (have < desired) {
      const std::int32_t n = std::min(desired - have, options_.burst_replicas);
      auto pod = PodFromTemplate(rs);
      if (!pod) return kube::controller::TerminalError(pod.error());
      for (std::int32_t i = 0; i < n; ++i) {
        auto created = client_.Create(*pod);
        if (!created) return created.error();
        expectations_.ExpectCreation(key, uid, created->metadata.name);
        kube::controller::RecordEventf(recorder_, rs, kube::controller::EventType::kNormal, "SuccessfulCreate", "Created pod: {}",
                    created->metadata.name);
      }
      ctx.log.Info("created pods", {{"count", n}, {"replicas", desired}});
    } else if (have > desired) {
      const std::int32_t n = std::min(have - desired, options_.burst_replicas);
      std::sort(active.begin(), active.end(), [](const PodPtr& a, const PodPtr& b) { return DeletesBefore(*a, *b); });
      for (std::int32_t i = 0; i < n; ++i) {
        const corev1::Pod& pod = *active[static_cast<std::size_t>(i)];
        auto deleted = client_.Delete(pod, {.preconditions = kube::Preconditions{.uid = pod.metadata.uid}});
        if (!deleted && !kube::IsNotFound(deleted.error())) return deleted.error();
        expectations_.ExpectDeletion(key, uid, pod.metadata.name);
        kube::controller::RecordEventf(recorder_, rs, kube::controller::EventType::kNormal, "SuccessfulDelete", "Deleted pod: {}",
                    pod.metadata.name);
      }
      ctx.log.Info("deleted pods", {{"count", n}, {"replicas", desired}});
    }
  }

  // Status from what the cache shows (fresh pods arrive as events and reconcile again).
  std::int32_t ready = 0;
  std::int32_t available = 0;
  std::int32_t labeled = 0;
  const std::int64_t min_ready_seconds = rs.spec.minReadySeconds.value_or(0);
  const auto now = clock_.WallNow();
  std::optional<kube::Clock::Duration> next_available;  // until the next Ready pod becomes available
  for (const auto& pod : active) {
    if (IsPodReady(*pod)) ++ready;
    if (FullyLabeled(*pod, rs.spec.template_.metadata.labels)) ++labeled;
    if (const auto at = PodAvailableAt(*pod, min_ready_seconds)) {
      if (*at <= now) {
        ++available;
      } else {
        const auto wait = std::chrono::duration_cast<kube::Clock::Duration>(*at - now);
        next_available = next_available ? std::min(*next_available, wait) : wait;
      }
    }
  }
  appsv1::ReplicaSetStatus status = rs.status;
  status.replicas = static_cast<std::int32_t>(active.size());
  status.fullyLabeledReplicas = labeled;
  status.readyReplicas = ready;
  status.availableReplicas = available;
  status.observedGeneration = rs.metadata.generation;
  if (!kube::api::SemanticEqual(status, rs.status)) {
    rs.status = std::move(status);
    auto updated = WriteStatus(client_, rs);
    if (!updated) return updated.error();
  }
  // Pod events normally end the wait; the requeue at the expiry is the safety net for a lost one.
  if (expectations_.Pending(key) > 0) {
    const auto expiry = expectations_.UntilExpiry(key);
    return ReconcileResult::RequeueAfter(next_available ? std::min(*next_available, expiry) : expiry);
  }
  if (next_available) return ReconcileResult::RequeueAfter(*next_available);
  return ReconcileResult::Done();
}

}  // namespace deployctl
