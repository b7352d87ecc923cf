#include <kube/apiserver/table.hpp>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <kube/core/time.hpp>

#include "apiserver/discovery/test_registry.hpp"

namespace kube::apiserver {
namespace {

namespace bj = boost::json;
using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;
using testing::MustParse;

// kubectl get (§1.7).
constexpr std::string_view kKubectlTableAccept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,"
    "application/json";
// client-go's metadata client (§2.9).
constexpr std::string_view kMetadataListAccept =
    "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,"
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
constexpr std::string_view kMetadataAccept =
    "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,"
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

OutputKind MustNegotiate(std::string_view accept, bool is_list) {
  auto r = NegotiateOutput(accept, is_list);
  EXPECT_TRUE(r.ok()) << accept << ": " << (r.ok() ? "" : r.error().message);
  return r.value_or(OutputKind::kObject);
}

// ---------------------------------------------------------------------------------------------
// Negotiation

TEST(NegotiateOutput, KubectlGetAsksForTable) {
  EXPECT_EQ(MustNegotiate(kKubectlTableAccept, true), OutputKind::kTable);
  EXPECT_EQ(MustNegotiate(kKubectlTableAccept, false), OutputKind::kTable);
  EXPECT_EQ(ContentTypeFor(OutputKind::kTable), "application/json");
}

TEST(NegotiateOutput, PlainJsonWildcardsAndNoHeaderAreTheObject) {
  for (std::string_view accept : {"application/json", "", "*/*", "application/*", "application/json, */*",
                                  "application/json;charset=utf-8", "application/json;stream=watch"}) {
    EXPECT_EQ(MustNegotiate(accept, true), OutputKind::kObject) << accept;
  }
}

TEST(NegotiateOutput, ParametersInAnyOrderWithSpaces) {
  EXPECT_EQ(MustNegotiate("application/json; v=v1 ;g=meta.k8s.io; as=Table", true), OutputKind::kTable);
  EXPECT_EQ(MustNegotiate("Application/JSON;as=Table;g=meta.k8s.io;v=v1", true), OutputKind::kTable);
}

TEST(NegotiateOutput, QValuesChooseAmongRanges) {
  EXPECT_EQ(MustNegotiate("application/json;q=0.5,application/json;as=Table;g=meta.k8s.io;v=v1", true),
            OutputKind::kTable);
  EXPECT_EQ(MustNegotiate("application/json;as=Table;g=meta.k8s.io;v=v1;q=0.2,application/json;q=0.8", true),
            OutputKind::kObject);
  // q=0 means "not acceptable".
  EXPECT_EQ(MustNegotiate("application/json;as=Table;g=meta.k8s.io;v=v1;q=0,application/json", true),
            OutputKind::kObject);
}

TEST(NegotiateOutput, MetadataClientGetsPartialObjectMetadataInJson) {
  EXPECT_EQ(MustNegotiate(kMetadataListAccept, true), OutputKind::kPartialObjectMetadataList);
  EXPECT_EQ(MustNegotiate(kMetadataAccept, false), OutputKind::kPartialObjectMetadata);
}

TEST(NegotiateOutput, MismatchedPartialObjectMetadataIsNotAcceptableNotAFallback) {
  auto list = NegotiateOutput(kMetadataAccept, true);
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.error().code, 406);
  EXPECT_EQ(list.error().reason, "NotAcceptable");
  EXPECT_EQ(list.error().message, "you requested PartialObjectMetadata, but the requested object is a list");
  auto single = NegotiateOutput(kMetadataListAccept, false);
  ASSERT_FALSE(single.ok());
  EXPECT_EQ(single.error().message,
            "you requested PartialObjectMetadataList, but the requested object is not a list");
}

TEST(NegotiateOutput, NothingAcceptableIs406) {
  for (std::string_view accept :
       {"application/vnd.kubernetes.protobuf", "application/yaml", "text/html",
        "application/json;as=Table;v=v1beta1;g=meta.k8s.io", "application/json;as=Table",
        "application/json;as=Foo;g=meta.k8s.io;v=v1", "garbage"}) {
    auto r = NegotiateOutput(accept, true);
    ASSERT_FALSE(r.ok()) << accept;
    EXPECT_EQ(r.error().code, 406);
    EXPECT_EQ(r.error().reason, "NotAcceptable");
    EXPECT_EQ(r.error().message, "only the following media types are accepted: application/json") << accept;
  }
}

TEST(NegotiateOutput, UnservableConversionFallsThroughToTheNextRange) {
  EXPECT_EQ(MustNegotiate("application/json;as=Foo;g=meta.k8s.io;v=v1,application/json", true),
            OutputKind::kObject);
  EXPECT_EQ(MustNegotiate("application/yaml,application/json;as=Table;v=v1;g=meta.k8s.io", true),
            OutputKind::kTable);
}

TEST(ParseIncludeObject, ValuesAndError) {
  EXPECT_EQ(*ParseIncludeObject(""), TableOptions::IncludeObject::kMetadata);
  EXPECT_EQ(*ParseIncludeObject("Metadata"), TableOptions::IncludeObject::kMetadata);
  EXPECT_EQ(*ParseIncludeObject("Object"), TableOptions::IncludeObject::kObject);
  EXPECT_EQ(*ParseIncludeObject("None"), TableOptions::IncludeObject::kNone);
  auto bad = ParseIncludeObject("object");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, 400);
  EXPECT_EQ(bad.error().message, R"(unrecognized includeObject value: "object")");
}

// ---------------------------------------------------------------------------------------------
// Table shape

class TableTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::AddBuiltins(registry_); }
  ResourcePtr Find(std::string_view group, std::string_view resource) {
    return registry_.Find(group, "v1", resource);
  }
  TableOptions Options() {
    TableOptions o;
    o.now = *ParseTime("2025-01-01T00:10:00Z");
    return o;
  }
  Registry registry_;
};

constexpr std::string_view kConfigMap =
    R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg","namespace":"default","uid":"u-1",)"
    R"("resourceVersion":"10","creationTimestamp":"2025-01-01T00:00:00Z","labels":{"app":"x"}},"data":{"k":"v"}})";

TEST_F(TableTest, ListTableIsExactlyKubesShape) {
  TableOptions o = Options();
  o.resource_version = "12";
  o.continue_token = "tok";
  o.remaining_item_count = 3;
  const std::string table = RenderTable(*Find("", "configmaps"), {MustParse(kConfigMap)}, o);
  EXPECT_EQ(
      table,
      R"({"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"12","continue":"tok","remainingItemCount":3},)"
      R"("columnDefinitions":[{"name":"Name","type":"string","format":"name","description":"Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names","priority":0},)"
      R"({"name":"Data","type":"string","format":"","description":"Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.","priority":0},)"
      R"({"name":"Age","type":"string","format":"","description":"CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata","priority":0}],)"
      R"("rows":[{"cells":["cfg",1,"10m"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1",)"
      R"("metadata":{"name":"cfg","namespace":"default","uid":"u-1","resourceVersion":"10","creationTimestamp":"2025-01-01T00:00:00Z","labels":{"app":"x"}}}}]})");
}

TEST_F(TableTest, EmptyListHasEmptyRowsAndEmptyMetadata) {
  const bj::value t = bj::parse(RenderTable(*Find("", "pods"), {}, Options()));
  EXPECT_EQ(t.at("metadata"), bj::object{});
  EXPECT_EQ(t.at("rows"), bj::array{});
  EXPECT_EQ(t.at("columnDefinitions").as_array().size(), 9u);
}

TEST_F(TableTest, IncludeObjectNoneAndObject) {
  TableOptions o = Options();
  o.include_object = TableOptions::IncludeObject::kNone;
  EXPECT_NE(RenderTable(*Find("", "configmaps"), {MustParse(kConfigMap)}, o).find(R"(,"object":null})"),
            std::string::npos);
  o.include_object = TableOptions::IncludeObject::kObject;
  const bj::value t = bj::parse(RenderTable(*Find("", "configmaps"), {MustParse(kConfigMap)}, o));
  EXPECT_EQ(t.at("rows").at(0).at("object"), bj::parse(kConfigMap));
  // A stored object without kind/apiVersion gets them from the resource.
  const bj::value bare = bj::parse(RenderTable(*Find("apps", "deployments"),
                                               {MustParse(R"({"metadata":{"name":"d"}})")}, o));
  EXPECT_EQ(bare.at("rows").at(0).at("object").at("kind"), "Deployment");
  EXPECT_EQ(bare.at("rows").at(0).at("object").at("apiVersion"), "apps/v1");
}

TEST_F(TableTest, WatchEventsAfterTheFirstHaveNullColumnDefinitions) {
  TableOptions o = Options();
  const bj::value first = bj::parse(RenderObjectTable(*Find("", "configmaps"), MustParse(kConfigMap), o));
  EXPECT_EQ(first.at("columnDefinitions").as_array().size(), 3u);
  o.column_definitions = false;
  o.resource_version = "999";  // ignored: a single object's Table carries its own RV
  o.continue_token = "ignored";
  const bj::value later = bj::parse(RenderObjectTable(*Find("", "configmaps"), MustParse(kConfigMap), o));
  EXPECT_TRUE(later.at("columnDefinitions").is_null());
  EXPECT_EQ(later.at("metadata"), bj::parse(R"({"resourceVersion":"10"})"));
  EXPECT_EQ(later.at("rows").as_array().size(), 1u);
}

TEST_F(TableTest, BookmarkTable) {
  EXPECT_EQ(RenderBookmarkTable("77"),
            R"({"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"77"},"columnDefinitions":[],"rows":[]})");
}

TEST_F(TableTest, DefaultConvertorIsNameAndCreatedAt) {
  ResourceInfo crd;
  crd.group = "apiextensions.k8s.io";
  crd.version = "v1";
  crd.resource = "customresourcedefinitions";
  crd.kind = "CustomResourceDefinition";
  crd.namespaced = false;
  const bj::value t = bj::parse(RenderTable(
      crd,
      {MustParse(R"({"metadata":{"name":"widgets.example.com","creationTimestamp":"2025-01-01T01:00:00+01:00"}})"),
       MustParse(R"({"metadata":{"name":"nostamp"}})")},
      Options()));
  EXPECT_EQ(t.at("columnDefinitions").at(1).at("name"), "Created At");
  EXPECT_EQ(t.at("columnDefinitions").at(1).at("type"), "date");
  EXPECT_EQ(t.at("rows").at(0).at("cells"), bj::parse(R"(["widgets.example.com","2025-01-01T00:00:00Z"])"));
  EXPECT_EQ(t.at("rows").at(1).at("cells"), bj::parse(R"(["nostamp","0001-01-01T00:00:00Z"])"));
  // kube's default convertor leaves rows nil for an empty list.
  EXPECT_TRUE(bj::parse(RenderTable(crd, {}, Options())).at("rows").is_null());
}

TEST_F(TableTest, CustomResourceColumnsAreTypedAsTheCrdConvertorTypesThem) {
  ResourceInfo widgets = testing::WidgetResource();
  widgets.table_columns = CustomResourceColumns(bj::parse(R"([
    {"name":"Replicas","type":"integer","jsonPath":".spec.replicas"},
    {"name":"Ready","type":"string","jsonPath":".status.conditions[?(@.type==\"Ready\")].status"},
    {"name":"Ratio","type":"number","jsonPath":".spec.ratio","description":"how much"},
    {"name":"Paused","type":"boolean","jsonPath":".spec.paused","priority":1},
    {"name":"Owner","type":"string","jsonPath":".metadata.labels['app\\.kubernetes\\.io/owner']"},
    {"name":"Port","type":"string","jsonPath":".spec.ports[0]"},
    {"name":"Missing","type":"string","jsonPath":".spec.nothing"},
    {"name":"Updated","type":"date","jsonPath":".status.lastUpdate"},
    {"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}])"));
  ASSERT_EQ(widgets.table_columns.size(), 9u);
  const bj::value t = bj::parse(RenderTable(
      widgets,
      {MustParse(R"({"apiVersion":"example.com/v1","kind":"Widget",
        "metadata":{"name":"w1","creationTimestamp":"2024-12-29T00:00:00Z","labels":{"app.kubernetes.io/owner":"team-a"}},
        "spec":{"replicas":3,"ratio":0.5,"paused":false,"ports":[8080,9090]},
        "status":{"conditions":[{"type":"Synced","status":"True"},{"type":"Ready","status":"False"}],"lastUpdate":"bogus"}})")},
      Options()));
  EXPECT_EQ(t.at("rows").at(0).at("cells"),
            bj::parse(R"(["w1",3,"False",0.5,false,"team-a","8080",null,"<invalid>","3d"])"));
  const bj::array& cols = t.at("columnDefinitions").as_array();
  EXPECT_EQ(cols.at(0).at("name"), "Name");
  EXPECT_EQ(cols.at(1), bj::parse(R"({"name":"Replicas","type":"integer","format":"","description":"Custom resource definition column (in JSONPath format): .spec.replicas","priority":0})"));
  EXPECT_EQ(cols.at(3).at("description"), "how much");
  EXPECT_EQ(cols.at(4).at("priority"), 1);
}

TEST(CustomResourceColumns, EmptyMeansAgeAndMalformedEntriesAreSkipped) {
  const auto def = CustomResourceColumns(bj::value(nullptr));
  ASSERT_EQ(def.size(), 1u);
  EXPECT_EQ(def[0].name, "Age");
  EXPECT_EQ(def[0].type, "date");
  EXPECT_EQ(def[0].json_path, ".metadata.creationTimestamp");
  const auto some = CustomResourceColumns(bj::parse(R"([1,{"name":"x"},{"name":"Phase","type":"string","jsonPath":".status.phase","format":"f"}])"));
  ASSERT_EQ(some.size(), 1u);
  EXPECT_EQ(some[0].name, "Phase");
  EXPECT_EQ(some[0].format, "f");
}

// ---------------------------------------------------------------------------------------------
// HumanDuration (apimachinery duration_test.go cases)

TEST(HumanDuration, MatchesApimachinery) {
  EXPECT_EQ(HumanDuration(seconds(1)), "1s");
  EXPECT_EQ(HumanDuration(seconds(70)), "70s");
  EXPECT_EQ(HumanDuration(seconds(190)), "3m10s");
  EXPECT_EQ(HumanDuration(seconds(180)), "3m");
  EXPECT_EQ(HumanDuration(minutes(70)), "70m");
  EXPECT_EQ(HumanDuration(minutes(190)), "3h10m");
  EXPECT_EQ(HumanDuration(hours(3)), "3h");
  EXPECT_EQ(HumanDuration(hours(47)), "47h");
  EXPECT_EQ(HumanDuration(hours(49)), "2d1h");
  EXPECT_EQ(HumanDuration(hours(48)), "2d");
  EXPECT_EQ(HumanDuration(hours(8 * 24 + 2)), "8d");
  EXPECT_EQ(HumanDuration(hours(367 * 24)), "367d");
  EXPECT_EQ(HumanDuration(hours(365 * 2 * 24 + 25)), "2y1d");
  EXPECT_EQ(HumanDuration(hours(365 * 8 * 24 + 2)), "8y");
  EXPECT_EQ(HumanDuration(seconds(0)), "0s");
  EXPECT_EQ(HumanDuration(-milliseconds(1500)), "0s");  // tolerated clock skew
  EXPECT_EQ(HumanDuration(-seconds(1)), "0s");
  EXPECT_EQ(HumanDuration(-seconds(2)), "<invalid>");
}

}  // namespace
}  // namespace kube::apiserver
