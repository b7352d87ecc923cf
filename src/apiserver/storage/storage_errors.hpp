#pragma once

#include <string_view>

#include <kube/apiserver/storage.hpp>
#include <kube/base/error.hpp>

namespace kube::apiserver::internal {

/// The storage-level errors documented on `Storage`. Messages name the key or revisions; the
/// registry rewrites them per resource. **Thread-safety:** pure functions.

/// 409 AlreadyExists: `key "<key>" already exists`.
Error KeyExistsError(std::string_view key);
/// 404 NotFound: `key "<key>" not found`.
Error KeyNotFoundError(std::string_view key);
/// 409 Conflict: `key "<key>" has been modified: expected revision <e>, current revision <c>`.
Error RevisionConflictError(std::string_view key, Revision expected, Revision current);
/// 410 Expired for a read (Get/List) at a compacted revision (kube's list message).
Error ReadExpiredError(Revision requested, Revision compacted);
/// 410 Expired for a watch from a compacted revision (`too old resource version: r (c)`).
Error WatchExpiredError(Revision requested, Revision compacted);
/// 504 Timeout with cause ResourceVersionTooLarge.
Error TooLargeError(Revision requested, Revision current);
/// 400 BadRequest for a negative revision or limit.
Error InvalidArgumentError(std::string_view what, int64_t value);
/// 500 InternalError: `Internal error occurred: <message>`.
Error StorageInternalError(std::string_view message);

}  // namespace kube::apiserver::internal
