#pragma once

#include <kube/base/mutex.hpp>
#include <kube/base/spin.hpp>
#include <kube/base/thread_annotations.hpp>

namespace kube::workqueue::internal {

using kube::CpuRelax;  // (kube/base/spin.hpp)

/// The queues' lock guard: `kube::SpinMutexLock` with a longer spin (pause rounds up to 2,048,
/// roughly 50-100 us) before it yields. A queue's lock is held for well under that (one Get, one
/// Done, or applying at most `Queue::kInboxLimit` adds), and on a machine with fewer cores than
/// threads (a producer and two workers on 2 vCPUs) yielding early hands the core to a thread
/// that keeps it for a whole time slice. Measured (docs/workqueue.md, session 12): with the
/// default spin, a producer adding 1M keys to two workers ran about 1.5x slower, and its queue
/// grew to 900k items instead of staying nearly empty.
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

}  // namespace kube::workqueue::internal
