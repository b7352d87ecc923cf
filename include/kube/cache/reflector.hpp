#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include <kube/base/backoff.hpp>
#include <kube/base/clock.hpp>
#include <kube/base/log.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/result.hpp>
#include <kube/cache/lister_watcher.hpp>
#include <kube/cache/metrics.hpp>
#include <kube/core/object.hpp>

namespace kube::cache {

/// Where a reflector puts what it sees (a DeltaFifo in an informer).
class ReflectorStore {
 public:
  virtual ~ReflectorStore() = default;
  /// Every object the reflector receives passes through here as soon as it has it, on the
  /// reflector's thread; the store is then handed what this returns. `in_list`: the object is an
  /// item of a list still arriving (or an initial event of a streaming list), handed over by the
  /// Replace that ends the list, so work on it may finish on another thread before that Replace;
  /// otherwise a watch event's object, handed to Add, Update or Delete next. An informer
  /// transforms and decodes objects here. The default returns `obj`.
  virtual ObjectPtr Prepare(ObjectPtr obj, bool in_list) {
    (void)in_list;
    return obj;
  }
  virtual Result<void> Add(const ObjectPtr& obj) = 0;
  virtual Result<void> Update(const ObjectPtr& obj) = 0;
  virtual Result<void> Delete(const ObjectPtr& obj) = 0;
  /// The full content at `resource_version` (after a list). The store may keep the list's
  /// references (the reflector hands over the list it owns).
  virtual Result<void> Replace(std::vector<ObjectPtr> list, std::string_view resource_version) = 0;
};

/// The states of a Reflector.
enum class ReflectorState {
  kList,       ///< paginated LIST, then Replace
  kWatchList,  ///< streaming list: watch with sendInitialEvents until the initial-events-end bookmark
  kWatch,      ///< watching from the last synced resourceVersion
  kBackoff,    ///< waiting before retrying (`after_backoff` tells what comes next)
  kStopped,
};

/// What happened in a state; drives `NextReflectorState`.
enum class ReflectorEvent {
  kListSucceeded,        ///< Replace done; watch next
  kListFailed,           ///< any list error other than expired/too large: back off, list again
  kListExpired,          ///< 410 / too-large RV on a list: list again at once with RV ""
  kWatchListSucceeded,   ///< initial events ended; the same stream continues as a watch
  kWatchListUnsupported, ///< the server rejected sendInitialEvents or ended before the bookmark
  kWatchListFailed,      ///< other streaming-list error: back off, then list
  kWatchEnded,           ///< the server closed the watch normally: watch again at once
  kWatchRetriable,       ///< connection refused / 429 opening or during a watch: back off, watch again
  kWatchExpired,         ///< 410 Expired or too-large RV in the watch: back off, relist
  kWatchFailed,          ///< any other watch error, or a very short empty watch: back off, relist
  kBackoffElapsed,       ///< the backoff wait is over
  kStopRequested,
};

/// One transition: the next state, and what to do after a backoff.
struct ReflectorTransition {
  ReflectorState next = ReflectorState::kStopped;
  /// When `next` is kBackoff, the state entered when the backoff elapses.
  ReflectorState after_backoff = ReflectorState::kList;
  /// The next list must use resourceVersion "" (a consistent read from storage).
  bool relist_from_storage = false;
};

/// The transition function of the Reflector, a pure function (tests call it directly).
/// `state` is the current state; for kBackoff, `after_backoff` is where the backoff leads;
/// `watch_list` says whether streaming lists are in use.
ReflectorTransition NextReflectorState(ReflectorState state, ReflectorEvent event,
                                       ReflectorState after_backoff, bool watch_list);

/// "List", "WatchList", "Watch", "Backoff", "Stopped".
std::string_view ReflectorStateName(ReflectorState state);

/// Options of a Reflector; defaults are client-go's.
struct ReflectorOptions {
  std::string name = "reflector";
  int64_t page_size = 500;  ///< list page size (limit)
  /// Watches time out after a random duration in [min_watch_timeout, 2 * min_watch_timeout).
  Clock::Duration min_watch_timeout = std::chrono::minutes(5);
  /// Try the streaming list (sendInitialEvents) first; fall back to LIST when the server does not
  /// support it (then LIST is used from then on). Off by default, as client-go 1.32's
  /// WatchListClient gate: kube-apiserver v1.32 streams 10,000 Pods about 3x slower than it
  /// answers their list from its watch cache (docs/performance.md).
  bool use_watch_list = false;
  BackoffManagerOptions backoff{};  ///< 800 ms -> 30 s, factor 2, jitter 1.0, reset after 2 min
  /// Called with every list/watch error (client-go's WatchErrorHandler). Must not block.
  std::function<void(const Error&)> watch_error_handler{};
  Clock* clock = nullptr;  ///< nullptr = RealClock
  RandomSource rand{};       ///< for the watch timeout; empty = UniformRandom01
  /// Where the `reflector_*` metrics go (labelled with `name`); nullptr = none. Non-owning: used
  /// only in the constructor (see MetricsProvider for the handles' lifetime). A
  /// SharedIndexInformer also reports `informer_store_items` through it.
  MetricsProvider* metrics = nullptr;
};

/// client-go's Reflector: keeps a ReflectorStore in sync with the server through list + watch,
/// as an explicit state machine. Run it on a jthread: `Run(stop_token)` returns promptly when
/// stop is requested (an open watch is stopped).
/// **Thread-safety:** Run on one thread; the accessors may be called from any thread.
class Reflector final {
 public:
  /// `lw` and `store` must outlive the reflector.
  Reflector(ListerWatcher& lw, ReflectorStore& store, ReflectorOptions options = {});
  ~Reflector();
  Reflector(const Reflector&) = delete;
  Reflector& operator=(const Reflector&) = delete;

  /// Lists and watches until `stop` is requested. **Blocks.**
  void Run(std::stop_token stop);
  /// The resourceVersion of the last list, watch event or bookmark applied.
  std::string LastSyncResourceVersion() const;
  /// The current state (for tests and debugging).
  ReflectorState State() const;
  /// Number of completed lists (full relists; streaming lists included).
  int64_t ListCount() const;

 private:
  ReflectorEvent DoList(std::stop_token stop);
  ReflectorEvent DoWatch(std::stop_token stop, bool watch_list);
  ReflectorEvent HandleStream(WatchStream& stream, std::stop_token stop, bool watch_list,
                              Clock::TimePoint start);
  Result<void> ApplyEvent(const WatchEvent& ev);
  void SetLastSync(std::string rv);
  void ReportError(const Error& e);
  ListOptions WatchOptions(bool watch_list);
  struct Metrics;  // the handles from ReflectorOptions::metrics (each may be null)


  ListerWatcher& lw_;
  ReflectorStore& store_;
  ReflectorOptions options_{};
  Clock& clock_;
  log::Logger log_;
  ExponentialBackoffManager backoff_;
  bool relist_from_storage_ = false;  // only touched by the Run thread
  bool watch_list_enabled_ = true;    // only touched by the Run thread
  mutable Mutex mu_;
  std::string last_sync_rv_ KUBE_GUARDED_BY(mu_);
  ReflectorState state_ KUBE_GUARDED_BY(mu_) = ReflectorState::kList;
  int64_t list_count_ KUBE_GUARDED_BY(mu_) = 0;
  std::unique_ptr<Metrics> metrics_;  // set in the constructor, then only used by the Run thread
};

}  // namespace kube::cache
