#pragma once

#include <cstddef>
#include <string_view>

#include <kube/core/object.hpp>

namespace kube {

/// Builds Objects from JSON text (a friend of Object).
class ObjectParser {
 public:
  /// Parses `text` into an Object. When the object has no apiVersion (kind) and
  /// `default_api_version` (`default_kind`) is not empty, the default is injected at the front of
  /// the stored text (ObjectList uses it for the items of typed lists).
  /// `context` prefixes error messages (e.g. "items[3]: ").
  static Result<ObjectPtr> Parse(std::string_view text, std::string_view default_api_version,
                                 std::string_view default_kind, std::string_view context);
  /// As Parse, for the object that starts `text` (at its '{'; anything may follow it): one scan
  /// of a list's item in place. Sets `consumed` to the object's length.
  static Result<ObjectPtr> ParsePrefix(std::string_view text, std::string_view default_api_version,
                                       std::string_view default_kind, std::string_view context,
                                       std::size_t& consumed);

 private:
  static Result<ObjectPtr> ParseImpl(std::string_view text, std::string_view default_api_version,
                                     std::string_view default_kind, std::string_view context,
                                     std::size_t* consumed);
};

}  // namespace kube
