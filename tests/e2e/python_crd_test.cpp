// The Python `kubernetes` client (Debian's python3-kubernetes under /usr/bin/python3) against the
// embedded API server with TLS and the generated kubeconfig: python_crd_smoke.py creates a CRD,
// waits for Established, drives a custom resource through CustomObjectsApi
// (create/get/list/merge patch/422/delete), pages a list with `_continue`, gets a 409 on a stale
// update and deletes the CRD. Skipped when the module is not importable.
#include <string>

#include <gtest/gtest.h>

#include "e2e_util.hpp"

namespace kube::apiserver::e2e {
namespace {

constexpr const char* kPython = "/usr/bin/python3";

TEST(PythonCrdTest, CustomObjectsPaginationAndConflicts) {
  if (RunCommand(std::string(kPython) + " -c 'import kubernetes'").exit_code != 0) {
    GTEST_SKIP() << "the Python kubernetes client is not importable by " << kPython;
  }
  TestServer server("python-crd");
  ASSERT_EQ(server.error(), "");
  const CommandResult r = RunCommand("timeout 120 " + std::string(kPython) + " " + KUBE_PYTHON_CRD_SCRIPT + " " +
                                     server.server().kubeconfig_path());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output,
            "crd: established\n"
            "cr created: w1 red\n"
            "cr listed: 1\n"
            "cr patched: blue 2\n"
            "cr invalid: 422\n"
            "cr deleted: 404\n"
            "paginated: 3 pages 5 items\n"
            "stale update: 409 Conflict\n"
            "crd: deleted\n");
}

}  // namespace
}  // namespace kube::apiserver::e2e
