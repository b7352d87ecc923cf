#include <kube/core/protobuf.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <kube/base/error.hpp>
#include <kube/core/object_list_parser.hpp>

namespace kube::protobuf {
namespace {

namespace json = boost::json;

std::string Fixture(const std::string& name) {
  std::ifstream in(std::string(KUBE_TESTDATA_DIR) + "/protobuf/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// kube-apiserver's JSON escapes <, > and & as Go does; the transcoder writes them as they are.
std::string WithoutHtmlEscapes(std::string s) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"\\u003c", "<"}, {"\\u003e", ">"}, {"\\u0026", "&"}}) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at)) s.replace(at, from.size(), to);
  }
  while (!s.empty() && (s.back() == '\n')) s.pop_back();
  return s;
}

// Where Go writes `null` for a nil list of a field without omitempty that the OpenAPI schema does
// not require (rbac's `rules`), the transcoder leaves the field out: the same value.
std::string WithoutKnownNulls(const std::string& fixture, std::string s) {
  if (fixture == "clusterrole") {
    const std::string rules = "\"rules\":null,";
    if (auto at = s.find(rules); at != std::string::npos) s.erase(at, rules.size());
  }
  return s;
}

class FixtureTest : public ::testing::TestWithParam<std::string> {};

// Each fixture was read from kube-apiserver v1.32 twice, as protobuf and as JSON: the transcoded
// protobuf is the server's JSON, byte for byte.
TEST_P(FixtureTest, TranscodesToTheJsonTheServerSent) {
  const std::string pb = Fixture(GetParam() + ".pb");
  const std::string want = WithoutKnownNulls(GetParam(), WithoutHtmlEscapes(Fixture(GetParam() + ".json")));
  auto got = ToJson(pb);
  ASSERT_TRUE(got.ok()) << got.error().ToString();
  EXPECT_EQ(json::parse(*got), json::parse(want));
  EXPECT_EQ(*got, want);
}

// Fed in pieces of every size, the stream gives the same text.
TEST_P(FixtureTest, StreamsTheSameTextWhateverThePieces) {
  const std::string pb = Fixture(GetParam() + ".pb");
  auto whole = ToJson(pb);
  ASSERT_TRUE(whole.ok()) << whole.error().ToString();
  for (std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{100}, pb.size()}) {
    std::string got;
    StreamTranscoder t([&](std::string_view j) -> Result<void> {
      got.append(j);
      return Ok();
    });
    for (std::size_t at = 0; at < pb.size(); at += piece) {
      auto fed = t.Feed(std::string_view(pb).substr(at, piece));
      ASSERT_TRUE(fed.ok()) << fed.error().ToString();
    }
    auto done = t.Finish();
    ASSERT_TRUE(done.ok()) << done.error().ToString();
    EXPECT_EQ(json::parse(got), json::parse(*whole)) << "piece " << piece;
  }
}

INSTANTIATE_TEST_SUITE_P(KubeApiserver132, FixtureTest,
                         ::testing::Values("pod_4k", "deployment_15k", "configmap", "secret", "service", "event",
                                           "controllerrevision", "endpointslice", "clusterrole", "job", "crd",
                                           "pod_list"));

}  // namespace
}  // namespace kube::protobuf

namespace kube::protobuf {
namespace {

// A protobuf varint (also a length prefix).
std::string Varint(std::uint64_t n) {
  std::string s;
  while (n >= 0x80) {
    s.push_back(static_cast<char>((n & 0x7f) | 0x80));
    n >>= 7;
  }
  s.push_back(static_cast<char>(n));
  return s;
}

// A ConfigMap envelope around `raw` (the ConfigMap message's bytes).
std::string ConfigMapBody(std::string_view raw, std::string_view kind = "ConfigMap") {
  std::string type_meta = std::string("\x0a\x02v1", 4) + "\x12" + Varint(kind.size()) + std::string(kind);
  std::string body("k8s\0", 4);
  body += "\x0a" + Varint(type_meta.size()) + type_meta;
  body += "\x12" + Varint(raw.size()) + std::string(raw);
  return body;
}

TEST(ProtobufErrors, MalformedBodiesAre400AndNeverCrash) {
  const std::string good = Fixture("configmap.pb");
  ASSERT_TRUE(ToJson(good).ok());
  // Every cut before the end of the object; the last 4 bytes are the envelope's empty
  // contentEncoding and contentType, which may be left out.
  ASSERT_EQ(good.substr(good.size() - 4), std::string("\x1a\x00\x22\x00", 4));
  for (std::size_t cut = 0; cut < good.size() - 4; ++cut) {
    auto r = ToJson(std::string_view(good).substr(0, cut));
    ASSERT_FALSE(r.ok()) << "cut at " << cut;
    EXPECT_EQ(r.error().code, 400) << "cut at " << cut << ": " << r.error().message;
  }
  EXPECT_EQ(ToJson("k8s").error().message, "malformed protobuf: missing the k8s protobuf envelope prefix");
  // metadata (field 1) as a varint.
  auto wrong = ToJson(ConfigMapBody(std::string("\x08\x01", 2)));
  EXPECT_EQ(wrong.error().code, 400);
  EXPECT_EQ(wrong.error().message,
            "malformed protobuf: field metadata of k8s.io.api.core.v1.ConfigMap has the wrong wire type");
  // data {"a": "\xff"}: not UTF-8.
  auto utf8 = ToJson(ConfigMapBody(std::string("\x12\x06\x0a\x01" "a" "\x12\x01\xff", 8)));
  EXPECT_EQ(utf8.error().code, 400);
  EXPECT_EQ(utf8.error().message, "malformed protobuf: a string that is not valid UTF-8");
}

// A time beyond what Clock::WallTime holds (here 9999-12-31T23:59:59Z) is refused, as ParseTime
// refuses its JSON form, never overflowing.
TEST(ProtobufErrors, ATimeOutsideTheClocksRangeIs400) {
  for (std::int64_t seconds : {std::int64_t{253402300799}, std::int64_t{-62135596800}}) {
    const std::string time = "\x08" + Varint(static_cast<std::uint64_t>(seconds));  // Time.seconds
    const std::string meta = "\x42" + Varint(time.size()) + time;  // creationTimestamp
    auto r = ToJson(ConfigMapBody("\x0a" + Varint(meta.size()) + meta));  // ConfigMap.metadata
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "malformed protobuf: a time out of range");
  }
  const std::string time = "\x08" + Varint(1767225600);  // 2026-01-01T00:00:00Z
  const std::string meta = "\x42" + Varint(time.size()) + time;
  auto ok = ToJson(ConfigMapBody("\x0a" + Varint(meta.size()) + meta));
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_NE(ok->find("\"creationTimestamp\":\"2026-01-01T00:00:00Z\""), std::string::npos) << *ok;
}

TEST(ProtobufErrors, AnUnknownFieldOrKindIs415SoThatTheCallerAsksForJson) {
  // Field 9 of ConfigMap does not exist in 1.32.
  auto field = ToJson(ConfigMapBody(std::string("\x48\x01", 2)));
  ASSERT_FALSE(field.ok());
  EXPECT_TRUE(IsUnsupportedMediaType(field.error()));
  EXPECT_EQ(field.error().message, "protobuf field 9 of k8s.io.api.core.v1.ConfigMap is not known");
  auto kind = ToJson(ConfigMapBody("", "Gadget"));
  EXPECT_TRUE(IsUnsupportedMediaType(kind.error()));
  EXPECT_EQ(kind.error().message, "protobuf is not known for v1, Kind=Gadget");
  EXPECT_TRUE(KnowsGroupVersion("apps/v1"));
  EXPECT_TRUE(KnowsKind("v1", "PodList"));
  EXPECT_FALSE(KnowsGroupVersion("example.com/v1"));
  EXPECT_FALSE(KnowsKind("v1", "Gadget"));
}

// The encoder writes the envelope's type before its object; a type after the object, or a second
// object, is refused the same way by both readers, so a stream never reads a kind the whole-body
// reader would not.
TEST(ProtobufErrors, AnEnvelopeWithItsTypeAfterTheObjectOrTwoObjectsIs400) {
  const std::string good = ConfigMapBody("");
  const std::string second_type = good + std::string("\x0a\x06\x0a\x01" "a" "\x12\x01" "b", 8);
  const std::string second_raw = good + std::string("\x12\x00", 2);
  for (const auto& [body, message] :
       {std::pair{second_type, "malformed protobuf: the envelope's type follows its object"},
        std::pair{second_raw, "malformed protobuf: two raw fields in the envelope"}}) {
    auto whole = ToJson(body);
    ASSERT_FALSE(whole.ok());
    EXPECT_EQ(whole.error().code, 400);
    EXPECT_EQ(whole.error().message, message);
    StreamTranscoder t([](std::string_view) -> Result<void> { return Ok(); });
    auto r = t.Feed(body);
    if (r) r = t.Finish();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, 400);
    EXPECT_EQ(r.error().message, message);
  }
}

TEST(ProtobufErrors, DeepNestingIsRefused) {
  // 150 envelopes, each nested in the one around it through ControllerRevision.data (field 2, a
  // RawExtension whose raw, field 1, is itself an envelope).
  auto envelope = [&](std::string_view inner) {
    const std::string type_meta = std::string("\x0a\x07" "apps/v1" "\x12\x12" "ControllerRevision");
    std::string body("k8s\0", 4);
    body += "\x0a" + Varint(type_meta.size()) + type_meta;
    body += "\x12" + Varint(inner.size()) + std::string(inner);
    return body;
  };
  std::string body = envelope("");
  for (int i = 0; i < 150; ++i) {
    const std::string ext = "\x0a" + Varint(body.size()) + body;  // RawExtension.raw
    body = envelope("\x12" + Varint(ext.size()) + ext);              // ControllerRevision.data
  }
  auto r = ToJson(body);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "malformed protobuf: messages nested deeper than 100");
}

TEST(ProtobufStream, AListIsPassedOnItemByItemAndAPartialBodyIsAnError) {
  const std::string pb = Fixture("pod_list.pb");
  std::vector<std::size_t> sizes;
  StreamTranscoder t([&](std::string_view j) -> Result<void> {
    sizes.push_back(j.size());
    return Ok();
  });
  ASSERT_TRUE(t.Feed(std::string_view(pb).substr(0, pb.size() - 1)).ok());
  auto early = t.Finish();
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.error().message, "malformed protobuf: the body ended early");

  // Through ObjectListParser, the same items as the JSON list.
  ObjectListParser parser;
  StreamTranscoder into([&](std::string_view j) { return parser.Feed(j); });
  ASSERT_TRUE(into.Feed(pb).ok());
  ASSERT_TRUE(into.Finish().ok());
  auto list = parser.Finish();
  ASSERT_TRUE(list.ok()) << list.error().ToString();
  auto want = ObjectList::Parse(Fixture("pod_list.json"));
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(list->kind, "PodList");
  EXPECT_EQ(list->resource_version, want->resource_version);
  EXPECT_EQ(list->continue_token, want->continue_token);
  ASSERT_EQ(list->items.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(list->items[i]->Json(), want->items[i]->Json());
}

}  // namespace
}  // namespace kube::protobuf
