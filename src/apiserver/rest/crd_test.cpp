#include "apiserver/rest/crd.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "apiserver/rest/schema_validation.hpp"

namespace kube::apiserver::rest {
namespace {

namespace bj = boost::json;

bj::object Parse(std::string_view s) { return bj::parse(s).as_object(); }

bj::object ValidCrd() {
  return Parse(R"({"metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced",
    "names":{"plural":"widgets","kind":"Widget","shortNames":["wd"]},
    "versions":[{"name":"v1","served":true,"storage":true,
      "subresources":{"status":{},"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas",
                                          "labelSelectorPath":".status.selector"}},
      "additionalPrinterColumns":[{"name":"Replicas","type":"integer","jsonPath":".spec.replicas","priority":1}],
      "selectableFields":[{"jsonPath":".spec.color"}],
      "schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object"}}}}},
     {"name":"v2","served":false,"storage":false,"schema":{"openAPIV3Schema":{"type":"object"}}}]}})");
}

std::vector<std::string> Strings(const std::vector<FieldError>& errs) {
  std::vector<std::string> out;
  for (const auto& e : errs) out.push_back(e.String());
  return out;
}

TEST(CrdTest, DefaultingSetsNamesConversionAndFinalizer) {
  auto crd = ValidCrd();
  DefaultCrd(crd, /*creating=*/true);
  EXPECT_EQ(bj::serialize(crd.at("spec").at("names")),
            R"({"plural":"widgets","kind":"Widget","shortNames":["wd"],"singular":"widget","listKind":"WidgetList"})");
  EXPECT_EQ(bj::serialize(crd.at("spec").at("conversion")), R"({"strategy":"None"})");
  EXPECT_EQ(bj::serialize(crd.at("metadata").at("finalizers")), R"(["customresourcecleanup.apiextensions.k8s.io"])");
  DefaultCrd(crd, /*creating=*/true);  // idempotent
  EXPECT_EQ(crd.at("metadata").at("finalizers").as_array().size(), 1u);
}

TEST(CrdTest, ValidCrdHasNoErrors) { EXPECT_TRUE(ValidateCrd(ValidCrd(), nullptr).empty()) << Strings(ValidateCrd(ValidCrd(), nullptr))[0]; }

TEST(CrdTest, UpdateRulesDependOnEstablishment) {
  const bj::object old = ValidCrd();
  bj::object changed = old;
  changed["spec"].as_object()["scope"] = "Cluster";
  EXPECT_TRUE(ValidateCrdUpdate(changed, old).empty()) << "scope may change before the CRD is established";
  bj::object established = old;
  established["status"] = bj::object{{"conditions", bj::array{bj::object{{"type", "Established"}, {"status", "True"}}}}};
  EXPECT_EQ(Strings(ValidateCrdUpdate(changed, established)),
            std::vector<std::string>{"spec.scope: Invalid value: \"Cluster\": field is immutable"});
  bj::object regrouped = old;
  regrouped["spec"].as_object()["group"] = "other.io";
  EXPECT_EQ(Strings(ValidateCrdUpdate(regrouped, old)),
            std::vector<std::string>{"spec.group: Invalid value: \"other.io\": field is immutable"});
}

TEST(CrdTest, ValidationMessages) {
  auto crd = ValidCrd();
  crd["metadata"].as_object()["name"] = "gadgets.example.com";
  crd["spec"].as_object()["group"] = "example";
  crd["spec"].as_object()["scope"] = "Global";
  crd["spec"].as_object()["names"].as_object()["kind"] = "WidgetList";
  crd["spec"].as_object()["names"].as_object()["listKind"] = "WidgetList";
  crd["spec"].as_object()["versions"].as_array()[1].as_object()["storage"] = true;
  crd["spec"].as_object()["versions"].as_array()[1].as_object()["name"] = "v1";
  const auto errs = Strings(ValidateCrd(crd, nullptr));
  const std::vector<std::string> want = {
      R"(metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group)",
      R"(spec.group: Invalid value: "example": should be a domain with at least one dot)",
      R"(spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced")",
      R"(spec.versions[1].name: Duplicate value: "v1")",
      "spec.versions: Invalid value: must have exactly one version marked as storage version",
      R"(spec.names.listKind: Invalid value: "WidgetList": kind and listKind may not be the same)",
  };
  EXPECT_EQ(errs, want);
}

TEST(CrdTest, VersionRules) {
  auto crd = ValidCrd();
  auto& v0 = crd["spec"].as_object()["versions"].as_array()[0].as_object();
  v0.erase("schema");
  v0["served"] = false;
  v0["subresources"].as_object()["scale"].as_object()["specReplicasPath"] = ".status.replicas";
  v0["additionalPrinterColumns"].as_array()[0].as_object()["type"] = "float";
  const auto errs = Strings(ValidateCrd(crd, nullptr));
  const std::vector<std::string> want = {
      "spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required",
      R"(spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec)",
      R"(spec.versions[0].additionalPrinterColumns[0].type: Unsupported value: "float": supported values: "integer", "number", "string", "boolean", "date")",
      "spec.versions: Invalid value: must serve at least one version",
  };
  EXPECT_EQ(errs, want);
}

TEST(CrdTest, JsonPathToPointer) {
  EXPECT_EQ(SimpleJsonPathToPointer(".spec.replicas"), "/spec/replicas");
  EXPECT_EQ(SimpleJsonPathToPointer(".metadata.annotations.a~b"), "/metadata/annotations/a~0b");
  EXPECT_EQ(SimpleJsonPathToPointer(".spec.items[0]"), "");
  EXPECT_EQ(SimpleJsonPathToPointer("spec"), "");
  EXPECT_EQ(SimpleJsonPathToPointer(".spec..x"), "");
  EXPECT_EQ(SimpleJsonPathToPointer("."), "");
}

TEST(CrdTest, ServedResources) {
  auto crd = ValidCrd();
  DefaultCrd(crd, true);
  const auto infos = CrdServedResources(crd);
  ASSERT_EQ(infos.size(), 1u);  // v2 is not served
  const auto& w = infos[0];
  EXPECT_EQ(w.Gvr().String(), "example.com/v1, Resource=widgets");
  EXPECT_EQ(w.kind, "Widget");
  EXPECT_EQ(w.list_kind, "WidgetList");
  EXPECT_EQ(w.singular, "widget");
  EXPECT_TRUE(w.namespaced);
  EXPECT_EQ(w.short_names, std::vector<std::string>{"wd"});
  EXPECT_TRUE(w.has_status);
  EXPECT_TRUE(w.has_scale);
  EXPECT_EQ(w.scale_spec_replicas_path, "/spec/replicas");
  EXPECT_EQ(w.scale_status_replicas_path, "/status/replicas");
  EXPECT_EQ(w.scale_label_selector_path, "/status/selector");
  EXPECT_FALSE(w.allow_unconditional_update);
  EXPECT_TRUE(w.tracks_generation);
  ASSERT_EQ(w.table_columns.size(), 1u);
  EXPECT_EQ(w.table_columns[0].name, "Replicas");
  EXPECT_EQ(w.table_columns[0].json_path, ".spec.replicas");
  EXPECT_EQ(w.table_columns[0].priority, 1);
  ASSERT_EQ(w.field_selectors.size(), 1u);
  EXPECT_EQ(w.field_selectors[0].first, "spec.color");
  EXPECT_EQ(w.field_selectors[0].second, "/spec/color");
  ASSERT_NE(w.schema, nullptr);
  EXPECT_NE(w.schema->Member("spec"), nullptr);

  // Cluster scope, no columns: the default Age column.
  crd["spec"].as_object()["scope"] = "Cluster";
  crd["spec"].as_object()["versions"].as_array()[0].as_object().erase("additionalPrinterColumns");
  const auto cluster = CrdServedResources(crd);
  ASSERT_EQ(cluster.size(), 1u);
  EXPECT_FALSE(cluster[0].namespaced);
  ASSERT_EQ(cluster[0].table_columns.size(), 1u);
  EXPECT_EQ(cluster[0].table_columns[0].name, "Age");
}

TEST(CrdTest, NamesConflicts) {
  auto make = [](std::string resource, std::string singular, std::string kind, std::vector<std::string> shorts) {
    ResourceInfo r;
    r.group = "example.com";
    r.version = "v1";
    r.resource = std::move(resource);
    r.singular = std::move(singular);
    r.kind = std::move(kind);
    r.list_kind = r.kind + "List";
    r.short_names = std::move(shorts);
    return std::make_shared<const ResourceInfo>(std::move(r));
  };
  CrdNames n{"example.com", "widgets", "widget", "Widget", "WidgetList", {"wd"}, {}};
  EXPECT_TRUE(FindNamesConflict(n, {make("gadgets", "gadget", "Gadget", {"gd"})}).reason.empty());
  auto c = FindNamesConflict(n, {make("gadgets", "gadget", "Gadget", {"widgets"})});
  EXPECT_EQ(c.reason, "PluralConflict");
  EXPECT_EQ(c.message, R"("widgets" is already in use)");
  EXPECT_EQ(FindNamesConflict(n, {make("gadgets", "widget", "Gadget", {})}).reason, "SingularConflict");
  EXPECT_EQ(FindNamesConflict(n, {make("gadgets", "gadget", "Gadget", {"wd"})}).reason, "ShortNamesConflict");
  EXPECT_EQ(FindNamesConflict(n, {make("gadgets", "gadget", "Widget", {})}).reason, "KindConflict");
  EXPECT_EQ(FindNamesConflict(n, {make("gadgets", "gadget", "WidgetList", {})}).reason, "ListKindConflict");
}

TEST(CrdTest, StatusConditions) {
  auto crd = ValidCrd();
  DefaultCrd(crd, true);
  UpdateCrdStatus(crd, {}, "2026-01-01T00:00:00Z");
  EXPECT_EQ(bj::serialize(crd.at("status")),
            R"({"acceptedNames":{"plural":"widgets","singular":"widget","shortNames":["wd"],"kind":"Widget","listKind":"WidgetList"},)"
            R"("storedVersions":["v1"],"conditions":[)"
            R"({"type":"NamesAccepted","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"NoConflicts","message":"no conflicts found"},)"
            R"({"type":"Established","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"InitialNamesAccepted","message":"the initial names have been accepted"}]})");
  // Unchanged status keeps the transition times; a conflict later flips NamesAccepted only.
  UpdateCrdStatus(crd, {}, "2026-01-02T00:00:00Z");
  EXPECT_EQ(crd.at("status").at("conditions").as_array()[0].at("lastTransitionTime"), "2026-01-01T00:00:00Z");
  UpdateCrdStatus(crd, {"KindConflict", R"("Widget" is already in use)"}, "2026-01-03T00:00:00Z");
  EXPECT_FALSE(CrdConditionTrue(crd, "NamesAccepted"));
  EXPECT_TRUE(CrdConditionTrue(crd, "Established"));
  EXPECT_EQ(crd.at("status").at("acceptedNames").at("plural"), "widgets");

  auto fresh = ValidCrd();
  UpdateCrdStatus(fresh, {"PluralConflict", "x"}, "2026-01-01T00:00:00Z");
  EXPECT_FALSE(CrdConditionTrue(fresh, "Established"));
  EXPECT_EQ(bj::serialize(fresh.at("status").at("acceptedNames")), R"({"plural":"","kind":""})");
}

// --- schema validation and pruning ---

TypeSchemaPtr Schema(std::string_view json) {
  auto s = ParseTypeSchema(json);
  EXPECT_TRUE(s.ok());
  return s.ok() ? *s : nullptr;
}

TEST(SchemaValidationTest, PruneKeepsMetaAndPreserved) {
  auto s = Schema(R"({"type":"object","properties":{
      "spec":{"type":"object","properties":{"a":{"type":"string"},
        "m":{"type":"object","additionalProperties":{"type":"object","properties":{"x":{"type":"integer"}}}},
        "list":{"type":"array","items":{"type":"object","properties":{"n":{"type":"string"}}}},
        "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"k":{"type":"object"}}},
        "emb":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"spec":{"type":"object"}}}}}}})");
  auto obj = Parse(R"({"apiVersion":"example.com/v1","kind":"W","metadata":{"name":"w","anything":1},"top":1,
      "spec":{"a":"x","b":1,"m":{"k1":{"x":1,"y":2}},"list":[{"n":"a","z":1}],
              "free":{"any":{"deep":1},"k":{"gone":1}},
              "emb":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{},"other":1}}})");
  std::vector<std::string> pruned;
  PruneAndDefault(*s, obj, &pruned);
  const std::vector<std::string> want = {"top", "spec.b", "spec.m.k1.y", "spec.list[0].z", "spec.free.k.gone",
                                         "spec.emb.other"};
  EXPECT_EQ(pruned, want);
  EXPECT_EQ(bj::serialize(obj),
            R"({"apiVersion":"example.com/v1","kind":"W","metadata":{"name":"w","anything":1},)"
            R"("spec":{"a":"x","m":{"k1":{"x":1}},"list":[{"n":"a"}],"free":{"any":{"deep":1},"k":{}},)"
            R"("emb":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{}}}})");
  EXPECT_EQ(UnknownFields(*s, Parse(R"({"spec":{"q":1},"x":2})")), (std::vector<std::string>{"spec.q", "x"}));
}

TEST(SchemaValidationTest, Defaults) {
  auto s = Schema(R"({"type":"object","properties":{"spec":{"type":"object","default":{},"properties":{
      "size":{"type":"string","default":"m"},"n":{"type":"integer","default":3},
      "inner":{"type":"object","properties":{"d":{"type":"boolean","default":true}}}}}}})");
  auto obj = Parse(R"({"spec":{"n":5,"inner":{}}})");
  PruneAndDefault(*s, obj, nullptr);
  EXPECT_EQ(bj::serialize(obj), R"({"spec":{"n":5,"inner":{"d":true},"size":"m"}})");
  auto empty = Parse(R"({})");
  PruneAndDefault(*s, empty, nullptr);
  EXPECT_EQ(bj::serialize(empty), R"({"spec":{"n":3,"size":"m"}})");  // defaults inside a default
}

TEST(SchemaValidationTest, ConstraintMessages) {
  auto s = Schema(R"({"type":"object","properties":{"spec":{"type":"object","required":["r"],"properties":{
      "r":{"type":"string"},
      "i":{"type":"integer","minimum":1,"exclusiveMaximum":true,"maximum":5},
      "e":{"type":"number","minimum":0.5,"exclusiveMinimum":true},
      "s":{"type":"string","minLength":2,"maxLength":3,"pattern":"^a"},
      "l":{"type":"array","minItems":1,"items":{"type":"integer"}},
      "set":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},
      "n":{"type":"string","nullable":true},
      "nn":{"type":"string"},
      "ios":{"x-kubernetes-int-or-string":true},
      "en":{"type":"string","enum":["a","b"]}}}}})");
  auto obj = Parse(R"({"metadata":{"name":1},"spec":{"i":5,"e":0.5,"s":"b","l":[],"set":["x","x"],"n":null,"nn":null,
      "ios":true,"en":"c"}})");
  const auto errs = Strings(ValidateAgainstSchema(*s, obj));
  const std::vector<std::string> want = {
      "spec.r: Required value",
      "spec.i: Invalid value: 5: must be less than 5",
      "spec.e: Invalid value: 0.5: must be greater than 0.5",
      R"(spec.s: Invalid value: "b": should be at least 2 chars long)",
      R"(spec.s: Invalid value: "b": should match '^a')",
      "spec.l: Invalid value: 0: should have at least 1 items",
      R"(spec.set[1]: Duplicate value: "x")",
      R"(spec.nn: Invalid value: "null": spec.nn in body must be of type string: "null")",
      R"(spec.ios: Invalid value: "boolean": spec.ios in body must be of type integer,string: "boolean")",
      R"(spec.en: Unsupported value: "c": supported values: "a", "b")",
  };
  EXPECT_EQ(errs, want);
  EXPECT_TRUE(ValidateAgainstSchema(*s, Parse(R"({"spec":{"r":"x","i":1,"s":"ab","ios":"5"}})")).empty());
}

TEST(SchemaValidationTest, FieldValidationModes) {
  ResourceInfo info;
  info.group = "example.com";
  info.schema = Schema(R"({"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"string"}}}}})");
  const auto body = Parse(R"({"apiVersion":"example.com/v1","kind":"W","metadata":{"name":"w"},"spec":{"a":"x","foo":1,"bar":2}})");
  std::vector<std::string> warnings;
  EXPECT_TRUE(CheckUnknownFields(info, body, "", &warnings).ok());
  EXPECT_TRUE(CheckUnknownFields(info, body, "Ignore", &warnings).ok());
  EXPECT_TRUE(warnings.empty());
  EXPECT_TRUE(CheckUnknownFields(info, body, "Warn", &warnings).ok());
  EXPECT_EQ(warnings, (std::vector<std::string>{R"(unknown field "spec.foo")", R"(unknown field "spec.bar")"}));
  auto strict = CheckUnknownFields(info, body, "Strict", nullptr);
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.error().code, 400);
  EXPECT_EQ(strict.error().message, R"(strict decoding error: unknown field "spec.foo", unknown field "spec.bar")");
}

}  // namespace
}  // namespace kube::apiserver::rest
