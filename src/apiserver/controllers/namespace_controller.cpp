// The namespace controller (kube's pkg/controller/namespace, on the embedded server's storage):
// a namespace with a deletionTimestamp has its content deleted (background propagation, as kube's
// namespaced-resources deleter does), its status conditions report what remains, and once it is
// empty the `kubernetes` finalizer leaves spec.finalizers, which deletes the namespace when no
// metadata finalizer remains.

#include <algorithm>
#include <map>
#include <set>
#include <thread>

#include <boost/json.hpp>

#include <kube/base/log.hpp>
#include <kube/core/status.hpp>
#include <kube/core/time.hpp>

#include "apiserver/controllers/controllers.hpp"
#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/deletion.hpp"
#include "apiserver/rest/json_util.hpp"

namespace kube::apiserver::controllers {
namespace json = boost::json;
using rest::MetadataOf;
using rest::StringAt;

namespace {

// What is left in a namespace after a deletion pass.
struct Remaining {
  std::map<std::string, int> by_resource;   // "configmaps" / "deployments.apps" -> count
  std::map<std::string, int> by_finalizer;  // finalizer -> objects holding it
  bool failed = false;
};

std::string GroupResourceString(const ResourceInfo& info) {
  return info.group.empty() ? info.resource : info.resource + "." + info.group;
}

json::object Condition(std::string_view type, bool status, std::string_view reason, const std::string& message,
                       const std::string& now) {
  json::object c{{"type", type}, {"status", status ? "True" : "False"}, {"lastTransitionTime", now},
                 {"reason", reason}};
  if (!message.empty()) c["message"] = message;
  return c;
}

std::string JoinCounts(const std::map<std::string, int>& m, std::string_view what) {
  std::string out;
  for (const auto& [name, n] : m) {
    if (!out.empty()) out += ", ";
    out += name + std::string(what) + std::to_string(n) + " resource instances";
  }
  return out;
}

class NamespaceController final : public LoopController {
 public:
  NamespaceController(const rest::Env& env, Clock::Duration resync) : env_(env), resync_(resync) {}
  ~NamespaceController() override { Stop(); }

 private:
  Remaining Purge(std::string_view ns) {
    Remaining left;
    std::set<std::string> prefixes;
    for (const ResourcePtr& info : env_.registry.All()) {
      if (!info->namespaced) continue;
      if (!prefixes.insert(info->StoragePrefix()).second) continue;  // two views of one storage
      ListRequest req;
      req.prefix = info->StoragePrefix() + std::string(ns) + "/";
      auto list = env_.storage.List(req);
      if (!list.ok()) {
        left.failed = true;
        continue;
      }
      for (const KeyValue& kv : list->items) {
        auto obj = rest::ParseStored(*kv.value);
        if (!obj.ok()) continue;
        const auto& meta = MetadataOf(*obj);
        DeleteOptions opts;
        opts.propagation_policy = PropagationPolicy::kBackground;
        opts.preconditions.emplace();
        opts.preconditions->uid = std::string(StringAt(meta, "uid"));
        auto outcome = rest::DeleteObject(env_, *info, ns, StringAt(meta, "name"), opts, false);
        if (outcome.ok() && outcome->gone) continue;
        if (!outcome.ok() && (IsNotFound(outcome.error()) || IsConflict(outcome.error()))) continue;
        if (!outcome.ok()) {
          left.failed = true;
          continue;
        }
        ++left.by_resource[GroupResourceString(*info)];
        if (auto stayed = rest::ParseStored(outcome->stored); stayed.ok()) {
          if (const auto* f = MetadataOf(*stayed).if_contains("finalizers"); f != nullptr && f->is_array()) {
            for (const auto& v : f->get_array()) {
              if (v.is_string()) ++left.by_finalizer[std::string(v.get_string())];
            }
          }
        }
      }
    }
    return left;
  }

  // Writes kube's deletion conditions (only when they change, so a waiting namespace is quiet).
  void ReportConditions(const ResourceInfo& ns_info, const std::string& name, const std::string& uid,
                        const Remaining& left) {
    const std::string now = FormatTime(env_.clock.WallNow());
    std::vector<json::object> conds;
    conds.push_back(Condition("NamespaceDeletionDiscoveryFailure", false, "ResourcesDiscovered",
                              "All resources successfully discovered", now));
    conds.push_back(Condition("NamespaceDeletionGroupVersionParsingFailure", false, "ParsedGroupVersions",
                              "All legacy kube types successfully parsed", now));
    conds.push_back(left.failed ? Condition("NamespaceDeletionContentFailure", true, "ContentDeletionFailed",
                                            "Failed to delete all resource types", now)
                                : Condition("NamespaceDeletionContentFailure", false, "ContentDeleted",
                                            "All content successfully deleted, may be waiting on finalization", now));
    conds.push_back(left.by_resource.empty()
                        ? Condition("NamespaceContentRemaining", false, "ContentRemoved",
                                    "All content successfully removed", now)
                        : Condition("NamespaceContentRemaining", true, "SomeResourcesRemain",
                                    "Some resources are remaining: " + JoinCounts(left.by_resource, " has "), now));
    conds.push_back(left.by_finalizer.empty()
                        ? Condition("NamespaceFinalizersRemaining", false, "ContentHasNoFinalizers",
                                    "All content-preserving finalizers finished", now)
                        : Condition("NamespaceFinalizersRemaining", true, "SomeFinalizersRemain",
                                    "Some content in the namespace has finalizers remaining: " +
                                        JoinCounts(left.by_finalizer, " in "),
                                    now));
    auto result = rest::MutateObject(env_, ns_info, "", name, uid, [&](json::object& obj) -> Result<bool> {
      auto& status = rest::EnsureObject(obj, "status");
      json::array old;
      if (const auto* c = status.if_contains("conditions"); c != nullptr && c->is_array()) old = c->get_array();
      json::array updated;
      bool changed = old.size() != conds.size();
      for (std::size_t i = 0; i < conds.size(); ++i) {
        json::object c = conds[i];
        if (i < old.size() && old[i].is_object()) {
          const auto& o = old[i].get_object();
          const bool same = StringAt(o, "type") == StringAt(c, "type") && StringAt(o, "status") == StringAt(c, "status") &&
                            StringAt(o, "reason") == StringAt(c, "reason") &&
                            StringAt(o, "message") == StringAt(c, "message");
          if (same) {
            c["lastTransitionTime"] = o.contains("lastTransitionTime") ? o.at("lastTransitionTime") : c["lastTransitionTime"];
          } else {
            changed = true;
          }
        }
        updated.emplace_back(std::move(c));
      }
      if (!changed) return false;
      status["conditions"] = std::move(updated);
      return true;
    });
    if (!result.ok()) log::Warn("namespace controller: status update failed", {{"namespace", name}, {"error", result.error().message}});
  }

  void Finalize(const ResourceInfo& ns_info, const std::string& name, const std::string& uid) {
    auto result = rest::MutateObject(env_, ns_info, "", name, uid, [&](json::object& obj) -> Result<bool> {
      auto& spec = rest::EnsureObject(obj, "spec");
      auto* f = spec.if_contains("finalizers");
      if (f == nullptr || !f->is_array()) return false;
      auto& arr = f->get_array();
      const auto before = arr.size();
      arr.erase(std::remove_if(arr.begin(), arr.end(),
                               [](const json::value& v) { return v.is_string() && v.get_string() == "kubernetes"; }),
                arr.end());
      if (arr.size() == before) return false;
      if (arr.empty()) spec.erase("finalizers");
      return true;
    });
    if (!result.ok()) log::Warn("namespace controller: finalize failed", {{"namespace", name}, {"error", result.error().message}});
  }

  void SyncAll() {
    const ResourcePtr ns_info = env_.registry.Find("", "v1", "namespaces");
    if (ns_info == nullptr) return;
    ListRequest req;
    req.prefix = ns_info->StoragePrefix();
    auto list = env_.storage.List(req);
    if (!list.ok()) return;
    for (const KeyValue& kv : list->items) {
      auto obj = rest::ParseStored(*kv.value);
      if (!obj.ok()) continue;
      const auto& meta = MetadataOf(*obj);
      if (!meta.contains("deletionTimestamp")) continue;
      const std::string name(StringAt(meta, "name"));
      const std::string uid(StringAt(meta, "uid"));
      const Remaining left = Purge(name);
      ReportConditions(*ns_info, name, uid, left);
      if (left.by_resource.empty() && !left.failed) Finalize(*ns_info, name, uid);
    }
  }

  void Run(std::stop_token stop) override {
    const ResourcePtr ns_info = env_.registry.Find("", "v1", "namespaces");
    const std::string prefix = ns_info != nullptr ? ns_info->StoragePrefix() : "/registry/core/namespaces/";
    while (!stop.stop_requested()) {
      auto watcher = env_.storage.Watch(prefix, 0);
      if (!watcher.ok()) {
        env_.clock.SleepFor(resync_, stop);
        continue;
      }
      while (!stop.stop_requested()) {
        SyncAll();
        // Wake on a namespace change, or after `resync` to see content finalizers go.
        (void)(*watcher)->Next(env_.clock.Now() + resync_, stop);
        if ((*watcher)->Done()) break;
      }
    }
  }

  const rest::Env& env_;
  const Clock::Duration resync_;
};

}  // namespace

std::unique_ptr<Controller> NewNamespaceController(const rest::Env& env, Clock::Duration resync) {
  return std::make_unique<NamespaceController>(env, resync);
}

}  // namespace kube::apiserver::controllers
