// POST (create) and PUT (update, /status, /scale, /finalize): apiserver-semantics.md §3.1, §3.2.

#include <boost/json.hpp>

#include <kube/core/json_pointer.hpp>
#include <kube/core/status.hpp>

#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/json_util.hpp"
#include "apiserver/rest/ops.hpp"
#include "apiserver/rest/output.hpp"
#include "apiserver/rest/scale.hpp"
#include "apiserver/rest/schema_validation.hpp"
#include "apiserver/rest/write_util.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;

void HandleCreate(const Env& env, Request& r) {
  auto opts = CreateOptions::FromQuery(r.http.query);
  if (!opts.ok()) return RespondError(r.w, opts.error());
  auto dry_run = ValidateWriteOptions(opts->dry_run, opts->field_validation, "CreateOptions");
  if (!dry_run.ok()) return RespondError(r.w, dry_run.error());
  auto format = Negotiate(r, /*is_list=*/false);
  if (!format.ok()) return RespondError(r.w, format.error());
  std::vector<std::string> decode_problems;
  auto obj = DecodeBody(r, r.http.body, r.info->ApiVersion(), r.info->kind, &decode_problems);
  if (!obj.ok()) return RespondError(r.w, obj.error());
  std::vector<std::string> warnings;
  if (auto known = CheckUnknownFields(*r.info, *obj, opts->field_validation, &warnings, decode_problems); !known.ok()) {
    return RespondError(r.w, known.error());
  }
  auto& meta = EnsureObject(*obj, "metadata");
  const std::string name(StringAt(meta, "name"));
  if (auto admitted = AdmitNamespace(env, r, /*creating=*/true, name); !admitted.ok()) {
    return RespondError(r.w, admitted.error());
  }
  if (r.info->namespaced) {
    const auto ns = StringAt(meta, "namespace");
    if (!ns.empty() && ns != r.Namespace()) {
      return RespondError(r.w, NewBadRequest("the namespace of the provided object does not match "
                                             "the namespace sent on the request"));
    }
    meta["namespace"] = r.Namespace();
  } else {
    meta.erase("namespace");
  }
  auto created = CreateObject(env, r, std::move(*obj), *dry_run,
                              KindOf(*r.info) == BuiltinKind::kEventV1);
  if (!created.ok()) return RespondError(r.w, created.error());
  RespondObject(env, r, *format, 201, ServedJson(*r.info, created->stored), WarningHeaders(warnings));
}

void HandleUpdate(const Env& env, Request& r) {
  auto opts = UpdateOptions::FromQuery(r.http.query);
  if (!opts.ok()) return RespondError(r.w, opts.error());
  auto dry_run = ValidateWriteOptions(opts->dry_run, opts->field_validation, "UpdateOptions");
  if (!dry_run.ok()) return RespondError(r.w, dry_run.error());
  auto format = Negotiate(r, /*is_list=*/false);
  if (!format.ok()) return RespondError(r.w, format.error());

  if (r.sub == Subresource::kScale) {
    auto scale = DecodeScale(r, r.http.body);
    if (!scale.ok()) return RespondError(r.w, scale.error());
    if (auto admitted = AdmitNamespace(env, r, false, r.path.name); !admitted.ok()) {
      return RespondError(r.w, admitted.error());
    }
    auto result = UpdateScale(env, r, [&](const json::object&) -> Result<json::object> { return *scale; },
                              *dry_run);
    if (!result.ok()) return RespondError(r.w, result.error());
    return r.w.Respond(200, "application/json", json::serialize(*result));
  }

  std::vector<std::string> decode_problems;
  auto obj = DecodeBody(r, r.http.body, r.info->ApiVersion(), r.info->kind, &decode_problems);
  if (!obj.ok()) return RespondError(r.w, obj.error());
  std::vector<std::string> warnings;
  if (auto known = CheckUnknownFields(*r.info, *obj, opts->field_validation, &warnings, decode_problems); !known.ok()) {
    return RespondError(r.w, known.error());
  }
  if (auto named = CheckNameAndNamespace(r, *obj); !named.ok()) return RespondError(r.w, named.error());
  if (auto admitted = AdmitNamespace(env, r, false, r.path.name); !admitted.ok()) {
    return RespondError(r.w, admitted.error());
  }
  auto& meta = EnsureObject(*obj, "metadata");
  if (r.info->namespaced) {
    meta["namespace"] = r.Namespace();
  } else {
    meta.erase("namespace");
  }
  const json::object& desired = *obj;
  auto result = GuaranteedUpdate(
      env, r, r.sub,
      [&](const json::object&, Revision current_rv) -> Result<json::object> {
        KUBE_RETURN_IF_ERROR(CheckUpdateResourceVersion(r, desired, current_rv));
        return desired;
      },
      [&]() -> Result<json::object> {
        if (r.sub == Subresource::kNone && r.info->allow_create_on_update) {
          json::object fresh = desired;
          EnsureObject(fresh, "metadata").erase("resourceVersion");
          return fresh;
        }
        return NewNotFound(r.Gr(), r.path.name);
      },
      *dry_run);
  if (!result.ok()) return RespondError(r.w, result.error());
  RespondObject(env, r, *format, result->created ? 201 : 200, ServedJson(*r.info, result->stored),
                WarningHeaders(warnings));
}

}  // namespace kube::apiserver::rest
