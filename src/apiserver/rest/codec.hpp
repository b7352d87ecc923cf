#pragma once

#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include <kube/apiserver/resource.hpp>
#include <kube/apiserver/storage.hpp>
#include <kube/base/result.hpp>

/// How objects travel between requests and storage: member order as kube serializes it, a
/// resourceVersion stamped at commit time, and the served view of a stored value.
/// **Thread-safety:** pure functions; `StampedJson` is a value.
namespace kube::apiserver::rest {

/// Reorders members as kube's Go structs serialize them: `kind`, `apiVersion`, `metadata`, then
/// the rest in their current order; inside `metadata` the ObjectMeta field order (name,
/// generateName, namespace, selfLink, uid, resourceVersion, generation, creationTimestamp,
/// deletionTimestamp, deletionGracePeriodSeconds, labels, annotations, ownerReferences,
/// finalizers, managedFields), unknown members last. Like Go's `omitempty`, it drops empty or null
/// `metadata.labels`, `annotations`, `ownerReferences`, `finalizers`, `managedFields` and the
/// top-level `data`, `binaryData` and `stringData` maps (so removing the last label leaves no `{}`).
void NormalizeMemberOrder(boost::json::object& obj);

/// An object serialized once, with `metadata.resourceVersion` left as a hole that `At` fills, so
/// that the value a storage `ValueFn` returns costs one concatenation under the commit lock.
class StampedJson final {
 public:
  /// Serializes `obj` (its member order as given) with a placeholder resourceVersion.
  explicit StampedJson(boost::json::object obj);
  /// The JSON with `metadata.resourceVersion` = `revision`.
  std::string At(Revision revision) const;

 private:
  std::string head_;  // up to and including the opening quote of the resourceVersion value
  std::string tail_;  // from its closing quote
};

/// Parses a stored value (or a request body already known to be valid) into a DOM.
/// **Errors:** 500 InternalError when a stored value is not a JSON object (corrupt storage).
Result<boost::json::object> ParseStored(std::string_view value);

/// The JSON text of a stored value as `info` serves it (identity except for converted views).
std::string ServedJson(const ResourceInfo& info, std::string_view stored);

/// The DOM of a stored value as `info` serves it.
Result<boost::json::object> ServedObject(const ResourceInfo& info, std::string_view stored);

/// `s` parsed as a decimal resourceVersion (> 0); nullopt for anything else.
std::optional<Revision> ParseRevision(std::string_view s);

}  // namespace kube::apiserver::rest
