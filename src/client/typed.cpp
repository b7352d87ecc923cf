#include <kube/client/typed.hpp>

#include <cassert>
#include <string>

#include <boost/json.hpp>

#include "client/internal/util.hpp"

namespace kube::client {
namespace {

/// `key` as one RFC 6901 reference token.
std::string Token(std::string_view key) {
  std::string out;
  for (const char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

TypedView::TypedView(ObjectPtr object) : object_(std::move(object)) { assert(object_ != nullptr); }

std::optional<std::string> TypedView::String(std::string_view pointer) const { return object_->GetString(pointer); }

std::optional<std::int64_t> TypedView::Int(std::string_view pointer) const { return object_->GetInt(pointer); }

std::optional<std::string> TypedView::ConditionStatus(std::string_view pointer, std::string_view type) const {
  const auto conditions = object_->Get(pointer);
  if (!conditions || !conditions->is_array()) return std::nullopt;
  for (const auto& c : conditions->get_array()) {
    if (!c.is_object()) continue;
    const auto* t = c.get_object().if_contains("type");
    if (t == nullptr || !t->is_string() || t->get_string() != type) continue;
    const auto* s = c.get_object().if_contains("status");
    if (s != nullptr && s->is_string()) return std::string(s->get_string());
    return std::nullopt;
  }
  return std::nullopt;
}

std::vector<std::string> TypedView::Keys(std::string_view pointer) const {
  std::vector<std::string> out;
  const auto v = object_->Get(pointer);
  if (!v || !v->is_object()) return out;
  for (const auto& kv : v->get_object()) out.emplace_back(kv.key());
  return out;
}

const GroupVersionResource& Pod::Resource() {
  static const GroupVersionResource r{"", "v1", "pods"};
  return r;
}
std::optional<std::string> Pod::Phase() const { return String("/status/phase"); }
std::optional<std::string> Pod::NodeName() const { return String("/spec/nodeName"); }
std::optional<std::string> Pod::PodIP() const { return String("/status/podIP"); }
std::optional<std::string> Pod::HostIP() const { return String("/status/hostIP"); }
std::optional<std::string> Pod::ServiceAccountName() const { return String("/spec/serviceAccountName"); }
std::vector<std::string> Pod::ContainerNames() const {
  std::vector<std::string> out;
  const auto containers = object_->Get("/spec/containers");
  if (!containers || !containers->is_array()) return out;
  for (const auto& c : containers->get_array()) {
    if (!c.is_object()) continue;
    const auto* n = c.get_object().if_contains("name");
    if (n != nullptr && n->is_string()) out.emplace_back(n->get_string());
  }
  return out;
}
bool Pod::IsReady() const { return ConditionStatus("/status/conditions", "Ready") == "True"; }

const GroupVersionResource& ConfigMap::Resource() {
  static const GroupVersionResource r{"", "v1", "configmaps"};
  return r;
}
std::optional<std::string> ConfigMap::Data(std::string_view key) const { return String("/data/" + Token(key)); }
std::vector<std::string> ConfigMap::DataKeys() const { return Keys("/data"); }
std::optional<std::string> ConfigMap::BinaryData(std::string_view key) const {
  auto s = String("/binaryData/" + Token(key));
  if (!s) return std::nullopt;
  auto decoded = internal::Base64Decode(*s);
  if (!decoded) return std::nullopt;
  return std::move(decoded).value();
}

const GroupVersionResource& Secret::Resource() {
  static const GroupVersionResource r{"", "v1", "secrets"};
  return r;
}
std::optional<std::string> Secret::Type() const { return String("/type"); }
std::optional<std::string> Secret::Data(std::string_view key) const {
  auto s = String("/data/" + Token(key));
  if (!s) return std::nullopt;
  auto decoded = internal::Base64Decode(*s);
  if (!decoded) return std::nullopt;
  return std::move(decoded).value();
}
std::vector<std::string> Secret::DataKeys() const { return Keys("/data"); }

const GroupVersionResource& Namespace::Resource() {
  static const GroupVersionResource r{"", "v1", "namespaces"};
  return r;
}
std::optional<std::string> Namespace::Phase() const { return String("/status/phase"); }

const GroupVersionResource& Event::Resource() {
  static const GroupVersionResource r{"", "v1", "events"};
  return r;
}
std::optional<std::string> Event::Reason() const { return String("/reason"); }
std::optional<std::string> Event::Message() const { return String("/message"); }
std::optional<std::string> Event::Type() const { return String("/type"); }
std::optional<std::int64_t> Event::Count() const { return Int("/count"); }
std::optional<std::string> Event::ReportingComponent() const { return String("/source/component"); }
Event::InvolvedObject Event::Involved() const {
  InvolvedObject out;
  const auto v = object_->Get("/involvedObject");
  if (!v || !v->is_object()) return out;
  const auto& o = v->get_object();
  const auto get = [&](std::string_view k) {
    const auto* f = o.if_contains(k);
    return f != nullptr && f->is_string() ? std::string(f->get_string()) : std::string();
  };
  out.api_version = get("apiVersion");
  out.kind = get("kind");
  out.ns = get("namespace");
  out.name = get("name");
  out.uid = get("uid");
  out.field_path = get("fieldPath");
  return out;
}

const GroupVersionResource& Deployment::Resource() {
  static const GroupVersionResource r{"apps", "v1", "deployments"};
  return r;
}
std::int64_t Deployment::Replicas() const { return Int("/spec/replicas").value_or(1); }
std::int64_t Deployment::StatusReplicas() const { return Int("/status/replicas").value_or(0); }
std::int64_t Deployment::ReadyReplicas() const { return Int("/status/readyReplicas").value_or(0); }
std::int64_t Deployment::AvailableReplicas() const { return Int("/status/availableReplicas").value_or(0); }
std::int64_t Deployment::UpdatedReplicas() const { return Int("/status/updatedReplicas").value_or(0); }
std::optional<std::int64_t> Deployment::ObservedGeneration() const { return Int("/status/observedGeneration"); }
bool Deployment::Paused() const { return object_->GetBool("/spec/paused").value_or(false); }
std::optional<std::string> Deployment::Condition(std::string_view type) const {
  return ConditionStatus("/status/conditions", type);
}

const GroupVersionResource& ReplicaSet::Resource() {
  static const GroupVersionResource r{"apps", "v1", "replicasets"};
  return r;
}
std::int64_t ReplicaSet::Replicas() const { return Int("/spec/replicas").value_or(1); }
std::int64_t ReplicaSet::StatusReplicas() const { return Int("/status/replicas").value_or(0); }
std::int64_t ReplicaSet::ReadyReplicas() const { return Int("/status/readyReplicas").value_or(0); }
std::int64_t ReplicaSet::AvailableReplicas() const { return Int("/status/availableReplicas").value_or(0); }
std::optional<std::int64_t> ReplicaSet::ObservedGeneration() const { return Int("/status/observedGeneration"); }

const GroupVersionResource& Lease::Resource() {
  static const GroupVersionResource r{"coordination.k8s.io", "v1", "leases"};
  return r;
}
std::optional<std::string> Lease::HolderIdentity() const { return String("/spec/holderIdentity"); }
std::optional<std::int64_t> Lease::LeaseDurationSeconds() const { return Int("/spec/leaseDurationSeconds"); }
std::optional<std::string> Lease::AcquireTime() const { return String("/spec/acquireTime"); }
std::optional<std::string> Lease::RenewTime() const { return String("/spec/renewTime"); }
std::optional<std::int64_t> Lease::LeaseTransitions() const { return Int("/spec/leaseTransitions"); }

}  // namespace kube::client
