#include <fmt/format.h>

#include <kube/core/object.hpp>

#include "core/internal/json_scanner.hpp"
#include "core/internal/object_parser.hpp"

namespace kube {

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
  std::vector<std::pair<std::string_view, std::size_t>> items;  // raw text, offset
  cur.Consume('{');
  if (!cur.Consume('}')) {
    while (true) {
      auto key_raw = cur.String();
      if (!key_raw.ok()) return cur.ErrorHere("expected a string key in object");
      KUBE_RETURN_IF_ERROR(cur.Expect(':', "after object key"));
      const std::string key = Unescaped(*key_raw);
      if (key == "apiVersion") {
        KUBE_RETURN_IF_ERROR(ReadString(cur, "apiVersion", list.api_version));
      } else if (key == "kind") {
        KUBE_RETURN_IF_ERROR(ReadString(cur, "kind", list.kind));
      } else if (key == "metadata") {
        auto mk = cur.PeekKind();
        if (!mk.ok()) return std::move(mk).error();
        if (*mk == JsonKind::kObject) {
          cur.Consume('{');
          if (!cur.Consume('}')) {
            while (true) {
              auto mkey_raw = cur.String();
              if (!mkey_raw.ok()) return cur.ErrorHere("expected a string key in object");
              KUBE_RETURN_IF_ERROR(cur.Expect(':', "after object key"));
              const std::string mkey = Unescaped(*mkey_raw);
              if (mkey == "resourceVersion") {
                KUBE_RETURN_IF_ERROR(ReadString(cur, "metadata.resourceVersion", list.resource_version));
              } else if (mkey == "continue") {
                KUBE_RETURN_IF_ERROR(ReadString(cur, "metadata.continue", list.continue_token));
              } else if (mkey == "remainingItemCount" && cur.Peek() != 'n') {
                auto n = cur.Int64("metadata.remainingItemCount");
                if (!n.ok()) return std::move(n).error();
                list.remaining_item_count = *n;
              } else {
                auto v = cur.SkipValue();
                if (!v.ok()) return std::move(v).error();
              }
              if (cur.Consume(',')) continue;
              KUBE_RETURN_IF_ERROR(cur.Expect('}', "or ',' in object"));
              break;
            }
          }
        } else {
          auto v = cur.SkipValue();
          if (!v.ok()) return std::move(v).error();
        }
      } else if (key == "items") {
        auto ik = cur.PeekKind();
        if (!ik.ok()) return std::move(ik).error();
        if (*ik == JsonKind::kArray) {
          cur.Consume('[');
          if (!cur.Consume(']')) {
            while (true) {
              cur.Peek();
              const std::size_t at = cur.pos();
              auto v = cur.SkipValue();
              if (!v.ok()) return std::move(v).error();
              items.emplace_back(*v, at);
              if (cur.Consume(',')) continue;
              KUBE_RETURN_IF_ERROR(cur.Expect(']', "or ',' in array"));
              break;
            }
          }
        } else if (*ik == JsonKind::kNull) {
          auto v = cur.SkipValue();
          if (!v.ok()) return std::move(v).error();
        } else {
          return cur.FieldErrorAt(cur.pos(), fmt::format("items: expected array, found {}",
                                                         core::internal::JsonKindName(*ik)));
        }
      } else {
        auto v = cur.SkipValue();
        if (!v.ok()) return std::move(v).error();
      }
      if (cur.Consume(',')) continue;
      KUBE_RETURN_IF_ERROR(cur.Expect('}', "or ',' in object"));
      break;
    }
  }
  KUBE_RETURN_IF_ERROR(cur.ExpectEnd());

  // Items of typed lists carry no apiVersion/kind: inject the list's.
  std::string item_kind = list.kind;
  if (item_kind.size() > 4 && item_kind.ends_with("List")) item_kind.resize(item_kind.size() - 4);
  const std::string_view default_kind = item_kind == "List" ? std::string_view() : item_kind;
  list.items.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string context = fmt::format("items[{}]: ", i);
    auto obj = ObjectParser::Parse(items[i].first, list.api_version, default_kind, context);
    if (!obj.ok()) return std::move(obj).error();
    list.items.push_back(std::move(*obj));
  }
  return list;
}

}  // namespace kube
