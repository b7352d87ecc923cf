#include <kube/client/discovery.hpp>

#include <string>
#include <utility>

#include <boost/json.hpp>

#include <kube/core/json.hpp>

#include "client/internal/util.hpp"

namespace kube::client {
namespace {

using boost::json::array;
using boost::json::object;
using boost::json::value;

std::string Str(const object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

std::vector<std::string> StrList(const object& o, std::string_view key) {
  std::vector<std::string> out;
  const auto* v = o.if_contains(key);
  if (v == nullptr || !v->is_array()) return out;
  for (const auto& s : v->get_array()) {
    if (s.is_string()) out.emplace_back(s.get_string());
  }
  return out;
}

const object* Obj(const object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_object() ? &v->get_object() : nullptr;
}

const array* Arr(const object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_array() ? &v->get_array() : nullptr;
}

Result<object> ParseObject(std::string_view json, std::string_view what) {
  auto v = ParseJson(json);
  if (!v) return BadRequest(std::string(what) + ": " + v.error().message);
  if (!v->is_object()) return BadRequest(std::string(what) + ": expected a JSON object");
  return std::move(v->get_object());
}

std::string GroupVersionString(std::string_view group, std::string_view version) {
  return group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
}

/// metav1.APIResourceList -> ApiResourceList (group/version defaulted from the list).
Result<ApiResourceList> ParseResourceList(std::string_view json) {
  auto root = ParseObject(json, "APIResourceList");
  if (!root) return std::move(root).error();
  ApiResourceList out;
  out.group_version = Str(*root, "groupVersion");
  auto gv = GroupVersion::Parse(out.group_version);
  if (!gv) return BadRequest("APIResourceList: groupVersion: " + gv.error().message);
  if (const array* resources = Arr(*root, "resources")) {
    for (const auto& rv : *resources) {
      if (!rv.is_object()) continue;
      const object& r = rv.get_object();
      ApiResource res;
      res.name = Str(r, "name");
      res.singular_name = Str(r, "singularName");
      const auto* ns = r.if_contains("namespaced");
      res.namespaced = ns != nullptr && ns->is_bool() && ns->get_bool();
      res.group = Str(r, "group");
      res.version = Str(r, "version");
      if (res.group.empty() && res.version.empty()) {
        res.group = gv->group;
        res.version = gv->version;
      }
      res.kind = Str(r, "kind");
      res.verbs = StrList(r, "verbs");
      res.short_names = StrList(r, "shortNames");
      res.categories = StrList(r, "categories");
      if (res.name.empty()) continue;
      out.resources.push_back(std::move(res));
    }
  }
  return out;
}

void AppendUnique(std::vector<std::string>& v, const std::string& s) {
  for (const auto& x : v) {
    if (x == s) return;
  }
  v.push_back(s);
}

}  // namespace

bool IsAggregatedDiscoveryContentType(std::string_view content_type) {
  std::string_view rest = content_type;
  const auto semi = rest.find(';');
  if (!internal::EqualsIgnoreCase(internal::TrimSpace(rest.substr(0, semi)), "application/json")) return false;
  if (semi == std::string_view::npos) return false;
  rest.remove_prefix(semi + 1);
  std::string g, v, as;
  while (!rest.empty()) {
    const auto next = rest.find(';');
    const std::string_view param = internal::TrimSpace(rest.substr(0, next));
    const auto eq = param.find('=');
    if (eq != std::string_view::npos) {
      const std::string key = internal::ToLower(internal::TrimSpace(param.substr(0, eq)));
      std::string_view val = internal::TrimSpace(param.substr(eq + 1));
      if (val.size() >= 2 && val.front() == '"' && val.back() == '"') val = val.substr(1, val.size() - 2);
      if (key == "g") g = val;
      if (key == "v") v = val;
      if (key == "as") as = val;
    }
    if (next == std::string_view::npos) break;
    rest.remove_prefix(next + 1);
  }
  return g == "apidiscovery.k8s.io" && (v == "v2" || v == "v2beta1") && as == "APIGroupDiscoveryList";
}

Result<DiscoveryResult> ParseAggregatedDiscovery(std::string_view json) {
  auto root = ParseObject(json, "APIGroupDiscoveryList");
  if (!root) return std::move(root).error();
  DiscoveryResult out;
  out.aggregated = true;
  const array* items = Arr(*root, "items");
  if (items == nullptr) return out;
  for (const auto& iv : *items) {
    if (!iv.is_object()) continue;
    const object& item = iv.get_object();
    ApiGroup group;
    if (const object* md = Obj(item, "metadata")) group.name = Str(*md, "name");
    const array* versions = Arr(item, "versions");
    if (versions == nullptr) continue;
    for (const auto& vv : *versions) {
      if (!vv.is_object()) continue;
      const object& ver = vv.get_object();
      const std::string version = Str(ver, "version");
      if (version.empty()) continue;
      group.versions.push_back(version);
      const std::string gv = GroupVersionString(group.name, version);
      if (Str(ver, "freshness") == "Stale") {
        out.failed.emplace_back(gv, "stale group-version in aggregated discovery");
        continue;
      }
      ApiResourceList list;
      list.group_version = gv;
      if (const array* resources = Arr(ver, "resources")) {
        for (const auto& rv : *resources) {
          if (!rv.is_object()) continue;
          const object& r = rv.get_object();
          const object* kind = Obj(r, "responseKind");
          if (kind == nullptr || Str(*kind, "kind").empty()) continue;  // "missing GVK": dropped
          ApiResource res;
          res.name = Str(r, "resource");
          if (res.name.empty()) continue;
          res.singular_name = Str(r, "singularResource");
          res.namespaced = Str(r, "scope") == "Namespaced";
          res.group = group.name;
          res.version = version;
          res.kind = Str(*kind, "kind");
          res.verbs = StrList(r, "verbs");
          res.short_names = StrList(r, "shortNames");
          res.categories = StrList(r, "categories");
          list.resources.push_back(res);
          if (const array* subs = Arr(r, "subresources")) {
            for (const auto& sv : *subs) {
              if (!sv.is_object()) continue;
              const object& s = sv.get_object();
              const object* skind = Obj(s, "responseKind");
              const std::string sub = Str(s, "subresource");
              if (skind == nullptr || Str(*skind, "kind").empty() || sub.empty()) continue;
              ApiResource sr;
              sr.name = res.name + "/" + sub;
              sr.singular_name = res.singular_name;
              sr.namespaced = res.namespaced;
              sr.group = Str(*skind, "group");
              sr.version = Str(*skind, "version");
              if (sr.version.empty()) {
                sr.group = group.name;
                sr.version = version;
              }
              sr.kind = Str(*skind, "kind");
              sr.verbs = StrList(s, "verbs");
              list.resources.push_back(std::move(sr));
            }
          }
        }
      }
      out.resources.push_back(std::move(list));
    }
    if (!group.versions.empty()) {
      group.preferred_version = group.versions.front();
      out.groups.push_back(std::move(group));
    }
  }
  return out;
}

DiscoveryClient::DiscoveryClient(std::shared_ptr<RestClient> rest) : rest_(std::move(rest)) {}

Result<ServerVersion> DiscoveryClient::GetServerVersion() const {
  Request req;
  req.path = "/version";
  auto r = rest_->Do(req);
  if (!r) return std::move(r).error();
  auto root = ParseObject(r->body, "version");
  if (!root) return std::move(root).error();
  ServerVersion v;
  v.major = Str(*root, "major");
  v.minor = Str(*root, "minor");
  v.git_version = Str(*root, "gitVersion");
  v.git_commit = Str(*root, "gitCommit");
  v.platform = Str(*root, "platform");
  return v;
}

Result<std::shared_ptr<const DiscoveryResult>> DiscoveryClient::ServerGroupsAndResources() {
  {
    MutexLock lock(mu_);
    if (cache_) return cache_;
  }
  auto fetched = Fetch();
  if (!fetched) return fetched;
  MutexLock lock(mu_);
  cache_ = *fetched;
  return cache_;
}

void DiscoveryClient::Invalidate() {
  MutexLock lock(mu_);
  cache_.reset();
}

Result<std::shared_ptr<const DiscoveryResult>> DiscoveryClient::Fetch() const {
  struct Answer {
    bool present = false;
    bool aggregated = false;
    std::string body;
  };
  const auto get_root = [&](const char* path) -> Result<Answer> {
    Request req;
    req.path = path;
    req.accept = std::string(kAggregatedDiscoveryAccept);
    auto r = rest_->Do(req);
    if (!r) {
      if (IsNotFound(r.error())) return Answer{};  // tolerated, as client-go does for /api
      return std::move(r).error();
    }
    Answer a;
    a.present = true;
    const auto ct = FindHeader(r->headers, "Content-Type");
    a.aggregated = ct && IsAggregatedDiscoveryContentType(*ct);
    a.body = std::move(r->body);
    return a;
  };
  auto api = get_root("/api");
  if (!api) return std::move(api).error();
  auto apis = get_root("/apis");
  if (!apis) return std::move(apis).error();

  auto out = std::make_shared<DiscoveryResult>();
  if (api->present && apis->present && api->aggregated && apis->aggregated) {
    auto core = ParseAggregatedDiscovery(api->body);
    if (!core) return std::move(core).error();
    auto named = ParseAggregatedDiscovery(apis->body);
    if (!named) return std::move(named).error();
    *out = std::move(core).value();
    for (auto& g : named->groups) out->groups.push_back(std::move(g));
    for (auto& l : named->resources) out->resources.push_back(std::move(l));
    for (auto& f : named->failed) out->failed.push_back(std::move(f));
    return std::shared_ptr<const DiscoveryResult>(std::move(out));
  }

  // Legacy: group lists from whichever form each root answered in, then every group-version.
  const auto groups_of = [](const Answer& a, bool core) -> Result<std::vector<ApiGroup>> {
    std::vector<ApiGroup> groups;
    if (!a.present) return groups;
    if (a.aggregated) {
      auto parsed = ParseAggregatedDiscovery(a.body);
      if (!parsed) return std::move(parsed).error();
      return std::move(parsed->groups);
    }
    auto root = ParseObject(a.body, core ? "APIVersions" : "APIGroupList");
    if (!root) return std::move(root).error();
    if (core) {
      ApiGroup g;
      g.versions = StrList(*root, "versions");
      if (!g.versions.empty()) {
        g.preferred_version = g.versions.front();
        groups.push_back(std::move(g));
      }
      return groups;
    }
    if (const array* list = Arr(*root, "groups")) {
      for (const auto& gv : *list) {
        if (!gv.is_object()) continue;
        const object& o = gv.get_object();
        ApiGroup g;
        g.name = Str(o, "name");
        if (const array* versions = Arr(o, "versions")) {
          for (const auto& v : *versions) {
            if (v.is_object()) AppendUnique(g.versions, Str(v.get_object(), "version"));
          }
        }
        if (const object* pref = Obj(o, "preferredVersion")) g.preferred_version = Str(*pref, "version");
        if (g.preferred_version.empty() && !g.versions.empty()) g.preferred_version = g.versions.front();
        if (!g.versions.empty()) groups.push_back(std::move(g));
      }
    }
    return groups;
  };
  auto core_groups = groups_of(*api, true);
  if (!core_groups) return std::move(core_groups).error();
  auto named_groups = groups_of(*apis, false);
  if (!named_groups) return std::move(named_groups).error();
  for (auto& g : *core_groups) out->groups.push_back(std::move(g));
  for (auto& g : *named_groups) out->groups.push_back(std::move(g));
  for (const ApiGroup& g : out->groups) {
    for (const std::string& v : g.versions) {
      const std::string gv = GroupVersionString(g.name, v);
      Request req;
      req.path = g.name.empty() ? "/api/" + v : "/apis/" + gv;
      auto r = rest_->Do(req);
      if (!r) {
        out->failed.emplace_back(gv, r.error().message);
        continue;
      }
      auto list = ParseResourceList(r->body);
      if (!list) {
        out->failed.emplace_back(gv, list.error().message);
        continue;
      }
      out->resources.push_back(std::move(list).value());
    }
  }
  return std::shared_ptr<const DiscoveryResult>(std::move(out));
}

}  // namespace kube::client
