#include "deployment_controller.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <charconv>
#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include <kube/base/error.hpp>
#include <kube/controller/controllerutil.hpp>
#include <kube/core/json.hpp>
#include <kube/core/label_selector.hpp>
#include <kube/core/time.hpp>

#include "objects.hpp"
#include "rollout.hpp"

namespace deployctl {

namespace json = boost::json;
using kube::controller::ReconcileResult;

namespace {

std::int64_t Revision(const kube::Object& rs) {
  const auto text = rs.Annotations().Get(kRevisionAnnotation);
  std::int64_t v = 0;
  if (!text) return 0;
  auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  return ec == std::errc() && ptr == text->data() + text->size() ? v : 0;
}

ReplicaSetCounts Counts(const kube::Object& rs) {
  return {.name = std::string(rs.Name()),
          .spec_replicas = Int32At(rs, "/spec/replicas", 1),
          .status_replicas = Int32At(rs, "/status/replicas"),
          .available_replicas = Int32At(rs, "/status/availableReplicas")};
}

// The pod template with `pod-template-hash: hash` among its labels.
json::value WithHashLabel(json::value tmpl, const std::string& hash) {
  if (!tmpl.is_object()) tmpl = json::object();
  auto& meta = tmpl.get_object()["metadata"];
  if (!meta.is_object()) meta = json::object();
  auto& labels = meta.get_object()["labels"];
  if (!labels.is_object()) labels = json::object();
  labels.get_object()[kPodTemplateHashLabel] = hash;
  return tmpl;
}

// kube's SetDeploymentCondition: an unchanged condition keeps both times; a changed reason or
// message with the same status keeps lastTransitionTime.
void SetCondition(json::array& conditions, std::string_view type, std::string_view status, std::string_view reason,
                  const std::string& message, const std::string& now, bool refresh = false) {
  for (auto& c : conditions) {
    if (!c.is_object()) continue;
    auto& obj = c.get_object();
    const auto* t = obj.if_contains("type");
    if (t == nullptr || !t->is_string() || t->get_string() != type) continue;
    const auto* s = obj.if_contains("status");
    const auto* r = obj.if_contains("reason");
    const auto* m = obj.if_contains("message");
    const bool same_status = s != nullptr && s->is_string() && s->get_string() == status;
    const bool same_reason = r != nullptr && r->is_string() && r->get_string() == reason;
    const bool same_message = m != nullptr && m->is_string() && m->get_string() == message;
    if (same_status && same_reason && same_message && !refresh) return;
    obj["status"] = status;
    obj["reason"] = reason;
    obj["message"] = message;
    obj["lastUpdateTime"] = now;
    if (!same_status) obj["lastTransitionTime"] = now;
    return;
  }
  conditions.push_back(json::object{{"type", type},
                                    {"status", status},
                                    {"lastUpdateTime", now},
                                    {"lastTransitionTime", now},
                                    {"reason", reason},
                                    {"message", message}});
}

std::string ConditionReason(const json::array& conditions, std::string_view type) {
  for (const auto& c : conditions) {
    if (!c.is_object()) continue;
    const auto* t = c.get_object().if_contains("type");
    const auto* r = c.get_object().if_contains("reason");
    if (t != nullptr && t->is_string() && t->get_string() == type && r != nullptr && r->is_string()) {
      return std::string(r->get_string());
    }
  }
  return {};
}

// The lastUpdateTime of the condition `type`, if set and parseable.
std::optional<kube::Clock::WallTime> ConditionUpdateTime(const json::array& conditions, std::string_view type) {
  for (const auto& c : conditions) {
    if (!c.is_object()) continue;
    const auto* t = c.get_object().if_contains("type");
    const auto* u = c.get_object().if_contains("lastUpdateTime");
    if (t == nullptr || !t->is_string() || t->get_string() != type) continue;
    if (u == nullptr || !u->is_string()) return std::nullopt;
    auto parsed = kube::ParseTime(u->get_string());
    return parsed ? std::optional<kube::Clock::WallTime>(*parsed) : std::nullopt;
  }
  return std::nullopt;
}

HistoryEntry History(const kube::Object& rs) {
  return {.name = std::string(rs.Name()),
          .revision = Revision(rs),
          .spec_replicas = Int32At(rs, "/spec/replicas", 1),
          .status_replicas = Int32At(rs, "/status/replicas"),
          .synced = rs.GetInt("/status/observedGeneration").value_or(0) >= rs.Generation(),
          .deleting = rs.IsBeingDeleted()};
}

void SetCount(json::object& status, std::string_view field, std::int64_t v) {
  if (v > 0) {
    status[field] = v;
  } else {
    status.erase(field);  // omitempty, as kube serializes DeploymentStatus
  }
}

std::int64_t ParseRv(std::string_view rv) {
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), v);
  return ec == std::errc() && ptr == rv.data() + rv.size() ? v : 0;
}

}  // namespace

void DeploymentReconciler::RecordWrite(const std::string& deployment, const std::string& rs, std::string_view rv) {
  kube::MutexLock lock(mu_);
  written_[deployment][rs] = ParseRv(rv);
}

bool DeploymentReconciler::CacheCaughtUp(const std::string& deployment,
                                         const std::map<std::string, std::string>& cached_rvs) {
  kube::MutexLock lock(mu_);
  auto it = written_.find(deployment);
  if (it == written_.end()) return true;
  // A written ReplicaSet missing from the cache is not waited for: if it is new, creating it
  // again fails with AlreadyExists (and retries); if it was deleted, there is nothing to see.
  std::erase_if(it->second, [&](const auto& entry) {
    auto cached = cached_rvs.find(entry.first);
    return cached == cached_rvs.end() || ParseRv(cached->second) >= entry.second;
  });
  const bool caught_up = it->second.empty();
  if (caught_up) written_.erase(it);
  return caught_up;
}

void DeploymentReconciler::Forget(const std::string& deployment) {
  kube::MutexLock lock(mu_);
  written_.erase(deployment);
}

kube::Result<ReconcileResult> DeploymentReconciler::Reconcile(kube::controller::ReconcileContext& ctx,
                                                              const kube::controller::Request& request) {
  auto d_or = client_.Get(kDeployments, request.key, ctx.stop);
  const std::string dkey = request.String();
  if (!d_or) {
    if (!kube::IsNotFound(d_or.error())) return d_or.error();
    Forget(dkey);
    return ReconcileResult::Done();
  }
  const kube::ObjectPtr d = *d_or;
  if (d->IsBeingDeleted()) return ReconcileResult::Done();  // the garbage collector takes the ReplicaSets
  const std::string ns(d->Namespace());
  const std::string uid(d->Uid());
  const std::int32_t desired = Int32At(*d, "/spec/replicas", 1);
  const json::value selector_json = ValueAt(*d, "/spec/selector");
  auto selector = kube::LabelSelector::FromLabelSelectorJson(selector_json);
  if (!selector) return kube::controller::TerminalError(selector.error());
  if (selector->Empty()) {
    return kube::controller::TerminalError(kube::BadRequest("empty selector is invalid for deployment"));
  }
  const json::value tmpl = ValueAt(*d, "/spec/template");
  const bool recreate = d->GetString("/spec/strategy/type").value_or("RollingUpdate") == "Recreate";
  Fenceposts fenceposts;
  if (!recreate) {
    const json::value surge = ValueAt(*d, "/spec/strategy/rollingUpdate/maxSurge");
    const json::value unavailable = ValueAt(*d, "/spec/strategy/rollingUpdate/maxUnavailable");
    auto f = ResolveFenceposts(surge.is_null() ? nullptr : &surge, unavailable.is_null() ? nullptr : &unavailable,
                               desired);
    if (!f) return kube::controller::TerminalError(f.error());
    fenceposts = *f;
  }
  const bool paused = d->GetBool("/spec/paused").value_or(false);
  const std::int64_t min_ready_seconds = d->GetInt("/spec/minReadySeconds").value_or(0);
  const std::int32_t history_limit = Int32At(*d, "/spec/revisionHistoryLimit", 10);
  const std::int32_t deadline_seconds = Int32At(*d, "/spec/progressDeadlineSeconds", 600);
  const std::optional<std::chrono::seconds> progress_deadline =
      deadline_seconds == INT32_MAX ? std::nullopt : std::optional<std::chrono::seconds>(deadline_seconds);
  // kube's MaxUnavailable: 0 for Recreate or zero replicas, never above spec.replicas.
  const std::int32_t max_unavailable = recreate || desired == 0 ? 0 : std::min(fenceposts.max_unavailable, desired);

  // The Deployment's ReplicaSets, as the cache shows them; decide nothing on a view that
  // misses our own last writes (it could scale a ReplicaSet twice).
  auto listed = client_.List(kReplicaSets, {.ns = ns, .selector = *selector}, ctx.stop);
  if (!listed) return listed.error();
  std::vector<kube::ObjectPtr> owned;
  std::map<std::string, std::string> cached_rvs;
  for (const auto& rs : *listed) {
    if (!IsControlledBy(*rs, uid)) continue;
    owned.push_back(rs);
    cached_rvs.emplace(rs->Name(), rs->ResourceVersion());
  }
  if (!CacheCaughtUp(dkey, cached_rvs)) {
    ctx.log.Debug("waiting for the cache to show our ReplicaSet writes");
    return ReconcileResult::RequeueAfter(std::chrono::seconds(1));  // the ReplicaSet's event comes first
  }
  std::sort(owned.begin(), owned.end(), [](const kube::ObjectPtr& a, const kube::ObjectPtr& b) {
    return std::make_pair(a->CreationTimestamp(), a->Name()) < std::make_pair(b->CreationTimestamp(), b->Name());
  });
  kube::ObjectPtr new_rs;
  std::vector<kube::ObjectPtr> old_rss;
  std::int64_t max_old_revision = 0;
  for (const auto& rs : owned) {
    if (new_rs == nullptr && EqualIgnoreHash(ValueAt(*rs, "/spec/template"), tmpl)) {
      new_rs = rs;
    } else {
      old_rss.push_back(rs);
      max_old_revision = std::max(max_old_revision, Revision(*rs));
    }
  }
  std::vector<ReplicaSetCounts> old_counts;
  for (const auto& rs : old_rss) old_counts.push_back(Counts(*rs));

  auto step = [&](const ReplicaSetCounts& n) {
    return recreate ? RecreateStep(desired, n, old_counts) : RollingUpdateStep(desired, fenceposts, n, old_counts);
  };
  auto record_scaling = [&](const std::string& name, std::int32_t from, std::int32_t to) {
    recorder_.Eventf(*d, kube::controller::EventType::kNormal, "ScalingReplicaSet", "Scaled {} replica set {} from {} to {}",
                     to > from ? "up" : "down", name, from, to);
    ctx.log.Info("scaled replica set", {{"replicaSet", name}, {"from", from}, {"to", to}});
  };

  const json::value old_status = ValueAt(*d, "/status");
  json::object status = old_status.is_object() ? old_status.get_object() : json::object();
  bool created_new = false;
  std::vector<ScaleChange> changes;
  if (new_rs == nullptr && paused) {
    // A paused Deployment does not start a rollout: no new ReplicaSet, scaling only.
    changes = PausedScaleStep(desired, nullptr, old_counts);
  } else if (new_rs == nullptr) {
    const std::optional<std::int64_t> collisions = d->GetInt("/status/collisionCount");
    const std::string hash = ComputePodTemplateHash(tmpl, collisions);
    const std::string name = std::string(d->Name()) + "-" + hash;
    changes = step(ReplicaSetCounts{.name = name});
    std::int32_t initial = 0;
    std::erase_if(changes, [&](const ScaleChange& c) {
      if (c.name != name) return false;
      initial = c.to;
      return true;
    });
    kube::ObjectBuilder rs("apps/v1", "ReplicaSet");
    rs.SetNamespace(ns).SetName(name);
    const json::value rs_template = WithHashLabel(tmpl, hash);
    for (const auto& [k, v] : rs_template.at_pointer("/metadata/labels").get_object()) {
      if (v.is_string()) rs.SetLabel(k, v.get_string());
    }
    rs.SetAnnotation(kRevisionAnnotation, std::to_string(max_old_revision + 1));
    rs.SetAnnotation(kDesiredReplicasAnnotation, std::to_string(desired));
    rs.SetAnnotation(kMaxReplicasAnnotation, std::to_string(desired + fenceposts.max_surge));
    json::value rs_selector = selector_json;
    auto& match = rs_selector.get_object()["matchLabels"];
    if (!match.is_object()) match = json::object();
    match.get_object()[kPodTemplateHashLabel] = hash;
    json::object spec{{"replicas", initial}, {"selector", std::move(rs_selector)}, {"template", rs_template}};
    if (min_ready_seconds > 0) spec["minReadySeconds"] = min_ready_seconds;
    rs.Json()["spec"] = std::move(spec);
    if (auto owned_ok = kube::controller::SetControllerReference(*d, rs); !owned_ok) return owned_ok.error();
    auto obj = rs.Build();
    if (!obj) return obj.error();
    auto created = client_.Create(**obj);
    if (!created) {
      if (!kube::IsAlreadyExists(created.error())) return created.error();
      // Ours but not in the cache yet: retry. Someone else's: a hash collision; bump
      // collisionCount so that the next attempt computes another name (kube does the same).
      auto live = client_.Api(kReplicaSets, ns).Get(name);
      if (live && !(IsControlledBy(**live, uid) && EqualIgnoreHash(ValueAt(**live, "/spec/template"), tmpl))) {
        kube::ObjectBuilder b(*d);
        auto& st = b.Json()["status"];
        if (!st.is_object()) st = json::object();
        st.get_object()["collisionCount"] = collisions.value_or(0) + 1;
        auto bumped = b.Build();
        if (!bumped) return bumped.error();
        if (auto w = client_.UpdateStatus(**bumped); !w) return w.error();
        ctx.log.Info("replica set name collision", {{"replicaSet", name}});
      }
      return created.error();
    }
    new_rs = *created;
    RecordWrite(dkey, name, new_rs->ResourceVersion());
    created_new = true;
    if (initial > 0) record_scaling(name, 0, initial);
  } else {
    const bool stale_revision = Revision(*new_rs) <= max_old_revision;
    const bool stale_min_ready = new_rs->GetInt("/spec/minReadySeconds").value_or(0) != min_ready_seconds;
    if (stale_revision || stale_min_ready) {
      // A rollback to an old template becomes the newest revision again; the ReplicaSet follows
      // the Deployment's minReadySeconds (kube's getNewReplicaSet).
      kube::ObjectBuilder b(*new_rs);
      if (stale_revision) b.SetAnnotation(kRevisionAnnotation, std::to_string(max_old_revision + 1));
      if (auto set = b.Set("/spec/minReadySeconds", min_ready_seconds); !set) return set.error();
      auto obj = b.Build();
      if (!obj) return obj.error();
      auto updated = client_.Update(**obj);
      if (!updated) return updated.error();
      new_rs = *updated;
      RecordWrite(dkey, std::string(new_rs->Name()), new_rs->ResourceVersion());
    }
    const ReplicaSetCounts counts = Counts(*new_rs);
    changes = paused ? PausedScaleStep(desired, &counts, old_counts) : step(counts);
  }

  // Resize ReplicaSets (optimistic concurrency: a stale resourceVersion fails with 409).
  for (const auto& change : changes) {
    kube::ObjectPtr* target = nullptr;
    if (new_rs != nullptr && new_rs->Name() == change.name) target = &new_rs;
    for (auto& rs : old_rss) {
      if (rs->Name() == change.name) target = &rs;
    }
    if (target == nullptr) continue;
    kube::ObjectBuilder b(**target);
    if (auto set = b.Set("/spec/replicas", change.to); !set) return set.error();
    b.SetAnnotation(kDesiredReplicasAnnotation, std::to_string(desired));
    b.SetAnnotation(kMaxReplicasAnnotation, std::to_string(desired + fenceposts.max_surge));
    auto obj = b.Build();
    if (!obj) return obj.error();
    auto updated = client_.Update(**obj);
    if (!updated) return updated.error();
    *target = *updated;
    RecordWrite(dkey, change.name, (*target)->ResourceVersion());
    record_scaling(change.name, change.from, change.to);
  }

  // The Deployment carries the revision of its newest ReplicaSet.
  kube::ObjectPtr current = d;  // the Deployment as last written (its resourceVersion for /status)
  const std::string revision = new_rs != nullptr ? std::to_string(Revision(*new_rs)) : std::string();
  if (new_rs != nullptr &&
      d->Annotations().Get(kRevisionAnnotation) != std::optional<std::string_view>(revision)) {
    json::object patch{{"metadata", json::object{{"annotations", json::object{{kRevisionAnnotation, revision}}}}}};
    auto patched = client_.Patch(*d, kube::PatchType::kMerge, kube::SerializeJson(patch));
    if (!patched) return patched.error();
    current = *patched;
  }

  // Status.
  std::int64_t replicas = 0, ready = 0, available = 0, spec_total = 0;
  auto add = [&](const kube::Object& rs) {
    replicas += Int32At(rs, "/status/replicas");
    ready += Int32At(rs, "/status/readyReplicas");
    available += Int32At(rs, "/status/availableReplicas");
    spec_total += Int32At(rs, "/spec/replicas", 1);
  };
  if (new_rs != nullptr) add(*new_rs);
  for (const auto& rs : old_rss) add(*rs);
  const std::int64_t updated_replicas = new_rs != nullptr ? Int32At(*new_rs, "/status/replicas") : 0;
  status["observedGeneration"] = d->Generation();
  SetCount(status, "replicas", replicas);
  SetCount(status, "updatedReplicas", updated_replicas);
  SetCount(status, "readyReplicas", ready);
  SetCount(status, "availableReplicas", available);
  SetCount(status, "unavailableReplicas", std::max<std::int64_t>(0, spec_total - available));

  const std::string now = kube::FormatTime(clock_.WallNow());
  auto& conds_value = status["conditions"];
  if (!conds_value.is_array()) conds_value = json::array();
  json::array& conditions = conds_value.get_array();
  if (available >= desired - max_unavailable) {
    SetCondition(conditions, "Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.", now);
  } else {
    SetCondition(conditions, "Available", "False", "MinimumReplicasUnavailable",
                 "Deployment does not have minimum availability.", now);
  }
  const std::string rs_name = new_rs != nullptr ? std::string(new_rs->Name()) : std::string();
  const bool complete = new_rs != nullptr && updated_replicas == desired && replicas == desired &&
                        available == desired && Int32At(*new_rs, "/spec/replicas", 1) == desired;
  const auto old_count = [&](std::string_view f) {
    return old_status.is_object() && old_status.get_object().contains(f) ? old_status.at(f) : json::value(0);
  };
  const bool progressed = !changes.empty() || old_count("updatedReplicas") != json::value(updated_replicas) ||
                          old_count("availableReplicas") != json::value(available) ||
                          old_count("replicas") != json::value(replicas);
  const ProgressDecision progress = NextProgressing({.paused = paused,
                                                     .deadline = progress_deadline,
                                                     .current_reason = ConditionReason(conditions, "Progressing"),
                                                     .last_update = ConditionUpdateTime(conditions, "Progressing"),
                                                     .now = clock_.WallNow(),
                                                     .created_new = created_new,
                                                     .complete = complete,
                                                     .progressed = progressed,
                                                     .rs_name = rs_name});
  for (const auto& u : progress.updates) {
    SetCondition(conditions, "Progressing", u.status, u.reason, u.message, now, u.refresh);
  }

  // kube's cleanupDeployment: once a rollout is complete (or while paused), old ReplicaSets
  // scaled to zero beyond revisionHistoryLimit go, oldest revision first.
  if (complete || paused) {
    std::vector<HistoryEntry> history;
    for (const auto& rs : old_rss) history.push_back(History(*rs));
    for (const auto& name : RevisionHistoryToDelete(std::move(history), history_limit)) {
      auto it = std::find_if(old_rss.begin(), old_rss.end(),
                             [&](const kube::ObjectPtr& rs) { return rs->Name() == name; });
      const kube::ObjectPtr& rs = *it;  // RevisionHistoryToDelete only names members of old_rss
      // Preconditions: a ReplicaSet scaled up or re-created since we read it is not deleted.
      const kube::Preconditions unchanged{.uid = std::string(rs->Uid()),
                                          .resource_version = std::string(rs->ResourceVersion())};
      auto deleted = client_.Delete(*rs, {.preconditions = unchanged});
      if (!deleted && !kube::IsNotFound(deleted.error())) return deleted.error();
      ctx.log.Info("deleted old replica set", {{"replicaSet", name}, {"revision", Revision(*rs)}});
    }
  }
  if (CanonicalJson(status) != CanonicalJson(old_status)) {
    auto written = WriteStatus(client_, kDeployments, *current, status);
    if (!written) return written.error();
  }
  if (progress.recheck_after) return ReconcileResult::RequeueAfter(*progress.recheck_after);
  return ReconcileResult::Done();
}

}  // namespace deployctl
