#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <kube/base/large_array_allocator.hpp>

namespace kube::workqueue::internal {

/// A growable FIFO ring of 32-bit slot indices. Memory grows by doubling and is kept, so a
/// warmed ring never allocates. **Thread-safety:** none (guarded by the owning queue's mutex).
class IndexRing final {
 public:
  bool empty() const noexcept { return size_ == 0; }
  std::size_t size() const noexcept { return size_; }

  void push_back(std::uint32_t v) {
    if (size_ == buf_.size()) Grow();
    buf_[(head_ + size_) & (buf_.size() - 1)] = v;
    ++size_;
  }

  std::uint32_t pop_front() noexcept {
    assert(size_ > 0);
    const std::uint32_t v = buf_[head_];
    head_ = (head_ + 1) & (buf_.size() - 1);
    --size_;
    return v;
  }

 private:
  void Grow() {
    Buffer bigger(buf_.empty() ? 64 : buf_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = buf_[(head_ + i) & (buf_.size() - 1)];
    buf_.swap(bigger);
    head_ = 0;
  }

  // Size 0 or a power of two; from 1 MiB (256k entries) on, mapped with huge pages advised.
  using Buffer = std::vector<std::uint32_t, LargeArrayAllocator<std::uint32_t>>;
  Buffer buf_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace kube::workqueue::internal
