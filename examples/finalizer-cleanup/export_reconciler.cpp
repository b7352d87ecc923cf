#include "export_reconciler.hpp"

#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace kube::examples::finalizer_cleanup {
namespace {

using api::core::v1::ConfigMap;
using controller::EventType;
using controller::ReconcileResult;

bool Labelled(const ConfigMap& cm) {
  const auto it = cm.metadata.labels.find(std::string(kExportLabel));
  return it != cm.metadata.labels.end() && it->second == "true";
}

// The predicate's view: the cached object's metadata, which costs no decode.
bool Interesting(const ObjectPtr& obj) {
  return obj != nullptr && (obj->Labels().Get(kExportLabel) == "true" || obj->Finalizers().Contains(kCleanupFinalizer));
}

}  // namespace

Result<ReconcileResult> ExportReconciler::Reconcile(controller::ReconcileContext& ctx,
                                                    const controller::Request& request) {
  auto got = client_.Get<ConfigMap>(request.key, ctx.stop);
  if (!got) {
    if (!IsNotFound(got.error())) return std::move(got).error();
    // Gone. Normally the finalizer cleaned up first; a forced deletion (finalizers removed by
    // hand) may have left files behind.
    auto removed = store_.Remove(request.key.ns, request.key.name);
    if (!removed) return std::move(removed).error();
    if (*removed) ctx.log.Info("removed files of a deleted configmap");
    return ReconcileResult::Done();
  }
  ConfigMap& cm = *got;
  if (!Labelled(cm) || cm.metadata.deletionTimestamp) return CleanUp(ctx, cm);

  // The finalizer goes on before the first file is written: a deletion can never miss files.
  // The Update carries the read resourceVersion: a concurrent change is a Conflict, and the
  // retry re-reads.
  if (controller::AddFinalizer(cm, kCleanupFinalizer)) {
    auto updated = client_.Update(cm);
    if (!updated) return std::move(updated).error();
    cm = std::move(*updated);
    ctx.log.Info("added finalizer", {{"finalizer", kCleanupFinalizer}});
  }
  // Only `data` is exported (not binaryData).
  auto synced = store_.Sync(cm.metadata.namespace_, cm.metadata.name, cm.data);
  if (!synced) {
    controller::RecordEvent(recorder_, cm, EventType::kWarning, "ExportFailed", synced.error().message);
    if (IsBadRequest(synced.error())) return controller::TerminalError(std::move(synced).error());
    return std::move(synced).error();
  }
  if (synced->Changed()) {
    controller::RecordEvent(recorder_, cm, EventType::kNormal, "Exported",
           fmt::format("wrote {} file(s), removed {}", synced->written, synced->removed));
    ctx.log.Info("exported", {{"written", synced->written}, {"removed", synced->removed}});
  }
  return ReconcileResult::Done();
}

Result<ReconcileResult> ExportReconciler::CleanUp(controller::ReconcileContext& ctx, ConfigMap& cm) {
  // Without our finalizer there is nothing of ours to clean: never exported, or done already.
  if (!controller::ContainsFinalizer(cm, kCleanupFinalizer)) return ReconcileResult::Done();
  auto removed = store_.Remove(cm.metadata.namespace_, cm.metadata.name);
  if (!removed) {
    controller::RecordEvent(recorder_, cm, EventType::kWarning, "CleanupFailed", removed.error().message);
    return std::move(removed).error();  // the finalizer stays; retried with backoff
  }
  const std::string_view why = cm.metadata.deletionTimestamp ? "configmap is being deleted" : "export label removed";
  controller::RecordEvent(recorder_, cm, EventType::kNormal, "CleanedUp", fmt::format("removed exported files: {}", why));
  ctx.log.Info("cleaned up", {{"reason", why}});
  // Removing the last finalizer of a ConfigMap being deleted lets the API server delete it.
  controller::RemoveFinalizer(cm, kCleanupFinalizer);
  auto updated = client_.Update(cm);
  if (!updated && !IsNotFound(updated.error())) return std::move(updated).error();
  return ReconcileResult::Done();
}

controller::Predicate ExportedOrGuarded() {
  return {
      .create = [](const controller::CreateEvent& e) { return Interesting(e.object); },
      .update =
          [](const controller::UpdateEvent& e) { return Interesting(e.old_object) || Interesting(e.new_object); },
      .del = [](const controller::DeleteEvent& e) { return Interesting(e.object); },
      .generic = [](const controller::GenericEvent& e) { return Interesting(e.object); },
  };
}

Result<std::shared_ptr<controller::Controller>> SetupExportController(controller::Manager& mgr, ExportStore& store,
                                                                       controller::EventRecorder& recorder,
                                                                       ExportControllerOptions options) {
  if (options.controller.name.empty()) options.controller.name = "finalizer-cleanup";
  std::string name = options.controller.name;
  return controller::ControllerManagedBy(mgr)
      .For<ConfigMap>({ExportedOrGuarded()})
      .WithOptions(std::move(options.controller))
      .Named(std::move(name))
      .Complete(std::make_shared<ExportReconciler>(mgr.GetClient(), store, recorder));
}

}  // namespace kube::examples::finalizer_cleanup
