// Fuzzes the embedded server's decoding of request bodies as Go does: FindGoDuplicates (repeated
// member names, Go's merge) and GoUnmarshalError against the Deployment and Pod schemas, on
// any text that parses as JSON. Properties checked beyond "no crash":
//  - without duplicates nothing is reported; with them, every reported path is non-empty and the
//    merged value is an object when the input is one;
//  - GoUnmarshalError's message, when there is one, has encoding/json's prefix.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <boost/json.hpp>

#include "apiserver/rest/builtin_schema.hpp"
#include "apiserver/rest/go_json.hpp"
#include "apiserver/rest/go_zero.hpp"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  boost::system::error_code ec;
  boost::json::parse_options opts;
  opts.max_depth = 200;
  const boost::json::value parsed = boost::json::parse(input, ec, {}, opts);
  if (ec) return 0;
  namespace rest = kube::apiserver::rest;
  if (auto found = rest::FindGoDuplicates(input, parsed)) {
    Check(!found->paths.empty());
    for (const auto& p : found->paths) Check(!p.empty());
    Check(found->value.is_object() == parsed.is_object());
  }
  for (auto kind : {rest::BuiltinKind::kDeployment, rest::BuiltinKind::kPod}) {
    if (auto err = rest::GoUnmarshalError(*rest::BuiltinSchema(kind), parsed)) {
      Check(std::string_view(*err).starts_with("json: cannot unmarshal "));
    }
  }
  return 0;
}
