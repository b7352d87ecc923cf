#include "apiserver/rest/names.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kube::apiserver::rest {
namespace {

using ::testing::ElementsAre;

TEST(Names, Dns1123SubdomainAcceptsDottedLowercase) {
  EXPECT_TRUE(IsDns1123Subdomain("example.com").empty());
  EXPECT_TRUE(IsDns1123Subdomain("a-b.c-1").empty());
  EXPECT_TRUE(IsDns1123Subdomain(std::string(253, 'a')).empty());
}

TEST(Names, Dns1123SubdomainRejectsWithKubesMessage) {
  EXPECT_THAT(IsDns1123Subdomain("Bad_Name"),
              ElementsAre("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                          "characters, '-' or '.', and must start and end with an alphanumeric "
                          "character (e.g. 'example.com', regex used for validation is "
                          "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"));
  EXPECT_EQ(IsDns1123Subdomain(std::string(254, 'a')),
            std::vector<std::string>{"must be no more than 253 characters"});
  EXPECT_FALSE(IsDns1123Subdomain("a..b").empty());
  EXPECT_FALSE(IsDns1123Subdomain("-a").empty());
  EXPECT_FALSE(IsDns1123Subdomain("").empty());
}

TEST(Names, Dns1123LabelUsesKubesDoubleSpacedExamples) {
  EXPECT_TRUE(IsDns1123Label("my-name").empty());
  EXPECT_THAT(IsDns1123Label("a.b"),
              ElementsAre("a lowercase RFC 1123 label must consist of lower case alphanumeric "
                          "characters or '-', and must start and end with an alphanumeric "
                          "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
                          "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"));
  EXPECT_EQ(IsDns1123Label(std::string(64, 'a')).front(), "must be no more than 63 characters");
}

TEST(Names, Dns1035LabelMustStartWithALetter) {
  EXPECT_TRUE(IsDns1035Label("svc-1").empty());
  ASSERT_EQ(IsDns1035Label("1svc").size(), 1u);
  EXPECT_NE(IsDns1035Label("1svc")[0].find("start with an alphabetic character"), std::string::npos);
}

TEST(Names, GenerateNamePrefixMayEndWithADash) {
  EXPECT_TRUE(ValidateName(NameRule::kDnsSubdomain, "web-", true).empty());
  EXPECT_FALSE(ValidateName(NameRule::kDnsSubdomain, "web-", false).empty());
}

TEST(Names, PathSegmentNames) {
  EXPECT_TRUE(IsValidPathSegmentName("pod.17a3b").empty());
  EXPECT_THAT(IsValidPathSegmentName(".."), ElementsAre("may not be '..'"));
  EXPECT_THAT(IsValidPathSegmentName("a/b%"), ElementsAre("may not contain '/'", "may not contain '%'"));
}

TEST(Names, QualifiedNamesAndLabelValues) {
  EXPECT_TRUE(IsQualifiedName("app.kubernetes.io/name").empty());
  EXPECT_TRUE(IsQualifiedName("app").empty());
  EXPECT_FALSE(IsQualifiedName("a/b/c").empty());
  EXPECT_FALSE(IsQualifiedName("/name").empty());
  EXPECT_FALSE(IsQualifiedName("Bad_Prefix/name").empty());
  EXPECT_TRUE(IsValidLabelValue("").empty());
  EXPECT_TRUE(IsValidLabelValue("v1.2_3-x").empty());
  EXPECT_FALSE(IsValidLabelValue("bad value").empty());
  EXPECT_FALSE(IsValidLabelValue(std::string(64, 'a')).empty());
}

TEST(Names, ConfigMapKeys) {
  EXPECT_TRUE(IsConfigMapKey("key.name").empty());
  EXPECT_TRUE(IsConfigMapKey("KEY_NAME").empty());
  EXPECT_FALSE(IsConfigMapKey("a/b").empty());
  EXPECT_THAT(IsConfigMapKey(".."), ElementsAre("must not be '..'"));
  EXPECT_THAT(IsConfigMapKey("..x"), ElementsAre("must not start with '..'"));
}

TEST(ValidateObjectMeta, RequiresNameOrGenerateName) {
  auto errs = ValidateObjectMeta(boost::json::object{}, NameRule::kDnsSubdomain);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].String(), "metadata.name: Required value: name or generateName is required");
}

TEST(ValidateObjectMeta, ReportsNameLabelAndAnnotationErrorsAsKubeDoes) {
  boost::json::object meta{{"name", "Bad_Name"},
                           {"labels", boost::json::object{{"ok", "x"}, {"k", "bad value"}}},
                           {"annotations", boost::json::object{{"a/b/c", "v"}}}};
  auto errs = ValidateObjectMeta(meta, NameRule::kDnsSubdomain);
  ASSERT_EQ(errs.size(), 3u);
  EXPECT_EQ(errs[0].field, "metadata.name");
  EXPECT_EQ(errs[0].type, "FieldValueInvalid");
  EXPECT_EQ(errs[0].String().rfind("metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain", 0), 0u);
  EXPECT_EQ(errs[1].field, "metadata.labels");
  EXPECT_EQ(errs[1].String().rfind("metadata.labels: Invalid value: \"bad value\": a valid label must be", 0), 0u);
  EXPECT_EQ(errs[2].field, "metadata.annotations");
}

}  // namespace
}  // namespace kube::apiserver::rest
