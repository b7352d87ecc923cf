// Fuzzes the protobuf transcoder (<kube/core/protobuf.hpp>), which reads both the API server's
// protobuf request bodies and the client's protobuf lists, whole and streamed. The seed corpus is
// kubectl 1.32's own request bodies for `kubectl create deployment|service|serviceaccount|
// rolebinding|clusterrole|clusterrolebinding|configmap` and objects kube-apiserver 1.32 sent as
// protobuf (`*.pb`, from testdata/protobuf). Checked properties (abort on violation): no crash; a
// failure is a 400 or 415; the text is one JSON object with string apiVersion and kind; fed in
// two pieces the stream gives the same value or, where the whole body failed, fails. The body
// past its first 4 bytes is also read as a watch frame (the seeds `watch_*.pb` are watch bodies).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <boost/json.hpp>

#include <kube/core/protobuf.hpp>

namespace {
void Check(bool ok) {
  if (!ok) std::abort();
}

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
  Check(v.as_object().contains("apiVersion") && v.as_object().at("apiVersion").is_string());
  Check(v.as_object().contains("kind") && v.as_object().at("kind").is_string());
  // A list is streamed item by item, in wire order: the stream refuses items that are not
  // contiguous, which the whole-body reader accepts. Otherwise the values are the same.
  if (!r.ok()) {
    CheckError(r.error());
    return;
  }
  const boost::json::value s = boost::json::parse(streamed, ec);
  Check(!ec && s == v);
}

}  // namespace

// A watch frame: a JSON object with a string `type`, or a 400/415.
void WatchFrame(std::string_view frame) {
  auto text = kube::protobuf::WatchEventToJson(frame);
  if (!text.ok()) {
    CheckError(text.error());
    return;
  }
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(*text, ec);
  Check(!ec && v.is_object());
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  Transcode(body);
  WatchFrame(body.size() > 4 ? body.substr(4) : body);
  return 0;
}
