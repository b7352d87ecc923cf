#include "export_reconciler.hpp"

#include <map>
#include <string>
#include <utility>

namespace kube::examples::finalizer_cleanup {
namespace {

using controller::EventType;
using controller::ReconcileResult;

bool Labelled(const Object& obj) { return obj.Labels().Get(kExportLabel) == "true"; }

bool Interesting(const ObjectPtr& obj) {
  return obj != nullptr && (Labelled(*obj) || obj->Finalizers().Contains(kCleanupFinalizer));
}

// The string entries of `data` (binaryData is not exported).
std::map<std::string, std::string> DataOf(const Object& cm) {
  std::map<std::string, std::string> files;
  const auto data = cm.Get("/data");
  if (!data || !data->is_object()) return files;
  for (const auto& [key, value] : data->as_object()) {
    if (value.is_string()) files.emplace(std::string(key), std::string(value.as_string()));
  }
  return files;
}

// Writes `cm` with `finalizer` added or removed (Update with its resourceVersion: a concurrent
// change is a Conflict, and the retry re-reads).
Result<ObjectPtr> WriteFinalizer(controller::Client& client, const Object& cm, bool add) {
  ObjectBuilder b(cm);
  if (add) {
    b.AddFinalizer(kCleanupFinalizer);
  } else {
    b.RemoveFinalizer(kCleanupFinalizer);
  }
  auto built = b.Build();
  if (!built) return std::move(built).error();
  return client.Update(**built);
}

}  // namespace

Result<ReconcileResult> ExportReconciler::Reconcile(controller::ReconcileContext& ctx,
                                                    const controller::Request& request) {
  auto got = client_.Get(kConfigMaps, request.key, ctx.stop);
  if (!got) {
    if (!IsNotFound(got.error())) return std::move(got).error();
    // Gone. Normally the finalizer cleaned up first; a forced deletion (finalizers removed by
    // hand) may have left files behind.
    auto removed = store_.Remove(request.key.ns, request.key.name);
    if (!removed) return std::move(removed).error();
    if (*removed) ctx.log.Info("removed files of a deleted configmap");
    return ReconcileResult::Done();
  }
  ObjectPtr cm = *got;
  if (!Labelled(*cm) || cm->IsBeingDeleted()) return CleanUp(ctx, *cm);

  if (!cm->Finalizers().Contains(kCleanupFinalizer)) {
    // The finalizer goes on before the first file is written: a deletion can never miss files.
    auto updated = WriteFinalizer(client_, *cm, /*add=*/true);
    if (!updated) return std::move(updated).error();
    cm = *updated;
    ctx.log.Info("added finalizer", {{"finalizer", kCleanupFinalizer}});
  }
  auto synced = store_.Sync(cm->Namespace(), cm->Name(), DataOf(*cm));
  if (!synced) {
    recorder_.Event(*cm, EventType::kWarning, "ExportFailed", synced.error().message);
    if (IsBadRequest(synced.error())) return controller::TerminalError(std::move(synced).error());
    return std::move(synced).error();
  }
  if (synced->Changed()) {
    recorder_.Eventf(*cm, EventType::kNormal, "Exported", "wrote {} file(s), removed {}", synced->written,
                     synced->removed);
    ctx.log.Info("exported", {{"written", synced->written}, {"removed", synced->removed}});
  }
  return ReconcileResult::Done();
}

Result<ReconcileResult> ExportReconciler::CleanUp(controller::ReconcileContext& ctx, const Object& cm) {
  // Without our finalizer there is nothing of ours to clean: never exported, or done already.
  if (!cm.Finalizers().Contains(kCleanupFinalizer)) return ReconcileResult::Done();
  auto removed = store_.Remove(cm.Namespace(), cm.Name());
  if (!removed) {
    recorder_.Event(cm, EventType::kWarning, "CleanupFailed", removed.error().message);
    return std::move(removed).error();  // the finalizer stays; retried with backoff
  }
  const std::string_view why = cm.IsBeingDeleted() ? "configmap is being deleted" : "export label removed";
  recorder_.Eventf(cm, EventType::kNormal, "CleanedUp", "removed exported files: {}", why);
  ctx.log.Info("cleaned up", {{"reason", why}});
  auto updated = WriteFinalizer(client_, cm, /*add=*/false);
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
      .For(kConfigMaps, {ExportedOrGuarded()})
      .WithOptions(std::move(options.controller))
      .Named(std::move(name))
      .Complete(std::make_shared<ExportReconciler>(mgr.GetClient(), store, recorder));
}

}  // namespace kube::examples::finalizer_cleanup
