#include <kube/controller/predicate.hpp>

#include <algorithm>
#include <utility>

namespace kube::controller {
namespace {

bool SameMap(const StringMapView& a, const StringMapView& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

bool BothPresent(const UpdateEvent& e) { return e.old_object != nullptr && e.new_object != nullptr; }

}  // namespace

Predicate GenerationChanged() {
  return {.update = [](const UpdateEvent& e) {
    return BothPresent(e) && e.old_object->Generation() != e.new_object->Generation();
  }};
}

Predicate ResourceVersionChanged() {
  return {.update = [](const UpdateEvent& e) {
    return BothPresent(e) && e.old_object->ResourceVersion() != e.new_object->ResourceVersion();
  }};
}

Predicate LabelChanged() {
  return {.update = [](const UpdateEvent& e) {
    return BothPresent(e) && !SameMap(e.old_object->Labels(), e.new_object->Labels());
  }};
}

Predicate AnnotationChanged() {
  return {.update = [](const UpdateEvent& e) {
    return BothPresent(e) && !SameMap(e.old_object->Annotations(), e.new_object->Annotations());
  }};
}

Predicate LabelSelectorPredicate(LabelSelector selector) {
  auto sel = std::make_shared<const LabelSelector>(std::move(selector));
  auto matches = [sel](const ObjectPtr& o) { return o != nullptr && sel->Matches(o->Labels()); };
  return {
      .create = [matches](const CreateEvent& e) { return matches(e.object); },
      .update = [matches](const UpdateEvent& e) { return matches(e.new_object); },
      .del = [matches](const DeleteEvent& e) { return matches(e.object); },
      .generic = [matches](const GenericEvent& e) { return matches(e.object); },
  };
}

Predicate And(std::vector<Predicate> predicates) {
  auto ps = std::make_shared<const std::vector<Predicate>>(std::move(predicates));
  return {
      .create = [ps](const CreateEvent& e) {
        return std::all_of(ps->begin(), ps->end(), [&](const Predicate& p) { return p.Create(e); });
      },
      .update = [ps](const UpdateEvent& e) {
        return std::all_of(ps->begin(), ps->end(), [&](const Predicate& p) { return p.Update(e); });
      },
      .del = [ps](const DeleteEvent& e) {
        return std::all_of(ps->begin(), ps->end(), [&](const Predicate& p) { return p.Delete(e); });
      },
      .generic = [ps](const GenericEvent& e) {
        return std::all_of(ps->begin(), ps->end(), [&](const Predicate& p) { return p.Generic(e); });
      },
  };
}

Predicate Or(std::vector<Predicate> predicates) {
  auto ps = std::make_shared<const std::vector<Predicate>>(std::move(predicates));
  return {
      .create = [ps](const CreateEvent& e) {
        return std::any_of(ps->begin(), ps->end(), [&](const Predicate& p) { return p.Create(e); });
      },
      .update = [ps](const UpdateEvent& e) {
        return std::any_of(ps->begin(), ps->end(), [&](const Predicate& p) { return p.Update(e); });
      },
      .del = [ps](const DeleteEvent& e) {
        return std::any_of(ps->begin(), ps->end(), [&](const Predicate& p) { return p.Delete(e); });
      },
      .generic = [ps](const GenericEvent& e) {
        return std::any_of(ps->begin(), ps->end(), [&](const Predicate& p) { return p.Generic(e); });
      },
  };
}

Predicate Not(Predicate predicate) {
  auto p = std::make_shared<const Predicate>(std::move(predicate));
  return {
      .create = [p](const CreateEvent& e) { return !p->Create(e); },
      .update = [p](const UpdateEvent& e) { return !p->Update(e); },
      .del = [p](const DeleteEvent& e) { return !p->Delete(e); },
      .generic = [p](const GenericEvent& e) { return !p->Generic(e); },
  };
}

}  // namespace kube::controller
