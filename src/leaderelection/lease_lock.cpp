#include <kube/leaderelection/lease_lock.hpp>

#include <cassert>
#include <utility>

#include <kube/core/time.hpp>

namespace kube::leaderelection {

LeaderElectionRecord RecordFromLease(const api::coordination::v1::Lease& lease) {
  const api::coordination::v1::LeaseSpec& spec = lease.spec;
  auto time = [](const std::optional<api::MicroTime>& t) {
    return t ? TruncateToMicrosecond(t->time) : Clock::WallTime{};
  };
  return {.holder_identity = spec.holderIdentity.value_or(""),
          .lease_duration_seconds = spec.leaseDurationSeconds.value_or(0),
          .acquire_time = time(spec.acquireTime),
          .renew_time = time(spec.renewTime),
          .lease_transitions = spec.leaseTransitions.value_or(0)};
}

void SetLeaseSpec(api::coordination::v1::LeaseSpec& spec, const LeaderElectionRecord& record) {
  spec.holderIdentity = record.holder_identity;
  spec.leaseDurationSeconds = static_cast<std::int32_t>(record.lease_duration_seconds);
  spec.acquireTime = api::MicroTime{record.acquire_time};
  spec.renewTime = api::MicroTime{record.renew_time};
  spec.leaseTransitions = static_cast<std::int32_t>(record.lease_transitions);
}

LeaseLock::LeaseLock(client::TypedApi<Lease> leases, std::string name, std::string identity)
    : leases_(std::move(leases)), name_(std::move(name)), identity_(std::move(identity)) {
  assert(!leases_.dynamic().ns().empty());
}

std::string LeaseLock::Describe() const { return leases_.dynamic().ns() + "/" + name_; }

Result<ObservedRecord> LeaseLock::Remember(Result<Lease> lease) {
  if (!lease.ok()) return std::move(lease).error();
  ObservedRecord observed{RecordFromLease(*lease), lease->metadata.resourceVersion};
  MutexLock lock(mu_);
  last_lease_ = std::move(*lease);
  return observed;
}

Result<ObservedRecord> LeaseLock::Get() { return Remember(leases_.Get(name_)); }

Result<void> LeaseLock::Create(const LeaderElectionRecord& record) {
  Lease lease;
  lease.metadata.name = name_;
  lease.metadata.namespace_ = leases_.dynamic().ns();
  SetLeaseSpec(lease.spec, record);
  auto remembered = Remember(leases_.Create(lease));
  if (!remembered.ok()) return std::move(remembered).error();
  return Ok();
}

Result<void> LeaseLock::Update(const LeaderElectionRecord& record) {
  std::optional<Lease> lease;
  {
    MutexLock lock(mu_);
    lease = last_lease_;
  }
  if (!lease) return BadRequest("lease " + Describe() + ": update before the lock was read");
  // The copy keeps the last-read resourceVersion: the PUT is a compare-and-swap.
  SetLeaseSpec(lease->spec, record);
  auto remembered = Remember(leases_.Update(*lease));
  if (!remembered.ok()) return std::move(remembered).error();
  return Ok();
}

}  // namespace kube::leaderelection
