#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace kube::api {

/// The members of a JSON object that its type does not declare, kept so that an object decoded
/// from a newer server is written back without losing them (a read-modify-write Update then
/// preserves fields this client does not know). Held as `"key":value` pairs in compact JSON,
/// comma-separated, behind one pointer: 8 bytes when there are none (the common case).
/// Copies are deep. **Thread-safety:** as for any value type.
class UnknownFields final {
 public:
  UnknownFields() = default;
  UnknownFields(const UnknownFields& o) : raw_(o.raw_ ? std::make_unique<std::string>(*o.raw_) : nullptr) {}
  UnknownFields(UnknownFields&&) noexcept = default;
  UnknownFields& operator=(const UnknownFields& o) {
    if (this != &o) raw_ = o.raw_ ? std::make_unique<std::string>(*o.raw_) : nullptr;
    return *this;
  }
  UnknownFields& operator=(UnknownFields&&) noexcept = default;
  ~UnknownFields() = default;

  bool empty() const { return !raw_ || raw_->empty(); }
  /// The members as `"a":1,"b":{}` (empty when none).
  std::string_view raw() const { return raw_ ? std::string_view(*raw_) : std::string_view(); }
  /// Appends one member: `quoted_key` is the key's JSON string literal as it appeared (with its
  /// quotes and escapes), `value` one compact JSON value.
  void Append(std::string_view quoted_key, std::string_view value);
  void clear() { raw_.reset(); }

  friend bool operator==(const UnknownFields& a, const UnknownFields& b) { return a.raw() == b.raw(); }

 private:
  std::unique_ptr<std::string> raw_;
};

}  // namespace kube::api
