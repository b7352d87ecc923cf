#pragma once

#include <chrono>
#include <thread>

#include <kube/base/mutex.hpp>
#include <kube/base/thread_annotations.hpp>

namespace kube {

/// One spin-wait hint to the CPU (x86 `pause`, ARM `yield`).
inline void CpuRelax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield");
#endif
}

/// Waits for `ready()` by spinning — CPU pause hints first, then yielding the CPU (so that a
/// producer sharing this core can run) — for at most about `budget` of real time. Returns the
/// last value of `ready()`. For a consumer about to park on a condition variable when its
/// producer is likely to deliver again within microseconds: on small virtual machines a
/// cross-CPU wake-up (futex wake, inter-processor interrupt) costs more than such a spin, and
/// a consumer that is not parked needs no wake-up at all. `ready` is called often and must be
/// cheap (an atomic load). **Blocks?** Up to `budget`, burning CPU.
template <class Ready>
bool SpinFor(std::chrono::nanoseconds budget, Ready&& ready) {
  for (int i = 0; i < 64; ++i) {
    if (ready()) return true;
    CpuRelax();
  }
  const auto until = std::chrono::steady_clock::now() + budget;
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::yield();
  }
  return true;
}

/// RAII lock over a kube::Mutex that spins briefly (about 2 us) before blocking.
/// For mutexes held briefly (the delaying queue's and token bucket's locks: tens of
/// nanoseconds; a DeltaFIFO: the few microseconds of its process function; `Queue` itself uses
/// `kube::workqueue::internal::SpinLock`); without the spin, every collision
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

  /// Spins on TryLock with growing pauses (rounds of 1, 2, 4, ... up to `max_pauses` CPU
  /// pauses: about 2 us with the default 64), then yields the CPU a few times, then blocks in
  /// Lock. A longer spin suits a lock whose holders are always running and whose waiters would
  /// otherwise yield to a thread that then holds the CPU for a whole time slice (the work
  /// queues, on machines with fewer cores than threads).
  static void Acquire(Mutex& mu, int max_pauses = 64) KUBE_ACQUIRE(mu) {
    for (int pauses = 1; pauses <= max_pauses; pauses *= 2) {
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

}  // namespace kube
