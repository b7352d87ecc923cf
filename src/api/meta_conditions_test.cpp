#include <kube/api/meta/conditions.hpp>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace kube::api::meta::v1 {
namespace {

using std::chrono::hours;
using std::chrono::sys_days;
using std::chrono::January;
using std::chrono::year;

// Fixed instants, so that no test depends on the real clock.
const ::kube::api::Time kBefore{sys_days{year{2026} / January / 1}};
const ::kube::api::Time kNow{sys_days{year{2026} / January / 1} + hours(1)};
const ::kube::api::Time kAfter{sys_days{year{2026} / January / 1} + hours(2)};

Condition Make(std::string type, std::string_view status = "", ::kube::api::Time ltt = {}) {
  Condition c;
  c.type = std::move(type);
  c.status = std::string(status);
  c.lastTransitionTime = ltt;
  return c;
}

std::vector<std::string> Types(const std::vector<Condition>& conditions) {
  std::vector<std::string> out;
  for (const Condition& c : conditions) out.push_back(c.type);
  return out;
}

TEST(SetStatusCondition, NewConditionIsAppendedWithNowWhenTransitionTimeIsZero) {
  std::vector<Condition> conditions{Make("first"), Make("third")};
  Condition add = Make("second", kConditionTrue);
  add.reason = "Reason";
  add.message = "message";

  EXPECT_TRUE(SetStatusCondition(conditions, add, kNow));

  ASSERT_EQ(Types(conditions), (std::vector<std::string>{"first", "third", "second"}));
  Condition want = add;
  want.lastTransitionTime = kNow;
  EXPECT_EQ(conditions[2], want);
}

TEST(SetStatusCondition, NewConditionKeepsSuppliedTransitionTime) {
  std::vector<Condition> conditions{Make("first"), Make("third")};
  Condition add = Make("second", kConditionTrue, kBefore);
  add.reason = "reason";
  add.message = "message";

  EXPECT_TRUE(SetStatusCondition(conditions, add, kNow));

  ASSERT_EQ(conditions.size(), 3u);
  EXPECT_EQ(conditions[2], add);
}

TEST(SetStatusCondition, AppendsToEmptyList) {
  std::vector<Condition> conditions;
  EXPECT_TRUE(SetStatusCondition(conditions, Make("Ready", kConditionUnknown), kNow));
  ASSERT_EQ(conditions.size(), 1u);
  EXPECT_EQ(conditions[0].lastTransitionTime, kNow);
}

TEST(SetStatusCondition, StatusChangeUsesSuppliedTransitionTime) {
  // Go's "use-supplied-time".
  std::vector<Condition> conditions{Make("first"), Make("second", kConditionFalse, kBefore), Make("third")};
  Condition add = Make("second", kConditionTrue, kAfter);
  add.reason = "reason";
  add.message = "message";

  EXPECT_TRUE(SetStatusCondition(conditions, add, kNow));

  ASSERT_EQ(Types(conditions), (std::vector<std::string>{"first", "second", "third"}));
  EXPECT_EQ(conditions[1], add);
}

TEST(SetStatusCondition, StatusChangeWithZeroTransitionTimeUsesNow) {
  std::vector<Condition> conditions{Make("Ready", kConditionFalse, kBefore)};

  EXPECT_TRUE(SetStatusCondition(conditions, Make("Ready", kConditionTrue), kNow));

  EXPECT_EQ(conditions[0].status, kConditionTrue);
  EXPECT_EQ(conditions[0].lastTransitionTime, kNow);
}

TEST(SetStatusCondition, SameStatusKeepsExistingTransitionTimeAndUpdatesOtherFields) {
  // Go's "update-fields": a later lastTransitionTime without a status change is ignored.
  std::vector<Condition> conditions{Make("first"), Make("second", kConditionTrue, kBefore), Make("third")};
  Condition add = Make("second", kConditionTrue, kAfter);
  add.reason = "reason";
  add.message = "message";
  add.observedGeneration = 3;

  EXPECT_TRUE(SetStatusCondition(conditions, add, kNow));

  Condition want = add;
  want.lastTransitionTime = kBefore;
  EXPECT_EQ(conditions[1], want);
}

TEST(SetStatusCondition, IdenticalConditionReportsNoChange) {
  Condition existing = Make("Ready", kConditionTrue, kBefore);
  existing.reason = "Ok";
  existing.message = "all good";
  existing.observedGeneration = 7;
  std::vector<Condition> conditions{existing};

  // Only lastTransitionTime differs, and it is ignored while the status holds.
  Condition add = existing;
  add.lastTransitionTime = kAfter;
  EXPECT_FALSE(SetStatusCondition(conditions, add, kNow));
  EXPECT_EQ(conditions[0], existing);

  add.lastTransitionTime = {};
  EXPECT_FALSE(SetStatusCondition(conditions, add, kNow));
  EXPECT_EQ(conditions[0], existing);
}

TEST(SetStatusCondition, ReasonChangeAloneReportsChange) {
  std::vector<Condition> conditions{Make("Ready", kConditionTrue, kBefore)};
  Condition add = Make("Ready", kConditionTrue);
  add.reason = "NewReason";

  EXPECT_TRUE(SetStatusCondition(conditions, add, kNow));

  EXPECT_EQ(conditions[0].reason, "NewReason");
  EXPECT_EQ(conditions[0].lastTransitionTime, kBefore);
}

TEST(SetStatusCondition, MessageChangeAloneReportsChange) {
  Condition existing = Make("Ready", kConditionTrue, kBefore);
  existing.message = "old";
  std::vector<Condition> conditions{existing};
  Condition add = Make("Ready", kConditionTrue);
  add.message = "new";

  EXPECT_TRUE(SetStatusCondition(conditions, add, kNow));

  EXPECT_EQ(conditions[0].message, "new");
  EXPECT_EQ(conditions[0].lastTransitionTime, kBefore);
}

TEST(SetStatusCondition, ObservedGenerationChangeAloneReportsChange) {
  Condition existing = Make("Ready", kConditionTrue, kBefore);
  existing.observedGeneration = 1;
  std::vector<Condition> conditions{existing};
  Condition add = Make("Ready", kConditionTrue);
  add.observedGeneration = 2;

  EXPECT_TRUE(SetStatusCondition(conditions, add, kNow));
  EXPECT_EQ(conditions[0].observedGeneration, 2);
}

TEST(SetStatusCondition, ClearingReasonMessageAndObservedGenerationIsAChange) {
  // Go copies each of these fields whenever it differs, including to the empty value.
  Condition existing = Make("Ready", kConditionTrue, kBefore);
  existing.reason = "Ok";
  existing.message = "fine";
  existing.observedGeneration = 4;
  std::vector<Condition> conditions{existing};

  EXPECT_TRUE(SetStatusCondition(conditions, Make("Ready", kConditionTrue), kNow));

  EXPECT_EQ(conditions[0], Make("Ready", kConditionTrue, kBefore));
}

TEST(SetStatusCondition, UpdatesOnlyTheFirstConditionOfTheType) {
  std::vector<Condition> conditions{Make("Ready", kConditionFalse, kBefore), Make("Ready", kConditionFalse, kBefore)};

  EXPECT_TRUE(SetStatusCondition(conditions, Make("Ready", kConditionTrue), kNow));

  ASSERT_EQ(conditions.size(), 2u);
  EXPECT_EQ(conditions[0].status, kConditionTrue);
  EXPECT_EQ(conditions[1].status, kConditionFalse);
}

TEST(SetStatusCondition, OverloadWithoutNowSetsTransitionTimeFromWallClock) {
  std::vector<Condition> conditions;

  EXPECT_TRUE(SetStatusCondition(conditions, Make("Ready", kConditionTrue)));

  ASSERT_EQ(conditions.size(), 1u);
  EXPECT_NE(conditions[0].lastTransitionTime, ::kube::api::Time{});
}

TEST(RemoveStatusCondition, RemovesPresentConditionAndKeepsOrder) {
  std::vector<Condition> conditions{Make("first"), Make("second"), Make("third")};

  EXPECT_TRUE(RemoveStatusCondition(conditions, "second"));

  EXPECT_EQ(Types(conditions), (std::vector<std::string>{"first", "third"}));
}

TEST(RemoveStatusCondition, AbsentTypeLeavesListUnchangedAndReturnsFalse) {
  std::vector<Condition> conditions{Make("first"), Make("second"), Make("third")};

  EXPECT_FALSE(RemoveStatusCondition(conditions, "fourth"));

  EXPECT_EQ(Types(conditions), (std::vector<std::string>{"first", "second", "third"}));
}

TEST(RemoveStatusCondition, EmptyListReturnsFalse) {
  std::vector<Condition> conditions;
  EXPECT_FALSE(RemoveStatusCondition(conditions, "Foo"));
  EXPECT_TRUE(conditions.empty());
}

TEST(RemoveStatusCondition, RemovesEveryConditionOfTheType) {
  std::vector<Condition> conditions{Make("dup"), Make("keep"), Make("dup")};

  EXPECT_TRUE(RemoveStatusCondition(conditions, "dup"));

  EXPECT_EQ(Types(conditions), (std::vector<std::string>{"keep"}));
}

TEST(FindStatusCondition, ReturnsNullWhenAbsent) {
  const std::vector<Condition> conditions{Make("first")};
  EXPECT_EQ(FindStatusCondition(conditions, "second"), nullptr);
  EXPECT_EQ(FindStatusCondition(std::vector<Condition>{}, "first"), nullptr);
}

TEST(FindStatusCondition, ReturnsPointerIntoTheList) {
  const std::vector<Condition> conditions{Make("first"), Make("second")};
  const Condition* found = FindStatusCondition(conditions, "second");
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found, &conditions[1]);
  EXPECT_EQ(*found, Make("second"));
}

TEST(FindStatusCondition, MutableOverloadAllowsEditingInPlace) {
  std::vector<Condition> conditions{Make("Ready", kConditionFalse)};
  Condition* found = FindStatusCondition(conditions, "Ready");
  ASSERT_NE(found, nullptr);
  found->message = "edited";
  EXPECT_EQ(conditions[0].message, "edited");
}

TEST(IsStatusConditionPresentAndEqual, DoesNotMatchDifferentStatus) {
  const std::vector<Condition> conditions{Make("first", kConditionUnknown)};
  EXPECT_FALSE(IsStatusConditionPresentAndEqual(conditions, "first", kConditionTrue));
}

TEST(IsStatusConditionPresentAndEqual, MatchesTrueAndFalse) {
  EXPECT_TRUE(IsStatusConditionPresentAndEqual({Make("first", kConditionTrue)}, "first", kConditionTrue));
  EXPECT_TRUE(IsStatusConditionPresentAndEqual({Make("first", kConditionFalse)}, "first", kConditionFalse));
  EXPECT_TRUE(IsStatusConditionPresentAndEqual({Make("first", kConditionUnknown)}, "first", kConditionUnknown));
}

TEST(IsStatusConditionPresentAndEqual, AbsentTypeIsFalseAndComparisonIsCaseSensitive) {
  const std::vector<Condition> conditions{Make("first", kConditionTrue)};
  EXPECT_FALSE(IsStatusConditionPresentAndEqual(conditions, "second", kConditionTrue));
  EXPECT_FALSE(IsStatusConditionPresentAndEqual(conditions, "first", "true"));
}

TEST(IsStatusConditionTrue, TrueOnlyForStatusTrue) {
  const std::vector<Condition> conditions{Make("a", kConditionTrue), Make("b", kConditionFalse),
                                          Make("c", kConditionUnknown)};
  EXPECT_TRUE(IsStatusConditionTrue(conditions, "a"));
  EXPECT_FALSE(IsStatusConditionTrue(conditions, "b"));
  EXPECT_FALSE(IsStatusConditionTrue(conditions, "c"));
  EXPECT_FALSE(IsStatusConditionTrue(conditions, "absent"));
}

TEST(IsStatusConditionFalse, TrueOnlyForStatusFalse) {
  const std::vector<Condition> conditions{Make("a", kConditionTrue), Make("b", kConditionFalse),
                                          Make("c", kConditionUnknown)};
  EXPECT_FALSE(IsStatusConditionFalse(conditions, "a"));
  EXPECT_TRUE(IsStatusConditionFalse(conditions, "b"));
  EXPECT_FALSE(IsStatusConditionFalse(conditions, "c"));
  EXPECT_FALSE(IsStatusConditionFalse(conditions, "absent"));
}

TEST(IsStatusCondition, LooksAtTheFirstConditionOfTheTypeOnly) {
  const std::vector<Condition> conditions{Make("Ready", kConditionFalse), Make("Ready", kConditionTrue)};
  EXPECT_FALSE(IsStatusConditionTrue(conditions, "Ready"));
  EXPECT_TRUE(IsStatusConditionFalse(conditions, "Ready"));
}

}  // namespace
}  // namespace kube::api::meta::v1
