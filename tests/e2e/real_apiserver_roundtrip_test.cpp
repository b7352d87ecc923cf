// Generated typed values round-tripped through the REAL kube-apiserver (v1.32 from envtest's
// KUBEBUILDER_ASSETS, with etcd): each object is created with TypedApi<T>::Create and read back;
// the typed value decoded from the server's raw response, encoded again with ToJson, must be the
// same JSON value as that response (no field dropped or altered), and an Update of the decoded
// value (one label changed) must change nothing else on the server. Quantities the server
// normalises ("1000m" -> "1") compare by value with what was sent.
// Skipped when KUBEBUILDER_ASSETS is unset.

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <kube/api/apps/v1.hpp>
#include <kube/api/batch/v1.hpp>
#include <kube/api/codec.hpp>
#include <kube/api/core/v1.hpp>
#include <kube/api/object.hpp>
#include <kube/api/networking/v1.hpp>
#include <kube/api/quantity.hpp>
#include <kube/api/rbac/v1.hpp>
#include <kube/client/dynamic_client.hpp>
#include <kube/client/rest_client.hpp>
#include <kube/client/typed_api.hpp>
#include <kube/client/watch.hpp>
#include <kube/testing/environment.hpp>


namespace kube::client {
namespace {

namespace json = boost::json;
namespace appsv1 = ::kube::api::apps::v1;
namespace batchv1 = ::kube::api::batch::v1;
namespace corev1 = ::kube::api::core::v1;
namespace netv1 = ::kube::api::networking::v1;
namespace rbacv1 = ::kube::api::rbac::v1;
using ::kube::api::Quantity;

constexpr const char* kLabel = "kubecpp.io/roundtrip";

std::string ReadTestdata(const std::string& name) {
  std::ifstream in(std::string(KUBE_TESTDATA_DIR) + "/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Quantity Q(const char* s) {
  auto q = Quantity::Parse(s);
  EXPECT_TRUE(q.ok()) << s;
  return q.ok() ? *q : Quantity();
}

// Every place where `server` and `ours` differ, as "path: server <json> | ours <json>".
void Diff(const json::value& server, const json::value& ours, const std::string& path,
          std::vector<std::string>& out) {
  if (out.size() >= 40) return;
  if (server.is_object() && ours.is_object()) {
    const json::object& a = server.get_object();
    const json::object& b = ours.get_object();
    for (const auto& [k, v] : a) {
      const std::string p = path + (path.empty() ? "" : ".") + std::string(k);
      if (const json::value* w = b.if_contains(k)) {
        Diff(v, *w, p, out);
      } else {
        out.push_back(p + ": server " + json::serialize(v) + " | ours (missing)");
      }
    }
    for (const auto& [k, w] : b) {
      if (!a.contains(k)) {
        out.push_back(path + (path.empty() ? "" : ".") + std::string(k) + ": server (missing) | ours " +
                      json::serialize(w));
      }
    }
    return;
  }
  if (server.is_array() && ours.is_array() && server.get_array().size() == ours.get_array().size()) {
    for (std::size_t i = 0; i < server.get_array().size(); ++i) {
      Diff(server.get_array()[i], ours.get_array()[i], path + "[" + std::to_string(i) + "]", out);
    }
    return;
  }
  if (server != ours) out.push_back(path + ": server " + json::serialize(server) + " | ours " + json::serialize(ours));
}

std::string DiffText(const json::value& server, const json::value& ours) {
  std::vector<std::string> lines;
  Diff(server, ours, "", lines);
  std::string text;
  for (const std::string& l : lines) text += "  " + l + "\n";
  return text;
}

// `v` without the object members whose value is null. Go's encoder writes a zero metav1.Time as
// `null` (the `creationTimestamp: null` of every embedded ObjectMeta: pod templates, job
// templates); Go and our codec both decode null as absent, and our encoder omits absent members,
// so the two JSON texts are the same object. Nothing else is normalised.
json::value WithoutNulls(const json::value& v) {
  if (v.is_object()) {
    json::object out;
    for (const auto& [k, member] : v.get_object()) {
      if (!member.is_null()) out[k] = WithoutNulls(member);
    }
    return out;
  }
  if (v.is_array()) {
    json::array out;
    for (const json::value& item : v.get_array()) out.push_back(WithoutNulls(item));
    return out;
  }
  return v;
}

// The object with the fields an Update may change removed: metadata.resourceVersion,
// managedFields, generation and the test's label.
json::value WithoutUpdateFields(json::value v) {
  json::object& meta = v.as_object()["metadata"].as_object();
  meta.erase("resourceVersion");
  meta.erase("managedFields");
  meta.erase("generation");
  if (json::value* labels = meta.if_contains("labels")) {
    labels->as_object().erase(kLabel);
    if (labels->as_object().empty()) meta.erase("labels");
  }
  return v;
}

class RealApiServerRoundTrip : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const char* assets = std::getenv("KUBEBUILDER_ASSETS");
    if (assets == nullptr || *assets == '\0') return;
    started_ = true;
    auto env = kube::testing::TestEnvironment::Start({.control_plane = kube::testing::ControlPlane::kReal});
    if (!env.ok()) {
      start_error_ = env.error().message;
      return;
    }
    env_ = std::move(env).value();
    auto client = DynamicClient::Create(env_->config());
    if (!client.ok()) {
      start_error_ = client.error().message;
      return;
    }
    client_ = new DynamicClient(std::move(client).value());
  }
  static void TearDownTestSuite() {
    delete client_;
    client_ = nullptr;
    env_.reset();  // kube-apiserver, then etcd; removes the temp dir
  }
  void SetUp() override {
    if (!started_) GTEST_SKIP() << "KUBEBUILDER_ASSETS is not set (a directory with kube-apiserver and etcd)";
    ASSERT_EQ(start_error_, "");
  }

  static void CreateNamespace(const std::string& name) {
    corev1::Namespace ns;
    ns.metadata.name = name;
    auto created = TypedApi<corev1::Namespace>(*client_).Create(ns);
    ASSERT_TRUE(created.ok()) << name << ": " << created.error().message;
    CheckRoundTrip<corev1::Namespace>("", name);
  }

  // The raw body of GET on `name`.
  template <class T>
  static std::string RawGet(const std::string& ns, const std::string& name) {
    auto path = ResourcePath(ResourceOf<T>(), ns, name);
    EXPECT_TRUE(path.ok());
    if (!path.ok()) return {};
    auto r = client_->rest()->Do(Request{.method = "GET", .path = *path});
    EXPECT_TRUE(r.ok()) << *path << ": " << r.error().message;
    return r.ok() ? r->body : std::string();
  }

  // Reads the stored object (raw and through TypedApi::Get), checks that decode + ToJson gives
  // back the server's JSON, updates it with one label changed and checks that the server then
  // holds the same object but for that label, resourceVersion, managedFields and generation.
  // Returns the decoded value (as read before the update).
  template <class T>
  static T CheckRoundTrip(const std::string& ns, const std::string& name) {
    SCOPED_TRACE(std::string(T::kKind) + " " + (ns.empty() ? "" : ns + "/") + name);
    const std::string raw = RawGet<T>(ns, name);
    auto decoded = api::FromJson<T>(raw);
    EXPECT_TRUE(decoded.ok()) << decoded.error().message << "\nserver: " << raw;
    if (!decoded.ok()) return T{};
    const json::value server_json = WithoutNulls(json::parse(raw));
    const json::value our_json = json::parse(api::ToJson(*decoded));
    EXPECT_EQ(server_json, our_json) << "decode + ToJson differs from the server's response:\n"
                                     << DiffText(server_json, our_json);

    TypedApi<T> typed(*client_, ns);
    auto got = typed.Get(name);
    EXPECT_TRUE(got.ok()) << got.error().message;
    if (got.ok()) {
      EXPECT_TRUE(*got == *decoded) << "TypedApi::Get differs from the raw GET";
    }

    T changed = *decoded;
    changed.metadata.labels[kLabel] = "updated";
    auto updated = typed.Update(changed);
    EXPECT_TRUE(updated.ok()) << "Update: " << updated.error().message;
    if (!updated.ok()) return *decoded;
    EXPECT_EQ(updated->metadata.labels[kLabel], "updated");
    EXPECT_NE(updated->metadata.resourceVersion, decoded->metadata.resourceVersion);

    const std::string after_raw = RawGet<T>(ns, name);
    const json::value after = WithoutNulls(json::parse(after_raw));
    EXPECT_EQ(json::value_to<std::string>(after.at_pointer("/metadata/labels").at(kLabel)), "updated");
    const json::value before_cmp = WithoutUpdateFields(server_json);
    const json::value after_cmp = WithoutUpdateFields(after);
    EXPECT_EQ(before_cmp, after_cmp) << "the Update changed more than the label (server before | after):\n"
                                     << DiffText(before_cmp, after_cmp);
    // And the stored object after the update round-trips too.
    auto after_decoded = api::FromJson<T>(after_raw);
    EXPECT_TRUE(after_decoded.ok()) << after_decoded.error().message;
    if (after_decoded.ok()) {
      const json::value again = json::parse(api::ToJson(*after_decoded));
      EXPECT_EQ(after, again) << DiffText(after, again);
      EXPECT_TRUE(*updated == *after_decoded) << "Update's response differs from GET";
    }
    return *decoded;
  }

  // TypedApi<T>::Create, then CheckRoundTrip. Returns the decoded stored value.
  template <class T>
  static T CreateAndCheck(const T& object) {
    SCOPED_TRACE(std::string(T::kKind) + " " + object.metadata.name);
    const std::string ns = T::kNamespaced ? object.metadata.namespace_ : std::string();
    auto created = TypedApi<T>(*client_, ns).Create(object);
    EXPECT_TRUE(created.ok()) << "Create: " << created.error().message << "\nsent: " << api::ToJson(object);
    if (!created.ok()) return T{};
    T stored = CheckRoundTrip<T>(ns, object.metadata.name);
    EXPECT_TRUE(*created == stored) << "Create's response differs from GET";
    return stored;
  }

  // A testdata fixture without the server-owned metadata (so that Create accepts it), decoded as T.
  template <class T>
  static T Fixture(const std::string& file) {
    json::value v = json::parse(ReadTestdata(file));
    json::object& meta = v.as_object()["metadata"].as_object();
    for (const char* field : {"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation"}) {
      meta.erase(field);
    }
    auto typed = api::FromJson<T>(json::serialize(v));
    EXPECT_TRUE(typed.ok()) << file << ": " << typed.error().message;
    return typed.ok() ? *typed : T{};
  }

  static corev1::Container Container(const std::string& name) {
    corev1::Container c;
    c.name = name;
    c.image = "busybox:1.36";
    c.command = {"sh", "-c", "echo hello"};
    return c;
  }

  static inline bool started_ = false;
  static inline std::unique_ptr<kube::testing::TestEnvironment> env_;
  static inline DynamicClient* client_ = nullptr;
  static inline std::string start_error_;
};

TEST_F(RealApiServerRoundTrip, TestdataFixtures) {
  CreateNamespace("production");
  for (const char* file : {"pod_4k.json", "pod_15k.json"}) {
    SCOPED_TRACE(file);
    const corev1::Pod sent = Fixture<corev1::Pod>(file);
    const corev1::Pod stored = CreateAndCheck(sent);
    // The containers' resources come back equal by value.
    ASSERT_EQ(stored.spec.containers.size(), sent.spec.containers.size());
    for (std::size_t i = 0; i < sent.spec.containers.size(); ++i) {
      EXPECT_EQ(stored.spec.containers[i].resources.requests, sent.spec.containers[i].resources.requests);
      EXPECT_EQ(stored.spec.containers[i].resources.limits, sent.spec.containers[i].resources.limits);
    }
  }
  const appsv1::Deployment sent = Fixture<appsv1::Deployment>("deployment_15k.json");
  const appsv1::Deployment stored = CreateAndCheck(sent);
  EXPECT_EQ(stored.spec.template_.spec.containers, sent.spec.template_.spec.containers);
}

TEST_F(RealApiServerRoundTrip, KindsBuiltInCxx) {
  const std::string ns = "roundtrip";
  CreateNamespace(ns);

  {
    corev1::ConfigMap cm;
    cm.metadata.name = "blobs";
    cm.metadata.namespace_ = ns;
    cm.metadata.annotations = {{"note", "line one\nline \"two\" \xc3\xa9"}};
    cm.data = {{"config.yaml", "a: 1\nb: [x, y]\n"}, {"empty", ""}};
    cm.binaryData = {{"bytes", std::string("\x00\x01\xfe\xff binary\n", 12)}, {"one", "\x80"}};
    const corev1::ConfigMap stored = CreateAndCheck(cm);
    EXPECT_EQ(stored.binaryData, cm.binaryData);
    EXPECT_EQ(stored.data, cm.data);
  }
  {
    corev1::Service svc;
    svc.metadata.name = "web";
    svc.metadata.namespace_ = ns;
    svc.spec.selector = {{"app", "web"}};
    corev1::ServicePort http;
    http.name = "http";
    http.port = 80;
    http.targetPort = api::IntOrString("http");
    corev1::ServicePort https;
    https.name = "https";
    https.port = 443;
    https.protocol = "TCP";
    https.targetPort = api::IntOrString(8443);
    https.appProtocol = "https";
    svc.spec.ports = {http, https};
    const corev1::Service stored = CreateAndCheck(svc);
    ASSERT_EQ(stored.spec.ports.size(), 2u);
    EXPECT_EQ(stored.spec.ports[0].targetPort, api::IntOrString("http"));
    EXPECT_EQ(stored.spec.ports[1].targetPort, api::IntOrString(8443));
    EXPECT_TRUE(stored.spec.clusterIP.has_value());
  }
  {
    batchv1::Job job;
    job.metadata.name = "once";
    job.metadata.namespace_ = ns;
    job.spec.backoffLimit = 2;
    job.spec.completions = 1;
    job.spec.template_.spec.restartPolicy = "Never";
    corev1::Container c = Container("main");
    c.resources.requests = {{"cpu", Q("250m")}, {"memory", Q("64Mi")}};
    c.resources.limits = {{"cpu", Q("1")}, {"memory", Q("128Mi")}};
    job.spec.template_.spec.containers = {c};
    const batchv1::Job stored = CreateAndCheck(job);
    EXPECT_TRUE(stored.spec.selector.has_value());  // set by the server
  }
  {
    rbacv1::Role role;
    role.metadata.name = "reader";
    role.metadata.namespace_ = ns;
    rbacv1::PolicyRule pods;
    pods.apiGroups = {""};
    pods.resources = {"pods", "pods/log"};
    pods.verbs = {"get", "list", "watch"};
    rbacv1::PolicyRule cms;
    cms.apiGroups = {""};
    cms.resources = {"configmaps"};
    cms.resourceNames = {"blobs"};
    cms.verbs = {"get"};
    role.rules = {pods, cms};
    const rbacv1::Role stored = CreateAndCheck(role);
    EXPECT_EQ(stored.rules, role.rules);
  }
  {
    batchv1::CronJob cron;
    cron.metadata.name = "nightly";
    cron.metadata.namespace_ = ns;
    cron.spec.schedule = "30 2 * * *";
    cron.spec.concurrencyPolicy = "Forbid";
    cron.spec.successfulJobsHistoryLimit = 1;
    cron.spec.jobTemplate.metadata.labels = {{"app", "nightly"}};
    cron.spec.jobTemplate.spec.template_.metadata.labels = {{"app", "nightly"}};
    cron.spec.jobTemplate.spec.template_.spec.restartPolicy = "OnFailure";
    cron.spec.jobTemplate.spec.template_.spec.containers = {Container("backup")};
    const batchv1::CronJob stored = CreateAndCheck(cron);
    EXPECT_EQ(stored.spec.jobTemplate.metadata.labels, cron.spec.jobTemplate.metadata.labels);
  }
  {
    netv1::Ingress ing;
    ing.metadata.name = "web";
    ing.metadata.namespace_ = ns;
    ing.spec.ingressClassName = "nginx";
    netv1::IngressBackend by_number;
    by_number.service.emplace();
    by_number.service->name = "web";
    by_number.service->port.number = 80;
    netv1::IngressBackend by_name;
    by_name.service.emplace();
    by_name.service->name = "web";
    by_name.service->port.name = "https";
    ing.spec.defaultBackend = by_number;
    netv1::HTTPIngressPath root;
    root.path = "/";
    root.pathType = "Prefix";
    root.backend = by_number;
    netv1::HTTPIngressPath api_path;
    api_path.path = "/api";
    api_path.pathType = "Exact";
    api_path.backend = by_name;
    netv1::IngressRule rule;
    rule.host = "shop.example.com";
    rule.http.emplace();
    rule.http->paths = {root, api_path};
    ing.spec.rules = {rule};
    netv1::IngressTLS tls;
    tls.hosts = {"shop.example.com"};
    tls.secretName = "shop-tls";
    ing.spec.tls = {tls};
    const netv1::Ingress stored = CreateAndCheck(ing);
    EXPECT_EQ(stored.spec.rules, ing.spec.rules);
  }
  {
    corev1::PersistentVolumeClaim pvc;
    pvc.metadata.name = "data";
    pvc.metadata.namespace_ = ns;
    pvc.spec.accessModes = {"ReadWriteOnce"};
    pvc.spec.storageClassName = "standard";
    pvc.spec.resources.requests = {{"storage", Q("1.5Gi")}};
    pvc.spec.resources.limits = {{"storage", Q("2Gi")}};
    const corev1::PersistentVolumeClaim stored = CreateAndCheck(pvc);
    EXPECT_EQ(stored.spec.resources.requests, pvc.spec.resources.requests);
    EXPECT_EQ(stored.spec.resources.limits, pvc.spec.resources.limits);
  }
}

using QuantityTexts = std::map<std::string, std::string>;

// POSTs (as raw JSON, so that the server, not our encoder, reads the texts) a Pod `name` in `ns`
// with one container whose resources are `limits` and `requests`.
void PostSizedPod(const DynamicClient& client, const std::string& ns, const std::string& name,
                  const QuantityTexts& limits, const QuantityTexts& requests) {
  json::value pod = json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{},
      "spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"busybox:1.36"}]}})");
  pod.as_object()["metadata"].as_object()["name"] = name;
  json::object lim;
  json::object req;
  for (const auto& [k, v] : limits) lim[k] = v;
  for (const auto& [k, v] : requests) req[k] = v;
  json::object res;
  res["limits"] = lim;
  res["requests"] = req;
  pod.at_pointer("/spec/containers/0").as_object()["resources"] = res;
  auto path = ResourcePath(ResourceOf<corev1::Pod>(), ns);
  ASSERT_TRUE(path.ok());
  auto posted = client.rest()->Do(Request{.method = "POST", .path = *path, .body = json::serialize(pod)});
  ASSERT_TRUE(posted.ok()) << posted.error().message;
}

// The texts of `resources.<kind>` in a Pod's raw JSON.
QuantityTexts RawQuantities(const json::value& pod, const char* kind) {
  QuantityTexts out;
  for (const auto& [k, v] : pod.at_pointer("/spec/containers/0/resources").at(kind).as_object()) {
    out[std::string(k)] = json::value_to<std::string>(v);
  }
  return out;
}

// Checks that `got` holds, by value, the quantities `sent`, and prints itself as `ours`.
void ExpectQuantities(const std::map<std::string, Quantity>& got, const QuantityTexts& sent,
                      const QuantityTexts& ours, const char* kind) {
  ASSERT_EQ(got.size(), sent.size()) << kind;
  for (const auto& [name, text] : sent) {
    SCOPED_TRACE(std::string(kind) + "[" + name + "] sent " + text);
    ASSERT_TRUE(got.contains(name));
    EXPECT_EQ(got.at(name), Q(text.c_str())) << "decoded " << got.at(name).String();
    EXPECT_EQ(got.at(name).String(), ours.at(name));
  }
}

// Quantities written in non-canonical forms that kube-apiserver normalises ("1000m" -> "1")
// decode to the values sent, and our encoding of the decoded value is the server's canonical
// string (so the whole object round-trips exactly).
TEST_F(RealApiServerRoundTrip, QuantitiesCompareByValue) {
  const std::string ns = "quantities";
  CreateNamespace(ns);
  const QuantityTexts limits = {
      {"cpu", "1000m"}, {"memory", "0.5Gi"}, {"ephemeral-storage", "1e9"}, {"example.com/widgets", "2"}};
  const QuantityTexts requests = {
      {"cpu", "0.25"}, {"memory", "100000000"}, {"ephemeral-storage", "1.5e3"}, {"example.com/widgets", "2"}};
  // What kube-apiserver v1.32 stores for them (Go's canonical forms).
  const QuantityTexts server_limits = {
      {"cpu", "1"}, {"memory", "512Mi"}, {"ephemeral-storage", "1e9"}, {"example.com/widgets", "2"}};
  const QuantityTexts server_requests = {
      {"cpu", "250m"}, {"memory", "100M"}, {"ephemeral-storage", "1500"}, {"example.com/widgets", "2"}};
  PostSizedPod(*client_, ns, "sized", limits, requests);

  const corev1::Pod stored = CheckRoundTrip<corev1::Pod>(ns, "sized");
  ASSERT_EQ(stored.spec.containers.size(), 1u);
  const json::value raw = json::parse(RawGet<corev1::Pod>(ns, "sized"));
  EXPECT_EQ(RawQuantities(raw, "limits"), server_limits);
  EXPECT_EQ(RawQuantities(raw, "requests"), server_requests);
  ExpectQuantities(stored.spec.containers[0].resources.limits, limits, server_limits, "limits");
  ExpectQuantities(stored.spec.containers[0].resources.requests, requests, server_requests, "requests");
}

// Texts that Go's Quantity judges canonical already ("+2", "1.500", "01") are stored by
// kube-apiserver as sent; kube::api::Quantity always writes the canonical form (a documented
// choice, <kube/api/quantity.hpp> String()). So these, and only these, differ from the server's
// bytes after decode + ToJson, with equal values; an Update with the decoded value is accepted
// and stores the canonical texts, nothing else changing.
TEST_F(RealApiServerRoundTrip, QuantityTextsGoKeepsAreWrittenCanonical) {
  const std::string ns = "verbatim";
  CreateNamespace(ns);
  const QuantityTexts limits = {{"cpu", "1.500"}, {"memory", "01Gi"}, {"example.com/widgets", "+2"}};
  const QuantityTexts requests = {{"cpu", "01"}, {"memory", "512Mi"}, {"example.com/widgets", "+2"}};
  const QuantityTexts ours_limits = {{"cpu", "1500m"}, {"memory", "1Gi"}, {"example.com/widgets", "2"}};
  const QuantityTexts ours_requests = {{"cpu", "1"}, {"memory", "512Mi"}, {"example.com/widgets", "2"}};
  PostSizedPod(*client_, ns, "verbatim", limits, requests);

  const std::string raw = RawGet<corev1::Pod>(ns, "verbatim");
  const json::value server_json = WithoutNulls(json::parse(raw));
  EXPECT_EQ(RawQuantities(server_json, "limits"), limits);
  EXPECT_EQ(RawQuantities(server_json, "requests"), QuantityTexts({{"cpu", "01"}, {"memory", "512Mi"},
                                                                   {"example.com/widgets", "+2"}}));
  auto decoded = api::FromJson<corev1::Pod>(raw);
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  ExpectQuantities(decoded->spec.containers[0].resources.limits, limits, ours_limits, "limits");
  ExpectQuantities(decoded->spec.containers[0].resources.requests, requests, ours_requests, "requests");

  // The server's JSON with our texts for those quantities is exactly our encoding.
  json::value expected = server_json;
  json::object& res = expected.at_pointer("/spec/containers/0/resources").as_object();
  for (const auto& [k, v] : ours_limits) res["limits"].as_object()[k] = v;
  for (const auto& [k, v] : ours_requests) res["requests"].as_object()[k] = v;
  const json::value ours = json::parse(api::ToJson(*decoded));
  EXPECT_EQ(expected, ours) << DiffText(expected, ours);

  corev1::Pod changed = *decoded;
  changed.metadata.labels[kLabel] = "updated";
  auto updated = TypedApi<corev1::Pod>(*client_, ns).Update(changed);
  ASSERT_TRUE(updated.ok()) << "Update: " << updated.error().message;
  const json::value after = WithoutNulls(json::parse(RawGet<corev1::Pod>(ns, "verbatim")));
  EXPECT_EQ(RawQuantities(after, "limits"), ours_limits);
  EXPECT_EQ(RawQuantities(after, "requests"), ours_requests);
  const json::value before_cmp = WithoutUpdateFields(expected);
  const json::value after_cmp = WithoutUpdateFields(after);
  EXPECT_EQ(before_cmp, after_cmp) << DiffText(before_cmp, after_cmp);
}

// A list and a watch of ConfigMaps read in protobuf (the default) and in JSON from the same
// server give the same objects.
TEST_F(RealApiServerRoundTrip, ProtobufListsAndWatchesGiveTheObjectsOfJson) {
  const std::string ns = "rt-protobuf";
  CreateNamespace(ns);
  Config json_config = env_->config();
  json_config.protobuf = false;
  auto json_client = DynamicClient::Create(json_config);
  ASSERT_TRUE(json_client.ok()) << json_client.error().message;
  TypedApi<corev1::ConfigMap> pb(*client_, ns);
  TypedApi<corev1::ConfigMap> js(*json_client, ns);
  corev1::ConfigMap cm;
  cm.metadata.name = "pb";
  cm.metadata.labels["app"] = "x";
  cm.data = {{"a", "<b>&"}};
  cm.binaryData = {{"bin", std::string("\x00\xff", 2)}};
  auto created = pb.Create(cm);
  ASSERT_TRUE(created.ok()) << created.error().message;

  auto pb_list = pb.List();
  auto js_list = js.List();
  ASSERT_TRUE(pb_list.ok() && js_list.ok());
  ASSERT_EQ(pb_list->items.size(), 1u);
  EXPECT_TRUE(pb_list->items == js_list->items);
  EXPECT_EQ(pb_list->metadata.resourceVersion, js_list->metadata.resourceVersion);

  const ListOptions from{.resource_version = pb_list->metadata.resourceVersion};
  auto pb_watch = pb.dynamic().Watch(from);
  auto js_watch = js.dynamic().Watch(from);
  ASSERT_TRUE(pb_watch.ok() && js_watch.ok());
  EXPECT_EQ((*pb_watch)->format(), WatchFormat::kProtobuf);
  EXPECT_EQ((*js_watch)->format(), WatchFormat::kJson);
  corev1::ConfigMap changed = *created;
  changed.data["a"] = "c";
  ASSERT_TRUE(pb.Update(changed).ok());
  ASSERT_TRUE(pb.Delete("pb").ok());
  for (const WatchEventType type : {WatchEventType::kModified, WatchEventType::kDeleted}) {
    auto a = (*pb_watch)->Next();
    auto b = (*js_watch)->Next();
    ASSERT_TRUE(a.ok() && b.ok() && a->has_value() && b->has_value());
    EXPECT_EQ((**a).type, type);
    EXPECT_EQ((**b).type, type);
    auto av = api::FromObject<corev1::ConfigMap>(*(**a).object);
    auto bv = api::FromObject<corev1::ConfigMap>(*(**b).object);
    ASSERT_TRUE(av.ok() && bv.ok());
    EXPECT_TRUE(*av == *bv);
    EXPECT_EQ(av->data.at("a"), "c");
  }
  (*pb_watch)->Stop();
  (*js_watch)->Stop();
}

}  // namespace
}  // namespace kube::client
