#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kube {

/// Well-known `metav1.StatusReason` values. Reasons are open-ended strings on the wire, so
/// `Error::reason` stays a string; these constants name the ones kubecpp classifies.
namespace reason {
inline constexpr std::string_view kUnknown = "";
inline constexpr std::string_view kUnauthorized = "Unauthorized";
inline constexpr std::string_view kForbidden = "Forbidden";
inline constexpr std::string_view kNotFound = "NotFound";
inline constexpr std::string_view kAlreadyExists = "AlreadyExists";
inline constexpr std::string_view kConflict = "Conflict";
inline constexpr std::string_view kGone = "Gone";
inline constexpr std::string_view kInvalid = "Invalid";
inline constexpr std::string_view kServerTimeout = "ServerTimeout";
inline constexpr std::string_view kStoreReadError = "StorageReadError";
inline constexpr std::string_view kTimeout = "Timeout";
inline constexpr std::string_view kTooManyRequests = "TooManyRequests";
inline constexpr std::string_view kBadRequest = "BadRequest";
inline constexpr std::string_view kMethodNotAllowed = "MethodNotAllowed";
inline constexpr std::string_view kNotAcceptable = "NotAcceptable";
inline constexpr std::string_view kRequestEntityTooLarge = "RequestEntityTooLarge";
inline constexpr std::string_view kUnsupportedMediaType = "UnsupportedMediaType";
inline constexpr std::string_view kInternalError = "InternalError";
inline constexpr std::string_view kExpired = "Expired";
inline constexpr std::string_view kServiceUnavailable = "ServiceUnavailable";
/// Not a Kubernetes reason: a local wait or call was cancelled through its stop_token.
inline constexpr std::string_view kCanceled = "Canceled";
}  // namespace reason

/// Well-known `metav1.CauseType` values used in `StatusCause::reason`.
namespace cause {
inline constexpr std::string_view kFieldValueNotFound = "FieldValueNotFound";
inline constexpr std::string_view kFieldValueRequired = "FieldValueRequired";
inline constexpr std::string_view kFieldValueDuplicate = "FieldValueDuplicate";
inline constexpr std::string_view kFieldValueInvalid = "FieldValueInvalid";
inline constexpr std::string_view kFieldValueNotSupported = "FieldValueNotSupported";
inline constexpr std::string_view kFieldValueForbidden = "FieldValueForbidden";
inline constexpr std::string_view kFieldValueTooLong = "FieldValueTooLong";
inline constexpr std::string_view kFieldValueTypeInvalid = "FieldValueTypeInvalid";
inline constexpr std::string_view kUnexpectedServerResponse = "UnexpectedServerResponse";
inline constexpr std::string_view kFieldManagerConflict = "FieldManagerConflict";
inline constexpr std::string_view kResourceVersionTooLarge = "ResourceVersionTooLarge";
}  // namespace cause

/// One `metav1.StatusCause`.
struct StatusCause {
  std::string reason;   ///< a cause type, e.g. "FieldValueInvalid"
  std::string message;  ///< human-readable
  std::string field;    ///< e.g. "spec.replicas"; may be empty
  bool operator==(const StatusCause&) const = default;
};

/// `metav1.StatusDetails`. In NotFound / AlreadyExists / Conflict / Forbidden, `kind` holds the
/// plural resource ("pods"), as kube-apiserver does.
struct StatusDetails {
  std::string name;
  std::string group;
  std::string kind;
  std::string uid;
  std::vector<StatusCause> causes;
  int retry_after_seconds = 0;  ///< 0 = not set
  bool operator==(const StatusDetails&) const = default;
};

/// The error type of every fallible kubecpp call: the fields of a Kubernetes `metav1.Status`
/// with status "Failure". Errors that did not come from an API server (a parse error, a refused
/// connection) use the same shape: a local parse error is a 400 BadRequest or 422 Invalid; a
/// transport failure has `code == 0`.
/// Classify with the `Is*` helpers below, never by `message` text.
struct Error {
  int code = 0;             ///< HTTP status code; 0 when the error did not come from HTTP
  std::string reason;       ///< a `reason::` value, or empty (unknown)
  std::string message;      ///< human-readable, precise (names the field or position)
  std::optional<StatusDetails> details;

  bool operator==(const Error&) const = default;

  /// "message (reason, code)" for logs.
  std::string ToString() const;
};

/// Builds an Error. `reason` should be a `reason::` constant.
Error MakeError(int code, std::string_view reason, std::string message);
/// 400 BadRequest with `message`.
Error BadRequest(std::string message);
/// 500 InternalError with `message`.
Error InternalError(std::string message);
/// A transport-level failure (code 0, reason empty): connection refused, reset, TLS, timeouts
/// on the client side.
Error TransportError(std::string message);

/// The effective reason, as client-go's `ReasonForError` + code fallback: the explicit reason if
/// set, otherwise the reason implied by the HTTP code (404 -> NotFound, 409 -> Conflict, ...).
std::string_view ReasonFor(const Error& e);

bool IsNotFound(const Error& e);
bool IsAlreadyExists(const Error& e);
/// 409 Conflict (stale resourceVersion, failed precondition). Not AlreadyExists.
bool IsConflict(const Error& e);
bool IsInvalid(const Error& e);
bool IsBadRequest(const Error& e);
/// 410 with reason Gone (legacy) or Expired.
bool IsGone(const Error& e);
/// Reason Expired, or 410 Gone: the resourceVersion or continue token is too old. Same as IsGone;
/// kept for symmetry with client-go's `IsResourceExpired`.
bool IsExpired(const Error& e);
bool IsForbidden(const Error& e);
bool IsUnauthorized(const Error& e);
bool IsTooManyRequests(const Error& e);
/// reason Timeout (504): the server could not complete the request in time.
bool IsTimeout(const Error& e);
/// reason ServerTimeout (500 with retryAfter): the server asked the client to retry.
bool IsServerTimeout(const Error& e);
bool IsMethodNotAllowed(const Error& e);
bool IsUnsupportedMediaType(const Error& e);
bool IsInternalError(const Error& e);
bool IsServiceUnavailable(const Error& e);
bool IsRequestEntityTooLarge(const Error& e);
/// A Timeout whose causes include `ResourceVersionTooLarge` (the requested RV is ahead of the server).
bool IsTooLargeResourceVersion(const Error& e);
/// A transport failure (code 0): the request may not have reached the server.
bool IsTransport(const Error& e);
/// A local wait or call cancelled by its stop_token (`reason::kCanceled`).
bool IsCanceled(const Error& e);
/// The cancellation error returned by waits that observe a stop request.
Error CanceledError(std::string message = "canceled: stop requested");
/// `details.retryAfterSeconds` when set (> 0).
std::optional<int> SuggestsRetryAfter(const Error& e);

}  // namespace kube
