// The garbage collector (kube's pkg/controller/garbagecollector, re-implemented on the embedded
// server's storage). One thread keeps a graph of every object's uid and ownerReferences, fed by a
// storage watch over everything, and works through a queue of uids that may need action:
//   - an object with ownerReferences whose owners may be absent -> attemptToDelete;
//   - an object being deleted with the `orphan` finalizer -> orphan its dependents, drop the finalizer;
//   - an object being deleted with `foregroundDeletion` -> delete its dependents, drop the finalizer
//     once no dependent with blockOwnerDeletion=true is left.
// The graph is only a filter; every decision re-reads the owners from storage (as kube does).

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <thread>
#include <unordered_map>

#include <boost/json.hpp>

#include <kube/base/log.hpp>
#include <kube/core/gvk.hpp>
#include <kube/core/status.hpp>

#include "apiserver/controllers/controllers.hpp"
#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/deletion.hpp"
#include "apiserver/rest/json_util.hpp"

namespace kube::apiserver::controllers {
namespace json = boost::json;
using rest::MetadataOf;
using rest::StringAt;

namespace {

constexpr std::string_view kAllKeys = "/registry/";
constexpr auto kRetryDelay = std::chrono::seconds(1);
constexpr auto kIdleWait = std::chrono::seconds(5);

struct OwnerRef {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool block = false;
};

struct Node {
  std::string key;
  ResourcePtr info;
  std::string ns;
  std::string name;
  std::string uid;
  std::vector<OwnerRef> owners;
  bool deleting = false;
  bool orphan = false;      // deleting with the orphan finalizer
  bool foreground = false;  // deleting with the foregroundDeletion finalizer
};

std::vector<OwnerRef> OwnersOf(const json::object& meta) {
  std::vector<OwnerRef> out;
  const auto* refs = meta.if_contains("ownerReferences");
  if (refs == nullptr || !refs->is_array()) return out;
  for (const auto& v : refs->get_array()) {
    if (!v.is_object()) continue;
    const auto& o = v.get_object();
    OwnerRef r{std::string(StringAt(o, "apiVersion")), std::string(StringAt(o, "kind")),
               std::string(StringAt(o, "name")), std::string(StringAt(o, "uid")), false};
    if (const auto* b = o.if_contains("blockOwnerDeletion"); b != nullptr && b->is_bool()) r.block = b->get_bool();
    if (!r.uid.empty()) out.push_back(std::move(r));
  }
  return out;
}

bool HasFinalizer(const json::object& meta, std::string_view finalizer) {
  const auto* f = meta.if_contains("finalizers");
  if (f == nullptr || !f->is_array()) return false;
  for (const auto& v : f->get_array()) {
    if (v.is_string() && v.get_string() == finalizer) return true;
  }
  return false;
}

class GarbageCollector final : public LoopController {
 public:
  explicit GarbageCollector(const rest::Env& env) : env_(env) {}
  ~GarbageCollector() override { Stop(); }

 private:
  // --- graph ---

  void Clear() {
    nodes_.clear();
    by_key_.clear();
    dependents_.clear();
    queue_.clear();
    queued_.clear();
    retry_.clear();
  }

  void RemoveNode(const std::string& uid) {
    auto it = nodes_.find(uid);
    if (it == nodes_.end()) return;
    for (const auto& ref : it->second.owners) {
      auto d = dependents_.find(ref.uid);
      if (d == dependents_.end()) continue;
      d->second.erase(uid);
      if (d->second.empty()) dependents_.erase(d);
    }
    by_key_.erase(it->second.key);
    nodes_.erase(it);
  }

  // Records the object stored at `key`; returns its uid ("" when it cannot be parsed).
  std::string Upsert(const std::string& key, const std::string& value) {
    auto obj = rest::ParseStored(value);
    if (!obj.ok()) return "";
    const auto& meta = MetadataOf(*obj);
    Node n;
    n.key = key;
    n.info = ResourceForKey(env_.registry, key);
    n.ns = std::string(StringAt(meta, "namespace"));
    n.name = std::string(StringAt(meta, "name"));
    n.uid = std::string(StringAt(meta, "uid"));
    if (n.uid.empty() || n.info == nullptr) return "";
    n.owners = OwnersOf(meta);
    n.deleting = meta.contains("deletionTimestamp");
    n.orphan = n.deleting && HasFinalizer(meta, rest::kOrphanFinalizer);
    n.foreground = n.deleting && HasFinalizer(meta, rest::kForegroundFinalizer);
    if (auto old = by_key_.find(key); old != by_key_.end() && old->second != n.uid) RemoveNode(old->second);
    RemoveNode(n.uid);
    for (const auto& ref : n.owners) dependents_[ref.uid].insert(n.uid);
    by_key_[key] = n.uid;
    const std::string uid = n.uid;
    nodes_.emplace(uid, std::move(n));
    return uid;
  }

  // True when the graph suggests the node's owners need a look (an owner unknown, replaced, or
  // being deleted in the foreground). A live read decides.
  bool OwnersNeedAttention(const Node& n) const {
    for (const auto& ref : n.owners) {
      auto it = nodes_.find(ref.uid);
      if (it == nodes_.end()) return true;
      const Node& owner = it->second;
      if (owner.name != ref.name || owner.info->kind != ref.kind) return true;
      if (owner.info->namespaced && owner.ns != n.ns) return true;
      if (owner.foreground) return true;
    }
    return false;
  }

  void Enqueue(const std::string& uid) {
    if (uid.empty() || !queued_.insert(uid).second) return;
    queue_.push_back(uid);
  }

  // Decides what an object change means for the queue.
  void Observe(const StorageEvent& e) {
    if (e.type == StorageEvent::Type::kDeleted) {
      auto it = by_key_.find(e.key);
      if (it == by_key_.end()) return;
      const std::string uid = it->second;
      const std::vector<OwnerRef> owners = nodes_.at(uid).owners;
      RemoveNode(uid);
      if (auto d = dependents_.find(uid); d != dependents_.end()) {
        for (const auto& dep : d->second) Enqueue(dep);
      }
      for (const auto& ref : owners) {
        if (auto o = nodes_.find(ref.uid); o != nodes_.end() && o->second.foreground) Enqueue(ref.uid);
      }
      return;
    }
    std::vector<OwnerRef> old_owners;
    if (auto it = by_key_.find(e.key); it != by_key_.end()) old_owners = nodes_.at(it->second).owners;
    const std::string uid = Upsert(e.key, *e.value);
    if (uid.empty()) return;
    const Node& n = nodes_.at(uid);
    if (n.orphan || n.foreground) Enqueue(uid);
    if (!n.deleting && OwnersNeedAttention(n)) Enqueue(uid);
    // Owners waiting in the foreground re-check whether this dependent still blocks them.
    for (const std::vector<OwnerRef>* owners : {static_cast<const std::vector<OwnerRef>*>(&old_owners), &n.owners}) {
      for (const auto& ref : *owners) {
        if (auto o = nodes_.find(ref.uid); o != nodes_.end() && o->second.foreground) Enqueue(ref.uid);
      }
    }
    // An owner that starts a foreground deletion: its dependents go first.
    if (n.foreground) {
      if (auto d = dependents_.find(uid); d != dependents_.end()) {
        for (const auto& dep : d->second) Enqueue(dep);
      }
    }
  }

  // --- actions ---

  enum class OwnerState { kSolid, kDangling, kWaiting, kUnknown };

  OwnerState Classify(const Node& n, const OwnerRef& ref) {
    auto gv = GroupVersion::Parse(ref.api_version);
    if (!gv.ok()) return OwnerState::kUnknown;
    ResourcePtr owner_info = env_.registry.FindByKind(gv->group, gv->version, ref.kind);
    if (owner_info == nullptr) {
      for (const ResourcePtr& r : env_.registry.All()) {
        if (r->group == gv->group && r->kind == ref.kind) {
          owner_info = r;
          break;
        }
      }
    }
    if (owner_info == nullptr) return OwnerState::kUnknown;  // kube retries; never deletes on it
    if (owner_info->namespaced && n.ns.empty()) return OwnerState::kDangling;  // invalid reference
    auto kv = env_.storage.Get(owner_info->StorageKey(owner_info->namespaced ? n.ns : "", ref.name));
    if (!kv.ok()) return IsNotFound(kv.error()) ? OwnerState::kDangling : OwnerState::kUnknown;
    auto owner = rest::ParseStored(*kv->value);
    if (!owner.ok()) return OwnerState::kUnknown;
    const auto& meta = MetadataOf(*owner);
    if (StringAt(meta, "uid") != ref.uid) return OwnerState::kDangling;
    if (meta.contains("deletionTimestamp") && HasFinalizer(meta, rest::kForegroundFinalizer)) {
      return OwnerState::kWaiting;
    }
    return OwnerState::kSolid;
  }

  // Removes the owner references whose uid is in `uids`, or (unblock) clears their
  // blockOwnerDeletion. Returns false on a storage error.
  bool EditOwnerRefs(const Node& n, const std::set<std::string>& uids, bool unblock) {
    auto result = rest::MutateObject(env_, *n.info, n.ns, n.name, n.uid, [&](json::object& obj) -> Result<bool> {
      auto& meta = rest::EnsureObject(obj, "metadata");
      auto* refs = meta.if_contains("ownerReferences");
      if (refs == nullptr || !refs->is_array()) return false;
      bool changed = false;
      auto& arr = refs->get_array();
      for (auto it = arr.begin(); it != arr.end();) {
        const bool match = it->is_object() && uids.count(std::string(StringAt(it->get_object(), "uid"))) > 0;
        if (!match) {
          ++it;
          continue;
        }
        changed = true;
        if (!unblock) {
          it = arr.erase(it);
          continue;
        }
        it->get_object()["blockOwnerDeletion"] = false;
        ++it;
      }
      if (arr.empty()) meta.erase("ownerReferences");
      return changed;
    });
    if (!result.ok()) log::Warn("garbage collector: update failed", {{"key", n.key}, {"error", result.error().message}});
    return result.ok();
  }

  bool DeleteNode(const Node& n, PropagationPolicy policy) {
    DeleteOptions opts;
    opts.propagation_policy = policy;
    opts.preconditions.emplace();
    opts.preconditions->uid = n.uid;
    auto result = rest::DeleteObject(env_, *n.info, n.ns, n.name, opts, false);
    if (result.ok() || IsNotFound(result.error()) || IsConflict(result.error())) return true;  // gone or replaced
    log::Warn("garbage collector: delete failed", {{"key", n.key}, {"error", result.error().message}});
    return false;
  }

  // kube's attemptToDeleteItem for a dependent that is not being deleted.
  bool AttemptToDelete(const Node& n) {
    std::set<std::string> dangling, waiting;
    bool solid = false;
    for (const auto& ref : n.owners) {
      switch (Classify(n, ref)) {
        case OwnerState::kSolid:
        case OwnerState::kUnknown:
          solid = true;
          break;
        case OwnerState::kDangling:
          dangling.insert(ref.uid);
          break;
        case OwnerState::kWaiting:
          waiting.insert(ref.uid);
          break;
      }
    }
    if (solid) {
      if (dangling.empty() && waiting.empty()) return true;
      // Live owners remain: only drop the references to absent owners and to owners waiting for
      // their dependents (this one no longer depends on them).
      dangling.insert(waiting.begin(), waiting.end());
      return EditOwnerRefs(n, dangling, false);
    }
    const bool has_dependents = dependents_.count(n.uid) > 0;
    if (!waiting.empty() && has_dependents) {
      // Its own dependents may block the waiting owner: unblock them from this one's owners,
      // then delete it in the foreground so its dependents go first.
      if (!EditOwnerRefs(n, waiting, true)) return false;
      return DeleteNode(n, PropagationPolicy::kForeground);
    }
    auto kv = env_.storage.Get(n.key);
    if (!kv.ok()) return IsNotFound(kv.error());
    auto obj = rest::ParseStored(*kv->value);
    if (!obj.ok()) return false;
    const auto& meta = MetadataOf(*obj);
    PropagationPolicy policy = PropagationPolicy::kBackground;
    if (HasFinalizer(meta, rest::kOrphanFinalizer)) {
      policy = PropagationPolicy::kOrphan;
    } else if (HasFinalizer(meta, rest::kForegroundFinalizer)) {
      policy = PropagationPolicy::kForeground;
    }
    return DeleteNode(n, policy);
  }

  bool RemoveOwnFinalizer(const Node& n, std::string_view finalizer) {
    auto result = rest::MutateObject(env_, *n.info, n.ns, n.name, n.uid, [&](json::object& obj) -> Result<bool> {
      return rest::RemoveFinalizer(obj, finalizer);
    });
    if (!result.ok()) log::Warn("garbage collector: finalize failed", {{"key", n.key}, {"error", result.error().message}});
    return result.ok();
  }

  std::vector<std::string> DependentsOf(const std::string& uid) const {
    auto d = dependents_.find(uid);
    if (d == dependents_.end()) return {};
    return {d->second.begin(), d->second.end()};
  }

  // Orphan: every dependent loses its reference to the owner, then the finalizer goes.
  bool Orphan(const Node& owner) {
    for (const auto& dep_uid : DependentsOf(owner.uid)) {
      auto it = nodes_.find(dep_uid);
      if (it == nodes_.end()) continue;
      if (!EditOwnerRefs(it->second, {owner.uid}, false)) return false;
    }
    return RemoveOwnFinalizer(owner, rest::kOrphanFinalizer);
  }

  // Foreground: dependents are deleted; the finalizer goes once none blocks the owner.
  bool Foreground(const Node& owner) {
    bool blocked = false;
    for (const auto& dep_uid : DependentsOf(owner.uid)) {
      auto it = nodes_.find(dep_uid);
      if (it == nodes_.end()) continue;
      const Node& dep = it->second;
      for (const auto& ref : dep.owners) {
        if (ref.uid == owner.uid && ref.block) blocked = true;
      }
      if (!dep.deleting) Enqueue(dep_uid);
    }
    if (blocked) return true;  // re-checked when a dependent changes or goes
    return RemoveOwnFinalizer(owner, rest::kForegroundFinalizer);
  }

  bool Process(const std::string& uid) {
    auto it = nodes_.find(uid);
    if (it == nodes_.end()) return true;
    const Node n = it->second;  // copy: actions may change the graph via re-entrant observation
    if (n.orphan) return Orphan(n);
    if (n.foreground) return Foreground(n);
    if (n.deleting || n.owners.empty()) return true;
    return AttemptToDelete(n);
  }

  // --- loop ---

  Result<std::unique_ptr<Watcher>> Rebuild() {
    Clear();
    ListRequest req;
    req.prefix = std::string(kAllKeys);
    auto list = env_.storage.List(req);
    if (!list.ok()) return std::move(list).error();
    for (const KeyValue& kv : list->items) Upsert(kv.key, *kv.value);
    for (const auto& [uid, n] : nodes_) {
      if (n.orphan || n.foreground || (!n.deleting && OwnersNeedAttention(n))) Enqueue(uid);
    }
    return env_.storage.Watch(kAllKeys, list->revision);
  }

  void Run(std::stop_token stop) override {
    while (!stop.stop_requested()) {
      auto watcher = Rebuild();
      if (!watcher.ok()) {
        log::Warn("garbage collector: relist failed", {{"error", watcher.error().message}});
        env_.clock.SleepFor(kRetryDelay, stop);
        continue;
      }
      while (!stop.stop_requested()) {
        const auto now = env_.clock.Now();
        for (auto it = retry_.begin(); it != retry_.end() && it->first <= now;) {
          Enqueue(it->second);
          it = retry_.erase(it);
        }
        while (!queue_.empty() && !stop.stop_requested()) {
          const std::string uid = queue_.front();
          queue_.pop_front();
          queued_.erase(uid);
          if (!Process(uid)) retry_.emplace(env_.clock.Now() + kRetryDelay, uid);
          // Apply what the action wrote before the next decision.
          for (const auto& e : (*watcher)->Next(Clock::TimePoint::min(), stop)) Observe(e);
        }
        auto deadline = env_.clock.Now() + kIdleWait;
        if (!retry_.empty()) deadline = std::min(deadline, retry_.begin()->first);
        for (const auto& e : (*watcher)->Next(deadline, stop)) Observe(e);
        if ((*watcher)->Done()) break;  // overflowed or storage closing: relist
      }
    }
  }

  const rest::Env& env_;
  std::unordered_map<std::string, Node> nodes_;                      // by uid
  std::unordered_map<std::string, std::string> by_key_;              // key -> uid
  std::unordered_map<std::string, std::set<std::string>> dependents_;  // owner uid -> dependent uids
  std::deque<std::string> queue_;
  std::set<std::string> queued_;
  std::multimap<Clock::TimePoint, std::string> retry_;
};

}  // namespace

ResourcePtr ResourceForKey(const Registry& registry, std::string_view key) {
  ResourcePtr best;
  for (const ResourcePtr& r : registry.All()) {
    const std::string prefix = r->StoragePrefix();
    if (key.substr(0, prefix.size()) != prefix) continue;
    if (best == nullptr || (r->storage_prefix_override.empty() && !best->storage_prefix_override.empty())) best = r;
  }
  return best;
}

std::unique_ptr<Controller> NewGarbageCollector(const rest::Env& env) {
  return std::make_unique<GarbageCollector>(env);
}

}  // namespace kube::apiserver::controllers
