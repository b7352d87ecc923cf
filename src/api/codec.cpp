#include <kube/api/codec.hpp>

#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include <kube/base/base64.hpp>
#include <kube/core/time.hpp>

#include "core/internal/json_scanner.hpp"

namespace kube::api {

using core::internal::JsonCursor;
using core::internal::JsonKind;

// The decoder keeps its own position and runs a JsonCursor over the same text for each token:
// one grammar for every JSON entry point of the project, at the cost of a copy of three words.
struct DecoderAccess {
  static JsonCursor Cursor(const Decoder& d) {
    JsonCursor c(d.text_);
    c.set_pos(d.pos_);
    return c;
  }
  // Records a cursor failure (a syntax error: its message names the position already).
  static bool Syntax(Decoder& d, const Error& e) {
    if (d.failed_) return false;
    d.failed_ = true;
    d.error_offset_ = std::numeric_limits<std::size_t>::max();
    d.message_ = e.message;
    return false;
  }
};

namespace {

std::string_view KindName(JsonCursor& c) {
  auto kind = c.PeekKind();
  if (!kind.ok()) return "invalid JSON";
  return core::internal::JsonKindName(*kind);
}

}  // namespace

bool Decoder::Fail(std::string_view message) {
  JsonCursor c = DecoderAccess::Cursor(*this);
  c.Peek();
  return FailAt(c.pos(), message);
}

bool Decoder::FailAt(std::size_t offset, std::string_view message) {
  if (failed_) return false;
  failed_ = true;
  error_offset_ = offset;
  message_ = std::string(message);
  return false;
}

std::size_t Decoder::ValueStart() const {
  JsonCursor c = DecoderAccess::Cursor(*this);
  c.Peek();
  return c.pos();
}

bool Decoder::Expected(std::string_view what) {
  if (failed_) return false;
  JsonCursor c = DecoderAccess::Cursor(*this);
  return Fail(fmt::format("expected {}, found {}", what, KindName(c)));
}

namespace {

// Prefixes `path` with `segment` ("spec" or "[3]"), with a dot before a member name.
void Prepend(std::string& path, std::string_view segment) {
  if (!path.empty() && path.front() != '[') path.insert(0, 1, '.');
  path.insert(0, segment);
}

}  // namespace

bool Decoder::InField(std::string_view name) {
  Prepend(path_, name);
  return false;
}

bool Decoder::AtIndex(std::size_t index) {
  Prepend(path_, fmt::format("[{}]", index));
  return false;
}

bool Decoder::AtKey(std::string_view key) {
  Prepend(path_, fmt::format("[{}]", key));
  return false;
}

Error Decoder::error() const {
  std::string text = message_;
  if (error_offset_ != std::numeric_limits<std::size_t>::max()) {
    JsonCursor c(text_);
    text = c.FieldErrorAt(error_offset_, message_).message;
  }
  if (!path_.empty()) text = path_ + ": " + text;
  return BadRequest(std::move(text));
}

bool Decoder::BeginObject() {
  if (failed_) return false;
  JsonCursor c = DecoderAccess::Cursor(*this);
  if (c.Peek() != '{') return Expected("object");
  if (depth_ >= core::internal::kMaxJsonDepth) return Fail("nesting too deep");
  ++depth_;
  pos_ = c.pos() + 1;
  return true;
}

bool Decoder::NextKey(std::string_view& key) {
  if (failed_) return false;
  JsonCursor c = DecoderAccess::Cursor(*this);
  // pos_ is just past the token before: '{' for the first member, the previous value otherwise.
  const bool first = text_[pos_ - 1] == '{';
  if (c.Consume('}')) {
    pos_ = c.pos();
    --depth_;
    return false;
  }
  if (!first) {
    if (auto r = c.Expect(',', "or '}' in object"); !r.ok()) return DecoderAccess::Syntax(*this, r.error());
  }
  c.Peek();
  const std::size_t key_start = c.pos();
  auto s = c.String();
  if (!s.ok()) {
    if (key_start >= text_.size()) {
      return DecoderAccess::Syntax(*this, c.ErrorHere("unexpected end of input, expected a string key in object"));
    }
    return DecoderAccess::Syntax(*this, s.error());
  }
  raw_key_ = text_.substr(key_start, c.pos() - key_start);
  if (auto r = c.Expect(':', "after object key"); !r.ok()) return DecoderAccess::Syntax(*this, r.error());
  pos_ = c.pos();
  key = core::internal::KeyText(*s, key_);
  return true;
}

bool Decoder::BeginArray() {
  if (failed_) return false;
  JsonCursor c = DecoderAccess::Cursor(*this);
  if (c.Peek() != '[') return Expected("array");
  if (depth_ >= core::internal::kMaxJsonDepth) return Fail("nesting too deep");
  ++depth_;
  pos_ = c.pos() + 1;
  return true;
}

bool Decoder::NextElement() {
  if (failed_) return false;
  JsonCursor c = DecoderAccess::Cursor(*this);
  const bool first = text_[pos_ - 1] == '[';  // as in NextKey
  if (c.Consume(']')) {
    pos_ = c.pos();
    --depth_;
    return false;
  }
  if (!first) {
    if (auto r = c.Expect(',', "or ']' in array"); !r.ok()) return DecoderAccess::Syntax(*this, r.error());
  }
  pos_ = c.pos();
  return true;
}

bool Decoder::ConsumeNull() {
  if (failed_) return false;
  JsonCursor c = DecoderAccess::Cursor(*this);
  if (c.Peek() != 'n') return false;
  if (text_.substr(c.pos(), 4) != "null") return false;  // the value's own decode reports it
  pos_ = c.pos() + 4;
  return true;
}

bool Decoder::Read(std::string& out) {
  if (failed_) return false;
  JsonCursor c = DecoderAccess::Cursor(*this);
  if (c.Peek() != '"') return Expected("string");
  auto s = c.String();
  if (!s.ok()) return DecoderAccess::Syntax(*this, s.error());
  out.clear();
  core::internal::AppendUnescaped(*s, out);
  pos_ = c.pos();
  return true;
}

bool Decoder::Read(bool& out) {
  if (failed_) return false;
  JsonCursor c = DecoderAccess::Cursor(*this);
  const char first = c.Peek();
  const std::size_t at = c.pos();
  if (first == 't' && text_.substr(at, 4) == "true") {
    out = true;
    pos_ = at + 4;
    return true;
  }
  if (first == 'f' && text_.substr(at, 5) == "false") {
    out = false;
    pos_ = at + 5;
    return true;
  }
  return Expected("boolean");
}

namespace {

// The integer in `text` (a JSON number), or a description of why it is not one.
template <class Int>
bool ParseInteger(std::string_view text, Int& out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

}  // namespace

bool Decoder::Read(int32_t& out) {
  int64_t v = 0;
  const std::size_t at = ValueStart();
  if (!Read(v)) return false;
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    return FailAt(at, fmt::format("value {} out of range for int32", v));
  }
  out = static_cast<int32_t>(v);
  return true;
}

bool Decoder::Read(int64_t& out) {
  if (failed_) return false;
  JsonCursor c = DecoderAccess::Cursor(*this);
  const char first = c.Peek();
  if (first != '-' && (first < '0' || first > '9')) return Expected("integer");
  auto num = c.Number();
  if (!num.ok()) return DecoderAccess::Syntax(*this, num.error());
  if (!ParseInteger(*num, out)) {
    const bool integral = num->find_first_of(".eE") == std::string_view::npos;
    return FailAt(c.pos() - num->size(), integral ? fmt::format("value {} out of range for int64", *num)
                         : fmt::format("expected integer, found number {}", *num));
  }
  pos_ = c.pos();
  return true;
}

bool Decoder::Read(double& out) {
  if (failed_) return false;
  JsonCursor c = DecoderAccess::Cursor(*this);
  const char first = c.Peek();
  if (first != '-' && (first < '0' || first > '9')) return Expected("number");
  auto num = c.Number();
  if (!num.ok()) return DecoderAccess::Syntax(*this, num.error());
  auto [ptr, ec] = std::from_chars(num->data(), num->data() + num->size(), out);
  if (ec != std::errc() || ptr != num->data() + num->size() || !std::isfinite(out)) {
    return FailAt(c.pos() - num->size(), fmt::format("value {} out of range for float64", *num));
  }
  pos_ = c.pos();
  return true;
}

bool Decoder::ReadBytes(std::string& out) {
  const std::size_t at = ValueStart();
  std::string text;
  if (!Read(text)) return false;
  auto decoded = Base64Decode(text);
  if (!decoded.ok()) return FailAt(at, decoded.error().message);
  out = std::move(*decoded);
  return true;
}

bool Decoder::ReadRaw(std::string& out) {
  if (failed_) return false;
  JsonCursor c = DecoderAccess::Cursor(*this);
  c.Peek();
  if (depth_ >= core::internal::kMaxJsonDepth && (c.Peek() == '{' || c.Peek() == '[')) {
    return Fail("nesting too deep");
  }
  auto raw = c.SkipValue();
  if (!raw.ok()) return DecoderAccess::Syntax(*this, raw.error());
  out = c.saw_whitespace() ? core::internal::CompactJson(*raw) : std::string(*raw);
  pos_ = c.pos();
  return true;
}

bool Decoder::KeepUnknown(UnknownFields& unknown) {
  if (failed_) return false;
  JsonCursor c = DecoderAccess::Cursor(*this);
  c.Peek();
  auto raw = c.SkipValue();
  if (!raw.ok()) return DecoderAccess::Syntax(*this, raw.error());
  if (raw->find_first_of(" \t\r\n") != std::string_view::npos) {
    unknown.Append(raw_key_, core::internal::CompactJson(*raw));
  } else {
    unknown.Append(raw_key_, *raw);
  }
  pos_ = c.pos();
  return true;
}

bool Decoder::End() {
  if (failed_) return false;
  JsonCursor c = DecoderAccess::Cursor(*this);
  if (auto r = c.ExpectEnd(); !r.ok()) return DecoderAccess::Syntax(*this, r.error());
  return true;
}

void UnknownFields::Append(std::string_view quoted_key, std::string_view value) {
  if (!raw_) raw_ = std::make_unique<std::string>();
  if (!raw_->empty()) raw_->push_back(',');
  raw_->append(quoted_key);
  raw_->push_back(':');
  raw_->append(value);
}

// ---- Encoder ----

void Encoder::DynamicKey(std::string_view key) {
  Separate();
  core::internal::AppendQuoted(key, out_);
  out_.push_back(':');
}

void Encoder::Write(std::string_view s) { core::internal::AppendQuoted(s, out_); }

void Encoder::Write(int64_t v) {
  char buf[24];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, ptr);
}

void Encoder::Write(double v) {
  // Go writes integral values without a fraction and uses an exponent only for very large or
  // small magnitudes; std::to_chars' shortest round-trip form is parsed back to the same value.
  char buf[32];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, ptr);
}

void Encoder::WriteBytes(std::string_view bytes) {
  out_.push_back('"');
  out_.append(Base64Encode(bytes));
  out_.push_back('"');
}

// ---- Value types ----

bool Decode(Decoder& d, Quantity& v) {
  // Go's Quantity.UnmarshalJSON: a string, or the bare text of a number.
  std::string text;
  const std::size_t at = d.ValueStart();
  JsonCursor c = DecoderAccess::Cursor(d);
  const char first = c.Peek();
  if (first == '"') {
    if (!d.Read(text)) return false;
  } else if (first == '-' || (first >= '0' && first <= '9')) {
    if (!d.ReadRaw(text)) return false;
  } else {
    return d.Expected("quantity (string or number)");
  }
  auto q = Quantity::Parse(text);
  if (!q.ok()) return d.FailAt(at, q.error().message);
  v = std::move(*q);
  return true;
}

void Encode(Encoder& e, const Quantity& v) { e.Write(std::string_view(v.String())); }

bool Decode(Decoder& d, IntOrString& v) {
  JsonCursor c = DecoderAccess::Cursor(d);
  const char first = c.Peek();
  if (first == '"') {
    std::string s;
    if (!d.Read(s)) return false;
    v = IntOrString(std::move(s));
    return true;
  }
  if (first == '-' || (first >= '0' && first <= '9')) {
    int32_t i = 0;
    if (!d.Read(i)) return false;
    v = IntOrString(i);
    return true;
  }
  return d.Expected("integer or string");
}

void Encode(Encoder& e, const IntOrString& v) {
  if (v.is_string()) {
    e.Write(std::string_view(v.string_value()));
  } else {
    e.Write(v.int_value());
  }
}

namespace {

bool DecodeTimeText(Decoder& d, Clock::WallTime& out) {
  const std::size_t at = d.ValueStart();
  std::string text;
  if (!d.Read(text)) return false;
  auto t = ParseTime(text);
  if (!t.ok()) return d.FailAt(at, t.error().message);
  out = *t;
  return true;
}

}  // namespace

bool Decode(Decoder& d, Time& v) { return DecodeTimeText(d, v.time); }
bool Decode(Decoder& d, MicroTime& v) { return DecodeTimeText(d, v.time); }
void Encode(Encoder& e, const Time& v) { e.Write(std::string_view(FormatTime(v.time))); }
void Encode(Encoder& e, const MicroTime& v) { e.Write(std::string_view(FormatMicroTime(v.time))); }

bool Decode(Decoder& d, Duration& v) {
  const std::size_t at = d.ValueStart();
  std::string text;
  if (!d.Read(text)) return false;
  auto parsed = Duration::Parse(text);
  if (!parsed.ok()) return d.FailAt(at, parsed.error().message);
  v = *parsed;
  return true;
}

void Encode(Encoder& e, const Duration& v) { e.Write(std::string_view(v.String())); }

bool Decode(Decoder& d, RawJson& v) {
  if (!d.ReadRaw(v.raw)) return false;
  if (v.raw == "null") v.raw.clear();
  return true;
}

void Encode(Encoder& e, const RawJson& v) { e.WriteRaw(v.raw); }

bool DecodeBytes(Decoder& d, std::map<std::string, std::string>& v) {
  v.clear();
  if (d.ConsumeNull()) return true;
  if (!d.BeginObject()) return false;
  std::string_view key;
  while (d.NextKey(key)) {
    auto it = v.try_emplace(std::string(key)).first;
    if (!d.ReadBytes(it->second)) return d.AtKey(it->first);
  }
  return !d.failed();
}

void EncodeBytes(Encoder& e, const std::map<std::string, std::string>& v) {
  e.BeginObject();
  for (const auto& [key, value] : v) {
    e.DynamicKey(key);
    e.WriteBytes(value);
  }
  e.EndObject();
}

bool DecodeBytes(Decoder& d, std::optional<std::string>& v) {
  if (d.ConsumeNull()) {
    v.reset();
    return true;
  }
  return d.ReadBytes(v.emplace());
}

void EncodeBytes(Encoder& e, const std::optional<std::string>& v) {
  if (v) {
    e.WriteBytes(*v);
  } else {
    e.WriteNull();
  }
}

}  // namespace kube::api
