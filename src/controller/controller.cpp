#include <kube/controller/controller.hpp>

#include <exception>
#include <utility>

#include <kube/base/error.hpp>

namespace kube::controller {
namespace {

// Wakes Start's wait for the sources' sync. Shared with the sources' sync callbacks, which may
// run after Start returned.
struct SyncSignal {
  Mutex mu;
  CondVar cv;
};

std::unique_ptr<workqueue::RateLimiter<Request>> MakeLimiter(const ControllerOptions& o, Clock& clock) {
  if (o.rate_limiter) {
    auto limiter = o.rate_limiter(clock);
    if (limiter != nullptr) return limiter;
  }
  return workqueue::DefaultControllerRateLimiter<Request>(clock);
}

double Seconds(Clock::Duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

Result<std::shared_ptr<Controller>> Controller::Create(ControllerOptions options,
                                                       std::shared_ptr<Reconciler> reconciler) {
  if (options.name.empty()) return BadRequest("controller: options.name is required");
  if (options.max_concurrent_reconciles < 1) {
    return BadRequest("controller " + options.name + ": max_concurrent_reconciles must be >= 1");
  }
  if (reconciler == nullptr) return BadRequest("controller " + options.name + ": reconciler is null");
  if (options.reconcile_timeout && *options.reconcile_timeout <= Clock::Duration::zero()) {
    return BadRequest("controller " + options.name + ": reconcile_timeout must be positive");
  }
  return std::make_shared<Controller>(PrivateTag{}, std::move(options), std::move(reconciler));
}

Controller::Controller(PrivateTag, ControllerOptions options, std::shared_ptr<Reconciler> reconciler)
    : options_(std::move(options)),
      clock_(options_.clock != nullptr ? *options_.clock : RealClock::Instance()),
      reconciler_(std::move(reconciler)),
      queue_metrics_(options_.metrics != nullptr ? NewWorkqueueMetricsProvider(*options_.metrics) : nullptr),
      metrics_(options_.metrics != nullptr
                   ? std::make_unique<ControllerMetrics>(*options_.metrics, options_.name)
                   : nullptr),
      queue_(std::make_shared<Queue>(
          MakeLimiter(options_, clock_),
          workqueue::QueueOptions{.name = options_.name, .metrics_provider = queue_metrics_.get()},
          clock_)),
      log_(log::Logger("controller").With("controller", options_.name)) {}

Controller::~Controller() {
  queue_->ShutDown();
  StopSources();
}

Result<void> Controller::Watch(std::shared_ptr<Source> source, std::shared_ptr<EventHandler> handler,
                               std::vector<Predicate> predicates) {
  if (source == nullptr) return BadRequest("controller " + Name() + ": Watch with a null source");
  if (handler == nullptr) return BadRequest("controller " + Name() + ": Watch with a null handler");
  auto dispatcher = std::make_shared<const EventDispatcher>(std::move(handler), std::move(predicates), queue_);
  bool start_now = false;
  {
    MutexLock lock(mu_);
    if (stopped_) return CanceledError("controller " + Name() + ": stopped");
    watches_.push_back(Watched{source, dispatcher});
    start_now = started_;
  }
  if (start_now) return source->Start(dispatcher);
  return {};
}

bool Controller::WaitForSourcesSynced(const std::vector<Watched>& watches, std::stop_token stop) {
  auto signal = std::make_shared<SyncSignal>();
  auto wake = [signal] {
    MutexLock lock(signal->mu);
    signal->cv.SignalAll();
  };
  for (const auto& w : watches) w.source->OnSynced(wake);
  std::stop_callback on_stop(stop, wake);
  const bool bounded = options_.cache_sync_timeout > Clock::Duration::zero();
  const Clock::TimePoint deadline =
      bounded ? clock_.Now() + options_.cache_sync_timeout : Clock::TimePoint::max();
  MutexLock lock(signal->mu);
  auto all_synced = [&watches] {
    for (const auto& w : watches) {
      if (!w.source->HasSynced()) return false;
    }
    return true;
  };
  // Every wake-up takes signal->mu: a check made under it cannot miss a sync that follows it.
  // Sources added by Watch after Start are not waited for (as in controller-runtime).
  while (!all_synced()) {
    if (stop.stop_requested()) return false;
    if (bounded && clock_.Now() >= deadline) return false;
    clock_.WaitUntil(signal->cv, signal->mu, deadline);
  }
  return true;
}

void Controller::StopSources() {
  std::vector<std::shared_ptr<Source>> sources;
  {
    MutexLock lock(mu_);
    for (const auto& w : watches_) sources.push_back(w.source);
  }
  for (const auto& s : sources) s->Stop();
}

Result<void> Controller::Start(std::stop_token stop) {
  std::vector<Watched> watches;
  {
    MutexLock lock(mu_);
    if (started_) return MakeError(409, reason::kConflict, "controller " + Name() + ": already started");
    started_ = true;
    watches = watches_;
  }
  auto finish = [this] {
    queue_->ShutDown();
    StopSources();
    MutexLock lock(mu_);
    stopped_ = true;
  };
  if (metrics_ != nullptr) metrics_->SetMaxConcurrentReconciles(options_.max_concurrent_reconciles);
  log_.Info("Starting EventSource", {{"sources", watches.size()}});
  for (const auto& w : watches) {
    if (auto r = w.source->Start(w.dispatcher); !r.ok()) {
      log_.Error("could not start source", {{"source", w.source->String()}, {"error", r.error().ToString()}});
      finish();
      return r;
    }
  }

  // Wait for the sources' initial state: workers started earlier would reconcile against a
  // partial cache (and, e.g., create objects that already exist). The sources wake the wait
  // when they sync; nothing polls.
  if (!WaitForSourcesSynced(watches, stop)) {
    const bool timed_out = !stop.stop_requested();
    finish();
    if (!timed_out) return {};
    return MakeError(504, reason::kTimeout, "controller " + Name() + ": timed out waiting for cache to be synced");
  }

  log_.Info("Starting workers", {{"worker count", options_.max_concurrent_reconciles}});
  {
    // On stop: nothing new starts (workers skip what they get), running reconciles see their
    // ctx.stop, and the queue wakes the idle workers.
    std::stop_callback on_stop(stop, [this] {
      stopping_.store(true);
      in_flight_stop_.request_stop();
      queue_->ShutDown();
    });
    std::jthread timeouts;
    if (options_.reconcile_timeout) {
      timeouts = std::jthread([this](std::stop_token st) { TimeoutLoop(st); });
    }
    {
      std::vector<std::jthread> workers;
      workers.reserve(static_cast<std::size_t>(options_.max_concurrent_reconciles));
      for (int i = 0; i < options_.max_concurrent_reconciles; ++i) {
        workers.emplace_back([this](std::stop_token st) { Worker(st); });
      }
      // The workers return once the queue is shut down; joining them here means every
      // in-flight reconcile has finished before Start returns.
    }
    if (timeouts.joinable()) {
      timeouts.request_stop();
      {
        MutexLock lock(timeout_mu_);
        timeout_cv_.SignalAll();
      }
      timeouts.join();
    }
  }
  log_.Info("All workers finished");
  finish();
  return {};
}

void Controller::Worker(std::stop_token) {
  while (auto item = queue_->Get()) {
    // After stop the queue may still hand out what it held; none of it starts.
    if (!stopping_.load()) ProcessOne(*item, in_flight_stop_.get_token());
    queue_->Done(std::move(*item));
  }
}

void Controller::ProcessOne(const Request& request, std::stop_token shutdown) {
  const std::uint64_t id = next_reconcile_id_.fetch_add(1);
  ReconcileContext ctx{
      .stop = shutdown,
      .log = log_.With("namespace", request.key.ns)
                 .With("name", request.key.name)
                 .With("reconcileID", std::to_string(id)),
      .controller = Name(),
      .reconcile_id = id,
  };
  std::shared_ptr<Deadline> deadline;
  std::optional<std::stop_callback<std::function<void()>>> forward_shutdown;
  if (options_.reconcile_timeout) {
    deadline = std::make_shared<Deadline>();
    deadline->at = clock_.Now() + *options_.reconcile_timeout;
    ctx.stop = deadline->source.get_token();
    std::stop_source src = deadline->source;
    forward_shutdown.emplace(shutdown, std::function<void()>([src]() mutable { src.request_stop(); }));
    MutexLock lock(timeout_mu_);
    deadlines_.push_back(deadline);
    timeout_cv_.SignalAll();
  }

  active_workers_.fetch_add(1);
  if (metrics_ != nullptr) metrics_->AddActiveWorkers(1);
  const Clock::TimePoint started = clock_.Now();

  Result<ReconcileResult> result = ReconcileResult{};
  bool panicked = false;
  if (options_.recover_exceptions) {
    try {
      result = reconciler_->Reconcile(ctx, request);
    } catch (const std::exception& e) {
      panicked = true;
      result = InternalError(std::string("reconciler threw: ") + e.what());
    } catch (...) {
      panicked = true;
      result = InternalError("reconciler threw a non-standard exception");
    }
  } else {
    result = reconciler_->Reconcile(ctx, request);
  }
  const Clock::Duration took = clock_.Since(started);

  bool timed_out = false;
  if (deadline) {
    MutexLock lock(timeout_mu_);
    timed_out = deadline->fired;
    std::erase(deadlines_, deadline);
  }
  forward_shutdown.reset();
  if (panicked) {
    panics_.fetch_add(1);
    ctx.log.Error("Observed an exception in Reconcile", {{"error", result.error().message}});
  }

  const Outcome outcome = Handle(request, result, timed_out, ctx.log);
  ReconcileOutcome label = ReconcileOutcome::kSuccess;
  switch (outcome) {
    case Outcome::kSuccess:
      successes_.fetch_add(1);
      label = ReconcileOutcome::kSuccess;
      break;
    case Outcome::kRequeueAfter:
      requeue_afters_.fetch_add(1);
      label = ReconcileOutcome::kRequeueAfter;
      break;
    case Outcome::kError:
      errors_.fetch_add(1);
      label = ReconcileOutcome::kError;
      break;
    case Outcome::kTerminalError:
      terminal_errors_.fetch_add(1);
      label = ReconcileOutcome::kError;
      break;
  }
  reconciles_.fetch_add(1);
  active_workers_.fetch_sub(1);
  if (metrics_ != nullptr) {
    metrics_->ObserveReconcile(label, Seconds(took));
    if (outcome == Outcome::kTerminalError) metrics_->RecordTerminalError();
    if (panicked) metrics_->RecordPanic();
    metrics_->AddActiveWorkers(-1);
  }
}

Controller::Outcome Controller::Handle(const Request& request, const Result<ReconcileResult>& result,
                                    bool timed_out, const log::Logger& log) {
  if (!result.ok()) {
    if (IsTerminal(result.error())) {
      log.Error("Reconciler returned a terminal error; not retrying",
                {{"error", result.error().ToString()}});
      queue_->Forget(request);
      return Outcome::kTerminalError;
    }
    log.Error("Reconciler error", {{"error", result.error().ToString()},
                                   {"retries", queue_->NumRequeues(request)}});
    queue_->AddRateLimited(request);
    return Outcome::kError;
  }
  if (timed_out) {
    log.Error("Reconcile exceeded its timeout", {{"timeout", options_.reconcile_timeout->count()}});
    queue_->AddRateLimited(request);
    return Outcome::kError;
  }
  queue_->Forget(request);
  if (!result->IsDone()) {
    queue_->AddAfter(request, result->requeue_after);
    return Outcome::kRequeueAfter;
  }
  return Outcome::kSuccess;
}

void Controller::TimeoutLoop(std::stop_token stop) {
  while (true) {
    std::vector<std::shared_ptr<Deadline>> expired;
    {
      MutexLock lock(timeout_mu_);
      if (stop.stop_requested()) return;
      const Clock::TimePoint now = clock_.Now();
      Clock::TimePoint earliest = Clock::TimePoint::max();
      for (const auto& d : deadlines_) {
        if (d->fired) continue;
        if (d->at <= now) {
          d->fired = true;
          expired.push_back(d);
        } else if (d->at < earliest) {
          earliest = d->at;
        }
      }
      if (expired.empty()) {
        clock_.WaitUntil(timeout_cv_, timeout_mu_, earliest);
        continue;
      }
    }
    // Outside the lock: request_stop runs the reconcilers' stop callbacks.
    for (const auto& d : expired) d->source.request_stop();
  }
}

ControllerStats Controller::Stats() const {
  return ControllerStats{
      .reconciles = reconciles_.load(),
      .successes = successes_.load(),
      .requeue_afters = requeue_afters_.load(),
      .errors = errors_.load(),
      .terminal_errors = terminal_errors_.load(),
      .panics = panics_.load(),
      .active_workers = active_workers_.load(),
  };
}

}  // namespace kube::controller
