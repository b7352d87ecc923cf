#pragma once

#include <memory>

#include <kube/api/codec.hpp>
#include <kube/base/result.hpp>
#include <kube/core/object.hpp>

/// Conversions between typed API values and the dynamic `kube::Object`: the typed API is built
/// on the same machinery as the dynamic one, and code can move between the two.
namespace kube::api {

/// The typed value of `object`. **Errors:** as FromJson (400 naming the field path).
template <class T>
Result<T> FromObject(const Object& object) {
  return FromJson<T>(object.Json());
}

/// A `kube::Object` holding `value` (its JSON as `ToJson` writes it).
/// **Errors:** as Object::Parse (a metadata field of the wrong type cannot come out of a typed
/// value, so in practice none).
template <class T>
Result<ObjectPtr> ToObject(const T& value) {
  return Object::Parse(ToJson(value));
}

namespace internal {
// One address per type: the tag under which an Object keeps its decoded T.
template <class T>
struct DecodedTag {
  static constexpr char id = 0;
};
}  // namespace internal

/// The typed value of a cached, immutable object, decoded once and kept with it: every lister
/// and handler that reads the same object version as T shares one decode and one copy (see
/// Object::KeepDerivedValue). The result stays valid after the Object is gone.
/// An Object keeps one decoded type; reading it as another type decodes without keeping.
/// **Errors:** as FromJson. **Thread-safety:** safe from any thread.
template <class T>
Result<std::shared_ptr<const T>> Decoded(const ObjectPtr& object) {
  const void* tag = &internal::DecodedTag<T>::id;
  if (auto kept = object->DerivedValue(tag)) return std::static_pointer_cast<const T>(kept);
  auto value = FromObject<T>(*object);
  if (!value.ok()) return std::move(value).error();
  auto shared = std::make_shared<const T>(std::move(*value));
  if (auto kept = object->KeepDerivedValue(tag, shared)) return std::static_pointer_cast<const T>(kept);
  return std::shared_ptr<const T>(std::move(shared));
}

}  // namespace kube::api
