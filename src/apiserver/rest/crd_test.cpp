#include "apiserver/rest/crd.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <kube/apiserver/apiserver.hpp>

#include "apiserver/rest/apply.hpp"
#include "apiserver/rest/builtin_schema.hpp"
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
      "spec.versions: Invalid value: must contain unique version names",
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
      R"(spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "float": must be one of boolean,date,integer,number,string)",
  };
  EXPECT_EQ(errs, want);
}

TEST(CrdTest, PrinterColumnsAndStoredVersionsAsKube) {
  auto crd = ValidCrd();
  auto& versions = crd["spec"].as_object()["versions"].as_array();
  auto& col = versions[0].as_object()["additionalPrinterColumns"].as_array()[0].as_object();
  col["format"] = "percent";
  col["jsonPath"] = "spec.replicas";
  col.erase("type");
  versions[0].as_object()["storage"] = false;
  const auto errs = Strings(ValidateCrd(crd, nullptr));
  const std::vector<std::string> want = {
      "spec.versions[0].additionalPrinterColumns[0].type: Required value: must be one of boolean,date,integer,number,string",
      R"(spec.versions[0].additionalPrinterColumns[0].format: Invalid value: "percent": must be one of )"
      "byte,date,date-time,double,float,int32,int64,password",
      R"(spec.versions[0].additionalPrinterColumns[0].JSONPath: Invalid value: "spec.replicas": must be a simple json path starting with .)",
      "spec.versions: Invalid value: must have exactly one version marked as storage version",
      "status.storedVersions: Invalid value: []string(nil): must have at least one stored version",
  };
  EXPECT_EQ(errs, want);
  // On update the stored versions come from the old object: no such error.
  auto old = ValidCrd();
  for (const auto& e : Strings(ValidateCrd(crd, &old))) EXPECT_EQ(e.find("storedVersions"), std::string::npos) << e;
  // No version served is allowed (kube has no such rule).
  auto unserved = ValidCrd();
  unserved["spec"].as_object()["versions"].as_array()[0].as_object()["served"] = false;
  EXPECT_TRUE(ValidateCrd(unserved, nullptr).empty());
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
      "spec.i: Invalid value: 5: spec.i in body should be less than 5",
      "spec.e: Invalid value: 0.5: spec.e in body should be greater than 0.5",
      R"(spec.s: Invalid value: "b": spec.s in body should be at least 2 chars long)",
      R"(spec.s: Invalid value: "b": spec.s in body should match '^a')",
      "spec.l: Invalid value: 0: spec.l in body should have at least 1 items",
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
  info.version = "v1";
  info.kind = "W";
  info.schema = Schema(R"({"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"string"}}}}})");
  const auto body = Parse(R"({"apiVersion":"example.com/v1","kind":"W","metadata":{"name":"w"},"spec":{"a":"x","foo":1,"bar":2}})");
  std::vector<std::string> warnings;
  EXPECT_TRUE(CheckUnknownFields(info, body, "Ignore", &warnings).ok());
  EXPECT_TRUE(warnings.empty());
  EXPECT_TRUE(CheckUnknownFields(info, body, "Warn", &warnings).ok());
  EXPECT_EQ(warnings, (std::vector<std::string>{R"(unknown field "spec.foo")", R"(unknown field "spec.bar")"}));
  warnings.clear();
  // No parameter: kube 1.32's default is Warn.
  EXPECT_TRUE(CheckUnknownFields(info, body, "", &warnings).ok());
  EXPECT_EQ(warnings.size(), 2u);
  auto strict = CheckUnknownFields(info, body, "Strict", nullptr);
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.error().code, 400);
  EXPECT_EQ(strict.error().message,
            R"(W in version "v1" cannot be handled as a W: strict decoding error: unknown field "spec.foo", unknown field "spec.bar")");
  auto patched = CheckUnknownFieldsOfPatch(info, body, "Strict", nullptr);
  ASSERT_FALSE(patched.ok());
  EXPECT_EQ(patched.error().message, R"(strict decoding error: unknown field "spec.foo", unknown field "spec.bar")");
}

TEST(BuiltinFieldSchemaTest, UnknownFieldsOfBuiltinsIncludeMetadataAndNestedTypes) {
  Registry registry;
  RegisterBuiltins(registry);
  const auto pods = registry.Find("", "v1", "pods");
  ASSERT_NE(pods, nullptr);
  const auto body = Parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labelz":{}},
      "spec":{"containers":[{"name":"c","image":"i","imagePullPolicy":"Always","foo":1,
      "livenessProbe":{"httpGet":{"port":8080,"bogus":true}}}],"bar":2},"top":3})");
  std::vector<std::string> warnings;
  ASSERT_TRUE(CheckUnknownFields(*pods, body, "Warn", &warnings).ok());
  EXPECT_EQ(warnings, (std::vector<std::string>{R"(unknown field "metadata.labelz")",
                                                R"(unknown field "spec.containers[0].foo")",
                                                R"(unknown field "spec.containers[0].livenessProbe.httpGet.bogus")",
                                                R"(unknown field "spec.bar")", R"(unknown field "top")"}));
  auto strict = CheckUnknownFields(*pods, body, "Strict", nullptr);
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.error().code, 400);
  EXPECT_EQ(strict.error().message.rfind(
                R"(Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "metadata.labelz", unknown field)", 0),
            0u);

  bj::object pruned = body;
  PruneBuiltinFields(*pods, pruned);
  EXPECT_EQ(UnknownFields(*BuiltinFieldSchema(*pods), pruned, false), std::vector<std::string>{});
  EXPECT_TRUE(pruned.at("spec").at("containers").at(0).as_object().contains("imagePullPolicy"));
  EXPECT_EQ(pruned.at("spec").at("containers").at(0).at("livenessProbe").at("httpGet").as_object().size(), 1u);

  // Apply: structured-merge-diff's typed-conversion paths.
  EXPECT_EQ(UndeclaredApplyFields(*BuiltinFieldSchema(*pods), body),
            (std::vector<std::string>{".metadata.labelz: field not declared in schema",
                                      R"(.spec.containers[name="c"].foo: field not declared in schema)",
                                      R"(.spec.containers[name="c"].livenessProbe.httpGet.bogus: field not declared in schema)",
                                      ".spec.bar: field not declared in schema", ".top: field not declared in schema"}));
}

TEST(BuiltinFieldSchemaTest, SchemasAreCompleteGoTypesAndRbacAndCrdHaveThem) {
  Registry registry;
  RegisterBuiltins(registry);
  const auto pods = registry.Find("", "v1", "pods");
  // Every struct is described member by member, as the Go types are: an unknown member is
  // found at any depth; a member of kube 1.32's types (status.resize) is not unknown.
  const auto body = Parse(R"({"spec":{"containers":[],"affinity":{"nodeAffinity":{"anything":{"x":1}}},
      "volumes":[{"name":"v","csi":{"driver":"d","newField":1}}]},"status":{"resize":"x"}})");
  EXPECT_EQ(UnknownFields(*BuiltinFieldSchema(*pods), body, false),
            (std::vector<std::string>{"spec.affinity.nodeAffinity.anything", "spec.volumes[0].csi.newField"}));
  const auto roles = registry.Find("rbac.authorization.k8s.io", "v1", "clusterroles");
  ASSERT_NE(roles, nullptr);
  ASSERT_NE(BuiltinFieldSchema(*roles), nullptr);
  EXPECT_EQ(UnknownFields(*BuiltinFieldSchema(*roles),
                          Parse(R"({"rules":[{"verbs":["get"],"verb":"x"}],"aggregationRule":{"clusterRoleSelectors":[]}})"),
                          false),
            std::vector<std::string>{"rules[0].verb"});
  const auto crds = registry.Find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  ASSERT_NE(crds, nullptr);
  EXPECT_EQ(UnknownFields(*BuiltinFieldSchema(*crds),
                          Parse(R"({"spec":{"group":"g","versions":[{"name":"v1","schema":{"openAPIV3Schema":
                              {"type":"object","x-anything":{"deep":1}}},"servd":true}]},"status":{"x":1}})"),
                          false),
            (std::vector<std::string>{"spec.versions[0].servd", "status.x"}));
  EXPECT_EQ(BuiltinFieldSchema(*registry.Find("events.k8s.io", "v1", "events")),
            BuiltinSchema(BuiltinKind::kEvent));
  // Every stored built-in resource has a field schema, and its JSON text parses (`bindings`
  // only takes a POST that binds a pod).
  for (const auto& info : registry.All()) {
    if (info->resource == "bindings") continue;
    ASSERT_NE(BuiltinFieldSchema(*info), nullptr) << info->Gr().String();
    EXPECT_TRUE(ParseTypeSchema(std::string_view(BuiltinFieldSchemaJson(*info))).ok()) << info->Gr().String();
  }
}

TEST(LastAppliedTest, EncodedAsGoEncodesAMapWithoutTheAnnotationKey) {
  const auto config = Parse(R"({"kind":"ConfigMap","apiVersion":"v1",
      "metadata":{"name":"x","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"old","z":"<a&b>"}},
      "data":{"b":"\u2028","a":"line\n"},"n":1.5,"i":-3,"t":true,"l":[null,{"y":1,"x":2}]})");
  EXPECT_EQ(BuildLastApplied(config),
            R"({"apiVersion":"v1","data":{"a":"line\n","b":"\u2028"},"i":-3,"kind":"ConfigMap","l":[null,{"x":2,"y":1}],)"
            R"("metadata":{"annotations":{"z":"\u003ca\u0026b\u003e"},"name":"x"},"n":1.5,"t":true})"
            "\n");
  // Only the key goes: an annotations map it leaves empty stays.
  EXPECT_EQ(BuildLastApplied(Parse(R"({"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"o"}}})")),
            "{\"metadata\":{\"annotations\":{}}}\n");
}

TEST(LastAppliedTest, SyncOnlyForKubectlAndAnExistingAnnotation) {
  const auto config = Parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":"2"}})");
  auto live = Parse(R"({"metadata":{"name":"x","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"old"}}})");
  auto other = live;
  SyncLastApplied(other, config, "other");
  EXPECT_EQ(other, live);
  auto none = Parse(R"({"metadata":{"name":"x"}})");
  SyncLastApplied(none, config, "kubectl");
  EXPECT_FALSE(none.at("metadata").as_object().contains("annotations"));
  SyncLastApplied(live, config, "kubectl");
  EXPECT_EQ(live.at("metadata").at("annotations").at("kubectl.kubernetes.io/last-applied-configuration").as_string(),
            BuildLastApplied(config));
  // Too large for kube's 256 KiB annotation budget: the annotation is dropped instead.
  auto big = Parse(R"({"metadata":{"name":"x","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"old"}}})");
  auto huge = config;
  huge["data"].as_object()["a"] = std::string(300 * 1024, 'x');
  SyncLastApplied(big, huge, "kubectl");
  EXPECT_FALSE(big.at("metadata").at("annotations").as_object().contains("kubectl.kubernetes.io/last-applied-configuration"));
}

TEST(LastAppliedTest, AllowedConflictsAreLastAppliedFieldsStillLive) {
  const std::string last = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":"1","b":"2"}})";
  bj::object live = Parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","annotations":{}},
                              "data":{"a":"1","b":"changed","c":"3"}})");
  live["metadata"].as_object()["annotations"].as_object()["kubectl.kubernetes.io/last-applied-configuration"] = last;
  auto allowed = AllowedConflictsFromLastApplied(live, BuiltinSchema(BuiltinKind::kConfigMap).get());
  ASSERT_TRUE(allowed.ok()) << allowed.error().message;
  EXPECT_TRUE(allowed->contains(".data.a"));
  EXPECT_FALSE(allowed->contains(".data.b"));  // changed since
  EXPECT_FALSE(allowed->contains(".data.c"));  // never client-side applied
  EXPECT_FALSE(AllowedConflictsFromLastApplied(Parse(R"({"metadata":{}})"), nullptr).ok());
}

TEST(CrdTerminatingTest, ConditionOrDeletionTimestamp) {
  EXPECT_FALSE(CrdIsTerminating(Parse(R"({"metadata":{"name":"a.b.c"}})")));
  EXPECT_TRUE(CrdIsTerminating(Parse(R"({"metadata":{"deletionTimestamp":"2024-01-01T00:00:00Z"}})")));
  EXPECT_TRUE(CrdIsTerminating(Parse(R"({"status":{"conditions":[{"type":"Terminating","status":"True"}]}})")));
  EXPECT_FALSE(CrdIsTerminating(Parse(R"({"status":{"conditions":[{"type":"Terminating","status":"False"}]}})")));
  const Error e = NewCrdTerminatingCreate({"example.com", "widgets"});
  EXPECT_EQ(e.code, 405);
  EXPECT_EQ(e.reason, "MethodNotAllowed");
  EXPECT_EQ(e.message, "create not allowed while custom resource definition is terminating");
  ASSERT_TRUE(e.details.has_value());
  EXPECT_EQ(e.details->group, "example.com");
  EXPECT_EQ(e.details->kind, "widgets");
}

}  // namespace
}  // namespace kube::apiserver::rest
