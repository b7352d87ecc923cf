#pragma once

// Helpers shared by the cache unit tests.
#include <string>

#include <fmt/format.h>

#include <kube/core/object.hpp>

namespace kube::cache::testing {

/// A ConfigMap-like object `ns/name` at resourceVersion `rv` with optional labels JSON.
inline ObjectPtr Obj(std::string_view ns, std::string_view name, std::string_view rv,
                     std::string_view labels_json = "{}") {
  auto json = ns.empty()
                  ? fmt::format(R"({{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{}","resourceVersion":"{}","labels":{}}}}})",
                                name, rv, labels_json)
                  : fmt::format(R"({{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{}","namespace":"{}","resourceVersion":"{}","labels":{}}}}})",
                                name, ns, rv, labels_json);
  return *Object::Parse(json);
}

}  // namespace kube::cache::testing
