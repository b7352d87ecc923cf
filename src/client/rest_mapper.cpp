#include <kube/client/rest_mapper.hpp>

#include <map>
#include <string>
#include <utility>

#include "client/internal/util.hpp"

namespace kube::client {
namespace {

Error NoMatch(std::string message) { return MakeError(404, kNoMatchReason, std::move(message)); }

std::string Describe(const GroupVersionResource& r) {
  std::string s = internal::Quote(r.resource);
  if (!r.group.empty()) s += " in group " + internal::Quote(r.group);
  if (!r.version.empty()) s += " version " + internal::Quote(r.version);
  return s;
}

}  // namespace

bool IsNoMatch(const Error& e) { return e.reason == kNoMatchReason; }

RestMapper::RestMapper(std::shared_ptr<DiscoveryClient> discovery, RestMapperOptions options, Clock& clock)
    : RestMapper(
          Source([discovery](bool invalidate) {
            if (invalidate) discovery->Invalidate();
            return discovery->ServerGroupsAndResources();
          }),
          options, clock) {}

RestMapper::RestMapper(Source source, RestMapperOptions options, Clock& clock)
    : source_(std::move(source)), options_(options), clock_(clock) {}

std::shared_ptr<const RestMapper::Index> RestMapper::BuildIndex(const DiscoveryResult& result) {
  auto index = std::make_shared<Index>();
  std::map<std::string, const ApiResourceList*> lists;
  for (const auto& l : result.resources) lists.emplace(l.group_version, &l);
  for (const ApiGroup& g : result.groups) {
    // The preferred version first, then the others in the server's order.
    std::vector<std::string> versions;
    if (!g.preferred_version.empty()) versions.push_back(g.preferred_version);
    for (const auto& v : g.versions) {
      if (v != g.preferred_version) versions.push_back(v);
    }
    for (const std::string& v : versions) {
      const std::string gv = g.name.empty() ? v : g.name + "/" + v;
      const auto it = lists.find(gv);
      if (it == lists.end()) continue;
      for (const ApiResource& r : it->second->resources) {
        if (r.IsSubresource() || r.kind.empty()) continue;
        Entry e;
        e.mapping.resource = {g.name, v, r.name};
        e.mapping.kind = {g.name, v, r.kind};
        e.mapping.namespaced = r.namespaced;
        e.singular = r.singular_name.empty() ? internal::ToLower(r.kind) : r.singular_name;
        e.short_names = r.short_names;
        e.preferred = v == g.preferred_version;
        index->entries.push_back(std::move(e));
      }
    }
  }
  return index;
}

Result<std::shared_ptr<const RestMapper::Index>> RestMapper::Load(bool after_miss) {
  bool invalidate = false;
  {
    MutexLock lock(mu_);
    if (index_ && !after_miss) return index_;
    if (after_miss && index_ && clock_.Now() - last_load_ < options_.min_refresh_interval) {
      return index_;  // refreshed moments ago: the miss is real
    }
    invalidate = loaded_once_;  // every reload after the first bypasses the discovery cache
  }
  // Discovery runs without the lock held: it is network I/O (and possibly a user-supplied source).
  auto result = source_(invalidate);
  if (!result) return std::move(result).error();
  auto index = BuildIndex(**result);
  MutexLock lock(mu_);
  index_ = index;
  loaded_once_ = true;
  last_load_ = clock_.Now();
  return index;
}

template <class Find>
auto RestMapper::Lookup(Find&& find) -> decltype(find(std::declval<const Index&>())) {
  auto index = Load(false);
  if (!index) return std::move(index).error();
  auto found = find(**index);
  if (found || !IsNoMatch(found.error())) return found;
  auto again = Load(true);
  if (!again || again->get() == index->get()) return found;
  return find(**again);
}

Result<RestMapping> RestMapper::Mapping(const GroupKind& gk, std::string_view version) {
  return Lookup([&](const Index& idx) -> Result<RestMapping> {
    for (const Entry& e : idx.entries) {
      if (e.mapping.kind.group != gk.group || e.mapping.kind.kind != gk.kind) continue;
      if (!version.empty() && e.mapping.kind.version != version) continue;
      return e.mapping;
    }
    std::string msg = "no matches for kind " + internal::Quote(gk.kind) + " in group " + internal::Quote(gk.group);
    if (!version.empty()) msg += " version " + internal::Quote(version);
    return NoMatch(std::move(msg));
  });
}

Result<GroupVersionResource> RestMapper::ResourceFor(const GroupVersionResource& partial) {
  const std::string name = internal::ToLower(partial.resource);
  return Lookup([&](const Index& idx) -> Result<GroupVersionResource> {
    for (const Entry& e : idx.entries) {
      if (!partial.group.empty() && e.mapping.resource.group != partial.group) continue;
      if (!partial.version.empty() && e.mapping.resource.version != partial.version) continue;
      bool match = e.mapping.resource.resource == name || e.singular == name;
      for (const auto& s : e.short_names) match = match || s == name;
      if (match) return e.mapping.resource;
    }
    return NoMatch("the server doesn't have a resource type " + Describe(partial));
  });
}

Result<GroupVersionKind> RestMapper::KindFor(const GroupVersionResource& partial) {
  auto gvr = ResourceFor(partial);
  if (!gvr) return std::move(gvr).error();
  return Lookup([&](const Index& idx) -> Result<GroupVersionKind> {
    for (const Entry& e : idx.entries) {
      if (e.mapping.resource == *gvr) return e.mapping.kind;
    }
    return NoMatch("the server doesn't have a resource type " + Describe(*gvr));
  });
}

Result<bool> RestMapper::IsNamespaced(const GroupVersionKind& gvk) {
  auto m = Mapping(gvk.ToGroupKind(), gvk.version);
  if (!m) return std::move(m).error();
  return m->namespaced;
}

void RestMapper::Reset() {
  MutexLock lock(mu_);
  index_.reset();
}

}  // namespace kube::client
