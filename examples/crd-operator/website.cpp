#include "website.hpp"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <utility>

#include <fmt/format.h>

#include <kube/api/core/v1.hpp>
#include <kube/api/meta/conditions.hpp>

namespace kube::examples::website {
namespace {

namespace appsv1 = api::apps::v1;
namespace corev1 = api::core::v1;
namespace metav1 = api::meta::v1;
using controller::EventType;
using controller::OperationResult;
using controller::ReconcileResult;

constexpr std::string_view kNameLabel = "app.kubernetes.io/name";
constexpr std::string_view kInstanceLabel = "app.kubernetes.io/instance";
constexpr std::string_view kManagedByLabel = "app.kubernetes.io/managed-by";
constexpr std::string_view kContainerName = "web";
constexpr std::string_view kVolumeName = "content";

// The labels that select a Website's pods.
std::map<std::string, std::string> PodLabels(const std::string& website) {
  return {{std::string(kNameLabel), "website"}, {std::string(kInstanceLabel), website}};
}

void SetCommonLabels(metav1::ObjectMeta& meta, const std::string& website) {
  for (auto& [k, v] : PodLabels(website)) meta.labels[k] = std::move(v);
  meta.labels[std::string(kManagedByLabel)] = "website-operator";
}

// The element of `items` named `name`, appended with only its name set if missing.
template <class T>
T& Named(std::vector<T>& items, std::string_view name) {
  for (T& item : items) {
    if (item.name == name) return item;
  }
  T& added = items.emplace_back();
  added.name = std::string(name);
  return added;
}

// FNV-1a 64: a stable, dependency-free content fingerprint (not a security hash).
std::string ContentHash(std::string_view content) {
  std::uint64_t h = 14695981039346656037ull;
  for (const unsigned char c : content) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016" PRIx64, h);
  return buf;
}

// Records Created / Updated for a child write; nothing for an unchanged child.
void Report(controller::EventRecorder& recorder, const controller::ReconcileContext& ctx, const Website& website,
            std::string_view kind, const std::string& name, OperationResult op) {
  switch (op) {
    case OperationResult::kCreated:
      controller::RecordEvent(recorder, website, EventType::kNormal, "Created", fmt::format("Created {} {}", kind, name));
      break;
    case OperationResult::kUpdated:
    case OperationResult::kUpdatedStatus:
    case OperationResult::kUpdatedStatusOnly:
      controller::RecordEvent(recorder, website, EventType::kNormal, "Updated", fmt::format("Updated {} {}", kind, name));
      break;
    case OperationResult::kUnchanged:
      return;
  }
  ctx.log.Info("child written", {{"kind", kind}, {"child", name}, {"operation", controller::ToString(op)}});
}

}  // namespace

ReadyState ReadyFromDeployment(const appsv1::Deployment& deployment, int32_t replicas) {
  ReadyState s;
  const appsv1::DeploymentStatus& status = deployment.status;
  s.ready_replicas = status.readyReplicas.value_or(0);
  const int32_t available = status.availableReplicas.value_or(0);
  if (status.observedGeneration.value_or(0) < deployment.metadata.generation) {
    s.reason = "RolloutPending";
    s.message = "deployment generation " + std::to_string(deployment.metadata.generation) + " not yet observed";
    return s;
  }
  s.message = std::to_string(available) + "/" + std::to_string(replicas) + " replicas available";
  s.ready = available == replicas;
  s.reason = s.ready ? "Available" : "Progressing";
  return s;
}

WebsiteReconciler::WebsiteReconciler(controller::Client& client, Clock& clock, controller::EventRecorder& recorder)
    : client_(client), clock_(clock), recorder_(recorder) {}

Result<ReconcileResult> WebsiteReconciler::Reconcile(controller::ReconcileContext& ctx, Website& website) const {
  // Being deleted: the ConfigMap and the Deployment go with it (garbage collection of their
  // ownerReferences). A Website that is gone never gets here (AsReconciler).
  if (website.metadata.deletionTimestamp) return ReconcileResult::Done();
  const std::string& ns = website.metadata.namespace_;
  const std::string& name = website.metadata.name;
  const WebsiteSpec& spec = website.spec;
  if (spec.Replicas() < 0) {  // the CRD's schema rejects it; a CRD installed without it does not
    Error invalid = MakeError(422, reason::kInvalid, "spec.replicas: must be >= 0");
    controller::RecordEvent(recorder_, website, EventType::kWarning, "InvalidSpec", invalid.message);
    return controller::TerminalError(std::move(invalid));
  }
  auto terminal_if_owned = [&](Error e) -> Error {
    if (!controller::IsAlreadyOwned(e)) return e;
    controller::RecordEvent(recorder_, website, EventType::kWarning, "OwnedElsewhere", e.message);
    return controller::TerminalError(std::move(e));
  };

  // The content.
  corev1::ConfigMap cm;
  cm.metadata.name = name + "-content";
  cm.metadata.namespace_ = ns;
  auto cm_op = controller::CreateOrUpdate<corev1::ConfigMap>(
      client_, cm,
      [&](corev1::ConfigMap& c) -> Result<void> {
        SetCommonLabels(c.metadata, name);
        c.data = {{"index.html", spec.content}};
        return controller::SetControllerReference(website, c);
      },
      ctx.stop);
  if (!cm_op) return terminal_if_owned(std::move(cm_op).error());
  Report(recorder_, ctx, website, "ConfigMap", cm.metadata.name, *cm_op);

  // The Deployment. Only the fields this operator decides are set, so the server's defaults
  // (strategy, terminationMessagePath, ...) never look like a difference to write back.
  appsv1::Deployment dep;
  dep.metadata.name = name;
  dep.metadata.namespace_ = ns;
  auto dep_op = controller::CreateOrUpdate<appsv1::Deployment>(
      client_, dep,
      [&](appsv1::Deployment& d) -> Result<void> {
        SetCommonLabels(d.metadata, name);
        d.spec.replicas = spec.Replicas();
        if (d.spec.selector.matchLabels.empty() && d.spec.selector.matchExpressions.empty()) {
          d.spec.selector.matchLabels = PodLabels(name);  // immutable once set
        }
        corev1::PodTemplateSpec& tmpl = d.spec.template_;
        for (auto& [k, v] : PodLabels(name)) tmpl.metadata.labels[k] = std::move(v);
        tmpl.metadata.annotations[std::string(kContentHashAnnotation)] = ContentHash(spec.content);
        corev1::Container& web = Named(tmpl.spec.containers, kContainerName);
        web.image = std::string(spec.Image());
        web.ports = {corev1::ContainerPort{.containerPort = 80, .name = "http", .protocol = "TCP"}};
        web.volumeMounts = {corev1::VolumeMount{
            .mountPath = "/usr/share/nginx/html", .name = std::string(kVolumeName), .readOnly = true}};
        Named(tmpl.spec.volumes, kVolumeName).configMap =
            corev1::ConfigMapVolumeSource{.defaultMode = 420, .name = cm.metadata.name};
        return controller::SetControllerReference(website, d);
      },
      ctx.stop);
  if (!dep_op) return terminal_if_owned(std::move(dep_op).error());
  Report(recorder_, ctx, website, "Deployment", name, *dep_op);

  // The status, from the Deployment as the server returned it (or the cache has it).
  const ReadyState state = ReadyFromDeployment(dep, spec.Replicas());
  WebsiteStatus status = website.status.value_or(WebsiteStatus{});
  // The generation whose spec this reconcile acted on. When the server already has a newer one,
  // the write below fails with a conflict (it carries the cached resourceVersion), and the
  // reconcile the change queued reports it.
  status.observedGeneration = website.metadata.generation;
  status.readyReplicas = state.ready_replicas;
  status.url = "http://" + name + "." + ns + ".svc.cluster.local/";
  metav1::SetStatusCondition(status.conditions,
                             {.message = state.message,
                              .observedGeneration = website.metadata.generation,
                              .reason = state.reason,
                              .status = std::string(state.ready ? metav1::kConditionTrue : metav1::kConditionFalse),
                              .type = "Ready"},
                             api::Time{std::chrono::floor<std::chrono::seconds>(clock_.WallNow())});
  if (website.status == status) return ReconcileResult::Done();  // nothing changed: no write
  website.status = std::move(status);
  auto written = client_.UpdateStatus(website);
  if (!written) {
    if (IsNotFound(written.error())) return ReconcileResult::Done();  // deleted meanwhile
    return std::move(written).error();
  }
  return ReconcileResult::Done();
}

Result<std::shared_ptr<controller::Controller>> SetupWebsiteController(controller::Manager& mgr,
                                                                        controller::EventRecorder& recorder,
                                                                        WebsiteControllerOptions options) {
  if (options.controller.name.empty()) options.controller.name = "website";
  std::string name = options.controller.name;
  auto reconciler = std::make_shared<const WebsiteReconciler>(mgr.GetClient(), mgr.GetClock(), recorder);
  return controller::ControllerManagedBy(mgr)
      .For<Website>({controller::GenerationChanged()})
      .Owns<corev1::ConfigMap>()
      .Owns<appsv1::Deployment>()
      .WithOptions(std::move(options.controller))
      .Named(std::move(name))
      .Complete(controller::AsReconciler<Website>(
          mgr.GetClient(), [reconciler](controller::ReconcileContext& ctx, Website& website) {
            return reconciler->Reconcile(ctx, website);
          }));
}

}  // namespace kube::examples::website
