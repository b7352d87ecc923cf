#include "testing/internal/fake_tracker.hpp"

#include <algorithm>
#include <charconv>
#include <utility>

#include <boost/json.hpp>
#include <fmt/format.h>

#include <kube/base/error.hpp>
#include <kube/core/json.hpp>
#include <kube/core/json_patch.hpp>
#include <kube/core/merge_patch.hpp>
#include <kube/core/status.hpp>
#include <kube/core/strategic_merge.hpp>
#include <kube/core/time.hpp>

namespace kube::testing::internal {
namespace json = boost::json;
namespace {

// The kinds controller-runtime's fake lets Update without a resourceVersion (its
// `allowsUnconditionalUpdate`, as it matches real groups); every other kind answers Conflict.
bool AllowsUnconditionalUpdate(const GroupVersionKind& gvk) {
  static const std::set<std::pair<std::string_view, std::string_view>> kKinds = {
      {"apps", "ControllerRevision"},
      {"apps", "DaemonSet"},
      {"apps", "Deployment"},
      {"apps", "ReplicaSet"},
      {"apps", "StatefulSet"},
      {"autoscaling", "HorizontalPodAutoscaler"},
      {"batch", "CronJob"},
      {"batch", "Job"},
      {"rbac.authorization.k8s.io", "ClusterRole"},
      {"rbac.authorization.k8s.io", "ClusterRoleBinding"},
      {"rbac.authorization.k8s.io", "Role"},
      {"rbac.authorization.k8s.io", "RoleBinding"},
      {"", "ConfigMap"},
      {"", "Event"},
      {"", "LimitRange"},
      {"", "Namespace"},
      {"", "Node"},
      {"", "PersistentVolume"},
      {"", "PersistentVolumeClaim"},
      {"", "Pod"},
      {"", "PodTemplate"},
      {"", "ReplicationController"},
      {"", "ResourceQuota"},
      {"", "Secret"},
      {"", "Service"},
      {"", "ServiceAccount"},
      {"", "EndpointSlice"},
  };
  return kKinds.contains({gvk.group, gvk.kind});
}

json::object& Meta(json::object& o) {
  json::value& m = o["metadata"];
  if (!m.is_object()) m.emplace_object();
  return m.as_object();
}

std::string MetaString(const json::object& o, std::string_view member) {
  const auto* m = o.if_contains("metadata");
  if (m == nullptr || !m->is_object()) return {};
  const auto* v = m->as_object().if_contains(member);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

bool HasFinalizers(const json::object& o) {
  const auto* m = o.if_contains("metadata");
  if (m == nullptr || !m->is_object()) return false;
  const auto* f = m->as_object().if_contains("finalizers");
  return f != nullptr && f->is_array() && !f->as_array().empty();
}

// Sets `member` of `to` to `from`'s (removing it when `from` has none).
void CopyMember(json::object& to, const json::object& from, std::string_view member) {
  if (const auto* v = from.if_contains(member)) {
    to[member] = *v;
  } else {
    to.erase(member);
  }
}

// The object without metadata and status: what a generation counts changes of.
json::object SpecPart(json::object o) {
  o.erase("metadata");
  o.erase("status");
  return o;
}

bool DryRun(const std::vector<std::string>& dry_run) {
  return std::find(dry_run.begin(), dry_run.end(), "All") != dry_run.end();
}

Error InvalidName(const GroupVersionKind& gvk) {
  return NewInvalid(gvk.ToGroupKind(), "", {FieldError::Required("metadata.name", "name is required")});
}

}  // namespace

FakeTracker::FakeTracker(std::unique_ptr<FakeClient::State> state)
    : state_(std::move(state)), clock_(state_->clock != nullptr ? *state_->clock : RealClock::Instance()) {}

Result<std::unique_ptr<FakeTracker>> FakeTracker::Create(std::unique_ptr<FakeClient::State> state) {
  if (state->error) return *state->error;
  std::vector<ObjectPtr> initial = std::move(state->initial);
  auto tracker = std::make_unique<FakeTracker>(std::move(state));
  for (const ObjectPtr& o : initial) {
    if (auto r = tracker->AddInitial(o); !r.ok()) return std::move(r).error();
  }
  return tracker;
}

Result<FakeTracker::Target> FakeTracker::Resolve(const Object& object) const {
  auto gvk = object.Gvk();
  if (!gvk.ok()) return std::move(gvk).error();
  Target t{*gvk, GuessResource(*gvk), std::string(object.Namespace()), std::string(object.Name())};
  if (auto it = state_->kinds.find(*gvk); it != state_->kinds.end()) {
    t.gvr.resource = it->second.resource;
    if (!it->second.namespaced) {
      t.ns.clear();  // kube ignores the namespace of a cluster-scoped object
    } else if (t.ns.empty()) {
      return BadRequest("client: " + gvk->String() + " is namespaced but the object has no metadata.namespace");
    }
  }
  return t;
}

Result<GroupVersionResource> FakeTracker::DoResourceFor(const GroupVersionKind& gvk) const {
  if (auto it = state_->kinds.find(gvk); it != state_->kinds.end()) {
    return GroupVersionResource{gvk.group, gvk.version, it->second.resource};
  }
  return GuessResource(gvk);
}

Result<FakeTracker::Part> FakeTracker::PartOf(std::string_view subresource) {
  if (subresource.empty()) return Part::kObject;
  if (subresource == "status") return Part::kStatus;
  return MakeError(405, reason::kMethodNotAllowed,
                   "the fake client supports the status subresource only, not \"" + std::string(subresource) + "\"");
}

ObjectPtr FakeTracker::FindLocked(const GroupVersionResource& gvr, const Key& key) const {
  auto r = objects_.find(gvr);
  if (r == objects_.end()) return nullptr;
  auto it = r->second.find(key);
  return it == r->second.end() ? nullptr : it->second;
}

std::string FakeTracker::NewUidLocked() {
  const std::uint64_t hi = random_();
  const std::uint64_t lo = random_();
  // RFC 4122 version 4, variant 1.
  const std::uint64_t a = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;
  const std::uint64_t b = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", a >> 32, (a >> 16) & 0xffff, a & 0xffff, b >> 48,
                     b & 0xffffffffffffULL);
}

std::string FakeTracker::RandomSuffixLocked() {
  // apimachinery's utilrand alphabet (no vowels, no confusable digits).
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string s;
  for (int i = 0; i < 5; ++i) s.push_back(kAlphabet[random_() % kAlphabet.size()]);
  return s;
}

Result<void> FakeTracker::AddInitial(const ObjectPtr& object) {
  if (object == nullptr) return BadRequest("fake client: a null initial object");
  auto t = Resolve(*object);
  if (!t.ok()) return std::move(t).error();
  if (t->name.empty()) return BadRequest("fake client: an initial " + t->gvk.kind + " has no metadata.name");
  if (object->IsBeingDeleted() && object->Finalizers().empty()) {
    return BadRequest("refusing to create obj " + t->name + " with metadata.deletionTimestamp but no finalizers");
  }
  json::object o = object->ToJson();
  MutexLock lock(mu_);
  if (FindLocked(t->gvr, {t->ns, t->name}) != nullptr) return NewAlreadyExists(t->gvr.ToGroupResource(), t->name);
  std::uint64_t given = 0;
  const std::string rv(object->ResourceVersion());
  if (rv.empty()) {
    Meta(o)["resourceVersion"] = std::to_string(++resource_version_);
  } else if (std::from_chars(rv.data(), rv.data() + rv.size(), given).ec == std::errc()) {
    resource_version_ = std::max(resource_version_, given);  // later versions are newer
  }
  if (t->ns.empty()) {
    Meta(o).erase("namespace");
  } else {
    Meta(o)["namespace"] = t->ns;
  }
  auto built = Object::FromJson(o);
  if (!built.ok()) return std::move(built).error();
  objects_[t->gvr][{t->ns, t->name}] = std::move(*built);
  return Ok();
}

Result<ObjectPtr> FakeTracker::DoGet(const GroupVersionResource& gvr, const ObjectKey& key, std::stop_token) {
  MutexLock lock(mu_);
  ObjectPtr o = FindLocked(gvr, {key.ns, key.name});
  if (o == nullptr) return NewNotFound(gvr.ToGroupResource(), key.name);
  return o;
}

Result<std::vector<ObjectPtr>> FakeTracker::DoList(const GroupVersionResource& gvr,
                                                   const controller::ListFilter& filter, std::stop_token) {
  const controller::FieldIndexFunc* index = nullptr;
  if (filter.field) {
    auto r = state_->indexes.find(gvr);
    if (r != state_->indexes.end()) {
      if (auto it = r->second.find(filter.field->field); it != r->second.end()) index = &it->second;
    }
    if (index == nullptr) {
      return BadRequest("List on GroupVersionResource " + gvr.String() + " specifies selector on field " +
                        filter.field->field + ", but no index with name " + filter.field->field +
                        " has been registered for GroupVersionResource " + gvr.String());
    }
  }
  std::vector<ObjectPtr> candidates;
  {
    MutexLock lock(mu_);
    if (auto r = objects_.find(gvr); r != objects_.end()) {
      for (const auto& [key, o] : r->second) {
        if (filter.ns.empty() || key.first == filter.ns) candidates.push_back(o);
      }
    }
  }
  // Label and field matching outside the lock: index functions are user code.
  std::vector<ObjectPtr> out;
  for (ObjectPtr& o : candidates) {
    if (!filter.selector.Empty() && !filter.selector.Matches(o->Labels())) continue;
    if (index != nullptr) {
      std::vector<std::string> values;
      try {
        values = (*index)(*o);
      } catch (...) {
        continue;  // a throwing extractor indexes nothing, as in the real client
      }
      if (std::find(values.begin(), values.end(), filter.field->value) == values.end()) continue;
    }
    out.push_back(std::move(o));
  }
  return out;
}

Result<ObjectPtr> FakeTracker::DoCreate(const Object& object, const CreateOptions& options) {
  auto t = Resolve(object);
  if (!t.ok()) return std::move(t).error();
  if (!object.ResourceVersion().empty()) return NewBadRequest("resourceVersion can not be set for Create requests");
  if (t->name.empty() && object.GenerateName().empty()) return InvalidName(t->gvk);
  json::object o = object.ToJson();
  json::object& meta = Meta(o);
  // Ignore attempts to set the deletion timestamp, as kube does.
  meta.erase("deletionTimestamp");
  meta.erase("deletionGracePeriodSeconds");
  if (t->ns.empty()) {
    meta.erase("namespace");
  } else {
    meta["namespace"] = t->ns;
  }
  meta["creationTimestamp"] = FormatTime(clock_.WallNow());
  if (HasStatus(t->gvk)) meta["generation"] = 1;
  const bool dry_run = DryRun(options.dry_run);

  MutexLock lock(mu_);
  auto& objects = objects_[t->gvr];
  if (t->name.empty()) {
    // kube's generateName: the prefix cut to 58 bytes plus 5 random characters. A name taken
    // already is AlreadyExists, as kube answers (it does not retry).
    const std::string base(object.GenerateName().substr(0, 58));
    t->name = base + RandomSuffixLocked();
    meta["name"] = t->name;
  }
  if (objects.contains({t->ns, t->name})) return NewAlreadyExists(t->gvr.ToGroupResource(), t->name);
  meta["uid"] = NewUidLocked();
  meta["resourceVersion"] = std::to_string(resource_version_ + 1);
  auto built = Object::FromJson(o);
  if (!built.ok()) return std::move(built).error();
  if (!dry_run) {
    ++resource_version_;
    objects[{t->ns, t->name}] = *built;
  }
  return std::move(*built);
}

Result<ObjectPtr> FakeTracker::DoUpdate(const Object& object, const UpdateOptions& options,
                                        std::string_view subresource) {
  auto part = PartOf(subresource);
  if (!part.ok()) return std::move(part).error();
  auto t = Resolve(object);
  if (!t.ok()) return std::move(t).error();
  if (t->name.empty()) return InvalidName(t->gvk);
  json::object next = object.ToJson();
  MutexLock lock(mu_);
  ObjectPtr old = FindLocked(t->gvr, {t->ns, t->name});
  if (old == nullptr) return NewNotFound(t->gvr.ToGroupResource(), t->name);
  return WriteLocked(*t, *old, std::move(next), *part, Verb::kUpdate, DryRun(options.dry_run));
}

Result<ObjectPtr> FakeTracker::DoPatch(const Object& object, PatchType type, std::string_view patch,
                                       const PatchOptions& options, std::string_view subresource) {
  auto part = PartOf(subresource);
  if (!part.ok()) return std::move(part).error();
  if (type == PatchType::kApply) {
    return MakeError(405, reason::kMethodNotAllowed,
                     "apply patches are not supported in the fake client; use a merge, JSON or strategic merge patch, "
                     "or the embedded API server (kube::testing's environment)");
  }
  auto t = Resolve(object);
  if (!t.ok()) return std::move(t).error();
  if (t->name.empty()) return InvalidName(t->gvk);
  auto parsed = ParseJson(patch, "patch");
  if (!parsed.ok()) return std::move(parsed).error();
  TypeSchemaPtr schema;
  if (auto it = state_->schemas.find(t->gvk); it != state_->schemas.end()) schema = it->second;

  MutexLock lock(mu_);
  ObjectPtr old = FindLocked(t->gvr, {t->ns, t->name});
  if (old == nullptr) return NewNotFound(t->gvr.ToGroupResource(), t->name);
  const json::value current(old->ToJson());
  Result<json::value> patched = json::value();
  switch (type) {
    case PatchType::kMerge:
      patched = ApplyMergePatch(current, *parsed);
      break;
    case PatchType::kJson:
      // evanphx/json-patch v4, as kube and controller-runtime's fake apply it.
      patched = ApplyJsonPatch(current, *parsed, {.replace_missing_member_adds = true});
      break;
    case PatchType::kStrategicMerge:
      patched = ApplyStrategicMergePatch(current, *parsed, schema.get());
      break;
    case PatchType::kApply:
      break;  // answered above
  }
  if (!patched.ok()) return std::move(patched).error();
  if (!patched->is_object()) return BadRequest("patch: the patched object is not a JSON object");
  json::object next = std::move(patched->as_object());
  if (MetaString(next, "name") != t->name || MetaString(next, "namespace") != old->Namespace()) {
    return BadRequest("patch: metadata.name and metadata.namespace cannot be changed by a patch");
  }
  return WriteLocked(*t, *old, std::move(next), *part, Verb::kPatch, DryRun(options.dry_run));
}

Result<ObjectPtr> FakeTracker::WriteLocked(const Target& t, const Object& old, json::object next, Part part, Verb verb,
                                           bool dry_run) {
  const GroupResource gr = t.gvr.ToGroupResource();
  const json::object before = old.ToJson();
  const std::string sent_rv = MetaString(next, "resourceVersion");
  if (HasStatus(t.gvk)) {
    if (part == Part::kStatus) {
      // Only status changes; the rest stays as stored.
      json::object status_only = before;
      CopyMember(status_only, next, "status");
      next = std::move(status_only);
    } else {
      CopyMember(next, before, "status");
    }
  } else if (part == Part::kStatus) {
    return NewNotFound(gr, t.name);  // no status subresource: as controller-runtime's fake
  }
  json::object& meta = Meta(next);
  // Optimistic concurrency: a resourceVersion that is sent must be the stored one. None sent:
  // a patch applies to the current state; an update is unconditional only for the kinds kube
  // allows it for.
  if (sent_rv.empty() ? (verb == Verb::kUpdate && !AllowsUnconditionalUpdate(t.gvk)) : sent_rv != old.ResourceVersion()) {
    return NewConflict(gr, t.name, kOptimisticLockErrorMsg);
  }
  if (MetaString(next, "deletionTimestamp") != old.DeletionTimestamp()) {
    return NewInvalid(t.gvk.ToGroupKind(), t.name,
                      {FieldError::Invalid("metadata.deletionTimestamp", {}, "field is immutable")});
  }
  // Server-owned metadata stays as stored.
  const json::object& old_meta = before.at("metadata").as_object();
  for (std::string_view member : {"uid", "creationTimestamp", "generation", "deletionGracePeriodSeconds"}) {
    CopyMember(meta, old_meta, member);
  }
  if (HasStatus(t.gvk) && SpecPart(next) != SpecPart(before)) meta["generation"] = old.Generation() + 1;
  meta["resourceVersion"] = std::to_string(resource_version_ + 1);
  auto built = Object::FromJson(next);
  if (!built.ok()) return std::move(built).error();
  if (dry_run) return std::move(*built);
  ++resource_version_;
  auto& objects = objects_[t.gvr];
  if ((*built)->IsBeingDeleted() && !HasFinalizers(next)) {
    // The last finalizer of an object being deleted is gone: the object goes.
    objects.erase({t.ns, t.name});
  } else {
    objects[{t.ns, t.name}] = *built;
  }
  return std::move(*built);
}

Result<ObjectPtr> FakeTracker::DoDelete(const Object& object, const DeleteOptions& options) {
  auto t = Resolve(object);
  if (!t.ok()) return std::move(t).error();
  const GroupResource gr = t->gvr.ToGroupResource();
  const std::string now = FormatTime(clock_.WallNow());
  MutexLock lock(mu_);
  ObjectPtr old = FindLocked(t->gvr, {t->ns, t->name});
  if (old == nullptr) return NewNotFound(gr, t->name);
  if (options.preconditions) {
    const Preconditions& p = *options.preconditions;
    if (p.uid && *p.uid != old->Uid()) {
      return NewConflict(gr, t->name,
                         "Precondition failed: UID in precondition: " + *p.uid +
                             ", UID in object meta: " + std::string(old->Uid()));
    }
    if (p.resource_version && *p.resource_version != old->ResourceVersion()) {
      return NewConflict(gr, t->name,
                         "the ResourceVersion in the precondition (" + *p.resource_version +
                             ") does not match the ResourceVersion in record (" + std::string(old->ResourceVersion()) +
                             "). The object might have been modified");
    }
  }
  const bool dry_run = DryRun(options.dry_run);
  if (!old->Finalizers().empty()) {
    if (old->IsBeingDeleted()) return old;  // deleting again changes nothing
    json::object next = old->ToJson();
    Meta(next)["deletionTimestamp"] = now;
    Meta(next)["resourceVersion"] = std::to_string(resource_version_ + 1);
    auto built = Object::FromJson(next);
    if (!built.ok()) return std::move(built).error();
    if (!dry_run) {
      ++resource_version_;
      objects_[t->gvr][{t->ns, t->name}] = *built;
    }
    return std::move(*built);
  }
  if (!dry_run) objects_[t->gvr].erase({t->ns, t->name});
  return Object::Parse(SuccessStatusJson(StatusDetails{.name = t->name,
                                                       .group = t->gvr.group,
                                                       .kind = t->gvr.resource,
                                                       .uid = std::string(old->Uid()),
                                                       .causes = {},
                                                       .retry_after_seconds = 0}));
}

}  // namespace kube::testing::internal
