#include <kube/cache/lister_watcher.hpp>

#include <kube/base/spin.hpp>

namespace kube::cache {

namespace {

// Wraps a shared stream so that the consumer's unique_ptr does not own the test's handle.
class StreamHandle final : public WatchStream {
 public:
  explicit StreamHandle(std::shared_ptr<FakeListerWatcher::Stream> s) : s_(std::move(s)) {}
  Result<std::optional<WatchEvent>> Next() override { return s_->Next(); }
  void Stop() override { s_->Stop(); }

 private:
  std::shared_ptr<FakeListerWatcher::Stream> s_;
};

}  // namespace

Result<ObjectList> ListerWatcher::StreamList(const ListOptions& options,
                                             const std::function<void(ObjectPtr&)>& on_item) {
  auto list = List(options);
  if (list.ok() && on_item) {
    for (ObjectPtr& item : list->items) on_item(item);
  }
  return list;
}

Result<std::optional<WatchEvent>> FakeListerWatcher::Stream::Next() {
  if (taken_.empty()) {
    // Everything pushed so far in one lock round trip: a fast producer and this consumer then
    // rarely meet on the mutex, and the producer signals only a parked consumer.
    MutexLock lock(mu_);
    while (pending_.empty() && !stopped_) {
      waiting_ = true;
      cv_.Wait(mu_);
      waiting_ = false;
    }
    if (stopped_) return std::optional<WatchEvent>{};
    taken_.swap(pending_);
  } else if (stop_requested_.load(std::memory_order_relaxed)) {
    return std::optional<WatchEvent>{};
  }
  // An End() marker stays so that later Next calls keep reporting the end.
  if (taken_.front().ok() && !taken_.front()->has_value()) return std::optional<WatchEvent>{};
  auto next = std::move(taken_.front());
  taken_.pop_front();
  return next;
}

void FakeListerWatcher::Stream::Stop() {
  stop_requested_.store(true, std::memory_order_relaxed);
  MutexLock lock(mu_);
  stopped_ = true;
  cv_.SignalAll();
}

void FakeListerWatcher::Stream::Push(WatchEvent event) {
  Result<std::optional<WatchEvent>> item(std::optional<WatchEvent>(std::move(event)));
  SpinMutexLock lock(mu_);
  pending_.push_back(std::move(item));
  if (waiting_) cv_.SignalAll();
}

void FakeListerWatcher::Stream::Push(WatchEventType type, std::string_view json) {
  auto obj = Object::Parse(json);
  WatchEvent ev;
  ev.type = type;
  ev.object = obj.ok() ? *obj : nullptr;
  Push(std::move(ev));
}

void FakeListerWatcher::Stream::Fail(Error error) {
  MutexLock lock(mu_);
  pending_.emplace_back(std::move(error));
  cv_.SignalAll();
}

void FakeListerWatcher::Stream::End() {
  MutexLock lock(mu_);
  pending_.emplace_back(std::optional<WatchEvent>{});
  cv_.SignalAll();
}

bool FakeListerWatcher::Stream::Stopped() const {
  MutexLock lock(mu_);
  return stopped_;
}

void FakeListerWatcher::AddListResult(Result<ObjectList> result) {
  MutexLock lock(mu_);
  lists_.push_back(std::move(result));
}

void FakeListerWatcher::AddWatchError(Error error) {
  MutexLock lock(mu_);
  watch_errors_.push_back(std::move(error));
}

std::vector<std::shared_ptr<FakeListerWatcher::Stream>> FakeListerWatcher::Streams() const {
  MutexLock lock(mu_);
  return streams_;
}

std::shared_ptr<FakeListerWatcher::Stream> FakeListerWatcher::WaitForWatch(std::size_t n,
                                                                           std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  MutexLock lock(mu_);
  while (streams_.size() < n) {
    if (cv_.WaitUntil(mu_, deadline) && streams_.size() < n) return nullptr;
  }
  return streams_[n - 1];
}

bool FakeListerWatcher::WaitForLists(std::size_t n, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  MutexLock lock(mu_);
  while (list_calls_.size() < n) {
    if (cv_.WaitUntil(mu_, deadline) && list_calls_.size() < n) return false;
  }
  return true;
}

std::vector<ListOptions> FakeListerWatcher::ListCalls() const {
  MutexLock lock(mu_);
  return list_calls_;
}

std::vector<ListOptions> FakeListerWatcher::WatchCalls() const {
  MutexLock lock(mu_);
  return watch_calls_;
}

Result<ObjectList> FakeListerWatcher::List(const ListOptions& options) {
  MutexLock lock(mu_);
  list_calls_.push_back(options);
  cv_.SignalAll();
  if (!lists_.empty()) {
    last_list_ = std::move(lists_.front());
    lists_.pop_front();
  }
  if (!last_list_) return ObjectList{};
  return *last_list_;
}

Result<std::unique_ptr<WatchStream>> FakeListerWatcher::Watch(const ListOptions& options) {
  MutexLock lock(mu_);
  watch_calls_.push_back(options);
  cv_.SignalAll();
  if (!watch_errors_.empty()) {
    Error e = std::move(watch_errors_.front());
    watch_errors_.pop_front();
    return e;
  }
  auto stream = std::make_shared<Stream>();
  streams_.push_back(stream);
  cv_.SignalAll();
  return std::unique_ptr<WatchStream>(std::make_unique<StreamHandle>(stream));
}

ObjectList MakeObjectList(const std::vector<ObjectPtr>& items, std::string resource_version,
                          std::string continue_token) {
  ObjectList list;
  list.resource_version = std::move(resource_version);
  list.continue_token = std::move(continue_token);
  list.items = items;
  return list;
}

}  // namespace kube::cache
