#include <kube/leaderelection/fake_lock.hpp>

#include <utility>

namespace kube::leaderelection {

std::optional<ObservedRecord> FakeLeaseStore::Current() const {
  MutexLock lock(mu_);
  if (!record_) return std::nullopt;
  return ObservedRecord{*record_, std::to_string(resource_version_)};
}

void FakeLeaseStore::Put(const LeaderElectionRecord& record) {
  MutexLock lock(mu_);
  record_ = record;
  ++resource_version_;
  history_.push_back({"", record, resource_version_});
}

std::vector<FakeLeaseStore::Write> FakeLeaseStore::History() const {
  MutexLock lock(mu_);
  return history_;
}

Result<std::uint64_t> FakeLeaseStore::CompareAndSwap(const std::string& writer,
                                                     std::uint64_t expected_rv,
                                                     const LeaderElectionRecord& record) {
  MutexLock lock(mu_);
  if (expected_rv == 0) {
    if (record_) return MakeError(409, reason::kAlreadyExists, "lease already exists");
  } else {
    if (!record_) return MakeError(404, reason::kNotFound, "lease not found");
    if (expected_rv != resource_version_) {
      return MakeError(409, reason::kConflict,
                       "the object has been modified; please apply your changes to the latest version");
    }
  }
  record_ = record;
  ++resource_version_;
  history_.push_back({writer, record, resource_version_});
  return resource_version_;
}

FakeLock::FakeLock(std::shared_ptr<FakeLeaseStore> store, std::string identity)
    : store_(std::move(store)), identity_(std::move(identity)) {}

Result<ObservedRecord> FakeLock::Get() {
  {
    MutexLock lock(mu_);
    if (fail_gets_ > 0) {
      --fail_gets_;
      return get_error_;
    }
  }
  auto current = store_->Current();
  if (!current) return MakeError(404, reason::kNotFound, "lease not found");
  MutexLock lock(mu_);
  last_rv_ = std::stoull(current->resource_version);
  return *current;
}

Result<void> FakeLock::Create(const LeaderElectionRecord& record) {
  auto rv = store_->CompareAndSwap(identity_, 0, record);
  if (!rv.ok()) return std::move(rv).error();
  MutexLock lock(mu_);
  last_rv_ = *rv;
  return Ok();
}

Result<void> FakeLock::Update(const LeaderElectionRecord& record) {
  std::uint64_t expected = 0;
  {
    MutexLock lock(mu_);
    ++update_calls_;
    if (fail_updates_ > 0) {
      --fail_updates_;
      return update_error_;
    }
    expected = last_rv_;
  }
  if (expected == 0) return BadRequest("fake lock " + identity_ + ": update before the lock was read");
  auto rv = store_->CompareAndSwap(identity_, expected, record);
  if (!rv.ok()) return std::move(rv).error();
  MutexLock lock(mu_);
  last_rv_ = *rv;
  return Ok();
}

void FakeLock::FailNextUpdates(int n, Error error) {
  MutexLock lock(mu_);
  fail_updates_ = n;
  update_error_ = std::move(error);
}

void FakeLock::FailNextGets(int n, Error error) {
  MutexLock lock(mu_);
  fail_gets_ = n;
  get_error_ = std::move(error);
}

int FakeLock::UpdateCalls() const {
  MutexLock lock(mu_);
  return update_calls_;
}

}  // namespace kube::leaderelection
