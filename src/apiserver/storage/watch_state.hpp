#pragma once

#include <cstddef>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include <kube/apiserver/storage.hpp>
#include <kube/base/clock.hpp>
#include <kube/base/mutex.hpp>

namespace kube::apiserver::internal {

/// The shared state of one watch: a bounded buffer filled by the storage's fan-out and drained
/// by the consumer through `Watcher::Next`. The storage and the Watcher handle share it, so either
/// may go away first.
/// **Thread-safety:** every member may be called concurrently.
class WatchState final {
 public:
  /// A watch of keys under `prefix` that delivers events with revision > `start`, buffering at
  /// most `capacity` (>= 1) undelivered events. `delivered` is the store's "every event through
  /// this revision has been pushed to every watcher" mark (see `Progress`).
  /// `coalesce` > 0 enables event coalescing (`StorageOptions::watch_coalesce`).
  WatchState(std::string prefix, Revision start, std::size_t capacity,
             std::shared_ptr<const std::atomic<Revision>> delivered,
             std::chrono::nanoseconds coalesce = std::chrono::nanoseconds(0));

  /// True if `key` is under this watch's prefix.
  bool Matches(std::string_view key) const { return key.substr(0, prefix_.size()) == prefix_; }

  /// Buffers `event` (ignored if its revision is <= the start revision). If the buffer is full,
  /// the watch ends as overflowed instead: the writer never blocks and memory stays bounded.
  /// Returns false once the watch has ended (the caller may drop it). **Blocks?** Only on the
  /// state's own mutex, never on the consumer.
  bool Push(const StorageEvent& event) KUBE_EXCLUDES(mu_);

  /// Ends the watch because the storage is going away: buffered events are still delivered.
  void End() KUBE_EXCLUDES(mu_);
  /// Ends the watch at the consumer's request: buffered events are dropped.
  void Close() KUBE_EXCLUDES(mu_);
  /// True once the watch has ended (buffered events may remain).
  bool Ended() const KUBE_EXCLUDES(mu_);

  /// See `Watcher::Next`; waits on `clock`.
  std::vector<StorageEvent> Next(Clock& clock, Clock::TimePoint deadline, std::stop_token stop)
      KUBE_EXCLUDES(mu_);
  /// See `Watcher::Done`.
  bool Done() const KUBE_EXCLUDES(mu_);
  /// See `Watcher::Overflowed`.
  bool Overflowed() const KUBE_EXCLUDES(mu_);
  /// See `Watcher::Progress`.
  Revision Progress() const KUBE_EXCLUDES(mu_);
  /// See `Watcher::SetReadyCallback`.
  void SetReadyCallback(std::function<void()> callback) KUBE_EXCLUDES(mu_);

 private:
  // Calls the ready callback if one is set and it has not been called since the last Next.
  void NotifyReadyLocked() KUBE_REQUIRES(mu_);

  // Buffered events at which a coalescing consumer stops waiting (half the capacity).
  std::size_t LingerLimit() const { return capacity_ / 2 > 0 ? capacity_ / 2 : 1; }

  const std::string prefix_;
  const Revision start_;
  const std::size_t capacity_;
  const std::shared_ptr<const std::atomic<Revision>> delivered_;
  const std::chrono::nanoseconds coalesce_;

  mutable Mutex mu_;
  CondVar cv_;  // signalled when events arrive, the watch ends, or stop is requested
  std::vector<StorageEvent> buffer_ KUBE_GUARDED_BY(mu_);  // size() <= capacity_
  bool ended_ KUBE_GUARDED_BY(mu_) = false;       // no event will be added any more
  bool overflowed_ KUBE_GUARDED_BY(mu_) = false;  // overflowed_ implies ended_
  bool waiting_ KUBE_GUARDED_BY(mu_) = false;     // a consumer is parked in Next
  Revision last_pushed_ KUBE_GUARDED_BY(mu_);     // start_, or the last buffered event's revision
  // Coalescing (real time): events are arriving fast, so Next gathers them until
  // last_return_ + coalesce_; lingering_ while it does (Push then signals only on buffer pressure).
  bool fast_ KUBE_GUARDED_BY(mu_) = false;
  bool lingering_ KUBE_GUARDED_BY(mu_) = false;
  std::chrono::steady_clock::time_point last_return_ KUBE_GUARDED_BY(mu_){};
  // SetReadyCallback: the callback, and whether it was called since the last Next.
  std::function<void()> on_ready_ KUBE_GUARDED_BY(mu_);
  bool ready_notified_ KUBE_GUARDED_BY(mu_) = false;
};

/// The `Watcher` handle given to callers: a thin owner of a shared WatchState.
/// **Ownership/lifetime:** `clock` must outlive the handle (it is the storage's Clock, which
/// callers keep alive for as long as the storage and its watchers).
class WatcherImpl final : public Watcher {
 public:
  WatcherImpl(std::shared_ptr<WatchState> state, Clock& clock)
      : state_(std::move(state)), clock_(clock) {}
  /// Closes the watch.
  ~WatcherImpl() override { state_->Close(); }

  std::vector<StorageEvent> Next(Clock::TimePoint deadline, std::stop_token stop) override {
    return state_->Next(clock_, deadline, std::move(stop));
  }
  bool Done() const override { return state_->Done(); }
  bool Overflowed() const override { return state_->Overflowed(); }
  void Close() override { state_->Close(); }
  Revision Progress() const override { return state_->Progress(); }
  bool SetReadyCallback(std::function<void()> callback) override {
    state_->SetReadyCallback(std::move(callback));
    return true;
  }

 private:
  std::shared_ptr<WatchState> state_;
  Clock& clock_;
};

}  // namespace kube::apiserver::internal
