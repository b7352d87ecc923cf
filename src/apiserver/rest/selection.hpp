#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <kube/apiserver/resource.hpp>
#include <kube/core/field_selector.hpp>
#include <kube/core/label_selector.hpp>
#include <kube/core/object.hpp>
#include <kube/core/options.hpp>

/// Label/field selection of list, watch and deletecollection requests, and the validation of
/// their ListOptions. **Thread-safety:** a `Selection` is immutable once built and safe to share.
namespace kube::apiserver::rest {

/// The selectors of one request, checked against the resource's supported field labels.
class Selection final {
 public:
  /// Parses `opts.label_selector` and `opts.field_selector` for `info`.
  /// **Errors:** 400 BadRequest for a malformed selector, and for a field label the resource does
  /// not support: `field label not supported: <label>` for kinds with their own field labels,
  /// kube's default `"<label>" is not a known field selector: only "metadata.name",
  /// "metadata.namespace"` otherwise.
  static Result<Selection> Parse(const ResourceInfo& info, const ListOptions& opts);

  /// True when no selector restricts anything.
  bool Empty() const { return labels_.Empty() && fields_.Empty(); }
  /// True when `obj` (in stored form) matches both selectors.
  bool Matches(const Object& obj) const;
  /// Parses `stored` and tests it; a value that does not parse never matches.
  bool MatchesStored(std::string_view stored) const;
  /// The value a matching object must have for `field` (`metadata.name`, `metadata.namespace`).
  std::optional<std::string> ExactField(std::string_view field) const {
    return fields_.RequiresExactMatch(field);
  }

 private:
  Selection(const ResourceInfo& info, LabelSelector labels, FieldSelector fields)
      : info_(&info), labels_(std::move(labels)), fields_(std::move(fields)) {}

  const ResourceInfo* info_;  // borrowed: the request's ResourcePtr keeps it alive
  LabelSelector labels_;
  FieldSelector fields_;
};

/// apimachinery `ValidateListOptions` for a list (`watch == false`) or a watch.
/// **Errors:** 422 Invalid, kind `ListOptions`, group `meta.k8s.io`, with kube's messages.
Result<void> ValidateListOptions(const ListOptions& opts);

}  // namespace kube::apiserver::rest
