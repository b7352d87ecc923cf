#include <kube/controller/handler.hpp>

#include <utility>

#include <kube/core/gvk.hpp>

namespace kube::controller {
namespace {

void AddObject(const ObjectPtr& obj, Queue& queue) {
  if (obj == nullptr || obj->Name().empty()) return;
  queue.Add(Request{obj->GetObjectKey()});
}

class ForObject final : public EventHandler {
 public:
  void Create(const CreateEvent& e, Queue& q) override { AddObject(e.object, q); }
  void Update(const UpdateEvent& e, Queue& q) override {
    AddObject(e.new_object != nullptr ? e.new_object : e.old_object, q);
  }
  void Delete(const DeleteEvent& e, Queue& q) override { AddObject(e.object, q); }
  void Generic(const GenericEvent& e, Queue& q) override { AddObject(e.object, q); }
};

class ForOwner final : public EventHandler {
 public:
  ForOwner(GroupKind owner, OwnerHandlerOptions options) : owner_(std::move(owner)), options_(options) {}
  void Create(const CreateEvent& e, Queue& q) override { AddOwners(e.object, q); }
  void Update(const UpdateEvent& e, Queue& q) override {
    AddOwners(e.old_object, q);
    AddOwners(e.new_object, q);
  }
  void Delete(const DeleteEvent& e, Queue& q) override { AddOwners(e.object, q); }
  void Generic(const GenericEvent& e, Queue& q) override { AddOwners(e.object, q); }

 private:
  bool Matches(const OwnerReference& ref) const {
    if (ref.kind != owner_.kind || ref.name.empty()) return false;
    auto gv = GroupVersion::Parse(ref.api_version);
    return gv.ok() && gv->group == owner_.group;
  }
  void AddOwners(const ObjectPtr& obj, Queue& q) const {
    if (obj == nullptr) return;
    const std::string ns = options_.owner_cluster_scoped ? std::string() : std::string(obj->Namespace());
    if (options_.only_controller) {
      auto ref = obj->ControllerRef();
      if (ref && Matches(*ref)) q.Add(Request{ObjectKey{ns, std::string(ref->name)}});
      return;
    }
    for (const OwnerReference& ref : obj->OwnerReferences()) {
      if (Matches(ref)) q.Add(Request{ObjectKey{ns, std::string(ref.name)}});
    }
  }

  const GroupKind owner_;
  const OwnerHandlerOptions options_;
};

class FromMapFunc final : public EventHandler {
 public:
  explicit FromMapFunc(MapFunc fn) : fn_(std::move(fn)) {}
  void Create(const CreateEvent& e, Queue& q) override { Map(e.object, q); }
  void Update(const UpdateEvent& e, Queue& q) override {
    Map(e.old_object, q);
    Map(e.new_object, q);
  }
  void Delete(const DeleteEvent& e, Queue& q) override { Map(e.object, q); }
  void Generic(const GenericEvent& e, Queue& q) override { Map(e.object, q); }

 private:
  void Map(const ObjectPtr& obj, Queue& q) const {
    if (obj == nullptr || !fn_) return;
    for (const Request& r : fn_(obj)) q.Add(r);
  }
  const MapFunc fn_;
};

}  // namespace

std::shared_ptr<EventHandler> EnqueueRequestForObject() { return std::make_shared<ForObject>(); }

std::shared_ptr<EventHandler> EnqueueRequestForOwner(GroupKind owner, OwnerHandlerOptions options) {
  return std::make_shared<ForOwner>(std::move(owner), options);
}

std::shared_ptr<EventHandler> EnqueueRequestsFromMapFunc(MapFunc fn) {
  return std::make_shared<FromMapFunc>(std::move(fn));
}

}  // namespace kube::controller
