#include "apiserver/discovery/internal/json_path.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace kube::apiserver::internal {
namespace {

namespace bj = boost::json;

const bj::value kDoc = bj::parse(R"({
  "metadata":{"name":"w","labels":{"app.kubernetes.io/name":"web","tier":"fe"}},
  "spec":{"replicas":3,"containers":[{"name":"a","image":"ia","port":80},{"name":"b","image":"ib","port":90}],
          "flag":true},
  "status":{"conditions":[{"type":"Synced","status":"True","n":1},{"type":"Ready","status":"False","n":2}]}})");

std::string Eval(std::string_view path) {
  const bj::value* v = EvalJsonPath(kDoc, path);
  return v == nullptr ? "<nil>" : bj::serialize(*v);
}

TEST(EvalJsonPath, FieldsIndexesAndWrappers) {
  EXPECT_EQ(Eval(".spec.replicas"), "3");
  EXPECT_EQ(Eval("{.spec.replicas}"), "3");
  EXPECT_EQ(Eval("$.spec.replicas"), "3");
  EXPECT_EQ(Eval(".spec.containers[1].image"), R"("ib")");
  EXPECT_EQ(Eval(".spec.containers[-1].name"), R"("b")");
  EXPECT_EQ(Eval(".spec.containers[5].name"), "<nil>");
  EXPECT_EQ(Eval(".spec.nothing"), "<nil>");
  EXPECT_EQ(Eval(".spec.replicas.deeper"), "<nil>");
}

TEST(EvalJsonPath, EscapedAndQuotedNames) {
  EXPECT_EQ(Eval(R"(.metadata.labels.app\.kubernetes\.io/name)"), R"("web")");
  EXPECT_EQ(Eval(R"(.metadata.labels['app.kubernetes.io/name'])"), R"("web")");
  EXPECT_EQ(Eval(R"(.metadata.labels["tier"])"), R"("fe")");
}

TEST(EvalJsonPath, WildcardsTakeTheFirstResult) {
  EXPECT_EQ(Eval(".spec.containers[*].name"), R"("a")");
  EXPECT_EQ(Eval(".spec.containers.*.image"), R"("ia")");
}

TEST(EvalJsonPath, Filters) {
  EXPECT_EQ(Eval(R"(.status.conditions[?(@.type=="Ready")].status)"), R"("False")");
  EXPECT_EQ(Eval(R"(.status.conditions[?(@.type == 'Synced')].status)"), R"("True")");
  EXPECT_EQ(Eval(R"(.status.conditions[?(@.type!="Synced")].type)"), R"("Ready")");
  EXPECT_EQ(Eval(R"(.status.conditions[?(@.n>1)].type)"), R"("Ready")");
  EXPECT_EQ(Eval(R"(.status.conditions[?(@.n<=1)].type)"), R"("Synced")");
  EXPECT_EQ(Eval(R"(.spec.containers[?(@.port)].name)"), R"("a")");
  EXPECT_EQ(Eval(R"(.status.conditions[?(@.type=="Gone")].status)"), "<nil>");
}

TEST(EvalJsonPath, UnsupportedSyntaxSelectsNothing) {
  EXPECT_EQ(Eval("..name"), "<nil>");
  EXPECT_EQ(Eval(".spec.containers[0:1]"), "<nil>");
  EXPECT_EQ(Eval("spec.replicas"), "<nil>");
  EXPECT_EQ(Eval(".spec.containers[0"), "<nil>");
}

}  // namespace
}  // namespace kube::apiserver::internal
