#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>

/// The contents of the round-trip annotations of autoscaling/v1 HorizontalPodAutoscalers
/// (hpa.hpp): the internal (autoscaling/v2 stored form) metrics, metric statuses, conditions and
/// behavior as kube's v1 conversion writes them, and read back as it reads them. Internal to
/// src/apiserver/rest. **Thread-safety:** pure functions.
namespace kube::apiserver::rest {

/// Go's encoding/json text of `v`: members in the order given, `<`, `>`, `&`, U+2028 and U+2029
/// escaped as `\u003c`...
std::string GoJson(const boost::json::value& v);

/// A CrossVersionObjectReference in Go's member order (kind, name, apiVersion when set).
boost::json::object CrossVersionReference(const boost::json::object& ref);

/// A v2 MetricSpec as the autoscaling/v1 MetricSpec of the metrics annotation (`targetValue`,
/// `targetAverageValue`, `metricName`, ...; members in Go's order, Quantities as text, unset
/// non-pointer Quantities "0").
boost::json::object MetricSpecToV1(const boost::json::object& metric);
/// A v2 MetricStatus as the autoscaling/v1 MetricStatus of the current-metrics annotation.
boost::json::object MetricStatusToV1(const boost::json::object& metric);
/// A v2 condition as the autoscaling/v1 one of the conditions annotation (lastTransitionTime
/// always written, null when unset).
boost::json::object ConditionToV1(const boost::json::object& condition);
/// `spec.behavior` as Go encodes the internal type, which has no JSON tags:
/// `{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[...]},"ScaleDown":null}`.
boost::json::object BehaviorToInternal(const boost::json::object& behavior);

/// The autoscaling/v1 MetricSpecs of a metrics annotation in the v2 form, decoded as Go's
/// encoding/json decodes them (members matched case-insensitively, unknown ones ignored,
/// Quantities as text or numbers); nullopt when Go's decoder refuses the text.
std::optional<boost::json::array> MetricSpecsFromV1(std::string_view text);
/// The autoscaling/v1 MetricStatuses of a current-metrics annotation in the v2 form; nullopt as
/// MetricSpecsFromV1.
std::optional<boost::json::array> MetricStatusesFromV1(std::string_view text);
/// The autoscaling/v1 conditions of a conditions annotation in the v2 form; nullopt as above.
std::optional<boost::json::array> ConditionsFromV1(std::string_view text);
/// The internal behavior of a behavior annotation in the v2 form (as given: not defaulted);
/// nullopt when it does not decode or is the zero behavior (neither rule set).
std::optional<boost::json::object> BehaviorFromInternal(std::string_view text);

}  // namespace kube::apiserver::rest
