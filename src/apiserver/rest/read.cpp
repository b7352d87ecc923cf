// GET and LIST: the resourceVersion / resourceVersionMatch semantics of apiserver-semantics.md
// §2.1, pagination with continue tokens at one snapshot revision (§2.2) and selectors (§2.3).

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/status.hpp>

#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/continue_token.hpp"
#include "apiserver/rest/hpa.hpp"
#include "apiserver/rest/names.hpp"
#include "apiserver/rest/ops.hpp"
#include "apiserver/rest/output.hpp"
#include "apiserver/rest/read_util.hpp"
#include "apiserver/rest/selection.hpp"

namespace kube::apiserver::rest {

Result<Revision> ParseRequestRevision(std::string_view rv) {
  if (rv.empty() || rv == "0") return Revision{0};
  if (auto parsed = ParseRevision(rv)) return *parsed;
  // kube-apiserver's storage fails to parse it: a 500 without a reason.
  return MakeError(500, "", "resourceVersion: Invalid value: " + QuoteJson(rv) + ": strconv.ParseUint: parsing " +
                                QuoteJson(rv) + ": invalid syntax");
}

Result<void> CheckNotOlderThan(Storage& storage, Revision rv) {
  if (rv == 0) return Ok();
  const Revision current = storage.CurrentRevision();
  if (rv > current) {
    return NewTooLargeResourceVersion(static_cast<uint64_t>(rv), static_cast<uint64_t>(current));
  }
  return Ok();
}

void HandleGet(const Env& env, Request& r) {
  auto opts = GetOptions::FromQuery(r.http.query);
  if (!opts.ok()) return RespondError(r.w, opts.error());
  auto rv = ParseRequestRevision(opts->resource_version);
  if (!rv.ok()) return RespondError(r.w, rv.error());
  if (auto fresh = CheckNotOlderThan(env.storage, *rv); !fresh.ok()) return RespondError(r.w, fresh.error());
  auto format = Negotiate(r, /*is_list=*/false);
  if (!format.ok()) return RespondError(r.w, format.error());
  auto kv = env.storage.Get(r.Key());
  if (!kv.ok()) return RespondError(r.w, MapStorageError(kv.error(), r.Gr(), r.path.name));
  if (r.sub == Subresource::kScale) {
    auto obj = ParseStored(*kv->value);
    if (!obj.ok()) return RespondError(r.w, obj.error());
    auto scale = ScaleFromObject(*r.info, *obj);
    if (!scale.ok()) return RespondError(r.w, scale.error());
    return r.w.Respond(200, "application/json", boost::json::serialize(*scale));
  }
  // kube prints a Table from the stored object (an autoscaling/v1 HorizontalPodAutoscaler's
  // metrics in their stored order).
  const bool print_stored = format->kind == OutputKind::kTable && IsHpaV1View(*r.info);
  RespondObject(env, r, *format, 200, print_stored ? std::string(*kv->value) : ServedJson(*r.info, *kv->value));
}

std::string NarrowedPrefix(const Request& r, const Selection& sel) {
  std::string prefix = r.CollectionPrefix();
  if (r.info->namespaced && r.Namespace().empty()) {
    if (auto ns = sel.ExactField("metadata.namespace"); ns && IsDns1123Label(*ns).empty()) {
      prefix += *ns + "/";
    } else {
      return prefix;
    }
  }
  // A name narrows the scan to the keys that start with it; the selector filters the rest.
  if (auto name = sel.ExactField("metadata.name"); name && !name->empty() &&
                                                    name->find('/') == std::string::npos) {
    prefix += *name;
  }
  return prefix;
}

Result<ListPlan> PlanList(const Env& env, const Request& r, const ListOptions& opts,
                          const Selection& sel) {
  ListPlan plan;
  plan.prefix = NarrowedPrefix(r, sel);
  if (!opts.continue_token.empty()) {
    if (!opts.resource_version.empty() && opts.resource_version != "0") {
      return NewBadRequest("specifying resource version is not allowed when using continue");
    }
    auto pos = DecodeContinue(opts.continue_token, plan.prefix);
    if (!pos.ok()) return std::move(pos).error();
    plan.start_key = pos->key;
    plan.revision = pos->revision > 0 ? pos->revision : 0;
    plan.paging = true;
    return plan;
  }
  auto rv = ParseRequestRevision(opts.resource_version);
  if (!rv.ok()) return std::move(rv).error();
  const bool exact = opts.resource_version_match == "Exact" ||
                     (opts.resource_version_match.empty() && opts.limit > 0);
  if (*rv > 0 && exact) {
    // kube 1.32 reads an exact revision from etcd, which refuses a future one.
    if (*rv > env.storage.CurrentRevision()) {
      return MakeError(500, "", "etcdserver: mvcc: required revision is a future revision");
    }
    plan.revision = *rv;  // the storage answers Expired for compacted revisions
  } else {
    KUBE_RETURN_IF_ERROR(CheckNotOlderThan(env.storage, *rv));
  }
  return plan;
}

Result<ListPage> ReadPage(const Env& env, const ListPlan& plan, int64_t limit, const Selection& sel,
                          std::string* fresh_continue) {
  ListRequest lr;
  lr.prefix = plan.prefix;
  lr.start_key = plan.start_key;
  lr.limit = limit;
  lr.revision = plan.revision;
  if (!sel.Empty()) {
    lr.filter = [&sel](const KeyValue& kv) { return sel.MatchesStored(*kv.value); };
  }
  auto res = env.storage.List(lr);
  if (!res.ok()) {
    if (!IsExpired(res.error())) return std::move(res).error();
    if (plan.paging) {
      // The snapshot is gone: offer a token that continues inconsistently at the latest revision.
      std::string token = EncodeContinue(plan.start_key, plan.prefix, -1);
      Status s = ContinueExpiredStatus(token);
      if (fresh_continue != nullptr) *fresh_continue = std::move(token);
      return std::move(s.error);
    }
    return NewResourceExpired(std::string(kListExpiredMsg));
  }
  ListPage page;
  page.revision = res->revision;
  if (!res->continue_key.empty()) {
    page.continue_token = EncodeContinue(res->continue_key, plan.prefix, res->revision);
    if (sel.Empty() && res->remaining > 0) page.remaining_item_count = res->remaining;
  }
  page.items = std::move(res->items);
  return page;
}

void HandleList(const Env& env, Request& r, const ListOptions& opts) {
  if (auto v = ValidateListOptions(opts); !v.ok()) return RespondError(r.w, v.error());
  auto sel = Selection::Parse(*r.info, opts);
  if (!sel.ok()) return RespondError(r.w, sel.error());
  auto format = Negotiate(r, /*is_list=*/true);
  if (!format.ok()) return RespondError(r.w, format.error());
  auto plan = PlanList(env, r, opts, *sel);
  if (!plan.ok()) return RespondError(r.w, plan.error());
  // kube-apiserver answers resourceVersion=0 from its watch cache, which does not paginate: the
  // limit is ignored and the whole list comes back without a continue token.
  // A negative limit is no limit, as kube-apiserver takes it.
  const int64_t limit = (opts.continue_token.empty() && opts.resource_version == "0") || opts.limit < 0 ? 0 : opts.limit;
  std::string fresh_continue;
  auto page = ReadPage(env, *plan, limit, *sel, &fresh_continue);
  if (!page.ok()) {
    if (!fresh_continue.empty()) return RespondStatus(r.w, ContinueExpiredStatus(fresh_continue));
    return RespondError(r.w, page.error());
  }
  RespondList(env, r, *format, *page);
}

}  // namespace kube::apiserver::rest
