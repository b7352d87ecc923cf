#include <kube/client/fake_transport.hpp>
#include <kube/client/watch.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <kube/core/protobuf.hpp>

namespace kube::client {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

std::string Event(std::string_view type, std::string_view name, std::string_view rv) {
  return R"({"type":")" + std::string(type) + R"(","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":")" +
         std::string(name) + R"(","namespace":"ns","resourceVersion":")" + std::string(rv) + R"("},"data":{"k":"v"}}})";
}

constexpr char kExpired[] =
    R"json({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (10)","reason":"Expired","code":410}})json";

TEST(WatchDecoder, DecodesEventsSplitAtEveryByteBoundary) {
  const std::string body = Event("ADDED", "a", "1") + "\n" + Event("MODIFIED", "a", "2") + "\n" +
                           Event("DELETED", "a", "3") + "\n";
  for (std::size_t step : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{64}, body.size()}) {
    WatchDecoder decoder;
    std::vector<std::string> rvs;
    for (std::size_t i = 0; i < body.size(); i += step) {
      decoder.Feed(std::string_view(body).substr(i, step));
      while (auto ev = decoder.Next()) {
        ASSERT_TRUE(ev->ok()) << ev->error().message;
        rvs.emplace_back((*ev)->object->ResourceVersion());
      }
    }
    EXPECT_EQ(rvs, (std::vector<std::string>{"1", "2", "3"})) << "step " << step;
    EXPECT_FALSE(decoder.HasPartialLine());
    EXPECT_EQ(decoder.Buffered(), 0u);
  }
}

TEST(WatchDecoder, ToleratesBlankLinesAndCrLf) {
  WatchDecoder decoder;
  decoder.Feed("\n\r\n" + Event("ADDED", "a", "1") + "\r\n\n" + Event("BOOKMARK", "", "9") + "\n");
  auto a = decoder.Next();
  ASSERT_TRUE(a && a->ok());
  EXPECT_EQ((*a)->type, WatchEventType::kAdded);
  auto b = decoder.Next();
  ASSERT_TRUE(b && b->ok());
  EXPECT_EQ((*b)->type, WatchEventType::kBookmark);
  EXPECT_FALSE(decoder.Next().has_value());
}

TEST(WatchDecoder, ReportsMalformedLinesAndRunawayLines) {
  WatchDecoder decoder(128);
  decoder.Feed("{\"type\":\"ADDED\"}\n");
  auto bad = decoder.Next();
  ASSERT_TRUE(bad.has_value());
  ASSERT_FALSE(bad->ok());
  EXPECT_TRUE(IsBadRequest(bad->error()));
  decoder.Feed(std::string(200, 'x'));
  auto big = decoder.Next();
  ASSERT_TRUE(big.has_value());
  ASSERT_FALSE(big->ok());
  EXPECT_TRUE(IsRequestEntityTooLarge(big->error()));
  EXPECT_EQ(decoder.Buffered(), 0u);
}

TEST(WatchDecoder, KeepsOnlyTheUnfinishedTailBuffered) {
  WatchDecoder decoder;
  const std::string ev = Event("MODIFIED", "a", "1") + "\n";
  for (int i = 0; i < 10000; ++i) {
    decoder.Feed(ev);
    auto e = decoder.Next();
    ASSERT_TRUE(e && e->ok());
  }
  EXPECT_EQ(decoder.Buffered(), 0u);
}

std::unique_ptr<WatchStream> OpenWatch(FakeTransport& transport, std::shared_ptr<FakeStreamScript>& script) {
  script = transport.EnqueueStream(200, {{"Content-Type", "application/json"}});
  auto stream = transport.Open(HttpRequest{});
  EXPECT_TRUE(stream.ok());
  return std::make_unique<WatchStream>(std::move(stream).value());
}

TEST(WatchStream, YieldsEventsAcrossChunksThenEndsCleanly) {
  FakeTransport transport;
  std::shared_ptr<FakeStreamScript> script;
  auto watch = OpenWatch(transport, script);
  const std::string two = Event("ADDED", "a", "1") + "\n" + Event("ADDED", "b", "2") + "\n";
  const std::string third = Event("MODIFIED", "a", "3") + "\n";
  script->Push(two.substr(0, 10));
  script->Push(two.substr(10) + third.substr(0, third.size() - 1));
  script->Push("\n");
  script->Close();
  std::vector<std::string> names;
  for (;;) {
    auto ev = watch->Next();
    ASSERT_TRUE(ev.ok()) << ev.error().message;
    if (!*ev) break;
    names.emplace_back((**ev).object->Name());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "a"}));
  EXPECT_TRUE(watch->Done());
  EXPECT_EQ(watch->EventCount(), 3u);
}

TEST(WatchStream, ErrorEventSurfacesAsAClassifiedErrorAndEndsTheWatch) {
  FakeTransport transport;
  std::shared_ptr<FakeStreamScript> script;
  auto watch = OpenWatch(transport, script);
  script->Push(Event("ADDED", "a", "1") + "\n" + kExpired + "\n" + Event("ADDED", "b", "2") + "\n");
  auto first = watch->Next();
  ASSERT_TRUE(first.ok() && first->has_value());
  auto err = watch->Next();
  ASSERT_FALSE(err.ok());
  EXPECT_TRUE(IsExpired(err.error()));
  EXPECT_EQ(err.error().code, 410);
  EXPECT_EQ(err.error().message, "too old resource version: 5 (10)");
  auto after = watch->Next();
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(after->has_value());
}

TEST(WatchStream, ResetMidStreamIsAConnectionResetError) {
  FakeTransport transport;
  std::shared_ptr<FakeStreamScript> script;
  auto watch = OpenWatch(transport, script);
  script->Push(Event("ADDED", "a", "1") + "\n" + Event("ADDED", "b", "2").substr(0, 20));
  script->Fail(MakeTransportError(transport_cause::kConnectionReset, "connection reset by peer"));
  ASSERT_TRUE(watch->Next().ok());
  auto err = watch->Next();
  ASSERT_FALSE(err.ok());
  EXPECT_TRUE(IsConnectionReset(err.error()));
}

TEST(WatchStream, CleanEndInTheMiddleOfAnEventIsATruncation) {
  FakeTransport transport;
  std::shared_ptr<FakeStreamScript> script;
  auto watch = OpenWatch(transport, script);
  script->Push(Event("ADDED", "a", "1").substr(0, 30));
  script->Close();
  auto err = watch->Next();
  ASSERT_FALSE(err.ok());
  EXPECT_TRUE(IsConnectionReset(err.error()));
  EXPECT_THAT(err.error().message, HasSubstr("ended in the middle of an event"));
}

TEST(WatchStream, LastEventWithoutNewlineIsDelivered) {
  FakeTransport transport;
  std::shared_ptr<FakeStreamScript> script;
  auto watch = OpenWatch(transport, script);
  script->Push(Event("ADDED", "a", "1"));
  script->Close();
  auto ev = watch->Next();
  ASSERT_TRUE(ev.ok()) << ev.error().message;
  ASSERT_TRUE(ev->has_value());
  auto end = watch->Next();
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());
}

TEST(WatchStream, StopFromAnotherThreadEndsABlockedNext) {
  FakeTransport transport;
  std::shared_ptr<FakeStreamScript> script;
  auto watch = OpenWatch(transport, script);
  Result<std::optional<WatchEvent>> result = MakeError(0, "", "unset");
  std::jthread consumer([&] { result = watch->Next(); });
  ASSERT_TRUE(script->WaitForBlockedReader());  // the consumer is blocked waiting for bytes
  watch->Stop();
  consumer.join();
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(result->has_value());
  EXPECT_TRUE(script->Canceled());
  watch->Stop();  // idempotent
}

// ---- Protobuf watches ----

std::string Testdata(const std::string& name) {
  std::ifstream in(std::string(KUBE_TESTDATA_DIR) + "/protobuf/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The frames of a `;stream=watch` body.
std::vector<std::string> Frames(const std::string& body) {
  std::vector<std::string> frames;
  for (std::size_t at = 0; at + 4 <= body.size();) {
    const auto* p = reinterpret_cast<const unsigned char*>(body.data() + at);
    const std::size_t len = (std::size_t{p[0]} << 24) | (std::size_t{p[1]} << 16) | (std::size_t{p[2]} << 8) | p[3];
    frames.push_back(body.substr(at + 4, len));
    at += 4 + len;
  }
  return frames;
}

// The same watch (ADDED, MODIFIED, DELETED of a ConfigMap) read from kube-apiserver v1.32 as
// protobuf and as JSON: each frame transcodes to the server's JSON line, byte for byte.
TEST(ProtobufWatch, EachFrameIsTheJsonLineTheServerSent) {
  const std::vector<std::string> frames = Frames(Testdata("watch_configmaps.pb"));
  std::istringstream json(Testdata("watch_configmaps.json"));
  ASSERT_EQ(frames.size(), 3u);
  for (const std::string& frame : frames) {
    std::string line;
    ASSERT_TRUE(std::getline(json, line));
    auto text = protobuf::WatchEventToJson(frame);
    ASSERT_TRUE(text.ok()) << text.error().message;
    EXPECT_EQ(*text, line);
  }
}

TEST(ProtobufWatch, TheDecoderSplitsFramesAtEveryByteBoundary) {
  const std::string body = Testdata("watch_configmaps.pb");  // ADDED, MODIFIED, DELETED
  std::vector<std::size_t> ends{0};
  for (const std::string& frame : Frames(body)) ends.push_back(ends.back() + 4 + frame.size());
  ASSERT_EQ(ends.back(), body.size());
  for (std::size_t cut = 0; cut <= body.size(); ++cut) {
    WatchDecoder d(std::size_t{64} << 20, WatchFormat::kProtobuf);
    std::vector<WatchEventType> types;
    d.Feed(std::string_view(body).substr(0, cut));
    while (auto ev = d.Next()) {
      ASSERT_TRUE(ev->ok()) << ev->error().message;
      types.push_back((*ev)->type);
    }
    EXPECT_EQ(d.HasPartialLine(), std::find(ends.begin(), ends.end(), cut) == ends.end()) << cut;
    d.Feed(std::string_view(body).substr(cut));
    while (auto ev = d.Next()) {
      ASSERT_TRUE(ev->ok()) << ev->error().message;
      types.push_back((*ev)->type);
    }
    ASSERT_EQ(types, (std::vector<WatchEventType>{WatchEventType::kAdded, WatchEventType::kModified,
                                                  WatchEventType::kDeleted}))
        << "cut at " << cut;
    EXPECT_FALSE(d.HasPartialLine());
  }
}

TEST(ProtobufWatch, AnOversizedOrMalformedFrameIsAnError) {
  WatchDecoder small(100, WatchFormat::kProtobuf);
  small.Feed(std::string("\x00\x00\x01\x00", 4));
  auto big = small.Next();
  ASSERT_TRUE(big.has_value());
  EXPECT_EQ(big->error().code, 413);
  WatchDecoder d(std::size_t{64} << 20, WatchFormat::kProtobuf);
  d.Feed(std::string("\x00\x00\x00\x02\x08\x01", 6));  // field 1 (type, a string) as a varint
  auto bad = d.Next();
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->error().code, 400) << bad->error().message;
}

// A stream whose Content-Type is kube's protobuf watch is read as frames; a frame with a field
// this build does not know ends the watch with a 415 and tells the client to use JSON.
TEST(ProtobufWatch, TheStreamFollowsItsContentTypeAndReportsUnknownFields) {
  FakeTransport transport;
  auto script = transport.EnqueueStream(200, {{"Content-Type", "application/vnd.kubernetes.protobuf;stream=watch"}});
  auto stream = transport.Open(HttpRequest{});
  ASSERT_TRUE(stream.ok());
  int refused = 0;
  WatchStream watch(std::move(stream).value(), [&] { ++refused; });
  const std::string body = Testdata("watch_configmaps.pb");
  script->Push(body.substr(0, 100));
  script->Push(body.substr(100));
  // A fourth frame: a WatchEvent with an unknown field 9.
  script->Push(std::string("\x00\x00\x00\x02\x48\x01", 6));
  std::vector<std::string> types;
  for (int i = 0; i < 3; ++i) {
    auto ev = watch.Next();
    ASSERT_TRUE(ev.ok() && ev->has_value()) << (ev.ok() ? "end" : ev.error().message);
    EXPECT_EQ((**ev).object->Name(), "w1");
    EXPECT_EQ((**ev).object->Kind(), "ConfigMap");
  }
  auto unknown = watch.Next();
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(IsUnsupportedMediaType(unknown.error())) << unknown.error().message;
  EXPECT_EQ(refused, 1);
  auto after = watch.Next();
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(after->has_value());
}

TEST(ProtobufWatch, AStreamEndingInsideAFrameIsAConnectionReset) {
  FakeTransport transport;
  auto script = transport.EnqueueStream(200, {{"Content-Type", "application/vnd.kubernetes.protobuf;stream=watch"}});
  auto stream = transport.Open(HttpRequest{});
  ASSERT_TRUE(stream.ok());
  WatchStream watch(std::move(stream).value());
  const std::string body = Testdata("watch_configmaps.pb");
  script->Push(body.substr(0, body.size() - 1));
  script->Close();
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(watch.Next().ok());
  auto cut = watch.Next();
  ASSERT_FALSE(cut.ok());
  EXPECT_THAT(cut.error().message, HasSubstr("in the middle of an event"));
}

}  // namespace
}  // namespace kube::client
