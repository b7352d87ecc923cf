#pragma once

#include <boost/json/object.hpp>
#include <kube/apiserver/resource.hpp>
#include <kube/core/status.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

/// HorizontalPodAutoscalers: kube 1.32 stores them as autoscaling/v2 and serves autoscaling/v1 as
/// a second view of the same objects. This is kube's conversion between the two through the
/// internal type (pkg/apis/autoscaling/v1 conversion.go), the v2 defaults and the internal
/// validation (pkg/apis/autoscaling/validation), over JSON DOMs. The stored form is the v2 JSON.
/// Internal to src/apiserver/rest. **Thread-safety:** pure functions.
namespace kube::apiserver::rest {

/// The annotations autoscaling/v1 carries what it cannot express in: the metrics other than a
/// CPU utilization target, the current metrics, the conditions and the scaling behavior.
inline constexpr std::string_view kHpaMetricsAnnotation = "autoscaling.alpha.kubernetes.io/metrics";
inline constexpr std::string_view kHpaCurrentMetricsAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics";
inline constexpr std::string_view kHpaConditionsAnnotation = "autoscaling.alpha.kubernetes.io/conditions";
inline constexpr std::string_view kHpaBehaviorAnnotation = "autoscaling.alpha.kubernetes.io/behavior";

/// True for autoscaling's horizontalpodautoscalers (either version).
bool IsHorizontalPodAutoscaler(const ResourceInfo& info);
/// True for the autoscaling/v1 view of them.
bool IsHpaV1View(const ResourceInfo& info);

/// The autoscaling/v1 form of a stored (v2) object, in place: targetCPUUtilizationPercentage from
/// the first cpu Resource metric with a utilization target, currentCPUUtilizationPercentage from
/// the current cpu utilization, and the round-trip annotations (JSON as Go encodes the v1 metric
/// types, the v1 conditions, and the behavior as the internal Go type without JSON tags) for the
/// other metrics, the current metrics, the conditions and the behavior; round-trip annotations
/// the object carried are dropped first. Members Go always encodes are filled in.
void HpaV2ToV1(boost::json::object& obj);

/// The stored (v2) form of an autoscaling/v1 object, in place: the CPU target becomes the last
/// metric after those of the metrics annotation (a cpu utilization of 80% when there is none),
/// the current CPU utilization a current metric unless the current-metrics annotation gives
/// them, the conditions and behavior annotations their fields. Annotations Go cannot decode are
/// ignored; every round-trip annotation is dropped. Defaults are the caller's.
void HpaV1ToV2(boost::json::object& obj);

/// The members of an autoscaling/v1 body that neither version declares but that bear the name of
/// an autoscaling/v2 field (`spec.metrics`, `spec.behavior`, `status.currentMetrics`,
/// `status.conditions`), as kube's strict decoder names them: the unknown fields `HpaV1ToV2`
/// cannot carry through to the stored form's unknown-field checks (it carries every other one).
std::vector<std::string> HpaV1UnknownFieldsLost(const boost::json::object& obj);

/// The stored (v2) object as `api_version` ("autoscaling/v1" or "autoscaling/v2") serves it, for
/// the field manager's view of another version's managers; nullopt for any other apiVersion.
std::optional<boost::json::object> HpaAsVersion(const boost::json::object& stored, std::string_view api_version);

/// autoscaling/v2 SetDefaults_HorizontalPodAutoscaler on the stored form: minReplicas 1, a cpu
/// utilization metric of 80% when there are no metrics, and with `behavior` the scale-up and
/// scale-down rules of a present `spec.behavior` completed with kube's defaults. Writes through
/// autoscaling/v1 are validated before the behavior defaults (kube applies them only when the
/// object is read back from storage).
void DefaultHorizontalPodAutoscaler(boost::json::object& obj, bool behavior);

/// kube's ValidateHorizontalPodAutoscaler (`old` nullptr) or ValidateHorizontalPodAutoscalerUpdate
/// on the stored form, without the object metadata: replicas bounds (minReplicas may be 0 only
/// when the old object had 0), the scale target reference, each metric, the behavior rules, and
/// non-negative status replica counts. Field paths and messages are kube's for either version.
void ValidateHorizontalPodAutoscaler(const boost::json::object& obj, const boost::json::object* old,
                                     std::vector<FieldError>& errs);

}  // namespace kube::apiserver::rest
