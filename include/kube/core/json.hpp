#pragma once

#include <string>
#include <string_view>

#include <boost/json/value.hpp>

#include <kube/base/result.hpp>

namespace kube {

/// Parses one JSON value with kubecpp's limits (nesting depth 1000, strict RFC 8259, valid UTF-8).
/// **Errors:** BadRequest naming line, column and offset, e.g.
/// `invalid JSON: unexpected character '}', expected a value at line 1, column 9 (offset 8)`.
Result<boost::json::value> ParseJson(std::string_view text);

/// Like ParseJson, with `context` prefixed to error messages ("patch: invalid JSON: ...").
Result<boost::json::value> ParseJson(std::string_view text, std::string_view context);

/// Validates `text` as one JSON value without building a DOM. **Errors:** as ParseJson.
Result<void> ValidateJson(std::string_view text);

/// Compact serialization (no whitespace).
std::string SerializeJson(const boost::json::value& value);

/// `s` as a JSON string literal, with quotes and escapes.
std::string QuoteJson(std::string_view s);

/// "object", "array", "string", "number", "boolean" or "null".
std::string_view JsonTypeName(const boost::json::value& value);

}  // namespace kube
