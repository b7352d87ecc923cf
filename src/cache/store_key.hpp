#pragma once
// Store keys (client-go's MetaNamespaceKeyFunc, "ns/name" or "name") hashed and compared from an
// object's parts, without building the key string. Shared by the Indexer and the DeltaFIFO,
// which both keep objects keyed without storing key strings.

#include <algorithm>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include <kube/core/object.hpp>

namespace kube::cache::internal {

/// std::hash of "ns/name" (or "name") computed from the parts: identical to hashing the joined key.
inline std::size_t HashKeyParts(std::string_view ns, std::string_view name) {
  if (ns.empty()) return std::hash<std::string_view>{}(name);
  char buf[320];
  const std::size_t n = ns.size() + 1 + name.size();
  if (n <= sizeof(buf)) {
    std::copy(ns.begin(), ns.end(), buf);
    buf[ns.size()] = '/';
    std::copy(name.begin(), name.end(), buf + ns.size() + 1);
    return std::hash<std::string_view>{}(std::string_view(buf, n));
  }
  std::string key;
  key.reserve(n);
  key.append(ns).append("/").append(name);
  return std::hash<std::string_view>{}(key);
}

/// True when `key` is `obj`'s MetaNamespaceKeyFunc key.
inline bool KeyPartsEqual(const Object& obj, std::string_view key) {
  const std::string_view ns = obj.Namespace();
  const std::string_view name = obj.Name();
  if (ns.empty()) return key == name;
  return key.size() == ns.size() + 1 + name.size() && key.substr(0, ns.size()) == ns && key[ns.size()] == '/' &&
         key.substr(ns.size() + 1) == name;
}

}  // namespace kube::cache::internal
