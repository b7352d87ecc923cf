// Kubernetes protobuf bodies -> JSON text (see <kube/core/protobuf.hpp>).

#include <kube/core/protobuf.hpp>

#include <algorithm>
#include <array>
#include <deque>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include <kube/base/base64.hpp>
#include <kube/base/error.hpp>
#include <kube/core/time.hpp>

#include "core/internal/json_scanner.hpp"
#include "core/protobuf_table.hpp"

namespace kube::protobuf {
namespace {

namespace tbl = core::protobuf_table;
using tbl::Kind;
using tbl::Special;

constexpr std::string_view kMagic("k8s\0", 4);
constexpr int kVarint = 0;
constexpr int kFixed64 = 1;
constexpr int kLen = 2;
constexpr int kFixed32 = 5;
constexpr int kMaxDepth = 100;

Error Malformed(std::string what) { return BadRequest("malformed protobuf: " + std::move(what)); }
Error Unknown(std::string what) { return MakeError(415, reason::kUnsupportedMediaType, std::move(what)); }

bool ValidUtf8(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    // ASCII runs, eight bytes at a time.
    while (i + 8 <= n) {
      std::uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if ((w & 0x8080808080808080ULL) != 0) break;
      i += 8;
    }
    if (i >= n) break;
    const auto c = static_cast<std::uint8_t>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    std::uint32_t cp = 0;
    if ((c & 0xe0) == 0xc0) {
      len = 2;
      cp = c & 0x1fU;
    } else if ((c & 0xf0) == 0xe0) {
      len = 3;
      cp = c & 0x0fU;
    } else if ((c & 0xf8) == 0xf0) {
      len = 4;
      cp = c & 0x07U;
    } else {
      return false;
    }
    if (i + len > n) return false;
    for (std::size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<std::uint8_t>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3fU);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff)) {
      return false;
    }
    i += len;
  }
  return true;
}

// A cursor over one message's bytes.
constexpr bool ValidTag(std::uint64_t tag) {
  const std::uint64_t num = tag >> 3;
  return num >= 1 && num <= (std::uint64_t{1} << 29) - 1;
}

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool Done() const { return pos_ >= data_.size(); }

  Result<std::uint64_t> Varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return Malformed("truncated varint");
      const auto b = static_cast<std::uint8_t>(data_[pos_++]);
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
    return Malformed("varint longer than 10 bytes");
  }
  // A field's tag: its number must be protobuf's 1 to 2^29 - 1 (a larger one must not wrap onto a
  // real field).
  Result<std::uint64_t> Tag() {
    auto tag = Varint();
    if (tag && !ValidTag(*tag)) return Malformed("invalid field number " + std::to_string(*tag >> 3));
    return tag;
  }
  Result<std::string_view> Bytes() {
    auto n = Varint();
    if (!n) return std::move(n).error();
    if (*n > data_.size() - pos_) return Malformed("truncated length-delimited field");
    const std::string_view out = data_.substr(pos_, static_cast<std::size_t>(*n));
    pos_ += static_cast<std::size_t>(*n);
    return out;
  }
  // Skips a value of wire type `wire`.
  Result<void> Skip(int wire) {
    switch (wire) {
      case kVarint: {
        auto v = Varint();
        if (!v) return std::move(v).error();
        return Ok();
      }
      case kFixed64:
      case kFixed32: {
        auto v = Fixed(wire == kFixed64 ? 8 : 4);
        if (!v) return std::move(v).error();
        return Ok();
      }
      case kLen: {
        auto b = Bytes();
        if (!b) return std::move(b).error();
        return Ok();
      }
      default:
        return Malformed("wire type " + std::to_string(wire));
    }
  }
  Result<std::uint64_t> Fixed(std::size_t size) {
    if (size > data_.size() - pos_) return Malformed("truncated fixed-size field");
    std::uint64_t v = 0;
    std::memcpy(&v, data_.data() + pos_, size);  // little endian, as x86 and arm64
    pos_ += size;
    return v;
  }

 private:
  std::string_view data_;
  std::size_t pos_ = 0;
};

// The (number -> local field index) lookup of every message, built once.
struct Lookup {
  std::vector<std::vector<std::int16_t>> by_number;  // [message][number] -> index or -1
};
const Lookup& Numbers() {
  static const Lookup* lookup = [] {
    auto* l = new Lookup;
    l->by_number.resize(tbl::kMessageCount);
    for (std::size_t m = 0; m < tbl::kMessageCount; ++m) {
      const tbl::Message& msg = tbl::kMessages[m];
      std::uint32_t max = 0;
      for (std::size_t i = 0; i < msg.count; ++i) max = std::max(max, tbl::kFields[msg.first + i].number);
      auto& v = l->by_number[m];
      v.assign(max + 1, -1);
      for (std::size_t i = 0; i < msg.count; ++i) {
        v[tbl::kFields[msg.first + i].number] = static_cast<std::int16_t>(i);
      }
    }
    return l;
  }();
  return *lookup;
}

const tbl::TopKind* FindKind(std::string_view api_version, std::string_view kind) {
  const tbl::TopKind* begin = tbl::kKinds;
  const tbl::TopKind* end = tbl::kKinds + tbl::kKindCount;
  const auto* it = std::lower_bound(begin, end, std::pair(api_version, kind), [](const tbl::TopKind& k, const auto& key) {
    return std::pair(k.api_version, k.kind) < key;
  });
  if (it == end || it->api_version != api_version || it->kind != kind) return nullptr;
  return it;
}

// One field occurrence on the wire.
struct Span {
  std::uint16_t field;  // local index
  std::uint32_t seq;    // wire order, for a stable sort
  int wire;
  std::uint64_t value;  // varint / fixed value
  std::string_view bytes;
};

void AppendInt(std::int64_t v, std::string& out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// Go's encoding/json float64 form: shortest round trip, exponent form below 1e-6 and from 1e21.
Result<void> AppendDouble(double f, std::string& out) {
  if (!std::isfinite(f)) return Malformed("a double that is not finite");
  char buf[40];
  const double a = std::fabs(f);
  const bool exp = a != 0 && (a < 1e-6 || a >= 1e21);
  auto r = std::to_chars(buf, buf + sizeof buf, f, exp ? std::chars_format::scientific : std::chars_format::fixed);
  std::string s(buf, r.ptr);
  if (exp) {
    // "1e-07" -> "1e-7", as Go.
    const auto e = s.find('e');
    if (e != std::string::npos && e + 3 < s.size() + 1 && (s[e + 1] == '-' || s[e + 1] == '+') && s[e + 2] == '0' &&
        e + 3 < s.size()) {
      s.erase(e + 2, 1);
    }
  }
  out += s;
  return Ok();
}

// The field numbers (1 to this) of the small messages read whole by ReadSmall.
constexpr std::uint64_t SmallFieldCount(Special special) {
  switch (special) {
    case Special::kTime:
    case Special::kMicroTime:      // seconds, nanos
    case Special::kSchemaOrBool:   // allows, schema
    case Special::kSchemaOrArray:  // schema, JSONSchemas
    case Special::kSchemaOrStringArray:  // schema, property
      return 2;
    case Special::kIntOrString:  // type, intVal, strVal
      return 3;
    case Special::kQuantity:      // string
    case Special::kRawJson:       // raw
    case Special::kRawExtension:  // raw
    case Special::kStringArray:   // items
      return 1;
    case Special::kNone:
      return 0;
  }
  return 0;
}

class Transcoder {
 public:
  explicit Transcoder(UnknownFields unknown = UnknownFields::kRefuse) : drop_unknown_(unknown == UnknownFields::kDrop) {}

  // Appends the JSON members of message `m` (without braces) to `out`; `first` says whether a
  // member has been written in the enclosing object yet.
  Result<void> Members(std::uint16_t m, std::string_view data, std::string& out, bool& first, int depth) {
    if (depth > kMaxDepth) return Malformed("messages nested deeper than 100");
    const tbl::Message& msg = tbl::kMessages[m];
    const auto& numbers = Numbers().by_number[m];
    if (spans_.size() <= static_cast<std::size_t>(depth)) spans_.resize(static_cast<std::size_t>(depth) + 1);
    std::vector<Span>& spans = spans_[static_cast<std::size_t>(depth)];
    spans.clear();
    Reader r(data);
    std::uint32_t seq = 0;
    while (!r.Done()) {
      auto tag = r.Tag();
      if (!tag) return std::move(tag).error();
      const std::uint64_t num = *tag >> 3;
      const int wire = static_cast<int>(*tag & 7);
      if (num >= numbers.size() || numbers[num] < 0) {
        if (!drop_unknown_) {
          return Unknown("protobuf field " + std::to_string(num) + " of " + std::string(msg.name) + " is not known");
        }
        KUBE_RETURN_IF_ERROR(r.Skip(wire));
        continue;
      }
      Span s{static_cast<std::uint16_t>(numbers[num]), seq++, wire, 0, {}};
      switch (wire) {
        case kVarint: {
          auto v = r.Varint();
          if (!v) return std::move(v).error();
          s.value = *v;
          break;
        }
        case kFixed64:
        case kFixed32: {
          auto v = r.Fixed(wire == kFixed64 ? 8 : 4);
          if (!v) return std::move(v).error();
          s.value = *v;
          break;
        }
        case kLen: {
          auto b = r.Bytes();
          if (!b) return std::move(b).error();
          s.bytes = *b;
          break;
        }
        default:
          return Malformed("wire type " + std::to_string(wire) + " in " + std::string(msg.name));
      }
      spans.push_back(s);
    }
    // Go's order is the table's; the wire's is by number, which is mostly the same.
    if (!std::is_sorted(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.field < b.field; })) {
      std::stable_sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.field < b.field; });
    }
    // `spans` may be reallocated by nested calls at depth + 1 only, never at this depth.
    std::size_t at = 0;
    for (std::uint16_t i = 0; i < msg.count; ++i) {
      const std::size_t begin = at;
      while (at < spans.size() && spans[at].field == i) ++at;
      KUBE_RETURN_IF_ERROR(Member(tbl::kFields[msg.first + i], msg, spans_[static_cast<std::size_t>(depth)], begin, at,
                                  out, first, depth));
    }
    return Ok();
  }

  // Writes message `m` as a whole JSON value.
  Result<void> Value(std::uint16_t m, std::string_view data, std::string& out, int depth) {
    const Special special = tbl::kMessages[m].special;
    if (special != Special::kNone) return SpecialValue(m, special, data, /*present=*/true, out, depth);
    out.push_back('{');
    bool first = true;
    KUBE_RETURN_IF_ERROR(Members(m, data, out, first, depth));
    out.push_back('}');
    return Ok();
  }

  // A top-level object: `kind` and `apiVersion` first.
  Result<void> Object(std::uint16_t m, std::string_view api_version, std::string_view kind, std::string_view data,
                      std::string& out, int depth) {
    out.append("{\"kind\":");
    core::internal::AppendQuoted(kind, out);
    out.append(",\"apiVersion\":");
    core::internal::AppendQuoted(api_version, out);
    bool first = false;
    KUBE_RETURN_IF_ERROR(Members(m, data, out, first, depth));
    out.push_back('}');
    return Ok();
  }

 private:
  static void Key(const tbl::Field& f, std::string& out, bool& first) {
    if (!first) out.push_back(',');
    first = false;
    out.push_back('"');
    out.append(f.json);  // the table's keys need no escapes
    out.append("\":");
  }

  static Error WireMismatch(const tbl::Field& f, const tbl::Message& msg) {
    return Malformed("field " + std::string(f.json.empty() ? std::string_view("(inline)") : f.json) + " of " +
                     std::string(msg.name) + " has the wrong wire type");
  }

  Result<void> String(std::string_view s, std::string& out) {
    if (!ValidUtf8(s)) return Malformed("a string that is not valid UTF-8");
    core::internal::AppendQuoted(s, out);
    return Ok();
  }

  // The value of a scalar span, as JSON.
  Result<void> Scalar(const tbl::Field& f, const tbl::Message& msg, const Span& s, std::string& out) {
    switch (f.kind) {
      case Kind::kString:
        if (s.wire != kLen) return WireMismatch(f, msg);
        return String(s.bytes, out);
      case Kind::kBytes:
        if (s.wire != kLen) return WireMismatch(f, msg);
        out.push_back('"');
        out.append(Base64Encode(s.bytes));
        out.push_back('"');
        return Ok();
      case Kind::kInt32:
        if (s.wire != kVarint) return WireMismatch(f, msg);
        AppendInt(static_cast<std::int32_t>(static_cast<std::uint32_t>(s.value)), out);
        return Ok();
      case Kind::kInt64:
        if (s.wire != kVarint) return WireMismatch(f, msg);
        AppendInt(static_cast<std::int64_t>(s.value), out);
        return Ok();
      case Kind::kBool:
        if (s.wire != kVarint) return WireMismatch(f, msg);
        out.append(s.value != 0 ? "true" : "false");
        return Ok();
      case Kind::kDouble: {
        if (s.wire != kFixed64) return WireMismatch(f, msg);
        double d;
        std::memcpy(&d, &s.value, sizeof d);
        return AppendDouble(d, out);
      }
      default:
        return WireMismatch(f, msg);
    }
  }

  static bool IsZero(const tbl::Field& f, const Span& s) {
    switch (f.kind) {
      case Kind::kString:
      case Kind::kBytes:
        return s.bytes.empty();
      default:
        return s.value == 0;
    }
  }

  static void Zero(const tbl::Field& f, std::string& out) {
    switch (f.kind) {
      case Kind::kString: out.append("\"\""); break;
      case Kind::kBytes: out.append("null"); break;  // Go: a nil []byte
      case Kind::kBool: out.append("false"); break;
      default: out.push_back('0');
    }
  }

  // Expands packed repeated numbers into single spans.
  Result<void> Unpack(const tbl::Field& f, const tbl::Message& msg, const Span& s, std::vector<Span>& into) {
    Reader r(s.bytes);
    while (!r.Done()) {
      Span e{s.field, s.seq, f.kind == Kind::kDouble ? kFixed64 : kVarint, 0, {}};
      auto v = f.kind == Kind::kDouble ? r.Fixed(8) : r.Varint();
      if (!v) return std::move(v).error();
      e.value = *v;
      into.push_back(e);
    }
    (void)msg;
    return Ok();
  }

  static bool Numeric(Kind k) { return k == Kind::kInt32 || k == Kind::kInt64 || k == Kind::kBool || k == Kind::kDouble; }

  // One field of a message: spans[begin, end) are its occurrences.
  Result<void> Member(const tbl::Field& f, const tbl::Message& msg, std::vector<Span>& spans, std::size_t begin,
                      std::size_t end, std::string& out, bool& first, int depth) {
    const bool repeated = (f.flags & tbl::kRepeated) != 0;
    const bool pointer = (f.flags & tbl::kPointer) != 0;
    const bool required = (f.flags & tbl::kRequired) != 0;
    const bool present = begin != end;

    if ((f.flags & tbl::kInline) != 0) {
      if (f.kind != Kind::kMessage) return WireMismatch(f, msg);
      const std::string_view data = present ? spans[end - 1].bytes : std::string_view();
      if (present && spans[end - 1].wire != kLen) return WireMismatch(f, msg);
      return Members(f.message, data, out, first, depth + 1);
    }

    if (f.kind == Kind::kMapString || f.kind == Kind::kMapBytes || f.kind == Kind::kMapMessage) {
      if (!present) {
        if (required) {
          Key(f, out, first);
          out.append("null");
        }
        return Ok();
      }
      return Map(f, msg, spans, begin, end, out, first, depth);
    }

    if (repeated) {
      if (!present) {
        if (required) {
          Key(f, out, first);
          out.append("null");
        }
        return Ok();
      }
      Key(f, out, first);
      out.push_back('[');
      bool any = false;
      std::vector<Span> unpacked;
      for (std::size_t i = begin; i < end; ++i) {
        const Span s = spans[i];
        if (Numeric(f.kind) && s.wire == kLen) {
          unpacked.clear();
          KUBE_RETURN_IF_ERROR(Unpack(f, msg, s, unpacked));
          for (const Span& e : unpacked) {
            if (any) out.push_back(',');
            any = true;
            KUBE_RETURN_IF_ERROR(Scalar(f, msg, e, out));
          }
          continue;
        }
        if (any) out.push_back(',');
        any = true;
        if (f.kind == Kind::kMessage) {
          if (s.wire != kLen) return WireMismatch(f, msg);
          KUBE_RETURN_IF_ERROR(Value(f.message, s.bytes, out, depth + 1));
        } else {
          KUBE_RETURN_IF_ERROR(Scalar(f, msg, s, out));
        }
      }
      out.push_back(']');
      return Ok();
    }

    if (f.kind == Kind::kMessage) {
      const Special special = tbl::kMessages[f.message].special;
      if (!present) {
        if (pointer) return Ok();
        // A Go struct value is always encoded, even when the wire left it out.
        Key(f, out, first);
        if (special != Special::kNone) return SpecialValue(f.message, special, {}, /*present=*/false, out, depth + 1);
        return Value(f.message, {}, out, depth + 1);
      }
      const Span& s = spans[end - 1];
      if (s.wire != kLen) return WireMismatch(f, msg);
      Key(f, out, first);
      return Value(f.message, s.bytes, out, depth + 1);
    }

    // A scalar: the last occurrence wins, as protobuf reads it.
    if (!present) {
      if (pointer || !required) return Ok();
      Key(f, out, first);
      Zero(f, out);
      return Ok();
    }
    const Span& s = spans[end - 1];
    if (!pointer && !required && IsZero(f, s)) {
      // Still check the wire type: a malformed zero is malformed.
      std::string scratch;
      return Scalar(f, msg, s, scratch);
    }
    Key(f, out, first);
    return Scalar(f, msg, s, out);
  }

  // Reads the (key = 1, value = 2) fields of a map entry.
  struct Entry {
    std::string_view key;
    std::optional<Span> value;
    std::uint32_t seq = 0;
  };
  Result<Entry> ReadEntry(const tbl::Field& f, const tbl::Message& msg, std::string_view data) {
    Entry e;
    Reader r(data);
    while (!r.Done()) {
      auto tag = r.Tag();
      if (!tag) return std::move(tag).error();
      const std::uint64_t num = *tag >> 3;
      const int wire = static_cast<int>(*tag & 7);
      if (num == 1) {
        if (wire != kLen) return WireMismatch(f, msg);
        auto b = r.Bytes();
        if (!b) return std::move(b).error();
        e.key = *b;
      } else if (num == 2) {
        if (wire != kLen) return WireMismatch(f, msg);
        auto b = r.Bytes();
        if (!b) return std::move(b).error();
        e.value = Span{0, 0, kLen, 0, *b};
      } else if (drop_unknown_) {
        KUBE_RETURN_IF_ERROR(r.Skip(wire));
      } else {
        return Unknown("protobuf field " + std::to_string(num) + " of a map entry of " + std::string(msg.name) +
                       " is not known");
      }
    }
    return e;
  }

  Result<void> Map(const tbl::Field& f, const tbl::Message& msg, const std::vector<Span>& spans, std::size_t begin,
                   std::size_t end, std::string& out, bool& first, int depth) {
    std::vector<Entry> entries;
    entries.reserve(end - begin);
    for (std::size_t i = begin; i < end; ++i) {
      if (spans[i].wire != kLen) return WireMismatch(f, msg);
      auto e = ReadEntry(f, msg, spans[i].bytes);
      if (!e) return std::move(e).error();
      if (!ValidUtf8(e->key)) return Malformed("a map key of " + std::string(msg.name) + " is not valid UTF-8");
      e->seq = static_cast<std::uint32_t>(i);
      entries.push_back(*e);
    }
    // Go writes map keys sorted; a repeated key keeps its last value, as protobuf reads it.
    std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; });
    Key(f, out, first);
    out.push_back('{');
    bool any = false;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (i + 1 < entries.size() && entries[i + 1].key == entries[i].key) continue;
      const Entry& e = entries[i];
      if (any) out.push_back(',');
      any = true;
      core::internal::AppendQuoted(e.key, out);
      out.push_back(':');
      const std::string_view value = e.value ? e.value->bytes : std::string_view();
      switch (f.kind) {
        case Kind::kMapString:
          KUBE_RETURN_IF_ERROR(String(value, out));
          break;
        case Kind::kMapBytes:
          out.push_back('"');
          out.append(Base64Encode(value));
          out.push_back('"');
          break;
        default:
          KUBE_RETURN_IF_ERROR(Value(f.message, value, out, depth + 1));
      }
    }
    out.push_back('}');
    return Ok();
  }

  // Reads the fields of a small special message by number (1-3).
  struct Small {
    std::array<std::uint64_t, 4> ints{};
    std::array<std::string_view, 4> bytes{};
    std::array<bool, 4> has{};
    std::vector<std::string_view> repeated;  // the occurrences of field 2 (schema unions, string arrays: 1)
  };
  Result<Small> ReadSmall(std::uint16_t m, std::string_view data, std::uint64_t repeated_field) {
    Small s;
    Reader r(data);
    while (!r.Done()) {
      auto tag = r.Tag();
      if (!tag) return std::move(tag).error();
      const std::uint64_t num = *tag >> 3;
      const int wire = static_cast<int>(*tag & 7);
      if (num < 1 || num > SmallFieldCount(tbl::kMessages[m].special)) {
        if (!drop_unknown_) {
          return Unknown("protobuf field " + std::to_string(num) + " of " + std::string(tbl::kMessages[m].name) +
                         " is not known");
        }
        KUBE_RETURN_IF_ERROR(r.Skip(wire));
        continue;
      }
      s.has[num] = true;
      if (wire == kVarint) {
        auto v = r.Varint();
        if (!v) return std::move(v).error();
        s.ints[num] = *v;
      } else if (wire == kLen) {
        auto b = r.Bytes();
        if (!b) return std::move(b).error();
        s.bytes[num] = *b;
        if (num == repeated_field) s.repeated.push_back(*b);
      } else {
        return Malformed("wire type " + std::to_string(wire) + " in " + std::string(tbl::kMessages[m].name));
      }
    }
    return s;
  }

  std::uint16_t SchemaMessage() {
    if (schema_message_ == 0) {
      for (std::size_t i = 0; i < tbl::kMessageCount; ++i) {
        if (tbl::kMessages[i].name == "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps") {
          schema_message_ = static_cast<std::uint16_t>(i);
        }
      }
    }
    return schema_message_;
  }

  Result<void> SpecialValue(std::uint16_t m, Special special, std::string_view data, bool present, std::string& out,
                            int depth) {
    if (depth > kMaxDepth) return Malformed("messages nested deeper than 100");
    switch (special) {
      case Special::kTime:
      case Special::kMicroTime: {
        auto t = ReadSmall(m, data, 0);
        if (!t) return std::move(t).error();
        const auto seconds = static_cast<std::int64_t>(t->ints[1]);
        const auto nanos = static_cast<std::int32_t>(static_cast<std::uint32_t>(t->ints[2]));
        if (seconds == 0 && nanos == 0) {
          out.append("null");  // Go's zero Time
          return Ok();
        }
        // The range of Clock::WallTime, as ParseTime's for the JSON form.
        using WallDuration = Clock::WallTime::duration;
        constexpr auto kMin = std::chrono::duration_cast<std::chrono::seconds>(WallDuration::min()).count() + 1;
        constexpr auto kMax = std::chrono::duration_cast<std::chrono::seconds>(WallDuration::max()).count() - 1;
        if (seconds < kMin || seconds > kMax || nanos < 0 || nanos > 999999999) {
          return Malformed("a time out of range");
        }
        const Clock::WallTime when = Clock::WallTime(std::chrono::duration_cast<Clock::WallTime::duration>(
            std::chrono::seconds(seconds) + std::chrono::nanoseconds(nanos)));
        out.push_back('"');
        out.append(special == Special::kTime ? FormatTime(when) : FormatMicroTime(when));
        out.push_back('"');
        return Ok();
      }
      case Special::kQuantity: {
        auto q = ReadSmall(m, data, 0);
        if (!q) return std::move(q).error();
        if (q->bytes[1].empty()) {
          out.append("\"0\"");
          return Ok();
        }
        return String(q->bytes[1], out);
      }
      case Special::kIntOrString: {
        auto v = ReadSmall(m, data, 0);
        if (!v) return std::move(v).error();
        if (v->ints[1] == 1) return String(v->bytes[3], out);
        AppendInt(static_cast<std::int32_t>(static_cast<std::uint32_t>(v->ints[2])), out);
        return Ok();
      }
      case Special::kRawJson: {
        auto v = ReadSmall(m, data, 0);
        if (!v) return std::move(v).error();
        if (!v->has[1]) {
          out.append("null");
          return Ok();
        }
        return Raw(v->bytes[1], out);
      }
      case Special::kRawExtension: {
        auto v = ReadSmall(m, data, 0);
        if (!v) return std::move(v).error();
        if (!v->has[1]) {
          out.append("null");
          return Ok();
        }
        if (v->bytes[1].starts_with(kMagic)) return Envelope(v->bytes[1], out, depth + 1);
        return Raw(v->bytes[1], out);
      }
      case Special::kSchemaOrBool: {
        auto v = ReadSmall(m, data, 0);
        if (!v) return std::move(v).error();
        if (v->has[2]) return Value(SchemaMessage(), v->bytes[2], out, depth + 1);
        out.append(v->ints[1] != 0 ? "true" : "false");
        return Ok();
      }
      case Special::kSchemaOrArray: {
        auto v = ReadSmall(m, data, 2);
        if (!v) return std::move(v).error();
        if (!v->repeated.empty()) {
          out.push_back('[');
          for (std::size_t i = 0; i < v->repeated.size(); ++i) {
            if (i > 0) out.push_back(',');
            KUBE_RETURN_IF_ERROR(Value(SchemaMessage(), v->repeated[i], out, depth + 1));
          }
          out.push_back(']');
          return Ok();
        }
        if (v->has[1]) return Value(SchemaMessage(), v->bytes[1], out, depth + 1);
        out.append("null");
        return Ok();
      }
      case Special::kSchemaOrStringArray:
      case Special::kStringArray: {
        const bool strings_only = special == Special::kStringArray;
        auto v = ReadSmall(m, data, strings_only ? 1 : 2);
        if (!v) return std::move(v).error();
        if (!v->repeated.empty()) {
          out.push_back('[');
          for (std::size_t i = 0; i < v->repeated.size(); ++i) {
            if (i > 0) out.push_back(',');
            KUBE_RETURN_IF_ERROR(String(v->repeated[i], out));
          }
          out.push_back(']');
          return Ok();
        }
        if (!strings_only && v->has[1]) return Value(SchemaMessage(), v->bytes[1], out, depth + 1);
        out.append(strings_only && present ? "[]" : "null");
        return Ok();
      }
      case Special::kNone:
        break;
    }
    return Malformed("unexpected special message");
  }

  Result<void> Raw(std::string_view raw, std::string& out) {
    if (raw.empty()) {
      out.append("null");
      return Ok();
    }
    // The raw bytes are JSON as the server stored them: checked here, so that the caller's parser
    // never sees a value that could end the enclosing text early, and compacted, as Go writes a
    // json.RawMessage.
    core::internal::JsonCursor cur(raw);
    if (!cur.SkipValue() || !cur.ExpectEnd()) return Malformed("a raw field that is not one JSON value");
    if (cur.saw_whitespace()) {
      out.append(core::internal::CompactJson(raw));
    } else {
      out.append(raw);
    }
    return Ok();
  }

 public:
  struct EnvelopeParts {
    std::string_view api_version;
    std::string_view kind;
    std::string_view raw;
  };
  // The envelope's fields, its contentEncoding checked.
  static Result<EnvelopeParts> ReadEnvelope(std::string_view body) {
    if (!body.starts_with(kMagic)) return Malformed("missing the k8s protobuf envelope prefix");
    Reader r(body.substr(kMagic.size()));
    EnvelopeParts parts;
    bool has_raw = false;
    while (!r.Done()) {
      auto tag = r.Tag();
      if (!tag) return std::move(tag).error();
      if ((*tag & 7) != kLen) return Malformed("unexpected wire type in the envelope");
      auto bytes = r.Bytes();
      if (!bytes) return std::move(bytes).error();
      switch (*tag >> 3) {
        case 1: {
          // The encoder writes the type first; a reader that streams the object needs it first.
          if (has_raw) return Malformed("the envelope's type follows its object");
          auto tm = TypeMeta(*bytes);
          if (!tm) return std::move(tm).error();
          parts.api_version = tm->first;
          parts.kind = tm->second;
          break;
        }
        case 2:
          if (has_raw) return Malformed("two raw fields in the envelope");
          parts.raw = *bytes;
          has_raw = true;
          break;
        case 3:
          if (!bytes->empty()) return Unknown("protobuf contentEncoding " + std::string(*bytes) + " is not supported");
          break;
        case 4:
          break;
        default:
          return Malformed("unexpected field " + std::to_string(*tag >> 3) + " in the envelope");
      }
    }
    if (!has_raw) return Malformed("the envelope has no object");
    return parts;
  }

  // A nested or top-level envelope.
  Result<void> Envelope(std::string_view body, std::string& out, int depth) {
    if (depth > kMaxDepth) return Malformed("messages nested deeper than 100");
    auto parts = ReadEnvelope(body);
    if (!parts) return std::move(parts).error();
    const auto [api_version, kind, raw] = *parts;
    const tbl::TopKind* k = FindKind(api_version, kind);
    if (k == nullptr) {
      return Unknown("protobuf is not known for " + std::string(api_version) + ", Kind=" + std::string(kind));
    }
    // A nested object (in a RawExtension) keeps its type too, as its JSON would.
    return Object(k->message, api_version, kind, raw, out, depth);
  }

  static Result<std::pair<std::string_view, std::string_view>> TypeMeta(std::string_view data) {
    Reader r(data);
    std::pair<std::string_view, std::string_view> out;
    while (!r.Done()) {
      auto tag = r.Tag();
      if (!tag) return std::move(tag).error();
      if ((*tag & 7) != kLen) return Malformed("unexpected wire type in the envelope's typeMeta");
      auto b = r.Bytes();
      if (!b) return std::move(b).error();
      if ((*tag >> 3) == 1) out.first = *b;
      if ((*tag >> 3) == 2) out.second = *b;
    }
    if (!ValidUtf8(out.first) || !ValidUtf8(out.second)) return Malformed("the envelope's type is not valid UTF-8");
    return out;
  }

 private:
  std::deque<std::vector<Span>> spans_;  // per depth; a deque keeps references stable
  std::uint16_t schema_message_ = 0;
  bool drop_unknown_;
};

}  // namespace

bool KnowsGroupVersion(std::string_view api_version) {
  const tbl::TopKind* begin = tbl::kKinds;
  const tbl::TopKind* end = tbl::kKinds + tbl::kKindCount;
  const auto* it = std::lower_bound(begin, end, api_version,
                                    [](const tbl::TopKind& k, std::string_view v) { return k.api_version < v; });
  return it != end && it->api_version == api_version;
}

bool KnowsKind(std::string_view api_version, std::string_view kind) { return FindKind(api_version, kind) != nullptr; }

Result<std::string> WatchEventToJson(std::string_view frame, UnknownFields unknown) {
  static const std::uint16_t kWatchEvent = [] {
    for (std::size_t i = 0; i < tbl::kMessageCount; ++i) {
      if (tbl::kMessages[i].name == "k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent") return static_cast<std::uint16_t>(i);
    }
    std::abort();  // the table is generated with meta/v1; a table without it is a build error
  }();
  Transcoder t(unknown);
  std::string out;
  out.reserve(frame.size() + frame.size() / 2);
  KUBE_RETURN_IF_ERROR(t.Value(kWatchEvent, frame, out, 0));
  return out;
}

Result<EnvelopeType> PeekType(std::string_view body) {
  auto parts = Transcoder::ReadEnvelope(body);
  if (!parts) return std::move(parts).error();
  return EnvelopeType{parts->api_version, parts->kind};
}

Result<std::string> ToJson(std::string_view body, UnknownFields unknown) {
  Transcoder t(unknown);
  std::string out;
  out.reserve(body.size() + body.size() / 2);
  KUBE_RETURN_IF_ERROR(t.Envelope(body, out, 0));
  return out;
}

// ---------------------------------------------------------------------------------------------
// StreamTranscoder: a state machine over the envelope and, inside `raw`, the list message.

struct StreamTranscoder::Impl {
  explicit Impl(std::function<Result<void>(std::string_view)> s) : sink(std::move(s)) {}

  std::function<Result<void>(std::string_view)> sink;
  Transcoder transcoder;
  std::string pending;  // bytes not consumed yet
  std::string json;     // JSON not passed on yet
  bool magic_done = false;
  bool failed = false;
  // Envelope fields.
  std::string api_version;
  std::string kind;
  bool have_type = false;
  // Inside raw: the bytes of raw still to come, and the list's state.
  bool in_raw = false;
  bool raw_done = false;
  std::uint64_t raw_left = 0;
  bool whole = false;  // not a list: raw is gathered and transcoded at the end
  std::string raw_whole;
  const tbl::Field* items = nullptr;     // the list's items field
  const tbl::Field* metadata = nullptr;  // the list's metadata field
  std::uint16_t message = 0;
  bool opened = false;
  bool items_open = false;
  bool items_closed = false;
  bool any_item = false;
  bool wrote_metadata = false;

  static constexpr std::size_t kFlushBytes = 256 * 1024;

  Result<void> Flush(bool force) {
    if (json.empty() || (!force && json.size() < kFlushBytes)) return Ok();
    auto r = sink(json);
    json.clear();
    return r;
  }

  // Parses a varint at the front of `s`; nullopt if `s` is too short yet.
  static std::optional<std::pair<std::uint64_t, std::size_t>> PeekVarint(std::string_view s) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < s.size() && i < 10; ++i) {
      const auto b = static_cast<std::uint8_t>(s[i]);
      v |= static_cast<std::uint64_t>(b & 0x7f) << (7 * i);
      if (b < 0x80) return std::pair(v, i + 1);
    }
    return std::nullopt;
  }

  Result<void> Open() {
    const tbl::TopKind* k = FindKind(api_version, kind);
    if (k == nullptr) return Unknown("protobuf is not known for " + api_version + ", Kind=" + kind);
    message = k->message;
    const tbl::Message& msg = tbl::kMessages[message];
    // A list: metadata (ListMeta) and repeated items, nothing else.
    if (msg.count == 2 && msg.special == Special::kNone) {
      const tbl::Field& a = tbl::kFields[msg.first];
      const tbl::Field& b = tbl::kFields[msg.first + 1];
      if (a.json == "metadata" && a.kind == Kind::kMessage && b.json == "items" && b.kind == Kind::kMessage &&
          (b.flags & tbl::kRepeated) != 0) {
        metadata = &a;
        items = &b;
      }
    }
    whole = items == nullptr;
    if (!whole) {
      json.append("{\"kind\":");
      core::internal::AppendQuoted(kind, json);
      json.append(",\"apiVersion\":");
      core::internal::AppendQuoted(api_version, json);
      opened = true;
    }
    return Ok();
  }

  // Consumes what it can of `pending`.
  Result<void> Step() {
    std::size_t pos = 0;
    auto rest = [&] { return std::string_view(pending).substr(pos); };
    if (!magic_done) {
      if (pending.size() < kMagic.size()) return Ok();
      if (std::string_view(pending).substr(0, kMagic.size()) != kMagic) {
        return Malformed("missing the k8s protobuf envelope prefix");
      }
      pos = kMagic.size();
      magic_done = true;
    }
    while (pos < pending.size()) {
      if (in_raw) {
        if (raw_left == 0) {
          in_raw = false;
          raw_done = true;
          continue;
        }
        if (whole) {
          const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(raw_left, pending.size() - pos));
          raw_whole.append(pending, pos, n);
          pos += n;
          raw_left -= n;
          continue;
        }
        // One field of the list message: it must be whole before it is transcoded.
        auto tag = PeekVarint(rest());
        if (!tag) break;
        const auto len = PeekVarint(rest().substr(tag->second));
        if (!len) break;
        if (!ValidTag(tag->first)) return Malformed("invalid field number " + std::to_string(tag->first >> 3));
        if ((tag->first & 7) != kLen) return Malformed("unexpected wire type in " + kind);
        const std::size_t head = tag->second + len->second;
        if (head > raw_left || len->first > raw_left - head) {
          return Malformed("truncated length-delimited field in " + kind);
        }
        if (rest().size() < head + len->first) break;
        const std::string_view value = rest().substr(head, static_cast<std::size_t>(len->first));
        KUBE_RETURN_IF_ERROR(ListField(tag->first >> 3, value));
        pos += head + static_cast<std::size_t>(len->first);
        raw_left -= head + len->first;
        continue;
      }
      // An envelope field.
      auto tag = PeekVarint(rest());
      if (!tag) break;
      if (!ValidTag(tag->first)) return Malformed("invalid field number " + std::to_string(tag->first >> 3));
      if ((tag->first & 7) != kLen) return Malformed("unexpected wire type in the envelope");
      const auto len = PeekVarint(rest().substr(tag->second));
      if (!len) break;
      const std::uint64_t num = tag->first >> 3;
      const std::size_t head = tag->second + len->second;
      if (num == 2) {
        if (raw_done || in_raw) return Malformed("two raw fields in the envelope");
        if (!have_type) return Unknown("protobuf envelope without a type before its object");
        KUBE_RETURN_IF_ERROR(Open());
        pos += head;
        in_raw = true;
        raw_left = len->first;
        continue;
      }
      if (rest().size() < head + len->first) break;
      const std::string_view value = rest().substr(head, static_cast<std::size_t>(len->first));
      if (num == 1) {
        if (raw_done || in_raw) return Malformed("the envelope's type follows its object");
        auto tm = Transcoder::TypeMeta(value);
        if (!tm) return std::move(tm).error();
        api_version = std::string(tm->first);
        kind = std::string(tm->second);
        have_type = true;
      } else if (num == 3) {
        if (!value.empty()) return Unknown("protobuf contentEncoding " + std::string(value) + " is not supported");
      } else if (num != 4) {
        return Malformed("unexpected field " + std::to_string(num) + " in the envelope");
      }
      pos += head + static_cast<std::size_t>(len->first);
    }
    pending.erase(0, pos);
    return Flush(false);
  }

  Result<void> ListField(std::uint64_t num, std::string_view value) {
    if (num == metadata->number) {
      CloseItems();
      json.append(",\"metadata\":");
      wrote_metadata = true;
      return transcoder.Value(metadata->message, value, json, 1);
    }
    if (num == items->number) {
      if (items_closed) return Malformed("the items of " + kind + " are not contiguous");
      if (!items_open) {
        json.append(",\"items\":[");
        items_open = true;
      } else {
        json.push_back(',');
      }
      any_item = true;
      return transcoder.Value(items->message, value, json, 1);
    }
    return Unknown("protobuf field " + std::to_string(num) + " of " + std::string(tbl::kMessages[message].name) +
                   " is not known");
  }

  void CloseItems() {
    if (items_open && !items_closed) {
      json.push_back(']');
      items_closed = true;
    }
  }

  Result<void> Finish() {
    if (!magic_done) return Malformed("missing the k8s protobuf envelope prefix");
    if (!pending.empty() || in_raw) return Malformed("the body ended early");
    if (!raw_done) return Malformed("the envelope has no object");
    if (whole) {
      std::string out;
      KUBE_RETURN_IF_ERROR(transcoder.Object(message, api_version, kind, raw_whole, out, 0));
      json += out;
    } else {
      CloseItems();
      if (!wrote_metadata) json.append(",\"metadata\":{}");
      if (!items_open) json.append(",\"items\":null");
      json.push_back('}');
    }
    return Flush(true);
  }
};

StreamTranscoder::StreamTranscoder(std::function<Result<void>(std::string_view)> sink)
    : impl_(std::make_unique<Impl>(std::move(sink))) {}
StreamTranscoder::~StreamTranscoder() = default;

Result<void> StreamTranscoder::Feed(std::string_view bytes) {
  if (impl_->failed) return Malformed("the transcoder already failed");
  impl_->pending.append(bytes);
  auto r = impl_->Step();
  if (!r) impl_->failed = true;
  return r;
}

Result<void> StreamTranscoder::Finish() {
  if (impl_->failed) return Malformed("the transcoder already failed");
  auto r = impl_->Finish();
  if (!r) impl_->failed = true;
  return r;
}

}  // namespace kube::protobuf
