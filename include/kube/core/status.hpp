#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <kube/base/error.hpp>
#include <kube/base/result.hpp>
#include <kube/core/gvk.hpp>

/// metav1.Status on the wire, and the constructors of k8s.io/apimachinery `pkg/api/errors`.
///
/// Every constructor returns the exact code, reason, message and details that kube-apiserver
/// puts in its Status bodies (apimachinery v0.32), so that `StatusJson(NewNotFound(...))` is the
/// byte-for-byte body kube-apiserver would send.
///
/// **Thread-safety:** every function is pure and may be called from any thread.
namespace kube {

/// `metav1.Status.status` values.
inline constexpr std::string_view kStatusSuccess = "Success";
inline constexpr std::string_view kStatusFailure = "Failure";

/// The cause of a 409 Conflict on update with a stale `metadata.resourceVersion`
/// (apiserver `registry.OptimisticLockErrorMsg`).
inline constexpr std::string_view kOptimisticLockErrorMsg =
    "the object has been modified; please apply your changes to the latest version and try again";

/// 410 Expired message for a non-paged list at a compacted resourceVersion (etcd3 `expired`).
inline constexpr std::string_view kListExpiredMsg =
    "The resourceVersion for the provided list is too old.";
/// 410 Expired message for a watch at a compacted resourceVersion (etcd3 watcher).
inline constexpr std::string_view kWatchExpiredMsg =
    "The resourceVersion for the provided watch is too old.";
/// 410 Expired message for a compacted continue token when no fresh token can be offered.
inline constexpr std::string_view kContinueExpiredMsg =
    "The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter.";
/// 410 Expired message for a compacted continue token when the response carries a fresh
/// (inconsistent, rv=-1) token in `metadata.continue`.
inline constexpr std::string_view kInconsistentContinueMsg =
    "The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter, or use the continue token in this response "
    "to retrieve the remainder of the results. Continuing with the provided token results in an "
    "inconsistent list - objects that were created, modified, or deleted between the time the "
    "first chunk was returned and now may show up in the list.";

/// A whole `metav1.Status` object: the error fields plus `status` and the two `ListMeta` fields
/// kube-apiserver ever sets on one (`metadata.continue` on an expired continue token).
/// `kube::Error` cannot carry `metadata`, which is why this type exists; for every other Status
/// an `Error` is enough.
struct Status {
  std::string status{};            ///< kStatusSuccess, kStatusFailure, or empty (absent)
  Error error{};                   ///< code, reason, message, details
  std::string resource_version{};  ///< metadata.resourceVersion; empty = absent
  std::string continue_token{};    ///< metadata.continue; empty = absent
  bool operator==(const Status&) const = default;
};

/// The kube-apiserver JSON of `s`, byte-exact: keys in the order kind, apiVersion, metadata,
/// status, message, reason, details, code; `metadata` is always present (`{}` when empty); every
/// other member is omitted when empty/zero, as Go's `omitempty` does. `details` is written iff
/// `s.error.details.has_value()` (an engaged but empty StatusDetails is written `"details":{}`,
/// which is what kube sends for e.g. `NewTimeoutError(msg, 0)`); inside it, empty fields are
/// omitted. Strings are escaped as Go's encoding/json does (`<`, `>`, `&` as `\u003c`...).
/// No trailing newline.
std::string StatusJson(const Status& s);

/// The Failure Status body for `e`, e.g.
/// `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps
/// \"cfg\" not found","reason":"NotFound","details":{"name":"cfg","kind":"configmaps"},"code":404}`.
std::string StatusJson(const Error& e);

/// The Success Status kube-apiserver answers a DELETE with when the object is gone and the type
/// does not return the deleted object (no `code`; `details.kind` is the plural resource):
/// `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"x",
/// "kind":"configmaps","uid":"..."}}`.
std::string SuccessStatusJson(const StatusDetails& details);

/// The 410 Expired Status for a compacted continue token: with a non-empty `fresh_token` it
/// carries kInconsistentContinueMsg and `metadata.continue = fresh_token`; with an empty one,
/// kContinueExpiredMsg and no metadata.
Status ContinueExpiredStatus(std::string fresh_token);

/// Decodes a `metav1.Status` JSON object. Unknown members are ignored.
/// **Errors:** 400 BadRequest when `json` is not a JSON object, when `kind` is not "Status",
/// when `apiVersion` is present and neither "v1" nor "meta.k8s.io/v1", or when a known member has
/// the wrong type (the message names the member, e.g. `Status.code: expected an integer`).
Result<Status> ParseStatus(std::string_view json);

/// What the caller knows about the request whose response is being turned into an error; all
/// optional. Mirrors the arguments client-go passes to `NewGenericServerResponse`.
/// **Ownership:** the string_views are borrowed for the duration of the call only.
struct ResponseInfo {
  std::string_view verb{};          ///< HTTP method, e.g. "POST" (409 on POST = AlreadyExists)
  GroupResource resource{};         ///< when set, appended to the message and put in details
  std::string_view name{};          ///< the object name, when the request named one
  std::string_view content_type{};  ///< of the response; empty = treat the body as text
  int retry_after_seconds = 0;      ///< from the Retry-After header; 0 = none
};

/// The error for a non-2xx response, as client-go's `rest.Result.Error()` builds it:
/// - a body that decodes to a Status with `status: "Failure"` (a missing `kind`/`apiVersion` is
///   defaulted to v1 Status, as client-go's decoder does) yields that Status' error, with `code`
///   taken from the body, or `http_status` when the body has none;
/// - anything else yields `NewGenericServerResponse`: reason and message by status code (404 ->
///   NotFound "the server could not find the requested resource", 409 -> Conflict "the server
///   reported a conflict" (AlreadyExists for POST), 5xx -> InternalError "an error on the server
///   (\"<body>\") has prevented the request from succeeding", ...), details carrying a cause
///   `UnexpectedServerResponse` with the body (trimmed, capped at 2048 bytes; "unknown" for a
///   non-text content type) and `retryAfterSeconds`.
/// `http_status` must not be 2xx (the caller decides success before calling this).
Error ErrorFromResponse(int http_status, std::string_view body, const ResponseInfo& info = {});

/// One `field.Error` of k8s.io/apimachinery `pkg/util/validation/field`, as carried by a 422
/// Invalid: its `type` becomes the StatusCause reason, and the error prints as
/// `<field>: <Type text>[: <bad value>][: <detail>]`, e.g.
/// `spec.replicas: Invalid value: -1: must be greater than or equal to 0`.
///
/// `bad_value_json` is the offending value as JSON text; it is printed like Go prints it: numbers
/// and booleans verbatim, `null` as null, strings Go-quoted (`"abc"`), arrays of strings as Go's
/// `%#v` (`[]string{"a", "b"}`), and other arrays/objects as their JSON text (Go prints Go
/// syntax there, which cannot be reproduced). An empty `bad_value_json` omits the value (Go's
/// `omitValue`). Required, Forbidden, TooLong and InternalError never print the value.
struct FieldError {
  std::string type{};            ///< a `cause::` value, e.g. "FieldValueInvalid"
  std::string field{};           ///< the field path, e.g. "spec.replicas", "metadata.name"
  std::string detail{};          ///< optional explanation
  std::string bad_value_json{};  ///< optional; the bad value as JSON text
  /// Optional; the bad value already in Go's `%#v` syntax (`map[string]string{"a":"b"}`,
  /// `rbac.RoleRef{...}`), printed as is in place of `bad_value_json`: for the composite values
  /// whose Go rendering kube's messages show.
  std::string bad_value_go{};

  /// `field.Invalid(path, value, detail)`.
  static FieldError Invalid(std::string field, std::string bad_value_json, std::string detail);
  /// `field.Required(path, detail)`.
  static FieldError Required(std::string field, std::string detail = {});
  /// `field.Forbidden(path, detail)`.
  static FieldError Forbidden(std::string field, std::string detail);
  /// `field.Duplicate(path, value)`.
  static FieldError Duplicate(std::string field, std::string bad_value_json);
  /// `field.NotFound(path, value)`.
  static FieldError NotFound(std::string field, std::string bad_value_json);
  /// `field.NotSupported(path, value, valid)`: detail `supported values: "a", "b"`.
  static FieldError NotSupported(std::string field, std::string bad_value_json,
                                 const std::vector<std::string>& valid_values);
  /// `field.TooLong(path, value, max)`: the value is never printed.
  static FieldError TooLong(std::string field, std::string detail);
  /// `field.TypeInvalid(path, value, detail)`.
  static FieldError TypeInvalid(std::string field, std::string bad_value_json, std::string detail);

  /// `ErrorBody()`: the message without the field, e.g. `Invalid value: -1: must be ...`; this
  /// is the StatusCause message.
  std::string Body() const;
  /// `Error()`: `<field>: <Body()>`.
  std::string String() const;

  bool operator==(const FieldError&) const = default;
};

/// 404 NotFound: `<resource[.group]> "<name>" not found`, details {name, group, kind: resource}.
Error NewNotFound(const GroupResource& gr, std::string_view name);
/// 409 AlreadyExists: `<resource[.group]> "<name>" already exists`, details as NotFound.
Error NewAlreadyExists(const GroupResource& gr, std::string_view name);
/// 409 AlreadyExists when generateName could not find a free name:
/// `<gr> "<name>" already exists, the server was not able to generate a unique name for the
/// object`, with retryAfterSeconds.
Error NewGenerateNameConflict(const GroupResource& gr, std::string_view name,
                              int retry_after_seconds);
/// 409 Conflict: `Operation cannot be fulfilled on <gr> "<name>": <cause>`, details as NotFound.
/// For a stale resourceVersion pass kOptimisticLockErrorMsg.
Error NewConflict(const GroupResource& gr, std::string_view name, std::string_view cause);
/// 409 Conflict of server-side apply: `message` verbatim, details {causes} only.
Error NewApplyConflict(std::vector<StatusCause> causes, std::string message);
/// 422 Invalid: `<Kind[.group]> "<name>" is invalid: <errors>`; one error is printed bare,
/// several (after dropping duplicate messages) as `[e1, e2]`; with no errors the message is
/// `<Kind[.group]> "<name>" is invalid`. details {name, group, kind: Kind, causes: one per error,
/// duplicates kept, as kube does}.
Error NewInvalid(const GroupKind& gk, std::string_view name, const std::vector<FieldError>& errs);
/// 400 BadRequest with `message` verbatim and no details.
Error NewBadRequest(std::string message);
/// 410 Expired with `message` verbatim (the resourceVersion or continue token is too old).
Error NewResourceExpired(std::string message);
/// 410 Gone with `message` verbatim. Deprecated in kube; prefer NewResourceExpired.
Error NewGone(std::string message);
/// 410 Expired `too old resource version: <requested> (<oldest_available>)`, as the watch cache
/// says when a watch starts below its window (`oldest_available` = the oldest RV a watch can
/// still start from).
Error NewTooOldResourceVersion(std::uint64_t requested, std::uint64_t oldest_available);
/// 403 Forbidden: `<gr> "<name>" is forbidden: <why>`; without a name `<gr> is forbidden: <why>`;
/// with an empty `gr` `forbidden: <why>`. details {name, group, kind: resource}.
Error NewForbidden(const GroupResource& gr, std::string_view name, std::string_view why);
/// 401 Unauthorized with `message` ("not authorized" when empty).
Error NewUnauthorized(std::string message);
/// 429 TooManyRequests with `message` verbatim and details {retryAfterSeconds} (details are
/// present even when the value is 0, as in kube).
Error NewTooManyRequests(std::string message, int retry_after_seconds);
/// 500 ServerTimeout: `The <operation> operation against <gr> could not be completed at this
/// time, please try again.`, details {name: operation, group, kind: resource, retryAfterSeconds}.
Error NewServerTimeout(const GroupResource& gr, std::string_view operation,
                       int retry_after_seconds);
/// 504 Timeout: `Timeout: <message>`, details {retryAfterSeconds} (present even when 0).
Error NewTimeout(std::string_view message, int retry_after_seconds);
/// 504 Timeout `Timeout: Too large resource version: <requested>, current: <current>` with cause
/// {reason ResourceVersionTooLarge, message "Too large resource version"} and
/// retryAfterSeconds 1 (the watch cache's `resourceVersionTooHighRetrySeconds`).
Error NewTooLargeResourceVersion(std::uint64_t requested, std::uint64_t current);
/// 405 MethodNotAllowed: `<action> is not supported on resources of kind "<gr>"`,
/// details {group, kind: resource}.
Error NewMethodNotSupported(const GroupResource& gr, std::string_view action);
/// 415 UnsupportedMediaType: `the body of the request was in an unknown format - accepted media
/// types include: <a, b, ...>`, no details.
Error NewUnsupportedMediaType(const std::vector<std::string>& accepted);
/// 406 NotAcceptable: `only the following media types are accepted: <a, b, ...>`, no details.
Error NewNotAcceptable(const std::vector<std::string>& accepted);
/// 500 InternalError: `Internal error occurred: <message>`, details {causes: [{message}]}.
Error NewInternalError(std::string_view message);
/// 413 RequestEntityTooLarge: `Request entity too large: <message>`, no details.
Error NewRequestEntityTooLarge(std::string_view message);
/// 503 ServiceUnavailable with `message` verbatim, no details.
Error NewServiceUnavailable(std::string message);

}  // namespace kube
