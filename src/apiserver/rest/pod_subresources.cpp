// The pod subresources a scheduler and a drain use: POST pods/NAME/binding (and the legacy
// POST namespaces/NS/bindings) and POST pods/NAME/eviction, as kube's pod registry serves them
// (pkg/registry/core/pod/storage: BindingREST, EvictionREST).

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/options.hpp>
#include <kube/core/status.hpp>
#include <kube/core/time.hpp>

#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/deletion.hpp"
#include "apiserver/rest/json_util.hpp"
#include "apiserver/rest/ops.hpp"
#include "apiserver/rest/output.hpp"
#include "apiserver/rest/write_util.hpp"

namespace kube::apiserver::rest {
namespace json = boost::json;
namespace {

// The 201 Success Status both subresources answer.
void RespondCreatedStatus(Request& r) {
  Status s{.status = std::string(kStatusSuccess), .error = {}, .resource_version = {}, .continue_token = {}};
  s.error.code = 201;
  RespondStatus(r.w, s);
}

// The JSON body as an object of `kind` in one of `api_versions` (absent members are defaulted).
Result<json::object> DecodeSubresourceBody(const Request& r, std::string_view kind,
                                           std::initializer_list<std::string_view> api_versions) {
  auto parsed = ParseJson(r.http.body);
  if (!parsed.ok() || !parsed->is_object()) {
    return NewBadRequest("the object provided is unrecognized (must be of type " + std::string(kind) +
                         "): " + (parsed.ok() ? std::string("expected a JSON object") : parsed.error().message));
  }
  json::object obj = std::move(parsed->get_object());
  const auto got_kind = StringAt(obj, "kind");
  const auto got_version = StringAt(obj, "apiVersion");
  bool version_ok = got_version.empty();
  for (auto v : api_versions) version_ok = version_ok || got_version == v;
  if ((!got_kind.empty() && got_kind != kind) || !version_ok) {
    return NewBadRequest("the API version in the data (" + std::string(got_version) +
                         ") does not match the expected API version (" + std::string(*api_versions.begin()) + ")");
  }
  return obj;
}

// A plain error of kube's validation aggregate: a 500 without a reason, as BindingREST returns it.
Error AggregateError(const FieldError& e) { return MakeError(500, "", e.String()); }

}  // namespace

void HandlePodBinding(const Env& env, Request& r) {
  auto opts = CreateOptions::FromQuery(r.http.query);
  if (!opts.ok()) return RespondError(r.w, opts.error());
  auto dry_run = ValidateWriteOptions(opts->dry_run, opts->field_validation, "CreateOptions");
  if (!dry_run.ok()) return RespondError(r.w, dry_run.error());
  auto binding = DecodeSubresourceBody(r, "Binding", {"v1"});
  if (!binding.ok()) return RespondError(r.w, binding.error());
  const auto& meta = MetadataOf(*binding);
  const std::string name(StringAt(meta, "name"));
  if (r.sub == Subresource::kBinding && name != r.path.name) {
    return RespondError(r.w, NewBadRequest("name in URL does not match name in Binding object"));
  }
  if (const auto ns = StringAt(meta, "namespace"); !ns.empty() && ns != r.path.ns) {
    return RespondError(r.w, NewBadRequest("the namespace of the provided object does not match the namespace sent on the request"));
  }
  // ValidatePodBinding.
  const auto* target = ObjectAt(*binding, "target");
  const std::string target_kind(target != nullptr ? StringAt(*target, "kind") : "");
  const std::string node(target != nullptr ? StringAt(*target, "name") : "");
  if (!target_kind.empty() && target_kind != "Node") {
    return RespondError(r.w, AggregateError(FieldError::NotSupported("target.kind", QuoteJson(target_kind),
                                                                    {"Node", "<empty>"})));
  }
  if (node.empty()) return RespondError(r.w, AggregateError(FieldError::Required("target.name")));

  const ResourcePtr pods = env.registry.Find("", "v1", "pods");
  if (pods == nullptr) return RespondError(r.w, NewNotFound({"", "pods"}, name));
  const GroupResource gr{"", "pods/binding"};
  std::optional<Error> refused;
  auto assign = [&](json::object& pod) -> Result<bool> {
    const auto& pod_meta = MetadataOf(pod);
    if (pod_meta.contains("deletionTimestamp")) {
      return NewConflict(gr, name, "pod " + name + " is being deleted, cannot be assigned to a host");
    }
    const auto* spec = ObjectAt(pod, "spec");
    if (const auto current = spec != nullptr ? StringAt(*spec, "nodeName") : ""; !current.empty()) {
      return NewConflict(gr, name, "pod " + name + " is already assigned to node " + QuoteJson(current));
    }
    EnsureObject(pod, "spec")["nodeName"] = node;
    if (const auto* annotations = ObjectAt(meta, "annotations"); annotations != nullptr && !annotations->empty()) {
      auto& pod_annotations = EnsureObject(EnsureObject(pod, "metadata"), "annotations");
      for (const auto& kv : *annotations) pod_annotations[kv.key()] = kv.value();
    }
    // podutil.UpdatePodCondition: PodScheduled True, its transition time now.
    auto& status = EnsureObject(pod, "status");
    json::array conditions;
    if (const auto* c = status.if_contains("conditions"); c != nullptr && c->is_array()) conditions = c->get_array();
    json::object scheduled{{"type", "PodScheduled"},
                           {"status", "True"},
                           {"lastProbeTime", nullptr},
                           {"lastTransitionTime", FormatTime(env.clock.WallNow())}};
    bool replaced = false;
    for (auto& c : conditions) {
      if (c.is_object() && StringAt(c.get_object(), "type") == "PodScheduled") {
        c = scheduled;
        replaced = true;
      }
    }
    if (!replaced) conditions.push_back(std::move(scheduled));
    status["conditions"] = std::move(conditions);
    return !*dry_run;
  };
  auto written = MutateObject(env, *pods, r.path.ns, name, std::nullopt, [&](json::object& pod) -> Result<bool> {
    auto changed = assign(pod);
    if (!changed.ok()) refused = changed.error();
    return changed;
  });
  if (refused) return RespondError(r.w, *refused);
  if (!written.ok()) return RespondError(r.w, written.error());
  if (written->empty()) return RespondError(r.w, NewNotFound({"", "pods"}, name));
  RespondCreatedStatus(r);
}

void HandlePodEviction(const Env& env, Request& r) {
  auto opts = CreateOptions::FromQuery(r.http.query);
  if (!opts.ok()) return RespondError(r.w, opts.error());
  auto dry_run = ValidateWriteOptions(opts->dry_run, opts->field_validation, "CreateOptions");
  if (!dry_run.ok()) return RespondError(r.w, dry_run.error());
  auto eviction = DecodeSubresourceBody(r, "Eviction", {"policy/v1", "policy/v1beta1"});
  if (!eviction.ok()) return RespondError(r.w, eviction.error());
  if (StringAt(MetadataOf(*eviction), "name") != r.path.name) {
    return RespondError(r.w, NewBadRequest("name in URL does not match name in Eviction object"));
  }
  // No PodDisruptionBudget is served, so nothing can refuse it: the pod is deleted with the
  // eviction's options.
  std::string delete_body = "{}";
  if (const auto* d = eviction->if_contains("deleteOptions"); d != nullptr && d->is_object()) {
    delete_body = json::serialize(*d);
  }
  auto delete_opts = DeleteOptions::FromRequest("", delete_body);
  if (!delete_opts.ok()) return RespondError(r.w, delete_opts.error());
  auto outcome = DeleteObject(env, *r.info, r.path.ns, r.path.name, *delete_opts, *dry_run);
  if (!outcome.ok()) return RespondError(r.w, outcome.error());
  RespondCreatedStatus(r);
}

}  // namespace kube::apiserver::rest
