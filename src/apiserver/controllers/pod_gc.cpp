// Pod garbage collection (kube-controller-manager's PodGC, for the pods the embedded server holds):
// a pod being deleted gracefully waits for its node's kubelet to delete it with a period of 0.
// When the node does not exist, no kubelet ever will: such a pod is deleted at once (kube's
// gcOrphaned, without its quarantine, since the embedded server's nodes are objects, not
// machines that come back). Pods and nodes are observed through one storage watch of the core
// group.

#include <set>
#include <string>

#include <boost/json.hpp>

#include <kube/base/log.hpp>
#include <kube/core/options.hpp>
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

constexpr auto kRetryDelay = std::chrono::seconds(1);

class PodGc final : public LoopController {
 public:
  explicit PodGc(const rest::Env& env) : env_(env) {}
  ~PodGc() override { Stop(); }

 private:
  // The pod's node when it is being deleted gracefully and bound to a node, else "".
  static std::string TerminatingOn(const json::object& pod) {
    const auto& meta = MetadataOf(pod);
    if (!meta.contains("deletionTimestamp")) return "";
    const auto* spec = rest::ObjectAt(pod, "spec");
    return spec != nullptr ? std::string(StringAt(*spec, "nodeName")) : "";
  }

  bool NodeExists(const std::string& node) const {
    auto kv = env_.storage.Get(nodes_->StorageKey("", node));
    return kv.ok() || !IsNotFound(kv.error());  // a storage error is not proof of absence
  }

  // Deletes the pod stored as `value` when it is terminating on a node that does not exist.
  // Returns false when a delete failed (to retry later).
  bool Collect(const std::string& value) {
    auto pod = rest::ParseStored(value);
    if (!pod.ok()) return true;
    const std::string node = TerminatingOn(*pod);
    if (node.empty() || NodeExists(node)) return true;
    DeleteOptions opts;
    opts.grace_period_seconds = 0;
    opts.preconditions = Preconditions{.uid = std::string(StringAt(MetadataOf(*pod), "uid"))};
    const auto& meta = MetadataOf(*pod);
    auto result = rest::DeleteObject(env_, *pods_, StringAt(meta, "namespace"), StringAt(meta, "name"), opts, false);
    if (result.ok() || IsNotFound(result.error()) || IsConflict(result.error())) return true;
    log::Warn("pod gc: delete failed", {{"pod", std::string(StringAt(meta, "name"))}, {"error", result.error().message}});
    return false;
  }

  // Every terminating pod (a start, a deleted node, a retry). Returns false when one failed.
  bool Sweep() {
    ListRequest req;
    req.prefix = pods_->StoragePrefix();
    auto list = env_.storage.List(req);
    if (!list.ok()) return false;
    bool ok = true;
    for (const KeyValue& kv : list->items) ok = Collect(*kv.value) && ok;
    return ok;
  }

  void Run(std::stop_token stop) override {
    pods_ = env_.registry.Find("", "v1", "pods");
    nodes_ = env_.registry.Find("", "v1", "nodes");
    if (pods_ == nullptr || nodes_ == nullptr) return;
    const std::string pod_prefix = pods_->StoragePrefix();
    const std::string node_prefix = nodes_->StoragePrefix();
    // Both prefixes share the core group's: one watch sees both.
    std::string common;
    for (std::size_t i = 0; i < pod_prefix.size() && i < node_prefix.size() && pod_prefix[i] == node_prefix[i]; ++i) {
      common += pod_prefix[i];
    }
    while (!stop.stop_requested()) {
      const Revision start = env_.storage.CurrentRevision();
      bool ok = Sweep();
      auto watcher = env_.storage.Watch(common, start);
      if (!watcher.ok()) {
        env_.clock.SleepFor(kRetryDelay, stop);
        continue;
      }
      while (!stop.stop_requested() && !(*watcher)->Done()) {
        const auto deadline = ok ? Clock::TimePoint::max() : env_.clock.Now() + kRetryDelay;
        const auto events = (*watcher)->Next(deadline, stop);
        if (events.empty() && !ok) ok = Sweep();
        for (const StorageEvent& e : events) {
          if (e.key.starts_with(pod_prefix) && e.type != StorageEvent::Type::kDeleted && e.value != nullptr) {
            ok = Collect(*e.value) && ok;
          } else if (e.key.starts_with(node_prefix) && e.type == StorageEvent::Type::kDeleted) {
            ok = Sweep() && ok;
          }
        }
      }
    }
  }

  const rest::Env& env_;
  ResourcePtr pods_;
  ResourcePtr nodes_;
};

}  // namespace

std::unique_ptr<Controller> NewPodGc(const rest::Env& env) { return std::make_unique<PodGc>(env); }

}  // namespace kube::apiserver::controllers
