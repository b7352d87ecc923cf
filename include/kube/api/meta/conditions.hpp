#pragma once

#include <string_view>
#include <vector>

#include <kube/api/meta/v1.hpp>

/// Helpers for `status.conditions` lists of `metav1.Condition`, as apimachinery's
/// `k8s.io/apimachinery/pkg/api/meta` conditions.go. A condition is identified by its `type`;
/// the list is expected to hold at most one condition per type (the helpers that look a type up
/// act on the first match). **Thread-safety:** plain functions over the caller's vector; the
/// caller serializes access to it as to any container.
namespace kube::api::meta::v1 {

/// The `status` of a condition that holds.
inline constexpr std::string_view kConditionTrue = "True";
/// The `status` of a condition that does not hold.
inline constexpr std::string_view kConditionFalse = "False";
/// The `status` of a condition whose state the controller cannot tell.
inline constexpr std::string_view kConditionUnknown = "Unknown";

/// Sets the condition of `condition.type` in `conditions` to `condition` and returns whether
/// `conditions` changed (Go's `SetStatusCondition`), so that a controller writes status only
/// when needed. A "zero" `lastTransitionTime` is a default-constructed `Time{}`.
/// - No condition of that type: `condition` is appended, its `lastTransitionTime` set to `now`
///   when zero. Returns true.
/// - One exists (the first of that type): when `status` differs, `status` is updated and
///   `lastTransitionTime` becomes `condition.lastTransitionTime`, or `now` when that is zero.
///   When `status` is equal, the existing `lastTransitionTime` is kept whatever `condition`
///   says. `reason`, `message` and `observedGeneration` are each copied when they differ.
///   Returns true iff any of these four fields changed. The existing `type` and
///   `unknown_fields` are kept.
/// `now` is taken as given (not truncated to the second).
/// **Ownership/lifetime:** pointers and references into `conditions` are invalidated when a
/// condition is appended, as by `push_back`.
bool SetStatusCondition(std::vector<Condition>& conditions, Condition condition, ::kube::api::Time now);

/// As the overload above, with `now` = `Time::Now()` (the wall clock, truncated to the second).
/// Code that must be testable without a real clock passes `now` instead.
bool SetStatusCondition(std::vector<Condition>& conditions, Condition condition);

/// Removes every condition of `type` from `conditions`, keeping the order of the rest, and
/// returns whether any was removed (Go's `RemoveStatusCondition`).
/// **Ownership/lifetime:** invalidates pointers into `conditions` at and after the first
/// removed element.
bool RemoveStatusCondition(std::vector<Condition>& conditions, std::string_view type);

/// The first condition of `type` in `conditions`, or nullptr when there is none.
/// **Ownership/lifetime:** points into `conditions`; valid until the vector is modified.
const Condition* FindStatusCondition(const std::vector<Condition>& conditions, std::string_view type);

/// As above, returning a mutable pointer so that the caller can edit the condition in place.
/// **Ownership/lifetime:** points into `conditions`; valid until the vector is resized.
Condition* FindStatusCondition(std::vector<Condition>& conditions, std::string_view type);

/// Whether the first condition of `type` is present with `status` exactly "True".
bool IsStatusConditionTrue(const std::vector<Condition>& conditions, std::string_view type);

/// Whether the first condition of `type` is present with `status` exactly "False". Absent is
/// neither true nor false: both predicates then return false.
bool IsStatusConditionFalse(const std::vector<Condition>& conditions, std::string_view type);

/// Whether the first condition of `type` is present and its `status` equals `status`
/// (case-sensitive, as Go compares strings).
bool IsStatusConditionPresentAndEqual(const std::vector<Condition>& conditions, std::string_view type,
                                      std::string_view status);

}  // namespace kube::api::meta::v1
