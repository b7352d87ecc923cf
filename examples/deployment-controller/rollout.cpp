#include "rollout.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <kube/api/codec.hpp>
#include <kube/api/equality.hpp>
#include <kube/base/error.hpp>

namespace deployctl {

namespace corev1 = kube::api::core::v1;

std::uint32_t Fnv32a(std::string_view data, std::uint32_t state) {
  for (const char c : data) {
    state ^= static_cast<std::uint8_t>(c);
    state *= 16777619U;
  }
  return state;
}

namespace {

// The template without its pod-template-hash label (an emptied label map is absent: the typed
// API does not tell them apart).
corev1::PodTemplateSpec WithoutHashLabel(corev1::PodTemplateSpec pod_template) {
  pod_template.metadata.labels.erase(std::string(kPodTemplateHashLabel));
  return pod_template;
}

}  // namespace

std::string SafeEncodeString(std::string_view s) {
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  out.reserve(s.size());
  for (const char c : s) out += kAlphabet[static_cast<std::uint8_t>(c) % kAlphabet.size()];
  return out;
}

std::string ComputePodTemplateHash(const corev1::PodTemplateSpec& pod_template,
                                   std::optional<std::int32_t> collision_count) {
  std::uint32_t h = Fnv32a(kube::api::ToJson(WithoutHashLabel(pod_template)));
  if (collision_count) {
    const auto c = static_cast<std::uint32_t>(*collision_count);
    const char bytes[4] = {static_cast<char>(c & 0xff), static_cast<char>((c >> 8) & 0xff),
                           static_cast<char>((c >> 16) & 0xff), static_cast<char>((c >> 24) & 0xff)};
    h = Fnv32a(std::string_view(bytes, 4), h);
  }
  return SafeEncodeString(std::to_string(h));
}

bool EqualIgnoreHash(const corev1::PodTemplateSpec& a, const corev1::PodTemplateSpec& b) {
  return kube::api::SemanticEqual(WithoutHashLabel(a), WithoutHashLabel(b));
}

kube::Result<std::int32_t> ScaledValueFromIntOrPercent(const std::optional<kube::api::IntOrString>& value,
                                                       std::int32_t total, bool round_up) {
  if (!value) return 0;
  // kube's ValidatePositiveIntOrPercent: neither -1 nor "-5%".
  if (value->is_string() ? value->string_value().starts_with('-') : value->int_value() < 0) {
    return kube::BadRequest("invalid value " + value->ToString() + ": must be greater than or equal to 0");
  }
  auto scaled = kube::api::GetScaledValueFromIntOrPercent(*value, total, round_up);
  if (!scaled.ok()) return std::move(scaled).error();
  return static_cast<std::int32_t>(*scaled);
}

kube::Result<Fenceposts> ResolveFenceposts(const std::optional<kube::api::IntOrString>& max_surge,
                                           const std::optional<kube::api::IntOrString>& max_unavailable,
                                           std::int32_t desired) {
  auto surge = ScaledValueFromIntOrPercent(max_surge, desired, /*round_up=*/true);
  if (!surge) return kube::BadRequest("maxSurge: " + surge.error().message);
  auto unavailable = ScaledValueFromIntOrPercent(max_unavailable, desired, /*round_up=*/false);
  if (!unavailable) return kube::BadRequest("maxUnavailable: " + unavailable.error().message);
  Fenceposts f{.max_surge = *surge, .max_unavailable = *unavailable};
  if (f.max_surge == 0 && f.max_unavailable == 0) f.max_unavailable = 1;
  return f;
}

namespace {

std::int32_t Pods(const ReplicaSetCounts& rs) { return std::max(rs.spec_replicas, rs.status_replicas); }
std::int32_t Available(const ReplicaSetCounts& rs) {
  return std::max(0, std::min(rs.available_replicas, rs.spec_replicas));
}

}  // namespace

std::vector<ScaleChange> RollingUpdateStep(std::int32_t desired, Fenceposts fenceposts, const ReplicaSetCounts& new_rs,
                                           const std::vector<ReplicaSetCounts>& old_rss) {
  const bool old_pods_left = std::any_of(old_rss.begin(), old_rss.end(), [](const ReplicaSetCounts& rs) {
    return rs.spec_replicas > 0 || rs.status_replicas > 0;
  });
  if (!old_pods_left) {
    // Not a rollout (or a finished one): a scaling event resizes the new ReplicaSet at once.
    if (new_rs.spec_replicas == desired) return {};
    return {{new_rs.name, new_rs.spec_replicas, desired}};
  }
  if (new_rs.spec_replicas > desired) return {{new_rs.name, new_rs.spec_replicas, desired}};

  // Scale up the new ReplicaSet within desired + maxSurge pods.
  if (new_rs.spec_replicas < desired) {
    std::int32_t current = Pods(new_rs);
    for (const auto& rs : old_rss) current += Pods(rs);
    const std::int32_t max_total = desired + fenceposts.max_surge;
    if (current < max_total) {
      const std::int32_t up = std::min(max_total - current, desired - new_rs.spec_replicas);
      return {{new_rs.name, new_rs.spec_replicas, new_rs.spec_replicas + up}};
    }
  }

  // Scale old ReplicaSets down, keeping desired - maxUnavailable pods available.
  std::vector<ReplicaSetCounts> olds = old_rss;
  std::int32_t old_spec = 0;
  std::int32_t all_spec = new_rs.spec_replicas;
  for (const auto& rs : olds) {
    old_spec += rs.spec_replicas;
    all_spec += rs.spec_replicas;
  }
  if (old_spec == 0) return {};
  const std::int32_t min_available = desired - fenceposts.max_unavailable;
  const std::int32_t new_unavailable = new_rs.spec_replicas - Available(new_rs);
  const std::int32_t max_scaled_down = all_spec - min_available - new_unavailable;
  if (max_scaled_down <= 0) return {};

  std::vector<ScaleChange> changes;
  auto record = [&changes](const std::string& name, std::int32_t from, std::int32_t to) {
    for (auto& c : changes) {
      if (c.name == name) {
        c.to = to;
        return;
      }
    }
    changes.push_back({name, from, to});
  };
  // 1. Unavailable pods of old ReplicaSets go first: removing them costs no availability.
  std::int32_t cleaned = 0;
  for (auto& rs : olds) {
    if (cleaned >= max_scaled_down) break;
    const std::int32_t unhealthy = rs.spec_replicas - Available(rs);
    if (rs.spec_replicas == 0 || unhealthy <= 0) continue;
    const std::int32_t down = std::min(max_scaled_down - cleaned, unhealthy);
    record(rs.name, rs.spec_replicas, rs.spec_replicas - down);
    rs.spec_replicas -= down;
    cleaned += down;
  }
  // 2. Then available pods, down to min_available across all ReplicaSets.
  std::int32_t available = Available(new_rs);
  for (const auto& rs : olds) available += Available(rs);
  if (available > min_available) {
    const std::int32_t total_down = std::min(available - min_available, max_scaled_down - cleaned);
    std::int32_t done = 0;
    for (auto& rs : olds) {
      if (done >= total_down) break;
      if (rs.spec_replicas == 0) continue;
      const std::int32_t down = std::min(rs.spec_replicas, total_down - done);
      record(rs.name, rs.spec_replicas, rs.spec_replicas - down);
      rs.spec_replicas -= down;
      done += down;
    }
  }
  return changes;
}

std::vector<ScaleChange> RecreateStep(std::int32_t desired, const ReplicaSetCounts& new_rs,
                                      const std::vector<ReplicaSetCounts>& old_rss) {
  std::vector<ScaleChange> changes;
  bool pods_left = false;
  for (const auto& rs : old_rss) {
    if (rs.spec_replicas > 0) changes.push_back({rs.name, rs.spec_replicas, 0});
    pods_left = pods_left || rs.spec_replicas > 0 || rs.status_replicas > 0;
  }
  if (pods_left) return changes;
  if (new_rs.spec_replicas != desired) changes.push_back({new_rs.name, new_rs.spec_replicas, desired});
  return changes;
}

std::vector<ScaleChange> PausedScaleStep(std::int32_t desired, const ReplicaSetCounts* new_rs,
                                         const std::vector<ReplicaSetCounts>& old_rss) {
  const ReplicaSetCounts* target = nullptr;
  int active = 0;
  auto visit = [&](const ReplicaSetCounts& rs) {
    if (rs.spec_replicas > 0) {
      ++active;
      target = &rs;
    }
  };
  if (new_rs != nullptr) visit(*new_rs);
  for (const auto& rs : old_rss) visit(rs);
  if (active > 1) return {};
  if (active == 0) target = new_rs != nullptr ? new_rs : (old_rss.empty() ? nullptr : &old_rss.back());
  if (target == nullptr || target->spec_replicas == desired) return {};
  return {{target->name, target->spec_replicas, desired}};
}

std::vector<std::string> RevisionHistoryToDelete(std::vector<HistoryEntry> old_rss, std::int32_t limit) {
  std::erase_if(old_rss, [](const HistoryEntry& e) { return e.deleting; });
  const auto keep = static_cast<std::size_t>(std::max(limit, 0));
  if (old_rss.size() <= keep) return {};
  std::stable_sort(old_rss.begin(), old_rss.end(), [](const HistoryEntry& a, const HistoryEntry& b) {
    return std::make_pair(a.revision, a.name) < std::make_pair(b.revision, b.name);
  });
  std::vector<std::string> out;
  const std::size_t diff = old_rss.size() - keep;
  for (std::size_t i = 0; i < diff; ++i) {
    const auto& e = old_rss[i];
    if (e.spec_replicas != 0 || e.status_replicas != 0 || !e.synced) continue;
    out.push_back(e.name);
  }
  return out;
}

ProgressDecision NextProgressing(const ProgressInput& in) {
  ProgressDecision out;
  const bool has_deadline = in.deadline.has_value();
  if (in.paused) {
    if (has_deadline && in.current_reason != "ProgressDeadlineExceeded" && in.current_reason != "DeploymentPaused") {
      out.updates.push_back({"Unknown", "DeploymentPaused", "Deployment is paused"});
    }
    return out;
  }
  std::string reason = in.current_reason;
  std::optional<kube::Clock::WallTime> last_update = in.last_update;
  if (has_deadline && reason == "DeploymentPaused") {
    out.updates.push_back({"Unknown", "DeploymentResumed", "Deployment is resumed"});
    reason = "DeploymentResumed";
    last_update = in.now;
  }
  const std::string quoted = "\"" + in.rs_name + "\"";
  if (in.created_new) {
    out.updates.push_back({"True", "NewReplicaSetCreated", "Created new replica set " + quoted});
    last_update = in.now;
  } else if (in.complete) {
    out.updates.push_back({"True", "NewReplicaSetAvailable", "ReplicaSet " + quoted + " has successfully progressed."});
    return out;
  } else if (in.progressed || reason == "NewReplicaSetAvailable") {
    out.updates.push_back({"True", "ReplicaSetUpdated", "ReplicaSet " + quoted + " is progressing.", true});
    last_update = in.now;
  } else if (reason.empty()) {
    out.updates.push_back({"True", "FoundNewReplicaSet", "Found new replica set " + quoted});
    last_update = in.now;
  } else if (reason == "ProgressDeadlineExceeded") {
    return out;  // stays until progress is made
  }
  if (!has_deadline) return out;
  const kube::Clock::WallTime from = last_update.value_or(in.now);
  const kube::Clock::WallTime due = from + *in.deadline;
  if (in.now >= due) {
    out.updates.push_back({"False", "ProgressDeadlineExceeded", "ReplicaSet " + quoted + " has timed out progressing."});
  } else {
    out.recheck_after = std::chrono::duration_cast<kube::Clock::Duration>(due - in.now);
  }
  return out;
}

}  // namespace deployctl
