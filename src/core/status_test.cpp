#include <kube/core/status.hpp>

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace kube {
namespace {

// The §4 / §2.1 / §2.4 / §3.5 examples of docs/apiserver-semantics.md, verbatim.
constexpr std::string_view kNotFoundJson =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"cfg\" not found","reason":"NotFound","details":{"name":"cfg","kind":"configmaps"},"code":404})";
constexpr std::string_view kAlreadyExistsJson =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"leases.coordination.k8s.io \"my-lock\" already exists","reason":"AlreadyExists","details":{"name":"my-lock","group":"coordination.k8s.io","kind":"leases"},"code":409})";
constexpr std::string_view kConflictJson =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on widgets.example.com \"w1\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"w1","group":"example.com","kind":"widgets"},"code":409})";
constexpr std::string_view kInvalidJson =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Widget.example.com \"w1\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0","reason":"Invalid","details":{"name":"w1","group":"example.com","kind":"Widget","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: -1: must be greater than or equal to 0","field":"spec.replicas"}]},"code":422})";
constexpr std::string_view kTooManyRequestsJson =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too many requests","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429})";
constexpr std::string_view kTooLargeRvJson =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 20000, current: 10245","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504})";
constexpr std::string_view kWatchExpiredJson =
    R"j({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (10)","reason":"Expired","code":410})j";
constexpr std::string_view kContinueExpiredJson =
    R"({"kind":"Status","apiVersion":"v1","metadata":{"continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiZm9vIn0"},"status":"Failure","message":"The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.","reason":"Expired","code":410})";

TEST(StatusJson, NotFoundMatchesKubeApiserverBytes) {
  EXPECT_EQ(StatusJson(NewNotFound({"", "configmaps"}, "cfg")), kNotFoundJson);
}

TEST(StatusJson, AlreadyExistsCarriesGroupInMessageAndDetails) {
  EXPECT_EQ(StatusJson(NewAlreadyExists({"coordination.k8s.io", "leases"}, "my-lock")),
            kAlreadyExistsJson);
}

TEST(StatusJson, ConflictWithOptimisticLockMessage) {
  EXPECT_EQ(StatusJson(NewConflict({"example.com", "widgets"}, "w1", kOptimisticLockErrorMsg)),
            kConflictJson);
}

TEST(StatusJson, InvalidWithOneFieldErrorPrintsItBare) {
  const auto e = NewInvalid({"example.com", "Widget"}, "w1",
                            {FieldError::Invalid("spec.replicas", "-1",
                                                 "must be greater than or equal to 0")});
  EXPECT_EQ(StatusJson(e), kInvalidJson);
}

TEST(StatusJson, TooManyRequestsCarriesRetryAfter) {
  EXPECT_EQ(StatusJson(NewTooManyRequests("too many requests", 1)), kTooManyRequestsJson);
}

TEST(StatusJson, TooLargeResourceVersionIsTimeoutWithCauseAndRetryAfterOne) {
  const auto e = NewTooLargeResourceVersion(20000, 10245);
  EXPECT_EQ(StatusJson(e), kTooLargeRvJson);
  EXPECT_TRUE(IsTimeout(e));
  EXPECT_TRUE(IsTooLargeResourceVersion(e));
  EXPECT_EQ(SuggestsRetryAfter(e), 1);
}

TEST(StatusJson, WatchCacheTooOldResourceVersionIsExpired) {
  const auto e = NewTooOldResourceVersion(5, 10);
  EXPECT_EQ(StatusJson(e), kWatchExpiredJson);
  EXPECT_TRUE(IsExpired(e));
}

TEST(StatusJson, ExpiredContinueCarriesFreshTokenInMetadata) {
  const auto s = ContinueExpiredStatus(
      "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiZm9vIn0");
  EXPECT_EQ(StatusJson(s), kContinueExpiredJson);
  EXPECT_TRUE(IsExpired(s.error));
}

TEST(StatusJson, ExpiredContinueWithoutTokenUsesShortMessage) {
  const auto s = ContinueExpiredStatus("");
  EXPECT_EQ(s.error.message, kContinueExpiredMsg);
  EXPECT_NE(StatusJson(s).find(R"("apiVersion":"v1","metadata":{},"status")"), std::string::npos);
}

TEST(StatusJson, OmitsReasonMessageAndCodeWhenEmpty) {
  Error e;
  EXPECT_EQ(StatusJson(e), R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure"})");
}

TEST(StatusJson, WritesEngagedEmptyDetailsAsGoDoesForNonNilPointer) {
  // kube's NewTimeoutError(msg, 0) leaves a non-nil, empty Details: "details":{}.
  EXPECT_EQ(StatusJson(NewTimeout("request did not complete within requested timeout", 0)),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: request did not complete within requested timeout","reason":"Timeout","details":{},"code":504})");
}

TEST(StatusJson, EscapesLikeGoEncodingJson) {
  const auto e = MakeError(400, reason::kBadRequest,
                           std::string("a<b>&\"q\"\\ \n\t\x01\b\f \xe2\x80\xa8 caf\xc3\xa9 \xff"));
  EXPECT_EQ(StatusJson(e),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"a\u003cb\u003e\u0026\"q\"\\ \n\t\u0001\b\f \u2028 café \ufffd","reason":"BadRequest","code":400})");
}

TEST(StatusJson, DetailsOmitEmptyFieldsAndKeepGoFieldOrder) {
  Error e = MakeError(500, reason::kInternalError, "x");
  e.details = StatusDetails{.name = "n", .group = "", .kind = "k", .uid = "u",
                            .causes = {{"", "m", ""}, {"r", "", "f"}}, .retry_after_seconds = 3};
  EXPECT_EQ(StatusJson(e),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"x","reason":"InternalError","details":{"name":"n","kind":"k","uid":"u","causes":[{"message":"m"},{"reason":"r","field":"f"}],"retryAfterSeconds":3},"code":500})");
}

TEST(SuccessStatusJson, DeleteResponseHasNoCodeAndResourceAsKind) {
  EXPECT_EQ(SuccessStatusJson({.name = "x", .group = "", .kind = "configmaps",
                               .uid = "6f1c0f0a-0000-4000-8000-000000000001", .causes = {},
                               .retry_after_seconds = 0}),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"x","kind":"configmaps","uid":"6f1c0f0a-0000-4000-8000-000000000001"}})");
  EXPECT_EQ(SuccessStatusJson({.name = "web", .group = "apps", .kind = "deployments", .uid = "u",
                               .causes = {}, .retry_after_seconds = 0}),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"web","group":"apps","kind":"deployments","uid":"u"}})");
}

TEST(ParseStatus, RoundTripsEveryDocumentedExample) {
  for (auto text : {kNotFoundJson, kAlreadyExistsJson, kConflictJson, kInvalidJson,
                    kTooManyRequestsJson, kTooLargeRvJson, kWatchExpiredJson,
                    kContinueExpiredJson}) {
    auto s = ParseStatus(text);
    ASSERT_TRUE(s.ok()) << text << ": " << s.error().ToString();
    EXPECT_EQ(StatusJson(*s), text);
  }
}

TEST(ParseStatus, RoundTripsSuccessAndEscapes) {
  const std::string success =
      R"({"kind":"Status","apiVersion":"v1","metadata":{"resourceVersion":"7"},"status":"Success","details":{"name":"x","kind":"configmaps","uid":"u"}})";
  auto s = ParseStatus(success);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->status, kStatusSuccess);
  EXPECT_EQ(s->resource_version, "7");
  EXPECT_EQ(StatusJson(*s), success);

  const std::string escaped =
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"\u003cnil\u003e","reason":"InternalError","details":{},"code":500})";
  auto e = ParseStatus(escaped);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->error.message, "<nil>");
  EXPECT_TRUE(e->error.details.has_value());
  EXPECT_EQ(StatusJson(*e), escaped);
}

TEST(ParseStatus, DecodesFieldsIntoError) {
  auto s = ParseStatus(kInvalidJson);
  ASSERT_TRUE(s.ok());
  const Error& e = s->error;
  EXPECT_EQ(e.code, 422);
  EXPECT_EQ(e.reason, reason::kInvalid);
  ASSERT_TRUE(e.details.has_value());
  EXPECT_EQ(e.details->kind, "Widget");
  ASSERT_EQ(e.details->causes.size(), 1u);
  EXPECT_EQ(e.details->causes[0].field, "spec.replicas");
  EXPECT_EQ(e, NewInvalid({"example.com", "Widget"}, "w1",
                          {FieldError::Invalid("spec.replicas", "-1",
                                               "must be greater than or equal to 0")}));
}

TEST(ParseStatus, AcceptsMetaApiVersionAndIgnoresUnknownMembers) {
  auto s = ParseStatus(
      R"({"kind":"Status","apiVersion":"meta.k8s.io/v1","metadata":{"selfLink":"x"},"status":"Failure","code":404,"extra":[1,2]})");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->error.code, 404);
  EXPECT_TRUE(IsNotFound(s->error));
}

TEST(ParseStatus, RejectsNonStatusDocuments) {
  for (std::string_view bad : {
           R"({"kind":"ConfigMap","apiVersion":"v1"})",
           R"({"apiVersion":"v1","status":"Failure"})",
           R"({"kind":"Status","apiVersion":"apps/v1"})",
           R"([1,2])",
           R"(not json)",
           R"()",
       }) {
    auto s = ParseStatus(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_TRUE(IsBadRequest(s.error())) << bad;
  }
}

TEST(ParseStatus, WrongMemberTypeNamesTheMember) {
  auto s = ParseStatus(R"({"kind":"Status","apiVersion":"v1","code":"404"})");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "Status.code: expected an integer, got string");
  auto d = ParseStatus(R"({"kind":"Status","details":{"causes":{}}})");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().message, "Status.details.causes: expected an array, got object");
  auto r = ParseStatus(R"({"kind":"Status","details":{"retryAfterSeconds":1.5}})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "Status.details.retryAfterSeconds: expected an integer, got number");
}

// --- ErrorFromResponse ---------------------------------------------------------------------

TEST(ErrorFromResponse, StatusBodyBecomesThatError) {
  const Error e = ErrorFromResponse(404, kNotFoundJson);
  EXPECT_EQ(e, NewNotFound({"", "configmaps"}, "cfg"));
}

TEST(ErrorFromResponse, StatusBodyWithoutCodeTakesHttpStatus) {
  const Error e =
      ErrorFromResponse(409, R"({"kind":"Status","status":"Failure","reason":"Conflict","message":"m"})");
  EXPECT_EQ(e.code, 409);
  EXPECT_TRUE(IsConflict(e));
  EXPECT_EQ(e.message, "m");
}

TEST(ErrorFromResponse, StatusWithoutTypeMetaIsDefaultedLikeClientGo) {
  const Error e = ErrorFromResponse(
      410, "{\"status\":\"Failure\",\"reason\":\"Expired\",\"message\":\"too old\",\"code\":410}\n");
  EXPECT_TRUE(IsExpired(e));
  EXPECT_EQ(e.message, "too old");
}

TEST(ErrorFromResponse, NonFailureStatusFallsBackToGeneric) {
  const Error e = ErrorFromResponse(
      404, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success"})");
  EXPECT_EQ(e.message, "the server could not find the requested resource");
}

TEST(ErrorFromResponse, GenericMessagesByStatusCode) {
  struct Case {
    int code;
    std::string_view reason;
    std::string_view message;
  };
  const Case cases[] = {
      {400, reason::kBadRequest, "the server rejected our request for an unknown reason"},
      {401, reason::kUnauthorized, "the server has asked for the client to provide credentials"},
      {404, reason::kNotFound, "the server could not find the requested resource"},
      {405, reason::kMethodNotAllowed,
       "the server does not allow this method on the requested resource"},
      {409, reason::kConflict, "the server reported a conflict"},
      {422, reason::kInvalid, "the server rejected our request due to an error in our request"},
      {429, reason::kTooManyRequests,
       "the server has received too many requests and has asked us to try again later"},
      {503, reason::kServiceUnavailable, "the server is currently unable to handle the request"},
      {504, reason::kTimeout,
       "the server was unable to return a response in the time allotted, but may still be "
       "processing the request"},
      {418, reason::kUnknown,
       "the server responded with the status code 418 but did not return more information"},
  };
  for (const auto& c : cases) {
    const Error e = ErrorFromResponse(c.code, "<html>oops</html>");
    EXPECT_EQ(e.code, c.code);
    EXPECT_EQ(e.reason, c.reason) << c.code;
    EXPECT_EQ(e.message, c.message) << c.code;
    ASSERT_TRUE(e.details.has_value());
    ASSERT_EQ(e.details->causes.size(), 1u);
    EXPECT_EQ(e.details->causes[0].reason, cause::kUnexpectedServerResponse);
    EXPECT_EQ(e.details->causes[0].message, "<html>oops</html>");
  }
}

TEST(ErrorFromResponse, ServerErrorQuotesTheBodyExcerpt) {
  const Error e = ErrorFromResponse(500, "  upstream \"connect\" error\n");
  EXPECT_TRUE(IsInternalError(e));
  EXPECT_EQ(e.message,
            R"(an error on the server ("upstream \"connect\" error") has prevented the request from succeeding)");
  const Error bad_gateway = ErrorFromResponse(502, "");
  EXPECT_EQ(bad_gateway.message,
            R"(an error on the server ("") has prevented the request from succeeding)");
}

TEST(ErrorFromResponse, NonTextContentTypeReportsUnknown) {
  const Error e = ErrorFromResponse(500, R"({"not":"a status"})",
                                    {.content_type = "application/json"});
  EXPECT_EQ(e.message,
            R"(an error on the server ("unknown") has prevented the request from succeeding)");
  const Error text = ErrorFromResponse(500, "boom", {.content_type = "text/plain; charset=utf-8"});
  EXPECT_EQ(text.message,
            R"(an error on the server ("boom") has prevented the request from succeeding)");
}

TEST(ErrorFromResponse, BodyExcerptIsCappedAt2048Bytes) {
  const Error e = ErrorFromResponse(403, std::string(5000, 'x'));
  EXPECT_TRUE(IsForbidden(e));
  EXPECT_EQ(e.message, std::string(2048, 'x'));
}

TEST(ErrorFromResponse, ConflictOnPostIsAlreadyExistsAndResourceIsNamed) {
  const Error e = ErrorFromResponse(409, "", {.verb = "POST", .resource = {"apps", "deployments"},
                                              .name = "web", .retry_after_seconds = 2});
  EXPECT_TRUE(IsAlreadyExists(e));
  EXPECT_EQ(e.message, "the server reported a conflict (post deployments.apps web)");
  ASSERT_TRUE(e.details.has_value());
  EXPECT_EQ(e.details->group, "apps");
  EXPECT_EQ(e.details->kind, "deployments");
  EXPECT_EQ(e.details->name, "web");
  EXPECT_EQ(e.details->retry_after_seconds, 2);
  const Error list = ErrorFromResponse(404, "", {.verb = "GET", .resource = {"", "pods"}});
  EXPECT_EQ(list.message, "the server could not find the requested resource (get pods)");
}

TEST(ErrorFromResponse, NotAcceptableKeepsServerMessageWhenThereIsOne) {
  EXPECT_EQ(ErrorFromResponse(406, "").message,
            "the server was unable to respond with a content type that the client supports");
  EXPECT_EQ(ErrorFromResponse(406, "only json").message, "only json");
  EXPECT_EQ(ErrorFromResponse(415, "bad type").message, "bad type");
}

// --- FieldError / NewInvalid ---------------------------------------------------------------

TEST(FieldError, FormatsLikeK8sFieldErrors) {
  EXPECT_EQ(FieldError::Required("metadata.name").String(), "metadata.name: Required value");
  EXPECT_EQ(FieldError::Required("metadata.name", "name or generateName is required").String(),
            "metadata.name: Required value: name or generateName is required");
  EXPECT_EQ(FieldError::Invalid("spec.replicas", "-1", "must be greater than or equal to 0").String(),
            "spec.replicas: Invalid value: -1: must be greater than or equal to 0");
  EXPECT_EQ(FieldError::Invalid("metadata.name", R"("Bad_Name")", "a lowercase RFC 1123 subdomain")
                .String(),
            R"(metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain)");
  EXPECT_EQ(FieldError::Forbidden("spec.selector", "field is immutable").String(),
            "spec.selector: Forbidden: field is immutable");
  EXPECT_EQ(FieldError::Duplicate("metadata.finalizers[1]", R"("a")").String(),
            R"(metadata.finalizers[1]: Duplicate value: "a")");
  EXPECT_EQ(FieldError::NotFound("spec.x", "null").String(), "spec.x: Not found: null");
  EXPECT_EQ(FieldError::NotSupported("spec.policy", R"("X")", {"A", "B"}).String(),
            R"(spec.policy: Unsupported value: "X": supported values: "A", "B")");
  EXPECT_EQ(FieldError::TooLong("metadata.annotations", "may not be more than 262144 bytes").String(),
            "metadata.annotations: Too long: may not be more than 262144 bytes");
  EXPECT_EQ(FieldError::TypeInvalid("spec.replicas", R"("3")", "must be of type integer").String(),
            R"(spec.replicas: Invalid value: "3": must be of type integer)");
  EXPECT_EQ(FieldError::Invalid("spec.paused", "true", "").String(),
            "spec.paused: Invalid value: true");
  EXPECT_EQ(FieldError::NotSupported("dryRun", R"(["x","y"])", {"All"}).String(),
            R"(dryRun: Unsupported value: []string{"x", "y"}: supported values: "All")");
  EXPECT_EQ(FieldError::Invalid("spec", R"({"a":1})", "bad").String(),
            R"(spec: Invalid value: {"a":1}: bad)");
  // An empty bad value is Go's omitValue.
  EXPECT_EQ(FieldError::Invalid("spec", "", "bad").String(), "spec: Invalid value: bad");
  EXPECT_EQ(FieldError::Invalid("metadata.name", R"("")", "bad").String(),
            R"(metadata.name: Invalid value: "": bad)");
}

TEST(FieldError, StringValuesAreGoQuoted) {
  EXPECT_EQ(FieldError::Invalid("f", R"("a\"b\\c\nd\u0001")", "").String(),
            R"(f: Invalid value: "a\"b\\c\nd\x01")");
  EXPECT_EQ(FieldError::Invalid("f", "\"caf\\u00e9\"", "").String(), "f: Invalid value: \"café\"");
}

TEST(NewInvalid, SeveralErrorsAreBracketedAndDuplicatesDropped) {
  const auto e = NewInvalid({"", "ConfigMap"}, "cm",
                            {FieldError::Required("metadata.name"),
                             FieldError::Invalid("data[x]", R"("y")", "bad"),
                             FieldError::Required("metadata.name")});
  EXPECT_EQ(e.message,
            R"(ConfigMap "cm" is invalid: [metadata.name: Required value, data[x]: Invalid value: "y": bad])");
  ASSERT_TRUE(e.details.has_value());
  EXPECT_EQ(e.details->causes.size(), 3u);  // causes keep duplicates, as kube
  EXPECT_EQ(e.details->causes[0].reason, cause::kFieldValueRequired);
  EXPECT_EQ(e.details->causes[0].message, "Required value");
  EXPECT_EQ(e.details->causes[0].field, "metadata.name");
  EXPECT_EQ(e.code, 422);
  EXPECT_TRUE(IsInvalid(e));
}

TEST(NewInvalid, DuplicatesCollapsingToOneErrorPrintItBare) {
  const auto e = NewInvalid({"apps", "Deployment"}, "web",
                            {FieldError::Required("spec.selector"),
                             FieldError::Required("spec.selector")});
  EXPECT_EQ(e.message, R"(Deployment.apps "web" is invalid: spec.selector: Required value)");
}

TEST(NewInvalid, NoErrorsGivesBareMessage) {
  const auto e = NewInvalid({"", "Pod"}, "p", {});
  EXPECT_EQ(e.message, R"(Pod "p" is invalid)");
  EXPECT_EQ(StatusJson(e),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Pod \"p\" is invalid","reason":"Invalid","details":{"name":"p","kind":"Pod"},"code":422})");
}

// --- Constructors --------------------------------------------------------------------------

TEST(Constructors, MessagesCodesAndReasonsMatchApimachinery) {
  const GroupResource pods{"", "pods"};
  const GroupResource deploys{"apps", "deployments"};

  auto forbidden = NewForbidden(pods, "p", "User \"bob\" cannot get resource \"pods\"");
  EXPECT_EQ(forbidden.code, 403);
  EXPECT_EQ(forbidden.message, R"(pods "p" is forbidden: User "bob" cannot get resource "pods")");
  EXPECT_TRUE(IsForbidden(forbidden));
  EXPECT_EQ(NewForbidden(pods, "", "why").message, "pods is forbidden: why");
  EXPECT_EQ(NewForbidden({}, "", "why").message, "forbidden: why");

  auto unauthorized = NewUnauthorized("");
  EXPECT_EQ(unauthorized.code, 401);
  EXPECT_EQ(unauthorized.message, "not authorized");
  EXPECT_TRUE(IsUnauthorized(unauthorized));
  EXPECT_FALSE(unauthorized.details.has_value());

  auto method = NewMethodNotSupported(deploys, "deletecollection");
  EXPECT_EQ(method.code, 405);
  EXPECT_EQ(method.message, R"(deletecollection is not supported on resources of kind "deployments.apps")");
  EXPECT_TRUE(IsMethodNotAllowed(method));
  EXPECT_EQ(StatusJson(method),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deletecollection is not supported on resources of kind \"deployments.apps\"","reason":"MethodNotAllowed","details":{"group":"apps","kind":"deployments"},"code":405})");

  auto media = NewUnsupportedMediaType({"application/json-patch+json", "application/merge-patch+json",
                                        "application/apply-patch+yaml"});
  EXPECT_EQ(media.code, 415);
  EXPECT_EQ(media.message,
            "the body of the request was in an unknown format - accepted media types include: "
            "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml");
  EXPECT_TRUE(IsUnsupportedMediaType(media));
  EXPECT_FALSE(media.details.has_value());

  auto not_acceptable = NewNotAcceptable({"application/json", "application/yaml"});
  EXPECT_EQ(not_acceptable.code, 406);
  EXPECT_EQ(not_acceptable.message,
            "only the following media types are accepted: application/json, application/yaml");

  auto internal = NewInternalError("etcd is down");
  EXPECT_EQ(internal.code, 500);
  EXPECT_EQ(internal.message, "Internal error occurred: etcd is down");
  EXPECT_TRUE(IsInternalError(internal));
  EXPECT_EQ(StatusJson(internal),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Internal error occurred: etcd is down","reason":"InternalError","details":{"causes":[{"message":"etcd is down"}]},"code":500})");

  auto server_timeout = NewServerTimeout(pods, "create", 2);
  EXPECT_EQ(server_timeout.code, 500);
  EXPECT_EQ(server_timeout.message,
            "The create operation against pods could not be completed at this time, please try again.");
  EXPECT_TRUE(IsServerTimeout(server_timeout));
  EXPECT_EQ(SuggestsRetryAfter(server_timeout), 2);

  auto timeout = NewTimeout("request did not complete", 0);
  EXPECT_EQ(timeout.code, 504);
  EXPECT_EQ(timeout.message, "Timeout: request did not complete");
  EXPECT_TRUE(IsTimeout(timeout));
  EXPECT_FALSE(IsTooLargeResourceVersion(timeout));

  auto too_large = NewRequestEntityTooLarge("limit is 3145728");
  EXPECT_EQ(too_large.code, 413);
  EXPECT_EQ(too_large.message, "Request entity too large: limit is 3145728");
  EXPECT_TRUE(IsRequestEntityTooLarge(too_large));

  auto unavailable = NewServiceUnavailable("storage is initializing");
  EXPECT_EQ(unavailable.code, 503);
  EXPECT_TRUE(IsServiceUnavailable(unavailable));

  auto bad = NewBadRequest("resourceVersionMatch is forbidden");
  EXPECT_EQ(bad.code, 400);
  EXPECT_TRUE(IsBadRequest(bad));

  auto expired = NewResourceExpired(std::string(kListExpiredMsg));
  EXPECT_EQ(expired.code, 410);
  EXPECT_EQ(expired.reason, reason::kExpired);
  EXPECT_TRUE(IsExpired(expired));
  auto gone = NewGone("gone");
  EXPECT_EQ(gone.reason, reason::kGone);
  EXPECT_TRUE(IsGone(gone));

  auto gen = NewGenerateNameConflict(pods, "web-abcde", 1);
  EXPECT_EQ(gen.message,
            R"(pods "web-abcde" already exists, the server was not able to generate a unique name for the object)");
  EXPECT_TRUE(IsAlreadyExists(gen));
  EXPECT_EQ(SuggestsRetryAfter(gen), 1);

  auto apply = NewApplyConflict({{std::string(cause::kFieldManagerConflict),
                                  "conflict with \"kubectl\"", ".spec.replicas"}},
                                 "Apply failed with 1 conflict: conflict with \"kubectl\": .spec.replicas");
  EXPECT_TRUE(IsConflict(apply));
  EXPECT_EQ(StatusJson(apply),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Apply failed with 1 conflict: conflict with \"kubectl\": .spec.replicas","reason":"Conflict","details":{"causes":[{"reason":"FieldManagerConflict","message":"conflict with \"kubectl\"","field":".spec.replicas"}]},"code":409})");
}

TEST(Constructors, IsHelpersDoNotConfuseNeighbours) {
  const auto conflict = NewConflict({"", "configmaps"}, "x", kOptimisticLockErrorMsg);
  const auto exists = NewAlreadyExists({"", "configmaps"}, "x");
  EXPECT_TRUE(IsConflict(conflict));
  EXPECT_FALSE(IsAlreadyExists(conflict));
  EXPECT_TRUE(IsAlreadyExists(exists));
  EXPECT_FALSE(IsConflict(exists));
  EXPECT_FALSE(IsNotFound(exists));
  EXPECT_FALSE(IsTimeout(NewServerTimeout({"", "pods"}, "get", 1)));
  EXPECT_FALSE(IsServerTimeout(NewTimeout("x", 1)));
}

TEST(Constructors, NamesAreGoQuoted) {
  EXPECT_EQ(NewNotFound({"", "configmaps"}, "we\"ird\n").message,
            R"(configmaps "we\"ird\n" not found)");
}

}  // namespace
}  // namespace kube
