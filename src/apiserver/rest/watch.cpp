// WATCH (apiserver-semantics.md §2.4-§2.6): "get state and start" or start at a revision,
// selector transitions, DELETED with the last state at the delete's revision, bookmarks,
// timeoutSeconds, the 410 ERROR event, and watch-list (sendInitialEvents) with the
// k8s.io/initial-events-end bookmark.

#include <algorithm>
#include <functional>
#include <random>

#include <boost/json.hpp>

#include <kube/core/status.hpp>

#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/ops.hpp"
#include "apiserver/rest/output.hpp"
#include "apiserver/rest/read_util.hpp"
#include "apiserver/rest/selection.hpp"
#include "apiserver/rest/watch_pump.hpp"

namespace kube::apiserver::rest {
namespace {

// A prefix no key has: registering a watch on it waits for every in-flight fan-out to finish.
constexpr std::string_view kProbePrefix = "\x01kubecpp/progress-probe/";

Clock::Duration WatchTimeout(const Env& env, const ListOptions& opts) {
  if (opts.timeout_seconds && *opts.timeout_seconds > 0) return std::chrono::seconds(*opts.timeout_seconds);
  // kube: a random value in [minRequestTimeout, 2*minRequestTimeout].
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_real_distribution<double> factor(1.0, 2.0);
  return std::chrono::duration_cast<Clock::Duration>(env.options.min_request_timeout * factor(rng));
}

// The JSON of `stored` as served, with metadata.resourceVersion replaced by `revision` (the old
// object of a MODIFIED that left the selector is sent as DELETED at the event's revision).
std::string RestampedServed(const ResourceInfo& info, std::string_view stored, Revision revision) {
  auto obj = ServedObject(info, stored);
  if (!obj.ok()) return std::string(stored);
  auto& meta = (*obj)["metadata"];
  if (meta.is_object()) meta.get_object()["resourceVersion"] = std::to_string(revision);
  return boost::json::serialize(*obj);
}

// Turns storage events into watch lines (with selector transitions).
class EventTranslator {
 public:
  EventTranslator(const ResourceInfo& info, const Selection& sel, WatchEncoder& enc)
      : info_(info), sel_(sel), enc_(enc) {}

  void Append(const StorageEvent& e, std::string& out) {
    switch (e.type) {
      case StorageEvent::Type::kCreated:
        if (sel_.MatchesStored(*e.value)) out += enc_.Event(WatchEventType::kAdded, ServedJson(info_, *e.value));
        return;
      case StorageEvent::Type::kDeleted:
        if (sel_.MatchesStored(*e.value)) {
          out += enc_.Event(WatchEventType::kDeleted, ServedJson(info_, *e.value));
        }
        return;
      case StorageEvent::Type::kUpdated: {
        if (sel_.Empty()) {
          out += enc_.Event(WatchEventType::kModified, ServedJson(info_, *e.value));
          return;
        }
        const bool now_matches = sel_.MatchesStored(*e.value);
        const bool was_matching = e.prev_value != nullptr && sel_.MatchesStored(*e.prev_value);
        if (now_matches) {
          out += enc_.Event(was_matching ? WatchEventType::kModified : WatchEventType::kAdded,
                            ServedJson(info_, *e.value));
        } else if (was_matching) {
          out += enc_.Event(WatchEventType::kDeleted, RestampedServed(info_, *e.prev_value, e.revision));
        }
        return;
      }
    }
  }

 private:
  const ResourceInfo& info_;
  const Selection& sel_;
  WatchEncoder& enc_;
};

// Writes `lines` in pieces of at most `chunk` bytes (split at line ends). False if the client left.
bool WriteLines(ResponseWriter& w, std::string& lines, std::size_t chunk) {
  std::size_t start = 0;
  while (lines.size() - start > chunk) {
    auto cut = lines.rfind('\n', start + chunk);
    if (cut == std::string::npos || cut < start) cut = lines.find('\n', start + chunk);
    if (cut == std::string::npos) break;
    if (!w.Write(std::string_view(lines).substr(start, cut + 1 - start))) return false;
    start = cut + 1;
  }
  const bool ok = start == lines.size() || w.Write(std::string_view(lines).substr(start));
  lines.clear();
  return ok;
}

}  // namespace

void HandleWatch(const Env& env, Request& r, const ListOptions& opts_in) {
  ListOptions opts = opts_in;
  if (auto v = ValidateListOptions(opts); !v.ok()) return RespondError(r.w, v.error());
  auto sel = Selection::Parse(*r.info, opts);
  if (!sel.ok()) return RespondError(r.w, sel.error());
  // Each event's object is a single object, whatever the collection.
  auto format = Negotiate(r, /*is_list=*/false);
  if (!format.ok()) return RespondError(r.w, format.error());
  auto rv = ParseRequestRevision(opts.resource_version);
  if (!rv.ok()) return RespondError(r.w, rv.error());

  // kube 1.32 (WatchList on) defaults a legacy "get state and start" watch to sendInitialEvents.
  if (!opts.send_initial_events.has_value() && opts.resource_version_match.empty() && *rv == 0) {
    opts.send_initial_events = true;
  }
  const bool initial = opts.send_initial_events.value_or(false);
  if (initial) {
    if (auto fresh = CheckNotOlderThan(env.storage, *rv); !fresh.ok()) return RespondError(r.w, fresh.error());
  }
  const std::string prefix = NarrowedPrefix(r, *sel);
  const Clock::TimePoint deadline = env.clock.Now() + WatchTimeout(env, opts);

  // The initial state and the watcher must meet at one revision; a compaction in between
  // (rare) means starting over.
  std::vector<KeyValue> initial_items;
  Revision start = initial ? 0 : *rv;
  std::unique_ptr<Watcher> watcher;
  for (int attempt = 0; watcher == nullptr; ++attempt) {
    if (initial) {
      ListPlan plan;
      plan.prefix = prefix;
      auto page = ReadPage(env, plan, 0, *sel, nullptr);
      if (!page.ok()) return RespondError(r.w, page.error());
      start = page->revision;
      initial_items = std::move(page->items);
    }
    auto w = env.storage.Watch(prefix, start);
    if (w.ok()) {
      watcher = std::move(*w);
    } else if (!IsExpired(w.error())) {
      return RespondError(r.w, w.error());
    } else if (!initial) {
      // A compacted start revision: HTTP 200 with one ERROR event, as the watch cache answers.
      r.w.BeginStream(200, "application/json");
      (void)r.w.Write(WatchEncoder::ErrorEvent(NewTooOldResourceVersion(
          static_cast<uint64_t>(start), static_cast<uint64_t>(env.storage.CompactedRevision()))));
      return;
    } else if (attempt == 2) {
      return RespondError(r.w, NewResourceExpired(std::string(kWatchExpiredMsg)));
    }
  }

  r.w.BeginStream(200, "application/json");
  WatchEncoder enc(env, r, *format);
  EventTranslator translate(*r.info, *sel, enc);
  const std::size_t chunk = env.options.write_chunk_bytes;
  std::string lines;
  for (const auto& kv : initial_items) {
    lines += enc.Event(WatchEventType::kAdded, ServedJson(*r.info, *kv.value));
    if (lines.size() >= chunk && !WriteLines(r.w, lines, chunk)) return;
  }
  initial_items.clear();
  if (initial && opts.allow_watch_bookmarks) lines += enc.Bookmark(start, /*initial_events_end=*/true);
  if (!lines.empty() && !WriteLines(r.w, lines, chunk)) return;

  Revision last = start;  // every matching change up to here has been written
  const bool bookmarks = opts.allow_watch_bookmarks;
  Clock::TimePoint next_bookmark = env.clock.Now() + env.options.bookmark_interval;
  const std::stop_token stop = r.w.StopToken();
  // Sends a BOOKMARK at the latest revision whose changes have all been written. Once a probe
  // watch has been registered, every commit up to `current` has been fanned out to our watcher
  // (the storage registers watches and publishes under one lock), so after draining it nothing at
  // or below `current` is pending.
  auto progress_bookmark = [&]() -> bool {
    const Revision current = env.storage.CurrentRevision();
    { auto probe = env.storage.Watch(kProbePrefix, 0); }
    for (const StorageEvent& e : watcher->Next(Clock::TimePoint::min(), stop)) {
      translate.Append(e, lines);
      last = std::max(last, e.revision);
    }
    if (watcher->Overflowed()) return false;  // events were lost: no progress to report
    last = std::max(last, current);
    lines += enc.Bookmark(last, /*initial_events_end=*/false);
    return WriteLines(r.w, lines, chunk);
  };
  // The live phase, through the delivery thread when there is one: parked there, this thread
  // sleeps while the pump writes our events (see WatchPump), and wakes for what only it does —
  // bookmarks, the deadline, a client that does not keep up, the end of the watch.
  bool pumped = env.pump != nullptr;
  const std::function<WatchPump::Step()> pump_step = [&] {
    for (const StorageEvent& e : watcher->Next(Clock::TimePoint::min(), {})) {
      translate.Append(e, lines);
      last = std::max(last, e.revision);
    }
    if (watcher->Done()) return WatchPump::Step::kReturn;
    if (lines.empty()) return WatchPump::Step::kContinue;
    if (r.w.WritableWithoutBlocking() < lines.size()) return WatchPump::Step::kReturn;
    return WriteLines(r.w, lines, chunk) ? WatchPump::Step::kContinue : WatchPump::Step::kReturn;
  };
  while (!stop.stop_requested()) {
    const Clock::TimePoint now = env.clock.Now();
    if (now >= deadline) break;
    const Clock::TimePoint wake = bookmarks ? std::min(deadline, next_bookmark) : deadline;
    Clock::TimePoint wait_until = wake;
    if (pumped) {
      if (env.pump->Park(*watcher, env.clock, wake, stop, pump_step) ==
          WatchPump::Outcome::kUnsupported) {
        pumped = false;
      } else {
        wait_until = Clock::TimePoint::min();  // only collect what the pump left
      }
    }
    std::vector<StorageEvent> events = watcher->Next(wait_until, stop);
    for (const StorageEvent& e : events) {
      translate.Append(e, lines);
      last = std::max(last, e.revision);
    }
    if (!lines.empty() && !WriteLines(r.w, lines, chunk)) return;
    if (watcher->Done()) return;  // too slow (client re-watches from its last RV) or shutting down
    if (bookmarks && env.clock.Now() >= next_bookmark) {
      if (!progress_bookmark()) return;
      next_bookmark = env.clock.Now() + env.options.bookmark_interval;
    }
  }
  // kube sends a last bookmark shortly before the deadline so the client can resume without a gap.
  if (bookmarks && !stop.stop_requested()) (void)progress_bookmark();
}

}  // namespace kube::apiserver::rest
