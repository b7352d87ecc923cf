// The JavaScript client @kubernetes/client-node (the exact version pinned in
// tests/e2e/node/package.json, installed with `npm ci` into tests/e2e/node/node_modules when it is
// missing) against the embedded API server with TLS and the generated kubeconfig.
//
// client_node_e2e.mjs: ConfigMap CRUD (409 AlreadyExists, 409 Conflict on a stale update, merge
// patch, 404 after delete), list with limit/continue, a watch from a resourceVersion, a CRD and its
// custom resources through CustomObjectsApi, and an informer (makeInformer) that must see every
// event of a scripted sequence. unauthorized.mjs: a wrong bearer token gets 401.
//
// Unlike the kubectl and Python suites these tests FAIL (they do not skip) when node is missing
// or `npm ci` cannot install the pinned client: scripts/bootstrap installs node and scripts/test
// runs `npm ci` up front, so either failure is a broken setup that must be visible.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "e2e_util.hpp"

namespace kube::apiserver::e2e {
namespace {

/// The directory with package.json, package-lock.json and the scripts.
const std::string kNodeDir = KUBE_NODE_E2E_DIR;

/// Makes sure node runs and the pinned client is installed; "" on success, else why not.
std::string EnsureClientNode() {
  const CommandResult node = RunCommand("node --version");
  if (node.exit_code != 0) {
    return "node is not installed or does not run (scripts/bootstrap installs it):\n" + node.output;
  }
  // `npm ls` fails when node_modules is missing or does not match package.json; then `npm ci`
  // installs exactly package-lock.json. flock: the tests of this binary may run in parallel.
  const std::string q = "'" + kNodeDir + "'";
  const CommandResult install = RunCommand(
      "cd " + q + " && flock " + std::filesystem::temp_directory_path().string() + "/kubecpp-npm-ci.lock sh -c "
      "'npm ls --depth=0 >/dev/null 2>&1 || timeout 300 npm ci --no-audit --no-fund'");
  if (install.exit_code != 0) {
    return "npm ci failed in " + kNodeDir +
           " (the npm registry must be reachable, or run `npm ci` there beforehand):\n" + install.output;
  }
  return "";
}

/// Runs `node <script> <kubeconfig>` in the package directory (so the import resolves).
CommandResult RunScript(const std::string& script, const std::string& kubeconfig) {
  return RunCommand("cd '" + kNodeDir + "' && timeout 180 node " + script + " '" + kubeconfig + "'");
}

TEST(NodeClientTest, ScriptedScenarioPasses) {
  const std::string setup = EnsureClientNode();
  ASSERT_EQ(setup, "") << setup;
  TestServer server("node-client");
  ASSERT_EQ(server.error(), "");
  const CommandResult r = RunScript("client_node_e2e.mjs", server.server().kubeconfig_path());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output,
            "namespaces: default kube-public kube-system\n"
            "namespace created: node-e2e\n"
            "created: node-cm v1 uid=set\n"
            "create again: 409 AlreadyExists\n"
            "read: node-cm v1\n"
            "replaced: v2\n"
            "stale update: 409 Conflict\n"
            "after stale update: v2\n"
            "patched: v2 x\n"
            "read after delete: 404 NotFound\n"
            "pages: 2,2,1 -> 5 items\n"
            "unpaged: 5 items\n"
            "watch from rv: MODIFIED/watch-a/2 ADDED/watch-b/1 DELETED/watch-a/2\n"
            "crd: widgets.e2e.kubecpp.io Established\n"
            "widget created: w1 size=3 generation=1\n"
            "widget replaced: size=5 generation=2\n"
            "widget stale replace: 409 Conflict\n"
            "widgets: WidgetList w1,w2\n"
            "widget after delete: 404 NotFound\n"
            "informer synced: inf-0\n"
            "informer events: add/inf-0/0 add/inf-1/1 update/inf-1/2 add/inf-2/1 delete/inf-0/0 "
            "update/inf-2/2 delete/inf-1/2\n"
            "informer cache: inf-2/2\n"
            "PASS\n");
  // The server's own view agrees with what the client saw.
  if (HaveKubectl()) {
    const CommandResult cms = server.Kubectl("get cm -n node-e2e -l e2e=informer -o name");
    EXPECT_EQ(cms.output, "configmap/inf-2\n");
    const CommandResult widgets = server.Kubectl("get widgets.e2e.kubecpp.io -n node-e2e -o name");
    EXPECT_EQ(widgets.output, "widget.e2e.kubecpp.io/w2\n");
  }
}

TEST(NodeClientTest, WrongTokenIsUnauthorized) {
  const std::string setup = EnsureClientNode();
  ASSERT_EQ(setup, "") << setup;
  TestServer server("node-client-401");
  ASSERT_EQ(server.error(), "");
  const CommandResult r = RunScript("unauthorized.mjs", server.server().kubeconfig_path());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "401 Unauthorized\n");
}

}  // namespace
}  // namespace kube::apiserver::e2e
