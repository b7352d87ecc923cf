// The apiextensions controllers of the embedded server: CRD status (naming + establishing), the
// registration of custom resources, and the CRD finalizer (apiserver-semantics.md §6).

#include "apiserver/controllers/crd_controller.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include <boost/json.hpp>

#include <kube/base/log.hpp>
#include <kube/core/options.hpp>
#include <kube/core/status.hpp>
#include <kube/core/time.hpp>

#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/context.hpp"
#include "apiserver/rest/crd.hpp"
#include "apiserver/rest/deletion.hpp"
#include "apiserver/rest/json_util.hpp"

namespace kube::apiserver::controllers {
namespace json = boost::json;
using rest::MetadataOf;
using rest::StringAt;

namespace {

const std::string& CrdPrefix() {
  static const std::string prefix = rest::CrdResourceInfo().StoragePrefix();
  return prefix;
}

bool IsCrdKey(std::string_view key) { return key.starts_with(CrdPrefix()); }

// Storage that runs the CRD controller's status and registration logic inside every CRD write.
class CrdStorage final : public Storage {
 public:
  CrdStorage(std::unique_ptr<Storage> inner, CrdController& controller)
      : inner_(std::move(inner)), controller_(controller) {}

  Result<Revision> Create(std::string_view key, const ValueFn& make) override {
    if (!IsCrdKey(key)) return inner_->Create(key, make);
    MutexLock lock(write_mu_);
    bool deleting = false;
    auto rev = inner_->Create(key, Wrap(make, &deleting));
    After(key, rev.ok(), deleting);
    return rev;
  }
  Result<Revision> Update(std::string_view key, Revision expected, const ValueFn& make) override {
    if (!IsCrdKey(key)) return inner_->Update(key, expected, make);
    MutexLock lock(write_mu_);
    bool deleting = false;
    auto rev = inner_->Update(key, expected, Wrap(make, &deleting));
    After(key, rev.ok(), deleting);
    return rev;
  }
  Result<Revision> Delete(std::string_view key, Revision expected, const ValueFn& make) override {
    if (!IsCrdKey(key)) return inner_->Delete(key, expected, make);
    MutexLock lock(write_mu_);
    auto rev = inner_->Delete(key, expected, make);
    if (rev.ok()) {
      controller_.OnCrdDeleted(std::string(key.substr(CrdPrefix().size())));
    } else {
      Resync(key);
    }
    return rev;
  }
  Result<KeyValue> Get(std::string_view key, Revision revision) override { return inner_->Get(key, revision); }
  Result<ListResult> List(const ListRequest& request) override { return inner_->List(request); }
  Result<std::unique_ptr<Watcher>> Watch(std::string_view prefix, Revision after) override {
    return inner_->Watch(prefix, after);
  }
  Revision CurrentRevision() override { return inner_->CurrentRevision(); }
  Revision CompactedRevision() override { return inner_->CompactedRevision(); }
  Revision Compact(Revision revision) override { return inner_->Compact(revision); }

 private:
  // `deleting` reports whether the written CRD has a deletionTimestamp.
  ValueFn Wrap(const ValueFn& make, bool* deleting) {
    return [this, &make, deleting](Revision rv) -> Result<std::string> {
      auto value = make(rv);
      if (!value.ok()) return value;
      auto obj = rest::ParseStored(*value);
      if (!obj.ok()) return std::move(obj).error();
      controller_.OnCrdWrite(*obj);
      *deleting = MetadataOf(*obj).contains("deletionTimestamp");
      rest::NormalizeMemberOrder(*obj);
      return json::serialize(*obj);
    };
  }

  // The cleanup of a deleted CRD is queued once its write is visible to readers.
  void After(std::string_view key, bool ok, bool deleting) KUBE_REQUIRES(write_mu_) {
    if (!ok) {
      Resync(key);
    } else if (deleting) {
      controller_.QueueCleanup(std::string(key.substr(CrdPrefix().size())));
    }
  }

  // After a failed write, makes the registry follow what is actually stored.
  void Resync(std::string_view key) KUBE_REQUIRES(write_mu_) {
    auto kv = inner_->Get(key);
    if (!kv.ok()) {
      if (IsNotFound(kv.error())) controller_.OnCrdDeleted(std::string(key.substr(CrdPrefix().size())));
      return;
    }
    auto obj = rest::ParseStored(*kv->value);
    if (!obj.ok()) return;
    controller_.OnCrdWrite(*obj);
    if (MetadataOf(*obj).contains("deletionTimestamp")) {
      controller_.QueueCleanup(std::string(key.substr(CrdPrefix().size())));
    }
  }

  std::unique_ptr<Storage> inner_;
  CrdController& controller_;
  // CRD writes are serialized, each with its registry update and, for a failed write, the resync
  // that follows it. Otherwise a write whose value was computed (and registered) but is not yet
  // committed races a failed write's resync, which reads the old state and unregisters the CRD
  // (seen with two clients installing the same CRD at once on sqlite's group commit), or an older
  // resync lands after a newer write. Taken before the inner storage's locks and the controller's.
  Mutex write_mu_;
};

}  // namespace

CrdController::CrdController(Registry& registry, Clock& clock, Clock::Duration retry)
    : registry_(registry), clock_(clock), retry_(retry) {}

CrdController::~CrdController() { Stop(); }

std::unique_ptr<Storage> CrdController::WrapStorage(std::unique_ptr<Storage> inner) {
  auto wrapped = std::make_unique<CrdStorage>(std::move(inner), *this);
  storage_ = wrapped.get();
  return wrapped;
}

Result<void> CrdController::RegisterStored() {
  ListRequest req;
  req.prefix = CrdPrefix();
  auto list = storage_->List(req);
  if (!list.ok()) return std::move(list).error();
  MutexLock lock(mu_);
  for (const auto& kv : list->items) {
    auto obj = rest::ParseStored(*kv.value);
    if (!obj.ok()) continue;
    ApplyLocked(*obj);
    if (MetadataOf(*obj).contains("deletionTimestamp")) Enqueue(std::string(StringAt(MetadataOf(*obj), "name")));
  }
  return Ok();
}

void CrdController::Start() {
  MutexLock lock(mu_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { Run(); });
}

void CrdController::Stop() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
    cv_.SignalAll();
  }
  if (thread_.joinable()) thread_.join();
}

void CrdController::OnCrdWrite(json::object& crd) {
  MutexLock lock(mu_);
  ApplyLocked(crd);
}

void CrdController::OnCrdDeleted(const std::string& name) {
  MutexLock lock(mu_);
  unaccepted_.erase(name);
  auto it = owned_.find(name);
  if (it == owned_.end() || it->second.empty()) return;
  const std::string group = it->second.front().group;
  UnregisterLocked(name);
  // Names it held may be free now.
  for (const auto& [other, other_group] : unaccepted_) {
    if (other_group == group) Enqueue(other);
  }
}

void CrdController::QueueCleanup(const std::string& name) {
  MutexLock lock(mu_);
  Enqueue(name);
}

void CrdController::Enqueue(const std::string& name) {
  if (std::find(queue_.begin(), queue_.end(), name) == queue_.end()) queue_.push_back(name);
  cv_.SignalAll();
}

void CrdController::UnregisterLocked(const std::string& name) {
  auto it = owned_.find(name);
  if (it == owned_.end()) return;
  for (const auto& gvr : it->second) registry_.Remove(gvr.group, gvr.version, gvr.resource);
  owned_.erase(it);
}

std::vector<ResourcePtr> CrdController::OthersInGroupLocked(const std::string& name, const std::string& group) {
  std::set<std::pair<std::string, std::string>> mine;  // (version, resource) served by `name`
  if (auto it = owned_.find(name); it != owned_.end()) {
    for (const auto& gvr : it->second) mine.emplace(gvr.version, gvr.resource);
  }
  std::vector<ResourcePtr> others;
  for (const auto& r : registry_.All()) {
    if (r->group != group || mine.contains({r->version, r->resource})) continue;
    others.push_back(r);
  }
  return others;
}

void CrdController::ApplyLocked(json::object& crd) {
  const std::string name(StringAt(MetadataOf(crd), "name"));
  if (name.empty()) return;
  const rest::CrdNames names = rest::NamesOf(crd);
  const rest::NamesConflict conflict = rest::FindNamesConflict(names, OthersInGroupLocked(name, names.group));
  rest::UpdateCrdStatus(crd, conflict, FormatTime(clock_.WallNow()));
  if (conflict.reason.empty()) {
    unaccepted_.erase(name);
  } else {
    unaccepted_[name] = names.group;
  }
  if (conflict.reason.empty()) {
    std::vector<ResourceInfo> served = rest::CrdServedResources(crd);
    std::vector<GroupVersionResource> now;
    for (const auto& info : served) now.push_back(info.Gvr());
    if (auto it = owned_.find(name); it != owned_.end()) {
      for (const auto& gvr : it->second) {
        const bool kept = std::any_of(now.begin(), now.end(), [&](const GroupVersionResource& g) {
          return g.group == gvr.group && g.version == gvr.version && g.resource == gvr.resource;
        });
        if (!kept) registry_.Remove(gvr.group, gvr.version, gvr.resource);
      }
    }
    for (auto& info : served) registry_.Add(std::move(info));
    if (now.empty()) {
      owned_.erase(name);
    } else {
      owned_[name] = std::move(now);
    }
  }
}

bool CrdController::StatusWouldChange(const json::object& crd) {
  json::object copy = crd;
  {
    MutexLock lock(mu_);
    // ApplyLocked on a copy would register; compute the status only.
    const std::string name(StringAt(MetadataOf(copy), "name"));
    const rest::CrdNames names = rest::NamesOf(copy);
    rest::UpdateCrdStatus(copy, rest::FindNamesConflict(names, OthersInGroupLocked(name, names.group)),
                          FormatTime(clock_.WallNow()));
  }
  const auto* a = copy.if_contains("status");
  const auto* b = crd.if_contains("status");
  if (a == nullptr || b == nullptr) return a != b;
  // Transition times differ only when a condition's status does.
  return json::serialize(*a) != json::serialize(*b);
}

void CrdController::Run() {
  for (;;) {
    std::string name;
    {
      MutexLock lock(mu_);
      while (!stopping_ && queue_.empty()) cv_.Wait(mu_);
      if (stopping_) return;
      name = queue_.front();
      queue_.pop_front();
    }
    if (!Cleanup(name)) continue;
    // Held by finalizers or a failed write: wait (interruptibly), then go again.
    MutexLock lock(mu_);
    const auto deadline = clock_.Now() + retry_;
    while (!stopping_ && clock_.Now() < deadline) clock_.WaitUntil(cv_, mu_, deadline);
    if (stopping_) return;
    if (std::find(queue_.begin(), queue_.end(), name) == queue_.end()) queue_.push_back(name);
  }
}

bool CrdController::Cleanup(const std::string& name) {
  rest::Env env{*storage_, registry_, RestOptions{}, clock_};
  const ResourceInfo crd_info = rest::CrdResourceInfo();
  auto kv = storage_->Get(crd_info.StorageKey("", name));
  if (!kv.ok()) return !IsNotFound(kv.error());
  auto crd = rest::ParseStored(*kv->value);
  if (!crd.ok()) return false;
  if (!MetadataOf(*crd).contains("deletionTimestamp")) {
    // A status refresh: the write recomputes the status (see CrdStorage::Wrap).
    auto refreshed = rest::MutateObject(env, crd_info, "", name, std::nullopt,
                                        [&](json::object& obj) -> Result<bool> { return StatusWouldChange(obj); });
    return !refreshed.ok();
  }
  const std::string uid(StringAt(MetadataOf(*crd), "uid"));
  const std::string now = FormatTime(clock_.WallNow());

  // 1. Terminating.
  if (!rest::CrdConditionTrue(*crd, "Terminating")) {
    auto marked = rest::MutateObject(env, crd_info, "", name, uid, [&](json::object& obj) -> Result<bool> {
      rest::SetCrdCondition(obj, "Terminating", "True", "InstanceDeletionInProgress",
                            "CustomResource deletion is in progress", now);
      return true;
    });
    if (!marked.ok()) {
      log::Warn("crd controller: set Terminating", {{"crd", name}, {"error", marked.error().message}});
      return true;
    }
  }

  // 2. Delete every custom resource (all namespaces; all versions share the storage prefix).
  const rest::CrdNames names = rest::NamesOf(*crd);
  ResourceInfo cr;
  cr.group = names.group;
  cr.version = "v1";
  cr.resource = names.plural;
  cr.kind = names.kind;
  cr.namespaced = false;  // keys are deleted by their full name below
  if (auto served = registry_.All(); !served.empty()) {
    for (const auto& r : served) {
      if (r->group == names.group && r->resource == names.plural) {
        cr = *r;
        break;
      }
    }
  }
  ListRequest req;
  req.prefix = cr.StoragePrefix();
  auto list = storage_->List(req);
  if (!list.ok()) return true;
  bool remaining = false;
  for (const auto& item : list->items) {
    const std::string rest_key = item.key.substr(req.prefix.size());
    std::string ns;
    std::string obj_name = rest_key;
    if (cr.namespaced) {
      const auto slash = rest_key.find('/');
      if (slash == std::string::npos) continue;
      ns = rest_key.substr(0, slash);
      obj_name = rest_key.substr(slash + 1);
    }
    auto deleted = rest::DeleteObject(env, cr, ns, obj_name, DeleteOptions{}, false);
    if (!deleted.ok()) {
      if (!IsNotFound(deleted.error())) remaining = true;
      continue;
    }
    if (!deleted->gone) remaining = true;  // held by finalizers
  }
  if (remaining) return true;
  if (auto again = storage_->List(req); !again.ok() || !again->items.empty()) return true;

  // 3. Done: remove the finalizer (which deletes the CRD when it is the last one).
  auto finalized = rest::MutateObject(env, crd_info, "", name, uid, [&](json::object& obj) -> Result<bool> {
    rest::SetCrdCondition(obj, "Terminating", "False", "InstanceDeletionCompleted", "removed all instances", now);
    rest::RemoveFinalizer(obj, rest::kCrdCleanupFinalizer);
    return true;
  });
  if (!finalized.ok()) {
    log::Warn("crd controller: remove finalizer", {{"crd", name}, {"error", finalized.error().message}});
    return true;
  }
  return false;
}

}  // namespace kube::apiserver::controllers
