// The README's twenty-line controller: the code block in README.md is examples/minimal/main.cpp
// (so it compiles with the project), and the built binary labels ConfigMaps on the embedded server.

#include <gtest/gtest.h>

#include <algorithm>
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

TEST(MinimalExampleTest, ReadmeShowsExactlyTheCompiledExample) {
  std::string source = Slurp(KUBE_MINIMAL_SOURCE);
  ASSERT_FALSE(source.empty());
  // The file starts with a comment block the README replaces with prose.
  source = source.substr(source.find("#include <kube/kube.hpp>"));
  const std::string readme = Slurp(KUBE_README);
  const auto start = readme.find("```cpp\n#include <kube/kube.hpp>");
  ASSERT_NE(start, std::string::npos) << "README.md has no ```cpp block starting with #include <kube/kube.hpp>";
  const auto body = start + std::string("```cpp\n").size();
  const auto end = readme.find("```", body);
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(readme.substr(body, end - body), source);
  // "About twenty lines": the README promises a short controller.
  EXPECT_LE(std::count(source.begin(), source.end(), '\n'), 30);
}

TEST(MinimalExampleTest, LabelsEveryConfigMap) {
  if (!HaveKubectl()) GTEST_SKIP() << "kubectl not installed";
  TestServer server("minimal-example");
  ASSERT_EQ(server.error(), "");
  auto create = [&](const std::string& name) {
    const std::string file = server.WriteFile(name + ".yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name +
                                                                  "\ndata:\n  k: v\n");
    return server.Kubectl("create -f " + file);
  };
  auto before = create("before");
  ASSERT_EQ(before.exit_code, 0) << before.output;
  LineStream controller("exec env KUBECONFIG=" + server.server().kubeconfig_path() + " " KUBE_MINIMAL_BINARY);
  // A ConfigMap created before the controller started and one created after both get the label.
  auto after = create("after");
  ASSERT_EQ(after.exit_code, 0) << after.output;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::string labels;
  while (std::chrono::steady_clock::now() < deadline) {
    labels = server.Kubectl("get configmap before after -o jsonpath={.items[*].metadata.labels}").output;
    const auto first = labels.find("example.kubecpp.io/seen");
    if (first != std::string::npos && labels.find("example.kubecpp.io/seen", first + 1) != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  controller.Stop();
  EXPECT_NE(labels.find(R"("example.kubecpp.io/seen":"true"})"), std::string::npos) << labels;
  const auto first = labels.find("example.kubecpp.io/seen");
  EXPECT_NE(labels.find("example.kubecpp.io/seen", first + 1), std::string::npos)
      << "both ConfigMaps should be labelled: " << labels << "\ncontroller output:\n"
      << controller.seen();
}

}  // namespace
}  // namespace kube::apiserver::e2e
