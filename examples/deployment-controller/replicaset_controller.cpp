#include "replicaset_controller.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include <kube/base/error.hpp>
#include <kube/controller/controllerutil.hpp>
#include <kube/core/label_selector.hpp>

#include "objects.hpp"
#include "rollout.hpp"

namespace deployctl {

namespace json = boost::json;
using kube::controller::ReconcileResult;

namespace {

// A pod built from the ReplicaSet's template, named by the server (`<rs>-<5 chars>`).
kube::Result<kube::ObjectPtr> PodFromTemplate(const kube::Object& rs) {
  kube::ObjectBuilder pod("v1", "Pod");
  pod.SetNamespace(rs.Namespace()).SetGenerateName(std::string(rs.Name()) + "-");
  const json::value tmpl = ValueAt(rs, "/spec/template");
  if (tmpl.is_object()) {
    if (const auto* meta = tmpl.get_object().if_contains("metadata"); meta != nullptr && meta->is_object()) {
      for (const char* field : {"labels", "annotations"}) {
        if (const auto* v = meta->get_object().if_contains(field); v != nullptr && v->is_object()) {
          pod.Metadata()[field] = *v;
        }
      }
    }
    if (const auto* spec = tmpl.get_object().if_contains("spec"); spec != nullptr) pod.Json()["spec"] = *spec;
  }
  if (auto owned = kube::controller::SetControllerReference(rs, pod); !owned) return owned.error();
  return pod.Build();
}

bool FullyLabeled(const kube::Object& pod, const json::value& template_labels) {
  if (!template_labels.is_object()) return true;
  for (const auto& [k, v] : template_labels.get_object()) {
    const auto have = pod.Labels().Get(k);
    if (!have || !v.is_string() || *have != v.get_string()) return false;
  }
  return true;
}

}  // namespace

kube::Result<ReconcileResult> ReplicaSetReconciler::Reconcile(kube::controller::ReconcileContext& ctx,
                                                              const kube::controller::Request& request) {
  const std::string key = request.String();
  auto rs_or = client_.Get(kReplicaSets, request.key, ctx.stop);
  if (!rs_or) {
    if (!kube::IsNotFound(rs_or.error())) return rs_or.error();
    expectations_.Forget(key);
    return ReconcileResult::Done();
  }
  const kube::ObjectPtr rs = *rs_or;
  if (rs->IsBeingDeleted()) return ReconcileResult::Done();  // the garbage collector takes the pods
  auto selector = kube::LabelSelector::FromLabelSelectorJson(ValueAt(*rs, "/spec/selector"));
  if (!selector) return kube::controller::TerminalError(selector.error());
  const std::string ns(rs->Namespace());
  auto pods = options_.list_pods ? options_.list_pods(ns, *selector, ctx.stop)
                                 : client_.List(kPods, {.ns = ns, .selector = *selector}, ctx.stop);
  if (!pods) return pods.error();

  const std::string uid(rs->Uid());
  std::set<std::string> cached;
  std::vector<kube::ObjectPtr> active;
  for (const auto& pod : *pods) {
    if (!IsControlledBy(*pod, uid)) continue;
    cached.insert(std::string(pod->Name()));
    if (IsPodActive(*pod)) active.push_back(pod);
  }

  const std::int32_t desired = Int32At(*rs, "/spec/replicas", 1);
  const bool satisfied = expectations_.Satisfied(key, uid, cached);
  if (satisfied) {
    const auto have = static_cast<std::int32_t>(active.size());
    if (have < desired) {
      const std::int32_t n = std::min(desired - have, options_.burst_replicas);
      auto pod = PodFromTemplate(*rs);
      if (!pod) return kube::controller::TerminalError(pod.error());
      for (std::int32_t i = 0; i < n; ++i) {
        auto created = client_.Create(**pod);
        if (!created) return created.error();
        expectations_.ExpectCreation(key, uid, std::string((*created)->Name()));
        recorder_.Eventf(*rs, kube::controller::EventType::kNormal, "SuccessfulCreate", "Created pod: {}",
                         (*created)->Name());
      }
      ctx.log.Info("created pods", {{"count", n}, {"replicas", desired}});
    } else if (have > desired) {
      const std::int32_t n = std::min(have - desired, options_.burst_replicas);
      std::sort(active.begin(), active.end(),
                [](const kube::ObjectPtr& a, const kube::ObjectPtr& b) { return DeletesBefore(*a, *b); });
      for (std::int32_t i = 0; i < n; ++i) {
        const auto& pod = active[static_cast<std::size_t>(i)];
        auto deleted = client_.Delete(*pod, {.preconditions = kube::Preconditions{.uid = std::string(pod->Uid())}});
        if (!deleted && !kube::IsNotFound(deleted.error())) return deleted.error();
        expectations_.ExpectDeletion(key, uid, std::string(pod->Name()));
        recorder_.Eventf(*rs, kube::controller::EventType::kNormal, "SuccessfulDelete", "Deleted pod: {}",
                         pod->Name());
      }
      ctx.log.Info("deleted pods", {{"count", n}, {"replicas", desired}});
    }
  }

  // Status from what the cache shows (fresh pods arrive as events and reconcile again).
  const json::value template_labels = ValueAt(*rs, "/spec/template/metadata/labels");
  std::int64_t ready = 0;
  std::int64_t available = 0;
  std::int64_t labeled = 0;
  const std::int64_t min_ready_seconds = rs->GetInt("/spec/minReadySeconds").value_or(0);
  const auto now = clock_.WallNow();
  std::optional<kube::Clock::Duration> next_available;  // until the next Ready pod becomes available
  for (const auto& pod : active) {
    if (IsPodReady(*pod)) ++ready;
    if (FullyLabeled(*pod, template_labels)) ++labeled;
    if (const auto at = PodAvailableAt(*pod, min_ready_seconds)) {
      if (*at <= now) {
        ++available;
      } else {
        const auto wait = std::chrono::duration_cast<kube::Clock::Duration>(*at - now);
        next_available = next_available ? std::min(*next_available, wait) : wait;
      }
    }
  }
  const json::value old_status = ValueAt(*rs, "/status");
  json::object status = old_status.is_object() ? old_status.get_object() : json::object();
  status["replicas"] = static_cast<std::int64_t>(active.size());
  status["fullyLabeledReplicas"] = labeled;
  status["readyReplicas"] = ready;
  status["availableReplicas"] = available;
  status["observedGeneration"] = rs->Generation();
  if (CanonicalJson(status) != CanonicalJson(old_status)) {
    auto updated = WriteStatus(client_, kReplicaSets, *rs, status);
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
