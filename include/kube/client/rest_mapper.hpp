#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <kube/base/clock.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/result.hpp>
#include <kube/client/discovery.hpp>
#include <kube/core/gvk.hpp>

namespace kube::client {

/// The `reason` of the error a RESTMapper returns when nothing matches (client-go
/// `meta.NoKindMatchError` / `NoResourceMatchError`); code 404. Not `IsNotFound`: no object was
/// looked up.
inline constexpr std::string_view kNoMatchReason = "NoMatch";
/// True for a RESTMapper "no match" error.
bool IsNoMatch(const Error& e);

/// How a kind maps to a REST resource.
struct RestMapping {
  GroupVersionResource resource;
  GroupVersionKind kind;
  bool namespaced = false;
  bool operator==(const RestMapping&) const = default;
};

/// Options of RestMapper.
struct RestMapperOptions {
  /// After a miss, discovery is refreshed at most this often (a typo must not hammer the server).
  Clock::Duration min_refresh_interval = std::chrono::seconds(1);
};

/// Maps kinds to resources and back, from discovery (client-go's DeferredDiscoveryRESTMapper /
/// controller-runtime's dynamic mapper): lazily loaded, and re-discovered when a lookup misses
/// (a CRD registered after start is found). Resource names match the plural, the singular or a
/// short name, case-insensitively; group and version may be omitted. When several groups match,
/// the first in discovery order wins (core group first, then `/apis` order) and, within a
/// group, the preferred version — kubectl's priority order.
/// Subresources are not mapped.
/// **Thread-safety:** all members may be called concurrently.
class RestMapper final {
 public:
  /// Where the mapper gets discovery from; called again after an invalidation.
  using Source = std::function<Result<std::shared_ptr<const DiscoveryResult>>(bool invalidate)>;

  /// A mapper over `discovery` (shared). `clock` must outlive the mapper.
  explicit RestMapper(std::shared_ptr<DiscoveryClient> discovery, RestMapperOptions options = {},
                      Clock& clock = RealClock::Instance());
  /// A mapper over an arbitrary source (tests, fixed data).
  explicit RestMapper(Source source, RestMapperOptions options = {},
                      Clock& clock = RealClock::Instance());

  /// The mapping of `gk` at `version` ("" = the group's preferred version that serves the kind).
  /// **Errors:** kNoMatchReason (404) `no matches for kind "Foo" in group "bar"`; discovery errors.
  Result<RestMapping> Mapping(const GroupKind& gk, std::string_view version = {}) KUBE_EXCLUDES(mu_);
  /// The fully specified resource for a partial one: `resource` may be plural, singular or a
  /// short name; empty `group`/`version` match any. **Errors:** as Mapping.
  Result<GroupVersionResource> ResourceFor(const GroupVersionResource& partial) KUBE_EXCLUDES(mu_);
  /// The kind served by a (partial) resource. **Errors:** as Mapping.
  Result<GroupVersionKind> KindFor(const GroupVersionResource& partial) KUBE_EXCLUDES(mu_);
  /// Whether `gvk` is namespaced. **Errors:** as Mapping.
  Result<bool> IsNamespaced(const GroupVersionKind& gvk) KUBE_EXCLUDES(mu_);
  /// Forgets the loaded discovery; the next lookup reloads it.
  void Reset() KUBE_EXCLUDES(mu_);

 private:
  struct Entry {
    RestMapping mapping;
    std::string singular;
    std::vector<std::string> short_names;
    bool preferred = false;  // the group's preferred version
  };
  struct Index {
    std::vector<Entry> entries;  // priority order
  };
  Result<std::shared_ptr<const Index>> Load(bool after_miss) KUBE_EXCLUDES(mu_);
  template <class Find>
  auto Lookup(Find&& find) -> decltype(find(std::declval<const Index&>()));
  static std::shared_ptr<const Index> BuildIndex(const DiscoveryResult& result);

  Source source_;
  RestMapperOptions options_;
  Clock& clock_;
  Mutex mu_;
  std::shared_ptr<const Index> index_ KUBE_GUARDED_BY(mu_);
  Clock::TimePoint last_load_ KUBE_GUARDED_BY(mu_){};
  bool loaded_once_ KUBE_GUARDED_BY(mu_) = false;
};

}  // namespace kube::client
