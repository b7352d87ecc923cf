#include "kubelet.hpp"

#include <string>
#include <utility>

#include <kube/api/object.hpp>
#include <kube/base/error.hpp>
#include <kube/client/typed_api.hpp>
#include <kube/controller/client.hpp>

#include "objects.hpp"

namespace deployctl {

using kube::controller::MergeFrom;
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
  // Uncached: one read, not a Node informer for the lifetime of the process.
  kube::client::TypedApi<corev1::Node> nodes(client_.Api(kube::client::ResourceOf<corev1::Node>()));
  auto existing = nodes.Get(options_.node_name);
  if (!existing) {
    if (!kube::IsNotFound(existing.error())) return existing.error();
    corev1::Node node;
    node.metadata.name = options_.node_name;
    node.metadata.labels = {{"kubernetes.io/hostname", options_.node_name}, {"kubernetes.io/os", "linux"}};
    auto created = client_.Create(node);
    if (!created && !kube::IsAlreadyExists(created.error())) return created.error();
    // The node reports itself ready through /status (a create ignores the status).
    const kube::api::Time now = ApiTime(clock_.WallNow());
    corev1::Node ready = node;
    ready.status.conditions.push_back({.lastHeartbeatTime = now,
                                       .lastTransitionTime = now,
                                       .message = "kubelet is posting ready status (simulated)",
                                       .reason = "KubeletReady",
                                       .status = "True",
                                       .type = "Ready"});
    ready.status.addresses = {{.address = "10.0.0.1", .type = "InternalIP"},
                              {.address = options_.node_name, .type = "Hostname"}};
    ready.status.nodeInfo.kubeletVersion = "kubecpp-simulated";
    auto patched = client_.Patch(ready, MergeFrom(node), {}, "status");  // only the status differs
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
  const std::string key = request.String();
  auto pod_or = client_.Get<corev1::Pod>(request.key, ctx.stop);
  if (!pod_or) {
    if (!kube::IsNotFound(pod_or.error())) return pod_or.error();
    kube::MutexLock lock(mu_);
    bound_at_.erase(key);
    return ReconcileResult::Done();
  }
  const corev1::Pod& pod = *pod_or;
  const std::string& uid = pod.metadata.uid;
  if (IsBeingDeleted(pod)) {
    {
      kube::MutexLock lock(mu_);
      bound_at_.erase(key);
    }
    // The kubelet's part of a graceful deletion: the containers are stopped at once (they are
    // simulated), and the pod is deleted with a period of 0, which removes it.
    if (pod.spec.nodeName.value_or("") != options_.node_name || !pod.metadata.deletionGracePeriodSeconds ||
        *pod.metadata.deletionGracePeriodSeconds == 0) {
      return ReconcileResult::Done();
    }
    kube::DeleteOptions opts;
    opts.grace_period_seconds = 0;
    opts.preconditions = kube::Preconditions{.uid = uid};
    auto deleted = client_.Api(kube::client::ResourceOf<corev1::Pod>(), pod.metadata.namespace_)
                       .Delete(pod.metadata.name, opts);
    if (!deleted && !kube::IsNotFound(deleted.error()) && !kube::IsConflict(deleted.error())) return deleted.error();
    return ReconcileResult::Done();
  }
  auto done_unless_gone = [](const kube::Error& e) -> kube::Result<ReconcileResult> {
    if (kube::IsNotFound(e)) return ReconcileResult::Done();
    return e;
  };
  const std::string node = pod.spec.nodeName.value_or("");
  if (node.empty()) {
    // The scheduler's part: bind to the only node, as kube-scheduler does (a pod's nodeName
    // cannot be changed by an update).
    if (auto ok = EnsureNode(); !ok) return ok.error();
    corev1::Binding binding;
    binding.metadata.name = pod.metadata.name;
    binding.metadata.namespace_ = pod.metadata.namespace_;
    binding.target.kind = "Node";
    binding.target.name = options_.node_name;
    auto body = kube::api::ToObject(binding);
    if (!body) return body.error();
    auto bound = client_.Api(kube::client::ResourceOf<corev1::Pod>(), pod.metadata.namespace_)
                     .CreateSubresource(pod.metadata.name, "binding", **body);
    if (!bound) {
      // Bound already (by an earlier attempt whose answer was lost): the next event shows it.
      if (kube::IsConflict(bound.error())) return ReconcileResult::Done();
      return done_unless_gone(bound.error());
    }
    {
      kube::MutexLock lock(mu_);
      bound_at_[key] = Bound{uid, clock_.Now()};
    }
    kube::controller::RecordEventf(recorder_, pod, kube::controller::EventType::kNormal, "Scheduled", "Successfully assigned {}/{} to {}",
                pod.metadata.namespace_, pod.metadata.name, options_.node_name);
    return ReconcileResult::RequeueAfter(options_.ready_delay);
  }
  if (node != options_.node_name) return ReconcileResult::Done();
  if (IsPodReady(pod) && pod.status.phase == "Running") {
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

  // What the kubelet reports once the containers run: a merge patch of /status.
  const kube::api::Time ts = ApiTime(clock_.WallNow());
  const std::string pod_ip = NextPodIp();
  corev1::Pod running = pod;
  corev1::PodStatus& status = running.status;
  status.phase = "Running";
  status.hostIP = "10.0.0.1";
  status.hostIPs = {{.ip = "10.0.0.1"}};
  status.podIP = pod_ip;
  status.podIPs = {{.ip = pod_ip}};
  status.startTime = ts;
  status.conditions.clear();
  for (const char* type : {"PodScheduled", "Initialized", "ContainersReady", "Ready"}) {
    status.conditions.push_back({.lastTransitionTime = ts, .status = "True", .type = type});
  }
  status.containerStatuses.clear();
  for (const auto& c : pod.spec.containers) {
    corev1::ContainerStatus cs;
    cs.containerID = "simulated://" + uid + "/" + c.name;
    cs.image = c.image.value_or("");
    cs.imageID = "simulated://" + cs.image;
    cs.name = c.name;
    cs.ready = true;
    cs.restartCount = 0;
    cs.started = true;
    cs.state.running.emplace().startedAt = ts;
    status.containerStatuses.push_back(std::move(cs));
  }
  auto patched = client_.Patch(running, MergeFrom(pod), {}, "status");
  if (!patched) return done_unless_gone(patched.error());
  {
    kube::MutexLock lock(mu_);
    bound_at_.erase(key);
  }
  kube::controller::RecordEventf(recorder_, pod, kube::controller::EventType::kNormal, "Started", "Started containers (simulated)");
  ctx.log.Info("pod running", {{"node", options_.node_name}});
  return ReconcileResult::Done();
}

}  // namespace deployctl
