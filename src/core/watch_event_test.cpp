#include <kube/core/watch_event.hpp>

#include <gtest/gtest.h>

#include <kube/core/status.hpp>

namespace kube {
namespace {

TEST(WatchEvent, DecodesEachTypeAndRoundTrips) {
  for (const char* type : {"ADDED", "MODIFIED", "DELETED", "BOOKMARK"}) {
    const std::string line = std::string(R"({"type":")") + type +
                             R"(","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","resourceVersion":"7"}}})";
    auto ev = DecodeWatchEvent(line);
    ASSERT_TRUE(ev.ok()) << ev.error().message;
    EXPECT_EQ(WatchEventTypeName(ev->type), type);
    EXPECT_EQ(ev->object->ResourceVersion(), "7");
    EXPECT_FALSE(ev->error.has_value());
    EXPECT_EQ(EncodeWatchEvent(*ev), line);
  }
}

TEST(WatchEvent, ObjectMayComeFirstAndWhitespaceIsAllowed) {
  auto ev = DecodeWatchEvent("{ \"object\" : {\"metadata\": {\"name\": \"x\"}}, \"type\" : \"DELETED\" }\n");
  ASSERT_TRUE(ev.ok()) << ev.error().message;
  EXPECT_EQ(ev->type, WatchEventType::kDeleted);
  EXPECT_EQ(ev->object->Name(), "x");
}

TEST(WatchEvent, ErrorEventCarriesTheStatusAsError) {
  const std::string line =
      R"({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
      R"J("message":"too old resource version: 1 (5)","reason":"Expired","code":410}})J";
  auto ev = DecodeWatchEvent(line);
  ASSERT_TRUE(ev.ok()) << ev.error().message;
  EXPECT_EQ(ev->type, WatchEventType::kError);
  ASSERT_TRUE(ev->error.has_value());
  EXPECT_TRUE(IsGone(*ev->error));
  EXPECT_EQ(ev->error->code, 410);
  WatchEvent from_error{WatchEventType::kError, nullptr, *ev->error};
  EXPECT_EQ(EncodeWatchEvent(from_error), line);
}

TEST(WatchEvent, RecognisesTheInitialEventsEndBookmark) {
  auto ev = DecodeWatchEvent(
      R"({"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"12",)"
      R"("annotations":{"k8s.io/initial-events-end":"true"}}}})");
  ASSERT_TRUE(ev.ok());
  EXPECT_TRUE(ev->IsInitialEventsEnd());
  auto plain = DecodeWatchEvent(R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"12"}}})");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->IsInitialEventsEnd());
}

TEST(WatchEvent, RejectsMalformedEvents) {
  const char* cases[][2] = {
      {R"({"type":"ADDED"})", "missing \"object\""},
      {R"({"object":{}})", "missing \"type\""},
      {R"({"type":"CREATED","object":{}})", "unknown watch event type \"CREATED\""},
      {R"({"type":1,"object":{}})", "type: expected string"},
      {R"({"type":"ADDED","object":[]})", "object: expected a JSON object, found array"},
      {R"({"type":"ADDED","object":{"metadata":{"labels":1}}})", "metadata.labels: expected object"},
      {R"({"type":"ADDED","object":{})", "unexpected end of input"},
      {R"([])", "expected a JSON object"},
  };
  for (const auto& c : cases) {
    auto ev = DecodeWatchEvent(c[0]);
    ASSERT_FALSE(ev.ok()) << c[0];
    EXPECT_TRUE(IsBadRequest(ev.error()));
    EXPECT_NE(ev.error().message.find(c[1]), std::string::npos) << ev.error().message;
  }
}

TEST(WatchEventType, ParsesOnlyExactNames) {
  EXPECT_TRUE(ParseWatchEventType("ADDED").ok());
  EXPECT_FALSE(ParseWatchEventType("added").ok());
}

}  // namespace
}  // namespace kube
