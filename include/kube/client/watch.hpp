#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <kube/base/result.hpp>
#include <kube/client/transport.hpp>
#include <kube/core/watch_event.hpp>

namespace kube::client {

/// The encoding of a watch body.
enum class WatchFormat {
  kJson,      ///< one JSON event per line (`application/json`)
  kProtobuf,  ///< length-prefixed protobuf frames (`application/vnd.kubernetes.protobuf;stream=watch`),
              ///< each transcoded to the JSON event kube-apiserver would have sent
};

/// Splits a watch body into events and decodes them, incrementally: bytes are fed as they
/// arrive, in chunks of any size, and only the unfinished tail is kept (the stream is never
/// buffered whole). Events split across chunks and several events per chunk are handled. JSON:
/// newline-delimited, blank lines and a `\r` before the `\n` tolerated. Protobuf: frames of a
/// 4-byte big-endian length and a `meta.v1.WatchEvent` (`<kube/core/protobuf.hpp>`).
/// **Thread-safety:** none (one reader).
class WatchDecoder final {
 public:
  /// The longest event line accepted (default 64 MiB); a longer line is a protocol error.
  explicit WatchDecoder(std::size_t max_line_bytes = std::size_t{64} << 20, WatchFormat format = WatchFormat::kJson);

  /// Appends body bytes.
  void Feed(std::string_view bytes);
  /// The next complete event, or nullopt when more bytes are needed.
  /// **Errors:** BadRequest for a line or frame that is not a watch event (as DecodeWatchEvent or
  /// protobuf::WatchEventToJson), 415 UnsupportedMediaType for a protobuf field this build does
  /// not know, 413 RequestEntityTooLarge when an unfinished line or a frame exceeds the limit.
  std::optional<Result<WatchEvent>> Next();
  /// True when bytes of an unfinished line or frame are buffered (a stream ending now was
  /// truncated).
  bool HasPartialLine() const;
  WatchFormat format() const { return format_; }
  /// Bytes currently buffered.
  std::size_t Buffered() const { return buf_.size() - pos_; }

 private:
  std::string buf_;
  std::size_t pos_ = 0;   // start of the unconsumed bytes
  std::size_t scan_ = 0;  // bytes from pos_ already known to contain no '\n'
  std::size_t max_line_bytes_;
  WatchFormat format_;

  std::optional<Result<WatchEvent>> NextFrame();
};

/// An open watch: yields the events of one watch response, decoded from the chunked body as they
/// arrive, in the format its Content-Type names (protobuf frames or JSON lines).
/// **Thread-safety:** `Next` is called by one consumer thread; `Stop` may be called from any
/// thread (and makes a blocked `Next` return promptly). **Ownership:** owns the connection;
/// destroy it only once no other thread can call `Stop`.
class WatchStream final {
 public:
  /// Wraps an open response stream (status 2xx). `on_unknown_protobuf` is called once if a
  /// protobuf frame holds a field this build does not know (the event is then a 415 error;
  /// the REST client uses it to watch in JSON from then on).
  explicit WatchStream(std::unique_ptr<ResponseStream> stream, std::function<void()> on_unknown_protobuf = {});
  ~WatchStream();
  WatchStream(const WatchStream&) = delete;
  WatchStream& operator=(const WatchStream&) = delete;

  /// The next event. nullopt means the watch is over: the server ended the response (e.g.
  /// `timeoutSeconds` elapsed) or `Stop` was called; re-watch from the last resourceVersion.
  /// **Blocks?** Until an event arrives, the stream ends, or `Stop`.
  /// **Errors:** an `ERROR` event is returned as its Status' classified Error (e.g. `IsExpired`
  /// for 410: relist) and ends the watch; a connection reset or truncated body mid-stream is a
  /// kConnectionReset transport error; a malformed event line is BadRequest. After an error every
  /// further call returns nullopt.
  Result<std::optional<WatchEvent>> Next();
  /// Ends the watch: closes the connection; the current or next `Next` returns nullopt.
  /// Idempotent; safe from any thread.
  void Stop();
  /// True once Stop has been called or the stream has ended.
  bool Done() const { return done_.load(); }
  /// Events returned so far.
  std::size_t EventCount() const { return events_; }
  /// The body's encoding, from its Content-Type.
  WatchFormat format() const { return decoder_.format(); }

 private:
  std::unique_ptr<ResponseStream> stream_;
  WatchDecoder decoder_;
  std::function<void()> on_unknown_protobuf_;
  std::atomic<bool> stopped_{false};
  std::atomic<bool> done_{false};
  bool eof_ = false;  // the body has ended; drain the decoder, then report the end
  std::size_t events_ = 0;
};

}  // namespace kube::client
