// Tests of the generated API types against real-shaped objects (testdata/), and of the
// rules the generator follows (presence, defaults, unknown fields, error paths).
#include <fstream>
#include <sstream>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <kube/api/apiextensions/v1.hpp>
#include <kube/api/apps/v1.hpp>
#include <kube/api/batch/v1.hpp>
#include <kube/api/codec.hpp>
#include <kube/api/core/v1.hpp>
#include <kube/api/equality.hpp>
#include <kube/api/meta/v1.hpp>
#include <kube/api/networking/v1.hpp>
#include <kube/api/object.hpp>
#include <kube/api/rbac/v1.hpp>

namespace kube::api {
namespace {

namespace corev1 = ::kube::api::core::v1;
namespace appsv1 = ::kube::api::apps::v1;
namespace metav1 = ::kube::api::meta::v1;

std::string Fixture(const std::string& name) {
  std::ifstream in(std::string(KUBE_TESTDATA_DIR) + "/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A member whose value is null is the same as an absent one for every Kubernetes field (Go
// writes `"lastProbeTime":null` for a zero metav1.Time value; the typed codec omits it).
void StripNulls(boost::json::value& v) {
  if (auto* o = v.if_object()) {
    for (auto it = o->begin(); it != o->end();) {
      if (it->value().is_null()) {
        it = o->erase(it);
      } else {
        StripNulls(it->value());
        ++it;
      }
    }
  } else if (auto* a = v.if_array()) {
    for (auto& e : *a) StripNulls(e);
  }
}

// The first place where `want` and `got` differ, as a JSON path ("" when equal).
std::string FirstDifference(const boost::json::value& want, const boost::json::value& got, const std::string& path) {
  if (want.kind() != got.kind()) return path + " (kind)";
  if (const auto* w = want.if_object()) {
    const auto& g = got.get_object();
    for (const auto& [k, v] : *w) {
      const auto* other = g.if_contains(k);
      if (!other) return path + "." + std::string(k) + " (missing)";
      if (auto d = FirstDifference(v, *other, path + "." + std::string(k)); !d.empty()) return d;
    }
    for (const auto& [k, v] : g) {
      if (!w->contains(k)) return path + "." + std::string(k) + " (extra)";
    }
    return "";
  }
  if (const auto* w = want.if_array()) {
    const auto& g = got.get_array();
    if (w->size() != g.size()) return path + " (length)";
    for (std::size_t i = 0; i < w->size(); ++i) {
      if (auto d = FirstDifference((*w)[i], g[i], path + "[" + std::to_string(i) + "]"); !d.empty()) return d;
    }
    return "";
  }
  return want == got ? "" : path + " (" + boost::json::serialize(want) + " vs " + boost::json::serialize(got) + ")";
}

// Equal as JSON values: member order ignored, null members taken as absent.
void ExpectSameJson(std::string_view want, std::string_view got) {
  auto w = boost::json::parse(want);
  auto g = boost::json::parse(got);
  StripNulls(w);
  StripNulls(g);
  EXPECT_EQ(FirstDifference(w, g, ""), "");
}

template <class T>
void ExpectExactRoundTrip(const std::string& fixture) {
  const std::string json = Fixture(fixture);
  auto decoded = FromJson<T>(json);
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  const std::string encoded = ToJson(*decoded);
  ExpectSameJson(json, encoded);
  auto again = FromJson<T>(encoded);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(*again, *decoded);
  EXPECT_EQ(ToJson(*again), encoded);  // encoding is deterministic
}

TEST(GeneratedTypes, Pod4kRoundTripsExactly) { ExpectExactRoundTrip<corev1::Pod>("pod_4k.json"); }
TEST(GeneratedTypes, Pod15kRoundTripsExactly) { ExpectExactRoundTrip<corev1::Pod>("pod_15k.json"); }
TEST(GeneratedTypes, DeploymentRoundTripsExactly) {
  ExpectExactRoundTrip<appsv1::Deployment>("deployment_15k.json");
}

TEST(GeneratedTypes, FieldsAreTyped) {
  auto pod = FromJson<corev1::Pod>(Fixture("pod_4k.json"));
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(pod->metadata.name, "web-7d4b9c8f6d-x2k9p");
  EXPECT_EQ(pod->metadata.namespace_, "production");
  EXPECT_EQ(pod->metadata.labels.at("app"), "web");
  ASSERT_EQ(pod->metadata.ownerReferences.size(), 1u);
  EXPECT_EQ(pod->metadata.ownerReferences[0].controller, true);
  const corev1::Container& app = pod->spec.containers.at(0);
  EXPECT_EQ(app.image, "registry.example.com/team/web:1.27.3");
  EXPECT_EQ(app.ports.at(0).containerPort, 8080);
  EXPECT_EQ(app.resources.limits.at("cpu"), Quantity::FromMilli(500, Quantity::Format::kDecimalSI));
  EXPECT_EQ(app.resources.limits.at("memory").Value(), 256 * 1024 * 1024);
  ASSERT_TRUE(pod->metadata.creationTimestamp.has_value());
  EXPECT_EQ(ToJson(*pod->metadata.creationTimestamp), R"("2026-11-02T10:15:30Z")");
}

TEST(GeneratedTypes, KindsCarryTheirResourceTraits) {
  static_assert(appsv1::Deployment::kApiVersion == "apps/v1");
  static_assert(appsv1::Deployment::kResource == "deployments");
  static_assert(appsv1::Deployment::kNamespaced);
  static_assert(appsv1::Deployment::kHasStatus && appsv1::Deployment::kHasScale);
  static_assert(std::is_same_v<appsv1::Deployment::List, appsv1::DeploymentList>);
  static_assert(corev1::Namespace::kApiVersion == "v1" && !corev1::Namespace::kNamespaced);
  static_assert(corev1::ConfigMap::kResource == "configmaps" && !corev1::ConfigMap::kHasStatus);
  static_assert(::kube::api::rbac::v1::ClusterRole::kGroup == "rbac.authorization.k8s.io");
  static_assert(::kube::api::networking::v1::Ingress::kResource == "ingresses");
  static_assert(::kube::api::batch::v1::CronJob::kResource == "cronjobs");
}

TEST(GeneratedTypes, NewObjectsEncodeTheirTypeMetaAndOmitWhatIsUnset) {
  appsv1::Deployment d;
  d.metadata.name = "web";
  d.metadata.namespace_ = "default";
  d.spec.replicas = 3;
  d.spec.selector.matchLabels = {{"app", "web"}};
  d.spec.template_.metadata = metav1::ObjectMeta{.labels = {{"app", "web"}}};
  d.spec.template_.spec.containers.push_back(corev1::Container{.image = "nginx", .name = "web"});
  EXPECT_EQ(ToJson(d),
            R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},)"
            R"("spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"strategy":{},)"
            R"("template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"image":"nginx","name":"web","resources":{}}]}}},)"
            R"("status":{}})");
}

TEST(GeneratedTypes, ExplicitZeroValuesSurviveTheRoundTrip) {
  // replicas: 0 and paused: false are not the same as absent.
  auto spec = FromJson<appsv1::DeploymentSpec>(
      R"({"replicas":0,"paused":false,"selector":{},"template":{}})");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->replicas, 0);
  EXPECT_EQ(spec->paused, false);
  EXPECT_FALSE(spec->minReadySeconds.has_value());
  EXPECT_EQ(ToJson(*spec),
            R"({"paused":false,"replicas":0,"selector":{},"strategy":{},"template":{"metadata":{},"spec":{"containers":[]}}})");
}

TEST(GeneratedTypes, UnknownFieldsOfANewerServerArePreservedAtEveryLevel) {
  const std::string json =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","futureMeta":{"x":1}},)"
      R"("data":{"k":"v"},"futureTop":[1,2,3]})";
  auto cm = FromJson<corev1::ConfigMap>(json);
  ASSERT_TRUE(cm.ok()) << cm.error().message;
  EXPECT_EQ(cm->unknown_fields.raw(), R"("futureTop":[1,2,3])");
  EXPECT_EQ(cm->metadata.unknown_fields.raw(), R"("futureMeta":{"x":1})");
  cm->data["k2"] = "v2";
  ExpectSameJson(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","futureMeta":{"x":1}},)"
                 R"("data":{"k":"v","k2":"v2"},"futureTop":[1,2,3]})",
                 ToJson(*cm));
}

TEST(GeneratedTypes, ErrorNamesTheFullJsonPath) {
  std::string json = Fixture("pod_4k.json");
  auto pod = FromJson<corev1::Pod>(json);
  ASSERT_TRUE(pod.ok());
  // Make a second container whose first port has a string containerPort.
  corev1::Container second = pod->spec.containers.at(0);
  second.name = "sidecar";
  pod->spec.containers.push_back(second);
  std::string text = ToJson(*pod);
  const std::string needle = R"("containerPort":8080)";
  const auto first = text.find(needle);
  const auto at = text.find(needle, first + 1);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, needle.size(), R"("containerPort":"8080")");
  auto bad = FromJson<corev1::Pod>(text);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, 400);
  EXPECT_EQ(bad.error().message.rfind("spec.containers[1].ports[0].containerPort: expected integer, found string at ", 0), 0u)
      << bad.error().message;
}

TEST(GeneratedTypes, BadValueTypesAreErrorsNotDefaults) {
  struct Case {
    const char* json;
    const char* prefix;
  };
  for (const Case& c : {
           Case{R"({"spec":{"replicas":"3"}})", "spec.replicas: expected integer, found string"},
           Case{R"({"spec":{"replicas":3000000000}})", "spec.replicas: value 3000000000 out of range for int32"},
           Case{R"({"spec":{"template":{"spec":{"containers":[{"name":"a","resources":{"limits":{"cpu":"lots"}}}]}}}})",
                "spec.template.spec.containers[0].resources.limits[cpu]: quantities must match the regular expression"},
           Case{R"({"metadata":{"creationTimestamp":"noon"}})", "metadata.creationTimestamp: parsing time \"noon\""},
           Case{R"({"spec":{"strategy":{"rollingUpdate":{"maxSurge":true}}}})",
                "spec.strategy.rollingUpdate.maxSurge: expected integer or string, found boolean"},
           Case{R"({"metadata":{"labels":["a"]}})", "metadata.labels: expected object, found array"},
           Case{R"({"spec":[]})", "spec: expected object, found array"},
       }) {
    auto d = FromJson<appsv1::Deployment>(c.json);
    ASSERT_FALSE(d.ok()) << c.json;
    EXPECT_EQ(d.error().message.rfind(c.prefix, 0), 0u) << d.error().message;
  }
}

TEST(GeneratedTypes, BytesFieldsAreDecodedBase64) {
  auto secret = FromJson<corev1::Secret>(R"({"data":{"password":"aHVudGVyMg=="},"type":"Opaque"})");
  ASSERT_TRUE(secret.ok()) << secret.error().message;
  EXPECT_EQ(secret->data.at("password"), "hunter2");
  EXPECT_EQ(ToJson(*secret), R"({"apiVersion":"v1","kind":"Secret","metadata":{},"data":{"password":"aHVudGVyMg=="},"type":"Opaque"})");
  auto bad = FromJson<corev1::Secret>(R"({"data":{"password":"!!"}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("data[password]: illegal base64 data", 0), 0u) << bad.error().message;
}

TEST(GeneratedTypes, RecursiveSchemaPropsAreBoxed) {
  const std::string json =
      R"({"type":"object","properties":{"spec":{"type":"object","not":{"required":["x"]},)"
      R"("x-kubernetes-preserve-unknown-fields":true}},"default":{"a":1}})";
  auto schema = FromJson<::kube::api::apiextensions::v1::JSONSchemaProps>(json);
  ASSERT_TRUE(schema.ok()) << schema.error().message;
  const auto& spec = schema->properties.at("spec");
  ASSERT_TRUE(spec.not_.has_value());
  EXPECT_EQ(spec.not_->required, std::vector<std::string>{"x"});
  EXPECT_EQ(spec.x_kubernetes_preserve_unknown_fields, true);
  EXPECT_EQ(schema->default_->raw, R"({"a":1})");
  ExpectSameJson(json, ToJson(*schema));
}

// A generated type's boxes copy and delete through the functions compiled in its library; a
// user's type boxes inline. Both keep value semantics.
struct LocalValue {
  std::string s;
  bool operator==(const LocalValue&) const = default;
};
template <class T>
constexpr bool kOutOfLineBox = requires(const T& v, T* p) {
  BoxClone(v);
  BoxDestroy(p);
};
static_assert(kOutOfLineBox<corev1::Probe>);
static_assert(kOutOfLineBox<appsv1::DeploymentSpec>);
static_assert(!kOutOfLineBox<LocalValue>);

TEST(GeneratedTypes, BoxesOfGeneratedAndUserTypesCopyDeeply) {
  corev1::Container c;
  c.livenessProbe.emplace().initialDelaySeconds = 5;
  corev1::Container copy = c;
  copy.livenessProbe->initialDelaySeconds = 6;
  EXPECT_EQ(c.livenessProbe->initialDelaySeconds, 5);
  EXPECT_NE(c, copy);
  copy = c;
  EXPECT_EQ(c, copy);
  copy.livenessProbe.reset();
  EXPECT_FALSE(copy.livenessProbe.has_value());
  EXPECT_NE(c, copy);

  Box<LocalValue> a(LocalValue{"x"});
  Box<LocalValue> b = a;
  b->s = "y";
  EXPECT_EQ(a->s, "x");
  EXPECT_FALSE(a == b);
}

TEST(GeneratedTypes, ListsDecodeTheirItems) {
  auto list = FromJson<corev1::PodList>(
      R"({"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"42","continue":"abc"},)"
      R"("items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]})");
  ASSERT_TRUE(list.ok()) << list.error().message;
  EXPECT_EQ(list->metadata.resourceVersion, "42");
  EXPECT_EQ(list->metadata.continue_, "abc");
  ASSERT_EQ(list->items.size(), 2u);
  EXPECT_EQ(list->items[1].metadata.name, "b");
}

TEST(GeneratedTypes, SemanticEqualityComparesQuantitiesByValue) {
  auto a = FromJson<corev1::ResourceRequirements>(R"({"limits":{"cpu":"1","memory":"1Gi"}})");
  auto b = FromJson<corev1::ResourceRequirements>(R"({"limits":{"cpu":"1000m","memory":"1024Mi"}})");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(SemanticEqual(*a, *b));
  auto c = FromJson<corev1::ResourceRequirements>(R"({"limits":{"cpu":"1001m","memory":"1Gi"}})");
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(SemanticEqual(*a, *c));
  // An absent list equals an empty one; an absent optional scalar does not equal zero.
  auto absent = FromJson<corev1::PodSpec>(R"({"containers":[{"name":"a"}]})");
  auto empty = FromJson<corev1::PodSpec>(R"({"containers":[{"name":"a","args":[],"env":[]}],"volumes":[]})");
  ASSERT_TRUE(absent.ok() && empty.ok());
  EXPECT_TRUE(SemanticEqual(*absent, *empty));
  auto zero = FromJson<corev1::PodSpec>(R"({"containers":[{"name":"a"}],"priority":0})");
  ASSERT_TRUE(zero.ok());
  EXPECT_FALSE(SemanticEqual(*absent, *zero));
}

TEST(GeneratedTypes, DecodedKeepsOneSharedValuePerObjectVersion) {
  auto obj = Object::Parse(Fixture("pod_4k.json"));
  ASSERT_TRUE(obj.ok());
  auto a = Decoded<corev1::Pod>(*obj);
  auto b = Decoded<corev1::Pod>(*obj);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->get(), b->get());
  EXPECT_EQ((*a)->metadata.name, "web-7d4b9c8f6d-x2k9p");
  // Read as another type: decoded, not kept.
  auto meta = Decoded<corev1::ConfigMap>(*obj);
  auto meta2 = Decoded<corev1::ConfigMap>(*obj);
  ASSERT_TRUE(meta.ok() && meta2.ok());
  EXPECT_NE(meta->get(), meta2->get());
  EXPECT_EQ((*meta)->metadata.name, "web-7d4b9c8f6d-x2k9p");
  // The value outlives the object.
  std::shared_ptr<const corev1::Pod> kept = *a;
  obj->reset();
  EXPECT_EQ(kept->spec.containers.at(0).name, "app");
}

}  // namespace
}  // namespace kube::api
