#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <kube/base/error.hpp>
#include <kube/base/mutex.hpp>
#include <kube/leaderelection/lease_lock.hpp>

namespace kube::leaderelection {

/// The in-memory object several `FakeLock`s compete for: a record plus a resourceVersion that
/// increases on every write. Keeps the history of every successful write, for invariants.
/// **Thread-safety:** all members may be called concurrently.
class FakeLeaseStore final {
 public:
  /// One successful write.
  struct Write {
    std::string writer;  ///< identity of the lock that wrote (or "" for `Put`)
    LeaderElectionRecord record;
    std::uint64_t resource_version = 0;
  };

  /// The stored record, or nullopt when the object does not exist.
  std::optional<ObservedRecord> Current() const;
  /// Overwrites (or creates) the record unconditionally, as an outside writer would.
  void Put(const LeaderElectionRecord& record);
  /// Every successful write so far, oldest first.
  std::vector<Write> History() const;

  /// Compare-and-swap used by FakeLock: `expected_rv` 0 = create (fails AlreadyExists if present).
  /// Returns the new resourceVersion. **Errors:** Conflict / AlreadyExists / NotFound.
  Result<std::uint64_t> CompareAndSwap(const std::string& writer, std::uint64_t expected_rv,
                                       const LeaderElectionRecord& record);

 private:
  mutable Mutex mu_;
  std::optional<LeaderElectionRecord> record_ KUBE_GUARDED_BY(mu_);
  std::uint64_t resource_version_ KUBE_GUARDED_BY(mu_) = 0;  // 0 iff never written
  std::vector<Write> history_ KUBE_GUARDED_BY(mu_);
};

/// A `ResourceLock` over a `FakeLeaseStore`, for unit tests. Can be told to fail its next calls.
/// **Thread-safety:** all members may be called concurrently.
/// **Ownership:** shares the store.
class FakeLock final : public ResourceLock {
 public:
  FakeLock(std::shared_ptr<FakeLeaseStore> store, std::string identity);

  Result<ObservedRecord> Get() override;
  Result<void> Create(const LeaderElectionRecord& record) override;
  Result<void> Update(const LeaderElectionRecord& record) override;
  std::string Identity() const override { return identity_; }
  std::string Describe() const override { return "fake/" + identity_; }

  /// The next `n` Update calls fail with `error` (without writing).
  void FailNextUpdates(int n, Error error = MakeError(500, reason::kInternalError, "injected"));
  /// The next `n` Get calls fail with `error`.
  void FailNextGets(int n, Error error = MakeError(500, reason::kInternalError, "injected"));
  /// Number of Update calls so far (failed ones included).
  int UpdateCalls() const;

 private:
  const std::shared_ptr<FakeLeaseStore> store_;
  const std::string identity_;
  mutable Mutex mu_;
  std::uint64_t last_rv_ KUBE_GUARDED_BY(mu_) = 0;  // 0 = never read
  int fail_updates_ KUBE_GUARDED_BY(mu_) = 0;
  Error update_error_ KUBE_GUARDED_BY(mu_);
  int fail_gets_ KUBE_GUARDED_BY(mu_) = 0;
  Error get_error_ KUBE_GUARDED_BY(mu_);
  int update_calls_ KUBE_GUARDED_BY(mu_) = 0;
};

}  // namespace kube::leaderelection
