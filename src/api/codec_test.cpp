#include <kube/api/codec.hpp>

#include <gtest/gtest.h>

namespace kube::api {
namespace {

using ::kube::api::Decode;
using ::kube::api::Encode;

// A struct written the way the generator writes them, to test the runtime on its own.
struct Port {
  std::optional<int32_t> containerPort{};
  std::string name{};
  UnknownFields unknown_fields{};
  bool operator==(const Port&) const = default;
};

struct Item {
  std::vector<Port> ports{};
  std::map<std::string, std::string> labels{};
  std::optional<std::string> data{};  // bytes
  UnknownFields unknown_fields{};
  bool operator==(const Item&) const = default;
};

bool Decode(Decoder& d, Port& out) {
  if (d.ConsumeNull()) return true;
  if (!d.BeginObject()) return false;
  std::string_view key;
  while (d.NextKey(key)) {
    if (key == "containerPort") {
      if (!Decode(d, out.containerPort)) return d.InField("containerPort");
      continue;
    }
    if (key == "name") {
      if (!Decode(d, out.name)) return d.InField("name");
      continue;
    }
    if (!d.KeepUnknown(out.unknown_fields)) return false;
  }
  return !d.failed();
}

void Encode(Encoder& e, const Port& v) {
  e.BeginObject();
  if (v.containerPort) {
    e.Key("\"containerPort\":");
    Encode(e, *v.containerPort);
  }
  if (!v.name.empty()) {
    e.Key("\"name\":");
    Encode(e, v.name);
  }
  e.Unknown(v.unknown_fields);
  e.EndObject();
}

bool Decode(Decoder& d, Item& out) {
  if (d.ConsumeNull()) return true;
  if (!d.BeginObject()) return false;
  std::string_view key;
  while (d.NextKey(key)) {
    if (key == "ports") {
      if (!Decode(d, out.ports)) return d.InField("ports");
      continue;
    }
    if (key == "labels") {
      if (!Decode(d, out.labels)) return d.InField("labels");
      continue;
    }
    if (key == "data") {
      if (!DecodeBytes(d, out.data)) return d.InField("data");
      continue;
    }
    if (!d.KeepUnknown(out.unknown_fields)) return false;
  }
  return !d.failed();
}

void Encode(Encoder& e, const Item& v) {
  e.BeginObject();
  if (!v.ports.empty()) {
    e.Key("\"ports\":");
    Encode(e, v.ports);
  }
  if (!v.labels.empty()) {
    e.Key("\"labels\":");
    Encode(e, v.labels);
  }
  if (v.data) {
    e.Key("\"data\":");
    EncodeBytes(e, v.data);
  }
  e.Unknown(v.unknown_fields);
  e.EndObject();
}

TEST(Codec, DecodesAndEncodesNestedContainers) {
  auto item = FromJson<Item>(R"({"ports":[{"containerPort":80,"name":"http"},{"containerPort":443}],
                                 "labels":{"b":"2","a":"1"},"data":"aGVsbG8="})");
  ASSERT_TRUE(item.ok()) << item.error().message;
  ASSERT_EQ(item->ports.size(), 2u);
  EXPECT_EQ(item->ports[0].containerPort, 80);
  EXPECT_EQ(item->ports[0].name, "http");
  EXPECT_EQ(item->ports[1].containerPort, 443);
  EXPECT_EQ(item->labels.at("a"), "1");
  EXPECT_EQ(item->data, "hello");
  EXPECT_EQ(ToJson(*item),
            R"({"ports":[{"containerPort":80,"name":"http"},{"containerPort":443}],"labels":{"a":"1","b":"2"},"data":"aGVsbG8="})");
}

TEST(Codec, KeepsUnknownFieldsVerbatimAndCompact) {
  auto item = FromJson<Item>(R"({"future": {"a" : [1, 2]}, "ports":[{"x\u0041":true,"name":"p"}], "z":null})");
  ASSERT_TRUE(item.ok()) << item.error().message;
  EXPECT_EQ(item->unknown_fields.raw(), R"("future":{"a":[1,2]},"z":null)");
  EXPECT_EQ(item->ports[0].unknown_fields.raw(), R"("x\u0041":true)");
  EXPECT_EQ(ToJson(*item), R"({"ports":[{"name":"p","x\u0041":true}],"future":{"a":[1,2]},"z":null})");
  auto again = FromJson<Item>(ToJson(*item));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *item);
}

TEST(Codec, NullMeansAbsent) {
  auto item = FromJson<Item>(R"({"ports":null,"labels":null,"data":null})");
  ASSERT_TRUE(item.ok()) << item.error().message;
  EXPECT_TRUE(item->ports.empty());
  EXPECT_FALSE(item->data.has_value());
  auto port = FromJson<Port>(R"({"containerPort":null,"name":null})");
  ASSERT_TRUE(port.ok()) << port.error().message;
  EXPECT_FALSE(port->containerPort.has_value());
  EXPECT_EQ(ToJson(*port), "{}");
}

TEST(Codec, ErrorNamesThePathOfTheField) {
  auto item = FromJson<Item>(R"({"ports":[{"containerPort":1},{"containerPort":"80"}]})");
  ASSERT_FALSE(item.ok());
  EXPECT_EQ(item.error().code, 400);
  EXPECT_EQ(item.error().message,
            "ports[1].containerPort: expected integer, found string at line 1, column 48 (offset 47)");
}

TEST(Codec, ErrorInMapEntryNamesTheKey) {
  auto item = FromJson<Item>(R"({"labels":{"ok":"1","bad":2}})");
  ASSERT_FALSE(item.ok());
  EXPECT_EQ(item.error().message, "labels[bad]: expected string, found number at line 1, column 27 (offset 26)");
}

TEST(Codec, RejectsOutOfRangeAndFractionalIntegers) {
  auto big = FromJson<Port>(R"({"containerPort":2147483648})");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().message,
            "containerPort: value 2147483648 out of range for int32 at line 1, column 18 (offset 17)");
  auto frac = FromJson<Port>(R"({"containerPort":1.5})");
  ASSERT_FALSE(frac.ok());
  EXPECT_EQ(frac.error().message, "containerPort: expected integer, found number 1.5 at line 1, column 18 (offset 17)");
  auto huge = FromJson<int64_t>("99999999999999999999");
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().message, "value 99999999999999999999 out of range for int64 at line 1, column 1 (offset 0)");
  auto low = FromJson<int32_t>("-2147483648");
  ASSERT_TRUE(low.ok());
  EXPECT_EQ(*low, -2147483648);
}

TEST(Codec, MalformedJsonIsABadRequestWithPosition) {
  auto item = FromJson<Item>(R"({"ports":[{"name":"a"},]})");
  ASSERT_FALSE(item.ok());
  EXPECT_EQ(item.error().code, 400);
  EXPECT_NE(item.error().message.find("invalid JSON"), std::string::npos) << item.error().message;
  EXPECT_EQ(item.error().message.rfind("ports[1]: ", 0), 0u) << item.error().message;

  for (const char* bad : {"", "{", R"({"name":"x")", R"({"name" "x"})", R"({"name":"x",})",
                          R"({"name":"x"} extra)", R"({"name":"\x"})", "[1,2]", "nul", R"({"name":"a"}})"}) {
    auto port = FromJson<Port>(bad);
    EXPECT_FALSE(port.ok()) << bad;
    if (!port.ok()) {
      EXPECT_EQ(port.error().code, 400) << bad;
    }
  }
}

TEST(Codec, RejectsInvalidUtf8AndBadBase64) {
  auto utf8 = FromJson<Port>("{\"name\":\"\xff\"}");
  ASSERT_FALSE(utf8.ok());
  EXPECT_NE(utf8.error().message.find("invalid UTF-8"), std::string::npos);
  auto b64 = FromJson<Item>(R"({"data":"not base64!"})");
  ASSERT_FALSE(b64.ok());
  EXPECT_EQ(b64.error().message.rfind("data: illegal base64 data at input byte", 0), 0u) << b64.error().message;
}

TEST(Codec, NestingDeeperThanTheLimitFailsWithoutOverflow) {
  std::string deep(5000, '[');
  deep += std::string(5000, ']');
  auto v = FromJson<std::vector<std::vector<std::vector<int32_t>>>>(deep);
  EXPECT_FALSE(v.ok());
  auto raw = FromJson<RawJson>(deep);
  ASSERT_FALSE(raw.ok());
  EXPECT_NE(raw.error().message.find("nesting too deep"), std::string::npos) << raw.error().message;
}

TEST(Codec, EscapedStringsDecodeAndEncodeBack) {
  auto s = FromJson<std::string>(R"("a\"b\\c\n\u00e9\ud83d\ude00")");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, "a\"b\\c\n\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(ToJson(*s), "\"a\\\"b\\\\c\\n\xc3\xa9\xf0\x9f\x98\x80\"");
  auto m = FromJson<std::map<std::string, int64_t>>(R"({"k\u0031":1})");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->at("k1"), 1);
}

TEST(Codec, ScalarsRoundTrip) {
  EXPECT_EQ(ToJson(int64_t{-9223372036854775807 - 1}), "-9223372036854775808");
  EXPECT_EQ(ToJson(true), "true");
  EXPECT_EQ(ToJson(0.5), "0.5");
  auto d = FromJson<double>("1e3");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*d, 1000.0);
  auto b = FromJson<bool>("fals");
  EXPECT_FALSE(b.ok());
  auto wrong = FromJson<bool>("1");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().message, "expected boolean, found number at line 1, column 1 (offset 0)");
}

TEST(Codec, RawJsonKeepsAnyValueCompact) {
  auto raw = FromJson<RawJson>(R"( { "a" : [ 1 , "x y" ] } )");
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(raw->raw, R"({"a":[1,"x y"]})");
  EXPECT_EQ(ToJson(*raw), R"({"a":[1,"x y"]})");
  auto null = FromJson<RawJson>("null");
  ASSERT_TRUE(null.ok());
  EXPECT_TRUE(null->empty());
  EXPECT_EQ(ToJson(*null), "null");
}

TEST(Codec, IntOrStringTakesEitherForm) {
  auto i = FromJson<IntOrString>("8080");
  ASSERT_TRUE(i.ok());
  EXPECT_FALSE(i->is_string());
  EXPECT_EQ(i->int_value(), 8080);
  auto s = FromJson<IntOrString>(R"("25%")");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->is_string());
  EXPECT_EQ(ToJson(*s), R"("25%")");
  EXPECT_EQ(ToJson(*i), "8080");
  auto bad = FromJson<IntOrString>("true");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "expected integer or string, found boolean at line 1, column 1 (offset 0)");
  EXPECT_FALSE(FromJson<IntOrString>("4294967296").ok());
}

TEST(Codec, TimeAndMicroTime) {
  auto t = FromJson<Time>(R"("2026-10-01T08:00:00Z")");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(ToJson(*t), R"("2026-10-01T08:00:00Z")");
  auto offset = FromJson<Time>(R"("2026-10-01T10:00:00+02:00")");
  ASSERT_TRUE(offset.ok());
  EXPECT_EQ(*offset, *t);
  auto micro = FromJson<MicroTime>(R"("2026-10-01T08:00:00.123456Z")");
  ASSERT_TRUE(micro.ok());
  EXPECT_EQ(ToJson(*micro), R"("2026-10-01T08:00:00.123456Z")");
  EXPECT_EQ(ToJson(Time{micro->time}), R"("2026-10-01T08:00:00Z")");
  auto bad = FromJson<std::optional<Time>>(R"("yesterday")");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("parsing time"), std::string::npos) << bad.error().message;
  auto null = FromJson<std::optional<Time>>("null");
  ASSERT_TRUE(null.ok());
  EXPECT_FALSE(null->has_value());
}

TEST(Codec, QuantityFromStringOrNumber) {
  auto q = FromJson<Quantity>(R"("500m")");
  ASSERT_TRUE(q.ok()) << q.error().message;
  EXPECT_EQ(ToJson(*q), R"("500m")");
  auto n = FromJson<Quantity>("2");
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(ToJson(*n), R"("2")");
  auto bad = FromJson<std::map<std::string, Quantity>>(R"({"cpu":"1x"})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("[cpu]: ", 0), 0u) << bad.error().message;
}

TEST(Codec, DurationAsGoString) {
  auto d = FromJson<Duration>(R"("1h30m")");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(ToJson(*d), R"("1h30m0s")");
  EXPECT_FALSE(FromJson<Duration>(R"("soon")").ok());
}

TEST(Codec, BoxHoldsRecursiveValuesWithValueSemantics) {
  Box<std::string> a;
  EXPECT_FALSE(a.has_value());
  a.emplace("x");
  Box<std::string> b = a;
  *b = "y";
  EXPECT_EQ(*a, "x");
  EXPECT_FALSE(a == b);
  b = a;
  EXPECT_TRUE(a == b);
  auto decoded = FromJson<Box<std::string>>(R"("z")");
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(**decoded, "z");
  EXPECT_EQ(ToJson(*decoded), R"("z")");
}

TEST(Codec, FromJsonIntoClearsTheTargetFirst) {
  Port p;
  p.name = "old";
  p.containerPort = 1;
  ASSERT_TRUE(FromJsonInto(R"({"name":"new"})", p).ok());
  EXPECT_EQ(p.name, "new");
  EXPECT_FALSE(p.containerPort.has_value());
}

}  // namespace
}  // namespace kube::api
