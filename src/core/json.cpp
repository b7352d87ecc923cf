#include <kube/core/json.hpp>

#include <boost/json.hpp>

#include "core/internal/json_scanner.hpp"

namespace kube {

Result<boost::json::value> ParseJson(std::string_view text) {
  // Validate first for a precise, position-bearing error; Boost.JSON then builds the DOM.
  KUBE_RETURN_IF_ERROR(core::internal::ValidateJson(text));
  boost::json::parse_options opts;
  opts.max_depth = core::internal::kMaxJsonDepth;
  boost::system::error_code ec;
  auto value = boost::json::parse(text, ec, {}, opts);
  if (ec) return BadRequest("invalid JSON: " + ec.message());
  return value;
}

Result<boost::json::value> ParseJson(std::string_view text, std::string_view context) {
  auto value = ParseJson(text);
  if (value.ok() || context.empty()) return value;
  Error e = std::move(value).error();
  e.message = std::string(context) + ": " + e.message;
  return e;
}

Result<void> ValidateJson(std::string_view text) { return core::internal::ValidateJson(text); }

std::string SerializeJson(const boost::json::value& value) { return boost::json::serialize(value); }

std::string QuoteJson(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  core::internal::AppendQuoted(s, out);
  return out;
}

std::string_view JsonTypeName(const boost::json::value& value) {
  switch (value.kind()) {
    case boost::json::kind::object: return "object";
    case boost::json::kind::array: return "array";
    case boost::json::kind::string: return "string";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
    case boost::json::kind::double_: return "number";
    case boost::json::kind::bool_: return "boolean";
    case boost::json::kind::null: return "null";
  }
  return "value";
}

}  // namespace kube
