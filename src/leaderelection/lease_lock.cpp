#include <kube/leaderelection/lease_lock.hpp>

#include <cassert>
#include <utility>

#include <kube/client/typed.hpp>
#include <kube/core/time.hpp>

namespace kube::leaderelection {
namespace {

Result<Clock::WallTime> ParseOptionalTime(const Object& lease, std::string_view pointer) {
  auto text = lease.GetString(pointer);
  if (!text || text->empty()) return Clock::WallTime{};
  auto parsed = ParseTime(*text);
  if (!parsed.ok()) {
    return BadRequest("lease " + std::string(lease.Namespace()) + "/" + std::string(lease.Name()) +
                      ": " + std::string(pointer) + ": " + parsed.error().message);
  }
  return TruncateToMicrosecond(*parsed);
}

}  // namespace

Result<LeaderElectionRecord> RecordFromLease(const Object& lease) {
  LeaderElectionRecord record;
  record.holder_identity = lease.GetString("/spec/holderIdentity").value_or("");
  record.lease_duration_seconds = lease.GetInt("/spec/leaseDurationSeconds").value_or(0);
  record.lease_transitions = lease.GetInt("/spec/leaseTransitions").value_or(0);
  auto acquire = ParseOptionalTime(lease, "/spec/acquireTime");
  if (!acquire.ok()) return std::move(acquire).error();
  record.acquire_time = *acquire;
  auto renew = ParseOptionalTime(lease, "/spec/renewTime");
  if (!renew.ok()) return std::move(renew).error();
  record.renew_time = *renew;
  return record;
}

Result<void> SetLeaseSpec(ObjectBuilder& lease, const LeaderElectionRecord& record) {
  KUBE_RETURN_IF_ERROR(lease.Set("/spec/holderIdentity", boost::json::value(record.holder_identity)));
  KUBE_RETURN_IF_ERROR(
      lease.Set("/spec/leaseDurationSeconds", boost::json::value(record.lease_duration_seconds)));
  KUBE_RETURN_IF_ERROR(
      lease.Set("/spec/acquireTime", boost::json::value(FormatMicroTime(record.acquire_time))));
  KUBE_RETURN_IF_ERROR(
      lease.Set("/spec/renewTime", boost::json::value(FormatMicroTime(record.renew_time))));
  KUBE_RETURN_IF_ERROR(lease.Set("/spec/leaseTransitions", boost::json::value(record.lease_transitions)));
  return Ok();
}

LeaseLock::LeaseLock(client::Api leases, std::string name, std::string identity)
    : leases_(std::move(leases)), name_(std::move(name)), identity_(std::move(identity)) {
  assert(leases_.gvr() == client::Lease::Resource());
  assert(!leases_.ns().empty());
}

std::string LeaseLock::Describe() const { return leases_.ns() + "/" + name_; }

Result<ObservedRecord> LeaseLock::Remember(Result<ObjectPtr> lease) {
  if (!lease.ok()) return std::move(lease).error();
  auto record = RecordFromLease(**lease);
  if (!record.ok()) return std::move(record).error();
  ObservedRecord observed{*record, std::string((*lease)->ResourceVersion())};
  MutexLock lock(mu_);
  last_lease_ = *lease;
  return observed;
}

Result<ObservedRecord> LeaseLock::Get() { return Remember(leases_.Get(name_)); }

Result<void> LeaseLock::Create(const LeaderElectionRecord& record) {
  ObjectBuilder b(client::Lease::kApiVersion, client::Lease::kKind);
  b.SetName(name_).SetNamespace(leases_.ns());
  KUBE_RETURN_IF_ERROR(SetLeaseSpec(b, record));
  auto object = b.Build();
  if (!object.ok()) return std::move(object).error();
  auto remembered = Remember(leases_.Create(**object));
  if (!remembered.ok()) return std::move(remembered).error();
  return Ok();
}

Result<void> LeaseLock::Update(const LeaderElectionRecord& record) {
  ObjectPtr base;
  {
    MutexLock lock(mu_);
    base = last_lease_;
  }
  if (!base) return BadRequest("lease " + Describe() + ": update before the lock was read");
  // The builder keeps the last-read resourceVersion: the PUT is a compare-and-swap.
  ObjectBuilder b(*base);
  KUBE_RETURN_IF_ERROR(SetLeaseSpec(b, record));
  auto object = b.Build();
  if (!object.ok()) return std::move(object).error();
  auto remembered = Remember(leases_.Update(**object));
  if (!remembered.ok()) return std::move(remembered).error();
  return Ok();
}

}  // namespace kube::leaderelection
