#include <kube/cache/shared_informer.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <utility>

#include <fmt/format.h>

#include <kube/base/spin.hpp>

namespace kube::cache {
namespace {
// How long a handler thread spins for the next notification before it parks (see Loop).
constexpr std::chrono::microseconds kListenerSpin{20};
// Most keys the informer pops from its DeltaFIFO at once (see DeltaFifo::PopBatch): long enough
// to amortise the lock round trips and to keep up with the initial Replace (256 synced 100k
// objects 10-20% slower), short enough that AddEventHandler, which waits for the batch's end,
// is held up for about a millisecond at most.
constexpr std::size_t kPopBatch = 1024;
}  // namespace

struct SharedIndexInformer::Notification {
  enum class Kind { kAdd, kUpdate, kDelete };
  Kind kind = Kind::kAdd;
  ObjectPtr obj;
  ObjectPtr old_obj;               // kUpdate only
  bool is_in_initial_list = false; // kAdd only
  bool final_state_unknown = false;// kDelete only
};

// One handler: an unbounded FIFO of notifications drained by its own thread.
class SharedIndexInformer::Listener final : public HandlerRegistration {
 public:
  Listener(std::shared_ptr<ResourceEventHandler> handler, Clock::Duration resync,
           const SharedIndexInformer& informer)
      : resync_period(resync), handler_(std::move(handler)), informer_(informer) {}

  ~Listener() override { Stop(); }

  void Start() {
    thread_ = std::jthread([this](std::stop_token stop) { Loop(stop); });
  }

  void Stop() {
    if (thread_.joinable()) {
      thread_.request_stop();
      {
        MutexLock lock(mu_);
        cv_.SignalAll();
      }
      thread_.join();
    }
  }

  // Queues `n` for the next Flush. Called only under the informer's listeners_mu_, which
  // guards staged_ (the analysis cannot name it from here).
  void Stage(Notification n) { staged_.push_back(std::move(n)); }

  // Hands everything staged to the handler thread in one lock round trip.
  void Flush() {
    if (staged_.empty()) return;
    {
      MutexLock lock(mu_);
      for (Notification& n : staged_) {
        if (n.kind == Notification::Kind::kAdd && n.is_in_initial_list) ++pending_initial_;
        buffer_.push_back(std::move(n));
      }
      buffered_.store(true, std::memory_order_relaxed);
      // The handler thread waits only on an empty buffer (it takes the whole buffer at once), so
      // one signal covers the whole flush.
      if (waiting_) cv_.SignalAll();
    }
    staged_.clear();
  }

  bool HasSynced() const override {
    if (!informer_.HasSynced()) return false;
    MutexLock lock(mu_);
    return pending_initial_ == 0;
  }

  int64_t HandlerErrors() const override {
    MutexLock lock(mu_);
    return errors_;
  }

  void OnSynced(std::function<void()> fn) override {
    if (!fn) return;
    {
      MutexLock lock(mu_);
      if (!synced_) {
        on_synced_.push_back(std::move(fn));
        fn = nullptr;
      }
    }
    if (fn) {
      fn();
      return;
    }
    MaybeNotifySynced();
  }

  // Latches synced_ and runs the OnSynced callbacks once HasSynced holds. Called whenever one
  // of its two conditions may have become true: the informer synced (NotifyIfSynced), the last
  // initial notification was handled (Loop), and at Loop start / OnSynced for late listeners.
  void MaybeNotifySynced() {
    // Read before taking our lock, so that no other lock is ever taken under it. It only goes
    // from false to true.
    const bool informer_synced = informer_.HasSynced();
    std::vector<std::function<void()>> callbacks;
    {
      MutexLock lock(mu_);
      if (synced_ || !informer_synced || pending_initial_ != 0) return;
      synced_ = true;
      callbacks.swap(on_synced_);
    }
    for (auto& fn : callbacks) fn();
  }

  // Resync bookkeeping, guarded by the informer's listeners_mu_.
  Clock::Duration resync_period;
  Clock::TimePoint next_resync{};

 private:
  void Loop(std::stop_token stop) {
    MaybeNotifySynced();
    std::deque<Notification> batch;
    while (true) {
      // Spin briefly for the next notification before parking (see DeltaFifo::Pop): the FIFO's
      // thread need not wake us across CPUs for each one.
      if (!buffered_.load(std::memory_order_relaxed)) {
        SpinFor(kListenerSpin, [this] { return buffered_.load(std::memory_order_relaxed); });
      }
      {
        MutexLock lock(mu_);
        while (buffer_.empty() && !stop.stop_requested()) {
          waiting_ = true;
          cv_.Wait(mu_);
          waiting_ = false;
        }
        if (stop.stop_requested()) return;
        // Everything buffered so far in one lock round trip (the deques swap their storage).
        batch.swap(buffer_);
        buffered_.store(false, std::memory_order_relaxed);
      }
      // Bookkeeping is applied once per slice of the batch, not once per notification: the
      // FIFO's thread takes mu_ for every notification it adds, and during an initial sync a
      // lock round trip per handled add made the two threads contend on it.
      Tally tally;
      while (!batch.empty()) {
        // Removal stops the thread after the notification in progress.
        if (stop.stop_requested()) return Apply(tally);
        const Notification n = std::move(batch.front());
        batch.pop_front();
        Deliver(n, tally);
        if (tally.handled == kTallySlice) Apply(std::exchange(tally, Tally{}));
      }
      Apply(tally);
    }
  }

  // Notifications handled since the bookkeeping was last applied.
  struct Tally {
    int64_t handled = 0;
    int64_t initial = 0;  // handled adds that were in the initial list
    int64_t errors = 0;   // handler calls that threw
  };
  // Applied at least this often within a large batch (so HasSynced does not wait for its end).
  static constexpr int64_t kTallySlice = 256;

  // Records `t` (pending initial notifications, errors) and notifies synced when it is due.
  void Apply(const Tally& t) {
    if (t.initial == 0 && t.errors == 0) return;  // nothing to record: no lock round trip
    bool check_synced = false;
    {
      MutexLock lock(mu_);
      errors_ += t.errors;
      pending_initial_ -= t.initial;
      check_synced = !synced_ && pending_initial_ == 0;
    }
    if (check_synced) MaybeNotifySynced();
  }

  // Runs the handler for `n` without any lock held and counts it in `tally`.
  void Deliver(const Notification& n, Tally& tally) {
    bool failed = false;
    try {
      switch (n.kind) {
        case Notification::Kind::kAdd: handler_->OnAdd(n.obj, n.is_in_initial_list); break;
        case Notification::Kind::kUpdate: handler_->OnUpdate(n.old_obj, n.obj); break;
        case Notification::Kind::kDelete: handler_->OnDelete(n.obj, n.final_state_unknown); break;
      }
    } catch (const std::exception& e) {
      failed = true;
      log::Error("event handler threw", {{"informer", informer_.Name()}, {"error", e.what()}});
    } catch (...) {
      failed = true;
      log::Error("event handler threw a non-standard exception", {{"informer", informer_.Name()}});
    }
    ++tally.handled;
    if (n.kind == Notification::Kind::kAdd && n.is_in_initial_list) ++tally.initial;
    if (failed) ++tally.errors;
  }

  std::shared_ptr<ResourceEventHandler> handler_;
  const SharedIndexInformer& informer_;
  mutable Mutex mu_;
  CondVar cv_;
  std::deque<Notification> buffer_ KUBE_GUARDED_BY(mu_);
  bool waiting_ KUBE_GUARDED_BY(mu_) = false;  // the handler thread is blocked on cv_
  std::atomic<bool> buffered_{false};  // !buffer_.empty(), readable without the lock
  int64_t pending_initial_ KUBE_GUARDED_BY(mu_) = 0;
  int64_t errors_ KUBE_GUARDED_BY(mu_) = 0;
  bool synced_ KUBE_GUARDED_BY(mu_) = false;  // latched: HasSynced held once
  std::vector<std::function<void()>> on_synced_ KUBE_GUARDED_BY(mu_);  // run when synced_ is set
  std::vector<Notification> staged_;  // guarded by the informer's listeners_mu_ (see Stage)
  std::jthread thread_;
};

// Feeds the DeltaFIFO from the reflector; the reflector has passed every object through
// Prepare (transform, then decoders) as it arrived. A list's items are decoded on the decode
// thread (DecodeLoop, run by the informer when it has decoders) while the reflector parses the
// next ones; Replace waits for them, so handlers find every item decoded.
class SharedIndexInformer::StoreAdapter final : public ReflectorStore {
 public:
  explicit StoreAdapter(SharedIndexInformer& informer) : informer_(informer) {}
  ObjectPtr Prepare(ObjectPtr obj, bool in_list) override {
    obj = T(obj);
    // A watch event's object is left to its first typed reader, a handler on its own thread:
    // decoding it here would put parse and decode of each event on one thread.
    if (!obj || !in_list || informer_.decoders_.empty()) return obj;
    MutexLock lock(mu_);
    queue_.push_back(obj);
    if (idle_) cv_.SignalAll();
    return obj;
  }
  Result<void> Add(const ObjectPtr& obj) override { return Notify(informer_.fifo_.Add(obj)); }
  Result<void> Update(const ObjectPtr& obj) override { return Notify(informer_.fifo_.Update(obj)); }
  Result<void> Delete(const ObjectPtr& obj) override { return Notify(informer_.fifo_.Delete(obj)); }
  Result<void> Replace(std::vector<ObjectPtr> list, std::string_view rv) override {
    // The store will hold about this many objects once the deltas are processed: size it once
    // rather than in doubling steps while they are popped.
    informer_.indexer_.Reserve(list.size());
    WaitDecoded();
    // The FIFO takes over the list's references: no reference-count traffic per object.
    return Notify(informer_.fifo_.Replace(std::move(list), rv));
  }

  // Decodes queued list items until `stop`, then what is still queued.
  void DecodeLoop(std::stop_token stop) KUBE_EXCLUDES(mu_) {
    std::stop_callback wake(stop, [this] {
      MutexLock lock(mu_);
      cv_.SignalAll();
    });
    std::vector<ObjectPtr> batch;
    for (;;) {
      {
        MutexLock lock(mu_);
        busy_ = false;
        cv_.SignalAll();  // WaitDecoded
        while (queue_.empty() && !stop.stop_requested()) {
          idle_ = true;
          cv_.Wait(mu_);
          idle_ = false;
        }
        if (queue_.empty()) return;
        batch.swap(queue_);
        busy_ = true;
      }
      for (const ObjectPtr& obj : batch) Decode(obj);
      batch.clear();
    }
  }

 private:
  void Decode(const ObjectPtr& obj) {
    for (const auto& [key, decode] : informer_.decoders_) decode(obj);
  }
  void WaitDecoded() KUBE_EXCLUDES(mu_) {
    MutexLock lock(mu_);
    while (!queue_.empty() || busy_) cv_.Wait(mu_);
  }

  // An empty first list syncs the FIFO here, with nothing for Pop to hand out.
  Result<void> Notify(Result<void> r) {
    informer_.NotifyIfSynced();
    return r;
  }
  ObjectPtr T(const ObjectPtr& obj) const {
    if (!informer_.transform_ || !obj) return obj;
    try {
      ObjectPtr out = informer_.transform_(obj);
      return out ? out : obj;
    } catch (...) {
      log::Error("transform threw; storing the object untransformed", {{"informer", informer_.Name()}});
      return obj;
    }
  }
  SharedIndexInformer& informer_;
  Mutex mu_;
  CondVar cv_;
  std::vector<ObjectPtr> queue_ KUBE_GUARDED_BY(mu_);  // list items to decode
  bool busy_ KUBE_GUARDED_BY(mu_) = false;             // the decode thread holds a batch
  bool idle_ KUBE_GUARDED_BY(mu_) = false;             // the decode thread waits for items
};

SharedIndexInformer::SharedIndexInformer(std::shared_ptr<ListerWatcher> lw, InformerOptions options)
    : options_(std::move(options)),
      clock_(options_.clock ? *options_.clock : RealClock::Instance()),
      log_(log::Logger("informer").With("name", options_.name)),
      lw_(std::move(lw)),
      indexer_(options_.indexers),
      fifo_(DeltaFifoOptions{.key_func = {}, .known_objects = &indexer_, .emit_replaced = true}),
      transform_(options_.transform) {
  store_adapter_ = std::make_unique<StoreAdapter>(*this);
  ReflectorOptions ropts = options_.reflector;
  if (ropts.name == "reflector") ropts.name = options_.name;
  if (ropts.clock == nullptr) ropts.clock = &clock_;
  if (ropts.metrics != nullptr) store_items_ = ropts.metrics->NewStoreItemsMetric(ropts.name);
  reflector_ = std::make_unique<Reflector>(*lw_, *store_adapter_, std::move(ropts));
}

SharedIndexInformer::~SharedIndexInformer() {
  std::vector<std::shared_ptr<Listener>> listeners;
  {
    MutexLock lock(listeners_mu_);
    listeners.swap(listeners_);
  }
  for (auto& l : listeners) l->Stop();
}

Result<std::shared_ptr<HandlerRegistration>> SharedIndexInformer::AddEventHandler(
    std::shared_ptr<ResourceEventHandler> handler, std::optional<Clock::Duration> resync) {
  if (!handler) return BadRequest("AddEventHandler: null handler");
  Clock::Duration period = resync.value_or(options_.default_resync);
  if (period > Clock::Duration::zero() && period < std::chrono::seconds(1)) period = std::chrono::seconds(1);
  auto listener = std::make_shared<Listener>(std::move(handler), period, *this);
  MutexLock lock(listeners_mu_);
  if (stopped_) return CanceledError("informer has stopped; handler not added");
  if (period > Clock::Duration::zero()) listener->next_resync = clock_.Now() + period;
  listeners_.push_back(listener);
  if (started_) {
    // Holding listeners_mu_ blocks delta distribution, so the synthetic adds are exactly the
    // cache content and later deltas follow them.
    for (const auto& obj : indexer_.List()) {
      listener->Stage(Notification{Notification::Kind::kAdd, obj, nullptr, true, false});
    }
    listener->Flush();
    listener->Start();
  }
  listeners_changed_.SignalAll();
  return std::shared_ptr<HandlerRegistration>(listener);
}

Result<void> SharedIndexInformer::RemoveEventHandler(const std::shared_ptr<HandlerRegistration>& registration) {
  std::shared_ptr<Listener> removed;
  {
    MutexLock lock(listeners_mu_);
    auto it = std::find_if(listeners_.begin(), listeners_.end(),
                           [&](const std::shared_ptr<Listener>& l) { return l.get() == registration.get(); });
    if (it == listeners_.end()) return MakeError(404, reason::kNotFound, "handler registration not found");
    removed = *it;
    listeners_.erase(it);
    syncing_.erase(std::remove(syncing_.begin(), syncing_.end(), removed.get()), syncing_.end());
  }
  removed->Stop();
  return Ok();
}

Result<void> SharedIndexInformer::SetTransform(TransformFunc transform) {
  MutexLock lock(listeners_mu_);
  if (started_) return MakeError(409, reason::kConflict, "informer has already started");
  transform_ = std::move(transform);
  return Ok();
}

Result<void> SharedIndexInformer::AddIndexersBeforeStart(const Indexers& indexers) {
  // Run sets started_ under listeners_mu_: holding it, the informer cannot start in between.
  MutexLock lock(listeners_mu_);
  if (started_) return MakeError(409, reason::kConflict, "informer has already started");
  return indexer_.AddIndexers(indexers);
}

bool SharedIndexInformer::AddDecoder(const void* key, std::function<void(const ObjectPtr&)> decode) {
  MutexLock lock(listeners_mu_);
  if (started_) return false;
  for (const auto& d : decoders_) {
    if (d.first == key) return true;
  }
  decoders_.emplace_back(key, std::move(decode));
  return true;
}

bool SharedIndexInformer::HasSynced() const { return fifo_.HasSynced(); }

void SharedIndexInformer::NotifyIfSynced() {
  if (sync_announced_.load(std::memory_order_acquire) || !fifo_.HasSynced()) return;
  if (sync_announced_.exchange(true)) return;
  // A listener added after this copy sees the informer synced when its thread starts.
  std::vector<std::shared_ptr<Listener>> listeners;
  {
    MutexLock lock(listeners_mu_);
    listeners = listeners_;
  }
  for (auto& l : listeners) l->MaybeNotifySynced();
}

bool SharedIndexInformer::IsStopped() const {
  MutexLock lock(listeners_mu_);
  return stopped_;
}

std::string SharedIndexInformer::LastSyncResourceVersion() const {
  return reflector_->LastSyncResourceVersion();
}

void SharedIndexInformer::Distribute(Notification&& n, bool sync) {
  // Copies for all listeners but the last, which gets `n` itself (one handler: no copy).
  const auto stage = [&n](auto& targets) {
    const std::size_t count = targets.size();
    for (std::size_t i = 0; i < count; ++i) {
      if (i + 1 == count) {
        targets[i]->Stage(std::move(n));
      } else {
        targets[i]->Stage(n);
      }
    }
  };
  if (sync) {
    stage(syncing_);
  } else {
    stage(listeners_);
  }
}

void SharedIndexInformer::HandleBatch(std::span<PoppedDeltas> batch) {
  MutexLock lock(listeners_mu_);
  for (PoppedDeltas& p : batch) p.result = HandleDeltasLocked(p.deltas, p.is_in_initial_list);
  // syncing_ is a subset of listeners_.
  for (const auto& l : listeners_) l->Flush();
}

ProcessResult SharedIndexInformer::HandleDeltasLocked(Deltas& deltas, bool is_in_initial_list) {
  for (Delta& d : deltas) {
    switch (d.type) {
      case DeltaType::kSync:
      case DeltaType::kReplaced:
      case DeltaType::kAdded:
      case DeltaType::kUpdated: {
        if (!d.object) break;
        // One writer lock reads the previous state and stores the new one.
        ObjectPtr old = indexer_.Upsert(d.object);
        if (old) {
          // A relist that returns an object unchanged is a resync, not an update.
          const bool sync = d.type == DeltaType::kSync ||
                            (d.type == DeltaType::kReplaced && old->ResourceVersion() == d.object->ResourceVersion());
          Distribute(Notification{Notification::Kind::kUpdate, std::move(d.object), std::move(old), false, false}, sync);
        } else {
          Distribute(Notification{Notification::Kind::kAdd, std::move(d.object), nullptr, is_in_initial_list, false},
                     false);
        }
        break;
      }
      case DeltaType::kDeleted: {
        if (d.tombstone) {
          indexer_.DeleteKey(d.tombstone->key);
        } else if (d.object) {
          indexer_.Delete(*d.object);
        }
        Distribute(Notification{Notification::Kind::kDelete, std::move(d.object), nullptr, false, d.FinalStateUnknown()},
                   false);
        break;
      }
    }
  }
  return ProcessResult{};
}

bool SharedIndexInformer::ShouldResync() {
  MutexLock lock(listeners_mu_);
  const auto now = clock_.Now();
  syncing_.clear();
  for (const auto& l : listeners_) {
    if (l->resync_period <= Clock::Duration::zero()) continue;
    if (now >= l->next_resync) {
      syncing_.push_back(l.get());
      l->next_resync = now + l->resync_period;
    }
  }
  return !syncing_.empty();
}

void SharedIndexInformer::ResyncLoop(std::stop_token stop) {
  std::stop_callback wake(stop, [this] {
    MutexLock lock(listeners_mu_);
    listeners_changed_.SignalAll();
  });
  while (!stop.stop_requested()) {
    {
      MutexLock lock(listeners_mu_);
      // Checked again under the lock: the stop callback signals under it, so a stop requested
      // after the loop condition is either seen here or wakes the wait below (no lost wake-up).
      if (stop.stop_requested()) return;
      auto next = Clock::TimePoint::max();
      for (const auto& l : listeners_) {
        if (l->resync_period > Clock::Duration::zero()) next = std::min(next, l->next_resync);
      }
      if (clock_.Now() < next) {
        clock_.WaitUntil(listeners_changed_, listeners_mu_, next);
        continue;  // re-evaluate: a handler may have been added, or time has come
      }
    }
    if (ShouldResync()) {
      auto r = fifo_.Resync();
      if (!r.ok()) log_.Warn("resync failed", {{"error", r.error().ToString()}});
    }
  }
}

void SharedIndexInformer::Run(std::stop_token stop) {
  std::vector<std::shared_ptr<Listener>> to_start;
  {
    MutexLock lock(listeners_mu_);
    if (started_) return;
    started_ = true;
    to_start = listeners_;
  }
  for (auto& l : to_start) l->Start();
  // Decoders registered (before start, so no lock): a thread decodes list items beside the
  // reflector. It outlives the reflector, whose Replace waits for it.
  std::jthread decode_thread;
  if (!decoders_.empty()) decode_thread = std::jthread([this](std::stop_token st) { store_adapter_->DecodeLoop(st); });
  std::jthread reflector_thread([this](std::stop_token st) { reflector_->Run(st); });
  std::jthread resync_thread([this](std::stop_token st) { ResyncLoop(st); });
  {
    std::stop_callback close_fifo(stop, [this] { fifo_.Close(); });
    while (!stop.stop_requested()) {
      auto popped = fifo_.PopBatch(kPopBatch, [this](std::span<PoppedDeltas> batch) { HandleBatch(batch); });
      if (!popped.ok() && fifo_.IsClosed()) break;
      if (store_items_) store_items_->Set(static_cast<double>(indexer_.Size()));
      NotifyIfSynced();
    }
  }
  reflector_thread.request_stop();
  resync_thread.request_stop();
  reflector_thread.join();
  resync_thread.join();
  if (decode_thread.joinable()) {
    decode_thread.request_stop();
    decode_thread.join();
  }
  std::vector<std::shared_ptr<Listener>> listeners;
  {
    MutexLock lock(listeners_mu_);
    stopped_ = true;
    listeners = listeners_;
  }
  for (auto& l : listeners) l->Stop();
}

}  // namespace kube::cache
