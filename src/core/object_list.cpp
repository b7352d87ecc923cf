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
  // Items of typed lists carry no apiVersion/kind: inject the list's.
  std::string item_kind;
  auto default_kind = [&]() -> std::string_view {
    item_kind = list.kind;
    if (item_kind.size() > 4 && item_kind.ends_with("List")) item_kind.resize(item_kind.size() - 4);
    return item_kind == "List" ? std::string_view() : std::string_view(item_kind);
  };
  // One pass when apiVersion and kind come before items (as every API server writes them): each
  // item is parsed in place. Otherwise the raw text of each item is kept (validated as JSON) and
  // parsed once the list's apiVersion and kind are known.
  bool seen_api_version = false;
  bool seen_kind = false;
  std::vector<std::string_view> deferred;
  cur.Consume('{');
  auto skip = [&]() -> Result<void> {
    auto v = cur.SkipValue();
    if (!v.ok()) return std::move(v).error();
    return Ok();
  };
  KUBE_RETURN_IF_ERROR(ForEachMember(cur, [&](std::string_view key, std::size_t) -> Result<void> {
    if (key == "apiVersion") {
      seen_api_version = true;
      return ReadString(cur, "apiVersion", list.api_version);
    }
    if (key == "kind") {
      seen_kind = true;
      return ReadString(cur, "kind", list.kind);
    }
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
      if (!seen_api_version || !seen_kind) {
        return ForEachElement(cur, [&](std::size_t) -> Result<void> {
          auto v = cur.SkipValue();
          if (!v.ok()) return std::move(v).error();
          deferred.push_back(*v);
          return Ok();
        });
      }
      const std::string_view kind_default = default_kind();
      return ForEachElement(cur, [&](std::size_t i) -> Result<void> {
        auto item_kind_here = cur.PeekKind();
        if (!item_kind_here.ok()) return std::move(item_kind_here).error();
        if (*item_kind_here != JsonKind::kObject) {
          return cur.FieldErrorAt(cur.pos(), fmt::format("items[{}]: expected a JSON object, found {}", i,
                                                         core::internal::JsonKindName(*item_kind_here)));
        }
        std::size_t consumed = 0;
        auto obj = ObjectParser::ParsePrefix(cur.text().substr(cur.pos()), list.api_version, kind_default,
                                             fmt::format("items[{}]: ", i), consumed);
        if (!obj.ok()) return std::move(obj).error();
        cur.set_pos(cur.pos() + consumed);
        list.items.push_back(std::move(*obj));
        return Ok();
      });
    }
    return skip();
  }));
  KUBE_RETURN_IF_ERROR(cur.ExpectEnd());

  if (!deferred.empty()) {
    const std::string_view kind_default = default_kind();
    list.items.reserve(deferred.size());
    for (std::size_t i = 0; i < deferred.size(); ++i) {
      auto obj = ObjectParser::Parse(deferred[i], list.api_version, kind_default, fmt::format("items[{}]: ", i));
      if (!obj.ok()) return std::move(obj).error();
      list.items.push_back(std::move(*obj));
    }
  }
  return list;
}

}  // namespace kube
