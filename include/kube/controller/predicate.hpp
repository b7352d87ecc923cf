#pragma once
/// \file
/// Predicates (controller-runtime `predicate`): filter events before they reach a handler. A
/// predicate is a value: four functions, one per event type; an unset function accepts.
/// Combine them with And / Or / Not.

#include <functional>
#include <string>
#include <vector>

#include <kube/controller/event.hpp>
#include <kube/core/label_selector.hpp>

namespace kube::controller {

/// A filter over events. Unset functions accept every event of their type, so a predicate that
/// only cares about updates sets only `update`:
/// ```
/// Predicate only_scaled{.update = [](const UpdateEvent& e) { return ...; }};
/// ```
/// **Thread-safety:** the functions must be safe to call concurrently.
struct Predicate {
  std::function<bool(const CreateEvent&)> create{};
  std::function<bool(const UpdateEvent&)> update{};
  std::function<bool(const DeleteEvent&)> del{};
  std::function<bool(const GenericEvent&)> generic{};

  /// Whether the create event passes.
  bool Create(const CreateEvent& e) const { return !create || create(e); }
  /// Whether the update event passes.
  bool Update(const UpdateEvent& e) const { return !update || update(e); }
  /// Whether the delete event passes.
  bool Delete(const DeleteEvent& e) const { return !del || del(e); }
  /// Whether the generic event passes.
  bool Generic(const GenericEvent& e) const { return !generic || generic(e); }
};

/// controller-runtime's name for a predicate built from functions.
using PredicateFuncs = Predicate;

/// Passes updates whose `metadata.generation` changed, so status-only and metadata-only updates
/// (which do not bump the generation) are skipped. Other events pass. Note: resources without
/// a generation (ConfigMaps, ...) have generation 0 on both sides and never pass an update.
Predicate GenerationChanged();
/// Passes updates whose resourceVersion changed (drops periodic resyncs). Other events pass.
Predicate ResourceVersionChanged();
/// Passes updates whose labels changed. Other events pass.
Predicate LabelChanged();
/// Passes updates whose annotations changed. Other events pass.
Predicate AnnotationChanged();
/// Passes events whose object's labels match `selector` (for updates: the new object; a delete
/// without an object does not pass).
Predicate LabelSelectorPredicate(LabelSelector selector);

/// Passes an event when every predicate passes it (an empty list passes everything).
Predicate And(std::vector<Predicate> predicates);
/// Passes an event when at least one predicate passes it (an empty list passes nothing).
Predicate Or(std::vector<Predicate> predicates);
/// Passes an event when `predicate` does not.
Predicate Not(Predicate predicate);

/// Variadic forms: `And(GenerationChanged(), LabelChanged())`.
template <class... P>
  requires(sizeof...(P) >= 2)
Predicate And(P... predicates) {
  return And(std::vector<Predicate>{std::move(predicates)...});
}
/// `Or(a, b, ...)`.
template <class... P>
  requires(sizeof...(P) >= 2)
Predicate Or(P... predicates) {
  return Or(std::vector<Predicate>{std::move(predicates)...});
}

}  // namespace kube::controller
