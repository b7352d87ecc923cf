#include <kube/controller/controllerutil.hpp>

#include <optional>
#include <utility>

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/merge_patch.hpp>
#include <kube/core/options.hpp>

namespace kube::controller {
namespace {

constexpr std::string_view kAlreadyOwnedCause = kAlreadyOwnedReason;

std::string StringAt(const ObjectBuilder& b, std::string_view pointer) {
  const boost::json::value* v = b.Find(pointer);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::string_view GroupOf(std::string_view api_version) {
  const auto slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view{} : api_version.substr(0, slash);
}

// The Api for the object named by `ns`/`name`. **Errors:** BadRequest when namespaces disagree.
Result<client::Api> TargetApi(const client::Api& api, const std::string& ns) {
  if (ns.empty() || ns == api.ns()) return api;
  if (!api.ns().empty()) {
    return BadRequest("object namespace \"" + ns + "\" differs from the Api's namespace \"" + api.ns() + "\"");
  }
  return api.Namespace(ns);
}

Result<void> RunMutate(const MutateFn& mutate, ObjectBuilder& b, const std::string& ns, const std::string& name) {
  auto r = mutate(b);
  if (!r.ok()) return r;
  if (StringAt(b, "/metadata/name") != name || StringAt(b, "/metadata/namespace") != ns) {
    return BadRequest("MutateFn cannot mutate object name and/or object namespace");
  }
  return Ok();
}

// Where the helpers read and write the one object they work on: through a client::Api
// (straight to the server) or through a ClientInterface (the Manager's cache-reading client, the
// fake client). The helpers' logic is written once, against this.
class Target {
 public:
  Target(std::string ns, std::string name) : ns_(std::move(ns)), name_(std::move(name)) {}
  virtual ~Target() = default;
  const std::string& ns() const { return ns_; }
  const std::string& name() const { return name_; }
  virtual Result<ObjectPtr> Get() const = 0;
  virtual Result<ObjectPtr> Create(const Object& object) const = 0;
  virtual Result<ObjectPtr> Update(const Object& object) const = 0;
  virtual Result<ObjectPtr> UpdateStatus(const Object& object) const = 0;
  // A merge patch of the object `current` (or of its `subresource`).
  virtual Result<ObjectPtr> MergePatch(const Object& current, std::string_view patch,
                                       std::string_view subresource) const = 0;

 private:
  std::string ns_;
  std::string name_;
};

class ApiTarget final : public Target {
 public:
  ApiTarget(std::string ns, std::string name, client::Api api) : Target(std::move(ns), std::move(name)), api_(std::move(api)) {}
  Result<ObjectPtr> Get() const override { return api_.Get(name()); }
  Result<ObjectPtr> Create(const Object& object) const override { return api_.Create(object); }
  Result<ObjectPtr> Update(const Object& object) const override { return api_.Update(object); }
  Result<ObjectPtr> UpdateStatus(const Object& object) const override { return api_.UpdateStatus(object); }
  Result<ObjectPtr> MergePatch(const Object&, std::string_view patch, std::string_view subresource) const override {
    return api_.Patch(name(), PatchType::kMerge, patch, {}, subresource);
  }

 private:
  client::Api api_;
};

class ClientTarget final : public Target {
 public:
  ClientTarget(std::string ns, std::string name, ClientInterface& client, GroupVersionResource gvr)
      : Target(std::move(ns), std::move(name)), client_(client), gvr_(std::move(gvr)) {}
  Result<ObjectPtr> Get() const override { return client_.Get(gvr_, ObjectKey{ns(), name()}); }
  Result<ObjectPtr> Create(const Object& object) const override { return client_.Create(object); }
  Result<ObjectPtr> Update(const Object& object) const override { return client_.Update(object); }
  Result<ObjectPtr> UpdateStatus(const Object& object) const override { return client_.UpdateStatus(object); }
  Result<ObjectPtr> MergePatch(const Object& current, std::string_view patch,
                               std::string_view subresource) const override {
    return client_.Patch(current, PatchType::kMerge, patch, {}, subresource);
  }

 private:
  ClientInterface& client_;
  GroupVersionResource gvr_;
};

Result<std::string> SeedName(const ObjectBuilder& seed) {
  std::string name = StringAt(seed, "/metadata/name");
  if (name.empty()) return BadRequest("CreateOrUpdate: the seed object has no metadata.name");
  return name;
}

Result<ApiTarget> Resolve(const client::Api& api, const ObjectBuilder& seed) {
  auto name = SeedName(seed);
  if (!name.ok()) return std::move(name).error();
  std::string ns = StringAt(seed, "/metadata/namespace");
  auto target = TargetApi(api, ns);
  if (!target.ok()) return std::move(target).error();
  return ApiTarget(std::move(ns), std::move(*name), std::move(*target));
}

Result<ClientTarget> Resolve(ClientInterface& client, const ObjectBuilder& seed) {
  auto name = SeedName(seed);
  if (!name.ok()) return std::move(name).error();
  auto gvk = GroupVersionKind::FromApiVersionKind(StringAt(seed, "/apiVersion"), StringAt(seed, "/kind"));
  if (!gvk.ok()) return std::move(gvk).error();
  auto gvr = client.ResourceFor(*gvk);
  if (!gvr.ok()) return std::move(gvr).error();
  return ClientTarget(StringAt(seed, "/metadata/namespace"), std::move(*name), client, std::move(*gvr));
}

Result<OperationOutcome> CreateFromSeed(const Target& t, const ObjectBuilder& seed, const MutateFn& mutate) {
  ObjectBuilder b = seed;
  if (auto m = RunMutate(mutate, b, t.ns(), t.name()); !m.ok()) return std::move(m).error();
  auto built = b.Build();
  if (!built.ok()) return std::move(built).error();
  auto created = t.Create(**built);
  if (!created.ok()) return std::move(created).error();
  return OperationOutcome{OperationResult::kCreated, std::move(*created)};
}

// Splits `status` out of an object DOM (returns it, or null when absent).
boost::json::value TakeStatus(boost::json::object& o) {
  boost::json::value status;
  if (auto it = o.find("status"); it != o.end()) {
    status = std::move(it->value());
    o.erase(it);
  }
  return status;
}

bool IsEmptyPatch(const boost::json::value& patch) { return patch.is_object() && patch.as_object().empty(); }

boost::json::object OwnerRefJson(const Object& owner) {
  return boost::json::object{{"apiVersion", owner.ApiVersion()},
                             {"kind", owner.Kind()},
                             {"name", owner.Name()},
                             {"uid", owner.Uid()}};
}

bool SameOwner(const boost::json::object& ref, const Object& owner) {
  auto str = [&](std::string_view k) -> std::string_view {
    const auto* v = ref.if_contains(k);
    return v != nullptr && v->is_string() ? std::string_view(v->as_string()) : std::string_view{};
  };
  return GroupOf(str("apiVersion")) == GroupOf(owner.ApiVersion()) && str("kind") == owner.Kind() &&
         str("name") == owner.Name();
}

Result<void> ValidateOwner(const Object& owner, const ObjectBuilder& object) {
  if (owner.ApiVersion().empty() || owner.Kind().empty() || owner.Name().empty() || owner.Uid().empty()) {
    return BadRequest("owner " + owner.Key() +
                      " must have apiVersion, kind, name and uid (pass an object read from the API server)");
  }
  const std::string object_ns = StringAt(object, "/metadata/namespace");
  if (!owner.Namespace().empty()) {
    if (object_ns.empty()) {
      return BadRequest("cluster-scoped resource must not have a namespace-scoped owner, owner's namespace " +
                        std::string(owner.Namespace()));
    }
    if (object_ns != owner.Namespace()) {
      return BadRequest("cross-namespace owner references are disallowed, owner's namespace " +
                        std::string(owner.Namespace()) + ", obj's namespace " + object_ns);
    }
  }
  return Ok();
}

boost::json::array& OwnerRefs(ObjectBuilder& object) {
  auto& meta = object.Metadata();
  auto it = meta.find("ownerReferences");
  if (it == meta.end() || !it->value().is_array()) {
    meta["ownerReferences"] = boost::json::array();
    it = meta.find("ownerReferences");
  }
  return it->value().as_array();
}

bool IsControllerRef(const boost::json::value& ref) {
  if (!ref.is_object()) return false;
  const auto* c = ref.as_object().if_contains("controller");
  return c != nullptr && c->is_bool() && c->as_bool();
}

}  // namespace

std::string_view ToString(OperationResult result) {
  switch (result) {
    case OperationResult::kUnchanged:
      return "unchanged";
    case OperationResult::kCreated:
      return "created";
    case OperationResult::kUpdated:
      return "updated";
    case OperationResult::kUpdatedStatus:
      return "updatedStatus";
    case OperationResult::kUpdatedStatusOnly:
      return "updatedStatusOnly";
  }
  return "unknown";
}

namespace {

Result<OperationOutcome> CreateOrUpdateAt(const Target& t, const ObjectBuilder& seed, const MutateFn& mutate) {
  auto got = t.Get();
  if (!got.ok()) {
    if (!IsNotFound(got.error())) return std::move(got).error();
    return CreateFromSeed(t, seed, mutate);
  }
  ObjectBuilder b(**got);
  const boost::json::object before = b.Json();
  // The existing object's namespace is authoritative for the key check (the seed may omit it
  // when the Api carries the namespace).
  if (auto m = RunMutate(mutate, b, std::string((*got)->Namespace()), t.name()); !m.ok()) return std::move(m).error();
  if (b.Json() == before) return OperationOutcome{OperationResult::kUnchanged, std::move(*got)};
  auto built = b.Build();
  if (!built.ok()) return std::move(built).error();
  auto updated = t.Update(**built);
  if (!updated.ok()) return std::move(updated).error();
  return OperationOutcome{OperationResult::kUpdated, std::move(*updated)};
}

Result<OperationOutcome> CreateOrPatchAt(const Target& t, const ObjectBuilder& seed, const MutateFn& mutate) {
  auto got = t.Get();
  if (!got.ok()) {
    if (!IsNotFound(got.error())) return std::move(got).error();
    return CreateFromSeed(t, seed, mutate);
  }
  ObjectBuilder b(**got);
  boost::json::object before = b.Json();
  if (auto m = RunMutate(mutate, b, std::string((*got)->Namespace()), t.name()); !m.ok()) return std::move(m).error();
  boost::json::object after = b.Json();
  const boost::json::value before_status = TakeStatus(before);
  const boost::json::value after_status = TakeStatus(after);
  const boost::json::value main_patch = CreateMergePatch(before, after);
  boost::json::value status_patch = boost::json::object();
  if (before_status != after_status) {
    boost::json::object bs, as;
    if (!before_status.is_null()) bs["status"] = before_status;
    if (!after_status.is_null()) as["status"] = after_status;
    status_patch = CreateMergePatch(bs, as);
  }
  const bool main_changed = !IsEmptyPatch(main_patch);
  const bool status_changed = !IsEmptyPatch(status_patch);
  ObjectPtr current = std::move(*got);
  if (main_changed) {
    auto patched = t.MergePatch(*current, SerializeJson(main_patch), {});
    if (!patched.ok()) return std::move(patched).error();
    current = std::move(*patched);
  }
  if (status_changed) {
    auto patched = t.MergePatch(*current, SerializeJson(status_patch), "status");
    if (!patched.ok()) return std::move(patched).error();
    current = std::move(*patched);
  }
  OperationResult op = OperationResult::kUnchanged;
  if (main_changed && status_changed) {
    op = OperationResult::kUpdatedStatus;
  } else if (main_changed) {
    op = OperationResult::kUpdated;
  } else if (status_changed) {
    op = OperationResult::kUpdatedStatusOnly;
  }
  return OperationOutcome{op, std::move(current)};
}

template <class Via>
Result<OperationOutcome> WithTarget(Via& via, const ObjectBuilder& seed, const MutateFn& mutate,
                                    Result<OperationOutcome> (*run)(const Target&, const ObjectBuilder&, const MutateFn&)) {
  auto t = Resolve(via, seed);
  if (!t.ok()) return std::move(t).error();
  return run(*t, seed, mutate);
}

}  // namespace

Result<OperationOutcome> CreateOrUpdate(const client::Api& api, const ObjectBuilder& seed, const MutateFn& mutate) {
  return WithTarget(api, seed, mutate, CreateOrUpdateAt);
}

Result<OperationOutcome> CreateOrUpdate(ClientInterface& client, const ObjectBuilder& seed, const MutateFn& mutate) {
  return WithTarget(client, seed, mutate, CreateOrUpdateAt);
}

Result<OperationOutcome> CreateOrPatch(const client::Api& api, const ObjectBuilder& seed, const MutateFn& mutate) {
  return WithTarget(api, seed, mutate, CreateOrPatchAt);
}

Result<OperationOutcome> CreateOrPatch(ClientInterface& client, const ObjectBuilder& seed, const MutateFn& mutate) {
  return WithTarget(client, seed, mutate, CreateOrPatchAt);
}

Result<void> SetControllerReference(const Object& owner, ObjectBuilder& object) {
  if (auto v = ValidateOwner(owner, object); !v.ok()) return v;
  auto& refs = OwnerRefs(object);
  for (const auto& ref : refs) {
    if (IsControllerRef(ref) && !SameOwner(ref.as_object(), owner)) {
      const auto& o = ref.as_object();
      auto str = [&](std::string_view k) {
        const auto* v = o.if_contains(k);
        return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
      };
      Error e = MakeError(409, reason::kConflict,
                          "object " + StringAt(object, "/metadata/name") + " is already owned by another " +
                              str("kind") + " controller " + str("name"));
      e.details = StatusDetails{};
      e.details->name = StringAt(object, "/metadata/name");
      e.details->causes.push_back(StatusCause{std::string(kAlreadyOwnedCause), e.message, "metadata.ownerReferences"});
      return e;
    }
  }
  boost::json::object ref = OwnerRefJson(owner);
  ref["controller"] = true;
  ref["blockOwnerDeletion"] = true;
  for (auto& existing : refs) {
    if (existing.is_object() && SameOwner(existing.as_object(), owner)) {
      existing = std::move(ref);
      return Ok();
    }
  }
  refs.push_back(std::move(ref));
  return Ok();
}

Result<void> SetOwnerReference(const Object& owner, ObjectBuilder& object) {
  if (auto v = ValidateOwner(owner, object); !v.ok()) return v;
  auto& refs = OwnerRefs(object);
  boost::json::object ref = OwnerRefJson(owner);
  for (auto& existing : refs) {
    if (existing.is_object() && SameOwner(existing.as_object(), owner)) {
      // Keep the flags a SetControllerReference put there: dropping them silently would turn
      // a controller into a plain owner.
      const auto& old = existing.as_object();
      for (std::string_view flag : {"controller", "blockOwnerDeletion"}) {
        if (const auto* v = old.if_contains(flag)) ref[flag] = *v;
      }
      existing = std::move(ref);
      return Ok();
    }
  }
  refs.push_back(std::move(ref));
  return Ok();
}

bool RemoveOwnerReference(const Object& owner, ObjectBuilder& object) {
  auto& meta = object.Metadata();
  auto it = meta.find("ownerReferences");
  if (it == meta.end() || !it->value().is_array()) return false;
  auto& refs = it->value().as_array();
  bool removed = false;
  for (auto r = refs.begin(); r != refs.end();) {
    if (r->is_object() && SameOwner(r->as_object(), owner)) {
      r = refs.erase(r);
      removed = true;
    } else {
      ++r;
    }
  }
  if (refs.empty()) meta.erase("ownerReferences");
  return removed;
}

bool HasOwnerReference(const Object& owner, const Object& object) {
  for (const auto& ref : object.OwnerReferences()) {
    if (GroupOf(ref.api_version) == GroupOf(owner.ApiVersion()) && ref.kind == owner.Kind() &&
        ref.name == owner.Name()) {
      return true;
    }
  }
  return false;
}

bool HasControllerReference(const Object& owner, const Object& object) {
  const auto ref = object.ControllerRef();
  return ref.has_value() && GroupOf(ref->api_version) == GroupOf(owner.ApiVersion()) &&
         ref->kind == owner.Kind() && ref->name == owner.Name();
}

bool IsAlreadyOwned(const Error& e) {
  if (e.code != 409 || !e.details) return false;
  for (const auto& c : e.details->causes) {
    if (c.reason == kAlreadyOwnedCause) return true;
  }
  return false;
}

bool AddFinalizer(ObjectBuilder& object, std::string_view finalizer) { return object.AddFinalizer(finalizer); }

bool RemoveFinalizer(ObjectBuilder& object, std::string_view finalizer) {
  return object.RemoveFinalizer(finalizer);
}

bool ContainsFinalizer(const Object& object, std::string_view finalizer) {
  return object.Finalizers().Contains(finalizer);
}

namespace {

Result<ObjectPtr> UpdateStatusAt(const Target& target, const MutateFn& mutate, const UpdateStatusOptions& options) {
  Clock& clock = options.clock != nullptr ? *options.clock : RealClock::Instance();
  ObjectPtr last;
  auto r = RetryOnConflict(
      options.backoff,
      [&]() -> Result<void> {
        auto got = target.Get();
        if (!got.ok()) return std::move(got).error();
        ObjectBuilder b(**got);
        std::optional<boost::json::value> before;
        if (const auto* s = b.Find("/status")) before = *s;
        if (auto m = RunMutate(mutate, b, std::string((*got)->Namespace()), target.name()); !m.ok()) return m;
        if (options.set_observed_generation) {
          const std::int64_t observed = options.observed_generation.value_or((*got)->Generation());
          if (auto s = b.Set("/status/observedGeneration", observed); !s.ok()) return s;
        }
        std::optional<boost::json::value> after;
        if (const auto* s = b.Find("/status")) after = *s;
        if (before == after) {
          last = std::move(*got);
          return Ok();
        }
        auto built = b.Build();
        if (!built.ok()) return std::move(built).error();
        auto updated = target.UpdateStatus(**built);
        if (!updated.ok()) return std::move(updated).error();
        last = std::move(*updated);
        return Ok();
      },
      {}, clock);
  if (!r.ok()) return std::move(r).error();
  return last;
}

}  // namespace

Result<ObjectPtr> UpdateStatus(const client::Api& api, const ObjectKey& key, const MutateFn& mutate,
                               UpdateStatusOptions options) {
  auto target = TargetApi(api, key.ns);
  if (!target.ok()) return std::move(target).error();
  return UpdateStatusAt(ApiTarget(key.ns, key.name, std::move(*target)), mutate, options);
}

Result<ObjectPtr> UpdateStatus(ClientInterface& client, const GroupVersionResource& gvr, const ObjectKey& key,
                               const MutateFn& mutate, UpdateStatusOptions options) {
  return UpdateStatusAt(ClientTarget(key.ns, key.name, client, gvr), mutate, options);
}

}  // namespace kube::controller
