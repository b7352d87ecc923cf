#include <kube/core/object_list_parser.hpp>

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace kube {
namespace {

const std::string kList =
    R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"42","continue":"tok","remainingItemCount":127},)"
    R"( "items" : [ {"metadata":{"name":"a","namespace":"n","labels":{"x":"}{\"]"}}} , {},)"
    R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"c"},"spec":{"n":[1,2.5e3,true,null,"\\"]}}]})";

// The list fed in pieces of `piece` bytes, each walked at once.
Result<ObjectList> Fed(std::string_view text, std::size_t piece) {
  ObjectListParser parser(1);
  for (std::size_t at = 0; at < text.size(); at += piece) {
    KUBE_RETURN_IF_ERROR(parser.Feed(text.substr(at, piece)));
  }
  return parser.Finish();
}

void ExpectSameList(const ObjectList& got, const ObjectList& want) {
  EXPECT_EQ(got.api_version, want.api_version);
  EXPECT_EQ(got.kind, want.kind);
  EXPECT_EQ(got.resource_version, want.resource_version);
  EXPECT_EQ(got.continue_token, want.continue_token);
  EXPECT_EQ(got.remaining_item_count, want.remaining_item_count);
  ASSERT_EQ(got.items.size(), want.items.size());
  for (std::size_t i = 0; i < want.items.size(); ++i) EXPECT_EQ(got.items[i]->Json(), want.items[i]->Json());
}

TEST(ObjectListParser, CutAnywhereInTwoGivesTheWholeTextsList) {
  auto whole = ObjectList::Parse(kList);
  ASSERT_TRUE(whole.ok()) << whole.error().message;
  ASSERT_EQ(whole->items.size(), 3u);
  EXPECT_EQ(whole->remaining_item_count, 127);
  for (std::size_t cut = 0; cut <= kList.size(); ++cut) {
    SCOPED_TRACE(cut);
    ObjectListParser parser(1);
    ASSERT_TRUE(parser.Feed(std::string_view(kList).substr(0, cut)).ok());
    ASSERT_TRUE(parser.Feed(std::string_view(kList).substr(cut)).ok());
    auto list = parser.Finish();
    ASSERT_TRUE(list.ok()) << list.error().message;
    ExpectSameList(*list, *whole);
  }
}

TEST(ObjectListParser, ByteByByteAndInSmallPiecesGivesTheWholeTextsList) {
  auto whole = ObjectList::Parse(kList);
  ASSERT_TRUE(whole.ok());
  for (std::size_t piece : {1u, 2u, 3u, 7u, 64u}) {
    SCOPED_TRACE(piece);
    auto list = Fed(kList, piece);
    ASSERT_TRUE(list.ok()) << list.error().message;
    ExpectSameList(*list, *whole);
  }
}

TEST(ObjectListParser, AnItemIsParsedAsSoonAsItsLastByteIsIn) {
  ObjectListParser parser(1);
  const std::string_view text(kList);
  const std::size_t first_end = text.find("}}} ,") + 3;
  ASSERT_TRUE(parser.Feed(text.substr(0, first_end - 1)).ok());
  EXPECT_TRUE(parser.items().empty());
  ASSERT_TRUE(parser.Feed(text.substr(first_end - 1, 1)).ok());
  ASSERT_EQ(parser.items().size(), 1u);
  EXPECT_EQ(parser.items()[0]->Name(), "a");
  EXPECT_EQ(parser.items()[0]->Labels().Get("x"), "}{\"]");
  ASSERT_TRUE(parser.Feed(text.substr(first_end)).ok());
  EXPECT_EQ(parser.items().size(), 3u);
  ASSERT_TRUE(parser.Finish().ok());
}

TEST(ObjectListParser, SmallPiecesAreGatheredUntilThereAreWalkBytes) {
  ObjectListParser parser(64);
  const std::string_view text(kList);
  std::size_t at = 0;
  for (; at + 16 <= 48; at += 16) ASSERT_TRUE(parser.Feed(text.substr(at, 16)).ok());
  EXPECT_TRUE(parser.items().empty());  // 48 bytes: not walked yet (nor is an item complete)
  for (; at < text.size(); at += 16) ASSERT_TRUE(parser.Feed(text.substr(at, 16)).ok());
  EXPECT_GE(parser.items().size(), 2u);  // walked as the pieces came
  auto list = parser.Finish();
  ASSERT_TRUE(list.ok()) << list.error().message;
  auto whole = ObjectList::Parse(kList);
  ASSERT_TRUE(whole.ok());
  ExpectSameList(*list, *whole);
  // With the default, a small list is parsed by Finish.
  ObjectListParser gathered;
  ASSERT_TRUE(gathered.Feed(kList).ok());
  EXPECT_TRUE(gathered.items().empty());
  auto at_finish = gathered.Finish();
  ASSERT_TRUE(at_finish.ok());
  ExpectSameList(*at_finish, *whole);
}

TEST(ObjectListParser, AReplacedItemIsWhatTheListHolds) {
  ObjectListParser parser(1);
  ASSERT_TRUE(parser.Feed(kList).ok());
  ASSERT_EQ(parser.items().size(), 3u);
  auto other = Object::Parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"z"}})");
  ASSERT_TRUE(other.ok());
  parser.items()[1] = *other;
  auto list = parser.Finish();
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->items[1]->Name(), "z");
}

TEST(ObjectListParser, ANumberCutInTwoIsReadWhole) {
  const std::string text = R"({"kind":"List","apiVersion":"v1","metadata":{"remainingItemCount":4096}})";
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    ObjectListParser parser(1);
    ASSERT_TRUE(parser.Feed(std::string_view(text).substr(0, cut)).ok());
    ASSERT_TRUE(parser.Feed(std::string_view(text).substr(cut)).ok());
    auto list = parser.Finish();
    ASSERT_TRUE(list.ok()) << cut << ": " << list.error().message;
    EXPECT_EQ(list->remaining_item_count, 4096) << cut;
  }
  // A top-level scalar member at the very end of a piece.
  const std::string unknown = R"({"kind":"List","apiVersion":"v1","x":12345,"items":[]})";
  for (std::size_t piece = 1; piece < 6; ++piece) EXPECT_TRUE(Fed(unknown, piece).ok()) << piece;
}

TEST(ObjectListParser, KindAfterTheItemsIsInjectedWhenFedInPieces) {
  const std::string text = R"({"items":[{"metadata":{"name":"a"}},{}],"kind":"ConfigMapList","apiVersion":"v1"})";
  for (std::size_t piece : {1u, 5u, 1000u}) {
    auto list = Fed(text, piece);
    ASSERT_TRUE(list.ok()) << list.error().message;
    ASSERT_EQ(list->items.size(), 2u);
    EXPECT_EQ(list->items[0]->Json(), R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}})");
    EXPECT_EQ(list->items[1]->Json(), R"({"apiVersion":"v1","kind":"ConfigMap"})");
  }
}

TEST(ObjectListParser, MalformedTextFailsFedWholeOrInPiecesAndItemErrorsMatch) {
  const std::string head = R"({"apiVersion":"v1","kind":"PodList","items":[)";
  const std::vector<std::string> bad = {
      "",
      "[]",
      "{",
      R"({"kind":"PodList")",
      R"({"kind" "PodList"})",
      R"({"kind":"PodList",})",
      R"({"kind":"PodList"} x)",
      R"({"kind":3})",
      R"({"metadata":{"remainingItemCount":1.5}})",
      R"({"items":{}})",
      R"({"items":[1,]})",
      R"({"items":nul})",
      R"({"x":tru})",
      head + R"({},{"metadata":{"labels":[]}}]})",
      head + R"({},3]})",
      head + R"({"metadata":{"name":"a"})",
      head + R"({"metadata":{"name":"a"}} {}]})",
      head + R"({"metadata":{"name":"a\q"}}]})",
      head + R"({}],})",
      head + R"({},])",
  };
  for (const std::string& text : bad) {
    SCOPED_TRACE(text);
    auto whole = ObjectList::Parse(text);
    ASSERT_FALSE(whole.ok());
    EXPECT_EQ(whole.error().code, 400);
    for (std::size_t piece : {1u, 4u}) {
      auto list = Fed(text, piece);
      ASSERT_FALSE(list.ok()) << piece;
      EXPECT_EQ(list.error().code, 400);
      // The same error; a position outside an item counts from the text still kept.
      const auto what = [](const std::string& m) { return m.substr(0, m.find(" at line ")); };
      EXPECT_EQ(what(list.error().message), what(whole.error().message));
      if (whole.error().message.find("items[1]: metadata") != std::string::npos) {
        EXPECT_EQ(list.error().message, whole.error().message);  // inside an item: the item's position
      }
    }
  }
  auto labels = ObjectList::Parse(head + R"({},{"metadata":{"labels":[]}}]})");
  EXPECT_NE(labels.error().message.find("items[1]: metadata.labels: expected object, found array"), std::string::npos)
      << labels.error().message;
}

TEST(ObjectListParser, AfterAnErrorEveryCallFails) {
  ObjectListParser parser(1);
  EXPECT_FALSE(parser.Feed("[").ok());
  EXPECT_FALSE(parser.Feed("{}").ok());
  EXPECT_FALSE(parser.Finish().ok());

  ObjectListParser done;
  ASSERT_TRUE(done.Feed(R"({"items":[]})").ok());
  ASSERT_TRUE(done.Finish().ok());
  EXPECT_FALSE(done.Finish().ok());
  EXPECT_FALSE(done.Feed("{}").ok());
}

}  // namespace
}  // namespace kube
