#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include <kube/base/mutex.hpp>
#include <kube/base/spin.hpp>
#include <kube/base/thread_annotations.hpp>

namespace kube::workqueue::internal {

using kube::CpuRelax;  // (kube/base/spin.hpp)

/// The queues' guard for a `kube::Mutex`: `kube::SpinMutexLock` with a longer spin (pause
/// rounds up to 2,048, roughly 50-100 us) before it yields. A queue's lock is held for well
/// under that, and on a machine with fewer cores than threads (a producer and two workers on
/// 2 vCPUs) yielding early hands the core to a thread that keeps it for a whole time slice.
/// Measured (docs/workqueue.md, session 12): with the default spin, a producer adding 1M keys
/// to two workers ran about 1.5x slower, and its queue grew to 900k items instead of staying
/// nearly empty. (`Queue` itself uses `SpinLock` below.)
class KUBE_SCOPED_CAPABILITY SpinMutexLock final {
 public:
  /// Acquires `mu`; `mu` must outlive this guard.
  explicit SpinMutexLock(Mutex& mu) KUBE_ACQUIRE(mu) : mu_(mu) {
    kube::SpinMutexLock::Acquire(mu, kMaxPauses);
  }
  ~SpinMutexLock() KUBE_RELEASE() { mu_.Unlock(); }
  SpinMutexLock(const SpinMutexLock&) = delete;
  SpinMutexLock& operator=(const SpinMutexLock&) = delete;

  static constexpr int kMaxPauses = 2048;

 private:
  Mutex& mu_;
};

/// Blocks the calling thread while `*word == expected`, for at most `timeout` (zero: no
/// limit), or until `FutexWake` on `word`. May return spuriously. (Linux: a private futex;
/// elsewhere a short yield.)
void FutexWait(std::atomic<std::uint32_t>& word, std::uint32_t expected,
               std::chrono::nanoseconds timeout = std::chrono::nanoseconds::zero());
/// Wakes up to `count` threads blocked in `FutexWait` on `word`.
void FutexWake(std::atomic<std::uint32_t>& word, int count);

/// A mutual-exclusion lock for the queues' short critical sections whose `Unlock` is a plain
/// release store, and nothing else: not the atomic read-modify-write of a `std::mutex` unlock,
/// nor even a load to find sleepers to wake. With two workers and a producer taking the
/// queue's locks in turn, another thread usually holds a copy of the lock's cache line when
/// the holder unlocks; a store retires at once where a read-modify-write waits for the line.
/// The lock is 8 bytes and not padded, so the data declared beside it shares its line.
/// Measured (docs/workqueue.md, session 14): 1.4-1.9x the throughput of the 2-worker
/// benchmarks against `std::mutex`; the same lock with an exchange in `Unlock` gained almost
/// nothing, and a relaxed load of a sleeper count (on a line nobody wrote) after the store
/// halved the gain on 1M keys.
///
/// `Lock` spins (test-and-test-and-set, pause rounds up to 2,048, roughly 50-100 us), then
/// yields the CPU a few times, then sleeps on a futex in timed naps (50 us doubling up to
/// `kMaxSleep`), trying again after each. As `Unlock` never wakes anyone, a sleeper notices a
/// free lock only when its nap ends. Sleeping happens only when a holder is off its CPU for
/// longer than the whole spin (preempted, with more threads than cores), and then a nap costs
/// little next to the holder's own wait for a CPU; the naps keep waiters from burning CPU
/// while the holder cannot run.
///
/// **Thread-safety:** all members may be called concurrently. Not recursive; `Unlock` must be
/// called by the holder. **Blocks?** `Lock` blocks until the lock is free.
class KUBE_CAPABILITY("mutex") SpinLock final {
 public:
  SpinLock() = default;
  SpinLock(const SpinLock&) = delete;
  SpinLock& operator=(const SpinLock&) = delete;

  /// Acquires the lock (acquire ordering), waiting as described above.
  void Lock() KUBE_ACQUIRE() {
    if (locked_.exchange(1, std::memory_order_acquire) == 0) return;
    LockSlow();
  }

  /// Acquires the lock if it is free; never waits.
  bool TryLock() KUBE_TRY_ACQUIRE(true) { return TryAcquire(); }

  /// Releases the lock (release ordering).
  void Unlock() KUBE_RELEASE() { locked_.store(0, std::memory_order_release); }

  /// For the thread-safety analysis only: declares that the caller holds the lock.
  void AssertHeld() const KUBE_ASSERT_CAPABILITY(this) {}

  /// Threads currently in the sleeping phase of `Lock` (for tests).
  std::uint32_t SleepersForTesting() const { return sleepers_.load(); }

  /// Longest single nap of a waiting `Lock` before it tries again.
  static constexpr std::chrono::milliseconds kMaxSleep{1};

 private:
  static constexpr int kMaxPauses = SpinMutexLock::kMaxPauses;
  static constexpr int kYields = 16;

  // Test, then test-and-set: a waiter reads the line until it looks free, so that it does not
  // take the line away from the holder with read-modify-writes that fail.
  bool TryAcquire() {
    return locked_.load(std::memory_order_relaxed) == 0 &&
           locked_.exchange(1, std::memory_order_acquire) == 0;
  }

  void LockSlow();

  std::atomic<std::uint32_t> locked_{0};  // 1 while held; the futex word of sleeping Locks
  std::atomic<std::uint32_t> sleepers_{0};  // written only by Locks that sleep
};

/// Scoped holder of a `SpinLock`.
class KUBE_SCOPED_CAPABILITY SpinLockGuard final {
 public:
  /// Acquires `mu`; `mu` must outlive this guard.
  explicit SpinLockGuard(SpinLock& mu) KUBE_ACQUIRE(mu) : mu_(mu) { mu_.Lock(); }
  ~SpinLockGuard() KUBE_RELEASE() { mu_.Unlock(); }
  SpinLockGuard(const SpinLockGuard&) = delete;
  SpinLockGuard& operator=(const SpinLockGuard&) = delete;

 private:
  SpinLock& mu_;
};

/// A condition variable for `SpinLock`: a futex on a sequence number that every signal
/// advances. A waiter reads the sequence while it holds the lock, so a signal sent after the
/// waiter's critical section (the rule: change the state under the lock, signal after) is
/// never lost. Spurious wake-ups happen (a signal may wake a waiter that is just arriving as
/// well as one already asleep): wait in a loop that re-checks the state.
///
/// **Thread-safety:** all members may be called concurrently.
class SpinCondVar final {
 public:
  SpinCondVar() = default;
  SpinCondVar(const SpinCondVar&) = delete;
  SpinCondVar& operator=(const SpinCondVar&) = delete;

  /// Releases `mu`, blocks until a `Signal` or `SignalAll` that comes after this call took
  /// `mu` (or spuriously), and re-acquires `mu`. **Blocks?** Yes.
  void Wait(SpinLock& mu) KUBE_REQUIRES(mu) {
    const std::uint32_t seq = seq_.load(std::memory_order_relaxed);
    mu.Unlock();
    FutexWait(seq_, seq);
    mu.Lock();
  }

  /// Wakes at least one waiting thread, if any.
  void Signal() {
    seq_.fetch_add(1, std::memory_order_relaxed);
    FutexWake(seq_, 1);
  }

  /// Wakes every waiting thread.
  void SignalAll() {
    seq_.fetch_add(1, std::memory_order_relaxed);
    FutexWake(seq_, kWakeAll);
  }

 private:
  static constexpr int kWakeAll = 1 << 30;
  std::atomic<std::uint32_t> seq_{0};
};

}  // namespace kube::workqueue::internal
