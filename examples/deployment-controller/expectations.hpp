#pragma once
/// \file
/// ReplicaSet expectations (kube's `ControllerExpectations`, state-based): the pods a
/// ReplicaSet controller created or deleted that its informer cache has not reflected yet.
/// While any are pending the controller must not size the ReplicaSet from the cache — a stale
/// cache that misses freshly created pods would otherwise make it create them again.

#include <chrono>
#include <map>
#include <set>
#include <string>

#include <kube/base/clock.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/thread_annotations.hpp>

namespace deployctl {

/// Pending pod creations and deletions per ReplicaSet.
///
/// Unlike kube, which lowers counters from informer event handlers, this version is
/// level-triggered: `Satisfied` is given the pod names the cache holds now and drops what they
/// already reflect (a created pod that appears, a deleted pod that disappears). A record is
/// tied to the ReplicaSet's uid (a re-created ReplicaSet starts clean) and expires `ttl` after
/// its last change (kube: 5 minutes), so a missed event cannot stall a ReplicaSet forever.
/// **Thread-safety:** all members may be called concurrently.
class Expectations final {
 public:
  /// `clock` is borrowed and must outlive this object.
  explicit Expectations(kube::Clock& clock, kube::Clock::Duration ttl = std::chrono::minutes(5))
      : clock_(clock), ttl_(ttl) {}

  /// Records that pod `pod` was created for ReplicaSet `key` (with uid `uid`).
  void ExpectCreation(const std::string& key, const std::string& uid, const std::string& pod) KUBE_EXCLUDES(mu_);
  /// Records that pod `pod` of ReplicaSet `key` was deleted.
  void ExpectDeletion(const std::string& key, const std::string& uid, const std::string& pod) KUBE_EXCLUDES(mu_);
  /// Reconciles the record of `key` with `cached_pods` (names of the ReplicaSet's pods in the
  /// cache, including ones being deleted) and returns true when nothing is pending any more —
  /// the cache can be trusted to size the ReplicaSet. A record of another uid, or one older
  /// than the ttl, is dropped (and counts as satisfied).
  bool Satisfied(const std::string& key, const std::string& uid, const std::set<std::string>& cached_pods)
      KUBE_EXCLUDES(mu_);
  /// Time until the record of `key` expires (zero when there is none).
  kube::Clock::Duration UntilExpiry(const std::string& key) const KUBE_EXCLUDES(mu_);
  /// Drops the record of `key` (the ReplicaSet is gone).
  void Forget(const std::string& key) KUBE_EXCLUDES(mu_);
  /// Pending creations + deletions of `key` (for tests and logs).
  std::size_t Pending(const std::string& key) const KUBE_EXCLUDES(mu_);

 private:
  struct Record {
    std::string uid{};
    std::set<std::string> creations{};  // created, not yet in the cache
    std::set<std::string> deletions{};  // deleted, still in the cache
    kube::Clock::TimePoint last_change{};
  };
  Record& RecordFor(const std::string& key, const std::string& uid) KUBE_REQUIRES(mu_);

  kube::Clock& clock_;
  const kube::Clock::Duration ttl_;
  mutable kube::Mutex mu_;
  std::map<std::string, Record> records_ KUBE_GUARDED_BY(mu_);  // by ReplicaSet key
};

}  // namespace deployctl
