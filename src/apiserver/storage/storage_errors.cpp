#include "apiserver/storage/storage_errors.hpp"

#include <string>

#include <fmt/format.h>

#include <kube/core/status.hpp>

namespace kube::apiserver::internal {

Error KeyExistsError(std::string_view key) {
  return MakeError(409, reason::kAlreadyExists, fmt::format("key \"{}\" already exists", key));
}

Error KeyNotFoundError(std::string_view key) {
  return MakeError(404, reason::kNotFound, fmt::format("key \"{}\" not found", key));
}

Error RevisionConflictError(std::string_view key, Revision expected, Revision current) {
  return MakeError(409, reason::kConflict,
                   fmt::format("key \"{}\" has been modified: expected revision {}, current "
                               "revision {}",
                               key, expected, current));
}

Error ReadExpiredError(Revision requested, Revision compacted) {
  Error e = NewResourceExpired(std::string(kListExpiredMsg));
  e.message += fmt::format(" (requested {}, compacted {})", requested, compacted);
  return e;
}

Error WatchExpiredError(Revision requested, Revision compacted) {
  return NewTooOldResourceVersion(static_cast<std::uint64_t>(requested),
                                  static_cast<std::uint64_t>(compacted));
}

Error TooLargeError(Revision requested, Revision current) {
  return NewTooLargeResourceVersion(static_cast<std::uint64_t>(requested),
                                    static_cast<std::uint64_t>(current));
}

Error InvalidArgumentError(std::string_view what, int64_t value) {
  return NewBadRequest(fmt::format("invalid {}: {}", what, value));
}

Error StorageInternalError(std::string_view message) { return NewInternalError(message); }

}  // namespace kube::apiserver::internal
