#include "expectations.hpp"

namespace deployctl {

Expectations::Record& Expectations::RecordFor(const std::string& key, const std::string& uid) {
  Record& r = records_[key];
  if (r.uid != uid) r = Record{.uid = uid};
  r.last_change = clock_.Now();
  return r;
}

void Expectations::ExpectCreation(const std::string& key, const std::string& uid, const std::string& pod) {
  kube::MutexLock lock(mu_);
  RecordFor(key, uid).creations.insert(pod);
}

void Expectations::ExpectDeletion(const std::string& key, const std::string& uid, const std::string& pod) {
  kube::MutexLock lock(mu_);
  RecordFor(key, uid).deletions.insert(pod);
}

bool Expectations::Satisfied(const std::string& key, const std::string& uid,
                             const std::set<std::string>& cached_pods) {
  kube::MutexLock lock(mu_);
  auto it = records_.find(key);
  if (it == records_.end()) return true;
  Record& r = it->second;
  if (r.uid != uid || clock_.Now() - r.last_change >= ttl_) {
    records_.erase(it);
    return true;
  }
  std::erase_if(r.creations, [&](const std::string& pod) { return cached_pods.contains(pod); });
  std::erase_if(r.deletions, [&](const std::string& pod) { return !cached_pods.contains(pod); });
  if (r.creations.empty() && r.deletions.empty()) {
    records_.erase(it);
    return true;
  }
  return false;
}

kube::Clock::Duration Expectations::UntilExpiry(const std::string& key) const {
  kube::MutexLock lock(mu_);
  auto it = records_.find(key);
  if (it == records_.end()) return kube::Clock::Duration::zero();
  const auto left = it->second.last_change + ttl_ - clock_.Now();
  return left > kube::Clock::Duration::zero() ? left : kube::Clock::Duration::zero();
}

void Expectations::Forget(const std::string& key) {
  kube::MutexLock lock(mu_);
  records_.erase(key);
}

std::size_t Expectations::Pending(const std::string& key) const {
  kube::MutexLock lock(mu_);
  auto it = records_.find(key);
  return it == records_.end() ? 0 : it->second.creations.size() + it->second.deletions.size();
}

}  // namespace deployctl
