#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include <kube/core/object.hpp>
#include <kube/core/object_list_parser.hpp>

#include "core/internal/json_scanner.hpp"
#include "core/internal/object_parser.hpp"

namespace kube {

using core::internal::ForEachMember;
using core::internal::JsonCursor;
using core::internal::JsonKind;
using core::internal::JsonKindName;

namespace {

bool IsWs(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

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
    return cur.FieldErrorAt(cur.pos(), fmt::format("{}: expected string, found {}", field, JsonKindName(*kind)));
  }
  auto s = cur.String();
  if (!s.ok()) return std::move(s).error();
  out = Unescaped(*s);
  return Ok();
}

Result<void> Skip(JsonCursor& cur) {
  auto v = cur.SkipValue();
  if (!v.ok()) return std::move(v).error();
  return Ok();
}

// Finds where one JSON value that starts at `start` ends, across calls as more text arrives:
// strings and brackets are tracked, nothing is validated (the parse of the complete value does).
// A scalar ends at the first whitespace, ',', '}' or ']'.
class ValueEnd {
 public:
  void Reset(std::size_t start) {
    at_ = start;
    depth_ = 0;
    in_string_ = false;
    escape_ = false;
  }
  void Shift(std::size_t n) { at_ -= n; }
  // One past the value's last byte, or npos when `text` ends first.
  std::size_t Scan(std::string_view text, std::size_t start) {
    const char first = text[start];
    if (first != '{' && first != '[' && first != '"') {
      for (std::size_t i = at_; i < text.size(); ++i) {
        const char c = text[i];
        if (IsWs(c) || c == ',' || c == '}' || c == ']') return i;
      }
      at_ = text.size();
      return std::string_view::npos;
    }
    for (std::size_t i = at_; i < text.size(); ++i) {
      const char c = text[i];
      if (in_string_) {
        if (escape_) {
          escape_ = false;
        } else if (c == '\\') {
          escape_ = true;
        } else if (c == '"') {
          in_string_ = false;
          if (depth_ == 0) return i + 1;
        }
      } else if (c == '"') {
        in_string_ = true;
      } else if (c == '{' || c == '[') {
        ++depth_;
      } else if ((c == '}' || c == ']') && --depth_ == 0) {
        return i + 1;
      }
    }
    at_ = text.size();
    return std::string_view::npos;
  }

 private:
  std::size_t at_ = 0;
  int depth_ = 0;
  bool in_string_ = false;
  bool escape_ = false;
};

}  // namespace

// The grammar of a List walked as a state machine over the text that has arrived. Between
// values (punctuation, whitespace) it moves byte by byte; a value (a member key, a member
// value, an item) is parsed in one go once it is complete: first optimistically on whatever
// text is there (most items arrive whole), and when that fails, after ValueEnd has seen its
// last byte, so that a value split across arrivals is scanned once more, never parsed twice
// per arrival.
struct ObjectListParser::State {
  enum class Phase {
    kStart,        // before the List's '{'
    kMemberStart,  // before a key (or the '}' of an empty List)
    kKey,          // in a key
    kColon,        // after a key
    kValueStart,   // after ':'
    kValue,        // in a member value
    kItemsStart,   // after "items":
    kItemStart,    // before an item (or ']')
    kItem,         // in an item
    kAfterItem,    // after an item: ',' or ']'
    kAfterMember,  // after a member: ',' or '}'
    kDone,         // after the List's '}'
  };
  enum class Step { kAdvanced, kNeedMore };

  std::size_t walk_bytes = ObjectListParser::kWalkBytes;
  std::string buf;        // text kept from earlier Feeds: the value in progress, if any
  std::string_view text;  // what is being walked: `buf`, or a Feed's bytes when nothing was kept
  std::size_t pos = 0;    // next byte of `text` to look at
  Phase phase = Phase::kStart;
  bool first = true;  // no member (element) yet in the List (the current items array)
  bool finishing = false;

  std::size_t unit_start = 0;  // the value in progress starts here
  bool scanning = false;       // its optimistic parse failed: wait for ValueEnd
  ValueEnd end;

  std::string key;
  bool seen_api_version = false;
  bool seen_kind = false;
  bool deferring = false;  // items before apiVersion/kind: kept as text for Finish
  std::string item_kind;   // the default kind of items of the current array
  std::size_t item_index = 0;
  std::vector<std::string> deferred;
  ObjectList list;
  std::optional<Error> error;

  JsonCursor CursorAt(std::size_t at) const {
    JsonCursor cur(text);
    cur.set_pos(at);
    return cur;
  }

  // Skips whitespace; false when the text ends first.
  bool SkipWs() {
    while (pos < text.size() && IsWs(text[pos])) ++pos;
    return pos < text.size();
  }

  void Begin(Phase unit_phase) {
    phase = unit_phase;
    unit_start = pos;
    scanning = false;
  }

  std::string_view ItemKindDefault() {
    item_kind = list.kind;
    if (item_kind.size() > 4 && item_kind.ends_with("List")) item_kind.resize(item_kind.size() - 4);
    return item_kind == "List" ? std::string_view() : std::string_view(item_kind);
  }

  // Parses the value at unit_start against all of `text`: its end, or an error.
  Result<std::size_t> ParseUnit() {
    JsonCursor cur = CursorAt(unit_start);
    if (phase == Phase::kKey) {
      auto s = cur.String();
      if (!s.ok()) return cur.ErrorHere("expected a string key in object");
      key = Unescaped(*s);
      return cur.pos();
    }
    if (phase == Phase::kItem) {
      if (deferring) {
        auto v = cur.SkipValue();
        if (!v.ok()) return std::move(v).error();
        deferred.emplace_back(*v);
        return cur.pos();
      }
      std::size_t consumed = 0;
      // The item's index goes in front of an error's message only when there is one.
      auto obj = ObjectParser::ParsePrefix(text.substr(unit_start), list.api_version, item_kind, "", consumed);
      if (!obj.ok()) {
        Error e = std::move(obj).error();
        e.message = fmt::format("items[{}]: {}", item_index, e.message);
        return e;
      }
      list.items.push_back(std::move(*obj));
      return unit_start + consumed;
    }
    Result<void> r = Ok();
    if (key == "apiVersion") {
      seen_api_version = true;
      r = ReadString(cur, "apiVersion", list.api_version);
    } else if (key == "kind") {
      seen_kind = true;
      r = ReadString(cur, "kind", list.kind);
    } else if (key == "metadata" && cur.Peek() == '{') {
      cur.Consume('{');
      r = ForEachMember(cur, [&](std::string_view mkey, std::size_t) -> Result<void> {
        if (mkey == "resourceVersion") return ReadString(cur, "metadata.resourceVersion", list.resource_version);
        if (mkey == "continue") return ReadString(cur, "metadata.continue", list.continue_token);
        if (mkey == "remainingItemCount" && cur.Peek() != 'n') {
          auto n = cur.Int64("metadata.remainingItemCount");
          if (!n.ok()) return std::move(n).error();
          list.remaining_item_count = *n;
          return Ok();
        }
        return Skip(cur);
      });
    } else {
      r = Skip(cur);
    }
    if (!r.ok()) return std::move(r).error();
    return cur.pos();
  }

  // Parses the value in progress once it is (or may be) complete.
  Result<Step> Unit() {
    const char first_byte = text[unit_start];
    const bool self_delimited = first_byte == '{' || first_byte == '[' || first_byte == '"';
    if (!scanning) {
      // Optimistic: the whole value is usually there already. A scalar that touches the end of
      // the text may continue in the next bytes.
      // Only a deferred item can be a scalar that is parsed and then not accepted (an in-place
      // item is an object, always self-delimited): take its copy back.
      const std::size_t deferred_before = deferred.size();
      auto done = ParseUnit();
      if (done.ok() && (self_delimited || *done < text.size() || finishing)) {
        pos = *done;
        return Step::kAdvanced;
      }
      deferred.resize(deferred_before);
      if (finishing) return std::move(done).error();
      scanning = true;
      end.Reset(unit_start);
    }
    if (end.Scan(text, unit_start) == std::string_view::npos && !finishing) return Step::kNeedMore;
    scanning = false;
    auto done = ParseUnit();
    if (!done.ok()) return std::move(done).error();
    pos = *done;
    return Step::kAdvanced;
  }

  // After a value in an array or object: ',' leads to `after_comma`, `close` to `after_close`.
  Result<Step> Separator(char close, std::string_view context, Phase after_comma, Phase after_close) {
    if (!SkipWs() && !finishing) return Step::kNeedMore;
    JsonCursor cur = CursorAt(pos);
    if (cur.Consume(',')) {
      phase = after_comma;
    } else {
      KUBE_RETURN_IF_ERROR(cur.Expect(close, context));
      phase = after_close;
    }
    pos = cur.pos();
    return Step::kAdvanced;
  }

  Result<Step> Next() {
    switch (phase) {
      case Phase::kStart: {
        if (!SkipWs() && !finishing) return Step::kNeedMore;
        JsonCursor cur = CursorAt(pos);
        auto kind = cur.PeekKind();
        if (!kind.ok()) return std::move(kind).error();
        if (*kind != JsonKind::kObject) {
          return cur.FieldErrorAt(cur.pos(),
                                  fmt::format("expected a JSON object (a List), found {}", JsonKindName(*kind)));
        }
        ++pos;
        phase = Phase::kMemberStart;
        first = true;
        return Step::kAdvanced;
      }
      case Phase::kMemberStart:
        if (!SkipWs()) {
          if (!finishing) return Step::kNeedMore;
          return CursorAt(pos).ErrorHere("unexpected end of input, expected a string key in object");
        }
        if (first && text[pos] == '}') {
          ++pos;
          phase = Phase::kDone;
          return Step::kAdvanced;
        }
        if (text[pos] != '"') return CursorAt(pos).ErrorHere("expected a string key in object");
        Begin(Phase::kKey);
        return Step::kAdvanced;
      case Phase::kColon: {
        if (!SkipWs() && !finishing) return Step::kNeedMore;
        JsonCursor cur = CursorAt(pos);
        KUBE_RETURN_IF_ERROR(cur.Expect(':', "after object key"));
        pos = cur.pos();
        first = false;
        phase = key == "items" ? Phase::kItemsStart : Phase::kValueStart;
        return Step::kAdvanced;
      }
      case Phase::kItemsStart: {
        if (!SkipWs() && !finishing) return Step::kNeedMore;
        JsonCursor cur = CursorAt(pos);
        auto kind = cur.PeekKind();
        if (!kind.ok()) return std::move(kind).error();
        if (*kind == JsonKind::kNull) {
          Begin(Phase::kValue);
          return Step::kAdvanced;
        }
        if (*kind != JsonKind::kArray) {
          return cur.FieldErrorAt(cur.pos(), fmt::format("items: expected array, found {}", JsonKindName(*kind)));
        }
        ++pos;
        deferring = !seen_api_version || !seen_kind;
        if (!deferring) ItemKindDefault();
        phase = Phase::kItemStart;
        item_index = 0;
        return Step::kAdvanced;
      }
      case Phase::kItemStart: {
        if (!SkipWs() && !finishing) return Step::kNeedMore;
        if (item_index == 0 && pos < text.size() && text[pos] == ']') {
          ++pos;
          phase = Phase::kAfterMember;
          return Step::kAdvanced;
        }
        if (!deferring) {
          JsonCursor cur = CursorAt(pos);
          auto kind = cur.PeekKind();
          if (!kind.ok()) return std::move(kind).error();
          if (*kind != JsonKind::kObject) {
            return cur.FieldErrorAt(cur.pos(), fmt::format("items[{}]: expected a JSON object, found {}", item_index,
                                                           JsonKindName(*kind)));
          }
        } else if (pos >= text.size()) {
          return CursorAt(pos).PeekKind().error();
        }
        Begin(Phase::kItem);
        return Step::kAdvanced;
      }
      case Phase::kValueStart:
        if (!SkipWs()) {
          if (!finishing) return Step::kNeedMore;
          return CursorAt(pos).PeekKind().error();
        }
        Begin(Phase::kValue);
        return Step::kAdvanced;
      case Phase::kKey:
      case Phase::kValue:
      case Phase::kItem: {
        const Phase was = phase;
        auto step = Unit();
        if (!step.ok() || *step == Step::kNeedMore) return step;
        if (was == Phase::kKey) {
          phase = Phase::kColon;
        } else if (was == Phase::kItem) {
          phase = Phase::kAfterItem;
          ++item_index;
        } else {
          phase = Phase::kAfterMember;
        }
        return Step::kAdvanced;
      }
      case Phase::kAfterItem: return Separator(']', "or ',' in array", Phase::kItemStart, Phase::kAfterMember);
      case Phase::kAfterMember: return Separator('}', "or ',' in object", Phase::kMemberStart, Phase::kDone);
      case Phase::kDone:
        if (SkipWs()) return CursorAt(pos).ExpectEnd().error();
        return Step::kNeedMore;
    }
    return Step::kNeedMore;
  }

  // Walks `text` as far as it goes, then keeps what is still needed in `buf`.
  Result<void> Walk() {
    for (;;) {
      auto step = Next();
      if (!step.ok()) {
        error = std::move(step).error();
        buf.clear();
        text = {};
        return *error;
      }
      if (*step == Step::kNeedMore) break;
    }
    const bool in_unit = phase == Phase::kKey || phase == Phase::kValue || phase == Phase::kItem;
    const std::size_t keep = in_unit ? unit_start : pos;
    if (text.data() == buf.data()) {
      buf.erase(0, keep);
    } else {
      buf.assign(text.substr(keep));
    }
    pos -= keep;
    if (in_unit) {
      unit_start -= keep;
      end.Shift(keep);
    }
    text = buf;
    return Ok();
  }
};

ObjectListParser::ObjectListParser(std::size_t walk_bytes) : s_(std::make_unique<State>()) {
  s_->walk_bytes = walk_bytes == 0 ? 1 : walk_bytes;
}
ObjectListParser::~ObjectListParser() = default;

std::vector<ObjectPtr>& ObjectListParser::items() { return s_->list.items; }

Result<void> ObjectListParser::Feed(std::string_view bytes) {
  State& s = *s_;
  if (s.error) return *s.error;
  if (s.finishing) return BadRequest("ObjectListParser: Feed after Finish");
  if (bytes.empty()) return Ok();
  if (s.buf.empty() && bytes.size() >= s.walk_bytes) {
    s.text = bytes;  // nothing kept and enough to walk: walk the bytes in place
    return s.Walk();
  }
  // Small pieces (a TLS record is at most 16 KiB) are gathered first: walked one by one, most
  // items would straddle two of them and be scanned twice.
  s.buf.append(bytes);
  if (s.buf.size() < s.walk_bytes) return Ok();
  s.text = s.buf;
  return s.Walk();
}

Result<ObjectList> ObjectListParser::Finish() {
  State& s = *s_;
  if (s.error) return *s.error;
  if (s.finishing) return BadRequest("ObjectListParser: Finish called twice");
  s.finishing = true;
  s.text = s.buf;
  KUBE_RETURN_IF_ERROR(s.Walk());
  if (s.phase != State::Phase::kDone) {
    s.error = BadRequest("invalid JSON: unexpected end of input in a List");
    return *s.error;
  }
  if (!s.deferred.empty()) {
    const std::string_view kind_default = s.ItemKindDefault();
    s.list.items.reserve(s.list.items.size() + s.deferred.size());
    for (std::size_t i = 0; i < s.deferred.size(); ++i) {
      auto obj = ObjectParser::Parse(s.deferred[i], s.list.api_version, kind_default, fmt::format("items[{}]: ", i));
      if (!obj.ok()) {
        s.error = std::move(obj).error();
        return *s.error;
      }
      s.list.items.push_back(std::move(*obj));
    }
    s.deferred.clear();
  }
  return std::move(s.list);
}

Result<ObjectList> ObjectList::Parse(std::string_view json) {
  ObjectListParser parser;
  KUBE_RETURN_IF_ERROR(parser.Feed(json));
  return parser.Finish();
}

}  // namespace kube
