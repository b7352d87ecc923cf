#pragma once

#include <cassert>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <utility>

#include <kube/base/clock.hpp>
#include <kube/workqueue/delaying_queue.hpp>
#include <kube/workqueue/queue.hpp>
#include <kube/workqueue/rate_limiter.hpp>

namespace kube::workqueue {

/// client-go's rate-limiting queue: a DelayingQueue whose `AddRateLimited(item)` waits as long
/// as the rate limiter says (`AddAfter(item, limiter.When(item))`). A worker calls
/// `AddRateLimited` when processing failed and `Forget` when it succeeded:
/// ```
/// while (auto key = queue.Get()) {
///   if (Reconcile(*key).ok()) queue.Forget(*key); else queue.AddRateLimited(*key);
///   queue.Done(*key);
/// }
/// ```
/// **Thread-safety:** every member may be called concurrently, except the destructor.
/// **Ownership:** owns its limiter and its delivery thread (joined by the destructor).
template <class T, class Hash = std::hash<T>, class KeyEqual = std::equal_to<T>>
  requires QueueItem<T, Hash, KeyEqual>
class RateLimitingQueue final {
 public:
  /// A queue with `DefaultControllerRateLimiter` on `clock`. `clock` must outlive the queue.
  explicit RateLimitingQueue(QueueOptions options = {}, Clock& clock = RealClock::Instance())
      : RateLimitingQueue(DefaultControllerRateLimiter<T, Hash, KeyEqual>(clock),
                          std::move(options), clock) {}

  /// A queue over `limiter` (taken over; must not be null). `clock` must outlive the queue.
  explicit RateLimitingQueue(std::unique_ptr<RateLimiter<T>> limiter, QueueOptions options = {},
                             Clock& clock = RealClock::Instance())
      : limiter_(std::move(limiter)), queue_(std::move(options), clock) {
    assert(limiter_ != nullptr);
  }

  RateLimitingQueue(const RateLimitingQueue&) = delete;
  RateLimitingQueue& operator=(const RateLimitingQueue&) = delete;

  /// Adds `item` after the delay the limiter gives it (recording one more failure).
  /// The limiter is consulted outside every queue lock. **Blocks?** As `DelayingQueue::AddAfter`
  /// (briefly, while its inbox of unmerged calls is full).
  void AddRateLimited(const T& item) { queue_.AddAfter(item, limiter_->When(item)); }
  /// Clears the limiter's failure history of `item` (it does not remove the item from the queue).
  void Forget(const T& item) { limiter_->Forget(item); }
  /// How many times `item` was rate limited since it was last forgotten.
  int NumRequeues(const T& item) const { return limiter_->NumRequeues(item); }

  /// See `DelayingQueue::AddAfter`.
  template <class Rep, class Period>
  void AddAfter(const T& item, std::chrono::duration<Rep, Period> delay) {
    queue_.AddAfter(item, delay);
  }
  /// See `Queue::Add`.
  void Add(const T& item) { queue_.Add(item); }
  /// See `Queue::AddMany`.
  void AddMany(std::span<const T> items) { queue_.AddMany(items); }
  /// See `Queue::Len`.
  std::size_t Len() const { return queue_.Len(); }
  /// See `Queue::Get`.
  std::optional<T> Get() { return queue_.Get(); }
  /// See `Queue::Done`.
  void Done(const T& item) { queue_.Done(item); }
  /// See `Queue::Done(T&&)` (recycles the item's storage).
  void Done(T&& item) { queue_.Done(std::move(item)); }
  /// See `DelayingQueue::ShutDown`.
  void ShutDown() { queue_.ShutDown(); }
  /// See `DelayingQueue::ShutDownWithDrain`.
  void ShutDownWithDrain() { queue_.ShutDownWithDrain(); }
  /// See `Queue::ShuttingDown`.
  bool ShuttingDown() const { return queue_.ShuttingDown(); }
  /// See `Queue::UpdateUnfinishedWork`.
  void UpdateUnfinishedWork() { queue_.UpdateUnfinishedWork(); }

 private:
  const std::unique_ptr<RateLimiter<T>> limiter_;
  DelayingQueue<T, Hash, KeyEqual> queue_;  // after limiter_: destroyed (and joined) first
};

}  // namespace kube::workqueue
