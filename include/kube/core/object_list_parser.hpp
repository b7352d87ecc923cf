#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <kube/base/result.hpp>
#include <kube/core/object.hpp>

namespace kube {

/// Parses a List response (`PodList`, `List`, ...) as its bytes arrive: each item becomes an
/// Object once its last byte is in (pieces are gathered up to `walk_bytes` first, so that few
/// items straddle two walks; Finish parses the rest), so a list is parsed while the server is
/// still sending it, and the consumed text is dropped as it goes. `ObjectList::Parse(text)` is
/// `Feed(text)` then `Finish()`: same items, same list metadata, same errors (an error inside an
/// item gives its position in the item; one outside the items, fed in pieces, a position in the
/// text still kept).
///
///     ObjectListParser parser;
///     while (auto bytes = next_chunk()) KUBE_RETURN_IF_ERROR(parser.Feed(*bytes));
///     auto list = parser.Finish();
///
/// Items come in text order. When the list's `apiVersion` and `kind` follow its `items` (no API
/// server writes them so), the items are kept as text and parsed by Finish, once the defaults
/// they inherit are known.
/// **Errors:** 400 BadRequest, as ObjectList::Parse; after an error every call returns it again.
/// **Thread-safety:** none (one parser per response).
class ObjectListParser final {
 public:
  /// Bytes gathered before the text is walked for complete items, by default.
  static constexpr std::size_t kWalkBytes = std::size_t{256} << 10;

  /// `walk_bytes`: gather this many bytes before walking (1 = walk every piece at once).
  explicit ObjectListParser(std::size_t walk_bytes = kWalkBytes);
  ~ObjectListParser();
  ObjectListParser(const ObjectListParser&) = delete;
  ObjectListParser& operator=(const ObjectListParser&) = delete;

  /// Appends the next bytes of the text and parses every item they complete.
  Result<void> Feed(std::string_view bytes);
  /// Ends the text and returns the list. **Errors:** a truncated or malformed text.
  Result<ObjectList> Finish();
  /// The items parsed so far, in order (Feed and Finish append). A caller may replace an item
  /// with an equivalent object (for example a transformed one) before Finish returns them.
  std::vector<ObjectPtr>& items();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace kube
