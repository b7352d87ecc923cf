#pragma once

/// \file
/// core/v1 Events for controllers, with client-go's correlator (tools/record):
///
/// ```cpp
/// auto broadcaster = kube::controller::EventBroadcaster::Create(
///     kube::controller::NewApiEventSink(client), {});
/// auto recorder = broadcaster->NewRecorder("my-controller");
/// recorder->Eventf(*obj, kube::controller::EventType::kWarning, "SyncFailed", "pod {} gone", pod);
/// ```
///
/// `Event` never blocks the caller: it copies what it needs into a bounded queue (dropping and
/// counting when full) and a background thread writes. Before writing, the correlator
/// - **aggregates** similar events (same source, involved object, type and reason, differing
///   messages): once 10 distinct messages were seen within 10 minutes, further ones are recorded
///   as one event with message `(combined from similar events): <latest message>`;
/// - **deduplicates** identical events: a repeat PATCHes `count`, `lastTimestamp` and `message` of
///   the Event already written (creating it again when it is gone);
/// - **filters spam**: a token bucket per source + involved object (burst 25, one token per
///   5 minutes) drops events beyond the budget.
/// The caches are LRUs of 4096 entries. Event names are `<object name>.<hex unix nanos>` (the
/// suffix strictly increasing per broadcaster, so events in one nanosecond do not collide), in
/// the object's namespace ("default" for cluster-scoped objects).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <kube/base/clock.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/result.hpp>
#include <kube/client/dynamic_client.hpp>
#include <kube/core/object.hpp>

namespace kube::controller {

/// The `type` of an Event.
enum class EventType {
  kNormal,   ///< "Normal"
  kWarning,  ///< "Warning"
};
/// "Normal" or "Warning".
std::string_view ToString(EventType type);

/// Records events about objects. **Thread-safety:** implementations are safe to call from any
/// thread. **Blocks?** Never (implementations queue the event).
class EventRecorder {
 public:
  virtual ~EventRecorder() = default;
  /// Records an event about `object` (its apiVersion, kind, namespace, name, uid and
  /// resourceVersion are copied; the object need not outlive the call). `reason` is a short
  /// UpperCamelCase machine-readable word; `message` is for humans.
  virtual void Event(const Object& object, EventType type, std::string_view reason,
                     std::string_view message) = 0;
  /// `Event` with a fmt-formatted message.
  template <class... Args>
  void Eventf(const Object& object, EventType type, std::string_view reason,
              fmt::format_string<Args...> format, Args&&... args) {
    Event(object, type, reason, fmt::format(format, std::forward<Args>(args)...));
  }
};

/// Where the broadcaster writes Events. Implementations: `NewApiEventSink` (the API server) and
/// test fakes. **Thread-safety:** called from the broadcaster's thread only.
class EventSink {
 public:
  virtual ~EventSink() = default;
  /// Creates `event` (a complete core/v1 Event) and returns what was stored.
  virtual Result<ObjectPtr> Create(const Object& event) = 0;
  /// Applies the JSON merge patch `patch` to Event `ns`/`name`; returns the patched Event.
  /// **Errors:** NotFound when the Event is gone (the broadcaster then creates it).
  virtual Result<ObjectPtr> Patch(std::string_view ns, std::string_view name,
                                  std::string_view patch) = 0;
};

/// A sink writing to the core/v1 `events` resource through `client`.
std::unique_ptr<EventSink> NewApiEventSink(client::DynamicClient client);

/// Options of `EventBroadcaster::Create`; defaults are client-go's.
struct EventBroadcasterOptions {
  Clock* clock = nullptr;          ///< time for timestamps, intervals and the spam filter; nullptr = RealClock
  std::string host{};              ///< `source.host` of every event (client-go: the node name); may be empty
  std::size_t queue_capacity = 1000;  ///< events waiting to be written; beyond it they are dropped
  std::size_t cache_size = 4096;      ///< entries of each correlator LRU cache
  int max_similar_events = 10;        ///< distinct messages before aggregation
  Clock::Duration similar_interval = std::chrono::minutes(10);  ///< aggregation window
  int spam_burst = 25;                                          ///< spam filter bucket size
  Clock::Duration spam_refill_interval = std::chrono::minutes(5);  ///< one token per interval
  /// Attempts per event write (create/patch) before giving up; transport errors and 5xx/429 are
  /// retried after `retry_interval` on the clock (client-go: 12 tries, 10 s apart).
  int max_attempts = 12;
  Clock::Duration retry_interval = std::chrono::seconds(10);
};

/// Counters of a broadcaster, for tests and metrics.
struct EventBroadcasterStats {
  std::uint64_t recorded = 0;    ///< accepted into the queue
  std::uint64_t dropped = 0;     ///< dropped because the queue was full (or after Shutdown)
  std::uint64_t filtered = 0;    ///< dropped by the spam filter
  std::uint64_t aggregated = 0;  ///< turned into a "combined from similar events" event
  std::uint64_t created = 0;     ///< Events created
  std::uint64_t patched = 0;     ///< repeats written as a PATCH of count/lastTimestamp
  std::uint64_t failed = 0;      ///< writes abandoned after `max_attempts` or a permanent error
};

/// Owns the queue, the correlator and the writer thread; hands out recorders.
/// **Thread-safety:** all members may be called concurrently. **Ownership:** owns its thread;
/// the destructor calls `Shutdown`. Recorders must not be used after the broadcaster is gone.
class EventBroadcaster final {
 public:
  /// Starts the writer thread.
  static std::unique_ptr<EventBroadcaster> Create(std::unique_ptr<EventSink> sink,
                                                  EventBroadcasterOptions options = {});
  ~EventBroadcaster();
  EventBroadcaster(const EventBroadcaster&) = delete;
  EventBroadcaster& operator=(const EventBroadcaster&) = delete;

  /// A recorder whose events carry `source.component = component` (and
  /// `reportingComponent`). **Lifetime:** valid while the broadcaster lives.
  std::unique_ptr<EventRecorder> NewRecorder(std::string component);

  /// Blocks until every event queued before the call has been processed (written, filtered or
  /// abandoned). For tests and orderly shutdown. **Blocks?** Yes (including retry waits).
  void Flush();
  /// Stops accepting events, writes what is queued (without retry waits), joins the thread.
  /// Idempotent.
  void Shutdown();
  /// A snapshot of the counters.
  EventBroadcasterStats Stats() const;

  struct Impl;
  explicit EventBroadcaster(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

/// A recorder for unit tests of controllers: keeps `"<Type> <Reason> <message>"` strings
/// (controller-runtime's record.FakeRecorder format), in order. **Thread-safety:** safe.
class FakeEventRecorder final : public EventRecorder {
 public:
  void Event(const Object& object, EventType type, std::string_view reason,
             std::string_view message) override;
  /// The events recorded so far.
  std::vector<std::string> Events() const;
  /// Forgets recorded events.
  void Clear();

 private:
  mutable Mutex mu_;
  std::vector<std::string> events_ KUBE_GUARDED_BY(mu_);
};

}  // namespace kube::controller
