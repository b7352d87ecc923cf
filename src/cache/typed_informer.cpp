#include <kube/cache/typed_informer.hpp>

#include <cctype>

#include <fmt/format.h>

namespace kube::cache {

Error TypedListerNotFound(std::string_view group, std::string_view kind, std::string_view name) {
  std::string resource;
  resource.reserve(kind.size());
  for (const char c : kind) resource.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  const std::string qualified = group.empty() ? resource : fmt::format("{}.{}", resource, group);
  Error e = MakeError(404, reason::kNotFound, fmt::format("{} \"{}\" not found", qualified, name));
  e.details = StatusDetails{};
  e.details->name = std::string(name);
  e.details->group = std::string(group);
  e.details->kind = resource;
  return e;
}

}  // namespace kube::cache
