// LIST over real HTTP: resourceVersion semantics, pagination at one snapshot, expired and bad
// continue tokens, selectors, all-namespaces and scoped lists, Table and PartialObjectMetadata.

#include "fixture.hpp"

namespace kube::apiserver::testing {
namespace {

namespace json = boost::json;

constexpr std::string_view kCm = "/api/v1/namespaces/default/configmaps";

class ListTest : public ApiServerTest {
 protected:
  static std::vector<std::string> Names(const json::value& list) {
    std::vector<std::string> out;
    if (!list.is_object() || !list.as_object().contains("items")) return out;
    for (const auto& item : list.as_object().at("items").as_array()) out.push_back(Str(item, {"metadata", "name"}));
    return out;
  }
  void CreateMany(std::string_view ns, int n) {
    for (int i = 0; i < n; ++i) {
      CreateConfigMap(ns, "cm-" + std::to_string(i), i % 2 == 0 ? R"({"parity":"even"})" : R"({"parity":"odd"})");
    }
  }
};

TEST_F(ListTest, EmptyListHasItemsArrayAndResourceVersion) {
  auto res = client().Get(std::string(kCm));
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.body.rfind(R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":")", 0), 0u) << res.body;
  EXPECT_EQ(Str(res.Json(), {"items"}), "[]");
  EXPECT_EQ(Rv(res.Json()), std::to_string(storage().CurrentRevision()));
}

TEST_F(ListTest, PagesShareOneSnapshotAndCountTheRemainder) {
  CreateMany("default", 10);
  auto first = client().Get(std::string(kCm) + "?limit=4");
  ASSERT_EQ(first.status, 200) << first.body;
  const std::string rv = Rv(first.Json());
  EXPECT_EQ(Names(first.Json()), (std::vector<std::string>{"cm-0", "cm-1", "cm-2", "cm-3"}));
  EXPECT_EQ(Str(first.Json(), {"metadata", "remainingItemCount"}), "6");
  std::string token = Str(first.Json(), {"metadata", "continue"});
  ASSERT_FALSE(token.empty());

  // Changes after the first page are not part of the paged list.
  CreateConfigMap("default", "cm-5a");
  ASSERT_EQ(client().Delete(std::string(kCm) + "/cm-7").status, 200);

  std::vector<std::string> rest;
  while (!token.empty()) {
    auto page = client().Get(std::string(kCm) + "?limit=4&continue=" + token);
    ASSERT_EQ(page.status, 200) << page.body;
    EXPECT_EQ(Rv(page.Json()), rv) << "every page carries the snapshot revision";
    for (auto& n : Names(page.Json())) rest.push_back(n);
    token = Str(page.Json(), {"metadata", "continue"});
    if (token.empty()) {
      EXPECT_EQ(Str(page.Json(), {"metadata", "remainingItemCount"}), "");
    }
  }
  EXPECT_EQ(rest, (std::vector<std::string>{"cm-4", "cm-5", "cm-6", "cm-7", "cm-8", "cm-9"}));
}

TEST_F(ListTest, ResourceVersionZeroIgnoresTheLimitAsTheWatchCacheDoes) {
  CreateMany("default", 5);
  for (const char* q : {"?resourceVersion=0&limit=2", "?resourceVersion=0&resourceVersionMatch=NotOlderThan&limit=2"}) {
    auto all = client().Get(std::string(kCm) + q);
    ASSERT_EQ(all.status, 200) << all.body;
    EXPECT_EQ(Names(all.Json()).size(), 5u) << q;
    EXPECT_EQ(Str(all.Json(), {"metadata", "continue"}), "") << q;
    EXPECT_EQ(Str(all.Json(), {"metadata", "remainingItemCount"}), "") << q;
  }
  // Any other resourceVersion with a limit pages (kube-apiserver reads those from etcd).
  auto paged = client().Get(std::string(kCm) + "?resourceVersion=1&resourceVersionMatch=NotOlderThan&limit=2");
  ASSERT_EQ(paged.status, 200) << paged.body;
  EXPECT_EQ(Names(paged.Json()).size(), 2u);
  EXPECT_FALSE(Str(paged.Json(), {"metadata", "continue"}).empty());
}

TEST_F(ListTest, SelectorsFilterPagesWithoutRemainingItemCount) {
  CreateMany("default", 6);
  auto page = client().Get(std::string(kCm) + "?limit=2&labelSelector=parity%3Deven");
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_EQ(Names(page.Json()), (std::vector<std::string>{"cm-0", "cm-2"}));
  EXPECT_EQ(Str(page.Json(), {"metadata", "remainingItemCount"}), "");
  auto next = client().Get(std::string(kCm) + "?limit=2&labelSelector=parity%3Deven&continue=" +
                           Str(page.Json(), {"metadata", "continue"}));
  EXPECT_EQ(Names(next.Json()), (std::vector<std::string>{"cm-4"}));
}

TEST_F(ListTest, ACompactedContinueTokenIsExpiredWithAFreshToken) {
  CreateMany("default", 5);
  auto first = client().Get(std::string(kCm) + "?limit=2");
  const std::string token = Str(first.Json(), {"metadata", "continue"});
  CreateConfigMap("default", "zz");
  storage().Compact(storage().CurrentRevision());
  auto expired = client().Get(std::string(kCm) + "?limit=2&continue=" + token);
  EXPECT_EQ(expired.status, 410);
  auto status = expired.Json();
  EXPECT_EQ(Str(status, {"reason"}), "Expired");
  EXPECT_EQ(Str(status, {"message"}),
            "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.");
  const std::string fresh = Str(status, {"metadata", "continue"});
  ASSERT_FALSE(fresh.empty());
  auto rest = client().Get(std::string(kCm) + "?continue=" + fresh);
  ASSERT_EQ(rest.status, 200) << rest.body;
  EXPECT_EQ(Names(rest.Json()), (std::vector<std::string>{"cm-2", "cm-3", "cm-4", "zz"}));
}

TEST_F(ListTest, BadContinueTokensAreBadRequests) {
  auto garbage = client().Get(std::string(kCm) + "?continue=%21%21");
  EXPECT_EQ(garbage.status, 400);
  EXPECT_EQ(Str(garbage.Json(), {"message"}),
            "invalid continue token: continue key is not valid: illegal base64 data at input byte 0");
  CreateMany("default", 3);
  auto first = client().Get(std::string(kCm) + "?limit=1");
  auto with_rv = client().Get(std::string(kCm) + "?limit=1&resourceVersion=5&continue=" +
                              Str(first.Json(), {"metadata", "continue"}));
  EXPECT_EQ(with_rv.status, 400);
  EXPECT_EQ(Str(with_rv.Json(), {"message"}), "specifying resource version is not allowed when using continue");
}

TEST_F(ListTest, ResourceVersionSemantics) {
  CreateConfigMap("default", "a");
  const std::string old_rv = std::to_string(storage().CurrentRevision());
  CreateConfigMap("default", "b");
  // Exact (limit + RV): the state at that revision.
  auto exact = client().Get(std::string(kCm) + "?limit=10&resourceVersion=" + old_rv);
  ASSERT_EQ(exact.status, 200) << exact.body;
  EXPECT_EQ(Names(exact.Json()), std::vector<std::string>{"a"});
  EXPECT_EQ(Rv(exact.Json()), old_rv);
  auto exact_match = client().Get(std::string(kCm) + "?resourceVersionMatch=Exact&resourceVersion=" + old_rv);
  EXPECT_EQ(Names(exact_match.Json()), std::vector<std::string>{"a"});
  // Not older than: the latest state.
  auto not_older = client().Get(std::string(kCm) + "?resourceVersion=" + old_rv);
  EXPECT_EQ(Names(not_older.Json()), (std::vector<std::string>{"a", "b"}));
  auto any = client().Get(std::string(kCm) + "?resourceVersion=0");
  EXPECT_EQ(Names(any.Json()), (std::vector<std::string>{"a", "b"}));

  const Revision current = storage().CurrentRevision();
  const std::string too_large = std::to_string(current + 100);
  auto future = client().Get(std::string(kCm) + "?resourceVersion=" + too_large);
  EXPECT_EQ(future.status, 504);
  EXPECT_EQ(future.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: )" +
                too_large + ", current: " + std::to_string(current) +
                R"(","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504})");

  CreateConfigMap("default", "c");
  storage().Compact(storage().CurrentRevision());
  auto compacted = client().Get(std::string(kCm) + "?resourceVersionMatch=Exact&resourceVersion=" + old_rv);
  EXPECT_EQ(compacted.status, 410);
  EXPECT_EQ(Str(compacted.Json(), {"message"}), "The resourceVersion for the provided list is too old.");
  EXPECT_EQ(Str(compacted.Json(), {"reason"}), "Expired");

  auto invalid = client().Get(std::string(kCm) + "?resourceVersionMatch=Exact");
  EXPECT_EQ(invalid.status, 422);
  EXPECT_EQ(invalid.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"ListOptions","causes":[{"reason":"FieldValueForbidden","message":"Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided","field":"resourceVersionMatch"}]},"code":422})");
  auto bad_rv = client().Get(std::string(kCm) + "?resourceVersion=abc");  // kube's storage fails: a 500
  EXPECT_EQ(bad_rv.status, 500);
  EXPECT_EQ(bad_rv.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax","code":500})");
  EXPECT_EQ(client().Get(std::string(kCm) + "?sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=0").status, 422);
}

TEST_F(ListTest, LabelSelectors) {
  CreateConfigMap("default", "a", R"({"env":"prod","tier":"web"})");
  CreateConfigMap("default", "b", R"({"env":"dev"})");
  CreateConfigMap("default", "c", R"({})");
  auto names = [&](const std::string& sel) { return Names(client().Get(std::string(kCm) + "?labelSelector=" + sel).Json()); };
  EXPECT_EQ(names("env%3Dprod"), std::vector<std::string>{"a"});
  EXPECT_EQ(names("env!%3Dprod"), (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(names("env%20in%20(prod,dev)"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(names("env%20notin%20(prod)"), (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(names("tier"), std::vector<std::string>{"a"});
  EXPECT_EQ(names("!env"), std::vector<std::string>{"c"});
  auto bad = client().Get(std::string(kCm) + "?labelSelector=env%20in%20prod");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(Str(bad.Json(), {"reason"}), "BadRequest");
  EXPECT_NE(Str(bad.Json(), {"message"}), "");
}

TEST_F(ListTest, FieldSelectorsNarrowByNameNamespaceAndKindFields) {
  CreateNamespace("other");
  CreateConfigMap("default", "a");
  CreateConfigMap("default", "ab");
  CreateConfigMap("other", "a");
  auto by_name = client().Get(std::string(kCm) + "?fieldSelector=metadata.name%3Da");
  EXPECT_EQ(Names(by_name.Json()), std::vector<std::string>{"a"});
  auto all = client().Get("/api/v1/configmaps?fieldSelector=metadata.namespace%3Dother");
  ASSERT_EQ(all.status, 200) << all.body;
  EXPECT_EQ(Names(all.Json()), std::vector<std::string>{"a"});
  EXPECT_EQ(Str(all.Json().as_object().at("items").as_array()[0], {"metadata", "namespace"}), "other");
  auto everywhere = client().Get("/api/v1/configmaps?fieldSelector=metadata.name%3Da");
  EXPECT_EQ(everywhere.Json().as_object().at("items").as_array().size(), 2u);

  auto pod = [&](const std::string& name, const std::string& node) {
    auto res = client().Post("/api/v1/namespaces/default/pods",
                             R"({"metadata":{"name":")" + name + R"("},"spec":{"nodeName":")" + node +
                                 R"(","containers":[{"name":"c","image":"i"}]}})");
    ASSERT_EQ(res.status, 201) << res.body;
  };
  pod("p1", "n1");
  pod("p2", "n2");
  auto on_n1 = client().Get("/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3Dn1");
  EXPECT_EQ(Names(on_n1.Json()), std::vector<std::string>{"p1"});
  auto pending = client().Get("/api/v1/pods?fieldSelector=status.phase%3DPending,spec.nodeName!%3Dn1");
  EXPECT_EQ(Names(pending.Json()), std::vector<std::string>{"p2"});
  auto unsupported = client().Get("/api/v1/namespaces/default/pods?fieldSelector=spec.image%3Dx");
  EXPECT_EQ(unsupported.status, 400);
  EXPECT_EQ(Str(unsupported.Json(), {"message"}), "field label not supported: spec.image");
  auto malformed = client().Get(std::string(kCm) + "?fieldSelector=nonsense");
  EXPECT_EQ(malformed.status, 400);
}

TEST_F(ListTest, ClusterScopedAndAllNamespacesLists) {
  auto ns = client().Get("/api/v1/namespaces");
  ASSERT_EQ(ns.status, 200);
  EXPECT_EQ(Names(ns.Json()), (std::vector<std::string>{"default", "kube-public", "kube-system"}));
  EXPECT_EQ(Str(ns.Json(), {"kind"}), "NamespaceList");
  auto deploys = client().Get("/apis/apps/v1/deployments");
  ASSERT_EQ(deploys.status, 200);
  EXPECT_EQ(Str(deploys.Json(), {"apiVersion"}), "apps/v1");
  EXPECT_EQ(Str(deploys.Json(), {"kind"}), "DeploymentList");
}

TEST_F(ListTest, TableAndPartialObjectMetadataOutput) {
  CreateConfigMap("default", "a", R"({"x":"y"})", R"({"k":"v"})");
  auto table = client().Get(std::string(kCm),
                            {{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"}});
  ASSERT_EQ(table.status, 200) << table.body;
  auto t = table.Json();
  EXPECT_EQ(Str(t, {"kind"}), "Table");
  EXPECT_EQ(Str(t, {"apiVersion"}), "meta.k8s.io/v1");
  EXPECT_EQ(Rv(t), std::to_string(storage().CurrentRevision()));
  ASSERT_EQ(t.as_object().at("rows").as_array().size(), 1u);
  EXPECT_EQ(Str(t.as_object().at("rows").as_array()[0], {"object", "kind"}), "PartialObjectMetadata");
  auto one = client().Get(std::string(kCm) + "/a", {{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}});
  EXPECT_EQ(Str(one.Json(), {"kind"}), "Table");
  auto pom = client().Get(std::string(kCm), {{"Accept", "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"}});
  ASSERT_EQ(pom.status, 200) << pom.body;
  EXPECT_EQ(Str(pom.Json(), {"kind"}), "PartialObjectMetadataList");
  EXPECT_EQ(Str(pom.Json().as_object().at("items").as_array()[0], {"metadata", "labels", "x"}), "y");
  auto unacceptable = client().Get(std::string(kCm), {{"Accept", "application/vnd.kubernetes.protobuf"}});
  EXPECT_EQ(unacceptable.status, 406);
  auto bad_include = client().Get(std::string(kCm) + "?includeObject=Everything",
                                  {{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}});
  EXPECT_EQ(bad_include.status, 400);
}

}  // namespace
}  // namespace kube::apiserver::testing
