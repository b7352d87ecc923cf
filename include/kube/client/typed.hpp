#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <kube/base/result.hpp>
#include <kube/client/dynamic_client.hpp>
#include <kube/core/gvk.hpp>
#include <kube/core/object.hpp>

/// Thin typed views over `kube::Object` for common kinds. A view holds the shared `ObjectPtr`
/// and reads fields on demand by JSON pointer: nothing of the JSON is copied up front, and a
/// field read copies only that field. Metadata is on the Object (`view->Name()`).
/// To write, edit through `ObjectBuilder` and send with the `Api` from `ApiFor<T>()`.
/// **Thread-safety:** views are immutable values; safe to share.
namespace kube::client {

/// The common part of every view.
class TypedView {
 public:
  /// Wraps `object` (non-null; asserted). The kind is not checked; use `T::From` to check it.
  explicit TypedView(ObjectPtr object);
  /// The underlying object.
  const ObjectPtr& object() const { return object_; }
  /// Metadata accessors of the object.
  const Object* operator->() const { return object_.get(); }
  const Object& operator*() const { return *object_; }

 protected:
  /// The string at `pointer`, or nullopt.
  std::optional<std::string> String(std::string_view pointer) const;
  /// The integer at `pointer`, or nullopt.
  std::optional<std::int64_t> Int(std::string_view pointer) const;
  /// The `status` of the condition whose `type` is `type` in the array at `pointer`.
  std::optional<std::string> ConditionStatus(std::string_view pointer, std::string_view type) const;
  /// The keys of the object at `pointer` (empty when absent).
  std::vector<std::string> Keys(std::string_view pointer) const;

  ObjectPtr object_;
};

/// Builds a view of type T after checking apiVersion and kind.
/// **Errors:** 400 BadRequest `expected apps/v1 Deployment, got v1 Pod`.
template <class T>
Result<T> ViewAs(ObjectPtr object) {
  if (!object) return BadRequest("expected " + std::string(T::kApiVersion) + " " + std::string(T::kKind) + ", got null");
  if (object->ApiVersion() != T::kApiVersion || object->Kind() != T::kKind) {
    return BadRequest("expected " + std::string(T::kApiVersion) + " " + std::string(T::kKind) +
                      ", got " + std::string(object->ApiVersion()) + " " + std::string(object->Kind()));
  }
  return T(std::move(object));
}

/// The Api of view type T (`T::Resource()`), in namespace `ns` ("" = all / cluster scope).
template <class T>
Api ApiFor(const DynamicClient& client, std::string ns = {}) {
  return client.Resource(T::Resource(), std::move(ns));
}

/// core/v1 Pod.
class Pod final : public TypedView {
 public:
  static constexpr std::string_view kApiVersion = "v1";
  static constexpr std::string_view kKind = "Pod";
  /// {"", "v1", "pods"}
  static const GroupVersionResource& Resource();
  using TypedView::TypedView;
  std::optional<std::string> Phase() const;               ///< status.phase
  std::optional<std::string> NodeName() const;            ///< spec.nodeName
  std::optional<std::string> PodIP() const;               ///< status.podIP
  std::optional<std::string> HostIP() const;              ///< status.hostIP
  std::optional<std::string> ServiceAccountName() const;  ///< spec.serviceAccountName
  std::vector<std::string> ContainerNames() const;        ///< spec.containers[].name
  /// status.conditions[type=Ready].status == "True".
  bool IsReady() const;
};

/// core/v1 ConfigMap.
class ConfigMap final : public TypedView {
 public:
  static constexpr std::string_view kApiVersion = "v1";
  static constexpr std::string_view kKind = "ConfigMap";
  /// {"", "v1", "configmaps"}
  static const GroupVersionResource& Resource();
  using TypedView::TypedView;
  std::optional<std::string> Data(std::string_view key) const;  ///< data[key]
  std::vector<std::string> DataKeys() const;                    ///< keys of data
  /// binaryData[key], base64-decoded; nullopt when absent or not valid base64.
  std::optional<std::string> BinaryData(std::string_view key) const;
};

/// core/v1 Secret.
class Secret final : public TypedView {
 public:
  static constexpr std::string_view kApiVersion = "v1";
  static constexpr std::string_view kKind = "Secret";
  /// {"", "v1", "secrets"}
  static const GroupVersionResource& Resource();
  using TypedView::TypedView;
  std::optional<std::string> Type() const;  ///< type, e.g. "Opaque"
  /// data[key], base64-decoded; nullopt when absent or not valid base64.
  std::optional<std::string> Data(std::string_view key) const;
  std::vector<std::string> DataKeys() const;  ///< keys of data
};

/// core/v1 Namespace.
class Namespace final : public TypedView {
 public:
  static constexpr std::string_view kApiVersion = "v1";
  static constexpr std::string_view kKind = "Namespace";
  /// {"", "v1", "namespaces"}
  static const GroupVersionResource& Resource();
  using TypedView::TypedView;
  std::optional<std::string> Phase() const;  ///< status.phase: "Active" or "Terminating"
};

/// core/v1 Event.
class Event final : public TypedView {
 public:
  static constexpr std::string_view kApiVersion = "v1";
  static constexpr std::string_view kKind = "Event";
  /// {"", "v1", "events"}
  static const GroupVersionResource& Resource();
  using TypedView::TypedView;
  /// involvedObject.
  struct InvolvedObject {
    std::string api_version, kind, ns, name, uid, field_path;
  };
  std::optional<std::string> Reason() const;   ///< reason
  std::optional<std::string> Message() const;  ///< message
  std::optional<std::string> Type() const;     ///< type: "Normal" or "Warning"
  std::optional<std::int64_t> Count() const;   ///< count
  std::optional<std::string> ReportingComponent() const;  ///< source.component
  InvolvedObject Involved() const;             ///< involvedObject (absent fields empty)
};

/// apps/v1 Deployment.
class Deployment final : public TypedView {
 public:
  static constexpr std::string_view kApiVersion = "apps/v1";
  static constexpr std::string_view kKind = "Deployment";
  /// {"apps", "v1", "deployments"}
  static const GroupVersionResource& Resource();
  using TypedView::TypedView;
  std::int64_t Replicas() const;                     ///< spec.replicas (default 1)
  std::int64_t StatusReplicas() const;               ///< status.replicas (default 0)
  std::int64_t ReadyReplicas() const;                ///< status.readyReplicas (default 0)
  std::int64_t AvailableReplicas() const;            ///< status.availableReplicas (default 0)
  std::int64_t UpdatedReplicas() const;              ///< status.updatedReplicas (default 0)
  std::optional<std::int64_t> ObservedGeneration() const;  ///< status.observedGeneration
  bool Paused() const;                                ///< spec.paused
  /// status.conditions[type].status ("True", "False", "Unknown"), e.g. Available, Progressing.
  std::optional<std::string> Condition(std::string_view type) const;
};

/// apps/v1 ReplicaSet.
class ReplicaSet final : public TypedView {
 public:
  static constexpr std::string_view kApiVersion = "apps/v1";
  static constexpr std::string_view kKind = "ReplicaSet";
  /// {"apps", "v1", "replicasets"}
  static const GroupVersionResource& Resource();
  using TypedView::TypedView;
  std::int64_t Replicas() const;           ///< spec.replicas (default 1)
  std::int64_t StatusReplicas() const;     ///< status.replicas (default 0)
  std::int64_t ReadyReplicas() const;      ///< status.readyReplicas (default 0)
  std::int64_t AvailableReplicas() const;  ///< status.availableReplicas (default 0)
  std::optional<std::int64_t> ObservedGeneration() const;  ///< status.observedGeneration
};

/// coordination.k8s.io/v1 Lease.
class Lease final : public TypedView {
 public:
  static constexpr std::string_view kApiVersion = "coordination.k8s.io/v1";
  static constexpr std::string_view kKind = "Lease";
  /// {"coordination.k8s.io", "v1", "leases"}
  static const GroupVersionResource& Resource();
  using TypedView::TypedView;
  std::optional<std::string> HolderIdentity() const;         ///< spec.holderIdentity
  std::optional<std::int64_t> LeaseDurationSeconds() const;  ///< spec.leaseDurationSeconds
  std::optional<std::string> AcquireTime() const;            ///< spec.acquireTime (MicroTime text)
  std::optional<std::string> RenewTime() const;              ///< spec.renewTime (MicroTime text)
  std::optional<std::int64_t> LeaseTransitions() const;      ///< spec.leaseTransitions
};

}  // namespace kube::client
