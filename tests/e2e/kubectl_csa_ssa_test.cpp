// kubectl 1.32 moving an object between client-side apply and `apply --server-side` against the
// embedded API server: kube's fieldmanager client-side apply bridge (lastAppliedManager lets
// kubectl's first server-side apply take the fields it applied client-side without a conflict,
// lastAppliedUpdater keeps the last-applied annotation in sync), kubectl's managedFields upgrade
// (csaupgrade JSON patch), and field removal on both sides afterwards. Skipped without kubectl.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "e2e_util.hpp"

namespace kube::apiserver::e2e {
namespace {

class KubectlCsaSsaTest : public KubectlSuite<KubectlCsaSsaTest> {
 public:
  static constexpr const char* kTag = "kubectl-csa-ssa";

 protected:
  static std::string ConfigMap(const std::string& name, const std::string& data) {
    return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: default\ndata: {" + data + "}\n";
  }
  /// Each managedFields entry of `what` as "manager/operation".
  static std::set<std::string> ManagersAndOperations(const std::string& what) {
    std::set<std::string> out;
    for (const Fields& line :
         Lines(JsonPath(what, R"({range .metadata.managedFields[*]}{.manager}/{.operation}{"\n"}{end})"))) {
      out.insert(line[0]);
    }
    return out;
  }
  static std::string LastApplied(const std::string& what) {
    return JsonPath(what, R"({.metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration})");
  }
};

TEST_F(KubectlCsaSsaTest, ClientSideThenServerSideThenClientSide) {
  // 1. Client-side apply: kubectl writes the annotation, kubectl-client-side-apply owns the data.
  EXPECT_EQ(Ok("apply -f " + File("bridge1.yaml", ConfigMap("bridge", "a: '1', b: '2', c: '3'"))),
            "configmap/bridge created\n");
  EXPECT_NE(LastApplied("cm bridge").find(R"("data":{"a":"1","b":"2","c":"3"})"), std::string::npos);

  // 2. Server-side apply changing b (owned by the client-side manager), dropping c, adding d.
  //    The server takes b without a conflict (the annotation still describes it) and rewrites the
  //    annotation to this configuration; kubectl then gives the annotation to its own Apply
  //    manager "kubectl-last-applied", migrates kubectl-client-side-apply's fields into "kubectl"
  //    (csaupgrade JSON patch on managedFields) and re-applies, which removes c.
  EXPECT_EQ(Ok("apply --server-side -f " + File("bridge2.yaml", ConfigMap("bridge", "a: '1', b: '20', d: '4'"))),
            "configmap/bridge serverside-applied\n");
  EXPECT_EQ(JsonPath("cm bridge", "{.data}"), R"({"a":"1","b":"20","d":"4"})");
  EXPECT_EQ(LastApplied("cm bridge"),
            R"({"apiVersion":"v1","data":{"a":"1","b":"20","d":"4"},"kind":"ConfigMap",)"
            R"("metadata":{"name":"bridge","namespace":"default"}})"
            "\n");
  // Both entries are Apply operations, which kube-apiserver orders by time in whole seconds before
  // the manager's name: the order of the two depends on whether a second boundary fell between
  // kubectl's requests, so compare them as a set.
  EXPECT_EQ(ManagersAndOperations("cm bridge"), (std::set<std::string>{"kubectl/Apply", "kubectl-last-applied/Apply"}));

  // 3. The same server-side apply again changes nothing.
  const std::string rv = JsonPath("cm bridge", "{.metadata.resourceVersion}");
  Ok("apply --server-side -f " + File("bridge2.yaml", ConfigMap("bridge", "a: '1', b: '20', d: '4'")));
  EXPECT_EQ(JsonPath("cm bridge", "{.metadata.resourceVersion}"), rv);

  // 3b. A later server-side apply adding e: the annotation follows again.
  Ok("apply --server-side -f " + File("bridge2b.yaml", ConfigMap("bridge", "a: '1', b: '20', d: '4', e: '5'")));
  EXPECT_EQ(JsonPath("cm bridge", "{.data}"), R"({"a":"1","b":"20","d":"4","e":"5"})");
  EXPECT_NE(LastApplied("cm bridge").find(R"("data":{"a":"1","b":"20","d":"4","e":"5"})"), std::string::npos);

  // 4. Client-side apply of a smaller config: the three-way patch starts from the annotation the
  //    server kept in sync, so b, d and e (applied server-side) go too.
  EXPECT_EQ(Ok("apply -f " + File("bridge3.yaml", ConfigMap("bridge", "a: '1'"))), "configmap/bridge configured\n");
  EXPECT_EQ(JsonPath("cm bridge", "{.data}"), R"({"a":"1"})");
  EXPECT_NE(LastApplied("cm bridge").find(R"("data":{"a":"1"})"), std::string::npos);
}

TEST_F(KubectlCsaSsaTest, ChangedFieldsStillConflictAndOtherManagersAreNotBridged) {
  Ok("apply -f " + File("bridge4.yaml", ConfigMap("bridge-two", "a: '1'")));
  // Someone changes a after the client-side apply: the annotation no longer describes the live
  // value, so kubectl's server-side apply conflicts with that writer.
  Ok("patch cm bridge-two --type merge -p '{\"data\":{\"a\":\"x\"}}' --field-manager=editor");
  const CommandResult conflict =
      Kubectl("apply --server-side -f " + File("bridge5.yaml", ConfigMap("bridge-two", "a: '2'")));
  EXPECT_NE(conflict.exit_code, 0);
  EXPECT_NE(conflict.output.find(R"(conflict with "editor" using v1: .data.a)"), std::string::npos) << conflict.output;
  EXPECT_EQ(JsonPath("cm bridge-two", "{.data.a}"), "x");

  // A different server-side manager gets neither the bridge nor the annotation update.
  Ok("apply -f " + File("bridge6.yaml", ConfigMap("bridge-three", "a: '1'")));
  const std::string before = LastApplied("cm bridge-three");
  const CommandResult other = Kubectl("apply --server-side --field-manager=other -f " +
                                      File("bridge7.yaml", ConfigMap("bridge-three", "a: '2'")));
  EXPECT_NE(other.exit_code, 0);
  EXPECT_NE(other.output.find(R"(conflict with "kubectl-client-side-apply" using v1: .data.a)"), std::string::npos)
      << other.output;
  Ok("apply --server-side --field-manager=other --force-conflicts -f " +
     File("bridge7.yaml", ConfigMap("bridge-three", "a: '2'")));
  EXPECT_EQ(JsonPath("cm bridge-three", "{.data.a}"), "2");
  // Not rewritten to other's configuration. (kubectl migrates the client-side fields to "other"
  // without saving the annotation under a manager, so other's re-apply prunes it, as in kube.)
  EXPECT_EQ(LastApplied("cm bridge-three").find(R"("a":"2")"), std::string::npos);
  EXPECT_NE(before.find(R"("a":"1")"), std::string::npos);
}

}  // namespace
}  // namespace kube::apiserver::e2e
