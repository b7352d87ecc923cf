#include <kube/controller/finalizer.hpp>

#include <exception>
#include <utility>

namespace kube::controller {

Result<void> FinalizeResult::Errors() const {
  if (failed.empty()) return Ok();
  std::string message = "finalizers failed:";
  for (const auto& [name, error] : failed) message += " " + name + ": " + error.message + ";";
  message.pop_back();
  Error e = failed.front().second;
  e.message = std::move(message);
  return e;
}

void FinalizeResult::ApplyTo(ObjectBuilder& object) const {
  for (const auto& name : added) object.AddFinalizer(name);
  for (const auto& name : removed) object.RemoveFinalizer(name);
}

Result<void> FinalizerRegistry::Register(std::string name, FinalizerFn fn) {
  if (name.empty()) return BadRequest("finalizer name must not be empty");
  if (!fn) return BadRequest("finalizer " + name + ": no cleanup function");
  for (const auto& [existing, f] : finalizers_) {
    if (existing == name) return BadRequest("finalizer " + name + " is already registered");
  }
  finalizers_.emplace_back(std::move(name), std::move(fn));
  return Ok();
}

FinalizeResult FinalizerRegistry::Finalize(const Object& object) const {
  FinalizeResult result;
  const auto present = object.Finalizers();
  if (!object.IsBeingDeleted()) {
    for (const auto& [name, fn] : finalizers_) {
      if (!present.Contains(name)) result.added.push_back(name);
    }
    return result;
  }
  for (const auto& [name, fn] : finalizers_) {
    if (!present.Contains(name)) continue;
    Result<void> r = Ok();
    try {
      r = fn(object);
    } catch (const std::exception& e) {
      r = InternalError("finalizer " + name + " threw: " + e.what());
    } catch (...) {
      r = InternalError("finalizer " + name + " threw a non-standard exception");
    }
    if (r.ok()) {
      result.removed.push_back(name);
    } else {
      result.failed.emplace_back(name, std::move(r).error());
    }
  }
  return result;
}

namespace {

// Writes the finalizer changes of `result` on `object` with `update`, then reports failures.
Result<FinalizeResult> WriteFinalizers(FinalizeResult result, const Object& object,
                                       const std::function<Result<ObjectPtr>(const Object&)>& update) {
  if (result.Updated()) {
    ObjectBuilder b(object);
    result.ApplyTo(b);
    auto built = b.Build();
    if (!built.ok()) return std::move(built).error();
    auto updated = update(**built);
    if (!updated.ok()) return std::move(updated).error();
  }
  if (auto errors = result.Errors(); !errors.ok()) return std::move(errors).error();
  return result;
}

}  // namespace

Result<FinalizeResult> FinalizerRegistry::FinalizeAndUpdate(const client::Api& api, const Object& object) const {
  const client::Api target =
      object.Namespace().empty() || !api.ns().empty() ? api : api.Namespace(std::string(object.Namespace()));
  return WriteFinalizers(Finalize(object), object, [&](const Object& o) { return target.Update(o); });
}

Result<FinalizeResult> FinalizerRegistry::FinalizeAndUpdate(ClientInterface& client, const Object& object) const {
  return WriteFinalizers(Finalize(object), object, [&](const Object& o) { return client.Update(o); });
}

}  // namespace kube::controller
