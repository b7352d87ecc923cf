#include <kube/base/error.hpp>

#include <fmt/format.h>

namespace kube {

std::string Error::ToString() const {
  if (reason.empty() && code == 0) return message;
  return fmt::format("{} ({}, {})", message, reason.empty() ? "Unknown" : reason, code);
}

Error MakeError(int code, std::string_view reason, std::string message) {
  return Error{.code = code, .reason = std::string(reason), .message = std::move(message), .details = {}};
}

Error BadRequest(std::string message) { return MakeError(400, reason::kBadRequest, std::move(message)); }
Error InternalError(std::string message) {
  return MakeError(500, reason::kInternalError, std::move(message));
}
Error TransportError(std::string message) { return MakeError(0, reason::kUnknown, std::move(message)); }

namespace {
// Mirrors the code-based fallback of client-go's apierrors when no reason is given.
std::string_view ReasonForCode(int code) {
  switch (code) {
    case 400: return reason::kBadRequest;
    case 401: return reason::kUnauthorized;
    case 403: return reason::kForbidden;
    case 404: return reason::kNotFound;
    case 405: return reason::kMethodNotAllowed;
    case 406: return reason::kNotAcceptable;
    case 409: return reason::kConflict;
    case 410: return reason::kGone;
    case 413: return reason::kRequestEntityTooLarge;
    case 415: return reason::kUnsupportedMediaType;
    case 422: return reason::kInvalid;
    case 429: return reason::kTooManyRequests;
    case 500: return reason::kInternalError;
    case 503: return reason::kServiceUnavailable;
    case 504: return reason::kTimeout;
    default: return reason::kUnknown;
  }
}
}  // namespace

std::string_view ReasonFor(const Error& e) {
  if (!e.reason.empty()) return e.reason;
  return ReasonForCode(e.code);
}

bool IsNotFound(const Error& e) { return ReasonFor(e) == reason::kNotFound; }
bool IsAlreadyExists(const Error& e) { return ReasonFor(e) == reason::kAlreadyExists; }
bool IsConflict(const Error& e) { return ReasonFor(e) == reason::kConflict; }
bool IsInvalid(const Error& e) { return ReasonFor(e) == reason::kInvalid; }
bool IsBadRequest(const Error& e) { return ReasonFor(e) == reason::kBadRequest; }
bool IsGone(const Error& e) {
  const auto r = ReasonFor(e);
  return r == reason::kGone || r == reason::kExpired;
}
bool IsExpired(const Error& e) { return IsGone(e); }
bool IsForbidden(const Error& e) { return ReasonFor(e) == reason::kForbidden; }
bool IsUnauthorized(const Error& e) { return ReasonFor(e) == reason::kUnauthorized; }
bool IsTooManyRequests(const Error& e) {
  return ReasonFor(e) == reason::kTooManyRequests || e.code == 429;
}
bool IsTimeout(const Error& e) { return ReasonFor(e) == reason::kTimeout; }
bool IsServerTimeout(const Error& e) { return ReasonFor(e) == reason::kServerTimeout; }
bool IsMethodNotAllowed(const Error& e) { return ReasonFor(e) == reason::kMethodNotAllowed; }
bool IsUnsupportedMediaType(const Error& e) {
  return ReasonFor(e) == reason::kUnsupportedMediaType;
}
bool IsInternalError(const Error& e) { return ReasonFor(e) == reason::kInternalError; }
bool IsServiceUnavailable(const Error& e) {
  return ReasonFor(e) == reason::kServiceUnavailable || e.code == 503;
}
bool IsRequestEntityTooLarge(const Error& e) {
  return ReasonFor(e) == reason::kRequestEntityTooLarge;
}
bool IsTooLargeResourceVersion(const Error& e) {
  if (!IsTimeout(e) || !e.details) return false;
  for (const auto& c : e.details->causes) {
    if (c.reason == cause::kResourceVersionTooLarge) return true;
  }
  return false;
}
bool IsTransport(const Error& e) { return e.code == 0 && e.reason.empty(); }
bool IsCanceled(const Error& e) { return e.reason == reason::kCanceled; }
Error CanceledError(std::string message) { return MakeError(0, reason::kCanceled, std::move(message)); }

std::optional<int> SuggestsRetryAfter(const Error& e) {
  if (e.details && e.details->retry_after_seconds > 0) return e.details->retry_after_seconds;
  return std::nullopt;
}

}  // namespace kube
