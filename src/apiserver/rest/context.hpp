#pragma once

#include <string>
#include <string_view>

#include <kube/apiserver/apiserver.hpp>
#include <kube/apiserver/http_server.hpp>
#include <kube/apiserver/resource.hpp>
#include <kube/apiserver/storage.hpp>
#include <kube/base/clock.hpp>
#include <kube/core/gvk.hpp>
#include <kube/core/options.hpp>

#include "apiserver/rest/strategy.hpp"
#include "apiserver/rest/url.hpp"

/// Shared state of the REST handler and of one request. Internal to src/apiserver/rest.
namespace kube::apiserver::rest {

class WatchPump;

/// What every operation needs; borrowed from the handler, which outlives its requests.
struct Env {
  Storage& storage;
  Registry& registry;
  RestOptions options;
  Clock& clock;
  /// Delivers the live phase of watches (nullptr: each watch's thread does; see watch.cpp).
  WatchPump* pump = nullptr;
};

/// One resource request after routing.
struct Request {
  const HttpRequest& http;
  ResponseWriter& w;
  RequestPath path;
  ResourcePtr info;  ///< the served resource (never null after routing)
  Subresource sub = Subresource::kNone;

  /// The namespace of the request ("" for cluster-scoped resources and all-namespace lists).
  const std::string& Namespace() const { return path.ns; }
  GroupResource Gr() const { return info->Gr(); }
  /// The storage prefix of the request's collection: the resource prefix plus "<ns>/" when the
  /// request is namespaced.
  std::string CollectionPrefix() const {
    std::string p = info->StoragePrefix();
    if (info->namespaced && !path.ns.empty()) p += path.ns + "/";
    return p;
  }
  /// The storage key of the named object.
  std::string Key() const { return info->StorageKey(path.ns, path.name); }
};

// --- responses (output.cpp) ---

/// Answers with the Status of `err` (HTTP status = its code; 500 when it has none).
void RespondError(ResponseWriter& w, const Error& err);
/// Answers with a full Status (e.g. an expired continue token with `metadata.continue`).
void RespondStatus(ResponseWriter& w, const Status& status);
/// kube's plain-text 404 for paths that name nothing.
void RespondNotFoundPage(ResponseWriter& w);

/// The storage error `err` rewritten for `gr`/`name` with kube's messages (NotFound,
/// AlreadyExists, Conflict with the optimistic-lock cause); other errors pass through.
Error MapStorageError(const Error& err, const GroupResource& gr, std::string_view name);

}  // namespace kube::apiserver::rest
