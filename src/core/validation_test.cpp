// kube::validation: apimachinery's name/label rules with kube-apiserver's exact messages.
#include <kube/core/validation.hpp>

#include <string>

#include <gtest/gtest.h>

namespace kube::validation {
namespace {

using Errors = std::vector<std::string>;

TEST(Validation, Dns1123LabelAcceptsLowercaseAlnumAndInnerDashes) {
  EXPECT_TRUE(IsDns1123Label("a").empty());
  EXPECT_TRUE(IsDns1123Label("my-name-1").empty());
  EXPECT_TRUE(IsDns1123Label(std::string(63, 'a')).empty());
}

TEST(Validation, Dns1123LabelRejectsWithKubesMessages) {
  const std::string regex =
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
      "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
      "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  EXPECT_EQ(IsDns1123Label("-a"), Errors{regex});
  EXPECT_EQ(IsDns1123Label("A"), Errors{regex});
  EXPECT_EQ(IsDns1123Label("a.b"), Errors{regex});
  EXPECT_EQ(IsDns1123Label(""), Errors{regex});
  EXPECT_EQ(IsDns1123Label(std::string(64, 'a')), Errors{"must be no more than 63 characters"});
}

TEST(Validation, Dns1123SubdomainIsDotSeparatedLabelsUpTo253) {
  EXPECT_TRUE(IsDns1123Subdomain("example.com").empty());
  EXPECT_TRUE(IsDns1123Subdomain("a-1.b-2.c").empty());
  const auto errs = IsDns1123Subdomain("a..b");
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].rfind("a lowercase RFC 1123 subdomain must consist of", 0), 0u) << errs[0];
  EXPECT_NE(errs[0].find("(e.g. 'example.com', regex used for validation is"), std::string::npos);
  std::string long_name;
  while (long_name.size() < 254) long_name += "abcdefgh.";
  long_name.resize(254, 'a');
  if (long_name.back() == '.') long_name.back() = 'a';
  EXPECT_EQ(IsDns1123Subdomain(long_name).front(), "must be no more than 253 characters");
}

TEST(Validation, Dns1035LabelMustStartWithALetter) {
  EXPECT_TRUE(IsDns1035Label("svc-1").empty());
  const auto errs = IsDns1035Label("1svc");
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].rfind("a DNS-1035 label must consist of", 0), 0u) << errs[0];
}

TEST(Validation, QualifiedNameWithOptionalSubdomainPrefix) {
  EXPECT_TRUE(IsQualifiedName("app").empty());
  EXPECT_TRUE(IsQualifiedName("app.kubernetes.io/name").empty());
  EXPECT_TRUE(IsQualifiedName("My_Name.1").empty());
  EXPECT_EQ(IsQualifiedName("/name"), Errors{"prefix part must be non-empty"});
  EXPECT_EQ(IsQualifiedName("example.com/"),
            (Errors{"name part must be non-empty",
                    "name part must consist of alphanumeric characters, '-', '_' or '.', and must "
                    "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  "
                    "or '123-abc', regex used for validation is "
                    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"}));
  const auto upper_prefix = IsQualifiedName("Example.com/name");
  ASSERT_EQ(upper_prefix.size(), 1u);
  EXPECT_EQ(upper_prefix[0].rfind("prefix part a lowercase RFC 1123 subdomain", 0), 0u);
  const auto two_slashes = IsQualifiedName("a/b/c");
  ASSERT_EQ(two_slashes.size(), 1u);
  EXPECT_EQ(two_slashes[0].rfind("a qualified name must consist of", 0), 0u);
  EXPECT_NE(two_slashes[0].find("with an optional DNS subdomain prefix and '/'"), std::string::npos);
  EXPECT_EQ(IsQualifiedName(std::string(64, 'a')).front(), "name part must be no more than 63 characters");
}

TEST(Validation, LabelValueMayBeEmpty) {
  EXPECT_TRUE(IsValidLabelValue("").empty());
  EXPECT_TRUE(IsValidLabelValue("v1.2_x-y").empty());
  const auto errs = IsValidLabelValue("-bad");
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].rfind("a valid label must be an empty string or consist of", 0), 0u) << errs[0];
  EXPECT_EQ(IsValidLabelValue(std::string(64, 'a')), Errors{"must be no more than 63 characters"});
}

TEST(Validation, RegexErrorWithoutExamplesAndMaxLenError) {
  EXPECT_EQ(RegexError("bad", "x+", {}), "bad (regex used for validation is 'x+')");
  EXPECT_EQ(MaxLenError(5), "must be no more than 5 characters");
  EXPECT_TRUE(IsAlnum('Z'));
  EXPECT_FALSE(IsAlnum('-'));
}

}  // namespace
}  // namespace kube::validation
