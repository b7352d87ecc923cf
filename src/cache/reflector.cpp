#include <kube/cache/reflector.hpp>

#include <charconv>
#include <functional>
#include <utility>

#include <fmt/format.h>

namespace kube::cache {

struct Reflector::Metrics {
  std::unique_ptr<CounterMetric> lists;
  std::unique_ptr<HistogramMetric> list_duration;
  std::unique_ptr<HistogramMetric> items_per_list;
  std::unique_ptr<CounterMetric> watches;
  std::unique_ptr<CounterMetric> short_watches;
  std::unique_ptr<HistogramMetric> watch_duration;
  std::unique_ptr<HistogramMetric> items_per_watch;
  std::unique_ptr<GaugeMetric> last_resource_version;
  std::unique_ptr<CounterMetric> expired;
  std::size_t watch_events = 0;  // events of the watch in progress

  static void Inc(const std::unique_ptr<CounterMetric>& m) {
    if (m) m->Inc();
  }
  static void Observe(const std::unique_ptr<HistogramMetric>& m, double v) {
    if (m) m->Observe(v);
  }
};

namespace {
double Seconds(Clock::Duration d) { return std::chrono::duration<double>(d).count(); }
}  // namespace

std::string_view ReflectorStateName(ReflectorState state) {
  switch (state) {
    case ReflectorState::kList: return "List";
    case ReflectorState::kWatchList: return "WatchList";
    case ReflectorState::kWatch: return "Watch";
    case ReflectorState::kBackoff: return "Backoff";
    case ReflectorState::kStopped: return "Stopped";
  }
  return "Unknown";
}

ReflectorTransition NextReflectorState(ReflectorState state, ReflectorEvent event,
                                       ReflectorState after_backoff, bool watch_list) {
  // After a failure, client-go's ListAndWatch returns and is re-entered after a backoff: it then
  // starts with a streaming list (when enabled) or a LIST.
  const ReflectorState relist = watch_list ? ReflectorState::kWatchList : ReflectorState::kList;
  auto go = [](ReflectorState next) { return ReflectorTransition{next, ReflectorState::kList, false}; };
  auto backoff_then = [](ReflectorState after) {
    return ReflectorTransition{ReflectorState::kBackoff, after, false};
  };
  if (event == ReflectorEvent::kStopRequested) return go(ReflectorState::kStopped);
  switch (state) {
    case ReflectorState::kList:
      switch (event) {
        case ReflectorEvent::kListSucceeded: return go(ReflectorState::kWatch);
        case ReflectorEvent::kListExpired:
          return ReflectorTransition{ReflectorState::kList, ReflectorState::kList, true};
        case ReflectorEvent::kListFailed: return backoff_then(relist);
        case ReflectorEvent::kWatchListSucceeded:
        case ReflectorEvent::kWatchListUnsupported:
        case ReflectorEvent::kWatchListFailed:
        case ReflectorEvent::kWatchEnded:
        case ReflectorEvent::kWatchRetriable:
        case ReflectorEvent::kWatchExpired:
        case ReflectorEvent::kWatchFailed:
        case ReflectorEvent::kBackoffElapsed:
        case ReflectorEvent::kStopRequested: break;
      }
      break;
    case ReflectorState::kWatchList:
      switch (event) {
        case ReflectorEvent::kWatchListSucceeded: return go(ReflectorState::kWatch);
        // Making progress beats waiting: any streaming-list failure falls back to LIST at once.
        case ReflectorEvent::kWatchListUnsupported:
        case ReflectorEvent::kWatchListFailed:
        case ReflectorEvent::kWatchExpired:
        case ReflectorEvent::kWatchFailed:
        case ReflectorEvent::kWatchEnded: return go(ReflectorState::kList);
        case ReflectorEvent::kWatchRetriable: return backoff_then(ReflectorState::kWatchList);
        case ReflectorEvent::kListSucceeded:
        case ReflectorEvent::kListFailed:
        case ReflectorEvent::kListExpired:
        case ReflectorEvent::kBackoffElapsed:
        case ReflectorEvent::kStopRequested: break;
      }
      break;
    case ReflectorState::kWatch:
      switch (event) {
        case ReflectorEvent::kWatchEnded: return go(ReflectorState::kWatch);
        case ReflectorEvent::kWatchRetriable: return backoff_then(ReflectorState::kWatch);
        case ReflectorEvent::kWatchExpired:
        case ReflectorEvent::kWatchFailed: return backoff_then(relist);
        case ReflectorEvent::kListSucceeded:
        case ReflectorEvent::kListFailed:
        case ReflectorEvent::kListExpired:
        case ReflectorEvent::kWatchListSucceeded:
        case ReflectorEvent::kWatchListUnsupported:
        case ReflectorEvent::kWatchListFailed:
        case ReflectorEvent::kBackoffElapsed:
        case ReflectorEvent::kStopRequested: break;
      }
      break;
    case ReflectorState::kBackoff:
      if (event == ReflectorEvent::kBackoffElapsed) return go(after_backoff);
      break;
    case ReflectorState::kStopped: return go(ReflectorState::kStopped);
  }
  // An event that cannot happen in this state: stay (the Run loop never produces one).
  return ReflectorTransition{state, after_backoff, false};
}

Reflector::Reflector(ListerWatcher& lw, ReflectorStore& store, ReflectorOptions options)
    : lw_(lw),
      store_(store),
      options_(std::move(options)),
      clock_(options_.clock ? *options_.clock : RealClock::Instance()),
      log_(log::Logger("reflector").With("name", options_.name)),
      backoff_(options_.backoff, clock_),
      watch_list_enabled_(options_.use_watch_list),
      metrics_(std::make_unique<Metrics>()) {
  if (MetricsProvider* p = options_.metrics; p != nullptr) {
    const std::string_view n = options_.name;
    metrics_->lists = p->NewListsMetric(n);
    metrics_->list_duration = p->NewListDurationMetric(n);
    metrics_->items_per_list = p->NewItemsInListMetric(n);
    metrics_->watches = p->NewWatchesMetric(n);
    metrics_->short_watches = p->NewShortWatchesMetric(n);
    metrics_->watch_duration = p->NewWatchDurationMetric(n);
    metrics_->items_per_watch = p->NewItemsInWatchMetric(n);
    metrics_->last_resource_version = p->NewLastResourceVersionMetric(n);
    metrics_->expired = p->NewExpiredMetric(n);
  }
}

Reflector::~Reflector() = default;

std::string Reflector::LastSyncResourceVersion() const {
  MutexLock lock(mu_);
  return last_sync_rv_;
}

ReflectorState Reflector::State() const {
  MutexLock lock(mu_);
  return state_;
}

int64_t Reflector::ListCount() const {
  MutexLock lock(mu_);
  return list_count_;
}

void Reflector::SetLastSync(std::string rv) {
  if (rv.empty()) return;
  if (metrics_->last_resource_version) {
    // Resource versions are opaque; the etcd-backed ones are integers, which the gauge shows.
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), n);
    if (ec == std::errc() && end == rv.data() + rv.size()) {
      metrics_->last_resource_version->Set(static_cast<double>(n));
    }
  }
  MutexLock lock(mu_);
  last_sync_rv_ = std::move(rv);
}

void Reflector::ReportError(const Error& e) {
  log_.Warn("list/watch error", {{"error", e.ToString()}});
  if (options_.watch_error_handler) {
    try {
      options_.watch_error_handler(e);
    } catch (...) {
      log_.Error("watch error handler threw", {});
    }
  }
}

namespace {
bool IsExpiredOrTooLarge(const Error& e) { return IsExpired(e) || IsTooLargeResourceVersion(e); }
}  // namespace

ReflectorEvent Reflector::DoList(std::stop_token stop) {
  // client-go relistResourceVersion: "0" for the first list (a cache may answer), the last
  // synced RV afterwards, "" after an expired/too-large answer (a consistent read).
  std::string rv;
  if (!relist_from_storage_) {
    rv = LastSyncResourceVersion();
    if (rv.empty()) rv = "0";
  }
  ListOptions opts;
  opts.resource_version = rv;
  opts.limit = options_.page_size;
  std::vector<ObjectPtr> items;
  std::string list_rv;
  bool paging = false;
  Metrics::Inc(metrics_->lists);
  const Clock::TimePoint start = clock_.Now();
  const std::function<void(ObjectPtr&)> prepare = [this](ObjectPtr& obj) { obj = store_.Prepare(std::move(obj), /*in_list=*/true); };
  while (true) {
    if (stop.stop_requested()) return ReflectorEvent::kStopRequested;
    auto page = lw_.StreamList(opts, prepare);
    if (!page.ok()) {
      const Error& e = page.error();
      if (IsExpiredOrTooLarge(e) && paging) {
        // The pager's fallback: the continue token expired, list everything in one go.
        log_.Info("continue token expired; falling back to a full list", {});
        opts.continue_token.clear();
        opts.limit = 0;
        opts.resource_version = rv;
        items.clear();
        paging = false;
        continue;
      }
      ReportError(e);
      if (IsExpiredOrTooLarge(e)) {
        Metrics::Inc(metrics_->expired);
        return ReflectorEvent::kListExpired;
      }
      return ReflectorEvent::kListFailed;
    }
    if (!paging) list_rv = page->resource_version;
    if (items.empty()) {
      items = std::move(page->items);  // the first (or only) page: no copy
    } else {
      items.reserve(items.size() + page->items.size());
      for (auto& item : page->items) items.push_back(std::move(item));
    }
    if (page->continue_token.empty()) break;
    paging = true;
    opts.continue_token = page->continue_token;
    opts.resource_version.clear();  // a continue token carries the snapshot revision
  }
  const std::size_t listed = items.size();
  auto replaced = store_.Replace(std::move(items), list_rv);
  if (!replaced.ok()) {
    ReportError(replaced.error());
    return ReflectorEvent::kListFailed;
  }
  Metrics::Observe(metrics_->list_duration, Seconds(clock_.Since(start)));
  Metrics::Observe(metrics_->items_per_list, static_cast<double>(listed));
  SetLastSync(list_rv);
  relist_from_storage_ = false;
  MutexLock lock(mu_);
  ++list_count_;
  return ReflectorEvent::kListSucceeded;
}

ListOptions Reflector::WatchOptions(bool watch_list) {
  ListOptions opts;
  opts.watch = true;
  opts.allow_watch_bookmarks = true;
  const double r = options_.rand ? options_.rand() : UniformRandom01();
  const auto min_s = std::chrono::duration_cast<std::chrono::seconds>(options_.min_watch_timeout).count();
  opts.timeout_seconds = static_cast<int64_t>(static_cast<double>(min_s) * (1.0 + r));
  opts.resource_version = LastSyncResourceVersion();
  if (watch_list) {
    opts.send_initial_events = true;
    opts.resource_version_match = "NotOlderThan";
  }
  return opts;
}

Result<void> Reflector::ApplyEvent(const WatchEvent& ev) {
  switch (ev.type) {
    case WatchEventType::kAdded: return store_.Add(store_.Prepare(ev.object, false));
    case WatchEventType::kModified: return store_.Update(store_.Prepare(ev.object, false));
    case WatchEventType::kDeleted: return store_.Delete(store_.Prepare(ev.object, false));
    case WatchEventType::kBookmark:
    case WatchEventType::kError: return Ok();
  }
  return Ok();
}

ReflectorEvent Reflector::DoWatch(std::stop_token stop, bool watch_list) {
  const ListOptions opts = WatchOptions(watch_list);
  const auto start = clock_.Now();
  if (watch_list) Metrics::Inc(metrics_->lists);
  Metrics::Inc(metrics_->watches);
  auto stream = lw_.Watch(opts);
  if (!stream.ok()) {
    const Error& e = stream.error();
    ReportError(e);
    if (IsTransport(e) || IsTooManyRequests(e)) return ReflectorEvent::kWatchRetriable;
    if (IsExpiredOrTooLarge(e)) {
      Metrics::Inc(metrics_->expired);
      return ReflectorEvent::kWatchExpired;
    }
    if (watch_list && e.code >= 400 && e.code < 500) return ReflectorEvent::kWatchListUnsupported;
    return watch_list ? ReflectorEvent::kWatchListFailed : ReflectorEvent::kWatchFailed;
  }
  WatchStream& w = **stream;
  std::stop_callback on_stop(stop, [&w] { w.Stop(); });
  metrics_->watch_events = 0;
  const ReflectorEvent ev = HandleStream(w, stop, watch_list, start);
  w.Stop();
  Metrics::Observe(metrics_->watch_duration, Seconds(clock_.Since(start)));
  Metrics::Observe(metrics_->items_per_watch, static_cast<double>(metrics_->watch_events));
  if (ev == ReflectorEvent::kWatchExpired) Metrics::Inc(metrics_->expired);
  return ev;
}

ReflectorEvent Reflector::HandleStream(WatchStream& stream, std::stop_token stop, bool watch_list,
                                       Clock::TimePoint start) {
  std::size_t events = 0;
  bool initial_done = !watch_list;
  std::vector<ObjectPtr> initial;
  while (true) {
    auto next = stream.Next();
    if (stop.stop_requested()) return ReflectorEvent::kStopRequested;
    if (!next.ok()) {
      const Error& e = next.error();
      ReportError(e);
      if (!initial_done) return ReflectorEvent::kWatchListFailed;
      if (IsTooManyRequests(e)) return ReflectorEvent::kWatchRetriable;
      if (IsExpiredOrTooLarge(e)) return ReflectorEvent::kWatchExpired;
      if (!IsTransport(e)) return ReflectorEvent::kWatchFailed;
      // A broken connection ends the stream like a close (client-go's StreamWatcher).
      next = std::optional<WatchEvent>{};
    }
    if (!next->has_value()) {
      if (!initial_done) return ReflectorEvent::kWatchListFailed;
      if (events == 0 && clock_.Since(start) < std::chrono::seconds(1)) {
        ReportError(InternalError("very short watch: unexpected watch close - watch lasted less "
                                  "than a second and no items received"));
        Metrics::Inc(metrics_->short_watches);
        return ReflectorEvent::kWatchFailed;
      }
      return ReflectorEvent::kWatchEnded;
    }
    const WatchEvent& ev = **next;
    ++events;
    metrics_->watch_events = events;
    if (ev.type == WatchEventType::kError) {
      const Error e = ev.error ? *ev.error : InternalError("watch ERROR event without a Status");
      ReportError(e);
      if (IsExpiredOrTooLarge(e)) return ReflectorEvent::kWatchExpired;
      return initial_done ? ReflectorEvent::kWatchFailed : ReflectorEvent::kWatchListFailed;
    }
    if (!ev.object) continue;
    std::string rv(ev.object->ResourceVersion());
    if (!initial_done) {
      if (ev.type == WatchEventType::kBookmark) {
        if (!ev.IsInitialEventsEnd()) continue;
        const std::size_t listed = initial.size();
        auto replaced = store_.Replace(std::exchange(initial, {}), rv);
        if (!replaced.ok()) {
          ReportError(replaced.error());
          return ReflectorEvent::kWatchListFailed;
        }
        Metrics::Observe(metrics_->list_duration, Seconds(clock_.Since(start)));
        Metrics::Observe(metrics_->items_per_list, static_cast<double>(listed));
        initial_done = true;
        SetLastSync(rv);
        relist_from_storage_ = false;
        MutexLock lock(mu_);
        ++list_count_;
        state_ = NextReflectorState(ReflectorState::kWatchList, ReflectorEvent::kWatchListSucceeded,
                                    ReflectorState::kList, watch_list_enabled_).next;
        continue;
      }
      if (ev.type == WatchEventType::kAdded || ev.type == WatchEventType::kModified) {
        initial.push_back(store_.Prepare(ev.object, /*in_list=*/true));
      }
      continue;
    }
    auto applied = ApplyEvent(ev);
    if (!applied.ok()) ReportError(applied.error());
    SetLastSync(std::move(rv));
  }
}

void Reflector::Run(std::stop_token stop) {
  ReflectorState state = watch_list_enabled_ ? ReflectorState::kWatchList : ReflectorState::kList;
  ReflectorState after = ReflectorState::kList;
  while (state != ReflectorState::kStopped) {
    {
      MutexLock lock(mu_);
      state_ = state;
    }
    ReflectorEvent ev = ReflectorEvent::kStopRequested;
    if (!stop.stop_requested()) {
      switch (state) {
        case ReflectorState::kList: ev = DoList(stop); break;
        case ReflectorState::kWatchList:
          ev = DoWatch(stop, true);
          // A streaming list that completed continued as a plain watch on the same stream.
          if (State() == ReflectorState::kWatch) state = ReflectorState::kWatch;
          break;
        case ReflectorState::kWatch: ev = DoWatch(stop, false); break;
        case ReflectorState::kBackoff:
          ev = clock_.SleepFor(backoff_.Next(), stop) ? ReflectorEvent::kBackoffElapsed
                                                      : ReflectorEvent::kStopRequested;
          break;
        case ReflectorState::kStopped: break;
      }
    }
    if (ev == ReflectorEvent::kWatchListUnsupported) {
      log_.Info("the server does not support streaming lists; using LIST from now on", {});
      watch_list_enabled_ = false;
    }
    const ReflectorTransition t = NextReflectorState(state, ev, after, watch_list_enabled_);
    if (t.relist_from_storage) relist_from_storage_ = true;
    state = t.next;
    after = t.after_backoff;
  }
  MutexLock lock(mu_);
  state_ = ReflectorState::kStopped;
}

}  // namespace kube::cache
