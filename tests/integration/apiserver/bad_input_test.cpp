// Bad input over real HTTP: malformed JSON, wrong kind/apiVersion for the URL, names that are not
// DNS-1123, oversized bodies, bad label/field selectors and bad continue tokens. Every case must
// answer a Status with the exact code and reason, and store nothing (the revision stays put and
// the existing objects are unchanged).

#include <string>
#include <vector>

#include "fixture.hpp"

namespace kube::apiserver::testing {
namespace {

constexpr std::string_view kCm = "/api/v1/namespaces/default/configmaps";

class BadInputTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    if (HasFatalFailure()) return;
    existing_ = CreateConfigMap("default", "existing", R"({"app":"a"})", R"({"k":"v"})");
    before_ = storage().CurrentRevision();
  }

  // Asserts a failure Status with `code` and `reason` (and the same HTTP status); `message`, when
  // not empty, must match exactly.
  static void ExpectStatus(const HttpResponse& res, int code, const std::string& reason,
                           const std::string& message = "") {
    EXPECT_EQ(res.status, code) << res.body;
    EXPECT_EQ(res.Header("content-type"), "application/json") << res.body;
    const boost::json::value body = res.Json();
    EXPECT_EQ(Str(body, {"kind"}), "Status") << res.body;
    EXPECT_EQ(Str(body, {"apiVersion"}), "v1") << res.body;
    EXPECT_EQ(Str(body, {"status"}), "Failure") << res.body;
    EXPECT_EQ(Str(body, {"code"}), std::to_string(code)) << res.body;
    EXPECT_EQ(Str(body, {"reason"}), reason) << res.body;
    EXPECT_NE(Str(body, {"message"}), "") << res.body;
    if (!message.empty()) {
      EXPECT_EQ(Str(body, {"message"}), message) << res.body;
    }
  }

  // Nothing was written since SetUp and `existing` is as created.
  void ExpectNothingStored() {
    EXPECT_EQ(storage().CurrentRevision(), before_);
    const HttpResponse got = client().Get(std::string(kCm) + "/existing");
    ASSERT_EQ(got.status, 200) << got.body;
    EXPECT_EQ(Rv(got.Json()), Rv(existing_));
    EXPECT_EQ(Str(got.Json(), {"data"}), R"({"k":"v"})");
    const HttpResponse list = client().Get(std::string(kCm));
    ASSERT_EQ(list.status, 200);
    EXPECT_EQ(list.Json().at("items").as_array().size(), 1u) << list.body;
  }

  std::string Existing() const { return std::string(kCm) + "/existing"; }
  // The existing object with `data` replaced, as a PUT body.
  std::string ExistingWith(const std::string& data_json) const {
    return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"existing","namespace":"default","resourceVersion":")" +
           Rv(existing_) + R"("},"data":)" + data_json + "}";
  }

  boost::json::object existing_;
  Revision before_ = 0;
};

TEST_F(BadInputTest, MalformedJsonBodies) {
  for (const std::string body : {R"({"metadata":{"name":"a"},)", R"({"metadata":)", "not json", R"({"a":1}})",
                                 "", R"({"metadata":{"name":"a"}} trailing)"}) {
    SCOPED_TRACE(body);
    ExpectStatus(client().Post(std::string(kCm), body), 400, "BadRequest");
    ExpectStatus(client().Put(Existing(), body), 400, "BadRequest");
  }
  // Valid JSON of the wrong shape.
  ExpectStatus(client().Post(std::string(kCm), "[1,2]"), 400, "BadRequest",
               "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" } (5b312c325d)");
  ExpectStatus(client().Post(std::string(kCm), R"({"metadata":{"name":"a","labels":["x"]}})"), 400, "BadRequest");
  ExpectStatus(client().Post(std::string(kCm), R"({"metadata":{"name":"a"},"data":{"k":1}})"), 400, "BadRequest",
               "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go "
               "struct field ConfigMap.data of type string");
  ExpectStatus(client().Put(Existing(), ExistingWith(R"({"k":true})")), 400, "BadRequest");

  // Malformed patch documents, per patch type.
  ExpectStatus(client().Patch(Existing(), R"({"data":)", "application/merge-patch+json"), 400, "BadRequest");
  ExpectStatus(client().Patch(Existing(), R"([{"op":"add")", "application/json-patch+json"), 400, "BadRequest");
  ExpectStatus(client().Patch(Existing(), R"({"op":"add","path":"/data/x","value":"1"})", "application/json-patch+json"),
               400, "BadRequest");
  // An unknown op decodes fine and fails when applied: kube's generic 422 (like a failed `test`).
  ExpectStatus(client().Patch(Existing(), R"([{"op":"frobnicate","path":"/data/k"}])", "application/json-patch+json"),
               422, "Invalid", "the server rejected our request due to an error in our request");
  // A patch whose result Go cannot decode into a ConfigMap: kube's 422 on the field `patch`.
  ExpectStatus(client().Patch(Existing(), R"({"data":{"k":5}})", "application/merge-patch+json"), 422, "Invalid");
  ExpectStatus(client().Patch(Existing(), R"({"data":{"k":5}})", "application/strategic-merge-patch+json"), 422,
               "Invalid", R"( "" is invalid: patch: Invalid value: "map[data:map[k:5]]": cannot convert int64 to string)");
  ExpectStatus(client().Patch(Existing(), R"([{"op":"test","path":"/data/k","value":"other"}])",
                              "application/json-patch+json"),
               422, "Invalid", "the server rejected our request due to an error in our request");
  // A strategic merge patch must be a JSON object.
  ExpectStatus(client().Patch(Existing(), R"(["x"])", "application/strategic-merge-patch+json"), 400, "BadRequest");
  ExpectStatus(client().Patch(Existing(), R"({"data":)", "application/strategic-merge-patch+json"), 400, "BadRequest");
  ExpectNothingStored();
}

// kube's protobuf envelope around a ConfigMap {metadata: {name: <2-char name>}, data: {a: b}}
// followed by the encoded fields `extra`.
std::string ProtobufConfigMap(std::string_view two_char_name, std::string_view kind = "ConfigMap",
                              std::string_view extra = "") {
  const std::string meta = "\x0a\x02" + std::string(two_char_name);
  const std::string cm = "\x0a\x04" + meta + std::string("\x12\x06\x0a\x01" "a" "\x12\x01" "b") + std::string(extra);
  const std::string type_meta = std::string("\x0a\x02v1\x12") + static_cast<char>(kind.size()) + std::string(kind);
  return std::string("k8s\0", 4) + "\x0a" + static_cast<char>(type_meta.size()) + type_meta + "\x12" +
         static_cast<char>(cm.size()) + cm;
}

// kube-apiserver v1.32's answers to the same bodies.
TEST_F(BadInputTest, ProtobufBodies) {
  const Headers protobuf{{"Content-Type", "application/vnd.kubernetes.protobuf"}};
  // Truncated, or the wrong or an unknown kind for the URL: 400, nothing stored.
  const std::string good = ProtobufConfigMap("pb");
  ExpectStatus(client().Request("POST", kCm, good.substr(0, good.size() - 3), protobuf), 400, "BadRequest",
               "the object provided is unrecognized (must be of type ConfigMap): malformed protobuf: truncated "
               "length-delimited field (6b3873000a0f0a0276311209436f6e6669674d6170120e0a040a02706212 ...)");
  ExpectStatus(client().Request("POST", kCm, ProtobufConfigMap("pb", "Secret"), protobuf), 400, "BadRequest",
               "Secret in version \"v1\" cannot be handled as a ConfigMap: converting (v1.Secret) to "
               "(core.ConfigMap): unknown conversion");
  ExpectStatus(client().Request("POST", kCm, ProtobufConfigMap("pb", "Gadget"), protobuf), 400, "BadRequest",
               "Gadget in version \"v1\" cannot be handled as a ConfigMap: no kind \"Gadget\" is registered for "
               "version \"v1\" in scheme \"pkg/runtime/scheme.go:100\"");
  ExpectNothingStored();

  // A well-formed one is created like JSON.
  const HttpResponse created = client().Request("POST", kCm, good, protobuf);
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(Str(created.Json(), {"data"}), R"({"a":"b"})");
  EXPECT_EQ(Str(created.Json(), {"metadata", "namespace"}), "default");

  // A field the server's types do not have (ConfigMap has no field 9) is dropped, as Go's
  // generated unmarshallers skip it.
  const HttpResponse unknown = client().Request("POST", kCm, ProtobufConfigMap("pq", "ConfigMap", "\x48\x01"), protobuf);
  ASSERT_EQ(unknown.status, 201) << unknown.body;
  EXPECT_EQ(Str(unknown.Json(), {"data"}), R"({"a":"b"})");
}

TEST_F(BadInputTest, WrongKindOrApiVersionForTheUrl) {
  ExpectStatus(client().Post(std::string(kCm), R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"a"}})"), 400,
               "BadRequest",
               "Secret in version \"v1\" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): "
               "unknown conversion");
  ExpectStatus(client().Post(std::string(kCm), R"({"apiVersion":"apps/v1","kind":"ConfigMap","metadata":{"name":"a"}})"),
               400, "BadRequest",
               "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: no kind \"ConfigMap\" is registered for "
               "version \"apps/v1\" in scheme \"pkg/runtime/scheme.go:100\"");
  ExpectStatus(client().Post("/apis/apps/v1/namespaces/default/deployments",
                             R"({"apiVersion":"v1","kind":"Deployment","metadata":{"name":"a"}})"),
               400, "BadRequest",
               "Deployment in version \"v1\" cannot be handled as a Deployment: no kind \"Deployment\" is registered for "
               "version \"v1\" in scheme \"pkg/runtime/scheme.go:100\"");
  ExpectStatus(client().Post("/apis/apps/v1/namespaces/default/deployments",
                             R"({"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"a"}})"),
               400, "BadRequest");
  ExpectStatus(client().Post("/api/v1/namespaces",
                             R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}})"),
               400, "BadRequest");
  // PUT with the wrong kind, and with a name or namespace that differs from the URL.
  ExpectStatus(client().Put(Existing(), R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"existing"}})"), 400,
               "BadRequest");
  ExpectStatus(client().Put(Existing(), R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"other"}})"), 400,
               "BadRequest", "the name of the object (other) does not match the name on the URL (existing)");
  ExpectStatus(client().Post(std::string(kCm), R"({"metadata":{"name":"a","namespace":"kube-system"}})"), 400,
               "BadRequest", "the namespace of the provided object does not match the namespace sent on the request");
  ExpectNothingStored();
}

TEST_F(BadInputTest, NamesThatAreNotDns1123) {
  const std::string subdomain_rule =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
      "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  for (const std::string name : {"Upper", "under_score", "-lead", "trail-", "dot..dot", "sp ace"}) {
    SCOPED_TRACE(name);
    const HttpResponse res = client().Post(std::string(kCm), R"({"metadata":{"name":")" + name + R"("}})");
    ExpectStatus(res, 422, "Invalid",
                 "ConfigMap \"" + name + "\" is invalid: metadata.name: Invalid value: \"" + name + "\": " + subdomain_rule);
    EXPECT_EQ(Str(res.Json(), {"details", "kind"}), "ConfigMap");
    EXPECT_EQ(Str(res.Json(), {"details", "name"}), name);
    std::string rule_json = boost::json::serialize(boost::json::value(subdomain_rule));
    rule_json = rule_json.substr(1, rule_json.size() - 2);  // without the quotes
    EXPECT_EQ(Str(res.Json(), {"details", "causes"}),
              R"([{"reason":"FieldValueInvalid","message":"Invalid value: \")" + name + R"(\": )" + rule_json +
                  R"(","field":"metadata.name"}])");
  }
  // Longer than 253 characters.
  const std::string long_name(254, 'a');
  const HttpResponse too_long = client().Post(std::string(kCm), R"({"metadata":{"name":")" + long_name + R"("}})");
  ExpectStatus(too_long, 422, "Invalid",
               "ConfigMap \"" + long_name + "\" is invalid: metadata.name: Invalid value: \"" + long_name +
                   "\": must be no more than 253 characters");
  // A slash in the body's name.
  ExpectStatus(client().Post(std::string(kCm), R"({"metadata":{"name":"a/b"}})"), 422, "Invalid");
  // Namespaces are DNS-1123 labels: no dots.
  ExpectStatus(client().Post("/api/v1/namespaces", R"({"metadata":{"name":"a.b"}})"), 422, "Invalid");
  // generateName must yield a valid name.
  ExpectStatus(client().Post(std::string(kCm), R"({"metadata":{"generateName":"Bad_"}})"), 422, "Invalid");
  // Invalid label keys and values.
  ExpectStatus(client().Post(std::string(kCm), R"({"metadata":{"name":"a","labels":{"bad key":"v"}}})"), 422, "Invalid");
  ExpectStatus(client().Post(std::string(kCm), R"({"metadata":{"name":"a","labels":{"k":"bad value!"}}})"), 422,
               "Invalid");
  ExpectNothingStored();
}

TEST_F(BadInputTest, BodiesAbove3MiBAre413) {
  const std::string pad(3 * 1024 * 1024, 'x');
  const std::string big = R"({"metadata":{"name":"big"},"data":{"k":")" + pad + "\"}}";
  ExpectStatus(client().Post(std::string(kCm), big), 413, "RequestEntityTooLarge", "Request entity too large: limit is 3145728");
  ExpectStatus(client().Put(Existing(), ExistingWith(R"({"k":")" + pad + "\"}")), 413, "RequestEntityTooLarge");
  ExpectStatus(client().Patch(Existing(), R"({"data":{"k":")" + pad + "\"}}", "application/merge-patch+json"), 413,
               "RequestEntityTooLarge");
  EXPECT_EQ(client().Get(std::string(kCm) + "/big").status, 404);
  ExpectNothingStored();
  // The connection is usable again afterwards: a normal request on a fresh connection succeeds.
  EXPECT_EQ(client().Get("/healthz").status, 200);
}

TEST_F(BadInputTest, BadLabelSelectors) {
  for (const std::string sel : {"env%20in%20prod", "a%3D%3D%3Db", "%21", "k%3Dbad%20value%21", "(x)", "a%20notin"}) {
    SCOPED_TRACE(sel);
    ExpectStatus(client().Get(std::string(kCm) + "?labelSelector=" + sel), 400, "BadRequest");
    ExpectStatus(client().Get(std::string(kCm) + "?watch=true&labelSelector=" + sel), 400, "BadRequest");
    ExpectStatus(client().Delete(std::string(kCm) + "?labelSelector=" + sel), 400, "BadRequest");
  }
  ExpectNothingStored();
}

TEST_F(BadInputTest, BadFieldSelectors) {
  const std::string unknown = R"("data.k" is not a known field selector: only "metadata.name", "metadata.namespace")";
  ExpectStatus(client().Get(std::string(kCm) + "?fieldSelector=data.k%3Dv"), 400, "BadRequest", unknown);
  ExpectStatus(client().Get("/api/v1/namespaces/default/pods?fieldSelector=spec.image%3Dx"), 400, "BadRequest",
               "field label not supported: spec.image");
  for (const std::string sel : {"nonsense", "metadata.name", "%3Dx"}) {
    SCOPED_TRACE(sel);
    ExpectStatus(client().Get(std::string(kCm) + "?fieldSelector=" + sel), 400, "BadRequest");
    ExpectStatus(client().Get(std::string(kCm) + "?watch=1&fieldSelector=" + sel), 400, "BadRequest");
    ExpectStatus(client().Delete(std::string(kCm) + "?fieldSelector=" + sel), 400, "BadRequest");
  }
  ExpectStatus(client().Get(std::string(kCm) + "?watch=1&fieldSelector=data.k%3Dv"), 400, "BadRequest", unknown);
  ExpectStatus(client().Delete(std::string(kCm) + "?fieldSelector=data.k%3Dv"), 400, "BadRequest", unknown);
  ExpectNothingStored();
}

TEST_F(BadInputTest, BadContinueTokens) {
  CreateConfigMap("default", "second");
  CreateConfigMap("default", "third");
  before_ = storage().CurrentRevision();
  const std::string prefix = "invalid continue token: continue key is not valid: ";
  ExpectStatus(client().Get(std::string(kCm) + "?limit=1&continue=%21%21"), 400, "BadRequest",
               prefix + "illegal base64 data at input byte 0");
  // base64 of `not json`.
  ExpectStatus(client().Get(std::string(kCm) + "?limit=1&continue=bm90IGpzb24"), 400, "BadRequest");
  // base64 of `[1]`.
  ExpectStatus(client().Get(std::string(kCm) + "?limit=1&continue=WzFd"), 400, "BadRequest",
               prefix + "json: cannot unmarshal array into Go value of type storage.continueToken");
  // base64 of {"v":"meta.k8s.io/v2","rv":1,"start":"a"}.
  ExpectStatus(client().Get(std::string(kCm) + "?limit=1&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjIiLCJydiI6MSwic3RhcnQiOiJhIn0"),
               400, "BadRequest", prefix + "server does not recognize this encoded version meta.k8s.io/v2");
  // base64 of {"v":"meta.k8s.io/v1","rv":1,"start":""}.
  ExpectStatus(client().Get(std::string(kCm) + "?limit=1&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiIifQ"),
               400, "BadRequest", prefix + "encoded start key empty (version meta.k8s.io/v1)");
  // base64 of {"v":"meta.k8s.io/v1","rv":1,"start":"../x"}: escapes the prefix.
  ExpectStatus(client().Get(std::string(kCm) + "?limit=1&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiIuLi94In0"),
               400, "BadRequest", prefix + "../x");
  // A valid token combined with a resourceVersion.
  const HttpResponse first = client().Get(std::string(kCm) + "?limit=1");
  ASSERT_EQ(first.status, 200) << first.body;
  const std::string token = Str(first.Json(), {"metadata", "continue"});
  ASSERT_NE(token, "");
  ExpectStatus(client().Get(std::string(kCm) + "?limit=1&resourceVersion=1&continue=" + token), 400, "BadRequest",
               "specifying resource version is not allowed when using continue");
  EXPECT_EQ(storage().CurrentRevision(), before_);
}

}  // namespace
}  // namespace kube::apiserver::testing
