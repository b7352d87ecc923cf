// docs/tutorial.md: the files it shows are the files in docs/tutorial/ (checked here), the CRD file
// is what the operator prints from its C++ declaration, the operator compiles with the project, and
// the kubectl session of the tutorial behaves as the text says.

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "../e2e/e2e_util.hpp"

namespace kube::apiserver::e2e {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

const std::string kDir = KUBE_TUTORIAL_DIR;

// Every file of docs/tutorial/ appears verbatim in docs/tutorial.md as a fenced block.
TEST(TutorialTest, TheTutorialShowsTheTestedFiles) {
  const std::string doc = Slurp(kDir + ".md");
  ASSERT_FALSE(doc.empty());
  for (const char* file : {"CMakeLists.txt", "greeting.hpp", "main.cpp", "greeting-crd.yaml", "greeting.yaml"}) {
    const std::string content = Slurp(kDir + "/" + file);
    ASSERT_FALSE(content.empty()) << file;
    EXPECT_NE(doc.find("\n" + content + "```"), std::string::npos)
        << "docs/tutorial.md does not show docs/tutorial/" << file << " verbatim";
  }
}

// greeting-crd.yaml is, to the byte, what `greeting-operator crd` writes from greeting.hpp.
// To regenerate it: build/release/tests/examples/tutorial_greeting_operator crd > docs/tutorial/greeting-crd.yaml
TEST(TutorialTest, TheCrdFileIsWhatTheOperatorPrints) {
  const CommandResult printed = RunCommand(std::string(KUBE_TUTORIAL_BINARY) + " crd");
  ASSERT_EQ(printed.exit_code, 0) << printed.output;
  EXPECT_EQ(printed.output, Slurp(kDir + "/greeting-crd.yaml"))
      << "docs/tutorial/greeting-crd.yaml is not what `greeting-operator crd` prints";
}

// Polls `kubectl <args>` until its output contains `want` (60 s).
bool Eventually(TestServer& server, const std::string& args, const std::string& want, std::string* last) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    *last = server.Kubectl(args).output;
    if (last->find(want) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

TEST(TutorialTest, TheGreetingOperatorWorksAsDescribed) {
  if (!HaveKubectl()) GTEST_SKIP() << "kubectl not installed";
  TestServer server("tutorial");
  ASSERT_EQ(server.error(), "");
  auto crd = server.Kubectl("apply -f " + kDir + "/greeting-crd.yaml");
  ASSERT_EQ(crd.exit_code, 0) << crd.output;
  auto established = server.Kubectl("wait --for=condition=established --timeout=30s crd/greetings.tutorial.kubecpp.io");
  ASSERT_EQ(established.exit_code, 0) << established.output;
  LineStream op(std::string("exec ") + KUBE_TUTORIAL_BINARY + " --kubeconfig " + server.server().kubeconfig_path());
  auto applied = server.Kubectl("apply -f " + kDir + "/greeting.yaml");
  ASSERT_EQ(applied.exit_code, 0) << applied.output;
  std::string out;
  EXPECT_TRUE(Eventually(server, "get configmap world-greeting -o jsonpath={.data.message}", "Hello, World.", &out)) << out;
  EXPECT_TRUE(Eventually(server, "get greetings", "Hello, World.", &out)) << out;
  EXPECT_NE(out.find("MESSAGE"), std::string::npos) << out;
  EXPECT_NE(out.find("READY"), std::string::npos) << out;
  EXPECT_TRUE(Eventually(server, R"(get greeting world -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}')",
                         "True", &out))
      << out;
  auto owner = server.Kubectl("get configmap world-greeting -o jsonpath={.metadata.ownerReferences[0].kind}");
  EXPECT_EQ(owner.output, "Greeting");
  auto patched = server.Kubectl(R"(patch greeting world --type=merge -p '{"spec":{"excited":true}}')");
  ASSERT_EQ(patched.exit_code, 0) << patched.output;
  EXPECT_TRUE(Eventually(server, "get configmap world-greeting -o jsonpath={.data.message}", "Hello, World!!!", &out)) << out;
  EXPECT_TRUE(Eventually(server, "get greeting world -o jsonpath={.status.observedGeneration}", "2", &out)) << out;
  // Someone edits the owned ConfigMap: the operator puts it back.
  auto edited = server.Kubectl(R"(patch configmap world-greeting --type=merge -p '{"data":{"message":"hacked"}}')");
  ASSERT_EQ(edited.exit_code, 0) << edited.output;
  EXPECT_TRUE(Eventually(server, "get configmap world-greeting -o jsonpath={.data.message}", "Hello, World!!!", &out)) << out;
  // The schema generated from greeting.hpp rejects an empty spec.name (MinLength(1)).
  const std::string invalid = server.WriteFile(
      "invalid.json", R"({"apiVersion":"tutorial.kubecpp.io/v1","kind":"Greeting","metadata":{"name":"x"},"spec":{"name":""}})");
  auto rejected = server.Kubectl("apply -f " + invalid);
  EXPECT_NE(rejected.exit_code, 0) << rejected.output;
  EXPECT_NE(rejected.output.find("spec.name in body should be at least 1 chars long"), std::string::npos)
      << rejected.output;
  // Deleting the Greeting deletes its ConfigMap (garbage collection of owned objects).
  auto deleted = server.Kubectl("delete greeting world --wait=true");
  ASSERT_EQ(deleted.exit_code, 0) << deleted.output;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline &&
         !server.Kubectl("get configmap world-greeting --ignore-not-found -o name").output.empty()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(server.Kubectl("get configmap world-greeting --ignore-not-found -o name").output, "");
  // The Lease shows the leader election of the tutorial's last step.
  EXPECT_EQ(server.Kubectl("get lease greeting-operator -n default -o name").output, "lease.coordination.k8s.io/greeting-operator\n");
  op.Stop();
}

}  // namespace
}  // namespace kube::apiserver::e2e
