#include "apiserver/rest/csr.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <kube/apiserver/apiserver.hpp>
#include <kube/base/base64.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace kube::apiserver::rest {
namespace {
namespace json = boost::json;

constexpr std::string_view kEcCsr =
    "-----BEGIN CERTIFICATE REQUEST-----\n"
    "MIHrMIGSAgEAMDAxFzAVBgNVBAMMDnN5c3RlbTpub2RlOm4xMRUwEwYDVQQKDAxz\n"
    "eXN0ZW06bm9kZXMwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAATK/2rn3GMJH5VM\n"
    "w/+yCXfeLLVvHVyiHNs7Dl0WmNHMehAf31FNphHstHCixmUaOdjOwJQy/rDT5QvO\n"
    "qeqjoJzeoAAwCgYIKoZIzj0EAwIDSAAwRQIgS4zVcQOTIsbljmLp12QHIZFmx9Yr\n"
    "6m+CUTM+jf6w9JwCIQCfo+3bCZqRnQFEwtOThQDq8lUEYqftAMUQBB79vrpuow==\n"
    "-----END CERTIFICATE REQUEST-----\n";

json::object Csr(std::string_view spec_members = "", std::string_view status = "{}") {
  std::string spec =
      R"({"request":")" + Base64Encode(kEcCsr) + R"(","signerName":"example.com/signer","usages":["client auth"]})";
  if (!spec_members.empty()) spec = spec.substr(0, spec.size() - 1) + "," + std::string(spec_members) + "}";
  return json::object{{"apiVersion", "certificates.k8s.io/v1"},
                      {"kind", "CertificateSigningRequest"},
                      {"metadata", json::object{{"name", "c"}}},
                      {"spec", json::parse(spec)},
                      {"status", json::parse(status)}};
}

std::vector<std::string> Errors(const json::object& obj, const json::object* old = nullptr,
                                Subresource sub = Subresource::kNone) {
  std::vector<FieldError> errs;
  ValidateCertificateSigningRequest(obj, old, sub, errs);
  std::vector<std::string> out;
  for (const auto& e : errs) out.push_back(e.String());
  return out;
}

TEST(Csr, CreateRecordsTheRequesterAndEmptiesTheStatus) {
  json::object obj = Csr(R"("username":"mallory","uid":"9","groups":["x"],"extra":{"a":["b"]})",
                         R"({"conditions":[{"type":"Approved","status":"True"}]})");
  PrepareCsrCreate(obj, "admin");
  EXPECT_EQ(obj.at("spec").at("username"), "admin");
  EXPECT_FALSE(obj.at("spec").as_object().contains("uid"));
  EXPECT_FALSE(obj.at("spec").as_object().contains("extra"));
  EXPECT_EQ(obj.at("spec").at("groups"), json::parse(R"(["system:masters","system:authenticated"])"));
  EXPECT_EQ(obj.at("status"), json::object());
  PrepareCsrCreate(obj, "system:anonymous");
  EXPECT_EQ(obj.at("spec").at("groups"), json::parse(R"(["system:unauthenticated"])"));
  PrepareCsrCreate(obj, "");
  EXPECT_FALSE(obj.at("spec").as_object().contains("username"));
}

TEST(Csr, EmptySpecErrorsInKubesOrder) {
  json::object obj{{"spec", json::object()}, {"status", json::object()}};
  EXPECT_EQ(Errors(obj), (std::vector<std::string>{
                             "spec.request: Invalid value: []byte(nil): PEM block type must be CERTIFICATE REQUEST",
                             "spec.usages: Required value", "spec.signerName: Required value"}));
  obj["spec"].as_object()["request"] = Base64Encode("abc");
  obj["spec"].as_object()["usages"] = json::array{"foo", "client auth", "client auth"};
  obj["spec"].as_object()["signerName"] = "kubernetes.io/legacy-unknown";
  obj["spec"].as_object()["expirationSeconds"] = 599;
  const auto errs = Errors(obj);
  ASSERT_EQ(errs.size(), 5u);
  EXPECT_EQ(errs[0],
            "spec.request: Invalid value: []byte{0x61, 0x62, 0x63}: PEM block type must be CERTIFICATE REQUEST");
  EXPECT_TRUE(
      errs[1].starts_with("spec.usages[0]: Unsupported value: \"foo\": supported values: \"any\", \"cert sign\""));
  EXPECT_EQ(errs[2], "spec.usages[2]: Duplicate value: \"client auth\"");
  EXPECT_EQ(errs[3],
            "spec.signerName: Invalid value: \"kubernetes.io/legacy-unknown\": the legacy signerName is not "
            "allowed via this API version");
  EXPECT_EQ(
      errs[4],
      "spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)");
}

TEST(Csr, SignerNamesAreADomainAndAPath) {
  auto signer = [](std::string_view name) {
    json::object obj = Csr();
    obj["spec"].as_object()["signerName"] = json::string(name);
    return Errors(obj);
  };
  EXPECT_TRUE(signer("example.com/a.b").empty());
  EXPECT_EQ(signer("a.b/c/d"),
            std::vector<std::string>{"spec.signerName: Invalid value: \"a.b/c/d\": must be a fully "
                                     "qualified domain and path of the form 'example.com/signer-name'"});
  EXPECT_EQ(signer("foo/bar"), std::vector<std::string>{"spec.signerName: Invalid value: \"foo\": should be a domain "
                                                        "with at least two segments separated by dots"});
  const auto bad = signer("Example.com/a_b");
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_TRUE(
      bad[0].starts_with("spec.signerName: Invalid value: \"Example.com\": validating label \"Example\": a "
                         "lowercase RFC 1123 label"));
  EXPECT_TRUE(
      bad[1].starts_with("spec.signerName: Invalid value: \"a_b\": validating label \"a_b\": a lowercase RFC "
                         "1123 subdomain"));
  EXPECT_EQ(signer(std::string(250, 'x') + ".com/a").front(),
            "spec.signerName: Too long: may not be more than 253 bytes");
}

TEST(Csr, ConditionRules) {
  const json::object obj = Csr("", R"({"conditions":[{"type":"Approved","status":"False"},{"type":"","status":"True"},
      {"type":"X","status":"Maybe"},{"type":"X","status":""},{"type":"Denied","status":"True"}]})");
  EXPECT_EQ(Errors(obj, nullptr, Subresource::kApproval),
            (std::vector<std::string>{
                "status.conditions[0].status: Unsupported value: \"False\": supported values: \"True\"",
                "status.conditions[1].type: Required value",
                "status.conditions[2].status: Unsupported value: \"Maybe\": supported values: "
                "\"False\", \"True\", \"Unknown\"",
                "status.conditions[3].status: Required value", "status.conditions[3].type: Duplicate value: \"X\"",
                "status.conditions[4].type: Invalid value: \"Denied\": Approved and Denied "
                "conditions are mutually exclusive"}));
}

TEST(Csr, UpdatesMayNotRemoveConditionsAndOnlyTheirSubresourceSetsThem) {
  const json::object old =
      Csr("", R"({"conditions":[{"type":"Approved","status":"True"},{"type":"Failed","status":"True"}]})");
  const json::object removed = Csr("", R"({"conditions":[]})");
  EXPECT_EQ(Errors(removed, &old, Subresource::kApproval),
            (std::vector<std::string>{
                "status.conditions: Forbidden: updates may not remove a condition of type \"Approved\"",
                "status.conditions: Forbidden: updates may not remove a condition of type \"Failed\""}));
  const json::object fresh = Csr();
  const json::object approved = Csr("", R"({"conditions":[{"type":"Approved","status":"True"}]})");
  EXPECT_TRUE(Errors(approved, &fresh, Subresource::kApproval).empty());
  EXPECT_EQ(
      Errors(approved, &fresh, Subresource::kStatus),
      std::vector<std::string>{"status.conditions: Forbidden: updates may not add a condition of type \"Approved\""});
  const json::object certified = Csr("", R"({"certificate":")" + Base64Encode("junk") + R"("})");
  EXPECT_EQ(
      Errors(certified, &fresh, Subresource::kApproval),
      (std::vector<std::string>{"status.certificate: Invalid value: \"<certificate data>\": must contain at least "
                                "one CERTIFICATE PEM block",
                                "status.certificate: Forbidden: updates may not set certificate content"}));
}

TEST(Csr, StatusKeepsTheApprovalConditionsAndStampsTheOthers) {
  const json::object old = Csr("", R"({"conditions":[{"type":"Approved","status":"True","reason":"old",
      "lastUpdateTime":"2020-01-01T00:00:00Z","lastTransitionTime":"2020-01-01T00:00:00Z"}]})");
  json::object obj =
      Csr(R"("signerName":"example.com/changed")", R"({"conditions":[{"type":"Approved","status":"True","reason":"new"},
      {"type":"Issued","status":"True"}]})");
  PrepareCsrUpdate(Subresource::kStatus, obj, old, "2026-01-01T00:00:00Z");
  EXPECT_EQ(obj.at("spec"), old.at("spec"));
  const auto& conditions = obj.at("status").at("conditions").as_array();
  EXPECT_EQ(conditions[0], old.at("status").at("conditions").at(0));
  EXPECT_EQ(conditions[1].at("lastUpdateTime"), "2026-01-01T00:00:00Z");
  EXPECT_EQ(conditions[1].at("lastTransitionTime"), "2026-01-01T00:00:00Z");

  json::object approval = Csr("", R"({"conditions":[{"type":"Approved","status":"True","reason":"again"}]})");
  PrepareCsrUpdate(Subresource::kApproval, approval, old, "2026-01-01T00:00:00Z");
  // The transition time of a condition of the same type and status is the old one.
  EXPECT_EQ(approval.at("status").at("conditions").at(0).at("lastTransitionTime"), "2020-01-01T00:00:00Z");
  EXPECT_EQ(approval.at("status").at("conditions").at(0).at("lastUpdateTime"), "2026-01-01T00:00:00Z");
}

TEST(Csr, ResetFieldsOfEachEndpoint) {
  EXPECT_EQ(CsrResetFields(Subresource::kNone), std::vector<std::string>{"spec"});
  EXPECT_EQ(CsrResetFields(Subresource::kStatus), (std::vector<std::string>{"spec", "status.conditions"}));
  EXPECT_EQ(CsrResetFields(Subresource::kApproval), (std::vector<std::string>{"spec", "status.certificate"}));
}

TEST(Csr, RegisteredClusterScopedWithItsSubresources) {
  Registry registry;
  RegisterBuiltins(registry);
  const auto info = registry.Find("certificates.k8s.io", "v1", "certificatesigningrequests");
  ASSERT_NE(info, nullptr);
  EXPECT_TRUE(IsCertificateSigningRequest(*info));
  EXPECT_FALSE(info->namespaced);
  EXPECT_TRUE(info->has_status);
  ASSERT_EQ(info->subresources.size(), 1u);
  EXPECT_EQ(info->subresources[0].name, "approval");
  EXPECT_EQ(NameRuleFor(*info), NameRule::kPathSegment);
  EXPECT_EQ(info->field_selectors.front().first, "spec.signerName");
}

}  // namespace
}  // namespace kube::apiserver::rest
