#include <kube/cache/indexer.hpp>

#include <algorithm>
#include <thread>

#include <gtest/gtest.h>

#include "cache/test_objects.hpp"

namespace kube::cache {
namespace {

using testing::Obj;

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<std::string> Keys(const std::vector<ObjectPtr>& objs) {
  std::vector<std::string> keys;
  for (const auto& o : objs) keys.push_back(o->Key());
  return Sorted(keys);
}

TEST(Indexer, StoresByMetaNamespaceKey) {
  Indexer idx;
  idx.Add(Obj("ns1", "a", "1"));
  idx.Add(Obj("", "cluster-scoped", "2"));
  EXPECT_EQ(idx.Size(), 2u);
  ASSERT_NE(idx.GetByKey("ns1/a"), nullptr);
  EXPECT_EQ(idx.GetByKey("ns1/a")->ResourceVersion(), "1");
  ASSERT_NE(idx.GetByKey("cluster-scoped"), nullptr);
  EXPECT_EQ(idx.GetByKey("ns1/b"), nullptr);
  EXPECT_EQ(idx.GetByKey("a"), nullptr);
  EXPECT_EQ(Sorted(idx.ListKeys()), (std::vector<std::string>{"cluster-scoped", "ns1/a"}));
}

TEST(Indexer, ReserveKeepsContentAndIndexes) {
  Indexer idx;
  idx.Add(Obj("ns1", "a", "1"));
  idx.Add(Obj("ns2", "b", "2"));
  idx.Reserve(1);     // smaller than the content: nothing changes
  idx.Reserve(5000);  // room for more: the content stays
  EXPECT_EQ(idx.Size(), 2u);
  EXPECT_EQ(Sorted(idx.ListKeys()), (std::vector<std::string>{"ns1/a", "ns2/b"}));
  EXPECT_EQ(Keys(*idx.ByIndex(kNamespaceIndex, "ns2")), (std::vector<std::string>{"ns2/b"}));
  for (int i = 0; i < 3000; ++i) idx.Add(Obj("ns3", "o" + std::to_string(i), "1"));
  EXPECT_EQ(idx.Size(), 3002u);
  ASSERT_NE(idx.GetByKey("ns3/o2999"), nullptr);
  EXPECT_EQ(idx.ByIndex(kNamespaceIndex, "ns3")->size(), 3000u);
}

TEST(Indexer, ManyPostingSetsGrowingPastTheHeapAllowanceStayConsistent) {
  // 40k objects in 64 namespaces with a second index: the store and 70 posting sets grow
  // together past the Indexer's 1 MiB of heap, into its huge-page slabs, where freed tables are
  // reused by the sets that grow next; then half go, and the rest are replaced.
  Indexer idx({{"tier", [](const Object& o) {
                  return std::vector<std::string>{std::string(o.Labels().Get("tier").value_or(""))};
                }}});
  constexpr int kN = 40000;
  const auto ns = [](int i) { return "ns-" + std::to_string(i % 64); };
  const auto labels = [](int i) { return R"({"tier":"t)" + std::to_string(i % 6) + R"("})"; };
  for (int i = 0; i < kN; ++i) idx.Add(Obj(ns(i), "o" + std::to_string(i), "1", labels(i)));
  ASSERT_EQ(idx.Size(), static_cast<std::size_t>(kN));
  EXPECT_EQ(idx.ByIndex(kNamespaceIndex, "ns-5")->size(), 625u);
  EXPECT_EQ(idx.ByIndex("tier", "t2")->size(), 6667u);
  EXPECT_EQ(idx.ListIndexFuncValues(kNamespaceIndex).size(), 64u);

  for (int i = 0; i < kN; i += 2) idx.DeleteKey(ns(i) + "/o" + std::to_string(i));
  EXPECT_EQ(idx.Size(), static_cast<std::size_t>(kN / 2));
  EXPECT_EQ(idx.ByIndex(kNamespaceIndex, "ns-4")->size(), 0u);  // even namespaces held even objects
  EXPECT_EQ(idx.ByIndex(kNamespaceIndex, "ns-5")->size(), 625u);
  EXPECT_EQ(idx.ByIndex("tier", "t1")->size(), 6667u);
  EXPECT_EQ(idx.ByIndex("tier", "t2")->size(), 0u);
  EXPECT_EQ(idx.ListIndexFuncValues(kNamespaceIndex).size(), 32u);  // empty values disappear

  // Replacing every object by a new version moves nothing; the content is exactly the new one.
  for (int i = 1; i < kN; i += 2) idx.Update(Obj(ns(i), "o" + std::to_string(i), "2", labels(i)));
  for (const auto& o : idx.List()) ASSERT_EQ(o->ResourceVersion(), "2") << o->Key();
  ASSERT_NE(idx.GetByKey("ns-63/o39999"), nullptr);
  EXPECT_EQ(idx.GetByKey("ns-62/o39998"), nullptr);
  const auto in_ns = idx.ByIndex(kNamespaceIndex, "ns-63");
  ASSERT_EQ(in_ns->size(), 625u);
  for (const auto& o : *in_ns) EXPECT_EQ(o->Namespace(), "ns-63");
}

TEST(Indexer, UpdateReplacesTheObjectAndItsIndexEntries) {
  Indexer idx({{"by-app", [](const Object& o) {
                  auto app = o.Labels().Get("app");
                  return app ? std::vector<std::string>{std::string(*app)} : std::vector<std::string>{};
                }}});
  idx.Add(Obj("ns", "a", "1", R"({"app":"web"})"));
  EXPECT_EQ(idx.ByIndex("by-app", "web")->size(), 1u);
  idx.Update(Obj("ns", "a", "2", R"({"app":"db"})"));
  EXPECT_EQ(idx.Size(), 1u);
  EXPECT_EQ(idx.GetByKey("ns/a")->ResourceVersion(), "2");
  EXPECT_TRUE(idx.ByIndex("by-app", "web")->empty());
  EXPECT_EQ(idx.ByIndex("by-app", "db")->size(), 1u);
  EXPECT_EQ(idx.ListIndexFuncValues("by-app"), (std::vector<std::string>{"db"}));
}

TEST(Indexer, NamespaceIndexIsBuiltIn) {
  Indexer idx;
  idx.Add(Obj("ns1", "a", "1"));
  idx.Add(Obj("ns1", "b", "1"));
  idx.Add(Obj("ns2", "a", "1"));
  EXPECT_EQ(Keys(*idx.ByIndex(kNamespaceIndex, "ns1")), (std::vector<std::string>{"ns1/a", "ns1/b"}));
  EXPECT_EQ(Sorted(*idx.IndexKeys(kNamespaceIndex, "ns2")), (std::vector<std::string>{"ns2/a"}));
  EXPECT_EQ(Sorted(idx.ListIndexFuncValues(kNamespaceIndex)), (std::vector<std::string>{"ns1", "ns2"}));
  EXPECT_EQ(Keys(*idx.Index(kNamespaceIndex, *Obj("ns1", "zzz", "9"))), (std::vector<std::string>{"ns1/a", "ns1/b"}));
}

TEST(Indexer, DeleteRemovesFromEveryIndexAndEmptyValuesDisappear) {
  Indexer idx;
  idx.Add(Obj("ns1", "a", "1"));
  idx.Delete(*Obj("ns1", "a", "7"));  // the key matters, not the version
  EXPECT_EQ(idx.Size(), 0u);
  EXPECT_TRUE(idx.ByIndex(kNamespaceIndex, "ns1")->empty());
  EXPECT_TRUE(idx.ListIndexFuncValues(kNamespaceIndex).empty());
  idx.DeleteKey("missing");  // no-op
}

TEST(Indexer, MultiValuedIndexesAndIndexUnion) {
  Indexer idx({{"tags", [](const Object& o) {
                  std::vector<std::string> v;
                  for (const auto& [k, val] : o.Labels()) v.emplace_back(k);
                  return v;
                }}});
  idx.Add(Obj("n", "a", "1", R"({"x":"1","y":"1"})"));
  idx.Add(Obj("n", "b", "1", R"({"y":"1"})"));
  idx.Add(Obj("n", "c", "1", R"({"z":"1"})"));
  EXPECT_EQ(Keys(*idx.ByIndex("tags", "y")), (std::vector<std::string>{"n/a", "n/b"}));
  // Index() is the union over the probe's values, without duplicates.
  EXPECT_EQ(Keys(*idx.Index("tags", *Obj("n", "probe", "1", R"({"x":"1","y":"1"})"))),
            (std::vector<std::string>{"n/a", "n/b"}));
}

TEST(Indexer, UnknownIndexIsAnError) {
  Indexer idx;
  EXPECT_TRUE(IsNotFound(idx.ByIndex("nope", "x").error()));
  EXPECT_TRUE(IsNotFound(idx.IndexKeys("nope", "x").error()));
  EXPECT_TRUE(idx.ListIndexFuncValues("nope").empty());
}

TEST(Indexer, AddIndexersIndexesExistingObjectsAndRejectsDuplicates) {
  Indexer idx;
  idx.Add(Obj("n", "a", "1", R"({"app":"web"})"));
  ASSERT_TRUE(idx.AddIndexers({{"app", [](const Object& o) {
                                   return std::vector<std::string>{std::string(o.Labels().Get("app").value_or(""))};
                                 }}}).ok());
  EXPECT_EQ(idx.ByIndex("app", "web")->size(), 1u);
  auto dup = idx.AddIndexers({{"app", MetaNamespaceIndexFunc}});
  ASSERT_FALSE(dup.ok());
  EXPECT_TRUE(IsAlreadyExists(dup.error()));
}

TEST(Indexer, ReplaceSwapsTheWholeContent) {
  Indexer idx;
  idx.Add(Obj("n", "old", "1"));
  idx.Replace({Obj("n", "a", "2"), Obj("m", "b", "3")});
  EXPECT_EQ(Sorted(idx.ListKeys()), (std::vector<std::string>{"m/b", "n/a"}));
  EXPECT_TRUE(idx.ByIndex(kNamespaceIndex, "n")->size() == 1);
}

TEST(Indexer, CustomKeyFunc) {
  Indexer idx({}, [](const Object& o) { return std::string("k:") + std::string(o.Name()); });
  idx.Add(Obj("n", "a", "1"));
  ASSERT_NE(idx.GetByKey("k:a"), nullptr);
  EXPECT_EQ(idx.GetByKey("n/a"), nullptr);
  idx.Add(Obj("other", "a", "2"));  // same custom key: replaces
  EXPECT_EQ(idx.Size(), 1u);
  EXPECT_EQ(idx.ListKeys(), (std::vector<std::string>{"k:a"}));
}

TEST(Indexer, ConcurrentReadersAndWritersStayConsistent) {
  Indexer idx;
  std::atomic<bool> done{false};
  std::jthread writer([&] {
    for (int i = 0; i < 2000; ++i) {
      idx.Add(Obj("ns", "obj-" + std::to_string(i % 50), std::to_string(i)));
      if (i % 7 == 0) idx.DeleteKey("ns/obj-" + std::to_string((i / 7) % 50));
    }
    done = true;
  });
  std::jthread reader([&] {
    while (!done) {
      auto in_ns = idx.ByIndex(kNamespaceIndex, "ns");
      for (const auto& o : *in_ns) EXPECT_EQ(o->Namespace(), "ns");
      EXPECT_LE(idx.Size(), 50u);
    }
  });
}

TEST(Lister, FiltersByNamespaceAndSelector) {
  Indexer idx;
  idx.Add(Obj("a", "web-1", "1", R"({"app":"web"})"));
  idx.Add(Obj("a", "db-1", "1", R"({"app":"db"})"));
  idx.Add(Obj("b", "web-2", "1", R"({"app":"web"})"));
  Lister lister(idx);
  auto web = *LabelSelector::Parse("app=web");
  EXPECT_EQ(Keys(lister.List(web)), (std::vector<std::string>{"a/web-1", "b/web-2"}));
  EXPECT_EQ(Keys(lister.List("a", web)), (std::vector<std::string>{"a/web-1"}));
  EXPECT_EQ(Keys(lister.List("a")), (std::vector<std::string>{"a/db-1", "a/web-1"}));
  ASSERT_TRUE(lister.Get("b", "web-2").ok());
  EXPECT_TRUE(IsNotFound(lister.Get("b", "nope").error()));
}

}  // namespace
}  // namespace kube::cache
