#include "objects.hpp"

#include <chrono>
#include <string>
#include <tuple>

#include <kube/api/codec.hpp>
#include <kube/core/json.hpp>

namespace deployctl {

kube::Result<kube::LabelSelector> SelectorOf(const metav1::LabelSelector& selector) {
  // The library converts the selector's wire form; one implementation of the rules.
  auto json = kube::ParseJson(kube::api::ToJson(selector));
  if (!json.ok()) return std::move(json).error();
  return kube::LabelSelector::FromLabelSelectorJson(*json);
}

namespace {

const corev1::PodCondition* ReadyCondition(const corev1::Pod& pod) {
  for (const auto& c : pod.status.conditions) {
    if (c.type == "Ready") return &c;
  }
  return nullptr;
}

int PhaseRank(const corev1::Pod& pod) {
  const std::string phase = pod.status.phase.value_or("");
  if (phase == "Pending" || phase.empty()) return 0;
  if (phase == "Unknown") return 1;
  return 2;  // Running
}

}  // namespace

bool IsPodReady(const corev1::Pod& pod) {
  const corev1::PodCondition* ready = ReadyCondition(pod);
  return ready != nullptr && ready->status == "True";
}

std::optional<kube::Clock::WallTime> PodAvailableAt(const corev1::Pod& pod, std::int64_t min_ready_seconds) {
  if (!IsPodReady(pod)) return std::nullopt;
  if (min_ready_seconds <= 0) return kube::Clock::WallTime{};
  const auto& since = ReadyCondition(pod)->lastTransitionTime;
  if (!since) return std::nullopt;
  return since->time + std::chrono::seconds(min_ready_seconds);
}

bool IsPodActive(const corev1::Pod& pod) {
  if (IsBeingDeleted(pod)) return false;
  const std::string phase = pod.status.phase.value_or("");
  return phase != "Succeeded" && phase != "Failed";
}

bool DeletesBefore(const corev1::Pod& a, const corev1::Pod& b) {
  const bool a_bound = !a.spec.nodeName.value_or("").empty();
  const bool b_bound = !b.spec.nodeName.value_or("").empty();
  const int a_rank = PhaseRank(a);
  const int b_rank = PhaseRank(b);
  const bool a_ready = IsPodReady(a);
  const bool b_ready = IsPodReady(b);
  // Newer first, hence b's creationTimestamp before a's (an absent one sorts first).
  return std::tie(a_bound, a_rank, a_ready, b.metadata.creationTimestamp, a.metadata.name) <
         std::tie(b_bound, b_rank, b_ready, a.metadata.creationTimestamp, b.metadata.name);
}

}  // namespace deployctl
