#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <kube/api/coordination/v1.hpp>
#include <kube/base/clock.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/result.hpp>
#include <kube/client/typed_api.hpp>

/// Leader election (client-go tools/leaderelection): the lock a set of candidates compete for,
/// and the elector that acquires and renews it.
namespace kube::leaderelection {

/// The state of the lock, as written by its holder (client-go `LeaderElectionRecord`, stored in
/// the `spec` of a coordination.k8s.io/v1 Lease).
/// Times are wall-clock instants truncated to the microsecond (what a MicroTime round trip
/// keeps), so that a record read back compares equal to the record written.
/// Candidates never judge expiry from these timestamps (clocks differ between machines); they
/// are informational.
struct LeaderElectionRecord {
  std::string holder_identity{};       ///< "" = nobody holds the lock (e.g. after a release)
  std::int64_t lease_duration_seconds = 0;  ///< how long the holder claims the lock per renewal
  Clock::WallTime acquire_time{};      ///< when the current holder acquired the lock
  Clock::WallTime renew_time{};        ///< when the current holder last renewed it
  std::int64_t lease_transitions = 0;  ///< number of changes of holder so far

  bool operator==(const LeaderElectionRecord&) const = default;
};

/// A record as read from the lock, with the raw resourceVersion of the object that stores it.
struct ObservedRecord {
  LeaderElectionRecord record{};
  std::string resource_version{};
};

/// The storage the candidates compete for. `Update` is a compare-and-swap on the
/// resourceVersion of the last successful `Get`/`Create`/`Update` made through this instance:
/// when someone else wrote in between, it fails with Conflict and the caller loses the round.
/// **Thread-safety:** implementations must be safe to call from several threads (the elector
/// calls from its Run thread; Describe/Identity from anywhere).
/// **Errors:** `IsNotFound` from Get when the lock object does not exist; `IsConflict` or
/// `IsAlreadyExists` from Update/Create when another writer won; any client error otherwise.
class ResourceLock {
 public:
  virtual ~ResourceLock() = default;

  /// Reads the current record. **Blocks?** For one API call.
  virtual Result<ObservedRecord> Get() = 0;
  /// Creates the lock object holding `record`. **Blocks?** For one API call.
  virtual Result<void> Create(const LeaderElectionRecord& record) = 0;
  /// Replaces the record, conditional on the last-read resourceVersion (never read -> BadRequest).
  /// **Blocks?** For one API call.
  virtual Result<void> Update(const LeaderElectionRecord& record) = 0;
  /// This candidate's identity (unique among the candidates; never empty for a usable lock).
  virtual std::string Identity() const = 0;
  /// A human-readable name of the lock, e.g. "kube-system/my-controller" (for logs).
  virtual std::string Describe() const = 0;
};

/// A `ResourceLock` over one coordination.k8s.io/v1 Lease, through the typed client.
/// The Lease is created on first acquisition if absent.
/// **Thread-safety:** all members may be called concurrently.
class LeaseLock final : public ResourceLock {
 public:
  using Lease = api::coordination::v1::Lease;

  /// `leases` is the Lease API scoped to the Lease's namespace (asserted: the namespace is set);
  /// `name` names the Lease; `identity` is this candidate (e.g. hostname + "_" + a random
  /// suffix).
  LeaseLock(client::TypedApi<Lease> leases, std::string name, std::string identity);

  Result<ObservedRecord> Get() override;
  Result<void> Create(const LeaderElectionRecord& record) override;
  Result<void> Update(const LeaderElectionRecord& record) override;
  std::string Identity() const override { return identity_; }
  std::string Describe() const override;

 private:
  Result<ObservedRecord> Remember(Result<Lease> lease);

  const client::TypedApi<Lease> leases_;
  const std::string name_;
  const std::string identity_;
  Mutex mu_;
  // The Lease last read or written (none = never): its resourceVersion is the CAS precondition
  // of the next Update, and its other fields (labels, ...) are preserved by that Update.
  std::optional<Lease> last_lease_ KUBE_GUARDED_BY(mu_);
};

/// The record a Lease's `spec` holds (absent fields read as zero; times truncated to the
/// microsecond, as a MicroTime keeps them).
LeaderElectionRecord RecordFromLease(const api::coordination::v1::Lease& lease);
/// Writes `record` into a Lease's `spec` (an empty holder is written as an empty string, as
/// client-go does).
void SetLeaseSpec(api::coordination::v1::LeaseSpec& spec, const LeaderElectionRecord& record);

}  // namespace kube::leaderelection
