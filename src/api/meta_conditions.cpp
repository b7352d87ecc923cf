#include <kube/api/meta/conditions.hpp>

#include <algorithm>
#include <cstddef>
#include <utility>

namespace kube::api::meta::v1 {
namespace {

// Assigns `from` to `to` when they differ; returns whether it did.
template <class T>
bool AssignIfDifferent(T& to, T& from) {
  if (to == from) return false;
  to = std::move(from);
  return true;
}

}  // namespace

bool SetStatusCondition(std::vector<Condition>& conditions, Condition condition, ::kube::api::Time now) {
  constexpr ::kube::api::Time kZero{};
  Condition* existing = FindStatusCondition(conditions, condition.type);
  if (existing == nullptr) {
    if (condition.lastTransitionTime == kZero) condition.lastTransitionTime = now;
    conditions.push_back(std::move(condition));
    return true;
  }

  bool changed = false;
  if (existing->status != condition.status) {
    existing->status = std::move(condition.status);
    existing->lastTransitionTime = condition.lastTransitionTime != kZero ? condition.lastTransitionTime : now;
    changed = true;
  }
  // Non-short-circuiting on purpose: every differing field is copied.
  changed |= AssignIfDifferent(existing->reason, condition.reason);
  changed |= AssignIfDifferent(existing->message, condition.message);
  changed |= AssignIfDifferent(existing->observedGeneration, condition.observedGeneration);
  return changed;
}

bool SetStatusCondition(std::vector<Condition>& conditions, Condition condition) {
  return SetStatusCondition(conditions, std::move(condition), ::kube::api::Time::Now());
}

bool RemoveStatusCondition(std::vector<Condition>& conditions, std::string_view type) {
  const std::size_t removed = std::erase_if(conditions, [type](const Condition& c) { return c.type == type; });
  return removed != 0;
}

const Condition* FindStatusCondition(const std::vector<Condition>& conditions, std::string_view type) {
  auto it = std::find_if(conditions.begin(), conditions.end(), [type](const Condition& c) { return c.type == type; });
  return it == conditions.end() ? nullptr : &*it;
}

Condition* FindStatusCondition(std::vector<Condition>& conditions, std::string_view type) {
  auto it = std::find_if(conditions.begin(), conditions.end(), [type](const Condition& c) { return c.type == type; });
  return it == conditions.end() ? nullptr : &*it;
}

bool IsStatusConditionTrue(const std::vector<Condition>& conditions, std::string_view type) {
  return IsStatusConditionPresentAndEqual(conditions, type, kConditionTrue);
}

bool IsStatusConditionFalse(const std::vector<Condition>& conditions, std::string_view type) {
  return IsStatusConditionPresentAndEqual(conditions, type, kConditionFalse);
}

bool IsStatusConditionPresentAndEqual(const std::vector<Condition>& conditions, std::string_view type,
                                      std::string_view status) {
  const Condition* c = FindStatusCondition(conditions, type);
  return c != nullptr && c->status == status;
}

}  // namespace kube::api::meta::v1
