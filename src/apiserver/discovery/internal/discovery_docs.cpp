#include "apiserver/discovery/internal/discovery_docs.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include <openssl/sha.h>

#include <kube/apiserver/discovery.hpp>

#include "apiserver/discovery/internal/json_out.hpp"

namespace kube::apiserver::internal {
namespace {

// The verbs kube advertises for /status and /scale subresources.
const std::vector<std::string>& SubresourceVerbs() {
  static const std::vector<std::string> kVerbs = {"get", "patch", "update"};
  return kVerbs;
}

// One entry of a legacy APIResourceList.
struct LegacyEntry {
  std::string name;
  std::string singular;
  bool namespaced = false;
  std::string group;    // only for entries whose kind lives in another group (scale)
  std::string version;  // idem
  std::string kind;
  const std::vector<std::string>* verbs = nullptr;
  const std::vector<std::string>* short_names = nullptr;
  const std::vector<std::string>* categories = nullptr;
  std::string storage_version_hash;
};

// Parses "v<major>[(alpha|beta)<minor>]"; type: 0 alpha, 1 beta, 2 GA.
bool ParseKubeVersion(std::string_view v, int& major, int& type, int& minor) {
  if (v.size() < 2 || v[0] != 'v') return false;
  std::size_t i = 1;
  auto digits = [&](int& out) {
    const std::size_t start = i;
    long long n = 0;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) {
      n = n * 10 + (v[i] - '0');
      if (n > 1000000000) return false;
      ++i;
    }
    // Kube rejects a leading zero ("v01") and an empty number.
    if (i == start || (v[start] == '0' && i - start > 1)) return false;
    out = static_cast<int>(n);
    return true;
  };
  if (!digits(major) || major == 0) return false;
  if (i == v.size()) {
    type = 2;
    minor = 0;
    return true;
  }
  const std::string_view rest = v.substr(i);
  if (rest.starts_with("alpha")) {
    type = 0;
    i += 5;
  } else if (rest.starts_with("beta")) {
    type = 1;
    i += 4;
  } else {
    return false;
  }
  if (!digits(minor) || minor == 0) return false;
  return i == v.size();
}

std::string Scope(const ResourceInfo& r) { return r.namespaced ? "Namespaced" : "Cluster"; }

void AppendGvk(std::string& out, std::string_view group, std::string_view version,
               std::string_view kind) {
  out += "{\"group\":";
  AppendJsonString(out, group);
  out += ",\"version\":";
  AppendJsonString(out, version);
  out += ",\"kind\":";
  AppendJsonString(out, kind);
  out.push_back('}');
}

void AppendGroupVersionForDiscovery(std::string& out, std::string_view group,
                                    std::string_view version) {
  const std::string gv = group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
  out += "{\"groupVersion\":";
  AppendJsonString(out, gv);
  out += ",\"version\":";
  AppendJsonString(out, version);
  out.push_back('}');
}

void AppendApiGroup(std::string& out, const GroupVersions& g, bool with_type_meta) {
  out.push_back('{');
  if (with_type_meta) out += "\"kind\":\"APIGroup\",\"apiVersion\":\"v1\",";
  out += "\"name\":";
  AppendJsonString(out, g.group);
  out += ",\"versions\":[";
  for (std::size_t i = 0; i < g.versions.size(); ++i) {
    if (i != 0) out.push_back(',');
    AppendGroupVersionForDiscovery(out, g.group, g.versions[i]);
  }
  out += "],\"preferredVersion\":";
  AppendGroupVersionForDiscovery(out, g.group, g.versions.front());
  out.push_back('}');
}

// The GVK whose storage holds `r`'s objects: `r`'s own, unless it is a second view of another
// resource's objects (events.k8s.io Events are stored as core v1 Events).
std::string HashFor(const Snapshot& snapshot, const ResourceInfo& r) {
  if (!r.storage_prefix_override.empty()) {
    for (const auto& other : snapshot) {
      if (other->storage_prefix_override.empty() && other->StoragePrefix() == r.StoragePrefix()) {
        return StorageVersionHash(other->group, other->version, other->kind);
      }
    }
  }
  // kube-apiserver stores CustomResourceDefinitions in their v1beta1 form (apiextensions'
  // storage version), whichever version serves them.
  if (r.builtin && r.group == "apiextensions.k8s.io" && r.kind == "CustomResourceDefinition") {
    return StorageVersionHash(r.group, "v1beta1", r.kind);
  }
  return StorageVersionHash(r.group, r.version, r.kind);
}

}  // namespace

int CompareKubeAwareVersions(std::string_view a, std::string_view b) {
  if (a == b) return 0;
  int amaj = 0, atype = 0, amin = 0, bmaj = 0, btype = 0, bmin = 0;
  const bool aok = ParseKubeVersion(a, amaj, atype, amin);
  const bool bok = ParseKubeVersion(b, bmaj, btype, bmin);
  if (!aok && !bok) return b.compare(a) < 0 ? -1 : 1;  // alphabetical: smaller is higher priority
  if (!aok) return -1;
  if (!bok) return 1;
  if (atype != btype) return atype - btype;
  if (amaj != bmaj) return amaj - bmaj;
  return amin - bmin;
}

std::vector<GroupVersions> Groups(const Snapshot& snapshot) {
  std::vector<GroupVersions> groups;
  for (const auto& r : snapshot) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const GroupVersions& g) { return g.group == r->group; });
    if (it == groups.end()) {
      groups.push_back({r->group, {}});
      it = std::prev(groups.end());
    }
    if (std::find(it->versions.begin(), it->versions.end(), r->version) == it->versions.end()) {
      it->versions.push_back(r->version);
    }
  }
  for (auto& g : groups) {
    std::stable_sort(g.versions.begin(), g.versions.end(), [](const std::string& a, const std::string& b) {
      return CompareKubeAwareVersions(a, b) > 0;
    });
  }
  std::stable_partition(groups.begin(), groups.end(),
                        [](const GroupVersions& g) { return g.group.empty(); });
  return groups;
}

std::string RenderAggregated(const Snapshot& snapshot, bool core, std::string_view api_version) {
  std::string out = "{\"kind\":\"APIGroupDiscoveryList\",\"apiVersion\":";
  AppendJsonString(out, api_version);
  out += ",\"metadata\":{},\"items\":[";
  bool first_group = true;
  for (const GroupVersions& g : Groups(snapshot)) {
    if (g.group.empty() != core) continue;
    if (!first_group) out.push_back(',');
    first_group = false;
    // ObjectMeta.name is omitempty (the core group's item has none); creationTimestamp, a
    // metav1.Time struct, is always encoded, as null.
    out += "{\"metadata\":{";
    if (!g.group.empty()) {
      out += "\"name\":";
      AppendJsonString(out, g.group);
      out += ",";
    }
    out += "\"creationTimestamp\":null},\"versions\":[";
    for (std::size_t vi = 0; vi < g.versions.size(); ++vi) {
      const std::string& version = g.versions[vi];
      if (vi != 0) out.push_back(',');
      out += "{\"version\":";
      AppendJsonString(out, version);
      out += ",\"resources\":[";
      bool first_resource = true;
      for (const auto& r : snapshot) {
        if (r->group != g.group || r->version != version) continue;
        if (!first_resource) out.push_back(',');
        first_resource = false;
        out += "{\"resource\":";
        AppendJsonString(out, r->resource);
        out += ",\"responseKind\":";
        AppendGvk(out, r->group, r->version, r->kind);
        out += ",\"scope\":";
        AppendJsonString(out, Scope(*r));
        out += ",\"singularResource\":";
        AppendJsonString(out, r->singular);
        out += ",\"verbs\":";
        AppendJsonStringArray(out, r->verbs);
        if (!r->short_names.empty()) {
          out += ",\"shortNames\":";
          AppendJsonStringArray(out, r->short_names);
        }
        if (!r->categories.empty()) {
          out += ",\"categories\":";
          AppendJsonStringArray(out, r->categories);
        }
        struct Sub {
          std::string name;
          std::string group, version, kind;
          const std::vector<std::string>* verbs;
        };
        std::vector<Sub> subs;
        if (r->has_scale) subs.push_back({"scale", "autoscaling", "v1", "Scale", &SubresourceVerbs()});
        if (r->has_status) subs.push_back({"status", r->group, r->version, r->kind, &SubresourceVerbs()});
        for (const auto& sub : r->subresources) {
          const bool own = sub.group.empty() && sub.version.empty();
          subs.push_back({sub.name, own ? r->group : sub.group, own ? r->version : sub.version, sub.kind, &sub.verbs});
        }
        if (!subs.empty()) {
          // Sorted by name, as kube derives them from the sorted legacy list.
          std::stable_sort(subs.begin(), subs.end(), [](const Sub& a, const Sub& b) { return a.name < b.name; });
          out += ",\"subresources\":[";
          for (std::size_t si = 0; si < subs.size(); ++si) {
            if (si != 0) out.push_back(',');
            out += "{\"subresource\":";
            AppendJsonString(out, subs[si].name);
            out += ",\"responseKind\":";
            AppendGvk(out, subs[si].group, subs[si].version, subs[si].kind);
            out += ",\"verbs\":";
            AppendJsonStringArray(out, *subs[si].verbs);
            out.push_back('}');
          }
          out.push_back(']');
        }
        out.push_back('}');
      }
      out += "],\"freshness\":\"Current\"}";
    }
    out += "]}";
  }
  out += "]}";
  return out;
}

std::string RenderApiVersions(const Snapshot& snapshot, std::string_view server_address) {
  std::string out = "{\"kind\":\"APIVersions\",\"versions\":[";
  for (const GroupVersions& g : Groups(snapshot)) {
    if (!g.group.empty()) continue;
    for (std::size_t i = 0; i < g.versions.size(); ++i) {
      if (i != 0) out.push_back(',');
      AppendJsonString(out, g.versions[i]);
    }
  }
  out += "],\"serverAddressByClientCIDRs\":[{\"clientCIDR\":\"0.0.0.0/0\",\"serverAddress\":";
  AppendJsonString(out, server_address);
  out += "}]}";
  return out;
}

std::string RenderApiGroupList(const Snapshot& snapshot) {
  std::string out = "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[";
  bool first = true;
  for (const GroupVersions& g : Groups(snapshot)) {
    if (g.group.empty()) continue;
    if (!first) out.push_back(',');
    first = false;
    AppendApiGroup(out, g, /*with_type_meta=*/false);
  }
  out += "]}";
  return out;
}

std::optional<std::string> RenderApiGroup(const Snapshot& snapshot, std::string_view group) {
  if (group.empty()) return std::nullopt;
  for (const GroupVersions& g : Groups(snapshot)) {
    if (g.group != group) continue;
    std::string out;
    AppendApiGroup(out, g, /*with_type_meta=*/true);
    return out;
  }
  return std::nullopt;
}

std::optional<std::string> RenderApiResourceList(const Snapshot& snapshot, std::string_view group,
                                                 std::string_view version) {
  std::vector<LegacyEntry> entries;
  for (const auto& r : snapshot) {
    if (r->group != group || r->version != version) continue;
    LegacyEntry main;
    main.name = r->resource;
    main.singular = r->singular;
    main.namespaced = r->namespaced;
    main.kind = r->kind;
    main.verbs = &r->verbs;
    main.short_names = &r->short_names;
    main.categories = &r->categories;
    main.storage_version_hash = HashFor(snapshot, *r);
    entries.push_back(std::move(main));
    if (r->has_status) {
      LegacyEntry status;
      status.name = r->resource + "/status";
      status.namespaced = r->namespaced;
      status.kind = r->kind;
      status.verbs = &SubresourceVerbs();
      entries.push_back(std::move(status));
    }
    if (r->has_scale) {
      LegacyEntry scale;
      scale.name = r->resource + "/scale";
      scale.namespaced = r->namespaced;
      scale.group = "autoscaling";
      scale.version = "v1";
      scale.kind = "Scale";
      scale.verbs = &SubresourceVerbs();
      entries.push_back(std::move(scale));
    }
    for (const auto& sub : r->subresources) {
      LegacyEntry e;
      e.name = r->resource + "/" + sub.name;
      e.namespaced = r->namespaced;
      e.group = sub.group;
      e.version = sub.version;
      e.kind = sub.kind;
      e.verbs = &sub.verbs;
      entries.push_back(std::move(e));
    }
  }
  if (entries.empty()) return std::nullopt;
  std::stable_sort(entries.begin(), entries.end(),
                   [](const LegacyEntry& a, const LegacyEntry& b) { return a.name < b.name; });

  // kube-apiserver leaves apiVersion out of the core group's list (its handler never sets it).
  std::string out = group.empty() ? "{\"kind\":\"APIResourceList\",\"groupVersion\":"
                                  : "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":";
  AppendJsonString(out, group.empty() ? std::string(version)
                                      : std::string(group) + "/" + std::string(version));
  out += ",\"resources\":[";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const LegacyEntry& e = entries[i];
    if (i != 0) out.push_back(',');
    out += "{\"name\":";
    AppendJsonString(out, e.name);
    out += ",\"singularName\":";
    AppendJsonString(out, e.singular);
    out += e.namespaced ? ",\"namespaced\":true" : ",\"namespaced\":false";
    if (!e.group.empty()) {
      out += ",\"group\":";
      AppendJsonString(out, e.group);
    }
    if (!e.version.empty()) {
      out += ",\"version\":";
      AppendJsonString(out, e.version);
    }
    out += ",\"kind\":";
    AppendJsonString(out, e.kind);
    out += ",\"verbs\":";
    AppendJsonStringArray(out, *e.verbs);
    if (e.short_names != nullptr && !e.short_names->empty()) {
      out += ",\"shortNames\":";
      AppendJsonStringArray(out, *e.short_names);
    }
    if (e.categories != nullptr && !e.categories->empty()) {
      out += ",\"categories\":";
      AppendJsonStringArray(out, *e.categories);
    }
    if (!e.storage_version_hash.empty()) {
      out += ",\"storageVersionHash\":";
      AppendJsonString(out, e.storage_version_hash);
    }
    out.push_back('}');
  }
  out += "]}";
  return out;
}

std::string StorageVersionHash(std::string_view group, std::string_view version,
                               std::string_view kind) {
  if (kind.empty()) return "";
  std::string gvk;
  gvk.append(group).append("/").append(version).append("/").append(kind);
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  SHA256(reinterpret_cast<const unsigned char*>(gvk.data()), gvk.size(), digest.data());
  static constexpr char kB64[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  // Standard base64 of 8 bytes: 12 characters, the last one '='.
  std::string out;
  for (std::size_t i = 0; i < 8; i += 3) {
    const std::size_t n = std::min<std::size_t>(3, 8 - i);
    uint32_t chunk = static_cast<uint32_t>(digest[i]) << 16;
    if (n > 1) chunk |= static_cast<uint32_t>(digest[i + 1]) << 8;
    if (n > 2) chunk |= digest[i + 2];
    out.push_back(kB64[(chunk >> 18) & 63]);
    out.push_back(kB64[(chunk >> 12) & 63]);
    out.push_back(n > 1 ? kB64[(chunk >> 6) & 63] : '=');
    out.push_back(n > 2 ? kB64[chunk & 63] : '=');
  }
  return out;
}

std::string RenderVersion() {
  std::string out = "{\"major\":\"1\",\"minor\":\"32\",\"gitVersion\":";
  AppendJsonString(out, kServerGitVersion);
  out +=
      ",\"gitCommit\":\"0000000000000000000000000000000000000000\",\"gitTreeState\":\"clean\","
      "\"buildDate\":\"2024-12-11T00:00:00Z\",\"goVersion\":\"go1.23.3\",\"compiler\":\"gc\","
      "\"platform\":\"linux/amd64\"}";
  return out;
}

}  // namespace kube::apiserver::internal
