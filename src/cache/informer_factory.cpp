#include <kube/cache/informer_factory.hpp>

#include <kube/cache/client_lister_watcher.hpp>

#include <fmt/format.h>

namespace kube::cache {

SharedInformerFactory::SharedInformerFactory(ListerWatcherFactory lw_factory, InformerFactoryOptions options)
    : lw_factory_(std::move(lw_factory)),
      options_(std::move(options)),
      clock_(options_.clock ? *options_.clock : RealClock::Instance()) {}

SharedInformerFactory::SharedInformerFactory(const client::DynamicClient& client, InformerFactoryOptions options)
    : SharedInformerFactory(NewClientListerWatcherFactory(client.rest()), std::move(options)) {}

SharedInformerFactory::~SharedInformerFactory() {
  std::vector<std::unique_ptr<std::stop_callback<std::function<void()>>>> callbacks;
  {
    MutexLock lock(mu_);
    callbacks.swap(stop_callbacks_);
  }
  callbacks.clear();  // waits for a callback that is running
  Shutdown();
}

void SharedInformerFactory::Start(std::stop_token stop) {
  Start();
  // Built outside the lock: the callback runs at once (and takes the lock) if stop is requested.
  auto callback = std::make_unique<std::stop_callback<std::function<void()>>>(
      std::move(stop), std::function<void()>([this] { Shutdown(); }));
  MutexLock lock(mu_);
  stop_callbacks_.push_back(std::move(callback));
}

SharedIndexInformer& SharedInformerFactory::ForResource(const GroupVersionResource& gvr) {
  return ForResource(gvr, options_.scope);
}

SharedIndexInformer& SharedInformerFactory::ForResource(const GroupVersionResource& gvr,
                                                        const InformerScope& scope) {
  MutexLock lock(mu_);
  Key key{gvr, scope};
  auto it = informers_.find(key);
  if (it != informers_.end()) return *it->second.informer;
  InformerOptions io;
  io.name = scope.ns.empty() ? gvr.ToGroupResource().String()
                             : fmt::format("{}/{}", gvr.ToGroupResource().String(), scope.ns);
  io.default_resync = options_.default_resync;
  io.transform = options_.transform;
  io.reflector = options_.reflector;
  io.clock = &clock_;
  Entry entry;
  entry.informer = std::make_unique<SharedIndexInformer>(lw_factory_(gvr, scope), std::move(io));
  auto [pos, inserted] = informers_.emplace(std::move(key), std::move(entry));
  if (started_ && !shut_down_) StartLocked(pos->second);
  return *pos->second.informer;
}

void SharedInformerFactory::StartLocked(Entry& e) {
  if (e.thread.joinable()) return;
  SharedIndexInformer* informer = e.informer.get();
  e.thread = std::jthread([informer](std::stop_token stop) { informer->Run(stop); });
}

void SharedInformerFactory::Start() {
  MutexLock lock(mu_);
  if (shut_down_) return;
  started_ = true;
  for (auto& [key, entry] : informers_) StartLocked(entry);
}

std::map<GroupVersionResource, bool> SharedInformerFactory::WaitForCacheSync(std::stop_token stop,
                                                                             Clock::Duration timeout) {
  const auto deadline = timeout == Clock::Duration::max() ? Clock::TimePoint::max() : clock_.Now() + timeout;
  std::vector<std::pair<GroupVersionResource, SharedIndexInformer*>> started;
  {
    MutexLock lock(mu_);
    for (auto& [key, entry] : informers_) {
      if (entry.thread.joinable()) started.emplace_back(key.gvr, entry.informer.get());
    }
  }
  std::map<GroupVersionResource, bool> result;
  // Poll every 100 ms on the clock, as client-go's WaitForCacheSync does.
  while (true) {
    result.clear();
    bool all = true;
    for (auto& [gvr, informer] : started) {
      const bool synced = informer->HasSynced();
      // Several scopes of one resource report together: synced only when all are.
      auto [it, inserted] = result.try_emplace(gvr, synced);
      if (!inserted) it->second = it->second && synced;
      all = all && synced;
    }
    if (all || stop.stop_requested() || clock_.Now() >= deadline) return result;
    auto next = clock_.Now() + std::chrono::milliseconds(100);
    if (next > deadline) next = deadline;
    if (!clock_.SleepUntil(next, stop)) return result;
  }
}

void SharedInformerFactory::Shutdown() {
  std::vector<std::jthread> threads;
  {
    MutexLock lock(mu_);
    shut_down_ = true;
    for (auto& [key, entry] : informers_) {
      if (entry.thread.joinable()) threads.push_back(std::move(entry.thread));
    }
  }
  for (auto& t : threads) t.request_stop();
  for (auto& t : threads) t.join();
}

}  // namespace kube::cache
