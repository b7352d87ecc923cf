#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>

#include <kube/base/thread_annotations.hpp>

namespace kube {

/// A std::mutex annotated as a capability, so that clang's `-Wthread-safety` can check that
/// every `KUBE_GUARDED_BY(mu_)` field is only touched with `mu_` held.
/// **Thread-safety:** it is the lock. **Blocks?** `Lock` blocks until acquired.
class KUBE_CAPABILITY("mutex") Mutex final {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  /// Acquires the mutex (blocks).
  void Lock() KUBE_ACQUIRE() { mu_.lock(); }
  /// Releases the mutex; the caller must hold it.
  void Unlock() KUBE_RELEASE() { mu_.unlock(); }
  /// Acquires without blocking; returns whether it did.
  bool TryLock() KUBE_TRY_ACQUIRE(true) { return mu_.try_lock(); }
  /// Tells the analysis that the caller holds the mutex (no runtime check).
  void AssertHeld() const KUBE_ASSERT_CAPABILITY(this) {}

 private:
  friend class CondVar;
  std::mutex mu_;
};

/// RAII lock over a Mutex. **Blocks?** The constructor blocks until the mutex is acquired.
class KUBE_SCOPED_CAPABILITY MutexLock final {
 public:
  /// Acquires `mu`; `mu` must outlive this lock.
  explicit MutexLock(Mutex& mu) KUBE_ACQUIRE(mu) : mu_(mu) { mu_.Lock(); }
  ~MutexLock() KUBE_RELEASE() { mu_.Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex& mu_;
};

/// A reader-writer mutex (std::shared_mutex) annotated as a capability: many readers or one
/// writer. Use for read-mostly data such as informer caches.
class KUBE_CAPABILITY("mutex") SharedMutex final {
 public:
  SharedMutex() = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  /// Acquires exclusively (blocks).
  void Lock() KUBE_ACQUIRE() { mu_.lock(); }
  /// Releases an exclusive hold.
  void Unlock() KUBE_RELEASE() { mu_.unlock(); }
  /// Acquires shared (blocks while a writer holds it).
  void ReaderLock() KUBE_THREAD_ANNOTATION(acquire_shared_capability()) { mu_.lock_shared(); }
  /// Releases a shared hold.
  void ReaderUnlock() KUBE_THREAD_ANNOTATION(release_shared_capability()) { mu_.unlock_shared(); }

 private:
  std::shared_mutex mu_;
};

/// RAII exclusive lock over a SharedMutex.
class KUBE_SCOPED_CAPABILITY WriterLock final {
 public:
  explicit WriterLock(SharedMutex& mu) KUBE_ACQUIRE(mu) : mu_(mu) { mu_.Lock(); }
  ~WriterLock() KUBE_RELEASE() { mu_.Unlock(); }
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;

 private:
  SharedMutex& mu_;
};

/// RAII shared lock over a SharedMutex.
class KUBE_SCOPED_CAPABILITY ReaderLock final {
 public:
  explicit ReaderLock(SharedMutex& mu) KUBE_THREAD_ANNOTATION(acquire_shared_capability(mu)) : mu_(mu) {
    mu_.ReaderLock();
  }
  ~ReaderLock() KUBE_RELEASE() { mu_.ReaderUnlock(); }
  ReaderLock(const ReaderLock&) = delete;
  ReaderLock& operator=(const ReaderLock&) = delete;

 private:
  SharedMutex& mu_;
};

/// A condition variable used with Mutex. Waits may wake spuriously: always wait in a loop that
/// re-checks the predicate, as in `while (!ready_) cv_.Wait(mu_);`.
/// **Thread-safety:** all members may be called concurrently.
class CondVar final {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  /// Atomically releases `mu` and blocks until notified; re-acquires `mu` before returning.
  void Wait(Mutex& mu) KUBE_REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu.mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();
  }

  /// Like Wait, but gives up at `deadline` (std::chrono::steady_clock). Returns true if the wait
  /// timed out. Components that take a Clock wait through `Clock::WaitUntil` instead.
  bool WaitUntil(Mutex& mu, std::chrono::steady_clock::time_point deadline) KUBE_REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu.mu_, std::adopt_lock);
    const bool timed_out = cv_.wait_until(lock, deadline) == std::cv_status::timeout;
    lock.release();
    return timed_out;
  }

  /// Wakes one waiter.
  void Signal() { cv_.notify_one(); }
  /// Wakes every waiter.
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace kube
