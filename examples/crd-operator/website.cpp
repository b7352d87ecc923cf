#include "website.hpp"

#include <cinttypes>
#include <cstdio>
#include <utility>

#include <boost/json.hpp>

#include <kube/core/time.hpp>

namespace kube::examples::website {
namespace {

namespace json = boost::json;
using controller::EventType;
using controller::OperationResult;
using controller::ReconcileResult;

constexpr std::string_view kNameLabel = "app.kubernetes.io/name";
constexpr std::string_view kInstanceLabel = "app.kubernetes.io/instance";
constexpr std::string_view kManagedByLabel = "app.kubernetes.io/managed-by";
constexpr std::string_view kContainerName = "web";
constexpr std::string_view kVolumeName = "content";

// The child object `key` of `parent`, created (or replaced) as an empty object when it is not one.
json::object& Child(json::object& parent, std::string_view key) {
  json::value& v = parent[key];
  if (!v.is_object()) v = json::object();
  return v.as_object();
}

// The element of array `parent[key]` whose "name" is `name`, appended as {"name": name} if missing.
json::object& Named(json::object& parent, std::string_view key, std::string_view name) {
  json::value& v = parent[key];
  if (!v.is_array()) v = json::array();
  for (json::value& item : v.as_array()) {
    if (const auto* n = item.is_object() ? item.as_object().if_contains("name") : nullptr;
        n != nullptr && n->is_string() && n->as_string() == name) {
      return item.as_object();
    }
  }
  v.as_array().push_back(json::object{{"name", name}});
  return v.as_array().back().as_object();
}

json::object Labels(std::string_view website) {
  return {{kNameLabel, "website"}, {kInstanceLabel, website}};
}

void SetCommonLabels(ObjectBuilder& obj, std::string_view website) {
  obj.SetLabel(kNameLabel, "website");
  obj.SetLabel(kInstanceLabel, website);
  obj.SetLabel(kManagedByLabel, "website-operator");
}

// FNV-1a 64: a stable, dependency-free content fingerprint (not a security hash).
std::string ContentHash(std::string_view content) {
  std::uint64_t h = 14695981039346656037ull;
  for (const unsigned char c : content) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016" PRIx64, h);
  return buf;
}

std::int64_t IntAt(const Object& obj, std::string_view pointer) { return obj.GetInt(pointer).value_or(0); }

// Records Created / Updated for a child write; nothing for an unchanged child.
void Report(controller::EventRecorder& recorder, const controller::ReconcileContext& ctx, const Object& website,
            std::string_view kind, std::string_view name, OperationResult op) {
  switch (op) {
    case OperationResult::kCreated:
      recorder.Eventf(website, EventType::kNormal, "Created", "Created {} {}", kind, name);
      break;
    case OperationResult::kUpdated:
    case OperationResult::kUpdatedStatus:
    case OperationResult::kUpdatedStatusOnly:
      recorder.Eventf(website, EventType::kNormal, "Updated", "Updated {} {}", kind, name);
      break;
    case OperationResult::kUnchanged:
      return;
  }
  ctx.log.Info("child written", {{"kind", kind}, {"child", name}, {"operation", controller::ToString(op)}});
}

// Sets the Ready condition in `status.conditions`, keeping lastTransitionTime when the status
// did not change (the metav1.Condition convention).
void SetReadyCondition(json::object& status, const ReadyState& state, std::int64_t generation,
                       Clock::WallTime now) {
  json::value& list = status["conditions"];
  if (!list.is_array()) list = json::array();
  json::array& conditions = list.as_array();  // keyed by type
  const std::string_view wanted = state.ready ? "True" : "False";
  json::object* ready = nullptr;
  for (json::value& c : conditions) {
    if (const auto* t = c.is_object() ? c.as_object().if_contains("type") : nullptr;
        t != nullptr && t->is_string() && t->as_string() == "Ready") {
      ready = &c.as_object();
    }
  }
  if (ready == nullptr) {
    conditions.push_back(json::object{{"type", "Ready"}});
    ready = &conditions.back().as_object();
  }
  const auto* old_status = ready->if_contains("status");
  if (old_status == nullptr || !old_status->is_string() || old_status->as_string() != wanted ||
      !ready->contains("lastTransitionTime")) {
    (*ready)["lastTransitionTime"] = FormatTime(now);
  }
  (*ready)["status"] = wanted;
  (*ready)["reason"] = state.reason;
  (*ready)["message"] = state.message;
  (*ready)["observedGeneration"] = generation;
}

}  // namespace

Result<WebsiteSpec> WebsiteSpec::From(const Object& website) {
  WebsiteSpec spec;
  if (const auto image = website.Get("/spec/image")) {
    if (!image->is_string()) return MakeError(422, reason::kInvalid, "spec.image: must be a string");
    if (!image->as_string().empty()) spec.image = std::string(image->as_string());
  }
  if (const auto replicas = website.Get("/spec/replicas")) {
    if (!replicas->is_int64()) return MakeError(422, reason::kInvalid, "spec.replicas: must be an integer");
    spec.replicas = replicas->as_int64();
    if (spec.replicas < 0) return MakeError(422, reason::kInvalid, "spec.replicas: must be >= 0");
  }
  if (const auto content = website.Get("/spec/content")) {
    if (!content->is_string()) return MakeError(422, reason::kInvalid, "spec.content: must be a string");
    spec.content = std::string(content->as_string());
  }
  return spec;
}

ReadyState ReadyFromDeployment(const Object& deployment, std::int64_t replicas) {
  ReadyState s;
  s.ready_replicas = IntAt(deployment, "/status/readyReplicas");
  const std::int64_t available = IntAt(deployment, "/status/availableReplicas");
  if (IntAt(deployment, "/status/observedGeneration") < deployment.Generation()) {
    s.reason = "RolloutPending";
    s.message = "deployment generation " + std::to_string(deployment.Generation()) + " not yet observed";
    return s;
  }
  s.message = std::to_string(available) + "/" + std::to_string(replicas) + " replicas available";
  s.ready = available == replicas;
  s.reason = s.ready ? "Available" : "Progressing";
  return s;
}

WebsiteReconciler::WebsiteReconciler(controller::Manager& mgr, controller::EventRecorder& recorder)
    : client_(mgr.GetClient()), rest_(mgr.GetRestClient()), clock_(mgr.GetClock()), recorder_(recorder) {}

Result<ReconcileResult> WebsiteReconciler::Reconcile(controller::ReconcileContext& ctx,
                                                     const controller::Request& request) {
  auto got = client_.Get(kWebsites, request.key, ctx.stop);
  if (!got) {
    // Deleted: the ConfigMap and the Deployment go with it (garbage collection of ownerReferences).
    if (IsNotFound(got.error())) return ReconcileResult::Done();
    return std::move(got).error();
  }
  const ObjectPtr website = *got;
  if (website->IsBeingDeleted()) return ReconcileResult::Done();
  const std::string ns(website->Namespace());
  const std::string name(website->Name());
  auto spec = WebsiteSpec::From(*website);
  if (!spec) {
    recorder_.Event(*website, EventType::kWarning, "InvalidSpec", spec.error().message);
    return controller::TerminalError(std::move(spec).error());
  }
  auto terminal_if_owned = [&](Error e) -> Error {
    if (!controller::IsAlreadyOwned(e)) return e;
    recorder_.Event(*website, EventType::kWarning, "OwnedElsewhere", e.message);
    return controller::TerminalError(std::move(e));
  };

  // The content.
  const std::string cm_name = name + "-content";
  ObjectBuilder cm_seed("v1", "ConfigMap");
  cm_seed.SetNamespace(ns).SetName(cm_name);
  auto cm = controller::CreateOrUpdate(
      client::Api(rest_, kConfigMaps, ns).WithStop(ctx.stop), cm_seed, [&](ObjectBuilder& obj) -> Result<void> {
        SetCommonLabels(obj, name);
        obj.Json()["data"] = json::object{{"index.html", spec->content}};
        return controller::SetControllerReference(*website, obj);
      });
  if (!cm) return terminal_if_owned(std::move(cm).error());
  Report(recorder_, ctx, *website, "ConfigMap", cm_name, cm->operation);

  // The Deployment. Only the fields this operator decides are set, so the server's defaults
  // (strategy, terminationMessagePath, ...) never look like a difference to write back.
  ObjectBuilder dep_seed("apps/v1", "Deployment");
  dep_seed.SetNamespace(ns).SetName(name);
  auto dep = controller::CreateOrUpdate(
      client::Api(rest_, kDeployments, ns).WithStop(ctx.stop), dep_seed, [&](ObjectBuilder& obj) -> Result<void> {
        SetCommonLabels(obj, name);
        json::object& dspec = Child(obj.Json(), "spec");
        dspec["replicas"] = spec->replicas;
        if (!dspec.contains("selector")) dspec["selector"] = json::object{{"matchLabels", Labels(name)}};  // immutable
        json::object& tmpl = Child(dspec, "template");
        json::object& tmeta = Child(tmpl, "metadata");
        json::object& tlabels = Child(tmeta, "labels");
        for (const auto& [k, v] : Labels(name)) tlabels[k] = v;
        Child(tmeta, "annotations")[kContentHashAnnotation] = ContentHash(spec->content);
        json::object& pod = Child(tmpl, "spec");
        json::object& container = Named(pod, "containers", kContainerName);
        container["image"] = spec->image;
        container["ports"] = json::array{json::object{{"name", "http"}, {"containerPort", 80}, {"protocol", "TCP"}}};
        container["volumeMounts"] = json::array{
            json::object{{"name", kVolumeName}, {"mountPath", "/usr/share/nginx/html"}, {"readOnly", true}}};
        json::object& volume = Named(pod, "volumes", kVolumeName);
        volume["configMap"] = json::object{{"name", cm_name}, {"defaultMode", 420}};
        return controller::SetControllerReference(*website, obj);
      });
  if (!dep) return terminal_if_owned(std::move(dep).error());
  Report(recorder_, ctx, *website, "Deployment", name, dep->operation);

  // The status, from the Deployment as the server returned it.
  const ReadyState state = ReadyFromDeployment(*dep->object, spec->replicas);
  const std::string url = "http://" + name + "." + ns + ".svc.cluster.local/";
  const Clock::WallTime now = clock_.WallNow();
  auto status = controller::UpdateStatus(
      client::Api(rest_, kWebsites, ns).WithStop(ctx.stop), request.key,
      [&](ObjectBuilder& obj) -> Result<void> {
        json::object& st = Child(obj.Json(), "status");
        st["readyReplicas"] = state.ready_replicas;
        st["url"] = url;
        // The generation whose spec this reconcile acted on — not the one UpdateStatus fetched,
        // which may be newer: claiming that would report a spec as observed whose children were
        // never written (the next reconcile, queued by that change, reports it).
        SetReadyCondition(st, state, website->Generation(), now);
        return Ok();
      },
      {.clock = &clock_, .observed_generation = website->Generation()});
  if (!status) {
    if (IsNotFound(status.error())) return ReconcileResult::Done();  // deleted meanwhile
    return std::move(status).error();
  }
  return ReconcileResult::Done();
}

Result<std::shared_ptr<controller::Controller>> SetupWebsiteController(controller::Manager& mgr,
                                                                        controller::EventRecorder& recorder,
                                                                        WebsiteControllerOptions options) {
  if (options.controller.name.empty()) options.controller.name = "website";
  std::string name = options.controller.name;
  return controller::ControllerManagedBy(mgr)
      .For(kWebsites, {controller::GenerationChanged()})
      .Owns(kConfigMaps)
      .Owns(kDeployments)
      .WithOptions(std::move(options.controller))
      .Named(std::move(name))
      .Complete(std::make_shared<WebsiteReconciler>(mgr, recorder));
}

}  // namespace kube::examples::website
