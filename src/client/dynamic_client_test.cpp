#include <kube/client/dynamic_client.hpp>
#include <kube/client/fake_transport.hpp>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <kube/base/mutex.hpp>
#include <kube/core/object_list_parser.hpp>

namespace kube::client {
namespace {

using ::testing::HasSubstr;

const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
const GroupVersionResource kDeployments{"apps", "v1", "deployments"};

std::string Cm(std::string_view name, std::string_view rv = "1") {
  return R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":")" + std::string(name) +
         R"(","namespace":"ns","resourceVersion":")" + std::string(rv) + R"("},"data":{"k":"v"}})";
}

std::string CmList(std::vector<std::string> names, std::string_view cont = "", std::string_view rv = "100") {
  std::string items;
  for (const auto& n : names) items += (items.empty() ? "" : ",") + Cm(n);
  return R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":")" + std::string(rv) + R"(")" +
         (cont.empty() ? std::string() : R"(,"continue":")" + std::string(cont) + R"(")") + R"(},"items":[)" + items +
         "]}";
}

constexpr char kExpiredContinue[] =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"The provided continue parameter is too old","reason":"Expired","code":410})";

class DynamicClientTest : public ::testing::Test {
 protected:
  DynamicClientTest() {
    Config c;
    c.host = "https://k";
    c.qps = -1;
    client_ = std::make_unique<DynamicClient>(RestClient::Create(c, {.clock = &clock_, .transport = transport_}).value());
  }
  HttpRequest Last() { return transport_->Requests().back(); }
  std::string ContentType(const HttpRequest& r) { return std::string(FindHeader(r.headers, "Content-Type").value_or("")); }

  FakeClock clock_;
  std::shared_ptr<FakeTransport> transport_ = std::make_shared<FakeTransport>();
  std::unique_ptr<DynamicClient> client_;
};

TEST_F(DynamicClientTest, GetEncodesOptionsAndParsesTheObject) {
  transport_->EnqueueJson(200, Cm("a", "7"));
  auto obj = client_->Resource(kConfigMaps, "ns").Get("a", {.resource_version = "0"});
  ASSERT_TRUE(obj.ok()) << obj.error().message;
  EXPECT_EQ((*obj)->Name(), "a");
  EXPECT_EQ((*obj)->ResourceVersion(), "7");
  EXPECT_EQ(Last().method, "GET");
  EXPECT_EQ(Last().target, "/api/v1/namespaces/ns/configmaps/a?resourceVersion=0");
}

TEST_F(DynamicClientTest, GetOfAMissingObjectIsNotFound) {
  transport_->EnqueueJson(
      404, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \"web\" not found","reason":"NotFound","details":{"name":"web","group":"apps","kind":"deployments"},"code":404})");
  auto obj = client_->Resource(kDeployments, "prod").Get("web");
  ASSERT_FALSE(obj.ok());
  EXPECT_TRUE(IsNotFound(obj.error()));
  EXPECT_EQ(obj.error().details->name, "web");
  EXPECT_EQ(Last().target, "/apis/apps/v1/namespaces/prod/deployments/web");
}

TEST_F(DynamicClientTest, UndecodableSuccessBodiesAreInternalErrors) {
  transport_->Enqueue(HttpResponse{200, {{"Content-Type", "application/json"}}, "{not json"});
  auto bad = client_->Resource(kConfigMaps, "ns").Get("a");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(IsInternalError(bad.error()));
  EXPECT_THAT(bad.error().message, HasSubstr("unable to decode the response of GET /api/v1/namespaces/ns/configmaps/a"));
  transport_->Enqueue(HttpResponse{200, {{"Content-Type", "application/vnd.kubernetes.protobuf"}}, "\x6b\x38"});
  auto proto = client_->Resource(kConfigMaps, "ns").Get("a");
  ASSERT_FALSE(proto.ok());
  EXPECT_THAT(proto.error().message, HasSubstr("cannot be decoded"));
}

TEST_F(DynamicClientTest, ListEncodesListOptions) {
  transport_->EnqueueJson(200, CmList({"a", "b"}));
  auto list = client_->Resource(kConfigMaps).List(
      {.label_selector = "app=web,tier!=db", .field_selector = "metadata.name=a", .limit = 10});
  ASSERT_TRUE(list.ok()) << list.error().message;
  EXPECT_EQ(list->items.size(), 2u);
  EXPECT_EQ(list->resource_version, "100");
  EXPECT_EQ(Last().target,
            "/api/v1/configmaps?fieldSelector=metadata.name%3Da&labelSelector=app%3Dweb%2Ctier%21%3Ddb&limit=10");
}

TEST_F(DynamicClientTest, PagerFollowsContinueTokensAndClearsResourceVersion) {
  transport_->EnqueueJson(200, CmList({"a", "b"}, "tok1"));
  transport_->EnqueueJson(200, CmList({"c", "d"}, "tok2"));
  transport_->EnqueueJson(200, CmList({"e"}));
  auto all = client_->Resource(kConfigMaps, "ns").ListAll({.resource_version = "0"}, 2);
  ASSERT_TRUE(all.ok()) << all.error().message;
  ASSERT_EQ(all->items.size(), 5u);
  EXPECT_EQ(all->items[4]->Name(), "e");
  EXPECT_EQ(all->resource_version, "100");
  const auto reqs = transport_->Requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[0].target, "/api/v1/namespaces/ns/configmaps?limit=2&resourceVersion=0");
  EXPECT_EQ(reqs[1].target, "/api/v1/namespaces/ns/configmaps?continue=tok1&limit=2");
  EXPECT_EQ(reqs[2].target, "/api/v1/namespaces/ns/configmaps?continue=tok2&limit=2");
}

TEST_F(DynamicClientTest, PagerFallsBackToAFullListWhenAContinueTokenExpires) {
  transport_->EnqueueJson(200, CmList({"a", "b"}, "tok1", "50"));
  transport_->EnqueueJson(410, kExpiredContinue);
  transport_->EnqueueJson(200, CmList({"a", "b", "c"}, "", "60"));
  ListPager pager = client_->Resource(kConfigMaps, "ns").Pager({.resource_version = "50",
                                                                .resource_version_match = "NotOlderThan"}, 2);
  auto p1 = pager.Next();
  ASSERT_TRUE(p1.ok() && p1->has_value());
  EXPECT_FALSE((*p1)->restarted);
  auto p2 = pager.Next();
  ASSERT_TRUE(p2.ok()) << p2.error().message;
  ASSERT_TRUE(p2->has_value());
  EXPECT_TRUE((*p2)->restarted);
  EXPECT_EQ((*p2)->list.items.size(), 3u);
  auto end = pager.Next();
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());
  // The fallback is a full list (no limit, no continue) at the originally requested RV.
  EXPECT_EQ(transport_->Requests().back().target,
            "/api/v1/namespaces/ns/configmaps?resourceVersion=50&resourceVersionMatch=NotOlderThan");

  transport_->ClearRequests();
  transport_->EnqueueJson(200, CmList({"a", "b"}, "tok1", "50"));
  transport_->EnqueueJson(410, kExpiredContinue);
  transport_->EnqueueJson(200, CmList({"a", "b", "c"}, "", "60"));
  auto all = client_->Resource(kConfigMaps, "ns").ListAll({}, 2);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->items.size(), 3u);  // the restart replaced the first page, no duplicates
  EXPECT_EQ(all->resource_version, "60");
}

TEST_F(DynamicClientTest, ExpiredFirstPageIsAnErrorNotAFallback) {
  transport_->EnqueueJson(410, kExpiredContinue);
  auto all = client_->Resource(kConfigMaps, "ns").ListAll({.resource_version = "5"}, 2);
  ASSERT_FALSE(all.ok());
  EXPECT_TRUE(IsExpired(all.error()));
  EXPECT_EQ(transport_->RequestCount(), 1u);
}

TEST_F(DynamicClientTest, ForEachVisitsEveryItem) {
  transport_->EnqueueJson(200, CmList({"a"}, "t"));
  transport_->EnqueueJson(200, CmList({"b"}));
  std::vector<std::string> names;
  ASSERT_TRUE(client_->Resource(kConfigMaps)
                  .Pager({}, 1)
                  .ForEach([&](const ObjectPtr& o) -> Result<void> {
                    names.emplace_back(o->Name());
                    return Ok();
                  })
                  .ok());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b"}));
}

TEST_F(DynamicClientTest, CreateUpdateAndUpdateStatusSendTheObject) {
  auto obj = Object::Parse(Cm("a")).value();
  transport_->EnqueueJson(201, Cm("a", "2"));
  ASSERT_TRUE(client_->Resource(kConfigMaps).Create(*obj, {.field_manager = "me"}).ok());
  EXPECT_EQ(Last().method, "POST");
  EXPECT_EQ(Last().target, "/api/v1/namespaces/ns/configmaps?fieldManager=me");  // namespace from the object
  EXPECT_EQ(Last().body, obj->Json());
  EXPECT_EQ(ContentType(Last()), "application/json");

  transport_->EnqueueJson(200, Cm("a", "3"));
  auto updated = client_->Resource(kConfigMaps, "ns").Update(*obj);
  ASSERT_TRUE(updated.ok());
  EXPECT_EQ((*updated)->ResourceVersion(), "3");
  EXPECT_EQ(Last().method, "PUT");
  EXPECT_EQ(Last().target, "/api/v1/namespaces/ns/configmaps/a");

  transport_->EnqueueJson(200, Cm("a", "4"));
  ASSERT_TRUE(client_->Resource(kConfigMaps, "ns").UpdateStatus(*obj).ok());
  EXPECT_EQ(Last().target, "/api/v1/namespaces/ns/configmaps/a/status");

  transport_->EnqueueJson(409, R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","code":409})");
  auto conflict = client_->Resource(kConfigMaps, "ns").Update(*obj);
  ASSERT_FALSE(conflict.ok());
  EXPECT_TRUE(IsConflict(conflict.error()));
}

TEST_F(DynamicClientTest, PatchUsesTheContentTypeOfEachPatchType) {
  const struct {
    PatchType type;
    const char* content_type;
  } cases[] = {{PatchType::kJson, "application/json-patch+json"},
               {PatchType::kMerge, "application/merge-patch+json"},
               {PatchType::kStrategicMerge, "application/strategic-merge-patch+json"},
               {PatchType::kApply, "application/apply-patch+yaml"}};
  for (const auto& c : cases) {
    transport_->EnqueueJson(200, Cm("a"));
    ASSERT_TRUE(client_->Resource(kConfigMaps, "ns").Patch("a", c.type, R"({"data":{"k":"x"}})", {.field_manager = "m"}).ok());
    EXPECT_EQ(Last().method, "PATCH");
    EXPECT_EQ(Last().target, "/api/v1/namespaces/ns/configmaps/a?fieldManager=m");
    EXPECT_EQ(ContentType(Last()), c.content_type);
    EXPECT_EQ(Last().body, R"({"data":{"k":"x"}})");
  }
  transport_->EnqueueJson(200, Cm("a"));
  ASSERT_TRUE(client_->Resource(kDeployments, "ns").Patch("web", PatchType::kMerge, R"({"spec":{"replicas":3}})", {}, "scale").ok());
  EXPECT_EQ(Last().target, "/apis/apps/v1/namespaces/ns/deployments/web/scale");
}

TEST_F(DynamicClientTest, ApplySendsFieldManagerAndForce) {
  auto obj = Object::Parse(Cm("a")).value();
  transport_->EnqueueJson(200, Cm("a"));
  ASSERT_TRUE(client_->Resource(kConfigMaps).Apply(*obj, {.field_manager = "ctrl", .force = true}).ok());
  EXPECT_EQ(Last().target, "/api/v1/namespaces/ns/configmaps/a?fieldManager=ctrl&force=true");
  EXPECT_EQ(ContentType(Last()), "application/apply-patch+yaml");
  transport_->EnqueueJson(200, Cm("a"));
  ASSERT_TRUE(client_->Resource(kConfigMaps).ApplyStatus(*obj, {.field_manager = "ctrl"}).ok());
  EXPECT_EQ(Last().target, "/api/v1/namespaces/ns/configmaps/a/status?fieldManager=ctrl");
  auto missing = client_->Resource(kConfigMaps).Apply(*obj, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.error().message, HasSubstr("fieldManager is required"));
}

TEST_F(DynamicClientTest, DeleteSendsDeleteOptionsWithPreconditionsAsTheBody) {
  transport_->EnqueueJson(
      200, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"a","kind":"configmaps","uid":"u-1"}})");
  DeleteOptions opts;
  opts.propagation_policy = PropagationPolicy::kForeground;
  opts.preconditions = Preconditions{.uid = "u-1", .resource_version = "7"};
  opts.grace_period_seconds = 0;
  auto status = client_->Resource(kConfigMaps, "ns").Delete("a", opts);
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ((*status)->Kind(), "Status");
  EXPECT_EQ((*status)->GetString("/details/uid").value_or(""), "u-1");
  EXPECT_EQ(Last().method, "DELETE");
  EXPECT_EQ(Last().target, "/api/v1/namespaces/ns/configmaps/a");
  EXPECT_EQ(Last().body, opts.ToJson());
  EXPECT_THAT(Last().body, HasSubstr(R"("preconditions":{"uid":"u-1","resourceVersion":"7"})"));
}

TEST_F(DynamicClientTest, DeleteCollectionSendsSelectorsAsQueryAndOptionsAsBody) {
  transport_->EnqueueJson(200, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success"})");
  DeleteOptions opts;
  opts.propagation_policy = PropagationPolicy::kBackground;
  ASSERT_TRUE(client_->Resource(kConfigMaps, "ns").DeleteCollection(opts, {.label_selector = "app=x"}).ok());
  EXPECT_EQ(Last().method, "DELETE");
  EXPECT_EQ(Last().target, "/api/v1/namespaces/ns/configmaps?labelSelector=app%3Dx");
  EXPECT_EQ(Last().body, opts.ToJson());
}

TEST_F(DynamicClientTest, LocalMistakesAreBadRequestsWithoutARoundTrip) {
  auto api = client_->Resource(kConfigMaps, "ns");
  EXPECT_TRUE(IsBadRequest(api.Get("").error()));
  EXPECT_TRUE(IsBadRequest(api.Get("a/b").error()));
  EXPECT_TRUE(IsBadRequest(api.Delete("").error()));
  auto nameless = Object::Parse(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{}})").value();
  EXPECT_TRUE(IsBadRequest(api.Update(*nameless).error()));
  EXPECT_EQ(transport_->RequestCount(), 0u);
}

TEST_F(DynamicClientTest, WatchSetsWatchTrueAndStreamsEvents) {
  auto script = transport_->EnqueueStream(200, {{"Content-Type", "application/json"}});
  script->Push(R"({"type":"ADDED","object":)" + Cm("a", "5") + "}\n");
  script->Push(R"({"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"9"}}})"
               "\n");
  script->Close();
  auto watch = client_->Resource(kConfigMaps, "ns").Watch(
      {.resource_version = "4", .timeout_seconds = 300, .allow_watch_bookmarks = true});
  ASSERT_TRUE(watch.ok()) << watch.error().message;
  EXPECT_EQ(Last().target,
            "/api/v1/namespaces/ns/configmaps?allowWatchBookmarks=true&resourceVersion=4&timeoutSeconds=300&watch=true");
  auto a = (*watch)->Next();
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ((**a).type, WatchEventType::kAdded);
  auto b = (*watch)->Next();
  ASSERT_TRUE(b.ok() && b->has_value());
  EXPECT_EQ((**b).type, WatchEventType::kBookmark);
  EXPECT_EQ((**b).object->ResourceVersion(), "9");
  auto end = (*watch)->Next();
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());
}

TEST_F(DynamicClientTest, ListHandsEachItemOverAsSoonAsItIsParsed) {
  auto script = transport_->EnqueueStream(200, {{"Content-Type", "application/json"}});
  // A first item larger than what the parser gathers before it walks the text.
  const std::string big = R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns"},"data":{"k":")" +
                          std::string(ObjectListParser::kWalkBytes, 'x') + R"("}})";
  std::string text = CmList({"a", "b", "c"});
  text.replace(text.find(Cm("a")), Cm("a").size(), big);
  const std::size_t second = text.find(Cm("b"));
  script->Push(text.substr(0, second));  // the first item and the comma after it
  Mutex mu;
  CondVar cv;
  std::vector<std::string> seen;
  auto replacement = Object::Parse(Cm("z"));
  ASSERT_TRUE(replacement.ok());
  Result<ObjectList> list = MakeError(0, "", "unset");
  std::jthread caller([&] {
    list = client_->Resource(kConfigMaps, "ns").List({}, [&](ObjectPtr& item) {
      MutexLock lock(mu);
      seen.emplace_back(item->Name());
      if (item->Name() == "b") item = *replacement;
      cv.SignalAll();
    });
  });
  {
    // The first item arrives while the rest of the list has not been sent.
    MutexLock lock(mu);
    while (seen.empty()) cv.Wait(mu);
    EXPECT_EQ(seen, std::vector<std::string>{"a"});
  }
  script->Push(text.substr(second));
  script->Close();
  caller.join();
  ASSERT_TRUE(list.ok()) << list.error().message;
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_EQ(list->items.size(), 3u);
  EXPECT_EQ(list->items[1]->Name(), "z");
  EXPECT_EQ(list->resource_version, "100");
}

TEST_F(DynamicClientTest, AListThatIsNotJsonOrIsCutShortIsAnError) {
  transport_->Enqueue(HttpResponse{200, {{"Content-Type", "application/yaml"}}, "items: []"});
  auto yaml = client_->Resource(kConfigMaps, "ns").List();
  ASSERT_FALSE(yaml.ok());
  EXPECT_THAT(yaml.error().message, ::testing::HasSubstr("cannot be decoded"));

  transport_->Enqueue(HttpResponse{200, {{"Content-Type", "application/vnd.kubernetes.protobuf"}}, std::string("k8s\0", 4)});
  auto proto = client_->Resource(kConfigMaps, "ns").List();
  ASSERT_FALSE(proto.ok());
  EXPECT_EQ(proto.error().code, 500);
  EXPECT_EQ(proto.error().message,
            "unable to decode the response of GET /api/v1/namespaces/ns/configmaps: malformed protobuf: the envelope has no object");

  const std::string text = CmList({"a", "b"});
  transport_->EnqueueJson(200, text.substr(0, text.size() - 3));
  auto cut = client_->Resource(kConfigMaps, "ns").List();
  ASSERT_FALSE(cut.ok());
  EXPECT_THAT(cut.error().message, ::testing::HasSubstr("unable to decode the response of GET"));
}

TEST_F(DynamicClientTest, WatchRejectedBeforeStreamingIsAClassifiedError) {
  transport_->EnqueueJson(
      410, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"The resourceVersion for the provided watch is too old.","reason":"Expired","code":410})");
  auto watch = client_->Resource(kConfigMaps, "ns").Watch({.resource_version = "1"});
  ASSERT_FALSE(watch.ok());
  EXPECT_TRUE(IsExpired(watch.error()));
  EXPECT_EQ(watch.error().message, "The resourceVersion for the provided watch is too old.");
}

}  // namespace
}  // namespace kube::client

namespace kube::client {
namespace {

std::string ProtobufFixture(const std::string& name) {
  std::ifstream in(std::string(KUBE_TESTDATA_DIR) + "/protobuf/" + name, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const GroupVersionResource kPods{"", "v1", "pods"};
const GroupVersionResource kWidgets{"example.com", "v1", "widgets"};

TEST_F(DynamicClientTest, ListsOfBuiltInKindsAskForProtobufAndReadItAsTheJsonList) {
  const std::string pb = ProtobufFixture("pod_list.pb");
  ASSERT_FALSE(pb.empty());
  transport_->Enqueue(HttpResponse{200, {{"Content-Type", "application/vnd.kubernetes.protobuf"}}, pb});
  std::vector<std::string> handed;
  auto list = client_->Resource(kPods, "typedbench-0").List({}, [&](ObjectPtr& o) { handed.emplace_back(o->Name()); });
  ASSERT_TRUE(list.ok()) << list.error().message;
  EXPECT_EQ(FindHeader(Last().headers, "Accept").value_or(""), "application/vnd.kubernetes.protobuf, application/json");
  auto want = ObjectList::Parse(ProtobufFixture("pod_list.json"));
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(list->kind, "PodList");
  EXPECT_EQ(list->api_version, "v1");
  EXPECT_EQ(list->resource_version, want->resource_version);
  EXPECT_EQ(list->continue_token, want->continue_token);
  ASSERT_EQ(list->items.size(), want->items.size());
  for (std::size_t i = 0; i < want->items.size(); ++i) {
    EXPECT_EQ(list->items[i]->Json(), want->items[i]->Json());
    EXPECT_EQ(handed[i], want->items[i]->Name());
  }
  // A server that answers JSON anyway (custom resources, the embedded server) is read as JSON.
  transport_->EnqueueJson(200, CmList({"a"}));
  auto json = client_->Resource(kConfigMaps, "ns").List();
  ASSERT_TRUE(json.ok()) << json.error().message;
  EXPECT_EQ(json->items.size(), 1u);
}

TEST_F(DynamicClientTest, CustomResourcesAndAClientThatOptsOutAskForJson) {
  transport_->EnqueueJson(200, R"({"kind":"WidgetList","apiVersion":"example.com/v1","metadata":{},"items":[]})");
  ASSERT_TRUE(client_->Resource(kWidgets, "ns").List().ok());
  EXPECT_EQ(FindHeader(Last().headers, "Accept").value_or(""), "application/json");

  Config c;
  c.host = "https://k";
  c.qps = -1;
  c.protobuf = false;
  DynamicClient json_only(RestClient::Create(c, {.clock = &clock_, .transport = transport_}).value());
  transport_->EnqueueJson(200, CmList({"a"}));
  ASSERT_TRUE(json_only.Resource(kConfigMaps, "ns").List().ok());
  EXPECT_EQ(FindHeader(Last().headers, "Accept").value_or(""), "application/json");
}

TEST_F(DynamicClientTest, AProtobufFieldThisBuildDoesNotKnowMakesTheListAskAgainInJson) {
  // A newer server's ConfigMapList whose item has field 9 (unknown in 1.32).
  std::string item = std::string("\x0a\x03\x0a\x01" "a", 5) + std::string("\x48\x01", 2);
  std::string list = std::string("\x0a\x00", 2) + "\x12" + static_cast<char>(item.size()) + item;
  std::string type_meta = std::string("\x0a\x02v1\x12\x0d" "ConfigMapList", 19);
  std::string body = std::string("k8s\0", 4) + "\x0a" + static_cast<char>(type_meta.size()) + type_meta + "\x12" +
                     static_cast<char>(list.size()) + list;
  transport_->Enqueue(HttpResponse{200, {{"Content-Type", "application/vnd.kubernetes.protobuf"}}, body});
  transport_->EnqueueJson(200, CmList({"a"}));
  auto got = client_->Resource(kConfigMaps, "ns").List();
  ASSERT_TRUE(got.ok()) << got.error().message;
  ASSERT_EQ(got->items.size(), 1u);
  EXPECT_EQ(got->items[0]->Name(), "a");
  const auto requests = transport_->Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(FindHeader(requests[0].headers, "Accept").value_or(""), "application/vnd.kubernetes.protobuf, application/json");
  EXPECT_EQ(FindHeader(requests[1].headers, "Accept").value_or(""), "application/json");
  // From then on, JSON only.
  transport_->EnqueueJson(200, CmList({"b"}));
  ASSERT_TRUE(client_->Resource(kConfigMaps, "ns").List().ok());
  EXPECT_EQ(FindHeader(Last().headers, "Accept").value_or(""), "application/json");
}

// Watches of built-in kinds ask for protobuf as lists do; an unknown field in a watch frame ends
// that watch with a 415 and turns the client's later lists and watches to JSON.
TEST_F(DynamicClientTest, WatchesOfBuiltInKindsAskForProtobufAndAnUnknownFieldTurnsThemToJson) {
  auto script = transport_->EnqueueStream(200, {{"Content-Type", "application/vnd.kubernetes.protobuf;stream=watch"}});
  auto watch = client_->Resource(kConfigMaps, "ns").Watch({.resource_version = "1"});
  ASSERT_TRUE(watch.ok()) << watch.error().message;
  EXPECT_EQ(FindHeader(Last().headers, "Accept").value_or(""), "application/vnd.kubernetes.protobuf, application/json");
  script->Push(std::string("\x00\x00\x00\x02\x48\x01", 6));  // a WatchEvent with field 9
  auto ev = (*watch)->Next();
  ASSERT_FALSE(ev.ok());
  EXPECT_TRUE(IsUnsupportedMediaType(ev.error()));
  EXPECT_TRUE(client_->rest()->protobuf_refused());
  transport_->EnqueueStream(200, {{"Content-Type", "application/json"}});
  ASSERT_TRUE(client_->Resource(kConfigMaps, "ns").Watch({.resource_version = "1"}).ok());
  EXPECT_EQ(FindHeader(Last().headers, "Accept").value_or(""), "application/json");
  transport_->EnqueueStream(200, {{"Content-Type", "application/json"}});
  ASSERT_TRUE(client_->Resource(kWidgets, "ns").Watch({.resource_version = "1"}).ok());
  EXPECT_EQ(FindHeader(Last().headers, "Accept").value_or(""), "application/json");
}

}  // namespace
}  // namespace kube::client
