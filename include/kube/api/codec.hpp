#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <kube/api/box.hpp>
#include <kube/api/duration.hpp>
#include <kube/api/int_or_string.hpp>
#include <kube/api/quantity.hpp>
#include <kube/api/raw_json.hpp>
#include <kube/api/time.hpp>
#include <kube/api/unknown_fields.hpp>
#include <kube/base/result.hpp>

/// The JSON codec of the typed API: a pull decoder and an appending encoder that the generated
/// `Decode`/`Encode` functions of every API type are written against, the overloads for the
/// value types and containers, and the entry points `FromJson`, `ToJson`.
///
/// Include this header where you encode or decode; the headers of the API types only declare
/// their codec functions, so including them stays cheap.
namespace kube::api {

/// Reads one JSON text into typed values. Validates as it goes with kubecpp's JSON grammar
/// (RFC 8259, strict UTF-8, depth 1000). The first failure is recorded with the byte offset and,
/// as the generated decoders unwind, the path of the field (`spec.containers[1].ports[0].containerPort`).
/// Every method that returns `bool` returns false once a failure is recorded; the caller
/// returns false at once.
/// **Thread-safety:** none; a decoder is a short-lived local. **Lifetime:** `json` must outlive it.
class Decoder final {
 public:
  explicit Decoder(std::string_view json) : text_(json) {}

  /// Consumes `{`. Fails with "expected object, found <kind>".
  bool BeginObject();
  /// Moves to the next member of the current object: true with `key` set (escapes resolved;
  /// valid until the next call) and the decoder at the member's value; false at the closing `}`
  /// (consumed) or on a failure (`failed()`).
  bool NextKey(std::string_view& key);
  /// Consumes `[`. Fails with "expected array, found <kind>".
  bool BeginArray();
  /// True when another element follows (the decoder is at it); false at the closing `]`
  /// (consumed) or on a failure.
  bool NextElement();
  /// Consumes a `null` if one is next and returns true; otherwise consumes nothing.
  bool ConsumeNull();

  bool Read(std::string& out);
  bool Read(bool& out);
  bool Read(int32_t& out);
  bool Read(int64_t& out);
  bool Read(double& out);
  /// A base64 string (Go's `[]byte`) into its decoded bytes.
  bool ReadBytes(std::string& out);
  /// Any value, kept as compact text.
  bool ReadRaw(std::string& out);
  /// Skips the current member's value, keeping it and its key in `unknown`.
  bool KeepUnknown(UnknownFields& unknown);
  /// Checks that only whitespace remains.
  bool End();

  /// Records a failure "<message>" at the current position (the first failure wins).
  bool Fail(std::string_view message);
  /// Records a failure at byte `offset` (from ValueStart()).
  bool FailAt(std::size_t offset, std::string_view message);
  /// The byte offset where the next value starts (whitespace skipped).
  std::size_t ValueStart() const;
  /// Records "expected <what>, found <kind of the next value>".
  bool Expected(std::string_view what);
  /// While unwinding from a failure: prefixes the path with the member `name`. Returns false.
  bool InField(std::string_view name);
  /// While unwinding: prefixes the path with `[index]`. Returns false.
  bool AtIndex(std::size_t index);
  /// While unwinding: prefixes the path with `[key]` (a map entry). Returns false.
  bool AtKey(std::string_view key);

  bool failed() const { return failed_; }
  /// The failure as 400 BadRequest: `<path>: <message> at line L, column C (offset N)`; or the
  /// syntax error text for malformed JSON, with the path where it was met.
  Error error() const;

 private:
  friend struct DecoderAccess;
  std::string_view text_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  bool failed_ = false;
  std::size_t error_offset_ = 0;
  std::string message_;
  std::string path_;       // built while unwinding, outermost segment first
  std::string key_;        // decoded key storage when the key has escapes
  std::string_view raw_key_;  // the current key's literal, quotes included
};

/// Builds compact JSON text. Members and elements are separated automatically: `Key` and
/// `Element` write a comma unless they follow an opening bracket.
/// **Thread-safety:** none.
class Encoder final {
 public:
  Encoder() = default;
  explicit Encoder(std::string out) : out_(std::move(out)) {}

  void BeginObject() { out_.push_back('{'); }
  void EndObject() { out_.push_back('}'); }
  void BeginArray() { out_.push_back('['); }
  void EndArray() { out_.push_back(']'); }
  /// Writes a separator if needed, then `quoted_key_colon` verbatim (for example `"spec":`).
  void Key(std::string_view quoted_key_colon) {
    Separate();
    out_.append(quoted_key_colon);
  }
  /// Writes a separator if needed, then the key `key` quoted and escaped, and a colon.
  void DynamicKey(std::string_view key);
  /// Writes a separator before an array element if needed.
  void Element() { Separate(); }

  void Write(std::string_view s);
  void Write(bool b) { out_.append(b ? "true" : "false"); }
  void Write(int32_t v) { Write(static_cast<int64_t>(v)); }
  void Write(int64_t v);
  void Write(double v);
  void WriteNull() { out_.append("null"); }
  /// Writes `bytes` base64-encoded as a string (Go's `[]byte`).
  void WriteBytes(std::string_view bytes);
  /// Writes compact JSON text verbatim (`null` when empty).
  void WriteRaw(std::string_view json) { out_.append(json.empty() ? std::string_view("null") : json); }
  /// Writes the kept unknown members of an object.
  void Unknown(const UnknownFields& unknown) {
    if (unknown.empty()) return;
    Separate();
    out_.append(unknown.raw());
  }

  std::string& out() { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  void Separate() {
    const char last = out_.empty() ? '[' : out_.back();
    if (last != '{' && last != '[' && last != ':') out_.push_back(',');
  }
  std::string out_;
};

// ---- Overloads for scalars and value types (the generated code adds one per API type). ----

// A `null` leaves a plain member as it is, as Go's encoding/json does.
inline bool Decode(Decoder& d, std::string& v) { return d.ConsumeNull() || d.Read(v); }
inline bool Decode(Decoder& d, bool& v) { return d.ConsumeNull() || d.Read(v); }
inline bool Decode(Decoder& d, int32_t& v) { return d.ConsumeNull() || d.Read(v); }
inline bool Decode(Decoder& d, int64_t& v) { return d.ConsumeNull() || d.Read(v); }
inline bool Decode(Decoder& d, double& v) { return d.ConsumeNull() || d.Read(v); }
bool Decode(Decoder& d, Quantity& v);
bool Decode(Decoder& d, IntOrString& v);
bool Decode(Decoder& d, Time& v);
bool Decode(Decoder& d, MicroTime& v);
bool Decode(Decoder& d, Duration& v);
bool Decode(Decoder& d, RawJson& v);

inline void Encode(Encoder& e, const std::string& v) { e.Write(std::string_view(v)); }
inline void Encode(Encoder& e, bool v) { e.Write(v); }
inline void Encode(Encoder& e, int32_t v) { e.Write(v); }
inline void Encode(Encoder& e, int64_t v) { e.Write(v); }
inline void Encode(Encoder& e, double v) { e.Write(v); }
void Encode(Encoder& e, const Quantity& v);
void Encode(Encoder& e, const IntOrString& v);
void Encode(Encoder& e, const Time& v);
void Encode(Encoder& e, const MicroTime& v);
void Encode(Encoder& e, const Duration& v);
void Encode(Encoder& e, const RawJson& v);

/// `[]byte` fields are `std::string` holding the decoded bytes; the generated code calls these.
inline bool DecodeBytes(Decoder& d, std::string& v) { return d.ReadBytes(v); }
inline void EncodeBytes(Encoder& e, const std::string& v) { e.WriteBytes(v); }

// ---- Containers. `null` decodes as absent / empty, as Go's encoding/json does. ----

/// A struct declared in C++ with a static `Fields()` (see <kube/api/reflect.hpp>, which defines
/// its Decode and Encode; declared here so that containers and FromJson find them).
template <class T>
concept Reflected = requires { T::Fields(); };
template <Reflected T> bool Decode(Decoder& d, T& out);
template <Reflected T> void Encode(Encoder& e, const T& v);

// Declared first so that containers of containers resolve (vector<map<string, T>>, ...).
template <class T> bool Decode(Decoder& d, std::optional<T>& v);
template <class T> bool Decode(Decoder& d, Box<T>& v);
template <class T> bool Decode(Decoder& d, std::vector<T>& v);
template <class T> bool Decode(Decoder& d, std::map<std::string, T>& v);
template <class T> void Encode(Encoder& e, const std::optional<T>& v);
template <class T> void Encode(Encoder& e, const Box<T>& v);
template <class T> void Encode(Encoder& e, const std::vector<T>& v);
template <class T> void Encode(Encoder& e, const std::map<std::string, T>& v);

template <class T>
bool Decode(Decoder& d, std::optional<T>& v) {
  if (d.ConsumeNull()) {
    v.reset();
    return true;
  }
  return Decode(d, v.emplace());
}

template <class T>
bool Decode(Decoder& d, Box<T>& v) {
  if (d.ConsumeNull()) {
    v.reset();
    return true;
  }
  return Decode(d, v.emplace());
}

template <class T>
bool Decode(Decoder& d, std::vector<T>& v) {
  v.clear();
  if (d.ConsumeNull()) return true;
  if (!d.BeginArray()) return false;
  while (d.NextElement()) {
    if (!Decode(d, v.emplace_back())) return d.AtIndex(v.size() - 1);
  }
  return !d.failed();
}

template <class T>
bool Decode(Decoder& d, std::map<std::string, T>& v) {
  v.clear();
  if (d.ConsumeNull()) return true;
  if (!d.BeginObject()) return false;
  std::string_view key;
  while (d.NextKey(key)) {
    auto it = v.try_emplace(std::string(key)).first;
    if (!Decode(d, it->second)) return d.AtKey(it->first);
  }
  return !d.failed();
}

/// `[]byte` in a list or map (rare: `Secret.data`, `ConfigMap.binaryData`).
bool DecodeBytes(Decoder& d, std::map<std::string, std::string>& v);
void EncodeBytes(Encoder& e, const std::map<std::string, std::string>& v);
bool DecodeBytes(Decoder& d, std::optional<std::string>& v);
void EncodeBytes(Encoder& e, const std::optional<std::string>& v);

template <class T>
void Encode(Encoder& e, const std::optional<T>& v) {
  if (v) {
    Encode(e, *v);
  } else {
    e.WriteNull();
  }
}

template <class T>
void Encode(Encoder& e, const Box<T>& v) {
  if (v) {
    Encode(e, *v);
  } else {
    e.WriteNull();
  }
}

template <class T>
void Encode(Encoder& e, const std::vector<T>& v) {
  e.BeginArray();
  for (const T& item : v) {
    e.Element();
    Encode(e, item);
  }
  e.EndArray();
}

template <class T>
void Encode(Encoder& e, const std::map<std::string, T>& v) {
  e.BeginObject();
  for (const auto& [key, value] : v) {
    e.DynamicKey(key);
    Encode(e, value);
  }
  e.EndObject();
}

// ---- Entry points. ----

/// Decodes `json` into a new T. Unknown members are kept (see UnknownFields); `null` for a
/// member means absent. **Errors:** 400 BadRequest naming the field path, the problem and the
/// position, for example `spec.template.spec.containers[1].ports[0].containerPort: expected
/// int32, found string at line 1, column 812 (offset 811)`; malformed JSON; trailing data. A
/// failed decode never returns a partly filled value.
template <class T>
Result<T> FromJson(std::string_view json) {
  Result<T> out{T{}};
  Decoder d(json);
  if (!Decode(d, *out) || !d.End()) return d.error();
  return out;
}

/// Decodes `json` into `out` (cleared first). On failure `out` is left in an unspecified but
/// valid state. **Errors:** as FromJson.
template <class T>
Result<void> FromJsonInto(std::string_view json, T& out) {
  out = T{};
  Decoder d(json);
  if (!Decode(d, out) || !d.End()) return d.error();
  return Ok();
}

/// The compact JSON of `value`: the bytes kube-apiserver accepts. Absent optional members are
/// omitted, as are empty lists and maps that the schema does not require (Go's `omitempty`).
template <class T>
std::string ToJson(const T& value) {
  Encoder e;
  Encode(e, value);
  return e.Take();
}

}  // namespace kube::api
