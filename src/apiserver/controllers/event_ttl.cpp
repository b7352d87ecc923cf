// Event expiry (kube-apiserver's --event-ttl, which etcd implements with leases): an Event is
// deleted `ttl` after its last write. Writes are observed through a storage watch; the deletion is
// conditional on the revision that set the deadline, so an event written again meanwhile lives on.

#include <algorithm>
#include <map>
#include <thread>
#include <unordered_map>

#include <boost/json.hpp>

#include <kube/base/log.hpp>
#include <kube/core/status.hpp>
#include <kube/core/time.hpp>

#include "apiserver/controllers/controllers.hpp"
#include "apiserver/rest/codec.hpp"
#include "apiserver/rest/json_util.hpp"

namespace kube::apiserver::controllers {
namespace json = boost::json;
using rest::MetadataOf;
using rest::StringAt;

namespace {

constexpr auto kRetryDelay = std::chrono::seconds(1);

// The newest time an event records about itself: its creation, the recorder's timestamps, and
// the times of its managedFields entries (set by the server on every write).
std::optional<Clock::WallTime> NewestTimestamp(const json::object& obj) {
  std::optional<Clock::WallTime> newest;
  auto consider = [&](std::string_view text) {
    if (text.empty()) return;
    auto t = ParseTime(text);
    if (t.ok() && (!newest || *t > *newest)) newest = *t;
  };
  consider(StringAt(MetadataOf(obj), "creationTimestamp"));
  consider(StringAt(obj, "lastTimestamp"));
  consider(StringAt(obj, "eventTime"));
  if (const auto* series = rest::ObjectAt(obj, "series")) consider(StringAt(*series, "lastObservedTime"));
  if (const auto* mf = MetadataOf(obj).if_contains("managedFields"); mf != nullptr && mf->is_array()) {
    for (const auto& e : mf->get_array()) {
      if (e.is_object()) consider(StringAt(e.get_object(), "time"));
    }
  }
  return newest;
}

class EventTtlController final : public LoopController {
 public:
  EventTtlController(const rest::Env& env, Clock::Duration ttl) : env_(env), ttl_(ttl) {}
  ~EventTtlController() override { Stop(); }

 private:
  struct Entry {
    Revision revision = 0;
    Clock::TimePoint deadline{};
  };

  void Track(const std::string& key, Revision revision, Clock::TimePoint deadline) {
    Untrack(key);
    entries_[key] = Entry{revision, deadline};
    by_deadline_.emplace(deadline, key);
  }

  void Untrack(const std::string& key) {
    auto it = entries_.find(key);
    if (it == entries_.end()) return;
    auto [lo, hi] = by_deadline_.equal_range(it->second.deadline);
    for (auto d = lo; d != hi; ++d) {
      if (d->second == key) {
        by_deadline_.erase(d);
        break;
      }
    }
    entries_.erase(it);
  }

  // `ttl` after the event's last write as the event records it (so the deadline does not depend
  // on when this thread sees the write), and never more than `ttl` from now.
  Clock::TimePoint DeadlineFor(const std::string& value) const {
    const auto now = env_.clock.Now();
    auto obj = rest::ParseStored(value);
    if (!obj.ok()) return now + ttl_;
    const auto newest = NewestTimestamp(*obj);
    const auto wall_now = env_.clock.WallNow();
    if (!newest || *newest >= wall_now) return now + ttl_;
    const auto age = std::chrono::duration_cast<Clock::Duration>(wall_now - *newest);
    return now + std::max(Clock::Duration::zero(), ttl_ - age);
  }

  Result<std::unique_ptr<Watcher>> Rebuild(const std::string& prefix) {
    entries_.clear();
    by_deadline_.clear();
    ListRequest req;
    req.prefix = prefix;
    auto list = env_.storage.List(req);
    if (!list.ok()) return std::move(list).error();
    for (const KeyValue& kv : list->items) Track(kv.key, kv.mod_revision, DeadlineFor(*kv.value));
    return env_.storage.Watch(prefix, list->revision);
  }

  void Expire() {
    const auto now = env_.clock.Now();
    while (!by_deadline_.empty() && by_deadline_.begin()->first <= now) {
      const std::string key = by_deadline_.begin()->second;
      const Revision revision = entries_.at(key).revision;
      auto kv = env_.storage.Get(key);
      if (!kv.ok() || kv->mod_revision != revision) {
        Untrack(key);  // gone or rewritten (the watch brings the new deadline)
        continue;
      }
      auto obj = rest::ParseStored(*kv->value);
      if (!obj.ok()) {
        Untrack(key);
        continue;
      }
      const rest::StampedJson tombstone(std::move(*obj));
      auto rev = env_.storage.Delete(key, revision, [&](Revision rv) -> Result<std::string> { return tombstone.At(rv); });
      if (!rev.ok() && !IsNotFound(rev.error()) && !IsConflict(rev.error())) {
        log::Warn("event ttl: delete failed", {{"key", key}, {"error", rev.error().message}});
        Track(key, revision, now + kRetryDelay);
        return;
      }
      Untrack(key);
    }
  }

  void Run(std::stop_token stop) override {
    const ResourcePtr events = env_.registry.Find("", "v1", "events");
    if (events == nullptr) return;
    const std::string prefix = events->StoragePrefix();
    while (!stop.stop_requested()) {
      auto watcher = Rebuild(prefix);
      if (!watcher.ok()) {
        env_.clock.SleepFor(kRetryDelay, stop);
        continue;
      }
      while (!stop.stop_requested()) {
        Expire();
        const auto deadline = by_deadline_.empty() ? Clock::TimePoint::max() : by_deadline_.begin()->first;
        for (const StorageEvent& e : (*watcher)->Next(deadline, stop)) {
          if (e.type == StorageEvent::Type::kDeleted) {
            Untrack(e.key);
          } else {
            Track(e.key, e.revision, DeadlineFor(*e.value));
          }
        }
        if ((*watcher)->Done()) break;
      }
    }
  }

  const rest::Env& env_;
  const Clock::Duration ttl_;
  std::unordered_map<std::string, Entry> entries_;
  std::multimap<Clock::TimePoint, std::string> by_deadline_;
};

}  // namespace

std::unique_ptr<Controller> NewEventTtlController(const rest::Env& env, Clock::Duration ttl) {
  return std::make_unique<EventTtlController>(env, ttl);
}

}  // namespace kube::apiserver::controllers
