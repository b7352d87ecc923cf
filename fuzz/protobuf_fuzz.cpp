// Fuzzes the API server's protobuf request decoder (src/apiserver/rest/protobuf.hpp): the seed
// corpus is kubectl 1.32's own request bodies for `kubectl create deployment|service|
// serviceaccount|rolebinding|clusterrole|clusterrolebinding|configmap`. Checked properties (abort
// on violation): decoding never crashes; a failure is a 400 or 415; a success is a JSON object
// with string apiVersion and kind whose serialization parses back to the same value.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <boost/json.hpp>

#include "apiserver/rest/protobuf.hpp"

namespace {
void Check(bool ok) {
  if (!ok) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  auto decoded = kube::apiserver::rest::DecodeProtobufObject(body);
  if (!decoded.ok()) {
    if (decoded.error().code != 400 && decoded.error().code != 415) {
      std::fprintf(stderr, "unexpected error %d: %s\n", decoded.error().code, decoded.error().message.c_str());
      std::abort();
    }
    return 0;
  }
  Check(decoded->is_object());
  Check(decoded->as_object().at("apiVersion").is_string());
  Check(decoded->as_object().at("kind").is_string());
  boost::system::error_code ec;
  const boost::json::value again = boost::json::parse(boost::json::serialize(*decoded), ec);
  Check(!ec && again == *decoded);
  return 0;
}
