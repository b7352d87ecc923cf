#include "apiserver/rest/selection.hpp"

#include <vector>

#include <boost/json.hpp>

#include <kube/core/json.hpp>
#include <kube/core/status.hpp>

#include "apiserver/rest/strategy.hpp"

namespace kube::apiserver::rest {
namespace {

// Reads field labels of one stored object for FieldSelector::Matches.
struct FieldReader {
  const ResourceInfo& info;
  const Object& obj;
  mutable std::string scratch;

  std::optional<std::string_view> Get(std::string_view field) const {
    if (field == "metadata.name") return obj.Name();
    if (field == "metadata.namespace") return obj.Namespace();
    for (const auto& [label, pointer] : info.field_selectors) {
      if (label != field) continue;
      const auto value = obj.Get(pointer);
      scratch = FieldValueString(field, value ? &*value : nullptr);
      return std::string_view(scratch);
    }
    return std::nullopt;
  }
};

}  // namespace

Result<Selection> Selection::Parse(const ResourceInfo& info, const ListOptions& opts) {
  auto labels = LabelSelector::Parse(opts.label_selector);
  if (!labels.ok()) return NewBadRequest(labels.error().message);
  auto fields = FieldSelector::Parse(opts.field_selector);
  if (!fields.ok()) return NewBadRequest(fields.error().message);
  for (const auto& req : fields->Requirements()) {
    if (req.field == "metadata.name" || req.field == "metadata.namespace") continue;
    bool known = false;
    for (const auto& [label, pointer] : info.field_selectors) known = known || label == req.field;
    if (known) continue;
    if (!info.field_selectors.empty()) return NewBadRequest("field label not supported: " + req.field);
    return NewBadRequest(QuoteJson(req.field) +
                         " is not a known field selector: only \"metadata.name\", \"metadata.namespace\"");
  }
  return Selection(info, std::move(*labels), std::move(*fields));
}

bool Selection::Matches(const Object& obj) const {
  if (!labels_.Matches(obj.Labels())) return false;
  if (fields_.Empty()) return true;
  return fields_.Matches(FieldReader{*info_, obj, {}});
}

bool Selection::MatchesStored(std::string_view stored) const {
  if (Empty()) return true;
  auto obj = Object::Parse(stored);
  return obj.ok() && Matches(**obj);
}

Result<void> ValidateListOptions(const ListOptions& opts) {
  std::vector<FieldError> errs;
  const std::string& match = opts.resource_version_match;
  if (opts.watch) {
    if (opts.send_initial_events.has_value() && match != "NotOlderThan") {
      errs.push_back(FieldError::Forbidden(
          "resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"));
    }
    if (!match.empty()) {
      if (!opts.send_initial_events.has_value()) {
        errs.push_back(FieldError::Forbidden(
            "resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
      }
      if (match != "NotOlderThan") {
        errs.push_back(FieldError::NotSupported("resourceVersionMatch", QuoteJson(match), {"NotOlderThan"}));
      }
      if (!opts.continue_token.empty()) {
        errs.push_back(FieldError::Forbidden("resourceVersionMatch",
                                             "resourceVersionMatch is forbidden when continue is provided"));
      }
    }
  } else {
    if (!match.empty()) {
      if (opts.resource_version.empty()) {
        errs.push_back(FieldError::Forbidden(
            "resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"));
      }
      if (!opts.continue_token.empty()) {
        errs.push_back(FieldError::Forbidden("resourceVersionMatch",
                                             "resourceVersionMatch is forbidden when continue is provided"));
      }
      if (match != "Exact" && match != "NotOlderThan") {
        errs.push_back(FieldError::NotSupported("resourceVersionMatch", QuoteJson(match),
                                                {"Exact", "NotOlderThan", ""}));
      }
      if (match == "Exact" && opts.resource_version == "0") {
        errs.push_back(FieldError::Forbidden("resourceVersionMatch",
                                             "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""));
      }
    }
    if (opts.send_initial_events.has_value()) {
      errs.push_back(FieldError::Forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
    }
  }
  if (errs.empty()) return Ok();
  return NewInvalid(GroupKind{"meta.k8s.io", "ListOptions"}, "", errs);
}

}  // namespace kube::apiserver::rest
