#include <kube/controller/source.hpp>

#include <cassert>
#include <optional>
#include <utility>

namespace kube::controller {

EventDispatcher::EventDispatcher(std::shared_ptr<EventHandler> handler, std::vector<Predicate> predicates,
                                 std::shared_ptr<Queue> queue)
    : handler_(std::move(handler)), predicates_(std::move(predicates)), queue_(std::move(queue)) {
  assert(handler_ != nullptr && queue_ != nullptr);
}

void EventDispatcher::OnCreate(const CreateEvent& e) const {
  for (const Predicate& p : predicates_) {
    if (!p.Create(e)) return;
  }
  handler_->Create(e, *queue_);
}

void EventDispatcher::OnUpdate(const UpdateEvent& e) const {
  for (const Predicate& p : predicates_) {
    if (!p.Update(e)) return;
  }
  handler_->Update(e, *queue_);
}

void EventDispatcher::OnDelete(const DeleteEvent& e) const {
  for (const Predicate& p : predicates_) {
    if (!p.Delete(e)) return;
  }
  handler_->Delete(e, *queue_);
}

void EventDispatcher::OnGeneric(const GenericEvent& e) const {
  for (const Predicate& p : predicates_) {
    if (!p.Generic(e)) return;
  }
  handler_->Generic(e, *queue_);
}

namespace {

// Watches one informer: each Start adds one informer handler feeding one dispatcher.
class KindSource final : public Source {
 public:
  KindSource(cache::SharedInformerFactory* factory, GroupVersionResource gvr,
             std::optional<cache::InformerScope> scope, cache::SharedIndexInformer* informer)
      : factory_(factory), gvr_(std::move(gvr)), scope_(std::move(scope)), informer_(informer) {}

  ~KindSource() override { Stop(); }

  Result<void> Start(std::shared_ptr<const EventDispatcher> dispatcher) override {
    cache::SharedIndexInformer& informer = Informer();
    auto handler = std::make_shared<cache::ResourceEventHandlerFuncs>();
    handler->add = [dispatcher](const ObjectPtr& obj, bool initial) {
      if (obj != nullptr) dispatcher->OnCreate({.object = obj, .is_in_initial_list = initial});
    };
    handler->update = [dispatcher](const ObjectPtr& old_obj, const ObjectPtr& new_obj) {
      if (old_obj != nullptr && new_obj != nullptr) {
        dispatcher->OnUpdate({.old_object = old_obj, .new_object = new_obj});
      }
    };
    handler->del = [dispatcher](const ObjectPtr& obj, bool unknown) {
      dispatcher->OnDelete({.object = obj, .delete_state_unknown = unknown});
    };
    auto reg = informer.AddEventHandler(std::move(handler));
    if (!reg.ok()) return std::move(reg).error();
    std::vector<std::function<void()>> observers;
    {
      MutexLock lock(mu_);
      registrations_.push_back(*reg);
      started_informer_ = &informer;
      observers = sync_observers_;
    }
    // Outside mu_: a registration that already synced calls the observer at once.
    for (auto& fn : observers) (*reg)->OnSynced(fn);
    // Informers created after the factory started start at once; otherwise this starts them.
    if (factory_ != nullptr) factory_->Start();
    return {};
  }

  bool HasSynced() const override {
    MutexLock lock(mu_);
    if (registrations_.empty()) return false;
    for (const auto& r : registrations_) {
      if (!r->HasSynced()) return false;
    }
    return true;
  }

  void OnSynced(std::function<void()> notify) override {
    if (!notify) return;
    std::vector<std::shared_ptr<cache::HandlerRegistration>> regs;
    {
      MutexLock lock(mu_);
      sync_observers_.push_back(notify);
      regs = registrations_;
    }
    // Each registration calls it once when it syncs; HasSynced needs all of them.
    for (const auto& r : regs) r->OnSynced(notify);
  }

  void Stop() override {
    std::vector<std::shared_ptr<cache::HandlerRegistration>> regs;
    cache::SharedIndexInformer* informer = nullptr;
    {
      MutexLock lock(mu_);
      regs.swap(registrations_);
      informer = started_informer_;
    }
    if (informer == nullptr) return;
    for (const auto& r : regs) (void)informer->RemoveEventHandler(r);
  }

  std::string String() const override {
    return "kind source: " + (informer_ != nullptr ? informer_->Name() : gvr_.String());
  }

 private:
  cache::SharedIndexInformer& Informer() {
    if (informer_ != nullptr) return *informer_;
    return scope_ ? factory_->ForResource(gvr_, *scope_) : factory_->ForResource(gvr_);
  }

  cache::SharedInformerFactory* const factory_;
  const GroupVersionResource gvr_;
  const std::optional<cache::InformerScope> scope_;
  cache::SharedIndexInformer* const informer_;
  mutable Mutex mu_;
  std::vector<std::shared_ptr<cache::HandlerRegistration>> registrations_ KUBE_GUARDED_BY(mu_);
  cache::SharedIndexInformer* started_informer_ KUBE_GUARDED_BY(mu_) = nullptr;  // owned elsewhere
  // OnSynced observers, attached to every registration (including those Start adds later).
  std::vector<std::function<void()>> sync_observers_ KUBE_GUARDED_BY(mu_);
};

}  // namespace

std::shared_ptr<Source> Kind(cache::SharedInformerFactory& factory, GroupVersionResource gvr) {
  return std::make_shared<KindSource>(&factory, std::move(gvr), std::nullopt, nullptr);
}

std::shared_ptr<Source> Kind(cache::SharedInformerFactory& factory, GroupVersionResource gvr,
                             const cache::InformerScope& scope) {
  return std::make_shared<KindSource>(&factory, std::move(gvr), scope, nullptr);
}

std::shared_ptr<Source> Kind(cache::SharedIndexInformer& informer) {
  return std::make_shared<KindSource>(nullptr, GroupVersionResource{}, std::nullopt, &informer);
}

void Channel::Push(ObjectPtr object) {
  if (object == nullptr) return;
  std::vector<std::shared_ptr<const EventDispatcher>> targets;
  {
    MutexLock lock(mu_);
    if (stopped_) return;
    if (dispatchers_.empty()) {
      pending_.push_back(std::move(object));
      return;
    }
    targets = dispatchers_;
  }
  for (const auto& d : targets) d->OnGeneric({.object = object});
}

Result<void> Channel::Start(std::shared_ptr<const EventDispatcher> dispatcher) {
  std::deque<ObjectPtr> backlog;
  {
    MutexLock lock(mu_);
    if (stopped_) return CanceledError("channel source: stopped");
    dispatchers_.push_back(dispatcher);
    backlog.swap(pending_);
  }
  for (const auto& obj : backlog) dispatcher->OnGeneric({.object = obj});
  return {};
}

void Channel::Stop() {
  MutexLock lock(mu_);
  stopped_ = true;
  dispatchers_.clear();
  pending_.clear();
}

}  // namespace kube::controller
