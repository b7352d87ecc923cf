#pragma once

/// \file
/// A finalizer registry (controller-runtime's `pkg/finalizer`): register one cleanup function per
/// finalizer name; `Finalize(object)` adds the registered finalizers to live objects and, once
/// `deletionTimestamp` is set, runs the cleanup of every registered finalizer the object still
/// carries and reports which finalizers may be removed.
///
/// ```cpp
/// kube::controller::FinalizerRegistry finalizers;
/// (void)finalizers.Register("example.com/cleanup", [&](const kube::Object& obj) {
///   return DeleteExternalResources(obj);
/// });
/// // in Reconcile:
/// auto done = finalizers.FinalizeAndUpdate(api, *obj);   // add or run + remove, then Update
/// if (!done) return done.error();
/// if (obj->IsBeingDeleted()) return kube::Ok();
/// ```

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <kube/base/result.hpp>
#include <kube/client/dynamic_client.hpp>
#include <kube/controller/client_interface.hpp>
#include <kube/core/object.hpp>

namespace kube::controller {

/// Cleans up what a finalizer guards (external resources). Called only while the object is
/// being deleted and still carries the finalizer; must be idempotent (it runs again when removing
/// the finalizer fails). Ok = done, the finalizer may be removed.
using FinalizerFn = std::function<Result<void>(const Object& object)>;

/// What `FinalizerRegistry::Finalize` decided.
struct FinalizeResult {
  /// Registered finalizers missing from a live object, to be added.
  std::vector<std::string> added;
  /// Finalizers whose cleanup succeeded, to be removed.
  std::vector<std::string> removed;
  /// Finalizers whose cleanup failed (they stay), with the error.
  std::vector<std::pair<std::string, Error>> failed;

  /// True when the object must be written (something to add or remove).
  bool Updated() const { return !added.empty() || !removed.empty(); }
  /// Ok, or one error naming every failed finalizer (the code of the first failure).
  Result<void> Errors() const;
  /// Adds `added` and removes `removed` on `object`.
  void ApplyTo(ObjectBuilder& object) const;
};

/// Finalizer name -> cleanup. **Thread-safety:** Register must happen before concurrent
/// Finalize calls (set up at start); Finalize is const and may run concurrently.
class FinalizerRegistry final {
 public:
  /// Registers `fn` under `name` (a qualified name like "example.com/cleanup").
  /// **Errors:** 400 BadRequest for an empty name or a name registered already.
  Result<void> Register(std::string name, FinalizerFn fn);

  /// For a live object: lists registered finalizers it lacks as `added`. For an object being
  /// deleted: calls the cleanup of each registered finalizer it carries, in registration order
  /// (an exception counts as a failure), and lists successes as `removed`, failures as `failed`.
  /// Unregistered finalizers are never touched. Never writes; see FinalizeAndUpdate.
  FinalizeResult Finalize(const Object& object) const;

  /// Finalize, then (when Updated) writes the new finalizer list with an Update through `api`
  /// (with `object`'s resourceVersion: a Conflict means the caller should requeue).
  /// Returns the result; cleanup failures are returned as an error after the successful
  /// removals were written. **Errors:** the Update error, or FinalizeResult::Errors().
  Result<FinalizeResult> FinalizeAndUpdate(const client::Api& api, const Object& object) const;
  /// As above, writing through `client` (the Manager's Client or a fake; the resource comes
  /// from `object`'s apiVersion and kind). **Errors:** as above.
  Result<FinalizeResult> FinalizeAndUpdate(ClientInterface& client, const Object& object) const;

 private:
  std::vector<std::pair<std::string, FinalizerFn>> finalizers_;  // registration order
};

}  // namespace kube::controller
