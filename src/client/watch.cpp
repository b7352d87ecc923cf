#include <kube/client/watch.hpp>

#include <cstring>
#include <utility>

#include <kube/core/status.hpp>

namespace kube::client {

WatchDecoder::WatchDecoder(std::size_t max_line_bytes) : max_line_bytes_(max_line_bytes) {}

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

std::optional<Result<WatchEvent>> WatchDecoder::Next() {
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
  for (std::size_t i = pos_; i < buf_.size(); ++i) {
    const char c = buf_[i];
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return true;
  }
  return false;
}

WatchStream::WatchStream(std::unique_ptr<ResponseStream> stream) : stream_(std::move(stream)) {}

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
        // Tolerate a last event without its newline; anything else is a truncated stream.
        const std::size_t buffered = decoder_.Buffered();
        decoder_.Feed("\n");
        auto last = decoder_.Next();
        if (last && last->ok()) return deliver(std::move(*last));
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
