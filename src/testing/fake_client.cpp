#include <kube/testing/fake_client.hpp>

#include <algorithm>
#include <cctype>
#include <utility>

#include <kube/base/error.hpp>

#include "testing/internal/fake_tracker.hpp"

namespace kube::testing {
namespace {

// The built-in kinds controller-runtime's fake gives a status subresource without being told
// (its `inTreeResourcesWithStatus`).
std::set<GroupVersionKind> InTreeKindsWithStatus() {
  return {
      {"", "v1", "Namespace"},
      {"", "v1", "Node"},
      {"", "v1", "PersistentVolumeClaim"},
      {"", "v1", "PersistentVolume"},
      {"", "v1", "Pod"},
      {"", "v1", "ReplicationController"},
      {"", "v1", "Service"},
      {"apps", "v1", "Deployment"},
      {"apps", "v1", "DaemonSet"},
      {"apps", "v1", "ReplicaSet"},
      {"apps", "v1", "StatefulSet"},
      {"autoscaling", "v1", "HorizontalPodAutoscaler"},
      {"batch", "v1", "CronJob"},
      {"batch", "v1", "Job"},
      {"certificates.k8s.io", "v1", "CertificateSigningRequest"},
      {"networking.k8s.io", "v1", "Ingress"},
      {"networking.k8s.io", "v1", "NetworkPolicy"},
      {"policy", "v1", "PodDisruptionBudget"},
      {"storage.k8s.io", "v1", "VolumeAttachment"},
      {"apiextensions.k8s.io", "v1", "CustomResourceDefinition"},
      {"flowcontrol.apiserver.k8s.io", "v1", "FlowSchema"},
      {"flowcontrol.apiserver.k8s.io", "v1", "PriorityLevelConfiguration"},
  };
}

}  // namespace

GroupVersionResource GuessResource(const GroupVersionKind& gvk) {
  std::string singular = gvk.kind;
  std::transform(singular.begin(), singular.end(), singular.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  GroupVersionResource gvr{gvk.group, gvk.version, singular};
  if (singular.empty() || singular.ends_with("endpoints")) return gvr;
  if (singular.back() == 's') {
    gvr.resource += "es";
  } else if (singular.back() == 'y') {
    gvr.resource.back() = 'i';
    gvr.resource += "es";
  } else {
    gvr.resource += "s";
  }
  return gvr;
}

// ---- FakeClient ----

FakeClient::FakeClient(std::unique_ptr<controller::ClientInterface> tracker, FakeInterceptors interceptors)
    : tracker_(std::move(tracker)), interceptors_(std::move(interceptors)) {}

FakeClient::~FakeClient() = default;

Result<ObjectPtr> FakeClient::DoGet(const GroupVersionResource& gvr, const ObjectKey& key, std::stop_token stop) {
  if (interceptors_.get) return interceptors_.get(*tracker_, gvr, key);
  return tracker_->Get(gvr, key, std::move(stop));
}

Result<std::vector<ObjectPtr>> FakeClient::DoList(const GroupVersionResource& gvr, const controller::ListFilter& filter,
                                                  std::stop_token stop) {
  if (interceptors_.list) return interceptors_.list(*tracker_, gvr, filter);
  return tracker_->List(gvr, filter, std::move(stop));
}

Result<ObjectPtr> FakeClient::DoCreate(const Object& object, const CreateOptions& options) {
  if (interceptors_.create) return interceptors_.create(*tracker_, object, options);
  return tracker_->Create(object, options);
}

Result<ObjectPtr> FakeClient::DoUpdate(const Object& object, const UpdateOptions& options,
                                       std::string_view subresource) {
  if (subresource.empty()) {
    if (interceptors_.update) return interceptors_.update(*tracker_, object, options);
    return tracker_->Update(object, options);
  }
  if (interceptors_.sub_resource_update) return interceptors_.sub_resource_update(*tracker_, object, options, subresource);
  return tracker_->UpdateStatus(object, options);
}

Result<ObjectPtr> FakeClient::DoPatch(const Object& object, PatchType type, std::string_view patch,
                                      const PatchOptions& options, std::string_view subresource) {
  if (subresource.empty() && interceptors_.patch) return interceptors_.patch(*tracker_, object, type, patch, options);
  if (!subresource.empty() && interceptors_.sub_resource_patch) {
    return interceptors_.sub_resource_patch(*tracker_, object, type, patch, options, subresource);
  }
  return tracker_->Patch(object, type, patch, options, subresource);
}

Result<ObjectPtr> FakeClient::DoDelete(const Object& object, const DeleteOptions& options) {
  if (interceptors_.del) return interceptors_.del(*tracker_, object, options);
  return tracker_->Delete(object, options);
}

Result<GroupVersionResource> FakeClient::DoResourceFor(const GroupVersionKind& gvk) const {
  return tracker_->ResourceFor(gvk);
}

// ---- FakeClientBuilder ----

FakeClientBuilder::FakeClientBuilder() : state_(std::make_unique<FakeClient::State>()) {
  state_->status_subresource = InTreeKindsWithStatus();
}
FakeClientBuilder::~FakeClientBuilder() = default;
FakeClientBuilder::FakeClientBuilder(FakeClientBuilder&&) noexcept = default;
FakeClientBuilder& FakeClientBuilder::operator=(FakeClientBuilder&&) noexcept = default;

void FakeClientBuilder::RecordError(const Error& error) {
  if (!state_->error) state_->error = error;
}

FakeClientBuilder& FakeClientBuilder::WithKind(FakeKind kind) {
  if (kind.resource.empty()) kind.resource = GuessResource(kind.gvk).resource;
  const GroupVersionKind gvk = kind.gvk;
  state_->kinds[gvk] = std::move(kind);
  return *this;
}

void FakeClientBuilder::AddInitial(const ObjectPtr& object) { state_->initial.push_back(object); }

FakeClientBuilder& FakeClientBuilder::WithObjects(const std::vector<ObjectPtr>& objects) {
  for (const ObjectPtr& o : objects) AddInitial(o);
  return *this;
}

FakeClientBuilder& FakeClientBuilder::WithStatusSubresource(const GroupVersionKind& gvk) {
  state_->status_subresource.insert(gvk);
  return *this;
}

FakeClientBuilder& FakeClientBuilder::WithIndex(const GroupVersionResource& gvr, std::string field,
                                                controller::FieldIndexFunc extract) {
  if (field.empty() || !extract) {
    RecordError(BadRequest("WithIndex: an index needs a field name and an extract function"));
    return *this;
  }
  auto& indexes = state_->indexes[gvr];
  if (indexes.contains(field)) {
    RecordError(BadRequest("indexer conflict: field " + field + " for " + gvr.String() + " is already indexed"));
    return *this;
  }
  indexes.emplace(std::move(field), std::move(extract));
  return *this;
}

FakeClientBuilder& FakeClientBuilder::WithPatchSchema(const GroupVersionKind& gvk, TypeSchemaPtr schema) {
  state_->schemas[gvk] = std::move(schema);
  return *this;
}

FakeClientBuilder& FakeClientBuilder::WithInterceptors(FakeInterceptors interceptors) {
  state_->interceptors = std::move(interceptors);
  return *this;
}

FakeClientBuilder& FakeClientBuilder::WithClock(Clock& clock) {
  state_->clock = &clock;
  return *this;
}

Result<std::unique_ptr<FakeClient>> FakeClientBuilder::Build() {
  if (state_ == nullptr) return BadRequest("FakeClientBuilder: Build was called already");
  FakeInterceptors interceptors = std::move(state_->interceptors);
  auto tracker = internal::FakeTracker::Create(std::move(state_));
  if (!tracker.ok()) return std::move(tracker).error();
  return std::make_unique<FakeClient>(std::move(*tracker), std::move(interceptors));
}

}  // namespace kube::testing
