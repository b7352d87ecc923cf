#include <kube/controller/predicate.hpp>

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace kube::controller {
namespace {

using testing::Obj;

ObjectPtr Deploy(int generation, std::string_view rv, std::string_view labels = "{}",
                 std::string_view annotations = "{}") {
  return Obj(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"n","generation":)" +
             std::to_string(generation) + R"(,"resourceVersion":")" + std::string(rv) + R"(","labels":)" +
             std::string(labels) + R"(,"annotations":)" + std::string(annotations) + "}}");
}

TEST(GenerationChanged, PassesSpecChangesAndDropsStatusOnlyUpdates) {
  auto p = GenerationChanged();
  EXPECT_TRUE(p.Update({.old_object = Deploy(1, "10"), .new_object = Deploy(2, "11")}));
  EXPECT_FALSE(p.Update({.old_object = Deploy(1, "10"), .new_object = Deploy(1, "11")}));
  EXPECT_TRUE(p.Create({.object = Deploy(1, "10")}));
  EXPECT_TRUE(p.Delete({.object = Deploy(1, "10")}));
  EXPECT_TRUE(p.Generic({.object = Deploy(1, "10")}));
}

TEST(ResourceVersionChanged, DropsResyncs) {
  auto p = ResourceVersionChanged();
  auto d = Deploy(1, "10");
  EXPECT_FALSE(p.Update({.old_object = d, .new_object = d}));
  EXPECT_TRUE(p.Update({.old_object = d, .new_object = Deploy(1, "11")}));
}

TEST(LabelChanged, PassesOnlyLabelChanges) {
  auto p = LabelChanged();
  EXPECT_FALSE(p.Update({.old_object = Deploy(1, "1", R"({"a":"1"})"), .new_object = Deploy(2, "2", R"({"a":"1"})")}));
  EXPECT_TRUE(p.Update({.old_object = Deploy(1, "1", R"({"a":"1"})"), .new_object = Deploy(1, "2", R"({"a":"2"})")}));
  EXPECT_TRUE(p.Update({.old_object = Deploy(1, "1", R"({"a":"1"})"),
                        .new_object = Deploy(1, "2", R"({"a":"1","b":"1"})")}));
}

TEST(AnnotationChanged, PassesOnlyAnnotationChanges) {
  auto p = AnnotationChanged();
  EXPECT_FALSE(p.Update({.old_object = Deploy(1, "1", "{}", R"({"x":"1"})"),
                         .new_object = Deploy(1, "2", R"({"l":"1"})", R"({"x":"1"})")}));
  EXPECT_TRUE(p.Update({.old_object = Deploy(1, "1", "{}", R"({"x":"1"})"),
                        .new_object = Deploy(1, "2", "{}", R"({"x":"2"})")}));
}

TEST(LabelSelectorPredicate, MatchesTheObjectLabels) {
  auto sel = LabelSelector::Parse("app=web");
  ASSERT_TRUE(sel.ok());
  auto p = LabelSelectorPredicate(*sel);
  EXPECT_TRUE(p.Create({.object = Deploy(1, "1", R"({"app":"web"})")}));
  EXPECT_FALSE(p.Create({.object = Deploy(1, "1", R"({"app":"db"})")}));
  EXPECT_TRUE(p.Update({.old_object = Deploy(1, "1"), .new_object = Deploy(1, "2", R"({"app":"web"})")}));
  EXPECT_FALSE(p.Delete({.object = nullptr, .delete_state_unknown = true}));
}

TEST(PredicateCombinators, AndOrNotCombineEveryEventType) {
  Predicate yes{};
  Predicate no{.create = [](const CreateEvent&) { return false; },
               .update = [](const UpdateEvent&) { return false; },
               .del = [](const DeleteEvent&) { return false; },
               .generic = [](const GenericEvent&) { return false; }};
  CreateEvent c{.object = Deploy(1, "1")};
  GenericEvent g{.object = Deploy(1, "1")};
  EXPECT_TRUE(And(yes, yes).Create(c));
  EXPECT_FALSE(And(yes, no).Create(c));
  EXPECT_TRUE(Or(no, yes).Generic(g));
  EXPECT_FALSE(Or(no, no).Generic(g));
  EXPECT_FALSE(Not(yes).Create(c));
  EXPECT_TRUE(Not(no).Create(c));
  EXPECT_TRUE(And(std::vector<Predicate>{}).Create(c));
  EXPECT_FALSE(Or(std::vector<Predicate>{}).Create(c));
  // Not(GenerationChanged) keeps only the status-only updates.
  auto status_only = Not(GenerationChanged());
  EXPECT_TRUE(status_only.Update({.old_object = Deploy(1, "1"), .new_object = Deploy(1, "2")}));
  EXPECT_FALSE(status_only.Update({.old_object = Deploy(1, "1"), .new_object = Deploy(2, "2")}));
}

}  // namespace
}  // namespace kube::controller
