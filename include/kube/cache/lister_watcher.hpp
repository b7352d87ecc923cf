#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <kube/base/mutex.hpp>
#include <kube/base/result.hpp>
#include <kube/core/object.hpp>
#include <kube/core/options.hpp>
#include <kube/core/watch_event.hpp>

namespace kube::cache {

/// An open watch: events in order until the server ends the stream.
/// **Thread-safety:** `Next` from one consumer thread; `Stop` from any thread.
class WatchStream {
 public:
  virtual ~WatchStream() = default;
  /// Blocks for the next event. nullopt = the stream ended normally (server timeout or close,
  /// or Stop). An error = the stream broke (transport, decoding).
  virtual Result<std::optional<WatchEvent>> Next() = 0;
  /// Ends the stream; a blocked Next returns nullopt promptly. Idempotent.
  virtual void Stop() = 0;
};

/// Lists and watches one resource (client-go ListerWatcher). Implementations: over the dynamic
/// client (`kube::client`), and `FakeListerWatcher` for tests.
/// **Thread-safety:** implementations are safe to call from the reflector's thread while
/// another thread calls `WatchStream::Stop`.
class ListerWatcher {
 public:
  virtual ~ListerWatcher() = default;
  /// One page of a list (options carry limit/continue/resourceVersion).
  virtual Result<ObjectList> List(const ListOptions& options) = 0;
  /// As List, handing each item to `on_item` as soon as it is parsed, while the rest of the page
  /// may still be arriving; `on_item` may replace the item. The default lists, then hands the
  /// items one by one.
  virtual Result<ObjectList> StreamList(const ListOptions& options, const std::function<void(ObjectPtr&)>& on_item);
  /// Opens a watch.
  virtual Result<std::unique_ptr<WatchStream>> Watch(const ListOptions& options) = 0;
};

/// A scripted ListerWatcher for unit tests. The test queues list responses (served in order;
/// when the queue is empty the last one repeats) and drives each watch stream by hand.
/// Every call is recorded with its options.
/// **Thread-safety:** all members may be called concurrently.
class FakeListerWatcher final : public ListerWatcher {
 public:
  /// A watch stream the test feeds. `Next` has one consumer (the reflector); the other members
  /// may be called from any thread.
  class Stream final : public WatchStream {
   public:
    Result<std::optional<WatchEvent>> Next() override;
    void Stop() override;
    /// Delivers an event.
    void Push(WatchEvent event);
    /// Delivers `{"type":type,"object":json}`; `json` must parse.
    void Push(WatchEventType type, std::string_view json);
    /// Makes Next fail with `error` (after the events already pushed).
    void Fail(Error error);
    /// Ends the stream normally (after the events already pushed).
    void End();
    /// True once Stop was called (by the consumer).
    bool Stopped() const;

   private:
    mutable Mutex mu_;
    CondVar cv_;
    std::deque<Result<std::optional<WatchEvent>>> pending_ KUBE_GUARDED_BY(mu_);
    bool stopped_ KUBE_GUARDED_BY(mu_) = false;
    bool waiting_ KUBE_GUARDED_BY(mu_) = false;  // the consumer is parked in Next
    std::atomic<bool> stop_requested_{false};      // stopped_, readable without the lock
    // Events Next has taken from pending_ and not returned yet (the consumer's thread only:
    // one consumer per stream).
    std::deque<Result<std::optional<WatchEvent>>> taken_;
  };

  /// Queues the answer of the next List call.
  void AddListResult(Result<ObjectList> result);
  /// Queues the answer of the next Watch call: an error, or (when ok) a new stream.
  void AddWatchError(Error error);
  /// The streams opened so far, in order.
  std::vector<std::shared_ptr<Stream>> Streams() const;
  /// Blocks (real time, on a condition variable) until at least `n` watches were opened.
  /// Returns the n-th stream (1-based), or nullptr after `timeout`.
  std::shared_ptr<Stream> WaitForWatch(std::size_t n,
                                       std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// Blocks until at least `n` List calls were made. Returns false after `timeout`.
  bool WaitForLists(std::size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// Options of every List call / Watch call so far.
  std::vector<ListOptions> ListCalls() const;
  std::vector<ListOptions> WatchCalls() const;

  Result<ObjectList> List(const ListOptions& options) override;
  Result<std::unique_ptr<WatchStream>> Watch(const ListOptions& options) override;

 private:
  mutable Mutex mu_;
  CondVar cv_;
  std::deque<Result<ObjectList>> lists_ KUBE_GUARDED_BY(mu_);
  std::optional<Result<ObjectList>> last_list_ KUBE_GUARDED_BY(mu_);
  std::deque<Error> watch_errors_ KUBE_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<Stream>> streams_ KUBE_GUARDED_BY(mu_);
  std::vector<ListOptions> list_calls_ KUBE_GUARDED_BY(mu_);
  std::vector<ListOptions> watch_calls_ KUBE_GUARDED_BY(mu_);
};

/// Builds an ObjectList (for FakeListerWatcher) from JSON objects and a resourceVersion.
ObjectList MakeObjectList(const std::vector<ObjectPtr>& items, std::string resource_version,
                          std::string continue_token = "");

}  // namespace kube::cache
