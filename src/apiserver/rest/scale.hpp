#pragma once

#include <functional>
#include <string_view>

#include <boost/json/object.hpp>

#include <kube/base/result.hpp>

#include "apiserver/rest/context.hpp"

/// The `/scale` subresource: an autoscaling/v1 Scale view of the replicas of a workload.
namespace kube::apiserver::rest {

/// Decodes a PUT /scale body (autoscaling/v1 Scale; kind/apiVersion defaulted when absent).
/// **Errors:** 400 for malformed JSON, another kind/apiVersion or a name that differs from the URL.
Result<boost::json::object> DecodeScale(const Request& r, std::string_view body);

/// Computes the desired Scale from the current one (`current` carries the object's RV and uid).
using ScaleFn = std::function<Result<boost::json::object>(const boost::json::object& current)>;

/// Updates the replicas of the object named by `r` from the Scale `fn` returns, with kube's rules:
/// `spec.replicas` >= 0 (422, kind Scale.autoscaling), the Scale's resourceVersion is the update
/// precondition (409 on mismatch; empty = unconditional where the resource allows it), a uid in the
/// Scale must match. Returns the resulting Scale.
Result<boost::json::object> UpdateScale(const Env& env, const Request& r, const ScaleFn& fn, bool dry_run);

}  // namespace kube::apiserver::rest
