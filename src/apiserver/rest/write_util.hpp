#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <kube/apiserver/storage.hpp>
#include <kube/base/result.hpp>

#include "apiserver/rest/context.hpp"
#include "apiserver/rest/managed_fields.hpp"

/// The write path shared by POST, PUT, PATCH and DELETE: body decoding, namespace admission,
/// the create pipeline and a retrying compare-and-swap update (kube's GuaranteedUpdate).
namespace kube::apiserver::rest {

/// A random RFC 4122 version-4 UUID.
std::string NewUid();
/// kube's generateName: `base` truncated to 58 bytes plus 5 characters of
/// `bcdfghjklmnpqrstvwxz2456789`.
std::string GenerateName(std::string_view base);

/// Decodes a JSON request body into the stored form of `r.info`: Content-Type check (415), JSON
/// parse (400 naming the position), apiVersion/kind defaulted when absent and checked otherwise
/// (400), view conversion, decode-time type checks and defaulting (`DecodeAndDefault`). A JSON
/// body with repeated member names decodes as Go's decoder does (`FindGoDuplicates`), a YAML one
/// as go-yaml does; what kube's strict decoder says of them (`duplicate field "data.a"`, or
/// go-yaml's `yaml: unmarshal errors:` list) goes to `decode_problems` when given, for
/// `CheckUnknownFields`.
Result<boost::json::object> DecodeBody(const Request& r, std::string_view body,
                                       std::string_view expected_api_version,
                                       std::string_view expected_kind,
                                       std::vector<std::string>* decode_problems = nullptr);

/// The part of `DecodeBody` after JSON parsing, for a DOM (e.g. the result of a patch).
Result<boost::json::object> DecodeObject(const Request& r, boost::json::value value,
                                         std::string_view expected_api_version,
                                         std::string_view expected_kind);

/// NamespaceLifecycle admission for a namespaced request: the namespace must exist (404
/// `namespaces "x" not found`) and, for a create, must not be terminating (403).
Result<void> AdmitNamespace(const Env& env, const Request& r, bool creating, std::string_view name);

/// `dryRun` (every value must be "All"; 422 Invalid with kind `<options_kind>` otherwise) and
/// `fieldValidation` (Ignore, Warn, Strict or empty). Returns whether the request is a dry run.
Result<bool> ValidateWriteOptions(const std::vector<std::string>& dry_run,
                                  std::string_view field_validation, std::string_view options_kind);

/// The outcome of a write that produced an object.
struct WriteResult {
  std::string stored;   ///< the stored JSON (resourceVersion set), or the would-be JSON (dry run)
  Revision revision = 0;
  bool created = false;  ///< the object did not exist before
  bool deleted = false;  ///< an update emptied the finalizers of a deleting object: it is gone
};

/// Creates `obj` (stored form, namespace already set and admitted): generateName, uid,
/// creationTimestamp, strategy PrepareForCreate and Validate, then storage Create (retrying
/// generated names on collision).
/// Unless `track_managed_fields` is false (server-side apply keeps its own books), a POST, PUT or
/// PATCH records an `Update` managedFields entry for the request's manager (`RequestManager`).
/// **Errors:** 422 Invalid; 409 AlreadyExists; 500 for a set resourceVersion (kube's wording);
/// 405 MethodNotAllowed for a POST of a custom resource whose CRD is terminating.
Result<WriteResult> CreateObject(const Env& env, const Request& r, boost::json::object obj,
                                 bool dry_run, bool via_events_v1, bool track_managed_fields = true);

/// Computes the desired object from the current stored one (`current` is the stored DOM,
/// `current_rv` its revision); may fail with a 4xx (e.g. a stale resourceVersion -> Conflict).
using UpdateFn = std::function<Result<boost::json::object>(const boost::json::object& current,
                                                           Revision current_rv)>;
/// Called when the object does not exist; returns the object to create, or the error to answer
/// (kube: NotFound, unless the strategy allows create-on-update).
using CreateFn = std::function<Result<boost::json::object>()>;

/// kube's GuaranteedUpdate: read, apply `fn`, run PrepareForUpdate/ValidateUpdate for `sub`, and
/// compare-and-swap; retried on a lost race. A result equal to the current object is a no-op
/// (nothing written, no event). An object left with a deletionTimestamp and no finalizers is
/// deleted instead. Unless `track_managed_fields` is false, a PUT or PATCH moves the fields it
/// changes to the request manager's `Update` managedFields entry (managed_fields.hpp); a write
/// that changes nothing else stays a no-op.
/// **Errors:** from `fn` / `on_missing`; 422 Invalid (validation, or a `fieldManager` query
/// parameter longer than 128 bytes); 409 Conflict after too many lost races.
Result<WriteResult> GuaranteedUpdate(const Env& env, const Request& r, Subresource sub,
                                     const UpdateFn& fn, const CreateFn& on_missing, bool dry_run,
                                     bool track_managed_fields = true);

/// The key kube-apiserver stores the object under in etcd (`/registry/configmaps/NS/NAME`), for
/// the messages that name it.
std::string KubeStorageKey(const ResourceInfo& info, std::string_view ns, std::string_view name);

/// The manager of a write: the `fieldManager` query parameter, else kube's prefix of the
/// User-Agent (the part before the first '/'); `apiVersion` of the request's resource, the
/// subresource name ("status", "scale", "finalize") and the clock's time (RFC 3339 seconds).
/// **Errors:** 422 Invalid `<Create|Update|Patch>Options.meta.k8s.io "" is invalid:
/// fieldManager: Too long: may not be more than 128 bytes` (or a non-printable character).
Result<WriteManager> RequestManager(const Env& env, const Request& r, Subresource sub);

/// The resourceVersion rule of an update: an empty one needs AllowUnconditionalUpdate (else 422
/// `metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`), a different
/// one is a 409 Conflict.
Result<void> CheckUpdateResourceVersion(const Request& r, const boost::json::object& obj,
                                        Revision current_rv);

/// kube's checkName: the body's name must equal the URL's, and its namespace (when set) the
/// URL's. **Errors:** 400 BadRequest with kube's messages.
Result<void> CheckNameAndNamespace(const Request& r, const boost::json::object& obj);

/// kube's ShouldDeleteDuringUpdate: an update of `old` (being deleted, with no grace period left)
/// to `obj` removed its last finalizer, so the object is deleted instead of written; namespaces
/// also need an empty `spec.finalizers` (ShouldDeleteNamespaceDuringUpdate).
bool ShouldDeleteDuringUpdate(const ResourceInfo& info, const boost::json::object& obj,
                              const boost::json::object& old);

/// Deletes the stored object `kv` (named `name`, of resource `gr`) if it is still at its revision,
/// writing the tombstone (its last state) at the delete's revision.
/// **Errors:** storage Conflict (the object changed: callers re-read and retry) / NotFound, mapped.
Result<WriteResult> DeleteStored(const Env& env, const GroupResource& gr, std::string_view name,
                                 const KeyValue& kv, bool dry_run);

}  // namespace kube::apiserver::rest
