#include <kube/core/watch_event.hpp>

#include <fmt/format.h>

#include <kube/core/status.hpp>

#include "core/internal/json_scanner.hpp"

namespace kube {

using core::internal::JsonCursor;
using core::internal::JsonKind;

std::string_view WatchEventTypeName(WatchEventType type) {
  switch (type) {
    case WatchEventType::kAdded: return "ADDED";
    case WatchEventType::kModified: return "MODIFIED";
    case WatchEventType::kDeleted: return "DELETED";
    case WatchEventType::kBookmark: return "BOOKMARK";
    case WatchEventType::kError: return "ERROR";
  }
  return "UNKNOWN";
}

Result<WatchEventType> ParseWatchEventType(std::string_view name) {
  if (name == "ADDED") return WatchEventType::kAdded;
  if (name == "MODIFIED") return WatchEventType::kModified;
  if (name == "DELETED") return WatchEventType::kDeleted;
  if (name == "BOOKMARK") return WatchEventType::kBookmark;
  if (name == "ERROR") return WatchEventType::kError;
  return BadRequest(fmt::format("unknown watch event type \"{}\"", name));
}

bool WatchEvent::IsInitialEventsEnd() const {
  return type == WatchEventType::kBookmark && object &&
         object->Annotations().Get(kInitialEventsEndAnnotation) == "true";
}

Result<WatchEvent> DecodeWatchEvent(std::string_view line) {
  JsonCursor cur(line);
  auto kind = cur.PeekKind();
  if (!kind.ok()) return std::move(kind).error();
  if (*kind != JsonKind::kObject) {
    return cur.FieldErrorAt(cur.pos(), fmt::format("watch event: expected a JSON object, found {}",
                                                   core::internal::JsonKindName(*kind)));
  }
  cur.Consume('{');
  std::optional<std::string> type;
  std::optional<std::string_view> object;
  KUBE_RETURN_IF_ERROR(core::internal::ForEachMember(cur, [&](std::string_view key, std::size_t) -> Result<void> {
    if (key == "type") {
      auto t = cur.PeekKind();
      if (!t.ok()) return std::move(t).error();
      if (*t != JsonKind::kString) return cur.FieldErrorAt(cur.pos(), "watch event: type: expected string");
      auto s = cur.String();
      if (!s.ok()) return std::move(s).error();
      type.emplace();
      core::internal::AppendUnescaped(*s, *type);
      return Ok();
    }
    auto v = cur.SkipValue();
    if (!v.ok()) return std::move(v).error();
    if (key == "object") object = *v;
    return Ok();
  }));
  KUBE_RETURN_IF_ERROR(cur.ExpectEnd());
  if (!type) return BadRequest("watch event: missing \"type\"");
  auto t = ParseWatchEventType(*type);
  if (!t.ok()) return std::move(t).error();
  if (!object) return BadRequest(fmt::format("watch event {}: missing \"object\"", *type));
  WatchEvent event;
  event.type = *t;
  auto obj = Object::Parse(*object);
  if (!obj.ok()) {
    Error e = std::move(obj).error();
    e.message = fmt::format("watch event {}: object: {}", *type, e.message);
    return e;
  }
  event.object = std::move(*obj);
  if (event.type == WatchEventType::kError) {
    auto status = ParseStatus(*object);
    if (status.ok()) {
      event.error = std::move(status->error);
    } else {
      event.error = InternalError(fmt::format("watch ERROR event with a non-Status object: {}", *object));
    }
  }
  return event;
}

std::string EncodeWatchEvent(WatchEventType type, const Object& object) {
  const auto name = WatchEventTypeName(type);
  const auto json = object.Json();
  std::string out;
  out.reserve(28 + json.size());
  out.append("{\"type\":\"");
  out.append(name);
  out.append("\",\"object\":");
  out.append(json);
  out.push_back('}');
  return out;
}

std::string EncodeWatchEvent(const WatchEvent& event) {
  if (event.object) return EncodeWatchEvent(event.type, *event.object);
  const std::string object = event.error ? StatusJson(*event.error) : std::string("{}");
  return fmt::format("{{\"type\":\"{}\",\"object\":{}}}", WatchEventTypeName(event.type), object);
}

}  // namespace kube
