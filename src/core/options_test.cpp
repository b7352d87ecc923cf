#include <kube/core/options.hpp>

#include <string>

#include <gtest/gtest.h>

#include <kube/core/status.hpp>

namespace kube {
namespace {

// --- ListOptions ---------------------------------------------------------------------------

TEST(ListOptions, DefaultsEncodeToEmptyQuery) {
  EXPECT_EQ(ListOptions{}.ToQuery(), "");
  auto o = ListOptions::FromQuery("");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(*o, ListOptions{});
}

TEST(ListOptions, EveryFieldRoundTripsWithKubeNamesInSortedOrder) {
  const ListOptions o{.label_selector = "app=web",
                      .field_selector = "metadata.name=x",
                      .resource_version = "10245",
                      .resource_version_match = "NotOlderThan",
                      .limit = 500,
                      .continue_token = "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ==",
                      .timeout_seconds = 300,
                      .watch = true,
                      .allow_watch_bookmarks = true,
                      .send_initial_events = true};
  const auto q = o.ToQuery();
  EXPECT_EQ(q,
            "allowWatchBookmarks=true&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ%3D%3D"
            "&fieldSelector=metadata.name%3Dx&labelSelector=app%3Dweb&limit=500"
            "&resourceVersion=10245&resourceVersionMatch=NotOlderThan&sendInitialEvents=true"
            "&timeoutSeconds=300&watch=true");
  auto back = ListOptions::FromQuery(q);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, o);
}

TEST(ListOptions, ExplicitZeroAndFalsePointersAreKept) {
  const ListOptions o{.timeout_seconds = 0, .send_initial_events = false};
  EXPECT_EQ(o.ToQuery(), "sendInitialEvents=false&timeoutSeconds=0");
  auto back = ListOptions::FromQuery(o.ToQuery());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, o);
}

TEST(ListOptions, SelectorsWithSpacesCommasEqualsAndBangAreEscaped) {
  const ListOptions o{.label_selector = "env in (prod, staging),!canary,tier!=db",
                      .field_selector = "metadata.name==a\\,b,status.phase!=Running"};
  const auto q = o.ToQuery();
  EXPECT_EQ(q,
            "fieldSelector=metadata.name%3D%3Da%5C%2Cb%2Cstatus.phase%21%3DRunning"
            "&labelSelector=env+in+%28prod%2C+staging%29%2C%21canary%2Ctier%21%3Ddb");
  auto back = ListOptions::FromQuery(q);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->label_selector, o.label_selector);
  EXPECT_EQ(back->field_selector, o.field_selector);
}

TEST(ListOptions, DecodesPercentTwentyAndPlusAsSpaceAndLiteralPlusAsEscape) {
  auto o = ListOptions::FromQuery("labelSelector=a%20in%20(x)&fieldSelector=a%2Bb+c");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->label_selector, "a in (x)");
  EXPECT_EQ(o->field_selector, "a+b c");
}

TEST(ListOptions, WatchBoolsFollowKubeParameterCodec) {
  for (std::string_view truthy : {"watch=1", "watch=true", "watch=True", "watch=TRUE", "watch=",
                                  "watch", "watch=yes"}) {
    auto o = ListOptions::FromQuery(truthy);
    ASSERT_TRUE(o.ok()) << truthy;
    EXPECT_TRUE(o->watch) << truthy;
  }
  for (std::string_view falsy : {"watch=0", "watch=false", "watch=False", "watch=FALSE"}) {
    auto o = ListOptions::FromQuery(falsy);
    ASSERT_TRUE(o.ok()) << falsy;
    EXPECT_FALSE(o->watch) << falsy;
  }
  auto o = ListOptions::FromQuery("sendInitialEvents=false&allowWatchBookmarks=1");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->send_initial_events, false);
  EXPECT_TRUE(o->allow_watch_bookmarks);
}

TEST(ListOptions, AcceptsLeadingQuestionMarkIgnoresUnknownAndTakesFirstOfRepeated) {
  auto o = ListOptions::FromQuery("?pretty=true&limit=5&limit=7&&resourceVersion=3&timeout=32s");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->limit, 5);
  EXPECT_EQ(o->resource_version, "3");
}

TEST(ListOptions, IntegersFollowGoParseInt) {
  // A literal '+' must be escaped: in a query string '+' is a space, for Go as for us.
  auto plus = ListOptions::FromQuery("limit=%2B10&timeoutSeconds=-1");
  ASSERT_TRUE(plus.ok());
  EXPECT_EQ(plus->limit, 10);
  EXPECT_EQ(plus->timeout_seconds, -1);
  auto max = ListOptions::FromQuery("limit=9223372036854775807");
  ASSERT_TRUE(max.ok());
  EXPECT_EQ(max->limit, INT64_MAX);
}

TEST(ListOptions, RejectsBadIntegersNamingTheParameter) {
  struct Case {
    std::string_view query;
    std::string_view message;
  };
  const Case cases[] = {
      {"limit=abc", R"(strconv.ParseInt: parsing "abc": invalid syntax)"},
      {"limit=", R"(strconv.ParseInt: parsing "": invalid syntax)"},
      {"limit=1.5", R"(strconv.ParseInt: parsing "1.5": invalid syntax)"},
      {"limit=0x10", R"(strconv.ParseInt: parsing "0x10": invalid syntax)"},
      {"limit=%2B-1", R"(strconv.ParseInt: parsing "+-1": invalid syntax)"},
      {"limit=+1", R"(strconv.ParseInt: parsing " 1": invalid syntax)"},
      {"timeoutSeconds=%2010",
       R"(strconv.ParseInt: parsing " 10": invalid syntax)"},
      {"limit=9223372036854775808",
       R"(strconv.ParseInt: parsing "9223372036854775808": value out of range)"},
  };
  for (const auto& c : cases) {
    auto o = ListOptions::FromQuery(c.query);
    ASSERT_FALSE(o.ok()) << c.query;
    EXPECT_TRUE(IsBadRequest(o.error()));
    EXPECT_EQ(o.error().message, c.message);
  }
}

TEST(ListOptions, RejectsMalformedPercentEscapes) {
  auto o = ListOptions::FromQuery("labelSelector=%zz");
  ASSERT_FALSE(o.ok());
  EXPECT_TRUE(IsBadRequest(o.error()));
  EXPECT_EQ(o.error().message, R"(invalid URL escape in the value of query parameter "labelSelector")");
  auto k = ListOptions::FromQuery("lab%2=x");
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.error().message, R"(invalid URL escape in query parameter name "lab%2")");
}

TEST(ListOptions, NonAsciiAndReservedCharactersRoundTrip) {
  const ListOptions o{.label_selector = "k=v&x=\xc3\xa9;/?#[]@+"};
  EXPECT_EQ(o.ToQuery(), "labelSelector=k%3Dv%26x%3D%C3%A9%3B%2F%3F%23%5B%5D%40%2B");
  auto back = ListOptions::FromQuery(o.ToQuery());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, o);
}

// --- GetOptions ----------------------------------------------------------------------------

TEST(GetOptions, RoundTrip) {
  EXPECT_EQ(GetOptions{}.ToQuery(), "");
  const GetOptions o{"0"};
  EXPECT_EQ(o.ToQuery(), "resourceVersion=0");
  auto back = GetOptions::FromQuery("resourceVersion=0");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, o);
}

// --- DeleteOptions -------------------------------------------------------------------------

TEST(PropagationPolicy, NamesRoundTrip) {
  for (auto p : {PropagationPolicy::kOrphan, PropagationPolicy::kBackground,
                 PropagationPolicy::kForeground}) {
    EXPECT_EQ(ParsePropagationPolicy(ToString(p)), p);
  }
  EXPECT_EQ(ParsePropagationPolicy("background"), std::nullopt);
}

TEST(DeleteOptions, QueryRoundTripsEveryQueryField) {
  const DeleteOptions o{.grace_period_seconds = 0,
                        .preconditions = std::nullopt,
                        .propagation_policy = PropagationPolicy::kForeground,
                        .dry_run = {"All"},
                        .orphan_dependents = false};
  EXPECT_EQ(o.ToQuery(),
            "dryRun=All&gracePeriodSeconds=0&orphanDependents=false&propagationPolicy=Foreground");
  auto back = DeleteOptions::FromQuery(o.ToQuery());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, o);
  EXPECT_EQ(DeleteOptions{}.ToQuery(), "");
}

TEST(DeleteOptions, QueryOmitsPreconditions) {
  const DeleteOptions o{.preconditions = Preconditions{"uid-1", "5"}};
  EXPECT_EQ(o.ToQuery(), "");
}

TEST(DeleteOptions, RepeatedDryRunCollectsAllValues) {
  auto o = DeleteOptions::FromQuery("dryRun=All&dryRun=Other");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->dry_run, (std::vector<std::string>{"All", "Other"}));
}

TEST(DeleteOptions, UnknownPropagationPolicyIsKubesInvalid) {
  auto o = DeleteOptions::FromQuery("propagationPolicy=Sideways");
  ASSERT_FALSE(o.ok());
  EXPECT_TRUE(IsInvalid(o.error()));
  EXPECT_EQ(o.error().message,
            R"(DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil")");
  ASSERT_TRUE(o.error().details.has_value());
  EXPECT_EQ(o.error().details->group, "meta.k8s.io");
  EXPECT_EQ(o.error().details->kind, "DeleteOptions");
  auto j = DeleteOptions::FromJson(R"({"propagationPolicy":"orphan"})");
  ASSERT_FALSE(j.ok());
  EXPECT_TRUE(IsInvalid(j.error()));
}

TEST(DeleteOptions, BadGracePeriodNamesTheParameter) {
  auto o = DeleteOptions::FromQuery("gracePeriodSeconds=soon");
  ASSERT_FALSE(o.ok());
  EXPECT_TRUE(IsBadRequest(o.error()));
  EXPECT_EQ(o.error().message,
            R"(strconv.ParseInt: parsing "soon": invalid syntax)");
}

TEST(DeleteOptions, JsonHasGoFieldOrderAndRoundTrips) {
  const DeleteOptions o{.grace_period_seconds = 30,
                        .preconditions = Preconditions{"6f1c", "42"},
                        .propagation_policy = PropagationPolicy::kBackground,
                        .dry_run = {"All"},
                        .orphan_dependents = std::nullopt};
  EXPECT_EQ(o.ToJson(),
            R"({"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":30,"preconditions":{"uid":"6f1c","resourceVersion":"42"},"propagationPolicy":"Background","dryRun":["All"]})");
  auto back = DeleteOptions::FromJson(o.ToJson());
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, o);

  const DeleteOptions orphan{.orphan_dependents = true};
  EXPECT_EQ(orphan.ToJson(), R"({"kind":"DeleteOptions","apiVersion":"v1","orphanDependents":true})");
  auto orphan_back = DeleteOptions::FromJson(orphan.ToJson());
  ASSERT_TRUE(orphan_back.ok());
  EXPECT_EQ(*orphan_back, orphan);

  EXPECT_EQ(DeleteOptions{}.ToJson(), R"({"kind":"DeleteOptions","apiVersion":"v1"})");
}

TEST(DeleteOptions, JsonPreconditionsKeepOnlyWhatIsSet) {
  const DeleteOptions o{.preconditions = Preconditions{std::nullopt, "7"}};
  EXPECT_EQ(o.ToJson(),
            R"({"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"resourceVersion":"7"}})");
  auto back = DeleteOptions::FromJson(o.ToJson());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, o);
}

TEST(DeleteOptions, FromJsonAcceptsNullsOtherGroupsAndUnknownMembers) {
  auto o = DeleteOptions::FromJson(
      R"({"kind":"DeleteOptions","apiVersion":"apps/v1","gracePeriodSeconds":null,"preconditions":null,"dryRun":null,"foo":1})");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(*o, DeleteOptions{});
  auto no_type = DeleteOptions::FromJson(R"({"gracePeriodSeconds":5})");
  ASSERT_TRUE(no_type.ok());
  EXPECT_EQ(no_type->grace_period_seconds, 5);
}

TEST(DeleteOptions, FromJsonWrongTypesNameTheField) {
  struct Case {
    std::string_view body;
    std::string_view message;
  };
  const Case cases[] = {
      {R"({"gracePeriodSeconds":"5"})", "DeleteOptions.gracePeriodSeconds: expected an integer, got string"},
      {R"({"gracePeriodSeconds":1.5})", "DeleteOptions.gracePeriodSeconds: expected an integer, got number"},
      {R"({"gracePeriodSeconds":18446744073709551615})", "DeleteOptions.gracePeriodSeconds: expected an integer, got number"},
      {R"({"preconditions":[]})", "DeleteOptions.preconditions: expected an object, got array"},
      {R"({"preconditions":{"uid":1}})", "DeleteOptions.preconditions.uid: expected a string, got number"},
      {R"({"orphanDependents":"true"})", "DeleteOptions.orphanDependents: expected a boolean, got string"},
      {R"({"propagationPolicy":true})", "DeleteOptions.propagationPolicy: expected a string, got boolean"},
      {R"({"dryRun":"All"})", "DeleteOptions.dryRun: expected an array of strings, got string"},
      {R"({"dryRun":[1]})", "DeleteOptions.dryRun[]: expected a string, got number"},
      {R"({"kind":"ListOptions"})", R"(DeleteOptions: expected kind "DeleteOptions", got "ListOptions")"},
      {R"([])", "DeleteOptions: expected a JSON object, got array"},
  };
  for (const auto& c : cases) {
    auto o = DeleteOptions::FromJson(c.body);
    ASSERT_FALSE(o.ok()) << c.body;
    EXPECT_TRUE(IsBadRequest(o.error())) << c.body;
    EXPECT_EQ(o.error().message, c.message);
  }
  auto garbage = DeleteOptions::FromJson("{");
  ASSERT_FALSE(garbage.ok());
  EXPECT_TRUE(IsBadRequest(garbage.error()));
}

TEST(DeleteOptions, FromRequestUsesBodyWhenPresentElseQueryNeverMerges) {
  auto body = DeleteOptions::FromRequest("gracePeriodSeconds=5&dryRun=All",
                                         R"({"propagationPolicy":"Orphan"})");
  ASSERT_TRUE(body.ok());
  EXPECT_EQ(body->grace_period_seconds, std::nullopt);
  EXPECT_TRUE(body->dry_run.empty());
  EXPECT_EQ(body->propagation_policy, PropagationPolicy::kOrphan);

  auto query = DeleteOptions::FromRequest("gracePeriodSeconds=5&dryRun=All", "  \n");
  ASSERT_TRUE(query.ok());
  EXPECT_EQ(query->grace_period_seconds, 5);
  EXPECT_EQ(query->dry_run, (std::vector<std::string>{"All"}));
}

TEST(DeleteOptions, FromRequestValidates) {
  auto both = DeleteOptions::FromRequest(
      "", R"({"orphanDependents":true,"propagationPolicy":"Foreground"})");
  ASSERT_FALSE(both.ok());
  EXPECT_TRUE(IsInvalid(both.error()));
  EXPECT_EQ(both.error().message,
            R"(DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Foreground": orphanDependents and deletionPropagation cannot be both set)");
}

TEST(DeleteOptions, ValidateRejectsDryRunOtherThanAll) {
  const DeleteOptions o{.dry_run = {"All", "Server"}};
  auto r = o.Validate();
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsInvalid(r.error()));
  EXPECT_EQ(r.error().message,
            R"(DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"All", "Server"}: supported values: "All")");
  EXPECT_TRUE((DeleteOptions{.dry_run = {"All"}}.Validate().ok()));
  EXPECT_TRUE(DeleteOptions{}.Validate().ok());
}

TEST(DeleteOptions, ValidateReportsEveryProblemBracketed) {
  const DeleteOptions o{.propagation_policy = PropagationPolicy::kOrphan,
                        .dry_run = {"x"},
                        .orphan_dependents = false};
  auto r = o.Validate();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            R"(DeleteOptions.meta.k8s.io "" is invalid: [propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set, dryRun: Unsupported value: []string{"x"}: supported values: "All"])");
}

// --- Create / Update / Patch ---------------------------------------------------------------

TEST(CreateOptions, RoundTrip) {
  const CreateOptions o{.dry_run = {"All"}, .field_manager = "my controller",
                        .field_validation = "Strict"};
  EXPECT_EQ(o.ToQuery(), "dryRun=All&fieldManager=my+controller&fieldValidation=Strict");
  auto back = CreateOptions::FromQuery(o.ToQuery());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, o);
  EXPECT_EQ(CreateOptions{}.ToQuery(), "");
}

TEST(UpdateOptions, RoundTrip) {
  const UpdateOptions o{.dry_run = {}, .field_manager = "kubectl-edit", .field_validation = "Warn"};
  EXPECT_EQ(o.ToQuery(), "fieldManager=kubectl-edit&fieldValidation=Warn");
  auto back = UpdateOptions::FromQuery(o.ToQuery());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, o);
}

TEST(PatchOptions, RoundTripIncludingForce) {
  const PatchOptions o{.dry_run = {"All"}, .field_manager = "kubectl", .field_validation = "Ignore",
                       .force = true};
  EXPECT_EQ(o.ToQuery(), "dryRun=All&fieldManager=kubectl&fieldValidation=Ignore&force=true");
  auto back = PatchOptions::FromQuery(o.ToQuery());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, o);
  const PatchOptions no_force{.force = false};
  EXPECT_EQ(no_force.ToQuery(), "force=false");
  auto nf = PatchOptions::FromQuery("force=false");
  ASSERT_TRUE(nf.ok());
  EXPECT_EQ(nf->force, false);
  auto unset = PatchOptions::FromQuery("");
  ASSERT_TRUE(unset.ok());
  EXPECT_EQ(unset->force, std::nullopt);
}

TEST(PatchOptions, MalformedEscapeIsBadRequest) {
  auto o = PatchOptions::FromQuery("fieldManager=%G1");
  ASSERT_FALSE(o.ok());
  EXPECT_TRUE(IsBadRequest(o.error()));
  EXPECT_FALSE(CreateOptions::FromQuery("fieldManager=%").ok());
  EXPECT_FALSE(UpdateOptions::FromQuery("dryRun=%4").ok());
  EXPECT_FALSE(GetOptions::FromQuery("resourceVersion=%x1").ok());
}

// --- PatchType -----------------------------------------------------------------------------

TEST(PatchType, ContentTypesRoundTrip) {
  EXPECT_EQ(ContentType(PatchType::kJson), "application/json-patch+json");
  EXPECT_EQ(ContentType(PatchType::kMerge), "application/merge-patch+json");
  EXPECT_EQ(ContentType(PatchType::kStrategicMerge), "application/strategic-merge-patch+json");
  EXPECT_EQ(ContentType(PatchType::kApply), "application/apply-patch+yaml");
  for (auto t : {PatchType::kJson, PatchType::kMerge, PatchType::kStrategicMerge,
                 PatchType::kApply}) {
    EXPECT_EQ(PatchTypeFromContentType(ContentType(t)), t);
  }
}

TEST(PatchType, ParametersWhitespaceAndCaseAreIgnored) {
  EXPECT_EQ(PatchTypeFromContentType("application/merge-patch+json; charset=utf-8"),
            PatchType::kMerge);
  EXPECT_EQ(PatchTypeFromContentType(" Application/JSON-Patch+JSON ;charset=UTF-8"),
            PatchType::kJson);
  EXPECT_EQ(PatchTypeFromContentType("application/json"), std::nullopt);
  EXPECT_EQ(PatchTypeFromContentType(""), std::nullopt);
  EXPECT_EQ(PatchTypeFromContentType("application/apply-patch+yaml;x=y"), PatchType::kApply);
}

}  // namespace
}  // namespace kube
