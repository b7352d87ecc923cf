#include "apiserver/rest/strategy.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <kube/apiserver/apiserver.hpp>
#include <kube/core/json.hpp>

#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/selection.hpp"

namespace kube::apiserver::rest {
namespace {
namespace json = boost::json;

class StrategyTest : public ::testing::Test {
 protected:
  StrategyTest() { RegisterBuiltins(registry_); }
  const ResourceInfo& Info(std::string_view group, std::string_view resource) {
    auto info = registry_.Find(group, "v1", resource);
    EXPECT_NE(info, nullptr) << resource;
    infos_.push_back(info);
    return *info;
  }
  static json::object Parse(std::string_view text) { return json::parse(text).as_object(); }

  Registry registry_;
  std::vector<ResourcePtr> infos_;
};

TEST_F(StrategyTest, BuiltinsHaveKubesDiscoveryData) {
  const auto& ns = Info("", "namespaces");
  EXPECT_FALSE(ns.namespaced);
  EXPECT_EQ(ns.short_names, std::vector<std::string>{"ns"});
  EXPECT_EQ(std::count(ns.verbs.begin(), ns.verbs.end(), "deletecollection"), 0);
  const auto& deploy = Info("apps", "deployments");
  EXPECT_TRUE(deploy.has_status && deploy.has_scale && deploy.tracks_generation);
  EXPECT_EQ(deploy.categories, std::vector<std::string>{"all"});
  const auto& lease = Info("coordination.k8s.io", "leases");
  EXPECT_FALSE(lease.allow_unconditional_update);
  EXPECT_TRUE(lease.allow_create_on_update);
  const auto& events_v1 = Info("events.k8s.io", "events");
  EXPECT_EQ(events_v1.StoragePrefix(), Info("", "events").StoragePrefix());
  EXPECT_FALSE(Info("", "nodes").namespaced);
}

TEST_F(StrategyTest, NameRulesPerKind) {
  EXPECT_EQ(NameRuleFor(Info("", "namespaces")), NameRule::kDnsLabel);
  EXPECT_EQ(NameRuleFor(Info("", "services")), NameRule::kDns1035Label);
  EXPECT_EQ(NameRuleFor(Info("", "configmaps")), NameRule::kDnsSubdomain);
  EXPECT_EQ(NameRuleFor(Info("", "events")), NameRule::kPathSegment);
}

TEST_F(StrategyTest, ReturnDeletedObjectPerKind) {
  EXPECT_TRUE(ReturnsDeletedObject(Info("", "pods")));
  EXPECT_TRUE(ReturnsDeletedObject(Info("", "namespaces")));
  EXPECT_FALSE(ReturnsDeletedObject(Info("", "configmaps")));
  EXPECT_FALSE(ReturnsDeletedObject(Info("apps", "deployments")));
}

TEST_F(StrategyTest, CreateSetsGenerationAndDropsStatusOfWorkloads) {
  auto obj = Parse(R"({"metadata":{"name":"d"},"spec":{"replicas":2},"status":{"replicas":9}})");
  PrepareForCreate(Info("apps", "deployments"), obj);
  EXPECT_EQ(obj["metadata"].as_object()["generation"].as_int64(), 1);
  EXPECT_EQ(SerializeJson(obj.at("status")), "{}");  // reset to Go's zero status
  auto rs = Parse(R"({"metadata":{"name":"r"},"status":{"replicas":9}})");
  PrepareForCreate(Info("apps", "replicasets"), rs);
  EXPECT_EQ(SerializeJson(rs.at("status")), R"({"replicas":0})");
}

TEST_F(StrategyTest, ConfigMapsAndLeasesHaveNoGeneration) {
  auto cm = Parse(R"({"metadata":{"name":"c"},"data":{"a":"b"}})");
  PrepareForCreate(Info("", "configmaps"), cm);
  EXPECT_FALSE(cm["metadata"].as_object().contains("generation"));
  auto old = cm;
  cm["data"].as_object()["a"] = "changed";
  PrepareForUpdate(Info("", "configmaps"), Subresource::kNone, cm, old);
  EXPECT_FALSE(cm["metadata"].as_object().contains("generation"));
}

TEST_F(StrategyTest, DeploymentGenerationBumpsOnSpecOrAnnotationsButNotStatusOrLabels) {
  const auto& info = Info("apps", "deployments");
  auto old = Parse(R"({"metadata":{"name":"d","generation":3},"spec":{"replicas":1},"status":{"replicas":1}})");
  auto labels_only = Parse(R"({"metadata":{"name":"d","labels":{"a":"b"}},"spec":{"replicas":1},"status":{"replicas":5}})");
  PrepareForUpdate(info, Subresource::kNone, labels_only, old);
  EXPECT_EQ(labels_only["metadata"].as_object()["generation"].as_int64(), 3);
  EXPECT_EQ(labels_only["status"].as_object()["replicas"].as_int64(), 1) << "main resource keeps old status";

  auto spec = Parse(R"({"metadata":{"name":"d"},"spec":{"replicas":2}})");
  PrepareForUpdate(info, Subresource::kNone, spec, old);
  EXPECT_EQ(spec["metadata"].as_object()["generation"].as_int64(), 4);

  auto annotations = Parse(R"({"metadata":{"name":"d","annotations":{"x":"y"}},"spec":{"replicas":1}})");
  PrepareForUpdate(info, Subresource::kNone, annotations, old);
  EXPECT_EQ(annotations["metadata"].as_object()["generation"].as_int64(), 4);
}

TEST_F(StrategyTest, StatusSubresourceTakesOnlyStatusAndMetadata) {
  const auto& info = Info("apps", "deployments");
  auto old = Parse(R"({"metadata":{"name":"d","generation":3,"labels":{"l":"old"}},"spec":{"replicas":1},"status":{"replicas":1}})");
  auto update = Parse(R"({"metadata":{"name":"d","labels":{"l":"new"},"annotations":{"a":"b"}},"spec":{"replicas":7},"status":{"replicas":4}})");
  PrepareForUpdate(info, Subresource::kStatus, update, old);
  EXPECT_EQ(update["spec"].as_object()["replicas"].as_int64(), 1);
  EXPECT_EQ(update["status"].as_object()["replicas"].as_int64(), 4);
  EXPECT_EQ(update["metadata"].as_object()["generation"].as_int64(), 3) << "status writes keep generation";
  EXPECT_EQ(update["metadata"].as_object()["labels"].as_object()["l"].as_string(), "old");
  EXPECT_EQ(update["metadata"].as_object()["annotations"].as_object()["a"].as_string(), "b");
}

TEST_F(StrategyTest, NamespaceCreateGetsFinalizerPhaseAndNameLabel) {
  const auto& info = Info("", "namespaces");
  auto ns = Parse(R"({"metadata":{"name":"team"}})");
  ASSERT_TRUE(DecodeAndDefault(info, ns).ok());
  PrepareForCreate(info, ns);
  EXPECT_EQ(json::serialize(ns["spec"]), R"({"finalizers":["kubernetes"]})");
  EXPECT_EQ(ns["status"].as_object()["phase"].as_string(), "Active");
  EXPECT_EQ(ns["metadata"].as_object()["labels"].as_object()["kubernetes.io/metadata.name"].as_string(), "team");
}

TEST_F(StrategyTest, SecretStringDataIsMergedIntoDataAndBadBase64IsABadRequest) {
  const auto& info = Info("", "secrets");
  auto secret = Parse(R"({"metadata":{"name":"s"},"data":{"a":"YQ=="},"stringData":{"b":"hello"}})");
  ASSERT_TRUE(DecodeAndDefault(info, secret).ok());
  EXPECT_FALSE(secret.contains("stringData"));
  EXPECT_EQ(secret["data"].as_object()["b"].as_string(), "aGVsbG8=");
  EXPECT_EQ(secret["type"].as_string(), "Opaque");
  auto bad = Parse(R"({"metadata":{"name":"s"},"data":{"a":"not base64!"}})");
  auto err = DecodeAndDefault(info, bad);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.error().code, 400);
  EXPECT_EQ(err.error().message,
            "Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data at input byte 3");
}

TEST_F(StrategyTest, ConfigMapDataMustBeStrings) {
  auto cm = Parse(R"({"metadata":{"name":"c"},"data":{"a":1}})");
  auto err = DecodeAndDefault(Info("", "configmaps"), cm);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.error().message,
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal "
            "number into Go struct field ConfigMap.data of type string");
}

TEST_F(StrategyTest, DeploymentDefaultsAndSelectorValidation) {
  const auto& info = Info("apps", "deployments");
  auto d = Parse(R"({"metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"web"}},
      "template":{"metadata":{"labels":{"app":"other"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}})");
  ASSERT_TRUE(DecodeAndDefault(info, d).ok());
  EXPECT_EQ(d["spec"].as_object()["replicas"].as_int64(), 1);
  EXPECT_EQ(json::serialize(d["spec"].as_object()["strategy"]),
            R"({"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}})");
  const auto& c = d["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"].as_array()[0].as_object();
  EXPECT_EQ(c.at("imagePullPolicy").as_string(), "Always");
  auto errs = ValidateCreate(info, d, false);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].field, "spec.template.metadata.labels");
  EXPECT_EQ(errs[0].detail, "`selector` does not match template `labels`");
}

TEST_F(StrategyTest, EventsV1IsAViewOfCoreEvents) {
  const auto& v1 = Info("events.k8s.io", "events");
  auto stored = Parse(R"({"kind":"Event","apiVersion":"v1","metadata":{"name":"e"},"involvedObject":{"kind":"Pod"},
      "message":"hi","reportingComponent":"ctl","count":2})");
  auto view = stored;
  StoredToView(v1, view);
  EXPECT_EQ(json::serialize(view),
            R"({"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":{"name":"e"},"regarding":{"kind":"Pod"},"note":"hi","reportingController":"ctl","deprecatedCount":2})");
  ViewToStored(v1, view);
  EXPECT_EQ(json::serialize(view), json::serialize(stored));
}

TEST_F(StrategyTest, ScaleOfADeployment) {
  auto d = Parse(R"({"metadata":{"name":"web","namespace":"ns","uid":"u","resourceVersion":"5","labels":{"x":"y"}},
      "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}}},"status":{"replicas":2}})");
  auto scale = ScaleFromObject(Info("apps", "deployments"), d);
  ASSERT_TRUE(scale.ok());
  EXPECT_EQ(json::serialize(*scale),
            R"({"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"web","namespace":"ns","uid":"u","resourceVersion":"5"},"spec":{"replicas":3},"status":{"replicas":2,"selector":"app=web"}})");
}

TEST_F(StrategyTest, FieldValuesUseGoZeroValues) {
  EXPECT_EQ(FieldValueString("spec.unschedulable", nullptr), "false");
  EXPECT_EQ(FieldValueString("status.replicas", nullptr), "0");
  EXPECT_EQ(FieldValueString("spec.nodeName", nullptr), "");
  json::value b = true;
  EXPECT_EQ(FieldValueString("spec.hostNetwork", &b), "true");
}

TEST_F(StrategyTest, UnsupportedFieldLabelsAreBadRequests) {
  ListOptions opts;
  opts.field_selector = "spec.foo=x";
  auto pods = Selection::Parse(Info("", "pods"), opts);
  ASSERT_FALSE(pods.ok());
  EXPECT_EQ(pods.error().message, "field label not supported: spec.foo");
  auto cms = Selection::Parse(Info("", "configmaps"), opts);
  ASSERT_FALSE(cms.ok());
  EXPECT_EQ(cms.error().message,
            "\"spec.foo\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"");
  opts.field_selector = "spec.nodeName=n1,status.phase!=Running";
  EXPECT_TRUE(Selection::Parse(Info("", "pods"), opts).ok());
}

TEST_F(StrategyTest, SelectionMatchesFieldsOfStoredObjects) {
  ListOptions opts;
  opts.field_selector = "involvedObject.name=p1";
  opts.label_selector = "a=b";
  auto sel = Selection::Parse(Info("", "events"), opts);
  ASSERT_TRUE(sel.ok());
  EXPECT_TRUE(sel->MatchesStored(R"({"metadata":{"name":"e","labels":{"a":"b"}},"involvedObject":{"name":"p1"}})"));
  EXPECT_FALSE(sel->MatchesStored(R"({"metadata":{"name":"e","labels":{"a":"b"}},"involvedObject":{"name":"p2"}})"));
  EXPECT_FALSE(sel->MatchesStored(R"({"metadata":{"name":"e"},"involvedObject":{"name":"p1"}})"));
}

TEST(ValidateListOptions, MirrorsApimachinery) {
  ListOptions list;
  list.resource_version_match = "Exact";
  auto err = ValidateListOptions(list);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.error().code, 422);
  EXPECT_EQ(err.error().message,
            "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
            "resourceVersionMatch is forbidden unless resourceVersion is provided");
  list.resource_version = "0";
  err = ValidateListOptions(list);
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.error().message.find("resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""),
            std::string::npos);
  list.resource_version_match = "NotOlderThan";
  EXPECT_TRUE(ValidateListOptions(list).ok());
  list.send_initial_events = true;
  EXPECT_FALSE(ValidateListOptions(list).ok());

  ListOptions watch;
  watch.watch = true;
  watch.send_initial_events = true;
  err = ValidateListOptions(watch);
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.error().message.find("sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"),
            std::string::npos);
  watch.resource_version_match = "NotOlderThan";
  EXPECT_TRUE(ValidateListOptions(watch).ok());
  watch.send_initial_events.reset();
  EXPECT_FALSE(ValidateListOptions(watch).ok());
}

TEST(Codec, NormalizesMemberOrderLikeGoStructs) {
  auto obj = json::parse(R"({"data":{},"metadata":{"labels":{},"x":1,"uid":"u","name":"n"},"apiVersion":"v1","kind":"ConfigMap"})").as_object();
  NormalizeMemberOrder(obj);
  // Empty labels and data are dropped like Go's omitempty; unknown members stay, last.
  EXPECT_EQ(json::serialize(obj), R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"n","uid":"u","x":1}})");
  auto kept = json::parse(R"({"data":{"k":""},"metadata":{"finalizers":[],"annotations":null,"labels":{"a":""}},"kind":"ConfigMap"})").as_object();
  NormalizeMemberOrder(kept);
  EXPECT_EQ(json::serialize(kept), R"({"kind":"ConfigMap","metadata":{"labels":{"a":""}},"data":{"k":""}})");
}

TEST(Codec, StampedJsonFillsTheResourceVersion) {
  auto obj = json::parse(R"({"kind":"ConfigMap","metadata":{"name":"n"},"data":{"resourceVersion":"x"}})").as_object();
  StampedJson stamped(obj);
  EXPECT_EQ(stamped.At(17),
            R"({"kind":"ConfigMap","metadata":{"name":"n","resourceVersion":"17"},"data":{"resourceVersion":"x"}})");
  EXPECT_EQ(ParseRevision("17"), 17);
  EXPECT_FALSE(ParseRevision("0"));
  EXPECT_FALSE(ParseRevision("-1"));
  EXPECT_FALSE(ParseRevision("1x"));
}

}  // namespace
}  // namespace kube::apiserver::rest
