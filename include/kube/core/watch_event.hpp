#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <kube/base/result.hpp>
#include <kube/core/object.hpp>

namespace kube {

/// The type of a watch event, as on the wire ("ADDED", ...).
enum class WatchEventType { kAdded, kModified, kDeleted, kBookmark, kError };

/// "ADDED", "MODIFIED", "DELETED", "BOOKMARK" or "ERROR".
std::string_view WatchEventTypeName(WatchEventType type);
/// Parses a wire type name (exact, upper case). **Errors:** BadRequest for anything else.
Result<WatchEventType> ParseWatchEventType(std::string_view name);

/// The annotation that marks the bookmark ending the initial events of a streaming list.
inline constexpr std::string_view kInitialEventsEndAnnotation = "k8s.io/initial-events-end";

/// One event of a watch stream: `{"type":"ADDED","object":{...}}`.
/// For kError the object is a metav1.Status, also decoded into `error`.
struct WatchEvent {
  WatchEventType type = WatchEventType::kAdded;
  ObjectPtr object;
  std::optional<Error> error;  ///< set for kError only

  /// True for the BOOKMARK that ends the initial events of a streaming list (sendInitialEvents).
  bool IsInitialEventsEnd() const;
};

/// Decodes one event line (surrounding whitespace allowed).
/// **Errors:** BadRequest for malformed JSON, a missing/unknown type, or a missing object.
Result<WatchEvent> DecodeWatchEvent(std::string_view line);

/// Encodes `{"type":"<TYPE>","object":<object JSON>}` (no trailing newline). For kError with
/// `error` set and no object, the object is the Status built from the error.
std::string EncodeWatchEvent(const WatchEvent& event);
/// Same, from the parts.
std::string EncodeWatchEvent(WatchEventType type, const Object& object);

}  // namespace kube
