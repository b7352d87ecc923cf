// Fuzzes the two protobuf readers: the API server's request decoder
// (src/apiserver/rest/protobuf.hpp) and the client's transcoder (<kube/core/protobuf.hpp>). The seed
// corpus is kubectl 1.32's own request bodies for `kubectl create deployment|service|
// serviceaccount|rolebinding|clusterrole|clusterrolebinding|configmap` and objects kube-apiserver
// 1.32 sent as protobuf (`*.pb`, from testdata/protobuf). Checked properties (abort on violation):
// neither crashes; a failure is a 400 or 415; a decoded object is a JSON object with string
// apiVersion and kind whose serialization parses back to the same value; the transcoder's text is
// one JSON value, and fed in two pieces it gives the same text or the same error.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <boost/json.hpp>

#include <kube/core/protobuf.hpp>

#include "apiserver/rest/protobuf.hpp"

namespace {
void Check(bool ok) {
  if (!ok) std::abort();
}
}  // namespace

void CheckError(const kube::Error& e) {
  if (e.code != 400 && e.code != 415) {
    std::fprintf(stderr, "unexpected error %d: %s\n", e.code, e.message.c_str());
    std::abort();
  }
}

void Transcode(std::string_view body) {
  auto whole = kube::protobuf::ToJson(body);
  std::string streamed;
  kube::protobuf::StreamTranscoder t([&](std::string_view j) -> kube::Result<void> {
    streamed.append(j);
    return kube::Ok();
  });
  const std::size_t half = body.size() / 2;
  auto r = t.Feed(body.substr(0, half));
  if (r) r = t.Feed(body.substr(half));
  if (r) r = t.Finish();
  if (!whole.ok()) {
    CheckError(whole.error());
    Check(!r.ok());
    CheckError(r.error());
    return;
  }
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(*whole, ec);
  Check(!ec && v.is_object());
  // A list is streamed item by item, in wire order: the stream refuses items that are not
  // contiguous, which the whole-body reader accepts. Otherwise the values are the same.
  if (!r.ok()) {
    CheckError(r.error());
    return;
  }
  const boost::json::value s = boost::json::parse(streamed, ec);
  Check(!ec && s == v);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  Transcode(body);
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
