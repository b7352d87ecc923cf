#include <kube/apiserver/resource.hpp>

#include <algorithm>

namespace kube::apiserver {

std::string ResourceInfo::StoragePrefix() const {
  if (!storage_prefix_override.empty()) return storage_prefix_override;
  return "/registry/" + (group.empty() ? std::string("core") : group) + "/" + resource + "/";
}

std::string ResourceInfo::StorageKey(std::string_view ns, std::string_view name) const {
  std::string key = StoragePrefix();
  if (namespaced) {
    key.append(ns);
    key.push_back('/');
  }
  key.append(name);
  return key;
}

void Registry::Add(ResourceInfo info) {
  auto ptr = std::make_shared<const ResourceInfo>(std::move(info));
  MutexLock lock(mu_);
  if (std::find(group_order_.begin(), group_order_.end(), ptr->group) == group_order_.end()) {
    group_order_.push_back(ptr->group);
  }
  auto it = std::find_if(resources_.begin(), resources_.end(), [&](const ResourcePtr& r) {
    return r->group == ptr->group && r->version == ptr->version && r->resource == ptr->resource;
  });
  if (it != resources_.end()) {
    *it = std::move(ptr);
  } else {
    resources_.push_back(std::move(ptr));
  }
  ++generation_;
}

bool Registry::Remove(std::string_view group, std::string_view version, std::string_view resource) {
  MutexLock lock(mu_);
  auto it = std::find_if(resources_.begin(), resources_.end(), [&](const ResourcePtr& r) {
    return r->group == group && r->version == version && r->resource == resource;
  });
  if (it == resources_.end()) return false;
  resources_.erase(it);
  const bool group_left = std::any_of(resources_.begin(), resources_.end(),
                                      [&](const ResourcePtr& r) { return r->group == group; });
  if (!group_left) {
    group_order_.erase(std::remove(group_order_.begin(), group_order_.end(), group), group_order_.end());
  }
  ++generation_;
  return true;
}

ResourcePtr Registry::Find(std::string_view group, std::string_view version,
                           std::string_view resource) const {
  MutexLock lock(mu_);
  for (const auto& r : resources_) {
    if (r->group == group && r->version == version && r->resource == resource) return r;
  }
  return nullptr;
}

ResourcePtr Registry::FindByKind(std::string_view group, std::string_view version,
                                 std::string_view kind) const {
  MutexLock lock(mu_);
  for (const auto& r : resources_) {
    if (r->group == group && r->version == version && r->kind == kind) return r;
  }
  return nullptr;
}

std::vector<ResourcePtr> Registry::All() const {
  std::vector<ResourcePtr> out;
  std::vector<std::string> order;
  {
    MutexLock lock(mu_);
    out = resources_;
    order = group_order_;
  }
  auto group_rank = [&order](const std::string& g) {
    if (g.empty()) return std::ptrdiff_t{-1};
    return std::find(order.begin(), order.end(), g) - order.begin();
  };
  std::stable_sort(out.begin(), out.end(), [&](const ResourcePtr& a, const ResourcePtr& b) {
    const auto ga = group_rank(a->group), gb = group_rank(b->group);
    if (ga != gb) return ga < gb;
    if (a->version != b->version) return a->version < b->version;
    return a->resource < b->resource;
  });
  return out;
}

uint64_t Registry::Generation() const {
  MutexLock lock(mu_);
  return generation_;
}

}  // namespace kube::apiserver
