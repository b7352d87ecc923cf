#pragma once

#include <string_view>

#include <boost/json/value.hpp>

#include <kube/base/result.hpp>
#include <kube/core/options.hpp>

#include "apiserver/rest/context.hpp"

/// Server-side apply: PATCH with `Content-Type: application/apply-patch+yaml`
/// (apiserver-semantics.md §3.4). Internal to src/apiserver/rest.
namespace kube::apiserver::rest {

/// Answers an apply PATCH: validates the options (fieldManager required, 422), decodes the YAML
/// (or JSON) body, checks its apiVersion/kind (400) and that it carries no managedFields (400),
/// then merges it into the live object with `ApplyConfiguration` inside GuaranteedUpdate, or
/// creates the object when missing (201). Conflicts answer 409 unless `force=true`;
/// `dryRun=All` persists nothing. Status writes go through the `/status` subresource.
void HandleApply(const Env& env, Request& r, const PatchOptions& opts);

/// Decodes a YAML 1.1 document (kube's sigs.k8s.io/yaml rules: plain `true`/`yes`/`on` are
/// booleans, integers and floats are numbers, `~`/`null`/empty are null; quoted scalars are
/// strings) into JSON. JSON is valid input. **Errors:** 400 `error decoding YAML: ...`.
Result<boost::json::value> ParseYaml(std::string_view text);

}  // namespace kube::apiserver::rest
