#include "kubelet.hpp"

#include <string>

#include <boost/json.hpp>

#include <kube/base/error.hpp>
#include <kube/core/json.hpp>
#include <kube/core/time.hpp>

#include "objects.hpp"

namespace deployctl {

namespace json = boost::json;
using kube::controller::ReconcileResult;

KubeletReconciler::KubeletReconciler(kube::controller::Client& client, kube::controller::EventRecorder& recorder,
                                     KubeletOptions options)
    : client_(client),
      recorder_(recorder),
      options_(std::move(options)),
      clock_(options_.clock != nullptr ? *options_.clock : kube::RealClock::Instance()) {}

kube::Result<void> KubeletReconciler::EnsureNode() {
  {
    kube::MutexLock lock(mu_);
    if (node_ready_) return {};
  }
  auto api = client_.Api(kNodes);
  auto existing = api.Get(options_.node_name);
  if (!existing) {
    if (!kube::IsNotFound(existing.error())) return existing.error();
    const json::object node{
        {"apiVersion", "v1"},
        {"kind", "Node"},
        {"metadata", json::object{{"name", options_.node_name},
                                  {"labels", json::object{{"kubernetes.io/hostname", options_.node_name},
                                                          {"kubernetes.io/os", "linux"}}}}},
        {"spec", json::object{}}};
    auto obj = kube::Object::FromJson(node);
    if (!obj) return obj.error();
    auto created = api.Create(**obj);
    if (!created && !kube::IsAlreadyExists(created.error())) return created.error();
    const std::string now = kube::FormatTime(clock_.WallNow());
    const json::object status{
        {"status",
         json::object{{"conditions", json::array{json::object{{"type", "Ready"},
                                                              {"status", "True"},
                                                              {"reason", "KubeletReady"},
                                                              {"message", "kubelet is posting ready status (simulated)"},
                                                              {"lastHeartbeatTime", now},
                                                              {"lastTransitionTime", now}}}},
                      {"addresses", json::array{json::object{{"type", "InternalIP"}, {"address", "10.0.0.1"}},
                                                json::object{{"type", "Hostname"}, {"address", options_.node_name}}}},
                      {"nodeInfo", json::object{{"kubeletVersion", "kubecpp-simulated"}}}}}};
    auto patched = api.Patch(options_.node_name, kube::PatchType::kMerge, kube::SerializeJson(status), {}, "status");
    if (!patched) return patched.error();
  }
  kube::MutexLock lock(mu_);
  node_ready_ = true;
  return {};
}

std::string KubeletReconciler::NextPodIp() {
  kube::MutexLock lock(mu_);
  const std::uint32_t n = next_ip_++ % (250U * 256U);
  return "10.244." + std::to_string(n / 250U) + "." + std::to_string(n % 250U + 2U);
}

kube::Result<ReconcileResult> KubeletReconciler::Reconcile(kube::controller::ReconcileContext& ctx,
                                                           const kube::controller::Request& request) {
  auto pod_or = client_.Get(kPods, request.key, ctx.stop);
  if (!pod_or) {
    if (!kube::IsNotFound(pod_or.error())) return pod_or.error();
    kube::MutexLock lock(mu_);
    bound_at_.erase(request.String());
    return ReconcileResult::Done();
  }
  const kube::ObjectPtr pod = *pod_or;
  const std::string uid(pod->Uid());
  const std::string key = request.String();
  if (pod->IsBeingDeleted()) {
    kube::MutexLock lock(mu_);
    bound_at_.erase(key);
    return ReconcileResult::Done();
  }
  const std::string node = pod->GetString("/spec/nodeName").value_or("");
  if (node.empty()) {
    // The scheduler's part: bind to the only node.
    if (auto ok = EnsureNode(); !ok) return ok.error();
    const json::object bind{{"spec", json::object{{"nodeName", options_.node_name}}}};
    auto patched = client_.Patch(*pod, kube::PatchType::kMerge, kube::SerializeJson(bind));
    if (!patched) return kube::IsNotFound(patched.error()) ? kube::Result<ReconcileResult>(ReconcileResult::Done())
                                                           : patched.error();
    {
      kube::MutexLock lock(mu_);
      bound_at_[key] = Bound{uid, clock_.Now()};
    }
    recorder_.Eventf(*pod, kube::controller::EventType::kNormal, "Scheduled", "Successfully assigned {}/{} to {}",
                     pod->Namespace(), pod->Name(), options_.node_name);
    return ReconcileResult::RequeueAfter(options_.ready_delay);
  }
  if (node != options_.node_name) return ReconcileResult::Done();
  if (IsPodReady(*pod) && pod->GetString("/status/phase").value_or("") == "Running") {
    kube::MutexLock lock(mu_);
    bound_at_.erase(key);  // started: nothing more to track
    return ReconcileResult::Done();
  }
  kube::Clock::TimePoint ready_at;
  {
    kube::MutexLock lock(mu_);
    // A pod bound before this kubelet started (or by someone else) starts its delay now.
    auto& bound = bound_at_[key];
    if (bound.uid != uid) bound = Bound{uid, clock_.Now()};
    ready_at = bound.at + options_.ready_delay;
  }
  const auto now = clock_.Now();
  if (now < ready_at) return ReconcileResult::RequeueAfter(ready_at - now);

  const std::string ts = kube::FormatTime(clock_.WallNow());
  auto condition = [&ts](std::string_view type) {
    return json::object{{"type", type}, {"status", "True"}, {"lastProbeTime", nullptr}, {"lastTransitionTime", ts}};
  };
  json::array container_statuses;
  const json::value containers = ValueAt(*pod, "/spec/containers");
  if (containers.is_array()) {
    for (const auto& c : containers.get_array()) {
      if (!c.is_object()) continue;
      const auto* name = c.get_object().if_contains("name");
      const auto* image = c.get_object().if_contains("image");
      const json::value image_value = image != nullptr ? *image : json::value("");
      container_statuses.push_back(json::object{
          {"name", name != nullptr ? *name : json::value("")},
          {"image", image_value},
          {"imageID", image_value.is_string() ? json::value("simulated://" + std::string(image_value.get_string()))
                                              : json::value("")},
          {"containerID", "simulated://" + uid + "/" + (name != nullptr && name->is_string()
                                                              ? std::string(name->get_string())
                                                              : std::string())},
          {"ready", true},
          {"started", true},
          {"restartCount", 0},
          {"state", json::object{{"running", json::object{{"startedAt", ts}}}}}});
    }
  }
  const std::string pod_ip = NextPodIp();
  const json::object patch{
      {"status",
       json::object{{"phase", "Running"},
                    {"hostIP", "10.0.0.1"},
                    {"hostIPs", json::array{json::object{{"ip", "10.0.0.1"}}}},
                    {"podIP", pod_ip},
                    {"podIPs", json::array{json::object{{"ip", pod_ip}}}},
                    {"startTime", ts},
                    {"conditions", json::array{condition("PodScheduled"), condition("Initialized"),
                                               condition("ContainersReady"), condition("Ready")}},
                    {"containerStatuses", std::move(container_statuses)}}}};
  auto patched = client_.Patch(*pod, kube::PatchType::kMerge, kube::SerializeJson(patch), {}, "status");
  if (!patched) {
    return kube::IsNotFound(patched.error()) ? kube::Result<ReconcileResult>(ReconcileResult::Done())
                                             : patched.error();
  }
  {
    kube::MutexLock lock(mu_);
    bound_at_.erase(key);
  }
  recorder_.Eventf(*pod, kube::controller::EventType::kNormal, "Started", "Started containers (simulated)");
  ctx.log.Info("pod running", {{"node", options_.node_name}});
  return ReconcileResult::Done();
}

}  // namespace deployctl
