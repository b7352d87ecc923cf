#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include <kube/apiserver/resource.hpp>
#include <kube/base/result.hpp>
#include <kube/core/options.hpp>

#include "apiserver/rest/context.hpp"

/// Deletion and the object writes of the server's own controllers (garbage collector, namespace
/// controller, event TTL): kube's `Store.Delete` with preconditions, propagation-policy finalizers
/// and `markAsDeleting` (apiserver-semantics.md §3.5), and a compare-and-swap mutation loop that,
/// like an update, deletes an object whose last finalizer it removes. Internal to the API server.
namespace kube::apiserver::rest {

/// The GC finalizers kube's DeleteOptions map to.
inline constexpr std::string_view kOrphanFinalizer = "orphan";
inline constexpr std::string_view kForegroundFinalizer = "foregroundDeletion";

/// What a delete did.
struct DeleteOutcome {
  std::string stored;  ///< the object's last state (gone) or its current state (marked / unchanged)
  bool gone = false;   ///< removed from storage; false: it stays, with a deletionTimestamp
  std::string uid;     ///< the object's uid (for the Success Status kube answers)
};

/// kube's Store.Delete of the object `name` (in `ns`) of `info`: preconditions (409 with kube's
/// messages, naming the Kind), the `orphan` / `foregroundDeletion` finalizers the options (or the
/// object's existing finalizers) call for, then either `markAsDeleting` (deletionTimestamp,
/// deletionGracePeriodSeconds 0, generation bump; namespaces also go Terminating) when finalizers
/// remain (for namespaces, `spec.finalizers` too), or removal. An object already being deleted is
/// returned as it is unless the options change its GC finalizers (which may remove it).
/// Lost races are retried. **Errors:** 404 NotFound, 409 Conflict (preconditions), storage errors.
Result<DeleteOutcome> DeleteObject(const Env& env, const ResourceInfo& info, std::string_view ns,
                                   std::string_view name, const DeleteOptions& opts, bool dry_run);

/// Changes `obj` in place; returns whether it changed anything (false = nothing to write).
using MutateFn = std::function<Result<bool>(boost::json::object& obj)>;

/// Reads the object at `info.StorageKey(ns, name)`, applies `fn` and writes the result with a
/// compare-and-swap (retried on a lost race), for the server's controllers. When `uid` is given
/// and the stored object has another uid, nothing is done (it was deleted and recreated). An object
/// being deleted whose last finalizer `fn` removes is deleted (`ShouldDeleteDuringUpdate`).
/// Returns the resulting stored JSON ("" when the object is missing or replaced).
/// **Errors:** errors of `fn`; storage errors other than NotFound.
Result<std::string> MutateObject(const Env& env, const ResourceInfo& info, std::string_view ns,
                                 std::string_view name, std::optional<std::string_view> uid,
                                 const MutateFn& fn);

/// Removes every occurrence of `finalizer` from `metadata.finalizers`; returns whether it was there.
bool RemoveFinalizer(boost::json::object& obj, std::string_view finalizer);

}  // namespace kube::apiserver::rest
