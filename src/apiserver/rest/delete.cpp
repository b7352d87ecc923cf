// DELETE and DELETECOLLECTION (apiserver-semantics.md §3.5): DeleteOptions from the body or the
// query, then kube's Store.Delete (deletion.hpp): preconditions, propagation-policy finalizers,
// deletionTimestamp while finalizers remain, or removal with the type's response. Namespaces go
// Terminating; the namespace controller (src/apiserver/controllers) deletes their content and
// finalizes them, and the garbage collector acts on the GC finalizers and ownerReferences.

#include <array>

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/status.hpp>
#include <kube/core/time.hpp>

#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/deletion.hpp"
#include "apiserver/rest/json_util.hpp"
#include "apiserver/rest/ops.hpp"
#include "apiserver/rest/output.hpp"
#include "apiserver/rest/read_util.hpp"
#include "apiserver/rest/write_util.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

constexpr std::array<std::string_view, 3> kImmortalNamespaces = {"default", "kube-system", "kube-public"};

// kube decodes a DELETE body with the meta scheme, which registers DeleteOptions alone: another
// kind is the scheme's "not registered" error, which the handler answers as a 500.
Result<void> CheckDeleteOptionsKind(std::string_view body) {
  boost::system::error_code ec;
  const json::value v = json::parse(json::string_view(body.data(), body.size()), ec);
  if (ec || !v.is_object()) return Ok();
  const auto kind = StringAt(v.get_object(), "kind");
  if (kind.empty() || kind == "DeleteOptions") return Ok();
  const auto version = StringAt(v.get_object(), "apiVersion");
  return MakeError(500, "", "no kind " + QuoteJson(kind) + " is registered for version " +
                                QuoteJson(version.empty() ? std::string_view("v1") : version) +
                                " in scheme \"pkg/runtime/scheme.go:100\"");
}

}  // namespace

void HandleDelete(const Env& env, Request& r) {
  if (auto kind = CheckDeleteOptionsKind(r.http.body); !kind.ok()) return RespondError(r.w, kind.error());
  auto opts = DeleteOptions::FromRequest(r.http.query, r.http.body);
  if (!opts.ok()) return RespondError(r.w, opts.error());
  const bool dry_run = !opts->dry_run.empty();
  auto format = Negotiate(r, /*is_list=*/false);
  if (!format.ok()) return RespondError(r.w, format.error());
  if (KindOf(*r.info) == BuiltinKind::kNamespace) {
    for (auto immortal : kImmortalNamespaces) {
      if (r.path.name == immortal) {
        return RespondError(r.w, NewForbidden(r.Gr(), r.path.name, "this namespace may not be deleted"));
      }
    }
  }
  auto outcome = DeleteObject(env, *r.info, r.path.ns, r.path.name, *opts, dry_run);
  if (!outcome.ok()) return RespondError(r.w, outcome.error());
  std::vector<std::string> warnings;
  if (r.info->builtin && r.info->group == "batch" && r.info->resource == "jobs" && !opts->propagation_policy &&
      !opts->orphan_dependents) {
    warnings.emplace_back(
        "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove "
        "them or set propagationPolicy=Orphan to suppress this warning");
  }
  if (!outcome->gone) {
    // kube answers 202 when the object stays and cascading deletion was asked for explicitly.
    const int code = opts->orphan_dependents.has_value() && !*opts->orphan_dependents ? 202 : 200;
    return RespondObject(env, r, *format, code, ServedJson(*r.info, outcome->stored), WarningHeaders(warnings));
  }
  if (ReturnsDeletedObject(*r.info)) {
    if (KindOf(*r.info) == BuiltinKind::kPod) {
      // A pod is deleted gracefully with a period of 0: the answer carries the marks.
      auto pod = ParseStored(outcome->stored);
      if (pod.ok()) {
        auto& meta = EnsureObject(*pod, "metadata");
        if (!meta.contains("deletionTimestamp")) meta["deletionTimestamp"] = FormatTime(env.clock.WallNow());
        meta["deletionGracePeriodSeconds"] = 0;
        return RespondObject(env, r, *format, 200, json::serialize(*pod));
      }
    }
    return RespondObject(env, r, *format, 200, ServedJson(*r.info, outcome->stored));
  }
  StatusDetails details;
  details.name = r.path.name;
  details.group = r.info->group;
  details.kind = r.info->resource;  // kube: "Yes we set Kind field to resource"
  details.uid = outcome->uid;
  r.w.Respond(200, "application/json", SuccessStatusJson(details));
}

void HandleDeleteCollection(const Env& env, Request& r) {
  auto list_opts = ListOptions::FromQuery(r.http.query);
  if (!list_opts.ok()) return RespondError(r.w, list_opts.error());
  list_opts->watch = false;
  if (auto v = ValidateListOptions(*list_opts); !v.ok()) return RespondError(r.w, v.error());
  if (auto kind = CheckDeleteOptionsKind(r.http.body); !kind.ok()) return RespondError(r.w, kind.error());
  auto opts = DeleteOptions::FromRequest(r.http.query, r.http.body);
  if (!opts.ok()) return RespondError(r.w, opts.error());
  const bool dry_run = !opts->dry_run.empty();
  auto sel = Selection::Parse(*r.info, *list_opts);
  if (!sel.ok()) return RespondError(r.w, sel.error());
  auto format = Negotiate(r, /*is_list=*/true);
  if (!format.ok()) return RespondError(r.w, format.error());
  auto plan = PlanList(env, r, *list_opts, *sel);
  if (!plan.ok()) return RespondError(r.w, plan.error());
  auto page = ReadPage(env, *plan, 0, *sel, nullptr);
  if (!page.ok()) return RespondError(r.w, page.error());
  for (const KeyValue& item : page->items) {
    auto current = ParseStored(*item.value);
    if (!current.ok()) continue;
    const auto& meta = MetadataOf(*current);
    // Each item is deleted as listed: a recreated object (another uid) is left alone.
    DeleteOptions item_opts = *opts;
    if (!item_opts.preconditions) item_opts.preconditions.emplace();
    if (!item_opts.preconditions->uid) item_opts.preconditions->uid = std::string(StringAt(meta, "uid"));
    (void)DeleteObject(env, *r.info, StringAt(meta, "namespace"), StringAt(meta, "name"), item_opts, dry_run);
  }
  // kube answers with the list of what it deleted (as listed).
  RespondList(env, r, *format, *page);
}

}  // namespace kube::apiserver::rest
