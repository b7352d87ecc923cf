#include <kube/controller/builder.hpp>

#include <algorithm>
#include <cctype>
#include <utility>

#include <kube/controller/manager.hpp>

namespace kube::controller {

Builder& Builder::For(GroupVersionResource gvr, std::vector<Predicate> predicates) {
  ++for_count_;
  watches_.push_back(PendingWatch{.source = nullptr,
                                  .gvr = std::move(gvr),
                                  .handler = nullptr,
                                  .predicates = std::move(predicates),
                                  .role = PendingWatch::Role::kFor});
  return *this;
}

Builder& Builder::Owns(GroupVersionResource gvr, std::vector<Predicate> predicates) {
  watches_.push_back(PendingWatch{.source = nullptr,
                                  .gvr = std::move(gvr),
                                  .handler = nullptr,
                                  .predicates = std::move(predicates),
                                  .role = PendingWatch::Role::kOwns});
  return *this;
}

Builder& Builder::Watches(std::shared_ptr<Source> source, std::shared_ptr<EventHandler> handler,
                          std::vector<Predicate> predicates) {
  watches_.push_back(PendingWatch{.source = std::move(source),
                                  .gvr = std::nullopt,
                                  .handler = std::move(handler),
                                  .predicates = std::move(predicates),
                                  .role = PendingWatch::Role::kWatches});
  return *this;
}

Builder& Builder::Watches(GroupVersionResource gvr, std::shared_ptr<EventHandler> handler,
                          std::vector<Predicate> predicates) {
  watches_.push_back(PendingWatch{.source = nullptr,
                                  .gvr = std::move(gvr),
                                  .handler = std::move(handler),
                                  .predicates = std::move(predicates),
                                  .role = PendingWatch::Role::kWatches});
  return *this;
}

Builder& Builder::WithEventFilter(Predicate predicate) {
  global_predicates_.push_back(std::move(predicate));
  return *this;
}

Builder& Builder::WithOptions(ControllerOptions options) {
  options_ = std::move(options);
  return *this;
}

Builder& Builder::Named(std::string name) {
  name_ = std::move(name);
  return *this;
}

Result<std::shared_ptr<Controller>> Builder::Complete(ReconcileFunc reconcile) {
  if (!reconcile) return BadRequest("builder: Complete with an empty reconcile function");
  return Complete(MakeReconciler(std::move(reconcile)));
}

Result<std::shared_ptr<Controller>> Builder::Complete(std::shared_ptr<Reconciler> reconciler) {
  if (reconciler == nullptr) return BadRequest("builder: Complete with a null reconciler");
  if (for_count_ > 1) return BadRequest("builder: For() may only be called once");
  const bool has_watches = std::any_of(watches_.begin(), watches_.end(), [](const PendingWatch& w) {
    return w.role == PendingWatch::Role::kWatches;
  });
  const bool has_owns = std::any_of(watches_.begin(), watches_.end(), [](const PendingWatch& w) {
    return w.role == PendingWatch::Role::kOwns;
  });
  if (for_count_ == 0) {
    if (has_owns) return BadRequest("builder: Owns() needs For(): the owner kind is the For resource's");
    if (!name_ || !has_watches) {
      return BadRequest("builder: For() is required (or Named() together with Watches())");
    }
  }

  client::RestMapper& mapper = manager_.GetRestMapper();
  // Resolve every resource now: a typo fails here, not as an informer that never syncs.
  std::optional<GroupVersionKind> for_kind;
  bool for_namespaced = true;
  for (PendingWatch& w : watches_) {
    if (w.role == PendingWatch::Role::kWatches && w.source == nullptr && !w.gvr) {
      return BadRequest("builder: Watches() with a null source");
    }
    if (w.role == PendingWatch::Role::kWatches && w.handler == nullptr) {
      return BadRequest("builder: Watches() with a null handler");
    }
    if (!w.gvr) continue;
    auto full = mapper.ResourceFor(*w.gvr);
    if (!full.ok()) return std::move(full).error();
    w.gvr = *full;
    if (w.role == PendingWatch::Role::kFor) {
      auto kind = mapper.KindFor(*full);
      if (!kind.ok()) return std::move(kind).error();
      for_kind = *kind;
      auto namespaced = mapper.IsNamespaced(*kind);
      if (!namespaced.ok()) return std::move(namespaced).error();
      for_namespaced = *namespaced;
    }
  }

  ControllerOptions options = options_.value_or(ControllerOptions{});
  if (name_) {
    options.name = *name_;
  } else if (options.name.empty() && for_kind) {
    options.name = for_kind->kind;
    std::transform(options.name.begin(), options.name.end(), options.name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  }
  if (options.name.empty()) return BadRequest("builder: the controller name is empty");
  for (char c : options.name) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '"' || c == '\\') {
      return BadRequest("builder: invalid controller name \"" + options.name + "\"");
    }
  }
  if (auto r = manager_.ReserveControllerName(options.name); !r.ok()) return std::move(r).error();

  auto controller = Controller::Create(manager_.ControllerDefaults(std::move(options)), std::move(reconciler));
  if (!controller.ok()) return std::move(controller).error();

  cache::SharedInformerFactory& factory = manager_.GetInformerFactory();
  for (PendingWatch& w : watches_) {
    std::shared_ptr<Source> source = w.source != nullptr ? w.source : Kind(factory, *w.gvr);
    std::shared_ptr<EventHandler> handler = w.handler;
    switch (w.role) {
      case PendingWatch::Role::kFor:
        handler = EnqueueRequestForObject();
        break;
      case PendingWatch::Role::kOwns:
        handler = EnqueueRequestForOwner(for_kind->ToGroupKind(),
                                         {.only_controller = true, .owner_cluster_scoped = !for_namespaced});
        break;
      case PendingWatch::Role::kWatches:
        break;
    }
    std::vector<Predicate> predicates = w.predicates;
    predicates.insert(predicates.end(), global_predicates_.begin(), global_predicates_.end());
    if (auto r = (*controller)->Watch(std::move(source), std::move(handler), std::move(predicates)); !r.ok()) {
      return std::move(r).error();
    }
  }
  if (auto r = manager_.AddController(*controller); !r.ok()) return std::move(r).error();
  return controller;
}

}  // namespace kube::controller
