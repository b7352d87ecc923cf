#include <kube/apiserver/table.hpp>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "apiserver/discovery/test_registry.hpp"

namespace kube::apiserver {
namespace {

namespace bj = boost::json;
using testing::MustParse;

TEST(PartialObjectMetadata, MetadataInGoFieldOrderWithUnknownMembersDropped) {
  const ObjectPtr obj = MustParse(
      R"({"kind":"Pod","apiVersion":"v1","spec":{"x":1},"metadata":{"labels":{"b":"2","a":"1"},"zz":1,)"
      R"("finalizers":["f/x"],"annotations":{"k":"v<>&"},"namespace":"ns","name":"p","uid":"u","generation":3,)"
      R"("resourceVersion":"7","creationTimestamp":"2025-01-01T00:00:00Z","ownerReferences":[{"apiVersion":"apps/v1",)"
      R"("kind":"ReplicaSet","name":"rs","uid":"r","controller":true}],"managedFields":[{"manager":"kubectl"}],)"
      R"("deletionTimestamp":"2025-01-02T00:00:00Z","deletionGracePeriodSeconds":0,"generateName":"p-"}})");
  EXPECT_EQ(RenderPartialObjectMetadata(*obj),
            R"({"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"p",)"
            R"("generateName":"p-","namespace":"ns","uid":"u","resourceVersion":"7","generation":3,)"
            R"("creationTimestamp":"2025-01-01T00:00:00Z","deletionTimestamp":"2025-01-02T00:00:00Z",)"
            R"("deletionGracePeriodSeconds":0,"labels":{"b":"2","a":"1"},"annotations":{"k":"v<>&"},)"
            R"("ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"r","controller":true}],)"
            R"("finalizers":["f/x"],"managedFields":[{"manager":"kubectl"}]}})");
}

TEST(PartialObjectMetadata, ZeroCreationTimestampIsNullAndEmptyFieldsAreOmitted) {
  EXPECT_EQ(RenderPartialObjectMetadata(*MustParse(
                R"({"metadata":{"name":"x","namespace":"","labels":{},"finalizers":[],"generation":0}})")),
            R"({"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"x","creationTimestamp":null}})");
  EXPECT_EQ(RenderPartialObjectMetadata(*MustParse(R"({"kind":"X"})")),
            R"({"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"creationTimestamp":null}})");
}

TEST(PartialObjectMetadata, EscapedValuesAreCopiedVerbatim) {
  const ObjectPtr obj = MustParse(R"({"metadata":{"name":"a","annotations":{"q":"say \"hi\"\n\u00e9"}}})");
  const bj::value v = bj::parse(RenderPartialObjectMetadata(*obj));
  EXPECT_EQ(v.at("metadata").at("annotations").at("q"), "say \"hi\"\n\xc3\xa9");
}

TEST(PartialObjectMetadataList, ItemsCarryKindAndApiVersion) {
  const std::string list = RenderPartialObjectMetadataList(
      {MustParse(R"({"metadata":{"name":"a","resourceVersion":"1","creationTimestamp":"2025-01-01T00:00:00Z"}})"),
       MustParse(R"({"metadata":{"name":"b","resourceVersion":"2","creationTimestamp":"2025-01-01T00:00:00Z"}})")},
      "5", "next", 10);
  EXPECT_EQ(list,
            R"({"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"5",)"
            R"("continue":"next","remainingItemCount":10},"items":[)"
            R"({"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a","resourceVersion":"1","creationTimestamp":"2025-01-01T00:00:00Z"}},)"
            R"({"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"b","resourceVersion":"2","creationTimestamp":"2025-01-01T00:00:00Z"}}]})");
  EXPECT_EQ(RenderPartialObjectMetadataList({}, "9", ""),
            R"({"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"9"},"items":[]})");
}

}  // namespace
}  // namespace kube::apiserver
