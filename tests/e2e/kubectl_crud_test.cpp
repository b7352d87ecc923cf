// kubectl 1.32 CRUD against the embedded API server with TLS and the bearer token of the generated
// kubeconfig: create -f, apply -f, get (table, json, yaml, chunked, label and field selectors),
// get -w, label, annotate, patch (merge and json), replace and delete. Skipped without kubectl.
#include <sstream>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "e2e_util.hpp"

namespace kube::apiserver::e2e {
namespace {

class KubectlCrudTest : public KubectlSuite<KubectlCrudTest> {
 public:
  static constexpr const char* kTag = "kubectl-crud";

 protected:
  // Runs kubectl and asserts success, returning the output.
  // Creates namespace `ns` from a manifest (the `kubectl create namespace` generator sends protobuf).
  static std::string ConfigMap(const std::string& ns, const std::string& name, const std::string& labels,
                               const std::string& data) {
    return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: " + ns +
           "\n  labels: {" + labels + "}\ndata: {" + data + "}\n";
  }
};

TEST_F(KubectlCrudTest, ApiResourcesListsTheBuiltins) {
  const std::vector<Fields> lines = Lines(Ok("api-resources --api-group=apps -o wide"));
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[0], (Fields{"NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND", "VERBS", "CATEGORIES"}));
  const Fields* deploy = Row(lines, "deployments");
  ASSERT_NE(deploy, nullptr);
  EXPECT_EQ((*deploy)[4], "Deployment");
  EXPECT_EQ((*deploy)[5], "create,delete,deletecollection,get,list,patch,update,watch");
  EXPECT_EQ((*deploy)[6], "all");
}

TEST_F(KubectlCrudTest, CreateFromFileThenAlreadyExists) {
  Namespace("crud-create");
  const std::string file = File("create.yaml", ConfigMap("crud-create", "one", "app: a", "k: v") + "---\n" +
                                                   ConfigMap("crud-create", "two", "app: b", "k: w"));
  EXPECT_EQ(Ok("create -f " + file), "configmap/one created\nconfigmap/two created\n");
  EXPECT_EQ(JsonPath("cm one -n crud-create", "{.data.k}"), "v");

  const CommandResult again = Kubectl("create -f " + file);
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.output.find(R"(Error from server (AlreadyExists): error when creating ")" + file +
                              R"(": configmaps "one" already exists)"),
            std::string::npos)
      << again.output;

  const CommandResult missing_ns = Kubectl("create -f " + File("nons.yaml", ConfigMap("no-such-ns", "x", "", "")));
  EXPECT_NE(missing_ns.exit_code, 0);
  EXPECT_NE(missing_ns.output.find(R"(Error from server (NotFound): error when creating ")"), std::string::npos)
      << missing_ns.output;
  EXPECT_NE(missing_ns.output.find(R"(namespaces "no-such-ns" not found)"), std::string::npos) << missing_ns.output;
}

TEST_F(KubectlCrudTest, ApplyCreatesThenIsUnchangedThenConfigures) {
  Namespace("crud-apply");
  const std::string v1 = ConfigMap("crud-apply", "cfg", "app: a", "k: v1");
  EXPECT_EQ(Ok("apply -f " + File("apply1.yaml", v1)), "configmap/cfg created\n");
  const std::string rv = JsonPath("cm cfg -n crud-apply", "{.metadata.resourceVersion}");
  EXPECT_EQ(Ok("apply -f " + File("apply1.yaml", v1)), "configmap/cfg unchanged\n");
  EXPECT_EQ(JsonPath("cm cfg -n crud-apply", "{.metadata.resourceVersion}"), rv);

  EXPECT_EQ(Ok("apply -f " + File("apply2.yaml", ConfigMap("crud-apply", "cfg", "app: a", "k: v2, extra: x"))),
            "configmap/cfg configured\n");
  EXPECT_EQ(JsonPath("cm cfg -n crud-apply", "{.data.k},{.data.extra}"), "v2,x");
  EXPECT_NE(JsonPath("cm cfg -n crud-apply", "{.metadata.resourceVersion}"), rv);
  // The last-applied annotation drives the three-way merge: dropping a key removes it.
  EXPECT_EQ(Ok("apply -f " + File("apply3.yaml", ConfigMap("crud-apply", "cfg", "app: a", "k: v2"))),
            "configmap/cfg configured\n");
  EXPECT_EQ(Ok("get cm cfg -n crud-apply -o json").find("extra"), std::string::npos);

  // A Deployment: apply twice, then a spec change bumps metadata.generation.
  const std::string deploy = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: crud-apply
spec:
  replicas: REPLICAS
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
)";
  auto with_replicas = [&](const std::string& n) {
    std::string s = deploy;
    s.replace(s.find("REPLICAS"), 8, n);
    return s;
  };
  EXPECT_EQ(Ok("apply -f " + File("d1.yaml", with_replicas("1"))), "deployment.apps/web created\n");
  EXPECT_EQ(Ok("apply -f " + File("d1.yaml", with_replicas("1"))), "deployment.apps/web unchanged\n");
  EXPECT_EQ(JsonPath("deploy web -n crud-apply", "{.metadata.generation}"), "1");
  EXPECT_EQ(Ok("apply -f " + File("d2.yaml", with_replicas("2"))), "deployment.apps/web configured\n");
  EXPECT_EQ(JsonPath("deploy web -n crud-apply", "{.metadata.generation},{.spec.replicas}"), "2,2");
}

TEST_F(KubectlCrudTest, GetTableJsonYamlChunkedAndSelectors) {
  Namespace("crud-get");
  std::string manifest;
  for (int i = 0; i < 5; ++i) {
    manifest += ConfigMap("crud-get", "cm-" + std::to_string(i), i % 2 == 0 ? "tier: front" : "tier: back",
                          "a: \"1\", b: \"2\"") +
                "---\n";
  }
  Ok("create -f " + File("get.yaml", manifest));

  // Table.
  const std::vector<Fields> table = Lines(Ok("get cm -n crud-get"));
  ASSERT_EQ(table.size(), 6u);
  EXPECT_EQ(table[0], (Fields{"NAME", "DATA", "AGE"}));
  for (int i = 0; i < 5; ++i) {
    const Fields* row = Row(table, "cm-" + std::to_string(i));
    ASSERT_NE(row, nullptr) << i;
    EXPECT_EQ((*row)[1], "2");
  }

  // JSON: a v1 List of the objects with server-set metadata.
  const boost::json::value list = boost::json::parse(Ok("get cm -n crud-get -o json"));
  EXPECT_EQ(list.at("kind"), "List");
  ASSERT_EQ(list.at("items").as_array().size(), 5u);
  for (const auto& item : list.at("items").as_array()) {
    EXPECT_EQ(item.at("kind"), "ConfigMap");
    EXPECT_FALSE(item.at("metadata").at("uid").as_string().empty());
    EXPECT_FALSE(item.at("metadata").at("resourceVersion").as_string().empty());
    EXPECT_TRUE(item.at("metadata").as_object().contains("creationTimestamp"));
  }
  const boost::json::value one = boost::json::parse(Ok("get cm cm-3 -n crud-get -o json"));
  EXPECT_EQ(one.at("metadata").at("name"), "cm-3");
  EXPECT_EQ(one.at("metadata").at("labels").at("tier"), "back");

  // YAML.
  const std::string yaml = Ok("get cm cm-1 -n crud-get -o yaml");
  EXPECT_EQ(yaml.rfind("apiVersion: v1\n", 0), 0u) << yaml;
  EXPECT_NE(yaml.find("\nkind: ConfigMap\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("\n  name: cm-1\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("\n    tier: back\n"), std::string::npos) << yaml;

  // --chunk-size=2 over 5 objects: three pages (limit=2, then two continues), every row printed once.
  const CommandResult chunked = Kubectl("get cm -n crud-get --chunk-size=2 -v=6");
  ASSERT_EQ(chunked.exit_code, 0) << chunked.output;
  std::size_t pages = 0, continues = 0;
  for (const std::string& line : [&] {
         std::vector<std::string> v;
         std::istringstream in(chunked.output);
         for (std::string l; std::getline(in, l);) v.push_back(l);
         return v;
       }()) {
    if (line.find("GET https://") == std::string::npos ||
        line.find("/api/v1/namespaces/crud-get/configmaps?") == std::string::npos) {
      continue;
    }
    EXPECT_NE(line.find("limit=2"), std::string::npos) << line;
    ++pages;
    if (line.find("continue=") != std::string::npos) ++continues;
  }
  EXPECT_EQ(pages, 3u) << chunked.output;
  EXPECT_EQ(continues, 2u) << chunked.output;
  std::size_t rows = 0;
  for (const Fields& f : Lines(chunked.output)) rows += f[0].rfind("cm-", 0) == 0 ? 1 : 0;
  EXPECT_EQ(rows, 5u) << chunked.output;
  const boost::json::value chunked_json = boost::json::parse(Ok("get cm -n crud-get --chunk-size=2 -o json"));
  EXPECT_EQ(chunked_json.at("items").as_array().size(), 5u);

  // Label selectors.
  const std::vector<Fields> front = Lines(Ok("get cm -n crud-get -l tier=front -o name"));
  EXPECT_EQ(front, (std::vector<Fields>{{"configmap/cm-0"}, {"configmap/cm-2"}, {"configmap/cm-4"}}));
  const std::vector<Fields> not_front = Lines(Ok("get cm -n crud-get -l 'tier!=front' -o name"));
  EXPECT_EQ(not_front, (std::vector<Fields>{{"configmap/cm-1"}, {"configmap/cm-3"}}));
  const std::vector<Fields> set = Lines(Ok("get cm -n crud-get -l 'tier in (back),!nothing' -o name"));
  EXPECT_EQ(set, (std::vector<Fields>{{"configmap/cm-1"}, {"configmap/cm-3"}}));
  const CommandResult none = Kubectl("get cm -n crud-get -l tier=middle");
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_EQ(none.output, "No resources found in crud-get namespace.\n");

  // Field selectors.
  EXPECT_EQ(Lines(Ok("get cm -n crud-get --field-selector metadata.name=cm-2 -o name")),
            (std::vector<Fields>{{"configmap/cm-2"}}));
  EXPECT_EQ(Lines(Ok("get cm -A --field-selector metadata.namespace=crud-get,metadata.name!=cm-0 -o name")).size(), 4u);
  const CommandResult bad_field = Kubectl("get cm -n crud-get --field-selector data.a=1");
  EXPECT_NE(bad_field.exit_code, 0);
  EXPECT_NE(bad_field.output.find(R"(Error from server (BadRequest): Unable to find "/v1, Resource=configmaps" that match label selector "", field selector "data.a=1": "data.a" is not a known field selector: only "metadata.name", "metadata.namespace")"),
            std::string::npos)
      << bad_field.output;
}

TEST_F(KubectlCrudTest, GetWatchPrintsAddedThenModified) {
  Namespace("crud-watch");
  Ok("create -f " + File("w.yaml", ConfigMap("crud-watch", "watched", "", "k: v")));
  LineStream watch("timeout 60 env " + server_->KubectlPrefix() + "get cm watched -n crud-watch -w --output-watch-events");
  ASSERT_TRUE(watch.WaitFor({"ADDED", "watched"})) << watch.seen();
  EXPECT_EQ(Lines(watch.seen())[0], (Fields{"EVENT", "NAME", "DATA", "AGE"})) << watch.seen();
  Ok("patch cm watched -n crud-watch --type merge -p '{\"data\":{\"k2\":\"v2\"}}'");
  ASSERT_TRUE(watch.WaitFor({"MODIFIED", "watched"})) << watch.seen();
  const std::vector<Fields> lines = Lines(watch.seen());
  EXPECT_EQ(lines.back()[2], "2") << watch.seen();  // DATA column of the modified object
  Ok("delete cm watched -n crud-watch --wait=false");
  ASSERT_TRUE(watch.WaitFor({"DELETED", "watched"})) << watch.seen();
  EXPECT_EQ(watch.seen().find("rror"), std::string::npos) << watch.seen();
}

TEST_F(KubectlCrudTest, LabelAndAnnotate) {
  Namespace("crud-label");
  Ok("create -f " + File("l.yaml", ConfigMap("crud-label", "obj", "app: a", "")));
  EXPECT_EQ(Ok("label cm obj -n crud-label env=prod"), "configmap/obj labeled\n");
  EXPECT_EQ(JsonPath("cm obj -n crud-label", "{.metadata.labels.env}"), "prod");
  const CommandResult clash = Kubectl("label cm obj -n crud-label env=dev");
  EXPECT_NE(clash.exit_code, 0);
  EXPECT_NE(clash.output.find("'env' already has a value (prod), and --overwrite is false"), std::string::npos)
      << clash.output;
  EXPECT_EQ(Ok("label cm obj -n crud-label env=dev --overwrite"), "configmap/obj labeled\n");
  EXPECT_EQ(Lines(Ok("get cm -n crud-label -l env=dev -o name")), (std::vector<Fields>{{"configmap/obj"}}));
  EXPECT_EQ(Ok("label cm obj -n crud-label env-"), "configmap/obj unlabeled\n");
  EXPECT_EQ(JsonPath("cm obj -n crud-label", "{.metadata.labels}"), R"({"app":"a"})");

  EXPECT_EQ(Ok("annotate cm obj -n crud-label note='hello world'"), "configmap/obj annotated\n");
  EXPECT_EQ(JsonPath("cm obj -n crud-label", "{.metadata.annotations.note}"), "hello world");
  EXPECT_EQ(Ok("annotate cm obj -n crud-label note-"), "configmap/obj annotated\n");
  EXPECT_EQ(JsonPath("cm obj -n crud-label", "{.metadata.annotations}"), "");

  // Labels on a cluster-scoped object.
  EXPECT_EQ(Ok("label ns crud-label team=x"), "namespace/crud-label labeled\n");
  EXPECT_EQ(Lines(Ok("get ns -l team=x -o name")), (std::vector<Fields>{{"namespace/crud-label"}}));
}

TEST_F(KubectlCrudTest, PatchMergeAndJson) {
  Namespace("crud-patch");
  Ok("create -f " + File("p.yaml", ConfigMap("crud-patch", "obj", "", "a: \"1\", b: \"2\"")));
  EXPECT_EQ(Ok("patch cm obj -n crud-patch --type merge -p '{\"data\":{\"a\":\"10\",\"b\":null}}'"),
            "configmap/obj patched\n");
  EXPECT_EQ(JsonPath("cm obj -n crud-patch", "{.data}"), R"({"a":"10"})");
  EXPECT_EQ(Ok("patch cm obj -n crud-patch --type merge -p '{\"data\":{\"a\":\"10\"}}'"),
            "configmap/obj patched (no change)\n");

  EXPECT_EQ(Ok("patch cm obj -n crud-patch --type json -p "
               "'[{\"op\":\"add\",\"path\":\"/data/c\",\"value\":\"3\"},{\"op\":\"replace\",\"path\":\"/data/a\",\"value\":\"11\"}]'"),
            "configmap/obj patched\n");
  EXPECT_EQ(JsonPath("cm obj -n crud-patch", "{.data}"), R"({"a":"11","c":"3"})");

  const CommandResult failed_test = Kubectl(
      "patch cm obj -n crud-patch --type json -p '[{\"op\":\"test\",\"path\":\"/data/a\",\"value\":\"nope\"}]'");
  EXPECT_NE(failed_test.exit_code, 0);
  // kube-apiserver answers a failed JSON patch with a bare 422, which kubectl prints as it is.
  EXPECT_EQ(failed_test.output,
            "The request is invalid: the server rejected our request due to an error in our request\n")
      << failed_test.output;
  EXPECT_EQ(JsonPath("cm obj -n crud-patch", "{.data}"), R"({"a":"11","c":"3"})");

  const CommandResult missing = Kubectl("patch cm nope -n crud-patch --type merge -p '{\"data\":{}}'");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.output.find(R"(Error from server (NotFound): configmaps "nope" not found)"), std::string::npos)
      << missing.output;
}

TEST_F(KubectlCrudTest, ReplaceAndConflict) {
  Namespace("crud-replace");
  Ok("create -f " + File("r.yaml", ConfigMap("crud-replace", "obj", "", "k: v1")));
  std::string current = Ok("get cm obj -n crud-replace -o yaml");
  const std::size_t pos = current.find("k: v1");
  ASSERT_NE(pos, std::string::npos) << current;
  std::string next = current;
  next.replace(pos, 5, "k: v2");
  const std::string file = File("r2.yaml", next);
  EXPECT_EQ(Ok("replace -f " + file), "configmap/obj replaced\n");
  EXPECT_EQ(JsonPath("cm obj -n crud-replace", "{.data.k}"), "v2");

  // The file still carries the old resourceVersion: a second replace is a Conflict.
  const CommandResult stale = Kubectl("replace -f " + file);
  EXPECT_NE(stale.exit_code, 0);
  EXPECT_NE(stale.output.find(R"(Error from server (Conflict): error when replacing ")" + file +
                              R"(": Operation cannot be fulfilled on configmaps "obj": the object has been modified; please apply your changes to the latest version and try again)"),
            std::string::npos)
      << stale.output;

  // Without a resourceVersion the update is unconditional (ConfigMaps allow it).
  EXPECT_EQ(Ok("replace -f " + File("r3.yaml", ConfigMap("crud-replace", "obj", "", "k: v3"))),
            "configmap/obj replaced\n");
  EXPECT_EQ(JsonPath("cm obj -n crud-replace", "{.data.k}"), "v3");
}

TEST_F(KubectlCrudTest, DeleteByNameSelectorAndFile) {
  Namespace("crud-delete");
  std::string manifest;
  for (int i = 0; i < 4; ++i) {
    manifest += ConfigMap("crud-delete", "d-" + std::to_string(i), i < 2 ? "grp: first" : "grp: second", "") + "---\n";
  }
  Ok("create -f " + File("d.yaml", manifest));
  EXPECT_EQ(Ok("delete cm d-0 -n crud-delete"), "configmap \"d-0\" deleted\n");
  const CommandResult gone = Kubectl("get cm d-0 -n crud-delete");
  EXPECT_NE(gone.exit_code, 0);
  EXPECT_NE(gone.output.find(R"(Error from server (NotFound): configmaps "d-0" not found)"), std::string::npos)
      << gone.output;

  EXPECT_EQ(Ok("delete cm -n crud-delete -l grp=second"), "configmap \"d-2\" deleted\nconfigmap \"d-3\" deleted\n");
  EXPECT_EQ(Lines(Ok("get cm -n crud-delete -o name")), (std::vector<Fields>{{"configmap/d-1"}}));

  const CommandResult rest = Kubectl("delete -f " + server_->dir().string() + "/d.yaml");
  EXPECT_NE(rest.exit_code, 0);  // d-0, d-2, d-3 are gone already
  EXPECT_NE(rest.output.find("configmap \"d-1\" deleted"), std::string::npos) << rest.output;
  EXPECT_NE(rest.output.find(R"(Error from server (NotFound): error when deleting)"), std::string::npos) << rest.output;
  EXPECT_EQ(Ok("get cm -n crud-delete"), "No resources found in crud-delete namespace.\n");

  const CommandResult missing = Kubectl("delete cm nope -n crud-delete");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.output.find(R"(Error from server (NotFound): configmaps "nope" not found)"), std::string::npos)
      << missing.output;
}

}  // namespace
}  // namespace kube::apiserver::e2e
