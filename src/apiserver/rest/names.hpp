#pragma once

#include <kube/core/validation.hpp>

#include <string>
#include <string_view>
#include <vector>

#include <boost/json/fwd.hpp>

#include <kube/core/status.hpp>

/// Name and metadata validation with apimachinery's exact messages
/// (`k8s.io/apimachinery/pkg/util/validation`, `pkg/api/validation/objectmeta.go`).
/// Each `Is*` function returns the list of violations (empty = valid), in kube's order.
/// **Thread-safety:** every function is pure.
namespace kube::apiserver::rest {

/// How a kind's `metadata.name` is validated (the strategy's name function).
enum class NameRule {
  kDnsSubdomain,  ///< RFC 1123 subdomain, <= 253 (most kinds)
  kDnsLabel,      ///< RFC 1123 label, <= 63 (namespaces)
  kDns1035Label,  ///< RFC 1035 label, <= 63 (services)
  kPathSegment,   ///< only not "." / "..", no "/" or "%" (core/v1 events)
};

using validation::IsDns1123Subdomain;
using validation::IsDns1123Label;
using validation::IsDns1035Label;
/// `ValidatePathSegmentName`.
std::vector<std::string> IsValidPathSegmentName(std::string_view value);
/// A label/annotation key: `[DNS-subdomain prefix "/"] name`, name <= 63 chars.
using validation::IsQualifiedName;
/// A label value: empty or <= 63 chars of `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`.
using validation::IsValidLabelValue;
/// A ConfigMap/Secret data key: `[-._a-zA-Z0-9]+`, <= 253, not "." / ".." / "..*".
std::vector<std::string> IsConfigMapKey(std::string_view value);

/// The messages of `rule` for `name`; with `prefix` the name is a generateName prefix (a trailing
/// '-' is allowed, as `maskTrailingDash`).
std::vector<std::string> ValidateName(NameRule rule, std::string_view name, bool prefix);

/// `ValidateObjectMeta` on a create/update: name or generateName (Required / Invalid per `rule`),
/// labels (keys and values), annotation keys and their total size (256 KiB).
/// `metadata` is the object's `metadata` member (may be null/absent → treated as empty).
std::vector<FieldError> ValidateObjectMeta(const boost::json::object& metadata, NameRule rule);

/// The core API's extra finalizer rule (`validateKubeFinalizerName`, for built-in kinds but not
/// CRDs or custom resources): a finalizer without a `/` prefix must be a standard one
/// (`kubernetes`, `orphan`, `foregroundDeletion`).
std::vector<FieldError> ValidateKubeFinalizerNames(const boost::json::object& metadata);

}  // namespace kube::apiserver::rest
