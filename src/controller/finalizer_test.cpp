#include <kube/controller/finalizer.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kube::controller {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

ObjectPtr Obj(std::vector<std::string> finalizers, bool deleting) {
  ObjectBuilder b("v1", "ConfigMap");
  b.SetName("cfg").SetNamespace("default");
  for (const auto& f : finalizers) b.AddFinalizer(f);
  if (deleting) (void)b.Set("/metadata/deletionTimestamp", boost::json::value("2026-01-01T00:00:00Z"));
  return b.Build().value();
}

TEST(FinalizerRegistry, RegisterRejectsDuplicatesAndEmptyNames) {
  FinalizerRegistry r;
  EXPECT_TRUE(r.Register("a.io/x", [](const Object&) { return Ok(); }).ok());
  EXPECT_TRUE(IsBadRequest(r.Register("a.io/x", [](const Object&) { return Ok(); }).error()));
  EXPECT_TRUE(IsBadRequest(r.Register("", [](const Object&) { return Ok(); }).error()));
  EXPECT_TRUE(IsBadRequest(r.Register("a.io/y", nullptr).error()));
}

TEST(FinalizerRegistry, LiveObjectGetsMissingFinalizersAndNoCleanupRuns) {
  FinalizerRegistry r;
  int runs = 0;
  ASSERT_TRUE(r.Register("a.io/x", [&](const Object&) { ++runs; return Ok(); }).ok());
  ASSERT_TRUE(r.Register("a.io/y", [&](const Object&) { ++runs; return Ok(); }).ok());
  auto res = r.Finalize(*Obj({"a.io/y", "other.io/z"}, false));
  EXPECT_THAT(res.added, ElementsAre("a.io/x"));
  EXPECT_THAT(res.removed, IsEmpty());
  EXPECT_TRUE(res.Updated());
  EXPECT_EQ(runs, 0);
  auto done = r.Finalize(*Obj({"a.io/x", "a.io/y"}, false));
  EXPECT_FALSE(done.Updated());
}

TEST(FinalizerRegistry, DeletingObjectRunsCleanupOnlyForPresentRegisteredFinalizers) {
  FinalizerRegistry r;
  std::vector<std::string> ran;
  ASSERT_TRUE(r.Register("a.io/x", [&](const Object& o) { ran.push_back("x:" + std::string(o.Name())); return Ok(); }).ok());
  ASSERT_TRUE(r.Register("a.io/absent", [&](const Object&) { ran.push_back("absent"); return Ok(); }).ok());
  auto obj = Obj({"a.io/x", "other.io/z"}, true);
  auto res = r.Finalize(*obj);
  EXPECT_THAT(ran, ElementsAre("x:cfg"));
  EXPECT_THAT(res.removed, ElementsAre("a.io/x"));
  EXPECT_THAT(res.added, IsEmpty());
  EXPECT_TRUE(res.Errors().ok());
  ObjectBuilder b(*obj);
  res.ApplyTo(b);
  auto after = b.Build().value();
  EXPECT_THAT(after->Finalizers().ToVector(), ElementsAre("other.io/z"));  // foreign finalizer kept
}

TEST(FinalizerRegistry, FailuresKeepTheirFinalizerAndAreReported) {
  FinalizerRegistry r;
  ASSERT_TRUE(r.Register("a.io/ok", [](const Object&) { return Ok(); }).ok());
  ASSERT_TRUE(r.Register("a.io/bad", [](const Object&) -> Result<void> { return MakeError(503, reason::kServiceUnavailable, "cloud down"); }).ok());
  ASSERT_TRUE(r.Register("a.io/throws", [](const Object&) -> Result<void> { throw std::runtime_error("bug"); }).ok());
  auto res = r.Finalize(*Obj({"a.io/ok", "a.io/bad", "a.io/throws"}, true));
  EXPECT_THAT(res.removed, ElementsAre("a.io/ok"));
  ASSERT_EQ(res.failed.size(), 2u);
  EXPECT_EQ(res.failed[0].first, "a.io/bad");
  EXPECT_EQ(res.failed[1].first, "a.io/throws");
  auto err = res.Errors();
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.error().code, 503);
  EXPECT_THAT(err.error().message, HasSubstr("a.io/bad: cloud down"));
  EXPECT_THAT(err.error().message, HasSubstr("a.io/throws: finalizer a.io/throws threw: bug"));
}

}  // namespace
}  // namespace kube::controller
