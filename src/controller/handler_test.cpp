#include <kube/controller/handler.hpp>

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace kube::controller {
namespace {

using testing::Drain;
using testing::Obj;
using Keys = std::set<std::string>;

ObjectPtr Pod(std::string_view owners_json) {
  return Obj(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns","ownerReferences":)" +
             std::string(owners_json) + "}}");
}

constexpr std::string_view kOwners =
    R"([{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs-a","uid":"1","controller":true},)"
    R"({"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs-b","uid":"2"},)"
    R"({"apiVersion":"v1","kind":"ReplicaSet","name":"core-rs","uid":"3"},)"
    R"({"apiVersion":"apps/v1","kind":"Deployment","name":"d","uid":"4"}])";

TEST(EnqueueRequestForObject, EnqueuesTheObjectKeyForEveryEventType) {
  Queue q;
  auto h = EnqueueRequestForObject();
  auto a = Obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"x"}})");
  auto b = Obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","namespace":"x"}})");
  auto c = Obj(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"c"}})");
  h->Create({.object = a}, q);
  EXPECT_EQ(Drain(q), Keys{"x/a"});
  h->Update({.old_object = a, .new_object = b}, q);
  EXPECT_EQ(Drain(q), Keys{"x/b"});
  h->Delete({.object = c}, q);
  EXPECT_EQ(Drain(q), Keys{"c"});
  h->Generic({.object = a}, q);
  EXPECT_EQ(Drain(q), Keys{"x/a"});
}

TEST(EnqueueRequestForObject, SkipsADeleteWithoutAnObject) {
  Queue q;
  EnqueueRequestForObject()->Delete({.object = nullptr, .delete_state_unknown = true}, q);
  EXPECT_EQ(q.Len(), 0u);
}

TEST(EnqueueRequestForOwner, EnqueuesEveryOwnerOfTheGroupAndKind) {
  Queue q;
  auto h = EnqueueRequestForOwner({"apps", "ReplicaSet"});
  h->Create({.object = Pod(kOwners)}, q);
  // core-rs has the core group, d another kind: neither matches apps/ReplicaSet.
  EXPECT_EQ(Drain(q), (Keys{"ns/rs-a", "ns/rs-b"}));
}

TEST(EnqueueRequestForOwner, OnlyControllerEnqueuesTheControllerOwnerOnly) {
  Queue q;
  auto h = EnqueueRequestForOwner({"apps", "ReplicaSet"}, {.only_controller = true});
  h->Create({.object = Pod(kOwners)}, q);
  EXPECT_EQ(Drain(q), Keys{"ns/rs-a"});
  // A controller owner of another kind does not count.
  auto h2 = EnqueueRequestForOwner({"apps", "Deployment"}, {.only_controller = true});
  h2->Create({.object = Pod(kOwners)}, q);
  EXPECT_EQ(q.Len(), 0u);
}

TEST(EnqueueRequestForOwner, UpdateEnqueuesTheOwnersOfBothOldAndNew) {
  Queue q;
  auto h = EnqueueRequestForOwner({"apps", "ReplicaSet"}, {.only_controller = true});
  auto old_pod = Pod(R"([{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"old","uid":"1","controller":true}])");
  auto new_pod = Pod(R"([{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"new","uid":"2","controller":true}])");
  h->Update({.old_object = old_pod, .new_object = new_pod}, q);
  EXPECT_EQ(Drain(q), (Keys{"ns/old", "ns/new"}));
}

TEST(EnqueueRequestForOwner, ClusterScopedOwnersHaveNoNamespace) {
  Queue q;
  auto h = EnqueueRequestForOwner({"apps", "ReplicaSet"}, {.owner_cluster_scoped = true});
  h->Create({.object = Pod(kOwners)}, q);
  EXPECT_EQ(Drain(q), (Keys{"rs-a", "rs-b"}));
}

TEST(EnqueueRequestsFromMapFunc, EnqueuesWhatTheFunctionReturnsForBothObjectsOfAnUpdate) {
  Queue q;
  auto h = EnqueueRequestsFromMapFunc([](const ObjectPtr& o) {
    return std::vector<Request>{{ObjectKey{"mapped", std::string(o->Name())}}};
  });
  auto a = Obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"x"}})");
  auto b = Obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","namespace":"x"}})");
  h->Update({.old_object = a, .new_object = b}, q);
  EXPECT_EQ(Drain(q), (Keys{"mapped/a", "mapped/b"}));
  h->Delete({.object = nullptr, .delete_state_unknown = true}, q);
  EXPECT_EQ(q.Len(), 0u);
}

}  // namespace
}  // namespace kube::controller
