#include <kube/apiserver/discovery.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>

#include <kube/base/mutex.hpp>
#include <kube/core/status.hpp>

#include "apiserver/discovery/internal/discovery_docs.hpp"
#include "apiserver/discovery/internal/json_out.hpp"
#include "apiserver/discovery/internal/media_type.hpp"

namespace kube::apiserver {
namespace {

using internal::Snapshot;

constexpr std::string_view kJson = "application/json";
constexpr std::string_view kTextPlain = "text/plain; charset=utf-8";

// One rendered document and its quoted ETag.
struct Doc {
  std::string body;
  std::string etag;  // "\"<hex>\""
};
using DocPtr = std::shared_ptr<const Doc>;

DocPtr MakeDoc(std::string body) {
  auto doc = std::make_shared<Doc>();
  doc->etag = "\"" + internal::HexDigest(body) + "\"";
  doc->body = std::move(body);
  return doc;
}

// Rendered documents per registry, memoized while the registry's resources are unchanged.
// An entry is valid for a registry when its generation matches AND its snapshot holds the very
// same ResourceInfo objects (pointer identity; the entry keeps them alive, so the identity cannot
// be recycled): a new Registry constructed at the address of a destroyed one, with an equal
// generation count, never sees the old documents.
class DocCache final {
 public:
  // The document `key` for `registry` (whose current resources are `snapshot`), rendered by
  // `render` on a miss; nullptr when `render` says the document does not exist (not cached, so
  // probing unknown paths cannot grow the cache).
  DocPtr Get(const Registry& registry, uint64_t generation, const Snapshot& snapshot,
             const std::string& key, const std::function<std::optional<std::string>()>& render) {
    {
      MutexLock lock(mu_);
      Entry& entry = EntryFor(registry, generation, snapshot);
      if (auto it = entry.docs.find(key); it != entry.docs.end()) return it->second;
    }
    // Render outside the lock; two racing renders produce the same bytes.
    std::optional<std::string> body = render();
    if (!body) return nullptr;
    DocPtr doc = MakeDoc(std::move(*body));
    MutexLock lock(mu_);
    Entry& entry = EntryFor(registry, generation, snapshot);
    entry.docs.emplace(key, doc);
    return doc;
  }

 private:
  static constexpr std::size_t kMaxEntries = 8;

  struct Entry {
    const Registry* registry = nullptr;
    uint64_t generation = 0;
    Snapshot snapshot;
    std::map<std::string, DocPtr> docs;
    uint64_t last_use = 0;
  };

  Entry& EntryFor(const Registry& registry, uint64_t generation, const Snapshot& snapshot)
      KUBE_REQUIRES(mu_) {
    ++tick_;
    Entry* victim = nullptr;
    for (Entry& e : entries_) {
      if (e.registry == &registry) {
        if (e.generation != generation || e.snapshot != snapshot) {
          e.generation = generation;
          e.snapshot = snapshot;
          e.docs.clear();
        }
        e.last_use = tick_;
        return e;
      }
      if (victim == nullptr || e.last_use < victim->last_use) victim = &e;
    }
    if (entries_.size() < kMaxEntries) {
      entries_.emplace_back();
      victim = &entries_.back();
    }
    *victim = Entry{&registry, generation, snapshot, {}, tick_};
    return *victim;
  }

  Mutex mu_;
  std::vector<Entry> entries_ KUBE_GUARDED_BY(mu_);  // at most kMaxEntries, one per registry
  uint64_t tick_ KUBE_GUARDED_BY(mu_) = 0;
};

DocCache& Cache() {
  static DocCache cache;  // process-wide; see ServeDiscovery's contract
  return cache;
}

enum class DiscoveryFormat { kLegacy, kAggregatedV2, kAggregatedV2Beta1 };

// Negotiates the body of a discovery endpoint. Aggregated formats are offered only on /api and
// /apis (`allow_aggregated`); everything else speaks plain JSON, which a range with conversion
// parameters (`as=Table`, ...) cannot select (kube's DefaultEndpointRestrictions).
Result<DiscoveryFormat> NegotiateDiscovery(std::string_view accept, bool allow_aggregated) {
  if (accept.empty()) return DiscoveryFormat::kLegacy;
  for (const internal::MediaRange& m : internal::ParseAccept(accept)) {
    if (!m.AcceptsJson()) continue;
    if (!m.HasConversion()) return DiscoveryFormat::kLegacy;
    if (!allow_aggregated) continue;
    if (m.Param("g") != "apidiscovery.k8s.io" || m.Param("as") != "APIGroupDiscoveryList") continue;
    if (m.Param("v") == "v2") return DiscoveryFormat::kAggregatedV2;
    if (m.Param("v") == "v2beta1") return DiscoveryFormat::kAggregatedV2Beta1;
  }
  std::vector<std::string> accepted = {std::string(kJson)};
  if (allow_aggregated) {
    accepted.emplace_back(kAggregatedDiscoveryV2ContentType);
    accepted.emplace_back(kAggregatedDiscoveryV2Beta1ContentType);
  }
  return NewNotAcceptable(accepted);
}

SimpleResponse NotFound() {
  // Go's http.NotFound, which kube-apiserver's not-found handler uses.
  return {404, std::string(kTextPlain), "404 page not found\n", {{"X-Content-Type-Options", "nosniff"}}};
}

SimpleResponse ErrorResponse(const Error& e) {
  return {e.code, std::string(kJson), StatusJson(e), {}};
}

// A cached document answered with its ETag, or 304 when the client already holds it.
SimpleResponse WithETag(const HttpRequest& req, const DocPtr& doc, std::string_view content_type) {
  SimpleResponse resp{200, std::string(content_type), {}, {}};
  resp.headers = {{"Cache-Control", "public"}, {"Vary", "Accept"}, {"ETag", doc->etag}};
  if (req.Header("if-none-match") == std::string_view(doc->etag)) {
    resp.status = 304;
    return resp;
  }
  resp.body = doc->body;
  return resp;
}

std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> out;
  while (!path.empty()) {
    if (path.front() == '/') {
      path.remove_prefix(1);
      continue;
    }
    const auto slash = path.find('/');
    out.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash);
  }
  return out;
}

bool QueryHasVerbose(std::string_view query) {
  std::size_t start = 0;
  while (start <= query.size()) {
    const auto amp = query.find('&', start);
    const std::string_view kv =
        query.substr(start, amp == std::string_view::npos ? std::string_view::npos : amp - start);
    if (kv == "verbose" || kv.starts_with("verbose=")) return true;
    if (amp == std::string_view::npos) break;
    start = amp + 1;
  }
  return false;
}

class Server {
 public:
  Server(const HttpRequest& req, const Registry& registry)
      : req_(req), registry_(registry), generation_(registry.Generation()), snapshot_(registry.All()) {}

  // A memoized document; nullptr when it does not exist.
  DocPtr Doc(const std::string& key, const std::function<std::optional<std::string>()>& render) {
    return Cache().Get(registry_, generation_, snapshot_, key, render);
  }

  std::optional<SimpleResponse> Serve(const std::vector<std::string_view>& seg) {
    if (seg.empty()) return std::nullopt;
    const std::string_view root = seg[0];
    if (root == "api") return ServeCore(seg);
    if (root == "apis") return ServeGroups(seg);
    if (root == "openapi") return ServeOpenApi(seg);
    if (root == "version" && seg.size() == 1) {
      return SimpleResponse{200, std::string(kJson), internal::RenderVersion(), {}};
    }
    if ((root == "healthz" || root == "livez" || root == "readyz") &&
        (seg.size() == 1 || (seg.size() == 2 && seg[1] == "ping"))) {
      std::string body = "ok";
      if (seg.size() == 1 && QueryHasVerbose(req_.query)) {
        body = "[+]ping ok\n" + std::string(root) + " check passed\n";
      }
      return SimpleResponse{200, std::string(kTextPlain), std::move(body), {{"X-Content-Type-Options", "nosniff"}}};
    }
    return std::nullopt;
  }

 private:
  std::string_view Accept() const { return req_.Header("accept").value_or(""); }

  std::optional<SimpleResponse> ServeCore(const std::vector<std::string_view>& seg) {
    if (seg.size() == 1) {
      auto format = NegotiateDiscovery(Accept(), /*allow_aggregated=*/true);
      if (!format.ok()) return ErrorResponse(format.error());
      if (*format == DiscoveryFormat::kLegacy) {
        // The address depends on the request, so this small document is not cached.
        const std::string_view host = req_.Header("host").value_or("127.0.0.1:6443");
        return SimpleResponse{200, std::string(kJson),
                              internal::RenderApiVersions(snapshot_, host), {{"Vary", "Accept"}}};
      }
      return Aggregated(/*core=*/true, *format);
    }
    if (seg.size() == 2) return ResourceList("", seg[1]);
    return std::nullopt;
  }

  std::optional<SimpleResponse> ServeGroups(const std::vector<std::string_view>& seg) {
    if (seg.size() == 1) {
      auto format = NegotiateDiscovery(Accept(), /*allow_aggregated=*/true);
      if (!format.ok()) return ErrorResponse(format.error());
      if (*format == DiscoveryFormat::kLegacy) {
        DocPtr doc = Doc("legacy:/apis", [&] { return internal::RenderApiGroupList(snapshot_); });
        return SimpleResponse{200, std::string(kJson), doc->body, {{"Vary", "Accept"}}};
      }
      return Aggregated(/*core=*/false, *format);
    }
    if (seg.size() == 2) {
      auto format = NegotiateDiscovery(Accept(), /*allow_aggregated=*/false);
      if (!format.ok()) return ErrorResponse(format.error());
      const std::string group(seg[1]);
      DocPtr doc = Doc("group:" + group, [&] { return internal::RenderApiGroup(snapshot_, group); });
      if (!doc) return NotFound();
      return SimpleResponse{200, std::string(kJson), doc->body, {}};
    }
    if (seg.size() == 3) return ResourceList(seg[1], seg[2]);
    return std::nullopt;
  }

  SimpleResponse Aggregated(bool core, DiscoveryFormat format) {
    const bool v2 = format == DiscoveryFormat::kAggregatedV2;
    const std::string key = std::string(core ? "agg:/api:" : "agg:/apis:") + (v2 ? "v2" : "v2beta1");
    DocPtr doc = Doc(key, [&] {
      return internal::RenderAggregated(
          snapshot_, core, v2 ? "apidiscovery.k8s.io/v2" : "apidiscovery.k8s.io/v2beta1");
    });
    return WithETag(req_, doc,
                    v2 ? kAggregatedDiscoveryV2ContentType : kAggregatedDiscoveryV2Beta1ContentType);
  }

  SimpleResponse ResourceList(std::string_view group_view, std::string_view version_view) {
    auto format = NegotiateDiscovery(Accept(), /*allow_aggregated=*/false);
    if (!format.ok()) return ErrorResponse(format.error());
    const std::string group(group_view), version(version_view);
    DocPtr doc = Doc("gv:" + group + "/" + version, [&] {
      return internal::RenderApiResourceList(snapshot_, group, version);
    });
    if (!doc) return NotFound();
    return SimpleResponse{200, std::string(kJson), doc->body, {}};
  }

  DocPtr OpenApiDoc(const std::string& group, const std::string& version) {
    return Doc("openapi:" + group + "/" + version, [&] {
      return internal::RenderOpenApiGroupVersion(snapshot_, group, version);
    });
  }

  std::optional<SimpleResponse> ServeOpenApi(const std::vector<std::string_view>& seg) {
    if (seg.size() < 2) return std::nullopt;
    if (seg[1] == "v2" && seg.size() == 2) return NotFound();  // see docs/apiserver-discovery.md
    if (seg[1] != "v3") return std::nullopt;
    // kubectl reads these documents as JSON; the Accept header is not negotiated.
    if (seg.size() == 2) {
      DocPtr index = Doc("openapi:index", [&] {
        return internal::RenderOpenApiIndex(snapshot_, [&](const std::string& g, const std::string& v) {
          DocPtr gv = OpenApiDoc(g, v);
          return gv ? gv->etag.substr(1, gv->etag.size() - 2) : std::string();
        });
      });
      // kube-openapi writes the index without a Content-Type: Go's sniffing calls it text.
      return WithETag(req_, index, "text/plain; charset=utf-8");
    }
    DocPtr doc;
    if (seg.size() == 4 && seg[2] == "api") {
      doc = OpenApiDoc("", std::string(seg[3]));
    } else if (seg.size() == 5 && seg[2] == "apis") {
      doc = OpenApiDoc(std::string(seg[3]), std::string(seg[4]));
    } else {
      return NotFound();
    }
    if (!doc) return NotFound();
    return WithETag(req_, doc, kJson);
  }

  const HttpRequest& req_;
  const Registry& registry_;
  const uint64_t generation_;
  const Snapshot snapshot_;
};

}  // namespace

std::optional<SimpleResponse> ServeDiscovery(const HttpRequest& req, const Registry& registry) {
  if (req.method != "GET") return std::nullopt;
  const std::vector<std::string_view> seg = Segments(req.path);
  if (seg.empty()) return std::nullopt;
  const std::string_view root = seg[0];
  if (root != "api" && root != "apis" && root != "openapi" && root != "version" &&
      root != "healthz" && root != "livez" && root != "readyz") {
    return std::nullopt;
  }
  // Only the exact shapes below are discovery; deeper paths (/api/v1/pods) are REST.
  if ((root == "api" && seg.size() > 2) || (root == "apis" && seg.size() > 3)) return std::nullopt;
  Server server(req, registry);
  return server.Serve(seg);
}

}  // namespace kube::apiserver
