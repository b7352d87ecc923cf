#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json.hpp>

#include <kube/base/clock.hpp>
#include <kube/core/time.hpp>

#include "apiserver/discovery/internal/table_printers.hpp"

/// Accessors the built-in printers read stored JSON with: an absent or mistyped field reads as
/// Go's zero value, as it would after kube's typed decode.
namespace kube::apiserver::internal::printer {

namespace bj = boost::json;

inline const bj::object* Obj(const bj::object* o, std::string_view key) {
  if (o == nullptr) return nullptr;
  const bj::value* v = o->if_contains(key);
  return v != nullptr ? v->if_object() : nullptr;
}
inline const bj::array* Arr(const bj::object* o, std::string_view key) {
  if (o == nullptr) return nullptr;
  const bj::value* v = o->if_contains(key);
  return v != nullptr ? v->if_array() : nullptr;
}
inline std::string_view Str(const bj::object* o, std::string_view key) {
  if (o == nullptr) return {};
  const bj::value* v = o->if_contains(key);
  if (v == nullptr || !v->is_string()) return {};
  return v->get_string();
}
inline std::optional<int64_t> OptInt(const bj::object* o, std::string_view key) {
  if (o == nullptr) return std::nullopt;
  const bj::value* v = o->if_contains(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->get_uint64());
  if (v->is_double()) return static_cast<int64_t>(v->get_double());
  return std::nullopt;
}
inline int64_t Int(const bj::object* o, std::string_view key) { return OptInt(o, key).value_or(0); }
inline std::optional<bool> OptBool(const bj::object* o, std::string_view key) {
  if (o == nullptr) return std::nullopt;
  const bj::value* v = o->if_contains(key);
  if (v == nullptr || !v->is_bool()) return std::nullopt;
  return v->get_bool();
}
inline bool Bool(const bj::object* o, std::string_view key) { return OptBool(o, key).value_or(false); }
// The members of an object-valued field (a string map like data or labels).
inline std::size_t MapSize(const bj::object* o, std::string_view key) {
  const bj::object* m = Obj(o, key);
  return m != nullptr ? m->size() : 0;
}
inline std::size_t ArrSize(const bj::object* o, std::string_view key) {
  const bj::array* a = Arr(o, key);
  return a != nullptr ? a->size() : 0;
}
template <class F>
void ForEachObject(const bj::array* a, F&& f) {
  if (a == nullptr) return;
  for (const bj::value& v : *a) {
    if (const auto* o = v.if_object()) f(*o);
  }
}

// A parsed metav1.Time; nullopt is Go's zero time.
inline std::optional<Clock::WallTime> Time(const bj::object* o, std::string_view key) {
  const std::string_view s = Str(o, key);
  if (s.empty()) return std::nullopt;
  auto t = ParseTime(s);
  if (!t.ok()) return std::nullopt;
  return *t;
}

inline std::string SinceField(const bj::object* o, std::string_view key, Clock::WallTime now) {
  return TranslateTimestampSince(Str(o, key), now);
}

inline const bj::object* Meta(const bj::object& obj) { return Obj(&obj, "metadata"); }
inline std::string_view Name(const bj::object& obj) { return Str(Meta(obj), "name"); }
inline std::string Age(const bj::object& obj, Clock::WallTime now) {
  return SinceField(Meta(obj), "creationTimestamp", now);
}

}  // namespace kube::apiserver::internal::printer
