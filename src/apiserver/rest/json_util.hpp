#pragma once

#include <string>
#include <string_view>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

/// Small helpers for editing object DOMs in the REST layer. **Thread-safety:** pure.
namespace kube::apiserver::rest {

/// The member `key` of `obj` if it is an object, else nullptr.
inline boost::json::object* ObjectAt(boost::json::object& obj, std::string_view key) {
  auto* v = obj.if_contains(key);
  return v != nullptr && v->is_object() ? &v->get_object() : nullptr;
}
inline const boost::json::object* ObjectAt(const boost::json::object& obj, std::string_view key) {
  const auto* v = obj.if_contains(key);
  return v != nullptr && v->is_object() ? &v->get_object() : nullptr;
}

/// The member `key` of `obj`, replaced by `{}` unless it is an object already.
inline boost::json::object& EnsureObject(boost::json::object& obj, std::string_view key) {
  auto& v = obj[key];
  if (!v.is_object()) v = boost::json::object();
  return v.get_object();
}

/// The string member `key`, or "" when absent or not a string.
inline std::string_view StringAt(const boost::json::object& obj, std::string_view key) {
  const auto* v = obj.if_contains(key);
  if (v == nullptr || !v->is_string()) return {};
  const auto& s = v->get_string();
  return {s.data(), s.size()};
}

/// `metadata` of an object (empty when absent).
inline const boost::json::object& MetadataOf(const boost::json::object& obj) {
  static const boost::json::object kEmpty;
  const auto* m = ObjectAt(obj, "metadata");
  return m != nullptr ? *m : kEmpty;
}

/// Sets `key` to `value` when absent or null.
inline void SetDefault(boost::json::object& obj, std::string_view key, boost::json::value value) {
  auto* v = obj.if_contains(key);
  if (v == nullptr || v->is_null()) obj[key] = std::move(value);
}

/// Copies member `key` from `from` into `to`, or removes it from `to` when `from` lacks it.
inline void CopyMember(boost::json::object& to, const boost::json::object& from, std::string_view key) {
  if (const auto* v = from.if_contains(key)) {
    to[key] = *v;
  } else {
    to.erase(key);
  }
}

}  // namespace kube::apiserver::rest
