// The Python `kubernetes` client (Debian's python3-kubernetes under /usr/bin/python3) against the
// embedded API server with TLS and the generated kubeconfig: python_client_smoke.py lists
// namespaces, creates/reads/patches/deletes a ConfigMap and watches with timeoutSeconds.
// Skipped when the module is not importable.
#include <string>

#include <gtest/gtest.h>

#include "e2e_util.hpp"

namespace kube::apiserver::e2e {
namespace {

constexpr const char* kPython = "/usr/bin/python3";

TEST(PythonClientTest, SmokeScriptPasses) {
  if (RunCommand(std::string(kPython) + " -c 'import kubernetes'").exit_code != 0) {
    GTEST_SKIP() << "the Python kubernetes client is not importable by " << kPython;
  }
  TestServer server("python-client");
  ASSERT_EQ(server.error(), "");
  const CommandResult r = RunCommand("timeout 120 " + std::string(kPython) + " " + KUBE_PYTHON_SMOKE_SCRIPT + " " +
                                     server.server().kubeconfig_path());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output,
            "namespaces: default kube-public kube-system\n"
            "created: py-cm v1\n"
            "create again: 409 Conflict\n"
            "read: py-cm v1 py\n"
            "patched: v2 x\n"
            "selected: 1\n"
            "watch from rv: MODIFIED/py-cm/v2\n"
            "watch: ADDED/py-cm DELETED/py-cm\n"
            "read after delete: 404 Not Found\n"
            "PASS\n");
  // Nothing of the ConfigMap is left behind.
  if (HaveKubectl()) {
    EXPECT_NE(server.Kubectl("get cm py-cm -n default -o name").exit_code, 0);
  }
}

TEST(PythonClientTest, WrongTokenIsUnauthorized) {
  if (RunCommand(std::string(kPython) + " -c 'import kubernetes'").exit_code != 0) {
    GTEST_SKIP() << "the Python kubernetes client is not importable by " << kPython;
  }
  TestServer server("python-client-401");
  ASSERT_EQ(server.error(), "");
  const std::string script =
      "import sys\n"
      "from kubernetes import client, config\n"
      "from kubernetes.client.rest import ApiException\n"
      "config.load_kube_config(config_file=sys.argv[1])\n"
      "c = client.Configuration.get_default_copy()\n"
      "c.api_key = {'authorization': 'Bearer wrong'}\n"
      "try:\n"
      "    client.CoreV1Api(client.ApiClient(c)).list_namespace()\n"
      "except ApiException as e:\n"
      "    print(e.status, e.reason)\n";
  const std::string file = server.WriteFile("wrong_token.py", script);
  const CommandResult r = RunCommand("timeout 60 " + std::string(kPython) + " " + file + " " +
                                     server.server().kubeconfig_path());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "401 Unauthorized\n");
}

}  // namespace
}  // namespace kube::apiserver::e2e
