#include <kube/core/object.hpp>

#include <algorithm>
#include <charconv>

#include <boost/json.hpp>
#include <fmt/format.h>

#include <kube/core/json.hpp>
#include <kube/core/json_pointer.hpp>

#include "core/internal/json_scanner.hpp"
#include "core/internal/object_parser.hpp"

namespace kube {

using core::internal::ForEachElement;
using core::internal::ForEachMember;
using core::internal::JsonCursor;
using core::internal::KeyText;
using core::internal::JsonKind;
using core::internal::OwnerRefSpans;
using core::internal::RawString;
using core::internal::Span;

namespace {

// Spans produced while scanning point into the scanned text, or (with this bit set) into the
// arena of unescaped strings that is appended after the text.
constexpr uint32_t kArenaBit = 0x80000000u;

struct PendingOwnerRef {
  OwnerRefSpans spans;
};

// Scan state for one object; turned into an Object once the whole text has been validated.
struct Scan {
  std::string_view text;
  std::string arena;
  Span api_version, kind, name, generate_name, ns, uid, resource_version, creation_timestamp,
      deletion_timestamp, managed_fields;
  int64_t generation = 0;
  std::optional<int64_t> grace;
  std::vector<std::pair<Span, Span>> labels, annotations;
  std::vector<Span> finalizers;
  std::vector<OwnerRefSpans> owner_refs;
};


Span SpanOf(Scan& scan, const RawString& s) {
  if (!s.escaped) {
    return Span{static_cast<uint32_t>(s.raw.data() - scan.text.data()),
                static_cast<uint32_t>(s.raw.size())};
  }
  const auto off = static_cast<uint32_t>(scan.arena.size());
  core::internal::AppendUnescaped(s, scan.arena);
  return Span{off | kArenaBit, static_cast<uint32_t>(scan.arena.size() - off)};
}

Error WrongType(JsonCursor& cur, std::string_view field, std::string_view expected, JsonKind got) {
  return cur.FieldErrorAt(cur.pos(), fmt::format("{}: expected {}, found {}", field, expected,
                                                 core::internal::JsonKindName(got)));
}

// A string field; null leaves it empty (as Go's decoder does).
Result<void> StringField(JsonCursor& cur, Scan& scan, std::string_view field, Span& out) {
  auto kind = cur.PeekKind();
  if (!kind.ok()) return std::move(kind).error();
  if (*kind == JsonKind::kNull) {
    auto v = cur.SkipValue();  // validates the literal
    if (!v.ok()) return std::move(v).error();
    out = {};
    return Ok();
  }
  if (*kind != JsonKind::kString) return WrongType(cur, field, "string", *kind);
  auto s = cur.String();
  if (!s.ok()) return std::move(s).error();
  out = SpanOf(scan, *s);
  return Ok();
}

Result<std::optional<int64_t>> IntField(JsonCursor& cur, std::string_view field) {
  auto kind = cur.PeekKind();
  if (!kind.ok()) return std::move(kind).error();
  if (*kind == JsonKind::kNull) {
    auto v = cur.SkipValue();
    if (!v.ok()) return std::move(v).error();
    return std::optional<int64_t>{};
  }
  if (*kind != JsonKind::kNumber) return WrongType(cur, field, "integer", *kind);
  auto v = cur.Int64(field);
  if (!v.ok()) return std::move(v).error();
  return std::optional<int64_t>(*v);
}

Result<int8_t> BoolField(JsonCursor& cur, std::string_view field) {
  auto kind = cur.PeekKind();
  if (!kind.ok()) return std::move(kind).error();
  auto literal = [&](int8_t value) -> Result<int8_t> {
    auto v = cur.SkipValue();  // validates the literal
    if (!v.ok()) return std::move(v).error();
    return value;
  };
  switch (*kind) {
    case JsonKind::kNull: return literal(-1);
    case JsonKind::kTrue: return literal(1);
    case JsonKind::kFalse: return literal(0);
    case JsonKind::kObject:
    case JsonKind::kArray:
    case JsonKind::kString:
    case JsonKind::kNumber: break;
  }
  return WrongType(cur, field, "boolean", *kind);
}

// Returns false (consuming "null") when the value is null; errors unless it is `want`.
Result<bool> OpenContainer(JsonCursor& cur, std::string_view field, JsonKind want) {
  auto kind = cur.PeekKind();
  if (!kind.ok()) return std::move(kind).error();
  if (*kind == JsonKind::kNull) {
    auto v = cur.SkipValue();
    if (!v.ok()) return std::move(v).error();
    return false;
  }
  if (*kind != want) {
    return WrongType(cur, field, want == JsonKind::kObject ? "object" : "array", *kind);
  }
  cur.set_pos(cur.pos() + 1);
  return true;
}

Result<void> StringMap(JsonCursor& cur, Scan& scan, std::string_view field,
                       std::vector<std::pair<Span, Span>>& out) {
  auto open = OpenContainer(cur, field, JsonKind::kObject);
  if (!open.ok()) return std::move(open).error();
  if (!*open) return Ok();
  return ForEachMember(cur, [&](std::string_view key, std::size_t key_start) -> Result<void> {
    // The key may have been unescaped into scratch: re-read it from the text for its span.
    JsonCursor key_cur(scan.text);
    key_cur.set_pos(key_start);
    auto raw_key = key_cur.String();
    if (!raw_key.ok()) return std::move(raw_key).error();
    Span value;
    KUBE_RETURN_IF_ERROR(StringField(cur, scan, fmt::format("{}.{}", field, key), value));
    out.emplace_back(SpanOf(scan, *raw_key), value);
    return Ok();
  });
}

Result<void> OwnerRefs(JsonCursor& cur, Scan& scan) {
  auto open = OpenContainer(cur, "metadata.ownerReferences", JsonKind::kArray);
  if (!open.ok()) return std::move(open).error();
  if (!*open) return Ok();
  return ForEachElement(cur, [&](std::size_t i) -> Result<void> {
    const std::string field = fmt::format("metadata.ownerReferences[{}]", i);
    auto obj = OpenContainer(cur, field, JsonKind::kObject);
    if (!obj.ok()) return std::move(obj).error();
    if (!*obj) return Ok();
    OwnerRefSpans ref;
    KUBE_RETURN_IF_ERROR(ForEachMember(cur, [&](std::string_view key, std::size_t) -> Result<void> {
      if (key == "apiVersion") return StringField(cur, scan, field + ".apiVersion", ref.api_version);
      if (key == "kind") return StringField(cur, scan, field + ".kind", ref.kind);
      if (key == "name") return StringField(cur, scan, field + ".name", ref.name);
      if (key == "uid") return StringField(cur, scan, field + ".uid", ref.uid);
      if (key == "controller" || key == "blockOwnerDeletion") {
        auto b = BoolField(cur, fmt::format("{}.{}", field, key));
        if (!b.ok()) return std::move(b).error();
        (key == "controller" ? ref.controller : ref.block_owner_deletion) = *b;
        return Ok();
      }
      auto skipped = cur.SkipValue();
      if (!skipped.ok()) return std::move(skipped).error();
      return Ok();
    }));
    scan.owner_refs.push_back(ref);
    return Ok();
  });
}

Result<void> Metadata(JsonCursor& cur, Scan& scan) {
  auto open = OpenContainer(cur, "metadata", JsonKind::kObject);
  if (!open.ok()) return std::move(open).error();
  if (!*open) return Ok();
  std::size_t prev_value_end = 0;              // 0: no member yet
  bool managed_fields_pending = false;         // managedFields was the first member
  std::size_t mf_start = 0;
  return ForEachMember(cur, [&](std::string_view key, std::size_t key_start) -> Result<void> {
    if (managed_fields_pending) {
      // managedFields was the first member: cut it together with the comma that follows it.
      scan.managed_fields = {static_cast<uint32_t>(mf_start),
                             static_cast<uint32_t>(key_start - mf_start)};
      managed_fields_pending = false;
    }
    Result<void> r = Ok();
    if (key == "name") {
      r = StringField(cur, scan, "metadata.name", scan.name);
    } else if (key == "namespace") {
      r = StringField(cur, scan, "metadata.namespace", scan.ns);
    } else if (key == "generateName") {
      r = StringField(cur, scan, "metadata.generateName", scan.generate_name);
    } else if (key == "uid") {
      r = StringField(cur, scan, "metadata.uid", scan.uid);
    } else if (key == "resourceVersion") {
      r = StringField(cur, scan, "metadata.resourceVersion", scan.resource_version);
    } else if (key == "creationTimestamp") {
      r = StringField(cur, scan, "metadata.creationTimestamp", scan.creation_timestamp);
    } else if (key == "deletionTimestamp") {
      r = StringField(cur, scan, "metadata.deletionTimestamp", scan.deletion_timestamp);
    } else if (key == "generation") {
      auto v = IntField(cur, "metadata.generation");
      if (!v.ok()) return std::move(v).error();
      scan.generation = v->value_or(0);
    } else if (key == "deletionGracePeriodSeconds") {
      auto v = IntField(cur, "metadata.deletionGracePeriodSeconds");
      if (!v.ok()) return std::move(v).error();
      scan.grace = *v;
    } else if (key == "labels") {
      scan.labels.clear();
      r = StringMap(cur, scan, "metadata.labels", scan.labels);
    } else if (key == "annotations") {
      scan.annotations.clear();
      r = StringMap(cur, scan, "metadata.annotations", scan.annotations);
    } else if (key == "finalizers") {
      scan.finalizers.clear();
      auto arr = OpenContainer(cur, "metadata.finalizers", JsonKind::kArray);
      if (!arr.ok()) return std::move(arr).error();
      if (*arr) {
        r = ForEachElement(cur, [&](std::size_t i) -> Result<void> {
          Span s;
          KUBE_RETURN_IF_ERROR(StringField(cur, scan, fmt::format("metadata.finalizers[{}]", i), s));
          scan.finalizers.push_back(s);
          return Ok();
        });
      }
    } else if (key == "ownerReferences") {
      scan.owner_refs.clear();
      r = OwnerRefs(cur, scan);
    } else if (key == "managedFields") {
      auto kind = cur.PeekKind();
      if (!kind.ok()) return std::move(kind).error();
      if (*kind != JsonKind::kArray && *kind != JsonKind::kNull) {
        return WrongType(cur, "metadata.managedFields", "array", *kind);
      }
      auto v = cur.SkipValue();
      if (!v.ok()) return std::move(v).error();
      if (prev_value_end != 0) {
        // Not the first member: cut from the end of the previous value (the comma before us).
        scan.managed_fields = {static_cast<uint32_t>(prev_value_end),
                               static_cast<uint32_t>(cur.pos() - prev_value_end)};
      } else {
        mf_start = key_start;
        // If no member follows, the cut is just this member.
        scan.managed_fields = {static_cast<uint32_t>(key_start),
                               static_cast<uint32_t>(cur.pos() - key_start)};
        managed_fields_pending = true;
      }
    } else {
      auto v = cur.SkipValue();
      if (!v.ok()) return std::move(v).error();
    }
    if (!r.ok()) return r;
    prev_value_end = cur.pos();
    return Ok();
  });
}

// Sorts a string map by key; later duplicates win (Go's decoder overwrites).
void SortMap(const std::string& buf, std::vector<std::pair<Span, Span>>& m) {
  auto view = [&](Span s) { return std::string_view(buf.data() + s.off, s.len); };
  std::stable_sort(m.begin(), m.end(),
                   [&](const auto& a, const auto& b) { return view(a.first) < view(b.first); });
  // Keep the last of each run of equal keys.
  std::vector<std::pair<Span, Span>> out;
  out.reserve(m.size());
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (i + 1 < m.size() && view(m[i].first) == view(m[i + 1].first)) continue;
    out.push_back(m[i]);
  }
  m.swap(out);
}

}  // namespace

Result<ObjectPtr> ObjectParser::Parse(std::string_view text, std::string_view default_api_version,
                                      std::string_view default_kind, std::string_view context) {
  return ParseImpl(text, default_api_version, default_kind, context, nullptr);
}

Result<ObjectPtr> ObjectParser::ParsePrefix(std::string_view text, std::string_view default_api_version,
                                            std::string_view default_kind, std::string_view context,
                                            std::size_t& consumed) {
  return ParseImpl(text, default_api_version, default_kind, context, &consumed);
}

Result<ObjectPtr> ObjectParser::ParseImpl(std::string_view text, std::string_view default_api_version,
                                          std::string_view default_kind, std::string_view context,
                                          std::size_t* consumed) {
  constexpr std::size_t kMaxObject = (kArenaBit >> 1) - 1;
  const bool prefix_mode = consumed != nullptr;
  const bool truncated = prefix_mode && text.size() > kMaxObject;
  if (truncated) text = text.substr(0, kMaxObject);  // spans are 31-bit offsets
  if (!prefix_mode && text.size() > kMaxObject) return BadRequest("object too large");
  Scan scan;
  scan.text = text;
  JsonCursor cur(text);
  auto kind = cur.PeekKind();
  if (!kind.ok()) return std::move(kind).error();
  if (*kind != JsonKind::kObject) {
    return cur.FieldErrorAt(cur.pos(), fmt::format("{}expected a JSON object, found {}", context,
                                                   core::internal::JsonKindName(*kind)));
  }
  cur.Consume('{');
  auto r = ForEachMember(cur, [&](std::string_view key, std::size_t) -> Result<void> {
    if (key == "apiVersion") return StringField(cur, scan, "apiVersion", scan.api_version);
    if (key == "kind") return StringField(cur, scan, "kind", scan.kind);
    if (key == "metadata") return Metadata(cur, scan);
    auto v = cur.SkipValue();
    if (!v.ok()) return std::move(v).error();
    return Ok();
  });
  if (r.ok() && !prefix_mode) r = cur.ExpectEnd();
  if (!r.ok()) {
    if (truncated) return BadRequest("object too large");
    if (context.empty()) return std::move(r).error();
    Error e = std::move(r).error();
    e.message = fmt::format("{}{}", context, e.message);
    return e;
  }
  if (prefix_mode) {
    *consumed = cur.pos();
    text = text.substr(0, cur.pos());
    scan.text = text;
  }
  if (cur.saw_whitespace()) {
    const std::string compact = core::internal::CompactJson(text);
    return Parse(compact, default_api_version, default_kind, context);
  }

  // Typed list items carry no apiVersion/kind: inject the defaults in front of the members.
  std::string prefix;
  const bool add_api_version = scan.api_version.len == 0 && !default_api_version.empty();
  const bool add_kind = scan.kind.len == 0 && !default_kind.empty();
  if (add_api_version || add_kind) {
    prefix = "{";
    if (add_api_version) {
      prefix += "\"apiVersion\":";
      const auto at = static_cast<uint32_t>(prefix.size() + 1);
      core::internal::AppendQuoted(default_api_version, prefix);
      // Spans are shifted by (prefix.size() - 1) below; pre-compensate for the injected ones.
      scan.api_version = {at, static_cast<uint32_t>(prefix.size() - 1 - at)};
      prefix += ",";
    }
    if (add_kind) {
      prefix += "\"kind\":";
      const auto at = static_cast<uint32_t>(prefix.size() + 1);
      core::internal::AppendQuoted(default_kind, prefix);
      scan.kind = {at, static_cast<uint32_t>(prefix.size() - 1 - at)};
      prefix += ",";
    }
    if (text == "{}") prefix.pop_back();  // nothing follows the injected members
  }

  auto obj = std::make_shared<Object>(Object::PrivateTag{});
  Object& o = *obj;
  // Buffer: [prefix][text without its '{'] [arena], or the text itself.
  const bool inject = add_api_version || add_kind;
  const std::size_t raw_len = inject ? prefix.size() + text.size() - 1 : text.size();
  o.buf_.reserve(raw_len + scan.arena.size());
  if (inject) {
    o.buf_.append(prefix);
    o.buf_.append(text.substr(1));
  } else {
    o.buf_.append(text);
  }
  o.buf_.append(scan.arena);
  o.raw_len_ = static_cast<uint32_t>(raw_len);
  const uint32_t shift = inject ? static_cast<uint32_t>(prefix.size() - 1) : 0;
  auto fix = [&](Span s) -> Span {
    if (s.len == 0 && s.off == 0) return s;
    if (s.off & kArenaBit) return Span{(s.off & ~kArenaBit) + o.raw_len_, s.len};
    return Span{s.off + shift, s.len};
  };
  // Injected spans were computed relative to the prefix; undo the shift for them.
  o.api_version_ = add_api_version ? scan.api_version : fix(scan.api_version);
  o.kind_ = add_kind ? scan.kind : fix(scan.kind);
  o.name_ = fix(scan.name);
  o.generate_name_ = fix(scan.generate_name);
  o.namespace_ = fix(scan.ns);
  o.uid_ = fix(scan.uid);
  o.resource_version_ = fix(scan.resource_version);
  o.creation_timestamp_ = fix(scan.creation_timestamp);
  o.deletion_timestamp_ = fix(scan.deletion_timestamp);
  o.managed_fields_ = fix(scan.managed_fields);
  o.generation_ = scan.generation;
  o.has_deletion_grace_period_ = scan.grace.has_value();
  o.deletion_grace_period_seconds_ = scan.grace.value_or(0);

  for (auto& [k, v] : scan.labels) k = fix(k), v = fix(v);
  for (auto& [k, v] : scan.annotations) k = fix(k), v = fix(v);
  SortMap(o.buf_, scan.labels);
  SortMap(o.buf_, scan.annotations);
  if (scan.labels.size() > 0xFFFF || scan.annotations.size() > 0xFFFF || scan.finalizers.size() > 0xFFFF) {
    return BadRequest("too many labels, annotations or finalizers (at most 65535 each)");
  }
  o.n_labels_ = static_cast<uint16_t>(scan.labels.size());
  o.n_annotations_ = static_cast<uint16_t>(scan.annotations.size());
  o.n_finalizers_ = static_cast<uint16_t>(scan.finalizers.size());
  o.refs_.reserve(2 * (scan.labels.size() + scan.annotations.size()) + scan.finalizers.size());
  for (const auto& [k, v] : scan.labels) o.refs_.push_back(k), o.refs_.push_back(v);
  for (const auto& [k, v] : scan.annotations) o.refs_.push_back(k), o.refs_.push_back(v);
  for (const auto& f : scan.finalizers) o.refs_.push_back(fix(f));
  if (!scan.owner_refs.empty()) {
    o.owner_refs_.reserve(scan.owner_refs.size());
    for (auto ref : scan.owner_refs) {
      ref.api_version = fix(ref.api_version);
      ref.kind = fix(ref.kind);
      ref.name = fix(ref.name);
      ref.uid = fix(ref.uid);
      o.owner_refs_.push_back(ref);
    }
  }
  return ObjectPtr(std::move(obj));
}

// ---- Object ------------------------------------------------------------------------------

Result<ObjectPtr> Object::Parse(std::string_view json) { return ObjectParser::Parse(json, {}, {}, {}); }

Result<ObjectPtr> Object::FromJson(const boost::json::value& json) {
  if (!json.is_object()) {
    return BadRequest(fmt::format("expected a JSON object, found {}", JsonTypeName(json)));
  }
  return Parse(boost::json::serialize(json));
}

Result<ObjectPtr> Object::FromJson(const boost::json::object& json) {
  return Parse(boost::json::serialize(json));
}

std::optional<int64_t> Object::DeletionGracePeriodSeconds() const {
  if (!has_deletion_grace_period_) return std::nullopt;
  return deletion_grace_period_seconds_;
}

std::vector<OwnerReference> Object::OwnerReferences() const {
  std::vector<OwnerReference> out;
  out.reserve(owner_refs_.size());
  auto opt = [](int8_t v) -> std::optional<bool> {
    if (v < 0) return std::nullopt;
    return v == 1;
  };
  for (const auto& r : owner_refs_) {
    out.push_back(OwnerReference{View(r.api_version), View(r.kind), View(r.name), View(r.uid),
                                 opt(r.controller), opt(r.block_owner_deletion)});
  }
  return out;
}

std::optional<OwnerReference> Object::ControllerRef() const {
  for (const auto& r : owner_refs_) {
    if (r.controller == 1) {
      return OwnerReference{View(r.api_version), View(r.kind), View(r.name), View(r.uid), true,
                            r.block_owner_deletion < 0
                                ? std::nullopt
                                : std::optional<bool>(r.block_owner_deletion == 1)};
    }
  }
  return std::nullopt;
}

std::string Object::Key() const {
  if (namespace_.len == 0) return std::string(Name());
  std::string key;
  key.reserve(namespace_.len + 1 + name_.len);
  key.append(Namespace());
  key.push_back('/');
  key.append(Name());
  return key;
}

Result<GroupVersionKind> Object::Gvk() const {
  return GroupVersionKind::FromApiVersionKind(ApiVersion(), Kind());
}

std::optional<std::string_view> Object::GetRaw(std::string_view pointer) const {
  auto ptr = JsonPointer::Parse(pointer);
  if (!ptr.ok()) return std::nullopt;
  JsonCursor cur(Json());
  std::string scratch;
  for (const auto& token : ptr->Tokens()) {
    auto kind = cur.PeekKind();
    if (!kind.ok()) return std::nullopt;
    if (*kind == JsonKind::kObject) {
      cur.Consume('{');
      if (cur.Consume('}')) return std::nullopt;
      bool found = false;
      while (true) {
        auto key = cur.String();
        if (!key.ok() || !cur.Consume(':')) return std::nullopt;
        if (KeyText(*key, scratch) == token) {
          found = true;
          break;
        }
        if (!cur.SkipValue().ok()) return std::nullopt;
        if (!cur.Consume(',')) return std::nullopt;
      }
      if (!found) return std::nullopt;
    } else if (*kind == JsonKind::kArray) {
      auto index = ParseJsonPointerArrayIndex(token);
      if (!index) return std::nullopt;
      cur.Consume('[');
      if (cur.Consume(']')) return std::nullopt;
      for (std::size_t i = 0; i < *index; ++i) {
        if (!cur.SkipValue().ok() || !cur.Consume(',')) return std::nullopt;
      }
    } else {
      return std::nullopt;
    }
  }
  auto value = cur.SkipValue();
  if (!value.ok()) return std::nullopt;
  return *value;
}

std::optional<boost::json::value> Object::Get(std::string_view pointer) const {
  auto raw = GetRaw(pointer);
  if (!raw) return std::nullopt;
  boost::json::parse_options opts;
  opts.max_depth = core::internal::kMaxJsonDepth;
  boost::system::error_code ec;
  auto v = boost::json::parse(*raw, ec, {}, opts);
  if (ec) return std::nullopt;
  return v;
}

std::optional<std::string> Object::GetString(std::string_view pointer) const {
  auto raw = GetRaw(pointer);
  if (!raw || raw->empty() || raw->front() != '"') return std::nullopt;
  JsonCursor cur(*raw);
  auto s = cur.String();
  if (!s.ok()) return std::nullopt;
  std::string out;
  core::internal::AppendUnescaped(*s, out);
  return out;
}

std::optional<int64_t> Object::GetInt(std::string_view pointer) const {
  auto raw = GetRaw(pointer);
  if (!raw) return std::nullopt;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(raw->data(), raw->data() + raw->size(), v);
  if (ec != std::errc() || p != raw->data() + raw->size()) return std::nullopt;
  return v;
}

std::optional<bool> Object::GetBool(std::string_view pointer) const {
  auto raw = GetRaw(pointer);
  if (!raw) return std::nullopt;
  if (*raw == "true") return true;
  if (*raw == "false") return false;
  return std::nullopt;
}

boost::json::object Object::ToJson() const {
  boost::json::parse_options opts;
  opts.max_depth = core::internal::kMaxJsonDepth;
  // The text was validated at construction, so this cannot fail.
  return boost::json::parse(Json(), {}, opts).as_object();
}

Object::~Object() { delete derived_.load(std::memory_order_acquire); }

std::shared_ptr<const void> Object::DerivedValue(const void* tag) const {
  const Derived* d = derived_.load(std::memory_order_acquire);
  return d != nullptr && d->tag == tag ? d->value : nullptr;
}

std::shared_ptr<const void> Object::KeepDerivedValue(const void* tag, std::shared_ptr<const void> value) const {
  auto fresh = std::make_unique<Derived>(Derived{tag, std::move(value)});
  const Derived* expected = nullptr;
  if (derived_.compare_exchange_strong(expected, fresh.get(), std::memory_order_acq_rel,
                                       std::memory_order_acquire)) {
    return fresh.release()->value;
  }
  return expected->tag == tag ? expected->value : nullptr;
}

std::size_t Object::RetainedBytes() const {
  std::size_t n = sizeof(Object);
  if (buf_.capacity() > 15) n += buf_.capacity() + 1;
  n += refs_.capacity() * sizeof(Span);
  n += owner_refs_.capacity() * sizeof(OwnerRefSpans);
  return n;
}

std::optional<std::string_view> StringMapView::Get(std::string_view key) const {
  std::size_t lo = 0, hi = count_;
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    const Span k = pairs_[2 * mid];
    const std::string_view mk(base_ + k.off, k.len);
    if (mk < key) {
      lo = mid + 1;
    } else if (key < mk) {
      hi = mid;
    } else {
      const Span v = pairs_[2 * mid + 1];
      return std::string_view(base_ + v.off, v.len);
    }
  }
  return std::nullopt;
}

std::map<std::string, std::string> StringMapView::ToMap() const {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : *this) out.emplace(k, v);
  return out;
}

bool StringListView::Contains(std::string_view s) const {
  for (auto item : *this) {
    if (item == s) return true;
  }
  return false;
}

std::vector<std::string> StringListView::ToVector() const {
  std::vector<std::string> out;
  out.reserve(count_);
  for (auto item : *this) out.emplace_back(item);
  return out;
}

ObjectPtr StripManagedFields(const ObjectPtr& obj) {
  if (!obj || !obj->HasManagedFields()) return obj;
  // Fast path: splice the member's bytes out and shift every recorded span behind them (no
  // re-parse) — unless the text names the member elsewhere (a repeated member, or a string that
  // contains the name) or a span lies in the cut; then re-parse below.
  const std::string_view text = obj->Json();
  const Span cut = obj->managed_fields_;
  constexpr std::string_view kName = "\"managedFields\"";
  const uint32_t end = cut.off + cut.len;
  const bool named_elsewhere = text.substr(0, cut.off).find(kName) != std::string_view::npos ||
                               text.substr(end).find(kName) != std::string_view::npos;
  if (!named_elsewhere) {
    auto shift = [&](Span s, bool& ok) {
      if (s.len != 0 && s.off < end && s.off + s.len > cut.off) ok = false;  // inside the cut
      if (s.off >= end) s.off -= cut.len;
      return s;
    };
    auto out = std::make_shared<Object>(Object::PrivateTag{});
    bool ok = true;
    out->buf_.reserve(obj->buf_.size() - cut.len);
    out->buf_.append(obj->buf_, 0, cut.off).append(obj->buf_, end, std::string::npos);
    out->raw_len_ = obj->raw_len_ - cut.len;
    out->api_version_ = shift(obj->api_version_, ok);
    out->kind_ = shift(obj->kind_, ok);
    out->name_ = shift(obj->name_, ok);
    out->generate_name_ = shift(obj->generate_name_, ok);
    out->namespace_ = shift(obj->namespace_, ok);
    out->uid_ = shift(obj->uid_, ok);
    out->resource_version_ = shift(obj->resource_version_, ok);
    out->creation_timestamp_ = shift(obj->creation_timestamp_, ok);
    out->deletion_timestamp_ = shift(obj->deletion_timestamp_, ok);
    out->generation_ = obj->generation_;
    out->deletion_grace_period_seconds_ = obj->deletion_grace_period_seconds_;
    out->has_deletion_grace_period_ = obj->has_deletion_grace_period_;
    out->n_labels_ = obj->n_labels_;
    out->n_annotations_ = obj->n_annotations_;
    out->n_finalizers_ = obj->n_finalizers_;
    out->refs_.reserve(obj->refs_.size());
    for (const Span& r : obj->refs_) out->refs_.push_back(shift(r, ok));
    out->owner_refs_.reserve(obj->owner_refs_.size());
    for (const auto& o : obj->owner_refs_) {
      core::internal::OwnerRefSpans c = o;
      c.api_version = shift(o.api_version, ok);
      c.kind = shift(o.kind, ok);
      c.name = shift(o.name, ok);
      c.uid = shift(o.uid, ok);
      out->owner_refs_.push_back(c);
    }
    if (ok) return out;
  }
  // The general way: cut the member's recorded bytes (with its separating comma) out of the text
  // and re-scan.
  std::string out;
  out.reserve(text.size() - cut.len);
  out.append(text.substr(0, cut.off));
  out.append(text.substr(cut.off + cut.len));
  auto stripped = Object::Parse(out);
  // The cut removes one whole member of a valid object, so the result is valid.
  if (!stripped.ok()) return obj;
  // A (malformed but valid JSON) object may repeat the member: cut every occurrence.
  return (*stripped)->HasManagedFields() ? StripManagedFields(*stripped) : *stripped;
}

}  // namespace kube
