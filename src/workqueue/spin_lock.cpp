#include <kube/workqueue/internal/spin_lock.hpp>

#include <algorithm>
#include <ctime>
#include <thread>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace kube::workqueue::internal {

void FutexWait(std::atomic<std::uint32_t>& word, std::uint32_t expected,
               std::chrono::nanoseconds timeout) {
#if defined(__linux__)
  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
  timespec ts{};
  timespec* limit = nullptr;
  if (timeout > std::chrono::nanoseconds::zero()) {
    ts.tv_sec = static_cast<time_t>(timeout.count() / 1'000'000'000);
    ts.tv_nsec = static_cast<long>(timeout.count() % 1'000'000'000);
    limit = &ts;
  }
  // The kernel compares *word with `expected` atomically with queueing this thread, so a
  // wake-up after the caller changed the word is not lost. EINTR, EAGAIN, ETIMEDOUT: return.
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected, limit,
          nullptr, 0);
#else
  (void)timeout;
  if (word.load() == expected) std::this_thread::yield();
#endif
}

void FutexWake(std::atomic<std::uint32_t>& word, int count) {
#if defined(__linux__)
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE_PRIVATE, count, nullptr,
          nullptr, 0);
#else
  (void)word;
  (void)count;
#endif
}

void SpinLock::LockSlow() {
  for (int pauses = 1; pauses <= kMaxPauses; pauses *= 2) {
    for (int i = 0; i < pauses; ++i) CpuRelax();
    if (TryAcquire()) return;
  }
  // The holder may have been preempted (more threads than cores): let it run.
  for (int i = 0; i < kYields; ++i) {
    std::this_thread::yield();
    if (TryAcquire()) return;
  }
  sleepers_.fetch_add(1, std::memory_order_relaxed);
  std::chrono::nanoseconds nap = std::chrono::microseconds(50);
  while (!TryAcquire()) {
    FutexWait(locked_, 1, nap);  // returns at once if the lock is already free
    nap = std::min<std::chrono::nanoseconds>(nap * 2, kMaxSleep);
  }
  sleepers_.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace kube::workqueue::internal
