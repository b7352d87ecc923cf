// The kubecpp side of the typed-informer side-by-side bench (bench/peers/typed_informer_bench.py),
// the counterpart of `cginformer -mode typed-pods`: SharedInformerFactory(...).Core().V1().Pods()
// (all namespaces, the factory's default options) from $KUBECONFIG, QPS 1000 / burst 2000.
// The handler reads every object it is given as a typed Pod (name, namespace, container count),
// as a client-go handler receiving *v1.Pod would; that read is what makes the typed informer
// decode each object version once (kept with the cached object).
//
// Protocol (cginformer's):
//   {"phase":"synced","sync_ms","vmhwm_kb","items","adds"} once the handler's registration has
//       synced (the informer has synced and this handler has seen an add for every cached
//       object); time measured from just before the client is built;
//   then counts update notifications until $BENCH_M have arrived and prints
//   {"phase":"done","events","first_to_last_ms","vmhwm_kb","same_rv_updates","touched"}.
//   $BENCH_NS_PREFIX (optional) counts only updates of Pods whose namespace starts with it;
//   $BENCH_PROGRESS=B (optional) prints {"phase":"progress","events":k} after every B updates.
// same_rv_updates: updates whose old and new resourceVersion are equal (a relist, expected 0);
// touched: a sum over the typed reads, printed so that they cannot be optimized away.
// The informer syncs with the factory's default, a LIST (as client-go 1.32);
// BENCH_KUBECPP_WATCH_LIST=1 uses the streaming list (watch-list) instead.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>

#include <kube/api/core/v1.hpp>
#include <kube/base/mutex.hpp>
#include <kube/base/thread_annotations.hpp>
#include <kube/cache/informer_factory.hpp>
#include <kube/client/config.hpp>
#include <kube/client/dynamic_client.hpp>
#include <kube/informers/core/v1.hpp>

namespace {

using SteadyClock = std::chrono::steady_clock;
using Pod = kube::api::core::v1::Pod;

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

int64_t EnvInt(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::atoll(v) : 0;
}

// What a handler reads of a typed Pod.
int64_t Touch(const Pod& pod) {
  return static_cast<int64_t>(pod.spec.containers.size() + pod.metadata.name.size() + pod.metadata.namespace_.size());
}

// What the main thread waits for: the sync, then the M-th update notification.
struct Progress {
  kube::Mutex mu;
  kube::CondVar cv;
  bool synced KUBE_GUARDED_BY(mu) = false;
  int64_t adds KUBE_GUARDED_BY(mu) = 0;
  int64_t updates KUBE_GUARDED_BY(mu) = 0;
  int64_t same_rv KUBE_GUARDED_BY(mu) = 0;
  int64_t touched KUBE_GUARDED_BY(mu) = 0;
  SteadyClock::time_point first KUBE_GUARDED_BY(mu){};
  SteadyClock::time_point last KUBE_GUARDED_BY(mu){};
};

}  // namespace

int main() {
  using namespace kube;
  const int64_t m = EnvInt("BENCH_M");
  const int64_t progress_every = EnvInt("BENCH_PROGRESS");
  const char* prefix_env = std::getenv("BENCH_NS_PREFIX");
  const std::string ns_prefix = prefix_env != nullptr ? prefix_env : "";
  const char* watch_list_env = std::getenv("BENCH_KUBECPP_WATCH_LIST");
  const bool watch_list = watch_list_env != nullptr && std::string(watch_list_env) == "1";

  Progress progress;  // outlives the factory and its handler threads
  const auto t0 = SteadyClock::now();
  auto loaded = client::LoadConfig();
  if (!loaded.ok()) {
    std::fprintf(stderr, "config: %s\n", loaded.error().ToString().c_str());
    return 1;
  }
  loaded->config.qps = 1000;
  loaded->config.burst = 2000;
  auto dynamic = client::DynamicClient::Create(loaded->config);
  if (!dynamic.ok()) {
    std::fprintf(stderr, "client: %s\n", dynamic.error().ToString().c_str());
    return 1;
  }
  cache::InformerFactoryOptions options;
  if (watch_list) options.reflector.use_watch_list = true;
  cache::SharedInformerFactory factory(*dynamic, options);
  auto pods = factory.Core().V1().Pods();
  auto registration = pods.AddEventHandler({
      .add =
          [&progress](const std::shared_ptr<const Pod>& pod, bool) {
            const int64_t touched = Touch(*pod);
            MutexLock lock(progress.mu);
            ++progress.adds;
            progress.touched += touched;
          },
      .update =
          [&progress, &ns_prefix, m, progress_every](const std::shared_ptr<const Pod>& old_pod,
                                                     const std::shared_ptr<const Pod>& new_pod) {
            const auto now = SteadyClock::now();
            if (!std::string_view(new_pod->metadata.namespace_).starts_with(ns_prefix)) return;
            const int64_t touched = Touch(*old_pod) + Touch(*new_pod);
            const bool same_rv = old_pod->metadata.resourceVersion == new_pod->metadata.resourceVersion;
            MutexLock lock(progress.mu);
            if (progress.updates++ == 0) progress.first = now;
            progress.last = now;
            progress.touched += touched;
            if (same_rv) ++progress.same_rv;
            if (progress.updates == m) progress.cv.SignalAll();
            if (progress_every > 0 && progress.updates % progress_every == 0 && progress.updates < m) {
              std::printf(R"({"phase":"progress","events":%lld})"
                          "\n",
                          static_cast<long long>(progress.updates));
              std::fflush(stdout);
            }
          },
  });
  if (!registration.ok()) {
    std::fprintf(stderr, "handler: %s\n", registration.error().ToString().c_str());
    return 1;
  }
  (*registration)->OnSynced([&progress] {
    MutexLock lock(progress.mu);
    progress.synced = true;
    progress.cv.SignalAll();
  });
  std::stop_source stop;
  factory.Start(stop.get_token());
  {
    MutexLock lock(progress.mu);
    while (!progress.synced) progress.cv.Wait(progress.mu);
  }
  const auto t1 = SteadyClock::now();
  {
    MutexLock lock(progress.mu);
    std::printf(R"({"phase":"synced","sync_ms":%.1f,"vmhwm_kb":%ld,"items":%zu,"adds":%lld})"
                "\n",
                Ms(t0, t1), VmHwmKb(), pods.Informer().GetIndexer().Size(), static_cast<long long>(progress.adds));
  }
  std::fflush(stdout);

  {
    MutexLock lock(progress.mu);
    while (progress.updates < m) progress.cv.Wait(progress.mu);
    std::printf(R"({"phase":"done","events":%lld,"first_to_last_ms":%.1f,"vmhwm_kb":%ld,)"
                R"("same_rv_updates":%lld,"touched":%lld})"
                "\n",
                static_cast<long long>(progress.updates), Ms(progress.first, progress.last), VmHwmKb(),
                static_cast<long long>(progress.same_rv), static_cast<long long>(progress.touched));
  }
  std::fflush(stdout);
  stop.request_stop();  // shuts the factory down and joins its informers
  return 0;
}
