#include <fmt/format.h>

#include <kube/core/object.hpp>

#include "core/internal/json_scanner.hpp"
#include "core/internal/object_parser.hpp"

namespace kube {

using core::internal::ForEachElement;
using core::internal::ForEachMember;
using core::internal::JsonCursor;
using core::internal::JsonKind;

namespace {

std::string Unescaped(const core::internal::RawString& s) {
  std::string out;
  core::internal::AppendUnescaped(s, out);
  return out;
}

// Reads a string member value into `out`; null leaves it empty.
Result<void> ReadString(JsonCursor& cur, std::string_view field, std::string& out) {
  auto kind = cur.PeekKind();
  if (!kind.ok()) return std::move(kind).error();
  if (*kind == JsonKind::kNull) return cur.SkipValue().ok() ? Ok() : Result<void>(cur.ErrorHere("bad null"));
  if (*kind != JsonKind::kString) {
    return cur.FieldErrorAt(cur.pos(), fmt::format("{}: expected string, found {}", field,
                                                   core::internal::JsonKindName(*kind)));
  }
  auto s = cur.String();
  if (!s.ok()) return std::move(s).error();
  out = Unescaped(*s);
  return Ok();
}

}  // namespace

Result<ObjectList> ObjectList::Parse(std::string_view json) {
  ObjectList list;
  JsonCursor cur(json);
  auto kind = cur.PeekKind();
  if (!kind.ok()) return std::move(kind).error();
  if (*kind != JsonKind::kObject) {
    return cur.FieldErrorAt(cur.pos(), fmt::format("expected a JSON object (a List), found {}",
                                                   core::internal::JsonKindName(*kind)));
  }
  // First pass: list fields, and the raw text of each item (validated as JSON).
  std::vector<std::string_view> items;
  cur.Consume('{');
  auto skip = [&]() -> Result<void> {
    auto v = cur.SkipValue();
    if (!v.ok()) return std::move(v).error();
    return Ok();
  };
  KUBE_RETURN_IF_ERROR(ForEachMember(cur, [&](std::string_view key, std::size_t) -> Result<void> {
    if (key == "apiVersion") return ReadString(cur, "apiVersion", list.api_version);
    if (key == "kind") return ReadString(cur, "kind", list.kind);
    if (key == "metadata") {
      if (cur.Peek() != '{') return skip();
      cur.Consume('{');
      return ForEachMember(cur, [&](std::string_view mkey, std::size_t) -> Result<void> {
        if (mkey == "resourceVersion") return ReadString(cur, "metadata.resourceVersion", list.resource_version);
        if (mkey == "continue") return ReadString(cur, "metadata.continue", list.continue_token);
        if (mkey == "remainingItemCount" && cur.Peek() != 'n') {
          auto n = cur.Int64("metadata.remainingItemCount");
          if (!n.ok()) return std::move(n).error();
          list.remaining_item_count = *n;
          return Ok();
        }
        return skip();
      });
    }
    if (key == "items") {
      auto ik = cur.PeekKind();
      if (!ik.ok()) return std::move(ik).error();
      if (*ik == JsonKind::kNull) return skip();
      if (*ik != JsonKind::kArray) {
        return cur.FieldErrorAt(cur.pos(), fmt::format("items: expected array, found {}",
                                                       core::internal::JsonKindName(*ik)));
      }
      cur.Consume('[');
      return ForEachElement(cur, [&](std::size_t) -> Result<void> {
        auto v = cur.SkipValue();
        if (!v.ok()) return std::move(v).error();
        items.push_back(*v);
        return Ok();
      });
    }
    return skip();
  }));
  KUBE_RETURN_IF_ERROR(cur.ExpectEnd());

  // Items of typed lists carry no apiVersion/kind: inject the list's.
  std::string item_kind = list.kind;
  if (item_kind.size() > 4 && item_kind.ends_with("List")) item_kind.resize(item_kind.size() - 4);
  const std::string_view default_kind = item_kind == "List" ? std::string_view() : item_kind;
  list.items.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string context = fmt::format("items[{}]: ", i);
    auto obj = ObjectParser::Parse(items[i], list.api_version, default_kind, context);
    if (!obj.ok()) return std::move(obj).error();
    list.items.push_back(std::move(*obj));
  }
  return list;
}

}  // namespace kube
