#include <kube/core/gvk.hpp>

#include <fmt/format.h>

namespace kube {

Result<GroupVersion> GroupVersion::Parse(std::string_view api_version) {
  if (api_version.empty()) return BadRequest("apiVersion must not be empty");
  const auto slash = api_version.find('/');
  if (slash == std::string_view::npos) return GroupVersion{"", std::string(api_version)};
  if (api_version.find('/', slash + 1) != std::string_view::npos) {
    return BadRequest(fmt::format("unexpected GroupVersion string: {}", api_version));
  }
  auto group = api_version.substr(0, slash);
  auto version = api_version.substr(slash + 1);
  if (group.empty() || version.empty()) {
    return BadRequest(fmt::format("unexpected GroupVersion string: {}", api_version));
  }
  return GroupVersion{std::string(group), std::string(version)};
}

std::string GroupVersion::String() const { return group.empty() ? version : group + "/" + version; }

std::string GroupKind::String() const { return group.empty() ? kind : kind + "." + group; }

std::string GroupResource::String() const {
  return group.empty() ? resource : resource + "." + group;
}

Result<GroupVersionKind> GroupVersionKind::FromApiVersionKind(std::string_view api_version,
                                                              std::string_view kind) {
  auto gv = GroupVersion::Parse(api_version);
  if (!gv.ok()) return std::move(gv).error();
  if (kind.empty()) return BadRequest("kind must not be empty");
  return GroupVersionKind{std::move(gv->group), std::move(gv->version), std::string(kind)};
}

std::string GroupVersionKind::String() const {
  return fmt::format("{}, Kind={}", ApiVersion(), kind);
}

std::string GroupVersionResource::String() const {
  return fmt::format("{}, Resource={}", ToGroupVersion().String(), resource);
}

std::string ObjectKey::String() const { return ns.empty() ? name : ns + "/" + name; }

Result<ObjectKey> ObjectKey::Parse(std::string_view key) {
  const auto slash = key.find('/');
  if (slash == std::string_view::npos) {
    if (key.empty()) return BadRequest("unexpected key format: \"\"");
    return ObjectKey{"", std::string(key)};
  }
  if (key.find('/', slash + 1) != std::string_view::npos || slash + 1 == key.size()) {
    return BadRequest(fmt::format("unexpected key format: \"{}\"", key));
  }
  return ObjectKey{std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

}  // namespace kube
