#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <kube/base/result.hpp>

/// Kubernetes' protobuf encoding (`application/vnd.kubernetes.protobuf`), read as JSON.
///
/// kube-apiserver answers in protobuf for its built-in kinds when asked (client-go's typed
/// clientset asks for it): smaller bodies that it encodes faster than JSON. kubecpp keeps one
/// object model, JSON (`kube::Object`, the generated codecs), so it reads protobuf by
/// transcoding: each message becomes the JSON text that kube-apiserver would have sent for it.
///
/// A body is kube's envelope: the 4 magic bytes `k8s\0`, then a `runtime.Unknown` message
/// (typeMeta {apiVersion, kind}, raw, contentEncoding, contentType) whose `raw` bytes are the
/// object's `generated.proto` message. The message tables are those of kube-apiserver v1.32
/// (`api/protobuf/v1.32/fields.json`, read from its binary) joined with the OpenAPI documents of
/// the generated types. The JSON follows Go's encoding of the same value: keys in the Go struct's
/// order with `kind` and `apiVersion` first; a plain (non-pointer) field's zero value written only
/// when the field has no `omitempty` (what the OpenAPI schema calls required), a pointer field
/// whenever it is set; struct values always (a zero Time as `null`, a zero Quantity as "0"); map
/// keys sorted; `bytes` as base64; embedded structs inlined; FieldsV1 and RawExtension as their
/// raw JSON. Strings are written as `kube::Json` writes them (Go's `\u003c`-style HTML escapes are
/// not reproduced: the values are the same).
///
/// A message with a field this table does not know (a newer server) is refused with 415
/// UnsupportedMediaType rather than transcoded without it: JSON keeps every field, so a caller
/// asks again for JSON (the REST client does).
namespace kube::protobuf {

/// The media type of kube's protobuf encoding.
inline constexpr std::string_view kMediaType = "application/vnd.kubernetes.protobuf";

/// Whether the kinds of `api_version` ("v1", "apps/v1", ...) are in the table, i.e. whether a
/// client may ask kube-apiserver for protobuf for them.
bool KnowsGroupVersion(std::string_view api_version);

/// Whether `kind` of `api_version` is in the table ("v1", "PodList").
bool KnowsKind(std::string_view api_version, std::string_view kind);

/// What the transcoder does with a field number its table does not know.
enum class UnknownFields {
  kRefuse,  ///< 415, so that the caller asks for JSON, which keeps every field (a client).
  kDrop,    ///< skip it, as Go's generated unmarshallers do (a server reading a request body).
};

/// Transcodes one body (envelope included) to JSON text, with `kind` and `apiVersion` from the
/// envelope.
/// **Errors:** 400 BadRequest for a body that is not a well-formed envelope or message (bad
/// magic, truncated varint or length, a field number outside 1 to 2^29 - 1, a wire type that
/// does not fit the field, a string that is not UTF-8, a time outside Clock::WallTime's range,
/// nesting deeper than 100 messages); 415 UnsupportedMediaType for a kind or a contentEncoding
/// the table does not know, or with kRefuse a field number (the message names it, e.g.
/// `protobuf field 41 of k8s.io.api.core.v1.PodSpec is not known`).
Result<std::string> ToJson(std::string_view body, UnknownFields unknown = UnknownFields::kRefuse);

/// Transcodes one frame of a protobuf watch (Content-Type `application/vnd.kubernetes.protobuf;
/// stream=watch`: a sequence of frames, each a 4-byte big-endian length and that many bytes of a
/// `meta.v1.WatchEvent` without envelope, whose object is an envelope inside a RawExtension),
/// without its length prefix, to the JSON line kube-apiserver sends for the same event:
/// `{"type":"MODIFIED","object":{...}}`. **Errors:** as ToJson.
Result<std::string> WatchEventToJson(std::string_view frame, UnknownFields unknown = UnknownFields::kRefuse);

/// The apiVersion and kind an envelope declares (views into `body`), without reading its object.
struct EnvelopeType {
  std::string_view api_version;
  std::string_view kind;
};

/// Reads the envelope's typeMeta. **Errors:** 400 BadRequest for a body that is not a
/// well-formed envelope (ToJson's messages).
Result<EnvelopeType> PeekType(std::string_view body);

/// Transcodes a body that arrives in pieces, a list's items one by one: `sink` receives the JSON
/// text of the whole body in order, each item as soon as its last byte is in, so that a JSON
/// list parser (`ObjectListParser`) can run behind it. A body that is not a list is transcoded
/// whole at Finish. Memory: the item in progress, not the list.
/// **Thread-safety:** none (one per body). **Errors:** as ToJson, from Feed or Finish (a body
/// that ends early); an error from `sink` is returned as it is. After an error the transcoder
/// must not be fed again.
class StreamTranscoder final {
 public:
  /// `sink` is called with JSON text; it must not be empty.
  explicit StreamTranscoder(std::function<Result<void>(std::string_view json)> sink);
  ~StreamTranscoder();
  StreamTranscoder(const StreamTranscoder&) = delete;
  StreamTranscoder& operator=(const StreamTranscoder&) = delete;

  /// The next bytes of the body.
  Result<void> Feed(std::string_view bytes);
  /// The body has ended: checks that it was complete and passes the rest of the JSON on.
  Result<void> Finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kube::protobuf
