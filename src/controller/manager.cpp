#include <kube/controller/manager.hpp>

#include <unistd.h>

#include <condition_variable>
#include <map>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include <kube/base/log.hpp>
#include <kube/base/random.hpp>
#include <kube/client/auth.hpp>
#include <kube/client/discovery.hpp>
#include <kube/client/http_transport.hpp>
#include <kube/cache/client_lister_watcher.hpp>
#include <kube/leaderelection/leader_elector.hpp>
#include <kube/leaderelection/lease_lock.hpp>

namespace kube::controller {
namespace {

// One started runnable: its own stop source, so leader-gated ones can be stopped alone.
struct Slot {
  std::shared_ptr<Runnable> runnable;
  std::stop_source stop;
  std::jthread thread;
  bool leader_gated = false;
  bool done = false;  // guarded by Manager::Internals::mu
};

struct Entry {
  std::shared_ptr<Runnable> runnable;
  RunnableOptions options;
  bool launched = false;
};

std::string DefaultIdentity() {
  char host[256] = {};
  if (::gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  std::string id = host[0] != '\0' ? std::string(host) : std::string("kubecpp");
  const auto suffix = static_cast<unsigned long long>(UniformRandom01() * 1e12);
  return id + "_" + std::to_string(suffix);
}

}  // namespace

struct Manager::Internals {
  ManagerOptions options;
  Clock* clock = nullptr;
  // Declared before everything that reports to it.
  std::unique_ptr<MetricsRegistry> registry = std::make_unique<MetricsRegistry>();
  std::shared_ptr<RestClientMetrics> rest_metrics;                  // the REST client's hook
  std::unique_ptr<cache::MetricsProvider> informer_metrics;         // the reflectors' hook
  std::shared_ptr<client::RestClient> rest;
  std::unique_ptr<client::RestMapper> mapper;
  std::unique_ptr<cache::SharedInformerFactory> factory;
  std::unique_ptr<Client> client;
  log::Logger log{"manager"};

  mutable Mutex mu;
  CondVar cv;
  std::vector<Entry> entries KUBE_GUARDED_BY(mu);
  std::vector<std::unique_ptr<Slot>> slots KUBE_GUARDED_BY(mu);
  std::set<std::string> controller_names KUBE_GUARDED_BY(mu);
  std::map<std::string, HealthCheck> healthz KUBE_GUARDED_BY(mu);
  std::map<std::string, HealthCheck> readyz KUBE_GUARDED_BY(mu);
  ProbeServer* probe KUBE_GUARDED_BY(mu) = nullptr;  // owned by Start
  bool started KUBE_GUARDED_BY(mu) = false;
  bool stopping KUBE_GUARDED_BY(mu) = false;
  bool leading KUBE_GUARDED_BY(mu) = false;
  // The running elector (owned by Start), for GetFencingToken; null without election.
  leaderelection::LeaderElector* elector KUBE_GUARDED_BY(mu) = nullptr;
  int running KUBE_GUARDED_BY(mu) = 0;
  std::optional<Error> first_error KUBE_GUARDED_BY(mu);
  std::stop_source shutdown;  // requested on user stop, a runnable error or a lost election
  std::atomic<int> probe_port{0};

  // Starts `runnable` on a thread of its own. Requires mu.
  void Launch(Entry& e) KUBE_REQUIRES(mu) {
    e.launched = true;
    auto slot = std::make_unique<Slot>();
    slot->runnable = e.runnable;
    slot->leader_gated = e.options.needs_leader_election && options.leader_election.enabled;
    ++running;
    Slot* s = slot.get();
    slot->thread = std::jthread([this, s] {
      Result<void> r = CanceledError();
      try {
        r = s->runnable->Start(s->stop.get_token());
      } catch (const std::exception& ex) {
        r = InternalError(std::string("runnable threw: ") + ex.what());
      }
      MutexLock lock(mu);
      --running;
      s->done = true;
      if (!r.ok() && !stopping) {
        log.Error("runnable failed; stopping the manager", {{"error", r.error().ToString()}});
        if (!first_error) first_error = r.error();
        shutdown.request_stop();
      }
      cv.SignalAll();
    });
    slots.push_back(std::move(slot));
  }

  void LaunchEligible() KUBE_REQUIRES(mu) {
    if (stopping) return;
    for (Entry& e : entries) {
      if (e.launched) continue;
      const bool gated = e.options.needs_leader_election && options.leader_election.enabled;
      if (!gated || leading) Launch(e);
    }
  }
};

Manager::Manager(std::unique_ptr<Internals> internals) : in_(std::move(internals)) {}

Manager::~Manager() {
  // Runnables hold references to the client and factory: stop and join them first.
  std::vector<std::unique_ptr<Slot>> slots;
  {
    MutexLock lock(in_->mu);
    in_->stopping = true;
    slots.swap(in_->slots);
  }
  for (auto& s : slots) s->stop.request_stop();
  slots.clear();
  in_->client.reset();
  if (in_->factory) in_->factory->Shutdown();
}

Result<std::unique_ptr<Manager>> Manager::Create(ManagerOptions options) {
  auto in = std::make_unique<Internals>();
  in->clock = options.clock != nullptr ? options.clock : &RealClock::Instance();
  const LeaderElectionOptions& le = options.leader_election;
  if (le.enabled) {
    if (le.id.empty()) return BadRequest("manager: leader_election.id is required when leader election is enabled");
    // Timing rules are validated here so that a bad configuration fails at Create, not Start.
    if (!(le.lease_duration > le.renew_deadline)) {
      return BadRequest("manager: leader_election.lease_duration must be greater than renew_deadline");
    }
    if (!(std::chrono::duration<double>(le.renew_deadline).count() >
          leaderelection::kJitterFactor * std::chrono::duration<double>(le.retry_period).count())) {
      return BadRequest("manager: leader_election.renew_deadline must be greater than 1.2 * retry_period");
    }
    if (le.retry_period <= Clock::Duration::zero()) {
      return BadRequest("manager: leader_election.retry_period must be positive");
    }
  }
  if (options.graceful_shutdown_timeout < Clock::Duration::zero()) {
    return BadRequest("manager: graceful_shutdown_timeout must not be negative");
  }
  in->rest_metrics = std::make_shared<RestClientMetrics>(*in->registry);
  in->informer_metrics = NewInformerMetricsProvider(*in->registry);
  if (options.rest != nullptr) {
    in->rest = options.rest;  // reports to its own RestClientOptions::metrics, if any
  } else {
    client::Config config = options.config;
    if (config.qps == client::kDefaultQps && config.burst == client::kDefaultBurst) {
      // controller-runtime's GetConfig raises client-go's 5/10 to 20/30 for controllers.
      config.qps = kManagerDefaultQps;
      config.burst = kManagerDefaultBurst;
    }
    auto rest = client::RestClient::Create(config,
                                           client::RestClientOptions{.clock = in->clock, .metrics = in->rest_metrics});
    if (!rest.ok()) return std::move(rest).error();
    in->rest = std::move(rest).value();
  }
  cache::ReflectorOptions reflector_options;
  reflector_options.metrics = in->informer_metrics.get();
  in->mapper = std::make_unique<client::RestMapper>(std::make_shared<client::DiscoveryClient>(in->rest),
                                                    client::RestMapperOptions{}, *in->clock);
  in->factory = std::make_unique<cache::SharedInformerFactory>(
      cache::NewClientListerWatcherFactory(in->rest),
      cache::InformerFactoryOptions{.default_resync = options.sync_period,
                                    .scope = {.ns = options.ns},
                                    .transform = StripManagedFields,
                                    .reflector = reflector_options,
                                    .clock = in->clock});
  ClientOptions copts = options.client;
  copts.cache_sync_timeout = options.cache_sync_timeout;
  in->client = std::make_unique<Client>(in->rest, *in->mapper, *in->factory, copts, *in->clock);
  in->options = std::move(options);
  return std::make_unique<Manager>(std::move(in));
}

Client& Manager::GetClient() { return *in_->client; }
Result<void> Manager::IndexField(const GroupVersionResource& gvr, const std::string& field, FieldIndexFunc extract) {
  return in_->client->IndexField(gvr, field, std::move(extract));
}
cache::SharedInformerFactory& Manager::GetInformerFactory() { return *in_->factory; }
client::RestMapper& Manager::GetRestMapper() { return *in_->mapper; }
const std::shared_ptr<client::RestClient>& Manager::GetRestClient() const { return in_->rest; }
Clock& Manager::GetClock() const { return *in_->clock; }
const ManagerOptions& Manager::GetOptions() const { return in_->options; }
MetricsRegistry& Manager::GetMetricsRegistry() { return *in_->registry; }
int Manager::ProbePort() const { return in_->probe_port.load(); }

bool Manager::IsLeader() const {
  MutexLock lock(in_->mu);
  return in_->leading;
}

std::optional<leaderelection::FencingToken> Manager::GetFencingToken() const {
  MutexLock lock(in_->mu);
  if (in_->elector == nullptr || !in_->leading) return std::nullopt;
  return in_->elector->GetFencingToken();
}

Result<void> Manager::Add(std::shared_ptr<Runnable> runnable, RunnableOptions options) {
  if (runnable == nullptr) return BadRequest("manager: Add with a null runnable");
  MutexLock lock(in_->mu);
  if (in_->stopping) return CanceledError("manager: stopped");
  in_->entries.push_back(Entry{std::move(runnable), options, false});
  if (in_->started) in_->LaunchEligible();
  return {};
}

Result<void> Manager::AddController(std::shared_ptr<Controller> controller, RunnableOptions options) {
  if (controller == nullptr) return BadRequest("manager: AddController with a null controller");
  {
    MutexLock lock(in_->mu);
    if (!in_->controller_names.insert(controller->Name()).second) {
      return MakeError(409, reason::kAlreadyExists,
                       "manager: a controller named \"" + controller->Name() + "\" already exists");
    }
  }
  return Add(std::move(controller), options);
}

Result<void> Manager::ReserveControllerName(const std::string& name) {
  MutexLock lock(in_->mu);
  if (in_->controller_names.contains(name)) {
    return MakeError(409, reason::kAlreadyExists, "manager: a controller named \"" + name + "\" already exists");
  }
  return {};
}

ControllerOptions Manager::ControllerDefaults(ControllerOptions options) const {
  if (options.clock == nullptr) options.clock = in_->clock;
  if (options.metrics == nullptr) options.metrics = in_->registry.get();
  options.cache_sync_timeout = in_->options.cache_sync_timeout;
  return options;
}

namespace {
Result<void> AddCheck(std::map<std::string, HealthCheck>& checks, std::string name, HealthCheck check) {
  if (name.empty() || name.find('/') != std::string::npos) {
    return BadRequest("manager: invalid check name \"" + name + "\"");
  }
  if (!check) return BadRequest("manager: check \"" + name + "\" is empty");
  if (!checks.emplace(std::move(name), std::move(check)).second) {
    return MakeError(409, reason::kAlreadyExists, "manager: check already registered");
  }
  return {};
}

Result<void> RunChecks(const std::map<std::string, HealthCheck>& checks) {
  for (const auto& [name, check] : checks) {
    Result<void> r = InternalError("check threw");
    try {
      r = check();
    } catch (const std::exception& e) {
      r = InternalError(std::string("check threw: ") + e.what());
    }
    if (!r.ok()) {
      Error e = r.error();
      e.message = name + ": " + e.message;
      return e;
    }
  }
  return {};
}
}  // namespace

Result<void> Manager::AddHealthzCheck(std::string name, HealthCheck check) {
  MutexLock lock(in_->mu);
  if (auto r = AddCheck(in_->healthz, name, check); !r.ok()) return r;
  if (in_->probe != nullptr) return in_->probe->AddHealthzCheck(std::move(name), std::move(check));
  return {};
}

Result<void> Manager::AddReadyzCheck(std::string name, HealthCheck check) {
  MutexLock lock(in_->mu);
  if (auto r = AddCheck(in_->readyz, name, check); !r.ok()) return r;
  if (in_->probe != nullptr) return in_->probe->AddReadyzCheck(std::move(name), std::move(check));
  return {};
}

Result<void> Manager::CheckHealthz() const {
  std::map<std::string, HealthCheck> checks;
  {
    MutexLock lock(in_->mu);
    checks = in_->healthz;
  }
  return RunChecks(checks);
}

Result<void> Manager::CheckReadyz() const {
  std::map<std::string, HealthCheck> checks;
  {
    MutexLock lock(in_->mu);
    checks = in_->readyz;
  }
  return RunChecks(checks);
}

Result<void> Manager::Start(std::stop_token stop) {
  Internals& in = *in_;
  {
    MutexLock lock(in.mu);
    if (in.started) return MakeError(409, reason::kConflict, "manager: already started");
    in.started = true;
  }

  // 1. The probe endpoint, first in and last out: it answers during start-up and shutdown.
  std::unique_ptr<ProbeServer> probe;
  if (!in.options.probe_bind_address.empty()) {
    auto p = ProbeServer::Start({.bind_address = in.options.probe_bind_address,
                                 .registry = in.registry.get(),
                                 .max_request_bytes = 64 * 1024});
    if (!p.ok()) {
      MutexLock lock(in.mu);
      in.stopping = true;
      return std::move(p).error();
    }
    probe = std::move(p).value();
    in.probe_port.store(probe->port());
    MutexLock lock(in.mu);
    for (const auto& [name, check] : in.healthz) (void)probe->AddHealthzCheck(name, check);
    for (const auto& [name, check] : in.readyz) (void)probe->AddReadyzCheck(name, check);
    in.probe = probe.get();
  }

  // 2. Caches (informers created so far; later ones start when created).
  in.factory->Start();

  std::stop_callback on_user_stop(stop, [&in] { in.shutdown.request_stop(); });
  std::stop_callback on_shutdown(in.shutdown.get_token(), [&in] {
    MutexLock lock(in.mu);
    in.cv.SignalAll();
  });

  // 3. Leader election, or straight to leading.
  std::unique_ptr<leaderelection::LeaderElector> elector;
  std::jthread elector_thread;
  std::stop_source elector_stop;
  const LeaderElectionOptions& le = in.options.leader_election;
  if (le.enabled) {
    const std::string ns = !le.ns.empty() ? le.ns : (!in.options.ns.empty() ? in.options.ns : "default");
    const std::string identity = !le.identity.empty() ? le.identity : DefaultIdentity();
    leaderelection::LeaderElectionConfig cfg;
    cfg.lock = std::make_unique<leaderelection::LeaseLock>(
        client::TypedApi<leaderelection::LeaseLock::Lease>(
            client::Api(in.rest, client::ResourceOf<leaderelection::LeaseLock::Lease>(), ns)),
        le.id, identity);
    cfg.lease_duration = le.lease_duration;
    cfg.renew_deadline = le.renew_deadline;
    cfg.retry_period = le.retry_period;
    cfg.release_on_cancel = le.release_on_cancel;
    cfg.name = le.id;
    cfg.callbacks.on_started_leading = [&in](std::stop_token leading) {
      std::vector<Slot*> mine;
      {
        MutexLock lock(in.mu);
        in.leading = true;
        in.log.Info("became leader; starting leader-gated runnables");
        const std::size_t before = in.slots.size();
        in.LaunchEligible();
        for (std::size_t i = before; i < in.slots.size(); ++i) mine.push_back(in.slots[i].get());
      }
      {
        std::stop_callback wake(leading, [&in] {
          MutexLock lock(in.mu);
          in.cv.SignalAll();
        });
        MutexLock lock(in.mu);
        while (!leading.stop_requested() && !in.shutdown.stop_requested()) in.cv.Wait(in.mu);
        in.leading = false;
      }
      // Leadership over (or shutting down): leader-gated work stops acting at once.
      // The lease must not be released (or left to expire) while that work still acts.
      MutexLock lock(in.mu);
      for (auto& s : in.slots) {
        if (s->leader_gated) s->stop.request_stop();
      }
      for (Slot* s : mine) {
        while (!s->done) in.cv.Wait(in.mu);
      }
    };
    cfg.callbacks.on_stopped_leading = [&in] {
      if (!in.shutdown.stop_requested()) {
        in.log.Error("leader election lost; stopping the manager");
        MutexLock lock(in.mu);
        if (!in.first_error) in.first_error = MakeError(500, reason::kInternalError, "leader election lost");
        in.shutdown.request_stop();
      }
    };
    cfg.callbacks.on_new_leader = [&in](const std::string& id) { in.log.Info("new leader", {{"identity", id}}); };
    auto made = leaderelection::LeaderElector::Create(std::move(cfg), *in.clock);
    if (!made.ok()) {
      MutexLock lock(in.mu);
      in.stopping = true;
      in.probe = nullptr;
      return std::move(made).error();
    }
    elector = std::move(made).value();
    leaderelection::LeaderElector* e = elector.get();
    (void)AddHealthzCheck("leaderElection", [e, le] { return e->Check(le.renew_deadline); });
    {
      MutexLock lock(in.mu);
      in.elector = e;
      in.LaunchEligible();  // the runnables that do not need the lease
    }
    elector_thread = std::jthread([e, token = elector_stop.get_token()] { e->Run(token); });
  } else {
    MutexLock lock(in.mu);
    in.leading = true;
    in.LaunchEligible();
  }

  // 4. Run until stop (or a runnable error / lost election).
  {
    MutexLock lock(in.mu);
    while (!in.shutdown.stop_requested()) in.cv.Wait(in.mu);
    in.stopping = true;
    in.log.Info("stopping; waiting for runnables", {{"running", in.running}});
    for (auto& s : in.slots) s->stop.request_stop();
  }

  // 5. Graceful shutdown: wait for the runnables, bounded.
  std::optional<Error> timeout_error;
  {
    const Clock::TimePoint deadline = in.clock->Now() + in.options.graceful_shutdown_timeout;
    MutexLock lock(in.mu);
    while (in.running > 0) {
      if (in.clock->Now() >= deadline) {
        timeout_error = MakeError(504, reason::kTimeout,
                                  "manager: " + std::to_string(in.running) +
                                      " runnable(s) did not stop within the graceful shutdown timeout");
        in.log.Error(timeout_error->message);
        break;
      }
      in.clock->WaitUntil(in.cv, in.mu, deadline);
    }
  }
  // 6. The elector: its leader callback returns once the leader-gated runnables are done; then
  // it releases the lease. Before the slots go away, since that callback reads them.
  elector_stop.request_stop();
  if (elector_thread.joinable()) elector_thread.join();
  {
    MutexLock lock(in.mu);
    in.elector = nullptr;  // destroyed when Start returns
  }
  std::vector<std::unique_ptr<Slot>> slots;
  {
    MutexLock lock(in.mu);
    slots.swap(in.slots);
  }
  slots.clear();  // joins (a runnable past the timeout is still waited for: nothing is detached)

  // 7. The caches, and last the probe endpoint.
  in.factory->Shutdown();
  {
    MutexLock lock(in.mu);
    in.probe = nullptr;
    in.leading = false;
  }
  if (probe) probe->Stop();
  in.probe_port.store(0);

  MutexLock lock(in.mu);
  if (in.first_error) return *in.first_error;
  if (timeout_error) return *timeout_error;
  return {};
}

}  // namespace kube::controller
