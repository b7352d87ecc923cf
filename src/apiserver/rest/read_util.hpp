#pragma once

#include <string>
#include <string_view>

#include <kube/apiserver/storage.hpp>
#include <kube/base/result.hpp>
#include <kube/core/options.hpp>

#include "apiserver/rest/context.hpp"
#include "apiserver/rest/output.hpp"
#include "apiserver/rest/selection.hpp"

/// The read path shared by LIST, WATCH and DELETECOLLECTION.
namespace kube::apiserver::rest {

/// A request resourceVersion: "" and "0" -> 0 (latest / any), a positive decimal otherwise.
/// **Errors:** 400 BadRequest for anything else.
Result<Revision> ParseRequestRevision(std::string_view rv);

/// "Not older than `rv`": fine when `rv` is 0 or not above the current revision.
/// **Errors:** 504 Timeout `Too large resource version` otherwise.
Result<void> CheckNotOlderThan(Storage& storage, Revision rv);

/// The storage prefix a list or watch scans: the collection prefix, narrowed to one namespace by
/// an exact `metadata.namespace` field selector on an all-namespaces request, and to the keys
/// starting with the name of an exact `metadata.name` selector.
std::string NarrowedPrefix(const Request& r, const Selection& sel);

/// Where and at which revision a list reads.
struct ListPlan {
  std::string prefix;     ///< storage prefix (narrowed by namespace/name field selectors)
  std::string start_key;  ///< from a continue token, else ""
  Revision revision = 0;  ///< 0 = latest
  bool paging = false;    ///< a continue token was given
};

/// Applies the RV/resourceVersionMatch table and decodes the continue token.
/// **Errors:** 400 (bad RV, bad token, RV with continue), 504 (NotOlderThan a future RV).
Result<ListPlan> PlanList(const Env& env, const Request& r, const ListOptions& opts,
                          const Selection& sel);

/// Reads one page (`limit` 0 = all). When the snapshot of a continue token has been compacted, the
/// error is 410 Expired and `*fresh_continue` receives a token that continues at the latest
/// revision (kube's inconsistent continue).
/// **Errors:** 410 Expired, 504 TooLarge, storage failures.
Result<ListPage> ReadPage(const Env& env, const ListPlan& plan, int64_t limit, const Selection& sel,
                          std::string* fresh_continue);

}  // namespace kube::apiserver::rest
