#include <kube/controller/event_recorder.hpp>
#include <kube/controller/typed.hpp>

#include <algorithm>
#include <chrono>
#include <deque>
#include <list>
#include <set>
#include <stop_token>
#include <thread>
#include <unordered_map>

#include <boost/json.hpp>
#include <fmt/format.h>

#include <kube/base/log.hpp>
#include <kube/core/gvk.hpp>
#include <kube/core/json.hpp>
#include <kube/core/options.hpp>
#include <kube/core/time.hpp>

namespace kube::controller {

std::string_view ToString(EventType type) {
  switch (type) {
    case EventType::kNormal:
      return "Normal";
    case EventType::kWarning:
      return "Warning";
  }
  return "Normal";
}

namespace {

/// A least-recently-used map of bounded size (the correlator's `lru.Cache`).
/// **Thread-safety:** none (owned by the writer thread).
template <class V>
class LruCache {
 public:
  explicit LruCache(std::size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

  /// The entry for `key` (marked most recently used), or nullptr.
  V* Get(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return &it->second->second;
  }

  /// Inserts or replaces; evicts the least recently used entry beyond capacity.
  void Put(const std::string& key, V value) {
    if (V* existing = Get(key)) {
      *existing = std::move(value);
      return;
    }
    order_.emplace_front(key, std::move(value));
    index_.emplace(key, order_.begin());
    if (order_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
  }

 private:
  std::size_t capacity_;
  std::list<std::pair<std::string, V>> order_;  // most recent first
  std::unordered_map<std::string, typename std::list<std::pair<std::string, V>>::iterator> index_;
};

/// What a recorder copies out of the caller's object and arguments.
struct PendingEvent {
  std::string api_version, kind, ns, name, uid, resource_version;
  EventType type = EventType::kNormal;
  std::string reason, message, component;
  Clock::WallTime wall;
  Clock::TimePoint mono;
};

std::string Join(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (auto p : parts) {
    out += p;
    out += '\x1f';  // a separator that does not occur in Kubernetes names
  }
  return out;
}

bool Retriable(const Error& e) {
  return IsTransport(e) || e.code >= 500 || IsTooManyRequests(e);
}

class ApiEventSink final : public EventSink {
 public:
  explicit ApiEventSink(client::DynamicClient client)
      : events_(client.Resource(GroupVersionResource{"", "v1", "events"})) {}
  Result<ObjectPtr> Create(const Object& event) override {
    return events_.Namespace(std::string(event.Namespace())).Create(event);
  }
  Result<ObjectPtr> Patch(std::string_view ns, std::string_view name, std::string_view patch) override {
    return events_.Namespace(std::string(ns)).Patch(name, PatchType::kMerge, patch);
  }

 private:
  client::Api events_;
};

}  // namespace

std::unique_ptr<EventSink> NewApiEventSink(client::DynamicClient client) {
  return std::make_unique<ApiEventSink>(std::move(client));
}

struct EventBroadcaster::Impl {
  Impl(std::unique_ptr<EventSink> s, EventBroadcasterOptions o)
      : options(std::move(o)),
        clock(options.clock != nullptr ? *options.clock : RealClock::Instance()),
        sink(std::move(s)),
        aggregates(options.cache_size),
        logs(options.cache_size),
        spam(options.cache_size) {}

  // --- correlator state: touched only by the writer thread ---
  struct AggregateRecord {
    std::set<std::string> messages;  // distinct messages seen in the window
    Clock::TimePoint last;
  };
  struct EventLog {
    std::int64_t count = 0;
    std::string first_timestamp;
    std::string name;
  };
  struct Bucket {
    double tokens = 0;
    Clock::TimePoint last;
  };

  const EventBroadcasterOptions options;
  Clock& clock;
  const std::unique_ptr<EventSink> sink;
  LruCache<AggregateRecord> aggregates;
  LruCache<EventLog> logs;
  LruCache<Bucket> spam;
  std::uint64_t last_name_nanos = 0;  // suffix of the last Event name handed out

  mutable Mutex mu;
  CondVar cv;  // signalled on enqueue, on progress and on shutdown
  std::deque<PendingEvent> queue KUBE_GUARDED_BY(mu);  // size <= options.queue_capacity
  std::uint64_t enqueued KUBE_GUARDED_BY(mu) = 0;      // events ever accepted
  std::uint64_t processed KUBE_GUARDED_BY(mu) = 0;     // events taken and fully handled
  bool shutting_down KUBE_GUARDED_BY(mu) = false;
  EventBroadcasterStats stats KUBE_GUARDED_BY(mu);
  std::jthread writer;  // started last, joined in Shutdown

  void Enqueue(PendingEvent ev) {
    MutexLock lock(mu);
    if (shutting_down || queue.size() >= options.queue_capacity) {
      ++stats.dropped;
      return;
    }
    queue.push_back(std::move(ev));
    ++enqueued;
    ++stats.recorded;
    cv.SignalAll();
  }

  void Run(std::stop_token stop) {
    for (;;) {
      PendingEvent ev;
      {
        MutexLock lock(mu);
        while (queue.empty() && !shutting_down) cv.Wait(mu);
        if (queue.empty()) return;
        ev = std::move(queue.front());
        queue.pop_front();
      }
      Process(ev, stop);
      MutexLock lock(mu);
      ++processed;
      cv.SignalAll();
    }
  }

  void Count(std::uint64_t EventBroadcasterStats::*field) {
    MutexLock lock(mu);
    ++(stats.*field);
  }

  // One event through the correlator (aggregate -> observe -> spam filter) and to the sink.
  void Process(const PendingEvent& ev, std::stop_token stop) {
    const std::string type(ToString(ev.type));
    const std::string now_text = FormatTime(ev.wall);

    // Aggregation of similar events (client-go EventAggregator).
    const std::string aggregate_key =
        Join({ev.component, options.host, ev.kind, ev.ns, ev.name, ev.uid, ev.api_version, type, ev.reason});
    AggregateRecord record;
    if (AggregateRecord* found = aggregates.Get(aggregate_key)) record = *found;
    if (ev.mono - record.last > options.similar_interval) record = AggregateRecord{};
    record.messages.insert(ev.message);
    record.last = ev.mono;
    const bool aggregate = static_cast<int>(record.messages.size()) >= options.max_similar_events;
    aggregates.Put(aggregate_key, std::move(record));
    std::string message = ev.message;
    std::string key = aggregate_key + ev.message;
    if (aggregate) {
      message = "(combined from similar events): " + ev.message;
      key = aggregate_key;
    }

    // Deduplication (client-go eventLogger): a repeat of a key becomes a count increment.
    EventLog log;
    if (EventLog* found = logs.Get(key)) {
      log = *found;
      ++log.count;
    } else {
      // client-go names an Event "<object>.<unix nanos in hex>". Two events in the same
      // nanosecond (or on a coarse or fake clock) would collide, so the suffix is made strictly
      // increasing per broadcaster.
      const auto nanos = static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(ev.wall.time_since_epoch()).count());
      last_name_nanos = std::max(nanos, last_name_nanos + 1);
      log.count = 1;
      log.first_timestamp = now_text;
      log.name = fmt::format("{}.{:x}", ev.name, last_name_nanos);
    }
    logs.Put(key, log);

    // Spam filter (client-go EventSourceObjectSpamFilter): a token bucket per source + object.
    const std::string spam_key = Join({ev.component, options.host, ev.kind, ev.ns, ev.name, ev.uid, ev.api_version});
    Bucket bucket{static_cast<double>(options.spam_burst), ev.mono};
    if (Bucket* found = spam.Get(spam_key)) bucket = *found;
    if (ev.mono > bucket.last) {
      const double refill = std::chrono::duration<double>(ev.mono - bucket.last).count() /
                            std::chrono::duration<double>(options.spam_refill_interval).count();
      bucket.tokens = std::min(static_cast<double>(options.spam_burst), bucket.tokens + refill);
      bucket.last = ev.mono;
    }
    const bool allowed = bucket.tokens >= 1.0;
    if (allowed) bucket.tokens -= 1.0;
    spam.Put(spam_key, bucket);
    if (aggregate) Count(&EventBroadcasterStats::aggregated);
    if (!allowed) {
      Count(&EventBroadcasterStats::filtered);
      return;
    }

    const std::string ns = ev.ns.empty() ? std::string("default") : ev.ns;
    if (log.count > 1) {
      boost::json::object patch{{"count", log.count}, {"lastTimestamp", now_text}, {"message", message}};
      const std::string patch_text = SerializeJson(patch);
      auto patched = WithRetries(stop, [&] { return sink->Patch(ns, log.name, patch_text); });
      if (patched.ok()) {
        Count(&EventBroadcasterStats::patched);
        return;
      }
      if (!IsNotFound(patched.error())) {
        Fail(ev, patched.error());
        return;
      }
      // The Event is gone (expired by its TTL, or deleted): create it again with the count.
    }
    boost::json::object involved;
    auto put = [](boost::json::object& o, std::string_view k, const std::string& v) {
      if (!v.empty()) o[k] = v;
    };
    put(involved, "kind", ev.kind);
    put(involved, "namespace", ev.ns);
    put(involved, "name", ev.name);
    put(involved, "uid", ev.uid);
    put(involved, "apiVersion", ev.api_version);
    put(involved, "resourceVersion", ev.resource_version);
    boost::json::object source;
    put(source, "component", ev.component);
    put(source, "host", options.host);
    boost::json::object event{
        {"apiVersion", "v1"},
        {"kind", "Event"},
        {"metadata", boost::json::object{{"name", log.name}, {"namespace", ns}}},
        {"involvedObject", std::move(involved)},
        {"reason", ev.reason},
        {"message", message},
        {"source", std::move(source)},
        {"firstTimestamp", log.first_timestamp},
        {"lastTimestamp", now_text},
        {"count", log.count},
        {"type", type},
        {"reportingComponent", ev.component},
        {"reportingInstance", options.host},
    };
    auto built = Object::FromJson(event);
    if (!built.ok()) {
      Fail(ev, built.error());
      return;
    }
    auto created = WithRetries(stop, [&] { return sink->Create(**built); });
    if (!created.ok()) {
      Fail(ev, created.error());
      return;
    }
    Count(&EventBroadcasterStats::created);
    if (EventLog* current = logs.Get(key)) {
      current->name = std::string((*created)->Name());
    }
  }

  template <class Fn>
  Result<ObjectPtr> WithRetries(std::stop_token stop, const Fn& fn) {
    Result<ObjectPtr> r = fn();
    for (int attempt = 1; !r.ok() && Retriable(r.error()) && attempt < options.max_attempts; ++attempt) {
      if (Stopping() || !clock.SleepFor(options.retry_interval, stop)) break;
      r = fn();
    }
    return r;
  }

  bool Stopping() const {
    MutexLock lock(mu);
    return shutting_down;
  }

  void Fail(const PendingEvent& ev, const Error& e) {
    Count(&EventBroadcasterStats::failed);
    log::Warn("event write failed, dropping it",
              {{"object", ev.ns.empty() ? ev.name : ev.ns + "/" + ev.name},
               {"reason", ev.reason},
               {"error", e.ToString()}});
  }
};

namespace {

class BroadcasterRecorder final : public EventRecorder {
 public:
  BroadcasterRecorder(EventBroadcaster::Impl* impl, std::string component)
      : impl_(impl), component_(std::move(component)) {}

  void Event(const Object& object, EventType type, std::string_view reason, std::string_view message) override {
    PendingEvent ev;
    ev.api_version = std::string(object.ApiVersion());
    ev.kind = std::string(object.Kind());
    ev.ns = std::string(object.Namespace());
    ev.name = std::string(object.Name());
    ev.uid = std::string(object.Uid());
    ev.resource_version = std::string(object.ResourceVersion());
    ev.type = type;
    ev.reason = std::string(reason);
    ev.message = std::string(message);
    ev.component = component_;
    ev.wall = impl_->clock.WallNow();
    ev.mono = impl_->clock.Now();
    impl_->Enqueue(std::move(ev));
  }

 private:
  EventBroadcaster::Impl* impl_;
  std::string component_;
};

}  // namespace

EventBroadcaster::EventBroadcaster(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::unique_ptr<EventBroadcaster> EventBroadcaster::Create(std::unique_ptr<EventSink> sink,
                                                           EventBroadcasterOptions options) {
  auto impl = std::make_unique<Impl>(std::move(sink), std::move(options));
  Impl* raw = impl.get();
  impl->writer = std::jthread([raw](std::stop_token stop) { raw->Run(stop); });
  return std::make_unique<EventBroadcaster>(std::move(impl));
}

EventBroadcaster::~EventBroadcaster() { Shutdown(); }

std::unique_ptr<EventRecorder> EventBroadcaster::NewRecorder(std::string component) {
  return std::make_unique<BroadcasterRecorder>(impl_.get(), std::move(component));
}

void EventBroadcaster::Flush() {
  MutexLock lock(impl_->mu);
  const std::uint64_t target = impl_->enqueued;
  while (impl_->processed < target) impl_->cv.Wait(impl_->mu);
}

void EventBroadcaster::Shutdown() {
  {
    MutexLock lock(impl_->mu);
    impl_->shutting_down = true;
    impl_->cv.SignalAll();
  }
  if (impl_->writer.joinable()) {
    impl_->writer.request_stop();  // ends retry waits; queued events get one attempt each
    impl_->writer.join();
  }
}

EventBroadcasterStats EventBroadcaster::Stats() const {
  MutexLock lock(impl_->mu);
  return impl_->stats;
}

void FakeEventRecorder::Event(const Object&, EventType type, std::string_view reason, std::string_view message) {
  MutexLock lock(mu_);
  events_.push_back(fmt::format("{} {} {}", ToString(type), reason, message));
}

std::vector<std::string> FakeEventRecorder::Events() const {
  MutexLock lock(mu_);
  return events_;
}

void FakeEventRecorder::Clear() {
  MutexLock lock(mu_);
  events_.clear();
}

namespace internal {

Result<ObjectPtr> InvolvedObject(std::string_view api_version, std::string_view kind, std::string_view ns,
                                 std::string_view name, std::string_view uid, std::string_view resource_version) {
  ObjectBuilder b(api_version, kind);
  b.SetName(name);
  if (!ns.empty()) b.SetNamespace(ns);
  if (!uid.empty()) b.SetUid(uid);
  if (!resource_version.empty()) b.SetResourceVersion(resource_version);
  return b.Build();
}

}  // namespace internal

}  // namespace kube::controller
