// DELETE and DELETECOLLECTION (apiserver-semantics.md §3.5, without propagation/GC, which come
// with the garbage collector): preconditions, finalizers (deletionTimestamp, the object stays until
// they are removed), immediate deletion with the type's response, and namespace termination.

#include <array>

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/status.hpp>
#include <kube/core/time.hpp>

#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/json_util.hpp"
#include "apiserver/rest/ops.hpp"
#include "apiserver/rest/output.hpp"
#include "apiserver/rest/read_util.hpp"
#include "apiserver/rest/write_util.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

constexpr int kDeleteAttempts = 16;
constexpr std::array<std::string_view, 3> kImmortalNamespaces = {"default", "kube-system", "kube-public"};

Result<void> CheckPreconditions(const ResourceInfo& info, std::string_view name, const DeleteOptions& opts,
                                const json::object& current) {
  if (!opts.preconditions) return Ok();
  const auto& meta = MetadataOf(current);
  const GroupResource by_kind{info.group, info.kind};  // kube names the Kind here
  const auto uid = StringAt(meta, "uid");
  const auto rv = StringAt(meta, "resourceVersion");
  if (opts.preconditions->uid && *opts.preconditions->uid != uid) {
    return NewConflict(by_kind, name,
                       "the UID in the precondition (" + *opts.preconditions->uid +
                           ") does not match the UID in record (" + std::string(uid) +
                           "). The object might have been deleted and then recreated");
  }
  if (opts.preconditions->resource_version && *opts.preconditions->resource_version != rv) {
    return NewConflict(by_kind, name,
                       "the ResourceVersion in the precondition (" + *opts.preconditions->resource_version +
                           ") does not match the ResourceVersion in record (" + std::string(rv) +
                           "). The object might have been modified");
  }
  return Ok();
}

struct DeleteOutcome {
  std::string stored;  // the object's last (or current, when only marked) state
  bool gone = false;   // removed from storage (false: marked with a deletionTimestamp)
};

// Deletes the object at `kv` (current), or marks it deleting when it has finalizers. A storage
// Conflict means it changed meanwhile: the caller re-reads and retries.
Result<DeleteOutcome> DeleteOrMark(const Env& env, const ResourceInfo& info, std::string_view name,
                                   const KeyValue& kv, const json::object& current, bool dry_run) {
  const auto& meta = MetadataOf(current);
  const auto* finalizers = meta.if_contains("finalizers");
  const bool has_finalizers = finalizers != nullptr && finalizers->is_array() && !finalizers->get_array().empty();
  if (meta.contains("deletionTimestamp")) return DeleteOutcome{*kv.value, false};
  if (!has_finalizers) {
    auto deleted = DeleteStored(env, info.Gr(), name, kv, dry_run);
    if (!deleted.ok()) return std::move(deleted).error();
    return DeleteOutcome{deleted->stored, true};
  }
  json::object obj = current;
  auto& m = EnsureObject(obj, "metadata");
  m["deletionTimestamp"] = FormatTime(env.clock.WallNow());
  m["deletionGracePeriodSeconds"] = 0;
  if (const auto* g = m.if_contains("generation"); g != nullptr && g->is_int64() && g->get_int64() > 0) {
    m["generation"] = g->get_int64() + 1;
  }
  NormalizeMemberOrder(obj);
  if (dry_run) return DeleteOutcome{json::serialize(obj), false};
  const StampedJson stamped(std::move(obj));
  auto rev = env.storage.Update(kv.key, kv.mod_revision,
                                [&](Revision rv) -> Result<std::string> { return stamped.At(rv); });
  if (!rev.ok()) return MapStorageError(rev.error(), info.Gr(), name);
  return DeleteOutcome{stamped.At(*rev), false};
}

// Deletes every object in namespace `ns` of every namespaced resource. Returns whether the
// namespace is empty now (objects with finalizers stay until those are removed).
bool PurgeNamespace(const Env& env, std::string_view ns) {
  bool empty = true;
  std::vector<std::string> prefixes;
  std::vector<ResourcePtr> resources;
  for (const ResourcePtr& info : env.registry.All()) {
    if (!info->namespaced) continue;
    const std::string prefix = info->StoragePrefix() + std::string(ns) + "/";
    if (std::find(prefixes.begin(), prefixes.end(), prefix) != prefixes.end()) continue;
    prefixes.push_back(prefix);
    resources.push_back(info);
  }
  for (std::size_t i = 0; i < prefixes.size(); ++i) {
    ListRequest lr;
    lr.prefix = prefixes[i];
    auto list = env.storage.List(lr);
    if (!list.ok()) {
      empty = false;
      continue;
    }
    for (const KeyValue& item : list->items) {
      KeyValue kv = item;
      bool gone = false;
      for (int attempt = 0; attempt < kDeleteAttempts; ++attempt) {
        auto current = ParseStored(*kv.value);
        if (!current.ok()) break;
        const std::string name(StringAt(MetadataOf(*current), "name"));
        auto outcome = DeleteOrMark(env, *resources[i], name, kv, *current, false);
        if (outcome.ok()) {
          gone = outcome->gone;
          break;
        }
        if (IsNotFound(outcome.error())) {
          gone = true;
          break;
        }
        auto fresh = env.storage.Get(kv.key);
        if (!fresh.ok()) {
          gone = IsNotFound(fresh.error());
          break;
        }
        kv = std::move(*fresh);
      }
      empty = empty && gone;
    }
  }
  return empty;
}

// Namespace deletion: Terminating first, then its content goes, then the `kubernetes` finalizer
// (the namespace controller's job in kube, done synchronously here).
void DeleteNamespace(const Env& env, Request& r, const DeleteOptions& opts, const OutputFormat& format,
                     bool dry_run) {
  const std::string key = r.Key();
  std::string response;
  for (int attempt = 0; attempt < kDeleteAttempts && response.empty(); ++attempt) {
    auto kv = env.storage.Get(key);
    if (!kv.ok()) return RespondError(r.w, MapStorageError(kv.error(), r.Gr(), r.path.name));
    auto current = ParseStored(*kv->value);
    if (!current.ok()) return RespondError(r.w, current.error());
    if (auto pre = CheckPreconditions(*r.info, r.path.name, opts, *current); !pre.ok()) {
      return RespondError(r.w, pre.error());
    }
    if (MetadataOf(*current).contains("deletionTimestamp")) {
      response = *kv->value;
      break;
    }
    json::object obj = *current;
    EnsureObject(obj, "metadata")["deletionTimestamp"] = FormatTime(env.clock.WallNow());
    EnsureObject(obj, "status")["phase"] = "Terminating";
    NormalizeMemberOrder(obj);
    if (dry_run) return RespondObject(env, r, format, 200, json::serialize(obj));
    const StampedJson stamped(std::move(obj));
    auto rev = env.storage.Update(key, kv->mod_revision,
                                  [&](Revision rv) -> Result<std::string> { return stamped.At(rv); });
    if (rev.ok()) response = stamped.At(*rev);
  }
  if (response.empty()) return RespondError(r.w, NewConflict(r.Gr(), r.path.name, kOptimisticLockErrorMsg));
  RespondObject(env, r, format, 200, response);

  // Finalize after answering: the client sees the Terminating namespace, as from kube.
  if (!PurgeNamespace(env, r.path.name)) return;
  for (int attempt = 0; attempt < kDeleteAttempts; ++attempt) {
    auto kv = env.storage.Get(key);
    if (!kv.ok()) return;
    auto current = ParseStored(*kv->value);
    if (!current.ok()) return;
    json::object obj = *current;
    auto& spec = EnsureObject(obj, "spec");
    if (auto* f = spec.if_contains("finalizers"); f != nullptr && f->is_array()) {
      auto& arr = f->get_array();
      for (auto it = arr.begin(); it != arr.end();) {
        it = it->is_string() && it->get_string() == "kubernetes" ? arr.erase(it) : it + 1;
      }
      if (arr.empty()) spec.erase("finalizers");
    }
    const auto* meta_finalizers = MetadataOf(obj).if_contains("finalizers");
    Result<WriteResult> done = MakeError(409, reason::kConflict, "retry");
    if (meta_finalizers == nullptr || !meta_finalizers->is_array() || meta_finalizers->get_array().empty()) {
      done = DeleteStored(env, r.Gr(), r.path.name, *kv, false);
    } else {
      const StampedJson stamped(std::move(obj));
      auto rev = env.storage.Update(key, kv->mod_revision,
                                    [&](Revision rv) -> Result<std::string> { return stamped.At(rv); });
      if (rev.ok()) done = WriteResult{};
    }
    if (done.ok()) return;
  }
}

}  // namespace

void HandleDelete(const Env& env, Request& r) {
  auto opts = DeleteOptions::FromRequest(r.http.query, r.http.body);
  if (!opts.ok()) return RespondError(r.w, opts.error());
  const bool dry_run = !opts->dry_run.empty();
  auto format = Negotiate(r, /*is_list=*/false);
  if (!format.ok()) return RespondError(r.w, format.error());
  const bool is_namespace = KindOf(*r.info) == BuiltinKind::kNamespace;
  if (is_namespace) {
    for (auto immortal : kImmortalNamespaces) {
      if (r.path.name == immortal) {
        return RespondError(r.w, NewForbidden(r.Gr(), r.path.name, "this namespace may not be deleted"));
      }
    }
    return DeleteNamespace(env, r, *opts, *format, dry_run);
  }
  for (int attempt = 0; attempt < kDeleteAttempts; ++attempt) {
    auto kv = env.storage.Get(r.Key());
    if (!kv.ok()) return RespondError(r.w, MapStorageError(kv.error(), r.Gr(), r.path.name));
    auto current = ParseStored(*kv->value);
    if (!current.ok()) return RespondError(r.w, current.error());
    if (auto pre = CheckPreconditions(*r.info, r.path.name, *opts, *current); !pre.ok()) {
      return RespondError(r.w, pre.error());
    }
    auto outcome = DeleteOrMark(env, *r.info, r.path.name, *kv, *current, dry_run);
    if (!outcome.ok()) {
      if (IsConflict(outcome.error())) continue;  // changed since read: check again
      return RespondError(r.w, outcome.error());
    }
    if (!outcome->gone || ReturnsDeletedObject(*r.info)) {
      return RespondObject(env, r, *format, 200, ServedJson(*r.info, outcome->stored));
    }
    StatusDetails details;
    details.name = r.path.name;
    details.group = r.info->group;
    details.kind = r.info->resource;  // kube: "Yes we set Kind field to resource"
    details.uid = std::string(StringAt(MetadataOf(*current), "uid"));
    return r.w.Respond(200, "application/json", SuccessStatusJson(details));
  }
  RespondError(r.w, NewConflict(r.Gr(), r.path.name, kOptimisticLockErrorMsg));
}

void HandleDeleteCollection(const Env& env, Request& r) {
  auto list_opts = ListOptions::FromQuery(r.http.query);
  if (!list_opts.ok()) return RespondError(r.w, list_opts.error());
  list_opts->watch = false;
  if (auto v = ValidateListOptions(*list_opts); !v.ok()) return RespondError(r.w, v.error());
  auto opts = DeleteOptions::FromRequest(r.http.query, r.http.body);
  if (!opts.ok()) return RespondError(r.w, opts.error());
  const bool dry_run = !opts->dry_run.empty();
  auto sel = Selection::Parse(*r.info, *list_opts);
  if (!sel.ok()) return RespondError(r.w, sel.error());
  auto format = Negotiate(r, /*is_list=*/true);
  if (!format.ok()) return RespondError(r.w, format.error());
  auto plan = PlanList(env, r, *list_opts, *sel);
  if (!plan.ok()) return RespondError(r.w, plan.error());
  auto page = ReadPage(env, *plan, 0, *sel, nullptr);
  if (!page.ok()) return RespondError(r.w, page.error());
  for (const KeyValue& item : page->items) {
    KeyValue kv = item;
    for (int attempt = 0; attempt < kDeleteAttempts; ++attempt) {
      auto current = ParseStored(*kv.value);
      if (!current.ok()) break;
      if (attempt > 0 && !sel->MatchesStored(*kv.value)) break;  // changed out of the selection
      const std::string name(StringAt(MetadataOf(*current), "name"));
      auto outcome = DeleteOrMark(env, *r.info, name, kv, *current, dry_run);
      if (outcome.ok() || !IsConflict(outcome.error())) break;
      auto fresh = env.storage.Get(kv.key);
      if (!fresh.ok()) break;
      kv = std::move(*fresh);
    }
  }
  // kube answers with the list of what it deleted (as listed).
  RespondList(env, r, *format, *page);
}

}  // namespace kube::apiserver::rest
