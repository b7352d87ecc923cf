// dryRun=All on every write verb (apiserver-semantics.md §3.1, §3.5): the full pipeline runs
// (validation, conflicts, defaulting) and the answer is the would-be object, but nothing is stored
// and no watch event is sent.

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "fixture.hpp"

namespace kube::apiserver::testing {
namespace {

constexpr std::string_view kCm = "/api/v1/namespaces/default/configmaps/";

using DryRunTest = ApiServerTest;

TEST_F(DryRunTest, UpdateRunsEverythingButStoresNothing) {
  auto cm = CreateConfigMap("default", "u", "{}", R"({"k":"v"})");
  const Revision before = storage().CurrentRevision();
  boost::json::object changed = cm;
  changed["data"] = boost::json::object{{"k", "dry"}};
  auto res = client().Put(std::string(kCm) + "u?dryRun=All", boost::json::serialize(changed));
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(Str(res.Json(), {"data", "k"}), "dry");
  EXPECT_EQ(storage().CurrentRevision(), before);
  EXPECT_EQ(Str(client().Get(std::string(kCm) + "u").Json(), {"data", "k"}), "v");
  // Conflicts are still detected.
  changed["metadata"].as_object()["resourceVersion"] = "1";
  auto stale = client().Put(std::string(kCm) + "u?dryRun=All", boost::json::serialize(changed));
  EXPECT_EQ(stale.status, 409) << stale.body;
  // Validation still runs.
  auto invalid = client().Put(std::string(kCm) + "u?dryRun=All",
                              R"({"metadata":{"name":"u","labels":{"bad key!":"x"}},"data":{}})");
  EXPECT_EQ(invalid.status, 422) << invalid.body;
  EXPECT_EQ(storage().CurrentRevision(), before);
}

TEST_F(DryRunTest, PatchAndDeleteStoreNothing) {
  CreateConfigMap("default", "p", "{}", R"({"k":"v"})");
  const Revision before = storage().CurrentRevision();
  auto patched = client().Patch(std::string(kCm) + "p?dryRun=All", R"({"data":{"k":"dry"}})", "application/merge-patch+json");
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(Str(patched.Json(), {"data", "k"}), "dry");
  auto json_patched = client().Patch(std::string(kCm) + "p?dryRun=All", R"([{"op":"remove","path":"/data"}])",
                                     "application/json-patch+json");
  ASSERT_EQ(json_patched.status, 200) << json_patched.body;
  EXPECT_EQ(Str(json_patched.Json(), {"data"}), "");
  auto deleted = client().Delete(std::string(kCm) + "p?dryRun=All");
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  auto collection = client().Delete("/api/v1/namespaces/default/configmaps?dryRun=All");
  ASSERT_EQ(collection.status, 200) << collection.body;
  EXPECT_EQ(storage().CurrentRevision(), before);
  auto live = client().Get(std::string(kCm) + "p");
  ASSERT_EQ(live.status, 200);
  EXPECT_EQ(Str(live.Json(), {"data", "k"}), "v");
  auto bad = client().Patch(std::string(kCm) + "p?dryRun=Some", R"({})", "application/merge-patch+json");
  EXPECT_EQ(bad.status, 422);
  EXPECT_EQ(Str(bad.Json(), {"message"}),
            "PatchOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: []string{\"Some\"}: supported values: \"All\"");
}

TEST_F(DryRunTest, NoWatchEventForADryRun) {
  auto cm = CreateConfigMap("default", "w");
  StreamReader watch(port(), "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=" + Rv(cm));
  ASSERT_EQ(watch.Status(), 200);
  ASSERT_EQ(client().Patch(std::string(kCm) + "w?dryRun=All", R"({"data":{"a":"b"}})", "application/merge-patch+json").status, 200);
  ASSERT_EQ(client().Post("/api/v1/namespaces/default/configmaps?dryRun=All", R"({"metadata":{"name":"x"}})").status, 201);
  ASSERT_EQ(client().Delete(std::string(kCm) + "w?dryRun=All").status, 200);
  // A real write afterwards is the first event the watch sees.
  ASSERT_EQ(client().Patch(std::string(kCm) + "w", R"({"data":{"real":"yes"}})", "application/merge-patch+json").status, 200);
  auto event = watch.NextEvent();
  EXPECT_EQ(Str(event, {"type"}), "MODIFIED");
  EXPECT_EQ(Str(event, {"object", "data", "real"}), "yes");
}

}  // namespace
}  // namespace kube::apiserver::testing
