// The transcoder on messages built here with a minimal encoder, in the shapes Go's generated
// marshallers produce (every non-pointer field written, zero or not): the corners the fixtures
// read from kube-apiserver do not reach (pointers set to zero, packed integers, negative int32,
// inlined structs, field numbers past protobuf's limit).

#include <kube/core/protobuf.hpp>

#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include <kube/base/result.hpp>

#include <boost/json.hpp>

namespace kube::protobuf {
namespace {

namespace bj = boost::json;

// A protobuf message under construction.
class Msg {
 public:
  Msg& Varint(std::uint32_t field, std::uint64_t v) {
    Tag(field, 0);
    Raw(v);
    return *this;
  }
  Msg& Bytes(std::uint32_t field, std::string_view v) {
    Tag(field, 2);
    Raw(v.size());
    out_.append(v);
    return *this;
  }
  Msg& Sub(std::uint32_t field, const Msg& m) { return Bytes(field, m.out_); }
  // A map<string, string|bytes> entry.
  Msg& Entry(std::uint32_t field, std::string_view k, std::string_view v) {
    return Sub(field, Msg().Bytes(1, k).Bytes(2, v));
  }
  const std::string& str() const { return out_; }

 private:
  void Tag(std::uint32_t field, int wire) { Raw((static_cast<std::uint64_t>(field) << 3) | static_cast<unsigned>(wire)); }
  void Raw(std::uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  std::string out_;
};

// The envelope: "k8s\0" + runtime.Unknown{typeMeta, raw, contentEncoding, contentType}.
std::string Envelope(std::string_view api_version, std::string_view kind, const Msg& object) {
  Msg unknown;
  unknown.Sub(1, Msg().Bytes(1, api_version).Bytes(2, kind)).Bytes(2, object.str()).Bytes(3, "").Bytes(4, "");
  return std::string("k8s\0", 4) + unknown.str();
}

// ObjectMeta as Go writes it for a new object: all non-pointer strings, generation 0, zero Time.
Msg Meta(std::string_view name) {
  Msg m;
  m.Bytes(1, name).Bytes(2, "").Bytes(3, "").Bytes(4, "").Bytes(5, "").Bytes(6, "").Varint(7, 0).Sub(8, Msg());
  return m;
}

// ToJson, parsed.
Result<bj::value> DecodeProtobufObject(std::string_view body) {
  auto text = ToJson(body);
  if (!text.ok()) return std::move(text).error();
  return bj::parse(*text);
}

bj::value Decode(const std::string& body) {
  auto v = DecodeProtobufObject(body);
  EXPECT_TRUE(v.ok()) << v.error().message;
  return v.ok() ? *v : bj::value();
}

// Zero values of omitempty fields are left out; a zero Time is Go's `null`.
TEST(ProtobufDecode, ConfigMapWithZeroValuesOmitted) {
  Msg cm;
  cm.Sub(1, Meta("cm").Entry(11, "app", "web")).Entry(2, "a", "b").Entry(2, "empty", "").Entry(3, "bin", "\x01\x02");
  const bj::value v = Decode(Envelope("v1", "ConfigMap", cm));
  EXPECT_EQ(bj::serialize(v),
            R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm","creationTimestamp":null,"labels":{"app":"web"}},)"
            R"("data":{"a":"b","empty":""},"binaryData":{"bin":"AQI="}})");
}

TEST(ProtobufDecode, SecretBytesAreBase64AndPointerBoolKept) {
  Msg secret;
  secret.Sub(1, Meta("s")).Entry(2, "pw", "s3cr3t").Bytes(3, "Opaque").Varint(5, 0);
  const bj::value v = Decode(Envelope("v1", "Secret", secret));
  EXPECT_EQ(bj::serialize(v.at("data")), R"({"pw":"czNjcjN0"})");
  EXPECT_EQ(v.at("type"), "Opaque");
  EXPECT_EQ(v.at("immutable"), false);  // *bool set to false stays
}

TEST(ProtobufDecode, DeploymentPointersIntOrStringQuantityInlineAndTime) {
  Msg container;
  container.Bytes(1, "c").Bytes(2, "nginx").Bytes(5, "")
      .Sub(6, Msg().Bytes(1, "").Varint(2, 0).Varint(3, 80).Bytes(4, "TCP").Bytes(5, ""))
      .Sub(7, Msg().Bytes(1, "FROM").Bytes(2, "").Sub(3, Msg().Sub(3, Msg().Sub(1, Msg().Bytes(1, "cfg")).Bytes(2, "k"))))
      .Sub(8, Msg().Sub(1, Msg().Bytes(1, "cpu").Sub(2, Msg().Bytes(1, "500m"))))
      .Varint(16, 0);
  Msg pod_spec;
  pod_spec.Sub(1, Msg().Bytes(1, "data").Sub(2, Msg().Sub(2, Msg().Bytes(1, "Memory"))))
      .Sub(2, container)
      .Bytes(3, "Always")
      .Varint(4, 30);
  Msg spec;
  spec.Varint(1, 0)  // replicas: 0 (a pointer)
      .Sub(2, Msg().Entry(1, "app", "d"))
      .Sub(3, Msg().Sub(1, Meta("")).Sub(2, pod_spec))
      .Sub(4, Msg().Bytes(1, "RollingUpdate")
                  .Sub(2, Msg().Sub(1, Msg().Varint(1, 1).Varint(2, 0).Bytes(3, "25%"))
                              .Sub(2, Msg().Varint(1, 0).Varint(2, 2).Bytes(3, ""))))
      .Varint(5, 0)
      .Varint(7, 0);
  Msg meta = Meta("d");
  meta.Sub(9, Msg().Varint(1, 1764460800).Varint(2, 0));  // deletionTimestamp
  meta.Sub(13, Msg().Bytes(1, "ReplicaSet").Bytes(3, "o").Bytes(4, "u").Bytes(5, "apps/v1").Varint(6, 1));
  Msg deployment;
  deployment.Sub(1, meta).Sub(2, spec).Sub(3, Msg().Varint(1, 0).Varint(2, 0));
  const bj::value v = Decode(Envelope("apps/v1", "Deployment", deployment));
  EXPECT_EQ(bj::serialize(v.at("spec")),
            R"({"replicas":0,"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"creationTimestamp":null},"spec":{)"
            R"("volumes":[{"name":"data","emptyDir":{"medium":"Memory"}}],"containers":[{"name":"c","image":"nginx",)"
            R"("ports":[{"containerPort":80,"protocol":"TCP"}],"env":[{"name":"FROM","valueFrom":{"configMapKeyRef":)"
            R"({"name":"cfg","key":"k"}}}],"resources":{"limits":{"cpu":"500m"}}}],"restartPolicy":"Always",)"
            R"("terminationGracePeriodSeconds":30}},"strategy":{"type":"RollingUpdate","rollingUpdate":)"
            R"({"maxUnavailable":"25%","maxSurge":2}}})");
  EXPECT_EQ(v.at("metadata").at("deletionTimestamp"), "2025-11-30T00:00:00Z");
  EXPECT_EQ(bj::serialize(v.at("metadata").at("ownerReferences")),
            R"([{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"o","uid":"u","controller":true}])");
  EXPECT_EQ(bj::serialize(v.at("status")), "{}");
}

TEST(ProtobufDecode, ManagedFieldsKeepTheirRawJson) {
  Msg entry;
  entry.Bytes(1, "kubectl").Bytes(2, "Update").Bytes(3, "v1").Bytes(6, "FieldsV1")
      .Sub(7, Msg().Bytes(1, R"({"f:data":{"f:a":{}}})"));
  Msg cm;
  cm.Sub(1, Meta("cm").Sub(17, entry));
  const bj::value v = Decode(Envelope("v1", "ConfigMap", cm));
  EXPECT_EQ(bj::serialize(v.at("metadata").at("managedFields")),
            R"([{"manager":"kubectl","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1",)"
            R"("fieldsV1":{"f:data":{"f:a":{}}}}])");
}

TEST(ProtobufDecode, RbacAndPackedRepeatedIntegers) {
  Msg role;
  role.Sub(1, Meta("r")).Sub(2, Msg().Bytes(1, "get").Bytes(1, "list").Bytes(2, "").Bytes(3, "pods"));
  EXPECT_EQ(bj::serialize(Decode(Envelope("rbac.authorization.k8s.io/v1", "Role", role)).at("rules")),
            R"([{"verbs":["get","list"],"apiGroups":[""],"resources":["pods"]}])");

  // PodSecurityContext.supplementalGroups, packed.
  std::string values;
  values.push_back(static_cast<char>(0xe8));
  values.push_back(static_cast<char>(0x07));  // 1000
  values.push_back(static_cast<char>(0x05));  // 5
  Msg pod;
  pod.Sub(1, Meta("p")).Sub(2, Msg().Sub(14, Msg().Bytes(4, values)));
  const bj::value v = Decode(Envelope("v1", "Pod", pod));
  EXPECT_EQ(bj::serialize(v.at("spec").at("securityContext")), R"({"supplementalGroups":[1000,5]})");
}

TEST(ProtobufDecode, NegativeInt32) {
  Msg pod;
  pod.Sub(1, Meta("p")).Sub(2, Msg().Varint(25, static_cast<std::uint64_t>(static_cast<std::int64_t>(-5))));
  EXPECT_EQ(Decode(Envelope("v1", "Pod", pod)).at("spec").at("priority"), -5);
}

// A field this build does not know is refused whole (415), never dropped; affinity, which a
// hand-written table once lacked, is known.
TEST(ProtobufDecode, UnknownFieldIsRejected) {
  Msg pod;
  pod.Sub(1, Meta("p")).Sub(2, Msg().Sub(2, Msg().Bytes(1, "c")).Sub(2, Msg().Bytes(1, "d").Bytes(99, "x")));
  auto v = DecodeProtobufObject(Envelope("v1", "Pod", pod));
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().code, 415);
  EXPECT_EQ(v.error().message, "protobuf field 99 of k8s.io.api.core.v1.Container is not known");

  Msg affinity;
  affinity.Sub(1, Meta("p")).Sub(2, Msg().Sub(18, Msg()));
  EXPECT_EQ(bj::serialize(Decode(Envelope("v1", "Pod", affinity)).at("spec").at("affinity")), "{}");
}

// With UnknownFields::kDrop (a server reading a request body), unknown fields of any wire type are
// skipped, in a message and in a map entry; the known ones are kept. PeekType reads the envelope.
TEST(ProtobufDecode, UnknownFieldsCanBeDropped) {
  Msg cm;
  cm.Sub(1, Meta("cm").Varint(99, 7))
      .Sub(2, Msg().Bytes(1, "a").Bytes(2, "b").Varint(3, 1))
      .Bytes(9, "x")
      .Varint(10, 5);
  const std::string body = Envelope("v1", "ConfigMap", cm);
  ASSERT_EQ(ToJson(body).error().code, 415);
  auto text = ToJson(body, UnknownFields::kDrop);
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ(*text, R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm","creationTimestamp":null},)"
                   R"("data":{"a":"b"}})");
  // Dropping does not make a malformed body acceptable.
  EXPECT_EQ(ToJson(body.substr(0, body.size() - 1), UnknownFields::kDrop).error().code, 400);
  auto type = PeekType(body);
  ASSERT_TRUE(type.ok());
  EXPECT_EQ(type->api_version, "v1");
  EXPECT_EQ(type->kind, "ConfigMap");
  EXPECT_EQ(PeekType("k8s").error().code, 400);
}

// The small messages read whole (Time, Quantity, IntOrString, ...) know their own fields only:
// Time has seconds and nanos, so a field 3 is unknown.
TEST(ProtobufDecode, AnUnknownFieldOfASmallMessageIsRefusedOrDropped) {
  Msg meta = Meta("cm");
  meta.Sub(9, Msg().Varint(1, 1764460800).Varint(3, 1));  // deletionTimestamp with a field 3
  const std::string body = Envelope("v1", "ConfigMap", Msg().Sub(1, meta));
  auto refused = ToJson(body);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, 415);
  EXPECT_EQ(refused.error().message, "protobuf field 3 of k8s.io.apimachinery.pkg.apis.meta.v1.Time is not known");
  auto dropped = ToJson(body, UnknownFields::kDrop);
  ASSERT_TRUE(dropped.ok()) << dropped.error().message;
  EXPECT_EQ(bj::parse(*dropped).at_pointer("/metadata/deletionTimestamp"), "2025-11-30T00:00:00Z");
}

TEST(ProtobufDecode, UnknownKindIs415) {
  auto v = DecodeProtobufObject(Envelope("batch/v1", "Gadget", Msg().Sub(1, Meta("j"))));
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().code, 415);
  EXPECT_EQ(v.error().message, "protobuf is not known for batch/v1, Kind=Gadget");
  EXPECT_EQ(Decode(Envelope("batch/v1", "Job", Msg().Sub(1, Meta("j")))).at("kind"), "Job");
  EXPECT_TRUE(KnowsKind("apps/v1", "Deployment"));
  EXPECT_FALSE(KnowsKind("example.com/v1", "Widget"));
}

TEST(ProtobufDecode, MalformedBodiesAre400) {
  const std::string good = Envelope("v1", "ConfigMap", Msg().Sub(1, Meta("cm")).Entry(2, "a", "b"));
  EXPECT_EQ(DecodeProtobufObject("{\"kind\":\"ConfigMap\"}").error().code, 400);  // no magic
  // (The envelope's last 4 bytes are the empty contentEncoding and contentType: optional.)
  for (std::size_t cut = 4; cut < good.size() - 4; ++cut) {
    auto v = DecodeProtobufObject(good.substr(0, cut));
    EXPECT_FALSE(v.ok()) << "truncated at " << cut;
    if (!v.ok()) {
      EXPECT_EQ(v.error().code, 400) << "truncated at " << cut << ": " << v.error().message;
    }
  }
  // A string field sent as a varint.
  auto wrong = DecodeProtobufObject(Envelope("v1", "ConfigMap", Msg().Sub(1, Msg().Varint(1, 7))));
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().code, 400);
  EXPECT_EQ(wrong.error().message, "malformed protobuf: field name of k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta has the wrong wire type");
  // Strings must be UTF-8 (the stored JSON must parse back).
  for (std::string_view bad : {std::string_view("\xff"), std::string_view("a\xc0\x80"), std::string_view("\xed\xa0\x80"),
                               std::string_view("\xe2\x82")}) {
    auto v = DecodeProtobufObject(Envelope("v1", "ConfigMap", Msg().Sub(1, Meta("cm")).Entry(2, "k", bad)));
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.error().message, "malformed protobuf: a string that is not valid UTF-8");
  }
  auto key = DecodeProtobufObject(Envelope("v1", "ConfigMap", Msg().Sub(1, Meta("cm")).Entry(2, "\xff", "v")));
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(key.error().code, 400);
  EXPECT_TRUE(DecodeProtobufObject(Envelope("v1", "ConfigMap", Msg().Sub(1, Meta("cm")).Entry(2, "k", "h\xc3\xa9 \xf0\x9f\x98\x80"))).ok());
  // A field number above protobuf's limit must not wrap onto a real field (2^32 + 2 -> data).
  std::string wrapped = Msg().Sub(1, Meta("cm")).str();
  for (std::uint64_t tag = (((1ull << 32) + 2) << 3) | 2; ; tag >>= 7) {
    if (tag < 0x80) {
      wrapped.push_back(static_cast<char>(tag));
      break;
    }
    wrapped.push_back(static_cast<char>((tag & 0x7f) | 0x80));
  }
  wrapped += std::string("\x06\x0a\x01k\x12\x01v");
  auto wrapped_result = DecodeProtobufObject(
      std::string("k8s\0", 4) + Msg().Sub(1, Msg().Bytes(1, "v1").Bytes(2, "ConfigMap")).Bytes(2, wrapped).str());
  ASSERT_FALSE(wrapped_result.ok());
  EXPECT_EQ(wrapped_result.error().code, 400);
  EXPECT_EQ(wrapped_result.error().message, "malformed protobuf: invalid field number 4294967298");
  // An overlong varint.
  auto overlong = DecodeProtobufObject(std::string("k8s\0", 4) + std::string(11, '\xff'));
  ASSERT_FALSE(overlong.ok());
  EXPECT_EQ(overlong.error().code, 400);
  // Managed fields that are not JSON.
  auto bad_json = DecodeProtobufObject(
      Envelope("v1", "ConfigMap", Msg().Sub(1, Meta("cm").Sub(17, Msg().Sub(7, Msg().Bytes(1, "{nope"))))));
  ASSERT_FALSE(bad_json.ok());
  EXPECT_EQ(bad_json.error().code, 400);
}

}  // namespace
}  // namespace kube::protobuf
