// kubectl 1.32 server-side apply against the embedded API server: `apply --server-side` create
// and update, a conflict with another field manager, `--force-conflicts`, and removal of a field
// dropped from the applied configuration. Skipped without kubectl.
#include <string>

#include <gtest/gtest.h>

#include "e2e_util.hpp"

namespace kube::apiserver::e2e {
namespace {

class KubectlSsaTest : public KubectlSuite<KubectlSsaTest> {
 public:
  static constexpr const char* kTag = "kubectl-ssa";

 protected:
  static std::string ConfigMap(const std::string& name, const std::string& data) {
    return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: default\ndata: {" + data + "}\n";
  }
};

TEST_F(KubectlSsaTest, CreateThenUpdateAndDropAField) {
  EXPECT_EQ(Ok("apply --server-side -f " + File("ssa1.yaml", ConfigMap("ssa-one", "a: '1', b: '2'"))),
            "configmap/ssa-one serverside-applied\n");
  EXPECT_EQ(JsonPath("cm ssa-one", "{.data.a},{.data.b}"), "1,2");
  EXPECT_EQ(JsonPath("cm ssa-one", "{.metadata.managedFields[*].manager}/{.metadata.managedFields[*].operation}"),
            "kubectl/Apply");
  // Applying without b removes b (kubectl owned it alone); a changes.
  EXPECT_EQ(Ok("apply --server-side -f " + File("ssa1b.yaml", ConfigMap("ssa-one", "a: '3'"))),
            "configmap/ssa-one serverside-applied\n");
  EXPECT_EQ(JsonPath("cm ssa-one", "{.data}"), R"({"a":"3"})");
  // Applying the same file again changes nothing.
  const std::string rv = JsonPath("cm ssa-one", "{.metadata.resourceVersion}");
  Ok("apply --server-side -f " + File("ssa1b.yaml", ConfigMap("ssa-one", "a: '3'")));
  EXPECT_EQ(JsonPath("cm ssa-one", "{.metadata.resourceVersion}"), rv);
}

TEST_F(KubectlSsaTest, ConflictWithAnotherManagerAndForceConflicts) {
  Ok("apply --server-side --field-manager=other -f " + File("ssa2.yaml", ConfigMap("ssa-two", "key: theirs")));
  const CommandResult conflict = Kubectl("apply --server-side -f " + File("ssa2b.yaml", ConfigMap("ssa-two", "key: mine")));
  EXPECT_NE(conflict.exit_code, 0);
  EXPECT_NE(conflict.output.find(R"(Apply failed with 1 conflict: conflict with "other": .data.key)"), std::string::npos)
      << conflict.output;
  EXPECT_EQ(JsonPath("cm ssa-two", "{.data.key}"), "theirs");

  EXPECT_EQ(Ok("apply --server-side --force-conflicts -f " + File("ssa2b.yaml", ConfigMap("ssa-two", "key: mine"))),
            "configmap/ssa-two serverside-applied\n");
  EXPECT_EQ(JsonPath("cm ssa-two", "{.data.key}"), "mine");
  // kubectl now owns the field; "other" owned nothing else, so its entry is gone.
  EXPECT_EQ(JsonPath("cm ssa-two", "{.metadata.managedFields[*].manager}"), "kubectl");
}

TEST_F(KubectlSsaTest, UpdatesByOtherCommandsAreRecorded) {
  Ok("apply --server-side -f " + File("ssa3.yaml", ConfigMap("ssa-three", "a: '1'")));
  Ok("label cm ssa-three team=x");
  EXPECT_EQ(JsonPath("cm ssa-three", "{.metadata.managedFields[*].manager}"), "kubectl kubectl-label");
  EXPECT_EQ(JsonPath("cm ssa-three", "{.metadata.managedFields[1].operation}"), "Update");
  EXPECT_EQ(JsonPath("cm ssa-three", "{.metadata.managedFields[1].fieldsV1}"), R"({"f:metadata":{"f:labels":{".":{},"f:team":{}}}})");
}

}  // namespace
}  // namespace kube::apiserver::e2e
