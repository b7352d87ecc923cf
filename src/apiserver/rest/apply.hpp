#pragma once

#include <set>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <kube/base/result.hpp>
#include <kube/core/options.hpp>
#include <kube/core/type_schema.hpp>

#include "apiserver/rest/context.hpp"

/// Server-side apply: PATCH with `Content-Type: application/apply-patch+yaml`
/// (apiserver-semantics.md §3.4). Internal to src/apiserver/rest.
namespace kube::apiserver::rest {

/// Answers an apply PATCH: validates the options (fieldManager required, 422), decodes the YAML
/// (or JSON) body, checks its apiVersion/kind (400) and that it carries no managedFields (400),
/// then merges it into the live object with `ApplyConfiguration` inside GuaranteedUpdate, or
/// creates the object when missing (201). Conflicts answer 409 unless `force=true`;
/// `dryRun=All` persists nothing. Status writes go through the `/status` subresource.
/// Built-in kinds: a configuration member their type does not declare fails like kube's typed
/// conversion (500, no reason, `failed to create typed patch object (<ns>/<name>; <gvk>): .spec.foo:
/// field not declared in schema`). For the manager `kubectl` the client-side apply bridge of
/// kube's fieldmanager applies: conflicts on fields the last-applied annotation still describes
/// are taken (lastAppliedManager), and an existing annotation is rewritten to the applied
/// configuration (lastAppliedUpdater).
void HandleApply(const Env& env, Request& r, const PatchOptions& opts);

/// The `kubectl.kubernetes.io/last-applied-configuration` value kube's lastAppliedUpdater writes
/// for an applied configuration: the configuration without that annotation key, encoded as Go's encoding/json encodes a map (keys sorted,
/// HTML characters escaped) followed by a newline.
std::string BuildLastApplied(const boost::json::object& config);

/// lastAppliedUpdater: when `manager` is `kubectl` and `obj` (the result of the apply) carries a
/// non-empty last-applied annotation, sets it to `BuildLastApplied(config)`; the annotation is
/// dropped instead if the annotations would exceed kube's 256 KiB total.
void SyncLastApplied(boost::json::object& obj, const boost::json::object& config, std::string_view manager);

/// lastAppliedManager's allowed conflicts: the leaf fields (`PathString` form) of the live
/// object's last-applied annotation whose values the live object still has.
/// **Errors:** 400 when the annotation is absent, empty or not a JSON object; as `LeafFieldSet`.
Result<std::set<std::string>> AllowedConflictsFromLastApplied(const boost::json::object& live,
                                                              const TypeSchema* schema);

/// Decodes a YAML 1.1 document (kube's sigs.k8s.io/yaml rules: plain `true`/`yes`/`on` are
/// booleans, integers and floats are numbers, `~`/`null`/empty are null; quoted scalars are
/// strings) into JSON. JSON is valid input. A key repeated in one map keeps its last value; when
/// `strict_errors` is given, each repetition appends go-yaml's strict-mode line for it
/// (`line 5: key "name" already set in map`). **Errors:** 400 `error decoding YAML: ...`.
Result<boost::json::value> ParseYaml(std::string_view text, std::vector<std::string>* strict_errors = nullptr);

}  // namespace kube::apiserver::rest
