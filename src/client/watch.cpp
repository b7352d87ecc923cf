#include <kube/client/watch.hpp>

#include <cstdint>
#include <cstring>
#include <utility>

#include <kube/core/protobuf.hpp>
#include <kube/core/status.hpp>

#include "client/internal/util.hpp"

namespace kube::client {

WatchDecoder::WatchDecoder(std::size_t max_line_bytes, WatchFormat format)
    : max_line_bytes_(max_line_bytes), format_(format) {}

void WatchDecoder::Feed(std::string_view bytes) {
  if (bytes.empty()) return;
  // Compact lazily: drop consumed bytes once they dominate the buffer, so that a long stream
  // keeps at most about one unfinished line plus one chunk in memory.
  if (pos_ > 0 && (pos_ >= buf_.size() || pos_ > (std::size_t{64} << 10) || pos_ * 2 > buf_.size())) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  buf_.append(bytes);
}

std::optional<Result<WatchEvent>> WatchDecoder::NextFrame() {
  const std::size_t avail = buf_.size() - pos_;
  if (avail < 4) return std::nullopt;
  const auto* p = reinterpret_cast<const unsigned char*>(buf_.data() + pos_);
  const std::size_t len = (std::size_t{p[0]} << 24) | (std::size_t{p[1]} << 16) | (std::size_t{p[2]} << 8) | p[3];
  if (len > max_line_bytes_) {
    buf_.clear();
    pos_ = 0;
    return Result<WatchEvent>(MakeError(413, reason::kRequestEntityTooLarge,
                                        "watch event frame exceeds " + std::to_string(max_line_bytes_) + " bytes"));
  }
  if (avail - 4 < len) return std::nullopt;
  const std::string_view frame(buf_.data() + pos_ + 4, len);
  pos_ += 4 + len;
  auto json = protobuf::WatchEventToJson(frame);
  if (!json.ok()) return Result<WatchEvent>(std::move(json).error());
  return DecodeWatchEvent(*json);
}

std::optional<Result<WatchEvent>> WatchDecoder::Next() {
  if (format_ == WatchFormat::kProtobuf) return NextFrame();
  for (;;) {
    const std::size_t avail = buf_.size() - pos_;
    if (scan_ >= avail) {
      if (avail > max_line_bytes_) {
        // Drop the runaway line so that the buffer cannot grow without bound.
        buf_.clear();
        pos_ = 0;
        scan_ = 0;
        return Result<WatchEvent>(MakeError(413, reason::kRequestEntityTooLarge,
                                            "watch event line exceeds " + std::to_string(max_line_bytes_) + " bytes"));
      }
      return std::nullopt;
    }
    const char* begin = buf_.data() + pos_;
    const void* nl = std::memchr(begin + scan_, '\n', avail - scan_);
    if (nl == nullptr) {
      scan_ = avail;
      continue;  // re-checks the size limit, then asks for more bytes
    }
    const std::size_t len = static_cast<std::size_t>(static_cast<const char*>(nl) - begin);
    std::string_view line(begin, len);
    pos_ += len + 1;
    scan_ = 0;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t' || line.front() == '\r')) line.remove_prefix(1);
    if (line.empty()) continue;  // tolerate blank keep-alive lines
    return DecodeWatchEvent(line);
  }
}

bool WatchDecoder::HasPartialLine() const {
  if (format_ == WatchFormat::kProtobuf) return pos_ < buf_.size();
  for (std::size_t i = pos_; i < buf_.size(); ++i) {
    const char c = buf_[i];
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return true;
  }
  return false;
}

namespace {
// The format a watch response's Content-Type names: protobuf frames for kube's
// `application/vnd.kubernetes.protobuf;stream=watch`, JSON lines otherwise.
WatchFormat FormatOf(const ResponseStream& stream) {
  const auto type = FindHeader(stream.headers(), "content-type");
  return type && internal::MediaType(*type) == protobuf::kMediaType ? WatchFormat::kProtobuf : WatchFormat::kJson;
}
}  // namespace

WatchStream::WatchStream(std::unique_ptr<ResponseStream> stream, std::function<void()> on_unknown_protobuf)
    : stream_(std::move(stream)),
      decoder_(std::size_t{64} << 20, FormatOf(*stream_)),
      on_unknown_protobuf_(std::move(on_unknown_protobuf)) {}

WatchStream::~WatchStream() {
  if (stream_) stream_->Cancel();
}

void WatchStream::Stop() {
  if (stopped_.exchange(true)) return;
  done_.store(true);
  stream_->Cancel();
}

Result<std::optional<WatchEvent>> WatchStream::Next() {
  const auto deliver = [this](Result<WatchEvent> event) -> Result<std::optional<WatchEvent>> {
    if (!event.ok()) {
      done_.store(true);
      if (decoder_.format() == WatchFormat::kProtobuf && IsUnsupportedMediaType(event.error()) &&
          on_unknown_protobuf_) {
        on_unknown_protobuf_();
      }
      return std::move(event).error();
    }
    WatchEvent& ev = event.value();
    if (ev.type == WatchEventType::kError) {
      done_.store(true);
      if (ev.error) return *ev.error;
      return InternalError("watch ERROR event without a Status");
    }
    ++events_;
    return std::optional<WatchEvent>(std::move(ev));
  };
  for (;;) {
    if (done_.load()) return std::optional<WatchEvent>();
    if (auto event = decoder_.Next()) return deliver(std::move(*event));
    if (eof_) {
      done_.store(true);
      return std::optional<WatchEvent>();
    }
    auto chunk = stream_->Read();
    if (!chunk) {
      done_.store(true);
      if (stopped_.load() || IsCanceled(chunk.error())) return std::optional<WatchEvent>();
      return std::move(chunk).error();
    }
    if (chunk->empty()) {
      eof_ = true;
      if (decoder_.HasPartialLine()) {
        // Tolerate a last JSON event without its newline; anything else is a truncated stream.
        const std::size_t buffered = decoder_.Buffered();
        if (decoder_.format() == WatchFormat::kJson) {
          decoder_.Feed("\n");
          auto last = decoder_.Next();
          if (last && last->ok()) return deliver(std::move(*last));
        }
        done_.store(true);
        return MakeTransportError(transport_cause::kConnectionReset,
                                  "watch stream ended in the middle of an event (" + std::to_string(buffered) +
                                      " bytes unterminated)");
      }
      continue;
    }
    decoder_.Feed(*chunk);
  }
}

}  // namespace kube::client
