#pragma once
/// \file
/// The finalizer-cleanup example's reconciler: ConfigMaps labelled
/// `example.kubecpp.io/export=true` are written out as files by an `ExportStore`, guarded by the
/// finalizer `example.kubecpp.io/cleanup-files`, so that the files are removed before the
/// ConfigMap is deleted (or when the label is removed). Written on the typed API
/// (`kube::api::core::v1::ConfigMap`, `<kube/controller/typed.hpp>`'s finalizer helpers).

#include <memory>
#include <string_view>

#include <kube/api/core/v1.hpp>
#include <kube/kube.hpp>

#include "export_store.hpp"

namespace kube::examples::finalizer_cleanup {

/// The label that selects exported ConfigMaps (value "true").
inline constexpr std::string_view kExportLabel = "example.kubecpp.io/export";
/// The finalizer that keeps a ConfigMap until its files are gone.
inline constexpr std::string_view kCleanupFinalizer = "example.kubecpp.io/cleanup-files";
/// The ConfigMap resource (for dynamic-API callers such as the tests).
inline const GroupVersionResource kConfigMaps = client::ResourceOf<api::core::v1::ConfigMap>();

/// Reconciles one ConfigMap. It is a plain Reconciler (not `AsReconciler`) because it also acts
/// on keys whose ConfigMap is gone:
/// - labelled and live: adds the finalizer (one Update) before the first write, then
///   `ExportStore::Sync`s its `data` (event `Exported` when files changed);
/// - being deleted, or no longer labelled, while carrying the finalizer: removes the files (event
///   `CleanedUp`), then removes the finalizer (an Update with the read resourceVersion), which
///   lets the API server finish a pending deletion;
/// - gone (NotFound): removes any files left behind (a deletion that bypassed the finalizer).
/// A cleanup or write failure records a Warning event (`CleanupFailed`, `ExportFailed`) and
/// returns the error, so the controller retries with backoff and the finalizer stays. A key
/// that is not a safe file name is a terminal error (retrying cannot fix it).
/// **Thread-safety:** safe for concurrent reconciles of different keys.
/// **Lifetime:** borrows the client, the store and the recorder; they must outlive it.
class ExportReconciler final : public controller::Reconciler {
 public:
  /// A reconciler reading through `client` (a Manager's), writing files with `store`.
  ExportReconciler(controller::Client& client, ExportStore& store, controller::EventRecorder& recorder)
      : client_(client), store_(store), recorder_(recorder) {}

  /// See the class comment.
  Result<controller::ReconcileResult> Reconcile(controller::ReconcileContext& ctx,
                                                const controller::Request& request) override;

 private:
  Result<controller::ReconcileResult> CleanUp(controller::ReconcileContext& ctx, api::core::v1::ConfigMap& cm);

  controller::Client& client_;
  ExportStore& store_;
  controller::EventRecorder& recorder_;
};

/// Passes events of ConfigMaps that are labelled for export or carry the cleanup finalizer
/// (for updates: before or after), so unrelated ConfigMaps cost no reconcile. It reads only the
/// cached objects' metadata, so a ConfigMap it drops is never decoded into a typed value.
controller::Predicate ExportedOrGuarded();

/// Options of `SetupExportController`.
struct ExportControllerOptions {
  /// Controller options (workers, rate limiter, ...); the name defaults to "finalizer-cleanup".
  controller::ControllerOptions controller{};
};

/// Registers the controller (`For<ConfigMap>()`, filtered by `ExportedOrGuarded`) with `mgr`.
/// **Lifetime:** `store` and `recorder` must outlive the manager's run.
/// **Errors:** as `Builder::Complete`.
Result<std::shared_ptr<controller::Controller>> SetupExportController(controller::Manager& mgr, ExportStore& store,
                                                                       controller::EventRecorder& recorder,
                                                                       ExportControllerOptions options = {});

}  // namespace kube::examples::finalizer_cleanup
