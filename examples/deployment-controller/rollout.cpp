#include "rollout.hpp"

#include <algorithm>
#include <charconv>
#include <string>
#include <utility>
#include <vector>

#include <boost/json.hpp>

#include <kube/base/error.hpp>
#include <kube/core/json.hpp>

namespace deployctl {

namespace json = boost::json;

std::uint32_t Fnv32a(std::string_view data, std::uint32_t state) {
  for (const char c : data) {
    state ^= static_cast<std::uint8_t>(c);
    state *= 16777619U;
  }
  return state;
}

namespace {

void AppendCanonical(const json::value& v, std::string& out) {
  if (v.is_object()) {
    std::vector<const json::key_value_pair*> members;
    members.reserve(v.get_object().size());
    for (const auto& kv : v.get_object()) {
      if (!kv.value().is_null()) members.push_back(&kv);  // null = absent, as in kube's Go structs
    }
    std::sort(members.begin(), members.end(),
              [](const auto* a, const auto* b) { return a->key() < b->key(); });
    out += '{';
    bool first = true;
    for (const auto* kv : members) {
      if (!first) out += ',';
      first = false;
      out += kube::QuoteJson(kv->key());
      out += ':';
      AppendCanonical(kv->value(), out);
    }
    out += '}';
  } else if (v.is_array()) {
    out += '[';
    bool first = true;
    for (const auto& e : v.get_array()) {
      if (!first) out += ',';
      first = false;
      AppendCanonical(e, out);
    }
    out += ']';
  } else {
    out += kube::SerializeJson(v);
  }
}

// The template without its pod-template-hash label (and without an emptied labels map, so
// that a template that only gained the hash label compares equal to the original).
json::value WithoutHashLabel(const json::value& pod_template) {
  json::value copy = pod_template;
  if (!copy.is_object()) return copy;
  auto* meta = copy.get_object().if_contains("metadata");
  if (meta == nullptr || !meta->is_object()) return copy;
  auto* labels = meta->get_object().if_contains("labels");
  if (labels == nullptr || !labels->is_object()) return copy;
  labels->get_object().erase(kPodTemplateHashLabel);
  if (labels->get_object().empty()) meta->get_object().erase("labels");
  return copy;
}

}  // namespace

std::string CanonicalJson(const json::value& v) {
  std::string out;
  AppendCanonical(v, out);
  return out;
}

std::string SafeEncodeString(std::string_view s) {
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  out.reserve(s.size());
  for (const char c : s) out += kAlphabet[static_cast<std::uint8_t>(c) % kAlphabet.size()];
  return out;
}

std::string ComputePodTemplateHash(const json::value& pod_template, std::optional<std::int64_t> collision_count) {
  std::uint32_t h = Fnv32a(CanonicalJson(WithoutHashLabel(pod_template)));
  if (collision_count) {
    const auto c = static_cast<std::uint32_t>(*collision_count);
    const char bytes[4] = {static_cast<char>(c & 0xff), static_cast<char>((c >> 8) & 0xff),
                           static_cast<char>((c >> 16) & 0xff), static_cast<char>((c >> 24) & 0xff)};
    h = Fnv32a(std::string_view(bytes, 4), h);
  }
  return SafeEncodeString(std::to_string(h));
}

bool EqualIgnoreHash(const json::value& a, const json::value& b) {
  return CanonicalJson(WithoutHashLabel(a)) == CanonicalJson(WithoutHashLabel(b));
}

kube::Result<std::int32_t> ScaledValueFromIntOrPercent(const json::value* value, std::int32_t total, bool round_up) {
  if (value == nullptr || value->is_null()) return 0;
  if (value->is_int64() || value->is_uint64()) {
    const std::int64_t n = value->is_int64() ? value->get_int64() : static_cast<std::int64_t>(value->get_uint64());
    if (n < 0 || n > INT32_MAX) return kube::BadRequest("invalid value " + std::to_string(n) + ": must be >= 0");
    return static_cast<std::int32_t>(n);
  }
  if (!value->is_string()) {
    return kube::BadRequest("invalid value " + kube::SerializeJson(*value) + ": must be an integer or a percentage");
  }
  const std::string_view s = value->get_string();
  std::int64_t pct = 0;
  const auto* end = s.data() + s.size();
  if (s.size() < 2 || s.back() != '%') {
    return kube::BadRequest("invalid value \"" + std::string(s) + "\": a string must be a percentage (\"25%\")");
  }
  auto [ptr, ec] = std::from_chars(s.data(), end - 1, pct);
  if (ec != std::errc() || ptr != end - 1 || pct < 0) {
    return kube::BadRequest("invalid value \"" + std::string(s) + "\": a string must be a percentage (\"25%\")");
  }
  const std::int64_t scaled = static_cast<std::int64_t>(total) * pct;
  const std::int64_t v = round_up ? (scaled + 99) / 100 : scaled / 100;
  return static_cast<std::int32_t>(std::min<std::int64_t>(v, INT32_MAX));
}

kube::Result<Fenceposts> ResolveFenceposts(const json::value* max_surge, const json::value* max_unavailable,
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
