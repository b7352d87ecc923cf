// kubectl 1.32's generator commands (`kubectl create deployment|configmap|secret|namespace|
// service|serviceaccount|role|rolebinding|clusterrole|clusterrolebinding`) send protobuf bodies.
// For each one the object the server stored must contain everything kubectl itself renders for
// the same command with `--dry-run=client -o json` (the oracle: kubectl's own encoding of the
// object it sends), plus the server's defaults. Skipped without kubectl.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "e2e_util.hpp"

namespace kube::apiserver::e2e {
namespace {

namespace bj = boost::json;

// Every leaf of `expected` must be present in `actual` with the same value (`actual` may have
// more: server defaults, uid, resourceVersion, ...). Arrays are compared element by element.
void ExpectContains(const bj::value& expected, const bj::value& actual, const std::string& path,
                    std::vector<std::string>& diffs) {
  if (expected.is_object()) {
    if (!actual.is_object()) {
      diffs.push_back(path + ": expected an object, got " + bj::serialize(actual));
      return;
    }
    for (const auto& [key, value] : expected.as_object()) {
      const bj::value* other = actual.as_object().if_contains(key);
      if (value.is_null()) continue;  // e.g. creationTimestamp: null in a client-side render
      if (value.is_object() && value.as_object().empty()) continue;  // `status: {}`, `resources: {}`
      if (other == nullptr) {
        diffs.push_back(path + "." + std::string(key) + ": missing (expected " + bj::serialize(value) + ")");
        continue;
      }
      ExpectContains(value, *other, path + "." + std::string(key), diffs);
    }
    return;
  }
  if (expected.is_array()) {
    if (!actual.is_array() || actual.as_array().size() != expected.as_array().size()) {
      diffs.push_back(path + ": expected " + bj::serialize(expected) + ", got " + bj::serialize(actual));
      return;
    }
    for (std::size_t i = 0; i < expected.as_array().size(); ++i) {
      ExpectContains(expected.as_array()[i], actual.as_array()[i], path + "[" + std::to_string(i) + "]", diffs);
    }
    return;
  }
  if (expected != actual) {
    diffs.push_back(path + ": expected " + bj::serialize(expected) + ", got " + bj::serialize(actual));
  }
}

class KubectlGeneratorsTest : public KubectlSuite<KubectlGeneratorsTest> {
 public:
  static constexpr const char* kTag = "kubectl-generators";

 protected:
  // Runs `kubectl create <args>` for real (protobuf on the wire) and checks the stored object
  // (`get <what> -o json`) against kubectl's `--dry-run=client -o json` rendering.
  void CreateAndCompare(const std::string& args, const std::string& what) {
    SCOPED_TRACE("kubectl create " + args);
    const CommandResult rendered = Kubectl("create " + args + " --dry-run=client -o json");
    ASSERT_EQ(rendered.exit_code, 0) << rendered.output;
    const CommandResult created = Kubectl("create " + args + " -v=8");
    ASSERT_EQ(created.exit_code, 0) << created.output;
    EXPECT_NE(created.output.find("Content-Type: application/vnd.kubernetes.protobuf"), std::string::npos)
        << "kubectl is expected to send protobuf here";
    const CommandResult stored = Kubectl("get " + what + " -o json");
    ASSERT_EQ(stored.exit_code, 0) << stored.output;
    std::vector<std::string> diffs;
    ExpectContains(bj::parse(rendered.output), bj::parse(stored.output), "", diffs);
    for (const auto& d : diffs) ADD_FAILURE() << d;
  }
};

TEST_F(KubectlGeneratorsTest, NamespaceConfigMapSecretServiceAccount) {
  CreateAndCompare("namespace gen-ns", "namespace gen-ns");
  CreateAndCompare("configmap gen-cm --from-literal=a=b --from-literal=empty= --from-file=hosts=/etc/hosts",
                   "configmap gen-cm");
  CreateAndCompare("secret generic gen-secret --from-literal=user=admin --from-literal=pw=s3cr3t --type=Opaque",
                   "secret gen-secret");
  CreateAndCompare("secret docker-registry gen-pull --docker-username=u --docker-password=p --docker-server=r.io",
                   "secret gen-pull");
  CreateAndCompare("serviceaccount gen-sa", "serviceaccount gen-sa");
  // Binary data survives (base64 both ways).
  EXPECT_EQ(JsonPath("secret gen-secret", "{.data.pw}"), "czNjcjN0");
}

TEST_F(KubectlGeneratorsTest, Deployments) {
  CreateAndCompare("deployment gen-d1 --image=nginx:1.27 --replicas=3 --port=8080", "deployment gen-d1");
  CreateAndCompare("deployment gen-d2 --image=nginx --image=redis", "deployment gen-d2");
  // replicas: 0 is a pointer in Go and must not be lost.
  CreateAndCompare("deployment gen-d0 --image=nginx --replicas=0", "deployment gen-d0");
  EXPECT_EQ(JsonPath("deployment gen-d0", "{.spec.replicas}"), "0");
  // The server's defaults apply as for JSON.
  EXPECT_EQ(JsonPath("deployment gen-d1", "{.spec.strategy.type}|{.spec.revisionHistoryLimit}"), "RollingUpdate|10");
}

TEST_F(KubectlGeneratorsTest, Services) {
  CreateAndCompare("service clusterip gen-svc --tcp=80:8080 --tcp=443:8443", "service gen-svc");
  CreateAndCompare("service clusterip gen-headless --clusterip=None", "service gen-headless");
  CreateAndCompare("service nodeport gen-np --tcp=80:8080 --node-port=30080", "service gen-np");
  CreateAndCompare("service loadbalancer gen-lb --tcp=80", "service gen-lb");
  CreateAndCompare("service externalname gen-ext --external-name=example.com", "service gen-ext");
  EXPECT_EQ(JsonPath("service gen-svc", "{.spec.ports[1].targetPort}"), "8443");
}

TEST_F(KubectlGeneratorsTest, Rbac) {
  CreateAndCompare("role gen-role --verb=get,list --resource=pods,deployments.apps --resource-name=x",
                   "role gen-role");
  CreateAndCompare("rolebinding gen-rb --role=gen-role --user=alice --serviceaccount=default:gen-sa2 --group=devs",
                   "rolebinding gen-rb");
  CreateAndCompare("clusterrole gen-cr --verb=get --non-resource-url=/logs", "clusterrole gen-cr");
  CreateAndCompare("clusterrole gen-agg --aggregation-rule=team=a", "clusterrole gen-agg");
  CreateAndCompare("clusterrolebinding gen-crb --clusterrole=gen-cr --user=bob", "clusterrolebinding gen-crb");
}

TEST_F(KubectlGeneratorsTest, ExposeAndRunStillWork) {
  Ok("create deployment gen-web --image=nginx --port=80");
  EXPECT_EQ(Ok("expose deployment gen-web --port=81 --target-port=80 --name=gen-web-svc"),
            "service/gen-web-svc exposed\n");
  EXPECT_EQ(JsonPath("service gen-web-svc", "{.spec.selector.app}|{.spec.ports[0].targetPort}"), "gen-web|80");
}

}  // namespace
}  // namespace kube::apiserver::e2e
