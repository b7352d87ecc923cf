#pragma once

#include <thread>

#include <kube/base/mutex.hpp>
#include <kube/base/thread_annotations.hpp>

namespace kube::workqueue::internal {

/// One spin-wait hint to the CPU (x86 `pause`, ARM `yield`).
inline void CpuRelax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield");
#endif
}

/// RAII lock over a kube::Mutex that spins briefly (about 2 us) before blocking.
/// The queues hold their mutex for tens of nanoseconds; without the spin, every collision
/// between a producer and a worker parks a thread in the kernel (a futex wait plus a wake on
/// unlock), which costs microseconds — far more than the critical section.
/// **Blocks?** The constructor blocks until the mutex is acquired.
class KUBE_SCOPED_CAPABILITY SpinMutexLock final {
 public:
  /// Acquires `mu`; `mu` must outlive this lock.
  explicit SpinMutexLock(Mutex& mu) KUBE_ACQUIRE(mu) : mu_(mu) { Acquire(mu); }
  ~SpinMutexLock() KUBE_RELEASE() { mu_.Unlock(); }
  SpinMutexLock(const SpinMutexLock&) = delete;
  SpinMutexLock& operator=(const SpinMutexLock&) = delete;

  /// Spins on TryLock with growing pauses, then blocks in Lock.
  static void Acquire(Mutex& mu) KUBE_ACQUIRE(mu) {
    for (int pauses = 1; pauses <= 64; pauses *= 2) {
      if (mu.TryLock()) return;
      for (int i = 0; i < pauses; ++i) CpuRelax();
    }
    // The holder may have been preempted (more threads than cores): let it run rather than
    // park. Parking marks the mutex contended, and then every unlock pays a futex wake.
    for (int i = 0; i < kYields; ++i) {
      std::this_thread::yield();
      if (mu.TryLock()) return;
    }
    mu.Lock();
  }

 private:
  static constexpr int kYields = 16;
  Mutex& mu_;
};

}  // namespace kube::workqueue::internal
