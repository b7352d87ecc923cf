// The kubecpp side of the side-by-side bench (issue 10), driven by peer_loader: a
// SharedIndexInformer on bench.example.com/v1 benchobjects (all namespaces, default options:
// streaming list when the server supports it, no transform) from $KUBECONFIG.
// Prints {"phase":"synced","sync_ms","vmhwm_kb","items"} once HasSynced (time measured from just
// before the client is built), then counts MODIFIED notifications until $BENCH_M have arrived and
// prints {"phase":"done","events","first_to_last_ms","vmhwm_kb"}.
// BENCH_KUBECPP_LIST=1 uses paged LIST (pages of 500) instead of the streaming list.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include <kube/base/mutex.hpp>
#include <kube/base/thread_annotations.hpp>
#include <kube/cache/client_lister_watcher.hpp>
#include <kube/cache/shared_informer.hpp>
#include <kube/client/config.hpp>
#include <kube/client/dynamic_client.hpp>

namespace {

using SteadyClock = std::chrono::steady_clock;

// VmHWM of this process in kB (the kernel's peak resident set).
long VmHwmKb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return -1;
}

double Ms(SteadyClock::time_point a, SteadyClock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// What the main thread waits for: the sync, then the M-th MODIFIED notification.
struct Progress {
  kube::Mutex mu;
  kube::CondVar cv;
  bool synced KUBE_GUARDED_BY(mu) = false;
  int64_t updates KUBE_GUARDED_BY(mu) = 0;
  SteadyClock::time_point first KUBE_GUARDED_BY(mu){};
  SteadyClock::time_point last KUBE_GUARDED_BY(mu){};
};

}  // namespace

int main() {
  using namespace kube;
  const char* m_env = std::getenv("BENCH_M");
  const int64_t m = m_env != nullptr ? std::atoll(m_env) : 0;
  const char* list_env = std::getenv("BENCH_KUBECPP_LIST");
  const bool paged_list = list_env != nullptr && std::string(list_env) == "1";

  Progress progress;  // outlives the informer and its handler threads
  const auto t0 = SteadyClock::now();
  auto loaded = client::LoadConfig();
  if (!loaded.ok()) {
    std::fprintf(stderr, "config: %s\n", loaded.error().ToString().c_str());
    return 1;
  }
  loaded->config.qps = -1;
  auto rest = client::RestClient::Create(loaded->config);
  if (!rest.ok()) {
    std::fprintf(stderr, "client: %s\n", rest.error().ToString().c_str());
    return 1;
  }
  cache::InformerOptions options;
  options.name = "benchobjects";
  options.reflector.use_watch_list = !paged_list;
  cache::SharedIndexInformer informer(
      cache::NewClientListerWatcher(client::Api(*rest, {"bench.example.com", "v1", "benchobjects"})), options);
  auto handler = std::make_shared<cache::ResourceEventHandlerFuncs>();
  handler->update = [&progress, m](const ObjectPtr&, const ObjectPtr&) {
    const auto now = SteadyClock::now();
    MutexLock lock(progress.mu);
    if (progress.updates++ == 0) progress.first = now;
    progress.last = now;
    if (progress.updates == m) progress.cv.SignalAll();
  };
  auto registration = informer.AddEventHandler(handler);
  if (!registration.ok()) {
    std::fprintf(stderr, "handler: %s\n", registration.error().ToString().c_str());
    return 1;
  }
  (*registration)->OnSynced([&progress] {
    MutexLock lock(progress.mu);
    progress.synced = true;
    progress.cv.SignalAll();
  });
  std::jthread run([&](std::stop_token stop) { informer.Run(stop); });
  {
    MutexLock lock(progress.mu);
    while (!progress.synced) progress.cv.Wait(progress.mu);
  }
  const auto t1 = SteadyClock::now();
  std::printf(R"({"phase":"synced","sync_ms":%.1f,"vmhwm_kb":%ld,"items":%zu})"
              "\n",
              Ms(t0, t1), VmHwmKb(), informer.GetIndexer().Size());
  std::fflush(stdout);

  {
    MutexLock lock(progress.mu);
    while (progress.updates < m) progress.cv.Wait(progress.mu);
    std::printf(R"({"phase":"done","events":%lld,"first_to_last_ms":%.1f,"vmhwm_kb":%ld})"
                "\n",
                static_cast<long long>(progress.updates), Ms(progress.first, progress.last), VmHwmKb());
  }
  std::fflush(stdout);
  run.request_stop();
  run.join();
  return 0;
}
